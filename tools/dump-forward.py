#!/usr/bin/env python3
"""Forwards sequences of a config's ``train`` dataset one at a time and prints every layer's output, as the
reference's tool.

Usage::

    tools/dump-forward.py my.config [--epoch N] [--startseq 0] [--endseq 10] [++key value ...]

Per sequence: ``Seq idx: N``, then ``  <layer>:out: <value>, shape=(...)`` and ``  <layer>:shape(<axis>): <sizes>``
for every layer (sorted); at the end ``Done. More seqs which we did not dumped: True|False``. The model is the
checkpoint training would continue from; ``--endseq -1`` dumps all sequences.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Forward something and dump it.")
    parser.add_argument("returnn_config")
    parser.add_argument("--epoch", type=int, default=None)
    parser.add_argument("--startseq", type=int, default=0, help="start seq idx (inclusive) (default: 0)")
    parser.add_argument("--endseq", type=int, default=10, help="end seq idx (inclusive) or -1 (default: 10)")
    args, rest = parser.parse_known_args(argv)
    from returnn.tf.tools.forward_dump import dump_forward

    dump_forward(args.returnn_config, epoch=args.epoch, startseq=args.startseq, endseq=args.endseq,
                 command_line_options=rest)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
