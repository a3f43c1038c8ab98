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
from returnn.datasets.tool_util import Progress, load_dataset, run_main  # noqa: E402


def dump(dataset, filename: str, *, epoch: int = 1, start_seq: int = 0, end_seq: int = -1,
         progress: bool = False) -> int:
    """Writes sequences ``[start_seq, end_seq]`` (inclusive; -1 = all) of ``dataset`` to ``filename``.

    :return: number of sequences written
    """
    from returnn.datasets.hdf import SimpleHDFWriter
    dataset.init_seq_order(epoch=epoch)
    keys = dataset.get_data_keys()
    if "data" not in keys:
        from returnn.errors import DatasetArgError
        raise DatasetArgError(f"hdf_dump: dataset {dataset.name!r} has no 'data' key (keys: {keys})")
    extra_keys = [k for k in keys if k != "data"]
    sparse = dataset.is_data_sparse("data")
    writer = SimpleHDFWriter(
        filename, dim=dataset.get_data_dim("data"), ndim=1 if sparse else 2,
        labels=dataset.labels.get("data") if sparse else None,
        extra_type={k: (dataset.get_data_dim(k), 1 if dataset.is_data_sparse(k) else 2,
                        dataset.get_data_dtype(k)) for k in extra_keys},
        extra_labels={k: dataset.labels[k] for k in extra_keys if dataset.labels.get(k)})
    total = dataset.num_seqs if end_seq < 0 else min(end_seq + 1, dataset.num_seqs)
    bar = Progress(max(total - start_seq, 0), enabled=True if progress else None)
    seq_idx = start_seq
    while seq_idx < total and dataset.is_less_than_num_seqs(seq_idx):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        data = dataset.get_data(seq_idx, "data")
        extra = {k: dataset.get_data(seq_idx, k)[None] for k in extra_keys}
        lens = {0: [data.shape[0]]}
        lens.update({k: [v.shape[1]] for k, v in extra.items()})
        writer.insert_batch(data[None], seq_len=lens, seq_tag=[dataset.get_tag(seq_idx)], extra=extra or None)
        seq_idx += 1
        bar.update(seq_idx - start_seq)
    bar.finish()
    writer.close()
    return seq_idx - start_seq


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
