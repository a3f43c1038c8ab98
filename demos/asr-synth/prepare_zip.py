#!/usr/bin/env python3
"""
Package the synthesized-speech corpus as RETURNN speech corpora read from audio: Ogg zips (``OggZipDataset``),
a LibriSpeech-layout tree (``LibriSpeechCorpus``), a BPE model learned on the training text, and feature
statistics -- the inputs of ``blstm-ctc-bpe.config`` (in the style of the published LibriSpeech setups).

Usage::

    python3 demos/asr-synth/prepare_zip.py [--num-train 3000 --num-dev 200 --num-test 200] [--bpe-merges 200]

Needs ``espeak-ng`` and ``fortunes`` (as ``prepare.py``) and the ``subword-nmt`` package (``pip install
subword-nmt``) for learning the BPE codes. The sentences, voices and splits are those of ``prepare.py`` (the
first N of a split are the same), but the audio is kept instead of being turned into HDF features.

Writes into ``--out-dir`` (default ``demos/asr-synth/data-zip``):

- ``train.zip``, ``dev.zip``, ``test.zip``: ``<split>.txt`` (a Python list of ``{"file", "seq_name", "text",
  "duration"}``) and ``<split>/<seq>.ogg`` (Ogg Vorbis, 16 kHz mono), the layout ``OggZipDataset`` reads;
- ``librispeech/<split>/<speaker>/<chapter>/<speaker>-<chapter>-<seq>.flac`` and ``<speaker>-<chapter>.trans.txt``
  (upper-case text, as LibriSpeech) -- the layout ``LibriSpeechCorpus`` reads; speaker = the espeak-ng voice
  variant (1-based), chapter = the dialect (1-based), seq = the sentence index. Sequence tags are
  ``<split>-<speaker>-<chapter>-<seq:04d>`` in both (``LibriSpeechCorpus``'s default tag format);
- ``bpe.codes`` (subword-nmt codes, ``--bpe-merges`` merges learned on the training transcriptions) and
  ``bpe.vocab`` (a Python dict literal: ``<s>``, ``</s>``, ``<unk>``, then the BPE units of the training text
  and every single character, word-final and word-inner, sorted);
- ``stats.mean.txt``, ``stats.std_dev.txt``: per-dimension mean / standard deviation of the 40-dim
  ``log_mel_filterbank`` features of the training audio (``ExtractAudioFeatures``), for ``norm_mean`` /
  ``norm_std_dev``;
- ``train.txt``, ``dev.txt``, ``test.txt``: ``<seq_tag> <transcription>`` (references for the WER tool);
- ``prepare-info.json``: options, counts, hours of audio, timings (written last).

Files are written to temp names and renamed; re-running with the same options when ``prepare-info.json``
matches does nothing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import os
import sys
import time
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the repository (returnn)

import fortunes_text  # noqa: E402
import prepare  # noqa: E402

SPLITS = prepare.SPLITS
SAMPLE_RATE = 16000


def seq_key(split: str, index: int, text: str) -> tuple[int, int, int]:
    """(speaker, chapter, seq) of sentence ``index`` of ``split``: voice variant, dialect (1-based), index."""
    voice, _rate, _pitch = prepare.voice_for(split, text)
    dialect, variant = voice.split("+")
    dialects, variants = prepare.VOICES[split][0], prepare.VOICES[split][1]
    return variants.index(variant) + 1, dialects.index(dialect) + 1, index


def seq_tag(split: str, key: tuple[int, int, int]) -> str:
    """``<split>-<speaker>-<chapter>-<seq:04d>`` (LibriSpeechCorpus's default tag format)."""
    return "%s-%i-%i-%04i" % ((split,) + key)


def encode_audio(wave: np.ndarray, fmt: str) -> bytes:
    """16 kHz mono ``wave`` as Ogg Vorbis (``"OGG"``) or 16-bit FLAC (``"FLAC"``) bytes."""
    import soundfile

    buf = io.BytesIO()
    soundfile.write(buf, wave, SAMPLE_RATE, format=fmt, subtype="VORBIS" if fmt == "OGG" else "PCM_16")
    return buf.getvalue()


def _atomic_bytes(path: str, data: bytes) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def learn_bpe(texts: list[str], num_merges: int, out_dir: str) -> tuple[str, str]:
    """Learns ``num_merges`` BPE merges (subword-nmt) on ``texts``; writes ``bpe.codes`` and ``bpe.vocab``.

    :return: (codes file, vocab file)
    :raises prepare.PrepareError: subword-nmt is not installed
    """
    try:
        from subword_nmt.apply_bpe import BPE
        from subword_nmt.learn_bpe import learn_bpe as _learn
    except ImportError:
        raise prepare.PrepareError("the BPE codes are learned with subword-nmt: pip install subword-nmt") from None
    codes_path = os.path.join(out_dir, "bpe.codes")
    out = io.StringIO()
    _learn(io.StringIO("".join(t + "\n" for t in texts)), out, num_merges, min_frequency=2)
    _atomic_bytes(codes_path, out.getvalue().encode("utf8"))
    with open(codes_path, encoding="utf8") as f:
        bpe = BPE(f)
    units = {unit for t in texts for unit in bpe.process_line(t).split()}
    # every character inside and at the end of a word, so that any word of dev/test can be segmented
    units |= {c for c in fortunes_text.VOCAB if c != " "} | {c + "@@" for c in fortunes_text.VOCAB if c != " "}
    units = sorted(units)
    labels = ["<s>", "</s>", "<unk>"] + units
    vocab_path = os.path.join(out_dir, "bpe.vocab")
    _atomic_bytes(vocab_path, repr({label: i for i, label in enumerate(labels)}).encode("utf8"))
    return codes_path, vocab_path


def feature_stats(waves: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation (float64 [40]) of the 40-dim log-mel features (as the config computes them)."""
    from returnn.datasets.util.feature_extraction import ExtractAudioFeatures

    extractor = ExtractAudioFeatures(features="log_mel_filterbank", num_feature_filters=40)
    feats = [extractor.get_audio_features(w.astype(np.float64), SAMPLE_RATE) for w in waves]
    return prepare.feature_stats(np.concatenate(feats).astype(np.float32))


def prepare_zip(out_dir: str, num: dict, *, bpe_merges: int = 200, librispeech: bool = True,
                fortunes_dir: str = fortunes_text.DEFAULT_FORTUNES_DIR, jobs: int = 0, quiet: bool = False) -> dict:
    """Runs the packaging (see the module doc).

    :return: the info dict (also written to ``prepare-info.json``)
    :raises prepare.PrepareError: espeak-ng, fortunes or subword-nmt missing; too many sentences requested
    """
    start = time.time()
    espeak = prepare.find_espeak()
    try:
        corpus = fortunes_text.load_corpus(fortunes_dir)
    except fortunes_text.FortunesMissingError as exc:
        raise prepare.PrepareError(str(exc)) from None
    for split in SPLITS:
        if num[split] > len(corpus[split]):
            raise prepare.PrepareError(f"--num-{split} {num[split]}: only {len(corpus[split])} sentences available")
    settings = {"num": num, "bpe_merges": bpe_merges, "librispeech": librispeech, "voices": prepare.VOICES,
                "sample_rate": SAMPLE_RATE, "audio_format": "ogg-vorbis"}
    os.makedirs(out_dir, exist_ok=True)
    info_path = os.path.join(out_dir, "prepare-info.json")
    if os.path.exists(info_path):
        with open(info_path) as f:
            info = json.load(f)
        if info.get("settings") == json.loads(json.dumps(settings)):
            if not quiet:
                print(f"{out_dir}: already prepared with these options, nothing to do.", file=sys.stderr)
            return info
    jobs = jobs or os.cpu_count() or 1
    progress = prepare.Progress(sum(num.values()), "synthesizing")
    if quiet:
        progress.update = lambda n: None  # type: ignore[method-assign]
    seconds, train_waves = {}, []
    for split in SPLITS:
        texts = corpus[split][:num[split]]
        keys = [seq_key(split, i, t) for i, t in enumerate(texts)]
        tags = [seq_tag(split, k) for k in keys]
        entries, total = [], 0.0
        zip_path = os.path.join(out_dir, f"{split}.zip")
        tmp_zip = f"{zip_path}.tmp{os.getpid()}"
        trans: dict = {}
        with zipfile.ZipFile(tmp_zip, "w") as zf, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for chunk in range(0, len(texts), 64):
                part = list(range(chunk, min(chunk + 64, len(texts))))
                waves = list(pool.map(lambda i: prepare.synthesize(espeak, texts[i], *prepare.voice_for(split,
                                                                                                       texts[i])),
                                      part))
                for i, wave in zip(part, waves):
                    fn = f"{tags[i]}.ogg"
                    zf.writestr(f"{split}/{fn}", encode_audio(wave, "OGG"))
                    duration = len(wave) / SAMPLE_RATE
                    total += duration
                    entries.append({"file": fn, "seq_name": tags[i], "text": texts[i], "duration": duration})
                    if librispeech:
                        spk, ch, seq = keys[i]
                        folder = os.path.join(out_dir, "librispeech", split, str(spk), str(ch))
                        os.makedirs(folder, exist_ok=True)
                        _atomic_bytes(os.path.join(folder, f"{spk}-{ch}-{seq:04d}.flac"), encode_audio(wave, "FLAC"))
                        trans.setdefault((spk, ch), []).append(f"{spk}-{ch}-{seq:04d} {texts[i].upper()}\n")
                    if split == "train":
                        train_waves.append(wave)
                progress.update(len(part))
            zf.writestr(f"{split}.txt", repr(entries))
        os.replace(tmp_zip, zip_path)
        for (spk, ch), lines in trans.items():
            folder = os.path.join(out_dir, "librispeech", split, str(spk), str(ch))
            _atomic_bytes(os.path.join(folder, f"{spk}-{ch}.trans.txt"), "".join(lines).encode("utf8"))
        _atomic_bytes(os.path.join(out_dir, f"{split}.txt"),
                      "".join(f"{tag} {text}\n" for tag, text in zip(tags, texts)).encode("utf8"))
        seconds[split] = total
    synth_time = time.time() - start
    learn_bpe(corpus["train"][:num["train"]], bpe_merges, out_dir)
    mean, std = feature_stats(train_waves)
    _atomic_bytes(os.path.join(out_dir, "stats.mean.txt"), "".join(f"{float(v)!r}\n" for v in mean).encode())
    _atomic_bytes(os.path.join(out_dir, "stats.std_dev.txt"), "".join(f"{float(v)!r}\n" for v in std).encode())
    info = {"settings": settings, "hours": {s: round(seconds[s] / 3600, 3) for s in SPLITS},
            "seconds_total": round(time.time() - start, 1), "seconds_synthesis": round(synth_time, 1), "jobs": jobs}
    _atomic_bytes(info_path, (json.dumps(info, indent=1) + "\n").encode())
    if not quiet:
        print(f"{out_dir}: wrote {', '.join(f'{s}.zip ({num[s]} seqs)' for s in SPLITS)} in "
              f"{info['seconds_total']:.0f} s.", file=sys.stderr)
    return info


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--num-train", type=int, default=3000, help="training sentences (default 3000)")
    parser.add_argument("--num-dev", type=int, default=200, help="dev sentences (default 200)")
    parser.add_argument("--num-test", type=int, default=200, help="test sentences (default 200)")
    parser.add_argument("--bpe-merges", type=int, default=200, help="BPE merge operations (default 200)")
    parser.add_argument("--no-librispeech", action="store_true", help="do not write the LibriSpeech-layout tree")
    parser.add_argument("--out-dir", default=os.path.join(HERE, "data-zip"), help="default %(default)s")
    parser.add_argument("--fortunes-dir", default=fortunes_text.DEFAULT_FORTUNES_DIR, help="default %(default)s")
    parser.add_argument("--jobs", type=int, default=0, help="parallel espeak-ng processes (default: #CPUs)")
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    args = parser.parse_args(argv)
    num = {"train": args.num_train, "dev": args.num_dev, "test": args.num_test}
    for split, n in num.items():
        if n < 0:
            parser.error(f"--num-{split} must be >= 0, got {n}")
    try:
        prepare_zip(args.out_dir, num, bpe_merges=args.bpe_merges, librispeech=not args.no_librispeech,
                    fortunes_dir=args.fortunes_dir, jobs=args.jobs, quiet=args.quiet)
    except prepare.PrepareError as exc:
        print(f"prepare_zip.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
