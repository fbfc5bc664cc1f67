"""Imports through a real Redis and real `cronaca worker` / `cronaca relay` processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq import Queue

from api.app import create_app
from domain.records.access import token_hash
from domain.records.settings import Settings
from tests.service.conftest import ROOT, free_port, subprocess_env
from tests.service.helpers import play_out_http
from tests.service.test_api import start, wait_for_verdict
from workers.dispatch import JOB
from workers.relay import relay_once

pytestmark = pytest.mark.redis
CRONACA = [str(Path(sys.executable).parent / "cronaca")]


class Stack:
    """One test's service: its own SQLite file, its own queue name, the processes it started. CRONACA_REQUEUE_AFTER
    2 s makes heartbeats every 0.33 s and `dead_after` 1 s: CI saw a live worker's beat go 0.6 s stale on a
    starved host, so a shorter one would take a busy worker for dead."""

    def __init__(self, tmp: Path, redis_url: str) -> None:
        name = f"cronaca-test-{uuid.uuid4().hex[:10]}"
        self.env = {"SQLITE_DBNAME": str(tmp / "records.sqlite3"), "REDIS_URL": redis_url,
                    "CRONACA_QUEUE": name, "CRONACA_CHECKS_QUEUE": f"{name}-checks",
                    "CRONACA_RENDERS_QUEUE": f"{name}-renders", "CRONACA_REQUEUE_AFTER": "2.0",
                    "CRONACA_ANALYSES_QUEUE": f"{name}-analyses",
                    "CRONACA_RELAY_INTERVAL": "0.2"}
        self.app = create_app(Settings.from_env(self.env))
        self.client = self.app.test_client()
        self.service = self.app.extensions["cronaca"]
        self.processes: list[subprocess.Popen[bytes]] = []
        self.imports: list[str] = []
        self.tmp = tmp

    def spawn(self, command: str, *args: str, **extra: str) -> subprocess.Popen[bytes]:
        log = (self.tmp / f"{command}-{len(self.processes)}.log").open("wb")
        process = subprocess.Popen([*CRONACA, command, *args], cwd=ROOT, env=subprocess_env({**self.env, **extra}),
                                   stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def finished_export(self) -> bytes:
        record_id, tokens = start(self.client)
        play_out_http(self.client, record_id, tokens)
        return self.client.get(f"/api/records/{record_id}/export").data

    def close(self) -> None:
        running = [process for process in self.processes if process.poll() is None]
        for process in running:  # all asked at once; a worker busy with a test's slow job is not waited for long
            process.terminate()
        deadline = time.monotonic() + 1.0
        for process in running:
            try:
                process.wait(max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        try:  # leave the shared Redis as we found it: the queue, its registries, our jobs
            connection = redis.Redis.from_url(self.env["REDIS_URL"], socket_connect_timeout=1)
            for name in (self.env["CRONACA_QUEUE"], f"{self.env['CRONACA_QUEUE']}-retries", self.env["CRONACA_CHECKS_QUEUE"],
                         self.env["CRONACA_RENDERS_QUEUE"], self.env["CRONACA_ANALYSES_QUEUE"]):
                Queue(name, connection=connection).delete(delete_jobs=True)
            patterns = [f"*{self.env['CRONACA_QUEUE']}*", *(f"rq:*:import-{i}-*" for i in self.imports)]
            for pattern in patterns:
                keys = list(connection.scan_iter(pattern))
                if keys:
                    connection.delete(*keys)
        except redis.RedisError:
            pass
        self.service.records.close()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    found = Stack(tmp_path, "redis://127.0.0.1:6379/0")
    yield found
    found.close()


def submit(stack: Stack, document: bytes) -> str:
    answer = stack.client.post("/api/imports", data=document, content_type="application/json")
    assert answer.status_code == 202, answer.get_json()
    stack.imports.append(str(answer.get_json()["id"]))
    return stack.imports[-1]


def same_events(stack: Stack, document: bytes, record_id: str) -> None:
    import json

    original = json.loads(document)
    copy = stack.client.get(f"/api/records/{record_id}/export").get_json()
    assert copy["entries"] == original["entries"] and copy == original


def test_an_import_is_validated_by_a_real_worker(stack: Stack) -> None:
    document = stack.finished_export()
    import_id = submit(stack, document)
    assert stack.client.get(f"/api/imports/{import_id}").get_json()["status"] == "queued"
    stack.spawn("worker")
    verdict = wait_for_verdict(stack.client, import_id, timeout=30)
    assert verdict["status"] == "accepted" and verdict["report"]["ok"]
    same_events(stack, document, verdict["record_id"])


def test_a_worker_killed_mid_job_loses_nothing(stack: Stack) -> None:
    document = stack.finished_export()
    dispatcher = stack.service.dispatcher
    assert dispatcher.job == JOB
    dispatcher.job = "tests.service.slow_jobs.validate_import_slowly"  # the first attempt lingers
    slow = stack.spawn("worker")
    import_id = submit(stack, document)
    deadline = time.time() + 30
    while stack.client.get(f"/api/imports/{import_id}").get_json()["status"] != "validating":
        assert time.time() < deadline, "the worker never took the job"
        time.sleep(0.05)
    job_id = f"import-{import_id}-1"
    time.sleep(2 * stack.service.settings.dead_after)  # well past the worker's death time: its heartbeats go on
    assert not dispatcher.lost(job_id), "a worker busy with a long job was taken for dead"
    os.kill(slow.pid, signal.SIGKILL)
    slow.wait(5)
    killed = time.monotonic()
    while not dispatcher.lost(job_id):  # seen by the worker's stale heartbeat, within CRONACA_REQUEUE_AFTER
        assert time.monotonic() - killed < 10, "the dead worker's job was never seen lost"
        time.sleep(0.02)
    assert time.monotonic() - killed <= stack.service.settings.requeue_after + 1.0  # (1 s: a registry entry's rounding)
    assert stack.client.get(f"/api/imports/{import_id}").get_json()["status"] == "validating"
    dispatcher.job = JOB  # the relay hands the retry to the real job
    stack.spawn("worker")
    assert relay_once(stack.service.records, stack.service.dispatcher, requeue_after=0.5) == 1
    verdict = wait_for_verdict(stack.client, import_id, timeout=30)
    assert verdict["status"] == "accepted" and verdict["attempts"] == 2
    same_events(stack, document, verdict["record_id"])


def test_a_job_taken_off_the_queue_by_a_worker_that_died_before_starting_it_is_queued_again(stack: Stack) -> None:
    """A worker killed between its BLPOP and marking the job started leaves a job that says "queued" and is in
    no queue (RQ would never run it): it is lost once missing for `dead_after`, and the relay queues it again."""
    document = stack.finished_export()
    dispatcher = stack.service.dispatcher
    waiting_id = submit(stack, stack.finished_export())  # stays in the queue: never lost, however long it waits
    import_id = submit(stack, document)
    job_id = f"import-{import_id}-1"
    queue_key = Queue(stack.env["CRONACA_QUEUE"], connection=dispatcher.connection).key
    taken = dispatcher.connection.lrem(queue_key, 1, job_id)  # what the dying worker's BLPOP did
    assert taken == 1
    assert not dispatcher.lost(job_id), "a job just taken off the queue may be starting on a live worker"
    taken_at = time.monotonic()
    while not dispatcher.lost(job_id):
        assert time.monotonic() - taken_at < 10, "a job in no queue was never seen lost"
        time.sleep(0.02)
    assert time.monotonic() - taken_at >= stack.service.settings.dead_after
    assert not dispatcher.lost(f"import-{waiting_id}-1"), "a job waiting in its queue was taken for lost"
    # grace 0: the import was queued less than the relay's default 1 s grace ago (dead_after is shorter)
    assert relay_once(stack.service.records, dispatcher, requeue_after=0.5, grace=0.0) == 1
    stack.spawn("worker")
    verdict = wait_for_verdict(stack.client, import_id, timeout=30)
    assert verdict["status"] == "accepted" and verdict["attempts"] == 2
    same_events(stack, document, verdict["record_id"])
    assert wait_for_verdict(stack.client, waiting_id, timeout=30)["attempts"] == 1


def test_imports_queued_again_are_served_first_in_the_order_they_were_queued_again(stack: Stack) -> None:
    """Two imports whose jobs were lost (a dead worker's) are queued again, one after the other, behind a new
    upload: a worker takes the first one queued again, then the second, then the upload (RQ's `at_front` would
    have taken the second one queued again first)."""
    from rq.job import Job

    from workers.dispatch import hand_over

    dispatcher = stack.service.dispatcher
    documents = [stack.finished_export() for _ in range(3)]
    first, second = submit(stack, documents[0]), submit(stack, documents[1])
    for import_id in (first, second):  # their first jobs lost: gone from the queue, as a dead worker's BLPOP leaves them
        assert dispatcher.connection.lrem(dispatcher.queue.key, 1, f"import-{import_id}-1") == 1
    upload = submit(stack, documents[2])
    assert hand_over(stack.service.records, dispatcher, uuid.UUID(first), 2)
    assert hand_over(stack.service.records, dispatcher, uuid.UUID(second), 2)
    assert dispatcher.again.job_ids == [f"import-{first}-2", f"import-{second}-2"]
    assert dispatcher.queue.job_ids == [f"import-{upload}-1"]
    stack.spawn("worker")  # one worker, all queues: retries first
    for import_id in (first, second, upload):
        assert wait_for_verdict(stack.client, import_id, timeout=30)["status"] == "accepted"
    jobs = Job.fetch_many([f"import-{first}-2", f"import-{second}-2", f"import-{upload}-1"], connection=dispatcher.connection)
    started = [job.started_at for job in jobs]
    assert all(started) and started == sorted(started), [(j.id, j.started_at) for j in jobs]


def test_a_worker_given_the_imports_queue_serves_its_retries_first() -> None:
    """`cronaca worker --queues ...`: the imports queue, by role or by its name, brings its retries queue along
    (a worker that served it alone would leave every import queued again waiting for ever)."""
    from workers.worker import resolve_queues

    settings = Settings.from_env({"CRONACA_QUEUE": "club-imports"})
    assert settings.retries_queue == "club-imports-retries"
    assert resolve_queues(settings, None) == ["club-imports-retries", "club-imports", "cronaca-checks", "cronaca-renders",
                                            "cronaca-analyses"]
    assert resolve_queues(settings, "imports") == ["club-imports-retries", "club-imports"]
    assert resolve_queues(settings, "checks,club-imports") == ["cronaca-checks", "club-imports-retries", "club-imports"]
    assert resolve_queues(settings, "imports,retries") == ["club-imports", "club-imports-retries"]  # as the operator ordered
    assert resolve_queues(settings, "checks,renders") == ["cronaca-checks", "cronaca-renders"]
    assert Settings.from_env({"CRONACA_RETRIES_QUEUE": "again"}).queues["retries"] == "again"


def test_imports_submitted_while_redis_is_down_are_processed_when_it_returns(tmp_path: Path) -> None:
    """Our own redis-server on another port (never the shared one): stopped, then started empty."""
    port = free_port()

    def own_redis() -> subprocess.Popen[bytes]:
        server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                   "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                redis.Redis(port=port, socket_connect_timeout=0.2).ping()
                return server
            except redis.RedisError:
                time.sleep(0.05)
        raise AssertionError("own redis-server did not start")

    server = own_redis()
    stack = Stack(tmp_path, f"redis://127.0.0.1:{port}/0")
    try:
        documents = [stack.finished_export() for _ in range(4)]
        before = submit(stack, documents[0])  # queued, but no worker yet: its job dies with Redis
        assert stack.client.get(f"/api/imports/{before}").get_json()["status"] == "queued"
        server.terminate()
        server.wait(5)
        during = [submit(stack, d) for d in documents[1:]]  # Redis is gone: saved, not queued
        assert {stack.client.get(f"/api/imports/{i}").get_json()["status"] for i in during} == {"submitted"}
        stack.spawn("relay")
        time.sleep(1.0)
        assert {stack.client.get(f"/api/imports/{i}").get_json()["status"] for i in during} == {"submitted"}
        server = own_redis()  # back, and empty
        back = time.monotonic()
        while {stack.client.get(f"/api/imports/{i}").get_json()["status"] for i in during} != {"queued"}:
            assert time.monotonic() - back < 20, "the relay did not queue the imports saved while Redis was down"
            time.sleep(0.1)
        # the three never queued go as one batch job, as `cronaca import` queues them (a file queued again goes alone)
        directory = stack.service.records.directory
        directory.catch_up()
        jobs = {str(s.id): s.job_id for s in directory.imports.values()}
        assert len({jobs[i] for i in during}) == 1 and jobs[during[0]].startswith("imports-"), jobs
        stack.spawn("worker")
        for import_id, document in zip([before, *during], documents, strict=True):
            verdict = wait_for_verdict(stack.client, import_id, timeout=40)
            assert verdict["status"] == "accepted", verdict
            same_events(stack, document, verdict["record_id"])
        # its job died with Redis, so the relay queued it again (more than once when a loaded
        # machine keeps the worker past the relay's requeue time: still one record, checked above)
        assert stack.client.get(f"/api/imports/{before}").get_json()["attempts"] >= 2
    finally:
        stack.close()
        server.terminate()
        server.wait(5)


def test_checks_and_renders_run_on_their_queues_and_status_shows_them(stack: Stack) -> None:
    """`cronaca recheck --all` and `render --all --out` hand their work to a worker serving only those queues;
    `cronaca status --json` shows the queues, the live worker and the outbox."""
    import json

    from domain.records import evidence

    document = stack.finished_export()
    import_id = submit(stack, document)  # queued on the imports queue, which this worker does not serve
    stack.spawn("worker", "--queues", "checks,renders")
    cli = [*CRONACA]
    env = subprocess_env(stack.env)

    def run(*args: str) -> dict:
        done = subprocess.run([*cli, *args, "--json"], cwd=ROOT, env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        return json.loads(done.stdout)

    checked = run("recheck", "--all", "--wait", "30")
    assert checked["checked"] == 1 and checked["ok"] == 1 and not checked["failed"] and len(checked["jobs"]) == 1
    out = stack.tmp / "rendered"
    rendered = run("render", "--all", "--out", str(out), "--wait", "30")
    (record_id,) = rendered["written"]
    assert evidence.verify((out / f"{record_id}.evidence.zip").read_bytes()).ok
    assert (out / f"{record_id}.txt").read_text().strip()
    status = run("status")
    assert status["queues"]["imports"]["queued"] == 1 and status["queues"]["checks"]["failed"] == 0
    assert status["queues"]["retries"] == {"name": f"{stack.env['CRONACA_QUEUE']}-retries", "queued": 0, "started": 0,
                                           "scheduled": 0, "failed": 0, "last_failed": []}
    assert [w["alive"] for w in status["workers"]] == [True] and status["workers"][0]["queues"] == [
        stack.env["CRONACA_CHECKS_QUEUE"], stack.env["CRONACA_RENDERS_QUEUE"]]
    assert status["outbox"]["queued"] == 1 and status["outbox"]["without_verdict"] == 1
    assert stack.client.get(f"/api/imports/{import_id}").get_json()["status"] == "queued"


def test_cronaca_import_queues_many_files_in_batch_jobs_for_the_workers(stack: Stack) -> None:
    """`cronaca import` with REDIS_URL: each file saved as an upload is, the good ones queued 20 a job (one job
    here), judged by a real worker; a bad file refused at its name; one JSON line a file, written to a file
    that only its owner may read; exit 1 for the refused one."""
    import json

    files = []
    for k in range(3):
        path = stack.tmp / f"game-{k}.json"
        path.write_bytes(stack.finished_export())
        files.append(path)
    bad = stack.tmp / "torn.json"
    bad.write_text('{"format": "cronaca-record", "entries": [')
    out = stack.tmp / "imported.jsonl"
    stack.spawn("worker")
    done = subprocess.run([*CRONACA, "import", *map(str, files), str(bad), "--wait", "60", "--out", str(out)], cwd=ROOT,
                          env=subprocess_env(stack.env), capture_output=True, timeout=120)
    assert done.returncode == 1, done.stderr.decode()[-2000:]
    assert oct(out.stat().st_mode & 0o777) == oct(0o600)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["file"] for line in lines] == [*map(str, files), str(bad)]
    assert [line.get("status") for line in lines] == ["accepted"] * 3 + [None]
    assert "JSON" in lines[3]["error"] or "json" in lines[3]["error"].lower()
    jobs = set()
    for line in lines[:3]:
        status = stack.client.get(f"/api/imports/{line['import_id']}").get_json()
        assert status["record_id"] == line["record_id"] and status["attempts"] == 1
        directory = stack.service.records.directory
        directory.catch_up()
        jobs.update(s.job_id for s in directory.imports.values() if str(s.id) == line["import_id"])
        found = stack.service.records.imports.get(uuid.UUID(line["import_id"]))  # the tokens printed are the seats'
        assert found.token_hashes == [token_hash(seat["token"]) for seat in line["seats"]]
        assert found.annotator_hash == token_hash(line["annotator_key"])
    assert len(jobs) == 1 and next(iter(jobs)).startswith("imports-")


def test_only_transient_faults_keep_their_retries() -> None:
    """RQ's failure callback: a store or Redis fault keeps the job's retries; anything else, and an import
    abandoned by its dead worker (the relay's to queue again, counted), loses them."""
    from types import SimpleNamespace

    from eventsourcing.persistence import OperationalError
    from rq.exceptions import AbandonedJobError

    from workers.dispatch import retry_transient_only

    def left(exc: BaseException, meta: dict) -> int:
        job = SimpleNamespace(retries_left=3, meta=meta)
        retry_transient_only(job, None, type(exc), exc, None)
        return job.retries_left

    assert left(OperationalError("the store is down"), {"outbox": True}) == 3
    assert left(redis.ConnectionError("Redis blinked"), {}) == 3
    assert left(ValueError("a bug"), {}) == 0
    assert left(AbandonedJobError(), {"outbox": True}) == 0
    assert left(AbandonedJobError(), {}) == 3


def test_a_relay_pass_the_store_refused_is_one_warning_line(monkeypatch: pytest.MonkeyPatch,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    """A killed database connection (by hand, 2026-11-24) made the relay log a whole traceback as an error; the
    store away for a moment is a warning in one line, and the relay goes on. Anything else keeps its traceback."""
    import logging
    import threading

    from eventsourcing.persistence import OperationalError

    from workers import relay

    faults = [OperationalError("terminating connection due to administrator command\nSSL SYSCALL error"),
              ValueError("a bug")]
    stop = threading.Event()

    def once(*args: object, **kwargs: object) -> int:
        if faults:
            raise faults.pop(0)
        stop.set()
        return 0

    monkeypatch.setattr(relay, "relay_once", once)
    with caplog.at_level(logging.WARNING, logger="cronaca.relay"):
        relay.run(None, None, requeue_after=1.0, interval=0.01, stop=stop)  # type: ignore[arg-type]
    said = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records if r.name == "cronaca.relay"]
    assert said == [("WARNING", "relay pass skipped: the store: terminating connection due to administrator command", False),
                    ("ERROR", "relay pass failed", True)]
