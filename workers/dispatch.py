"""Handing an import to whoever validates it: an RQ queue on Redis, or a thread in this process.

Both run the same job (`workers.jobs.validate_import`). Every hand-over is recorded on the
import (`Queued`) only after the queue accepted it, so the relay can find what is still
waiting.

On RQ, each job carries the request id it was queued under (`meta["request_id"]`, workers.context),
RQ's `Retry` for transient faults (the store or Redis unreachable or busy: `transient`), backing off
`RETRY_BACKOFF` seconds, and a failure callback (`retry_transient_only`) that takes the retries away
from any other failure, so nothing but a fault of the moment is run again (a rule verdict is no failure
at all: the job concludes the import). A job whose worker died is the relay's to queue again, as a new
attempt counted against CRONACA_MAX_ATTEMPTS (a file that kills its worker is not retried for ever):
`RQDispatcher.lost` sees it by its worker's stale heartbeat and hands it to RQ's own abandoned-job
handling (`StartedJobRegistry.cleanup`), which marks it failed. A worker killed in the moment between
taking a job off its queue (BLPOP) and marking it started leaves a job that says "queued" but is in no
queue: `lost` counts it lost once it has been missing for the heartbeat's `dead_after` (RQ alone would
never run it: its intermediate-queue cleanup covers only single-queue workers, after minutes).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol
from uuid import UUID

import redis
from eventsourcing.persistence import PersistenceError
from rq import Callback, Queue, Retry
from rq.exceptions import AbandonedJobError
from rq.intermediate_queue import IntermediateQueue
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry
from rq.timeouts import TimerDeathPenalty
from rq.utils import now, utcparse
from rq.worker import Worker

from domain.records import Conflict, Records
from domain.records.readmodels_analysis import AnalysisStatus
from domain.records.settings import DEFAULT_JOB_RETRIES, RETRY_BACKOFF, retries_queue_of
from workers import context
from workers.jobs import run_analysis, run_validation

if TYPE_CHECKING:
    from domain.records.settings import Settings

log = logging.getLogger("cronaca.dispatch")

JOB = "workers.jobs.validate_import"
BATCH_JOB = "workers.jobs.validate_imports"
ANALYSIS_JOB = "workers.jobs.analyse_record"
ANALYSIS_TIMEOUT = 1800  # seconds: an analysis takes about a minute at the default budget (docs/benchmarks.md)
ON_FAILURE = "workers.dispatch.retry_transient_only"
BATCH = 20  # imports a job takes when many are handed over at once: RQ's own cost (~6 ms a job) and the batch's two
# appends shared by them (20 against 10: ~0.25 ms a file less, ~3% more files/s, docs/benchmarks.md); an append then
# holds the event table's lock ~50 ms, not ~25: what a command arriving during a bulk import may wait


class Dispatcher(Protocol):
    def enqueue(self, import_id: UUID, attempt: int) -> str: ...

    def enqueue_analysis(self, analysis_id: UUID, job_id: str) -> None:
        """Hand a record's analysis (domain/records/analyses.py) to the job its stream names (it is given its id:
        only the job an analysis names writes to it)."""

    def lost(self, job_id: str) -> bool:
        """True when the queue no longer holds this job and will never run it (Redis restarted
        empty, the job failed, its worker died, this process restarted...)."""


def transient(exc: BaseException | None) -> bool:
    """A fault of the moment, worth the same job again later: the store or Redis unreachable, busy or cut."""

    return isinstance(exc, (PersistenceError, redis.RedisError, ConnectionError, TimeoutError, Conflict))


def retry_transient_only(job: Any, connection: Any, exc_type: Any, exc: Any, traceback: Any) -> None:
    """RQ failure callback, run before RQ decides on a retry: only a transient fault keeps the job's retries.
    A job abandoned by its dead worker keeps them unless it is an import (`meta["outbox"]`): the relay queues
    those again itself, counting the attempt."""
    abandoned = isinstance(exc_type, type) and issubclass(exc_type, AbandonedJobError)
    if abandoned:
        if isinstance(job.meta, dict) and job.meta.get("outbox"):
            job.retries_left = 0
        return
    if not transient(exc):
        job.retries_left = 0


def retry_options(retries: int) -> dict[str, Any]:
    """RQ's enqueue options for `retries` retries with backoff, and the failure callback that keeps them for transient faults."""
    options: dict[str, Any] = {"on_failure": Callback(ON_FAILURE)}
    if retries > 0:
        options["retry"] = Retry(max=retries, interval=[RETRY_BACKOFF[min(k, len(RETRY_BACKOFF) - 1)]
                                                       for k in range(retries)])
    return options


