"""What one record file may claim (seats, entries, bytes, nesting), refused at submit before anything
is stored; and every PostgreSQL statement bounded in time, so one slow write cannot stop every other.

Before, a file naming 200,000 seats (2.4 MB) was accepted at submit and its job's INSERT ran for
minutes on PostgreSQL holding the event table's lock.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from api.app import create_app
from domain import catalog
from domain.records import Records, RecordsError
from domain.records.settings import Limits, Settings
from tests.service.conftest import postgres_env
from tests.service.test_api import wait_for_verdict
from tests.service.test_poison_imports import transcribed_export

PROBLEM = "application/problem+json"
DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"


def toy_export() -> dict[str, Any]:
    """A finished toy game (10 entries, 2 seats), the same every run."""
    return transcribed_export("toy", 2)


def nothing_stored(records: Records) -> bool:
    records.directory.catch_up()
    return not records.directory.imports


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[Any]:
    """A service on its own SQLite file with small limits, and a function to post a file to it."""
    env = {"SQLITE_DBNAME": str(tmp_path / "limits.sqlite3"), "CRONACA_MAX_ENTRIES": "6", "CRONACA_MAX_DEPTH": "10",
           "CRONACA_MAX_SEATS": "4", "CRONACA_MAX_UPLOAD_BYTES": "60000"}
    app = create_app(Settings.from_env(env))
    yield app.test_client(), app.extensions["cronaca"].records
    app.extensions["cronaca"].dispatcher.pool.shutdown(wait=True)  # no job may write to a closed store
    app.extensions["cronaca"].records.close()


def refused_for(answer: Any, status: int, limit: str) -> dict[str, Any]:
    body = answer.get_json()
    assert answer.status_code == status and answer.content_type == PROBLEM, body
    assert body["rule"] == "file/limit" and body["facts"]["limit"] == limit, body
    assert limit in body["detail"] and str(body["facts"]["value"]) in body["detail"], body
    return body  # type: ignore[no-any-return]


def test_a_file_naming_200000_seats_is_refused_at_submit(client: Any) -> None:
    """The file that held PostgreSQL for minutes: refused (422, the limit and the value) before anything is saved."""
    records = client.application.extensions["cronaca"].records
    document = toy_export()
    document["seats"] = [{"name": str(i % 10)} for i in range(200_000)]
    document["options"] = {**document["options"], "players": 200_000}
    body = json.dumps(document, separators=(",", ":")).encode()
    assert 2_400_000 < len(body) < Limits().max_bytes  # within the upload limit: only the seat limit can refuse it
    answer = client.post("/api/imports", data=body, content_type="application/json")
    found = refused_for(answer, 422, "CRONACA_MAX_SEATS")
    assert found["facts"]["value"] == 200_000 and found["facts"]["allowed"] == Limits().max_seats
    assert nothing_stored(records)


def test_seats_beyond_the_titles_range_are_refused_at_submit(client: Any) -> None:
    records = client.application.extensions["cronaca"].records
    document = toy_export()
    low, high = catalog.game("toy").seats
    document["seats"] = [{"name": f"p{i}"} for i in range(high + 1)]
    document["options"] = {**document["options"], "players": high + 1}
    answer = client.post("/api/imports", json=document)
    body = answer.get_json()
    assert answer.status_code == 422 and body["rule"] == "file/seats", body
    assert body["facts"] == {"seats": high + 1, "low": low, "high": high} and f"{low} to {high}" in body["detail"]
    assert nothing_stored(records)


def test_entries_and_nesting_beyond_the_limits_are_refused(limited: Any) -> None:
    client, records = limited
    document = toy_export()
    assert len(document["entries"]) > 6
    found = refused_for(client.post("/api/imports", json=document), 422, "CRONACA_MAX_ENTRIES")
    assert found["facts"] == {"limit": "CRONACA_MAX_ENTRIES", "allowed": 6, "value": len(document["entries"])}
    short = copy.deepcopy(document)
    short["entries"] = short["entries"][:5]
    short.pop("finished"), short.pop("scores")
    deep: Any = "bottom"
    for _ in range(12):
        deep = {"deeper": deep}
    short["notes"] = deep  # a member the format does not know is ignored, but never walked without bound
    found = refused_for(client.post("/api/imports", json=short), 422, "CRONACA_MAX_DEPTH")
    assert found["facts"]["value"] > 10 and found["facts"]["allowed"] == 10
    short["notes"] = "flat"
    accepted = client.post("/api/imports", json=short)  # within every limit: taken, judged later
    assert accepted.status_code == 202, accepted.get_json()
    verdict = wait_for_verdict(client, accepted.get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    records.directory.catch_up()
    assert len(records.directory.imports) == 1


def test_a_file_over_the_size_limit_is_413(limited: Any) -> None:
    client, records = limited
    document = toy_export()
    document["entries"] = document["entries"][:3]
    document.pop("finished"), document.pop("scores")
    document["seats"][0]["name"] = "x" * 70_000
    answer = client.post("/api/imports", json=document)  # the body itself is too large: the HTTP edge
    assert answer.status_code == 413 and answer.content_type == PROBLEM
    document["seats"][0]["name"] = "è" * 14_000  # 28 KB as UTF-8, 84 KB once stored as JSON (\u00e8)
    body = json.dumps(document, ensure_ascii=False).encode()
    assert len(body) < 60_000
    found = refused_for(client.post("/api/imports", data=body, content_type="application/json"), 413,
                        "CRONACA_MAX_UPLOAD_BYTES")
    assert found["facts"]["value"] > 60_000 and found["title"] == "Content Too Large"
    with pytest.raises(RecordsError) as refused:  # in-process callers (the CLI) meet the same limit
        records.imports.submit(document)
    assert refused.value.status == 413 and refused.value.facts["limit"] == "CRONACA_MAX_UPLOAD_BYTES"
    assert nothing_stored(records)


def test_limits_come_from_the_environment() -> None:
    limits = Settings.from_env({"CRONACA_MAX_SEATS": "6", "CRONACA_MAX_ENTRIES": "100", "CRONACA_MAX_DEPTH": "9",
                                "CRONACA_MAX_UPLOAD_BYTES": "1000"}).limits
    assert limits == Limits(max_bytes=1000, max_seats=6, max_entries=100, max_depth=9)
    assert Settings.from_env({}).limits == Limits()
    for bad in ({"CRONACA_MAX_SEATS": "many"}, {"CRONACA_MAX_DEPTH": "0"}, {"CRONACA_DB_LOCK_TIMEOUT": "soon"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            Settings.from_env(bad)


# ---- PostgreSQL: every statement bounded ---------------------------------------------------

@pytest.fixture
def bounded_env(postgres_schema: str) -> dict[str, str]:
    return {**postgres_env(postgres_schema), "CRONACA_DB_STATEMENT_TIMEOUT": "2", "CRONACA_DB_LOCK_TIMEOUT": "1"}


class TableLock:
    """Another connection holding the event table's lock, as a long INSERT does; it lets go by itself after
    `hold` seconds, so a store without timeouts makes the test fail instead of hang."""

    def __init__(self, schema: str, hold: float = 30.0) -> None:
        self.conn = psycopg.connect(DSN)
        self.conn.execute(f'LOCK TABLE "{schema}".records_events IN EXCLUSIVE MODE')
        self.timer = threading.Timer(hold, self.release)
        self.timer.start()
        self.lock = threading.Lock()

    def release(self) -> None:
        with self.lock:
            if not self.conn.closed:
                self.conn.rollback()
                self.conn.close()

    def __enter__(self) -> TableLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()
        self.release()


@pytest.mark.postgres
def test_a_statement_running_past_the_timeout_is_cut(bounded_env: dict[str, str]) -> None:
    records = Records(Settings.from_env(bounded_env).store)
    try:
        with records.recorder.datastore.get_connection() as conn:  # type: ignore[attr-defined]
            assert conn.execute("SHOW statement_timeout").fetchone() == {"statement_timeout": "2s"}
            assert conn.execute("SHOW lock_timeout").fetchone() == {"lock_timeout": "1s"}
            with pytest.raises(psycopg.errors.QueryCanceled, match="statement timeout"):
                conn.execute("SELECT pg_sleep(30)")
    finally:
        records.close()


@pytest.mark.postgres
def test_a_write_waiting_on_a_held_lock_fails_fast_and_writes_nothing(bounded_env: dict[str, str],
                                                                      postgres_schema: str) -> None:
    records = Records(Settings.from_env(bounded_env).store)
    try:
        records.play.start("toy", ["ann", "bob"])  # the tables exist, and a write goes through
        with TableLock(postgres_schema):
            began = time.monotonic()
            with pytest.raises(RecordsError) as busy:
                records.play.start("toy", ["cy", "dan"])
            waited = time.monotonic() - began
        assert busy.value.status == 503 and "busy" in busy.value.message and "lock timeout" in busy.value.message
        assert waited < 8, f"waited {waited:.1f} s: the lock timeout was retried instead of answered"
        assert [r.players for r in records.reading.find()] == [["ann", "bob"]]
        records.play.start("toy", ["eve", "fay"])  # the lock gone, writes go on
    finally:
        records.close()


@pytest.mark.postgres
def test_the_service_answers_503_while_the_store_is_locked(bounded_env: dict[str, str], postgres_schema: str) -> None:
    app = create_app(Settings.from_env(bounded_env))
    client = app.test_client()
    try:
        started = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"]})
        assert started.status_code == 201
        with TableLock(postgres_schema):
            answers = [client.post("/api/records", json={"title": "toy", "seats": ["cy", "dan"]}),
                       client.post("/api/imports", json={"format": "cronaca-record", "version": 1, "title": "toy",
                                                         "edition": {"id": "x", "content_hash": "y"},
                                                         "seats": [{"name": "a"}, {"name": "b"}], "mode": "transcribed",
                                                         "entries": [{"setup": {}, "outcomes": [], "events": []}]})]
        for answer in answers:
            body = answer.get_json()
            assert answer.status_code == 503 and answer.content_type == PROBLEM, body
            assert answer.headers["Retry-After"] == "1"
            assert body["title"] == "Service Unavailable" and "try again" in body["detail"], body
            assert "Traceback" not in answer.get_data(as_text=True)
        assert client.post("/api/records", json={"title": "toy", "seats": ["eve", "fay"]}).status_code == 201
    finally:
        app.extensions["cronaca"].records.close()


# ---- what submit measured is kept with the import: its job does not walk the file again ---------------------------


def _counting(monkeypatch: Any) -> dict[str, int]:
    """Count the file walks (`nesting`) and entry shape checks (`_shape`) from here on."""
    from domain.records import recordfile

    calls = {"nesting": 0, "_shape": 0}
    for name in calls:
        real = getattr(recordfile, name)

        def counted(*args: Any, _real: Any = real, _name: str = name) -> Any:
            calls[_name] += 1
            return _real(*args)

        monkeypatch.setattr(recordfile, name, counted)
    return calls


def test_an_imports_job_keeps_submits_measure_and_still_holds_the_limits(tmp_path: Path, monkeypatch: Any) -> None:
    """Submit measures the file's nesting and checks each entry's shape; the import keeps the nesting (`Import.depth`),
    so its job walks the file no second time and checks no shape again: the same verdict, and a limit lowered
    since the file was submitted still refuses it."""
    from domain.records import recordfile
    from tests.service.helpers import record_file

    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "kept.sqlite3")}
    records = Records(Settings.from_env(env).store)
    document = record_file("la-citta", "kept-depth")
    calls = _counting(monkeypatch)
    import_id, _ = records.imports.submit(document)
    assert calls == {"nesting": 1, "_shape": len(document["entries"])}
    assert records.imports.get(import_id).depth == recordfile.nesting(document, 100) > 3
    calls.update(nesting=0, _shape=0)
    report = records.imports.validate(import_id)
    assert report.ok and calls == {"nesting": 0, "_shape": 0}
    second, _ = records.imports.submit(record_file("la-citta", "kept-depth-2"))
    records.close()
    calls.update(nesting=0, _shape=0)
    lowered = Records(Settings.from_env({**env, "CRONACA_MAX_DEPTH": "3"}).store)
    refused = lowered.imports.validate(second)
    assert not refused.ok and refused.rule == "file/limit" and refused.facts["limit"] == "CRONACA_MAX_DEPTH"
    assert calls == {"nesting": 0, "_shape": 0}  # the kept depth held against the lowered limit
    lowered.close()


def test_an_import_stored_before_its_depth_was_kept_is_checked_whole(tmp_path: Path, monkeypatch: Any) -> None:
    """An import whose stored `Submitted` has no depth (stored before it was kept) reads as depth None, and its job
    walks the file and checks every entry's shape, as before; the verdict is the same."""
    import sqlite3

    from tests.service.helpers import record_file

    path = tmp_path / "old.sqlite3"
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}).store)
    document = record_file("citta-stato", "old-import")
    import_id, _ = records.imports.submit(document)
    records.close()
    with sqlite3.connect(path) as db:
        (state,) = db.execute("SELECT state FROM stored_events WHERE topic LIKE '%Import.Submitted'").fetchone()
        payload = json.loads(state)
        assert payload.pop("depth") > 3
        db.execute("UPDATE stored_events SET state = ? WHERE topic LIKE '%Import.Submitted'", (json.dumps(payload).encode(),))
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}).store)
    assert records.imports.get(import_id).depth is None
    calls = _counting(monkeypatch)
    report = records.imports.validate(import_id)
    assert report.ok and calls == {"nesting": 1, "_shape": len(document["entries"])}
    records.close()


def test_submit_encodes_the_file_once_and_stores_what_parse_measured(tmp_path: Path, monkeypatch: Any) -> None:
    """`parse` makes the file's compact JSON to measure its size (`Header.compact`); submit stores that text and
    does not encode the 36-86 KB file a second time. The stored document is the file's compact JSON either way."""
    from tests.service.helpers import record_file

    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "once.sqlite3")}).store)
    document = record_file("serenissima", "encoded-once")
    real, encoded = json.dumps, []

    def counted(obj: Any, *args: Any, **kwargs: Any) -> str:
        if obj is document:
            encoded.append(obj)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(json, "dumps", counted)
    import_id, _ = records.imports.submit(document)
    monkeypatch.undo()
    assert len(encoded) == 1
    assert records.imports.get(import_id).document == json.dumps(document, separators=(",", ":"))
    records.close()
