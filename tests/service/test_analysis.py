"""A finished record's analysis (issue 33, part 2): the walk, its stream, its job and its API (SQLite, in-process)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from rq import Queue

from api.app import create_app
from domain import catalog
from domain.kernel import SeededChance, play
from domain.kernel.review import Budget, calibration_sentence, reviewer
from domain.records import analyses
from domain.records.readmodels_analysis import DONE, RUNNING
from domain.records.review_walk import AnalysisBudget
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import auth, import_finished, play_out_http, record_file
from tests.service.test_api import start
from tests.service.test_workers import Stack
from workers.dispatch import ANALYSIS_JOB

TINY = AnalysisBudget(playouts=2, seconds=None, chances=2, suggestions=2)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    made = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}))
    made.config["TESTING"] = True
    made.extensions["cronaca"].records.analyses.budget = TINY
    yield made
    close_app(made)


def finished(client: Any) -> tuple[str, list[str], dict[str, Any]]:
    """A finished toy game over HTTP: its id, its seats' tokens, its annotator key."""
    answer = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"]}).get_json()
    record_id, tokens = answer["id"], [s["token"] for s in answer["seats"]]
    play_out_http(client, record_id, tokens)
    return record_id, tokens, answer


def wait_done(client: Any, record_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        status = client.get(f"/api/records/{record_id}/analysis").get_json()
        seen.append(status["progress"])
        if status["status"] in ("done", "failed"):
            assert status["status"] == "done", status.get("error")
            assert seen == sorted(seen), seen  # progress never goes back
            return status  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"the analysis is still {status['status']} at {status['progress']}")


