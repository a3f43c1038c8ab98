"""``{"class": "range", "limit": 5, "start": 0, "delta": 1}``: the integers ``start, start+delta, ... < limit``.

Shape: ``{'<layer>:range'(n)}`` with ``n = len(range(start, limit, delta))``, marked as the feature axis (as the
reference); no batch axis. ``out_spatial_dim`` is declared the same as that dim. ``sparse``: int values with the
sparse dim ``'<layer>:range-indices'`` (size unknown) and no feature axis. ``dtype`` default int32.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class RangeLayer(LayerBase):
    """``tf.range(start, limit, delta)``."""

    layer_class = "range"

    def __init__(self, limit: int, start: int = 0, delta: int = 1, dtype: Optional[str] = None, sparse: bool = False,
                 out_spatial_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param limit: the end (excluded)
        :param start: the first value (default 0)
        :param delta: the step (default 1)
        :param dtype: the output dtype (default ``"int32"``)
        :param sparse: output int indices with a sparse dim instead of a dense feature axis
        :param out_spatial_dim: the Dim of the output axis (declared the same as the computed one)
        """
        super().__init__(**kwargs)
        self.output.placeholder = tf.range(start, limit, delta, dtype=self.output.dtype)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, limit: Any = None, start: Any = 0, delta: Any = 1,
                               dtype: Optional[str] = None, sparse: bool = False,
                               out_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``limit``/``start``/``delta`` not ints (the reference needs ints too)"""
        for arg, value in (("limit", limit), ("start", start), ("delta", delta)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="invalid value",
                                    got=value, expected="an int")
        base = name.split("/")[-1]
        dim = SpatialDim(f"{base}:range", len(range(start, limit, delta)))
        if out_spatial_dim is not None:
            out_spatial_dim.declare_same_as(dim)
        dtype = dtype or "int32"
        if sparse:
            return Tensor(name=f"{base}_output", dims=[dim], dtype=dtype, time_dim_axis=None,
                          sparse_dim=Dim(None, description=f"{base}:range-indices"))
        return Tensor(name=f"{base}_output", dims=[dim], dtype=dtype, time_dim_axis=None, feature_dim_axis=0)
