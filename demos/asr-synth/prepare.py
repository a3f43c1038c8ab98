#!/usr/bin/env python3
"""
Prepare the synthesized-speech ASR demo: fortunes sentences → espeak-ng speech → 40-dim log-mel HDF files.

Usage::

    python3 demos/asr-synth/prepare.py [--num-train 8000 --num-dev 200 --num-test 200] [--out-dir DIR]

Needs the Debian packages ``espeak-ng`` and ``fortunes`` (``apt-get install espeak-ng fortunes``).

Writes into ``--out-dir`` (default ``demos/asr-synth/data``):

- ``train.hdf``, ``dev.hdf``, ``test.hdf``: HDFDataset files in the reference layout: ``inputs`` float32
  [total_frames, 40] (normalized log-mel, 10 ms frames), ``seqLengths`` int32 [num_seqs, 2] (frames,
  characters), ``seqTags`` (``"train/00000"``, ...), ``targets/data/classes`` int32 [total_chars] (indices
  into ``vocab.txt``), ``targets/labels/classes`` (the vocabulary), ``targets/size`` attr
  ``classes = [vocab_size, 1]``, root attrs ``inputPattSize``, ``numTimesteps``, ``numSeqs``, ``numLabels``,
  ``numDims``.
- ``train.txt``, ``dev.txt``, ``test.txt``: ``"<seq_tag> <transcription>"`` per line (the reference for
  ``tools/calculate-word-error-rate.py``); ``vocab.txt``: one label per line (index = line number).
- ``feature-stats.txt``: per-dimension training mean and standard deviation used for the normalization.
- ``voices.txt``: ``"<seq_tag> <voice> <rate> <pitch>"`` per line.
- ``prepare-info.json``: the options, counts and timings; written last (a complete run).

Resumable: synthesized features are cached in chunks under ``<out-dir>/cache`` (each written to a temp
name and renamed), so an interrupted run continues where it stopped; the cache is removed at the end unless
``--keep-cache``. A finished HDF whose options match is not rewritten.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import features  # noqa: E402
import fortunes_text  # noqa: E402

SPLITS = ("train", "dev", "test")
CHUNK_SIZE = 100

#: every English dialect espeak-ng has; all splits use all of them (accents are seen in training)
DIALECTS = ["en-us", "en-gb", "en-gb-x-rp", "en-029", "en-gb-x-gbcwmd", "en-gb-x-gbclan", "en-gb-scotland",
            "en-us-nyc"]

#: (dialects, variants, rate range words/min, pitch range) per split. The variants (espeak-ng's speaker
#: models: formants, breathiness, pitch range) are disjoint, so dev and test are spoken by held-out speakers.
VOICES = {
    "train": (DIALECTS,
              ["m1", "m2", "m3", "m4", "m5", "f1", "f2", "f3", "Alex", "Andy", "Annie", "Lee", "Michael", "david",
               "ed", "john", "linda", "max", "paul", "rob", "steph", "travis", "victor"], (130, 190), (30, 70)),
    "dev": (DIALECTS, ["m6", "f4"], (140, 180), (35, 65)),
    "test": (DIALECTS, ["m7", "f5"], (140, 180), (35, 65)),
}


class PrepareError(RuntimeError):
    """A missing tool/package or an unusable option; the message says what to do."""


def voice_for(split: str, text: str) -> tuple[str, int, int]:
    """:return: (espeak-ng voice ``dialect+variant``, rate words/min, pitch 0-99), chosen by a hash of text"""
    dialects, variants, (rate_lo, rate_hi), (pitch_lo, pitch_hi) = VOICES[split]
    h = fortunes_text.sentence_hash("voice:" + text)
    dialect = dialects[h % len(dialects)]
    h //= len(dialects)
    variant = variants[h % len(variants)]
    h //= len(variants)
    rate = rate_lo + h % (rate_hi - rate_lo + 1)
    h //= rate_hi - rate_lo + 1
    pitch = pitch_lo + h % (pitch_hi - pitch_lo + 1)
    return f"{dialect}+{variant}", rate, pitch


def find_espeak() -> str:
    """:return: path of the espeak-ng binary; :raises PrepareError: naming the package when missing"""
    path = shutil.which("espeak-ng")
    if not path:
        raise PrepareError(
            "espeak-ng not found on PATH: install the Debian package 'espeak-ng' (apt-get install espeak-ng)."
        )
    return path


def synthesize(espeak: str, text: str, voice: str, rate: int, pitch: int) -> np.ndarray:
    """:return: float32 [N] waveform at 16 kHz of ``text`` spoken by espeak-ng"""
    proc = subprocess.run(
        [espeak, "-v", voice, "-s", str(rate), "-p", str(pitch), "--stdout"],
        input=text.encode("utf8"), capture_output=True, check=False,
    )
    if proc.returncode != 0:
        raise PrepareError(f"espeak-ng failed for voice {voice!r}: {proc.stderr.decode(errors='replace').strip()}")
    wave, rate_in = features.parse_wav_bytes(proc.stdout)
    return features.resample(wave, rate_in, features.SAMPLE_RATE)


class Progress:
    """A one-line progress bar on stderr (``\\r`` updates; plain lines when stderr is not a terminal)."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.done = total, what, 0
        self.start = time.time()
        self.tty = sys.stderr.isatty()
        self._last_print = 0.0

    def update(self, n: int):
        self.done += n
        now = time.time()
        if not self.tty and now - self._last_print < 10 and self.done < self.total:
            return
        self._last_print = now
        elapsed = now - self.start
        frac = self.done / max(self.total, 1)
        eta = elapsed / frac - elapsed if frac > 0 else 0.0
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        line = f"{self.what} [{bar}] {self.done}/{self.total} {elapsed:5.0f}s elapsed, ETA {eta:4.0f}s"
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        if self.tty and self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _atomic_write_text(path: str, text: str):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf8") as f:
        f.write(text)
    os.replace(tmp, path)


