#!/usr/bin/env python3
"""Forwards a dataset of a RETURNN config and prints the mean, standard deviation, min and max of one layer's
output over all frames, as the reference's tool.

Usage::

    tools/dump-forward-stats.py my.config --layer lstm [--dataset train] [--epoch 1] [--load model.010]
        [--reset_seq_ordering default] [--dump_stats /tmp/stats] [++key value ...]

``--dump_stats PREFIX`` writes ``PREFIX.mean.txt``, ``.std_dev.txt``, ``.min.txt``, ``.max.txt`` (one number a
line) and ``PREFIX.info.txt``. The dataset's ``partition_epoch`` and ``seq_ordering`` are replaced by the
``--reset_*`` options (defaults 1 and ``sorted_reverse``).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Forward something and dump it.")
    parser.add_argument("returnn_config")
    parser.add_argument("--dataset", default="train", help="if given the config, specifies the dataset. e.g. 'train'")
    parser.add_argument("--reset_partition_epoch", type=int, default=1)
    parser.add_argument("--reset_seq_ordering", default="sorted_reverse")
    parser.add_argument("--reset_epoch_wise_filter", default=None)
    parser.add_argument("--layer", required=True)
    parser.add_argument("--epoch", type=int, default=1, help="for the dataset")
    parser.add_argument("--load", help="model to load")
    parser.add_argument("--stats", action="store_true", help="calculate mean/stddev stats over stats_layer")
    parser.add_argument("--dump_stats", help="file-prefix to dump stats to")
    args, rest = parser.parse_known_args(argv)
    from returnn.tf.tools.forward_stats import forward_stats
    from returnn.util.literal_py_to_pickle import literal_eval

    wise_filter = literal_eval(args.reset_epoch_wise_filter) if args.reset_epoch_wise_filter else None
    forward_stats(args.returnn_config, layer=args.layer, dataset=args.dataset,
                  reset_partition_epoch=args.reset_partition_epoch, reset_seq_ordering=args.reset_seq_ordering,
                  reset_epoch_wise_filter=wise_filter, epoch=args.epoch, load=args.load, dump_stats=args.dump_stats,
                  command_line_options=rest)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
