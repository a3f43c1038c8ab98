"""``{"class": "unflatten_batch"}``: undoes ``flatten_batch``.

Shape: ``{B&Packed{T}, rest..} -> {B, T, rest..}`` (``{T, B, rest..}`` if it was packed time-major), padded frames
0. The input's batch axis must be the packed one of a ``flatten_batch`` (also after layers that keep it, e.g.
``linear``); otherwise :class:`LayerShapeError`.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor, batch_dim
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._flat_batch import FlatBatchDim


@register_layer
class UnflattenBatchLayer(ConcatInputLayer):
    """Scatters packed frames back into ``{B, T, ...}``."""

    layer_class = "unflatten_batch"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        flat: FlatBatchDim = inp.dims[inp.batch_dim_axis]
        x = inp.copy_as_batch_major().placeholder
        mask = flat.mask
        idx = tf.where(mask)
        shape = tf.concat([tf.shape(mask, out_type=tf.int64), tf.shape(x, out_type=tf.int64)[1:]], axis=0)
        self.output.placeholder = tf.scatter_nd(idx, x, shape)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: the input's batch axis is not packed by flatten_batch"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        flat = inp.dims[inp.batch_dim_axis] if inp.batch_dim_axis is not None else None
        if not isinstance(flat, FlatBatchDim):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an input whose batch axis was packed by flatten_batch", got=repr(inp))
        inp = inp.copy_as_batch_major()
        rest = list(inp.dims[1:])
        lead = [batch_dim, flat.time_dim] if flat.batch_major else [flat.time_dim, batch_dim]
        dims = lead + rest
        feature_axis = 1 + inp.feature_dim_axis if inp.feature_dim_axis is not None else None
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=lead.index(flat.time_dim), feature_dim_axis=feature_axis,
                      available_for_inference=inp.available_for_inference)
