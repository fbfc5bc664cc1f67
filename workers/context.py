"""The request id of the work in hand, carried from an HTTP request into the jobs it queues.

The API sets it per request (api/logs.py); the dispatcher puts it into each job's meta; a worker
sets it again while it runs that job, so one id follows an import from the upload to its verdict
in every process's logs. A contextvar, so threads and requests never see each other's.
"""

from __future__ import annotations

from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("cronaca_request_id", default=None)


def current() -> str | None:
    return request_id.get()
