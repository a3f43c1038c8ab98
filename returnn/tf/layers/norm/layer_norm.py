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
from returnn.tf.ops.layer_norm import layer_norm


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
        # uses its own epsilon (1e-3), which changes results. The gradient in closed form (fewer kernels).
        scale = self.create_param("scale", (inp.dim,), tf.compat.v1.ones_initializer())
        bias = self.create_param("bias", (inp.dim,), tf.compat.v1.zeros_initializer())
        self.output.placeholder = layer_norm(x, scale, bias, axis=ax, epsilon=epsilon)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return dense_feature_sources_template(sources, name=name, layer_class=cls.layer_class)