def job_meta(**extra: Any) -> dict[str, Any]:
    """What each job carries besides its arguments: the request id it was queued under."""
    return {"request_id": context.current(), **extra}


def worker_alive(connection: Any, worker_name: str | None, dead_after: float) -> bool:
    """RQ's worker key says this worker beat less than `dead_after` seconds ago (`last_heartbeat`; the
    hosts' clocks are assumed in step, as RQ's own registries assume). Without a name: cannot tell, alive."""
    if not worker_name:
        return True
    return _beat_recent(connection.hget(Worker.redis_worker_namespace_prefix + worker_name, "last_heartbeat"), dead_after)


def _beat_recent(raw: Any, dead_after: float) -> bool:
    if raw is None:
        return False
    last = utcparse(raw.decode() if isinstance(raw, bytes) else str(raw))
    return (now() - last).total_seconds() < dead_after


class RQDispatcher:
    """Jobs on an RQ queue; a short socket timeout, so a dead Redis fails fast instead of hanging."""

    def __init__(self, redis_url: str, queue: str, job_timeout: int = 600, job: str = JOB, batch_job: str = BATCH_JOB,
                 dead_after: float = 15.0, retries: int = DEFAULT_JOB_RETRIES, retries_queue: str | None = None,
                 analyses_queue: str = "cronaca-analyses") -> None:
        self.connection = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=2)
        self.queue = Queue(queue, connection=self.connection)
        self.analyses = Queue(analyses_queue, connection=self.connection)
        self.analysis_job = ANALYSIS_JOB  # as `job`: a test may put a wrapper of its own here
        self.again = Queue(retries_queue or retries_queue_of(queue), connection=self.connection)  # attempts after the first
        self.job_timeout = job_timeout
        self.job = job  # the dotted name a worker imports and runs; tests may put a wrapper of theirs here
        self.batch_job = batch_job
        self.dead_after = dead_after
        self.retries = retries
        self._missing: dict[str, float] = {}  # queued job -> when it was first found in no queue (monotonic)

    @classmethod
    def from_settings(cls, settings: Settings) -> RQDispatcher:
        assert settings.redis_url
        return cls(settings.redis_url, settings.queue, dead_after=settings.dead_after, retries=settings.job_retries,
                   retries_queue=settings.retries_queue, analyses_queue=settings.analyses_queue)

    def _options(self) -> dict[str, Any]:
        return {"result_ttl": 3600, "failure_ttl": 86400, "meta": job_meta(outbox=True), **retry_options(self.retries)}

    def _queue_for(self, attempt: int) -> Any:
        """A job queued again goes to the retries queue, which workers serve first: its import has waited once
        already (a killed worker's, say). A queue of its own, not the front of the imports' (RQ's `at_front`
        pushes each before the last, so of two imports queued again the later went first)."""
        return self.again if attempt > 1 else self.queue

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        job_id = f"import-{import_id}-{attempt}"
        self._queue_for(attempt).enqueue(self.job, str(import_id), job_id=job_id, job_timeout=self.job_timeout,
                                         **self._options())
        return job_id

    def enqueue_many(self, import_ids: Sequence[UUID], attempt: int) -> str:
        """One job for several imports (workers.jobs.validate_imports); its time limit grows with them."""
        job_id = f"imports-{import_ids[0]}-{len(import_ids)}-{attempt}"
        self._queue_for(attempt).enqueue(self.batch_job, [str(i) for i in import_ids], job_id=job_id,
                                         job_timeout=self.job_timeout * len(import_ids), **self._options())
        return job_id

    def enqueue_analysis(self, analysis_id: UUID, job_id: str) -> None:
        """No RQ retries: an analysis whose job is lost is queued again by whoever next asks after it
        (workers.dispatch.analysis_status), and goes on from what the lost job stored."""
        self.analyses.enqueue(self.analysis_job, str(analysis_id), job_id, job_id=job_id, job_timeout=ANALYSIS_TIMEOUT,
                              result_ttl=3600, failure_ttl=86400, meta=job_meta())

    def lost(self, job_id: str) -> bool:
        return self.lost_many([job_id])[job_id]

    def lost_many(self, job_ids: Sequence[str]) -> dict[str, bool]:
        """`lost` for many jobs in a few round trips (the relay asks about every waiting import on each pass):
        their statuses and workers at once, their workers' heartbeats at once; only started jobs whose worker is
        dead cost more: RQ's own abandoned-job handling (`StartedJobRegistry.cleanup`, from the relay's thread
        so with a timer, not SIGALRM) marks them failed, their entries having expired with the heartbeats. Jobs
        that say "queued" cost one read of their queues (`_taken_and_dropped`)."""
        def read(ids: Sequence[str]) -> list[list[str | None]]:
            with self.connection.pipeline(transaction=False) as pipe:
                for job_id in ids:
                    pipe.hmget(Job.key_for(job_id), "status", "worker_name", "origin")
                rows = pipe.execute()
            return [[v.decode() if isinstance(v, bytes) else v for v in row] for row in rows]

        ids = list(dict.fromkeys(job_ids))
        rows = dict(zip(ids, read(ids), strict=True))
        started = {job_id: row for job_id, row in rows.items() if row[0] == JobStatus.STARTED}
        names = sorted({row[1] for row in started.values() if row[1]})
        with self.connection.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hget(Worker.redis_worker_namespace_prefix + name, "last_heartbeat")
            beats = dict(zip(names, pipe.execute(), strict=True)) if names else {}
        dead = [job_id for job_id, row in started.items() if row[1] and not _beat_recent(beats.get(row[1]), self.dead_after)]
        if dead:
            for origin in {started[job_id][2] or self.queue.name for job_id in dead}:
                StartedJobRegistry(origin, connection=self.connection, death_penalty_class=TimerDeathPenalty).cleanup()
            for job_id, row in zip(dead, read(dead), strict=True):
                if row[0] == JobStatus.STARTED:  # its entry outlives the worker by a second or so: lost all the same
                    log.warning("job %s: its worker %s is dead; queued again", job_id, row[1])
                rows[job_id] = [JobStatus.FAILED if row[0] == JobStatus.STARTED else row[0], *row[1:]]
        ended = (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED, JobStatus.FINISHED)
        found = {job_id: rows[job_id][0] is None or rows[job_id][0] in ended for job_id in ids}
        for job_id in self._taken_and_dropped({job_id: row for job_id, row in rows.items() if row[0] == JobStatus.QUEUED}):
            found[job_id] = True
        return found

    def _taken_and_dropped(self, queued: dict[str, list[str | None]]) -> list[str]:
        """Jobs that say "queued" but have been in no queue for `dead_after` seconds: a worker took them off
        (BLPOP, or RQ's move to its intermediate list) and died before marking them started. A live worker
        marks a job started within milliseconds of taking it, so the wait tells the two apart."""
        if not queued:
            return []
        origins = sorted({row[2] or self.queue.name for row in queued.values()})
        with self.connection.pipeline(transaction=False) as pipe:
            for origin in origins:
                key = Queue(origin, connection=self.connection).key
                pipe.lrange(key, 0, -1)
                pipe.lrange(IntermediateQueue.get_intermediate_queue_key(key), 0, -1)
            waiting = {v.decode() if isinstance(v, bytes) else v for ids in pipe.execute() for v in ids}
        now = time.monotonic()
        dropped = []
        for job_id in queued:
            if job_id in waiting:
                self._missing.pop(job_id, None)
                continue
            first = self._missing.setdefault(job_id, now)
            if now - first >= self.dead_after:
                log.warning("job %s: taken off its queue by a worker that died before starting it", job_id)
                dropped.append(job_id)
        for job_id in [j for j, t in self._missing.items() if now - t > 3600]:  # bounded: long-gone jobs forgotten
            del self._missing[job_id]
        return dropped


