"""The outbox relay: queue every import that is saved but not queued, and re-queue stuck ones.

An import is saved before anything is queued. The API tries to queue it at once; when
Redis is down that fails, and the relay keeps trying until it succeeds. An import is
queued again, too, when the queue has lost its job: Redis restarted without its data, the
job failed, or its worker died mid-job, which the dispatcher tells by the worker's stale
heartbeat within CRONACA_REQUEUE_AFTER (workers.dispatch.RQDispatcher.lost); the new job goes
to the retries queue, which workers serve before new uploads, first queued first served. A job still running after its time limit plus `requeue_after` is
taken as lost whatever the queue says. The job is idempotent, so queuing twice is harmless.

Every import ends in a verdict: one queued `max_attempts` times without one (its job keeps
failing, or keeps killing its worker) is concluded as rejected, rule `import/attempts`,
instead of being queued again for ever. It is queued no more after that, and concluded once
the queue says its last job ended (a slow but healthy job still gets to give its verdict).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, PersistenceError

from domain.records import Records
from domain.records.aggregates import QUEUED, SUBMITTED, VALIDATING
from domain.records.errors import first_line
from domain.records.settings import max_attempts as configured_attempts
from workers.dispatch import Dispatcher, hand_over, hand_over_many, say_refused

log = logging.getLogger("cronaca.relay")


def relay_once(records: Records, dispatcher: Dispatcher, requeue_after: float, grace: float = 1.0,
               max_attempts: int | None = None) -> int:
    """One pass; returns how many imports were handed over. `max_attempts` defaults to CRONACA_MAX_ATTEMPTS."""
    cap = configured_attempts(records.env) if max_attempts is None else max_attempts
    records.directory.catch_up()
    now = time.time()
    handed = 0
    summaries = list(records.directory.imports.values())
    judged: dict[str, bool] = {}
    many = getattr(dispatcher, "lost_many", None)
    if many is not None:  # one question for all the imports waiting on a job (a pass over hundreds stays short)
        asked = [s.job_id for s in summaries if s.job_id and s.status in (QUEUED, VALIDATING) and now - s.touched >= grace]
        try:
            judged = many(asked) if asked else {}
        except Exception as exc:  # noqa: BLE001  (the queue is down: nothing to learn this pass)
            say_refused(f"cannot ask the queue about {len(asked)} jobs: {exc}")
            return 0

    def lost(job_id: str | None) -> bool:
        return job_id is None or (judged[job_id] if job_id in judged else dispatcher.lost(job_id))

    # Imports never queued (saved while Redis was down, or by an API process that could not queue them) go
    # BATCH a job, as `cronaca import` queues them; one queued again goes alone, so that a file that kills
    # its worker takes no other import's attempts with it.
    fresh: list[UUID] = []
    for summary in summaries:
        age = now - summary.touched
        waiting = summary.status == SUBMITTED and age >= grace
        stuck = summary.status == VALIDATING and age >= getattr(dispatcher, "job_timeout", 0) + requeue_after
        if not (waiting or stuck) and summary.status in (QUEUED, VALIDATING) and age >= grace:
            try:
                stuck = lost(summary.job_id)
            except Exception as exc:  # noqa: BLE001  (the queue is down: nothing to learn this pass)
                say_refused(f"cannot ask the queue about {summary.job_id}: {exc}")
                break
        if (waiting or stuck) and summary.attempts >= cap:
            try:  # concluded only once its last job ended without a verdict; a slow one may still finish
                ended = lost(summary.job_id)
            except Exception as exc:  # noqa: BLE001  (as above)
                say_refused(f"cannot ask the queue about {summary.job_id}: {exc}")
                break
            if ended:
                give_up(records, summary.id, summary.attempts)
            continue
        if waiting and summary.attempts == 0:
            fresh.append(summary.id)  # queued below, several a job
        elif (waiting or stuck) and hand_over(records, dispatcher, summary.id, summary.attempts + 1):
            handed += 1
        elif waiting or stuck:
            break  # the queue is down: try again next pass
    if fresh:
        handed += hand_over_many(records, dispatcher, fresh, 1)
    return handed


def give_up(records: Records, import_id: UUID, attempts: int) -> None:
    """Conclude an import that had `attempts` jobs and no verdict as rejected (unless a late job concluded it)."""
    report: dict[str, Any] = {
        "ok": False, "entry_index": None, "event_index": None, "rule": "import/attempts",
        "message": f"no verdict after {attempts} attempts: every job judging this file failed or was stopped, so it "
                   "is not tried again (CRONACA_MAX_ATTEMPTS). The operator's log says why; submit it again once fixed",
        "facts": {"attempts": attempts},
    }
    for _ in range(20):
        found = records.imports.get(import_id)
        if found.report is not None:
            return
        found.reject(report=report)
        try:
            records.save(found)
        except IntegrityError:  # a job appended first: read it again
            continue
        log.warning("import %s: no verdict after %d attempts; concluded as rejected", import_id, attempts)
        return


def run(records: Records, dispatcher: Dispatcher, requeue_after: float, interval: float,
        stop: threading.Event | None = None, max_attempts: int | None = None) -> None:
    stop = stop or threading.Event()
    while not stop.is_set():
        try:
            relay_once(records, dispatcher, requeue_after, max_attempts=max_attempts)
        except PersistenceError as exc:  # the store away for a moment (a restart, a killed connection): said in one line
            log.warning("relay pass skipped: the store: %s", first_line(exc))
        except Exception:  # the relay outlives any one bad pass
            log.exception("relay pass failed")
        stop.wait(interval)


def start_thread(records: Records, dispatcher: Dispatcher, requeue_after: float, interval: float,
                 max_attempts: int | None = None) -> threading.Event:
    stop = threading.Event()
    threading.Thread(target=run, args=(records, dispatcher, requeue_after, interval, stop, max_attempts), daemon=True,
                     name="cronaca-relay").start()
    return stop
