"""The store's fast reads on PostgreSQL: eventsourcing's PostgreSQL store with every statement bounded in time.

The library appends events under an exclusive lock on the event table, and by default a
statement may wait for that lock, and run, for ever: one slow import's INSERT stopped every
other write for minutes. Here every connection of the pool starts with `statement_timeout`
and `lock_timeout` (libpq `options`, CRONACA_DB_STATEMENT_TIMEOUT / CRONACA_DB_LOCK_TIMEOUT),
the library's own per-insert `SET LOCAL lock_timeout` follows the same lock timeout, and a
statement cut by either is answered at once as `StoreBusy` (503) instead of being retried
ten times by the library. Lost connections are still retried, after the pool has dropped
every dead idle connection (`pool.check()`; PRE_PING instead made requests wait 13-28 s
behind psycopg_pool's growing back-off, tests/faults/test_api_processes.py).

The application's events are read by `PostgresRows` (the `RowRecorder` interface, store/__init__.py), and an
append's rows are copied in (`CopyRows`). Made by `PostgresStore`, the factory chosen for
`PERSISTENCE_MODULE=eventsourcing.postgres` (store.construct_factory, settings.store_env).

Processes never create tables here (`settings.store_env` sets CREATE_TABLE=false: four gunicorn workers each
creating them on a fresh database crashed 3 times in 20). `cronaca db upgrade` applies the schema's steps
(`PostgresStore.apply_steps`) under a session advisory lock (`pg_try_advisory_lock`, one key per schema), so
any number of hosts may run it at once: one applies, the others wait and then find nothing to do.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

import psycopg.errors
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, Recorder, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresFactory
from eventsourcing.utils import Environment, EnvType
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from domain.records.errors import RecordsError
from domain.records.settings import db_timeouts
from domain.records.store import VERSION_TABLE, NotifiedRow, Row, RowRecorder, Step, StreamRow, UpgradeError, Versioned

RETRIES = 10  # a lost connection, as the library does
RETRY_WAIT = 0.2
LOCK_WAIT = 120.0  # seconds an upgrade waits for another one to finish before it gives up


class StoreBusy(RecordsError, OperationalError):  # noqa: N818  (a name the API's answers and the docs use)
    """A statement the database cut because it waited for a lock, or ran, longer than allowed."""

    status = 503
    title = "Service Unavailable"


def _timed_out(exc: BaseException) -> bool:
    return isinstance(exc.__cause__, psycopg.errors.LockNotAvailable | psycopg.errors.QueryCanceled)


def bounded(call: Callable[..., Any], what: str, appends: bool = False) -> Callable[..., Any]:
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


def _select_rows(self: PostgresApplicationRecorder, stream_id: UUID, gt: int | None = None) -> list[Row]:
    """`RowRecorder.select_rows`: the library's `select_events` makes a dict, a UUID and a `StoredEvent` of every
    row, 38 of the 48 ms it took to select a 5,248-row stream (10 ms this way)."""
    query = SQL("SELECT originator_version, topic, state FROM {schema}.{table} WHERE originator_id = %s").format(
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    arguments: list[Any] = [stream_id]
    if gt is not None:
        query += SQL(" AND originator_version > %s")
        arguments.append(gt)
    with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(query + SQL(" ORDER BY originator_version"), arguments, prepare=True)
        return cursor.fetchall()


def _select_many_rows(self: PostgresApplicationRecorder, stream_ids: Sequence[UUID]) -> list[StreamRow]:
    query = SQL("SELECT originator_id, originator_version, topic, state FROM {schema}.{table} "
                "WHERE originator_id = ANY(%s) ORDER BY originator_id, originator_version").format(
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as cursor:
        cursor.execute(query, [list(stream_ids)], prepare=True)
        return cursor.fetchall()


# A state cut in SQL to what the reader needs (`short`, `empty`). (Cutting more out of a record's Started state
# here, with position() and substring(), cost the database more than the directory's regular expression costs.)
_NOTIFIED = """
SELECT notification_id, originator_id, topic,
  CASE WHEN topic = ANY(%(short)s) THEN substring(state FROM 1 FOR %(prefix)s)
       WHEN topic = ANY(%(empty)s) THEN ''::bytea
       ELSE state END
FROM {schema}.{table}
WHERE notification_id > %(after)s AND notification_id <= %(upto)s AND topic = ANY(%(topics)s)
ORDER BY notification_id
"""


def _select_notified_rows(self: PostgresApplicationRecorder, after: int, upto: int, topics: Sequence[str],
                          short: Sequence[str] = (), prefix: int = 0, empty: Sequence[str] = ()) -> list[NotifiedRow]:
    statement = SQL(_NOTIFIED).format(schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    params = {"short": list(short) or [""], "empty": list(empty) or [""], "prefix": prefix,  # `[""]`: an array of text
              "after": after, "upto": upto, "topics": list(topics)}
    with self.datastore.get_connection() as conn, conn.cursor(binary=True, row_factory=tuple_row) as cursor:
        return cursor.execute(statement, params).fetchall()


def _select_states(self: PostgresApplicationRecorder, notification_ids: Sequence[int]) -> dict[int, bytes]:
    if not notification_ids:
        return {}
    statement = SQL("SELECT notification_id, state FROM {schema}.{table} WHERE notification_id = ANY(%s)").format(
        schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
    with self.datastore.get_connection() as conn, conn.cursor(binary=True, row_factory=tuple_row) as cursor:
        return {row[0]: bytes(row[1]) for row in cursor.execute(statement, (list(notification_ids),)).fetchall()}


class PostgresSnapshots(CopyRows):
    """Snapshots: the library's aggregate recorder, bounded, its rows copied."""

    insert_events = bounded(PostgresAggregateRecorder.insert_events, "a write (nothing was written)", appends=True)
    select_events = bounded(PostgresAggregateRecorder.select_events, "a read")


