#!/usr/bin/env python3
"""Converts any dataset into an HDF file in the HDFDataset layout.

Usage::

    tools/hdf_dump.py '{"class": "Task12AXDataset", "num_seqs": 100}' out.hdf
    tools/hdf_dump.py my.config out.hdf --dataset dev --start_seq 0 --end_seq 99

``"data"`` becomes ``inputs`` (sparse ids or dense frames, with its vocabulary as ``labels``), every other key
goes to ``targets/data/<key>`` with its dim and vocabulary. The file is written to a temporary name and renamed
when complete.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from returnn.datasets.tool_util import load_dataset, run_main  # noqa: E402


def dump(dataset, filename: str, *, epoch: int = 1, start_seq: int = 0, end_seq: int = -1,
         progress: bool = False) -> int:
    """Writes sequences ``[start_seq, end_seq]`` (inclusive; -1 = all) of ``dataset`` to ``filename``.

    :return: number of sequences written
    """
    from returnn.datasets.hdf_writer import dump_dataset
    return dump_dataset(dataset, filename, epoch=epoch, start_seq=start_seq, end_seq=end_seq,
                        progress=True if progress else None)


class HDFDumpTarget:
    """An HDF file being written by :func:`hdf_dump_from_dataset` (what :func:`hdf_dataset_init` returns)."""

    def __init__(self, filename: str):
        self.filename = filename
        self.closed = False


def hdf_dataset_init(file_name: str) -> HDFDumpTarget:
    """The reference's first step: prepares ``file_name`` (created at once, empty until the dump is written).

    :return: the target to pass to :func:`hdf_dump_from_dataset` and :func:`hdf_close`
    """
    import h5py
    with h5py.File(file_name, "w"):
        pass
    return HDFDumpTarget(file_name)


def hdf_dump_from_dataset(dataset, hdf_dataset: HDFDumpTarget, parser_args) -> int:
    """Writes ``dataset`` into the target, with the options of ``parser_args`` (attributes ``epoch``,
    ``start_seq``, ``end_seq``: the last sequence, inclusive; ``inf`` or -1 for all), as the reference's.

    :return: number of sequences written
    """
    if os.path.exists(hdf_dataset.filename):
        os.remove(hdf_dataset.filename)  # the empty placeholder of hdf_dataset_init; the writer replaces it
    end_seq = getattr(parser_args, "end_seq", -1)
    end_seq = -1 if end_seq is None or end_seq == float("inf") else int(end_seq)
    return dump(dataset, hdf_dataset.filename, epoch=int(getattr(parser_args, "epoch", 1) or 1),
                start_seq=int(getattr(parser_args, "start_seq", 0) or 0), end_seq=end_seq)


def hdf_close(hdf_dataset: HDFDumpTarget) -> None:
    """Finishes the target (the file is already complete after :func:`hdf_dump_from_dataset`)."""
    hdf_dataset.closed = True


def main() -> None:
    parser = argparse.ArgumentParser(description="Dump a RETURNN dataset into an HDF file.")
    parser.add_argument("returnn_config", help="config file, or dataset dict / 'Class:key=value,...' string")
    parser.add_argument("hdf_filename")
    parser.add_argument("--dataset", default="train", help="config key of the dataset (train, dev, eval)")
    parser.add_argument("--epoch", type=int, default=1)
    parser.add_argument("--start_seq", type=int, default=0)
    parser.add_argument("--end_seq", type=int, default=-1)
    parser.add_argument("--progress", action="store_true", help="force the progress bar")
    args, rest = parser.parse_known_args()
    dataset, _ = load_dataset(args.returnn_config, args.dataset, rest)
    num = dump(dataset, args.hdf_filename, epoch=args.epoch, start_seq=args.start_seq, end_seq=args.end_seq,
               progress=args.progress)
    print(f"Wrote {num} seqs to {args.hdf_filename}.")


if __name__ == "__main__":
    run_main(main)
