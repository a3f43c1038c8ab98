"""Gradient helpers (legacy ``TFUtil`` functions): ``add_scaled_noise_to_gradients``."""

from __future__ import annotations

from typing import Any, List, Tuple

import tensorflow as tf


def add_scaled_noise_to_gradients(grads_and_vars: List[Tuple[Any, Any]], gradient_noise_scale: float,
                                  sparse_grads: bool = False) -> List[Tuple[Any, Any]]:
    """:param grads_and_vars: (gradient or None, variable) pairs, as from ``Optimizer.compute_gradients``
    :param gradient_noise_scale: stddev of the added noise (truncated normal, cut at 2 stddev)
    :param sparse_grads: keep ``IndexedSlices`` gradients sparse (noise on the slices); else they are made dense
    :return: the pairs with noise added to each gradient (None gradients kept)
    """
    out = []
    for grad, var in grads_and_vars:
        if grad is None:
            out.append((None, var))
            continue
        if isinstance(grad, tf.IndexedSlices):
            if sparse_grads:
                noise = tf.random.truncated_normal(tf.shape(grad.values), stddev=gradient_noise_scale,
                                                    dtype=grad.values.dtype)
                out.append((tf.IndexedSlices(grad.values + noise, grad.indices, grad.dense_shape), var))
                continue
            grad = tf.convert_to_tensor(grad)
        noise = tf.random.truncated_normal(tf.shape(grad), stddev=gradient_noise_scale, dtype=grad.dtype)
        out.append((tf.add(grad, noise, name=grad.op.name.split("/")[-1] + "_add_grad_noise"), var))
    return out