def chunk_features(cache_dir, split, chunk_idx, tags, texts, espeak, extractor, jobs, progress) -> dict:
    """
    Features of one chunk of sentences, from the cache or synthesized now (and cached).

    :return: ``{"feats": float32 [sum_T, 40], "lens": int32 [n], "tags": [str]}`` (un-normalized)
    """
    path = os.path.join(cache_dir, f"{split}-{chunk_idx:04d}.npz")
    if os.path.exists(path):
        with np.load(path) as f:
            cached = {"feats": f["feats"], "lens": f["lens"], "tags": [str(t) for t in f["tags"]]}
        if cached["tags"] == list(tags):
            progress.update(len(tags))
            return cached
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        waves = list(pool.map(lambda t: synthesize(espeak, t, *voice_for(split, t)), texts))
    feats = extractor(waves)
    result = {"feats": np.concatenate(feats), "lens": np.array([len(x) for x in feats], np.int32), "tags": list(tags)}
    tmp = f"{path}.tmp{os.getpid()}.npz"
    np.savez(tmp, feats=result["feats"], lens=result["lens"], tags=np.array(result["tags"]))
    os.replace(tmp, path)
    progress.update(len(tags))
    return result


def feature_stats(feats: np.ndarray, block: int = 65536) -> tuple[np.ndarray, np.ndarray]:
    """
    :param feats: float32 [num_frames, dim]
    :return: (mean, std) float64 [dim] each, accumulated in float64 blocks; std floored at 1e-5; (0, 1) when
        there are no frames
    """
    dim = feats.shape[1]
    if len(feats) == 0:
        return np.zeros(dim), np.ones(dim)
    total, total_sq = np.zeros(dim), np.zeros(dim)
    for start in range(0, len(feats), block):
        part = feats[start : start + block].astype(np.float64)
        total += part.sum(axis=0)
        total_sq += np.square(part).sum(axis=0)
    mean = total / len(feats)
    var = np.maximum(total_sq / len(feats) - np.square(mean), 0.0)
    return mean, np.maximum(np.sqrt(var), 1e-5)


