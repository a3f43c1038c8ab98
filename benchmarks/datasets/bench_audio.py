#!/usr/bin/env python3
"""Benchmark: reading speech from an Ogg zip through ``OggZipDataset`` (decoding + feature extraction), this
implementation side by side with the reference, on the same zip.

Writes a zip of ``--num_seqs`` utterances (1-6 s of synthetic speech-like audio: harmonics with a moving
pitch plus noise, 16 kHz, Ogg Vorbis or FLAC) in the layout ``OggZipDataset`` reads, then, for each feature type,
runs one process per implementation that iterates over the whole dataset (``init_seq_order`` + ``load_seqs`` +
``get_data("data")``, default order) and reports **seconds of audio per second** (throughput; the first
sequence, which pays librosa's one-time start-up, is excluded) and the checksum of the features (sum of all
values: both implementations must agree). Ratio = our time / the reference's time (<= 1.0: as fast or faster).

Usage::

    python3 benchmarks/datasets/bench_audio.py [--num_seqs 200] [--format OGG] \\
        [--ref-python /work/venv-ref/bin/python] [--features log_mel_filterbank mfcc]

Without ``--ref-python`` (or when it does not exist) only this implementation is measured.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def synth(rng: np.random.RandomState, seconds: float, sr: int = 16000) -> np.ndarray:
    """Speech-like test audio: a harmonic tone whose pitch moves, amplitude-modulated, plus noise."""
    t = np.arange(int(seconds * sr)) / sr
    f0 = 120 + 40 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0) * t)
    phase = 2 * np.pi * np.cumsum(f0) / sr
    x = sum(np.sin(k * phase) / k for k in range(1, 8))
    x *= 0.5 + 0.5 * np.sin(2 * np.pi * 3 * t) ** 2
    return (0.2 * x / np.abs(x).max() + 0.01 * rng.randn(len(t))).astype(np.float32)


def write_zip(path: str, num_seqs: int, fmt: str) -> float:
    """Writes the benchmark zip; returns the total duration in seconds."""
    import soundfile

    rng = np.random.RandomState(42)
    name = os.path.basename(path)[:-4]
    ext = fmt.lower()
    entries, total = [], 0.0
    with zipfile.ZipFile(path, "w") as zf:
        for i in range(num_seqs):
            seconds = float(rng.uniform(1.0, 6.0))
            audio = synth(rng, seconds)
            buf = io.BytesIO()
            soundfile.write(buf, audio, 16000, format=fmt, subtype="VORBIS" if fmt == "OGG" else "PCM_16")
            zf.writestr(f"{name}/seq{i}.{ext}", buf.getvalue())
            entries.append({"file": f"seq{i}.{ext}", "seq_name": f"bench/seq{i}", "text": "x", "duration": seconds})
            total += len(audio) / 16000
        zf.writestr(f"{name}.txt", repr(entries))
    return total


def run_worker(zip_path: str, features: str) -> dict:
    """Runs in the measured process: iterates over the dataset once."""
    from returnn.datasets.audio import OggZipDataset

    ds = OggZipDataset(path=zip_path, audio={"features": features, "num_feature_filters": 40}, targets=None)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 1)
    checksum = float(ds.get_data(0, "data").astype(np.float64).sum())  # warm-up (librosa start-up), not timed
    frames = 0
    start = time.perf_counter()
    i = 1
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        data = ds.get_data(i, "data")
        frames += data.shape[0]
        checksum += float(data.astype(np.float64).sum())
        i += 1
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "num_seqs": i, "frames": frames, "checksum": checksum}


def measure(python: str, zip_path: str, features: str, ours: bool) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if ours:
        env["PYTHONPATH"] = REPO
    else:
        env.pop("PYTHONPATH", None)
    cwd = REPO if ours else tempfile.gettempdir()  # the reference must not import this repository's returnn/
    code = (f"import json, sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
            f"import bench_audio; print('RESULT', json.dumps(bench_audio.run_worker({zip_path!r}, {features!r})))")
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=cwd, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{python} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--num_seqs", type=int, default=200)
    parser.add_argument("--format", default="OGG", choices=["OGG", "FLAC"])
    parser.add_argument("--features", nargs="+", default=["log_mel_filterbank", "mfcc"])
    parser.add_argument("--ref-python", default="/work/venv-ref/bin/python")
    parser.add_argument("--repeat", type=int, default=2, help="runs per implementation; the fastest counts")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = os.path.join(tmp, "bench.zip")
        total = write_zip(zip_path, args.num_seqs, args.format)
        print(f"zip: {args.num_seqs} seqs, {total:.1f} s of audio ({args.format}), "
              f"{os.path.getsize(zip_path) / 1e6:.1f} MB")
        have_ref = bool(args.ref_python) and os.path.exists(args.ref_python)
        print(f"{'features':<22} {'ours (audio s/s)':>17} {'reference':>12} {'ratio':>7}  checksums")
        for feat in args.features:
            ours = min((measure(sys.executable, zip_path, feat, True) for _ in range(args.repeat)),
                       key=lambda r: r["seconds"])
            audio_s = total * (ours["num_seqs"] - 1) / ours["num_seqs"]  # first seq excluded (approximately)
            line = f"{feat:<22} {audio_s / ours['seconds']:17.1f}"
            if have_ref:
                ref = min((measure(args.ref_python, zip_path, feat, False) for _ in range(args.repeat)),
                          key=lambda r: r["seconds"])
                line += f" {audio_s / ref['seconds']:12.1f} {ours['seconds'] / ref['seconds']:7.2f}"
                line += f"  {ours['checksum']:.1f} / {ref['checksum']:.1f}"
            else:
                line += f" {'-':>12} {'-':>7}  {ours['checksum']:.1f}"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
