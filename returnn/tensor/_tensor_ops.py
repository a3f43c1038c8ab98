"""Elementwise arithmetic on :class:`returnn.tensor.Tensor` s that hold raw tensors (a mixin), as the reference
allows it e.g. in a ``PostprocessingDataset``'s ``map_seq`` (``tdict.data["classes"] += 1337``).

``x + y``, ``-``, ``*``, ``/``, ``//``, ``%``, ``**`` (and the reflected forms; ``x += y`` gives a new Tensor, as
the reference) where ``y`` is a Python/numpy scalar or another Tensor. The result is a new Tensor named after the
operation (``"add"``, ``"sub"``, ``"mul"``, ``"truediv"``, ``"floordiv"``, ``"mod"``, ``"pow"``, as the reference
names it) with ``x``'s dims (for two Tensors: ``x``'s dims, then ``y``'s others; a dim is matched by identity),
``x``'s sparse_dim and the raw result of the operator on the raw tensors. A scalar is cast to ``x``'s dtype first
when the raw tensor is a numpy array (the reference: ``int32 + 1.5`` adds 1).

On Tensors whose raw tensors are not numpy arrays (TF tensors), the operators are ``returnn.frontend``'s
``rf.combine``. Comparisons ``== != < <= > >=`` are ``rf.compare`` (bool result named ``"equal"``, ...), ``& | ~`` are
the logical ops, ``-x`` and ``abs(x)`` are ``rf.neg``/``rf.abs``. As the reference, ``==`` and ``!=`` with a template
(no raw tensor) or with an object that is neither a Tensor nor a number compare identity (a Python bool), and Tensors
stay hashable by identity.
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


def _rf() -> Any:
    import returnn.frontend as rf  # the operators of non-numpy raw tensors are returnn.frontend's ops
    return rf


def _is_numpy(x: Any) -> bool:
    return isinstance(getattr(x, "raw_tensor", None), np.ndarray)


def _binary(x: Tensor, other: Any, fn: Callable[[Any, Any], Any], name: str, reflected: bool) -> Tensor:
    from returnn.tensor.tensor import Tensor

    if x.raw_tensor is not None and not _is_numpy(x) or isinstance(other, Tensor) and other.raw_tensor is not None \
            and not _is_numpy(other):
        return _rf().combine(other, name, x) if reflected else _rf().combine(x, name, other)
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


def _operand_ok(other: Any) -> bool:
    from returnn.tensor.tensor import Tensor
    if isinstance(other, Tensor):
        return other.raw_tensor is not None
    return isinstance(other, (int, float, bool, np.number, np.bool_, np.ndarray))


def _make_compare(kind: str, identity_fallback: Any) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any) -> Any:
        if self.raw_tensor is None or not _operand_ok(other):
            if identity_fallback is None:
                return NotImplemented
            return identity_fallback(self, other)
        return _rf().compare(self, kind, other)

    method.__name__ = f"__{kind}__"
    method.__doc__ = f"Elementwise ``{kind}`` (``rf.compare``); bool Tensor."
    return method


def _make_logical(kind: str, reflected: bool) -> Callable[[Tensor, Any], Tensor]:
    def method(self: Tensor, other: Any) -> Tensor:
        return _rf().combine(other, kind, self) if reflected else _rf().combine(self, kind, other)

    method.__name__ = f"__{'r' if reflected else ''}{kind}__"
    return method


class TensorCompareMixin:
    """Comparison, logical and unary operators (``returnn.frontend``); mixed into :class:`returnn.tensor.Tensor`."""

    __eq__ = _make_compare("equal", lambda a, b: a is b)
    __ne__ = _make_compare("not_equal", lambda a, b: a is not b)
    __lt__ = _make_compare("less", None)
    __le__ = _make_compare("less_equal", None)
    __gt__ = _make_compare("greater", None)
    __ge__ = _make_compare("greater_equal", None)
    __hash__ = object.__hash__
    __and__ = _make_logical("logical_and", False)
    __rand__ = _make_logical("logical_and", True)
    __or__ = _make_logical("logical_or", False)
    __ror__ = _make_logical("logical_or", True)

    def __invert__(self: Any) -> Any:
        """``rf.logical_not``."""
        return _rf().logical_not(self)

    def __neg__(self: Any) -> Any:
        """``rf.neg``."""
        return _rf().neg(self)

    def __abs__(self: Any) -> Any:
        """``rf.abs``."""
        return _rf().abs(self)


class TensorRunCtxMixin:
    """``mark_as_loss``/``mark_as_output``/``mark_as_default_output``: delegate to ``rf.get_run_ctx()``."""

    def mark_as_loss(self: Any, name: str, *, scale: float = 1.0, as_error: bool = False,
                     use_normalized_loss: bool = False, use_flatten_frames: bool = True,
                     custom_inv_norm_factor: Any = None) -> None:
        """Marks this tensor as a loss (see ``returnn.frontend.run_ctx.RunCtx.mark_as_loss``)."""
        _rf().get_run_ctx().mark_as_loss(self, name, scale=scale, as_error=as_error,
                                         use_normalized_loss=use_normalized_loss,
                                         use_flatten_frames=use_flatten_frames,
                                         custom_inv_norm_factor=custom_inv_norm_factor)

    def mark_as_output(self: Any, name: str, *, shape: Any = None, dims: Any = None) -> None:
        """Marks this tensor as the output ``name`` (see ``RunCtx.mark_as_output``)."""
        _rf().get_run_ctx().mark_as_output(self, name, dims=dims if dims is not None else shape)

    def mark_as_default_output(self: Any, *, shape: Any = None) -> None:
        """Marks this tensor as the output ``"output"``."""
        _rf().get_run_ctx().mark_as_default_output(self, shape=shape)
