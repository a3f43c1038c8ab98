"""Dims bookkeeping shared by the ``returnn.frontend`` operations: the dims of a result, the raw tensor of an input
with its axes in a given order, the size of a dim as a raw value, the error naming a missing dim."""

from __future__ import annotations

import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend._backend import Backend, get_backend_by_raw, get_backend_for, get_selected_backend
from returnn.tensor import Dim, Tensor

__all__ = ["dims_repr", "check_dims", "axes_of", "index_of", "aligned_raw", "make_tensor", "dim_value", "out_dims_of",
           "backend_of", "to_tensor", "raw_shape", "as_dims", "register_dim_values"]


def dims_repr(dims: Sequence[Dim]) -> str:
    """:return: e.g. ``(batch, 'time'[B], 'in'(9))``"""
    return "(" + ", ".join(repr(d) for d in dims) + ")"


def as_dims(axis: Union[Dim, Sequence[Dim]]) -> List[Dim]:
    """:return: ``axis`` as a list of dims (one Dim or a sequence)"""
    return [axis] if isinstance(axis, Dim) else list(axis)


def check_dims(call: str, x: Tensor, dims: Sequence[Dim]) -> None:
    """:raises FrontendError: one of ``dims`` is not a dim of ``x`` (names the dim and the tensor's dims)"""
    for d in dims:
        if not isinstance(d, Dim):
            raise FrontendError(call, f"expected a Dim, got {type(d).__name__}", got=d)
        if d not in x.dims:
            raise FrontendError(call, f"dim {d!r} is not a dim of {x.name!r}", expected=f"one of {dims_repr(x.dims)}",
                                got=d)


def axes_of(call: str, x: Tensor, dims: Sequence[Dim]) -> List[int]:
    """:return: the axes of ``dims`` in ``x`` (checked with :func:`check_dims`)"""
    check_dims(call, x, dims)
    used: List[int] = []
    for d in dims:
        used.append(index_of(x.dims, d, used))
    return used


def index_of(dims: Sequence[Dim], d: Dim, used: Sequence[int] = ()) -> int:
    """:return: the axis of ``d`` in ``dims``: the identical dim if there is one, else among the equal ones (not in
    ``used``) the one with the highest match priority (a square weight ``[in', in]`` keeps its two axes apart)"""
    for i, e in enumerate(dims):
        if e is d and i not in used:
            return i
    best = -1
    for i, e in enumerate(dims):
        if i not in used and e == d and (best < 0 or e.match_priority > dims[best].match_priority):
            best = i
    if best < 0:
        raise ValueError(f"{d!r} not in {dims!r}")
    return best


def backend_of(*tensors: Any) -> Backend:
    """:return: the backend of the tensors' raw tensors (a framework one wins over numpy), else the selected one"""
    return get_backend_for(*tensors)


def to_tensor(call: str, value: Any, *, like: Optional[Tensor] = None, dtype: Optional[str] = None,
              backend: Optional[Backend] = None) -> Tensor:
    """:return: ``value`` as a Tensor: a Tensor as is; a scalar (Python/numpy) as a scalar Tensor of ``dtype`` (else
    ``like``'s dtype, else the value's own); a raw tensor of a backend as a Tensor without dims (scalar only)

    :raises FrontendError: a Tensor without a raw tensor (a template), or a non-scalar raw value
    """
    if isinstance(value, Tensor):
        if value.raw_tensor is None:
            raise FrontendError(call, f"{value!r} has no raw tensor (a template, not a value)")
        return value
    if dtype is None and like is not None:
        dtype = like.dtype
    if dtype is None:
        dtype = _python_dtype(value)
    backend = backend or (backend_of(like) if like is not None else get_selected_backend())
    raw = backend.convert(value, dtype)
    if backend.ndim_of(raw) != 0:
        raise FrontendError(call, "a raw value with axes needs dims (use rf.convert_to_tensor(value, dims=...))",
                            got=value)
    return Tensor("const", dims=(), dtype=dtype, raw_tensor=raw)


