"""/healthz and /readyz: what a load balancer and an orchestrator ask (issue 16, operations).

`/healthz` says the process is up and answers, touching nothing else: a liveness probe that fails
only when the process must be restarted. `/readyz` says whether this process can serve now: its
store answers a read, and Redis answers a PING when the service is configured with one (jobs and
live lessons go through it). A process that is not ready answers 503 with the part that failed,
so traffic goes elsewhere until it recovers by itself.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from flask import Blueprint

from api.service import json_response, service

health = Blueprint("health", __name__)

PROBE_STREAM = UUID(int=0)  # no stream has this id: reading it costs one indexed query that finds nothing
REDIS_TIMEOUT = 1.0  # seconds: a probe must answer well within an orchestrator's timeout


@health.route("/healthz")
def healthz() -> Any:
    return json_response({"status": "ok"})


def _database() -> str | None:
    """None when the store answers a read, else why not (one line, no secrets)."""
    from domain.records.timeline import select_stream

    try:
        select_stream(service().records.recorder, PROBE_STREAM)
    except Exception as exc:  # noqa: BLE001  (any failure of the store is "not ready", said in one line)
        return f"the store does not answer: {type(exc).__name__}"
    return None


def _redis(url: str) -> str | None:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT)
        try:
            client.ping()
        finally:
            client.close()
    except redis.RedisError as exc:
        return f"Redis does not answer: {type(exc).__name__}"
    return None


@health.route("/readyz")
def readyz() -> Any:
    started = time.perf_counter()
    checks: dict[str, str] = {}
    failed = _database()
    checks["database"] = failed or "ok"
    url = service().settings.redis_url
    if url:
        failed_redis = _redis(url)
        checks["redis"] = failed_redis or "ok"
    else:
        checks["redis"] = "not configured (jobs run in-process)"
    ready = all(v == "ok" or v.startswith("not configured") for v in checks.values())
    body = {"status": "ready" if ready else "not ready", "checks": checks,
            "ms": round((time.perf_counter() - started) * 1000, 1)}
    response = json_response(body, 200 if ready else 503)
    if not ready:
        response.headers["Retry-After"] = "5"
    response.headers["Cache-Control"] = "no-store"
    return response
