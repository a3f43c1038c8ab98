#!/usr/bin/env python3
"""Prints (or writes with ``--out``) the network dict of a RETURNN config as JSON, as the reference's tool.

Usage::

    tools/dump-network-json.py my.config [--epoch N] [--out net.json]

With ``pretrain`` in the config, ``--epoch`` picks the pretrain epoch's network (default 1). Keys are sorted,
indent 2. The reference's greeting line ``RETURNN dump-dataset starting up.`` (as observed) goes to stderr; a value
JSON cannot hold (a function, a numpy number, ...) is an error naming it.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Dump network as JSON.")
    parser.add_argument("returnn_config_file")
    parser.add_argument("--epoch", default=1, type=int)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    from returnn.tf.tools.network_json import dump_network_json

    dump_network_json(args.returnn_config_file, epoch=args.epoch, out=args.out)


if __name__ == "__main__":
    from returnn.datasets.tool_util import run_main

    run_main(main)
