"""A record's live channel (issue 16): `GET /api/records/{id}/live` tells followers each new version.

The stream is read over real HTTP (a threaded werkzeug server, as `cronaca serve`) by a plain client, line by
line: the in-process hub first, then two apps on the shared Redis at 127.0.0.1:6379 standing for two API
processes (each test's record ids are fresh, so their channels `cronaca:record:<id>` are the test's own). What
goes down the stream must be public (version, steps, finished), never a token or an event's contents. Last, a
record page in Chromium follows a game as moves are posted over HTTP, without a reload.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from api.app import create_app
from api.live import InProcessHub, RedisHub, channel_for, record_state, record_stream, record_topic
from api.service import Service
from domain.kernel import SeededChance
from domain.records import Records
from domain.records.settings import Settings
from tests.service import browsing
from tests.service.browsing import served_app, serving
from tests.service.conftest import LONG_TOY
from tests.service.helpers import EventStream, auth, toy_registered
from tests.service.test_api import start
from tests.service.test_live import numsub, wait_until
from workers.dispatch import InProcessDispatcher

REDIS = "redis://127.0.0.1:6379/0"
FIELDS = {"type", "version", "steps", "finished"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    with toy_registered(), served_app(tmp_path_factory.mktemp("record-live"), CRONACA_SSE_PING=0.2) as (base, app):
        yield base.removeprefix("http://"), app.test_client(), app


class Follower(EventStream):
    """A follower of one record's live stream."""

    def __init__(self, address: str, record_id: str, last_event_id: int | None = None) -> None:
        super().__init__(address, f"/api/records/{record_id}/live", last_event_id)


def play_one(client: Any, record_id: str, tokens: list[str], chance: SeededChance) -> dict[str, Any]:
    """One legal command by the seat whose turn it is, over HTTP; its answer."""
    pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
    legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[pending["seat"]])).get_json()
    command = legal["commands"][chance.below(len(legal["commands"]))]
    answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[pending["seat"]]),
                         json={"command": command, "version": legal["version"]})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()  # type: ignore[no-any-return]




# ---- the stream, in one process -------------------------------------------------------------------------


def test_a_follower_hears_each_command_s_version_and_nothing_secret(served: tuple[str, Any, Any]) -> None:
    address, client, app = served
    made = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"],
                                             "edition_file": LONG_TOY.format(target=60)}).get_json()
    record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
    secrets = [*tokens, made["annotator_key"], made["arbiter_key"]]
    summary = client.get(f"/api/records/{record_id}").get_json()
    hub = app.extensions["cronaca"].hub
    follower = Follower(address, record_id)
    chance = SeededChance("record-live")
    try:
        assert follower.response.status == 200
        assert follower.response.getheader("Content-Type").startswith("text/event-stream")
        assert follower.response.getheader("Cache-Control") == "no-cache"
        first = follower.next_event()
        assert first["retry"] == "2000" and first["event"] == "record"
        assert first["data"] == {"type": "record", "version": summary["version"], "steps": summary["steps"],
                                 "finished": False} and first["id"] == str(summary["version"])
        assert wait_until(lambda: hub.subscribers(record_topic(record_id)) == 1)
        for _ in range(3):
            played = play_one(client, record_id, tokens, chance)
            heard = follower.next_event()
            assert heard["event"] == "record" and heard["id"] == str(played["version"])
            assert heard["data"] == {"type": "record", "version": played["version"], "steps": played["steps"][1],
                                     "finished": False}
        assert follower.next_event(skip_comments=False) == {"comment": "ping"}  # a quiet stream says it is alive
    finally:
        follower.close()
    # nothing secret went down the stream: public fields only, no token or key, no event's contents
    events = [json.loads(line[len("data: "):]) for line in follower.raw.splitlines() if line.startswith("data: ")]
    assert len(events) == 4 and all(set(e) == FIELDS for e in events)
    assert not [s for s in secrets if s in follower.raw]
    stored = client.get(f"/api/records/{record_id}/events?from=0", headers=auth(tokens[0])).get_json()["events"]
    assert stored and all(e["type"] not in follower.raw for e in stored)  # not even the events' kinds
    assert wait_until(lambda: hub.subscribers(record_topic(record_id)) == 0)  # the gone follower was let go


