"""``{"class": "constant", "value": 0.0}``: a constant (scalar or array); no batch axis unless ``with_batch_dim``.

Shape: ``{}`` for a scalar; static axes for an array (``'<name>:static<i>'`` dims); ``with_batch_dim``
prepends the batch axis (taken from the default input)."""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import tensorflow as tf

from returnn.tensor import SpatialDim, Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.ops.dims import get_batch_size


@register_layer
class ConstantLayer(LayerBase):
    """Output: ``value`` as a tensor of ``dtype`` (default: float32 for floats, int32 for ints, bool for bools)."""

    layer_class = "constant"

    def __init__(self, value: Any = 0.0, dtype: Optional[str] = None, with_batch_dim: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        raw = tf.constant(np.asarray(value), dtype=self.output.dtype)
        if with_batch_dim:
            batch = get_batch_size(self.network.extern_data.get_default_input_data())
            raw = tf.tile(tf.expand_dims(raw, 0), tf.concat([[batch], tf.ones([raw.shape.rank], tf.int32)], 0))
        self.output.placeholder = raw

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, value: Any = 0.0, dtype: Optional[str] = None,
                               with_batch_dim: bool = False, **kwargs: Any) -> Tensor:
        arr = np.asarray(value)
        if dtype is None:
            dtype = "bool" if arr.dtype == bool else "int32" if arr.dtype.kind in "iu" else "float32"
        dims = [SpatialDim(f"{name}:static{i}", n) for i, n in enumerate(arr.shape)]
        if with_batch_dim:
            dims.insert(0, batch_dim)
        return Tensor(name=f"{name}_const", dims=dims, dtype=dtype, time_dim_axis=None,
                      feature_dim_axis=len(dims) - 1 if arr.ndim else None)
