"""Schedules of a number (epoch, step) used in configs: ``PiecewiseLinear`` and ``StepFunction``; and a few
integer helpers."""

from __future__ import annotations

import bisect
from typing import Any, Dict, Optional, Union

import numpy

Number = Union[int, float]


class _KeyedFunction:
    """Shared call convention: ``f(x)``, or with ``kw_name`` only ``f(**{kw_name: x})``."""

    def __init__(self, values: Dict[Number, Any], *, kw_name: Optional[str] = None, ignore_other_kwargs: bool = False):
        if not values:
            raise ValueError(f"{type(self).__name__}: expected at least one point, got {values!r}")
        self.values = dict(values)
        self.kw_name = kw_name
        self.ignore_other_kwargs = ignore_other_kwargs
        self._keys = sorted(self.values)

    def _arg(self, args: tuple, kwargs: Dict[str, Any]) -> Number:
        name = type(self).__name__
        if self.kw_name is None:
            if len(args) != 1 or kwargs:
                raise TypeError(f"{name}: expected exactly one positional argument, got args {args!r}, "
                                f"kwargs {kwargs!r}")
            return args[0]
        if args:
            raise TypeError(f"{name}: expected the keyword argument {self.kw_name!r} only, got positional {args!r}")
        if self.kw_name not in kwargs:
            raise TypeError(f"{name}: missing keyword argument {self.kw_name!r}, got {sorted(kwargs)!r}")
        others = set(kwargs) - {self.kw_name}
        if others and not self.ignore_other_kwargs:
            raise TypeError(f"{name}: unexpected keyword arguments {sorted(others)!r} (expected {self.kw_name!r})")
        return kwargs[self.kw_name]

    def __repr__(self) -> str:
        extra = ""
        if self.kw_name is not None:
            extra += f", kw_name={self.kw_name!r}"
        if self.ignore_other_kwargs:
            extra += ", ignore_other_kwargs=True"
        return f"{type(self).__name__}({self.values!r}{extra})"


class PiecewiseLinear(_KeyedFunction):
    """Linear interpolation between the points ``{x: y}``, constant outside them, e.g.
    ``PiecewiseLinear({1: 2, 3: 4, 5: 1})(4) == 2.5`` and ``(0) == 2``.

    :param values: the points ``{x: y}``
    :param kw_name: when set, the function is called as ``f(**{kw_name: x})`` (e.g. ``epoch_continuous``) and
        a positional argument is a ``TypeError``
    :param ignore_other_kwargs: with ``kw_name``, other keyword arguments are ignored (else ``TypeError``)
    :return: (of a call) ``numpy.float64``
    """

    def __call__(self, *args, **kwargs) -> numpy.float64:
        x = self._arg(args, kwargs)
        return numpy.interp(x, self._keys, [self.values[k] for k in self._keys])


class StepFunction(_KeyedFunction):
    """The value of the nearest point of ``{x: value}`` (values of any type); halfway between two points the lower
    one wins, e.g. ``StepFunction({1: "yes", 3: "no"})``: 2 → ``"yes"``, 2.1 → ``"no"``.

    Parameters as :class:`PiecewiseLinear`.
    """

    def __call__(self, *args, **kwargs) -> Any:
        x = self._arg(args, kwargs)
        keys = self._keys
        i = bisect.bisect_left(keys, x)
        if i == 0:
            return self.values[keys[0]]
        if i >= len(keys):
            return self.values[keys[-1]]
        lower, upper = keys[i - 1], keys[i]
        return self.values[lower] if x - lower <= upper - x else self.values[upper]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for integers, exact."""
    return -(-a // b)


def next_power_of_two(n: int) -> int:
    """The smallest power of two ``>= n`` (1 for ``n <= 1``)."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()
