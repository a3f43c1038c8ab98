#!/usr/bin/env python3
"""
Prints the object stored in a pickle file, in the multi-line layout RETURNN uses for Python-literal files
(:func:`returnn.util.pretty.better_repr`: one list item per line, dict keys sorted).

Usage::

    tools/dump-pickle.py FILE

Exit status 1 with one message if the file cannot be read or unpickled.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.util.cli import run_tool  # noqa: E402


def main(argv=None) -> int:
    """Runs the tool (see the module doc)."""
    parser = argparse.ArgumentParser(prog="dump-pickle.py")
    parser.add_argument("file")
    args = parser.parse_args(argv)

    from returnn.errors import ReturnnError
    from returnn.util.pretty import better_repr, load_pickle_file

    try:
        obj = load_pickle_file(args.file)
    except ReturnnError as exc:
        print("dump-pickle: %s" % exc, file=sys.stderr)
        return 1
    print(better_repr(obj))
    return 0


if __name__ == "__main__":
    run_tool(main)
