"""Regularisation energies added to the training objective via layer args ``darc1`` and ``spatial_smoothing``."""

from __future__ import annotations

import math
from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.ops.dims import mask_all_dynamic


def _flat_frames(output: Tensor, raw: tf.Tensor) -> tf.Tensor:
    """:return: ``[frames, F]``, padded frames zeroed"""
    tmp = output.copy()
    tmp.placeholder = raw
    raw = mask_all_dynamic(tmp, 0.0)
    tmp.placeholder = raw
    if tmp.feature_dim_axis is not None:
        tmp = tmp.copy_with_feature_dim_axis(-1)
        return tf.reshape(tmp.placeholder, [-1, tmp.dim])
    return tf.reshape(tmp.placeholder, [-1, 1])


def darc1_energy(output: Tensor, output_with_activation: Optional[Any]) -> tf.Tensor:
    """DARC1 (Kawaguchi et al.): ``max_k sum_frames |x_k|`` over the pre-activation output (if known)."""
    raw = output_with_activation.x if output_with_activation is not None else output.placeholder
    flat = _flat_frames(output, raw)
    return tf.reduce_max(tf.reduce_sum(tf.abs(flat), axis=0))


def spatial_smoothing_energy(output: Tensor, layer: Any = None) -> tf.Tensor:
    """Laplacian smoothness energy of the feature axis folded to a ``s x s`` square (circular borders):
    ``sum_frames sum_ij (4 x_ij - x_i-1,j - x_i+1,j - x_i,j-1 - x_i,j+1)**2``.

    :raises LayerShapeError: if the feature dim is not a perfect square
    """
    dim = output.dim
    side = int(math.isqrt(dim or 0))
    if not dim or side * side != dim:
        raise LayerShapeError(layer=getattr(layer, "name", "?"), layer_class=getattr(layer, "layer_class", "?"),
                              problem="spatial_smoothing needs a feature dim that is a perfect square",
                              got=f"feature dim {dim}")
    flat = _flat_frames(output, output.placeholder)
    x = tf.reshape(flat, [-1, side, side])
    lap = 4.0 * x - tf.roll(x, 1, axis=1) - tf.roll(x, -1, axis=1) - tf.roll(x, 1, axis=2) - tf.roll(x, -1, axis=2)
    return tf.reduce_sum(tf.square(lap))
