"""``"loss": "bleu"``: sentence BLEU of a label sequence output (e.g. a ``decide`` layer) against the target.

Error only (the value is None): ``-sum_b BLEU(hyp_b, ref_b)``, one sentence-level BLEU per sequence, normalised by
the number of target labels, as the reference. BLEU (:func:`sentence_bleu`): n-gram precisions up to 4-grams
with the tensor2tensor smoothing (an order with ``n`` candidate n-grams and no match counts ``1 / (2^k n)``, ``k``
the number of unmatched orders so far), geometric mean over the 4 orders, brevity penalty
``exp(1 - ref_len / hyp_len)`` when the hypothesis is shorter (an empty reference gives 0; the reference divides
by zero). Shapes: output and target sparse ``{B, T}``.
"""

from __future__ import annotations

import collections
import math
from typing import Optional, Sequence

import numpy as np
import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss

MAX_ORDER = 4


def _ngrams(seq: Sequence[int], max_order: int) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for order in range(1, max_order + 1):
        for i in range(len(seq) - order + 1):
            counts[tuple(seq[i:i + order])] += 1
    return counts


def sentence_bleu(ref: Sequence[int], hyp: Sequence[int], max_order: int = MAX_ORDER) -> float:
    """:return: BLEU of ``hyp`` against ``ref`` in [0, 1] (see module doc)"""
    ref_counts, hyp_counts = _ngrams(ref, max_order), _ngrams(hyp, max_order)
    matches, possible = [0] * max_order, [0] * max_order
    for gram, count in hyp_counts.items():
        possible[len(gram) - 1] += count
        matches[len(gram) - 1] += min(count, ref_counts.get(gram, 0))
    smooth, log_sum, any_positive = 1.0, 0.0, False
    for order in range(max_order):
        if possible[order] > 0:
            if matches[order] > 0:
                p = matches[order] / possible[order]
            else:
                smooth *= 2
                p = 1.0 / (smooth * possible[order])
            log_sum += math.log(p)
            any_positive = True
    geo_mean = math.exp(log_sum / max_order) if any_positive else 0.0
    if not ref:
        return 0.0  # the reference divides by zero here
    ratio = len(hyp) / len(ref)
    if ratio <= 0:
        return 0.0
    return geo_mean * (math.exp(1 - 1 / ratio) if ratio < 1 else 1.0)


def _bleu_batch(hyps: np.ndarray, hyp_lens: np.ndarray, refs: np.ndarray, ref_lens: np.ndarray) -> np.ndarray:
    return np.array([sentence_bleu(list(refs[b, :ref_lens[b]]), list(hyps[b, :hyp_lens[b]]))
                     for b in range(hyps.shape[0])], dtype="float32")


def bleu_per_seq(hyps: tf.Tensor, hyp_lens: tf.Tensor, refs: tf.Tensor, ref_lens: tf.Tensor) -> tf.Tensor:
    """:param hyps: int ``[B, T]``
    :param refs: int ``[B, S]``
    :return: float32 ``[B]``, the sentence BLEU of each hypothesis (no gradient)"""
    out = tf.numpy_function(_bleu_batch, [hyps, hyp_lens, refs, ref_lens], tf.float32, stateful=False)
    out.set_shape([None])
    return out


@register_loss
class BleuLoss(Loss):
    """Negative sentence BLEU as error measure; output and target sparse ``{B, T}``."""

    class_name = "bleu"
    recurrent = True

    def get_value(self) -> Optional[tf.Tensor]:
        return None

    def get_error_per_seq(self) -> tf.Tensor:
        """:return: float32 ``[B]``: ``-BLEU`` of each sequence"""
        out, target = self.output.copy_as_batch_major(), self.target.copy_as_batch_major()
        return -bleu_per_seq(out.placeholder, out.get_sequence_lengths(), target.placeholder,
                             target.get_sequence_lengths())

    def get_error(self) -> tf.Tensor:
        return tf.reduce_sum(self.get_error_per_seq())
