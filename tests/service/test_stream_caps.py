"""Live streams are capped per client address and per process (api/live.py, StreamCaps): beyond, 429 / 503 with
Retry-After as problem+json, and a closed stream gives its place back."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from api.app import create_app
from api.live import StreamCaps
from domain.records.settings import Settings


@pytest.fixture()
def app(tmp_path: Any) -> Any:
    settings = Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "db.sqlite"), "CRONACA_LIVE_STREAMS": "3",
                                  "CRONACA_LIVE_STREAMS_PER_CLIENT": "2"})
    return create_app(settings, CRONACA_SSE_PING=0.05)


def follow(client: Any, record_id: str, address: str) -> Any:
    return client.get(f"/api/records/{record_id}/live", environ_base={"REMOTE_ADDR": address}, buffered=False)


def made_record(client: Any) -> str:
    made = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"]})
    assert made.status_code == 201, made.get_json()
    return str(made.get_json()["id"])


def test_one_address_beyond_its_cap_gets_429_and_the_process_beyond_its_cap_503(app: Any) -> None:
    client = app.test_client()
    record_id = made_record(client)
    held = [follow(client, record_id, "127.0.0.2"), follow(client, record_id, "127.0.0.2")]
    assert [r.status_code for r in held] == [200, 200]
    third = follow(client, record_id, "127.0.0.2")
    assert third.status_code == 429 and third.headers["Retry-After"].isdigit()
    assert third.content_type == "application/problem+json"
    assert "CRONACA_LIVE_STREAMS_PER_CLIENT" in third.get_json()["detail"]
    held.append(follow(client, record_id, "127.0.0.3"))
    assert held[-1].status_code == 200
    full = follow(client, record_id, "127.0.0.4")
    assert full.status_code == 503 and full.headers["Retry-After"].isdigit()
    assert "CRONACA_LIVE_STREAMS" in full.get_json()["detail"]
    held.pop().close()  # a follower left: its place is free again (closed last-opened first: Flask's contexts)
    again = follow(client, record_id, "127.0.0.4")
    assert again.status_code == 200
    for answer in reversed([*held, again]):
        answer.close()
    assert app.extensions["cronaca"].streams.open == 0


def test_an_answer_that_is_no_stream_gives_its_place_back_at_once(app: Any) -> None:
    client = app.test_client()
    for _ in range(5):  # more than either cap
        assert follow(client, str(uuid.uuid4()), "127.0.0.2").status_code == 404
    assert app.extensions["cronaca"].streams.open == 0


def test_releasing_twice_counts_once() -> None:
    caps = StreamCaps(total=2, per_client=2)
    release = caps.admit("a")
    release()
    release()
    assert caps.open == 0
    caps.admit("a")
    caps.admit("a")
    assert caps.open == 2
