"""``{"class": "merge_dims", "axes": "static"}`` (and the legacy ``combine_dims``): merge several axes into one.

The merged axis takes the position of the first merged axis (``keep_order``: axes are merged in their raw
order). Static axes give a static dim (product). Merging a dynamic axis ``T`` with static ``F`` gives a dynamic
axis whose lengths are ``len * F`` (the raw reshape keeps valid frames as a prefix). If the feature axis is among
the merged ones, the merged axis is the feature axis (as the reference).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class MergeDimsLayer(ConcatInputLayer):
    """``{B, A, C, ...} -> {B, A*C, ...}``."""

    layer_class = "merge_dims"

    def __init__(self, axes: Any, keep_order: bool = True, n_out: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = sorted(inp.get_axes_from_description(axes))
        x = inp.placeholder
        if len(ax) > 1:
            first = ax[0]
            perm = list(range(first)) + ax + [i for i in range(first, inp.batch_ndim) if i not in ax]
            x = tf.transpose(x, perm)
            shape = tf.shape(x)
            new_shape = [shape[i] for i in range(first)] + [tf.reduce_prod(shape[first:first + len(ax)])] + \
                        [shape[i] for i in range(first + len(ax), inp.batch_ndim)]
            x = tf.reshape(x, tf.stack(new_shape))
            dyn = [a for a in ax if inp.dims[a].is_dynamic()]
            if dyn and inp.dims[dyn[0]].dyn_size is not None:
                static = int(np.prod([inp.dims[a].dimension for a in ax if a != dyn[0] and inp.dims[a].dimension]))
                self.output.dims[first].dyn_size = inp.dims[dyn[0]].dyn_size * static
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: merging the batch axis, or two dynamic axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = sorted(inp.get_axes_from_description(axes))
        if len(ax) <= 1:
            return inp
        if inp.batch_dim_axis in ax:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axes",
                                problem="cannot merge the batch axis:", got=axes, hint="use flatten_batch")
        dims = [inp.dims[a] for a in ax]
        if sum(d.dimension is None for d in dims) > 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axes",
                                problem="cannot merge two dynamic axes:", got=axes)
        desc = "*".join(d.description for d in dims)
        size = None if any(d.dimension is None for d in dims) else int(np.prod([d.dimension for d in dims]))
        is_feat = inp.feature_dim_axis in ax
        new = FeatureDim(desc, size) if is_feat else SpatialDim(desc, size)
        first = ax[0]
        out_dims = list(inp.dims[:first]) + [new] + [d for i, d in enumerate(inp.dims) if i > first and i not in ax]

        def moved(old: Any) -> Any:
            if old is None:
                return None
            if old in ax:
                return first
            return old - sum(1 for a in ax[1:] if a < old)

        time_axis = None if inp.time_dim_axis in ax and (is_feat or size is not None) else moved(inp.time_dim_axis)
        feat_axis = moved(inp.feature_dim_axis)
        if is_feat:
            feat_axis = first
        return Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feat_axis)


@register_layer
class CombineDimsLayer(MergeDimsLayer):
    """Legacy name of ``merge_dims`` (``"axes"`` as there)."""

    layer_class = "combine_dims"
