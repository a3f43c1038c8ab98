"""``{"class": "length", "axis": "T"}``: per-sequence lengths of a dynamic axis, int32 ``{B}``; of the batch axis
or a static axis: its size, an int32 scalar (as the reference)."""

from __future__ import annotations

from typing import Any

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class LengthLayer(LayerBase):
    """Output: the lengths of ``axis`` of the (first) source (batch or static axis: its size, a scalar)."""

    layer_class = "length"

    def __init__(self, axis: Any = "T", dtype: str = "int32", sparse: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        import tensorflow as tf
        src = self.sources[0].output
        ax = src.get_axis_from_description(axis)
        d = src.dims[ax]
        if d.is_batch_dim():
            from returnn.tf.ops.dims import get_batch_size
            lens = get_batch_size(src)
        elif d.dimension is not None:
            lens = tf.constant(d.dimension)
        else:
            lens = d.dyn_size
        self.output.placeholder = tf.cast(lens, dtype)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", dtype: str = "int32",
                               sparse: bool = False, **kwargs: Any) -> Tensor:
        if not sources:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs a source")
        src = sources[0].output
        d = src.dims[src.get_axis_from_description(axis)]
        dims = [] if d.is_batch_dim() or d.dimension is not None else [batch_dim]
        return Tensor(name=f"{name}_output", dims=dims, dtype=dtype, time_dim_axis=None, feature_dim_axis=None)
