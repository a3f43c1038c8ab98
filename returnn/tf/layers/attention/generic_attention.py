"""``{"class": "generic_attention", "weights": "att_weights", "base": "base:encoder"}``: weighted sum over time.

Shapes: ``weights`` ``{B, T, 1}`` or ``{B, T}`` (or ``{B, T, H}`` heads), ``base`` ``{B, T, F}`` (heads:
``F = H * D``, split into ``H`` heads of ``D``); output ``{B, F}``: ``sum_t weights[b, t] * base[b, t, :]``
(per head, concatenated). ``T`` is the weights' time axis (``weights_axis``, default ``"T"``), matched with the
base's time axis.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _weights_bt(weights: Tensor, axis: Any) -> Tensor:
    """:return: weights as ``[B, T, H]`` (H = 1 without heads)"""
    w = weights.copy_as_batch_major()
    t_axis = w.get_axis_from_description(axis or "T")
    w = w.copy_move_axis(t_axis, 1)
    if w.batch_ndim == 2:
        w = w.copy_add_feature_dim()
    return w


@register_layer
class GenericAttentionLayer(LayerBase):
    """See the module docstring.

    :param weights: layer with the attention weights
    :param base: layer to attend (values)
    :param weights_axis: time axis of the weights (default ``"T"``)
    :raises LayerShapeError: weights/base with more than one extra axis, or heads not dividing F
    """

    layer_class = "generic_attention"

    def __init__(self, weights: LayerBase, base: LayerBase, weights_axis: Any = None, auto_squeeze: bool = True,
                 **kwargs: Any):
        super().__init__(**kwargs)
        w = _weights_bt(weights.output, weights_axis)
        b = base.output.copy_as_batch_major()
        b = b.copy_move_axis(b.time_dim_axis, 1).copy_with_feature_dim_axis(-1)
        heads = w.batch_shape[-1]
        w_raw = tf.cast(w.placeholder, tf.float32)
        b_raw = b.placeholder
        if heads == 1:  # [B, 1, T] x [B, T, F]: one batched matmul, no [B, T, F] product tensor
            out = tf.squeeze(tf.matmul(w_raw, b_raw, transpose_a=True), axis=1)
        else:
            dim = b.dim // heads
            b_raw = tf.reshape(b_raw, tf.concat([tf.shape(b_raw)[:2], [heads, dim]], 0))
            out = tf.reshape(tf.einsum("bth,bthd->bhd", w_raw, b_raw), [-1, heads * dim])
        self.output.placeholder = out

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``weights`` and ``base`` to layers; ``from`` defaults to none."""
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["weights"] = get_layer(d["weights"])
        d["base"] = get_layer(d["base"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, weights: Any = None, base: Any = None,
                               weights_axis: Any = None, **kwargs: Any) -> Tensor:
        """:return: ``{B, F}`` of the base (its time axis removed)"""
        b = base.output.copy_as_batch_major()
        if b.time_dim_axis is None or b.feature_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="base needs a time and a feature axis",
                                  expected="{B, T, F}", got=b.get_dims_repr())
        w = weights.output
        heads = w.dim if (w.feature_dim_axis is not None and w.batch_ndim == 3) else 1
        if b.dim is not None and heads and b.dim % heads:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"base feature dim {b.dim} is not divisible by the {heads} weight heads",
                                  got=w.get_dims_repr())
        out = b.copy_template_excluding_time_dim().copy_template(name=f"{name}_output")
        return out
