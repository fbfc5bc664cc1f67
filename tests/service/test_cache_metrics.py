"""The bounded caches in `/metrics` (api/metrics.py's `Caches` collector over domain/kernel/cache.py's registry)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.kernel.cache import Bounded
from tests.service.conftest import close_app
from tests.service.helpers import auth, play_out_http
from tests.service.test_api import start
from tests.service.test_operations import legal, make_app, sample

FAMILIES = ("cronaca_cache_entries", "cronaca_cache_capacity", "cronaca_cache_hits_total", "cronaca_cache_misses_total")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    found = make_app(tmp_path)
    yield found
    close_app(found)


def cache(text: str, name: str) -> dict[str, float]:
    return {family: sample(text, family, cache=name) for family in FAMILIES}


def test_every_bounded_cache_of_the_process_is_in_metrics(app: Any) -> None:
    """A cache made anywhere in the process shows its size, capacity, hits and misses, summed by name."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    one: Bounded[str, int] = Bounded(name, 3)
    two: Bounded[str, int] = Bounded(name, 2)  # a second application's cache of the same name
    one.put("a", 1)
    one.put("b", 2)
    two.put("a", 1)
    assert one.get("a") == 1 and two.get("a") == 1 and one.get("c") is None
    answer = app.test_client().get("/metrics")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert cache(text, name) == {"cronaca_cache_entries": 3, "cronaca_cache_capacity": 5,
                                 "cronaca_cache_hits_total": 2, "cronaca_cache_misses_total": 1}
    assert "# TYPE cronaca_cache_hits_total counter" in text and "# TYPE cronaca_cache_entries gauge" in text


def test_the_titles_of_counted_commands_are_a_cache_in_metrics(app: Any) -> None:
    """api/metrics.py's own cache (record id -> title, for the commands' label): filled by commands, then hit."""
    client = app.test_client()
    before = cache(client.get("/metrics").get_data(as_text=True), "titles")
    record_id, tokens = start(client)
    for _ in range(2):
        now = legal(client, record_id, tokens[0])
        seat = now["pending"]["seat"]
        mine = legal(client, record_id, tokens[seat])
        answer = client.post(f"/api/records/{record_id}/commands",
                             json={"command": mine["commands"][0], "version": mine["version"]}, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.get_json()
    after = cache(client.get("/metrics").get_data(as_text=True), "titles")
    assert after["cronaca_cache_capacity"] >= 10_000
    assert after["cronaca_cache_misses_total"] - before["cronaca_cache_misses_total"] >= 1  # the record's first command
    assert after["cronaca_cache_hits_total"] - before["cronaca_cache_hits_total"] >= 1  # its second
    assert after["cronaca_cache_entries"] >= 1


def test_a_step_read_twice_is_a_hit_of_the_steps_cache(app: Any) -> None:
    """A finished record's step read twice answers the second time from the steps cache, and `/metrics` says so
    (a record in progress is never kept there: its steps depend on the reader)."""
    client = app.test_client()
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    assert client.get(f"/api/records/{record_id}").get_json()["finished"]
    before = cache(client.get("/metrics").get_data(as_text=True), "steps")
    for _ in range(2):
        assert client.get(f"/api/records/{record_id}/steps/1").status_code == 200
    after = cache(client.get("/metrics").get_data(as_text=True), "steps")
    assert after["cronaca_cache_hits_total"] - before["cronaca_cache_hits_total"] >= 1
    assert after["cronaca_cache_misses_total"] - before["cronaca_cache_misses_total"] >= 1
    assert after["cronaca_cache_entries"] >= 1 and after["cronaca_cache_capacity"] >= 1
