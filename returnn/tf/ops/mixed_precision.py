"""A matmul in a lower-precision compute dtype with float32 inputs and result, for the kernels of
:mod:`returnn.tf.ops.rnn` that take a dtype (the network-level policy that picks the dtype, ``tf_amp``, is
:mod:`returnn.tf.util.amp`, which uses this function too)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def cast_matmul(a: tf.Tensor, b: tf.Tensor, compute_dtype: tf.DType = tf.float32, **kwargs: Any) -> tf.Tensor:
    """``tf.matmul(a, b, **kwargs)`` computed in ``compute_dtype``, for kernels that take a dtype instead of a policy
    (:mod:`returnn.tf.ops.rnn`).

    :param a: float32 (or already ``compute_dtype``) [..., m, k]
    :param b: float32 (or already ``compute_dtype``, e.g. a weight cast once before a loop) [..., k, n]
    :param compute_dtype: float32: the plain ``tf.matmul`` (no casts; any dtype, e.g. float64 in gradient checks);
        bfloat16 or float16
    :return: [..., m, n], float32 (the dtype of ``a`` and ``b`` for compute dtype float32)
    """
    if compute_dtype == tf.float32:
        return tf.matmul(a, b, **kwargs)
    a, b = [t if t.dtype == compute_dtype else tf.cast(t, compute_dtype) for t in (a, b)]
    return tf.cast(tf.matmul(a, b, **kwargs), tf.float32)
