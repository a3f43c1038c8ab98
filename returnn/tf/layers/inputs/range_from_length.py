"""``{"class": "range_from_length", "from": "length_layer"}``: ``0 .. max(length)-1`` over a dynamic axis.

Shape: ``{T}`` (no batch axis, time axis) where ``T`` is the dim whose lengths the source is (e.g. the output of
``length`` on some data: that data's time dim, as the reference; ``length`` over the batch axis: the batch axis
``{B}``, ``0 .. batch size - 1``), else a new dynamic dim ``'<layer>_input_len'``
with the source as its lengths. ``out_spatial_dim`` is declared the same. ``sparse``: indices into ``T``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _length_dim(name: str, source: Any) -> Dim:
    raw = source.output.placeholder
    found = Dim.get_tag_from_size_tensor(raw) if raw is not None else None
    if found is not None:
        return found
    new = Dim(None, description=f"{name.split('/')[-1]}_input_len")
    if raw is not None:
        new.dyn_size = raw
    return new


@register_layer
class RangeFromLengthLayer(LayerBase):
    """``tf.range(max(lengths))`` with the lengths' dim."""

    layer_class = "range_from_length"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, dtype: str = "int32", sparse: bool = False, out_spatial_dim: Optional[Dim] = None,
                 **kwargs: Any):
        """
        :param dtype: the output dtype (default ``"int32"``)
        :param sparse: the values are indices into the axis (a sparse output)
        :param out_spatial_dim: the Dim of the output axis (declared the same as the computed one)
        """
        super().__init__(**kwargs)
        lens = self.sources[0].output.placeholder
        self.output.placeholder = tf.range(tf.reduce_max(lens), dtype=self.output.dtype)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), dtype: str = "int32", sparse: bool = False,
                               out_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: not exactly one int source"""
        if len(sources) != 1 or not sources[0].output.dtype.startswith("int"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="invalid value",
                                got=[s.name for s in sources], expected="one layer with int lengths (e.g. 'length')")
        dim = _length_dim(name, sources[0])
        if out_spatial_dim is not None:
            out_spatial_dim.declare_same_as(dim)
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=[dim], dtype=dtype, sparse_dim=dim if sparse else None,
                      time_dim_axis=None if dim.is_batch_dim() else 0, feature_dim_axis=None)
