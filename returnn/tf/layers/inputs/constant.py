"""``{"class": "constant", "value": 0.0}``: a constant (scalar or array); no batch axis unless ``with_batch_dim``.

Shape: ``{}`` for a scalar; static axes for an array (``'<name>:static<i>'`` dims); ``with_batch_dim``
prepends the batch axis (taken from the default input). ``shape`` (a sequence of Dims or ints) broadcasts the scalar
``value`` to these dims (a dynamic Dim: its maximum length; the batch dim: the batch size; an int: a static dim
``'<name>_const:static:<i>'``, the last one a feature dim unless a Dim of ``shape`` is one); ``sparse_dim`` makes the
output sparse (int32 class indices by default)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.ops.dims import get_batch_size


@register_layer
class ConstantLayer(LayerBase):
    """Output: ``value`` as a tensor of ``dtype`` (default: float32 for floats, int32 for ints, bool for bools)."""

    layer_class = "constant"

    def __init__(self, value: Any = 0.0, dtype: Optional[str] = None, with_batch_dim: bool = False,
                 shape: Optional[Sequence[Any]] = None, sparse_dim: Optional[Dim] = None,
                 shape_deps: Sequence[LayerBase] = (), **kwargs: Any):
        """:param shape_deps: layers (names in the dict) built first, whose dims ``shape`` uses (their lengths)
        :param value: the constant: a scalar, a nested list or a numpy array
        :param dtype: the output dtype (default from the value: float32, int32 or bool)
        :param with_batch_dim: prepend the batch axis (the value repeated per sequence)
        :param shape: Dims (or ints) to broadcast a scalar ``value`` to
        :param sparse_dim: makes the output sparse with these classes
        """
        super().__init__(**kwargs)
        self.shape_deps = list(shape_deps)
        raw = tf.constant(np.asarray(value), dtype=self.output.dtype)
        if shape is not None:
            sizes = [self._dim_size(d) for d in self.output.dims]
            raw = tf.broadcast_to(raw, tf.stack(sizes)) if sizes else raw
        if with_batch_dim:
            batch = self._batch_size()
            raw = tf.tile(tf.expand_dims(raw, 0), tf.concat([[batch], tf.ones([raw.shape.rank], tf.int32)], 0))
        self.output.placeholder = raw

    def _batch_size(self) -> Any:
        """:return: the batch size of the first of ``shape_deps`` with a batch axis, else of the extern data"""
        for dep in self.shape_deps:
            if dep.output.have_batch_axis():
                return get_batch_size(dep.output)
        return self.network.extern_data.get_batch_info().dim

    def _dim_size(self, dim: Dim) -> Any:
        """:return: the raw size of ``dim`` (int, or int32 scalar tensor)"""
        if dim.dimension is not None:
            return dim.dimension
        if dim.is_batch_dim():
            return self._batch_size()
        if dim.dyn_size is None:
            raise LayerShapeError(layer=self.name, layer_class=self.layer_class,
                                  problem=f"shape: the dynamic dim {dim} has no known lengths")
        return tf.reduce_max(dim.dyn_size)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        deps = d.get("shape_deps") or ()
        d["shape_deps"] = [get_layer(name) for name in ([deps] if isinstance(deps, str) else deps)]

    @classmethod
    def get_out_data_from_opts(cls, name: str, value: Any = 0.0, dtype: Optional[str] = None,
                               with_batch_dim: bool = False, shape: Optional[Sequence[Any]] = None,
                               sparse_dim: Optional[Dim] = None, shape_deps: Sequence[Any] = (),
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``shape`` with a non-scalar value"""
        arr = np.asarray(value)
        if dtype is None:
            dtype = "bool" if arr.dtype == bool else "int32" if arr.dtype.kind in "iu" else "float32"
        if shape is not None:
            if arr.ndim:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="shape",
                                    problem="needs a scalar value, got one of shape", got=arr.shape)
            dims = _shape_dims(name, shape)
            feature = [i for i, d in enumerate(dims) if d.is_feature_dim()]
            time = [i for i, d in enumerate(dims) if d.is_spatial_dim() and d.dimension is None]
            return Tensor(name=f"{name}_const", dims=dims, dtype=dtype, sparse_dim=sparse_dim,
                          time_dim_axis=time[0] if time else None,
                          feature_dim_axis=None if sparse_dim is not None else (feature[-1] if feature else None))
        dims = [SpatialDim(f"{name}:static{i}", n) for i, n in enumerate(arr.shape)]
        if with_batch_dim:
            dims.insert(0, batch_dim)
        return Tensor(name=f"{name}_const", dims=dims, dtype=dtype, time_dim_axis=None,
                      feature_dim_axis=len(dims) - 1 if arr.ndim else None)


def _shape_dims(name: str, shape: Sequence[Any]) -> list:
    """:return: the dims of ``shape``: its Dims, and for each int a static dim ``'<name>_const:static:<i>'``; as the
        reference (observed), the last entry, if an int, is a feature dim when no Dim of ``shape`` is one (e.g.
        ``[batch_dim, 1]`` has the feature axis ``1``)"""
    dims = []
    has_feature = any(isinstance(d, Dim) and d.is_feature_dim() for d in shape)
    for i, d in enumerate(shape):
        if isinstance(d, Dim):
            dims.append(d)
        elif i == len(shape) - 1 and not has_feature:
            dims.append(FeatureDim(f"{name}_const:static:{i}", int(d)))
        else:
            dims.append(SpatialDim(f"{name}_const:static:{i}", int(d)))
    return dims
