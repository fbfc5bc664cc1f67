"""Stateless API processes: two gunicorn hosts (the Procfile's `api` line) on the suite's own PostgreSQL and Redis.

What one process was told is what the other answers at once (its caches of steps, boards, stories and the
records list never serve an answer older than the store); optimistic concurrency holds across processes
under 32 writers at once; a lesson's followers on one host hear the presenter who spoke to the other, and a
record's followers the commands made through the other;
and PostgreSQL connections cut under load (pg_terminate_backend) cost a client at most one retried request,
never a half-stored or doubly-stored command. Every loop is bounded in count and time.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import pytest
import requests

from tests.faults.conftest import OwnPostgres, OwnRedis, wait_until
from tests.faults.harness import Deployment, Process
from tests.service.conftest import LONG_TOY, free_port
from tests.service.helpers import auth, record_file

pytestmark = pytest.mark.faults

TIMEOUT = 10.0  # seconds any one request may take


@dataclass
class Stack:
    deploy: Deployment
    a: Process
    b: Process
    postgres: OwnPostgres
    database: str
    env: dict[str, str]
    started: float = field(default=0.0)


@pytest.fixture(scope="module")
def stack(own_postgres: OwnPostgres, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Two API hosts (2 gunicorn workers each, 4 threads: a live follower holds one) on a fresh database."""
    folder = tmp_path_factory.mktemp("api-processes")
    database = own_postgres.fresh_database()
    (folder / "redis").mkdir()
    redis = OwnRedis(free_port(), folder / "redis")
    redis.start()
    env = {**own_postgres.env(), "REDIS_URL": redis.url, "CRONACA_API_WORKERS": "2", "CRONACA_API_THREADS": "4"}
    deploy = Deployment(env, folder / "deploy")
    try:
        started = time.monotonic()
        deploy.upgrade()
        upgraded = time.monotonic() - started
        a, b = deploy.start("api", wait=False), deploy.start("api", wait=False)
        deploy.wait_ready(a, 60)
        deploy.wait_ready(b, 60)
        print(f"deployment: schema {upgraded:.1f} s, two API hosts ready after {time.monotonic() - started:.1f} s "
              f"({deploy.network})")
        yield Stack(deploy, a, b, own_postgres, database, env, time.monotonic() - started)
    finally:
        deploy.stop()
        redis.stop()  # the processes' logs stay in pytest's temporary folder (the last runs are kept)


def stored_entries(stack: Stack, record_id: str) -> tuple[list[int], list[tuple[int, int]]]:
    """(the stream's versions, the (first step, last step) of each command's entry after the setup), read from
    the store itself, not through either API process."""
    from domain.records import Records
    from domain.records.settings import Settings
    from domain.records.timeline import HAPPENED, decode_rows, select_stream

    records = Records(Settings.from_env(stack.env).store)
    try:
        rows = decode_rows(records.mapper, select_stream(records.recorder, UUID(record_id)))
    finally:
        records.close()
    versions = [version for version, _, _ in rows]
    entries: list[list[int]] = []
    step = 0
    for _, topic, payload in rows:
        if topic.endswith(HAPPENED):
            step += 1
            if payload["entry"] is not None:
                entries.append([step, step])
            entries[-1][1] = step
    return versions, [(first, last) for first, last in entries[1:]]


def logged_errors(stack: Stack, most: int = 3) -> list[str]:
    """The last tracebacks the API processes logged (what a 500 was), for a failing assertion's message."""
    found = []
    for process in (stack.a, stack.b):
        text = process.log.read_text(errors="replace") if process.log.exists() else ""
        found += [f"{process.name}: Traceback{part[:3000]}" for part in text.split("Traceback")[1:]]
    return found[-most:]


def long_toy(target: int) -> str:
    return LONG_TOY.format(target=target)


def start_toy(url: str, seats: int, target: int) -> tuple[str, list[str]]:
    made = requests.post(f"{url}/api/records", timeout=TIMEOUT, json={
        "title": "toy", "seats": [f"p{k}" for k in range(seats)], "edition_file": long_toy(target)})
    assert made.status_code == 201, made.text
    body = made.json()
    return body["id"], [s["token"] for s in body["seats"]]


