"""``{"class": "pool", "mode": "max"|"avg", "pool_size": (2,), "padding": "valid"}``: N-d pooling.

Shape: ``{B, S.., F} -> {B, S'.., F}``; ``strides`` default to ``pool_size`` (as the reference); sizes as
``conv``. Padded frames are pooled as they are, as in the reference (see :mod:`returnn.tf.layers.conv.spatial`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.conv.spatial import (as_tuple, build_output_template, check_padding, output_dims,
                                            prepare_input_raw, prepare_input_template, set_output_sizes)
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class PoolLayer(ConcatInputLayer):
    """Max/average pooling."""

    layer_class = "pool"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, mode: str, pool_size: Sequence[int], padding: str = "valid", dilation_rate: Any = 1,
                 strides: Optional[Any] = None, use_channel_first: bool = False,
                 in_spatial_dims: Optional[Sequence[Any]] = None, **kwargs: Any):
        super().__init__(**kwargs)
        n = len(pool_size)
        padding = check_padding(padding, self.name, self.layer_class)
        strides = as_tuple(strides if strides is not None else pool_size, n)
        dilation = as_tuple(dilation_rate, n)
        tmpl_inp = prepare_input_template(self.input_data, name=self.name, layer_class=self.layer_class, n_spatial=n,
                                          in_spatial_dims=in_spatial_dims)
        x = prepare_input_raw(self, tmpl_inp, False, 0)
        y = tf.nn.pool(x, window_shape=list(pool_size), pooling_type=mode.upper(), padding=padding.upper(),
                       strides=list(strides), dilations=list(dilation))
        set_output_sizes(self, tmpl_inp, pool_size, strides, dilation, padding)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mode: str = "", pool_size: Sequence[int] = (),
                               padding: str = "valid", dilation_rate: Any = 1, strides: Optional[Any] = None,
                               in_spatial_dims: Optional[Sequence[Any]] = None, **kwargs: Any) -> Tensor:
        if mode.lower() not in ("max", "avg"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value", got=mode,
                                expected="'max' | 'avg'")
        n = len(pool_size)
        padding = check_padding(padding, name, cls.layer_class)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        tmpl_inp = prepare_input_template(inp, name=name, layer_class=cls.layer_class, n_spatial=n,
                                          in_spatial_dims=in_spatial_dims)
        spatial = output_dims(tmpl_inp, name=name, sizes=pool_size,
                              strides=as_tuple(strides if strides is not None else pool_size, n),
                              dilation=as_tuple(dilation_rate, n), padding=padding)
        return build_output_template(tmpl_inp, spatial, tmpl_inp.feature_dim, name)
