"""``{"class": "split_dims", "axis": "F", "dims": (2, -1)}``: split one axis into several.

Splitting a static axis gives static dims (one ``-1`` is inferred). Splitting the dynamic time axis by
``(-1, k)`` gives a new dynamic time axis with lengths ``ceil(len / k)`` and a static axis ``k``
(``pad_to_multiples``, default True for dynamic axes, pads the time axis to a multiple of ``k`` first).
``dims`` may hold Dims (used as the new dims; a dynamic one takes the ``-1`` part); a ``-1`` part whose size is
the split axis's own (the other parts 1) keeps the split axis's dim, as the reference.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class SplitDimsLayer(ConcatInputLayer):
    """``{..., A, ...} -> {..., d0, d1, ...}`` with ``prod(d_i) == A``."""

    layer_class = "split_dims"

    def __init__(self, axis: Any, dims: Sequence[Any], pad_to_multiples: Optional[bool] = None,
                 pad_value: float = 0, **kwargs: Any):
        """
        :param axis: the axis to split
        :param dims: the new sizes (ints, one may be -1) or Dims, product equal to the axis size
        :param pad_to_multiples: pad the axis to a multiple of the other parts first (default True for dynamic axes)
        :param pad_value: the value of that padding (default 0)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = _split_axis(inp, axis)
        x = inp.placeholder
        shape = tf.shape(x)
        d = inp.dims[ax]
        new_dims = self.output.dims[ax:ax + len(dims)]
        if _splits_off_batch(dims, inp):  # the batch part takes the rest, dynamic parts their maximal length
            sizes = [-1 if nd.is_batch_dim() else nd.get_dim_value() for nd in new_dims]
        elif d.dimension is None:
            dyn_pos = [i for i, nd in enumerate(new_dims) if nd.dimension is None][0]
            k = int(np.prod([nd.dimension for i, nd in enumerate(new_dims) if i != dyn_pos]))
            if pad_to_multiples is not False and k != 1:
                size = shape[ax]
                pad = (k - size % k) % k
                paddings = [[0, 0]] * inp.batch_ndim
                paddings[ax] = [0, pad]
                x = tf.pad(x, tf.stack([tf.stack(p) if isinstance(p[1], tf.Tensor) else tf.constant(p)
                                        for p in paddings]), constant_values=pad_value)
                shape = tf.shape(x)
            sizes = [shape[ax] // k if i == dyn_pos else nd.dimension for i, nd in enumerate(new_dims)]
            if d.dyn_size is not None and new_dims[dyn_pos] != d and new_dims[dyn_pos].dyn_size is None \
                    and not new_dims[dyn_pos].is_batch_dim():
                new_dims[dyn_pos].dyn_size = (d.dyn_size + k - 1) // k
        else:
            sizes = [nd.dimension for nd in new_dims]
        new_shape = [shape[i] for i in range(ax)] + list(sizes) + [shape[i] for i in range(ax + 1, inp.batch_ndim)]
        self.output.placeholder = tf.reshape(x, tf.stack(new_shape))

    @staticmethod
    def _resolve_dims(old_dim: int, new_dims: Sequence[int], pad_to_multiples: bool = False) -> Tuple[int, ...]:
        """:return: ``new_dims`` with its ``-1`` (at most one) replaced so that the product is ``old_dim``; with
            ``pad_to_multiples`` the ``-1`` part rounds up (``old_dim`` padded to a multiple of the others)
        :raises ValueError: more than one -1, or the sizes do not multiply to ``old_dim`` (without padding)"""
        new_dims = list(new_dims)
        if new_dims.count(-1) > 1:
            raise ValueError(f"split_dims: at most one -1 in {new_dims}")
        known = int(np.prod([v for v in new_dims if v != -1]))
        if -1 in new_dims:
            rest = -(-old_dim // known) if pad_to_multiples else old_dim // known
            new_dims[new_dims.index(-1)] = rest
        total = int(np.prod(new_dims))
        if total != old_dim and not (pad_to_multiples and total >= old_dim):
            raise ValueError(f"split_dims: {new_dims} does not multiply to {old_dim}")
        return tuple(new_dims)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, dims: Sequence[Any] = (),
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: sizes do not divide; more than one -1"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = _split_axis(inp, axis)
        d = inp.dims[ax]
        given = list(dims)
        if _splits_off_batch(given, inp):
            return cls._out_with_batch_part(name, inp, ax, given)
        sizes = [(v.dimension if v.dimension is not None else -1) if isinstance(v, Dim) else v for v in given]
        if sum(v == -1 for v in sizes) > 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims", problem="at most one -1 allowed in",
                                got=dims)
        keeps_old = sizes.count(-1) == 1 and all(v == 1 for v in sizes if v != -1)
        if d.dimension is not None:
            try:
                sizes = list(cls._resolve_dims(d.dimension, sizes))
            except ValueError:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims", problem="does not multiply "
                                    f"to the size {d.dimension} of axis {axis!r}:", got=dims) from None
            make = FeatureDim if d.is_feature_dim() else SpatialDim
            new = [make(f"{name}_split_dims{i}", v) for i, v in enumerate(sizes)]
        else:
            if sizes.count(-1) != 1:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims",
                                    problem="needs exactly one -1 (or dynamic Dim) to split a dynamic axis:", got=dims)
            new = [SpatialDim(f"{name}_split_dims{i}" + ("_rem" if v == -1 else ""), None if v == -1 else v)
                   for i, v in enumerate(sizes)]
        for i, v in enumerate(given):
            if isinstance(v, Dim):
                new[i] = v
            elif keeps_old and (v == -1 or (d.dimension is not None and v == d.dimension)) and len(given) > 1:
                new[i] = d
                keeps_old = False  # only one place takes the old dim
        out_dims = list(inp.dims[:ax]) + new + list(inp.dims[ax + 1:])
        shift = len(new) - 1

        def moved(old: Optional[int]) -> Optional[int]:
            if old is None or old < ax:
                return old
            return old + shift if old > ax else None

        time_axis = moved(inp.time_dim_axis)
        if inp.time_dim_axis == ax:
            time_axis = ax + sizes.index(-1) if d.dimension is None else ax
        feat_axis = moved(inp.feature_dim_axis)
        if inp.feature_dim_axis == ax:
            feat_axis = ax + shift
        batch = inp.batch
        if ax == inp.batch_dim_axis and batch is not None:  # the given dims leave the batch info (as the reference)
            for v in given:
                for vd in list(batch.virtual_dims):
                    if isinstance(v, Dim) and not v.is_batch_dim() and getattr(vd, "dim_tag", None) == v:
                        batch = batch.copy_remove_dim(vd)
        return Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feat_axis, batch=batch)

    @classmethod
    def _out_with_batch_part(cls, name: str, inp: Tensor, ax: int, given: Sequence[Any]) -> Tensor:
        """``dims`` with the batch dim (e.g. ``[batch_dim, time_dim * 2]`` of a flattened axis): the given Dims (ints:
        new static dims), the time and feature axes the defaults"""
        if any(not isinstance(v, Dim) and (not isinstance(v, int) or v < 1) for v in given):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims", problem="with the batch dim, "
                                "the other parts must be Dims or sizes >= 1:", got=list(given))
        new = [v if isinstance(v, Dim) else SpatialDim(f"{name}_split_dims{i}", v) for i, v in enumerate(given)]
        out_dims = list(inp.dims[:ax]) + new + list(inp.dims[ax + 1:])
        return Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim)


def _splits_off_batch(dims: Sequence[Any], inp: Tensor) -> bool:
    """:return: whether ``dims`` has the batch dim and ``inp`` has no batch axis (the split makes it)"""
    return inp.batch_dim_axis is None and any(isinstance(v, Dim) and v.is_batch_dim() for v in dims)


def _split_axis(inp: Tensor, axis: Any) -> int:
    """:return: the axis to split; a batch dim (e.g. ``batch_dim``) names the batch axis, also a merged one"""
    if isinstance(axis, Dim) and axis.is_batch_dim() and inp.batch_dim_axis is not None:
        return inp.batch_dim_axis
    return inp.get_axis_from_description(axis)
