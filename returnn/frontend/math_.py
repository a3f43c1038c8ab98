"""Elementwise math: ``rf.combine``/``rf.compare`` (binary ops with broadcasting by dims) and the unary functions.

The result of a binary op has the dims of the first operand, then the other's dims that the first lacks (matched by
``Dim`` equality), unless ``dim_order`` is given. A Python or numpy scalar takes the dtype of the Tensor operand.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = [
    "combine", "compare", "combine_bc", "compare_bc", "add", "sub", "mul", "true_divide", "floor_divide", "mod",
    "pow", "neg", "abs", "maximum", "minimum", "clip_by_value", "squared_difference", "logical_and", "logical_or",
    "logical_not", "opt_logical_and", "opt_logical_or", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "is_finite", "is_infinite", "is_neg_infinite", "exp", "expm1", "log", "log1p", "safe_log",
    "sqrt", "rsqrt", "square", "sin", "cos", "tanh", "sigmoid", "log_sigmoid", "relu", "relu_square", "elu", "selu",
    "gelu", "silu", "swish", "softplus", "floor", "ceil", "round", "reciprocal", "softmax", "log_softmax", "gating",
    "lerp", "ceil_divide", "identity", "cast", "log_add_exp",
]

_COMBINE_KINDS = {
    "+": "add", "add": "add", "-": "sub", "sub": "sub", "*": "mul", "mul": "mul", "/": "truediv",
    "truediv": "truediv", "true_divide": "truediv", "//": "floordiv", "floordiv": "floordiv",
    "floor_divide": "floordiv", "%": "mod", "mod": "mod", "**": "pow", "pow": "pow", "max": "maximum",
    "maximum": "maximum", "min": "minimum", "minimum": "minimum", "squared_difference": "squared_difference",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
}
_COMPARE_KINDS = {
    "==": "equal", "equal": "equal", "!=": "not_equal", "<>": "not_equal", "not_equal": "not_equal",
    "<": "less", "less": "less", "<=": "less_equal", "less_equal": "less_equal", ">": "greater",
    "greater": "greater", ">=": "greater_equal", "greater_equal": "greater_equal",
}


def _operands(call: str, a: Any, b: Any) -> tuple:
    """:return: (a, b) as Tensors; a scalar takes the other operand's dtype"""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise FrontendError(call, "needs at least one Tensor operand", got=f"{type(a).__name__}, {type(b).__name__}")
    if not isinstance(a, Tensor):
        a = _utils.to_tensor(call, a, like=b)
    if not isinstance(b, Tensor):
        b = _utils.to_tensor(call, b, like=a)
    for x in (a, b):
        if x.raw_tensor is None:
            raise FrontendError(call, f"{x!r} has no raw tensor (a template, not a value)")
    return a, b


def _binary(call: str, a: Any, kind: str, b: Any, *, compare: bool, allow_broadcast_all_sources: Optional[bool],
            dim_order: Optional[Sequence[Dim]]) -> Tensor:
    a, b = _operands(call, a, b)
    if a.dtype != b.dtype:
        raise FrontendError(call, f"both operands need the same dtype; {a.name!r} is {a.dtype}, {b.name!r} is "
                                  f"{b.dtype}", hint="use rf.cast first")
    if kind.startswith("logical_") and a.dtype != "bool":
        raise FrontendError(call, f"needs bool operands, got {a.dtype}")
    dims = _utils.out_dims_of(call, [a, b], allow_broadcast_all_sources=allow_broadcast_all_sources,
                              dim_order=dim_order)
    backend = _utils.backend_of(a, b)
    ra, rb = _utils.aligned_raw(a, dims, backend=backend), _utils.aligned_raw(b, dims, backend=backend)
    if compare:
        return _utils.make_tensor(kind, dims, "bool", backend.compare(ra, kind, rb))
    raw = backend.combine(ra, kind, rb)
    sparse_dim = a.sparse_dim or b.sparse_dim if kind in ("add", "sub", "mul", "maximum", "minimum", "floordiv",
                                                             "mod") else None
    return _utils.make_tensor(kind, dims, a.dtype, raw, sparse_dim=sparse_dim,
                              feature_dim=a.feature_dim or b.feature_dim)


