#!/usr/bin/env python3
"""Writes the text of one data key (default ``raw``) of each sequence of a dataset as a Python dict literal
``{seq_tag: text}``, the format of ``task = "search"`` output (e.g. the references for
``tools/calculate-word-error-rate.py``).

Usage::

    tools/dump-dataset-raw-strings.py --config my.config --out refs.py          # the config's eval dataset
    tools/dump-dataset-raw-strings.py --dataset '{"class": ...}' --key orth --out refs.py --endseq 99
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import load_config, run_main  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="Dump raw strings from dataset. Same format as in search.")
    parser.add_argument("--config", help="filename to config-file. will use dataset 'eval' from it")
    parser.add_argument("--dataset", help="dataset, overwriting config")
    parser.add_argument("--startseq", type=int, default=0, help="start seq idx (inclusive) (default: 0)")
    parser.add_argument("--endseq", type=int, default=-1, help="end seq idx (inclusive) or -1 (default: -1)")
    parser.add_argument("--key", default="raw", help="data-key, e.g. 'data' or 'classes'. (default: 'raw')")
    parser.add_argument("--verbosity", type=int, default=4, help="5 for all seqs (default: 4)")
    parser.add_argument("--out", required=True, help="out-file. py-format as in task=search")
    args = parser.parse_args()

    from returnn.config import Config, set_global_config
    from returnn.datasets import init_dataset
    from returnn.datasets.from_config import init_dataset_from_config_key
    from returnn.datasets.raw_strings import collect_raw_strings, raw_strings_py_text
    from returnn.errors import ConfigValueError
    from returnn.log import log
    from returnn.util.files import atomic_write_text

    if args.config:
        print(f"Using config file {args.config!r}.")
        config = load_config(args.config)
    else:
        config = Config()
        set_global_config(config)
    log.initialize(verbosity=[args.verbosity])
    print("Returnn dump-dataset-raw-strings starting up.", file=log.v3)
    if args.dataset:
        dataset = init_dataset(args.dataset)
    elif args.config:
        dataset = init_dataset_from_config_key(config, "eval")
        if dataset is None:
            raise ConfigValueError("eval", expected="a dataset in the config (or give --dataset)", got=None)
    else:
        raise ConfigValueError("--config/--dataset", expected="a config file with an eval dataset, or a dataset",
                               got=None)
    refs = collect_raw_strings(dataset, args.key, startseq=args.startseq, endseq=args.endseq, stream=log.v3,
                               seq_stream=log.v5 if args.verbosity >= 5 else None)
    atomic_write_text(args.out, raw_strings_py_text(refs))
    print(f"Done. Wrote to {args.out!r}.", file=log.v3)
    print("Quitting", file=log.v4)


if __name__ == "__main__":
    run_main(main)
