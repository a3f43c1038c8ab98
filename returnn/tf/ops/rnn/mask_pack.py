"""Packing the frames selected by a mask, and spreading packed frames back (``masked_computation``, ``unmask``).

Batch-major: ``x`` [B, T, ...], ``mask`` bool [B, T] (already restricted to the real frames). Packed: [B, T', ...]
where row b holds the frames with ``mask[b, t]`` in their order, ``T' = max_b sum_t mask[b, t]``, zeros after.
"""

from __future__ import annotations

from typing import Optional, Tuple

import tensorflow as tf


def pack_masked(x: tf.Tensor, mask: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    :param x: [B, T, ...]
    :param mask: bool [B, T]
    :return: (packed [B, T', ...], lengths int32 [B] = number of selected frames per sequence)
    """
    lengths = tf.reduce_sum(tf.cast(mask, tf.int32), axis=1)
    values = tf.boolean_mask(x, mask)  # [sum(lengths), ...], row-major: sequence 0's frames first
    packed = tf.RaggedTensor.from_row_lengths(values, tf.cast(lengths, tf.int64)).to_tensor()
    # an all-False mask gives T' = 0; keep the static feature shape
    packed.set_shape(x.shape[:1].concatenate([None]).concatenate(x.shape[2:]))
    return packed, lengths


def spread_held(packed: tf.Tensor, mask: tf.Tensor, initial: Optional[tf.Tensor] = None) -> tf.Tensor:
    """Inverse of :func:`pack_masked` that holds values: frame t gets the packed frame of the last selected frame
    ``<= t``, or ``initial`` (zeros if None) before the first one.

    :param packed: [B, T', ...]
    :param mask: bool [B, T]
    :param initial: [B, ...] or None
    :return: [B, T, ...]
    """
    idx = tf.cumsum(tf.cast(mask, tf.int32), axis=1) - 1  # [B, T], -1 before the first selected frame
    num_packed = tf.shape(packed)[1]
    safe_idx = tf.clip_by_value(idx, 0, tf.maximum(num_packed - 1, 0))
    padded = tf.cond(num_packed > 0, lambda: packed,
                     lambda: tf.zeros(tf.concat([tf.shape(packed)[:1], [1], tf.shape(packed)[2:]], 0), packed.dtype))
    gathered = tf.gather(padded, safe_idx, axis=1, batch_dims=1)  # [B, T, ...]
    before = tf.reshape(idx < 0, tf.concat([tf.shape(idx), tf.ones([tf.rank(packed) - 2], tf.int32)], 0))
    if initial is None:
        fill = tf.zeros_like(gathered)
    else:
        fill = tf.broadcast_to(tf.expand_dims(initial, 1), tf.shape(gathered))
    return tf.where(before, fill, gathered)
