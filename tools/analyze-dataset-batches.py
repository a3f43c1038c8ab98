#!/usr/bin/env python3
"""Builds the mini-batches of one epoch of a dataset (with the config's ``batch_size``, ``max_seqs``,
``max_seq_length``, ``chunking``, ...) and reports how many batches there are and how much of them is padding.

Usage::

    tools/analyze-dataset-batches.py my.config --dataset dev --endseq -1
    tools/analyze-dataset-batches.py my.config --use_pretrain --epoch 2   # with that epoch's pretrain #config

Each batch is printed at ``--verbosity 5`` (the default); the summary at 3 and more.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import load_config, run_main  # noqa: E402


def _apply_pretrain(config, epoch: int) -> None:
    """Sets the config keys that the pretrain network of ``epoch`` overrides (its ``#config``)."""
    from returnn.pretrain.schedule import pretrain_from_config
    pretrain = pretrain_from_config(config)
    if pretrain is None:
        print("No pretrain in the config (--use_pretrain has no effect).")
        return
    print(f"Using pretrain {pretrain}, epoch {epoch}")
    overrides = pretrain.get_network_json_for_epoch(epoch).get("#config") or {}
    print("Pretrain overwrites these config options:")
    for key in sorted(overrides, key=str):
        print(f"Config key {key!r} for epoch {epoch}: {config.typed_value(key)!r} -> {overrides[key]!r}")
        config.set(key, overrides[key])


def main() -> None:
    parser = argparse.ArgumentParser(description="Analyze dataset batches.")
    parser.add_argument("returnn_config", help="either filename to config-file, or dict for dataset")
    parser.add_argument("--dataset", help="if given the config, specifies the dataset. e.g. 'dev'")
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--endseq", type=int, default=-1, help="end seq idx (inclusive) or -1 (default: -1)")
    parser.add_argument("--verbosity", type=int, default=5, help="overwrites log_verbosity (default: 5)")
    parser.add_argument("--key", default="data", help="data-key, e.g. 'data' or 'classes'. (default: 'data')")
    parser.add_argument("--use_pretrain", action="store_true")
    args, rest = parser.parse_known_args()

    from returnn.config import Config, set_global_config
    from returnn.datasets import init_dataset
    from returnn.datasets.batch_analysis import analyze_batches
    from returnn.datasets.from_config import init_dataset_from_config_key
    from returnn.errors import ConfigValueError
    from returnn.log import log
    from returnn.options import BatchingOptions

    spec = args.returnn_config.strip()
    if spec.startswith("{"):
        print(f"Using dataset {spec}.")
        config = Config()
        config.parse_cmd_args(list(rest))
        set_global_config(config)
    else:
        print(f"Using config file {spec!r}.")
        config = load_config(spec, rest)
    log.initialize(verbosity=[args.verbosity])
    print(f"Returnn {os.path.abspath(__file__)} starting up.", file=log.v3)
    if args.use_pretrain:
        _apply_pretrain(config, args.epoch)
    if spec.startswith("{"):
        print(f"Using dataset: {spec}", file=log.v3)
        dataset = init_dataset(spec)
    else:
        key = args.dataset or "train"
        print(f"Using dataset: config:{key}", file=log.v3)
        dataset = init_dataset_from_config_key(config, key, is_train=(key == "train"))
        if dataset is None:
            raise ConfigValueError(key, expected="a dataset in the config (use --dataset train|dev|eval)", got=None)
    print(f"Epoch: {args.epoch}", file=log.v3)
    print(f"Dataset keys: {dataset.get_data_keys()}", file=log.v3)
    print(f"Dataset target keys: {dataset.get_target_list()}", file=log.v3)
    batch_kwargs = BatchingOptions.from_config(config).generate_batches_kwargs(train=False)
    analyze_batches(dataset, batch_kwargs, epoch=args.epoch, endseq=args.endseq, stream=log.v3,
                    batch_stream=log.v5 if args.verbosity >= 5 else None)
    print("Quitting", file=log.v4)


if __name__ == "__main__":
    run_main(main)
