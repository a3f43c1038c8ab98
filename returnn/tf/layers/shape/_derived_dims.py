"""Dims derived from other dims by arithmetic (``T * 2``, ``F // 2``, ``ceildiv(T, 3)``, ``T + 1``), as the
reference writes and caches them.

The reference's ``Dim`` supports arithmetic; these helpers give the same results for the forms the layers need,
observed from the reference:

- descriptions: ``'feature:data//2'``, ``'time*2'``, ``'2*time'``, ``'time+-1'``, ``'⌈time/2⌉'``, and an operand
  that is itself derived is put in parentheses inside ``*``, ``//`` and ``⌈/⌉`` (``'(time+1)*2'``,
  ``'⌈(time+-3)/2⌉'``), not inside ``+`` (``'time*2+1'``);
- simplification: constants added in a row are summed (``T + -2 + 1 -> 'time+-1'``), ``(T * n) // n`` is ``T``,
  chained ``//`` and ``⌈/⌉`` multiply their divisors, chained ``*`` multiply their factors, ``+0``/``*1``/``//1``
  are the operand itself;
- the same expression on the same dim gives the *same* Dim object (cached on the operand, per TF graph), so two
  layers that both compute ``F // 2`` of one input agree on their output dim;
- the static size follows the arithmetic; a dynamic derived dim gets its per-sequence lengths lazily from the
  operand's lengths (``dyn_size_fn``).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Tuple

import tensorflow as tf

from returnn.tensor import Dim

_CACHE_ATTR = "_derived_dims_cache"


def _cache(dim: Dim) -> dict:
    """:return: the derived dims of ``dim`` made in the current graph (a dim reused in a new graph, e.g. a Dim of
    the config, gets new derived dims there, whose lengths are computed in that graph)"""
    base = dim.get_same_base()
    caches = base.__dict__.get(_CACHE_ATTR)
    if caches is None:
        caches = {}
        setattr(base, _CACHE_ATTR, caches)
    graph = tf.compat.v1.get_default_graph()
    if caches.get("graph") is not graph:
        caches.clear()
        caches["graph"] = graph
    return caches


def _origin(dim: Dim) -> Optional[Tuple[str, Dim, Any]]:
    """:return: ``(op, operand, arg)`` if ``dim`` was made by this module"""
    return dim.get_same_base().__dict__.get("_derived_from") or dim.__dict__.get("_derived_from")


def _desc(dim: Dim, *, as_operand: bool) -> str:
    desc = dim.get_same_base().description
    if as_operand and _origin(dim) is not None:
        return f"({desc})"
    return desc


def _make(operand: Dim, op: str, arg: Any, description: str, dimension: Optional[int],
          size_fn: Callable[[tf.Tensor], tf.Tensor], kind: Any = None) -> Dim:
    key = (op, arg if not isinstance(arg, Dim) else id(arg.get_same_base()))
    cache = _cache(operand)
    if key in cache:
        return cache[key]
    new = Dim(dimension, description=description, kind=kind or operand.kind)
    new._derived_from = (op, operand, arg)  # noqa: SLF001
    if dimension is None and not operand.is_batch_dim():
        def dyn_size() -> Optional[tf.Tensor]:
            size = operand.dyn_size
            return None if size is None else size_fn(size)
        new.dyn_size_fn = dyn_size
    cache[key] = new
    return new


def dim_add(dim: Dim, amount: int) -> Dim:
    """:return: ``dim + amount`` (``'time+1'``, ``'time+-1'``)"""
    if amount == 0:
        return dim
    origin = _origin(dim)
    if origin is not None and origin[0] == "add":
        return dim_add(origin[1], origin[2] + amount)
    desc = _desc(dim, as_operand=False)
    if origin is not None and origin[0] == "add_left":  # -r+(x+c) + a: the constants on the right are summed
        inner = _origin(origin[1])
        if inner is not None and inner[0] == "add":
            return dim_add_left(dim_add(inner[1], inner[2] + amount), origin[2])
        desc = f"({desc})"
    dimension = None if dim.dimension is None else dim.dimension + amount
    return _make(dim, "add", amount, f"{desc}+{amount}", dimension, lambda size: size + amount)


def dim_add_left(dim: Dim, amount: int) -> Dim:
    """:return: ``amount + dim`` (``'1+time'``, ``'-1+time'``)"""
    if amount == 0:
        return dim
    dimension = None if dim.dimension is None else dim.dimension + amount
    return _make(dim, "add_left", amount, f"{amount}+{_desc(dim, as_operand=False)}", dimension,
                 lambda size: size + amount)


def dim_mul(dim: Dim, factor: int) -> Dim:
    """:return: ``dim * factor`` (``'time*2'``)"""
    if factor == 1:
        return dim
    origin = _origin(dim)
    if origin is not None and origin[0] == "mul":
        return dim_mul(origin[1], origin[2] * factor)
    dimension = None if dim.dimension is None else dim.dimension * factor
    return _make(dim, "mul", factor, f"{_desc(dim, as_operand=True)}*{factor}", dimension,
                 lambda size: size * factor)


def dim_mul_left(dim: Dim, factor: int) -> Dim:
    """:return: ``factor * dim`` (``'2*time'``)"""
    if factor == 1:
        return dim
    dimension = None if dim.dimension is None else dim.dimension * factor
    return _make(dim, "mul_left", factor, f"{factor}*{_desc(dim, as_operand=True)}", dimension,
                 lambda size: size * factor)


def dim_floordiv(dim: Dim, divisor: int) -> Dim:
    """:return: ``dim // divisor`` (``'feature:data//2'``); ``(d * n) // n`` is ``d``"""
    if divisor == 1:
        return dim
    origin = _origin(dim)
    if origin is not None and origin[0] == "mul" and origin[2] == divisor:
        return origin[1]
    if origin is not None and origin[0] == "floordiv":
        return dim_floordiv(origin[1], origin[2] * divisor)
    dimension = None if dim.dimension is None else dim.dimension // divisor
    return _make(dim, "floordiv", divisor, f"{_desc(dim, as_operand=True)}//{divisor}", dimension,
                 lambda size: size // divisor)


def dim_ceildiv(dim: Dim, divisor: int) -> Dim:
    """:return: ``ceil(dim / divisor)`` (``'⌈time/2⌉'``)"""
    if divisor == 1:
        return dim
    origin = _origin(dim)
    if origin is not None and origin[0] == "mul" and origin[2] == divisor:
        return origin[1]
    if origin is not None and origin[0] == "ceildiv":
        return dim_ceildiv(origin[1], origin[2] * divisor)
    dimension = None if dim.dimension is None else -(-dim.dimension // divisor)
    return _make(dim, "ceildiv", divisor, f"⌈{_desc(dim, as_operand=True)}/{divisor}⌉", dimension,
                 lambda size: -(-size // divisor))


def dim_sum(first: Dim, second: Dim) -> Dim:
    """:return: ``first + second`` (``'a+b'``; ``d + d`` is ``2*d``)"""
    if first == second:
        return dim_mul_left(first, 2)
    dimension = None if first.dimension is None or second.dimension is None else first.dimension + second.dimension

    def size_fn(size: tf.Tensor) -> tf.Tensor:
        other = second.dyn_size if second.dimension is None else second.dimension
        return size + other

    return _make(first, "sum", second, f"{_desc(first, as_operand=False)}+{_desc(second, as_operand=False)}",
                 dimension, size_fn, kind=_kind_of_pair(first, second))


def dim_product(first: Dim, second: Dim) -> Dim:
    """:return: ``first * second`` (``'a*b'``; a feature kind if either is a feature dim)"""
    dimension = None if first.dimension is None or second.dimension is None else first.dimension * second.dimension

    def size_fn(size: tf.Tensor) -> tf.Tensor:
        other = second.dyn_size if second.dimension is None else second.dimension
        return size * other

    return _make(first, "product", second, f"{_desc(first, as_operand=True)}*{_desc(second, as_operand=True)}",
                 dimension, size_fn, kind=_kind_of_pair(first, second))


def _kind_of_pair(first: Dim, second: Dim) -> Any:
    if first.is_feature_dim() or second.is_feature_dim():
        return Dim.Types.Feature
    return first.kind
