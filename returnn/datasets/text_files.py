"""Text files of the text datasets (:mod:`returnn.datasets.lm`, :mod:`returnn.datasets.translation_factors`):
plain or gzipped UTF-8 lines, symbol lists and maps, pickled or literal vocabularies."""

from __future__ import annotations

import ast
import gzip
import os
import pickle
from typing import Dict, List

from returnn.errors import DatasetFileError


def open_text(filename: str):
    """:return: ``filename`` opened for reading as UTF-8 text (gunzipped if it ends with ``.gz``)
    :raises DatasetFileError: it does not exist
    """
    if not os.path.exists(filename):
        raise DatasetFileError(filename, "text file does not exist")
    if filename.endswith(".gz"):
        return gzip.open(filename, "rt", encoding="utf8")
    return open(filename, encoding="utf8")


def read_lines(filename: str) -> List[str]:
    """:return: the lines of the text file ``filename`` (see :func:`open_text`), without line ends
    :raises DatasetFileError: missing, damaged gzip, or not UTF-8
    """
    try:
        with open_text(filename) as f:
            return [line.rstrip("\n").rstrip("\r") for line in f]
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise DatasetFileError(filename, f"cannot read text (damaged gzip or not UTF-8?): {exc}") from None


def load_symbols_file(filename: str) -> List[str]:
    """One symbol per line; index = line number (blank lines are a space symbol only if the line is ' ')."""
    return [line if line.strip() == "" and line else line.strip() for line in read_lines(filename) if line != ""]


def load_symbols_map_file(filename: str) -> Dict[str, int]:
    """:return: symbol -> index from lines ``"<symbol> <index>"`` (blank lines skipped)
    :raises DatasetFileError: a line of another form, naming file and line
    """
    result = {}
    for n, line in enumerate(read_lines(filename), start=1):
        if not line.strip():
            continue
        parts = line.rsplit(None, 1)
        if len(parts) != 2:
            raise DatasetFileError(filename, f"line {n}: expected 'symbol index', got {line!r}")
        try:
            result[parts[0]] = int(parts[1])
        except ValueError:
            raise DatasetFileError(filename, f"line {n}: index {parts[1]!r} is not an int") from None
    return result


def load_vocab_file(filename: str) -> Dict[str, int]:
    """A vocabulary: a pickled dict, or a text file with a Python dict literal (``{"a": 0, ...}``)."""
    if not os.path.exists(filename):
        raise DatasetFileError(filename, "vocabulary file does not exist")
    with open(filename, "rb") as f:
        raw = f.read()
    try:
        vocab = pickle.loads(raw)
    except Exception:
        try:
            vocab = ast.literal_eval(raw.decode("utf8"))
        except Exception:
            raise DatasetFileError(filename, "expected a pickled dict or a dict literal word -> index") from None
    if not isinstance(vocab, dict):
        raise DatasetFileError(filename, f"expected a dict word -> index, got {type(vocab).__name__}")
    return vocab


def labels_from_map(mapping: Dict[str, int]) -> List[str]:
    """:return: the labels by index (the first symbol of each index; ``""`` for an index without one)"""
    labels = [""] * (max(mapping.values(), default=-1) + 1)
    for sym, idx in mapping.items():
        if not labels[idx]:
            labels[idx] = sym
    return labels


def find_file_or_gz(path: str, name: str) -> str:
    """:return: ``path/name``, or ``path/name.gz`` if only that exists
    :raises DatasetFileError: neither exists
    """
    for candidate in (os.path.join(path, name), os.path.join(path, name + ".gz")):
        if os.path.exists(candidate):
            return candidate
    raise DatasetFileError(os.path.join(path, name), "file does not exist (also tried .gz)")
