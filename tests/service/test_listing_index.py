"""The records list answered from the directory's indexes (issue 16) gives what the former scan gave.

`reference` below is the scan `Directory.page`/`find` did before the indexes (every summary, newest
first, each filter checked); the indexes must give the same records, in the same order, with the same
count, for every filter combination, page and finishing order.
"""

from __future__ import annotations

from itertools import product
from typing import Any
from uuid import UUID, uuid4

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.records.directory import Directory, RecordSummary
from tests.service.helpers import play_out

STARTED = "domain.records.aggregates:Record.Started"
FINISHED = "domain.records.aggregates:Record.Finished"
TITLES = ["citta-stato", "la-citta", "serenissima"]
NAMES = ["Ada", "ada", "ADA", "Bruno", "Chiara", "Straße", "STRASSE", "Dario"]


class NoRows:
    """A recorder with nothing new: the directory is fed by `_absorb` directly."""

    def select_notifications(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def reference(summaries: list[RecordSummary], title: str | None, player: str | None, status: str | None) -> list[UUID]:
    """The former scan: newest first, every filter checked on every record."""
    found = []
    for s in sorted(summaries, key=lambda s: s.position, reverse=True):
        if title and s.title != title:
            continue
        if player and not any(player.casefold() == p.casefold() for p in s.players):
            continue
        if status and s.status != status:
            continue
        found.append(s.id)
    return found


def queries() -> list[tuple[str | None, str | None, str | None]]:
    return list(product([None, "", *TITLES, "no-such-title"], [None, "", "ada", "STRASSE", "Bruno", "nobody"],
                        [None, "finished", "in-progress", "bogus"]))


def check(directory: Directory) -> int:
    """Every query and a few pages of each against the reference; returns how many queries matched something."""
    summaries = list(directory.records.values())
    nonempty = 0
    for title, player, status in queries():
        expected = reference(summaries, title, player, status)
        assert [s.id for s in directory.find(title, player, status)] == expected, (title, player, status)
        for offset, limit in ((0, 20), (0, 1), (3, 2), (len(expected) - 1, 5), (len(expected), 5), (len(expected) + 7, 3)):
            total, page = directory.page(title, player, status, max(offset, 0), limit)
            assert total == len(expected), (title, player, status)
            assert [s.id for s in page] == expected[max(offset, 0):max(offset, 0) + limit], (title, player, status, offset)
        nonempty += bool(expected)
    return nonempty


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TITLES), st.lists(st.sampled_from(NAMES), min_size=1, max_size=4),
                          st.booleans(), st.integers(min_value=0, max_value=60)), min_size=0, max_size=40),
       st.randoms(use_true_random=False))
def test_indexes_answer_as_the_scan_did_whatever_the_order_records_finish_in(records: list[Any], rng: Any) -> None:
    directory = Directory(NoRows(), None)
    ids = [uuid4() for _ in records]
    position = 0
    events: list[tuple[UUID, str, dict[str, Any]]] = []
    finishing = []
    for oid, (title, seats, finishes, delay) in zip(ids, records, strict=True):
        events.append((oid, STARTED, {"title": title, "seats": seats, "mode": "live", "timestamp": "2026-11-24T10:00:00"}))
        if finishes:
            finishing.append((delay, oid))
    for _, oid in sorted(finishing, key=lambda f: (f[0], rng.random())):  # finished in any order, after they started
        events.append((oid, FINISHED, {"scores": {"ranking": [0], "seats": [{"seat": 0, "total": 3}]}}))
    events.append((uuid4(), FINISHED, {"scores": {}}))  # a Finished of a stream the directory never saw started
    for oid, topic, payload in events:
        position += 1
        directory._absorb(oid, position, topic, payload)
    if finishing:  # a second Finished of the same record (never written, but never indexed twice either)
        position += 1
        directory._absorb(finishing[0][1], position, FINISHED, {"scores": {"ranking": [1], "seats": []}})
    check(directory)
    assert sum(len(v) for k, v in directory._index.items() if k[0] == "status") == len(directory.records)


def test_the_listing_over_http_is_the_scan_of_the_stored_records(client: Any) -> None:
    """Records started and played through the application, listed by `GET /api/records` with every filter."""
    records = client.application.extensions["cronaca"].records
    seats = [["Ada", "Bruno"], ["bruno", "Chiara"], ["ADA", "Dario"], ["Chiara", "Dario"], ["Ada", "Chiara"]]
    started = [records.play.start("toy", names, mode="live") for names in seats]
    for record_id, tokens in started[1::2]:
        play_out(records, record_id, tokens)
    records.directory.catch_up()
    assert sum(s.finished for s in records.directory.records.values()) == 2
    summaries = list(records.directory.records.values())
    for title, player, status in product([None, "toy", "la-citta"], [None, "ada", "Chiara", "nobody"],
                                         [None, "finished", "in-progress"]):
        expected = [str(i) for i in reference(summaries, title, player, status)]
        query = {k: v for k, v in (("title", title), ("player", player), ("status", status)) if v}
        got: list[str] = []
        for page in range(1, 4):  # 2 a page: the pages' edges matter, 5 records need 3 pages
            answer = client.get("/api/records", query_string={**query, "page": page, "per_page": 2})
            assert answer.status_code == 200
            body = answer.get_json()
            assert body["total"] == len(expected), query
            got += [item["id"] for item in body["items"]]
        assert got == expected, query
    assert records.directory.plan("toy", None, "finished").startswith("title + status index (2 records")
    assert "other filters checked" in records.directory.plan("toy", "ada", None)
