"""Byte-pair encoding (BPE) of words with a codes file, as ``subword-nmt`` writes it and the reference's
``returnn.util.bpe.StandardBytePairEncoder`` applies it.

The codes file lists merges, most frequent first, one ``left right`` pair per line; an optional first line
``#version: 0.2`` selects the end-of-word convention: in version 0.2 the last character of a word carries
``</w>`` (``e</w>``), in version 0.1 (no header) ``</w>`` is a symbol of its own. A word is split into
characters and the pair with the lowest rank is merged until no known pair is left. With a label list (the
vocabulary), a segment that is not a label (``seg@@`` inside a word, ``seg`` at its end) is split back into
the two parts it was merged from, recursively, so that known labels are produced where possible. Labels
inside a word carry the separator ``@@`` (``th@@ e``).
"""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from returnn.util.files import DataFileNotFoundError, DataFileValueError

_END = "</w>"


class StandardBytePairEncoder:
    """Applies the merges of a BPE codes file to words (see the module doc).

    :param bpe_codes_file: the codes file
    :param labels: the vocabulary labels (``th@@``, ``e``, ...); when given, unknown segments are split back
    :raises DataFileNotFoundError: the codes file does not exist
    :raises DataFileValueError: a codes line is not ``left right``, or the version header is not a number
    """

    separator = "@@"

    def __init__(self, bpe_codes_file: str, labels: Optional[Sequence[str]] = None):
        self.labels: Optional[Set[str]] = set(labels) if labels is not None else None
        self._version, self._codes = _load_codes(bpe_codes_file)
        self._codes_reverse: Dict[str, Tuple[str, str]] = {a + b: (a, b) for (a, b) in self._codes}
        self._cache: Dict[str, List[str]] = {}
        with open(bpe_codes_file, "r", encoding="utf8") as f:
            first = f.readline().strip("\r\n ").split(" ")
        self._header: Optional[Tuple[str, str]] = (first[0], first[1]) if first[0] == "#version:" else None

    @property
    def _bpe_codes(self) -> Dict[Tuple[str, str], int]:
        """The merges as the reference exposes them: ``(left, right)`` -> line index in the codes file (0-based;
        with a ``#version:`` header, the header itself is entry 0 and the first merge is 1; a repeated merge keeps
        its first index), as observed."""
        offset = 1 if self._header is not None else 0
        codes = {pair: rank + offset for pair, rank in self._codes.items()}
        if self._header is not None:
            codes[self._header] = 0
        return codes

    def segment_sentence(self, sentence: str) -> List[str]:
        """The labels of a whitespace-separated sentence: each word's segments, all but the last of a word
        with ``@@`` appended, e.g. ``"then the"`` → ``["th@@", "e@@", "n", "the"]``."""
        out = []
        for word in sentence.split():
            segments = self.encode_word(word)
            out.extend(s + self.separator for s in segments[:-1])
            out.append(segments[-1])
        return out

    def encode_word(self, word: str) -> List[str]:
        """The segments of one word (without separators), e.g. ``"then"`` → ``["th", "e", "n"]``."""
        if word in self._cache:
            return self._cache[word]
        if len(word) == 1:
            return [word]  # as subword-nmt: a single character is not merged nor checked against the labels
        if self._version == (0, 1):
            symbols = list(word) + [_END]
        else:
            symbols = list(word[:-1]) + [word[-1] + _END]
        while len(symbols) > 1:
            pairs = set(zip(symbols[:-1], symbols[1:]))
            best = min(pairs, key=lambda pair: self._codes.get(pair, float("inf")))
            if best not in self._codes:
                break
            symbols = _merge(symbols, best)
        if symbols[-1] == _END:
            symbols = symbols[:-1]
        elif symbols[-1].endswith(_END):
            symbols[-1] = symbols[-1][: -len(_END)]
        if self.labels is not None:
            symbols = self._split_unknown(symbols)
        self._cache[word] = symbols
        return symbols

    def _split_unknown(self, segments: List[str]) -> List[str]:
        out: List[str] = []
        for segment in segments[:-1]:
            if segment + self.separator in self.labels:
                out.append(segment)
            else:
                out.extend(self._recursive_split(segment, final=False))
        last = segments[-1]
        if last in self.labels:
            out.append(last)
        else:
            out.extend(self._recursive_split(last, final=True))
        return out

    def _recursive_split(self, segment: str, final: bool) -> Iterator[str]:
        pair = self._codes_reverse.get(segment + _END if final else segment)
        if pair is None:
            yield segment
            return
        left, right = pair
        if final:
            right = right[: -len(_END)]
        if left + self.separator in self.labels:
            yield left
        else:
            yield from self._recursive_split(left, final=False)
        if (final and right in self.labels) or (not final and right + self.separator in self.labels):
            yield right
        else:
            yield from self._recursive_split(right, final=final)


def _merge(symbols: List[str], pair: Tuple[str, str]) -> List[str]:
    first, second = pair
    out = []
    i = 0
    while i < len(symbols):
        if i < len(symbols) - 1 and symbols[i] == first and symbols[i + 1] == second:
            out.append(first + second)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def _load_codes(filename: str) -> Tuple[Tuple[int, ...], Dict[Tuple[str, str], int]]:
    try:
        with open(filename, "r", encoding="utf8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise DataFileNotFoundError(filename, "BPE codes file does not exist") from None
    version: Tuple[int, ...] = (0, 1)
    first_lineno = 1
    if lines and lines[0].startswith("#version:"):
        text = re.sub(r"(\.0+)*$", "", lines[0].split()[-1])
        try:
            version = tuple(int(x) for x in text.split("."))
        except ValueError:
            raise DataFileValueError(filename, f"line 1: expected '#version: <number>', got {lines[0]!r}") from None
        lines = lines[1:]
        first_lineno = 2
    codes: Dict[Tuple[str, str], int] = {}
    for lineno, line in enumerate(lines, start=first_lineno):
        parts = line.strip("\r\n ").split(" ")
        if len(parts) != 2:
            raise DataFileValueError(filename, f"line {lineno}: expected a merge 'left right', got {line!r}")
        codes.setdefault((parts[0], parts[1]), len(codes))  # a repeated merge keeps its first (best) rank
    return version, codes


from returnn.util.bpe_search import BpeOpts as BpeOpts  # noqa: E402
from returnn.util.bpe_search import BpePostMergeSymbol as BpePostMergeSymbol  # noqa: E402
from returnn.util.bpe_search import CharSyncSearch as CharSyncSearch  # noqa: E402
from returnn.util.bpe_search import DepthFirstSearch as DepthFirstSearch  # noqa: E402
from returnn.util.bpe_search import Hyp as Hyp  # noqa: E402
from returnn.util.bpe_search import PrefixTree as PrefixTree  # noqa: E402
