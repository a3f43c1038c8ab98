"""``{"class": "random", "shape": [batch_dim, F], "distribution": "normal"}``: a fresh random tensor per run.

Shape: the ``shape`` entries in order (:class:`Dim` objects or ints); an int ``n`` at position ``i`` becomes the
static spatial dim ``'<layer>:dim<i>'(n)`` (as the reference). The feature axis is the last axis if it is static
(or the axis of ``feature_dim``); a dynamic dim is the time axis. No sources. Any batch dim in ``shape`` gets the
batch size of the extern data; a dynamic dim gets its size from a layer in ``shape_deps`` that has it (else from its
known lengths). dtype ``float32`` by default.

Distributions (``tf.random.*``): ``"uniform"`` in ``[minval, maxval)`` (defaults 0 and 1; ``bound=b`` means
``[-b, b)``), ``"normal"`` and ``"truncated_normal"`` with ``mean`` (default 0) and ``stddev`` (default 1).
``seed`` fixes the op seed; without it one is drawn from the network's random generator.
``explicit_state`` (a ``variable`` layer holding an int64 Philox state, with ``auto_update_state=True``) draws
with that state and advances it (TF's stateful random ops), e.g. fresh values in each step of a ``rec`` loop.
``static=True`` gives the same values in every run (stateless ops keyed by the seed; no state, no params), e.g.
for ``init_by_layer`` of a ``variable`` layer. Not supported (a clear error): other ``explicit_state`` uses, and
``static`` together with ``explicit_state``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer

_DISTRIBUTIONS = ("uniform", "normal", "truncated_normal")


def check_shape(shape: Any, name: str, layer_class: str) -> None:
    """:raises LayerArgError: ``shape`` is not a list/tuple of Dims and ints"""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, Dim) or (isinstance(d, int) and not isinstance(d, bool)) for d in shape):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="shape", problem="invalid value", got=shape,
                            expected="a list of Dims or ints, e.g. [batch_dim, FeatureDim('feat', 5)]")


def make_out_template(name: str, dims: List[Dim], dtype: str, sparse_dim: Optional[Dim] = None,
                      feature_dim: Optional[Dim] = None) -> Tensor:
    """:return: the output template over ``dims``: feature axis ``feature_dim`` or the last static axis, time axis
    the first dynamic axis"""
    base = name.split("/")[-1]
    time_axis = next((i for i, d in enumerate(dims) if d.is_dynamic()), None)
    if sparse_dim is not None:
        feature_axis = None
    elif feature_dim is not None and feature_dim in dims:
        feature_axis = dims.index(feature_dim)
    elif dims and dims[-1].dimension is not None and not dims[-1].is_batch_dim():
        feature_axis = len(dims) - 1
    else:
        feature_axis = None
    kwargs: Dict[str, Any] = {"sparse_dim": sparse_dim} if sparse_dim is not None else {
        "feature_dim_axis": feature_axis}
    return Tensor(name=f"{base}_output", dims=dims, dtype=dtype, time_dim_axis=time_axis, **kwargs)


def runtime_shape(layer: LayerBase, deps: Sequence[LayerBase]) -> List[Any]:
    """:return: the sizes of ``layer.output.dims``: ints for static dims, int32 scalars otherwise (the batch size of
    the extern data for a batch dim; a dynamic dim's size from a layer of ``deps`` that has it, else the maximum of
    its lengths)"""
    sizes: List[Any] = []
    for d in layer.output.dims:
        if d.dimension is not None:
            sizes.append(d.dimension)
        elif d.is_batch_dim():
            sizes.append(layer.network.extern_data.get_batch_info().dim)
        else:
            size = None
            for dep in deps:
                if d in dep.output.dims and dep.output.placeholder is not None:
                    size = tf.shape(dep.output.placeholder)[dep.output.dims.index(d)]
                    break
            sizes.append(size if size is not None else d.get_dim_value())
    return sizes


def resolve_seed(layer: LayerBase, seed: Optional[int]) -> int:
    """:return: ``seed``, or one drawn from the network's random generator"""
    return seed if seed is not None else layer.network.random.randint(2 ** 31)


