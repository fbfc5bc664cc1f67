"""eventsourcing's PostgreSQL store with every statement bounded in time.

The library appends events under an exclusive lock on the event table, and by default a
statement may wait for that lock, and run, for ever: one slow import's INSERT stopped every
other write for minutes. Here every connection of the pool starts with `statement_timeout`
and `lock_timeout` (libpq `options`, CRONACA_DB_STATEMENT_TIMEOUT / CRONACA_DB_LOCK_TIMEOUT),
the library's own per-insert `SET LOCAL lock_timeout` follows the same lock timeout, and a
statement cut by either is answered at once as `StoreBusy` (503) instead of being retried
ten times by the library. Lost connections are still retried, after the pool has dropped
every dead idle connection (`pool.check()`; PRE_PING instead made requests wait 13-28 s
behind psycopg_pool's growing back-off, tests/faults/test_api_processes.py).

Chosen by `settings.store_env` for `PERSISTENCE_MODULE=eventsourcing.postgres`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import psycopg.errors
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresFactory
from eventsourcing.utils import Environment, EnvType
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from domain.records.errors import RecordsError
from domain.records.settings import db_timeouts

RETRIES = 10  # a lost connection, as the library does
RETRY_WAIT = 0.2


class StoreBusy(RecordsError, OperationalError):
    """A statement the database cut because it waited for a lock, or ran, longer than allowed."""

    status = 503
    title = "Service Unavailable"


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc.__cause__, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled)


def _bounded(call: Callable[..., Any], what: str, appends: bool = False) -> Callable[..., Any]:
    """The library's call without its retries for timeouts: a cut statement is answered at once.

    An append retried after its connection was lost may find its own rows there: the server committed
    them, and the connection died before the answer came back (seen by hand: `pg_terminate_backend` while
    `cronaca import` saved files stopped it with "duplicate key", its file saved). When every row the
    retry meets is the one it sends, byte for byte, the append (`appends`) was stored: it succeeds, with the rows'
    notification ids. Any other row there is another writer's, and the conflict stands (IntegrityError)."""
    unretried = getattr(call, "__wrapped__", call)

    def run(self: PostgresAggregateRecorder, *args: Any, **kwargs: Any) -> Any:
        lost = False
        for attempt in range(RETRIES):
            try:
                return unretried(self, *args, **kwargs)
            except IntegrityError:
                if lost and appends:
                    stored, ids = _stored_already(self, args[0] if args else kwargs["stored_events"])
                    if stored:
                        return ids
                raise
            except (InterfaceError, OperationalError) as exc:
                if isinstance(exc, StoreBusy):
                    raise
                if _timed_out(exc):
                    raise StoreBusy(f"the event store is busy: {what} was cut after waiting too long ({exc}); "
                                    "try again in a moment") from exc
                if attempt == RETRIES - 1:
                    raise
                lost = True
                # A connection lost (the server restarted, pg_terminate_backend) usually means every idle one of
                # the pool is dead too: drop them all at once, or each retry would draw the next dead one.
                pool = getattr(getattr(self, "datastore", None), "pool", None)
                if pool is not None:
                    pool.check()
                if attempt:
                    time.sleep(RETRY_WAIT)
        raise AssertionError("unreachable")

    run.__name__ = call.__name__
    run.__doc__ = call.__doc__
    return run


