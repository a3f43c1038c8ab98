"""Maps the names used in configs (``"class": "linear"``, ``"class": "HDFDataset"``) to implementations.

There is one :class:`Registry` per kind of thing: layers, losses, datasets, optimizers, learning-rate control.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Generic, Iterable, List, Optional, Type, TypeVar

from returnn.errors import UnknownNameError, format_details
from returnn.util.suggest import close_matches

T = TypeVar("T")


class Registry(Generic[T]):
    """A name → object table with did-you-mean errors.

    :param kind: used in messages, e.g. ``"layer class"``
    :param normalize: maps a name to its lookup key (e.g. ``str.lower`` for optimizers)
    :param hints: advice for names that are *not* registered, e.g. ``{"lstm": 'use {"class": "rec", ...}'}``
    """

    def __init__(self, kind: str, *, normalize: Callable[[str], str] = str, hints: Optional[Dict[str, str]] = None):
        self.kind = kind
        self._normalize = normalize
        self._hints = dict(hints or {})
        self._entries: Dict[str, T] = {}
        self._display: Dict[str, str] = {}

    def register(self, name: str, value: T, *, aliases: Iterable[str] = (), overwrite: bool = False) -> T:
        """Registers ``value`` under ``name`` and each alias.

        :raises ValueError: if a name is taken by another object and ``overwrite`` is False
        :return: ``value``, so this can be used in decorators
        """
        for display in (name, *aliases):
            key = self._normalize(display)
            existing = self._entries.get(key)
            if existing is not None and existing is not value and not overwrite:
                raise ValueError(f"{self.kind} {key!r} is already registered as {existing!r}")
            self._entries[key] = value
            self._display[key] = display
        return value

    def register_class(self, name: str, klass: T, *, aliases: Iterable[str] = (), error: Type[Exception],
                       hint: str) -> T:
        """Registers the class ``klass`` under ``name`` and each alias, once: the same class again (also a module
        reloaded: same module and qualified name) replaces its entry.

        :param error: the exception class raised on a clash (constructed with the message)
        :param hint: the advice the clash message ends with
        :raises error: a name is taken by another class (the message names both)
        :return: ``klass``
        """
        for display in (name, *aliases):
            existing = self._entries.get(self._normalize(display))
            if existing is not None and existing is not klass and qualified_name(existing) != qualified_name(klass):
                raise error("\n".join(
                    [f"cannot register {self.kind} {qualified_name(klass)} as {display!r}: that name is already "
                     f"taken by {qualified_name(existing)}"] + format_details(hint=hint)))
        return self.register(name, klass, aliases=aliases, overwrite=True)

    def get(self, name: str, *, context: Optional[str] = None) -> T:
        """:raises UnknownNameError: listing the known names and the closest matches"""
        key = self._normalize(name)
        if key in self._entries:
            return self._entries[key]
        raise UnknownNameError(
            kind=self.kind,
            name=name,
            suggestions=[self._display[k] for k in close_matches(key, self._entries)],
            known=self.names(),
            hint=self._hints.get(key),
            context=context,
        )

    def __contains__(self, name: str) -> bool:
        return self._normalize(name) in self._entries

    def names(self) -> List[str]:
        """Sorted display names of all entries (aliases included)."""
        return sorted(self._display[k] for k in self._entries)


def qualified_name(obj: Any) -> str:
    """:return: ``module.QualName`` of a class or function (``?`` for a missing part)"""
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', obj)}"
