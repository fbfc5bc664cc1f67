"""Job metrics (prometheus_client): imports by outcome and job durations by queue; and the bounded caches of every
process of a host, published into PROMETHEUS_MULTIPROC_DIR.

- `cronaca_imports_total{outcome}`: `attempts` for every import job run, `accepted` / `rejected` for the
  verdicts those runs gave (a rerun of an import already concluded gives no new verdict and is not counted).
- `cronaca_job_seconds{queue}`: how long each job took in a worker, whatever its end.

Where they are read: with PROMETHEUS_MULTIPROC_DIR set (worker and API on one host), prometheus_client
writes them to that folder and the API's /metrics (api/metrics.py) adds them up with its own; otherwise a
worker serves them itself on CRONACA_WORKER_METRICS_PORT (`serve`), when that is set.

Caches (`CACHES`): a scrape under PROMETHEUS_MULTIPROC_DIR reads only that folder's files, never a process's memory,
so each process (API workers: api/metrics.py's `install` and api/gunicorn_conf.py's `post_fork`; RQ workers:
`cronaca worker`) copies its caches' numbers (domain/kernel/cache.py's `every_cache`) into prometheus_client metrics
every CACHE_REFRESH_SECONDS, from a daemon thread, and the API also just before it answers a scrape. Entries and
capacity are gauges summed over the live processes (`livesum`: a dead process's file is removed, by gunicorn's
`child_exit` or by the next refresh of any process of the host); hits and misses are counters, so like every
counter of the folder they keep a dead process's lookups and never go down. This module holds it, not api/, because
both API and RQ workers publish and workers sits below api (pyproject.toml's layers).
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import threading
import time

from prometheus_client import Counter, Gauge, Histogram, multiprocess, start_http_server

from domain.kernel.cache import every_cache

log = logging.getLogger("cronaca.metrics")

IMPORTS = Counter("cronaca_imports_total", "Import jobs run (attempts) and the verdicts they gave", ["outcome"])
JOB_SECONDS = Histogram("cronaca_job_seconds", "Seconds a job took in a worker", ["queue"],
                        buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300))

CACHE_REFRESH_SECONDS = 5.0  # how old the cache families of a multi-process /metrics may be, at most
# On no registry: they reach /metrics through the folder only (one-process mode has api/metrics.py's `Caches`).
CACHE_ENTRIES = Gauge("cronaca_cache_entries", "Entries a bounded cache holds now", ["cache"],
                      multiprocess_mode="livesum", registry=None)
CACHE_CAPACITY = Gauge("cronaca_cache_capacity", "Entries a bounded cache holds at most", ["cache"],
                       multiprocess_mode="livesum", registry=None)
CACHE_HITS = Counter("cronaca_cache_hits", "Lookups a bounded cache answered", ["cache"], registry=None)
CACHE_MISSES = Counter("cronaca_cache_misses", "Lookups a bounded cache did not answer", ["cache"], registry=None)


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


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def process_alive(pid: int) -> bool:
    """Whether a process of this host has this id (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def forget_the_dead(directory: str) -> None:
    """Remove the live gauges of the host's processes that are gone (an RQ worker has no master to say so)."""
    for path in glob.glob(os.path.join(directory, "gauge_live*_*.db")):
        pid = os.path.basename(path).rsplit("_", 1)[1].removesuffix(".db")
        if pid.isdigit() and not process_alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):  # another process of the host removed it first
                multiprocess.mark_process_dead(int(pid), directory)


class CachePublisher:
    """This process's bounded caches, copied into the multiprocess metrics (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counted: dict[str, tuple[int, int]] = {}  # hits and misses already added to the counters, by cache
        self._shown: set[str] = set()
        self._pid: int | None = None

    def refresh(self) -> None:
        with self._lock:
            now = {stats.name: stats for stats in every_cache()}
            for name in self._shown - now.keys():  # every cache of that name is gone
                CACHE_ENTRIES.labels(cache=name).set(0)
                CACHE_CAPACITY.labels(cache=name).set(0)
            for name, stats in now.items():
                CACHE_ENTRIES.labels(cache=name).set(stats.size)
                CACHE_CAPACITY.labels(cache=name).set(stats.capacity)
                hits, misses = self._counted.get(name, (0, 0))
                CACHE_HITS.labels(cache=name).inc(max(0, stats.hits - hits))  # fewer: a cache of the name went away
                CACHE_MISSES.labels(cache=name).inc(max(0, stats.misses - misses))
                self._counted[name] = (stats.hits, stats.misses)
            self._shown = set(now)

    def start(self) -> bool:
        """Refresh every CACHE_REFRESH_SECONDS in a daemon thread, under PROMETHEUS_MULTIPROC_DIR only; once per
        process (again in a child forked after a start: the parent's thread is not there). True when publishing."""
        if multiprocess_dir() is None:
            return False
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._lock = threading.Lock()  # a lock the parent's thread held at the fork stays held in the child
            threading.Thread(target=self._run, name="cronaca-cache-metrics", daemon=True).start()
        return True

    def _run(self) -> None:
        while True:
            try:
                self.refresh()
                directory = multiprocess_dir()
                if directory is not None:
                    forget_the_dead(directory)
            except Exception:  # the folder went away for a moment: the next round tries again
                log.exception("publishing the cache metrics")
            time.sleep(CACHE_REFRESH_SECONDS)


CACHES = CachePublisher()
