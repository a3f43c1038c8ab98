"""``{"class": "flatten_batch", "axis": "T"}``: packs the real frames of batch and ``axis`` into one axis.

Shape: ``{B, T, rest..} -> {B&Packed{T}, rest..}`` (only the frames within the sequence lengths, as
``tf.boolean_mask``); with ``batch_major=False`` the frames are ordered time-major (``t0 b0, t0 b1, ...``), shown as
``Packed{T}&B`` (as the reference). ``unflatten_batch`` restores ``{B, T, ...}``. No time axis in the output.
The output's :attr:`returnn.tensor.Tensor.batch` is the input's extended by a
:class:`returnn.tensor.BatchInfo.PackedDim` of ``axis`` (after the global batch dim, or before it with
``batch_major=False``) when ``axis`` has known lengths (an input without a batch info counts as the global
batch).
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import BatchInfo, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._flat_batch import FlatBatchDim


@register_layer
class FlattenBatchLayer(ConcatInputLayer):
    """Packs batch and ``axis`` (real frames only)."""

    layer_class = "flatten_batch"

    def __init__(self, axis: Any = "T", batch_major: bool = True, **kwargs: Any):
        """
        :param axis: the axis packed together with the batch axis (default ``"T"``)
        :param batch_major: order the packed frames by sequence first (default True); False: by time first
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        order = [inp.batch_dim_axis, ax] if batch_major else [ax, inp.batch_dim_axis]
        perm = order + [i for i in range(inp.batch_ndim) if i not in order]
        x = tf.transpose(inp.placeholder, perm) if perm != list(range(inp.batch_ndim)) else inp.placeholder
        d = inp.dims[ax]
        if d.dimension is None and d.dyn_size is not None:
            mask = tf.sequence_mask(d.dyn_size, maxlen=tf.shape(inp.placeholder)[ax])  # [B, T]
        else:
            mask = tf.ones(tf.shape(x)[:2], tf.bool) if batch_major else tf.ones(tf.shape(x)[1::-1], tf.bool)
        if not batch_major:
            mask = tf.transpose(mask)
        self.output.dims[0].mask = mask
        self.output.placeholder = tf.boolean_mask(x, mask)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", batch_major: bool = True,
                               **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: no batch axis"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.batch_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs an input with a batch axis",
                                  got=repr(inp))
        ax = inp.get_axis_from_description(axis)
        rest = [i for i in range(inp.batch_ndim) if i not in (inp.batch_dim_axis, ax)]
        dims = [FlatBatchDim(inp.dims[ax], batch_major=batch_major)] + [inp.dims[i] for i in rest]
        feature_axis = 1 + rest.index(inp.feature_dim_axis) if inp.feature_dim_axis in rest else None
        out = Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                     time_dim_axis=None, feature_dim_axis=feature_axis,
                     available_for_inference=inp.available_for_inference)
        packed = inp.dims[ax]
        if packed.dimension is None and packed.dyn_size is not None:
            # as the reference: the batch info gets the packed dim (before the global batch dim if time-major)
            batch = inp.batch if inp.batch is not None else BatchInfo.make_global_batch_info(-1)
            out.batch = batch.copy_extend_with_packed_dim_tag(packed, batch_major=batch_major)
        return out
