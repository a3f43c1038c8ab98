"""Gradient transformations of the updater (config keys and per-parameter ``updater_opts``).

All functions take and return dense ``tf.Tensor`` gradients of the parameter's shape and dtype.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

import tensorflow as tf


def densify(grad) -> Optional[tf.Tensor]:
    """``IndexedSlices`` (from gathers/embeddings) → dense tensor; None stays None."""
    if grad is None:
        return None
    if isinstance(grad, tf.IndexedSlices):
        return tf.convert_to_tensor(grad)
    return grad


def nan_inf_filter(grad: tf.Tensor) -> tf.Tensor:
    """``gradient_nan_inf_filter``: every non-finite element (NaN, ±inf) replaced by 0."""
    return tf.where(tf.math.is_finite(grad), grad, tf.zeros_like(grad))


def grad_filter(grad: tf.Tensor, threshold: float) -> tf.Tensor:
    """``grad_filter``: the whole gradient of a parameter becomes 0 when its L2 norm is greater than ``threshold``
    (checked before clipping)."""
    return tf.cond(tf.norm(grad) > threshold, lambda: tf.zeros_like(grad), lambda: grad)


def clip_by_value(grad: tf.Tensor, clip: float) -> tf.Tensor:
    """``gradient_clip``: each element clipped to ``[-clip, clip]``."""
    return tf.clip_by_value(grad, -clip, clip)


def clip_by_norm(grad: tf.Tensor, clip_norm: float) -> tf.Tensor:
    """``gradient_clip_norm``: the parameter's gradient scaled down so that its L2 norm is at most ``clip_norm``."""
    return tf.clip_by_norm(grad, clip_norm)


def clip_by_global_norm(grads: Sequence[tf.Tensor], clip_norm: float) -> List[tf.Tensor]:
    """``gradient_clip_global_norm``: all gradients scaled by ``min(1, clip_norm / global_norm)``, where
    ``global_norm = sqrt(sum of squared L2 norms)`` over all parameters."""
    clipped, _ = tf.clip_by_global_norm(list(grads), clip_norm)
    return clipped


def add_noise(grad: tf.Tensor, stddev: float, seed: Optional[int] = None) -> tf.Tensor:
    """``gradient_noise``: adds Gaussian noise with standard deviation ``stddev`` to each element."""
    return grad + tf.random.normal(tf.shape(grad), stddev=stddev, dtype=grad.dtype, seed=seed)


def max_norm_constraint(var, max_norm: float) -> tf.Operation:
    """``max_norm`` (per-parameter ``updater_opts``): after the update, rescale the parameter so that the L2 norm
    over axis 0 (the input axis of a weight matrix ``[in, out]``; the whole vector for rank 1) is at most
    ``max_norm``, as the Keras ``MaxNorm`` constraint."""
    value = var.read_value()
    axes = [0] if value.shape.rank and value.shape.rank >= 2 else None
    return var.assign(tf.clip_by_norm(value, max_norm, axes=axes), read_value=False)