class InProcessDispatcher:
    """No Redis: the same job code on a small thread pool of this process."""

    def __init__(self, records: Records, threads: int = 2) -> None:
        self.records = records
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="cronaca-job")
        self.futures: dict[str, Future[None]] = {}

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        job_id = f"inprocess-{import_id}-{attempt}"
        self.futures[job_id] = self.pool.submit(_logged, run_validation, self.records, import_id)
        return job_id

    def enqueue_analysis(self, analysis_id: UUID, job_id: str) -> None:
        self.futures[job_id] = self.pool.submit(_logged, run_analysis, self.records, analysis_id, job_id)

    def lost(self, job_id: str) -> bool:
        future = self.futures.get(job_id)
        return future is None or future.done()


def _logged(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # a job must never take the pool down; the relay retries it later
        log.exception("in-process job failed")


_refusals = {"said": 0.0, "since": 0}
SAY_EVERY = 30.0  # seconds: while the queue is down, the relay retries every pass but says so this often


def say_refused(what: str) -> None:
    """A refused hand-over, logged at most every SAY_EVERY seconds with how many went unsaid (bounded noise)."""
    now = time.monotonic()
    if now - _refusals["said"] < SAY_EVERY:
        _refusals["since"] += 1
        return
    more = f" ({_refusals['since']} more since the last such line)" if _refusals["since"] else ""
    log.warning("%s%s", what, more)
    _refusals.update(said=now, since=0)


def hand_over_many(records: Records, dispatcher: Dispatcher, import_ids: Sequence[UUID], attempt: int,
                   batch: int = BATCH) -> int:
    """Queue many imports at once (a bulk upload, the benchmark), `batch` of them a job when the dispatcher
    takes batches (RQ), else one by one. Each import is still marked queued with its own job's id, gets its
    own status, report and record, and is found by the relay like any other if its job is lost.
    Returns how many were queued (it stops at the first refusal: the queue is down, the relay goes on)."""
    many = getattr(dispatcher, "enqueue_many", None)
    if many is None or batch <= 1:
        return next((k for k, i in enumerate(import_ids) if not hand_over(records, dispatcher, i, attempt)), len(import_ids))
    queued = 0
    for start in range(0, len(import_ids), batch):
        chunk = list(import_ids[start:start + batch])
        try:
            job_id = many(chunk, attempt)
        except Exception as exc:  # noqa: BLE001  (redis.ConnectionError, TimeoutError...: the relay will try again)
            say_refused(f"could not queue {len(chunk)} imports from {chunk[0]}: {exc}")
            return queued
        records.imports.mark_queued_many(chunk, job_id)  # one append for the batch
        queued += len(chunk)
    return queued


def hand_over(records: Records, dispatcher: Dispatcher, import_id: UUID, attempt: int) -> bool:
    """Queue one import and record that it was queued; False (and nothing recorded) if the queue is down."""
    try:
        job_id = dispatcher.enqueue(import_id, attempt)
    except Exception as exc:  # noqa: BLE001  (redis.ConnectionError, TimeoutError...: the relay will try again)
        say_refused(f"could not queue import {import_id}: {exc}")
        return False
    records.imports.mark_queued(import_id, job_id)
    return True




def hand_over_analysis(dispatcher: Dispatcher, analysis_id: UUID, job_id: str) -> None:
    """Queue a record's analysis as the job its stream names; if the queue is down, that job is lost, and the next
    ask after the analysis (`analysis_status`) names and queues another."""
    try:
        dispatcher.enqueue_analysis(analysis_id, job_id)
    except Exception as exc:  # noqa: BLE001  (redis.ConnectionError, TimeoutError...: asked again later)
        say_refused(f"could not queue analysis {analysis_id}: {exc}")


def ask_analysis(records: Records, dispatcher: Dispatcher, record_id: UUID, token: str | None) -> AnalysisStatus:
    """`POST /api/records/{id}/analysis`: the record's analysis asked for, queued once (two askers: one job);
    one already asked for answers its status (and is queued again if its job was lost, or it failed)."""
    found, fresh = records.analyses.request(record_id, token)
    job = found.job if fresh else records.analyses.again(found, dispatcher.lost, asked=True)
    if job is None:  # done, queued or running already (or another asker queued it a moment ago): as it stands
        return records.analyses.get(record_id, token).status_of()
    queued = found.status_of() if fresh else records.analyses.get(record_id, token).status_of()
    hand_over_analysis(dispatcher, found.id, job)
    return queued  # as it was queued (an in-process job may be done by now: the GET says so)


def analysis_status(records: Records, dispatcher: Dispatcher, record_id: UUID, token: str | None) -> AnalysisStatus:
    """`GET /api/records/{id}/analysis`: its status as stored; an analysis whose job was lost (its worker died, the
    queue restarted empty) is queued again here, and its new job goes on from the rows the lost one stored."""
    found = records.analyses.get(record_id, token)
    try:
        job = records.analyses.again(found, dispatcher.lost)
    except Exception as exc:  # noqa: BLE001  (the queue is down: the status as stored, asked again next time)
        say_refused(f"cannot ask the queue about analysis {found.id}: {exc}")
        return found.status_of()
    if job is not None:
        hand_over_analysis(dispatcher, found.id, job)
        return records.analyses.get(record_id, token).status_of()
    return found.status_of()
