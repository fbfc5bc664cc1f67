"""Wrong credentials are throttled (issue 28, part 6; api/throttle.py): per client, then per target, 429 with
Retry-After past the budget, shared by every API process through Redis; and a weak operator key is refused at start.

Each test's budget is set small through the environment (CRONACA_AUTH_*), as a deployment would set it; each test's
Redis keys are its own (conftest.own_throttle_counts)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.throttle import OPERATOR, Guard
from domain.records.settings import Settings, Throttle
from tests.service.conftest import ROOT, close_app, free_port, subprocess_env
from tests.service.helpers import auth, record_file
from tests.service.test_api import start

REDIS_URL = "redis://127.0.0.1:6379/0"
VENV_BIN = Path(sys.executable).parent
OPERATOR_KEY = "Lc4Sk9jIoeFcr92C-kkkjRIWeBWMS5mxJtgo1thVUh8"  # secrets.token_urlsafe(32)
WRONG = "a-token-that-opens-nothing"


def at(address: str) -> dict[str, Any]:
    """A test client request's keywords for a client at this address."""
    return {"environ_base": {"REMOTE_ADDR": address}}


def make_app(tmp: Path, name: str = "records", **env: str) -> Any:
    settings = Settings.from_env({"SQLITE_DBNAME": str(tmp / f"{name}.sqlite3"),
                                  "CRONACA_EXTRA_TITLES": "toy=tests.kernel.toy_game", **env})
    app = create_app(settings)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def apps(tmp_path: Path) -> Iterator[list[Any]]:
    made: list[Any] = []
    yield made
    for app in made:
        close_app(app)


def too_many(answer: Any) -> int:
    """The answer is the throttle's 429: problem+json with a Retry-After of whole seconds; returns that."""
    assert answer.status_code == 429, (answer.status_code, answer.get_data(as_text=True))
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["status"] == 429 and body["title"] == "Too Many Requests" and "Retry-After" in body["detail"]
    wait = int(answer.headers["Retry-After"])
    assert wait >= 1
    return wait


def test_a_client_past_its_budget_gets_429_and_learns_nothing_more(apps: list[Any], tmp_path: Path) -> None:
    app = make_app(tmp_path, CRONACA_AUTH_FAILURES_PER_CLIENT="3", CRONACA_AUTH_WINDOW="60")
    apps.append(app)
    client = app.test_client()
    record_id, tokens = start(client)
    steps = f"/api/records/{record_id}/steps/0"
    legal = f"/api/records/{record_id}/legal"
    for _ in range(3):  # a mistyped token a few times: refused as before
        assert client.get(legal, headers=auth(WRONG), **at("198.51.100.7")).status_code == 403
    first = client.get(legal, headers=auth(WRONG), **at("198.51.100.7"))
    assert 50 <= too_many(first) <= 60
    # blocked: the right token is not looked at either (no hit told from a miss), by Flask or by the fast path
    assert too_many(client.get(legal, headers=auth(tokens[0]), **at("198.51.100.7")))
    assert too_many(client.get(steps, headers=auth(tokens[0]), **at("198.51.100.7")))
    # and a record that does not exist answers the same 429, word for word
    missing = client.get("/api/records/00000000-0000-4000-8000-000000000000/legal", headers=auth(WRONG),
                         **at("198.51.100.7"))
    too_many(missing)
    assert missing.get_json() == client.get(legal, headers=auth(WRONG), **at("198.51.100.7")).get_json()
    # without a credential nothing is throttled: the public reads go on
    assert client.get(steps, **at("198.51.100.7")).status_code == 200
    # another address: its own budget, the seats' tokens open their seats
    assert client.get(legal, headers=auth(tokens[1]), **at("198.51.100.8")).status_code == 200
    assert client.get(steps, headers=auth(tokens[1]), **at("198.51.100.8")).status_code == 200
    assert client.get(legal, headers=auth(WRONG), **at("198.51.100.8")).status_code == 403


def test_the_budget_comes_back_after_the_window(apps: list[Any], tmp_path: Path) -> None:
    app = make_app(tmp_path, CRONACA_AUTH_FAILURES_PER_CLIENT="2", CRONACA_AUTH_WINDOW="1")
    apps.append(app)
    client = app.test_client()
    record_id, tokens = start(client)
    legal = f"/api/records/{record_id}/legal"
    for _ in range(2):
        assert client.get(legal, headers=auth(WRONG), **at("198.51.100.9")).status_code == 403
    assert too_many(client.get(legal, headers=auth(WRONG), **at("198.51.100.9"))) == 1
    assert client.get(legal, headers=auth(tokens[0]), **at("198.51.100.9")).status_code == 429
    time.sleep(1.2)
    assert client.get(legal, headers=auth(tokens[0]), **at("198.51.100.9")).status_code == 200
    assert client.get(legal, headers=auth(WRONG), **at("198.51.100.9")).status_code == 403