def test_last_event_id_gets_the_current_version_at_once_only_when_behind(served: tuple[str, Any, Any]) -> None:
    address, client, _ = served
    record_id, tokens = start(client, edition_file=LONG_TOY.format(target=60))
    chance = SeededChance("behind")
    before = play_one(client, record_id, tokens, chance)["version"]
    now = play_one(client, record_id, tokens, chance)
    behind = Follower(address, record_id, last_event_id=before)
    level = Follower(address, record_id, last_event_id=now["version"])
    try:
        caught_up = behind.next_event()
        assert caught_up["id"] == str(now["version"]) and caught_up["data"]["steps"] == now["steps"][1]
        assert level.next_event(skip_comments=False) == {"comment": "up to date", "retry": "2000"}
        assert level.next_event(skip_comments=False) == {"comment": "ping"}  # and no event it already had
        again = play_one(client, record_id, tokens, chance)
        for follower in (behind, level):
            assert follower.next_event()["id"] == str(again["version"])
    finally:
        behind.close()
        level.close()
    bad = client.get(f"/api/records/{record_id}/live", headers={"Last-Event-ID": "v7; drop"})
    assert bad.status_code == 400 and bad.get_json()["rule"] == "live/last-event-id"
    missing = client.get("/api/records/00000000-0000-4000-8000-000000000000/live")
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"


def test_a_finished_record_s_stream_ends(served: tuple[str, Any, Any]) -> None:
    address, client, app = served
    record_id, tokens = start(client, edition_file=LONG_TOY.format(target=8))
    follower = Follower(address, record_id)
    chance = SeededChance("to-the-end")
    try:
        follower.next_event()
        played: dict[str, Any] = {"finished": False}
        for _ in range(200):
            if played["finished"]:
                break
            played = play_one(client, record_id, tokens, chance)
            assert follower.next_event()["data"]["version"] == played["version"]
        assert played["finished"]
        started = time.monotonic()
        assert follower.rest() == ""  # the finishing version was the last word: the server ends the stream
        assert time.monotonic() - started < 2
        final = json.loads(follower.raw.rstrip().splitlines()[-1][len("data: "):])
        assert final == record_state(played["version"], played["steps"][1], True)
    finally:
        follower.close()
    assert wait_until(lambda: app.extensions["cronaca"].hub.subscribers(record_topic(record_id)) == 0)
    late = Follower(address, record_id)  # a newcomer hears the end at once, and that is all
    try:
        assert late.next_event()["data"]["finished"] is True and late.rest() == ""
    finally:
        late.close()
    done = client.get(f"/api/records/{record_id}/live", headers={"Last-Event-ID": str(played["version"])})
    assert done.status_code == 204  # an EventSource told 204 stops reconnecting


def test_followers_hear_each_seat_join_of_a_shared_dice_record(served: tuple[str, Any, Any]) -> None:
    """Joins change the record too: the last one draws the setup, and the followers' pages must show it."""
    import hashlib
    import hmac

    address, client, _ = served
    made = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"], "dice": "shared"}).get_json()
    record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
    follower = Follower(address, record_id)
    try:
        assert follower.next_event()["data"]["steps"] == 0
        for seat, secret in enumerate(("ann's secret", "bob's secret")):
            contribution = hmac.new(secret.encode(), b"cronaca/entry/0", hashlib.sha256).hexdigest()
            joined = client.post(f"/api/records/{record_id}/seats/{seat}/join", headers=auth(tokens[seat]), json={
                "commitment": hashlib.sha256(secret.encode()).hexdigest(), "contribution": contribution})
            assert joined.status_code == 200, joined.get_json()
            heard = follower.next_event()["data"]
            summary = client.get(f"/api/records/{record_id}").get_json()
            assert heard == record_state(summary["version"], summary["steps"], False)
        assert heard["steps"] > 0  # the last join drew the setup
    finally:
        follower.close()


def test_the_stream_skips_stale_versions_and_ends_after_its_lifetime() -> None:
    """Two commands racing may announce out of order: a follower never goes back. A stream lasts a bounded
    time (the EventSource reconnects), so a server thread is never held for ever."""
    hub = InProcessHub()
    topic = record_topic("r-1")
    subscription = hub.subscribe(topic)
    stream = record_stream(record_state(4, 10, False), subscription, None, ping=0.05, lifetime=0.4)
    started = time.monotonic()
    assert next(stream).startswith("retry: 2000\nevent: record\nid: 4\n")
    for version in (7, 5, 7, 9):
        hub.publish(topic, record_state(version, version * 2, False))
    said = list(stream)
    took = time.monotonic() - started
    assert [line for line in said if line.startswith("event")] == [said[0], said[1]]
    assert "id: 7\n" in said[0] and "id: 9\n" in said[1]
    assert ": ping\n\n" in said and said[-1] == ": reconnect\n\n"
    assert 0.35 <= took < 3.0, took  # ends after its 0.4 s lifetime (the bound only says it ends: a busy host pauses)
    assert subscription.closed and hub.subscribers(topic) == 0


