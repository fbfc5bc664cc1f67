"""Streams kept read per process and brought up to date with only the events saved since.

The library's own `repository.get` folds every stored event of a stream and checks each against
a runtime Protocol (~0.2 ms an event), which made a record with 500 notes cost 0.1 s a reading.
A record's notes (annotations.py) and rulings (rulings.py) are read far more often than written:
the kept aggregate is read-only and shared between readers; a newer version is a copy.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Generic, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate

from domain.kernel.cache import Bounded

if TYPE_CHECKING:
    from domain.records.application import Records

A = TypeVar("A", bound=Aggregate)


class Kept(Generic[A]):
    """At most `size` streams' aggregates, least recently read dropped first."""

    def __init__(self, records: Records, size: int, name: str) -> None:
        self.records = records
        self.size = size
        self._kept: Bounded[UUID, A] = Bounded(name, size)

    def get(self, stream_id: UUID) -> A | None:
        """The stream's aggregate as stored now (never change it), or None when it has no event yet."""
        found = self._kept.get(stream_id)
        if found is None:
            try:
                found = self.records.repository.get(stream_id)
            except AggregateNotFoundError:
                return None
        else:
            newer = list(self.records.repository.event_store.get(stream_id, gt=found.version))
            if newer:
                found = copy.deepcopy(found)
                for stored in newer:
                    found = stored.mutate(found)  # type: ignore[attr-defined]  # the library types its events by a protocol without mutate
        assert found is not None
        self.keep(found)
        return found

    def keep(self, aggregate: A) -> None:
        """Remember an aggregate just read or saved, unless a newer version of it is kept already."""
        self._kept.put_if(aggregate.id, aggregate, lambda known, new: known.version >= new.version)
