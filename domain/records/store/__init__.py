"""The event store's fast reads behind one small recorder interface, as the eventsourcing library's own
`searchablecontent` example extends its recorders.

The library's `select_events` makes a UUID, a dict (PostgreSQL) and a `StoredEvent` of every row, and its
`select_notifications` a `Notification`: most of the cost of reading a record whose every game event is a row.
What the records application reads often it asks its recorder for as plain tuples instead, in one query each:

- `select_rows`: a stream's (version, topic, state) (timeline.py: a record's game state, /verify, exports);
- `select_many_rows`: several streams at once (a batch job's imports);
- `select_notified_rows`: a window of the notification log, some states cut short (directory.py's catch-up);
- `select_states`: whole states by notification id (the scores a catch-up left unread).

Two implementations, each the library's own application recorder extended: `sqlite.SQLiteRows` and
`postgres.PostgresRows` (the latter with every statement bounded in time). They are made by an
InfrastructureFactory of their own (`sqlite.SQLiteStore`, `postgres.PostgresStore`), chosen as the library
chooses any factory, by `PERSISTENCE_MODULE`: `construct_factory` (the `Records.construct_factory` extension
point) names ours for the library's own SQLite and PostgreSQL modules, and leaves any other store (the
in-memory one) to the library. Callers ask `select_stream`/`select_streams` here: a recorder without the
interface answers the library's way, the same rows.

Both factories are also `Versioned`: the schema's numbered steps of `cronaca db upgrade` (api/schema.py), each
applied once and recorded in a small table beside the event store's own, with each database's own SQL.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactory, Recorder
from eventsourcing.utils import Environment, resolve_topic

Row = tuple[int, str, bytes]
"""(version, topic, state) of one stored event."""
StreamRow = tuple[UUID, int, str, bytes]
"""(stream id, version, topic, state) of one stored event."""
NotifiedRow = tuple[int, UUID, str, bytes]
"""(notification id, stream id, topic, state) of one stored event."""

Step = tuple[int, str, Callable[[list[Recorder]], None]]
"""A numbered step of the schema: its version, what it makes in words, and what it runs on the store's recorders."""
VERSION_TABLE = "cronaca_schema"
"""The steps applied: (version, description, applied_at), beside the event store's tables."""

OURS = {
    "eventsourcing.sqlite": "domain.records.store.sqlite:SQLiteStore",
    "eventsourcing.postgres": "domain.records.store.postgres:PostgresStore",
}
"""The factory made for each of the library's persistence modules."""


class RowRecorder(ApplicationRecorder, ABC):
    """An application recorder that also answers the records application's fast reads as tuples, one query each."""

    @abstractmethod
    def select_rows(self, stream_id: UUID, gt: int | None = None) -> list[Row]:
        """(version, topic, state) of a stream's stored events after version `gt`, oldest first."""

    @abstractmethod
    def select_many_rows(self, stream_ids: Sequence[UUID]) -> list[StreamRow]:
        """(id, version, topic, state) of several streams' stored events, by id and oldest first."""

    @abstractmethod
    def select_notified_rows(self, after: int, upto: int, topics: Sequence[str], short: Sequence[str] = (),
                             prefix: int = 0, empty: Sequence[str] = ()) -> list[NotifiedRow]:
        """(notification id, id, topic, state) of the notifications in (after, upto] of these topics, oldest first;
        the state of a topic in `short` cut to its first `prefix` bytes, of a topic in `empty` left out (b"")."""

    @abstractmethod
    def select_states(self, notification_ids: Sequence[int]) -> dict[int, bytes]:
        """The whole stored state of these notifications, by notification id (an id not stored is missing)."""


class UpgradeError(Exception):
    """The upgrade could not run (another one held the lock too long); said in one line."""


class Versioned(ABC):
    """A store whose schema is made by numbered steps, each applied once and recorded in VERSION_TABLE."""

    @abstractmethod
    def apply_steps(self, steps: Sequence[Step], recorders: Callable[[], list[Recorder]],
                    say: Callable[[str], None]) -> list[str]:
        """The steps not recorded yet applied in order (on `recorders()`, made once), each recorded; returns them
        ("1: ..."), empty when up to date. Safe to run from several processes or hosts at once."""

    @abstractmethod
    def schema_found(self, events_table: str) -> tuple[bool, int | None]:
        """(whether the event store's tables are there, the highest step recorded: 0 for none, None when no
        version table is kept). Raises when the store does not answer."""

    @abstractmethod
    def schema_ready(self) -> None:
        """Called once the schema is found, before the store serves."""


def construct_factory(env: Environment) -> InfrastructureFactory[Any]:
    """The factory for this environment: ours for the library's SQLite and PostgreSQL modules, else the library's."""
    ours = OURS.get(env.get(InfrastructureFactory.PERSISTENCE_MODULE) or "")
    if ours is None:
        return InfrastructureFactory.construct(env)
    factory: InfrastructureFactory[Any] = resolve_topic(ours)(env)
    return factory


def select_stream(recorder: Any, stream_id: UUID, gt: int | None = None) -> list[Row]:
    """(version, topic, state) of a stream's stored events after version `gt`, oldest first: by `select_rows`, or
    the library's `select_events` for a recorder without the interface (the in-memory store)."""
    if isinstance(recorder, RowRecorder):
        return recorder.select_rows(stream_id, gt=gt)
    return [(row.originator_version, row.topic, row.state) for row in recorder.select_events(stream_id, gt=gt)]


def select_streams(recorder: Any, stream_ids: list[UUID]) -> dict[UUID, list[Row]]:
    """`select_stream` of several streams in one query (a batch job's imports): every stream's rows,
    oldest first, by id; a stream with no rows is missing."""
    if isinstance(recorder, RowRecorder):
        rows = recorder.select_many_rows(stream_ids)
    else:
        rows = [(i, version, topic, state) for i in stream_ids for version, topic, state in select_stream(recorder, i)]
    found: dict[UUID, list[Row]] = {}
    for stream_id, version, topic, state in rows:
        found.setdefault(stream_id, []).append((version, topic, state))
    return found
