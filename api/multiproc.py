"""PROMETHEUS_MULTIPROC_DIR for an API host's gunicorn processes, chosen before prometheus_client is imported.

prometheus_client reads the variable once, when it is first imported: imported before it is set, every metric of
the process is kept in its memory, and /metrics (which reads the folder) shows nothing of the workers. So
api/gunicorn_conf.py imports this module before anything that imports prometheus_client (the master imports the
configuration first, then forks the workers, which inherit the variable). Unset, a folder of this master's own is
made (`OWN_METRICS_DIR`, removed when the master stops); set, it is made if missing and shared by the host's
processes (docs/deployment.md).
"""

from __future__ import annotations

import os
import tempfile

OWN_METRICS_DIR: str | None = None
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    OWN_METRICS_DIR = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="cronaca-metrics-")
else:
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