# ---- across processes, through Redis --------------------------------------------------------------------


def apps_on_one_store(tmp_path: Path, hub: Any = None, count: int = 2) -> list[Any]:
    """Two apps (or `count`) on one store, each with its own RedisHub (two API processes), or the hub given."""
    env = {"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}
    apps = []
    for _ in range(count):
        settings = Settings.from_env(env)
        records = Records(settings.store)
        service = Service(records, InProcessDispatcher(records), settings, hub or RedisHub(REDIS))
        apps.append(create_app(settings, service=service, CRONACA_SSE_PING=0.2))
    return apps


def test_a_follower_on_one_process_hears_a_command_made_through_another(tmp_path: Path) -> None:
    apps = apps_on_one_store(tmp_path)
    try:
        player_app, follower_app = apps
        players = player_app.test_client()
        with serving(follower_app) as port:
            record_id, tokens = start(players, edition_file=LONG_TOY.format(target=60))
            follower = Follower(f"127.0.0.1:{port}", record_id)
            try:
                assert follower.next_event()["data"]["version"] == players.get(f"/api/records/{record_id}").get_json()["version"]
                assert numsub(channel_for(record_topic(record_id))) == 1
                played = play_one(players, record_id, tokens, SeededChance("across"))
                heard = follower.next_event()
                assert heard["data"] == record_state(played["version"], played["steps"][1], False)
            finally:
                follower.close()
            assert wait_until(lambda: numsub(channel_for(record_topic(record_id))) == 0)
    finally:
        for app in apps:
            app.extensions["cronaca"].hub.close()
            app.extensions["cronaca"].records.close()


def test_a_command_is_stored_and_answered_when_redis_is_down(tmp_path: Path) -> None:
    """The announcement is best effort: the command was stored, so its answer never waits on the live channel;
    the stream itself is a 503 to retry (the page polls meanwhile)."""
    (app,) = apps_on_one_store(tmp_path, RedisHub("redis://127.0.0.1:1/0"), count=1)
    try:
        client = app.test_client()
        record_id, tokens = start(client, edition_file=LONG_TOY.format(target=60))
        started = time.monotonic()
        played = play_one(client, record_id, tokens, SeededChance("offline"))
        assert time.monotonic() - started < 2
        assert client.get(f"/api/records/{record_id}").get_json()["version"] == played["version"]
        answer = client.get(f"/api/records/{record_id}/live")
        assert answer.status_code == 503 and answer.headers["Retry-After"] == "2"
    finally:
        app.extensions["cronaca"].records.close()


def test_a_stalled_redis_holds_a_command_s_answer_only_briefly(tmp_path: Path) -> None:
    """A Redis that takes connections and never answers (stopped, a partition): the first command after it
    stalled waits for the publisher's bounded timeouts (1 s in service, a quarter here, and one retry), the
    next ones not at all while the hub holds off."""
    stalled = socket.socket()
    stalled.bind(("127.0.0.1", 0))
    stalled.listen(8)  # the kernel accepts the connections; nothing ever reads or answers
    (app,) = apps_on_one_store(tmp_path, RedisHub(f"redis://127.0.0.1:{stalled.getsockname()[1]}/0", publish_timeout=0.25), count=1)
    try:
        client = app.test_client()
        record_id, tokens = start(client, edition_file=LONG_TOY.format(target=60))
        chance = SeededChance("stalled")
        took = []
        for _ in range(2):
            started = time.monotonic()
            played = play_one(client, record_id, tokens, chance)
            took.append(time.monotonic() - started)
        assert 0.45 < took[0] < 2 and took[1] < 0.4, took  # a 0.25 s read timeout, one retry; then held off
        assert client.get(f"/api/records/{record_id}").get_json()["version"] == played["version"]
    finally:
        app.extensions["cronaca"].hub.close()
        app.extensions["cronaca"].records.close()
        stalled.close()


# ---- the record page, in Chromium -----------------------------------------------------------------------

browser, context = browsing.browser, browsing.context  # fixtures, used by name


@pytest.mark.browser
def test_a_record_page_shows_a_move_made_elsewhere_without_reload(served: tuple[str, Any, Any], context: Any,
                                                                  tmp_path: Path) -> None:
    base = "http://" + served[0]
    client = served[1]
    record_id, tokens = start(client, ["Ada", "Ben"], edition_file=LONG_TOY.format(target=500))
    chance = SeededChance("page")
    play_one(client, record_id, tokens, chance)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    page = context()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(base)))
    page.goto(f"{base}/records/{record_id}#step={steps}")
    body = page.locator("body")
    expect(body).to_have_attribute("data-loaded", "all")
    expect(body).to_have_attribute("data-follow", "stream")  # the stream's first event came
    page.evaluate("() => { window.sameDocument = true; }")  # gone if the page were loaded again
    summaries = asked.count(f"/api/records/{record_id}")

    played = play_one(client, record_id, tokens, chance)
    grown = played["steps"][1]
    assert grown > steps
    expect(body).to_have_attribute("data-step", str(grown), timeout=3000)  # a reader at the end follows
    expect(page.locator("#steps")).to_have_text(str(grown))
    expect(page.locator("#summary")).to_contain_text(f"{grown} steps so far")
    assert page.evaluate("() => window.sameDocument") is True
    assert f"/api/records/{record_id}/live" in asked
    assert asked.count(f"/api/records/{record_id}") == summaries + 1  # asked because it was told, not polling
    page.screenshot(path=str(tmp_path / "record-live.png"))  # looked at by hand; pytest keeps the last runs


