"""``{"class": "layer_norm", "epsilon": 1e-6}``: normalise over the feature axis, then ``* scale + bias``.

Shape unchanged. Params (as the reference): ``scale`` ``[F]`` (ones), ``bias`` ``[F]`` (zeros).
``(x - mean_F(x)) / sqrt(var_F(x) + epsilon) * scale + bias``.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import dense_feature_sources_template


@register_layer
class LayerNormLayer(ConcatInputLayer):
    """Layer normalisation over F."""

    layer_class = "layer_norm"

    def __init__(self, epsilon: float = 1e-6, **kwargs: Any):
        """
        :param epsilon: added to the variance before the square root (default 1e-6)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.feature_dim_axis
        x = inp.placeholder
        # Written without tf.nn.moments: TF's oneDNN layer-norm graph fusion matches the moments pattern and then
        # uses its own epsilon (1e-3), which changes results.
        centered = x - tf.reduce_mean(x, axis=[ax], keepdims=True)
        var = tf.reduce_mean(centered * centered, axis=[ax], keepdims=True)
        shape = [1] * inp.batch_ndim
        shape[ax] = inp.dim
        scale = self.create_param("scale", (inp.dim,), tf.compat.v1.ones_initializer())
        bias = self.create_param("bias", (inp.dim,), tf.compat.v1.zeros_initializer())
        y = centered * tf.math.rsqrt(var + epsilon)
        if ax == inp.batch_ndim - 1:  # 1-d broadcast (keeps TF's fused-norm graph rewrites valid)
            self.output.placeholder = y * scale + bias
        else:
            self.output.placeholder = y * tf.reshape(scale, shape) + tf.reshape(bias, shape)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return dense_feature_sources_template(sources, name=name, layer_class=cls.layer_class)
