"""Structured logs with a request id, for every process (API, gunicorn, worker, relay, `cronaca serve`).

- `RequestIds` (WSGI, outermost): takes the caller's `X-Request-Id` when it is short and of safe characters,
  else makes one; sets `workers.context.request_id` while the request is handled (the dispatcher copies it into
  the jobs it queues) and returns it on every answer, the fast path's and the operators' pages included.
- `JsonFormatter` / `TextFormatter`: one line per record, always with the request id (or none outside a request),
  and with secrets scrubbed (`redact`): an `Authorization` value, a bearer token, `#key=`/`#token=`/`key=`/`token=`
  values. Scrubbing is done on the finished text, so a secret passed as an argument, an `extra` field or inside a
  traceback is caught too.
- `configure(fmt, level)` for the `cronaca` processes and `logging_config(...)` (a `dictConfig` mapping) for
  gunicorn's `logconfig_dict` (api/gunicorn_conf.py), chosen by `CRONACA_LOG_FORMAT=json|text` and
  `CRONACA_LOG_LEVEL` (domain/records/settings.py).

Why the standard library's `logging.Formatter` rather than python-json-logger: the project does not depend on it,
and what is needed is a dozen lines (a dict of a few fields through `json.dumps`); the redaction of secrets has to
be ours anyway, and it must also cover gunicorn's access lines, whose arguments are a dict of atoms that would
otherwise carry every request header (`Authorization` among them).
"""

from __future__ import annotations

import json
import logging
import logging.config
import re
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from workers import context

HEADER = "X-Request-Id"
ENVIRON_KEY = "cronaca.request_id"
# Short and plain: it goes into log lines, job meta and an answer header, so nothing that could forge a log
# line, break a header or smuggle a secret of unbounded length.
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")

REDACTED = "[redacted]"
SECRETS = [
    # Authorization: Bearer abc / "authorization": "abc" / HTTP_AUTHORIZATION=abc
    (re.compile(r"(?i)(authorization[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token)\s+)?[^\s\"',;&\\]+"),
     r"\1" + REDACTED),
    (re.compile(r"(?i)\b(bearer\s+)[^\s\"',;&\\]+"), r"\1" + REDACTED),
    # a viewer link's #key=... / #token=..., a query's ?token=..., "annotator_key": "..."
    (re.compile(r"(?i)([#?&;\s\"'](?:[a-z_]*key|[a-z_]*token|password|secret)[\"']?\s*[=:]\s*[\"']?)[^\s\"',;&#\\]+"),
     r"\1" + REDACTED),
]

# A LogRecord's own attributes: everything else on a record came from `extra=` and is written as a field.
STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "request_id"}


def redact(text: str) -> str:
    """The text with every secret this service hands out (seat tokens, keys, Authorization values) replaced."""
    for pattern, replacement in SECRETS:
        text = pattern.sub(replacement, text)
    return text


def valid_request_id(given: str | None) -> str | None:
    """The caller's request id if it is safe to carry (short, plain characters), else None."""
    if given and SAFE_ID.fullmatch(given):
        return given
    return None


def new_request_id() -> str:
    return uuid.uuid4().hex


# ---- WSGI ----------------------------------------------------------------------------------------------------

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class RequestIds:
    """The outermost WSGI layer: a request id in (`X-Request-Id`, validated) or made, and out on every answer."""

    def __init__(self, app: Wsgi) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        rid = valid_request_id(environ.get("HTTP_X_REQUEST_ID")) or new_request_id()
        environ[ENVIRON_KEY] = rid

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            headers = [(k, v) for k, v in headers if k.lower() != "x-request-id"]
            headers.append((HEADER, rid))
            return start_response(status, headers, exc_info) if exc_info else start_response(status, headers)

        token = context.request_id.set(rid)
        try:
            return self.app(environ, start)
        finally:
            context.request_id.reset(token)


# ---- formatting ----------------------------------------------------------------------------------------------


class RequestIdFilter(logging.Filter):
    """Stamps each record with the request id in hand when it is made (a handler's filter: every line gets one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            record.request_id = _access_request_id(record) or context.current()
        return True


def _access_request_id(record: logging.LogRecord) -> str | None:
    """gunicorn's access line is logged after the answer left (the contextvar is reset by then): its atoms
    hold the answer's headers, X-Request-Id among them."""
    if record.name == "gunicorn.access" and isinstance(record.args, dict):
        found = record.args.get("{x-request-id}o")
        if isinstance(found, str) and found != "-":
            return found
    return None


def _access_fields(record: logging.LogRecord) -> dict[str, Any]:
    """A few named atoms of a gunicorn access line; never the dict itself (it holds every request header)."""
    if record.name != "gunicorn.access" or not isinstance(record.args, dict):
        return {}
    atoms = record.args
    fields: dict[str, Any] = {"method": atoms.get("m"), "path": atoms.get("U"), "status": atoms.get("s"),
                              "duration_ms": atoms.get("M"), "bytes": atoms.get("B"), "remote": atoms.get("h")}
    return {k: v for k, v in fields.items() if v not in (None, "-")}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, request_id, pid, any `extra`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or _access_request_id(record) or context.current(),
            "pid": record.process,
        }
        line.update(_access_fields(record))
        for key, value in vars(record).items():
            if key not in STANDARD and not key.startswith("_") and key not in line:
                line[key] = value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return redact(json.dumps(line, ensure_ascii=False, default=str))


class TextFormatter(logging.Formatter):
    """A line for a person's console: time, level, logger, [request id], message; secrets scrubbed as in JSON."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        if getattr(record, "request_id", None) is None:
            record.request_id = _access_request_id(record) or context.current() or "-"
        return redact(super().format(record))


FORMATS = ("json", "text")


def logging_config(fmt: str = "json", level: str = "INFO") -> dict[str, Any]:
    """A `logging.config.dictConfig` mapping: everything to standard error through one handler of ours.

    gunicorn takes it as `logconfig_dict` (its own loggers `gunicorn.error` and `gunicorn.access` are routed to the
    same handler, so its access lines become JSON with the request id too)."""
    if fmt not in FORMATS:
        raise ValueError(f"CRONACA_LOG_FORMAT must be json or text, not {fmt!r}")
    formatter = {"()": f"{__name__}.JsonFormatter"} if fmt == "json" else {"()": f"{__name__}.TextFormatter"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": f"{__name__}.RequestIdFilter"}},
        "formatters": {"cronaca": formatter},
        "handlers": {"cronaca": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                                 "formatter": "cronaca", "filters": ["request_id"]}},
        "root": {"level": level, "handlers": ["cronaca"]},
        "loggers": {
            # gunicorn's defaults give these handlers of their own; here they propagate to ours instead
            "gunicorn.error": {"level": level, "handlers": [], "propagate": True},
            "gunicorn.access": {"level": level, "handlers": [], "propagate": True},
        },
    }


def configure(fmt: str = "json", level: str = "INFO") -> None:
    """Route every logger of this process through one handler of ours (`cronaca serve`, `worker`, `relay`)."""
    logging.config.dictConfig(logging_config(fmt, level))
