"""The one bounded cache type: least recently used dropped first, counted, registered by name."""

import gc

from domain.kernel.cache import Bounded, every_cache


def test_drops_the_least_recently_used_and_counts():
    cache: Bounded[str, int] = Bounded("test-lru", 2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent
    dropped = cache.put("c", 3)
    assert dropped == [("b", 2)]
    assert cache.get("b") is None
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 2)


def test_put_if_keeps_the_newer():
    cache: Bounded[str, int] = Bounded("test-newer", 4)
    cache.put_if("k", 5, lambda kept, new: kept >= new)
    cache.put_if("k", 3, lambda kept, new: kept >= new)
    assert cache.get("k") == 5


def test_pop_oldest_drops_the_least_recently_used():
    cache: Bounded[str, int] = Bounded("test-oldest", 3)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")  # b is now the oldest
    assert cache.pop_oldest() == ("b", 2)
    assert cache.keys() == ["a"]
    assert cache.pop_oldest() == ("a", 1)
    assert cache.pop_oldest() is None
    assert len(cache) == 0


def test_registered_by_name_and_forgotten_with_its_owner():
    cache: Bounded[int, int] = Bounded("test-registered", 3)
    cache.put(1, 1)
    cache.get(1)
    stats = {s.name: s for s in every_cache()}
    assert stats["test-registered"].size == 1 and stats["test-registered"].hits == 1
    del cache
    gc.collect()
    assert "test-registered" not in {s.name for s in every_cache()}
