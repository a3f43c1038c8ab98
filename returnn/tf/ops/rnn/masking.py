"""Sequence-length helpers shared by the recurrent kernels.

All functions work on *time-major* tensors ``[T, B, ...]`` with ``seq_len`` an int32 ``[B]`` tensor
(the number of real frames of each sequence; frames ``t >= seq_len[b]`` are padding).
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask_time_major


def reverse_by_length(x: tf.Tensor, seq_len: tf.Tensor) -> tf.Tensor:
    """
    Reverses each sequence within its own length; padded frames stay where they are.

    :param x: time-major [T, B, ...]
    :param seq_len: int32 [B]
    :return: same shape as ``x``; ``out[t, b] = x[seq_len[b] - 1 - t, b]`` for ``t < seq_len[b]``
    """
    return tf.reverse_sequence(x, seq_lengths=tf.cast(seq_len, tf.int64), seq_axis=0, batch_axis=1)


def zero_padded_frames(x: tf.Tensor, seq_len: tf.Tensor, mask: Optional[tf.Tensor] = None) -> tf.Tensor:
    """
    :param x: time-major [T, B, D]
    :param seq_len: int32 [B]
    :param mask: bool [T, B], :func:`~returnn.tf.ops.masks.sequence_mask_time_major` of ``seq_len`` if the caller has it already
    :return: ``x`` with all frames ``t >= seq_len[b]`` set to exactly zero (``tf.where``, so NaN/inf
        in padding does not survive, and their gradient is zero)
    """
    if mask is None:
        mask = sequence_mask_time_major(seq_len, maxlen=tf.shape(x)[0])
    return tf.where(mask[:, :, None], x, tf.zeros_like(x))


def last_frame(x: tf.Tensor, seq_len: tf.Tensor, initial: Optional[tf.Tensor] = None) -> tf.Tensor:
    """
    :param x: time-major [T, B, D]
    :param seq_len: int32 [B]
    :param initial: [B, D]; returned for sequences of length 0 (zeros if None)
    :return: [B, D], ``x[seq_len[b] - 1, b]``
    """
    return last_frames([x], seq_len, [initial])[0]


def last_frames(xs: Sequence[tf.Tensor], seq_len: tf.Tensor,
                initials: Sequence[Optional[tf.Tensor]]) -> List[tf.Tensor]:
    """:func:`last_frame` of several tensors with the same T and B (the frame index is built once)"""
    idx = tf.stack([tf.maximum(seq_len - 1, 0), tf.range(tf.size(seq_len))], axis=1)
    nonempty = (seq_len > 0)[:, None]
    out = []
    for x, initial in zip(xs, initials):
        last = tf.gather_nd(x, idx)
        out.append(tf.where(nonempty, last, tf.zeros_like(last) if initial is None else initial))
    return out
