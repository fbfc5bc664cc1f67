"""Workers at scale, broken on purpose: SIGKILLed mid-job, and Redis gone for a minute and back empty.

Real `cronaca worker` and `cronaca relay` processes (each in a process group of its own, as on a host
of its own) on the suite's own PostgreSQL and Redis; imports submitted through the service's app with
REDIS_URL set (the same code an API process runs). Each case asserts nothing lost and nothing doubled:
every import ends accepted or rejected (the tampered files rejected, the others accepted), one record
per accepted import and no other. Every wait is bounded in time.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry

from api.app import create_app
from domain.records.settings import Settings
from tests.faults.conftest import OwnPostgres, OwnRedis, wait_until
from tests.service.conftest import LONG_TOY, ROOT, TOY, subprocess_env
from tests.service.helpers import play_out_http

pytestmark = pytest.mark.faults
CRONACA = str(Path(sys.executable).parent / "cronaca")
REQUEUE_AFTER = 3.0  # seconds: CRONACA_REQUEUE_AFTER for these deployments
TAMPERED_EVERY = 10  # every 10th file is changed so the rules reject it


class Deployment:
    """The service's app (for submissions) and the worker and relay processes this test started."""

    def __init__(self, tmp: Path, postgres: OwnPostgres, own_redis: OwnRedis) -> None:
        from api.schema import upgrade

        name = f"faults-{uuid.uuid4().hex[:8]}"
        self.env = {**postgres.env(), "REDIS_URL": own_redis.url, "CRONACA_QUEUE": f"{name}-imports",
                    "CRONACA_CHECKS_QUEUE": f"{name}-checks", "CRONACA_RENDERS_QUEUE": f"{name}-renders",
                    "CRONACA_ANALYSES_QUEUE": f"{name}-analyses",
                    "CRONACA_REQUEUE_AFTER": str(REQUEUE_AFTER), "CRONACA_RELAY_INTERVAL": "0.2",
                    "CRONACA_LOG_FORMAT": "text", "CRONACA_EXTRA_TITLES": TOY}
        upgrade(self.env)
        self.settings = Settings.from_env(self.env)
        self.app = create_app(self.settings)
        self.client = self.app.test_client()
        self.records = self.app.extensions["cronaca"].records
        self.redis = redis.Redis.from_url(own_redis.url, socket_connect_timeout=1, socket_timeout=5)
        self.tmp = tmp
        self.processes: list[subprocess.Popen[bytes]] = []
        self.seeds: set[str] = set()  # the records played here to export (not imported)

    def spawn(self, command: str) -> subprocess.Popen[bytes]:
        log = (self.tmp / f"{command}-{len(self.processes)}.log").open("wb")
        process = subprocess.Popen([CRONACA, command], cwd=ROOT, env=subprocess_env(self.env), stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process

    def close(self) -> None:
        for process in self.processes:  # only the groups this test started
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:  # the test is over: a worker's warm shutdown is not waited out (it took 8 s)
            try:
                process.wait(2)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)
        self.records.close()

    def documents(self, count: int, target: int = 200) -> tuple[list[bytes], set[int]]:
        """`count` record files of one finished toy game (about 120 moves for a target of 200), every
        TAMPERED_EVERY-th one with its last move taken out (the file still claims the final scores: the rules
        reject it); and which are tampered."""
        answer = self.client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"],
                                                        "edition_file": LONG_TOY.format(target=target)}).get_json()
        play_out_http(self.client, answer["id"], [s["token"] for s in answer["seats"]])
        self.seeds.add(answer["id"])
        good = self.client.get(f"/api/records/{answer['id']}/export").get_json()
        bad = {**good, "entries": good["entries"][:-1]}
        tampered = {k for k in range(count) if k % TAMPERED_EVERY == TAMPERED_EVERY - 1}
        files = json.dumps(good).encode(), json.dumps(bad).encode()  # each copy the same bytes: a long list costs nothing
        return [files[k in tampered] for k in range(count)], tampered

    def submit(self, document: bytes) -> str:
        answer = self.client.post("/api/imports", data=document, content_type="application/json")
        assert answer.status_code == 202, answer.get_json()
        return str(answer.get_json()["id"])

    def verdicts(self, import_ids: list[str], timeout: float) -> dict[str, dict[str, Any]]:
        """Every import's status once all have a verdict (or fail after `timeout` s naming those without)."""
        deadline = time.monotonic() + timeout
        while True:
            found = {i: self.records.imports.status(uuid.UUID(i)).to_json() for i in import_ids}
            waiting = [i for i, s in found.items() if s["status"] not in ("accepted", "rejected")]
            if not waiting:
                return found
            assert time.monotonic() < deadline, f"{len(waiting)} imports without a verdict, e.g. {found[waiting[0]]}"
            time.sleep(0.25)

    def verdicts_so_far(self, import_ids: list[str]) -> list[str]:
        self.records.directory.catch_up()
        return [i for i in import_ids if self.records.directory.imports[uuid.UUID(i)].status in ("accepted", "rejected")]

    def assert_nothing_lost_or_doubled(self, import_ids: list[str], tampered: set[int], timeout: float) -> None:
        found = self.verdicts(import_ids, timeout)
        statuses = [found[i]["status"] for i in import_ids]
        assert [k for k, s in enumerate(statuses) if s == "rejected"] == sorted(tampered)
        made = [found[i]["record_id"] for i in import_ids if found[i]["status"] == "accepted"]
        assert len(made) == len(set(made)) == len(import_ids) - len(tampered)
        self.records.directory.catch_up()
        imported = {str(r) for r in self.records.directory.records} - self.seeds
        assert imported == set(made), "a record without its import, or an import's record missing"


