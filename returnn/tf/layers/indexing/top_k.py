"""``{"class": "top_k", "axis": "F", "k": 2}``: the ``k`` largest values along an axis; sub layer
``"<layer>/indices"`` has their positions.

Shape: ``axis`` replaced by a new static dim ``'<layer>:topk'(k)`` (or ``k_dim``), no feature axis, as the
reference. ``indices``: int32 with ``sparse_dim`` = the axis dim. ``sorted`` as ``tf.math.top_k`` (descending).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


def _template(name: str, layer_class: str, sources: Any, axis: Any, k: Any, k_dim: Optional[Dim]) -> Tensor:
    if not isinstance(k, int) or isinstance(k, bool):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="k", problem="invalid value", got=k,
                            expected="an int (a layer for k is not supported yet)")
    inp = concat_sources_template(sources, name=name, layer_class=layer_class)
    ax = inp.get_axis_from_description(axis)
    base = name.split("/")[-1]
    new = k_dim if k_dim is not None else SpatialDim(f"{base}:topk", k)
    dims = list(inp.dims)
    dims[ax] = new
    time_axis = inp.time_dim_axis if inp.time_dim_axis != ax else None
    return Tensor(name=f"{base}_output", dims=dims, dtype=inp.dtype, time_dim_axis=time_axis, feature_dim_axis=None)


@register_layer
class TopKLayer(LayerBase):
    """``tf.math.top_k`` along ``axis``."""

    layer_class = "top_k"

    def __init__(self, axis: Any, k: int, k_dim: Optional[Dim] = None, sorted: bool = True,  # noqa: A002
                 **kwargs: Any):
        super().__init__(**kwargs)
        inp = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        x = concat_sources(self.sources, inp)
        ax = inp.get_axis_from_description(axis)
        last = inp.batch_ndim - 1
        if ax != last:
            perm = [i for i in range(inp.batch_ndim) if i != ax] + [ax]
            x = tf.transpose(x, perm)
        values, indices = tf.math.top_k(x, k=k, sorted=sorted)
        if ax != last:
            back = list(range(ax)) + [last] + list(range(ax, last))
            values, indices = tf.transpose(values, back), tf.transpose(indices, back)
        self.output.placeholder = values
        idx_out = Tensor(name=f"{self.name}/indices_output", dims=self.output.dims, dtype="int32",
                         sparse_dim=inp.dims[ax], time_dim_axis=self.output.time_dim_axis)
        idx_out.placeholder = indices
        self.indices_layer = InternalLayer(name=f"{self.name}/indices", network=self.network, output=idx_out,
                                           sources=[self])

    def get_sub_layer(self, layer_name: str) -> Optional[InternalLayer]:
        """:return: the ``indices`` sub layer, or None"""
        return self.indices_layer if layer_name == "indices" else None

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, k: Any = None,
                               k_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``k`` not an int"""
        return _template(name, cls.layer_class, sources, axis, k, k_dim)
