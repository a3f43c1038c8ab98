"""``{"class": "expand_dims", "axis": "F"|"T"|"spatial"|int, "dim": 1 | Dim}``: insert a new static axis.

Where the new axis goes (as the reference, observed):

- ``"F"``/``"feature"``: right after the feature axis (appended without one); it becomes the feature axis
  (refused for sparse inputs).
- ``"T"``/``"time"``/``"spatial"``: in front of the last axis of the dense layout (before the last axis of a
  dense input, at the end of a sparse one); if the input has no time axis, the new axis becomes it (unless it
  is the feature axis).
- an int: a position in the batch-major layout (negative counts from the end, ``-1`` appends); the output is
  batch-major. The new axis is a feature dim when it lands where the input's feature axis was.

``dim`` is the size (an int, default 1; the dim is named ``<layer>_expand_dims``) or a :class:`Dim` used as is.
A size > 1 tiles the input along the new axis. The output's feature axis is its last static non-batch axis
that is not the time axis (none for sparse outputs).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template

_FEATURE = ("f", "feature")
_SPATIAL = ("t", "time", "spatial")


def _kind(axis: Any, name: str, layer_class: str) -> str:
    if isinstance(axis, int) and not isinstance(axis, bool):
        return "int"
    low = str(axis).lower()
    if low in _FEATURE:
        return "feature"
    if low in _SPATIAL:
        return "spatial"
    raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="invalid value", got=axis,
                        expected="'F', 'T', 'spatial' or an int")


def _plan(inp: Tensor, axis: Any, dim: Union[int, Dim], name: str,
          layer_class: str) -> Tuple[Tensor, int, Dim, Optional[int], Optional[int]]:
    """:return: (input in the layout used, position, new dim, output time axis, output feature axis)"""
    kind = _kind(axis, name, layer_class)
    if kind == "int":
        inp = inp.copy_as_batch_major()
        pos = axis if axis >= 0 else inp.batch_ndim + 1 + axis
        if not 0 <= pos <= inp.batch_ndim:
            raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="out of range", got=axis,
                                expected=f"an int in [{-inp.batch_ndim - 1}, {inp.batch_ndim}]")
    elif kind == "feature":
        if inp.sparse:
            raise LayerArgError(layer=name, layer_class=layer_class, arg="axis",
                                problem="a sparse input has no feature axis to add", got=axis,
                                expected="'T', 'spatial' or an int")
        pos = inp.batch_ndim if inp.feature_dim_axis is None else inp.feature_dim_axis + 1
    else:
        pos = inp.batch_ndim if inp.sparse else max(inp.batch_ndim - 1, 0)
    if isinstance(dim, Dim):
        new = dim
    else:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
            raise LayerArgError(layer=name, layer_class=layer_class, arg="dim", problem="invalid value", got=dim,
                                expected="a positive int or a Dim")
        as_feature = kind == "feature" or (kind == "int" and pos == inp.feature_dim_axis)
        new = (FeatureDim if as_feature else SpatialDim)(f"{name}_expand_dims", dim)
    dims = list(inp.dims)
    dims.insert(pos, new)
    time_axis = inp.time_dim_axis
    if time_axis is not None and time_axis >= pos:
        time_axis += 1
    feat_axis = None
    if not inp.sparse:
        static = [i for i, d in enumerate(dims) if not d.is_batch_dim() and i != time_axis and d.dimension is not None]
        feat_axis = static[-1] if static else None
    if time_axis is None and kind == "spatial" and pos != feat_axis:
        time_axis = pos
    return inp, pos, new, time_axis, feat_axis


@register_layer
class ExpandDimsLayer(ConcatInputLayer):
    """``{B, T, F} --axis=F--> {B, T, F, 1}``."""

    layer_class = "expand_dims"

    def __init__(self, axis: Any, dim: Union[int, Dim] = 1, **kwargs: Any):
        """
        :param axis: where the new axis goes: ``"F"``, ``"T"``, ``"spatial"`` or an int position
        :param dim: size of the new axis (int, default 1) or the Dim to use
        """
        super().__init__(**kwargs)
        inp, pos, new, _, _ = _plan(self.input_data, axis, dim, self.name, self.layer_class)
        x = tf.expand_dims(inp.placeholder, pos)
        if new.dimension != 1:
            multiples = [1] * (inp.batch_ndim + 1)
            multiples[pos] = new.dimension
            x = tf.tile(x, multiples)
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, dim: Union[int, Dim] = 1,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        inp, pos, new, time_axis, feat_axis = _plan(inp, axis, dim, name, cls.layer_class)
        dims = list(inp.dims)
        dims.insert(pos, new)
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feat_axis, batch=inp.batch, beam=inp.beam,
                      vocab=inp.vocab, available_for_inference=inp.available_for_inference)
