"""Beam search steps on raw tensors (legacy ``TFUtil`` functions): ``beam_search``, ``select_src_beams``, and
``unflatten_with_seq_len_mask`` (packed frames back to padded sequences)."""

from __future__ import annotations

from typing import Any, Tuple

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError


def beam_search(scores: Any, beam_size: int, keep_beams: bool = False, cheating_gold_targets: Any = None,
                cheating_src_beam_idx: Any = None, cheating_exclusive: bool = True
                ) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """One beam search step: the ``beam_size`` best (source beam, label) pairs per sequence.

    :param scores: (batch, beam_in, dim) accumulated scores (higher is better)
    :param beam_size: number of hypotheses to keep
    :param keep_beams: per source beam its own best label (requires ``beam_in == beam_size``), instead of the best
        over all beams
    :param cheating_gold_targets: not supported here (raises)
    :param cheating_src_beam_idx: not supported here (raises)
    :param cheating_exclusive: accepted for compatibility
    :return: (src_beams, labels, scores), each (batch, beam_size): int32, int32, the scores' dtype; ordered best
        first (with ``keep_beams``: in source beam order)
    :raises TFUtilArgError: cheating options given
    """
    del cheating_exclusive
    if cheating_gold_targets is not None or cheating_src_beam_idx is not None:
        raise TFUtilArgError("beam_search", "cheating_gold_targets/cheating_src_beam_idx are not supported here")
    with tf.name_scope("beam_search"):
        scores = tf.convert_to_tensor(scores)
        if keep_beams:
            best_scores, labels = tf.math.top_k(scores, k=1)  # (batch, beam, 1)
            labels = tf.cast(labels[:, :, 0], tf.int32)
            src_beams = tf.broadcast_to(tf.range(tf.shape(scores)[1])[None, :], tf.shape(labels))
            return src_beams, labels, best_scores[:, :, 0]
        dim = tf.shape(scores)[2]
        flat = tf.reshape(scores, [tf.shape(scores)[0], -1])  # (batch, beam_in * dim)
        best_scores, idx = tf.math.top_k(flat, k=beam_size)
        idx = tf.cast(idx, tf.int32)
        return idx // dim, idx % dim, best_scores


def select_src_beams(x: Any, src_beams: Any, name: str = "select_src_beams") -> tf.Tensor:
    """:param x: (batch * src_beam, ...): per sequence its source beam entries (batch-major)
    :param src_beams: (batch, beam) int: per new beam entry the source beam it continues
    :param name: name scope
    :return: (batch * beam, ...): ``out[b * beam + k] = x[b * src_beam + src_beams[b, k]]``"""
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x)
        src_beams = tf.convert_to_tensor(src_beams)
        n_batch = tf.shape(src_beams)[0]
        x_bs = tf.reshape(x, tf.concat([[n_batch, -1], tf.shape(x)[1:]], axis=0))  # (batch, src_beam, ...)
        y = tf.gather(x_bs, src_beams, axis=1, batch_dims=1)  # (batch, beam, ...)
        out = tf.reshape(y, tf.concat([[-1], tf.shape(x)[1:]], axis=0))
        out.set_shape([None] + x.shape.as_list()[1:])
        return out


def unflatten_with_seq_len_mask(x: Any, seq_lens: Any, batch_major: bool = True) -> tf.Tensor:
    """The inverse of ``flatten_with_seq_len_mask``: packed frames back to padded sequences.

    :param x: (sum(seq_lens), ...) the frames of seq 0, then seq 1, ...
    :param seq_lens: (batch,) int
    :param batch_major: result (batch, time, ...), else (time, batch, ...)
    :return: padded with zeros after each sequence's length"""
    with tf.name_scope("unflatten_with_seq_len_mask"):
        x = tf.convert_to_tensor(x)
        ragged = tf.RaggedTensor.from_row_lengths(x, seq_lens)
        out = ragged.to_tensor(default_value=tf.zeros((), x.dtype))  # (batch, time, ...)
        if not batch_major:
            rank = x.shape.rank + 1
            out = tf.transpose(out, [1, 0] + list(range(2, rank)))
        return out
