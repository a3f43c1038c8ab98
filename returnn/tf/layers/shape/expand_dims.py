"""``{"class": "expand_dims", "axis": "F"|"T"|"spatial"|int, "dim": 1}``: insert a new static axis.

As the reference: ``"F"`` appends a new axis at the end which becomes the feature axis; ``"T"``/``"spatial"``
insert it right after the time axis (or after the batch axis without time); an int counts in batch-major
layout. A ``dim`` > 1 tiles the input along the new axis.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _position(inp: Tensor, axis: Any, name: str, layer_class: str) -> int:
    if isinstance(axis, int):
        return axis if axis >= 0 else inp.batch_ndim + 1 + axis
    low = str(axis).lower()
    if low in ("f", "feature"):
        return inp.batch_ndim
    if low in ("t", "time", "spatial"):
        if inp.time_dim_axis is not None:
            return inp.time_dim_axis + 1
        return (inp.batch_dim_axis + 1) if inp.batch_dim_axis is not None else 0
    raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="invalid value", got=axis,
                        expected="'F', 'T', 'spatial' or an int")


@register_layer
class ExpandDimsLayer(ConcatInputLayer):
    """``{B, T, F} --axis=F--> {B, T, F, 1}``."""

    layer_class = "expand_dims"

    def __init__(self, axis: Any, dim: int = 1, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        if isinstance(axis, int):
            inp = inp.copy_as_batch_major()
        pos = _position(inp, axis, self.name, self.layer_class)
        x = tf.expand_dims(inp.placeholder, pos)
        if dim != 1:
            multiples = [1] * (inp.batch_ndim + 1)
            multiples[pos] = dim
            x = tf.tile(x, multiples)
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, dim: int = 1,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if isinstance(axis, int):
            inp = inp.copy_as_batch_major()
        pos = _position(inp, axis, name, cls.layer_class)
        as_feature = str(axis).lower() in ("f", "feature")
        new = (FeatureDim if as_feature else SpatialDim)(f"{name}_expand_dims", dim)
        out = inp.copy_add_dim(pos, new, as_feature=as_feature)
        out.name = f"{name}_output"
        return out