# ---- caches across processes ----------------------------------------------------------------------


def test_a_command_through_one_process_is_seen_at_once_through_the_other(stack: Stack) -> None:
    """A transcribed game of la-città played alternately through A and B; after each command the other
    process is asked first. Its caches (timelines, the records list, finished steps and boards, stories)
    must never answer from before the command."""
    document = record_file("la-citta", "f1-caches")
    entries = document["entries"]
    hosts = [stack.a.url, stack.b.url]
    web = requests.Session()
    total = web.get(f"{stack.b.url}/api/records?per_page=1", timeout=TIMEOUT).json()["total"]
    made = web.post(f"{stack.a.url}/api/records", timeout=TIMEOUT, json={
        "title": "la-citta", "seats": ["Ada", "Ben"], "options": document["options"], "mode": "transcribed",
        "setup_outcomes": entries[0]["outcomes"]})
    assert made.status_code == 201, made.text
    rid, tokens, table_key = made.json()["id"], [s["token"] for s in made.json()["seats"]], made.json()["table_key"]
    listed = web.get(f"{stack.b.url}/api/records?per_page=1", timeout=TIMEOUT).json()
    assert listed["total"] == total + 1 and listed["items"][0]["id"] == rid and listed["items"][0]["status"] == "in-progress"
    first = web.get(f"{stack.b.url}/api/records/{rid}", timeout=TIMEOUT)
    version, steps, etag = first.json()["version"], first.json()["steps"], first.headers["ETag"]
    assert web.get(f"{stack.b.url}/api/records/{rid}", headers={"If-None-Match": etag}, timeout=TIMEOUT).status_code == 304
    early_board = web.get(f"{stack.b.url}/api/records/{rid}/steps/1/board", timeout=TIMEOUT)  # kept by B: public view
    assert early_board.status_code == 200, early_board.text
    assert early_board.headers["Cache-Control"] == "private, no-cache"

    for k, entry in enumerate(entries[1:], start=1):
        here, there = hosts[k % 2], hosts[(k + 1) % 2]  # each command through one host, then asked of the other
        seat = entry["command"]["seat"]
        if k % 3 == 0:
            legal = web.get(f"{there}/api/records/{rid}/legal", headers=auth(tokens[seat]), timeout=TIMEOUT).json()
            assert (legal["version"], legal["step"], legal["pending"]["seat"]) == (version, steps, seat), (k, legal)
            nothing = web.get(f"{there}/api/records/{rid}/steps/{steps + 1}", timeout=TIMEOUT)
            assert nothing.status_code == 404, (k, nothing.text)  # no step beyond the record's end there...
        decided = {"command": entry["command"], "outcomes": entry["outcomes"], "version": version}
        # the table key enters what the table saw (a seat's token may not enter a draw its view hides: issue 31)
        played = web.post(f"{here}/api/records/{rid}/commands", headers=auth(table_key), timeout=TIMEOUT,
                          json=decided)
        assert played.status_code == 200, (k, played.text)
        version, steps = played.json()["version"], played.json()["steps"][1]
        seen = web.get(f"{there}/api/records/{rid}", headers={"If-None-Match": etag}, timeout=TIMEOUT)
        assert seen.status_code == 200 and (seen.json()["version"], seen.json()["steps"]) == (version, steps), k
        etag = seen.headers["ETag"]
        if k % 3 == 0:  # ...until this host made it
            step = web.get(f"{there}/api/records/{rid}/steps/{steps}", timeout=TIMEOUT)
            assert step.status_code == 200 and step.json()["steps"] == steps, (k, step.text)
        if k % 3 == 1:  # the other host refuses the same decision, now stale
            again = web.post(f"{there}/api/records/{rid}/commands", headers=auth(tokens[seat]), timeout=TIMEOUT,
                             json=decided)
            assert again.status_code == 409, (k, again.text)
        if k % 15 == 0:
            story = web.get(f"{there}/api/records/{rid}/story", timeout=TIMEOUT).json()
            assert story["steps"] == steps and story["view_of"] == "public", k
            events = web.get(f"{there}/api/records/{rid}/events?from=0", timeout=TIMEOUT).json()
            assert events["steps"] == steps and len(events["events"]) == steps, k
            board = web.get(f"{there}/api/records/{rid}/steps/{steps}/board", timeout=TIMEOUT)
            assert board.status_code == 200, (k, board.text)
            scores = web.get(f"{there}/api/records/{rid}/scores", timeout=TIMEOUT).json()
            assert scores["available"] is False, k
    assert played.json()["finished"], "the game's last entry finishes the record"

    # the process that did not take the last command knows at once that the record is finished
    other = hosts[len(entries) % 2]
    summary = web.get(f"{other}/api/records/{rid}", timeout=TIMEOUT).json()
    assert summary["finished"] and summary["version"] == version and summary["steps"] == steps
    assert web.get(f"{other}/api/records?status=finished", timeout=TIMEOUT).json()["items"][0]["id"] == rid
    assert web.get(f"{other}/api/records/{rid}/story", timeout=TIMEOUT).json()["view_of"] == "all"
    assert web.get(f"{other}/api/records/{rid}/scores", timeout=TIMEOUT).json()["available"] is True
    legal = web.get(f"{other}/api/records/{rid}/legal", timeout=TIMEOUT).json()
    assert legal["commands"] == [] and legal["version"] == version
    for url in hosts:  # the finished answers (kept for good from here on) are the all-seeing ones in both
        for _ in range(2):  # the second asking is served from the step cache, through the WSGI fast path
            final = web.get(f"{url}/api/records/{rid}/steps/1", timeout=TIMEOUT).json()
            assert final["view_of"] == "all" and final["steps"] == steps, url
        board = web.get(f"{url}/api/records/{rid}/steps/1/board", timeout=TIMEOUT)
        assert board.status_code == 200 and board.headers["Cache-Control"] == "public, max-age=3600", url
    verified = web.get(f"{stack.a.url}/api/records/{rid}/verify", timeout=30).json()
    assert verified["ok"] is True, verified


