"""``{"class": "variable", "shape": [512], "init": 0.0}``: a trainable parameter as the layer output.

Shape: the ``shape`` entries in order (ints or :class:`Dim`); an int ``n`` is a new static dim
``'<name>:static:<i>'``, a feature dim if it is the last entry (as the reference). The feature axis is always the
last axis; there is no time axis. ``add_time_axis`` prepends a ``'<name>:dummy-time'`` axis of size 1,
``add_batch_axis`` a batch axis (the parameter tiled over the batch) before that: ``{B, 1, *shape}``.

Param (as the reference): ``<layer>/<param_name or layer name>`` of ``shape``, ``dtype`` (default float32),
initialized by ``init`` (any initializer spec; default zeros) or with the value of the layer ``init_by_layer``.
``trainable=False`` keeps it out of the trainable variables; ``saveable=False`` keeps it out of the checkpoint.
``non_critical_for_restore`` is accepted (it only affects checkpoint loading warnings in the reference).
The param and the raw output (before ``add_time_axis``/``add_batch_axis``) carry the axes split info
(``returnn.tf.util.basic.get_param_axes_split_info``) of the shape's dims, as the reference: per axis the parts
of a dim made by arithmetic (``[2 * a + b, 3 * a]`` with a=3, b=5: ``[[3, 3, 5], [3, 3, 3]]``; an int: itself).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tensor._dim_math import split_sizes
from returnn.tf.ops.init import get_initializer
from returnn.tf.util.param_split import set_param_axes_split_info


@register_layer
class VariableLayer(LayerBase):
    """A parameter (optionally tiled over the batch) as the output; no sources."""

    layer_class = "variable"

    def __init__(self, shape: Sequence[Any], dtype: str = "float32", add_batch_axis: bool = False,
                 add_time_axis: bool = False, trainable: bool = True, saveable: bool = True,
                 non_critical_for_restore: bool = False, init: Any = None, init_by_layer: Optional[LayerBase] = None,
                 param_name: Optional[str] = None, **kwargs: Any):
        """
        :param shape: the param's shape: ints or Dims
        :param dtype: the param's dtype (default ``"float32"``)
        :param add_batch_axis: prepend a batch axis (the param repeated per sequence)
        :param add_time_axis: prepend a time axis of size 1
        :param saveable: store the param in checkpoints (default True)
        :param non_critical_for_restore: accepted for compatibility with the reference; no effect here (affects only
            checkpoint loading warnings there)
        :param init: initializer spec of the param (default zeros)
        :param init_by_layer: layer whose value initializes the param (instead of ``init``)
        :param param_name: name of the param (default: the layer name)
        """
        super().__init__(trainable=trainable, **kwargs)
        self.saveable = saveable
        self.non_critical_for_restore = non_critical_for_restore
        shape_ints = [d.dimension if isinstance(d, Dim) else d for d in shape]
        name = param_name or self.name.split("/")[-1]
        if init_by_layer is not None:
            initial = tf.cast(init_by_layer.output.placeholder, dtype)
            var = tf.compat.v1.get_variable(name, initializer=initial, trainable=trainable)
        else:
            if init is None or (isinstance(init, (int, float)) and not isinstance(init, bool)):
                value = 0 if init is None else init
                initializer = tf.compat.v1.constant_initializer(
                    int(value) if dtype.startswith(("int", "uint")) else value)
            else:
                initializer = get_initializer(init, key=f"{self.name}/init", seed=self.network.random.randint(2 ** 31))
            var = tf.compat.v1.get_variable(name, shape=shape_ints, dtype=dtype, initializer=initializer,
                                            trainable=trainable)
        self.add_param(var, trainable=trainable, saveable=saveable)
        out = var.read_value() if hasattr(var, "read_value") else tf.identity(var)
        split_info = [split_sizes(d) if isinstance(d, Dim) else [d] for d in shape]
        if all(parts is not None for parts in split_info):  # as the reference: on the param and the raw output
            set_param_axes_split_info(var, split_info)
            set_param_axes_split_info(out, split_info)
        if add_time_axis:
            out = tf.expand_dims(out, 0)
        if add_batch_axis:
            batch = self.network.extern_data.get_batch_info().dim
            out = tf.tile(tf.expand_dims(out, 0), tf.concat([[batch], tf.ones([out.shape.rank], tf.int32)], 0))
        self.output.placeholder = out

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("init_by_layer"), str):
            d["init_by_layer"] = get_layer(d["init_by_layer"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, shape: Any = None, dtype: str = "float32", add_batch_axis: bool = False,
                               add_time_axis: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``shape`` missing or not a sequence of ints/Dims"""
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(d, Dim) or (isinstance(d, int) and not isinstance(d, bool)) for d in shape):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="shape", problem="invalid value",
                                got=shape, expected="a list of ints or Dims, e.g. [512]")
        base = name.split("/")[-1]
        dims: List[Dim] = []
        for i, d in enumerate(shape):
            if isinstance(d, Dim):
                dims.append(d)
            elif i == len(shape) - 1:
                dims.append(FeatureDim(f"{base}:static:{i}", d))
            else:
                dims.append(SpatialDim(f"{base}:static:{i}", d))
        if add_time_axis:
            dims.insert(0, SpatialDim(f"{base}:dummy-time", 1))
        if add_batch_axis:
            dims.insert(0, batch_dim)
        return Tensor(name=f"{base}_output", dims=dims, dtype=dtype, time_dim_axis=None,
                      feature_dim_axis=len(dims) - 1 if dims else None)

    def get_saveable_params_list(self) -> List[tf.Variable]:
        """:return: the param, unless ``saveable=False``"""
        return list(self.params.values()) if self.saveable else []
