"""The store on SQLite: the library's application recorder with the `RowRecorder` selects, and the schema's steps.

A notification id on SQLite is the events table's `rowid`, so the log's windows are read by it.
SQLite, the embedded default, is one file on one host: the library creates its tables as a process opens the
file (`CREATE TABLE IF NOT EXISTS`, in one transaction), so no step has to run first; `cronaca db upgrade`
records the same versions there all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Recorder
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteFactory

from domain.records.store import VERSION_TABLE, NotifiedRow, Row, RowRecorder, Step, StreamRow, Versioned


def _marks(values: Sequence[Any]) -> str:
    return ",".join("?" * len(values))


class SQLiteRows(RowRecorder, SQLiteApplicationRecorder):
    """Records and imports on SQLite."""

    def select_rows(self, stream_id: UUID, gt: int | None = None) -> list[Row]:
        statement = f"SELECT originator_version, topic, state FROM {self.events_table_name} WHERE originator_id=? "
        params: list[Any] = [stream_id.hex]
        if gt is not None:
            statement += "AND originator_version>? "
            params.append(gt)
        with self.datastore.transaction(commit=False) as c:
            c.execute(statement + "ORDER BY originator_version", params)
            return [tuple(row) for row in c.fetchall()]

    def select_many_rows(self, stream_ids: Sequence[UUID]) -> list[StreamRow]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT originator_id, originator_version, topic, state FROM {self.events_table_name} "
                      f"WHERE originator_id IN ({_marks(stream_ids)}) ORDER BY originator_id, originator_version",
                      [i.hex for i in stream_ids])
            return [(UUID(row[0]), row[1], row[2], row[3]) for row in c.fetchall()]

    def select_notified_rows(self, after: int, upto: int, topics: Sequence[str], short: Sequence[str] = (),
                             prefix: int = 0, empty: Sequence[str] = ()) -> list[NotifiedRow]:
        sql = (f"SELECT rowid, originator_id, topic, CASE WHEN topic IN ({_marks(short) or 'NULL'}) THEN substr(state, 1, ?) "
               f"WHEN topic IN ({_marks(empty) or 'NULL'}) THEN X'' ELSE state END "
               f"FROM {self.events_table_name} WHERE rowid > ? AND rowid <= ? AND topic IN ({_marks(topics)}) "
               "ORDER BY rowid")
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, [*short, prefix, *empty, after, upto, *topics])
            return [(row[0], UUID(row[1]), row[2], bytes(row[3])) for row in c.fetchall()]

    def select_states(self, notification_ids: Sequence[int]) -> dict[int, bytes]:
        if not notification_ids:
            return {}
        with self.datastore.transaction(commit=False) as c:
            c.execute(f"SELECT rowid, state FROM {self.events_table_name} WHERE rowid IN ({_marks(notification_ids)})",
                      list(notification_ids))
            return {row[0]: bytes(row[1]) for row in c.fetchall()}


class SQLiteStore(SQLiteFactory, Versioned):
    """The library's SQLite factory making `SQLiteRows` for the application's events (snapshots: the library's)."""

    application_recorder_class = SQLiteRows

    def apply_steps(self, steps: Sequence[Step], recorders: Callable[[], list[Recorder]],
                    say: Callable[[str], None]) -> list[str]:
        """Each step is `IF NOT EXISTS`, so two upgrades at once both end with the same tables."""
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER PRIMARY KEY, "
                           "description TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")
            cursor.execute(f"SELECT version FROM {VERSION_TABLE}")
            done = {row[0] for row in cursor.fetchall()}
        applied = []
        for version, description, apply in steps:
            if version in done:
                continue
            apply(recorders())
            with self.datastore.transaction(commit=True) as cursor:
                cursor.execute(f"INSERT OR IGNORE INTO {VERSION_TABLE} (version, description) VALUES (?, ?)",
                               (version, description))
            applied.append(f"{version}: {description}")
        return applied

    def schema_found(self, events_table: str) -> tuple[bool, int | None]:
        """Never asked of the file: its tables are made as it is opened."""
        return True, None

    def schema_ready(self) -> None:
        """Nothing to do: the library found the tables as it opened the file."""
