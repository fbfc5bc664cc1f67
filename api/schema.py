"""`cronaca db upgrade`: the store's schema, made by one command before the processes start (issue 16).

Processes on PostgreSQL never create tables (`settings.store_env` sets the eventsourcing library's
CREATE_TABLE=false for it): four gunicorn workers each creating the tables at start on a fresh
database crashed 3 times in 20. Instead `upgrade` applies numbered steps, each once, recorded in a
small table `cronaca_schema` (version, description, applied_at) beside the event store's own tables:

1. the event store's tables, made by the eventsourcing library's own recorders' `create_table()` (the
   same DDL the library runs when a process opens the store with CREATE_TABLE on): `records_events`
   with its notification index, insert function and row type, and `records_snapshots`.

On PostgreSQL every upgrade holds a session advisory lock (`pg_try_advisory_lock`, one key per schema)
while it reads the version and applies steps, so any number of hosts may run it at once: one applies,
the others wait and then find nothing to do. A later step is added at the end of `STEPS`; its DDL runs
under the same lock.

SQLite, the embedded default, is one file on one host: the library still creates its tables when a
process opens the file (in one transaction, `CREATE TABLE IF NOT EXISTS`), so `./dev serve` needs no
extra step. `cronaca db upgrade` works on it too and records the same version.

A process started on a PostgreSQL database with no schema does not crash: `Gate` answers every request
but /healthz with 503 naming the command (`NO_SCHEMA`), /readyz says the same, and the process serves
as soon as the upgrade has run (it checks again at most once a second until then).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from eventsourcing.persistence import InfrastructureFactory, PersistenceError, Recorder
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.utils import Environment

from domain.records.application import Records
from domain.records.settings import store_env

VERSION_TABLE = "cronaca_schema"
NO_SCHEMA = 'the store has no schema: run "cronaca db upgrade"'
LOCK_WAIT = 120.0  # seconds an upgrade waits for another one to finish before it gives up
# An upgrade may wait for running writers (DDL takes table locks): longer bounds than a request's.
UPGRADE_TIMEOUTS = {"CRONACA_DB_STATEMENT_TIMEOUT": "300", "CRONACA_DB_LOCK_TIMEOUT": "60"}
RECHECK = 1.0  # seconds between a schema-less process's checks


def _event_store(recorders: list[Recorder]) -> None:
    for recorder in recorders:
        recorder.create_table()  # type: ignore[attr-defined]  # every SQL recorder of the library has it


STEPS: list[tuple[int, str, Callable[[list[Recorder]], None]]] = [
    (1, "event store tables (records_events, records_snapshots) by the eventsourcing library's recorders", _event_store),
]
CURRENT = STEPS[-1][0]


class UpgradeError(Exception):
    """The upgrade could not run (another one held the lock too long); said in one line."""


def _store(env: Mapping[str, str]) -> dict[str, str]:
    """The store's settings from a process environment or from `Settings.store` (both are accepted)."""
    return store_env(dict(env))


def _factory(store: Mapping[str, str]) -> InfrastructureFactory[Any]:
    """The library's factory for the same store `Records(store)` opens, tables never made on open."""
    merged = dict(Records.env)
    merged["IS_SNAPSHOTTING_ENABLED"] = "y"
    merged.update(os.environ)  # as Application.construct_env does
    merged.update(store)
    merged.update(UPGRADE_TIMEOUTS)
    merged.update({"CREATE_TABLE": "false", "RECORDS_CREATE_TABLE": "false"})
    return InfrastructureFactory.construct(Environment(Records.name, merged))


def _recorders(factory: InfrastructureFactory[Any]) -> list[Recorder]:
    return [factory.application_recorder(), factory.aggregate_recorder(purpose="snapshots")]


def upgrade(env: Mapping[str, str], say: Callable[[str], None] | None = None) -> list[str]:
    """Create or upgrade the store's schema; returns the steps applied ("1: ..."), empty when up to date.

    `env` is a process environment (what `Settings.from_env` reads) or the store mapping itself.
    Idempotent, and safe to run from many hosts at once on PostgreSQL (advisory lock)."""
    factory = _factory(_store(env))
    try:
        datastore = getattr(factory, "datastore", None)
        if isinstance(datastore, PostgresDatastore):
            return _upgrade_postgres(factory, datastore, say or (lambda _: None))
        return _upgrade_sqlite(factory)
    finally:
        factory.close()


def _upgrade_postgres(factory: InfrastructureFactory[Any], datastore: PostgresDatastore,
                      say: Callable[[str], None]) -> list[str]:
    schema = datastore.schema
    key = f"cronaca:schema:{schema}"
    with datastore.get_connection() as conn:
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
            recorders: list[Recorder] | None = None
            for version, description, apply in STEPS:
                if version in done:
                    continue
                recorders = recorders or _recorders(factory)
                apply(recorders)
                conn.execute(f"INSERT INTO {table} (version, description) VALUES (%s, %s)", (version, description))
                applied.append(f"{version}: {description}")
            return applied
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))