def _stored_already(self: PostgresAggregateRecorder, stored_events: Sequence[StoredEvent]) -> tuple[bool, list[int] | None]:
    """Whether every one of these rows is in the table as given (same stream, version, topic and bytes), and
    their notification ids (None for a table without, as the library's `insert_events` answers there)."""
    if not stored_events:
        return False, None
    with_ids = isinstance(self, PostgresApplicationRecorder)
    query = SQL("SELECT t.originator_id, t.originator_version, t.topic, t.state{ids} FROM {schema}.{table} AS t "
                "JOIN unnest(%s::{id_type}[], %s::bigint[]) AS k(i, v) ON t.originator_id = k.i "
                "AND t.originator_version = k.v").format(
        ids=SQL(", t.notification_id") if with_ids else SQL(""), id_type=Identifier(self.datastore.originator_id_type),
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(query, [[e.originator_id for e in stored_events], [e.originator_version for e in stored_events]])
        found = {(row[0], row[1]): row for row in cursor.fetchall()}
    ids = []
    for event in stored_events:
        row = found.get((event.originator_id, event.originator_version))
        if row is None or row[2] != event.topic or bytes(row[3]) != event.state:
            return False, None
        ids.append(row[4] if with_ids else 0)
    return True, ids if with_ids else None


class CopyRows(PostgresAggregateRecorder):
    """An append's rows sent by `COPY ... FROM STDIN (FORMAT BINARY)`, not by the library's INSERT of a
    composite array: psycopg writes each row in C, and the server stores a copied row for about two thirds of
    what an inserted one costs it (`benchmarks/deployment_imports.py`: an import's ~400 rows, 4,200 a batch).
    The rows and their order are the library's; COPY takes the columns' defaults, as INSERT does (a notification
    id from the table's sequence). Snapshots' rows go this way too (autocommit: the COPY is its own transaction)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.copy_rows_statement = SQL(
            "COPY {schema}.{table} (originator_id, originator_version, topic, state) FROM STDIN (FORMAT BINARY)"
        ).format(schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))

    def _insert_stored_events(self, curs: Any, stored_events: Any, **_: Any) -> None:
        with curs.copy(self.copy_rows_statement) as copy:
            copy.set_types([self.datastore.originator_id_type, "int8", "text", "bytea"])
            write = copy.write_row
            for e in stored_events:
                write((e.originator_id, e.originator_version, e.topic, e.state))


def _select_rows(self: PostgresAggregateRecorder, originator_id: Any, gt: int | None = None) -> list[tuple[int, str, bytes]]:
    """(version, topic, state) of a stream's rows after version `gt`, oldest first (timeline.select_stream):
    the library's `select_events` makes a dict, a UUID and a `StoredEvent` of every row, 38 of the 48 ms it
    took to select a 5,248-row stream (10 ms this way)."""
    query = SQL("SELECT originator_version, topic, state FROM {schema}.{table} WHERE originator_id = %s").format(
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    arguments: list[Any] = [originator_id]
    if gt is not None:
        query += SQL(" AND originator_version > %s")
        arguments.append(gt)
    with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(query + SQL(" ORDER BY originator_version"), arguments, prepare=True)
        return cursor.fetchall()


def _select_many_rows(self: PostgresAggregateRecorder, originator_ids: list[Any]) -> list[tuple[Any, int, str, bytes]]:
    """(id, version, topic, state) of several streams' rows, by id and oldest first (timeline.select_streams)."""
    query = SQL("SELECT originator_id, originator_version, topic, state FROM {schema}.{table} "
                "WHERE originator_id = ANY(%s) ORDER BY originator_id, originator_version").format(
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(query, [list(originator_ids)], prepare=True)
        return cursor.fetchall()


class BoundedAggregateRecorder(CopyRows):
    """Snapshots."""

    insert_events = _bounded(PostgresAggregateRecorder.insert_events, "a write (nothing was written)", appends=True)
    select_events = _bounded(PostgresAggregateRecorder.select_events, "a read")
    select_rows = _bounded(_select_rows, "a read")


class BoundedApplicationRecorder(PostgresApplicationRecorder, CopyRows):
    """Records and imports: the library's append (the event table's lock, its notification, the rows, commit)
    with the rows copied (`CopyRows`), so outside the library's pipeline (COPY cannot run in one)."""

    def _append(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        """The rows, under the lock that orders every append's notification ids as the appends commit; their
        ids, which COPY cannot return: the sequence gave them one after another (no other writer can take one
        while the lock is held), so they end at the session's `lastval()`."""
        if not stored_events:
            return []
        with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor(row_factory=tuple_row) as curs:
            self._lock_table(curs)
            self._notify_channel(curs)
            self._insert_stored_events(curs, stored_events, **kwargs)
            curs.execute("SELECT lastval()")
            row = curs.fetchone()
            assert row is not None
            last = int(row[0])
        return list(range(last - len(stored_events) + 1, last + 1))

    insert_events = _bounded(_append, "a write (nothing was written)", appends=True)
    select_events = _bounded(PostgresApplicationRecorder.select_events, "a read")
    select_rows = _bounded(_select_rows, "a read")
    select_many_rows = _bounded(_select_many_rows, "a read")
    select_notifications = _bounded(PostgresApplicationRecorder.select_notifications, "a read")


class BoundedPostgresFactory(PostgresFactory):
    aggregate_recorder_class = BoundedAggregateRecorder
    application_recorder_class = BoundedApplicationRecorder

    def __init__(self, env: Environment | EnvType | None) -> None:
        super().__init__(env)
        statement, lock = db_timeouts(self.env)
        pool = self.datastore.pool
        assert isinstance(pool.kwargs, dict)  # the library gives a dict; the pool is not open yet
        pool.kwargs["options"] = f"-c statement_timeout={round(statement * 1000)} -c lock_timeout={round(lock * 1000)}"
        if not self.env.get(self.POSTGRES_LOCK_TIMEOUT):
            self.datastore.lock_timeout = max(1, math.ceil(lock))  # the library's SET LOCAL, in whole seconds
