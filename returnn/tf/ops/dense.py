"""``dense_matmul(x, w)``: ``x W`` of a layer's weight matrix, with the weight gradient in the faster of two orders.

The forward op is TensorFlow's plain ``MatMul`` (so that Grappler still fuses it with a following ``BiasAdd`` and
activation); only its gradient differs from TensorFlow's registered one, through a gradient override:

* ``dx = dy W^T`` as TensorFlow computes it;
* ``dW = x^T dy`` (``[n_in, n_out]``) when ``n_out >= n_in``, else ``dW = (dy^T x)^T``: the product is formed as
  ``[n_out, n_in]`` and transposed (a weight-sized copy). Measured on 2 CPU cores (oneDNN, 5000 frames): for
  ``n_out < n_in`` the transposed order takes 0.80–0.93 of the time (1024 → 500: 22.5 → 18.6 ms, 1024 → 40:
  2.9 → 2.3 ms, 2000 → 256: 21.4 → 19.8 ms), while for ``n_out > n_in`` it is 1.15–1.26 times slower; equal
  sizes show no difference. The values are the same products, summed in a different order.

With ``n_in = 1`` it is a broadcast multiplication (the same products; see :func:`dense_matmul`).
"""

from __future__ import annotations

import tensorflow as tf

_GRADIENT_NAME = "ReturnnDenseMatMul"


@tf.RegisterGradient(_GRADIENT_NAME)
def _dense_matmul_grad(op: tf.Operation, grad: tf.Tensor):
    """Gradients of ``x [N, n_in] @ W [n_in, n_out]`` (no transpose attributes: only :func:`dense_matmul` uses it)."""
    x, weights = op.inputs
    dx = tf.matmul(grad, weights, transpose_b=True)
    dw = tf.transpose(tf.matmul(grad, x, transpose_a=True))
    return dx, dw


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
    if n_in is None or n_out is None or n_out >= n_in:
        return tf.matmul(x, weights)
    with tf.compat.v1.get_default_graph().gradient_override_map({"MatMul": _GRADIENT_NAME}):
        return tf.matmul(x, weights)