_PHILOX = 1  # the algorithm id of Philox in TF's stateful random ops


def _state_variable(layer: Any) -> Any:
    """:return: the resource variable of a ``variable`` layer holding an int64 RNG state, else None"""
    if not isinstance(layer, LayerBase) or len(layer.params) != 1:
        return None
    var = next(iter(layer.params.values()))
    return var if hasattr(var, "handle") and var.dtype.base_dtype == tf.int64 else None


_VALUE_ARGS = ("mean", "stddev", "bound", "minval", "maxval")


def _scalar_value(value: Any) -> Any:
    """:return: ``value``, or for a layer its output (a scalar tensor) as the value"""
    return value.output.placeholder if isinstance(value, LayerBase) else value


def _stateful_sample(var: Any, sizes: List[Any], distribution: str, mean: Any, stddev: Any, bound: Any,
                     minval: Any, maxval: Any, dtype: str) -> tf.Tensor:
    """:return: a sample drawn with (and advancing) the Philox state in ``var``"""
    shape = tf.stack([tf.cast(s, tf.int64) for s in sizes]) if sizes else tf.constant([], tf.int64)
    if distribution == "uniform":
        low, high = (-bound, bound) if bound is not None else ((0 if minval is None else minval),
                                                                (1 if maxval is None else maxval))
        low, high = tf.cast(low, dtype), tf.cast(high, dtype)  # (scalar layers give int tensors)
        x = tf.raw_ops.StatefulUniform(resource=var.handle, algorithm=_PHILOX, shape=shape, dtype=dtype)
        return x * (high - low) + low
    op = tf.raw_ops.StatefulStandardNormalV2 if distribution == "normal" else tf.raw_ops.StatefulTruncatedNormal
    x = op(resource=var.handle, algorithm=_PHILOX, shape=shape, dtype=dtype)
    return x * (1.0 if stddev is None else stddev) + (0.0 if mean is None else mean)


