"""The records directory read in bulk, warmed in the background, and /readyz until it is (issue 16).

A new API process reads the whole notification log once (domain/records/directory.py): in bulk, with
windows of ids, an import's state cut to its timestamp, a record's `Started` read by one regular
expression and its `Finished` scores read on the first page that shows it. These tests hold that to
what the library's way (every notification decoded whole, `_log = None`) gives, on SQLite and
PostgreSQL, with records finishing long after they started, names and options the expression must
refuse (read whole instead), and imports queued twice, rejected or accepted; and that a process is
not ready (503 naming how far the directory is) until that first catch-up is done, then is.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from api import health
from api.app import create_app
from domain import catalog
from domain.records import Records
from domain.records import directory as directory_module
from domain.records.aggregates import LIVE, TRANSCRIBED, Import, Record
from domain.records.directory import Directory
from domain.records.settings import Settings

NAMES = ["Ada", "Bruno", "Chiara", "Straße", "ÉLODIE", 'Quote "Q"', "Back\\slash", "Brack]et", "Tab\tbed", "日本"]


def started(rng: random.Random, title: str, edition: Any) -> Record:
    """A record as `Records.play.start` makes it, with names and options picked to exercise every read path."""
    seats = rng.sample(NAMES, rng.randint(1, 4))
    options: dict[str, Any] = {"players": len(seats)}
    if rng.random() < 0.1:
        options["mode"] = "live"  # a key the expression must not take for the record's own mode
    if rng.random() < 0.1:
        options["nested"] = {"a": [1, 2]}  # nested: the expression refuses it, the state is read whole
    mode = LIVE if rng.random() < 0.5 else TRANSCRIBED
    return Record(id=uuid.uuid4(), title=title, edition=edition, edition_file=None, seats=seats,
                  token_hashes=["ab" * 32] * len(seats), options=options, mode=mode, commitment=None, seed=None,
                  origin=None, chain=Record.started_link(title, edition, None, seats, options, mode, None))


def scores(rng: random.Random, record: Record) -> dict[str, Any]:
    seats = list(range(len(record.seats)))
    rng.shuffle(seats)
    found: dict[str, Any] = {"finished": True, "ranking": seats,
                             "seats": [{"seat": s, "total": rng.randint(0, 40), "breakdown": {"a": {"b": s}}}
                                       for s in seats]}
    if rng.random() < 0.2:
        found["winners"] = seats[:2]
    return found


def history(records: Records, count: int, seed: str, after_each: Any = None) -> None:
    """`count` records in batches, most finishing batches later in any order, and imports through every
    status (some queued twice), saved in the order a busy service would; `after_each` after every save."""
    rng = random.Random(seed)
    edition = catalog.game("toy").default_edition().ref
    open_records: list[Record] = []
    open_imports: list[Import] = []
    made = 0
    while made < count or open_records or open_imports:
        batch: list[Any] = []
        for _ in range(min(rng.randint(50, 400), count - made)):
            open_records.append(started(rng, "toy", edition))
            batch.append(open_records[-1])
            made += 1
        rng.shuffle(open_records)
        for _ in range(min(len(open_records), rng.randint(0, 300) if made < count else len(open_records))):
            record = open_records.pop()
            if rng.random() < 0.8:  # the rest stay in progress
                record.finish(seed=None, scores=scores(rng, record))
                batch.append(record)
        for _ in range(rng.randint(0, 20) if made < count else 0):
            open_imports.append(Import(document="{}" * rng.randint(1, 300), token_hashes=["cd" * 32]))
            batch.append(open_imports[-1])
        for found in list(open_imports):
            step = rng.random()
            if step < 0.3:
                found.queue(f"job-{rng.randint(0, 999)}")
            elif step < 0.5 and found.attempts:
                found.validating()
            elif step < 0.6 and found.attempts:
                found.reject({"why": "x" * rng.randint(1, 500)})
                open_imports.remove(found)
            elif step < 0.7 and found.attempts:
                found.accept(str(uuid.uuid4()), {"ok": True})
                open_imports.remove(found)
            elif made >= count:
                found.reject({"why": "closing"})
                open_imports.remove(found)
            else:
                continue
            batch.append(found)
        if batch:
            records.save(*batch)
        if after_each is not None:
            after_each()


def state(directory: Directory) -> tuple[Any, ...]:
    """Everything the directory answers from: every summary (its scores read), every import, every index."""
    directory.catch_up()
    directory._load_scores(list(directory.records.values()))
    fields = ("id", "title", "players", "mode", "created", "position", "finished", "ranking", "totals", "winners",
              "folded", "scores_at")
    summaries = [tuple(getattr(s, f) for f in fields) for s in directory.records.values()]
    imports = {k: (v.status, v.submitted, v.touched, v.attempts, v.job_id) for k, v in directory.imports.items()}
    index = {k: [s.id for s in v] for k, v in directory._index.items() if v}
    return summaries, imports, index, directory.position


def the_librarys_way(records: Records) -> Directory:
    """The directory read one notification at a time, every state decoded whole (what it did before)."""
    reference = Directory(records.recorder, records.mapper)
    reference._log = None
    return reference


@pytest.fixture
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows of a few hundred ids, so a few thousand records take many of them (and the read-ahead)."""
    monkeypatch.setattr(directory_module, "WINDOW", 300)
    monkeypatch.setattr(directory_module, "WINDOW_ROWS", 200)


