"""Tiny synthetic speech corpora for the dataset tests (sine waves written with soundfile).

Everything is deterministic: the waveforms are fixed sums of sines (plus seeded noise), written as 16-bit FLAC /
WAV (lossless, so the features do not depend on an encoder version) or Ogg Vorbis (only for shape checks).
The expected values in the tests were observed by running the reference on corpora built by these functions.
"""

from __future__ import annotations

import io
import os
import zipfile
from typing import Dict, List, Sequence, Tuple

import numpy as np

SAMPLE_RATE = 16000

#: (tag, text, frequency Hz, duration s) of the standard 3-sequence corpus
SEQS = [("corpus/seq0", "hello world", 440.0, 0.5), ("corpus/seq1", "the cat sat", 660.0, 0.3),
        ("corpus/seq2", "a b c d e", 880.0, 0.7)]


def fixed_audio(num_samples: int = 4800) -> np.ndarray:
    """The fixed test signal: float32 [num_samples], 440 Hz + 1250 Hz sines and seeded noise."""
    t = np.arange(num_samples) / SAMPLE_RATE
    rng = np.random.RandomState(0)
    return (0.3 * np.sin(2 * np.pi * 440 * t) + 0.1 * np.sin(2 * np.pi * 1250 * t)
            + 0.01 * rng.randn(len(t))).astype("float32")


def tone(freq: float, duration: float) -> np.ndarray:
    """float64 [duration * 16000]: a sine at ``freq`` plus its third harmonic."""
    t = np.arange(int(SAMPLE_RATE * duration)) / SAMPLE_RATE
    return 0.3 * np.sin(2 * np.pi * freq * t) + 0.05 * np.sin(2 * np.pi * 3 * freq * t)


def encode(audio: np.ndarray, fmt: str) -> bytes:
    """``audio`` as a FLAC / WAV (16 bit) or OGG (Vorbis) file's bytes."""
    import soundfile

    buf = io.BytesIO()
    subtype = {"FLAC": "PCM_16", "WAV": "PCM_16", "OGG": "VORBIS"}[fmt]
    soundfile.write(buf, audio, SAMPLE_RATE, format=fmt, subtype=subtype)
    return buf.getvalue()


def write_zip(path: str, seqs: Sequence[Tuple[str, str, float, float]] = SEQS, *, fmt: str = "FLAC",
              name: str = None, prefix: bool = True, extra_entries: Sequence[Dict] = (),
              skip_members: Sequence[str] = (), corrupt_members: Sequence[str] = ()) -> List[Dict]:
    """Writes an OggZipDataset zip: ``<name>.txt`` (list of dicts) + ``<name>/<file>`` audio members.

    :return: the entries of the ``.txt`` list
    """
    name = name or os.path.basename(path)[:-len(".zip")]
    ext = {"FLAC": "flac", "WAV": "wav", "OGG": "ogg"}[fmt]
    entries = []
    with zipfile.ZipFile(path, "w") as zf:
        for i, (tag, text, freq, dur) in enumerate(seqs):
            fn = f"seq{i}.{ext}"
            entries.append({"file": fn, "seq_name": tag, "text": text, "duration": dur})
            member = f"{name}/{fn}" if prefix else fn
            if fn in skip_members:
                continue
            data = b"this is not audio" if fn in corrupt_members else encode(tone(freq, dur), fmt)
            zf.writestr(member, data)
        entries.extend(extra_entries)
        zf.writestr(f"{name}.txt", repr(entries))
    return entries


def write_text_zip(path: str, num: int = 20) -> List[Dict]:
    """A text-only zip (no audio members): ``num`` entries ``c/sNN`` with durations 1.0 .. 2.9 s."""
    name = os.path.basename(path)[:-len(".zip")]
    entries = [{"file": "s%02d.ogg" % i, "seq_name": "c/s%02d" % i, "text": "w%d" % i,
                "duration": 1.0 + (i * 7 % 20) / 10} for i in range(num)]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}.txt", repr(entries))
    return entries


