"""A lesson's live channel: the hubs (in-process and Redis) and the server-sent event stream.

The hubs are tested alone (two RedisHubs stand for two API processes on the real Redis at
127.0.0.1:6379); the stream end to end through a threaded werkzeug server and a plain HTTP client:
the presenter moves, every follower hears it, and a follower who goes away is let go.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from api.app import create_app
from api.live import BACKLOG, CHANNEL, Closed, InProcessHub, RedisHub, sse_event, sse_stream
from api.service import Service
from domain.records import Records
from domain.records.settings import Settings
from tests.service.browsing import served_app, serving
from tests.service.helpers import EventStream, auth, play_out_http, toy_registered
from tests.service.test_api import start
from workers.dispatch import InProcessDispatcher

REDIS = "redis://127.0.0.1:6379/0"


def lesson_id() -> str:
    return str(uuid.uuid4())


# ---- in-process hub ----------------------------------------------------------------------------------


def test_in_process_hub_delivers_to_the_lesson_s_followers_only() -> None:
    hub = InProcessHub()
    a, b = lesson_id(), lesson_id()
    first, second, other = hub.subscribe(a), hub.subscribe(a), hub.subscribe(b)
    hub.publish(a, {"type": "present", "lesson": a, "seq": 1, "step": 4})
    assert first.next_message(1) == {"type": "present", "lesson": a, "seq": 1, "step": 4}
    assert second.next_message(1)["seq"] == 1
    started = time.monotonic()
    assert other.next_message(0.05) is None  # nothing for lesson b: a quiet timeout (a heartbeat is due)
    assert time.monotonic() - started >= 0.04
    assert hub.subscribers(a) == 2 and hub.subscribers(b) == 1
    for s in (first, second, other):
        s.close()
    assert hub.subscribers(a) == 0 and hub.subscribers(b) == 0
    hub.publish(a, {"type": "present", "seq": 2})  # no follower left: nothing is kept anywhere
    with pytest.raises(Closed):
        first.next_message(0.01)


def test_closing_wakes_a_follower_waiting_in_another_thread() -> None:
    hub = InProcessHub()
    lid = lesson_id()
    follower = hub.subscribe(lid)
    ended = threading.Event()

    def wait() -> None:
        assert list(follower) == []  # iteration ends at close, without a message
        ended.set()

    # `iter` waits 15 s per heartbeat; close must wake it at once
    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    time.sleep(0.05)
    follower.close()
    assert ended.wait(2), "the waiting follower was not woken by close()"
    assert hub.subscribers(lid) == 0


def test_a_follower_that_falls_too_far_behind_is_dropped_and_the_rest_keep_going() -> None:
    hub = InProcessHub()
    lid = lesson_id()
    slow, keen = hub.subscribe(lid), hub.subscribe(lid)
    for k in range(BACKLOG + 5):
        hub.publish(lid, {"type": "present", "seq": k})
        assert keen.next_message(1)["seq"] == k
    assert hub.subscribers(lid) == 1  # the slow one was let go
    with pytest.raises(Closed):  # its stream ends at once: its browser reconnects and starts from a fresh lesson
        slow.next_message(0.01)
    keen.close()


# ---- Redis hub -----------------------------------------------------------------------------------------


def numsub(channel: str) -> int:
    client = redis.Redis.from_url(REDIS)
    try:
        return int(dict(client.pubsub_numsub(channel))[channel.encode()])
    finally:
        client.close()


def test_a_message_published_by_one_process_reaches_a_follower_of_another() -> None:
    presenter_side, student_side = RedisHub(REDIS), RedisHub(REDIS)  # two API processes
    lid, other = lesson_id(), lesson_id()
    try:
        follower = student_side.subscribe(lid)
        stranger = student_side.subscribe(other)
        assert numsub(CHANNEL.format(lid)) == 1
        # subscribed and confirmed on return: a message published right away is not lost
        presenter_side.publish(lid, {"type": "present", "lesson": lid, "seq": 7, "chapter": "c-1", "step": 3,
                                     "shapes": [{"kind": "arrow", "from": "venezia", "to": "ragusa"}]})
        found = follower.next_message(2)
        assert found == {"type": "present", "lesson": lid, "seq": 7, "chapter": "c-1", "step": 3,
                         "shapes": [{"kind": "arrow", "from": "venezia", "to": "ragusa"}]}
        assert stranger.next_message(0.1) is None  # another lesson's channel hears nothing
        student_side.publish(lid, {"type": "answers", "seq": 8, "count": 2})  # either side may publish
        assert follower.next_message(2)["count"] == 2
        follower.close()
        stranger.close()
        assert numsub(CHANNEL.format(lid)) == 0  # its connection is gone: Redis holds no subscriber for it
        with pytest.raises(Closed):
            follower.next_message(0.01)
    finally:
        presenter_side.close()
        student_side.close()


def test_redis_followers_each_get_every_message_in_order() -> None:
    hub = RedisHub(REDIS)
    lid = lesson_id()
    try:
        followers = [hub.subscribe(lid) for _ in range(3)]
        for k in range(20):
            hub.publish(lid, {"type": "present", "seq": k})
        for follower in followers:
            assert [follower.next_message(2)["seq"] for _ in range(20)] == list(range(20))
            assert follower.next_message(0.05) is None
            follower.close()
    finally:
        hub.close()


# ---- the event stream ----------------------------------------------------------------------------------


def test_the_stream_says_the_lesson_first_then_each_message_and_pings_when_quiet() -> None:
    hub = InProcessHub()
    lid = lesson_id()
    follower = hub.subscribe(lid)
    stream = sse_stream({"id": lid, "title": "Wars of 1200"}, follower, ping=0.05)
    first = next(stream)
    assert first.startswith("retry: ") and first.endswith(sse_event("lesson", {"id": lid, "title": "Wars of 1200"}))
    assert "event: lesson\ndata: {" in first and first.endswith("\n\n")
    assert next(stream) == ": ping\n\n"
    hub.publish(lid, {"type": "present", "lesson": lid, "seq": 3, "text": "two\nlines"})
    found = next(stream)
    head, data = found.split("data: ")
    assert head == "event: present\nid: 3\n" and json.loads(data) == {"type": "present", "lesson": lid, "seq": 3,
                                                                       "text": "two\nlines"}
    assert found.count("\n") == 4  # the JSON is one line: a newline in a value cannot end the event early
    stream.close()  # what the server does when the client has gone away
    assert follower.closed and hub.subscribers(lid) == 0


# ---- end to end: a finished record, a lesson, a presenter, followers over HTTP --------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    with toy_registered(), served_app(tmp_path_factory.mktemp("live"), CRONACA_SSE_PING=0.2) as (base, app):
        yield base.removeprefix("http://"), app.test_client(), app


class Follower(EventStream):
    """A student's browser, reduced to a plain HTTP client reading the lesson's event stream."""

    def __init__(self, address: str, lid: str) -> None:
        super().__init__(address, f"/api/lessons/{lid}/live")


def finished_toy_lesson(client: Any) -> tuple[str, str, str, int]:
    """(lesson id, teacher key, chapter id, last step) over a finished toy record."""
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    made = client.post("/api/lessons", json={"title": "Dice and bags", "introduction": "When to stop rolling"})
    assert made.status_code == 201, made.get_json()
    lid, key = made.get_json()["lesson"]["id"], made.get_json()["teacher_key"]
    chapter = client.post(f"/api/lessons/{lid}/chapters", headers=auth(key),
                          json={"title": "The whole game", "record_id": record_id, "from_step": 0, "to_step": steps})
    assert chapter.status_code == 201, chapter.get_json()
    return lid, key, chapter.get_json()["id"], steps


def wait_until(check: Any, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def test_followers_hear_the_presenter_over_http(served: tuple[str, Any, Any]) -> None:
    address, client, app = served
    lid, key, chapter, steps = finished_toy_lesson(client)
    hub = app.extensions["cronaca"].hub
    threads = threading.active_count()
    followers = [Follower(address, lid) for _ in range(3)]
    try:
        for follower in followers:
            assert follower.response.status == 200
            assert follower.response.getheader("Content-Type").startswith("text/event-stream")
            assert follower.response.getheader("Cache-Control") == "no-cache"
            assert follower.response.getheader("X-Accel-Buffering") == "no"
            first = follower.next_event()
            assert first["event"] == "lesson" and first["data"]["id"] == lid and first["data"]["teacher"] is False
            assert [c["id"] for c in first["data"]["chapters"]] == [chapter]
        assert wait_until(lambda: hub.subscribers(lid) == 3)
        for step in (2, steps):
            moved = client.post(f"/api/lessons/{lid}/present", headers=auth(key), json={
                "chapter": chapter, "step": step, "shapes": []})
            assert moved.status_code == 200, moved.get_json()
            for follower in followers:
                heard = follower.next_event()
                assert heard["event"] == "present" and heard["data"]["step"] == step
                assert heard["data"]["chapter"] == chapter and heard["data"]["lesson"] == lid
                assert heard["id"] == str(heard["data"]["seq"]) == str(moved.get_json()["seq"])
        # a quiet stream says it is alive
        assert followers[0].next_event(skip_comments=False) == {"comment": "ping"}
        # a student who steps away and comes back starts from the lesson as it is now
        followers[0].close()
        again = Follower(address, lid)
        followers[0] = again
        assert again.next_event()["data"]["presenter"]["step"] == steps
    finally:
        for follower in followers:
            follower.close()
    # gone clients are let go: the next heartbeat's write fails, the subscription closes, the thread ends
    assert wait_until(lambda: hub.subscribers(lid) == 0), hub.subscribers(lid)
    assert wait_until(lambda: threading.active_count() <= threads), (threading.active_count(), threads)


def test_live_of_no_lesson_is_a_404_problem(served: tuple[str, Any, Any]) -> None:
    _, client, app = served
    lid = lesson_id()
    answer = client.get(f"/api/lessons/{lid}/live")
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"
    assert app.extensions["cronaca"].hub.subscribers(lid) == 0  # the subscription taken first was given back


def test_two_api_processes_share_a_lesson_through_redis(tmp_path: Path) -> None:
    """The presenter's request lands on one process, the students follow another: Redis carries it."""
    env = {"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}
    apps = []
    for _ in range(2):
        settings = Settings.from_env(env)
        records = Records(settings.store)
        svc = Service(records, InProcessDispatcher(records), settings, RedisHub(REDIS))
        apps.append(create_app(settings, service=svc, CRONACA_SSE_PING=0.2))
    try:
        presenter_app, student_app = apps
        with serving(student_app) as port:
            lid, key, chapter, _ = finished_toy_lesson(presenter_app.test_client())
            follower = Follower(f"127.0.0.1:{port}", lid)
            try:
                assert follower.next_event()["data"]["id"] == lid  # the other process reads the lesson from the store
                moved = presenter_app.test_client().post(f"/api/lessons/{lid}/present", headers=auth(key),
                                                         json={"chapter": chapter, "step": 1})
                assert moved.status_code == 200, moved.get_json()
                heard = follower.next_event()
                assert heard["event"] == "present" and heard["data"]["step"] == 1 and heard["data"]["lesson"] == lid
            finally:
                follower.close()
            assert wait_until(lambda: numsub(CHANNEL.format(lid)) == 0)
    finally:
        for app in apps:
            app.extensions["cronaca"].hub.close()
            app.extensions["cronaca"].records.close()


def test_the_service_follows_through_redis_when_redis_url_is_set(tmp_path: Path) -> None:
    for env, kind in (({"REDIS_URL": REDIS}, RedisHub), ({}, InProcessHub)):
        settings = Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "records.sqlite3"), **env})
        built = Service.build(settings)
        try:
            assert isinstance(built.hub, kind)
            hub = built.hub
            follower = hub.subscribe("a-lesson")
            built.teaching.lessons.publish("a-lesson", {"type": "present", "seq": 1})  # lessons publish through it
            assert follower.next_message(2) == {"type": "present", "seq": 1}
            follower.close()
        finally:
            built.hub.close()
            built.records.close()


def test_an_unreachable_redis_is_a_503_to_retry_not_a_broken_stream(tmp_path: Path) -> None:
    settings = Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")})
    records = Records(settings.store)
    app = create_app(settings, service=Service(records, InProcessDispatcher(records), settings,
                                               RedisHub("redis://127.0.0.1:1/0")))
    try:
        client = app.test_client()
        lid = client.post("/api/lessons", json={"title": "Offline"}).get_json()["lesson"]["id"]
        answer = client.get(f"/api/lessons/{lid}/live")
        assert answer.status_code == 503 and answer.mimetype == "application/problem+json"
        assert answer.headers["Retry-After"] and "Redis" in answer.get_json()["detail"]
    finally:
        records.close()