def combine(a: Union[Tensor, Any], kind: str, b: Union[Tensor, Any], *,
            allow_broadcast_all_sources: Optional[bool] = None, dim_order: Optional[Sequence[Dim]] = None) -> Tensor:
    """Binary elementwise op.

    :param kind: ``"add"``/``"+"``, ``"sub"``/``"-"``, ``"mul"``/``"*"``, ``"truediv"``/``"/"``, ``"floordiv"``/
        ``"//"``, ``"mod"``/``"%"``, ``"pow"``/``"**"``, ``"maximum"``, ``"minimum"``, ``"squared_difference"``,
        ``"logical_and"``, ``"logical_or"``
    :return: dims: a's, then b's others (or ``dim_order``); dtype: the operands' (both the same)
    :raises FrontendError: unknown kind, different dtypes, every operand lacking a dim of the result
    """
    if kind not in _COMBINE_KINDS:
        raise FrontendError("combine", f"unknown kind {kind!r}", expected=", ".join(sorted(set(_COMBINE_KINDS))))
    kind = _COMBINE_KINDS[kind]
    return _binary("combine", a, kind, b, compare=False, allow_broadcast_all_sources=allow_broadcast_all_sources,
                   dim_order=dim_order)


def compare(a: Union[Tensor, Any], kind: str, b: Union[Tensor, Any], *,
            allow_broadcast_all_sources: Optional[bool] = None, dim_order: Optional[Sequence[Dim]] = None) -> Tensor:
    """Elementwise comparison (``kind``: ``"equal"``/``"=="``, ``"not_equal"``/``"!="``, ``"less"``/``"<"``,
    ``"less_equal"``, ``"greater"``, ``"greater_equal"``). :return: bool Tensor, dims as :func:`combine`"""
    if kind not in _COMPARE_KINDS:
        raise FrontendError("compare", f"unknown kind {kind!r}", expected=", ".join(sorted(set(_COMPARE_KINDS))))
    return _binary("compare", a, _COMPARE_KINDS[kind], b, compare=True,
                   allow_broadcast_all_sources=allow_broadcast_all_sources, dim_order=dim_order)


def combine_bc(a: Any, kind: str, b: Any, *, dim_order: Optional[Sequence[Dim]] = None) -> Tensor:
    """:func:`combine` with ``allow_broadcast_all_sources=True``."""
    return combine(a, kind, b, allow_broadcast_all_sources=True, dim_order=dim_order)


def compare_bc(a: Any, kind: str, b: Any, *, dim_order: Optional[Sequence[Dim]] = None) -> Tensor:
    """:func:`compare` with ``allow_broadcast_all_sources=True``."""
    return compare(a, kind, b, allow_broadcast_all_sources=True, dim_order=dim_order)


def _binary_fn(kind: str, doc: str) -> Any:
    def fn(a: Any, b: Any) -> Tensor:
        return combine(a, kind, b)
    fn.__name__ = fn.__qualname__ = kind if kind not in ("truediv", "floordiv") else \
        {"truediv": "true_divide", "floordiv": "floor_divide"}[kind]
    fn.__doc__ = f"Elementwise {doc} (:func:`combine` with kind {kind!r})."
    return fn


add = _binary_fn("add", "a + b")
sub = _binary_fn("sub", "a - b")
mul = _binary_fn("mul", "a * b")
true_divide = _binary_fn("truediv", "a / b")
floor_divide = _binary_fn("floordiv", "a // b")
mod = _binary_fn("mod", "a % b")
pow = _binary_fn("pow", "a ** b")  # noqa: A001 (the reference's name)
squared_difference = _binary_fn("squared_difference", "(a - b) ** 2")
logical_and = _binary_fn("logical_and", "a and b (bool)")
logical_or = _binary_fn("logical_or", "a or b (bool)")


def maximum(a: Any, b: Any, *other: Any) -> Tensor:
    """Elementwise maximum of two or more operands."""
    out = combine(a, "maximum", b)
    for x in other:
        out = combine(out, "maximum", x)
    return out


def minimum(a: Any, b: Any, *other: Any) -> Tensor:
    """Elementwise minimum of two or more operands."""
    out = combine(a, "minimum", b)
    for x in other:
        out = combine(out, "minimum", x)
    return out


def _compare_fn(kind: str) -> Any:
    def fn(a: Any, b: Any) -> Tensor:
        return compare(a, kind, b)
    fn.__name__ = fn.__qualname__ = kind
    fn.__doc__ = f"Elementwise comparison (:func:`compare` with kind {kind!r}); bool result."
    return fn


