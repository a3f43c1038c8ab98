"""``dense_matmul(x, w)``: ``x W`` of a layer's weight matrix, with both gradients in the faster of two orders.

The forward op is TensorFlow's plain ``MatMul`` (so that Grappler still fuses it with a following ``BiasAdd`` and
activation); only its gradient differs from TensorFlow's registered one, through a gradient override. The values
are the same products, summed in a different order. Measured on 2 CPU cores (oneDNN, TensorFlow 2.21), CPU
seconds of one product (min of 5; ``N`` frames, ``n_in -> n_out``; benchmarks/real-configs-speed/README.md,
2026-11-29):

* ``dW = x^T dy`` (``[n_in, n_out]``, TensorFlow's order), except ``dW = (dy^T x)^T`` (the product formed as
  ``[n_out, n_in]`` and transposed: a weight-sized copy) when ``n_out < n_in``, or in float32 for a wide output
  layer of an unaligned size (``n_in >= 512``, ``n_out >= 8 n_in``, ``n_out`` not a multiple of 64: the
  vocabularies and state inventories of published configs, e.g. 9001). For ``n_out < n_in`` the transposed order
  takes 0.80–0.93 of the time (1024 → 500: 22.5 → 18.6 ms, 2048 → 512 at 5344 frames: 105 → 84 ms); for
  ``512 → 2048`` / ``512 → 1536`` it is 1.2–1.3 times slower; for ``512 → 9001`` faster (1.36–1.44 → 1.12–1.18 s
  at 16032 frames, 0.46 → 0.40 s at 5344; at 5344 frames, 2026-11-29 08:30, load 8–9: 140 → 127 ms, and
  ``1024 → 9001`` 215 → 213 ms), but slower for aligned widths (``512 → 4096`` 48 → 66 ms, ``512 → 8192`` 95 →
  137 ms), for narrow inputs (``40 → 1024`` at 5000 frames, the first layer of the ``ff-train`` benchmark: 5.6 →
  9.2 ms; ``128 → 2048`` 7.1 → 11.1 ms) and no faster for ``256 → 9001`` (69 both).
* float32, ``n_out >= n_in``: ``dx = dy (W^T)`` with the weight transposed first (a weight-sized copy, through an
  ``Einsum`` ``"ij->ji"``, which Grappler does not fold back into the product's ``transpose_b``) instead of TensorFlow's
  ``dy W^T`` with ``transpose_b``: ``512 → 2048`` 97 → 82 ms, ``512 → 1024`` 50 → 43 ms, ``512 → 512`` 25 → 22 ms,
  ``512 → 9001`` at 16032 frames 1.18 → 1.02 s; for ``n_out < n_in`` both take the same time. In bfloat16
  (``tf_amp``) neither of the two float32-only choices pays (``512 → 2048``: ``dx`` 36 → 39–41 ms), so there
  the gradient is TensorFlow's except for ``dW`` with ``n_out < n_in`` (as before 2026-11-29); the same inside
  a while loop (a rec unit's step multiplies a few frames, where the weight-sized copies do not pay).

With ``n_in = 1`` it is a broadcast multiplication (the same products; see :func:`dense_matmul`).
"""

from __future__ import annotations

from typing import Optional

import tensorflow as tf
from tensorflow.python.ops import control_flow_util  # TF's own helper: is an op inside a while loop

_GRADIENT_NAME = "ReturnnDenseMatMul"


@tf.RegisterGradient(_GRADIENT_NAME)
def _dense_matmul_grad(op: tf.Operation, grad: tf.Tensor):
    """Gradients of ``x [N, n_in] @ W [n_in, n_out]`` (no transpose attributes: only :func:`dense_matmul` uses it)."""
    x, weights = op.inputs
    n_in, n_out = weights.shape.as_list()
    # in a loop (a rec unit's step: a few frames per product) the weight-sized copies do not pay: TF's orders
    dtype = None if control_flow_util.IsInWhileLoop(op) else x.dtype
    if _transposed_weight_for_dx(dtype, n_in, n_out):
        dx = tf.matmul(grad, tf.einsum("ij->ji", weights))  # an Einsum: Grappler folds a Transpose into transpose_b
    else:
        dx = tf.matmul(grad, weights, transpose_b=True)
    if _transposed_order_for_dw(dtype, n_in, n_out):
        dw = tf.transpose(tf.matmul(grad, x, transpose_a=True))
    else:
        dw = tf.matmul(x, grad, transpose_a=True)
    return dx, dw


def _transposed_weight_for_dx(dtype: Optional[tf.DType], n_in: int, n_out: int) -> bool:
    """:return: whether ``dx`` is ``dy (W^T)`` with the weight transposed first (see the module docstring)"""
    return dtype == tf.float32 and n_out >= n_in


def _transposed_order_for_dw(dtype: Optional[tf.DType], n_in: int, n_out: int) -> bool:
    """:return: whether ``dW`` is ``(dy^T x)^T`` (see the module docstring)"""
    return n_out < n_in or (dtype == tf.float32 and n_in >= 512 and n_out >= 8 * n_in and n_out % 64 != 0)


def dense_matmul(x: tf.Tensor, weights: tf.Tensor) -> tf.Tensor:
    """``x @ weights``.

    :param x: ``[N, n_in]`` float (frames folded into one axis)
    :param weights: ``[n_in, n_out]``, same dtype; static shape needed to choose the gradient's order
    :return: ``[N, n_out]``
    """
    n_in, n_out = weights.shape.as_list()
    if n_in == 1 and n_out is not None:
        # One input feature (e.g. the attention-weight feedback of the published attention decoders): the same
        # products as a broadcast multiplication. Its weight gradient is a sum over frames instead of a MatMul:
        # in a loop, TensorFlow accumulates a loop-invariant weight's gradient with an Add, and Grappler's
        # remapper fuses MatMul + Add of a [1, n_out] addend into a bias-add kernel that then fails with
        # "bias must be 1-dimensional" (TensorFlow 2.21, seen with Grappler on).
        return x * tf.reshape(weights, [n_out])
    if n_in is None or n_out is None or not (_transposed_weight_for_dx(x.dtype, n_in, n_out)
                                             or _transposed_order_for_dw(x.dtype, n_in, n_out)):
        return tf.matmul(x, weights)
    with tf.compat.v1.get_default_graph().gradient_override_map({"MatMul": _GRADIENT_NAME}):
        return tf.matmul(x, weights)