def test_analysis_through_the_api(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """In progress: 409; a token that opens nothing: 403; twice at once: one analysis, one job; done: expected
    standings that end at the final result, turning points whose what-if line plays, luck at every draw; every
    decision judged from its own seat's view."""
    asked: list[tuple[int | None, int | None]] = []  # (the seat whose view, the seat deciding there)

    class Watching:
        def __init__(self, budget: Budget) -> None:
            self.inner = reviewer(budget)

        def estimate(self, game: Any, state: Any, seat: int | None, think: str) -> Any:
            asked.append((seat, game.pending(state).seat if not game.pending(state).over else seat))
            return self.inner.estimate(game, state, seat, think)

        def suggest(self, game: Any, state: Any, think: str) -> Any:
            return self.inner.suggest(game, state, think)

    monkeypatch.setattr(analyses, "reviewer", Watching)
    client = app.test_client()
    record_id, tokens = start(client)
    early = client.post(f"/api/records/{record_id}/analysis", json={})
    assert early.status_code == 409 and early.get_json()["rule"] == "analysis/in-progress"
    play_out_http(client, record_id, tokens)
    assert client.get(f"/api/records/{record_id}/analysis").status_code == 404  # nobody asked yet
    assert client.post(f"/api/records/{record_id}/analysis", json={}, headers=auth("not-a-token")).status_code == 403

    first = client.post(f"/api/records/{record_id}/analysis", json={})
    again = client.post(f"/api/records/{record_id}/analysis", json={}, headers=auth(tokens[0]))
    assert first.status_code in (200, 202) and again.status_code in (200, 202)
    assert first.get_json()["id"] == again.get_json()["id"]
    status = wait_done(client, record_id)
    assert status["status"] == DONE and status["progress"] == 1 and status["attempts"] == 1  # one job for both
    assert client.post(f"/api/records/{record_id}/analysis", json={}).status_code == 200  # done: answered, never run again
    assert status["trust"] == calibration_sentence(catalog.game("toy"))  # how far its chances can be trusted, said
    assert "not been checked" in status["trust"]  # the toy title has no measured calibration

    result = status["analysis"]
    summary = client.get(f"/api/records/{record_id}").get_json()
    steps = summary["steps"]
    final = {row["seat"]: row["total"] for row in summary["scores"]["seats"]}
    winner = max(final, key=lambda s: final[s])
    for seat in result["expected"]:
        last = seat["series"][-1]
        assert last["step"] == steps and last["score"] == final[seat["seat"]]  # the end is known exactly
        assert last["win"] == (1.0 if seat["seat"] == winner else 0.0)
    log = client.get(f"/api/records/{record_id}/export").get_json()["entries"]
    for luck in result["luck"]:
        assert luck["draws"] == result["chance_steps"] == sum(1 for e in log if e["outcomes"])  # every draw weighed
        assert luck["luckiest"]["win"] >= luck["unluckiest"]["win"]
        # each draw says where its entry began and what chance gave there, as the record file writes it
        starts = {e: sum(len(x["events"]) for x in log[:e]) for e in range(len(log))}
        for draw in luck["each"]:
            entry = next(e for e, at in starts.items() if at == draw["from_step"])
            assert draw["step"] == draw["from_step"] + len(log[entry]["events"])
            assert draw["drawn"] == [str(v) for o in log[entry]["outcomes"] for v in o.get("values") or []][:8]
    # every decision judged from a seat's own view: the all-seeing one only for the setup's deals (and their others)
    assert sum(view is None for view, _ in asked) == (1 + TINY.chances if log[0]["outcomes"] else 0)
    assert {view for view, _ in asked} - {None} == {0, 1}
    before = [(view, deciding) for view, deciding in asked if view is not None and deciding is not None]
    assert sum(view == deciding for view, deciding in before) >= result["decisions"]

    points = result["turning_points"]
    assert 0 < len(points) <= TINY.suggestions
    assert [abs(p["swing"]) for p in points] == sorted((abs(p["swing"]) for p in points), reverse=True)
    point = points[0]
    assert point["player"] == ["ann", "bob"][point["seat"]] and point["played"] and point["suggested"]
    for p in points:  # the standing before the choice, and the swing from it to what the choice was worth
        assert 0 <= p["expected_before"]["win"] <= 1 and 0 <= p["expected_before"]["win"] + p["swing"] <= 1


def test_the_what_if_line_of_a_turning_point_plays(app: Any) -> None:
    """A turning point carries what opens its what-if line: the variation branches there and plays the suggestion."""
    client = app.test_client()
    record_id, _, started = finished(client)
    client.post(f"/api/records/{record_id}/analysis", json={})
    point = wait_done(client, record_id)["analysis"]["turning_points"][0]
    key = auth(started["annotator_key"])
    what_if = point["what_if"]
    branched = client.post(f"/api/records/{record_id}/variations", headers=key,
                           json={"from_step": what_if["from_step"], "parent": what_if["parent"], "title": "suggested"})
    assert branched.status_code == 201, branched.get_json()
    played = client.post(f"/api/variations/{branched.get_json()['id']}/commands", headers=key,
                         json={"command": what_if["command"]})
    assert played.status_code == 200, played.get_json()


def test_a_job_killed_mid_analysis_is_resumed_once(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job whose worker dies mid-walk leaves its rows stored and the analysis running; the next read sees the
    job lost and queues another, which goes on from those rows and stores the one analysis (the same as a run
    never interrupted)."""
    client = app.test_client()
    records = app.extensions["cronaca"].records
    record_id, _, _ = finished(client)
    records.analyses.save_every = 0.0
    found, fresh = records.analyses.request(UUID(record_id))  # asked for, its job never handed over: "doomed" runs it
    assert fresh
    doomed = found.job
    judged: list[int] = []
    real_judge = analyses.Walk.judge

    class Killed(BaseException):
        """What a worker's death looks like from inside the job: nothing after it runs."""

    def dies_at_the_fourth(self: Any, decision: Any) -> Any:
        judged.append(decision.entry)
        if len(judged) == 4:
            raise Killed
        return real_judge(self, decision)

    monkeypatch.setattr(analyses.Walk, "judge", dies_at_the_fourth)
    with pytest.raises(Killed):
        records.analyses.run(found.id, doomed)
    stuck = records.analyses.get(UUID(record_id))
    assert stuck.status == RUNNING and len(stuck.rows) == 3 and stuck.job == doomed

    judged.clear()
    monkeypatch.setattr(analyses.Walk, "judge", lambda self, d: (judged.append(d.entry), real_judge(self, d))[1])
    status = wait_done(client, record_id)  # the GET sees the doomed job lost (no such job here) and queues another
    assert status["status"] == DONE and status["attempts"] == 2
    assert not set(judged) & {int(r["entry"]) for r in stuck.rows}  # the stored rows were not judged again

    records.analyses.run(found.id, doomed)  # the dead job come back to life writes nothing
    assert records.analyses.get(UUID(record_id)).version == records.repository.get(found.id).version
    assert AnalysisBudget.from_json(status["budget"]) == TINY
    assert status["analysis"] == records.analyses.compute(UUID(record_id), TINY)  # as if never interrupted
    stored = list(records.repository.event_store.get(found.id))
    assert sum(type(e).__name__ == "Done" for e in stored) == 1


def test_an_edition_the_service_no_longer_has_is_named(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record whose edition is not the service's any more: 409 naming the record's edition."""
    client = app.test_client()
    record_id, _, _ = finished(client)
    records = app.extensions["cronaca"].records
    game = catalog.game("toy")
    edition = game.default_edition()
    other = game.load_edition(b"id: toy-2\ntitle: toy\ndata:\n  target: 12\n  bag: [1, 2, 3]\nprovenance:\n  target: \"assumed: a longer game\"\n", "<test>")
    monkeypatch.setattr(type(game), "default_edition", lambda self: other)
    records._editions.clear()
    answer = client.post(f"/api/records/{record_id}/analysis", json={})
    assert answer.status_code == 409, answer.get_json()
    body = answer.get_json()
    assert body["rule"] == "analysis/edition" and edition.content_hash in body["detail"]


@pytest.mark.redis
def test_an_analysis_through_real_rq_workers_one_killed_mid_walk(tmp_path: Path) -> None:
    """RQ: the analysis runs on a real worker (the analyses queue); that worker killed mid-walk, the next read sees
    its job lost (stale heartbeat) and queues another, which a second worker runs on from the rows stored: one
    analysis, done, the same as an analysis never interrupted. (~10 s: two worker processes and a death seen.)"""
    stack = Stack(tmp_path, "redis://127.0.0.1:6379/0")
    queue = stack.env["CRONACA_ANALYSES_QUEUE"]  # each stack has its own
    try:
        stack.service.dispatcher.analyses = Queue(queue, connection=stack.service.dispatcher.connection)
        stack.service.records.analyses.budget = TINY
        dispatcher = stack.service.dispatcher
        dispatcher.analysis_job = "tests.service.slow_jobs.analyse_record_slowly"
        record_id, _, _ = finished(stack.client)
        first = stack.client.post(f"/api/records/{record_id}/analysis", json={})
        assert first.status_code == 202 and first.get_json()["status"] == "queued"
        slow = stack.spawn("worker", "--queues", "analyses")
        records = stack.service.records
        deadline = time.time() + 30
        while len(records.analyses.get(UUID(record_id)).rows) < 2:
            assert time.time() < deadline, "the worker never judged a row"
            time.sleep(0.05)
        os.kill(slow.pid, signal.SIGKILL)
        slow.wait(5)
        stored = len(records.analyses.get(UUID(record_id)).rows)
        dispatcher.analysis_job = ANALYSIS_JOB
        stack.spawn("worker", "--queues", "analyses")
        status = wait_done(stack.client, record_id, timeout=60)  # its reads see the job lost and queue another
        assert status["attempts"] == 2 and status["progress"] == 1
        found = records.analyses.get(UUID(record_id))
        assert found.job.startswith("analysis-") and stored >= 2
        events = [type(e).__name__ for e in records.repository.event_store.get(found.id)]
        assert events.count("Done") == 1 and events.count("Requested") == 1
        assert status["analysis"] == records.analyses.compute(UUID(record_id), TINY)  # as if never interrupted
    finally:
        Queue(queue, connection=stack.service.dispatcher.connection).delete(delete_jobs=True)
        stack.close()


def test_a_failed_analysis_says_why_and_is_asked_for_again(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A job that fails stores why (never left running); asked for again, a new job makes the analysis."""
    client = app.test_client()
    record_id, _, _ = finished(client)
    real_judge = analyses.Walk.judge

    def broken(self: Any, decision: Any) -> Any:
        raise ValueError("the reviewer fell over")

    monkeypatch.setattr(analyses.Walk, "judge", broken)
    client.post(f"/api/records/{record_id}/analysis", json={})
    deadline = time.time() + 30
    while (status := client.get(f"/api/records/{record_id}/analysis").get_json())["status"] != "failed":
        assert status["status"] in ("queued", "running") and time.time() < deadline, status
        time.sleep(0.05)
    assert status["error"] == "the reviewer fell over" and status["attempts"] == 1
    monkeypatch.setattr(analyses.Walk, "judge", real_judge)
    again = client.post(f"/api/records/{record_id}/analysis", json={})
    assert again.status_code == 202 and again.get_json()["attempts"] == 2 and "error" not in again.get_json()
    assert wait_done(client, record_id)["analysis"]["expected"]


class _Calibrated:
    """A game as it is, but for the calibration its bot.py would keep: every chance up to three quarters of the
    way shrunk all the way to the even share."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self.bot_calibration = {"shrink_by_progress": {"0.25": 0.0, "0.5": 0.0, "0.75": 0.0}}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def test_the_walk_stores_the_chances_as_the_titles_calibration_corrects_them(app: Any) -> None:
    """The chart, the swings and the luck read the chances corrected by how far into the game each step is: with
    a calibration that trusts nothing up to three quarters of the game, every seat there is at the even share."""
    client = app.test_client()
    record_id, _, _ = finished(client)
    service = app.extensions["cronaca"].records.analyses
    raw, _, _ = service.walk(UUID(record_id), TINY)
    shown, _, _ = service.walk(UUID(record_id), TINY)
    shown.game = _Calibrated(shown.game)
    last = raw.starts[-1] + len(raw.entries[-1]["events"])
    early = [r for r in raw.rows() if r["after_step"] <= 0.75 * last]
    assert any(set(r["after"]["win"].values()) != {0.5} for r in early)  # uncorrected, the playouts tell seats apart
    corrected = [r for r in shown.rows() if r["after_step"] <= 0.75 * last]
    assert [r["entry"] for r in corrected] == [r["entry"] for r in early]
    for r in corrected:
        assert set(r["after"]["win"].values()) == {0.5}, r
        assert r["chosen"] is None or set(r["chosen"]["win"].values()) == {0.5}


def test_a_decision_where_the_reviewer_agrees_is_no_turning_point(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the reviewer would have played the move played, the swing was not the choice's: that decision is left
    out of the turning points and the next largest swing takes its place, each listed one with another move."""
    client = app.test_client()
    record_id, _, _ = finished(client)
    records = app.extensions["cronaca"].records
    log = client.get(f"/api/records/{record_id}/export").get_json()["entries"]
    budget = AnalysisBudget(playouts=2, seconds=None, chances=0, suggestions=2)
    walk, names, chooser = records.analyses.walk(UUID(record_id), budget)
    rows = [r for r in walk.rows() if r["before"] is not None and r["choices"] > 1]
    assert len(rows) >= 3
    # the first three decisions swung their seat by 0.6, 0.5 and 0.4 (judged on many games), the rest not at all
    rows = [judged(r, 200, 0.2, 0.2 + (0.6 - 0.1 * k if k < 3 else 0.0)) for k, r in enumerate(rows)]
    agreed = {int(rows[0]["entry"])}  # the largest swing: the reviewer played as the player did

    class Agreeing:
        """The reviewer, suggesting the move played where `agreed`, any other legal move elsewhere."""

        def __init__(self, budget: Budget) -> None:
            self.inner = reviewer(budget)

        def estimate(self, game: Any, state: Any, seat: int | None, think: str) -> Any:
            return self.inner.estimate(game, state, seat, think)

        def suggest(self, game: Any, state: Any, think: str) -> Any:
            entry = int(think.rsplit("/", 1)[1])
            played = game.parse_command(log[entry]["command"])
            other = next(c for c in game.legal(state) if c != played)
            command = played if entry in agreed else other
            return command, self.inner.estimate(game, play(game, state, command, SeededChance(think))[1],
                                                game.pending(state).seat, think)

    walk.make_reviewer = Agreeing
    points = walk.suggest(rows, names, chooser)
    starts = {sum(len(x["events"]) for x in log[:e]): e for e in range(len(log))}
    assert [starts[p["step"]] for p in points] == [int(r["entry"]) for r in rows[1:3]]  # the next two, in order
    for p in points:
        assert not p["same"] and p["suggested"] and p["suggested"] != p["played"], p
        assert p["what_if"]["command"] != log[starts[p["step"]]]["command"]


def judged(row: dict[str, Any], games: int, before: float, after: float) -> dict[str, Any]:
    """A walk's row as if its seat's chance to win was judged `before` and `after` on `games` games each."""
    seat, other = str(row["seat"]), str(1 - row["seat"])
    return {**row, "chosen": None,
            "before": {**row["before"], "win": {seat: before, other: 1 - before}, "playouts": games},
            "after": {**row["after"], "win": {seat: after, other: 1 - after}, "playouts": games}}


def test_the_analysis_says_how_often_the_game_was_played_out(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a clock the reviewer may play out far fewer games than its budget: the analysis counts those it did
    (what the page's "off by about" follows from), not the budget's."""
    client = app.test_client()
    record_id, _, _ = finished(client)

    class Hurried:
        """The reviewer, out of time after one game at every estimate."""

        def __init__(self, budget: Budget) -> None:
            self.inner = reviewer(replace(budget, playouts=1))

        def estimate(self, game: Any, state: Any, seat: int | None, think: str) -> Any:
            return self.inner.estimate(game, state, seat, think)

        def suggest(self, game: Any, state: Any, think: str) -> Any:
            return self.inner.suggest(game, state, think)

    budget = AnalysisBudget(playouts=5, seconds=None, chances=1, suggestions=1)
    monkeypatch.setattr(analyses, "reviewer", Hurried)
    hurried = app.extensions["cronaca"].records.analyses.compute(UUID(record_id), budget)
    assert hurried["budget"]["playouts"] == 5 and hurried["playouts"] == {"median": 1, "fewest": 1, "most": 1}
    monkeypatch.setattr(analyses, "reviewer", reviewer)
    assert app.extensions["cronaca"].records.analyses.compute(UUID(record_id), budget)["playouts"]["median"] == 5


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
def test_a_move_is_told_as_the_move_list_tells_it_never_with_a_draw_of_ours(app: Any, title: str) -> None:
    """A turning point's move in the move list's words ("Zoë gains a purple banner", not "purple"): for most
    decisions of a finished game, one of the very lines its entry wrote in the move list, naming its words' places;
    none a line of our own drawing (a move's words are told only up to where chance speaks)."""
    document = record_file(title, "said", greedy=True)
    document["seats"] = [{"name": "Anna Maria"}, {"name": "D'Angelo"}]
    records = app.extensions["cronaca"].records
    record_id, _ = import_finished(records, document)
    walk, names, chooser = records.analyses.walk(record_id, TINY)
    lines = records.presenting.story(record_id).lines
    decisions = [d for d in walk.decisions if d.seat is not None and d.choices > 1]
    told = 0
    for d in decisions:
        state = walk.state_at(d.before)
        played = walk.entries[d.entry]["command"]
        words = chooser(state, [played], names)[0].words
        said = walk.said(state, played, names, words)
        if said is None:
            continue
        told += 1
        entry_lines = [line.text.strip().rstrip(".") for line in lines if d.before < line.step <= d.after]
        assert said in entry_lines, (words, said, entry_lines)
        assert "Command" not in said and "{" not in said and "_" not in said, said  # words, never a repr or an id
    assert told >= 0.75 * len(decisions), (told, len(decisions))  # the rest draw first (La Città's blind draw)


def test_two_askers_at_once_make_one_job(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two askers at the same moment (a double tap, two readers): one stream and one job, even when the second asks
    (or a reader polls) while the first is still handing its job to the queue."""
    record_id, _, _ = finished(app.test_client())
    dispatcher = app.extensions["cronaca"].dispatcher
    handed: list[str] = []
    real = dispatcher.enqueue_analysis

    def slow_hand_over(analysis_id: UUID, job_id: str) -> None:
        time.sleep(0.5)  # the queue is slow to answer: the others ask meanwhile
        handed.append(job_id)
        real(analysis_id, job_id)

    monkeypatch.setattr(dispatcher, "enqueue_analysis", slow_hand_over)
    answers: list[Any] = []

    def ask() -> None:
        answers.append(app.test_client().post(f"/api/records/{record_id}/analysis", json={}))

    askers = [threading.Thread(target=ask) for _ in range(2)]
    for asker in askers:
        asker.start()
        time.sleep(0.1)
    polled = app.test_client().get(f"/api/records/{record_id}/analysis")  # a reader polling in the meantime
    for asker in askers:
        asker.join()
    assert polled.status_code == 200 and [a.status_code for a in answers] == [202, 202]
    assert len({a.get_json()["id"] for a in answers}) == 1
    status = wait_done(app.test_client(), record_id)
    assert len(handed) == 1 and status["attempts"] == 1, (handed, status["attempts"])
    stored = [type(e).__name__ for e in app.extensions["cronaca"].records.repository.event_store.get(UUID(status["id"]))]
    assert stored.count("Requested") == 1 and stored.count("Queued") == 0 and stored.count("Done") == 1


def test_a_swing_the_playouts_alone_could_make_is_no_turning_point(app: Any) -> None:
    """A game played out once judges every chance 0 or 1, so every choice seems to swing the whole way: a swing no
    larger than the playouts' noise is left out of the turning points; the same swing measured on many games is in."""
    client = app.test_client()
    record_id, _, _ = finished(client)
    records = app.extensions["cronaca"].records
    budget = AnalysisBudget(playouts=2, seconds=None, chances=0, suggestions=2)
    walk, names, chooser = records.analyses.walk(UUID(record_id), budget)
    rows = [r for r in walk.rows() if r["before"] is not None and r["choices"] > 1]
    assert len(rows) >= 2

    calm = [judged(r, 200, 0.5, 0.5) for r in rows]  # every other decision moved nobody
    once, sure = 0, 1
    calm[once] = judged(rows[once], 1, 0.0, 1.0)  # played out once: 0 to 1, the whole way
    calm[sure] = judged(rows[sure], 200, 0.2, 0.6)  # played out 200 times: 0.2 to 0.6
    points = walk.suggest(calm, names, chooser)
    steps = [p["step"] for p in points]
    assert rows[sure]["before_step"] in steps and rows[once]["before_step"] not in steps, steps
    assert walk.noise(calm[once]) > 1.0 > 0.4 > walk.noise(calm[sure])


def test_an_unknown_record_or_a_game_in_progress_is_refused_at_both_doors(app: Any) -> None:
    """No such record: 404 naming it, asked for or read; a game in progress: 409, read too (nothing was stored);
    a token that opens no seat: 403 on the read as on the ask."""
    client = app.test_client()
    nobody = "00000000-0000-4000-8000-000000000000"
    for answer in (client.post(f"/api/records/{nobody}/analysis", json={}), client.get(f"/api/records/{nobody}/analysis")):
        assert answer.status_code == 404 and nobody in answer.get_json()["detail"], answer.get_json()
    record_id, _ = start(client)
    for answer in (client.post(f"/api/records/{record_id}/analysis", json={}), client.get(f"/api/records/{record_id}/analysis")):
        assert answer.status_code == 409 and answer.get_json()["rule"] == "analysis/in-progress", answer.get_json()
    done, _, _ = finished(client)
    client.post(f"/api/records/{done}/analysis", json={})
    assert client.get(f"/api/records/{done}/analysis", headers=auth("not-a-token")).status_code == 403
    records = app.extensions["cronaca"].records
    assert sum(1 for _ in records.repository.event_store.get(analyses.analysis_id(UUID(record_id),
                                                                                   records.access.meta(UUID(record_id)).edition))) == 0
