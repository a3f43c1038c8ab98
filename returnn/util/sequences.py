"""Small sequence helpers of the reference's ``returnn.util.basic``: ``uniq``, ``slice_pad_zeros``, and the
splitting of an orthography (transcription) into symbols."""

from __future__ import annotations

import re
from typing import List, Sequence

import numpy


def uniq(seq: numpy.ndarray) -> numpy.ndarray:
    """``seq`` (1D) with runs of equal neighbours collapsed to one item, e.g. ``[0, 1, 1, 2, 1] → [0, 1, 2, 1]``
    (not a set: a value may come again later)."""
    seq = numpy.asarray(seq)
    if seq.shape[0] == 0:
        return seq
    keep = numpy.concatenate([[True], seq[1:] != seq[:-1]])
    return seq[keep]


def slice_pad_zeros(x: numpy.ndarray, begin: int, end: int, axis: int = 0) -> numpy.ndarray:
    """``x[begin:end]`` along ``axis`` where the positions outside ``[0, len)`` are zeros, e.g. with
    ``x = [1, 2, 3, 4]``: ``begin=-2, end=2`` → ``[0, 0, 1, 2]``; ``begin=2, end=6`` → ``[3, 4, 0, 0]``.
    The result has ``end - begin`` entries on ``axis`` and the dtype of ``x``."""
    x = numpy.asarray(x)
    n = x.shape[axis]
    pad_left = max(0, -begin)
    pad_right = max(0, end - n)
    index = [slice(None)] * x.ndim
    index[axis] = slice(max(begin, 0), min(end, n))
    out = x[tuple(index)]
    if pad_left or pad_right:
        widths = [(0, 0)] * x.ndim
        widths[axis] = (pad_left, pad_right)
        out = numpy.pad(out, widths, mode="constant")
    return out


def parse_orthography_into_symbols(orthography: str, upper_case_special: bool = True, word_based: bool = False,
                                   square_brackets_for_specials: bool = True) -> List[str]:
    """Splits a transcription into symbols: characters, except that ``[NOISE]`` (square brackets) is one symbol.

    :param orthography: e.g. ``"hello [FOO] bar"``
    :param upper_case_special: a ``[special]`` symbol is upper-cased (``[foo]`` → ``[FOO]``)
    :param word_based: split at white space into words instead of characters (specials still one symbol each)
    :param square_brackets_for_specials: with False, ``[`` and ``]`` are ordinary characters
    :return: e.g. ``['h', 'e', 'l', 'l', 'o', ' ', '[FOO]', ' ', 'b', 'a', 'r']``
    """
    if word_based:
        words = orthography.split()
        if upper_case_special:
            words = [w.upper() if (square_brackets_for_specials and w.startswith("[") and w.endswith("]")) else w
                     for w in words]
        return words
    out: List[str] = []
    i = 0
    while i < len(orthography):
        c = orthography[i]
        if square_brackets_for_specials and c == "[":
            close = orthography.find("]", i + 1)
            if close >= 0:
                special = orthography[i:close + 1]
                out.append(special.upper() if upper_case_special else special)
                i = close + 1
                continue
        out.append(c)
        i += 1
    return out


def parse_orthography(orthography: str, prefix: Sequence[str] = (), postfix: Sequence[str] = ("[END]",),
                      remove_chars: str = "(){}", collapse_spaces: bool = True, final_strip: bool = True,
                      **kwargs) -> List[str]:
    """A transcription as a symbol list: ``remove_chars`` deleted, runs of spaces made one (``collapse_spaces``),
    outer spaces stripped (``final_strip``), split by :func:`parse_orthography_into_symbols` (``kwargs``), between
    ``prefix`` and ``postfix``. E.g. ``"hi [HES] there "`` → ``['h', 'i', ' ', '[HES]', ' ', 't', ..., '[END]']``."""
    for c in remove_chars:
        orthography = orthography.replace(c, "")
    if collapse_spaces:
        orthography = re.sub(" +", " ", orthography)
    if final_strip:
        orthography = orthography.strip()
    return list(prefix) + parse_orthography_into_symbols(orthography, **kwargs) + list(postfix)