def write_hdf(path: str, feats: np.ndarray, frame_lens: np.ndarray, tags: list[str], texts: list[str], vocab):
    """
    Write one HDFDataset file in the reference layout (see module docstring) via a temp name + rename.

    :param feats: float32 [sum_T, dim] normalized features
    :param frame_lens: int32 [num_seqs]
    :param texts: transcriptions over ``vocab``
    """
    import h5py

    index = {c: i for i, c in enumerate(vocab)}
    labels = [np.array([index[c] for c in text], dtype=np.int32) for text in texts]
    tmp = f"{path}.tmp{os.getpid()}"
    with h5py.File(tmp, "w") as f:
        f.attrs["inputPattSize"] = feats.shape[1]
        f.attrs["numDims"] = 1
        f.attrs["numLabels"] = feats.shape[1]
        f.attrs["numSeqs"] = len(tags)
        f.attrs["numTimesteps"] = int(frame_lens.sum())
        f.create_dataset("inputs", data=feats.astype(np.float32))
        f.create_dataset("labels", data=np.zeros((0,), dtype="S5"))
        f.create_dataset(
            "seqLengths", data=np.stack([frame_lens, [len(x) for x in labels]], axis=1).astype(np.int32)
        )
        f.create_dataset("seqTags", data=tags, dtype=h5py.string_dtype("utf-8"))
        targets = f.create_group("targets")
        targets.create_group("data").create_dataset("classes", data=np.concatenate(labels))
        targets.create_group("labels").create_dataset("classes", data=np.array([c.encode("utf8") for c in vocab]))
        targets.create_group("size").attrs["classes"] = np.array([len(vocab), 1], dtype=np.int64)
    os.replace(tmp, path)