#: LibriSpeech tree: subdir -> (speaker, chapter) -> transcriptions
LIBRISPEECH = {
    "train-clean-100": {(19, 198): ["HELLO WORLD", "THE CAT SAT"], (100, 7): ["ZZ TOP", "Q"], (3, 12): ["AA BB CC DD"]},
    "train-other-500": {(26, 495): ["A B C"]},
    "dev-clean": {(84, 121): ["DEV ONE", "DEV TWO"]},
}


def write_librispeech(root: str, *, use_zip: bool = False, ogg: bool = False) -> None:
    """Writes :data:`LIBRISPEECH` in LibriSpeech's layout under ``root`` (FLAC files; ``ogg``: also
    ``.flac.ogg``); ``use_zip``: as ``<root>/<subdir>.zip`` with members ``LibriSpeech/<subdir>/...``."""
    k = 0
    for subdir, chapters in LIBRISPEECH.items():
        files: Dict[str, bytes] = {}
        for (spk, ch), lines in chapters.items():
            base = f"{subdir}/{spk}/{ch}"
            trans = ""
            for i, line in enumerate(lines):
                trans += f"{spk}-{ch}-{i:04d} {line}\n"
                audio = tone(300 + 50 * k, 0.2 + 0.1 * k)
                k += 1
                files[f"{base}/{spk}-{ch}-{i:04d}.flac"] = encode(audio, "FLAC")
                if ogg:
                    files[f"{base}/{spk}-{ch}-{i:04d}.flac.ogg"] = encode(audio, "OGG")
            files[f"{base}/{spk}-{ch}.trans.txt"] = trans.encode("utf8")
        if use_zip:
            os.makedirs(root, exist_ok=True)
            with zipfile.ZipFile(os.path.join(root, f"{subdir}.zip"), "w") as zf:
                for fn, data in files.items():
                    zf.writestr("LibriSpeech/" + fn, data)
        else:
            for fn, data in files.items():
                full = os.path.join(root, fn)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(data)


#: a BPE codes file (``subword-nmt learn-bpe -s 40`` on six English sentences: 23 merges) and its vocabulary
BPE_CODES = """#version: 0.2
t h
th e</w>
a t</w>
i n</w>
i n
o n</w>
o g</w>
n o
i s</w>
a in</w>
th in
th e
th at</w>
t o</w>
s t
s at</w>
q u
o r</w>
no t</w>
m a
g o
d og</w>
b e</w>
"""

BPE_LABELS = [
    '<s>', '</s>', '<unk>', 'a@@', 'ain', 'at', 'b@@', 'be', 'c@@', 'd', 'dog', 'e', 'e@@', 'f@@', 'g',
    'g@@', 'go@@', 'i@@', 'in', 'in@@', 'is', 'j@@', 'k', 'k@@', 'l', 'l@@', 'm@@', 'ma@@', 'n', 'n@@',
    'no@@', 'not', 'o', 'o@@', 'og', 'on', 'or', 'p@@', 'qu@@', 'r', 'r@@', 's', 's@@', 'sat', 'st@@', 't',
    't@@', 'that', 'the', 'the@@', 'thin@@', 'to', 'u@@', 'v@@', 'w@@', 'x', 'y', 'y@@', 'z@@'
]


def write_bpe(directory: str) -> Tuple[str, str]:
    """Writes ``codes.txt`` and ``bpe.vocab`` (a Python dict literal) into ``directory``.

    :return: (codes file, vocab file)
    """
    codes = os.path.join(directory, "codes.txt")
    with open(codes, "w") as f:
        f.write(BPE_CODES)
    vocab = os.path.join(directory, "bpe.vocab")
    labels = BPE_LABELS
    with open(vocab, "w") as f:
        f.write(repr({label: i for i, label in enumerate(labels)}))
    return codes, vocab