@pytest.fixture
def deployment(tmp_path: Path, postgres: OwnPostgres, own_redis: OwnRedis) -> Iterator[Deployment]:
    found = Deployment(tmp_path, postgres, own_redis)
    try:
        yield found
    finally:
        found.close()


def _busy_worker(deployment: Deployment, workers: dict[int, subprocess.Popen[bytes]],
                 spared: set[str]) -> tuple[str, int] | None:
    """(job id, worker pid) of an import job running now in one of our workers, its import not in `spared`."""
    registry = StartedJobRegistry(deployment.settings.queue, connection=deployment.redis)
    for job_id, _ in registry.get_job_and_execution_ids(cleanup=False):
        if _import_of(job_id) in spared:
            continue
        job = Job.fetch(job_id, connection=deployment.redis)
        pid = deployment.redis.hget(f"rq:worker:{job.worker_name}", "pid") if job.worker_name else None
        if pid is not None and int(pid) in workers and job.get_status(refresh=False) == JobStatus.STARTED:
            return job_id, int(pid)
    return None


def _up(deployment: Deployment, workers: dict[int, subprocess.Popen[bytes]]) -> list[int]:
    """The pids of our workers registered in Redis and beating (booted, able to take a job)."""
    from rq import Worker

    found = Worker.all(queue=Queue(deployment.settings.queue, connection=deployment.redis))
    return [w.pid for w in found if w.pid in workers and w.last_heartbeat is not None
            and (time.time() - w.last_heartbeat.timestamp()) < deployment.settings.dead_after]


def _import_of(job_id: str) -> str:
    return job_id.split("-", 1)[1].rsplit("-", 1)[0]  # import-<uuid>-<attempt>


def _started(job: Job) -> float | None:
    return None if job.started_at is None else job.started_at.timestamp()