equal = _compare_fn("equal")
not_equal = _compare_fn("not_equal")
less = _compare_fn("less")
less_equal = _compare_fn("less_equal")
greater = _compare_fn("greater")
greater_equal = _compare_fn("greater_equal")


def opt_logical_and(a: Any, b: Any) -> Any:
    """``a and b`` where either may be a Python bool (then simplified) or a bool Tensor."""
    if isinstance(a, bool):
        return b if a else False
    if isinstance(b, bool):
        return a if b else False
    return logical_and(a, b)


def opt_logical_or(a: Any, b: Any) -> Any:
    """``a or b`` where either may be a Python bool (then simplified) or a bool Tensor."""
    if isinstance(a, bool):
        return True if a else b
    if isinstance(b, bool):
        return True if b else a
    return logical_or(a, b)


def _unary(call: str, x: Tensor, func: str, *, out_dtype: Optional[str] = None, need_float: bool = False) -> Tensor:
    if not isinstance(x, Tensor):
        raise FrontendError(call, "expected a Tensor", got=x)
    if x.raw_tensor is None:
        raise FrontendError(call, f"{x!r} has no raw tensor (a template, not a value)")
    if need_float and not x.dtype.startswith(("float", "bfloat", "complex")):
        raise FrontendError(call, f"needs a float tensor, {x.name!r} is {x.dtype}")
    backend = _utils.backend_of(x)
    raw = backend.activation(_utils.aligned_raw(x, x.dims, backend=backend), func)
    dtype = out_dtype or x.dtype
    if func == "abs" and dtype.startswith("complex"):
        dtype = "float64" if dtype == "complex128" else "float32"
    return _utils.make_tensor(func, x.dims, dtype, raw, sparse_dim=x.sparse_dim if func in ("neg", "abs") else None,
                              feature_dim=x.feature_dim)


def _unary_fn(func: str, doc: str, *, need_float: bool = True, out_dtype: Optional[str] = None) -> Any:
    def fn(x: Tensor) -> Tensor:
        return _unary(func, x, func, need_float=need_float, out_dtype=out_dtype)
    fn.__name__ = fn.__qualname__ = func
    fn.__doc__ = f"Elementwise {doc}; same dims{'' if out_dtype else ' and dtype'}."
    return fn


neg = _unary_fn("neg", "-x", need_float=False)
abs = _unary_fn("abs", "|x|", need_float=False)  # noqa: A001 (the reference's name)
exp = _unary_fn("exp", "exp(x)")
expm1 = _unary_fn("expm1", "exp(x) - 1")
log = _unary_fn("log", "natural logarithm")
log1p = _unary_fn("log1p", "log(1 + x)")
safe_log = _unary_fn("safe_log", "log(max(x, tiny)) (finite for x = 0)")
sqrt = _unary_fn("sqrt", "square root")
rsqrt = _unary_fn("rsqrt", "1 / sqrt(x)")
square = _unary_fn("square", "x ** 2", need_float=False)
sin = _unary_fn("sin", "sine")
cos = _unary_fn("cos", "cosine")
tanh = _unary_fn("tanh", "tanh")
sigmoid = _unary_fn("sigmoid", "1 / (1 + exp(-x))")
log_sigmoid = _unary_fn("log_sigmoid", "log(sigmoid(x))")
relu = _unary_fn("relu", "max(x, 0)")
relu_square = _unary_fn("relu_square", "max(x, 0) ** 2")
elu = _unary_fn("elu", "ELU")
selu = _unary_fn("selu", "SELU")
silu = _unary_fn("silu", "x * sigmoid(x)")
swish = _unary_fn("swish", "x * sigmoid(x) (the same as silu)")
softplus = _unary_fn("softplus", "log(1 + exp(x))")
floor = _unary_fn("floor", "floor")
ceil = _unary_fn("ceil", "ceil")
round = _unary_fn("round", "round half to even")  # noqa: A001 (the reference's name)
reciprocal = _unary_fn("reciprocal", "1 / x")
is_finite = _unary_fn("is_finite", "finiteness test", out_dtype="bool")
is_infinite = _unary_fn("is_infinite", "test for +-inf", out_dtype="bool")
is_neg_infinite = _unary_fn("is_neg_infinite", "test for -inf", out_dtype="bool")


