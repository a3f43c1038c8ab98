"""``{"class": "top_k", "axis": "F", "k": 2}``: the ``k`` largest values along one axis or over several axes
together; sub layer ``"<layer>/indices"`` (or ``"<layer>/indices0"``, ``"indices1"``, ... when ``axis`` is a
list/tuple) has their positions.

Shape (as the reference): the other axes in their order, then a new dim ``'<layer>:topk'`` (or ``k_dim``) last;
no feature axis. ``k``: an int (static dim of size ``k``) or a scalar int layer (e.g. ``"k"``; the new dim is then
dynamic, its size that layer's output). With several axes, the values of those axes (in the given order) are
flattened and the ``k`` largest taken; ``indices<i>`` is the position along the ``i``-th of them. Indices: int32
with ``sparse_dim`` = that axis's dim. ``sorted`` as ``tf.math.top_k`` (descending).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


def _axes(inp: Tensor, axis: Any, name: str, layer_class: str) -> Tuple[List[int], bool]:
    """:return: the axes, and whether ``axis`` was a list/tuple (then the indices are numbered)"""
    multi = isinstance(axis, (list, tuple))
    axes = [inp.get_axis_from_description(a) for a in (axis if multi else [axis])]
    if not axes or len(set(axes)) != len(axes):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="invalid value", got=axis,
                            expected="one axis or a list of distinct axes")
    return axes, multi


def _template(name: str, layer_class: str, sources: Any, axis: Any, k: Any, k_dim: Optional[Dim]) -> Tensor:
    if isinstance(k, LayerBase):
        if k.output.batch_ndim != 0 or not k.output.dtype.startswith("int"):
            raise LayerArgError(layer=name, layer_class=layer_class, arg="k", problem="invalid value",
                                got=repr(k.output), expected="an int or a scalar int layer")
    elif not isinstance(k, int) or isinstance(k, bool):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="k", problem="invalid value", got=k,
                            expected="an int or a scalar int layer")
    inp = concat_sources_template(sources, name=name, layer_class=layer_class)
    axes, _ = _axes(inp, axis, name, layer_class)
    base = name.split("/")[-1]
    if k_dim is not None:
        new = k_dim
    else:
        new = SpatialDim(f"{base}:topk", None if isinstance(k, LayerBase) else k)
    if isinstance(k, LayerBase) and new.dimension is None and not new.is_dim_known():
        new.dyn_size_ext = k.output.copy_template()
    dims = [d for i, d in enumerate(inp.dims) if i not in axes] + [new]
    time_axis = None
    if inp.time_dim_axis is not None and inp.time_dim_axis not in axes:
        time_axis = dims.index(inp.dims[inp.time_dim_axis])
    return Tensor(name=f"{base}_output", dims=dims, dtype=inp.dtype, time_dim_axis=time_axis, feature_dim_axis=None)


@register_layer
class TopKLayer(LayerBase):
    """``tf.math.top_k`` over ``axis`` (one axis, or several flattened together)."""

    layer_class = "top_k"

    def __init__(self, axis: Any, k: Any, k_dim: Optional[Dim] = None, sorted: bool = True,  # noqa: A002
                 **kwargs: Any):
        """
        :param axis: the axis (or a list of axes, flattened together) to take the largest values from
        :param k: how many: an int or a scalar int layer
        :param k_dim: the Dim of the new axis
        :param sorted: sorted in descending order (default True)
        """
        super().__init__(**kwargs)
        inp = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        x = concat_sources(self.sources, inp)
        axes, multi = _axes(inp, axis, self.name, self.layer_class)
        rest = [i for i in range(inp.batch_ndim) if i not in axes]
        x = tf.transpose(x, rest + axes)
        shape = tf.shape(x)
        n_rest = len(rest)
        sizes = [shape[n_rest + i] for i in range(len(axes))]
        x = tf.reshape(x, tf.concat([shape[:n_rest], [-1]], axis=0))
        k_value = tf.cast(k.output.placeholder, tf.int32) if isinstance(k, LayerBase) else k
        values, flat_idx = tf.math.top_k(x, k=k_value, sorted=sorted)
        self.output.placeholder = values
        new_dim = self.output.dims[-1]
        if isinstance(k, LayerBase) and new_dim.dimension is None and new_dim.dyn_size is None:
            new_dim.dyn_size = k_value
        indices = []
        remaining = flat_idx
        for size in reversed(sizes[1:]):
            indices.insert(0, remaining % size)
            remaining = remaining // size
        indices.insert(0, remaining)
        self.indices_layers: Dict[str, InternalLayer] = {}
        for i, (ax, idx) in enumerate(zip(axes, indices)):
            sub = f"indices{i}" if multi else "indices"
            idx_out = Tensor(name=f"{self.name}/{sub}", dims=self.output.dims, dtype="int32",
                             sparse_dim=inp.dims[ax], time_dim_axis=self.output.time_dim_axis)
            idx_out.placeholder = idx
            self.indices_layers[sub] = InternalLayer(name=f"{self.name}/{sub}", network=self.network,
                                                     output=idx_out, sources=[self])

    def get_sub_layer(self, layer_name: str) -> Optional[InternalLayer]:
        """:return: the ``indices`` (one axis) or ``indices<i>`` (several axes) sub layer, or None"""
        return self.indices_layers.get(layer_name)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("k"), str):
            d["k"] = get_layer(d["k"])

    @classmethod
    def get_sub_layer_out_data_from_opts(cls, layer_name: str, parent_layer_kwargs: Dict[str, Any]
                                         ) -> Optional[Tensor]:
        """:return: the template of ``indices`` (one axis) or ``indices<i>`` (several axes), or None"""
        kw = parent_layer_kwargs
        name, axis = kw["name"], kw.get("axis")
        out = _template(name, cls.layer_class, kw.get("sources", ()), axis, kw.get("k"), kw.get("k_dim"))
        inp = concat_sources_template(kw.get("sources", ()), name=name, layer_class=cls.layer_class)
        axes, multi = _axes(inp, axis, name, cls.layer_class)
        subs = {f"indices{i}" if multi else "indices": ax for i, ax in enumerate(axes)}
        if layer_name not in subs:
            return None
        return Tensor(name=f"{name}/{layer_name}", dims=out.dims, dtype="int32", sparse_dim=inp.dims[subs[layer_name]],
                      time_dim_axis=out.time_dim_axis)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, k: Any = None,
                               k_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``k`` not an int or a scalar int layer, bad ``axis``"""
        return _template(name, cls.layer_class, sources, axis, k, k_dim)
