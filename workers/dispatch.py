"""Handing an import to whoever validates it: an RQ queue on Redis, or a thread in this process.

Both run the same job (`workers.jobs.validate_import`). Every hand-over is recorded on the
import (`Queued`) only after the queue accepted it, so the relay can find what is still
waiting.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol
from uuid import UUID

from domain.records import Records

log = logging.getLogger("cronaca.dispatch")

JOB = "workers.jobs.validate_import"
BATCH_JOB = "workers.jobs.validate_imports"
BATCH = 10  # imports a job takes when many are handed over at once: RQ's own cost (~6 ms a job) shared by them


class Dispatcher(Protocol):
    def enqueue(self, import_id: UUID, attempt: int) -> str: ...

    def lost(self, job_id: str) -> bool:
        """True when the queue no longer holds this job and will never run it (Redis restarted
        empty, the job failed, this process restarted...)."""


class RQDispatcher:
    """Jobs on an RQ queue; a short socket timeout, so a dead Redis fails fast instead of hanging."""

    def __init__(self, redis_url: str, queue: str, job_timeout: int = 600, job: str = JOB, batch_job: str = BATCH_JOB) -> None:
        import redis
        from rq import Queue

        self.connection = redis.Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=2)
        self.queue = Queue(queue, connection=self.connection)
        self.job_timeout = job_timeout
        self.job = job  # the dotted name a worker imports and runs; tests may put a wrapper of theirs here
        self.batch_job = batch_job

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        job_id = f"import-{import_id}-{attempt}"
        self.queue.enqueue(self.job, str(import_id), job_id=job_id, job_timeout=self.job_timeout, result_ttl=3600,
                           failure_ttl=86400)
        return job_id

    def enqueue_many(self, import_ids: Sequence[UUID], attempt: int) -> str:
        """One job for several imports (workers.jobs.validate_imports); its time limit grows with them."""
        job_id = f"imports-{import_ids[0]}-{len(import_ids)}-{attempt}"
        self.queue.enqueue(self.batch_job, [str(i) for i in import_ids], job_id=job_id,
                           job_timeout=self.job_timeout * len(import_ids), result_ttl=3600, failure_ttl=86400)
        return job_id

    def lost(self, job_id: str) -> bool:
        from rq.exceptions import NoSuchJobError
        from rq.job import Job, JobStatus

        try:
            status = Job.fetch(job_id, connection=self.connection).get_status(refresh=False)
        except NoSuchJobError:
            return True
        return status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED, JobStatus.FINISHED)


class InProcessDispatcher:
    """No Redis: the same job code on a small thread pool of this process."""

    def __init__(self, records: Records, threads: int = 2) -> None:
        self.records = records
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="cronaca-job")
        self.futures: dict[str, Future[None]] = {}

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        from workers.jobs import run_validation

        job_id = f"inprocess-{import_id}-{attempt}"
        self.futures[job_id] = self.pool.submit(_logged, run_validation, self.records, import_id)
        return job_id

    def lost(self, job_id: str) -> bool:
        future = self.futures.get(job_id)
        return future is None or future.done()


def _logged(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # a job must never take the pool down; the relay retries it later
        log.exception("in-process job failed")


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
        except Exception as exc:  # redis.ConnectionError, TimeoutError...: the relay will try again
            log.warning("could not queue %d imports from %s: %s", len(chunk), chunk[0], exc)
            return queued
        for import_id in chunk:
            records.mark_queued(import_id, job_id)
        queued += len(chunk)
    return queued


def hand_over(records: Records, dispatcher: Dispatcher, import_id: UUID, attempt: int) -> bool:
    """Queue one import and record that it was queued; False (and nothing recorded) if the queue is down."""
    try:
        job_id = dispatcher.enqueue(import_id, attempt)
    except Exception as exc:  # redis.ConnectionError, TimeoutError...: the relay will try again
        log.warning("could not queue import %s: %s", import_id, exc)
        return False
    records.mark_queued(import_id, job_id)
    return True


