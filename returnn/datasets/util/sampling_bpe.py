"""``SamplingBytePairEncoding``: words split into the units of a BPE vocabulary without a codes file (public at
``returnn.datasets.util.vocabulary``, as the reference)."""

from __future__ import annotations

from typing import List, Optional

import numpy

from returnn.datasets.util.vocabulary_base import Vocabulary
from returnn.errors import DatasetArgError


class SamplingBytePairEncoding(Vocabulary):
    """Each whitespace-separated word is split into vocabulary units: a unit inside the word carries
    ``label_postfix_merge_symbol`` (``"@@"``: ``ab@@ c``), the word's last unit none.

    With ``breadth_prob=0`` the split is the reference's: from the left, the longest unit that fits, backtracking
    to shorter ones where the rest of the word cannot be split (observed: ``"abcabc"`` -> ``ab@@ c@@ abc``). A
    word with no split is ``unknown_label`` (one label for the whole word). With ``breadth_prob > 0`` each
    fitting unit is passed over with that probability (a random segmentation; this stream is ours, seeded by
    :meth:`set_random_seed`).

    :param vocab_file: the vocabulary of units
    :param breadth_prob: probability to pass over a fitting unit, in ``[0, 1)``
    :param seq_postfix: label indices appended by :meth:`get_seq`
    :param label_postfix_merge_symbol: the mark of a unit that the next one continues (default ``"@@"``)
    :raises DatasetArgError: ``breadth_prob`` outside ``[0, 1)``
    :raises KeyError: (``get_seq``) a word with no split and no ``unknown_label``
    """

    def __init__(self, vocab_file: str, breadth_prob: float, seq_postfix: Optional[List[int]] = None,
                 label_postfix_merge_symbol: Optional[str] = None, word_prefix_symbol: Optional[str] = None,
                 **kwargs):
        super().__init__(vocab_file=vocab_file, seq_postfix=seq_postfix, **kwargs)
        if not 0.0 <= float(breadth_prob) < 1.0:
            raise DatasetArgError(f"SamplingBytePairEncoding: breadth_prob must be in [0, 1), got {breadth_prob!r}")
        if word_prefix_symbol:
            raise DatasetArgError("SamplingBytePairEncoding: word_prefix_symbol (sentencepiece-style units) is not "
                                  "supported here; use label_postfix_merge_symbol units ('ab@@ c')")
        self.breadth_prob = float(breadth_prob)
        self.label_postfix_merge_symbol = "@@" if label_postfix_merge_symbol is None else label_postfix_merge_symbol
        self._rnd = numpy.random.RandomState(0)

    def set_random_seed(self, seed: int) -> None:
        """Seeds the sampling of ``breadth_prob``."""
        self._rnd = numpy.random.RandomState(seed)

    def _split(self, word: str) -> Optional[List[int]]:
        if not word:
            return []
        for end in range(len(word), 0, -1):
            unit = word[:end] + ("" if end == len(word) else self.label_postfix_merge_symbol)
            idx = self.label_to_id(unit, default=None)
            if idx is None or (self.breadth_prob and self._rnd.random_sample() < self.breadth_prob):
                continue
            rest = self._split(word[end:])
            if rest is not None:
                return [idx] + rest
        return None

    def get_seq(self, sentence: str) -> List[int]:
        """The unit indices of the words of ``sentence`` (see the class doc), then ``seq_postfix``."""
        out: List[int] = []
        for word in sentence.split():
            units = self._split(word)
            if units is None:
                if self.unknown_label_id is None:
                    raise KeyError(f"no BPE-split for word {word!r}")
                units = [self.unknown_label_id]
            out.extend(units)
        return out + self.seq_postfix
