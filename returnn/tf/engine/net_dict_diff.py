"""The difference of two network dicts, as the lines the reference logs before it rebuilds the network.

Format (observed from the reference's log, ``reinit because network description differs. Diff:``)::

    dict diff:
      key 'l2' not in self                      (self: the current network, other: the new one)
    ['#config'] dict diff:
    ['#config'] ['batch_size'] self: 200 != other: 300
    ['output'] ['from'] list diff:
    ['output'] ['from'] [0] self: 'l1' != other: 'l2'

Keys missing in the new dict come first, then keys missing in the current one, then the common keys; each group
sorted. Lists and tuples of different length give ``list diff len: len self: 2, len other: 3``, values of
different types ``type diff: self is int but other is float``, ``None`` ``self is None and other is 0``. Leaves
are compared with ``!=`` (so two different function objects differ), dims (``Dim``) by kind and size only (two
``FeatureDim("out", 13)`` objects, or ``"out"`` and ``"out2"`` of size 13, are equal; a feature and a spatial dim
differ). No lines: the dicts are equal.
"""

from __future__ import annotations

from typing import Any, List

from returnn.tensor import Dim


def _sorted(keys) -> list:
    try:
        return sorted(keys)
    except TypeError:  # mixed key types: a stable order all the same
        return sorted(keys, key=lambda k: (type(k).__name__, repr(k)))


def _not_equal(a: Any, b: Any) -> bool:
    if isinstance(a, Dim) and isinstance(b, Dim):  # as the reference (observed): kind and size, not the name
        return a.kind != b.kind or a.dimension != b.dimension
    try:
        result = a != b
        return bool(result) if not hasattr(result, "any") else bool(result.any())
    except Exception:  # noqa: BLE001 (objects that cannot be compared count as different)
        return a is not b


def net_dict_diff(self_value: Any, other: Any, prefix: str = "") -> List[str]:
    """:return: the lines describing how ``other`` (new) differs from ``self_value`` (current); [] if equal"""
    if self_value is None and other is not None:
        return ["%sself is None and other is %r" % (prefix, other)]
    if other is None and self_value is not None:
        return ["%sother is None and self is %r" % (prefix, self_value)]
    if type(self_value) is not type(other):
        return ["%stype diff: self is %s but other is %s" % (prefix, type(self_value).__name__, type(other).__name__)]
    if isinstance(self_value, dict):
        lines = []
        for key in _sorted(k for k in self_value if k not in other):
            lines.append("%s  key %r not in other" % (prefix, key))
        for key in _sorted(k for k in other if k not in self_value):
            lines.append("%s  key %r not in self" % (prefix, key))
        for key in _sorted(k for k in self_value if k in other):
            lines += net_dict_diff(self_value[key], other[key], "%s[%r] " % (prefix, key))
        return ["%sdict diff:" % prefix] + lines if lines else []
    if isinstance(self_value, (list, tuple)):
        if len(self_value) != len(other):
            return ["%slist diff len: len self: %i, len other: %i" % (prefix, len(self_value), len(other))]
        lines = []
        for i, (a, b) in enumerate(zip(self_value, other)):
            lines += net_dict_diff(a, b, "%s[%i] " % (prefix, i))
        return ["%slist diff:" % prefix] + lines if lines else []
    if isinstance(self_value, (set, frozenset)):
        if self_value == other:
            return []
        if len(self_value) == len(other):
            return ["%sset diff value: self: %r != other: %r" % (prefix, a, b)
                    for a, b in zip(_sorted(self_value), _sorted(other)) if a != b]
        return (["%sset diff:" % prefix] + ["%s  %r not in other" % (prefix, v) for v in _sorted(self_value - other)]
                + ["%s  %r not in self" % (prefix, v) for v in _sorted(other - self_value)])
    if _not_equal(self_value, other):
        return ["%sself: %r != other: %r" % (prefix, self_value, other)]
    return []
