"""``{"class": "rand_int", "shape": [batch_dim, 3], "minval": 0, "maxval": 10}``: uniform random integers.

Values in ``[minval, maxval)`` (each an int or a layer with a scalar output, e.g. a length), dtype ``int32`` by
default. Shape: the ``shape`` entries in order (:class:`Dim` objects or ints); an int ``n`` at position ``i`` becomes
the static dim ``'<layer>:static:<i>'(n)``, a feature dim if it is the last entry (as the reference). The feature
axis is the last axis if it is static. No sources. A batch dim gets the batch size of the extern data, a dynamic dim
the maximum of its lengths. ``seed`` fixes the op seed (default: drawn from the network's random generator).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.inputs.random import check_shape, make_out_template, resolve_seed, runtime_shape


@register_layer
class RandIntLayer(LayerBase):
    """Uniform random integers of ``shape`` in ``[minval, maxval)``."""

    layer_class = "rand_int"

    def __init__(self, shape: Sequence[Any], maxval: Union[int, LayerBase], minval: Union[int, LayerBase] = 0,
                 dtype: str = "int32", sparse_dim: Optional[Dim] = None, seed: Optional[int] = None, **kwargs: Any):
        """
        :param shape: the output dims (Dims or ints)
        :param maxval: the upper bound, exclusive: an int or a layer with a scalar output
        :param minval: the lower bound, inclusive: an int or a layer with a scalar output (default 0)
        :param dtype: an int dtype (default int32)
        :param sparse_dim: makes the output sparse with this dim
        :param seed: the op seed (default: drawn from the network's random generator)
        """
        super().__init__(**kwargs)
        bounds = []
        for arg, value in (("minval", minval), ("maxval", maxval)):
            if isinstance(value, LayerBase):
                if value.output.batch_ndim != 0:
                    raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg=arg,
                                        problem="invalid value", got=value.output,
                                        expected="a layer with a scalar output")
                value = tf.cast(value.output.placeholder, dtype)
            bounds.append(value)
        self.bound_layers = [v for v in (minval, maxval) if isinstance(v, LayerBase)]
        self.output.placeholder = tf.random.uniform(runtime_shape(self, ()), bounds[0], bounds[1], dtype=dtype,
                                                    seed=resolve_seed(self, seed))

    def get_dep_layers(self) -> list:
        """:return: the base deps and the layers of ``minval``/``maxval``"""
        return super().get_dep_layers() + self.bound_layers

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for arg in ("minval", "maxval"):
            if isinstance(d.get(arg), str):
                d[arg] = get_layer(d[arg])

    @classmethod
    def get_out_data_from_opts(cls, name: str, shape: Any = None, dtype: str = "int32",
                               sparse_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``shape`` not a list of Dims/ints, or ``dtype`` not an int type"""
        check_shape(shape, name, cls.layer_class)
        if not dtype.startswith(("int", "uint")):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="dtype", problem="invalid value",
                                got=dtype, expected="an int dtype, e.g. 'int32'")
        base = name.split("/")[-1]
        dims = [d if isinstance(d, Dim) else
                (FeatureDim if i == len(shape) - 1 else SpatialDim)(f"{base}:static:{i}", d)
                for i, d in enumerate(shape)]
        return make_out_template(name, dims, dtype, sparse_dim=sparse_dim)
