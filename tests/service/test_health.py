"""/healthz and /readyz (issue 16, operations) against the real stores and the real Redis."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from domain.records.settings import Settings
from tests.service.conftest import free_port, postgres_env


def test_healthz_says_the_process_is_up(client: Any) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.get_json() == {"status": "ok"}


def test_readyz_is_ready_when_the_store_answers(client: Any) -> None:
    """SQLite and PostgreSQL (the `client` fixture runs both); no REDIS_URL: jobs run in-process."""
    answer = client.get("/readyz")
    body = answer.get_json()
    assert answer.status_code == 200, body
    assert body["status"] == "ready" and body["checks"]["database"] == "ok"
    assert body["checks"]["redis"].startswith("not configured")
    assert answer.headers["Cache-Control"] == "no-store"


def _app(tmp_path: Path, redis_url: str) -> Any:
    return create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "ready.sqlite3"), "REDIS_URL": redis_url}))


def test_readyz_pings_the_real_redis(tmp_path: Path) -> None:
    app = _app(tmp_path, "redis://127.0.0.1:6379/0")
    try:
        body = app.test_client().get("/readyz").get_json()
        assert body["status"] == "ready" and body["checks"] == {"database": "ok", "redis": "ok"}
    finally:
        app.extensions["cronaca"].records.close()


@pytest.fixture
def own_redis() -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A redis-server of this test's own on a free port (stopped by the test, then reaped here)."""
    port = free_port()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                import redis

                redis.Redis(port=port, socket_timeout=0.2).ping()
                break
            except Exception:  # noqa: BLE001  (not up yet)
                time.sleep(0.05)
        yield port, server
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(10)


def test_readyz_is_not_ready_while_redis_is_away_and_ready_again_after(tmp_path: Path,
                                                                        own_redis: tuple[int, Any]) -> None:
    port, server = own_redis
    app = _app(tmp_path, f"redis://127.0.0.1:{port}/0")
    client = app.test_client()
    try:
        assert client.get("/readyz").status_code == 200
        server.terminate()
        server.wait(10)
        answer = client.get("/readyz")
        body = answer.get_json()
        assert answer.status_code == 503 and body["status"] == "not ready"
        assert body["checks"]["database"] == "ok" and body["checks"]["redis"].startswith("Redis does not answer")
        assert answer.headers["Retry-After"] == "5"
        assert body["ms"] < 5000  # a probe answers within its own timeout, never hangs
        assert client.get("/healthz").status_code == 200  # alive all along: no restart needed
        again = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 10
            while client.get("/readyz").status_code != 200:
                assert time.time() < deadline, "not ready again after Redis came back"
                time.sleep(0.1)
        finally:
            again.terminate()
            again.wait(10)
    finally:
        app.extensions["cronaca"].records.close()


@pytest.mark.postgres
def test_readyz_is_not_ready_when_the_store_goes_away(postgres_schema: str) -> None:
    """The store goes away under a running process (its PostgreSQL connection pool closed): 503 naming the
    database, while /healthz still answers (the process itself is fine)."""
    app = create_app(Settings.from_env(postgres_env(postgres_schema)))
    client = app.test_client()
    try:
        assert client.get("/readyz").status_code == 200
        app.extensions["cronaca"].records.recorder.datastore.pool.close()
        answer = client.get("/readyz")
        body = answer.get_json()
        assert answer.status_code == 503 and body["checks"]["database"].startswith("the store does not answer")
        assert client.get("/healthz").status_code == 200
    finally:
        app.extensions["cronaca"].records.close()
