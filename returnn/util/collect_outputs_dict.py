"""``CollectOutputsDict``: a dict that keeps only the keys matching given patterns (e.g. which encoder layers'
outputs a model collects, ``collected_outputs`` of ``ConformerEncoder``), as the reference's module of this name
(behaviour observed)."""

from __future__ import annotations

import fnmatch
from typing import Any, Dict, Optional, Sequence, Union

__all__ = ["CollectOutputsDict", "is_key_allowed_in_collect_outputs_dict"]


class CollectOutputsDict(dict):
    """A dict that silently ignores keys not matching any of ``allowed_key_patterns`` (``fnmatch`` patterns, e.g.
    ``"11"`` or ``"enc*"``); None: every key. Setting, ``setdefault`` (which returns None for an ignored key) and
    ``update`` follow the patterns; reading is a plain dict's."""

    def __init__(self, *args: Any, allowed_key_patterns: Optional[Sequence[str]] = None, **kwargs: Any):
        super().__init__()
        self.allowed_key_patterns = None if allowed_key_patterns is None else list(allowed_key_patterns)
        self.update(*args, **kwargs)

    def is_key_allowed(self, key: str) -> bool:
        """:return: whether ``key`` matches one of the patterns (always True without patterns)"""
        if self.allowed_key_patterns is None:
            return True
        return any(fnmatch.fnmatchcase(key, pattern) for pattern in self.allowed_key_patterns)

    def __setitem__(self, key: str, value: Any) -> None:
        if self.is_key_allowed(key):
            super().__setitem__(key, value)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """:return: the value of ``key`` (set to ``default`` if missing); None for a key that is not allowed"""
        if not self.is_key_allowed(key):
            return None
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        """Sets the allowed keys of ``dict(*args, **kwargs)``."""
        other: Dict[str, Any] = dict(*args, **kwargs)
        for key, value in other.items():
            self[key] = value


def is_key_allowed_in_collect_outputs_dict(collect_outputs: Union[CollectOutputsDict, dict], key: str) -> bool:
    """:return: whether ``collect_outputs`` keeps ``key`` (a plain dict keeps every key)"""
    if isinstance(collect_outputs, CollectOutputsDict):
        return collect_outputs.is_key_allowed(key)
    return True