class PostgresRows(RowRecorder, PostgresApplicationRecorder, CopyRows):
    """Records and imports: the library's append (the event table's lock, its notification, the rows, commit)
    with the rows copied (`CopyRows`), so outside the library's pipeline (COPY cannot run in one); every
    statement bounded (`bounded`), the fast reads of `RowRecorder` included."""

    def _append(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> list[int]:
        """The rows, under the lock that orders every append's notification ids as the appends commit; their
        ids, which COPY cannot return: the sequence gave them one after another (no other writer can take one
        while the lock is held), so they end at the session's `lastval()`."""
        if not stored_events:
            return []
        with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor(row_factory=tuple_row) as rows:
            curs: Any = rows  # the library's helpers are typed for its dict rows; they read none
            self._lock_table(curs)
            self._notify_channel(curs)
            self._insert_stored_events(curs, stored_events, **kwargs)
            curs.execute("SELECT lastval()")
            row = curs.fetchone()
            assert row is not None
            last = int(row[0])
        return list(range(last - len(stored_events) + 1, last + 1))

    insert_events = bounded(_append, "a write (nothing was written)", appends=True)
    select_events = bounded(PostgresApplicationRecorder.select_events, "a read")
    select_notifications = bounded(PostgresApplicationRecorder.select_notifications, "a read")
    select_rows = bounded(_select_rows, "a read")
    select_many_rows = bounded(_select_many_rows, "a read")
    select_notified_rows = bounded(_select_notified_rows, "a read of the records directory")
    select_states = bounded(_select_states, "a read of the records directory")


class PostgresStore(PostgresFactory, Versioned):
    """The library's PostgreSQL factory with our recorders, every connection starting with its time bounds."""

    aggregate_recorder_class = PostgresSnapshots
    application_recorder_class = PostgresRows

    def __init__(self, env: Environment | EnvType | None) -> None:
        super().__init__(env)
        statement, lock = db_timeouts(self.env)
        pool = self.datastore.pool
        assert isinstance(pool.kwargs, dict)  # the library gives a dict; the pool is not open yet
        pool.kwargs["options"] = f"-c statement_timeout={round(statement * 1000)} -c lock_timeout={round(lock * 1000)}"
        if not self.env.get(self.POSTGRES_LOCK_TIMEOUT):
            self.datastore.lock_timeout = max(1, math.ceil(lock))  # the library's SET LOCAL, in whole seconds

    def apply_steps(self, steps: Sequence[Step], recorders: Callable[[], list[Recorder]],
                    say: Callable[[str], None]) -> list[str]:
        schema = self.datastore.schema
        key = f"cronaca:schema:{schema}"
        with self.datastore.get_connection() as conn:
            deadline = time.monotonic() + LOCK_WAIT
            told = False
            while not conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0)) AS locked", (key,)).fetchone()["locked"]:  # type: ignore[index]
                if time.monotonic() > deadline:
                    raise UpgradeError(f"another upgrade of schema {schema!r} held its lock for over {LOCK_WAIT:.0f} s")
                if not told:
                    say(f"waiting for another upgrade of schema {schema!r} to finish")
                    told = True
                time.sleep(0.1)
            try:
                if conn.execute("SELECT to_regnamespace(%s) AS found", (f'"{schema}"',)).fetchone()["found"] is None:  # type: ignore[index]
                    conn.execute(f'CREATE SCHEMA "{schema}"')  # asked first: a role that owns only its schema may not create one
                table = f'"{schema}".{VERSION_TABLE}'
                conn.execute(f"CREATE TABLE IF NOT EXISTS {table} (version integer PRIMARY KEY, "
                             "description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
                done = {row["version"] for row in conn.execute(f"SELECT version FROM {table}").fetchall()}
                applied = []
                made: list[Recorder] | None = None
                for version, description, apply in steps:
                    if version in done:
                        continue
                    made = made or recorders()
                    apply(made)
                    conn.execute(f"INSERT INTO {table} (version, description) VALUES (%s, %s)", (version, description))
                    applied.append(f"{version}: {description}")
                return applied
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))

    def schema_found(self, events_table: str) -> tuple[bool, int | None]:
        schema = self.datastore.schema
        with self.datastore.get_connection() as conn:
            row = conn.execute("SELECT to_regclass(%s) AS events, to_regclass(%s) AS versions", (
                f'"{schema}"."{events_table}"', f'"{schema}".{VERSION_TABLE}')).fetchone()
            assert row is not None
            if row["events"] is None or row["versions"] is None:
                return row["events"] is not None, None  # no versions: tables made by the library itself (CREATE_TABLE on)
            found = conn.execute(f'SELECT max(version) AS version FROM "{schema}".{VERSION_TABLE}').fetchone()["version"]  # type: ignore[index]
        return True, found or 0

    def schema_ready(self) -> None:
        """The row type exists now: the library registers its adapter only when it finds the type."""
        self.datastore.register_type_adapters()
