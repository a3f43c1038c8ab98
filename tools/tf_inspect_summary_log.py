#!/usr/bin/env python3
"""
Prints the values of one tag of a TF summary log (an ``events.out.tfevents.*`` file of ``tf_log_dir``).

Usage::

    tools/tf_inspect_summary_log.py [--tag TAG] FILE

Output: ``file: FILE``, ``tag: TAG``, one line ``step N: VALUE`` per value of that tag, then ``done``.
Exit status 1 with one message if the file cannot be read.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.util.cli import run_tool  # noqa: E402


def main(argv=None) -> int:
    """Runs the tool (see the module doc)."""
    parser = argparse.ArgumentParser(prog="tf_inspect_summary_log.py")
    parser.add_argument("file", help="e.g. events.out.tfevents...")
    parser.add_argument("--tag", default="objective/loss", help="default is 'objective/loss'")
    args = parser.parse_args(argv)

    from returnn.errors import ReturnnError
    from returnn.tf.util.summary_log import scalar_values

    print("file: %s" % args.file)
    print("tag: %s" % args.tag)
    try:
        values = scalar_values(args.file, args.tag)
    except ReturnnError as exc:
        print("tf_inspect_summary_log: %s" % exc, file=sys.stderr)
        return 1
    for step, value in values:
        print("step %i: %r" % (step, value))
    print("done")
    return 0


if __name__ == "__main__":
    run_tool(main)