@pytest.mark.browser
def test_a_record_page_polls_when_the_stream_is_refused(tmp_path: Path, context: Any) -> None:
    """The live channel down (the stream answers 503): the page says so nowhere, polls, and still follows."""
    (app,) = apps_on_one_store(tmp_path, RedisHub("redis://127.0.0.1:1/0"), count=1)
    try:
        with serving(app) as port:
            base, client = f"http://127.0.0.1:{port}", app.test_client()
            record_id, tokens = start(client, ["Ada", "Ben"], edition_file=LONG_TOY.format(target=500))
            chance = SeededChance("polling")
            steps = play_one(client, record_id, tokens, chance)["steps"][1]
            page = context()
            page.goto(f"{base}/records/{record_id}#step={steps}")
            body = page.locator("body")
            expect(body).to_have_attribute("data-loaded", "all")
            expect(body).to_have_attribute("data-follow", "polling")
            grown = play_one(client, record_id, tokens, chance)["steps"][1]
            expect(body).to_have_attribute("data-step", str(grown), timeout=5000)
            expect(page.locator("#notice")).to_be_hidden()
    finally:
        app.extensions["cronaca"].records.close()


# The move list as a reader meets it: each round's heading, each turn's player and each line's step and words.
MOVE_LIST = """() => [...document.querySelectorAll('#moves section.round')].map((s) => [s.querySelector('h3').textContent,
  [...s.querySelectorAll(':scope > div.turn')].map((t) => [t.querySelector('.turn-head')?.textContent || '',
    [...t.querySelectorAll('li[data-step]')].map((li) => [li.dataset.step, li.textContent, li.hidden])])])"""


@pytest.mark.browser
def test_a_live_move_adds_its_lines_and_keeps_the_reader_s_place(served: tuple[str, Any], context: Any) -> None:
    """A reader on a line of the move list (keyboard focus there, the list scrolled) while the game goes on: the new
    lines are added to the list drawn, whose lines stay the same nodes; the focus stays in the list, on the line the
    page follows, and the list reads as a fresh page draws it."""
    base, client = "http://" + served[0], served[1]
    record_id, tokens = start(client, ["Ada", "Ben"], edition_file=LONG_TOY.format(target=500))
    chance = SeededChance("keeps-place")
    for _ in range(12):
        steps = play_one(client, record_id, tokens, chance)["steps"][1]
    page = context()
    page.goto(f"{base}/records/{record_id}#step={steps}")
    body = page.locator("body")
    expect(body).to_have_attribute("data-loaded", "all")
    expect(body).to_have_attribute("data-follow", "stream")
    current = page.locator("#moves li.current > a")
    current.focus()
    page.evaluate("() => { window.firstLine = document.querySelector('#moves li[data-step]'); }")
    for _ in range(3):
        grown = play_one(client, record_id, tokens, chance)["steps"][1]
        expect(body).to_have_attribute("data-step", str(grown))
    expect(page.locator("#moves li.current")).to_have_attribute("data-step", str(grown))
    assert page.evaluate("() => window.firstLine.isConnected"), "the list was drawn anew: the reader's place is lost"
    focused = page.evaluate("() => document.activeElement.matches('#moves li > a[data-step]') && document.activeElement.dataset.step")
    assert focused == str(grown), f"the focus left the move list's current line: {focused}"
    fresh = context()
    fresh.goto(f"{base}/records/{record_id}#step={grown}")
    expect(fresh.locator("body")).to_have_attribute("data-loaded", "all")
    assert page.evaluate(MOVE_LIST) == fresh.evaluate(MOVE_LIST)


