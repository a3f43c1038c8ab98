"""Sentences from Debian's ``fortunes`` package, cleaned for speech synthesis and character models.

Used by ``demos/asr-synth/prepare.py`` and ``demos/lm-fortunes/prepare.py``. Pure Python, no third-party
imports.

Pipeline (all deterministic, independent of file-system order):

1. :func:`read_records`: every quotation file under the fortunes directory (``%``-separated records; the
   binary ``.dat`` index files, ``.u8`` links and non-English / picture collections are skipped).
2. :func:`record_to_sentences`: attribution lines (``-- Author``) and everything after them are dropped,
   lines are joined, the text is split into sentences at ``.``, ``!``, ``?``.
3. :func:`clean_sentence`: keeps a sentence only if it consists of ASCII letters, digits and basic
   punctuation, has 3–20 words, and no all-caps word (espeak-ng spells those letter by letter).
4. :func:`transcription`: the spoken form used as ASR target / LM text: lower case ``a``–``z``, apostrophe and
   single spaces (punctuation removed, ``-`` becomes a space). Sentences containing digits are dropped for
   ASR (``"1984"`` is read as words, which a character model cannot infer from the characters).
5. :func:`split_of`: train/dev/test by a SHA-1 hash of the transcription (90/5/5 %).
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Iterator

DEFAULT_FORTUNES_DIR = "/usr/share/games/fortunes"

#: collections that are pictures, non-English, or mostly not prose
EXCLUDED_FILES = frozenset({"art", "ascii-art", "translate-me", "perl", "debian", "linux", "linuxcookie"})

#: the character vocabulary of :func:`transcription` (index = label id), space first
VOCAB = [" ", "'"] + [chr(c) for c in range(ord("a"), ord("z") + 1)]

#: every character :func:`clean_sentence` lets through (the written-text vocabulary of the LM demo), sorted
WRITTEN_CHARS = sorted(" .,!?;:'\"()-" + "0123456789" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" + "abcdefghijklmnopqrstuvwxyz")

MIN_WORDS = 3
MAX_WORDS = 20

_ALLOWED_RE = re.compile(r"^[A-Za-z0-9 .,!?;:'\"()-]+$")
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])[\"')]*\s+")
_ALLCAPS_RE = re.compile(r"\b[A-Z]{2,}\b")


class FortunesMissingError(RuntimeError):
    """The fortunes collection is not installed (Debian package ``fortunes``)."""


def list_fortune_files(fortunes_dir: str = DEFAULT_FORTUNES_DIR) -> list[str]:
    """
    :param fortunes_dir: directory of the ``fortunes`` package (default ``/usr/share/games/fortunes``)
    :return: sorted paths of the quotation files used (no ``.dat``/``.u8``, no :data:`EXCLUDED_FILES`)
    :raises FortunesMissingError: when the directory or the main ``fortunes`` file is missing, naming the
        Debian package to install
    """
    if not os.path.isfile(os.path.join(fortunes_dir, "fortunes")):
        raise FortunesMissingError(
            f"fortunes text not found: expected the file {os.path.join(fortunes_dir, 'fortunes')!r}. "
            "Install the Debian package 'fortunes' (apt-get install fortunes), or pass --fortunes-dir."
        )
    names = []
    for name in sorted(os.listdir(fortunes_dir)):
        path = os.path.join(fortunes_dir, name)
        if "." in name or name in EXCLUDED_FILES or not os.path.isfile(path) or os.path.islink(path):
            continue
        names.append(path)
    return names


def read_records(fortunes_dir: str = DEFAULT_FORTUNES_DIR) -> Iterator[str]:
    """
    :return: the raw ``%``-separated records of all files of :func:`list_fortune_files`, in file order
    """
    for path in list_fortune_files(fortunes_dir):
        with open(path, "rb") as f:
            text = f.read().decode("utf8", errors="replace")
        record: list[str] = []
        for line in text.splitlines():
            if line.strip() == "%":
                if record:
                    yield "\n".join(record)
                record = []
            else:
                record.append(line)
        if record:
            yield "\n".join(record)


def record_to_sentences(record: str) -> list[str]:
    """
    :param record: one fortune (several lines)
    :return: its sentences (stripped, single spaces), attribution lines and everything after them removed
    """
    lines = []
    for line in record.splitlines():
        stripped = line.strip()
        if stripped.startswith("--") or stripped.startswith("- "):
            break
        lines.append(stripped)
    text = " ".join(" ".join(lines).split())
    return [s.strip() for s in _SENT_SPLIT_RE.split(text) if s.strip()]


def clean_sentence(sentence: str) -> str | None:
    """
    :param sentence: one sentence as given by :func:`record_to_sentences`
    :return: the sentence (unchanged) if it passes the filters described in the module docstring, else None
    """
    if not _ALLOWED_RE.match(sentence) or _ALLCAPS_RE.search(sentence):
        return None
    if not MIN_WORDS <= len(sentence.split()) <= MAX_WORDS:
        return None
    return sentence


def transcription(sentence: str) -> str:
    """
    :param sentence: a cleaned sentence
    :return: its spoken form over :data:`VOCAB`: lower case, ``-`` → space, other punctuation removed,
        apostrophes kept only inside words (``don't``), single spaces. Digits are kept (callers drop such
        sentences where they are unwanted).
    """
    text = sentence.lower().replace("-", " ")
    text = re.sub(r"[^a-z0-9' ]", "", text)
    words = [w.strip("'") for w in text.split()]
    return " ".join(w for w in words if w)


def sentence_hash(text: str) -> int:
    """:return: a stable 64-bit integer hash (SHA-1 prefix) of ``text``"""
    return int(hashlib.sha1(text.encode("utf8")).hexdigest()[:16], 16)


def split_of(text: str) -> str:
    """:return: ``"train"`` (90 %), ``"dev"`` (5 %) or ``"test"`` (5 %), from :func:`sentence_hash`"""
    bucket = sentence_hash(text) % 100
    return "train" if bucket < 90 else ("dev" if bucket < 95 else "test")


def load_corpus(
    fortunes_dir: str = DEFAULT_FORTUNES_DIR, *, allow_digits: bool = False, written: bool = False
) -> dict[str, list[str]]:
    """
    The deduplicated, split corpus of transcriptions (or of the written sentences).

    :param fortunes_dir: see :func:`list_fortune_files`
    :param allow_digits: keep sentences containing digits (False for ASR)
    :param written: return the cleaned sentences as written (case, punctuation) instead of their
        :func:`transcription`; dedup and split then use the written form
    :return: ``{"train": [...], "dev": [...], "test": [...]}``; each list ordered by :func:`sentence_hash`
        (a fixed pseudo-random order, so the first N of a split do not depend on how many are taken)
    """
    seen = set()
    splits: dict[str, list[str]] = {"train": [], "dev": [], "test": []}
    for record in read_records(fortunes_dir):
        for sentence in record_to_sentences(record):
            if clean_sentence(sentence) is None:
                continue
            trans = transcription(sentence)
            if not allow_digits and re.search(r"[0-9]", trans):
                continue
            if not MIN_WORDS <= len(trans.split()) <= MAX_WORDS:
                continue
            if written:
                trans = sentence
            if trans in seen:
                continue
            seen.add(trans)
            splits[split_of(trans)].append(trans)
    for name in splits:
        splits[name].sort(key=sentence_hash)
    return splits
