"""
Levenshtein alignment counts and word/character error rates (pure Python).

Used by ``tools/calculate-word-error-rate.py`` and the demos. Conventions (as common ASR scoring, e.g. sclite):

- error rate = (substitutions + deletions + insertions) / reference length, summed over all sequences
  before dividing (not an average of per-sequence rates); can exceed 1 when there are many insertions.
- words: :func:`words` splits on any whitespace.
- characters: :func:`chars` collapses runs of whitespace to one space and strips both ends; the spaces
  between words count as characters (a missing word boundary is an error).
- among alignments of minimal total cost, the counts prefer substitutions over deletions over insertions
  (deterministic, so the split of the error into S/D/I is reproducible).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence


@dataclass(frozen=True)
class ErrorCounts:
    """
    Alignment counts of a hypothesis against a reference.

    :ivar substitutions: reference tokens replaced by another token
    :ivar deletions: reference tokens missing in the hypothesis
    :ivar insertions: hypothesis tokens with no reference counterpart
    :ivar ref_len: number of reference tokens
    """

    substitutions: int = 0
    deletions: int = 0
    insertions: int = 0
    ref_len: int = 0

    @property
    def errors(self) -> int:
        """:return: substitutions + deletions + insertions (the edit distance)"""
        return self.substitutions + self.deletions + self.insertions

    @property
    def rate(self) -> float:
        """:return: errors / ref_len (0.0 when both are 0, ``inf`` for errors against an empty reference)"""
        if self.ref_len == 0:
            return 0.0 if self.errors == 0 else float("inf")
        return self.errors / self.ref_len

    def __add__(self, other: "ErrorCounts") -> "ErrorCounts":
        return ErrorCounts(
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
            self.ref_len + other.ref_len,
        )


def edit_distance_counts(ref: Sequence[Hashable], hyp: Sequence[Hashable]) -> ErrorCounts:
    """
    Minimal-cost alignment (unit costs) of ``hyp`` against ``ref``.

    :param ref: reference tokens (any comparable items: words, characters, label ids)
    :param hyp: hypothesis tokens
    :return: the S/D/I counts of one minimal alignment (tie-breaking: see module docstring)

    Runs in O(len(ref) * len(hyp)) time and O(len(hyp)) memory.
    """
    # each cell: (cost, -subs, -dels, ins) so that min() picks lowest cost, then most subs, then most dels
    prev = [(j, 0, 0, j) for j in range(len(hyp) + 1)]
    for i in range(1, len(ref) + 1):
        cur = [(i, 0, -i, 0)]
        r = ref[i - 1]
        for j in range(1, len(hyp) + 1):
            diag = prev[j - 1]
            if hyp[j - 1] == r:
                best = diag
            else:
                best = (diag[0] + 1, diag[1] - 1, diag[2], diag[3])
            up = prev[j]  # deletion of ref[i-1]
            cand = (up[0] + 1, up[1], up[2] - 1, up[3])
            if cand < best:
                best = cand
            left = cur[j - 1]  # insertion of hyp[j-1]
            cand = (left[0] + 1, left[1], left[2], left[3] + 1)
            if cand < best:
                best = cand
            cur.append(best)
        prev = cur
    cost, neg_subs, neg_dels, ins = prev[-1]
    result = ErrorCounts(-neg_subs, -neg_dels, ins, len(ref))
    assert result.errors == cost
    return result


def words(text: str) -> list[str]:
    """:return: ``text`` split on whitespace"""
    return text.split()


def chars(text: str) -> list[str]:
    """:return: the characters of ``text`` with whitespace runs collapsed to one space, ends stripped"""
    return list(" ".join(text.split()))


def word_error_counts(ref: str, hyp: str) -> ErrorCounts:
    """:return: word-level :class:`ErrorCounts` of two transcriptions"""
    return edit_distance_counts(words(ref), words(hyp))


def char_error_counts(ref: str, hyp: str) -> ErrorCounts:
    """:return: character-level :class:`ErrorCounts` of two transcriptions (spaces count, see :func:`chars`)"""
    return edit_distance_counts(chars(ref), chars(hyp))


def word_error_rate(ref: str, hyp: str) -> float:
    """:return: WER of one hypothesis (fraction, not percent)"""
    return word_error_counts(ref, hyp).rate


def char_error_rate(ref: str, hyp: str) -> float:
    """:return: CER of one hypothesis (fraction, not percent)"""
    return char_error_counts(ref, hyp).rate