def test_the_bulk_catch_up_reads_what_the_librarys_way_reads(records: Records, small_windows: None) -> None:
    """From empty (bulk), step by step (small catch-ups after every save), and far behind from halfway:
    the same summaries, imports, indexes and position as decoding every notification whole."""
    assert records.directory._log is not None, "the bulk reader must serve SQLite and PostgreSQL"
    stepwise = Directory(records.recorder, records.mapper)
    halfway = Directory(records.recorder, records.mapper)
    saves = [0]

    def after_each() -> None:
        saves[0] += 1
        stepwise.catch_up()
        if saves[0] == 6:
            halfway.catch_up()

    history(records, 2500, "warm-up", after_each)
    reference = state(the_librarys_way(records))
    summaries, imports, _, _ = reference
    assert len(summaries) == 2500 and 0 < sum(s[6] for s in summaries) < 2500  # some finished, some not
    assert {i[0] for i in imports.values()} == {"accepted", "rejected"} and max(i[3] for i in imports.values()) > 1
    bulk = Directory(records.recorder, records.mapper)
    bulk.catch_up()
    assert any(s.scores_at is not None for s in bulk.records.values())  # far behind: scores left for the pages
    assert state(bulk) == reference
    assert state(stepwise) == reference
    assert state(halfway) == reference
    # And a page shows the scores of its finished records, read then.
    fresh = Directory(records.recorder, records.mapper)
    total, page = fresh.page(status="finished", limit=30)
    expected = [s for s in the_librarys_way(records).find(status="finished")][:30]
    assert total == sum(s[6] for s in summaries)
    assert [(s.id, s.ranking, s.totals, s.winners) for s in page] == [(s.id, s.ranking, s.totals, s.winners)
                                                                      for s in expected]


@pytest.fixture
def stored(store_env: dict[str, str]) -> Iterator[dict[str, str]]:
    """A store holding 2,000 records (and imports), written by a process that is then gone."""
    writer = Records(Settings.from_env(store_env).store)
    try:
        history(writer, 2000, "a process starts")
    finally:
        writer.close()
    yield store_env


