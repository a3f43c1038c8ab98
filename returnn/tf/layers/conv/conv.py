"""``{"class": "conv", "n_out": C, "filter_size": (3,), "padding": "same"}``: N-d convolution.

Shape: ``{B, S1.., F_in} -> {B, S1'.., C}`` with one spatial axis per filter dim (all non-batch, non-feature
axes of the input, in order). ``input_add_feature_dim`` treats the old feature axis as spatial and adds a
channel axis of 1 (e.g. 2-d conv over time x frequency). Params (as the reference): ``W``
``filter_size + (F_in, C)``; ``bias`` ``(C,)`` only with ``with_bias`` (default False, as the reference).
Output feature dim: ``'<layer>:channel'``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.conv.spatial import (as_tuple, build_output_template, check_padding, output_dims,
                                            prepare_input_raw, prepare_input_template, set_output_sizes)
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.init import get_initializer


@register_layer
class ConvLayer(ConcatInputLayer):
    """Convolution with optional bias and activation."""

    layer_class = "conv"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, filter_size: Sequence[int], padding: str = "same", strides: Any = 1, dilation_rate: Any = 1,
                 input_expand_dims: int = 0, input_add_feature_dim: bool = False,
                 input_split_feature_dim: Optional[int] = None, auto_use_channel_first: bool = False,
                 with_bias: Any = NotSpecified, activation: Optional[str] = None,
                 forward_weights_init: Any = "glorot_uniform", bias_init: Any = 0.0, groups: int = 1,
                 in_spatial_dims: Optional[Sequence[Any]] = None, **kwargs: Any):
        super().__init__(**kwargs)
        n = len(filter_size)
        padding = check_padding(padding, self.name, self.layer_class)
        strides, dilation = as_tuple(strides, n), as_tuple(dilation_rate, n)
        tmpl_inp = prepare_input_template(self.input_data, name=self.name, layer_class=self.layer_class,
                                          n_spatial=n, input_add_feature_dim=input_add_feature_dim,
                                          input_expand_dims=input_expand_dims, in_spatial_dims=in_spatial_dims)
        x = prepare_input_raw(self, tmpl_inp, input_add_feature_dim, input_expand_dims)
        n_in, n_out = tmpl_inp.dim, self.output.dim
        seed = self.network.random.randint(2 ** 31)
        weights = self.create_param("W", tuple(filter_size) + (n_in // groups, n_out),
                                    get_initializer(forward_weights_init, seed=seed, key=f"{self.name}/forward_weights_init"))
        y = self.network.amp.call(tf.nn.convolution, x, weights, strides=list(strides), padding=padding.upper(),
                                  dilations=list(dilation))  # tf_amp: bfloat16/float16 inside, float32 out
        if with_bias is True:
            bias = self.create_param("bias", (n_out,), get_initializer(bias_init, key=f"{self.name}/bias_init"))
            y = y + bias
        set_output_sizes(self, tmpl_inp, filter_size, strides, dilation, padding)
        y = self.apply_activation(y, activation)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), n_out: Any = NotSpecified, out_dim: Any = None,
                               filter_size: Sequence[int] = (), padding: str = "same", strides: Any = 1,
                               dilation_rate: Any = 1, input_expand_dims: int = 0, input_add_feature_dim: bool = False,
                               in_spatial_dims: Optional[Sequence[Any]] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing n_out/filter_size; :raises LayerShapeError: spatial axes mismatch"""
        if n_out is NotSpecified and out_dim is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        if not filter_size:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="filter_size",
                                problem="missing required argument", hint="e.g. (3,) for 1-d over time")
        n = len(filter_size)
        padding = check_padding(padding, name, cls.layer_class)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        tmpl_inp = prepare_input_template(inp, name=name, layer_class=cls.layer_class, n_spatial=n,
                                          input_add_feature_dim=input_add_feature_dim,
                                          input_expand_dims=input_expand_dims, in_spatial_dims=in_spatial_dims)
        spatial = output_dims(tmpl_inp, name=name, sizes=filter_size, strides=as_tuple(strides, n),
                              dilation=as_tuple(dilation_rate, n), padding=padding)
        feature = out_dim if out_dim is not None else FeatureDim(f"{name}:channel", n_out)
        return build_output_template(tmpl_inp, spatial, feature, name)
