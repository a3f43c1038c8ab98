"""Wrapping an object so that it compares and hashes by identity (``is``), e.g. as a dict key for tensors or
arrays whose ``==`` is element-wise."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

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
