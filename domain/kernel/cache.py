"""One bounded cache type for every per-process cache of Cronaca (steps, boards, folds, timelines, sections).

Why not `functools.lru_cache`: these caches are keyed by values computed at the call site (a record id and a
version, a step and a reader), are filled from outside (`put`), and must be counted: each one is registered by
name so `/metrics` (api/metrics.py) can show its size, hits and misses without the domain importing Prometheus.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

_MISSING = object()


@dataclass(frozen=True)
class CacheStats:
    """What `/metrics` shows of one cache."""

    name: str
    size: int
    capacity: int
    hits: int
    misses: int


class Bounded(Generic[K, V]):
    """At most `capacity` entries, least recently used dropped first; thread-safe; counted under `name`."""

    def __init__(self, name: str, capacity: int, *, register: bool = True) -> None:
        if capacity < 0:
            raise ValueError(f"a cache holds zero or more entries, not {capacity}")
        self.name = name
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        if register:
            _register(self)

    def get(self, key: K) -> V | None:
        """The value kept under `key` (now the most recently used), or None."""
        with self._lock:
            found = self._entries.get(key, _MISSING)
            if found is _MISSING:
                self.misses += 1
                return None
            self.hits += 1
            self._entries.move_to_end(key)
            return found  # type: ignore[return-value]

    def put(self, key: K, value: V) -> list[tuple[K, V]]:
        """Keep `value` under `key`; returns the entries dropped to make room (oldest first)."""
        dropped: list[tuple[K, V]] = []
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                dropped.append(self._entries.popitem(last=False))
        return dropped

    def put_if(self, key: K, value: V, newer: Callable[[V, V], bool]) -> None:
        """Keep `value` unless the entry kept under `key` is newer by `newer(kept, value)`; either way it is used."""
        with self._lock:
            kept = self._entries.get(key, _MISSING)
            if kept is _MISSING or not newer(kept, value):  # type: ignore[arg-type]
                self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        with self._lock:
            return self._entries.pop(key, None)

    def pop_oldest(self) -> tuple[K, V] | None:
        """Drop the least recently used entry and return it, or None when empty: for an owner that bounds its
        cache by more than a count (the boards' bytes, domain/records/presenting.py)."""
        with self._lock:
            return self._entries.popitem(last=False) if self._entries else None

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._entries)

    def stats(self) -> CacheStats:
        return CacheStats(self.name, len(self._entries), self.capacity, self.hits, self.misses)


_REGISTRY: weakref.WeakSet[Bounded[object, object]] = weakref.WeakSet()  # a closed application's caches go with it
_REGISTRY_LOCK = threading.Lock()


def _register(cache: Bounded[K, V]) -> None:
    with _REGISTRY_LOCK:
        _REGISTRY.add(cache)  # type: ignore[arg-type]


def every_cache() -> Iterator[CacheStats]:
    """The stats of every registered cache, summed by name (several applications in one process share a name)."""
    with _REGISTRY_LOCK:
        caches = list(_REGISTRY)
    summed: dict[str, CacheStats] = {}
    for cache in caches:
        s = cache.stats()
        was = summed.get(s.name)
        summed[s.name] = s if was is None else CacheStats(
            s.name, was.size + s.size, was.capacity + s.capacity, was.hits + s.hits, was.misses + s.misses)
    yield from summed.values()
