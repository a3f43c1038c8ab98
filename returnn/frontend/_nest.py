"""Flattening nested structures (lists, tuples, named tuples, dicts sorted by key, ``rf.State``) to a list of leaves
and back, as ``rf.cond``/``rf.while_loop``/``rf.nested`` need (no dm-tree dependency)."""

from __future__ import annotations

from typing import Any, Iterator, List


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def flatten(structure: Any) -> List[Any]:
    """:return: the leaves, depth first (dict and State entries in sorted key order); None is a leaf"""
    out: List[Any] = []
    _flatten(structure, out)
    return out


def _children(x: Any) -> Any:
    from returnn.frontend.state import State
    if isinstance(x, (dict, State)):
        return [x[k] for k in sorted(x.keys())]
    if isinstance(x, (list, tuple)):
        return list(x)
    return None


def _flatten(x: Any, out: List[Any]) -> None:
    children = _children(x)
    if children is None:
        out.append(x)
        return
    for c in children:
        _flatten(c, out)


def unflatten_as(structure: Any, flat: List[Any]) -> Any:
    """:return: ``structure`` with its leaves replaced by ``flat`` (in :func:`flatten` order)"""
    it = iter(flat)
    result = _rebuild(structure, it)
    rest = list(it)
    if rest:
        raise ValueError(f"unflatten_as: {len(rest)} values left over")
    return result


def _rebuild(x: Any, it: Iterator[Any]) -> Any:
    from returnn.frontend.state import State
    if isinstance(x, (dict, State)):
        values = {k: _rebuild(x[k], it) for k in sorted(x.keys())}
        if isinstance(x, State):
            return State({k: values[k] for k in x.keys()})
        return type(x)((k, values[k]) for k in x.keys()) if type(x) is not dict else {k: values[k] for k in x.keys()}
    if _is_namedtuple(x):
        return type(x)(*[_rebuild(c, it) for c in x])
    if isinstance(x, (list, tuple)):
        return type(x)(_rebuild(c, it) for c in x)
    return next(it)


def map_structure(fn: Any, *structures: Any) -> Any:
    """:return: the first structure with ``fn(*leaves)`` at each leaf (all structures alike)"""
    flats = [flatten(s) for s in structures]
    n = len(flats[0])
    for f in flats[1:]:
        if len(f) != n:
            raise ValueError(f"map_structure: the structures differ ({n} vs {len(f)} leaves)")
    return unflatten_as(structures[0], [fn(*leaves) for leaves in zip(*flats)])