def _python_dtype(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int32"
    if isinstance(value, float):
        return "float32"
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return str(getattr(dtype, "name", dtype))
    raise FrontendError("convert_to_tensor", "cannot tell the dtype of this value", got=value)


def out_dims_of(call: str, sources: Sequence[Tensor], *, allow_broadcast_all_sources: Optional[bool] = None,
                dim_order: Optional[Sequence[Dim]] = None) -> List[Dim]:
    """The dims of an elementwise result: the first source's dims, then the others' new ones in their order.

    :raises FrontendError: no source has all result dims (each lacks one) and ``allow_broadcast_all_sources`` is
        not True, as the reference
    """
    dims: List[Dim] = []
    for x in sources:
        for d in x.dims:
            if d not in dims:
                dims.append(d)
    if allow_broadcast_all_sources is not True and len(sources) > 1 and dims:
        if not any(len(x.dims) == len(dims) for x in sources):
            raise FrontendError(call, "every source lacks some dim of the result; pass "
                                      "allow_broadcast_all_sources=True if that is intended",
                                got=", ".join(f"{x.name!r} {dims_repr(x.dims)}" for x in sources))
    if dim_order is not None:
        dims = sorted(dims, key=lambda d: dim_order.index(d) if d in dim_order else len(dim_order))
    return dims


def aligned_raw(x: Tensor, out_dims: Sequence[Dim], *, backend: Optional[Backend] = None,
                broadcast: bool = False) -> Any:
    """:return: the raw tensor of ``x`` with its axes in the order of ``out_dims`` (size-1 axes for the dims ``x``
    lacks; with ``broadcast``, expanded to the full sizes)

    :raises FrontendError: ``x`` has a dim that is not in ``out_dims``
    """
    backend = backend or backend_of(x)
    raw = x.raw_tensor
    if backend.name != "numpy" and not backend.is_raw(raw):
        raw = backend.convert(raw, x.dtype)
    register_dim_values(x, backend)
    for d in x.dims:
        if d not in out_dims:
            raise FrontendError("(align)", f"{x.name!r} has dim {d!r}, which is not among {dims_repr(out_dims)}")
    perm: List[int] = []
    for d in out_dims:
        if d in x.dims and len(perm) < len(x.dims):
            perm.append(index_of(x.dims, d, perm))
    if perm != list(range(len(perm))):
        raw = backend.transpose(raw, perm)
    if len(x.dims) != len(out_dims):
        shape, full = raw_shape(x, perm, out_dims, backend, broadcast)
        raw = backend.reshape(raw, shape)
        if broadcast:
            raw = backend.broadcast_to(raw, full)
    return raw


def raw_shape(x: Tensor, perm: Sequence[int], out_dims: Sequence[Dim], backend: Backend, broadcast: bool
              ) -> Tuple[List[Any], List[Any]]:
    """:return: (shape with 1 for the missing dims, full shape of ``out_dims``)"""
    own = backend.shape_of(x.raw_tensor)
    own = [own[i] for i in perm]
    shape, full, j = [], [], 0
    for d in out_dims:
        if d in x.dims:
            shape.append(own[j])
            full.append(own[j])
            j += 1
        else:
            shape.append(1)
            full.append(dim_value(d, backend) if broadcast else 1)
    return shape, full


def make_tensor(name: str, dims: Sequence[Dim], dtype: str, raw: Any, *, sparse_dim: Optional[Dim] = None,
                feature_dim: Optional[Dim] = None) -> Tensor:
    """:return: a new Tensor around ``raw``"""
    if sparse_dim is not None and not (dtype.startswith("int") or dtype.startswith("uint")):
        sparse_dim = None
    return Tensor(name, dims=list(dims), dtype=dtype, sparse_dim=sparse_dim,
                  feature_dim=feature_dim if feature_dim is not None and feature_dim in dims else None,
                  raw_tensor=raw)


_dim_values: "weakref.WeakKeyDictionary[Any, Dict[int, Any]]" = weakref.WeakKeyDictionary()


def _values_cache(backend: Backend) -> Optional[Dict[int, Any]]:
    key = backend.cache_key()
    if key is None:
        return None
    cache = _dim_values.get(key)
    if cache is None:
        cache = _dim_values[key] = {}
    return cache


def register_dim_values(x: Tensor, backend: Optional[Backend] = None) -> None:
    """Records the sizes of ``x``'s batch and dynamic dims (from its raw shape) for the backend's current graph, so
    that later ops that create these dims (``rf.zeros([batch_dim])``) know their size."""
    if x.raw_tensor is None:
        return
    backend = backend or backend_of(x)
    cache = _values_cache(backend)
    if cache is None:
        return
    shape = None
    for i, d in enumerate(x.dims):
        if d.dimension is not None:
            continue
        key = id(d.get_same_base())
        if key not in cache:
            if shape is None:
                shape = backend.shape_of(x.raw_tensor)
            cache[key] = (d.get_same_base(), shape[i])


def dim_value(dim: Dim, backend: Optional[Backend] = None) -> Any:
    """:return: the size of ``dim``: its static int, else a raw int32 scalar (the maximum of its lengths, or the
    size seen on a raw tensor with this dim in the current graph)

    :raises FrontendError: a dynamic dim whose size is unknown here
    """
    if dim.dimension is not None:
        return dim.dimension
    backend = backend or get_selected_backend()
    cache = _values_cache(backend)
    base = dim.get_same_base()
    if cache is not None and id(base) in cache:
        return cache[id(base)][1]
    ext = dim.dyn_size_ext if not dim.is_batch_dim() else getattr(base, "dyn_size_ext", None)
    raw = None if ext is None else ext.raw_tensor
    if raw is not None:
        raw_backend = get_backend_by_raw(raw)
        value = raw_backend.reduce(raw, "max", list(range(raw_backend.ndim_of(raw)))) if ext.dims else raw
        if cache is not None:
            cache[id(base)] = (base, value)
        return value
    raise FrontendError("dim_value", f"the size of {dim!r} is not known here",
                        hint="a dynamic dim gets its size from its lengths (dyn_size_ext) or from a tensor with "
                             "this dim that was used before in this graph")
