"""Job metrics (prometheus_client): imports by outcome and job durations by queue.

- `cronaca_imports_total{outcome}`: `attempts` for every import job run, `accepted` / `rejected` for the
  verdicts those runs gave (a rerun of an import already concluded gives no new verdict and is not counted).
- `cronaca_job_seconds{queue}`: how long each job took in a worker, whatever its end.

Where they are read: with PROMETHEUS_MULTIPROC_DIR set (worker and API on one host), prometheus_client
writes them to that folder and the API's /metrics (api/metrics.py) adds them up with its own; otherwise a
worker serves them itself on CRONACA_WORKER_METRICS_PORT (`serve`), when that is set.
"""

from __future__ import annotations

import logging
import os

from prometheus_client import Counter, Histogram, start_http_server

log = logging.getLogger("cronaca.metrics")

IMPORTS = Counter("cronaca_imports_total", "Import jobs run (attempts) and the verdicts they gave", ["outcome"])
JOB_SECONDS = Histogram("cronaca_job_seconds", "Seconds a job took in a worker", ["queue"],
                        buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))


def count_import(outcome: str) -> None:
    IMPORTS.labels(outcome=outcome).inc()


def observe_job(queue: str, seconds: float) -> None:
    JOB_SECONDS.labels(queue=queue).observe(seconds)


def serve(port: int | None, addr: str = "127.0.0.1") -> bool:
    """Serve this process's metrics on `port` unless they go to PROMETHEUS_MULTIPROC_DIR; True when serving."""
    if port is None or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return False
    start_http_server(port, addr=addr)
    log.info("job metrics on port %d", port)
    return True
