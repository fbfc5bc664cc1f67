"""gunicorn's settings for one API host (`gunicorn -c python:api.gunicorn_conf 'api.wsgi:app'`, the Procfile's `api`).

Every value can be overridden by gunicorn's own environment variable GUNICORN_CMD_ARGS (docs/deployment.md).
"""

from __future__ import annotations

import os

workers = int(os.environ.get("CRONACA_API_WORKERS", "2"))  # processes, not threads, use more cores (docs/deployment.md)
worker_class = "gthread"
threads = int(os.environ.get("CRONACA_API_THREADS", "1"))
graceful_timeout = 10
timeout = 30
