"""The outbox relay: queue every import that is saved but not queued, and re-queue stuck ones.

An import is saved before anything is queued. The API tries to queue it at once; when
Redis is down that fails, and the relay keeps trying until it succeeds. An import is
queued again, too, when the queue has lost its job (Redis restarted without its data, the
job failed), or when it has been validating for `requeue_after` seconds without a verdict
(its worker died mid-job). The job is idempotent, so queuing twice is harmless.
"""

from __future__ import annotations

import logging
import threading
import time

from domain.records import Records
from domain.records.aggregates import QUEUED, SUBMITTED, VALIDATING
from workers.dispatch import Dispatcher, hand_over

log = logging.getLogger("cronaca.relay")


def relay_once(records: Records, dispatcher: Dispatcher, requeue_after: float, grace: float = 1.0) -> int:
    """One pass; returns how many imports were handed over."""
    records.directory.catch_up()
    now = time.time()
    handed = 0
    for summary in list(records.directory.imports.values()):
        age = now - summary.touched
        waiting = summary.status == SUBMITTED and age >= grace
        stuck = summary.status == VALIDATING and age >= requeue_after
        if not (waiting or stuck) and summary.status in (QUEUED, VALIDATING) and age >= grace:
            try:
                stuck = summary.job_id is None or dispatcher.lost(summary.job_id)
            except Exception as exc:  # the queue is down: nothing to learn this pass
                log.warning("cannot ask the queue about %s: %s", summary.job_id, exc)
                break
        if (waiting or stuck) and hand_over(records, dispatcher, summary.id, summary.attempts + 1):
            handed += 1
        elif waiting or stuck:
            break  # the queue is down: try again next pass
    return handed


def run(records: Records, dispatcher: Dispatcher, requeue_after: float, interval: float,
        stop: threading.Event | None = None) -> None:
    stop = stop or threading.Event()
    while not stop.is_set():
        try:
            relay_once(records, dispatcher, requeue_after)
        except Exception:  # the relay outlives any one bad pass (a database blip, say)
            log.exception("relay pass failed")
        stop.wait(interval)


def start_thread(records: Records, dispatcher: Dispatcher, requeue_after: float, interval: float) -> threading.Event:
    stop = threading.Event()
    threading.Thread(target=run, args=(records, dispatcher, requeue_after, interval, stop), daemon=True,
                     name="cronaca-relay").start()
    return stop