def prepare(out_dir: str, num: dict, *, fortunes_dir: str = fortunes_text.DEFAULT_FORTUNES_DIR, jobs: int = 0,
            keep_cache: bool = False, quiet: bool = False) -> dict:
    """
    Run the whole preparation (see module docstring).

    :param num: ``{"train": n, "dev": n, "test": n}`` number of sentences per split
    :param jobs: parallel espeak-ng processes (0: number of CPUs)
    :return: the info dict also written to ``prepare-info.json``
    :raises PrepareError: espeak-ng/fortunes missing, or more sentences requested than available
    """
    start = time.time()
    espeak = find_espeak()
    try:
        corpus = fortunes_text.load_corpus(fortunes_dir)
    except fortunes_text.FortunesMissingError as exc:
        raise PrepareError(str(exc)) from None
    for split in SPLITS:
        if num[split] > len(corpus[split]):
            raise PrepareError(f"--num-{split} {num[split]}: only {len(corpus[split])} {split} sentences available")
    vocab = fortunes_text.VOCAB
    settings = {
        "num": num, "vocab": vocab, "voices": VOICES, "chunk_size": CHUNK_SIZE,
        "features": {"dim": features.NUM_MEL, "sample_rate": features.SAMPLE_RATE,
                     "frame_length": features.FRAME_LENGTH, "frame_step": features.FRAME_STEP},
    }
    os.makedirs(out_dir, exist_ok=True)
    info_path = os.path.join(out_dir, "prepare-info.json")
    if os.path.exists(info_path) and all(os.path.exists(os.path.join(out_dir, f"{s}.hdf")) for s in SPLITS):
        with open(info_path) as f:
            info = json.load(f)
        if info.get("settings") == json.loads(json.dumps(settings)):
            if not quiet:
                print(f"{out_dir}: already prepared with these options, nothing to do.", file=sys.stderr)
            return info

    data = {s: corpus[s][: num[s]] for s in SPLITS}
    tags = {s: [f"{s}/{i:05d}" for i in range(num[s])] for s in SPLITS}
    _atomic_write_text(os.path.join(out_dir, "vocab.txt"), "".join(f"{c}\n" for c in vocab))
    for s in SPLITS:
        _atomic_write_text(os.path.join(out_dir, f"{s}.txt"), "".join(f"{t} {x}\n" for t, x in zip(tags[s], data[s])))
    _atomic_write_text(
        os.path.join(out_dir, "voices.txt"),
        "".join(f"{t} {' '.join(map(str, voice_for(s, x)))}\n" for s in SPLITS for t, x in zip(tags[s], data[s])),
    )

    cache_dir = os.path.join(out_dir, "cache")
    os.makedirs(cache_dir, exist_ok=True)
    jobs = jobs or os.cpu_count() or 1
    extractor = features.LogMelExtractor(batch_size=32, num_threads=jobs)
    progress = Progress(sum(num.values()), "synthesizing + features")
    if quiet:
        progress.update = lambda n: None  # type: ignore[method-assign]
    raw = {}
    for s in SPLITS:
        parts = [
            chunk_features(cache_dir, s, k // CHUNK_SIZE, tags[s][k : k + CHUNK_SIZE], data[s][k : k + CHUNK_SIZE],
                           espeak, extractor, jobs, progress)
            for k in range(0, num[s], CHUNK_SIZE)
        ]
        raw[s] = (
            np.concatenate([p["feats"] for p in parts]) if parts else np.zeros((0, features.NUM_MEL), np.float32),
            np.concatenate([p["lens"] for p in parts]) if parts else np.zeros((0,), np.int32),
        )
    extractor.close()
    synth_time = time.time() - start

    mean, std = feature_stats(raw["train"][0])
    _atomic_write_text(
        os.path.join(out_dir, "feature-stats.txt"),
        "# dim mean std (training set, un-normalized log-mel)\n"
        + "".join(f"{d} {m:.6f} {v:.6f}\n" for d, (m, v) in enumerate(zip(mean, std))),
    )
    for s in SPLITS:
        feats = ((raw[s][0] - mean) / std).astype(np.float32)
        write_hdf(os.path.join(out_dir, f"{s}.hdf"), feats, raw[s][1], tags[s], data[s], vocab)
    info = {
        "settings": settings,
        "num_frames": {s: int(raw[s][1].sum()) for s in SPLITS},
        "hours": {s: round(float(raw[s][1].sum()) / 360000.0, 3) for s in SPLITS},
        "seconds_total": round(time.time() - start, 1),
        "seconds_synthesis_and_features": round(synth_time, 1),
        "jobs": jobs,
    }
    _atomic_write_text(info_path, json.dumps(info, indent=1) + "\n")
    if not keep_cache:
        shutil.rmtree(cache_dir, ignore_errors=True)
    if not quiet:
        print(f"{out_dir}: wrote {', '.join(f'{s}.hdf ({num[s]} seqs)' for s in SPLITS)} "
              f"in {info['seconds_total']:.0f} s.", file=sys.stderr)
    return info


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1], formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--num-train", type=int, default=8000, help="training sentences (default 8000)")
    parser.add_argument("--num-dev", type=int, default=200, help="dev sentences (default 200)")
    parser.add_argument("--num-test", type=int, default=200, help="test sentences (default 200)")
    parser.add_argument("--out-dir", default=os.path.join(here, "data"), help="output directory (default %(default)s)")
    parser.add_argument("--fortunes-dir", default=fortunes_text.DEFAULT_FORTUNES_DIR, help="default %(default)s")
    parser.add_argument("--jobs", type=int, default=0, help="parallel espeak-ng processes (default: #CPUs)")
    parser.add_argument("--keep-cache", action="store_true", help="keep <out-dir>/cache after finishing")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    args = parser.parse_args(argv)
    num = {"train": args.num_train, "dev": args.num_dev, "test": args.num_test}
    for split, n in num.items():
        if n < 0:
            parser.error(f"--num-{split} must be >= 0, got {n}")
    try:
        prepare(args.out_dir, num, fortunes_dir=args.fortunes_dir, jobs=args.jobs, keep_cache=args.keep_cache,
                quiet=args.quiet)
    except PrepareError as exc:
        print(f"prepare.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
