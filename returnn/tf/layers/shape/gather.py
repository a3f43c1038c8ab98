"""``{"class": "gather", "position": <int|layer>, "axis": <axis>}``: pick entries along an axis.

``position`` an int: the axis is removed (``{B, T, F} --axis=F, position=1--> {B, T}``). ``position`` a layer
with int indices: the axis is replaced by the position layer's non-batch axes, gathering per batch entry if both
have a batch axis (``{B, T, F} --axis=T, position {B}--> {B, F}``).
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class GatherLayer(ConcatInputLayer):
    """``tf.gather`` along ``axis``."""

    layer_class = "gather"

    def __init__(self, position: Any, axis: Any, clip_to_valid: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        if isinstance(position, int):
            ax = inp.get_axis_from_description(axis)
            self.output.placeholder = tf.gather(inp.placeholder, position, axis=ax)
            return
        inp = inp.copy_as_batch_major()
        ax = inp.get_axis_from_description(axis)
        pos = position.output.copy_as_batch_major()
        idx = tf.cast(pos.placeholder, tf.int32)
        if clip_to_valid:
            idx = tf.clip_by_value(idx, 0, tf.shape(inp.placeholder)[ax] - 1)
        if pos.batch_dim_axis is not None and inp.batch_dim_axis is not None:
            y = tf.gather(inp.placeholder, idx, axis=ax, batch_dims=1)
        else:
            y = tf.gather(inp.placeholder, idx, axis=ax)
        self.output.placeholder = y

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("position"), str):
            d["position"] = get_layer(d["position"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), position: Any = None, axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: float/dense position layer"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if isinstance(position, int):
            ax = inp.get_axis_from_description(axis)
            out = inp.copy_template_excluding_axis(ax)
            out.name = f"{name}_output"
            return out
        is_layer = isinstance(position, LayerBase) or isinstance(getattr(position, "output", None), Tensor)
        if not is_layer or not position.output.dtype.startswith("int"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position", problem="invalid value",
                                got=position, expected="an int or a layer with int indices")
        inp = inp.copy_as_batch_major()
        ax = inp.get_axis_from_description(axis)
        pos = position.output.copy_as_batch_major()
        pos_dims = [d for d in pos.dims if not (d.is_batch_dim() and inp.batch_dim_axis is not None)]
        dims = list(inp.dims[:ax]) + pos_dims + list(inp.dims[ax + 1:])
        shift = len(pos_dims) - 1

        def moved(old: Any) -> Any:
            if old is None or old < ax:
                return old
            return old + shift if old > ax else None

        time_axis = moved(inp.time_dim_axis)
        if inp.time_dim_axis == ax and pos.time_dim_axis is not None:
            time_axis = ax + [i for i, d in enumerate(pos_dims) if d is pos.time_dim][0]
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=moved(inp.feature_dim_axis))
