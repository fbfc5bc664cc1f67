"""`cronaca worker`: an RQ worker that beats while it works, and outlives a Redis outage.

Why a subclass of RQ's `SimpleWorker` (the job runs in the worker's own process: the rules, the
grammar and the store's connections stay loaded from one job to the next, which forking per job
would throw away) with three additions:

- A heartbeat thread. A SimpleWorker sends no heartbeat while a job runs, and RQ gives the job's
  entry in the started registry its whole time limit plus a minute: a worker killed mid-job left
  its job "started" for 11 minutes. Here the worker beats every `Settings.heartbeat` seconds,
  busy or idle (RQ's own `maintain_heartbeats`: the worker key's `last_heartbeat`, the execution,
  the registry entry), and its registry entries live only `Settings.dead_after` seconds past the
  last beat. So a dead worker is seen by its stale `last_heartbeat` (workers.dispatch.worker_alive),
  and its jobs are handed back by RQ's own abandoned-job handling (`StartedJobRegistry.cleanup`,
  run by the relay and by every worker's maintenance, itself every `dead_after` seconds).
- RQ's scheduler, run in that thread: a job retried after a transient fault waits its backoff in
  RQ's scheduled registry, and something must move it back to its queue. RQ's `with_scheduler`
  forks a process that a SIGKILL of the worker would orphan; here the thread takes RQ's scheduler
  lock, enqueues what is due, and lets the lock go, on each beat.
- Reconnecting. RQ's worker retries a lost connection only while it waits for a job; anywhere else
  it logs "unhandled exception, quitting" and ends. `run` starts a new worker (a new name: the old
  one's jobs are judged by its heartbeat like a dead worker's) once Redis answers again, waiting a
  doubling delay up to `MAX_WAIT` seconds, logging once when Redis goes and once when it is back.

Each job runs with the request id it was queued under (workers.context) and is timed into
`cronaca_job_seconds{queue}` (workers.metrics).
"""

from __future__ import annotations

import logging
import math
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

import redis
from rq import Queue, SimpleWorker, worker_registration
from rq.job import Job
from rq.registry import ScheduledJobRegistry
from rq.scheduler import RQScheduler
from rq.utils import current_timestamp
from rq.worker.base import WorkerStatus

from domain.records.settings import Settings
from workers import context, metrics
from workers.jobs import warm_up

log = logging.getLogger("cronaca.worker")

MAX_WAIT = 5.0  # seconds: the longest wait between two tries to reach Redis again


