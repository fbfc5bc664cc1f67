"""Fixtures for the record service: the toy title, stores (SQLite file, real PostgreSQL), apps."""

from __future__ import annotations

import os
import random
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from domain import catalog
from domain.records import Records
from domain.records.settings import Settings, Throttle

TOY = "toy=tests.kernel.toy_game"
ROOT = Path(__file__).resolve().parents[2]

# A long toy game: same rules, a far target, so records run to hundreds of steps.
LONG_TOY = """\
id: toy-long
title: toy
data:
  target: {target}
  bag: [1, 2, 3]
provenance:
  target: "assumed: a long game for tests"
"""


@pytest.fixture(autouse=True)
def toy_title(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(catalog.TITLES, "toy", "tests.kernel.toy_game")


@pytest.fixture(autouse=True)
def own_throttle_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's apps count wrong credentials under Redis keys of their own: each test client is 127.0.0.1,
    and the real Redis is shared by the tests running in parallel (api/throttle.py)."""
    monkeypatch.setattr(Throttle, "prefix", f"cronaca-test:{uuid.uuid4().hex[:12]}:throttle:")


def postgres_env(schema: str) -> dict[str, str]:
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": "test",
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
        "POSTGRES_SCHEMA": schema,
    }


def upgraded(env: dict[str, str]) -> dict[str, str]:
    """The store's schema made as a deployment makes it (`cronaca db upgrade`, api/schema.py): on PostgreSQL
    the processes never create tables. The one helper every test building a PostgreSQL store goes through."""
    from api.schema import upgrade

    upgrade(env)
    return env


@pytest.fixture
def bare_postgres_schema() -> Iterator[str]:
    """An empty schema of its own in database `test` (no tables: `cronaca db upgrade` not run), dropped afterwards."""
    import psycopg

    schema = f"cronaca_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield schema
    finally:
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def postgres_schema(bare_postgres_schema: str) -> str:
    """A schema of its own in database `test`, upgraded (its tables made), dropped afterwards (tests run in parallel)."""
    upgraded(postgres_env(bare_postgres_schema))
    return bare_postgres_schema


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The event store's settings: a fresh SQLite file, or a fresh schema on the real PostgreSQL."""
    if request.param == "sqlite":
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}
    schema = request.getfixturevalue("postgres_schema")
    return postgres_env(schema)


@pytest.fixture
def records(store_env: dict[str, str]) -> Iterator[Records]:
    app = Records(Settings.from_env(store_env).store)
    yield app
    app.close()


@pytest.fixture
def client(store_env: dict[str, str]) -> Iterator[Any]:
    app = create_app(Settings.from_env(store_env))
    app.config["TESTING"] = True
    yield app.test_client()
    close_app(app)


def close_app(app: Any) -> None:
    """Close an app's store after its in-process jobs finished: SQLite closed under a job thread still reading
    it crashes the interpreter (seen: a segmentation fault at a fixture's teardown)."""
    service = app.extensions["cronaca"]
    pool = getattr(service.dispatcher, "pool", None)
    if pool is not None:
        pool.shutdown(wait=True)
    service.records.close()


LISTENING = (20_000, 32_000)
"""Where a port for a server a test starts is picked: below the kernel's ephemeral range (32768-60999 here), so the
port cannot be handed meanwhile to a client connection of another test (a port picked with `bind(0)` came from that
range, and a process started seconds later found it taken: "Address already in use")."""
_PICK = random.SystemRandom()


def free_port() -> int:
    """A port free now, for a server a test starts in another process (picked at random: three test workers pick)."""
    for _ in range(500):
        port = _PICK.randrange(*LISTENING)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port in {LISTENING}")


def subprocess_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("POSTGRES_", "SQLITE_", "PERSISTENCE_", "REDIS_", "CRONACA_"))}
    env.update({"PYTHONPATH": str(ROOT), "CRONACA_EXTRA_TITLES": TOY}, **extra)
    return env
