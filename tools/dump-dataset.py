#!/usr/bin/env python3
"""Iterates a dataset and prints or dumps its sequences.

Usage::

    tools/dump-dataset.py '{"class": "Task12AXDataset", "num_seqs": 5}'
    tools/dump-dataset.py my.config --dataset dev --endseq 20 --type numpy --dump_prefix /tmp/out/

``--type stdout`` prints each sequence's arrays, ``numpy`` saves ``<prefix><seq_idx>.<key>.npy``
(and ``.txt`` tags), ``null`` only iterates (with a summary: sequences, frames per key, time).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import Progress, load_dataset, run_main  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description="Dump a RETURNN dataset.")
    parser.add_argument("returnn_config", help="config file, or dataset dict / 'Class:key=value,...' string")
    parser.add_argument("--dataset", default="train", help="config key of the dataset (train, dev, eval)")
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--startseq", type=int, default=0)
    parser.add_argument("--endseq", type=int, default=None, help="last seq index (inclusive); default: all")
    parser.add_argument("--type", default="stdout", choices=["stdout", "numpy", "null"])
    parser.add_argument("--dump_prefix", default="/tmp/dump-dataset/")
    parser.add_argument("--stdout_limit", type=float, default=None, help="numpy print threshold")
    parser.add_argument("--progress", action="store_true", help="force the progress bar")
    args, rest = parser.parse_known_args()

    import numpy as np
    dataset, _ = load_dataset(args.returnn_config, args.dataset, rest)
    dataset.init_seq_order(epoch=args.epoch)
    if args.stdout_limit is not None:
        np.set_printoptions(threshold=int(args.stdout_limit))
    print(f"Dataset: {dataset}")
    print(f"Dataset keys: {dataset.get_data_keys()}")
    print(f"Dataset target keys: {dataset.get_target_list()}")
    end = dataset.num_seqs - 1 if args.endseq is None or args.endseq < 0 else min(args.endseq, dataset.num_seqs - 1)
    if args.type == "numpy":
        os.makedirs(os.path.dirname(args.dump_prefix) or ".", exist_ok=True)
    total = max(end - args.startseq + 1, 0)
    progress = Progress(total, enabled=True if args.progress else (None if args.type != "stdout" else False))
    frames = {}
    start_time = time.time()
    seq_idx = args.startseq
    while seq_idx <= end and dataset.is_less_than_num_seqs(seq_idx):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        tag = dataset.get_tag(seq_idx)
        if args.type == "stdout":
            print(f"seq {seq_idx}/{dataset.num_seqs} tag: {tag!r}")
        for key in dataset.get_data_keys():
            data = dataset.get_data(seq_idx, key)
            frames[key] = frames.get(key, 0) + (data.shape[0] if data.ndim else 1)
            if args.type == "stdout":
                print(f"  {key} (shape {data.shape}, dtype {data.dtype}):\n{data}")
            elif args.type == "numpy":
                np.save(f"{args.dump_prefix}{seq_idx}.{key}.npy", data)
        if args.type == "numpy":
            with open(f"{args.dump_prefix}{seq_idx}.tag.txt", "w", encoding="utf8") as f:
                f.write(tag + "\n")
        seq_idx += 1
        progress.update(seq_idx - args.startseq)
    progress.finish()
    num = seq_idx - args.startseq
    print(f"Done. Iterated {num} seqs, frames {frames}, in {time.time() - start_time:.2f}s.")


if __name__ == "__main__":
    run_main(main)
