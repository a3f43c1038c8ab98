"""Dims derived from other dims by arithmetic (``T * 2``, ``F // 2``, ``ceildiv(T, 3)``, ``T + 1``, ``a + b``), as
the reference writes and caches them. Used by :class:`returnn.tensor.Dim`'s operators and by the layers (through
``returnn.tf.layers.shape._derived_dims``). No backend import: the lengths of a dynamic result are computed with
Python operators on the operand's raw lengths.

Observed from the reference:

- descriptions: ``'feature:data//2'``, ``'time*2'``, ``'2*time'``, ``'time+-1'``, ``'-1+time'``, ``'⌈time/2⌉'``,
  ``'time/2'``, ``'a+b'``, ``'a*b'``; an operand that is itself derived is put in parentheses inside ``*``,
  ``//``, ``/`` and ``⌈/⌉`` (``'(time+1)*2'``, ``'⌈(time+-3)/2⌉'``), not inside ``+`` (``'time*2+1'``);
- simplification: constants added in a row are summed (``T + -2 + 1 -> 'time+-1'``), ``(T * n) // n`` is ``T``,
  chained ``//`` and ``⌈/⌉`` multiply their divisors, chained ``*`` multiply their factors, ``+0``/``*1``/``//1``
  are the operand itself, ``d + d`` is ``2*d``, ``d + k*d`` is ``(k+1)*d``, ``(a + b) - b`` is ``a``;
- the same expression on the same dim gives the *same* Dim object (cached on the operand, per graph of the raw
  backend), so two layers that both compute ``F // 2`` of one input agree on their output dim; ``T * 2`` and
  ``2 * T`` are different dims; the objects of one expression made in different graphs are equal
  (:func:`same_expression`), as the reference's one object;
- the static size follows the arithmetic; the kind is the operand's (a feature dim if either operand of ``a + b``
  or ``a * b`` is one; spatial if the operand's kind is unspecified).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from returnn.errors import TensorArgError

if TYPE_CHECKING:
    from returnn.tensor.dim import Dim

_ORIGIN_ATTR = "_derived_from"
_CANON_ATTR = "_dim_math_canon"

# ---- the normal form: equal expressions give the same Dim object
# A dim made by arithmetic has a normal form: a tuple of terms (a sum; the order of the summands matters, as in the
# reference: ``a + b != b + a``), each term ``(coef, factors)``: an int coefficient on the left and a tuple of
# factors (a product; the order matters): plain dims, ints multiplied from the right, or opaque division atoms
# ``(op, normal form, divisor)``. Adjacent summands with the same factors are merged (``a + a == 2 * a``,
# ``a + b - b == a``); a product with a sum distributes (``(a + b) * 2 == a * 2 + b * 2``,
# ``a * b + b == (a + 1) * b``). A normal form ``1 * d`` of a plain dim is ``d`` itself.
_Term = Tuple[int, Tuple[Any, ...]]
_MAX_GRAPHS = 8
_canon_caches: "OrderedDict[Any, Dict[Any, Any]]" = OrderedDict()


def canon(dim: Dim) -> Tuple[_Term, ...]:
    """:return: the normal form of ``dim`` (a plain dim: ``((1, (dim,)),)``)"""
    base = dim.get_same_base()
    form = base.__dict__.get(_CANON_ATTR) or dim.__dict__.get(_CANON_ATTR)
    return form if form is not None else ((1, (base,)),)


def _merge_factors(left: Tuple[Any, ...], right: Tuple[Any, ...]) -> Tuple[Any, ...]:
    if left and right and isinstance(left[-1], int) and isinstance(right[0], int):
        return left[:-1] + (left[-1] * right[0],) + right[1:]
    return left + right


def _canon_add(a: Tuple[_Term, ...], b: Tuple[_Term, ...]) -> Tuple[_Term, ...]:
    terms = list(a)
    for coef, factors in b:
        if terms and terms[-1][1] == factors:
            coef += terms[-1][0]
            terms.pop()
            if coef == 0:
                continue
        terms.append((coef, factors))
    return tuple(terms)


def _canon_mul(a: Tuple[_Term, ...], b: Tuple[_Term, ...]) -> Tuple[_Term, ...]:
    result: Tuple[_Term, ...] = ()
    for coef1, factors1 in a:
        for coef2, factors2 in b:
            if not factors1:  # a constant times a term
                term: _Term = (coef1 * coef2, factors2) if factors2 else (coef1, (coef2,))
            else:
                middle = (coef2,) if coef2 != 1 else ()
                term = (coef1, _merge_factors(_merge_factors(factors1, middle), factors2))
            result = _canon_add(result, (term,))
    return result


def _canon_int(value: int) -> Tuple[_Term, ...]:
    return ((value, ()),) if value else ()


def _canon_div(a: Tuple[_Term, ...], op: str, divisor: Any) -> Tuple[_Term, ...]:
    """``a`` divided (``op``: floordiv, ceildiv, truediv, or a ``_left`` variant) by an int or a dim's normal
    form: a trailing (right) or leading (left) equal factor is cancelled, else an opaque atom."""
    left = op.endswith("_left")
    if len(a) == 1:
        coef, factors = a[0]
        if isinstance(divisor, int):
            if factors and not left and isinstance(factors[-1], int) and factors[-1] % divisor == 0:
                rest = factors[-1] // divisor
                return ((coef, factors[:-1] + ((rest,) if rest != 1 else ())),)
            if left and coef % divisor == 0:
                return ((coef // divisor, factors),)
            if factors and len(factors) == 1 and isinstance(factors[0], tuple) and factors[0][0] == op:
                _, inner, inner_div = factors[0]
                if isinstance(inner_div, int) and coef == 1:
                    return ((1, ((op, inner, inner_div * divisor),)),)
        elif len(divisor) == 1 and divisor[0][0] == 1:
            div_factors = divisor[0][1]
            n = len(div_factors)
            if not left and factors[-n:] == div_factors and len(factors) > n:
                return ((coef, factors[:-n]),)
            if left and coef == 1 and factors[:n] == div_factors and len(factors) > n:
                return ((1, factors[n:]),)
    return ((1, ((op, a, divisor),)),)


def _canon_cache() -> Dict[Any, Any]:
    graph = _graph_key()
    key = id(graph) if graph is not None else None
    if key in _canon_caches:
        entry = _canon_caches.pop(key)
        _canon_caches[key] = entry
        if entry["graph"] is graph:
            return entry["dims"]
    entry = {"graph": graph, "dims": {}}
    _canon_caches[key] = entry
    while len(_canon_caches) > _MAX_GRAPHS:
        _canon_caches.popitem(last=False)
    return entry["dims"]


def _graph_key() -> Any:
    from returnn.tensor.raw_backend import current_graph
    return current_graph()


def _cache(dim: Dim) -> dict:
    """:return: the derived dims of ``dim`` made in the current graph (a dim reused in a new graph, e.g. a Dim of
    the config, gets new derived dims there, whose lengths are computed in that graph)"""
    caches = dim.get_same_base()._extra.cache_dim_math  # noqa: SLF001 (the dim's own state, see _dim_extra)
    graph = _graph_key()
    if caches.get("graph") is not graph:
        caches.clear()
        caches["graph"] = graph
    return caches


def same_expression(base: Dim, other_base: Dim) -> bool:
    """:return: whether two same-base dims (see :meth:`Dim.get_same_base`) were both made by arithmetic and have the
    same normal form: the same expression of the same dims, possibly made in different graphs (e.g. a config's
    ``time_dim.ceildiv_right(2)`` made before the network's graph and the one a layer computes in it), which the
    reference has as one object"""
    form = base.__dict__.get(_CANON_ATTR)
    if form is None:
        return False
    other_form = other_base.__dict__.get(_CANON_ATTR)
    return other_form is not None and other_form == form


def expression_hash(base: Dim) -> int:
    """:return: the hash of a same-base dim: of its normal form if it was made by arithmetic (consistent with
    :func:`same_expression`), else of its identity"""
    form = base.__dict__.get(_CANON_ATTR)
    return id(base) if form is None else hash(form)  # not cached: an operand's same-base may still change


def origin(dim: Dim) -> Optional[Tuple[str, Dim, Any]]:
    """:return: ``(op, operand, arg)`` if ``dim`` was made by this module, else None"""
    return dim.get_same_base().__dict__.get(_ORIGIN_ATTR) or dim.__dict__.get(_ORIGIN_ATTR)


class DimOp:
    """The operation a dim was computed by (``Dim.derived_from_op``): ``kind`` (``'add'``, ``'add_left'``,
    ``'mul'``, ``'ceildiv'``, ...) and ``inputs`` (the operand dim and the other argument, a dim or an int)."""

    def __init__(self, kind: str, inputs: list):
        self.kind = kind
        self.inputs = inputs

    def __repr__(self) -> str:
        return f"<Dim.Op {self.kind!r} {self.inputs!r}>"


def own_op(dim: Dim) -> Optional[DimOp]:
    """:return: the operation that made ``dim`` itself (not a dim it was declared the same as), or None"""
    org = dim.__dict__.get(_ORIGIN_ATTR)
    if org is None:
        return None
    return DimOp(org[0], [org[1], org[2]])


def split_sizes(dim: Dim) -> Optional[List[int]]:
    """The parts of a static dim by the arithmetic it was made with, as the reference's parameter split info:
    a sum lists the parts of its summands (``2*a + b`` with a=3, b=5: ``[3, 3, 5]``; ``a - 1``: ``[3, -1]``),
    ``k * d`` repeats the parts of ``d`` k times, ``d * k`` and ``d * e`` repeat the parts of the right operand
    (``a * 2``: ``[2, 2, 2]``); any other dim is one part.

    :return: the part sizes (summing to ``dim.dimension``), or None for a dynamic dim
    """
    if dim.dimension is None:
        return None
    org = origin(dim)
    if org is None:
        return [dim.dimension]
    op, operand, arg = org
    if op in ("sum", "add", "add_left"):
        first = split_sizes(operand)
        second = split_sizes(arg) if not isinstance(arg, int) else [arg]
        if first is None or second is None:
            return [dim.dimension]
        return second + first if op == "add_left" else first + second
    if op == "mul_left":
        inner = split_sizes(operand)
        return inner * arg if inner is not None else [dim.dimension]
    if op in ("mul", "product") and operand.dimension is not None:
        inner = split_sizes(arg) if not isinstance(arg, int) else [arg]
        return inner * operand.dimension if inner is not None else [dim.dimension]
    return [dim.dimension]


def as_int(dim: Dim, value: Any, op: str) -> int:
    """:return: ``value`` if it is an int

    :raises TensorArgError: anything else
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise TensorArgError(f"{dim!r}.{op}(...)", "dim arithmetic needs an int here", got=value)


def _desc(dim: Dim, *, as_operand: bool) -> str:
    desc = dim.get_same_base().description
    if desc is None:
        desc = f"unnamed_dim_{dim.dimension}" if dim.dimension is not None else "unnamed_dim"
    if as_operand and origin(dim) is not None:
        return f"({desc})"
    return desc


def _make(operand: Dim, op: str, arg: Any, description: str, dimension: Optional[int],
          size_fn: Callable[[Any], Any], kind: Any = None, with_batch: Optional[bool] = None,
          form: Optional[Tuple[_Term, ...]] = None) -> Dim:
    from returnn.tensor.dim import Dim
    key = (op, arg if not isinstance(arg, Dim) else id(arg.get_same_base()))
    cache = _cache(operand)
    if key in cache:
        return cache[key]
    if form is not None:
        if len(form) == 1 and form[0][0] == 1 and len(form[0][1]) == 1 and isinstance(form[0][1][0], Dim):
            return form[0][1][0]  # simplified to a plain dim
        canon_cache = _canon_cache()
        try:
            existing = canon_cache.get(form)
        except TypeError:  # an unhashable part: no lookup
            existing, form = None, None
        if existing is not None:
            cache[key] = existing
            return existing
        if dimension is None:
            dimension = _static_value(form)
    auto = operand.auto_generated and (arg.auto_generated if isinstance(arg, Dim) else True)  # as the operands
    new = Dim(dimension, description=description, kind=kind or operand.kind or Dim.Types.Spatial, auto_generated=auto)
    if form is not None:
        setattr(new, _CANON_ATTR, form)
        _canon_cache()[form] = new
    setattr(new, _ORIGIN_ATTR, (op, operand, arg))
    new._with_batch = operand.get_same_base()._with_batch if with_batch is None else with_batch  # noqa: SLF001
    if dimension is None and not operand.is_batch_dim():
        def dyn_size() -> Any:
            size = operand.dyn_size
            return None if size is None else size_fn(size)
        new.dyn_size_fn = dyn_size
    cache[key] = new
    return new


def _static_value(form: Tuple[_Term, ...]) -> Optional[int]:
    """:return: the static size of a normal form whose dims are all static, else None"""
    total = 0
    for coef, factors in form:
        value = coef
        for factor in factors:
            if isinstance(factor, int):
                value *= factor
            elif isinstance(factor, tuple):
                return None  # divisions: computed by the operation itself
            elif factor.dimension is None:
                return None
            else:
                value *= factor.dimension
        total += value
    return total


def dim_add(dim: Dim, amount: int) -> Dim:
    """:return: ``dim + amount`` (``'time+1'``, ``'time+-1'``)"""
    if amount == 0:
        return dim
    org = origin(dim)
    if org is not None and org[0] == "add":
        return dim_add(org[1], org[2] + amount)
    desc = _desc(dim, as_operand=False)
    if org is not None and org[0] == "add_left":  # -r+(x+c) + a: the constants on the right are summed
        inner = origin(org[1])
        if inner is not None and inner[0] == "add":
            return dim_add_left(dim_add(inner[1], inner[2] + amount), org[2])
        desc = f"({desc})"
    dimension = None if dim.dimension is None else dim.dimension + amount
    return _make(dim, "add", amount, f"{desc}+{amount}", dimension, lambda size: size + amount,
                 form=_canon_add(canon(dim), _canon_int(amount)))


def dim_add_left(dim: Dim, amount: int) -> Dim:
    """:return: ``amount + dim`` (``'1+time'``, ``'-1+time'``; constants on the left are summed:
    ``1 + ((3 + time) + 3)`` is ``'(4+time)+3'``, as the reference)"""
    if amount == 0:
        return dim
    org = origin(dim)
    if org is not None and org[0] == "add_left":
        return dim_add_left(org[1], org[2] + amount)
    if org is not None and org[0] == "add":
        inner = origin(org[1])
        if inner is not None and inner[0] == "add_left":
            return dim_add(dim_add_left(inner[1], inner[2] + amount), org[2])
    dimension = None if dim.dimension is None else dim.dimension + amount
    desc = _desc(dim, as_operand=False)
    if org is not None and org[0] in ("add", "sum"):  # '1+(time+2)', as the reference ('-1+time*2' without)
        desc = f"({desc})"
    return _make(dim, "add_left", amount, f"{amount}+{desc}", dimension,
                 lambda size: size + amount, form=_canon_add(_canon_int(amount), canon(dim)))


def dim_mul(dim: Dim, factor: int) -> Dim:
    """:return: ``dim * factor`` (``'time*2'``)"""
    if factor == 1:
        return dim
    org = origin(dim)
    if org is not None and org[0] == "mul":
        return dim_mul(org[1], org[2] * factor)
    dimension = None if dim.dimension is None else dim.dimension * factor
    return _make(dim, "mul", factor, f"{_desc(dim, as_operand=True)}*{factor}", dimension,
                 lambda size: size * factor, form=_canon_mul(canon(dim), ((factor, ()),)))


def dim_mul_left(dim: Dim, factor: int) -> Dim:
    """:return: ``factor * dim`` (``'2*time'``)"""
    if factor == 1:
        return dim
    org = origin(dim)
    if org is not None and org[0] == "mul_left":
        return dim_mul_left(org[1], org[2] * factor)
    dimension = None if dim.dimension is None else dim.dimension * factor
    return _make(dim, "mul_left", factor, f"{factor}*{_desc(dim, as_operand=True)}", dimension,
                 lambda size: size * factor, form=tuple((coef * factor, f) for coef, f in canon(dim)))


def dim_floordiv(dim: Dim, divisor: int) -> Dim:
    """:return: ``dim // divisor`` (``'feature:data//2'``); ``(d * n) // n`` is ``d``"""
    if divisor == 1:
        return dim
    org = origin(dim)
    if org is not None and org[0] in ("mul", "mul_left") and org[2] == divisor:
        return org[1]
    if org is not None and org[0] == "floordiv":
        return dim_floordiv(org[1], org[2] * divisor)
    dimension = None if dim.dimension is None else dim.dimension // divisor
    return _make(dim, "floordiv", divisor, f"{_desc(dim, as_operand=True)}//{divisor}", dimension,
                 lambda size: size // divisor, form=_canon_div(canon(dim), "floordiv", divisor))


def dim_ceildiv(dim: Dim, divisor: int, *, left: bool = False) -> Dim:
    """:return: ``ceil(dim / divisor)`` (``'⌈time/2⌉'``, or ``'⌈time /l 2⌉'`` if ``left``)"""
    if divisor == 1:
        return dim
    op = "ceildiv_left" if left else "ceildiv"
    org = origin(dim)
    if org is not None and org[0] in ("mul", "mul_left") and org[2] == divisor:
        return org[1]
    if org is not None and org[0] == op:
        return dim_ceildiv(org[1], org[2] * divisor, left=left)
    dimension = None if dim.dimension is None else -(-dim.dimension // divisor)
    sep = " /l " if left else "/"
    return _make(dim, op, divisor, f"⌈{_desc(dim, as_operand=True)}{sep}{divisor}⌉", dimension,
                 lambda size: -(-size // divisor), form=_canon_div(canon(dim), op, divisor))


def dim_truediv(dim: Dim, divisor: int, *, left: bool = False) -> Dim:
    """:return: ``dim / divisor`` (``'time/2'``, or ``'time /l 2'`` if ``left``); ``(d * n) / n`` is ``d``

    :raises TensorArgError: a static size not divisible by ``divisor``
    """
    if divisor == 1:
        return dim
    org = origin(dim)
    if org is not None and org[0] in ("mul", "mul_left") and org[2] == divisor:
        return org[1]
    if dim.dimension is not None and dim.dimension % divisor != 0:
        raise TensorArgError(f"{dim!r} / {divisor}", "the static size is not divisible",
                             hint="use // or ceildiv_right")
    dimension = None if dim.dimension is None else dim.dimension // divisor
    op = "truediv_left" if left else "truediv"
    sep = " /l " if left else "/"
    return _make(dim, op, divisor, f"{_desc(dim, as_operand=True)}{sep}{divisor}", dimension,
                 lambda size: size // divisor, form=_canon_div(canon(dim), op, divisor))


def _multiple_of(dim: Dim) -> Tuple[int, Dim]:
    """:return: ``(k, d)`` with ``dim`` being ``k*d`` (``(1, dim)`` if it is not a left multiple)"""
    org = origin(dim)
    if org is not None and org[0] == "mul_left":
        return org[2], org[1]
    return 1, dim


def dim_sum(first: Dim, second: Dim) -> Dim:
    """:return: ``first + second`` (``'a+b'``; ``d + d`` is ``2*d``, ``d + k*d`` and ``k*d + d`` are ``(k+1)*d``)"""
    k1, d1 = _multiple_of(first)
    k2, d2 = _multiple_of(second)
    if d1 == d2:
        return dim_mul_left(d1, k1 + k2)
    dimension = None if first.dimension is None or second.dimension is None else first.dimension + second.dimension

    def size_fn(size: Any) -> Any:
        other = second.dyn_size if second.dimension is None else second.dimension
        return size + other

    return _make(first, "sum", second, f"{_desc(first, as_operand=True)}+{_desc(second, as_operand=True)}",
                 dimension, size_fn, kind=_kind_of_pair(first, second), with_batch=_with_batch(first, second),
                 form=_canon_add(canon(first), canon(second)))


def dim_product(first: Dim, second: Dim) -> Dim:
    """:return: ``first * second`` (``'a*b'``; a feature kind if either is a feature dim)"""
    dimension = None if first.dimension is None or second.dimension is None else first.dimension * second.dimension

    def size_fn(size: Any) -> Any:
        other = second.dyn_size if second.dimension is None else second.dimension
        return size * other

    return _make(first, "product", second, f"{_desc(first, as_operand=True)}*{_desc(second, as_operand=True)}",
                 dimension, size_fn, kind=_kind_of_pair(first, second), with_batch=_with_batch(first, second),
                 form=_canon_mul(canon(first), canon(second)))


_DIV_OPS = {"floordiv": ("{a}//{b}", lambda x, y: x // y), "truediv": ("{a}/{b}", lambda x, y: x // y),
            "truediv_left": ("{a} /l {b}", lambda x, y: x // y), "ceildiv": ("⌈{a}/{b}⌉", lambda x, y: -(-x // y)),
            "ceildiv_left": ("⌈{a} /l {b}⌉", lambda x, y: -(-x // y))}


def dim_div_dim(first: Dim, second: Dim, op: str) -> Dim:
    """:return: ``first`` divided by the dim ``second`` (``op``: floordiv, truediv, truediv_left, ceildiv,
    ceildiv_left; ``'a//b'``, ``'a /l b'``, ``'⌈a/b⌉'``); ``(a * b) // b`` is ``a``, ``(b * a).div_left(b)`` is
    ``a``"""
    pattern, fn = _DIV_OPS[op]
    dimension = None if first.dimension is None or second.dimension is None else fn(first.dimension,
                                                                                    second.dimension)

    def size_fn(size: Any) -> Any:
        other = second.dyn_size if second.dimension is None else second.dimension
        return fn(size, other)

    desc = pattern.format(a=_desc(first, as_operand=True), b=_desc(second, as_operand=True))
    return _make(first, op + "_dim", second, desc, dimension, size_fn, kind=_kind_of_pair(first, second),
                 with_batch=_with_batch(first, second), form=_canon_div(canon(first), op, canon(second)))


def _kind_of_pair(first: Dim, second: Dim) -> Any:
    from returnn.tensor.dim import Dim
    if first.is_feature_dim() or second.is_feature_dim():
        return Dim.Types.Feature
    return first.kind or second.kind


def _with_batch(first: Dim, second: Dim) -> bool:
    return first.get_same_base()._with_batch or second.get_same_base()._with_batch  # noqa: SLF001


# ---- the operators of Dim
def add(dim: Dim, other: Any) -> Dim:
    """``dim + other`` for an int or a Dim."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        return dim_sum(dim, other)
    return dim_add(dim, as_int(dim, other, "__add__"))


def add_left(dim: Dim, other: Any) -> Dim:
    """``other + dim`` for an int."""
    return dim_add_left(dim, as_int(dim, other, "__radd__"))


def sub(dim: Dim, other: Any) -> Dim:
    """``dim - other`` for an int, or for the second operand of a sum (``(a + b) - b`` is ``a``)."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        org = origin(dim)
        if org is not None and org[0] == "sum" and org[2] == other:
            return org[1]
        return dim_sum(dim, dim_mul_left(other, -1))  # 'a+(-1*b)', as the reference
    return dim_add(dim, -as_int(dim, other, "__sub__"))


def mul(dim: Dim, other: Any) -> Dim:
    """``dim * other`` for an int or a Dim."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        return dim_product(dim, other)
    return dim_mul(dim, as_int(dim, other, "__mul__"))


def mul_left(dim: Dim, other: Any) -> Dim:
    """``other * dim`` for an int."""
    return dim_mul_left(dim, as_int(dim, other, "__rmul__"))


def floordiv(dim: Dim, other: Any) -> Dim:
    """``dim // other`` for an int or a Dim."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        return dim_div_dim(dim, other, "floordiv")
    return dim_floordiv(dim, _positive(dim, other, "__floordiv__"))


def ceildiv(dim: Dim, other: Any, *, left: bool = False) -> Dim:
    """``ceil(dim / other)`` for an int or a Dim."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        return dim_div_dim(dim, other, "ceildiv_left" if left else "ceildiv")
    return dim_ceildiv(dim, _positive(dim, other, "ceildiv"), left=left)


def truediv(dim: Dim, other: Any, *, left: bool = False) -> Dim:
    """``dim / other`` for an int or a Dim."""
    from returnn.tensor.dim import Dim
    if isinstance(other, Dim):
        return dim_div_dim(dim, other, "truediv_left" if left else "truediv")
    return dim_truediv(dim, _positive(dim, other, "__truediv__"), left=left)


def _positive(dim: Dim, other: Any, op: str) -> int:
    value = as_int(dim, other, op)
    if value <= 0:
        raise TensorArgError(f"{dim!r}.{op}({value})", "the divisor must be positive", got=value)
    return value


# ---- rebuilding an expression on other operands
_REBUILD: Dict[str, Callable[[Any, Any], Dim]] = {
    "add": dim_add, "add_left": dim_add_left, "mul": dim_mul, "mul_left": dim_mul_left, "floordiv": dim_floordiv,
    "ceildiv": dim_ceildiv, "ceildiv_left": lambda d, k: dim_ceildiv(d, k, left=True),
    "truediv": dim_truediv, "truediv_left": lambda d, k: dim_truediv(d, k, left=True),
    "sum": dim_sum, "product": dim_product,
    **{op + "_dim": (lambda d, e, _op=op: dim_div_dim(d, e, _op)) for op in _DIV_OPS},
}


def substitute(dim: Dim, replace: Callable[[Dim], Dim], *, in_current_graph: bool = False) -> Dim:
    """Rebuilds the expression ``dim`` was made by (``T + 2``, ``(T * 5) // F``, ...) with each plain operand ``d``
    replaced by ``replace(d)``.

    :param in_current_graph: rebuild the expression also when no operand changed, so that a dim computed outside of
        the current graph (e.g. ``time_dim.ceildiv_right(2)`` in a config) is the current graph's dim of that
        expression, the one a layer computing it in this graph gets
    :return: ``dim`` itself if no operand changed and not ``in_current_graph`` (or ``dim`` is no expression:
        ``replace(dim)``), else the same expression on the new operands (the cached Dim of that expression, as the
        operators give it)
    """
    from returnn.tensor.dim import Dim
    org = origin(dim)
    if org is None:
        return replace(dim)
    op, operand, arg = org
    new_operand = substitute(operand, replace, in_current_graph=in_current_graph)
    new_arg = substitute(arg, replace, in_current_graph=in_current_graph) if isinstance(arg, Dim) else arg
    if new_operand is operand and new_arg is arg and not in_current_graph:
        return dim
    return _REBUILD[op](new_operand, new_arg)
