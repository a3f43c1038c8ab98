"""Small value helpers of the reference's ``returnn.util.basic``: ``NotSpecified``, ``to_bool``,
``str_is_number``, ``dict_joined``, ``prod``, ``softmax``."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

import numpy


class NotSpecified:
    """Marker for "argument not given" where ``None`` is a valid value (the class itself is the marker, as in
    the reference: ``unknown_label=NotSpecified``)."""


def to_bool(v: Any) -> bool:
    """``v`` as bool, as the reference's ``to_bool``: a bool as is; a number by ``int(v) != 0``; a string
    ``true``/``yes``/``on``/``1`` or ``false``/``no``/``off``/``0`` (any case).

    :raises ValueError: any other string (e.g. ``""`` or ``"y"``)
    :raises TypeError: ``None`` and other types
    """
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        lowered = v.strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError(f"to_bool cannot handle {v!r} (expected true/false, yes/no, on/off or 1/0)")
    if isinstance(v, (int, float, numpy.number)):
        return int(v) != 0
    raise TypeError(f"to_bool: expected a bool, number or string, got {type(v).__name__} {v!r}")


def str_is_number(s: str) -> bool:
    """Whether ``float(s)`` succeeds (``"1e3"``, ``" 5"``, ``"inf"``, ``"nan"``, ``"1_000"``; not ``""``)."""
    try:
        float(s)
        return True
    except ValueError:
        return False


def dict_joined(*ds: Dict) -> Dict:
    """One dict with the items of all ``ds``; later dicts win for equal keys."""
    out = {}
    for d in ds:
        out.update(d)
    return out


def prod(ls: Iterable) -> Any:
    """The product of the items (1 for none), e.g. ``prod([2, 3, 4]) == 24``."""
    out = 1
    for x in ls:
        out = out * x
    return out


def softmax(x: numpy.ndarray, axis: Optional[int] = None) -> numpy.ndarray:
    """Numerically stable softmax of ``x`` over ``axis`` (all axes if None; float64 for int input)."""
    x = numpy.asarray(x)
    e = numpy.exp(x - numpy.max(x, axis=axis, keepdims=True))
    return e / numpy.sum(e, axis=axis, keepdims=True)