def test_workers_killed_mid_job_lose_nothing_and_their_imports_are_taken_up_within_requeue_after(
        deployment: Deployment) -> None:
    """200 imports (40 more at a time while kills are to come), 4 workers, 20 SIGKILLs of a worker mid-job, each
    followed by a new worker (a supervisor's restart). A killed import is taken up again (its next job started) within CRONACA_REQUEUE_AFTER plus one job."""
    # jobs long enough for 20 kills before the end: since issue 29 the workers wait less between jobs, and 200 files
    # of a 400-point game were all judged after 13 kills
    # 1,200 to draw from: on three test workers a run judged all of 400 after 19 kills (56.7 s), and on a quick day
    # CI judged all of 600 after 18 (107 s; the 40 more are submitted only while kills are still to come, so a quick
    # run uses fewer)
    documents, tampered = deployment.documents(1200, target=1500)
    deployment.spawn("relay")
    began = time.monotonic()
    # a backlog: 200 queued before the workers start, 40 more whenever fewer than 40 wait and kills are still to come
    # (a fast host judged all 200 after 19 kills: each kill waits out CRONACA_REQUEUE_AFTER before the next)
    import_ids = [deployment.submit(d) for d in documents[:200]]
    print(f"\nsubmitted 200 in {time.monotonic() - began:.1f} s")
    workers = {p.pid: p for p in (deployment.spawn("worker") for _ in range(4))}
    began = time.monotonic()
    kills: list[tuple[str, float]] = []  # (killed job id, wall time of the kill) for imports left without a verdict
    retries = Queue(deployment.settings.retries_queue, connection=deployment.redis)
    killed: set[str] = set()  # imports killed once already (killed 5 times, an import is rejected: import/attempts)
    # 20 kills take 20-35 s here alone; CI saw a starved host manage 15 in 60 s and 19 in 120 s (a new worker takes
    # seconds to start on a loaded host, and each kill waits for the one before to be taken up)
    deadline = time.monotonic() + 240
    looked = time.monotonic()  # when we last asked whether every import had ended
    while len(kills) < 20 and time.monotonic() < deadline:
        # a victim only while another worker is up to take its import (a supervisor's restart takes seconds), and
        # none while a killed import waits in the retries queue: a worker busy now takes it when its job ends
        # (retries are served first); killing that worker too would make it wait for a restart, not for one job
        busy = (_busy_worker(deployment, workers, killed)
                if len(_up(deployment, workers)) >= 2 and not retries.count else None)
        if busy is None:
            if time.monotonic() > looked + 1:  # every import ended: no more victims to be had
                looked = time.monotonic()
                waiting = len(import_ids) - len(deployment.verdicts_so_far(import_ids))
                if waiting < 40 and len(import_ids) < len(documents):
                    import_ids += [deployment.submit(d) for d in documents[len(import_ids):len(import_ids) + 40]]
                elif waiting == 0:
                    break
            time.sleep(0.01)
            continue
        job_id, pid = busy
        os.killpg(pid, signal.SIGKILL)
        killed_at = time.time()
        workers.pop(pid).wait(5)
        killed.add(_import_of(job_id))
        running = Job.fetch(job_id, connection=deployment.redis).get_status(refresh=False) == JobStatus.STARTED
        if running and deployment.records.imports.status(uuid.UUID(_import_of(job_id))).report is None:
            kills.append((job_id, killed_at))  # mid-job: the dead worker ended neither the job nor the import
        replacement = deployment.spawn("worker")
        workers[replacement.pid] = replacement
        time.sleep(0.1)
    print(f"{len(kills)} kills in {time.monotonic() - began:.1f} s; {len(deployment.verdicts_so_far(import_ids))} "
          "imports had their verdict by then")
    judged = len(deployment.verdicts_so_far(import_ids))
    assert len(kills) == 20, (f"only {len(kills)} workers could be killed mid-job in {time.monotonic() - began:.0f} s"
                              f" ({judged} of {len(import_ids)} imports submitted had their verdict)")

    deployment.assert_nothing_lost_or_doubled(import_ids, {k for k in tampered if k < len(import_ids)}, timeout=60)

    # how long each killed import waited: from the kill to the start of its next job (on the retries queue, served first)
    jobs = [j for j in Job.fetch_many([f"import-{i}-{n}" for i in import_ids for n in range(1, 6)],
                                      connection=deployment.redis) if j is not None]
    one_job = max(j.ended_at.timestamp() - j.started_at.timestamp() for j in jobs
                  if j.get_status(refresh=False) == JobStatus.FINISHED and j.started_at and j.ended_at)
    recoveries = []
    for job_id, killed_at in kills:
        stem, attempt = job_id.rsplit("-", 1)
        later = [_started(j) for j in jobs if j.id.startswith(stem + "-") and int(j.id.rsplit("-", 1)[1]) > int(attempt)]
        taken_up = min((t for t in later if t is not None and t >= killed_at), default=None)
        assert taken_up is not None, f"{job_id} was never taken up again"
        recoveries.append(taken_up - killed_at)
        queued = min(j.enqueued_at.timestamp() for j in jobs if j.id.startswith(stem + "-") and j.enqueued_at
                     and int(j.id.rsplit("-", 1)[1]) > int(attempt))
        print(f"{job_id}: queued again after {queued - killed_at:.2f} s, taken up after {taken_up - killed_at:.2f} s")
    print(f"\nkill recovery over {len(recoveries)} kills: max {max(recoveries):.2f} s, median "
          f"{statistics.median(recoveries):.2f} s, one job at most {one_job:.2f} s (CRONACA_REQUEUE_AFTER={REQUEUE_AFTER})")
    assert max(recoveries) <= REQUEUE_AFTER + one_job, recoveries
    alive = [p for p in workers.values() if p.poll() is None]
    assert len(alive) == 4, "a worker died that was not killed"


def test_redis_down_for_a_minute_and_back_empty_loses_no_submission_and_no_worker(
        deployment: Deployment, own_redis: OwnRedis) -> None:
    """Redis stopped for 60 s while imports keep coming, then started empty: every import is processed after
    it returns, by the same worker processes (nothing restarted them: they reconnected by themselves)."""
    documents, tampered = deployment.documents(30)
    relay = deployment.spawn("relay")
    workers = [deployment.spawn("worker") for _ in range(2)]
    import_ids = [deployment.submit(d) for d in documents[:5]]
    deployment.verdicts(import_ids, timeout=30)  # the deployment works before the outage
    import_ids += [deployment.submit(d) for d in documents[5:8]]  # queued, maybe running, as Redis goes
    own_redis.stop()
    stopped = time.monotonic()
    for document in documents[8:]:  # saved while Redis is away (the outbox): the relay queues them later
        import_ids.append(deployment.submit(document))
        time.sleep(max(0.0, min(2.7, stopped + 60 - time.monotonic())))
    wait_until(lambda: time.monotonic() - stopped >= 60, 65, "the minute of outage")
    assert [p.poll() for p in [relay, *workers]] == [None] * 3, "a process ended during the outage"
    own_redis.start()  # empty: every queued job is gone with it

    deployment.assert_nothing_lost_or_doubled(import_ids, tampered, timeout=45)
    assert [p.poll() for p in [relay, *workers]] == [None] * 3, "a process ended"
    from rq import Worker

    wait_until(lambda: len(Worker.all(connection=deployment.redis)) == 2, 10, "both workers registered again")
    for k in range(len(workers)):  # the outage said in a few lines, not one per retry (tracebacks not counted)
        lines = (deployment.tmp / f"worker-{k + 1}.log").read_bytes().splitlines()
        said = [line for line in lines if line[:2] == b"20" and (b"Redis" in line or b"connect" in line)]
        assert len(said) <= 30, f"worker {k + 1} said the outage in {len(said)} lines"

