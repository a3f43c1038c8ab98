"""Corpus BLEU of token sequences, as the reference's ``compute_bleu`` (used to check the TF ``bleu_score``).

Modified n-gram precisions for the orders 1..``max_order`` over the whole corpus (n-gram counts of a
hypothesis clipped by those of its reference). An order with possible n-grams but no match gets a smoothed
precision ``1 / (2^k * possible)``, ``k`` counting such orders so far; an order without possible n-grams counts
as 0 and is left out of the log sum, which is still divided by ``max_order``. The brevity penalty is
``exp(1 - ref_len / hyp_len)`` when the hypotheses are shorter than the references (0 for empty hypotheses).
"""

from __future__ import annotations

import collections
import math
from typing import Counter, Sequence

import numpy


def _ngram_counts(tokens: Sequence, max_order: int) -> Counter:
    counts: Counter = collections.Counter()
    for order in range(1, max_order + 1):
        for i in range(len(tokens) - order + 1):
            counts[tuple(tokens[i:i + order])] += 1
    return counts


def compute_bleu(reference_corpus: Sequence[Sequence], translation_corpus: Sequence[Sequence], max_order: int = 4,
                 use_bp: bool = True) -> numpy.float32:
    """BLEU of ``translation_corpus`` against ``reference_corpus`` (one reference per hypothesis).

    :param reference_corpus: the reference token sequences (lists of any hashable tokens)
    :param translation_corpus: the hypothesis token sequences, same count
    :param max_order: the highest n-gram order
    :param use_bp: apply the brevity penalty
    :return: BLEU in [0, 1] as ``numpy.float32``, e.g. ``compute_bleu([[2, 3]], [[1, 2, 3]]) ≈ 0.6389431``
    :raises ZeroDivisionError: the references have no tokens at all (as the reference does)
    """
    matches = [0] * max_order
    possible = [0] * max_order
    ref_len = 0
    hyp_len = 0
    for ref, hyp in zip(reference_corpus, translation_corpus):
        ref_len += len(ref)
        hyp_len += len(hyp)
        overlap = _ngram_counts(ref, max_order) & _ngram_counts(hyp, max_order)
        for ngram, count in overlap.items():
            matches[len(ngram) - 1] += count
        for order in range(1, max_order + 1):
            possible[order - 1] += max(0, len(hyp) - order + 1)
    precisions = [0.0] * max_order
    smooth = 1.0
    for i in range(max_order):
        if possible[i] > 0:
            if matches[i] > 0:
                precisions[i] = matches[i] / possible[i]
            else:
                smooth *= 2
                precisions[i] = 1.0 / (smooth * possible[i])
    geo_mean = 0.0
    if max(precisions) > 0:
        geo_mean = math.exp(sum(math.log(p) for p in precisions if p > 0) / max_order)
    bp = 1.0
    if use_bp:
        ratio = hyp_len / ref_len
        if ratio <= 0:
            bp = 0.0
        elif ratio < 1.0:
            bp = math.exp(1.0 - 1.0 / ratio)
    return numpy.float32(geo_mean * bp)