def test_a_record_under_attack_still_opens_to_its_own_seats(apps: list[Any], tmp_path: Path) -> None:
    """Guessers at one record from many addresses: past the record's budget each further wrong token blocks its
    sender at once; the honest seats, from their own addresses, keep playing; another record is not touched."""
    app = make_app(tmp_path, CRONACA_AUTH_FAILURES_PER_CLIENT="5", CRONACA_AUTH_FAILURES_PER_TARGET="4")
    apps.append(app)
    client = app.test_client()
    record_id, tokens = start(client)
    other_id, _ = start(client)
    legal = f"/api/records/{record_id}/legal"
    for n in range(4):
        assert client.get(legal, headers=auth(WRONG), **at(f"192.0.2.{n}")).status_code == 403
    too_many(client.get(legal, headers=auth(WRONG), **at("192.0.2.10")))  # the record's budget is spent
    too_many(client.get(legal, headers=auth(tokens[0]), **at("192.0.2.10")))  # and that guesser is blocked
    assert client.get(f"/api/records/{other_id}/legal", headers=auth(WRONG), **at("192.0.2.10")).status_code == 429
    # the seats of the record under attack, from their own addresses: never a 429, their commands go in
    for seat, address in ((0, "203.0.113.20"), (1, "203.0.113.21")):
        assert client.get(legal, headers=auth(tokens[seat]), **at(address)).status_code == 200
        assert client.get(f"/api/records/{record_id}/steps/0", headers=auth(tokens[seat]), **at(address)).status_code == 200
    moves = client.get(legal, headers=auth(tokens[0]), **at("203.0.113.20")).get_json()
    assert moves, "the seat to move has something to play"
    # another record's wrong tokens are counted against its own budget, not the attacked one's
    assert client.get(f"/api/records/{other_id}/legal", headers=auth(WRONG), **at("192.0.2.30")).status_code == 403


def test_every_kind_of_credential_is_counted(apps: list[Any], tmp_path: Path) -> None:
    """Seat tokens, annotator and arbiter keys, teacher keys, import tokens: each wrong one spends the budget."""
    app = make_app(tmp_path, CRONACA_AUTH_FAILURES_PER_CLIENT="1")
    apps.append(app)
    client = app.test_client()
    record_id, _ = start(client)
    lesson = client.post("/api/lessons", json={"title": "Openings"})
    assert lesson.status_code == 201, lesson.get_json()
    imported = client.post("/api/imports", json=record_file("toy", "throttle"))
    assert imported.status_code == 202, imported.get_json()
    ruling = {"step": 0, "decision": "The roll stands", "reason": "Both players saw it."}
    wrong = [
        ("post", f"/api/records/{record_id}/commands", {"json": {"command": {"type": "draw", "seat": 0}}}),  # seat
        ("get", f"/api/records/{record_id}/annotations", {}),  # annotator key or seat token
        ("post", f"/api/records/{record_id}/rulings", {"json": ruling}),  # arbiter key
        ("get", f"/api/lessons/{lesson.get_json()['lesson']['id']}", {}),  # teacher key
        ("get", f"/api/imports/{imported.get_json()['id']}", {}),  # an import's seat token
    ]
    for n, (method, path, more) in enumerate(wrong):
        address = f"198.51.100.{100 + n}"
        send = getattr(client, method)
        first = send(path, headers=auth(WRONG), **at(address), **more)
        assert first.status_code == 403, (path, first.get_json())
        too_many(send(path, headers=auth(WRONG), **at(address), **more))


def test_the_operator_key_is_throttled_per_client_and_as_one_target(apps: list[Any], tmp_path: Path) -> None:
    """Two API processes' worth of apps on one Redis: the operator key's budget is the service's, not a process's."""
    env = {"CRONACA_OPERATOR_KEY": OPERATOR_KEY, "REDIS_URL": REDIS_URL, "CRONACA_AUTH_FAILURES_PER_CLIENT": "2",
           "CRONACA_AUTH_FAILURES_PER_TARGET": "3"}
    one, two = make_app(tmp_path, "one", **env), make_app(tmp_path, "two", **env)
    apps += [one, two]
    a, b = one.test_client(), two.test_client()
    page = "/ops/rq/0/data/queues.json"
    assert a.get(page, headers=auth(WRONG), **at("198.51.100.40")).status_code == 403
    assert b.get(page, headers=auth(WRONG), **at("198.51.100.40")).status_code == 403
    too_many(a.get(page, headers=auth(WRONG), **at("198.51.100.40")))  # its third, through the other process
    too_many(b.get(page, headers=auth(OPERATOR_KEY), **at("198.51.100.40")))
    form = b.post("/ops/login", data={"key": OPERATOR_KEY, "next": "/rq/"}, **at("198.51.100.40"))
    assert form.status_code == 429 and int(form.headers["Retry-After"]) >= 1 and b"try again" in form.data
    # the key itself has now taken 3 wrong ones: one more from a fresh address spends it, and blocks that address
    too_many(b.get(page, headers=auth(WRONG), **at("198.51.100.41")))
    too_many(a.get(page, headers=auth(OPERATOR_KEY), **at("198.51.100.41")))
    # the operators, from their own address, still come in
    assert a.get(page, headers=auth(OPERATOR_KEY), **at("198.51.100.42")).status_code == 200
    signed = b.post("/ops/login", data={"key": OPERATOR_KEY, "next": "/rq/"}, **at("198.51.100.42"))
    assert signed.status_code == 303