def _upgrade_sqlite(factory: InfrastructureFactory[Any]) -> list[str]:
    """The same steps on SQLite: each is `IF NOT EXISTS`, so two at once both end with the same tables."""
    datastore = factory.datastore  # type: ignore[attr-defined]
    with datastore.transaction(commit=True) as cursor:
        cursor.execute(f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} (version INTEGER PRIMARY KEY, "
                       "description TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")
        cursor.execute(f"SELECT version FROM {VERSION_TABLE}")
        done = {row[0] for row in cursor.fetchall()}
    applied = []
    for version, description, apply in STEPS:
        if version in done:
            continue
        apply(_recorders(factory))
        with datastore.transaction(commit=True) as cursor:
            cursor.execute(f"INSERT OR IGNORE INTO {VERSION_TABLE} (version, description) VALUES (?, ?)",
                           (version, description))
        applied.append(f"{version}: {description}")
    return applied


def missing(recorder: Any) -> str | None:
    """Why this store cannot serve yet (no schema, or an older one), None when it can. Only PostgreSQL is
    asked: SQLite's tables are made as the file is opened. Raises when the store does not answer."""
    datastore = getattr(recorder, "datastore", None)
    if not isinstance(datastore, PostgresDatastore):
        return None
    schema = datastore.schema
    with datastore.get_connection() as conn:
        row = conn.execute("SELECT to_regclass(%s) AS events, to_regclass(%s) AS versions", (
            f'"{schema}"."{recorder.events_table_name}"', f'"{schema}".{VERSION_TABLE}')).fetchone()
        assert row is not None
        if row["events"] is None:
            return NO_SCHEMA
        if row["versions"] is None:
            return None  # tables made by the library itself (CREATE_TABLE on), before versions were kept
        found = conn.execute(f'SELECT max(version) AS version FROM "{schema}".{VERSION_TABLE}').fetchone()["version"]  # type: ignore[index]
    if found is None or found < CURRENT:
        return f'the store\'s schema is at version {found or 0}, this code needs {CURRENT}: run "cronaca db upgrade"'
    return None


class Gate:
    """Whether this process's store has its schema: asked until it has, at most once every RECHECK seconds,
    then never again (tables are not dropped under a running service)."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.ready = False
        self.why: str | None = None
        self.checked = -RECHECK
        self.lock = threading.Lock()

    def why_not(self) -> str | None:
        """None when requests may go on; else the one-line reason to answer 503 with."""
        if self.ready:
            return None
        with self.lock:
            if self.ready or time.monotonic() - self.checked < RECHECK:
                return self.why
            self.checked = time.monotonic()
            try:
                why = missing(self.records.recorder)
            except Exception:  # noqa: BLE001  (the store does not answer: each request, and /readyz, says so itself)
                self.why = None
                return None
            if why is None:
                # The row type exists now: the library registers its adapter only when it finds it.
                datastore = getattr(self.records.recorder, "datastore", None)
                if isinstance(datastore, PostgresDatastore):
                    datastore.register_type_adapters()
                self.ready = True
            self.why = why
            return why


def wait_for_schema(records: Records, say: Callable[[str], None], every: float = 2.0,
                    tell_every: float = 60.0, stop: threading.Event | None = None) -> bool:
    """Block a long-running process (the relay) until its store has a schema, saying why once a minute.
    Returns False when `stop` is set first."""
    gate = Gate(records)
    told = -tell_every
    while True:
        gate.checked = -RECHECK  # ask now
        why = gate.why_not()
        if why is None:
            return True
        if time.monotonic() - told >= tell_every:
            say(why)
            told = time.monotonic()
        if stop is not None:
            if stop.wait(every):
                return False
        else:
            time.sleep(every)


def where(store: Mapping[str, str]) -> str:
    """The store in words, without its password: for what the command prints."""
    if "POSTGRES_DBNAME" in store and "postgres" in store.get("PERSISTENCE_MODULE", "").lower():
        schema = store.get("POSTGRES_SCHEMA") or "public"
        return (f"PostgreSQL database {store['POSTGRES_DBNAME']!r} on {store.get('POSTGRES_HOST', 'localhost')}:"
                f"{store.get('POSTGRES_PORT', '5432')}, schema {schema!r}")
    return f"SQLite file {store.get('SQLITE_DBNAME')}"


def command(_: Any = None) -> int:
    """`cronaca db upgrade`: the environment's store upgraded, each step printed; 1 (and one line) when it cannot."""

    try:
        store = _store(os.environ)
        print(f"upgrading the {where(store)}", flush=True)
        steps = upgrade(os.environ, say=lambda line: print(line, flush=True))
    except (PersistenceError, UpgradeError, OSError, ValueError) as exc:
        print(f"cronaca db upgrade: the schema was not upgraded: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    for step in steps:
        print(f"applied {step}")
    print(f"the schema is at version {CURRENT}" + ("" if steps else " (up to date: nothing to do)"), flush=True)
    return 0
