#!/usr/bin/env python3
"""Benchmark: reading an HDF file through HDFDataset + batching + background feeding vs. a plain h5py loop.

Writes a file of ``--num_seqs`` sequences of ``--dim``-dim float32 frames (lengths uniform in
``[--min_len, --max_len]``) with SimpleHDFWriter, then measures (sequences/s and MB/s of frame data):

1. ``h5py loop``: the baseline, one ``inputs[start:end]`` slice per sequence from a plain h5py file handle;
2. ``HDFDataset get_data``: ``load_seqs`` per sequence + ``get_data`` (our dataset API, default order);
3. ``batches + feeding``: ``generate_batches`` + ``iterate_batch_data`` (padded ``[B, T, dim]`` arrays built in
   the background thread), the path the training loop uses;
4. ``feeding vs consumer``: the same with a consumer that spends 1 ms per 1000 real frames; reports the share
   of the consumer's time spent waiting for batches (0% = the queue keeps up).

Usage: ``python3 benchmarks/datasets/bench_hdf.py [--num_seqs 100000] [--dim 40]``. Default size runs in well
under 2 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from returnn.datasets.feeding import iterate_batch_data  # noqa: E402
from returnn.datasets.hdf import HDFDataset, SimpleHDFWriter  # noqa: E402


def write_file(path: str, num_seqs: int, dim: int, min_len: int, max_len: int, seed: int = 1) -> int:
    rng = np.random.RandomState(seed)
    lens = rng.randint(min_len, max_len + 1, size=num_seqs)
    writer = SimpleHDFWriter(path, dim=dim, ndim=2)
    chunk = 1000
    for start in range(0, num_seqs, chunk):
        part = lens[start:start + chunk]
        x = rng.standard_normal((len(part), int(part.max()), dim)).astype("float32")
        writer.insert_batch(x, seq_len=part.tolist(), seq_tag=[f"seq-{start + i}" for i in range(len(part))])
    writer.close()
    return int(lens.sum())


def bench_h5py(path: str):
    import h5py
    t0 = time.perf_counter()
    nbytes = 0
    with h5py.File(path, "r") as f:
        lens = f["seqLengths"][:, 0]
        offsets = np.concatenate([[0], np.cumsum(lens)])
        inputs = f["inputs"]
        for i in range(len(lens)):
            nbytes += inputs[int(offsets[i]):int(offsets[i + 1])].nbytes
    return len(lens), nbytes, time.perf_counter() - t0


def bench_get_data(path: str):
    t0 = time.perf_counter()
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    nbytes = 0
    for i in range(ds.num_seqs):
        ds.load_seqs(i, i + 1)
        nbytes += ds.get_data(i, "data").nbytes
    return ds.num_seqs, nbytes, time.perf_counter() - t0


def bench_feeding(path: str, batch_size: int, consumer_ms_per_kframe: float = 0.0):
    t0 = time.perf_counter()
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    num_seqs = nbytes = 0
    waited = 0.0
    it = iterate_batch_data(ds, ds.generate_batches(batch_size=batch_size, max_seqs=1000), ["data"], prefetch=4)
    while True:
        tw = time.perf_counter()
        try:
            batch = next(it)
        except StopIteration:
            break
        waited += time.perf_counter() - tw
        num_seqs += batch.num_seqs
        frames = int(batch.num_frames["data"])
        nbytes += frames * batch.data["data"].shape[-1] * 4
        if consumer_ms_per_kframe:
            time.sleep(frames / 1000.0 * consumer_ms_per_kframe / 1000.0)
    return num_seqs, nbytes, time.perf_counter() - t0, waited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num_seqs", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=40)
    parser.add_argument("--min_len", type=int, default=5)
    parser.add_argument("--max_len", type=int, default=35)
    parser.add_argument("--batch_size", type=int, default=5000)
    parser.add_argument("--file", default=None, help="reuse/create this file instead of a temp file")
    args = parser.parse_args()

    tmpdir = tempfile.mkdtemp(prefix="bench_hdf_")
    path = args.file or os.path.join(tmpdir, "bench.hdf")
    if not os.path.exists(path):
        t0 = time.perf_counter()
        frames = write_file(path, args.num_seqs, args.dim, args.min_len, args.max_len)
        print(f"wrote {path}: {args.num_seqs} seqs, {frames} frames, {os.path.getsize(path) / 1e6:.1f} MB, "
              f"{time.perf_counter() - t0:.1f}s")

    rows = []
    n, b, t = bench_h5py(path)
    base = n / t
    rows.append(("h5py loop (baseline)", n, b, t))
    n, b, t = bench_get_data(path)
    rows.append(("HDFDataset load_seqs+get_data", n, b, t))
    n, b, t, _ = bench_feeding(path, args.batch_size)
    rows.append(("generate_batches + iterate_batch_data", n, b, t))
    print(f"{'path':42s} {'seqs':>8s} {'time s':>8s} {'seqs/s':>10s} {'MB/s':>8s} {'vs h5py':>8s}")
    for name, n, b, t in rows:
        print(f"{name:42s} {n:8d} {t:8.2f} {n / t:10.0f} {b / 1e6 / t:8.1f} {n / t / base:8.2f}")
    n, b, t, waited = bench_feeding(path, args.batch_size, consumer_ms_per_kframe=1.0)
    print(f"consumer at 1 ms per 1k frames: {t:.2f}s total, waiting for batches {waited:.2f}s "
          f"({100 * waited / t:.1f}% of the time)")
    if not args.file:
        os.remove(path)
        os.rmdir(tmpdir)


if __name__ == "__main__":
    main()
