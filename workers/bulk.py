"""Bulk work over stored records, on the checks and renders queues (or here, without Redis).

- checks (`CRONACA_CHECKS_QUEUE`): each record's hash chain recomputed from its stored rows and its log
  re-decided by the rules (`Records.verification.verify`), the records that fail named with their first problems.
  An operator runs it after a restore, a migration or a suspicion: `cronaca recheck --all`.
- renders (`CRONACA_RENDERS_QUEUE`): each finished record written as files an archive or a static site
  serves: `<id>.txt` (its notation) and `<id>.evidence.zip` (the evidence bundle `cronaca verify` checks).
  `cronaca render --all --out DIR`; DIR must be one the workers reach (the same host, or shared storage).
  A file is written whole or not at all (a temporary name, then renamed), so a killed job leaves no torn file,
  and writing the same record again gives the same bytes.

A job takes a batch of records (one RQ job per record would cost more in RQ than in work). Only a transient
fault (the store unreachable or busy) fails a job, so only that is retried (workers.dispatch.retry_options);
a record that does not verify is a finding in the job's result, not a failure.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import redis
from rq import Queue
from rq.job import Job, JobStatus

from domain.records import Conflict, Forbidden, NotFound, Records, evidence
from domain.records.settings import Settings
from workers.dispatch import job_meta, retry_options
from workers.jobs import records

log = logging.getLogger("cronaca.bulk")

CHECK_JOB = "workers.bulk.check_records"
RENDER_JOB = "workers.bulk.render_records"
CHECK_BATCH = 50
RENDER_BATCH = 20
JOB_TIMEOUT = 1800  # seconds one batch may take


# ---- the work itself (a worker's job, or `cronaca` without Redis) -------------------------------------------


def run_checks(app: Records, record_ids: Iterable[str]) -> dict[str, Any]:
    """{"checked", "ok", "failed": {id: [what, ...]}, "missing": [id, ...]}: every record verified from its stored rows."""
    checked, ok, failed, missing = 0, 0, {}, []
    for record_id in record_ids:  # a fresh worker knows no title yet: reading the rows loads it (timeline.stored_event)
        try:
            found = app.verification.verify(UUID(str(record_id)))
        except NotFound:
            missing.append(str(record_id))
            continue
        checked += 1
        if found.ok:
            ok += 1
            continue
        problems = found.problems
        failed[str(record_id)] = problems[:5]
        log.warning("record %s does not verify: %s", record_id, "; ".join(problems[:3]))
    return {"checked": checked, "ok": ok, "failed": failed, "missing": missing}


def _write_whole(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all: a temporary file beside it, then an atomic rename."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def run_renders(app: Records, record_ids: Iterable[str], out: str | Path) -> dict[str, Any]:
    """{"written": [id, ...], "skipped": {id: why}}: each finished record's notation and evidence bundle in `out`."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    skipped: dict[str, str] = {}
    for raw_id in record_ids:
        record_id = UUID(str(raw_id))
        try:
            notation = app.reading.notation(record_id)
            bundle = evidence.build(app.verification.evidence_parts(record_id))
        except NotFound:
            skipped[str(record_id)] = "no such record"
            continue
        except Forbidden:
            skipped[str(record_id)] = "in progress: its files are written once the game is over"
            continue
        except Conflict as exc:  # the edition file here is not the record's: said, never retried
            skipped[str(record_id)] = exc.message
            continue
        _write_whole(folder / f"{record_id}.txt", notation.encode())
        _write_whole(folder / f"{record_id}.evidence.zip", bundle)
        written.append(str(record_id))
    return {"written": written, "skipped": skipped}


def check_records(record_ids: list[str]) -> dict[str, Any]:
    """RQ entry point (workers.bulk.check_records)."""
    return run_checks(records(), record_ids)


def render_records(record_ids: list[str], out: str) -> dict[str, Any]:
    """RQ entry point (workers.bulk.render_records)."""
    return run_renders(records(), record_ids, out)


# ---- handing the work to the queues -------------------------------------------------------------------------


def batches(items: Sequence[str], size: int) -> list[list[str]]:
    return [list(items[k:k + size]) for k in range(0, len(items), size)]


def enqueue(settings: Settings, queue_name: str, func: str, chunks: list[list[str]], *args: Any) -> list[str]:
    """One job per chunk on `queue_name`, each with the request id and the retry policy; the job ids."""
    assert settings.redis_url
    connection = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=5)
    queue = Queue(queue_name, connection=connection)
    run = uuid.uuid4().hex[:10]
    ids = []
    for k, chunk in enumerate(chunks):
        job = queue.enqueue(func, chunk, *args, job_id=f"{func.rsplit('.', 1)[-1]}-{run}-{k}", job_timeout=JOB_TIMEOUT,
                            result_ttl=86400, failure_ttl=86400, meta=job_meta(), **retry_options(settings.job_retries))
        ids.append(job.id)
    return ids


def wait_for(settings: Settings, job_ids: Sequence[str], timeout: float) -> tuple[list[dict[str, Any]], list[str]]:
    """The results of these jobs once all ended (or `timeout` seconds passed): (results, ids failed or unfinished)."""
    assert settings.redis_url
    connection = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=5)
    deadline = time.monotonic() + timeout
    pending = list(job_ids)
    results: list[dict[str, Any]] = []
    failed: list[str] = []
    while pending and time.monotonic() < deadline:
        still = []
        for job in Job.fetch_many(pending, connection=connection):
            if job is None:
                continue
            status = job.get_status(refresh=False)
            if status == JobStatus.FINISHED:
                results.append(job.return_value() or {})
            elif status in (JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED):
                failed.append(job.id)
            else:
                still.append(job.id)
        pending = still
        if pending:
            time.sleep(0.2)
    return results, failed + pending


def merged(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Several batches' results as one (the keys of run_checks or run_renders, summed or joined)."""
    out: dict[str, Any] = {}
    for result in results:
        for key, value in result.items():
            if isinstance(value, int):
                out[key] = out.get(key, 0) + value
            elif isinstance(value, list):
                out.setdefault(key, []).extend(value)
            elif isinstance(value, dict):
                out.setdefault(key, {}).update(value)
    return out