def test_two_processes_share_one_client_budget_through_redis(apps: list[Any], tmp_path: Path) -> None:
    env = {"REDIS_URL": REDIS_URL, "CRONACA_AUTH_FAILURES_PER_CLIENT": "3"}
    one, two = make_app(tmp_path, "one", **env), make_app(tmp_path, "two", **env)
    apps += [one, two]
    a, b = one.test_client(), two.test_client()
    first, _ = start(a)
    second, tokens = start(b)
    assert a.get(f"/api/records/{first}/legal", headers=auth(WRONG), **at("198.51.100.50")).status_code == 403
    assert b.get(f"/api/records/{second}/legal", headers=auth(WRONG), **at("198.51.100.50")).status_code == 403
    assert a.get(f"/api/records/{first}/legal", headers=auth(WRONG), **at("198.51.100.50")).status_code == 403
    too_many(b.get(f"/api/records/{second}/legal", headers=auth(WRONG), **at("198.51.100.50")))
    too_many(a.get(f"/api/records/{first}/legal", headers=auth(WRONG), **at("198.51.100.50")))
    assert b.get(f"/api/records/{second}/legal", headers=auth(tokens[0]), **at("198.51.100.51")).status_code == 200


def test_a_redis_that_does_not_answer_never_refuses_and_each_process_counts_alone() -> None:
    guard = Guard(Throttle(per_client=2), f"redis://127.0.0.1:{free_port()}/0")
    asker = {"REMOTE_ADDR": "198.51.100.60"}
    began = time.monotonic()
    assert guard.blocked(asker) is None
    assert [guard.failed(asker, OPERATOR).limited for _ in range(3)] == [False, False, True]
    assert guard.blocked(asker) is not None and guard.blocked({"REMOTE_ADDR": "198.51.100.61"}) is None
    assert time.monotonic() - began < 2, "a Redis away is given up on quickly"


def test_the_client_is_the_socket_unless_proxies_are_trusted(apps: list[Any], tmp_path: Path) -> None:
    app = make_app(tmp_path, CRONACA_AUTH_FAILURES_PER_CLIENT="1")
    apps.append(app)
    client = app.test_client()
    record_id, _ = start(client)
    legal = f"/api/records/{record_id}/legal"

    def wrong(forwarded: str) -> int:
        headers = {**auth(WRONG), "X-Forwarded-For": forwarded}
        return client.get(legal, headers=headers, **at("198.51.100.70")).status_code  # type: ignore[no-any-return]

    assert [wrong("192.0.2.1"), wrong("192.0.2.2")] == [403, 429]  # no proxy trusted: a sent address is not taken
    behind = Guard(Throttle(proxies=1))
    assert behind.client({"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "192.0.2.9, 192.0.2.3"}) == "192.0.2.3"
    assert behind.client({"REMOTE_ADDR": "10.0.0.2"}) == "10.0.0.2"
    alone = Guard(Throttle())
    assert alone.client({"REMOTE_ADDR": "2001:db8:1:2:aaaa::1"}) == alone.client({"REMOTE_ADDR": "2001:db8:1:2::9"})
    assert alone.client({"REMOTE_ADDR": "2001:db8:1:3::1"}) != alone.client({"REMOTE_ADDR": "2001:db8:1:2::1"})
    assert alone.client({"REMOTE_ADDR": "::ffff:192.0.2.5"}) == "192.0.2.5"


WEAK = ("k" * 16, "operator-key-" + "k" * 24)


@pytest.mark.parametrize("key", WEAK)
def test_cronaca_serve_refuses_a_weak_operator_key_in_a_sentence(tmp_path: Path, key: str) -> None:
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "r.sqlite3"), "CRONACA_OPERATOR_KEY": key})
    done = subprocess.run([sys.executable, "-m", "api.cli", "serve", "--port", str(free_port())], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("cronaca serve: CRONACA_OPERATOR_KEY must be ") and "Traceback" not in done.stderr
    assert "secrets.token_urlsafe(32)" in done.stderr and key not in done.stderr


@pytest.mark.parametrize("key", WEAK)
def test_gunicorn_refuses_a_weak_operator_key_in_a_sentence(tmp_path: Path, key: str) -> None:
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "r.sqlite3"), "CRONACA_OPERATOR_KEY": key,
                          "CRONACA_API_WORKERS": "1"})
    done = subprocess.run([str(VENV_BIN / "gunicorn"), "-c", "python:api.gunicorn_conf", "-b",
                           f"127.0.0.1:{free_port()}", "api.wsgi:app"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 4, done.stderr  # gunicorn's "App failed to load": the master stops
    said = [line for line in done.stderr.splitlines() if line.startswith("cronaca: ")]
    assert said and said[0].startswith("cronaca: CRONACA_OPERATOR_KEY must be ")
    assert "secrets.token_urlsafe(32)" in said[0] and "Traceback" not in done.stderr and key not in done.stderr