def logical_not(x: Tensor) -> Tensor:
    """Elementwise not of a bool Tensor."""
    if isinstance(x, Tensor) and x.dtype != "bool":
        raise FrontendError("logical_not", f"needs a bool tensor, {x.name!r} is {x.dtype}")
    return _unary("logical_not", x, "logical_not")


def gelu(x: Tensor, *, approximate: bool = False) -> Tensor:
    """GELU: exact (erf) or the tanh approximation."""
    return _unary("gelu", x, "gelu_tanh" if approximate else "gelu", need_float=True)


def clip_by_value(x: Tensor, clip_value_min: Any, clip_value_max: Any, *,
                  allow_broadcast_all_sources: bool = False) -> Tensor:
    """:return: x clipped to [min, max] (scalars or Tensors whose dims are among x's)"""
    return minimum(maximum(x, clip_value_min), clip_value_max)


def _softmax(call: str, x: Tensor, axis: Dim, log: bool, use_mask: bool) -> Tensor:
    from returnn.frontend.dims import mask_value
    _utils.check_dims(call, x, [axis])
    if use_mask and axis.need_masking():
        x = mask_value(x, axis, float("-inf"))
    backend = _utils.backend_of(x)
    raw = backend.softmax(_utils.aligned_raw(x, x.dims, backend=backend), x.dims.index(axis), log)
    out = _utils.make_tensor(call, x.dims, x.dtype, raw, feature_dim=x.feature_dim)
    return out


def softmax(x: Tensor, *, axis: Dim, use_mask: bool = True) -> Tensor:
    """Softmax over ``axis`` (padded frames of a dynamic ``axis`` get probability 0). Same dims as ``x``."""
    return _softmax("softmax", x, axis, False, use_mask)


def log_softmax(x: Tensor, *, axis: Dim, use_mask: bool = True) -> Tensor:
    """Log-softmax over ``axis`` (padded frames of a dynamic ``axis`` get -inf). Same dims as ``x``."""
    return _softmax("log_softmax", x, axis, True, use_mask)


def gating(x: Tensor, *, axis: Optional[Dim] = None, gate_func: Any = None, act_func: Any = None,
           out_dim: Optional[Dim] = None) -> tuple:
    """Splits ``axis`` (default: the feature dim) in halves a, b: ``act_func(a) * gate_func(b)`` (default identity,
    sigmoid). :return: (result, out_dim)"""
    from returnn.frontend.array_ import split
    axis = axis or x.feature_dim
    if axis is None or axis.dimension is None or axis.dimension % 2:
        raise FrontendError("gating", f"needs an even static axis, got {axis!r}")
    out_dim = out_dim or axis.div_left(2)  # for ``2 * d``: ``d`` itself, as the reference (observed)
    a, b = split(x, axis=axis, out_dims=[out_dim, out_dim])
    a = act_func(a) if act_func else a
    return a * (gate_func or sigmoid)(b), out_dim


def lerp(start: Tensor, end: Tensor, weight: Any, *, allow_broadcast_all_sources: bool = False) -> Tensor:
    """``start + weight * (end - start)``."""
    return combine(start, "add", combine(weight, "mul", combine(end, "sub", start), allow_broadcast_all_sources=True),
                   allow_broadcast_all_sources=True)


def ceil_divide(a: Any, b: Any) -> Tensor:
    """``-((-a) // b)`` (integers)."""
    return neg(floor_divide(neg(a) if isinstance(a, Tensor) else -a, b))


def log_add_exp(a: Tensor, b: Tensor) -> Tensor:
    """``log(exp(a) + exp(b))``, stable."""
    m = maximum(a, b)
    return m + log(exp(a - m) + exp(b - m))


def identity(x: Tensor) -> Tensor:
    """:return: x itself (the reference's identity op)"""
    return x


def cast(x: Tensor, dtype: str) -> Tensor:
    """:return: x with values cast to ``dtype`` (same dims; the sparse dim is kept for int targets)"""
    if not isinstance(x, Tensor):
        raise FrontendError("cast", "expected a Tensor", got=x)
    if x.dtype == dtype:
        return x
    backend = _utils.backend_of(x)
    return _utils.make_tensor("cast", x.dims, dtype, backend.cast(x.raw_tensor, dtype), sparse_dim=x.sparse_dim,
                              feature_dim=x.feature_dim)
