"""``{"class": "length", "axis": "T"}``: per-sequence lengths of a dynamic axis, int32 ``{B}``; of the batch axis
or a static axis: its size, an int32 scalar (as the reference).

``axis`` may also be a :class:`Dim` that is no axis of the source: its sparse dim, or a dim computed from the
source's dims (``time_dim + 2``: lengths + 2). ``sparse=True`` (batch or static axis only, as the reference): the
scalar is sparse with a new dynamic sparse dim ``'<layer>_static_dim:sparse-dim'`` (``_batch_dim`` for the batch
axis); the lengths of a dynamic axis stay dense.
"""

from __future__ import annotations

from typing import Any

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.inputs._axis_dim import axis_and_dim


@register_layer
class LengthLayer(LayerBase):
    """Output: the lengths of ``axis`` of the (first) source (batch or static axis: its size, a scalar).

    :raises LayerArgError: (when built) ``axis`` is a dynamic dim whose lengths are not known
    """

    layer_class = "length"

    def __init__(self, axis: Any = "T", dtype: str = "int32", sparse: bool = False, **kwargs: Any):
        """
        :param axis: the axis whose lengths (dynamic) or size (batch, static) is output (default ``"T"``)
        :param dtype: the output dtype (default ``"int32"``)
        :param sparse: for a batch or static axis: make the scalar sparse (an index into that size)
        """
        super().__init__(**kwargs)
        import tensorflow as tf
        src = self.sources[0].output
        _, d = axis_and_dim(src, axis)
        if d.is_batch_dim():
            from returnn.tf.ops.dims import get_batch_size
            lens = get_batch_size(src)
        elif d.dimension is not None:
            lens = tf.constant(d.dimension)
        else:
            lens = d.dyn_size
            if lens is None:
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="axis",
                                    problem="names a dim whose lengths are not known here:", got=d,
                                    expected="an axis of the source, or a dim computed from its dims")
        self.output.placeholder = tf.cast(lens, dtype)
        if d.is_batch_dim():  # range_from_length over it gives the batch axis, as the reference
            batch_dim.set_tag_on_size_tensor(self.output.placeholder)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", dtype: str = "int32",
                               sparse: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: no source"""
        if not sources:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs a source")
        _, d = axis_and_dim(sources[0].output, axis)
        base = name.split("/")[-1]
        if d.is_batch_dim() or d.dimension is not None:
            out_name = f"{base}_batch_dim" if d.is_batch_dim() else f"{base}_static_dim"
            sparse_dim = Dim(None, description=f"{out_name}:sparse-dim", kind=Dim.Types.Feature) if sparse else None
            return Tensor(name=out_name, dims=[], dtype=dtype, sparse_dim=sparse_dim, time_dim_axis=None,
                          feature_dim_axis=None)
        return Tensor(name=f"{name}_output", dims=[batch_dim], dtype=dtype, time_dim_axis=None, feature_dim_axis=None)
