"""Wrapping an object so that it compares and hashes by identity (``is``), e.g. as a dict key for tensors or
arrays whose ``==`` is element-wise."""

from __future__ import annotations

from typing import Any, Generic, Iterator, Tuple, TypeVar

T = TypeVar("T")


class RefIdEq(Generic[T]):
    """Holds ``obj``; two wrappers are equal iff they hold the same object, the hash is ``id(obj)``.

    ``repr`` is ``TensorRef{<repr of obj>}`` (as the reference). A wrapper never equals the bare object.
    """

    def __init__(self, obj: T):
        self.obj = obj

    def __repr__(self) -> str:
        return "TensorRef{%r}" % (self.obj,)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RefIdEq) and other.obj is self.obj

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self.obj)


K = TypeVar("K")
V = TypeVar("V")


class DictRefKeys(Generic[K, V]):
    """A mapping whose keys compare by identity (each key held as a :class:`RefIdEq`), e.g. tensors or arrays.

    ``DictRefKeys(items=None, /, **kwargs)`` (items: a dict or ``(key, value)`` pairs); ``d[k]``, ``d[k] = v``,
    ``k in d``, :meth:`items`, :meth:`keys`, :meth:`values`, :meth:`update`. A missing key raises ``KeyError``
    naming its ``RefIdEq``. As the reference (observed), there is no ``len``, ``del`` or ``get``.
    """

    def __init__(self, items: Any = None, /, **kwargs: V):
        self._d: dict = {}
        if items is not None:
            self.update(items)
        self.update(kwargs)

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, ", ".join(f"{k.obj!r}: {v!r}" for k, v in self._d.items()))

    def __getitem__(self, key: K) -> V:
        return self._d[RefIdEq(key)]

    def __setitem__(self, key: K, value: V) -> None:
        self._d[RefIdEq(key)] = value

    def __contains__(self, key: Any) -> bool:
        return RefIdEq(key) in self._d

    def items(self) -> Iterator[Tuple[K, V]]:
        """:return: the (key, value) pairs in insertion order"""
        return ((k.obj, v) for k, v in self._d.items())

    def keys(self) -> Iterator[K]:
        """:return: the keys in insertion order"""
        return (k.obj for k in self._d.keys())

    def values(self) -> Iterator[V]:
        """:return: the values in insertion order"""
        return iter(self._d.values())

    def update(self, other: Any) -> None:
        """Sets the pairs of ``other`` (a dict, a :class:`DictRefKeys`, or ``(key, value)`` pairs)."""
        pairs = other.items() if isinstance(other, (dict, DictRefKeys)) else other
        for k, v in pairs:
            self[k] = v
