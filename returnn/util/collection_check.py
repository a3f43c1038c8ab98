"""``CollectionReadCheckCovered``: a read-only view of an options dict that records which keys were read, so
that unused (e.g. misspelled) options can be reported."""

from __future__ import annotations

from typing import Any, Dict, Optional, Set, Union


class CollectionReadCheckCovered:
    """Wraps ``collection`` and records the keys read through :meth:`get` / ``[]``.

    :param collection: the options
    :param truth_value: ``bool()`` of this object; default: whether ``collection`` is non-empty
    """

    def __init__(self, collection: Dict[str, Any], truth_value: Optional[bool] = None):
        self.collection = collection
        self.truth_value = bool(collection) if truth_value is None else truth_value
        self.got_items: Set[str] = set()

    @classmethod
    def from_bool_or_dict(cls, value: Union[bool, Dict[str, Any]]) -> CollectionReadCheckCovered:
        """``True``/``False`` → an empty collection with that truth value; a dict → wrapped as is.

        :raises TypeError: anything else
        """
        if isinstance(value, bool):
            return cls({}, truth_value=value)
        if isinstance(value, dict):
            return cls(value)
        raise TypeError(f"CollectionReadCheckCovered: expected a bool or dict, got {type(value).__name__} {value!r}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.collection!r}, truth_value={self.truth_value!r})"

    def __bool__(self) -> bool:
        return self.truth_value

    def __contains__(self, key: str) -> bool:
        return key in self.collection

    def get(self, key: str, default: Any = None) -> Any:
        """``collection.get(key, default)``; marks ``key`` as read."""
        self.got_items.add(key)
        return self.collection.get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.got_items.add(key)
        return self.collection[key]

    def assert_all_read(self) -> None:
        """:raises AssertionError: naming the keys of the collection that were never read"""
        remaining = set(self.collection) - self.got_items
        if remaining:
            raise AssertionError(f"The keys {remaining!r} were not read in the collection {self.collection!r}.")
