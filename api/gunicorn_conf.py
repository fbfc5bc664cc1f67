"""gunicorn's settings for one API host (`gunicorn -c python:api.gunicorn_conf 'api.wsgi:app'`, the Procfile's `api`).

Every value can be overridden by gunicorn's own environment variable GUNICORN_CMD_ARGS (docs/deployment.md).

- Logs: gunicorn's own loggers (errors and the access lines) and the app's go through api/logs.py's handler:
  JSON lines (or text, CRONACA_LOG_FORMAT) with the request id, secrets scrubbed, on standard error.
- Metrics: the worker processes of this master write their samples to PROMETHEUS_MULTIPROC_DIR, so /metrics on any
  of them answers for all (api/metrics.py). Unset, the master makes a directory of its own (and removes it when it
  stops): metrics are then this master's; set it to share one directory between the processes of a host (never
  between hosts), and empty it when the host starts. `child_exit` tells prometheus_client a worker is gone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from prometheus_flask_exporter.multiprocess import GunicornInternalPrometheusMetrics

from api import logs
from domain.records.settings import live_streams, log_format, log_level
from workers.metrics import CACHES

workers = int(os.environ.get("CRONACA_API_WORKERS", "2"))  # processes, not threads, use more cores (docs/deployment.md)
# gthread with read deadlines (api/gunicorn_worker.py): a live stream holds one pool thread for its life, a request
# being read holds one only until its header/body deadline. The pool is the process's stream cap (api/live.py,
# StreamCaps) plus STREAM_FREE_THREADS, so streams can never take the threads /healthz and commands need.
worker_class = "api.gunicorn_worker.ReadDeadlineWorker"
STREAM_FREE_THREADS = 64
threads = int(os.environ.get("CRONACA_API_THREADS") or live_streams(os.environ) + STREAM_FREE_THREADS)
worker_connections = max(1000, threads * 2)  # connections a worker holds (kept alive, waiting for bytes, served)
keepalive = 5  # seconds an idle kept-alive connection waits in the poller (no thread) for its next request
graceful_timeout = 10
timeout = 30
# gunicorn's control socket (`gunicornc`) defaults to one path per user, which every master of a host (two API
# processes under honcho) would share and remove under each other; nothing here uses it.
control_socket_disable = True

logconfig_dict = logs.logging_config(log_format(os.environ), log_level(os.environ))
# The access line's text; the JSON line adds method, path, status, duration_ms, bytes and the request id as fields.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms'

_OWN_METRICS_DIR: str | None = None
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    # Before any worker is forked (and before prometheus_client is imported anywhere): workers inherit it.
    _OWN_METRICS_DIR = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="cronaca-metrics-")
else:
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)


def child_exit(server: Any, worker: Any) -> None:
    """A worker process is gone: its live gauges stop counting (prometheus_client's multiprocess mode)."""
    GunicornInternalPrometheusMetrics.mark_process_dead_on_child_exit(worker.pid)


def post_fork(server: Any, worker: Any) -> None:
    """Each worker reads the records directory in a thread of its own (domain/records/directory.py). Without
    `--preload` (the Procfile) the app is made in the worker and create_app starts it; with `--preload` the app
    was made in the master, whose thread does not exist in the child: started again here. So is the thread that
    copies the worker's caches into the metrics folder (workers/metrics.py's CACHES; once per process)."""
    CACHES.start()
    app = getattr(worker.app, "callable", None)
    service = getattr(app, "extensions", {}).get("cronaca")
    if service is not None:
        service.records.directory.start_warming()


def on_exit(server: Any) -> None:
    if _OWN_METRICS_DIR:
        shutil.rmtree(_OWN_METRICS_DIR, ignore_errors=True)