class CronacaWorker(SimpleWorker):
    """A SimpleWorker with a heartbeat thread, short-lived started-registry entries and RQ's scheduler in a thread."""

    beat: float = 1.0
    dead_after: float = 3.0

    def __init__(self, *args: Any, beat: float = 1.0, dead_after: float = 3.0, **kwargs: Any) -> None:
        ttl = max(1, math.ceil(dead_after))
        # worker_ttl - 15 is RQ's wait for a job between two passes of its loop (maintenance, stop requests)
        kwargs.setdefault("worker_ttl", 15 + ttl)
        kwargs.setdefault("job_monitoring_interval", max(1, math.ceil(beat)))
        # RQ's registry maintenance (abandoned jobs of the checks and renders queues among them; the relay sees to
        # the imports' at once): every minute, not RQ's ten
        kwargs.setdefault("maintenance_interval", max(60, ttl))
        super().__init__(*args, **kwargs)
        self.beat, self.dead_after = beat, dead_after
        self.max_connection_wait_time = MAX_WAIT
        self._running: tuple[Job, Any] | None = None  # (job, execution) while one runs
        self._beat_lock = threading.Lock()
        self._stop_beating = threading.Event()
        self._scheduler: RQScheduler | None = None
        self._beating: threading.Thread | None = None
        self._pubsub_failing = False

    # ---- heartbeats ---------------------------------------------------------------------------

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        """How long the job's started-registry entry outlives the last beat: a dead worker's job is abandoned soon."""
        return max(1, math.ceil(self.dead_after))

    def execute_job(self, job: Job, queue: Queue) -> None:
        """SimpleWorker's, with the job's request id set, the beats covering the job, and its time measured."""
        execution = self.prepare_execution(job)
        token = context.request_id.set(job.meta.get("request_id") if isinstance(job.meta, dict) else None)
        with self._beat_lock:
            self._running = (job, execution)
        started = time.perf_counter()
        try:
            self.perform_job(job, queue, execution)
        finally:
            with self._beat_lock:
                self._running = None
            context.request_id.reset(token)
            metrics.observe_job(queue.name, time.perf_counter() - started)
        self.set_state(WorkerStatus.IDLE)

    def handle_execution_ended(self, job: Job, queue: Queue, heartbeat_ttl: int) -> None:
        """The job is over: no beat may touch its execution any more (it is being removed)."""
        with self._beat_lock:
            self._running = None
        super().handle_execution_ended(job, queue, heartbeat_ttl)

    def register_birth(self) -> None:
        """RQ's, then the beats start (a beat before would find no worker to beat for)."""
        super().register_birth()
        if self._beating is None:
            self._beating = threading.Thread(target=self._beat_loop, name="cronaca-heartbeat", daemon=True)
            self._beating.start()

    def stop_beating(self) -> None:
        """The beats, and RQ's pubsub thread (its teardown skips it when Redis is gone: it would log for ever)."""
        self._stop_beating.set()
        thread = getattr(self, "pubsub_thread", None)
        if thread is not None:
            try:
                thread.stop()
                thread.join(timeout=1)
                if self.pubsub is not None:
                    self.pubsub.close()
            except Exception as exc:  # noqa: BLE001  (Redis is away: nothing more to close)
                log.debug("worker %s: closing pubsub: %s", self.name, exc)
            self.pubsub_thread = None

    def _pubsub_exception_handler(self, exc: Exception, pubsub: Any, pubsub_thread: Any) -> None:
        """RQ's, saying a lost connection once instead of every 2 s while Redis is away."""
        if isinstance(exc, redis.exceptions.ConnectionError):
            if not self._pubsub_failing:
                log.warning("worker %s: pubsub lost Redis (%s); retrying every 2 s", self.name, exc)
            self._pubsub_failing = True
            time.sleep(2.0)
            return
        super()._pubsub_exception_handler(exc, pubsub, pubsub_thread)

    def _beat_loop(self) -> None:
        failing = False
        while not self._stop_beating.wait(self.beat):
            try:
                self.beat_once()
                self.schedule_due()
                self._pubsub_failing = False
                if failing:
                    log.info("worker %s: heartbeats reach Redis again", self.name)
                failing = False
            except redis.RedisError as exc:
                if not failing:
                    log.warning("worker %s: heartbeat failed (%s); retrying every %.1f s", self.name, exc, self.beat)
                failing = True
            except Exception:  # the beat must outlive anything; said once
                if not failing:
                    log.exception("worker %s: heartbeat failed", self.name)
                failing = True

    def beat_once(self) -> None:
        """One heartbeat: the worker's, and the running job's execution and registry entry (RQ's own calls)."""
        with self._beat_lock:
            running = self._running
            if running is not None:
                self.maintain_heartbeats(*running)
            else:
                self.heartbeat()
        if self.birth_date is not None and not self.connection.hexists(self.key, "birth"):
            # Redis came back empty: say who we are again
            with self.connection.pipeline() as pipeline:
                pipeline.hset(self.key, mapping=self.serialize())
                worker_registration.register(self, pipeline)
                pipeline.expire(self.key, self.worker_ttl + 60)
                pipeline.execute()

    def schedule_due(self) -> None:
        """RQ's scheduler for one pass: jobs whose retry delay is over go back to their queue (one worker at a time)."""
        due = current_timestamp()
        if not any(ScheduledJobRegistry(name, connection=self.connection).get_jobs_to_schedule(due, chunk_size=1)
                   for name in self.queue_names()):
            return  # nothing waiting out a backoff: no lock taken
        if self._scheduler is None:
            self._scheduler = RQScheduler(self.queue_names(), connection=self.connection, name=f"{self.name}-scheduler")
            logging.getLogger("rq.scheduler").setLevel(logging.WARNING)  # its lock is taken and let go each pass
        if not self._scheduler.acquire_locks():
            return
        try:
            self._scheduler.enqueue_scheduled_jobs()
        finally:
            self._scheduler.release_locks()


