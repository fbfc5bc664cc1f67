"""/healthz and /readyz: what a load balancer and an orchestrator ask (issue 16, operations).

`/healthz` says the process is up and answers, touching nothing else: a liveness probe that fails
only when the process must be restarted. `/readyz` says whether this process can serve now: its
store answers a read, and Redis answers a PING when the service is configured with one (jobs and
live lessons go through it). A process that is not ready answers 503 with the part that failed,
so traffic goes elsewhere until it recovers by itself.

A new process reads the whole records directory (domain/records/directory.py) in a background thread
started by api/app.py; until that first catch-up is done /readyz answers 503 with a third check, "directory":
"warming: N records read", so a load balancer sends it no listing to wait on. A probe waits up to WARM_WAIT
for it (a small store is read in milliseconds: a process over one is ready at its first probe); a failed
attempt is started again by the next probe.

A PostgreSQL store without its schema (`cronaca db upgrade` not run yet) is said by /readyz, and every
other request but /healthz is answered 503 problem+json saying the same (api/schema.py's `Gate`): the
process starts and waits rather than crashing, and serves once the upgrade has run.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

import redis
from flask import Blueprint, current_app, request

from api.problems import problem
from api.schema import Gate
from api.service import json_response, service
from domain.records.timeline import select_stream

health = Blueprint("health", __name__)

PROBE_STREAM = UUID(int=0)  # no stream has this id: reading it costs one indexed query that finds nothing
REDIS_TIMEOUT = 1.0  # seconds: a probe must answer well within an orchestrator's timeout
WARM_WAIT = 1.0  # seconds a probe waits for the directory's warm-up before saying how far it is


@health.route("/healthz")
def healthz() -> Any:
    return json_response({"status": "ok"})


def _gate() -> Any:
    """This app's schema gate (api/schema.py), made on first use."""
    found = current_app.extensions.get("cronaca-schema")
    if found is None:
        found = current_app.extensions.setdefault("cronaca-schema", Gate(service().records))
    return found


@health.before_app_request
def schema_gate() -> Any:
    """503 for every request but the probes while the store has no schema (nothing is read or written)."""
    if request.path in ("/healthz", "/readyz"):
        return None
    why = _gate().why_not()
    if why is None:
        return None

    answer = problem(503, "Service Unavailable", why, rule="store/no-schema")
    answer.headers["Retry-After"] = "5"
    return answer


def _database() -> str | None:
    """None when the store answers a read, else why not (one line, no secrets)."""
    try:
        select_stream(service().records.recorder, PROBE_STREAM)
    except Exception as exc:  # noqa: BLE001  (any failure of the store is "not ready", said in one line)
        return f"the store does not answer: {type(exc).__name__}"
    return None


def _warming() -> str | None:
    """None once the records directory's first catch-up is done, else how far it is (started again if its
    last attempt failed)."""
    directory = service().records.directory
    if not directory.warm.is_set():
        directory.start_warming()
        directory.warm.wait(WARM_WAIT)
    return None if directory.warm.is_set() else directory.progress()


def _redis(url: str) -> str | None:
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
    failed = _gate().why_not() or _database()
    checks["database"] = failed or "ok"
    if not failed:  # said only while it is not ready: a ready body keeps its two checks
        warming = _warming()
        if warming:
            checks["directory"] = warming
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
