"""``lru_cache``: like ``functools.lru_cache``, plus ``cache_pop(*args, fallback=..., **kwargs)`` (remove one
entry) and ``cache_len()``; safe when dropping a cached value runs code (a ``weakref.finalize`` callback) that
calls back into the same cache: values are released only after the cache's structure is consistent again."""

from __future__ import annotations

import functools
from collections import OrderedDict, namedtuple
from threading import RLock
from typing import Any, Callable, Hashable, Optional

CacheInfo = namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])

_NOTHING = object()


def _make_key(args: tuple, kwargs: dict, typed: bool) -> Hashable:
    key: tuple = args
    if kwargs:
        key += (_NOTHING,) + tuple(sorted(kwargs.items()))
    if typed:
        key += tuple(type(v) for v in args) + tuple(type(v) for _, v in sorted(kwargs.items()))
    return key


def lru_cache(maxsize: Optional[int] = 128, typed: bool = False) -> Callable[[Callable], Callable]:
    """Decorator: caches the results of the function by its (hashable) arguments, the ``maxsize`` most recently
    used (``None``: unbounded). The wrapper has ``cache_info()``, ``cache_clear()``, ``cache_len()``,
    ``cache_pop(*args, fallback=<raise KeyError>, **kwargs)`` and ``__wrapped__``.

    :param maxsize: how many results are kept
    :param typed: arguments of different types are cached separately (``1`` vs ``1.0``)
    """
    if callable(maxsize) and not isinstance(maxsize, int):  # used as @lru_cache without arguments
        return lru_cache()(maxsize)

    def decorator(func: Callable) -> Callable:
        return _LruCacheWrapper(func, maxsize, typed)

    return decorator


class _LruCacheWrapper:
    def __init__(self, func: Callable, maxsize: Optional[int], typed: bool):
        self.__wrapped__ = func
        self._maxsize = maxsize
        self._typed = typed
        self._cache: OrderedDict = OrderedDict()
        self._lock = RLock()
        self._hits = 0
        self._misses = 0
        functools.update_wrapper(self, func)

    def __get__(self, obj: Any, owner: Any = None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        key = _make_key(args, kwargs, self._typed)
        with self._lock:
            value = self._cache.get(key, _NOTHING)
            if value is not _NOTHING:
                self._cache.move_to_end(key)
                self._hits += 1
                return value
            self._misses += 1
        result = self.__wrapped__(*args, **kwargs)
        evicted = []  # released after the lock: their finalizers may re-enter
        with self._lock:
            if key in self._cache:  # filled meanwhile (re-entrant or other thread)
                self._cache.move_to_end(key)
            elif self._maxsize is None or self._maxsize > 0:
                self._cache[key] = result
                while self._maxsize is not None and len(self._cache) > self._maxsize:
                    evicted.append(self._cache.popitem(last=False))
        del evicted
        return result

    def cache_info(self) -> CacheInfo:
        """Hits, misses, maxsize, current size."""
        with self._lock:
            return CacheInfo(self._hits, self._misses, self._maxsize, len(self._cache))

    def cache_len(self) -> int:
        """Number of cached results."""
        return len(self._cache)

    def cache_clear(self) -> None:
        """Removes all cached results and resets the statistics."""
        with self._lock:
            old = self._cache
            self._cache = OrderedDict()
            self._hits = self._misses = 0
        old.clear()  # finalizers of the values may run here and see the new, empty cache

    def cache_pop(self, *args, fallback: Any = _NOTHING, **kwargs) -> Any:
        """Removes and returns the result cached for these arguments.

        :param fallback: returned when nothing is cached for them
        :raises KeyError: nothing cached and no ``fallback``
        """
        key = _make_key(args, kwargs, self._typed)
        with self._lock:
            value = self._cache.pop(key, _NOTHING)
        if value is _NOTHING:
            if fallback is _NOTHING:
                raise KeyError(args, kwargs)
            return fallback
        return value
