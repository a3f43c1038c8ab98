"""Cutting time-major sequences into overlapping chunks and adding chunks back (the reference's ``chunk`` /
``unchunk`` native ops), as gathers and segment sums (gradients by TF).

Chunk ``c`` of sequence ``b`` holds frames ``c * chunk_step .. c * chunk_step + chunk_size - 1``; there are
``n_chunks = max(T - chunk_size + chunk_step - 1, 0) // chunk_step + 1`` chunks per sequence, laid out along
the batch axis as ``b * n_chunks + c``. Frames past the end of the input, and frames with index 0, are 0 in the
output data (as the reference, observed); the output index is the input's (0 past the end).
"""

from __future__ import annotations

from typing import Any, Tuple

import tensorflow as tf


def num_chunks(num_frames: Any, chunk_size: Any, chunk_step: Any) -> tf.Tensor:
    """:return: int32 scalar, the chunks per sequence"""
    return tf.maximum(num_frames - chunk_size + chunk_step - 1, 0) // chunk_step + 1


def _source_frames(num_frames: Any, batch: Any, chunk_size: Any, chunk_step: Any) -> Tuple[tf.Tensor, tf.Tensor]:
    """:return: ``(frame [chunk_size, B * n_chunks], valid)``, the source frame of each chunk position"""
    n = num_chunks(num_frames, chunk_size, chunk_step)
    frame = tf.range(chunk_size)[:, None] + (tf.range(n) * chunk_step)[None, :]  # [K, n]
    frame = tf.tile(frame, [1, batch])  # [K, B * n], chunks of b at b * n + c
    return frame, frame < num_frames


def chunk(x: Any, index: Any, chunk_size: Any, chunk_step: Any) -> Tuple[tf.Tensor, tf.Tensor]:
    """:param x: ``[T, B, D]``; :param index: float32 ``[T, B]`` (1: real frame)
    :param chunk_size: int (or int32 scalar), frames per chunk; :param chunk_step: int, frames between chunk starts
    :return: ``(out [chunk_size, B * n_chunks, D], oindex [chunk_size, B * n_chunks])``; ``out`` is 0 where
        ``oindex`` is 0
    """
    x = tf.convert_to_tensor(x)
    index = tf.convert_to_tensor(index, dtype=tf.float32)
    chunk_size = tf.convert_to_tensor(chunk_size, dtype=tf.int32)
    chunk_step = tf.convert_to_tensor(chunk_step, dtype=tf.int32)
    num_frames, batch = tf.shape(x)[0], tf.shape(x)[1]
    frame, valid = _source_frames(num_frames, batch, chunk_size, chunk_step)
    n = num_chunks(num_frames, chunk_size, chunk_step)
    b = tf.tile(tf.repeat(tf.range(batch), n)[None, :], [chunk_size, 1])  # [K, B * n]
    src = tf.stack([tf.where(valid, frame, 0), b], axis=-1)
    oindex = tf.where(valid, tf.gather_nd(index, src), 0.0)
    out = tf.where((oindex > 0)[:, :, None], tf.gather_nd(x, src), tf.zeros([], x.dtype))
    out.set_shape([None, None, x.shape[-1] if x.shape.rank else None])
    return out, oindex


def unchunk(x: Any, index: Any, chunk_size: Any, chunk_step: Any, n_time: Any, n_batch: Any
            ) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """The inverse of :func:`chunk`: every frame the mean of the chunk positions that hold it.

    :param x: ``[chunk_size, n_batch * n_chunks, D]``; :param index: float32 ``[chunk_size, n_batch * n_chunks]``
    :param chunk_size: int; :param chunk_step: int; :param n_time: int scalar ``T``; :param n_batch: int ``B``
    :return: ``(out [T, B, D], oindex [T, B], ofactors [T, B])``: ``oindex`` 1 where some real chunk position
        holds the frame, ``ofactors`` ``1 / (chunk positions holding it)`` (also where ``oindex`` is 0, as the
        reference, observed), ``out`` the sum of those positions times ``ofactors``
    """
    x = tf.convert_to_tensor(x)
    index = tf.convert_to_tensor(index, dtype=tf.float32)
    chunk_size = tf.convert_to_tensor(chunk_size, dtype=tf.int32)
    chunk_step = tf.convert_to_tensor(chunk_step, dtype=tf.int32)
    n_time = tf.convert_to_tensor(n_time, dtype=tf.int32)
    n_batch = tf.convert_to_tensor(n_batch, dtype=tf.int32)
    frame, valid = _source_frames(n_time, n_batch, chunk_size, chunk_step)
    n = num_chunks(n_time, chunk_size, chunk_step)
    b = tf.tile(tf.repeat(tf.range(n_batch), n)[None, :], [chunk_size, 1])
    num_segments = n_time * n_batch + 1
    seg = tf.reshape(tf.where(valid, frame * n_batch + b, num_segments - 1), [-1])  # invalid: the last segment
    dim = tf.shape(x)[-1]
    summed = tf.math.unsorted_segment_sum(tf.reshape(x, [-1, dim]), seg, num_segments)[:-1]
    counts = tf.math.unsorted_segment_sum(tf.ones_like(seg, tf.float32), seg, num_segments)[:-1]
    real = tf.math.unsorted_segment_sum(tf.reshape(index, [-1]), seg, num_segments)[:-1]
    oindex = tf.reshape(tf.cast(real >= 1.0, tf.float32), [n_time, n_batch])
    counts = tf.reshape(counts, [n_time, n_batch])
    factors = tf.where(counts > 0, 1.0 / tf.maximum(counts, 1.0), 0.0)
    out = tf.reshape(summed, [n_time, n_batch, dim]) * tf.cast(factors, x.dtype)[:, :, None]
    out.set_shape([None, None, x.shape[-1] if x.shape.rank else None])
    return out, oindex, factors
