"""Constant tensors: ``rf.full``, ``rf.constant``, ``rf.zeros``, ``rf.ones``, ``rf.zeros_like``, ``rf.ones_like``,
``rf.convert_to_tensor``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend._backend import get_selected_backend
from returnn.frontend.dtype import get_default_float_dtype
from returnn.tensor import Dim, Tensor

__all__ = ["full", "fill", "constant", "zeros", "ones", "zeros_like", "ones_like", "convert_to_tensor"]


def full(*, dims: Sequence[Dim], fill_value: Any, dtype: Optional[str] = None, device: Optional[str] = None,
         sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None) -> Tensor:
    """:return: a Tensor of ``dims`` filled with ``fill_value`` (dtype default: from the value; float: the default
    float dtype)"""
    if isinstance(fill_value, Tensor):
        return expand_to(fill_value, dims)
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else "int32" if isinstance(fill_value, int) else \
            get_default_float_dtype()
    backend = get_selected_backend()
    shape = [_utils.dim_value(d, backend) for d in dims]
    return _utils.make_tensor("full", dims, dtype, backend.fill(shape, fill_value, dtype), sparse_dim=sparse_dim,
                              feature_dim=feature_dim)


fill = full


def expand_to(x: Tensor, dims: Sequence[Dim]) -> Tensor:
    """:return: ``x`` broadcast to ``dims`` (which must include all of x's dims)"""
    for d in x.dims:
        if d not in dims:
            raise FrontendError("full", f"fill value {x.name!r} has dim {d!r} not in {_utils.dims_repr(dims)}")
    backend = _utils.backend_of(x)
    return _utils.make_tensor("full", dims, x.dtype, _utils.aligned_raw(x, dims, backend=backend, broadcast=True),
                              sparse_dim=x.sparse_dim)


def constant(fill_value: Any, *, dims: Sequence[Dim] = (), dtype: Optional[str] = None, device: Optional[str] = None,
             sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None) -> Tensor:
    """:return: ``fill_value`` (a scalar) broadcast to ``dims`` (default: a scalar)"""
    return full(dims=dims, fill_value=fill_value, dtype=dtype, sparse_dim=sparse_dim, feature_dim=feature_dim)


def zeros(dims: Sequence[Dim], *, dtype: Optional[str] = None, sparse_dim: Optional[Dim] = None,
          feature_dim: Optional[Dim] = None, device: Optional[str] = None) -> Tensor:
    """:return: zeros of ``dims`` (dtype default: the default float dtype)"""
    return full(dims=dims, fill_value=0, dtype=dtype or get_default_float_dtype(), sparse_dim=sparse_dim,
                feature_dim=feature_dim)


def ones(dims: Sequence[Dim], *, dtype: Optional[str] = None, sparse_dim: Optional[Dim] = None,
         feature_dim: Optional[Dim] = None, device: Optional[str] = None) -> Tensor:
    """:return: ones of ``dims`` (dtype default: the default float dtype)"""
    return full(dims=dims, fill_value=1, dtype=dtype or get_default_float_dtype(), sparse_dim=sparse_dim,
                feature_dim=feature_dim)


def zeros_like(x: Tensor) -> Tensor:
    """:return: zeros with x's dims, dtype and sparse dim"""
    return _like(x, 0)


def ones_like(x: Tensor) -> Tensor:
    """:return: ones with x's dims, dtype and sparse dim"""
    return _like(x, 1)


def _like(x: Tensor, value: Any) -> Tensor:
    backend = _utils.backend_of(x)
    if x.raw_tensor is not None:
        _utils.register_dim_values(x, backend)
        shape = backend.shape_of(x.raw_tensor)
    else:
        shape = [_utils.dim_value(d, backend) for d in x.dims]
    return _utils.make_tensor("full", x.dims, x.dtype, backend.fill(shape, value, x.dtype), sparse_dim=x.sparse_dim,
                              feature_dim=x.feature_dim)


def convert_to_tensor(value: Any, *, dims: Optional[Sequence[Dim]] = None, dtype: Optional[str] = None,
                      sparse_dim: Optional[Dim] = None, feature_dim: Optional[Dim] = None, shape: Any = None,
                      device: Optional[str] = None, keep_scalar_on_cpu: bool = False, name: Optional[str] = None,
                      _backend: Any = None) -> Tensor:
    """:return: ``value`` as a Tensor: a Tensor as is; a Python/numpy scalar or array, or a raw tensor, with ``dims``
    (default: none, for a scalar)

    :raises FrontendError: the value's rank differs from the number of ``dims``
    """
    if isinstance(value, Tensor):
        return value
    if dims is None:
        dims = shape if shape is not None else ()
    backend = _backend or get_selected_backend()
    if isinstance(backend, type):  # a backend class, as the reference passes it (rf._numpy_backend.NumpyBackend)
        from returnn.frontend._backend import get_backend_by_name
        backend = get_backend_by_name(backend.name)
    if dtype is None:
        if isinstance(value, (bool, np.bool_)):
            dtype = "bool"
        elif isinstance(value, (int, np.integer)) and not isinstance(value, np.integer):
            dtype = "int32"
        elif isinstance(value, float):
            dtype = get_default_float_dtype()
        elif hasattr(value, "dtype"):
            dtype = getattr(value.dtype, "name", str(value.dtype))
        else:
            arr = np.asarray(value)
            dtype = "int32" if arr.dtype.kind == "i" else get_default_float_dtype() if arr.dtype.kind == "f" else \
                str(arr.dtype)
    raw = backend.convert(value, dtype)
    if backend.ndim_of(raw) != len(dims):
        raise FrontendError("convert_to_tensor", f"the value has {backend.ndim_of(raw)} axes, but "
                                                 f"{len(dims)} dims were given: {_utils.dims_repr(dims)}")
    return _utils.make_tensor(name or "convert_to_tensor", dims, dtype, raw, sparse_dim=sparse_dim,
                              feature_dim=feature_dim)