# ---- 32 writers on one record through both processes ------------------------------------------------


def test_32_concurrent_writers_on_one_record_through_two_processes(stack: Stack) -> None:
    """Each writer holds one seat's token, asks its process for its seat's legal commands and sends the first
    with the version it saw; one per version wins, the rest get 409; the stream has each winner once, no gap."""
    writers, seats = 32, 3
    rid, tokens = start_toy(stack.a.url, seats, target=40)
    statuses: Counter[int] = Counter()
    accepted: list[tuple[int, int, int]] = []  # (version, first step, last step)
    failures: list[str] = []
    lock = threading.Lock()
    gate = threading.Barrier(writers)
    deadline = time.monotonic() + 25

    def write(k: int) -> None:
        url, token = (stack.a.url, stack.b.url)[k % 2], tokens[k % seats]
        web = requests.Session()
        gate.wait(10)
        for _ in range(2000):
            if time.monotonic() > deadline:
                return
            legal = web.get(f"{url}/api/records/{rid}/legal", headers=auth(token), timeout=TIMEOUT)
            if legal.status_code != 200:
                with lock:
                    failures.append(f"legal {legal.status_code}: {legal.text[:200]}")
                return
            found = legal.json()
            if found["commands"] == []:
                return  # the game is over
            if not found["commands"]:
                time.sleep(0.002)  # another seat's turn
                continue
            answer = web.post(f"{url}/api/records/{rid}/commands", headers=auth(token), timeout=TIMEOUT,
                               json={"command": found["commands"][0], "version": found["version"]})
            with lock:
                statuses[answer.status_code] += 1
                if answer.status_code == 200:
                    body = answer.json()
                    accepted.append((body["version"], body["steps"][0], body["steps"][1]))
                elif answer.status_code != 409:
                    failures.append(f"command {answer.status_code}: {answer.text[:200]}")
                elif answer.headers.get("Content-Type") != "application/problem+json":
                    failures.append(f"a 409 that is not a problem: {answer.headers.get('Content-Type')}")

    threads = [threading.Thread(target=write, args=(k,)) for k in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(40)
    assert not any(thread.is_alive() for thread in threads), "a writer did not end"
    assert not failures, failures[:5]
    summary = requests.get(f"{stack.b.url}/api/records/{rid}", timeout=TIMEOUT).json()
    assert summary["finished"], (summary["steps"], statuses)
    assert statuses[409] > 0, f"no writer lost a race: {statuses}"  # the writers really did collide
    versions, stored = stored_entries(stack, rid)
    assert versions == list(range(1, len(versions) + 1)), "a gap in the stream's versions"
    assert sorted((first, last) for _, first, last in accepted) == stored, "stored commands != accepted commands"
    assert len({version for version, _, _ in accepted}) == len(accepted) == statuses[200]
    assert stored[0][0] == 2 and all(b[0] == a[1] + 1 for a, b in zip(stored, stored[1:], strict=False))  # no gap
    verified = requests.get(f"{stack.a.url}/api/records/{rid}/verify", timeout=30).json()
    assert verified["ok"] is True and verified["chain"]["ok"] is True, verified


# ---- live followers on another process ------------------------------------------------------------------


def test_a_lesson_follower_on_one_process_hears_the_presenter_on_the_other(stack: Stack) -> None:
    """Lessons publish through Redis (REDIS_URL): a student following through B hears each move made through A.
    (A record's own stream is the next test.)"""
    rid, tokens = start_toy(stack.a.url, 2, target=10)
    web = requests.Session()
    for _ in range(200):
        legal = web.get(f"{stack.a.url}/api/records/{rid}/legal", timeout=TIMEOUT).json()
        if legal["commands"] == []:
            break
        seat = legal["pending"]["seat"]
        mine = web.get(f"{stack.b.url}/api/records/{rid}/legal", headers=auth(tokens[seat]), timeout=TIMEOUT).json()
        played = web.post(f"{stack.a.url}/api/records/{rid}/commands", headers=auth(tokens[seat]), timeout=TIMEOUT,
                           json={"command": mine["commands"][0], "version": mine["version"]})
        assert played.status_code == 200, played.text
    steps = web.get(f"{stack.b.url}/api/records/{rid}", timeout=TIMEOUT).json()["steps"]
    made = web.post(f"{stack.a.url}/api/lessons", json={"title": "Across hosts"}, timeout=TIMEOUT).json()
    lid, key = made["lesson"]["id"], made["teacher_key"]
    chapter = web.post(f"{stack.a.url}/api/lessons/{lid}/chapters", headers=auth(key), timeout=TIMEOUT,
                        json={"title": "All of it", "record_id": rid, "from_step": 0, "to_step": steps})
    assert chapter.status_code == 201, chapter.text
    with following(stack.b, f"/api/lessons/{lid}/live") as stream:
        assert next_event(stream)["event"] == "lesson"
        for step in (1, steps):
            moved = web.post(f"{stack.a.url}/api/lessons/{lid}/present", headers=auth(key), timeout=TIMEOUT,
                              json={"chapter": chapter.json()["id"], "step": step})
            assert moved.status_code == 200, moved.text
            heard = next_event(stream)
            assert heard["event"] == "present" and heard["data"]["step"] == step and heard["data"]["lesson"] == lid


def test_a_record_follower_on_one_host_hears_a_command_made_through_the_other(stack: Stack) -> None:
    """A record's stream (GET /api/records/{id}/live, issue 16) through B says each version a command made
    through A stored, over the deployment's Redis; and nothing in it but public facts."""
    rid, tokens = start_toy(stack.a.url, 2, target=60)  # far: three commands never end it
    web = requests.Session()
    with following(stack.b, f"/api/records/{rid}/live") as stream:
        first = next_event(stream)
        assert first["event"] == "record" and first["data"]["finished"] is False
        for _ in range(3):
            legal = web.get(f"{stack.a.url}/api/records/{rid}/legal", timeout=TIMEOUT).json()
            seat = legal["pending"]["seat"]
            mine = web.get(f"{stack.a.url}/api/records/{rid}/legal", headers=auth(tokens[seat]), timeout=TIMEOUT).json()
            played = web.post(f"{stack.a.url}/api/records/{rid}/commands", headers=auth(tokens[seat]), timeout=TIMEOUT,
                               json={"command": mine["commands"][0], "version": mine["version"]})
            assert played.status_code == 200, played.text
            heard = next_event(stream)
            assert heard["event"] == "record" and heard["id"] == str(played.json()["version"])
            assert heard["data"] == {"type": "record", "version": played.json()["version"],
                                     "steps": played.json()["steps"][1], "finished": False}


@contextmanager
def following(host: Any, path: str) -> Iterator[http.client.HTTPResponse]:
    """An event stream opened on `host` (one of the stack's API processes), checked to be one, closed after."""
    assert host.port is not None
    follower = http.client.HTTPConnection(host.address, host.port, timeout=TIMEOUT)
    try:
        follower.request("GET", path, headers={"Accept": "text/event-stream"})
        stream = follower.getresponse()
        assert stream.status == 200 and stream.getheader("Content-Type", "").startswith("text/event-stream")
        yield stream
    finally:
        follower.close()


def next_event(stream: http.client.HTTPResponse) -> dict[str, Any]:
    """The next server-sent event (pings skipped), read line by line within the connection's timeout."""
    found: dict[str, Any] = {}
    for _ in range(1000):
        line = stream.readline().decode()
        if line == "":
            raise EOFError("the stream ended")
        line = line.rstrip("\n")
        if not line:
            if "event" in found:
                return found
            found = {}
            continue
        name, _, value = line.partition(":")
        if name == "data":
            found["data"] = json.loads(value.strip())
        elif name in ("event", "id"):
            found[name] = value.strip()
    raise AssertionError("no event in 1000 lines")


# ---- PostgreSQL connections cut under load --------------------------------------------------------------


@dataclass
class Client:
    """One player client: its own record, both seats' tokens, commands sent alternately through A and B."""

    record_id: str
    tokens: list[str]
    accepted: list[tuple[int, int]] = field(default_factory=list)
    retried: int = 0
    problems: list[str] = field(default_factory=list)
    answers: Counter[int] = field(default_factory=Counter)


def test_postgres_connections_cut_under_load_cost_at_most_one_retry(stack: Stack) -> None:
    """pg_terminate_backend on every connection of the database, repeatedly, while clients play. A command
    that failed (5xx or a lost connection) is retried once with the same Idempotency-Key; it must then get
    the answer it would have had. Nothing half-stored, nothing doubled, no 500, both hosts ready again."""
    clients = [Client(*start_toy(stack.a.url if k % 2 else stack.b.url, 2, target=60)) for k in range(4)]
    hosts = [stack.a.url, stack.b.url]
    stop = threading.Event()
    deadline = time.monotonic() + 20

    def request(web: requests.Session, client: Client, method: str, url: str, **kwargs: Any) -> requests.Response | None:
        try:
            answer = web.request(method, url, timeout=TIMEOUT, **kwargs)
        except requests.RequestException as exc:
            client.answers[0] += 1
            client.problems.append(f"{method} {url}: no answer ({type(exc).__name__})") if method == "GET" else None
            return None
        client.answers[answer.status_code] += 1
        if answer.status_code >= 500 and (answer.status_code != 503 or "Retry-After" not in answer.headers):
            client.problems.append(f"{method} {url}: {answer.status_code} {answer.text[:300]}")
        return answer

    def play(client: Client) -> None:
        web = requests.Session()
        rid = client.record_id
        for k in range(200):
            if time.monotonic() > deadline or stop.is_set():
                return
            url = hosts[k % 2]
            legal = None
            for _ in range(3):  # reads are safe to ask again
                legal = request(web, client, "GET", f"{url}/api/records/{rid}/legal")
                if legal is not None and legal.status_code == 200:
                    break
                time.sleep(0.2)
            if legal is None or legal.status_code != 200:
                client.problems.append("no legal commands after three asks")
                return
            found = legal.json()
            if found["commands"] == []:
                return
            seat = found["pending"]["seat"]
            mine = request(web, client, "GET", f"{url}/api/records/{rid}/legal", headers=auth(client.tokens[seat]))
            if mine is None or mine.status_code != 200:
                continue  # a read lost to a cut connection: decide again
            body = {"command": random.choice(mine.json()["commands"]), "version": mine.json()["version"]}
            headers = {**auth(client.tokens[seat]), "Idempotency-Key": str(uuid.uuid4())}
            answer = request(web, client, "POST", f"{url}/api/records/{rid}/commands", json=body, headers=headers)
            if answer is None or answer.status_code >= 500:
                client.retried += 1
                time.sleep(0.3)
                answer = request(web, client, "POST", f"{hosts[(k + 1) % 2]}/api/records/{rid}/commands", json=body,
                                 headers=headers)  # the retry may land on the other host, as behind a balancer
            if answer is None or answer.status_code != 200:
                status = answer.status_code if answer is not None else "no answer"
                client.problems.append(f"command {k} ended {status} after one retry: "
                                       f"{answer.text[:300] if answer is not None else ''}")
                return
            client.accepted.append(tuple(answer.json()["steps"]))  # type: ignore[arg-type]

    retry_across_hosts(stack, clients[0])
    threads = [threading.Thread(target=play, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    cut = 0
    stack.postgres.database = stack.database  # whose connections terminate_backends cuts
    time.sleep(0.5)
    for _ in range(6):  # bounded: 6 cuts, 0.5 s apart, while the clients play
        cut += stack.postgres.terminate_backends()
        time.sleep(0.5)
    killed_at = time.monotonic()
    recovered = {}
    try:
        for process in (stack.a, stack.b):
            wait_until(lambda p=process: stack.deploy.ready(p) == 200, 15, f"{process.name} ready again")
            recovered[process.name] = round(time.monotonic() - killed_at, 2)
        time.sleep(0.5)  # the clients go on a moment after the last cut: commands pass again
    finally:
        stop.set()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "a client did not end"
    assert cut > 0, "no connection was cut: the fault was not injected"
    problems = [p for client in clients for p in client.problems]
    assert not problems, (problems[:5], logged_errors(stack))
    for client in clients:
        versions, stored = stored_entries(stack, client.record_id)
        assert versions == list(range(1, len(versions) + 1)), "a gap in the stream's versions"
        assert sorted(client.accepted) == stored, (client.accepted, stored)  # each command stored once, or not at all
        verified = requests.get(f"{stack.a.url}/api/records/{client.record_id}/verify", timeout=30).json()
        assert verified["ok"] is True, verified
    assert sum(len(c.accepted) for c in clients) >= 12, "the clients barely played"
    print(f"cut {cut} connections; retried {sum(c.retried for c in clients)} of "
          f"{sum(len(c.accepted) for c in clients)} commands; ready again after {recovered} s; "
          f"answers {sum((c.answers for c in clients), Counter())}")


def retry_across_hosts(stack: Stack, client: Client) -> None:
    """A command stored through A and retried through B with the same Idempotency-Key (its answer lost, say):
    B answers what A answered, not 409, and stores nothing twice (the key is in the store, not in a process)."""
    legal = requests.get(f"{stack.a.url}/api/records/{client.record_id}/legal", headers=auth(client.tokens[0]),
                         timeout=TIMEOUT).json()
    body = {"command": legal["commands"][0], "version": legal["version"]}
    headers = {**auth(client.tokens[0]), "Idempotency-Key": str(uuid.uuid4())}
    first = requests.post(f"{stack.a.url}/api/records/{client.record_id}/commands", json=body, headers=headers,
                          timeout=TIMEOUT)
    again = requests.post(f"{stack.b.url}/api/records/{client.record_id}/commands", json=body, headers=headers,
                          timeout=TIMEOUT)
    assert first.status_code == again.status_code == 200, (first.text, again.text)
    assert again.json() == first.json()
    client.accepted.append(tuple(first.json()["steps"]))  # type: ignore[arg-type]
