"""A game event together with the canonical bytes the hash chain hashed (chain.py), so its stored row is made
from those very bytes (rows.RecordMapper) instead of a second encoding. Made by the `Record` aggregate
(aggregates.py) as it records a game event; read by the mapper as it writes the row.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from domain.records.timeline import loads


class Encoded(dict[str, Any]):
    """A game event's JSON object together with its canonical bytes (chain.canonical): what the
    chain hashed and the row holds. Still a dict to everything else (the library's encoder
    included), so a row made another way stays right."""

    __slots__ = ("canonical",)
    canonical: bytes  # set by its maker right after dict's own constructor (no Python __init__: one an event)


class CanonicalEvent(Mapping[str, Any]):
    """A game event carried by its canonical bytes alone: an import's record stores the rules' own events,
    put in their canonical JSON straight from the event objects (`chain.event_bytes`), so no JSON object
    is made of them. Read as a mapping (nothing on the write path does), it is the object those bytes are."""

    __slots__ = ("canonical",)

    def __init__(self, canonical: bytes) -> None:
        self.canonical = canonical

    def _object(self) -> dict[str, Any]:
        found: dict[str, Any] = loads(self.canonical)
        return found

    def __getitem__(self, key: str) -> Any:
        return self._object()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._object())

    def __len__(self) -> int:
        return len(self._object())

    def __repr__(self) -> str:
        return f"CanonicalEvent({self.canonical!r})"
