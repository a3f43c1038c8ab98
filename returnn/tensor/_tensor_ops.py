"""Elementwise arithmetic on :class:`returnn.tensor.Tensor` s that hold raw tensors (a mixin), as the reference
allows it e.g. in a ``PostprocessingDataset``'s ``map_seq`` (``tdict.data["classes"] += 1337``).

``x + y``, ``-``, ``*``, ``/``, ``//``, ``%``, ``**`` (and the reflected forms; ``x += y`` gives a new Tensor, as
the reference) where ``y`` is a Python/numpy scalar or another Tensor. The result is a new Tensor named after the
operation (``"add"``, ``"sub"``, ``"mul"``, ``"truediv"``, ``"floordiv"``, ``"mod"``, ``"pow"``, as the reference
names it) with ``x``'s dims (for two Tensors: ``x``'s dims, then ``y``'s others; a dim is matched by identity),
``x``'s sparse_dim and the raw result of the operator on the raw tensors. A scalar is cast to ``x``'s dtype first
when the raw tensor is a numpy array (the reference: ``int32 + 1.5`` adds 1). Comparisons are not overloaded
(Tensors stay hashable by identity).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from returnn.errors import TensorArgError

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


def _aligned_raw(x: Tensor, dims: tuple) -> Any:
    """``x``'s raw tensor with axes ordered as in ``dims`` (size-1 axes where ``x`` lacks a dim); numpy only."""
    raw = x.raw_tensor
    if all(a is b for a, b in zip(x.dims, dims)) and len(x.dims) == len(dims):
        return raw
    if not isinstance(raw, np.ndarray):
        raise TensorArgError(f"{x!r} (elementwise op)", "broadcasting over other dims needs numpy raw tensors",
                             got=type(raw).__name__)
    perm = [next(i for i, d in enumerate(x.dims) if d is dim) for dim in dims if any(d is dim for d in x.dims)]
    raw = np.transpose(raw, perm)
    shape, j = [], 0
    for dim in dims:
        if any(d is dim for d in x.dims):
            shape.append(raw.shape[j])
            j += 1
        else:
            shape.append(1)
    return raw.reshape(shape)


def _binary(x: Tensor, other: Any, fn: Callable[[Any, Any], Any], name: str, reflected: bool) -> Tensor:
    from returnn.tensor.tensor import Tensor

    if x.raw_tensor is None:
        raise TensorArgError(f"{x!r} {name}", "needs the raw tensor, but this is a template")
    dims = tuple(x.dims)
    if isinstance(other, Tensor):
        if other.raw_tensor is None:
            raise TensorArgError(f"{other!r} {name}", "needs the raw tensor, but this is a template")
        if other.dtype != x.dtype:
            raise TensorArgError(f"{x!r} {name} {other!r}", "both operands need the same dtype",
                                 got=f"{x.dtype} and {other.dtype}")
        dims = dims + tuple(d for d in other.dims if not any(d is e for e in dims))
        a, b = _aligned_raw(x, dims), _aligned_raw(other, dims)
    else:
        a = x.raw_tensor
        b = np.asarray(other, dtype=x.dtype) if isinstance(a, np.ndarray) else other
    raw = fn(b, a) if reflected else fn(a, b)
    dtype = str(raw.dtype) if isinstance(raw, np.ndarray) else x.dtype
    if isinstance(raw, np.ndarray) and raw.dtype != np.dtype(x.dtype) and dtype.startswith("float"):
        sparse_dim = None
    else:
        sparse_dim = x.sparse_dim
    out = Tensor(name, dims=dims, dtype=dtype, sparse_dim=sparse_dim)
    out.raw_tensor = raw
    return out


def _make(fn: Callable[[Any, Any], Any], name: str, reflected: bool) -> Callable[[Tensor, Any], Tensor]:
    def method(self: Tensor, other: Any) -> Tensor:
        return _binary(self, other, fn, name, reflected)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    method.__doc__ = f"Elementwise ``{name}`` (see :mod:`returnn.tensor._tensor_ops`)."
    return method


class TensorOpsMixin:
    """Elementwise arithmetic operators; mixed into :class:`returnn.tensor.Tensor`."""

    __add__ = _make(operator.add, "add", False)
    __radd__ = _make(operator.add, "add", True)
    __sub__ = _make(operator.sub, "sub", False)
    __rsub__ = _make(operator.sub, "sub", True)
    __mul__ = _make(operator.mul, "mul", False)
    __rmul__ = _make(operator.mul, "mul", True)
    __truediv__ = _make(operator.truediv, "truediv", False)
    __rtruediv__ = _make(operator.truediv, "truediv", True)
    __floordiv__ = _make(operator.floordiv, "floordiv", False)
    __rfloordiv__ = _make(operator.floordiv, "floordiv", True)
    __mod__ = _make(operator.mod, "mod", False)
    __rmod__ = _make(operator.mod, "mod", True)
    __pow__ = _make(operator.pow, "pow", False)
    __rpow__ = _make(operator.pow, "pow", True)
