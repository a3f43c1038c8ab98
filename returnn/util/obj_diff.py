"""Structural difference of two nested objects (dicts, lists, tuples, sets, numpy arrays, plain values) as text
lines, as the reference's ``obj_diff_list`` / ``obj_diff_str`` print it::

    dict diff:
    ['b'] self: 2 != other: 3

Dict keys are visited in sorted order; a nested difference carries the path prefix (``['a'] [1] ...``). With
``allowed_mapping(a, b)``, a plain value ``a`` of ``self`` may stand for a different value ``b`` of ``other``
(e.g. renamed names): the first accepted pair fixes the mapping both ways, and a later, different use of either
side is a difference. Mappings found anywhere in the structure apply everywhere: the comparison is repeated until
no new pair is found.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import numpy

AllowedMapping = Callable[[Any, Any], bool]


class _Differ:
    def __init__(self, allowed_mapping: Optional[AllowedMapping]):
        self.allowed_mapping = allowed_mapping
        self.map_self: Dict[Any, Any] = {}  # self value -> other value
        self.map_other: Dict[Any, Any] = {}  # other value -> self value
        self.new_pairs = False

    # -- plain values, with the mapping
    def _hashable(self, x: Any) -> bool:
        try:
            hash(x)
            return True
        except TypeError:
            return False

    def same_value(self, a: Any, b: Any) -> bool:
        """Whether plain ``a`` (of self) equals or is mapped to ``b`` (of other); may add a pair."""
        if type(a) is type(b) and _plain_equal(a, b):
            return True
        if self.allowed_mapping is None or not (self._hashable(a) and self._hashable(b)):
            return False
        if a in self.map_self:
            return self.map_self[a] == b
        if b in self.map_other:
            return False
        if self.allowed_mapping(a, b):
            self.map_self[a] = b
            self.map_other[b] = a
            self.new_pairs = True
            return True
        return False

    def shown_self(self, a: Any) -> Any:
        """``a`` as it reads on the other side (its mapped value where it has one)."""
        if self.allowed_mapping is not None and self._hashable(a) and a in self.map_self:
            return self.map_self[a]
        return a

    def value_diff(self, a: Any, b: Any, prefix: str = "") -> List[str]:
        if self.same_value(a, b):
            return []
        return [f"{prefix}self: {self.shown_self(a)!r} != other: {b!r}"]

    # -- structures
    def diff(self, a: Any, b: Any) -> List[str]:
        if a is None and b is None:
            return []
        if a is None or b is None:
            return [f"self is {a!r} and other is {b!r}"]
        if type(a) is not type(b):
            if self.allowed_mapping is not None and not isinstance(a, (dict, list, tuple, set)) \
                    and self.same_value(a, b):
                return []
            return [f"type diff: self is {type(a).__name__} but other is {type(b).__name__}"]
        if isinstance(a, dict):
            return self.dict_diff(a, b)
        if isinstance(a, (list, tuple)):
            return self.list_diff(a, b)
        if isinstance(a, set):
            return self.set_diff(a, b)
        return self.value_diff(a, b)

    def _find_match(self, x: Any, others: Any) -> Any:
        """The element of ``others`` that ``x`` (of self) is or maps to, else a sentinel."""
        if x in others:
            return x
        if self.allowed_mapping is not None and self._hashable(x) and x in self.map_self:
            mapped = self.map_self[x]
            if mapped in others:
                return mapped
        return _NO_MATCH

    def _match_keys(self, a_keys: List[Any], b_keys: List[Any]):
        pairs = []
        a_left = []
        b_used = set()
        for k in a_keys:
            m = self._find_match(k, b_keys)
            if m is _NO_MATCH or m in b_used:
                a_left.append(k)
            else:
                pairs.append((k, m))
                b_used.add(m)
        b_left = [k for k in b_keys if k not in b_used]
        if len(a_left) == 1 and len(b_left) == 1 and self.same_value(a_left[0], b_left[0]):
            pairs.append((a_left[0], b_left[0]))
            a_left, b_left = [], []
        return pairs, a_left, b_left

    def dict_diff(self, a: dict, b: dict) -> List[str]:
        pairs, a_left, b_left = self._match_keys(_sorted(a.keys()), _sorted(b.keys()))
        lines = [f"  key {k!r} not in other" for k in a_left] + [f"  key {k!r} not in self" for k in b_left]
        for ka, kb in _sorted_pairs(pairs):
            lines += _prefixed(f"[{ka!r}] ", self.diff(a[ka], b[kb]))
        return ["dict diff:"] + lines if lines else []

    def list_diff(self, a: Any, b: Any) -> List[str]:
        if len(a) != len(b):
            return [f"list diff len: len self: {len(a)}, len other: {len(b)}"]
        lines = []
        for i, (x, y) in enumerate(zip(a, b)):
            lines += _prefixed(f"[{i}] ", self.diff(x, y))
        return ["list diff:"] + lines if lines else []

    def set_diff(self, a: set, b: set) -> List[str]:
        a_items, b_items = _sorted(a), _sorted(b)
        _, a_left, b_left = self._match_keys(a_items, b_items)
        if not a_left and not b_left:
            return []
        if len(a_left) == 1 and len(b_left) == 1:
            return self.value_diff(a_left[0], b_left[0], prefix="set diff value: ")
        return ["set diff:"] + [f"  {x!r} not in other" for x in a_left] + [f"  {x!r} not in self" for x in b_left]


_NO_MATCH = object()


def _plain_equal(a: Any, b: Any) -> bool:
    if isinstance(a, numpy.ndarray):
        return a.shape == b.shape and bool(numpy.array_equal(a, b))
    try:
        return bool(a == b)
    except Exception:  # comparison not defined (e.g. ambiguous truth value)
        return a is b


def _sorted(items) -> list:
    items = list(items)
    try:
        return sorted(items)
    except TypeError:
        return items


def _sorted_pairs(pairs: list) -> list:
    try:
        return sorted(pairs, key=lambda p: p[0])
    except TypeError:
        return pairs


def _prefixed(prefix: str, lines: List[str]) -> List[str]:
    return [prefix + line for line in lines]


def obj_diff_list(self: Any, other: Any, *, allowed_mapping: Optional[AllowedMapping] = None,
                  max_rounds: int = 10) -> List[str]:
    """The differences between ``self`` and ``other`` as lines (empty: equal). See the module doc.

    :param self: first object (dict, list, tuple, set, numpy array or plain value, nested)
    :param other: second object
    :param allowed_mapping: ``f(a, b) -> bool``: whether plain value ``a`` of ``self`` may stand for ``b`` of
        ``other``
    :param max_rounds: how often the comparison is repeated at most while new mapping pairs are found
    """
    differ = _Differ(allowed_mapping)
    lines = differ.diff(self, other)
    for _ in range(max_rounds):
        if not differ.new_pairs:
            break
        differ.new_pairs = False
        lines = differ.diff(self, other)
    return lines


def obj_diff_str(self: Any, other: Any, **kwargs) -> str:
    """:func:`obj_diff_list` joined by newlines, or ``"No diff."``."""
    lines = obj_diff_list(self, other, **kwargs)
    return "\n".join(lines) if lines else "No diff."
