"""The fault suite's own servers: a PostgreSQL cluster and a Redis of its own, on free ports.

The suite stops, empties and cuts them on purpose, so it never touches the machine's shared
servers (127.0.0.1:5432 and :6379). Each is started for real from the Debian binaries, lives in a
temporary folder, and is stopped at the end of the session; only processes started here are
stopped. Every wait is bounded in time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.service.conftest import free_port

pytestmark = pytest.mark.faults

PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), Path("/usr/lib/postgresql/15/bin"))


def _as_postgres(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    """PostgreSQL refuses to run as root: run its tools as the `postgres` user when we are root."""
    command = ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args
    return subprocess.run(command, check=True, capture_output=True, timeout=60, **kwargs)  # type: ignore[call-overload]


def wait_until(check: object, timeout: float, what: str, every: float = 0.05) -> None:
    """Poll `check()` until it is true, or fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except Exception:  # noqa: BLE001  (not up yet)
            pass
        time.sleep(every)
    raise TimeoutError(f"{what} did not happen within {timeout} s")


@dataclass
class OwnPostgres:
    port: int
    data: Path
    database: str = "cronaca"

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={self.database}"

    def env(self) -> dict[str, str]:
        """The service's variables for this server (docs/deployment.md)."""
        return {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": self.database,
                "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": str(self.port), "POSTGRES_USER": "postgres",
                "POSTGRES_PASSWORD": ""}

    def fresh_database(self) -> str:
        """A new empty database on this server (one per test), its name also set as `database`."""
        import psycopg

        name = f"cronaca_{os.urandom(5).hex()}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        self.database = name
        return name

    def terminate_backends(self) -> int:
        """pg_terminate_backend on every connection to the current database but this one; how many."""
        import psycopg

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as c:
            rows = c.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE datname = %s AND pid <> pg_backend_pid()", (self.database,)).fetchall()
        return sum(1 for (done,) in rows if done)


@dataclass
class OwnRedis:
    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start it (empty: it keeps nothing on disk) and wait until it answers."""
        import redis

        log = (self.folder / "redis.log").open("ab")
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.folder)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(lambda: redis.Redis(port=self.port, socket_connect_timeout=0.2).ping(), 10, "redis-server start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        self.process = None

    def flush(self) -> None:
        import redis

        redis.Redis(port=self.port, socket_connect_timeout=1).flushall()


@pytest.fixture(scope="session")
def own_postgres() -> Iterator[OwnPostgres]:
    """A PostgreSQL cluster of this test session's own (initdb, trust auth, a free port)."""
    folder = Path(tempfile.mkdtemp(prefix="cronaca-faults-pg-"))
    shutil.chown(folder, "postgres") if os.geteuid() == 0 else None
    data = folder / "data"
    port = free_port()
    _as_postgres([str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"])
    with (data / "postgresql.conf").open("a") as conf:
        conf.write(f"\nport = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{folder}'\n"
                   "max_connections = 200\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
    _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "30", "start"])
    server = OwnPostgres(port, data)
    try:
        yield server
    finally:
        subprocess.run(["runuser", "-u", "postgres", "--"] * (os.geteuid() == 0)
                       + [str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "-t", "30", "stop"],
                       capture_output=True, timeout=60, check=False)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def postgres(own_postgres: OwnPostgres) -> OwnPostgres:
    """The suite's server with a fresh, empty database for this test (no tables: `cronaca db upgrade` makes them)."""
    own_postgres.fresh_database()
    return own_postgres


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    """A Redis server of this test's own on a free port (stopped, emptied, restarted by the test at will)."""
    folder = Path(tempfile.mkdtemp(prefix="cronaca-faults-redis-"))
    server = OwnRedis(free_port(), folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
