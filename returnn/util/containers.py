"""Small container helpers of the reference's ``returnn.util.basic``: ``FrozenDict``, ``make_hashable``,
``DictAsObj`` (dict → attributes), ``ObjAsDict`` (attributes → read-only mapping)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, Iterator


class FrozenDict(dict):
    """A dict that cannot be changed after construction and so can be hashed (by its items); equal to a plain dict
    with the same items.

    :raises ValueError: on any modification (``d[k] = v``, ``del``, ``update``, ``pop``, ...)
    """

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise ValueError("FrozenDict cannot be modified")

    __setitem__ = __delitem__ = update = pop = popitem = setdefault = clear = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=lambda kv: repr(kv[0]))))

    def __reduce__(self):
        return FrozenDict, (dict(self),)


def make_hashable(obj: Any) -> Any:
    """A hashable equivalent of ``obj``, recursively: dicts → :class:`FrozenDict`, lists and tuples → tuples;
    hashable values (numbers, strings, None, frozensets, ...) as they are.

    :raises TypeError: ``obj`` (or a part of it) is unhashable and of another type (a set, a numpy array, ...)
    """
    if isinstance(obj, dict):
        return FrozenDict((make_hashable(k), make_hashable(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return tuple(make_hashable(item) for item in obj)
    try:
        hash(obj)
    except TypeError:
        raise TypeError(f"make_hashable: cannot make {obj!r} ({type(obj).__name__}) hashable "
                        f"(expected dicts, lists, tuples of hashable values)") from None
    return obj


class DictAsObj:
    """The items of ``dikt`` as attributes (``DictAsObj({"a": 1}).a == 1``)."""

    def __init__(self, dikt: Dict[str, Any]):
        self.__dict__.update(dikt)


class ObjAsDict(Mapping):
    """A read-only mapping view of the attributes of ``obj`` (``ObjAsDict(o)["x"] is o.x``).

    :raises KeyError: (lookup) ``obj`` has no such attribute
    """

    def __init__(self, obj: Any):
        self.__obj = obj

    def __getitem__(self, key: str) -> Any:
        try:
            return getattr(self.__obj, key)
        except AttributeError as exc:
            raise KeyError(exc) from None

    def __iter__(self) -> Iterator[str]:
        return iter(vars(self.__obj))

    def __len__(self) -> int:
        return len(vars(self.__obj))

    def __repr__(self) -> str:
        return f"ObjAsDict({self.__obj!r})"
