"""Operations: metrics, request ids and JSON logs, the operators' dashboard, the Procfile under honcho.

The last test starts the real deployment (`honcho start -c api=2,worker=2` on the repository's Procfile, SQLite and
the shared Redis with queue names of its own) and checks what only real processes show: two gunicorn masters
adding up their metrics in one PROMETHEUS_MULTIPROC_DIR, gunicorn's JSON access lines carrying the request id and
no token, and `cronaca keep` starting a killed API process again. One more starts a gunicorn master alone, to see
every worker's bounded caches summed in /metrics.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue

from api import logs, operators, schema
from api.app import create_app
from api.keep import Keeper
from api.security import OPS_PAGE_SOURCES
from domain.records.reading import STEP_CACHE
from domain.records.settings import Settings
from tests.service.conftest import ROOT, close_app, free_port, subprocess_env
from tests.service.helpers import auth, play_out_http
from tests.service.test_api import start
from workers.metrics import CACHE_REFRESH_SECONDS, forget_the_dead

REDIS_URL = "redis://127.0.0.1:6379/0"
VENV_BIN = Path(sys.executable).parent
KEY = "UXLq78MQ42baNEmztdMdNgAIRNphS-zMh1XvexdQ2WE"  # secrets.token_urlsafe(32), as docs/deployment.md says


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0])) if "{" in line else {}
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def make_app(tmp: Path, **env: str) -> Any:
    settings = Settings.from_env({"SQLITE_DBNAME": str(tmp / "records.sqlite3"),
                                  "CRONACA_EXTRA_TITLES": "toy=tests.kernel.toy_game", **env})
    app = create_app(settings)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    found = make_app(tmp_path)
    yield found
    close_app(found)


def legal(client: Any, record_id: str, token: str) -> dict[str, Any]:
    return client.get(f"/api/records/{record_id}/legal", headers=auth(token)).get_json()  # type: ignore[no-any-return]


# ---- metrics ---------------------------------------------------------------------------------------------------


def test_metrics_count_requests_by_route_and_commands_by_title_and_outcome(app: Any) -> None:
    client = app.test_client()
    before = client.get("/metrics").get_data(as_text=True)
    record_id, tokens = start(client)
    now = legal(client, record_id, tokens[0])
    command = now["commands"][0]
    once = {**auth(tokens[0]), "Idempotency-Key": f"ops-{uuid.uuid4()}"}
    body = {"command": command, "version": now["version"]}
    assert client.post(f"/api/records/{record_id}/commands", json=body, headers=once).status_code == 200
    again = client.post(f"/api/records/{record_id}/commands", json=body, headers=once)  # a client's retry
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    stale = client.post(f"/api/records/{record_id}/commands", json={"command": command, "version": now["version"]},
                        headers=auth(tokens[0]))
    assert stale.status_code == 409
    turn = legal(client, record_id, tokens[1])
    wrong_seat = dict(turn["commands"][0], seat=0)  # seat 1's token, seat 0's command
    assert client.post(f"/api/records/{record_id}/commands", json={"command": wrong_seat},
                       headers=auth(tokens[1])).status_code == 403
    not_yours = dict(turn["commands"][0], seat=1)
    assert client.post(f"/api/records/{record_id}/commands", json={"command": not_yours},
                       headers=auth(tokens[0])).status_code == 403
    refused = client.post(f"/api/records/{record_id}/commands",
                          json={"command": {"type": "toy/roll", "seat": 0}}, headers=auth(tokens[0]))
    assert refused.status_code == 422 and refused.get_json()["rule"] == "toy/turn", refused.get_json()
    assert client.post(f"/api/records/{record_id}/commands", data="roll",
                       headers=auth(tokens[1])).status_code == 415
    assert client.post(f"/api/records/{record_id}/commands", json={"command": command}).status_code == 401
    assert client.get(f"/api/records/{record_id}/steps/1").status_code == 200  # the WSGI fast path

    after = client.get("/metrics")
    assert after.status_code == 200 and after.mimetype == "text/plain"
    text = after.get_data(as_text=True)

    def delta(name: str, **labels: str) -> float:
        return sample(text, name, **labels) - sample(before, name, **labels)

    for outcome, count in {"accepted": 1, "replayed": 1, "conflict": 1, "forbidden": 2, "refused": 1, "invalid": 1,
                           "unauthorized": 1}.items():
        assert delta("cronaca_commands_total", title="toy", outcome=outcome) == count, outcome
    rule = "/api/records/<uuid:record_id>/commands"
    assert delta("flask_http_request_duration_seconds_count", url_rule=rule, status="200", method="POST") == 2
    assert delta("flask_http_request_duration_seconds_count", url_rule=rule, status="409", method="POST") == 1
    assert delta("cronaca_fast_answers_total", kind="step") == 1
    # bounded labels: no record id, no token, no key anywhere in the exposition
    assert record_id not in text and not any(token in text for token in tokens)


def test_a_command_to_no_record_counts_under_an_unknown_title(app: Any) -> None:
    client = app.test_client()
    missing = str(uuid.uuid4())
    before = sample(client.get("/metrics").get_data(as_text=True), "cronaca_commands_total", title="unknown",
                    outcome="not_found")
    answer = client.post(f"/api/records/{missing}/commands", json={"command": {"type": "toy/roll", "seat": 0}},
                         headers=auth("whatever"))
    assert answer.status_code == 404
    text = client.get("/metrics").get_data(as_text=True)
    assert sample(text, "cronaca_commands_total", title="unknown", outcome="not_found") == before + 1
    assert missing not in text


# ---- request ids and logs --------------------------------------------------------------------------------------


def test_request_ids_are_echoed_when_safe_made_when_absent_or_unsafe(app: Any) -> None:
    client = app.test_client()
    given = client.get("/healthz", headers={"X-Request-Id": "lb-7f3a.2:9"})
    assert given.headers["X-Request-Id"] == "lb-7f3a.2:9"
    made = [client.get(path).headers["X-Request-Id"] for path in ("/healthz", "/nowhere", "/api/openapi.json")]
    assert all(re.fullmatch(r"[0-9a-f]{32}", rid) for rid in made) and len(set(made)) == 3
    for unsafe in ("x" * 65, "a b", "id;Set-Cookie=x", "tab\there", "ünicode", "-leading-dash"):
        answer = client.get("/healthz", headers={"X-Request-Id": unsafe})
        assert re.fullmatch(r"[0-9a-f]{32}", answer.headers["X-Request-Id"]), unsafe
    record_id, _ = start(client)
    fast = client.get(f"/api/records/{record_id}/steps/0", headers={"X-Request-Id": "fast-1"})
    assert fast.status_code == 200 and fast.headers["X-Request-Id"] == "fast-1"


def test_log_lines_are_json_with_the_request_id_and_never_a_secret(app: Any) -> None:
    seen = io.StringIO()
    handler = logging.StreamHandler(seen)
    handler.setFormatter(logs.JsonFormatter())
    handler.addFilter(logs.RequestIdFilter())
    log = logging.getLogger("cronaca.test_operations")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False

    def noisy() -> str:
        token = "s3cr3t-seat-token-AAAA"
        log.info("opened %s with Authorization: Bearer %s", f"/records/r1#token={token}", token)
        log.warning("annotator link /records/r1#key=%s", "s3cr3t-annotator-key", extra={"annotator_key": "s3cr3t-x"})
        return "logged"

    app.add_url_rule("/_noisy", "noisy", noisy)
    try:
        answer = app.test_client().get("/_noisy", headers={"X-Request-Id": "req-42"})
        assert answer.status_code == 200
        log.info("outside any request")
    finally:
        log.removeHandler(handler)
    lines = [json.loads(line) for line in seen.getvalue().splitlines()]
    assert [line["request_id"] for line in lines] == ["req-42", "req-42", None]
    assert lines[0]["level"] == "info" and lines[1]["level"] == "warning" and lines[0]["logger"] == log.name
    assert "s3cr3t" not in seen.getvalue() and "[redacted]" in lines[0]["message"]
    assert lines[1]["annotator_key"] == "[redacted]"


def test_redaction_covers_the_shapes_a_secret_travels_in() -> None:
    text = logs.redact('Authorization: Bearer abc.def-1 "authorization": "Bearer xyz" /records/1#key=K1&x=2 '
                       "/live?token=T2 annotator_key=K3 arbiter_key: K4")
    assert not any(secret in text for secret in ("abc.def-1", "xyz", "K1", "T2", "K3", "K4")), text
    assert "x=2" in text and text.count("[redacted]") == 6
    plain = logs.TextFormatter().format(logging.LogRecord("t", logging.INFO, "", 0, "Bearer %s", ("zzz",), None))
    assert "zzz" not in plain and "[-]" in plain


@pytest.mark.redis
def test_the_request_id_is_carried_into_the_queued_job(tmp_path: Path) -> None:
    """Contract with workers/dispatch.py: each job's meta["request_id"] is the request's (H2 puts it there)."""
    queue = f"cronaca-test-ops-{uuid.uuid4().hex[:10]}"
    app = make_app(tmp_path, REDIS_URL=REDIS_URL, CRONACA_QUEUE=queue)
    client = app.test_client()
    connection = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        record_id, tokens = start(client)
        play_out_http(client, record_id, tokens)
        export = client.get(f"/api/records/{record_id}/export").get_json()
        answer = client.post("/api/imports", json=export, headers={"X-Request-Id": "upload-77"})
        assert answer.status_code in (201, 202), answer.get_json()
        assert answer.headers["X-Request-Id"] == "upload-77"
        jobs = Queue(queue, connection=connection).get_jobs()
        assert jobs and all(job.meta.get("request_id") == "upload-77" for job in jobs), [j.meta for j in jobs]
    finally:
        Queue(queue, connection=connection).delete(delete_jobs=True)
        for key in connection.scan_iter(f"*{queue}*"):
            connection.delete(key)
        app.extensions["cronaca"].records.close()


# ---- the operators' dashboard ----------------------------------------------------------------------------------


def test_ops_does_not_exist_without_an_operator_key(app: Any) -> None:
    client = app.test_client()
    for path in ("/ops", "/ops/", "/ops/rq/", "/ops/login"):
        assert client.get(path).status_code == 404, path
    assert client.get("/ops/rq/", headers=auth(KEY)).status_code == 404


def test_a_weak_operator_key_is_refused_at_start() -> None:
    """At least 32 characters (was 16: guessed at hundreds a second, one went), and random: no key that repeats a
    character or a part of itself. The entry points say it in one sentence (test_throttle.py)."""
    for weak in ("short", "k" * 16, "operator-key-" + "k" * 24, "0123456789abcdef" * 2, "ab" * 24):
        with pytest.raises(ValueError, match="CRONACA_OPERATOR_KEY must be .*secrets.token_urlsafe"):
            Settings.from_env({"CRONACA_OPERATOR_KEY": weak})
    assert KEY not in repr(Settings.from_env({"CRONACA_OPERATOR_KEY": KEY}))


@pytest.mark.redis
def test_ops_needs_the_operator_key_by_header_or_by_the_login_form(tmp_path: Path) -> None:
    app = make_app(tmp_path, CRONACA_OPERATOR_KEY=KEY, REDIS_URL=REDIS_URL)
    client = app.test_client()
    try:
        bare = client.get("/ops/rq/")
        assert bare.status_code == 401 and "WWW-Authenticate" in bare.headers
        assert b'name="key"' in bare.data and bare.headers["X-Request-Id"]
        assert client.get("/ops/rq/", headers=auth("operator-key-but-not-the-right-one")).status_code == 403
        assert client.get("/ops/rq/", headers={"Authorization": f"Basic {KEY}"}).status_code == 403
        page = client.get("/ops/rq/", headers=auth(KEY))
        assert page.status_code == 200 and b"RQ" in page.data and page.headers["Cache-Control"] == "no-store"
        assert page.headers["Content-Security-Policy"] == OPS_PAGE_SOURCES
        data = client.get("/ops/rq/0/data/queues.json", headers=auth(KEY))
        assert data.status_code == 200 and "queues" in data.get_json()
        links = re.findall(r'(?:src|href)="(/ops/[^"]+)"', page.get_data(as_text=True))
        assets = [link for link in links if "/static/" in link or link.endswith(".ico")]
        assert len(assets) >= 5  # the dashboard's scripts, styles and icon: all served under /ops, all behind the key
        for asset in assets:
            assert client.get(asset, headers=auth(KEY)).status_code == 200, asset
            assert client.get(asset).status_code == 401, asset
        assert all(client.get(link, headers=auth(KEY)).status_code < 400 for link in links)
        # the service's own pages keep their strict policy
        assert "unsafe" not in client.get("/").headers.get("Content-Security-Policy", "unsafe")

        wrong = client.post("/ops/login", data={"key": "not it", "next": "/rq/"})
        assert wrong.status_code == 403 and operators.COOKIE not in wrong.headers.get("Set-Cookie", "")
        signed = client.post("/ops/login", data={"key": KEY, "next": "/rq/"})
        assert signed.status_code == 303 and signed.headers["Location"].endswith("/ops/rq/")
        cookie = signed.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/ops" in cookie and KEY not in cookie
        assert client.get("/ops/rq/").status_code == 200  # the test client keeps the cookie, as a browser
        assert client.post("/ops/logout").status_code == 303
        assert client.get("/ops/rq/").status_code == 401
        elsewhere = client.post("/ops/login", data={"key": KEY, "next": "//evil.example/"})
        assert elsewhere.headers["Location"].endswith("/ops/rq/")
    finally:
        app.extensions["cronaca"].records.close()


def test_an_ops_session_expires_and_is_bound_to_the_key() -> None:
    cookie = operators.session_cookie(KEY, now=1000.0)
    assert operators.valid_session(cookie, KEY, now=1001.0)
    assert not operators.valid_session(cookie, KEY, now=1000.0 + operators.SESSION_SECONDS + 1)
    assert not operators.valid_session(cookie, KEY + "-rotated", now=1001.0)
    assert not operators.valid_session(cookie.replace(".", ".0", 1), KEY, now=1001.0)


# ---- cronaca keep ----------------------------------------------------------------------------------------------


def test_keep_starts_a_dying_command_again_with_growing_backoff(tmp_path: Path) -> None:
    marks = tmp_path / "starts"
    keeper = Keeper(["sh", "-c", f"echo x >> {marks}; exit 3"], max_backoff=0.2, max_starts=3)
    keeper.backoff = lambda delay, ran: 0.05  # type: ignore[method-assign]  (the wait itself is tested below)
    assert keeper.run() == 3
    assert marks.read_text().count("x") == 3
    slow = Keeper(["true"], max_backoff=30, reset_after=60)
    assert [slow.backoff(d, 0.1) for d in (0.5, 1, 2, 16, 30)] == [1, 2, 4, 30, 30]
    assert slow.backoff(30, 61) == 1.0


def test_keep_passes_a_stop_on_and_restarts_nothing(tmp_path: Path) -> None:
    script = "import signal, sys, time; signal.signal(signal.SIGTERM, lambda *a: sys.exit(7)); time.sleep(30)"
    log = tmp_path / "keep.log"
    with log.open("wb") as sink:
        process = subprocess.Popen([str(VENV_BIN / "cronaca"), "keep", "--", sys.executable, "-c", script],
                                   cwd=ROOT, env=subprocess_env({}), stderr=sink, start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while "keep: started" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the command sets its handler
        process.send_signal(signal.SIGTERM)  # to keep alone, not its group: keep passes it on
        assert process.wait(10) == 7
        err = log.read_text()
        assert err.count("keep: started") == 1 and "stopped (exit 7)" in err, err
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


# ---- the Procfile under honcho ---------------------------------------------------------------------------------


def get(url: str, headers: dict[str, str] | None = None, body: Any = None) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={**(headers or {}),
                                                             **({"Content-Type": "application/json"} if data else {})})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def wait_ready(port: int, deadline: float) -> None:
    last: Any = None
    while time.monotonic() < deadline:
        try:
            status, _, body = get(f"http://127.0.0.1:{port}/readyz")
            if status == 200:
                return
            last = body
        except OSError as exc:
            last = exc
        time.sleep(0.2)
    raise AssertionError(f"port {port} not ready: {last}")


def two_free_ports() -> int:
    for _ in range(50):
        base = free_port()
        with contextlib.suppress(OSError):
            with socket.socket() as s:
                s.bind(("127.0.0.1", base + 1))
            return base
    raise AssertionError("no two free ports in a row")


def keep_children(output: str, name: str) -> list[int]:
    """The pids `cronaca keep` started for one Procfile process (honcho prefixes each line with its name)."""
    return [int(pid) for pid in re.findall(rf"{re.escape(name)}\s*\|.*keep: started \w+ \(pid (\d+)", output)]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop a process started in a session of its own and all it started: TERM, then KILL after 20 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


@pytest.mark.redis
def test_the_procfile_under_honcho_serves_adds_up_metrics_and_restarts_what_dies(tmp_path: Path) -> None:
    own = f"cronaca-test-ops-{uuid.uuid4().hex[:10]}"
    env = subprocess_env({
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "SQLITE_DBNAME": str(tmp_path / "r.sqlite3"),
        "REDIS_URL": REDIS_URL, "CRONACA_QUEUE": own, "CRONACA_CHECKS_QUEUE": f"{own}-checks",
        "CRONACA_RENDERS_QUEUE": f"{own}-renders", "CRONACA_ANALYSES_QUEUE": f"{own}-analyses", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
        "CRONACA_API_WORKERS": "1", "CRONACA_LOG_FORMAT": "json", "CRONACA_RELAY_INTERVAL": "1"})
    (tmp_path / "metrics").mkdir()
    schema.upgrade(env)  # `cronaca db upgrade`'s work, before any process starts (in this process: quicker)
    base = two_free_ports()
    (tmp_path / "empty.env").write_text("")
    out = tmp_path / "honcho.log"
    with out.open("wb") as sink:
        honcho = subprocess.Popen(
            [str(VENV_BIN / "honcho"), "start", "-f", str(ROOT / "Procfile"), "-d", str(ROOT),
             "-e", str(tmp_path / "empty.env"), "-p", str(base), "-c", "api=2,worker=2,relay=1"],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    started: list[int] = []
    try:
        deadline = time.monotonic() + 60
        for port in (base, base + 1):
            wait_ready(port, deadline)
        one, two = f"http://127.0.0.1:{base}", f"http://127.0.0.1:{base + 1}"

        status, _, body = get(f"{one}/api/records", body={"title": "toy", "seats": ["ann", "bob"]})
        assert status == 201, body
        record = json.loads(body)
        record_id, tokens = record["id"], [s["token"] for s in record["seats"]]
        status, _, body = get(f"{one}/api/records/{record_id}/legal", headers=auth(tokens[0]))
        now = json.loads(body)
        status, headers, body = get(f"{one}/api/records/{record_id}/commands", body={
            "command": now["commands"][0], "version": now["version"]},
            headers={**auth(tokens[0]), "X-Request-Id": "deploy-cmd-1"})
        assert status == 200 and headers["X-Request-Id"] == "deploy-cmd-1", body
        status, headers, _ = get(f"{two}/api/records/{record_id}?token={tokens[1]}",
                                 headers={**auth(tokens[1]), "X-Request-Id": "deploy-read-2"})
        assert status == 200 and headers["X-Request-Id"] == "deploy-read-2"

        # api.2 never saw the command: its /metrics adds up api.1's samples from the shared directory
        metrics = get(f"{two}/metrics")[2].decode()
        assert sample(metrics, "cronaca_commands_total", title="toy", outcome="accepted") == 1
        assert sample(metrics, "flask_http_request_duration_seconds_count",
                      url_rule="/api/records/<uuid:record_id>/commands", status="200") == 1
        assert sample(metrics, "flask_http_request_total", method="POST", status="201") == 1

        # the API process api.1's keep started dies: keep starts it again on the same port
        output = out.read_text(errors="replace")
        started = keep_children(output, "api.1")
        assert len(started) == 1, output[-3000:]
        os.kill(started[0], signal.SIGKILL)
        restart_deadline = time.monotonic() + 30
        while time.monotonic() < restart_deadline and len(keep_children(out.read_text(errors="replace"), "api.1")) < 2:
            time.sleep(0.2)
        wait_ready(base, restart_deadline)
        assert get(f"{one}/healthz")[0] == 200
    finally:
        stop_group(honcho)
        output = out.read_text(errors="replace")
        children = [pid for name in ("api.1", "api.2", "worker.1", "worker.2", "relay.1")
                    for pid in keep_children(output, name)]
        gone_by = time.monotonic() + 10
        while time.monotonic() < gone_by and any(alive(pid) for pid in children):
            time.sleep(0.1)
        left = [pid for pid in children if alive(pid)]
        for pid in left:  # what keep started must not outlive it; never leave one behind either way
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        connection = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        for key in connection.scan_iter(f"*{own}*"):
            connection.delete(key)
    assert not left, f"processes outlived honcho's stop: {left}"
    assert len(children) >= 6, output[-3000:]  # api.1 twice, api.2, two workers, the relay
    # raw_decode: honcho's own word on a stop ("SIGTERM received") may land on the same line as a last log line
    access = [json.JSONDecoder().raw_decode(line.split("| ", 1)[1])[0] for line in output.splitlines()
              if "| {" in line and '"gunicorn.access"' in line]
    by_id = {line.get("request_id"): line for line in access}
    assert by_id["deploy-cmd-1"]["status"] == "200" and by_id["deploy-cmd-1"]["method"] == "POST"
    assert by_id["deploy-read-2"]["path"] == f"/api/records/{record_id}"
    assert not any(token in output for token in tokens), "a seat token reached the logs"


def test_under_gunicorn_metrics_sum_the_bounded_caches_of_every_worker(tmp_path: Path) -> None:
    """Two gunicorn workers sharing a PROMETHEUS_MULTIPROC_DIR publish their caches there (workers/metrics.py's
    CACHES): a finished record's step read three times is read twice by one worker at least, a hit of the steps
    cache, which /metrics shows whichever worker answers it, within the refresh interval."""
    app = make_app(tmp_path)
    try:
        client = app.test_client()
        record_id, tokens = start(client)
        play_out_http(client, record_id, tokens)
    finally:
        close_app(app)
    env = subprocess_env({
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "SQLITE_DBNAME": str(tmp_path / "records.sqlite3"),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"), "CRONACA_API_WORKERS": "2"})
    port = free_port()
    with (tmp_path / "gunicorn.log").open("wb") as sink:
        master = subprocess.Popen(
            [str(VENV_BIN / "gunicorn"), "-c", "python:api.gunicorn_conf", "--bind", f"127.0.0.1:{port}", "api.wsgi:app"],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_ready(port, time.monotonic() + 60)
        url = f"http://127.0.0.1:{port}"
        for _ in range(3):  # two workers: one of them answers two of the three
            assert get(f"{url}/api/records/{record_id}/steps/1")[0] == 200
        deadline = time.monotonic() + 3 * CACHE_REFRESH_SECONDS
        while True:
            metrics = get(f"{url}/metrics")[2].decode()
            hits = sample(metrics, "cronaca_cache_hits_total", cache="steps")
            capacity = sample(metrics, "cronaca_cache_capacity", cache="steps")
            if (hits > 0 and capacity == 2 * STEP_CACHE) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert hits > 0, metrics
        assert capacity == 2 * STEP_CACHE, metrics  # both live workers, summed
        assert sample(metrics, "cronaca_cache_misses_total", cache="steps") >= 1
        assert sample(metrics, "cronaca_cache_entries", cache="steps") >= 1
    finally:
        stop_group(master)


def test_the_live_gauges_of_a_process_that_is_gone_are_forgotten(tmp_path: Path) -> None:
    """An RQ worker has no master to mark it dead: any process's next refresh removes its share of the cache gauges."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for pid in (gone.pid, os.getpid()):
        (tmp_path / f"gauge_livesum_{pid}.db").write_bytes(b"")
    (tmp_path / f"counter_{gone.pid}.db").write_bytes(b"")
    forget_the_dead(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"counter_{gone.pid}.db", f"gauge_livesum_{os.getpid()}.db"]
