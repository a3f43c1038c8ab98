"""``{"class": "norm", "axis": "F"}``: normalization over ``axis``/``axes`` with learned scale and bias.

Shape: unchanged. ``out = (x - mean) / sqrt(var + epsilon) * scale + bias`` with mean and (population) variance
over the axes of the raw padded tensor (padded frames included, as the reference). Params (as the reference):
``scale`` (ones) and ``bias`` (zeros) of the shape of ``param_shape`` (default: the feature axis ``"F"``),
broadcast over the other axes; each only if ``scale``/``bias``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.norm.math_norm import _axes


@register_layer
class NormLayer(ConcatInputLayer):
    """Normalizes over axes (layer norm generalized)."""

    layer_class = "norm"

    def __init__(self, axis: Any = NotSpecified, axes: Any = NotSpecified, param_shape: Any = NotSpecified,
                 scale: bool = True, bias: bool = True, epsilon: float = 1e-6, **kwargs: Any):
        """
        :param axis: the axis to normalize over (or use ``axes``)
        :param axes: the axes to normalize over (or use ``axis``)
        :param param_shape: the axes the ``scale``/``bias`` params span (default ``"F"``)
        :param scale: learn a multiplicative ``scale`` (default True)
        :param bias: learn an additive ``bias`` (default True)
        :param epsilon: added to the variance before the square root (default 1e-6)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axes_from_description(_axes(self.name, self.layer_class, axis, axes))
        param_axes = sorted(inp.get_axes_from_description("F" if param_shape is NotSpecified else param_shape))
        shape = [inp.batch_shape[a] for a in param_axes]
        bc_shape = [1] * inp.batch_ndim
        for a in param_axes:
            bc_shape[a] = inp.batch_shape[a]
        if param_axes == list(range(inp.batch_ndim - len(param_axes), inp.batch_ndim)):
            bc_shape = shape  # plain broadcasting: TF's CPU layer-norm fusion rejects a [1, 1, F] scale
        x = inp.placeholder
        centered = x - tf.reduce_mean(x, axis=ax, keepdims=True)
        var = tf.reduce_mean(centered * centered, axis=ax, keepdims=True)
        # (not tf.nn.moments + rsqrt: TF's oneDNN layer-norm fusion of that pattern uses its own epsilon)
        y = centered / tf.sqrt(var + epsilon)
        if scale:
            y = y * tf.reshape(self.create_param("scale", shape, tf.compat.v1.ones_initializer()), bc_shape)
        if bias:
            y = y + tf.reshape(self.create_param("bias", shape, tf.compat.v1.zeros_initializer()), bc_shape)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = NotSpecified, axes: Any = NotSpecified,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: neither or both of axis/axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        inp.get_axes_from_description(_axes(name, cls.layer_class, axis, axes))
        return inp
