"""Sequence masks from lengths: the one implementation (``returnn.tf.util.basic`` re-exports these for configs;
the raw backend of :class:`returnn.tensor.Tensor`, the recurrent kernels and :func:`returnn.tf.ops.dims.axis_mask`
use them).

Frame ``t`` of sequence ``b`` is valid iff ``t < lengths[b]``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf


def sequence_mask(lengths: Any, name: Optional[str] = None, *, maxlen: Any = None, dtype: Any = tf.bool
                  ) -> tf.Tensor:
    """Batch-major mask of valid frames (``tf.sequence_mask``; the reference's ``sequence_mask(lengths, name,
    **kwargs)``, whose keyword arguments are these).

    :param lengths: int ``[B]`` (any rank: the mask gets one more axis at the end)
    :param name: op name
    :param maxlen: int scalar, the length of the time axis; default: ``max(lengths)``
    :param dtype: of the result; default bool (True on valid frames)
    :return: ``[B, maxlen]`` of ``dtype``
    """
    return tf.sequence_mask(lengths, maxlen=maxlen, dtype=dtype, name=name)


def sequence_mask_time_major(lengths: Any, *, maxlen: Any = None, dtype: Any = tf.bool,
                             name: Optional[str] = None) -> tf.Tensor:
    """:func:`sequence_mask` transposed (time-major, as the recurrent kernels use it).

    :param lengths: int ``[B]``
    :param maxlen: int scalar, the length of the time axis; default: ``max(lengths)``
    :return: ``[maxlen, B]`` of ``dtype``
    """
    with tf.name_scope(name or "sequence_mask_time_major"):
        return tf.transpose(sequence_mask(lengths, maxlen=maxlen, dtype=dtype), [1, 0])


def pack_valid_frames(x: Any, lengths: Any, batch_axis: int, time_axis: int, *, time_major_order: bool = False
                      ) -> tf.Tensor:
    """The valid frames of ``x`` in one axis, whatever the layout of ``x``.

    :param x: a tensor with a batch axis ``batch_axis`` and a time axis ``time_axis`` (two different axes)
    :param lengths: int ``[B]``
    :param time_major_order: False: all frames of sequence 0 first, then those of sequence 1, ...; True: frame 0
        of every sequence that has one first, then frame 1, ...
    :return: ``[sum(lengths), <the other axes of x in their order>]``
    """
    x = tf.convert_to_tensor(x)
    outer, inner = (time_axis, batch_axis) if time_major_order else (batch_axis, time_axis)
    perm = [outer, inner] + [i for i in range(x.shape.rank) if i not in (batch_axis, time_axis)]
    if perm != list(range(x.shape.rank)):
        x = tf.transpose(x, perm)
    if time_major_order:
        return tf.boolean_mask(x, sequence_mask_time_major(lengths, maxlen=tf.shape(x)[0]))  # x: [T, B, ...]
    return tf.boolean_mask(x, sequence_mask(lengths, maxlen=tf.shape(x)[1]))  # x: [B, T, ...]
