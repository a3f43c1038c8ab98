#!/usr/bin/env python3
"""
Prints the variables of a TF checkpoint, or the value of one or all of them.

Usage::

    tools/tf_inspect_checkpoint.py --file_name PREFIX [--tensor_name NAME | --all_tensors] [--printoptions k=v ...]

Without ``--tensor_name``: one line per variable, ``name (DT_FLOAT) [9,40]``. With ``--tensor_name``: its value
and ``mean``, ``stddev``, ``rms``, ``min``, ``max``. ``--all_tensors``: the value of every variable.
``--printoptions`` sets ``numpy.set_printoptions`` keys, e.g. ``precision=3 threshold=10``.
``--all_tensors`` takes an optional true/false (the reference's tool takes any value, even ``False``, as true).
Exit status 1 if the checkpoint cannot be read or has no such tensor (TF's message is printed; the reference's
tool exits with 0 there).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.util.cli import run_tool  # noqa: E402


def _bool(text: str) -> bool:
    if text.lower() in ("true", "t", "1", "yes"):
        return True
    if text.lower() in ("false", "f", "0", "no"):
        return False
    raise argparse.ArgumentTypeError("expected true or false, got %r" % text)


def _printoption(text: str):
    # TensorFlow is imported only once an argument needs it (``--help`` stays quick)
    from returnn.tf.util.checkpoint_inspect import parse_printoption

    return parse_printoption(text)


def main(argv=None) -> int:
    """Runs the tool (see the module doc)."""
    parser = argparse.ArgumentParser(prog="tf_inspect_checkpoint.py")
    parser.add_argument("--file_name", type=str, default="",
                        help="Checkpoint filename. Note, if using Checkpoint V2 format, file_name is the shared "
                             "prefix between all files in the checkpoint.")
    parser.add_argument("--tensor_name", type=str, default="", help="Name of the tensor to inspect")
    parser.add_argument("--all_tensors", nargs="?", const=True, type=_bool, default=False,
                        help="If True, print the values of all the tensors.")
    parser.add_argument("--printoptions", nargs="*", type=_printoption,
                        help="Argument for numpy.set_printoptions(), in the form 'k=v'.")
    args = parser.parse_args(argv)
    if not args.file_name:
        print("Usage: inspect_checkpoint --file_name=checkpoint_file_name [--tensor_name=tensor_to_print]")
        return 1
    import numpy

    from returnn.tf.util.checkpoint_inspect import inspect_checkpoint

    if args.printoptions:
        numpy.set_printoptions(**dict(args.printoptions))
    ok = inspect_checkpoint(args.file_name, tensor_name=args.tensor_name, all_tensors=args.all_tensors)
    return 0 if ok else 1


if __name__ == "__main__":
    run_tool(main)
