"""``{"class": "split_dims", "axis": "F", "dims": (2, -1)}``: split one axis into several.

Splitting a static axis gives static dims (one ``-1`` is inferred). Splitting the dynamic time axis by
``(-1, k)`` gives a new dynamic time axis with lengths ``ceil(len / k)`` and a static axis ``k``
(``pad_to_multiples``, default True for dynamic axes, pads the time axis to a multiple of ``k`` first).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class SplitDimsLayer(ConcatInputLayer):
    """``{..., A, ...} -> {..., d0, d1, ...}`` with ``prod(d_i) == A``."""

    layer_class = "split_dims"

    def __init__(self, axis: Any, dims: Sequence[int], pad_to_multiples: Optional[bool] = None,
                 pad_value: float = 0, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = inp.placeholder
        shape = tf.shape(x)
        d = inp.dims[ax]
        if d.dimension is None:
            k = int(np.prod([v for v in dims if v != -1]))
            if pad_to_multiples is not False:
                size = shape[ax]
                pad = (k - size % k) % k
                paddings = [[0, 0]] * inp.batch_ndim
                paddings[ax] = [0, pad]
                x = tf.pad(x, tf.stack([tf.stack(p) if isinstance(p[1], tf.Tensor) else tf.constant(p)
                                        for p in paddings]), constant_values=pad_value)
                shape = tf.shape(x)
            new_dims = [shape[ax] // k if v == -1 else v for v in dims]
            if d.dyn_size is not None:
                dyn_pos = [i for i, v in enumerate(dims) if v == -1][0]
                self.output.dims[ax + dyn_pos].dyn_size = (d.dyn_size + k - 1) // k
        else:
            new_dims = list(self.output.batch_shape[ax:ax + len(dims)])
        new_shape = [shape[i] for i in range(ax)] + list(new_dims) + [shape[i] for i in range(ax + 1, inp.batch_ndim)]
        self.output.placeholder = tf.reshape(x, tf.stack(new_shape))

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, dims: Sequence[int] = (),
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: sizes do not divide; more than one -1"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        d = inp.dims[ax]
        dims = list(dims)
        if sum(v == -1 for v in dims) > 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims", problem="at most one -1 allowed in",
                                got=dims)
        if d.dimension is not None:
            known = int(np.prod([v for v in dims if v != -1]))
            if -1 in dims:
                dims[dims.index(-1)] = d.dimension // known
            if int(np.prod(dims)) != d.dimension:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims", problem="does not multiply to "
                                    f"the size {d.dimension} of axis {axis!r}:", got=dims)
            make = FeatureDim if d.is_feature_dim() else SpatialDim
            new = [make(f"{name}_split_dims{i}", v) for i, v in enumerate(dims)]
        else:
            if dims.count(-1) != 1:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dims",
                                    problem="needs exactly one -1 to split a dynamic axis:", got=dims)
            new = [SpatialDim(f"{name}_split_dims{i}" + ("_rem" if v == -1 else ""), None if v == -1 else v)
                   for i, v in enumerate(dims)]
        out_dims = list(inp.dims[:ax]) + new + list(inp.dims[ax + 1:])
        shift = len(new) - 1

        def moved(old: Optional[int]) -> Optional[int]:
            if old is None or old < ax:
                return old
            return old + shift if old > ax else None

        time_axis = moved(inp.time_dim_axis)
        if inp.time_dim_axis == ax:
            time_axis = ax + dims.index(-1) if d.dimension is None else ax
        feat_axis = moved(inp.feature_dim_axis)
        if inp.feature_dim_axis == ax:
            feat_axis = ax + shift
        return Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feat_axis)
