"""Every import ends in a verdict: malformed files, a bug met while judging, jobs that keep failing.

Before, a file with one value of the wrong type (a command `type` that is an object, an outcome
value that is a list) made the job raise; RQ marked it failed, the relay queued it again, and it
stayed `validating` for ever.
"""

from __future__ import annotations

import copy
import json
import logging
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import pytest

from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records, RecordsError, recordfile
from domain.records.aggregates import ACCEPTED, REJECTED, Import
from domain.records.settings import Settings
from tests.service.helpers import play_out
from workers.relay import give_up, relay_once

TITLES = ("citta-stato", "la-citta", "serenissima")
MUTATIONS = 300
SEED = 20240611


def transcribed_export(title: str, players: int) -> dict[str, Any]:
    """A finished game of `title` played at random, as the record file a table would write."""
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": players}, f"poison-{title}-{players}")
    meta = SimpleNamespace(title=title, edition=edition.ref, edition_file=None, seats=[f"p{i}" for i in range(players)],
                           options={"players": players}, mode="transcribed", commitment=None, revealed_seed=None,
                           finished=True, scores=played.scores)
    return recordfile.export(meta, [e.to_json() for e in played.entries])


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Valid exports of finished games of every title: transcribed (3 seats) and live (2 seats, seed revealed)."""
    found = [transcribed_export(title, 3) for title in TITLES]
    store = tmp_path_factory.mktemp("exports") / "exports.sqlite3"
    records = Records(Settings.from_env({"SQLITE_DBNAME": str(store)}).store)
    try:
        for title in TITLES:
            record_id, tokens = records.play.start(title, ["ann", "bob"])
            play_out(records, record_id, tokens, seed=f"poison-{title}")
            found.append(records.reading.export(record_id).to_json())
    finally:
        records.close()
    return found


@pytest.fixture
def sqlite_records(tmp_path: Path) -> Iterator[Records]:
    app = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "fuzz.sqlite3")}).store)
    yield app
    app.close()


# ---- mutations ----------------------------------------------------------------------------

def _paths(node: Any, here: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield here
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*here, key))


def _swapped(value: Any, rng: random.Random) -> Any:
    """The same place, another JSON type: what a hand-edited or corrupted file holds."""
    if isinstance(value, str):
        return rng.choice([{"value": value}, [value], 7, None, {"type": value}, True])
    if isinstance(value, bool | int | float):
        return rng.choice([str(value), {"n": value}, [value], None, -value - 1, 2.5])
    if isinstance(value, list):
        return rng.choice([{str(i): v for i, v in enumerate(value)}, {}, [value], "list", None, [{"nested": value}]])
    if isinstance(value, dict):
        return rng.choice([list(value.values()), [value], "object", 0, {"nested": value}, None])
    return rng.choice([{}, [], "null", 0])


def mutate(document: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], list[str]]:
    """One or two values changed (type swapped, key deleted, object nested), mostly inside the entries."""
    mutated = copy.deepcopy(document)
    done = []
    for _ in range(rng.choice((1, 1, 2))):
        inside = [p for p in _paths(mutated) if len(p) >= 3 and p[0] == "entries"]
        anywhere = [p for p in _paths(mutated) if p]
        path = rng.choice(inside if rng.random() < 0.85 else anywhere)
        parent = mutated
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.15:
            del parent[path[-1]]
            done.append(f"deleted {'.'.join(map(str, path))}")
        else:
            parent[path[-1]] = _swapped(parent[path[-1]], rng)
            done.append(f"{'.'.join(map(str, path))} -> {json.dumps(parent[path[-1]])[:60]}")
    return mutated, done


def _no_record(records: Records, import_id: UUID) -> bool:
    record_id = uuid5(NAMESPACE_URL, f"cronaca:import:{import_id}")
    return records.timelines.get(record_id) is None and records.imports.get(import_id).record_id is None


# ---- tests ------------------------------------------------------------------------------------

def test_mutated_exports_of_every_title_all_end_in_a_verdict(sqlite_records: Records, exports: list[dict[str, Any]]) -> None:
    """A seeded run of mutated exports: each is refused at submit (422, a rule and where) or judged by the
    job to accepted or rejected; never an exception out of the job, never a record for a rejected file,
    never an internal error (that would be a bug some file reaches)."""
    records = sqlite_records
    rng = random.Random(SEED)
    outcomes: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    for case in range(MUTATIONS):
        original = exports[case % len(exports)]
        document, done = mutate(original, rng)
        where = f"case {case} ({original['title']}, {original['mode']}): {done}"
        try:
            import_id, _ = records.imports.submit(document)
        except RecordsError as exc:
            assert exc.status in (413, 422), where
            assert isinstance(exc.facts.get("rule"), str) and exc.message, where
            if exc.facts["rule"] == "file/entries":
                assert isinstance(exc.facts.get("entry"), int), (where, exc.facts)
            outcomes["refused at submit"] += 1
            rules[exc.facts["rule"]] += 1
            continue
        report = records.imports.validate(import_id)  # anything it raises fails the test: that was the loop
        status = records.imports.get(import_id).status
        assert status in (ACCEPTED, REJECTED), where
        assert report.ok is (status == ACCEPTED), where
        assert report.rule != "import/internal-error", (where, report)
        if status == REJECTED:
            assert isinstance(report.rule, str) and report.message, where
            assert _no_record(records, import_id), where
        outcomes[status] += 1
        rules[report.rule or "ok"] += 1
    assert sum(outcomes.values()) == MUTATIONS
    assert outcomes["refused at submit"] > 0 and outcomes[REJECTED] > 0, (outcomes, rules)
    assert rules["file/entries"] > 0, rules


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d["entries"][3]["command"].__setitem__("type", {"kind": "move"}), "command.type"),
    (lambda d: d["entries"][0]["outcomes"][0]["values"].__setitem__(0, ["nested", "list"]), "outcomes.0.values.0"),
    (lambda d: d["entries"][2].__setitem__("events", {"0": d["entries"][2]["events"][0]}), "events"),
    (lambda d: d["entries"][0].__setitem__("setup", [["players", 3]]), "setup"),
])
def test_a_stored_poison_file_is_rejected_naming_the_entry_and_field(
        records: Records, exports: list[dict[str, Any]], change: Any, field: str) -> None:
    """Files like the 26 that looped: refused at submit now, and when one is already stored (submitted
    before these checks) the job rejects it with the entry and field instead of failing."""
    document = copy.deepcopy(exports[0])
    change(document)
    entry = int(next(i for i, e in enumerate(document["entries"]) if e != exports[0]["entries"][i]))
    with pytest.raises(RecordsError) as refused:
        records.imports.submit(document)
    assert refused.value.status == 422
    assert refused.value.facts["rule"] == "file/entries" and refused.value.facts["entry"] == entry
    assert refused.value.facts["field"] == field and f"entry {entry}" in refused.value.message
    stored = Import(document=json.dumps(document), token_hashes=["0" * 64] * 3)  # as an older service saved it
    records.save(stored)
    report = records.imports.validate(stored.id)
    assert records.imports.get(stored.id).status == REJECTED
    assert report.rule == "file/entries" and report.stored["entry_index"] == entry and report.facts["field"] == field
    assert _no_record(records, stored.id)


def _toy_export(records: Records) -> dict[str, Any]:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, record_id, tokens, seed="poison")
    return records.reading.export(record_id).to_json()


def test_an_unexpected_exception_in_the_job_is_a_rejected_import_with_an_error_id(
        records: Records, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A bug the file reaches (here the title's decide raises) ends in a rejected verdict whose report
    carries an error id and a rule, never the traceback or the exception's text; the operator's log has
    the id with the traceback."""
    from tests.kernel import toy_game

    document = _toy_export(records)
    import_id, _ = records.imports.submit(document)

    def broken(self: Any, state: Any, cmd: Any, chance: Any) -> Any:
        raise RuntimeError("secret-in-the-failure: seat 1 holds the red cube")

    monkeypatch.setattr(toy_game.Toy, "decide", broken)
    with caplog.at_level(logging.ERROR, logger="cronaca.imports"):
        report = records.imports.validate(import_id)
    status = records.imports.status(import_id).to_json()
    assert status["status"] == REJECTED and status["record_id"] is None
    assert report.ok is False and report.rule == "import/internal-error"
    error_id = report.facts["error_id"]
    assert isinstance(error_id, str) and len(error_id) >= 8 and error_id in report.message
    shown = json.dumps(status)
    assert "secret-in-the-failure" not in shown and "Traceback" not in shown and "RuntimeError" not in shown
    logged = [r for r in caplog.records if r.name == "cronaca.imports" and error_id in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None
    assert "secret-in-the-failure" in caplog.text  # the operator sees what failed, by the id
    assert _no_record(records, import_id)
    monkeypatch.undo()
    assert records.imports.validate(import_id) == report  # concluded: a later run of the job changes nothing


def test_an_internal_error_over_http_is_a_verdict_not_a_loop(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.kernel import toy_game
    from tests.service.helpers import play_out_http
    from tests.service.test_api import start, wait_for_verdict

    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    exported = client.get(f"/api/records/{record_id}/export").data

    def broken(self: Any, state: Any, e: Any) -> Any:
        raise KeyError("secret-key")

    monkeypatch.setattr(toy_game.Toy, "evolve", broken)
    answer = client.post("/api/imports", data=exported, content_type="application/json")
    assert answer.status_code == 202
    verdict = wait_for_verdict(client, answer.get_json()["id"])
    assert verdict["status"] == "rejected" and verdict["attempts"] == 1
    assert verdict["report"]["rule"] == "import/internal-error" and "secret-key" not in json.dumps(verdict)


class NeverRuns:
    """A queue that takes every job and loses it (each job fails, or kills its worker); or, while
    `running`, says its jobs are still at work."""

    def __init__(self) -> None:
        self.jobs: list[str] = []
        self.running = False

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        self.jobs.append(f"never-{import_id}-{attempt}")
        return self.jobs[-1]

    def lost(self, job_id: str) -> bool:
        return not self.running


def test_the_relay_concludes_an_import_after_max_attempts(records: Records) -> None:
    document = _toy_export(records)
    import_id, _ = records.imports.submit(document)
    queue = NeverRuns()
    passes = [relay_once(records, queue, requeue_after=0, grace=0, max_attempts=3) for _ in range(6)]
    assert passes == [1, 1, 1, 0, 0, 0]
    status = records.imports.status(import_id).to_json()
    assert status["status"] == REJECTED and status["attempts"] == 3 and status["record_id"] is None
    report = status["report"]
    assert report["rule"] == "import/attempts" and report["facts"] == {"attempts": 3}
    assert "3 attempts" in report["message"] and "CRONACA_MAX_ATTEMPTS" in report["message"]
    assert len(queue.jobs) == 3


def test_a_slow_job_at_the_cap_is_left_to_finish(records: Records) -> None:
    """Validating longer than `requeue_after` is queued again (its worker may have died), but at the cap
    the relay waits for the queue to say the last job ended: a big file's slow job still gives its verdict."""
    import_id, _ = records.imports.submit(_toy_export(records))
    queue = NeverRuns()
    relay_once(records, queue, requeue_after=0, grace=0, max_attempts=2)
    records.imports.mark_validating(import_id)  # a worker took it ...
    queue.running = True  # ... and is still at work
    assert relay_once(records, queue, requeue_after=0, grace=0, max_attempts=2) == 1  # validating too long
    for _ in range(3):
        assert relay_once(records, queue, requeue_after=0, grace=0, max_attempts=2) == 0
    assert records.imports.status(import_id).status == "validating" and len(queue.jobs) == 2
    assert records.imports.validate(import_id).ok  # the slow job concludes
    queue.running = False
    relay_once(records, queue, requeue_after=0, grace=0, max_attempts=2)
    assert records.imports.status(import_id).status == ACCEPTED


def test_the_attempts_cap_comes_from_the_environment(store_env: dict[str, str]) -> None:
    records = Records(Settings.from_env({**store_env, "CRONACA_MAX_ATTEMPTS": "2"}).store)
    try:
        import_id, _ = records.imports.submit(_toy_export(records))
        queue = NeverRuns()
        for _ in range(4):
            relay_once(records, queue, requeue_after=0, grace=0)
        status = records.imports.status(import_id).to_json()
        assert status["status"] == REJECTED and status["attempts"] == 2 and len(queue.jobs) == 2
    finally:
        records.close()
    assert Settings.from_env({"CRONACA_MAX_ATTEMPTS": "7"}).max_attempts == 7
    with pytest.raises(ValueError, match="CRONACA_MAX_ATTEMPTS"):
        Settings.from_env({"CRONACA_MAX_ATTEMPTS": "0"})


def test_a_verdict_reached_first_is_never_overwritten_by_the_cap(records: Records) -> None:
    """The relay decides from its directory, which may lag: a job that concluded meanwhile keeps its verdict."""
    import_id, _ = records.imports.submit(_toy_export(records))
    relay_once(records, NeverRuns(), requeue_after=0, grace=0, max_attempts=1)
    assert records.imports.validate(import_id).ok  # the job got through after all
    give_up(records, import_id, 1)  # what a relay pass with a stale directory does
    status = records.imports.status(import_id).to_json()
    assert status["status"] == ACCEPTED and status["report"]["ok"] and status["record_id"] is not None