def resolve_queues(settings: Settings, given: str | None) -> list[str]:
    """Queue names from `--queues`: roles (retries, imports, checks, renders, analyses) or names; default all five in that
    order (`Settings.queues`). The imports queue (by role or name) brings its retries queue with it, first,
    unless that is named too."""
    roles = settings.queues
    if not given:
        return list(roles.values())
    names = [part.strip() for part in given.split(",") if part.strip()]
    if not names:
        raise ValueError("--queues names no queue")
    out: list[str] = []
    named = {roles.get(name, name) for name in names}
    for name in names:
        queue = roles.get(name, name)
        if queue == roles["imports"] and roles["retries"] not in named | set(out):  # by role or by name
            out.append(roles["retries"])
        out.append(queue)
    return out


class _Stop:
    """SIGTERM/SIGINT while no RQ worker is running (between two of them): stop waiting and end."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._set)
        signal.signal(signal.SIGINT, self._set)

    def _set(self, signum: int, frame: Any) -> None:
        self.event.set()


def run(settings: Settings, queue_names: Sequence[str], burst: bool = False, name: str | None = None,
        max_rounds: int | None = None) -> int:
    """Serve these queues until asked to stop (SIGTERM, SIGINT), starting a new RQ worker whenever one ends
    because Redis went away. `max_rounds` bounds the restarts (tests); None: for ever. Returns the exit code."""
    assert settings.redis_url

    try:
        warm_up()
    except Exception as exc:  # noqa: BLE001  (the store may be down at start: the jobs will say so, and retry)
        log.warning("warm-up failed: %s", exc)
    stop = _Stop()
    wait, rounds, down_since = 0.5, 0, None
    while not stop.event.is_set() and (max_rounds is None or rounds < max_rounds):
        rounds += 1
        connection = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=2, health_check_interval=10)
        try:
            connection.ping()
        except redis.RedisError as exc:
            if down_since is None:
                down_since = time.monotonic()
                log.warning("Redis unreachable (%s); trying again every %.1f s at most", exc, MAX_WAIT)
            stop.install()
            stop.event.wait(wait)
            wait = min(MAX_WAIT, wait * 2)
            continue
        if down_since is not None:
            log.info("Redis reachable again after %.0f s", time.monotonic() - down_since)
            wait = 0.5
        down_since = None
        worker = CronacaWorker([Queue(q, connection=connection) for q in queue_names], connection=connection,
                               beat=settings.heartbeat, dead_after=settings.dead_after,
                               name=f"{name}-{rounds}" if name else None)
        try:
            worker.work(burst=burst, with_scheduler=False)
        except redis.RedisError as exc:  # while starting or ending: the loop below decides
            log.warning("worker %s: Redis went away (%s)", worker.name, exc)
        finally:
            worker.stop_beating()
        if burst or worker._stop_requested or worker._shutdown_requested_date is not None:  # noqa: SLF001  (RQ has no public flag)
            return 0
        stop.install()  # RQ's handlers point at the worker just ended
        log.warning("worker %s ended; a new one starts in %.1f s", worker.name, wait)
        stop.event.wait(wait)  # a worker that keeps ending is restarted at a bounded pace
        wait = min(MAX_WAIT, wait * 2)
    return 0