@pytest.mark.browser
def test_a_live_move_s_lines_stay_hidden_from_a_spoiler_free_reader_behind(served: tuple[str, Any], context: Any) -> None:
    """Spoiler-free, reading an earlier step while the game goes on: the lines added after it are hidden, as a
    fresh page at that step hides them."""
    base, client = "http://" + served[0], served[1]
    record_id, tokens = start(client, ["Ada", "Ben"], edition_file=LONG_TOY.format(target=500))
    chance = SeededChance("spoiler-free-live")
    for _ in range(8):
        steps = play_one(client, record_id, tokens, chance)["steps"][1]
    behind = steps // 2
    page = context()
    page.goto(f"{base}/records/{record_id}#step={behind}&spoilers=off")
    expect(page.locator("body")).to_have_attribute("data-follow", "stream")
    for _ in range(3):
        grown = play_one(client, record_id, tokens, chance)["steps"][1]
        expect(page.locator("#steps")).to_have_text(str(grown))
    expect(page.locator("body")).to_have_attribute("data-step", str(behind))
    assert not page.locator("#moves li[data-step]:visible").evaluate_all(
        f"(items) => items.filter((li) => Number(li.dataset.step) > {behind}).map((li) => li.textContent)")
    fresh = context()
    fresh.goto(f"{base}/records/{record_id}#step={behind}&spoilers=off")
    expect(fresh.locator("body")).to_have_attribute("data-loaded", "all")
    assert page.evaluate(MOVE_LIST) == fresh.evaluate(MOVE_LIST)


@pytest.mark.browser
def test_a_page_left_open_says_when_the_service_is_gone_and_recovers_by_itself(served: tuple[str, Any],
                                                                              context: Any) -> None:
    """A page left open overnight: its stream gone (refused, as while the service restarts) and then no answer at
    all. It says in words that it may be behind and what to do, keeps trying, and once the service answers again
    takes the sentence back and shows the moves made meanwhile, without a reload. Meanwhile the summary line says
    the page may be behind, not that it follows new moves by itself."""
    base, client = "http://" + served[0], served[1]
    record_id, tokens = start(client, ["Ada", "Ben"], edition_file=LONG_TOY.format(target=500))
    chance = SeededChance("overnight")
    steps = play_one(client, record_id, tokens, chance)["steps"][1]
    page = context()
    page.route("**/live", lambda route: route.fulfill(status=503, body="restarting"))
    page.goto(f"{base}/records/{record_id}#step={steps}")
    body = page.locator("body")
    expect(body).to_have_attribute("data-loaded", "all")
    expect(body).to_have_attribute("data-follow", "polling")
    page.evaluate("() => { window.sameDocument = true; }")
    page.route(f"**/api/records/{record_id}", lambda route: route.abort("connectionrefused"))
    notice = page.locator("#notice")
    expect(notice).to_be_visible(timeout=15000)
    expect(notice).to_contain_text("No answer from the service since")
    expect(notice).to_contain_text("may be behind the game")
    expect(notice).to_contain_text("reload the page")
    summary = page.locator("#summary")  # the line under the heading does not say the contrary meanwhile
    expect(summary).not_to_contain_text("follows new moves")
    expect(summary).to_contain_text("may be behind")
    grown = play_one(client, record_id, tokens, chance)["steps"][1]  # a move made while the page heard nothing
    page.unroute(f"**/api/records/{record_id}")
    expect(body).to_have_attribute("data-step", str(grown), timeout=15000)
    expect(notice).to_be_hidden()
    expect(summary).to_contain_text(f"{grown} steps so far; this page follows new moves by itself")
    assert page.evaluate("() => window.sameDocument") is True
