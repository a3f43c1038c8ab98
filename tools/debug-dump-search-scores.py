#!/usr/bin/env python3
"""Runs the beam search of a config's rec layer over a dataset and dumps, per batch, the decided output and the
per-step labels, scores and source beams of every hypothesis (before and after backtracking) into an HDF file, as
the reference's tool.

Usage::

    tools/debug-dump-search-scores.py my.config --output_file scores.hdf [--dataset config:dev] [--epoch N]
        [--rec_layer_name output] [--att_weights] [--cheating] [--verbosity 4] [--seq_list TAG ...]
        [++key value ...]

See :mod:`returnn.tf.tools.search_scores` for the file layout.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Dump search scores and other info to HDF file.")
    parser.add_argument("config", help="filename to config-file")
    parser.add_argument("--dataset", default="config:train")
    parser.add_argument("--epoch", type=int, default=-1, help="-1 for last epoch")
    parser.add_argument("--output_file", help="hdf", required=True)
    parser.add_argument("--rec_layer_name", default="output")
    parser.add_argument("--cheating", action="store_true", help="add ground truth to the beam")
    parser.add_argument("--att_weights", action="store_true", help="dump all softmax_over_spatial layers")
    parser.add_argument("--verbosity", type=int, default=4, help="5 for all seqs (default: 4)")
    parser.add_argument("--seq_list", nargs="+", help="use only these seqs")
    args, rest = parser.parse_known_args(argv)
    from returnn.tf.tools.search_scores import dump_search_scores

    dump_search_scores(args.config, output_file=args.output_file, dataset=args.dataset, epoch=args.epoch,
                       rec_layer=args.rec_layer_name, cheating=args.cheating, att_weights=args.att_weights,
                       verbosity=args.verbosity, seq_list=args.seq_list, command_line_options=rest)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
