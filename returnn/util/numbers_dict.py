"""``NumbersDict``: a number per data key, with arithmetic, as used for batch sizes and sequence lengths."""

from __future__ import annotations

import operator
from typing import Any, Callable, Dict, Iterable, Optional, Union

Number = Union[int, float]


class NumbersDict:
    """A dict of numbers per data key (e.g. ``{"data": 100, "classes": 20}``) plus an optional broadcast value.

    ``NumbersDict(5)`` has only the broadcast value 5: every key reads as 5. ``NumbersDict({"data": 3})`` has no
    broadcast value: a missing key reads as ``None``. Binary operators (``+ - * / // %``, ``max``/``min`` via the
    static helpers) apply per key; a key missing on one side takes that side's broadcast value, or without one the
    identity of the operator (0 for ``+ -``, 1 for ``* / //``), and the result's keys are the union; the same
    holds for the broadcast values (as the reference: ``NumbersDict({"c": 11}) - NumbersDict(10)`` is
    ``{'c': 1}`` with broadcast value -10). A plain number operand applies to each value without becoming a
    broadcast value itself (``NumbersDict({"data": 1}) + 1 == NumbersDict({"data": 2})``). Comparisons
    (``< <= > >=``, ``==``) hold when they hold for every key of the union (the
    reference's ``all`` semantics); :meth:`any_compare` is the "for some key" variant.

    Used as: batch sizes (``batch_size`` per key), per-sequence lengths (``Dataset.get_seq_length``) and the
    per-key frame counts of a mini-batch.
    """

    def __init__(self, auto_convert: Any = None, numbers_dict: Optional[Dict[str, Number]] = None,
                 broadcast_value: Optional[Number] = None):
        if isinstance(auto_convert, NumbersDict):
            numbers_dict = dict(auto_convert.dict)
            broadcast_value = auto_convert.value
        elif isinstance(auto_convert, dict):
            numbers_dict = dict(auto_convert)
        elif auto_convert is not None:
            broadcast_value = auto_convert
        self.dict: Dict[str, Number] = dict(numbers_dict or {})
        self.value: Optional[Number] = broadcast_value

    # -- access --
    def __getitem__(self, key: str) -> Optional[Number]:
        if key in self.dict:
            return self.dict[key]
        return self.value

    def __setitem__(self, key: str, value: Number) -> None:
        self.dict[key] = value

    def __delitem__(self, key: str) -> None:
        del self.dict[key]

    def __contains__(self, key: str) -> bool:
        return key in self.dict

    def get(self, key: str, default: Optional[Number] = None) -> Optional[Number]:
        """Like ``dict.get``, but falls back to the broadcast value before ``default``."""
        value = self[key]
        return default if value is None else value

    def keys(self):
        """Keys with an explicit value."""
        return self.dict.keys()

    def values(self):
        """Explicit values, plus the broadcast value if set."""
        values = list(self.dict.values())
        if self.value is not None:
            values.append(self.value)
        return values

    def items(self):
        """Explicit ``(key, value)`` pairs."""
        return self.dict.items()

    def has_values(self) -> bool:
        """Whether there is any value (explicit or broadcast)."""
        return bool(self.dict) or self.value is not None

    def copy(self) -> NumbersDict:
        """Shallow copy."""
        return NumbersDict(self)

    @classmethod
    def constant_like(cls, const_number: Number, numbers_dict: NumbersDict) -> NumbersDict:
        """The keys of ``numbers_dict``, every value (and the broadcast value, if ``numbers_dict`` has one) replaced
        by ``const_number``, e.g. ``NumbersDict.constant_like(0, NumbersDict({"a": 5}))`` is ``{'a': 0}``."""
        numbers_dict = numbers_dict if isinstance(numbers_dict, NumbersDict) else NumbersDict(numbers_dict)
        return cls(numbers_dict={k: const_number for k in numbers_dict.dict},
                   broadcast_value=const_number if numbers_dict.value is not None else None)

    def copy_like(self, numbers_dict: NumbersDict) -> NumbersDict:
        """The values of ``self`` for the keys of ``numbers_dict`` (and ``self``'s broadcast value if
        ``numbers_dict`` has one)."""
        return NumbersDict(numbers_dict={k: self[k] for k in numbers_dict.keys()},
                           broadcast_value=self.value if numbers_dict.value is not None else None)

    @staticmethod
    def keys_union(*number_dicts: NumbersDict) -> list:
        """The explicit keys of all arguments, in first-seen order."""
        out: list = []
        for nd in number_dicts:
            out.extend(k for k in nd.keys() if k not in out)
        return out

    def pop(self, key: str, *args):
        """Removes an explicit key (like ``dict.pop``).

        :raises KeyError: a missing key without default
        """
        return self.dict.pop(key, *args)

    def unary_op(self, op: Callable[[Any], Any]) -> NumbersDict:
        """``op`` applied to every value (broadcast value included)."""
        return NumbersDict(numbers_dict={k: op(v) for k, v in self.dict.items()},
                           broadcast_value=None if self.value is None else op(self.value))

    def elem_eq(self, other: NumbersDict, result_with_default: bool = True) -> NumbersDict:
        """Per key: ``self[k] == other[k]``, or None where one side has no value."""
        other = other if isinstance(other, NumbersDict) else NumbersDict(other)
        out = NumbersDict()
        for key in _union_keys(self.dict, other.dict):
            a, b = self[key], other[key]
            out.dict[key] = None if (a is None or b is None) else (a == b)
        if self.value is not None and other.value is not None:
            out.value = self.value == other.value
        return out

    @classmethod
    def bin_op(cls, self: Any, other: Any, op: Callable[[Any, Any], Any], zero: Any, result: Any = None
               ) -> NumbersDict:
        """``op`` per key of the union; a value missing on one side is ``zero``; the broadcast value is combined
        when either side has one (the reference's ``bin_op``)."""
        self = self if isinstance(self, NumbersDict) else NumbersDict(self)
        if not isinstance(other, NumbersDict):
            if isinstance(other, dict):
                other = NumbersDict(other)
            else:
                return self.unary_op(lambda v: op(v, other))
        out = result if result is not None else NumbersDict()
        for key in _union_keys(self.dict, other.dict):
            a, b = self[key], other[key]
            out.dict[key] = op(zero if a is None else a, zero if b is None else b)
        if self.value is not None or other.value is not None:
            out.value = op(zero if self.value is None else self.value, zero if other.value is None else other.value)
        return out

    @classmethod
    def bin_op_scalar_optional(cls, self: Any, other: Any, zero: Any, op: Callable[[Any, Any], Any]) -> NumbersDict:
        """:meth:`bin_op`, with ``other=None`` meaning ``self`` unchanged."""
        if other is None:
            return NumbersDict(self)
        return cls.bin_op(self, other, op=op, zero=zero)

    def max_value(self) -> Optional[Number]:
        """Maximum over all values (explicit and broadcast); None if empty."""
        values = self.values()
        return max(values) if values else None

    def min_value(self) -> Optional[Number]:
        """Minimum over all values (explicit and broadcast); None if empty."""
        values = self.values()
        return min(values) if values else None

    # -- arithmetic --
    def _binary(self, other: Any, op: Callable[[Any, Any], Any], *, swapped: bool = False,
                zero: Any = None) -> NumbersDict:
        """``op`` per key; a value missing on one side (no key, no broadcast value) is ``zero`` (the identity
        of ``op``: 0 for ``+ -``, 1 for ``* / //``, as the reference); with ``zero=None``, the other side's value
        is kept as is."""
        def apply(a, b):
            return op(b, a) if swapped else op(a, b)

        def combine(a, b):
            if a is not None and b is not None:
                return apply(a, b)
            if zero is None:
                return a if b is None else b
            return apply(zero if a is None else a, zero if b is None else b)

        if not isinstance(other, (NumbersDict, dict)):
            # a plain number applies to every value; it does not become a broadcast value by itself
            return NumbersDict(numbers_dict={k: apply(v, other) for k, v in self.dict.items()},
                               broadcast_value=None if self.value is None else apply(self.value, other))
        other = other if isinstance(other, NumbersDict) else NumbersDict(other)
        result = NumbersDict()
        for key in _union_keys(self.dict, other.dict):
            result.dict[key] = combine(self[key], other[key])
        if self.value is not None or other.value is not None:
            result.value = combine(self.value, other.value)
        return result

    def has_value_for(self, key: str) -> bool:
        """Whether ``key`` has an explicit or broadcast value."""
        return key in self.dict or self.value is not None

    def keys_set(self) -> set:
        """The explicit keys as a set."""
        return set(self.dict)

    def __add__(self, other): return self._binary(other, operator.add, zero=0)
    def __radd__(self, other): return self._binary(other, operator.add, swapped=True, zero=0)
    def __sub__(self, other): return self._binary(other, operator.sub, zero=0)
    def __rsub__(self, other): return self._binary(other, operator.sub, swapped=True, zero=0)
    def __mul__(self, other): return self._binary(other, operator.mul, zero=1)
    def __rmul__(self, other): return self._binary(other, operator.mul, swapped=True, zero=1)
    def __truediv__(self, other): return self._binary(other, operator.truediv, zero=1)
    def __floordiv__(self, other): return self._binary(other, operator.floordiv, zero=1)
    def __mod__(self, other): return self._binary(other, operator.mod)

    def __neg__(self) -> NumbersDict:
        return NumbersDict(numbers_dict={k: -v for k, v in self.dict.items()},
                           broadcast_value=None if self.value is None else -self.value)

    def __iadd__(self, other):
        result = self + other
        self.dict, self.value = result.dict, result.value
        return self

    def __isub__(self, other):
        result = self - other
        self.dict, self.value = result.dict, result.value
        return self

    # -- comparison --
    def _compare_values(self, other: Any, op: Callable[[Any, Any], bool]) -> list:
        other = other if isinstance(other, NumbersDict) else NumbersDict(other)
        results = []
        for key in _union_keys(self.dict, other.dict):
            a, b = self[key], other[key]
            if a is not None and b is not None:
                results.append(op(a, b))
        if self.value is not None and other.value is not None:
            results.append(op(self.value, other.value))
        return results

    def all_compare(self, other: Any, op: Callable[[Any, Any], bool]) -> bool:
        """Whether ``op(self[k], other[k])`` holds for every key where both sides have a value."""
        return all(self._compare_values(other, op))

    def any_compare(self, other: Any, op: Callable[[Any, Any], bool]) -> bool:
        """Whether ``op(self[k], other[k])`` holds for some key where both sides have a value."""
        return any(self._compare_values(other, op))

    def __lt__(self, other): return self.all_compare(other, operator.lt)
    def __le__(self, other): return self.all_compare(other, operator.le)
    def __gt__(self, other): return self.all_compare(other, operator.gt)
    def __ge__(self, other): return self.all_compare(other, operator.ge)

    def __eq__(self, other) -> bool:
        if not isinstance(other, (NumbersDict, int, float, dict)):
            return NotImplemented
        return self.all_compare(other, operator.eq)

    def __ne__(self, other) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # mutable

    def __bool__(self) -> bool:
        return any(self.values())

    @staticmethod
    def max(items: Iterable[Any]) -> NumbersDict:
        """Per-key maximum over several NumbersDicts (or numbers)."""
        return NumbersDict._reduce(items, max)

    @staticmethod
    def min(items: Iterable[Any]) -> NumbersDict:
        """Per-key minimum over several NumbersDicts (or numbers)."""
        return NumbersDict._reduce(items, min)

    @staticmethod
    def _reduce(items: Iterable[Any], func: Callable[[Any, Any], Any]) -> NumbersDict:
        result = None
        for item in items:
            result = NumbersDict(item) if result is None else result._binary(item, func)
        if result is None:
            raise ValueError("NumbersDict.max/min of an empty sequence")
        return result

    def __repr__(self) -> str:
        if self.value is None:
            return f"NumbersDict({self.dict!r})"
        if not self.dict:
            return f"NumbersDict({self.value!r})"
        return f"NumbersDict(numbers_dict={self.dict!r}, broadcast_value={self.value!r})"


def _union_keys(a: Dict[str, Any], b: Dict[str, Any]) -> list:
    """Keys of ``a`` in order, then the keys only in ``b`` (deterministic, unlike a set union)."""
    return list(a) + [k for k in b if k not in a]
