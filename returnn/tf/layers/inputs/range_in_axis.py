"""``{"class": "range_in_axis", "from": "x", "axis": "T"}``: the positions ``0 .. n-1`` along an axis of the source.

Shape: ``{axis dim}`` only (no batch axis), marked as time axis if it is the source's time axis, else as feature
axis (as the reference). ``axis`` may also be a :class:`Dim` computed from the source's dims (``time_dim + 2``:
``0 .. max(lengths)+1``, a time axis of that dim), as the reference. ``sparse``: the values are indices into that
dim (``sparse_dim`` = the dim). ``unbroadcast`` and ``keepdims`` are rejected, as the reference rejects them.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.inputs._axis_dim import axis_and_dim


@register_layer
class RangeInAxisLayer(LayerBase):
    """``tf.range(size of axis)``."""

    layer_class = "range_in_axis"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, axis: Any, dtype: str = "int32", unbroadcast: bool = False, keepdims: bool = False,
                 sparse: bool = False, **kwargs: Any):
        """
        :param axis: the axis (description or Dim) whose positions are output
        :param dtype: the output dtype (default ``"int32"``)
        :param unbroadcast: rejected, as by the reference (must be False)
        :param keepdims: rejected, as by the reference (must be False)
        :param sparse: the values are indices into the axis (a sparse output)
        """
        super().__init__(**kwargs)
        src = self.sources[0].output
        ax, d = axis_and_dim(src, axis)
        if d.dimension is not None:
            size = d.dimension
        elif ax is not None:
            size = tf.shape(src.placeholder)[ax]
        elif d.dyn_size is not None:
            size = tf.reduce_max(d.dyn_size)
        else:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="axis",
                                problem="names a dim whose lengths are not known here:", got=d,
                                expected="an axis of the source, or a dim computed from its dims")
        self.output.placeholder = tf.range(0, size, dtype=self.output.dtype)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, dtype: str = "int32",
                               unbroadcast: bool = False, keepdims: bool = False, sparse: bool = False,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``unbroadcast``/``keepdims`` (rejected as by the reference), no source"""
        for arg, value in (("unbroadcast", unbroadcast), ("keepdims", keepdims)):
            if value:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="is not supported:",
                                    got=value, hint=f"do not use {arg} (the reference rejects it too)")
        if axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axis", problem="missing required argument")
        src = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax, d = axis_and_dim(src, axis)
        is_time = ax == src.time_dim_axis if ax is not None else d.is_dynamic()
        base = name.split("/")[-1]
        return Tensor(name=f"{base}_output", dims=[d], dtype=dtype, sparse_dim=d if sparse else None,
                      time_dim_axis=0 if is_time else None,
                      feature_dim_axis=None if (is_time or sparse) else 0)
