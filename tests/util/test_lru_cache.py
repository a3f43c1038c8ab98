import gc
import weakref

import pytest

from returnn.util.lru_cache import lru_cache


def test_basic():
    calls = []

    @lru_cache(maxsize=2)
    def f(x, y=0):
        calls.append((x, y))
        return x + y

    assert f(1) == 1 and f(1) == 1 and f(2, y=3) == 5
    assert calls == [(1, 0), (2, 3)]
    assert f.cache_info().hits == 1 and f.cache_len() == 2
    f(3)  # evicts the least recently used, (1,)
    f(1)
    assert calls[-1] == (1, 0)
    assert f.cache_pop(1) == 1 and f.cache_pop(1, fallback="none") == "none"
    with pytest.raises(KeyError):
        f.cache_pop(99)
    f.cache_clear()
    assert f.cache_len() == 0


def test_reentrant_finalizer_on_eviction():
    """A cached value whose finalizer calls cache_pop of the same cache, run when the value is evicted."""
    fired = []

    class Holder:
        pass

    @lru_cache(maxsize=1)
    def f(x):
        h = Holder()
        weakref.finalize(h, lambda: (fired.append(x), f.cache_pop(x, fallback=None)))
        return h

    f(1)
    f(2)  # evicts 1 -> its finalizer re-enters the cache
    gc.collect()
    assert fired == [1]
    assert f(3) is not None and f.cache_len() == 1
    f.cache_clear()
    gc.collect()
    assert sorted(fired) == [1, 2, 3]