@register_layer
class RandomLayer(LayerBase):
    """Random values of ``shape`` from ``distribution``; see the module docstring."""

    layer_class = "random"

    def __init__(self, shape: Sequence[Any], distribution: str, mean: Optional[float] = None,
                 stddev: Optional[float] = None, bound: Optional[float] = None, minval: Optional[float] = None,
                 maxval: Optional[float] = None, dtype: str = "float32", sparse_dim: Optional[Dim] = None,
                 feature_dim: Optional[Dim] = None, seed: Optional[int] = None, algorithm: Optional[str] = None,
                 explicit_state: Any = None, auto_update_state: Optional[bool] = None, static: Optional[bool] = None,
                 shape_deps: Sequence[LayerBase] = (), stop_grad: bool = False, **kwargs: Any):
        """
        :param shape: the output dims (Dims or ints)
        :param distribution: "uniform", "normal" or "truncated_normal"
        :param mean: normal/truncated_normal: the mean (default 0)
        :param stddev: normal/truncated_normal: the standard deviation (default 1)
        :param bound: uniform: the range ``[-bound, bound)`` (instead of minval/maxval)
        :param minval: uniform: the lower bound, inclusive (default 0)
        :param maxval: uniform: the upper bound, exclusive (default 1); mean, stddev, bound, minval and maxval can
            also be the name of a layer with a scalar output (as the reference)
        :param dtype: the output dtype (default float32)
        :param sparse_dim: makes the output sparse with this dim
        :param feature_dim: the dim of ``shape`` that is the feature axis
        :param seed: the op seed (default: drawn from the network's random generator)
        :param algorithm: accepted and ignored (the TF default generator is used)
        :param explicit_state: a ``variable`` layer (int64, size 3) with the Philox RNG state to draw with
        :param auto_update_state: must be True with ``explicit_state`` (the draw advances the state variable)
        :param static: if True, the same values in every run (a stateless op keyed by the seed), e.g. to
            initialize a ``variable`` layer by it (``init_by_layer``); not with ``explicit_state``
        :param shape_deps: layers whose dims ``shape`` uses (for their sizes; they become dependencies)
        :param stop_grad: accepted; no gradient flows through random values anyway
        """
        super().__init__(**kwargs)
        self.shape_deps = list(shape_deps)
        self.state_layers = [explicit_state] if isinstance(explicit_state, LayerBase) else []
        self.value_layers = [v for v in (mean, stddev, bound, minval, maxval) if isinstance(v, LayerBase)]
        mean, stddev, bound, minval, maxval = (_scalar_value(v) for v in (mean, stddev, bound, minval, maxval))
        if static and explicit_state is not None:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="static", problem="not supported",
                                got=static, expected="None or False with explicit_state")
        state_var = None
        if explicit_state is not None:
            state_var = _state_variable(explicit_state)
            if state_var is None or not auto_update_state:
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="explicit_state",
                                    problem="not supported", got=explicit_state,
                                    expected="a 'variable' layer (int64, size 3, e.g. init_by_layer a "
                                             "'random_state_init' layer) with auto_update_state=True")
        sizes = runtime_shape(self, self.shape_deps)
        float_dtype = dtype if dtype.startswith(("float", "bfloat")) else "float32"
        if state_var is not None:
            self.output.placeholder = tf.cast(
                _stateful_sample(state_var, sizes, distribution, mean, stddev, bound, minval, maxval, float_dtype),
                dtype)
            return
        op_seed = resolve_seed(self, seed)
        # static: a stateless op with a fixed key (the same values in every run, no state), else TF's seeded ops
        seed_kw = {"seed": tf.constant([op_seed, 0], tf.int64)} if static else {"seed": op_seed}
        if distribution == "uniform":
            if bound is not None:
                low, high = -bound, bound
            else:
                low, high = (0 if minval is None else minval), (1 if maxval is None else maxval)
            fn = tf.random.stateless_uniform if static else tf.random.uniform
            value = fn(sizes, minval=low, maxval=high, dtype=dtype if dtype.startswith(("int", "uint")) else float_dtype,
                       **seed_kw)
        else:
            if static:
                fn = tf.random.stateless_normal if distribution == "normal" else tf.random.stateless_truncated_normal
            else:
                fn = tf.random.normal if distribution == "normal" else tf.random.truncated_normal
            value = fn(sizes, mean=0.0 if mean is None else mean, stddev=1.0 if stddev is None else stddev,
                       dtype=float_dtype, **seed_kw)
        self.output.placeholder = tf.cast(value, dtype) if value.dtype != tf.as_dtype(dtype) else value

    def get_dep_layers(self) -> List[LayerBase]:
        """:return: the base deps, ``shape_deps`` and the ``explicit_state`` layer"""
        return super().get_dep_layers() + self.shape_deps + self.state_layers + self.value_layers

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("explicit_state"), str):
            d["explicit_state"] = get_layer(d["explicit_state"])
        for key in _VALUE_ARGS:  # as the reference: a layer name gives the value (a scalar layer)
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])
        deps = d.get("shape_deps") or ()
        d["shape_deps"] = [get_layer(x) if isinstance(x, str) else x
                           for x in ([deps] if isinstance(deps, str) else deps)]

    @classmethod
    def get_out_data_from_opts(cls, name: str, shape: Any = None, distribution: Any = None, dtype: str = "float32",
                               sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``shape`` not a list of Dims/ints, or an unknown ``distribution``"""
        check_shape(shape, name, cls.layer_class)
        if distribution not in _DISTRIBUTIONS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="distribution", problem="invalid value",
                                got=distribution, expected=f"one of {_DISTRIBUTIONS}")
        base = name.split("/")[-1]
        dims = [d if isinstance(d, Dim) else SpatialDim(f"{base}:dim{i}", d) for i, d in enumerate(shape)]
        return make_out_template(name, dims, dtype, sparse_dim=sparse_dim, feature_dim=feature_dim)
