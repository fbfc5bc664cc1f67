"""`cronaca db upgrade`: the store's schema, made by one command before the processes start (issue 16).

Processes on PostgreSQL never create tables (`settings.store_env` sets the eventsourcing library's
CREATE_TABLE=false for it): four gunicorn workers each creating the tables at start on a fresh
database crashed 3 times in 20. Instead `upgrade` applies numbered steps, each once, recorded in a
small table `cronaca_schema` (version, description, applied_at) beside the event store's own tables:

1. the event store's tables, made by the eventsourcing library's own recorders' `create_table()` (the
   same DDL the library runs when a process opens the store with CREATE_TABLE on): `records_events`
   with its notification index, insert function and row type, and `records_snapshots`.

Each store applies the steps with its own SQL (`Versioned.apply_steps`, domain/records/store): on
PostgreSQL under a session advisory lock, one key per schema, so any number of hosts may run it at once:
one applies, the others wait and then find nothing to do. A later step is added at the end of `STEPS`;
its DDL runs under the same lock.

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
from eventsourcing.utils import Environment

from domain.records.application import Records
from domain.records.settings import store_env
from domain.records.store import VERSION_TABLE as VERSION_TABLE  # where the steps applied are kept
from domain.records.store import Step, UpgradeError, Versioned, construct_factory

NO_SCHEMA = 'the store has no schema: run "cronaca db upgrade"'
# An upgrade may wait for running writers (DDL takes table locks): longer bounds than a request's.
UPGRADE_TIMEOUTS = {"CRONACA_DB_STATEMENT_TIMEOUT": "300", "CRONACA_DB_LOCK_TIMEOUT": "60"}
RECHECK = 1.0  # seconds between a schema-less process's checks


def _event_store(recorders: list[Recorder]) -> None:
    for recorder in recorders:
        recorder.create_table()  # type: ignore[attr-defined]  # every SQL recorder of the library has it


STEPS: list[Step] = [
    (1, "event store tables (records_events, records_snapshots) by the eventsourcing library's recorders", _event_store),
]
CURRENT = STEPS[-1][0]


def _store(env: Mapping[str, str]) -> dict[str, str]:
    """The store's settings from a process environment or from `Settings.store` (both are accepted)."""
    return store_env(dict(env))


def _factory(store: Mapping[str, str]) -> Any:
    """Our factory for the same store `Records(store)` opens (a `Versioned` one), tables never made on open."""
    merged = dict(Records.env)
    merged["IS_SNAPSHOTTING_ENABLED"] = "y"
    merged.update(os.environ)  # as Application.construct_env does
    merged.update(store)
    merged.update(UPGRADE_TIMEOUTS)
    merged.update({"CREATE_TABLE": "false", "RECORDS_CREATE_TABLE": "false"})
    factory = construct_factory(Environment(Records.name, merged))
    assert isinstance(factory, Versioned), "cronaca db upgrade works on the SQLite and PostgreSQL stores"
    return factory


def _recorders(factory: InfrastructureFactory[Any]) -> list[Recorder]:
    return [factory.application_recorder(), factory.aggregate_recorder(purpose="snapshots")]


def upgrade(env: Mapping[str, str], say: Callable[[str], None] | None = None) -> list[str]:
    """Create or upgrade the store's schema; returns the steps applied ("1: ..."), empty when up to date.

    `env` is a process environment (what `Settings.from_env` reads) or the store mapping itself.
    Idempotent, and safe to run from many hosts at once on PostgreSQL (advisory lock)."""
    factory = _factory(_store(env))
    try:
        return factory.apply_steps(STEPS, lambda: _recorders(factory), say or (lambda _: None))
    finally:
        factory.close()


def missing(records: Records) -> str | None:
    """Why this store cannot serve yet (no schema, or an older one), None when it can. A store without numbered
    steps (the library's in-memory one) always can. Raises when the store does not answer."""
    factory = records.factory
    if not isinstance(factory, Versioned):
        return None
    tables, found = factory.schema_found(records.recorder.events_table_name)  # type: ignore[attr-defined]
    if not tables:
        return NO_SCHEMA
    if found is not None and found < CURRENT:
        return f'the store\'s schema is at version {found}, this code needs {CURRENT}: run "cronaca db upgrade"'
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
                why = missing(self.records)
            except Exception:  # noqa: BLE001  (the store does not answer: each request, and /readyz, says so itself)
                self.why = None
                return None
            if why is None:
                factory = self.records.factory
                if isinstance(factory, Versioned):  # PostgreSQL: the row type's adapter registered, now the type exists
                    factory.schema_ready()
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