def test_a_new_process_is_not_ready_until_its_directory_is_warm(stored: dict[str, str], small_windows: None,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """create_app returns at once; /readyz answers 503 "warming: N records read" (N growing) while the first
    catch-up is under way, /healthz 200; then ready, and it lists what the library's way lists."""
    go_on = threading.Event()
    windows = [0]
    window = directory_module._SqlLog.window

    def held(self: Any, *args: Any) -> Any:  # the first windows pass, then the warm-up waits for the test
        windows[0] += 1
        if windows[0] > 3:
            assert go_on.wait(30), "the test never let the warm-up go on"
        return window(self, *args)

    monkeypatch.setattr(directory_module._SqlLog, "window", held)
    monkeypatch.setattr(health, "WARM_WAIT", 0.05)
    began = time.monotonic()
    app = create_app(Settings.from_env(stored))
    made_in = time.monotonic() - began
    client = app.test_client()
    directory = app.extensions["cronaca"].records.directory
    try:
        assert not directory.warm.is_set()
        assert made_in < 10  # not the catch-up: it is held until go_on
        assert client.get("/healthz").status_code == 200
        deadline = time.monotonic() + 20
        while not directory.records:  # the windows read ahead before the hold: absorbed by now or soon
            assert time.monotonic() < deadline
            time.sleep(0.02)
        answer = client.get("/readyz")
        body = answer.get_json()
        assert answer.status_code == 503 and body["status"] == "not ready", body
        assert body["checks"]["database"] == "ok"
        read = int(body["checks"]["directory"].removeprefix("warming: ").split()[0].replace(",", ""))
        assert 0 < read < 2000 and body["checks"]["directory"].endswith("records read"), body
        assert answer.headers["Retry-After"] == "5"
        go_on.set()
        deadline = time.monotonic() + 60
        while (answer := client.get("/readyz")).status_code != 200:
            assert time.monotonic() < deadline, answer.get_json()
            time.sleep(0.05)
        assert "directory" not in answer.get_json()["checks"]
        assert directory.warm_seconds is not None
        reference = the_librarys_way(app.extensions["cronaca"].records)
        for query in ({}, {"status": "finished"}, {"status": "in-progress"}, {"player": "straße"},
                      {"player": 'quote "q"', "status": "finished"}, {"title": "toy", "player": "ada"}):
            expected = reference.find(query.get("title"), query.get("player"), query.get("status"))
            got = client.get("/api/records", query_string={**query, "per_page": 50, "page": 2}).get_json()
            assert got["total"] == len(expected), query
            assert [item["id"] for item in got["items"]] == [str(s.id) for s in expected[50:100]], query
            for item, summary in zip(got["items"], expected[50:100], strict=True):
                if summary.finished:
                    assert item["scores"] == [{"name": summary.players[seat], "total": summary.totals.get(seat)}
                                              for seat in summary.ranking], query
    finally:
        go_on.set()
        app.extensions["cronaca"].records.close()


def test_a_failed_warm_up_is_said_and_started_again_by_the_next_probe(tmp_path: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The store fails the first read: /readyz says so (no secret, the error's type) and tries again."""
    failures = [1]
    window = directory_module._SqlLog.window

    def flaky(self: Any, *args: Any) -> Any:
        if failures[0]:
            failures[0] -= 1
            raise ConnectionError("the store went away for a moment")
        return window(self, *args)

    monkeypatch.setattr(directory_module._SqlLog, "window", flaky)
    monkeypatch.setattr(health, "WARM_WAIT", 0.5)
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "flaky.sqlite3")}
    writer = Records(Settings.from_env(env).store)
    history(writer, 50, "flaky")
    writer.close()
    app = create_app(Settings.from_env(env))
    directory = app.extensions["cronaca"].records.directory
    try:
        deadline = time.monotonic() + 20
        while directory.warm_error is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert not directory.warm.is_set() and "ConnectionError" in directory.progress()
        answer = app.test_client().get("/readyz")
        assert answer.status_code == 200, answer.get_json()  # this probe started the second attempt and waited
        assert len(directory.records) == 50
    finally:
        app.extensions["cronaca"].records.close()


def test_closing_the_service_waits_for_the_directory_warm_up(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store is not closed under a warm-up thread still reading it (CI saw a process crash so: an SQLite
    read from the warm-up thread of a test's service being closed)."""
    records = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "warm.sqlite3")}).store)
    reading = threading.Event()
    catch_up = records.directory.catch_up

    def slow_catch_up() -> None:
        reading.set()
        time.sleep(0.5)
        catch_up()

    monkeypatch.setattr(records.directory, "catch_up", slow_catch_up)
    records.directory.start_warming()
    assert reading.wait(5)
    records.close()
    thread = records.directory._warming[1]
    assert not thread.is_alive() and records.directory.warm.is_set()
