"""Prometheus metrics at `/metrics` on every API process (prometheus-flask-exporter over prometheus_client).

- Requests: the exporter's own families, grouped by the route's rule (`/api/records/<uuid:record_id>`), never by the
  path, so a record id never becomes a label: `flask_http_request_duration_seconds{method,url_rule,status}` (its
  `_count` is the requests per endpoint by status), `flask_http_request_total{method,status}`,
  `flask_http_request_exceptions_total`. Steps answered by the WSGI fast path (api/fastpath.py) never reach Flask:
  they are counted in `cronaca_fast_answers_total{kind}` (step, board).
- Commands: `cronaca_commands_total{title,outcome}` counted at the commands edge (`counted_command` on the view,
  and the requests refused before the view runs: a body of the wrong type or shape). Both label sets are bounded:
  a title of the catalog (else `unknown`) and one of OUTCOMES.
- Several processes: with `PROMETHEUS_MULTIPROC_DIR` set (prometheus_client's own variable, read when it is
  imported), every process of the host writes its samples there and each `/metrics` answers the sum over all of
  them (the exporter's `GunicornInternalPrometheusMetrics`; api/gunicorn_conf.py marks dead workers in `child_exit`).
  Workers (workers/metrics.py) write their job metrics to the same directory on the same host.
- One process (`cronaca serve`, tests): each app has a registry of its own (the exporter refuses a second app on
  one registry), which also shows the process-wide default registry (commands, jobs run in-process, the process).
- Caches: every bounded cache of the process (domain/kernel/cache.py's `Bounded`, registered by name), summed over
  the caches of one name: `cronaca_cache_entries{cache}`, `cronaca_cache_capacity{cache}`,
  `cronaca_cache_hits_total{cache}`, `cronaca_cache_misses_total{cache}`. The domain never imports Prometheus and a
  lookup stays a dict lookup: the numbers are read from the caches, never counted by them. One process: read at each
  scrape by this module's collector `Caches`, on the app's registry. Several processes: each copies its own into
  the multiprocess folder every workers/metrics.py CACHE_REFRESH_SECONDS (its `CACHES`, started here), and again
  just before it answers a scrape, so `/metrics` sums the live processes' entries and capacity and every process's
  hits and misses, the others' at most that many seconds old (docs/deployment.md, Metrics).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from functools import wraps
from typing import Any, TypeVar
from uuid import UUID

from flask import Flask, Response, g, request
from prometheus_client import REGISTRY, CollectorRegistry, Counter
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_flask_exporter import PrometheusMetrics
from prometheus_flask_exporter.multiprocess import GunicornInternalPrometheusMetrics

from api.service import service
from domain import catalog
from domain.kernel.cache import Bounded, every_cache
from domain.records import RecordsError
from domain.records.errors import Refused
from workers.metrics import CACHES, multiprocess_dir

COMMANDS = Counter("cronaca_commands_total", "Commands sent to records, by title and outcome", ["title", "outcome"])
FAST_ANSWERS = Counter("cronaca_fast_answers_total", "Step answers served by the WSGI fast path, by kind", ["kind"])

UNKNOWN = "unknown"
OUTCOMES = {401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 413: "invalid", 415: "invalid",
            400: "invalid", 422: "invalid", 429: "limited", 503: "unavailable"}
COMMAND_ENDPOINT = "records.play"
REPLAYED = "Idempotent-Replayed"  # api/records.py's header on an answer given again to a retry
PATH = "/metrics"
TITLES_KEPT = 10_000  # record id -> title, per process: a title never changes, so this is never stale

V = TypeVar("V", bound=Callable[..., Any])


def outcome_of(status: int, exc: BaseException | None = None) -> str:
    """accepted, refused (the rules said no), conflict, invalid, unauthorized, forbidden, not_found... or error
    (`replayed` is told by the answer's header, in `counted_command`)."""
    if isinstance(exc, Refused):
        return "refused"
    if status < 400:
        return "accepted"
    return OUTCOMES.get(status, "error")


class _Titles:
    """The title of a record by its id, for the label: the directory's, else the timeline's; bounded."""

    def __init__(self) -> None:
        self.known: Bounded[UUID, str] = Bounded("titles", TITLES_KEPT)

    def of(self, record_id: Any) -> str:
        if not isinstance(record_id, UUID):
            return UNKNOWN
        found = self.known.get(record_id)
        if found is not None:
            return found
        records = service().records
        summary = records.directory.records.get(record_id)
        title = getattr(summary, "title", None)
        if title is None:
            try:
                meta = records.timeline(record_id).meta
                title = getattr(meta, "title", None)
            except Exception:  # noqa: BLE001  (no such record, or the store is away: the label says unknown)
                return UNKNOWN
        title = title if title in catalog.TITLES else UNKNOWN
        self.known.put(record_id, title)
        return title


TITLES = _Titles()


def count_command(record_id: Any, outcome: str) -> None:
    title = UNKNOWN if outcome == "not_found" else TITLES.of(record_id)
    COMMANDS.labels(title=title, outcome=outcome).inc()


def counted_command(view: V) -> V:
    """Count each command the view decides, by the record's title and the outcome (its answer or its refusal)."""

    @wraps(view)
    def counted(*args: Any, **kwargs: Any) -> Any:
        outcome = "error"
        try:
            answer = view(*args, **kwargs)
            status = answer.status_code if isinstance(answer, Response) else 200
            outcome = outcome_of(status)
            if isinstance(answer, Response) and answer.headers.get(REPLAYED) == "true":
                outcome = "replayed"  # a retry with the same Idempotency-Key: answered again, nothing stored
            return answer
        except RecordsError as exc:
            outcome = outcome_of(exc.status, exc)
            raise
        finally:
            g.cronaca_command_counted = True
            count_command(kwargs.get("record_id"), outcome)

    return counted  # type: ignore[return-value]


def _count_refused_early(response: Response) -> Response:
    """A command refused before its view ran (wrong media type, a body that fails the schema) counts too."""
    if request.endpoint == COMMAND_ENDPOINT and not g.get("cronaca_command_counted"):
        g.cronaca_command_counted = True
        count_command((request.view_args or {}).get("record_id"), outcome_of(response.status_code))
    return response


class _Global:
    """The process-wide default registry seen through an app's own registry (one-process mode)."""

    def collect(self) -> Iterator[Metric]:
        return iter(REGISTRY.collect())

    def describe(self) -> list[Metric]:
        return []  # no names claimed: the app's own families never clash with these


class Caches:
    """Every bounded cache of this process, read when `/metrics` is asked (domain/kernel/cache.py)."""

    def collect(self) -> Iterator[Metric]:
        entries = GaugeMetricFamily("cronaca_cache_entries", "Entries a bounded cache holds now", labels=["cache"])
        capacity = GaugeMetricFamily("cronaca_cache_capacity", "Entries a bounded cache holds at most", labels=["cache"])
        hits = CounterMetricFamily("cronaca_cache_hits", "Lookups a bounded cache answered", labels=["cache"])
        misses = CounterMetricFamily("cronaca_cache_misses", "Lookups a bounded cache did not answer", labels=["cache"])
        for cache in sorted(every_cache(), key=lambda c: c.name):
            entries.add_metric([cache.name], cache.size)
            capacity.add_metric([cache.name], cache.capacity)
            hits.add_metric([cache.name], cache.hits)
            misses.add_metric([cache.name], cache.misses)
        return iter([entries, capacity, hits, misses])

    def describe(self) -> list[Metric]:
        return list(self.collect())


# ---- WSGI: the fast path's answers -----------------------------------------------------------------------------

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
SEEN = "cronaca.flask_saw"


class FastAnswers:
    """Wraps the fast path: an answer Flask never saw was the fast path's, counted by kind."""

    def __init__(self, app: Wsgi) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        answer = self.app(environ, start_response)
        if not environ.get(SEEN) and environ.get("REQUEST_METHOD") == "GET":
            FAST_ANSWERS.labels(kind="board" if environ.get("PATH_INFO", "").endswith("/board") else "step").inc()
        return answer


def _mark_seen() -> None:
    request.environ[SEEN] = True


def _refresh_caches_on_scrape() -> None:
    """This process's caches as they are now in the scrape it answers (the others' are as their last refresh)."""
    if request.path == PATH:
        CACHES.refresh()


# ---- wiring ----------------------------------------------------------------------------------------------------


def multiprocess() -> bool:
    return multiprocess_dir() is not None


def install(app: Flask) -> Any:
    """`/metrics` and the request metrics on this app; call once the blueprints are registered."""
    app.before_request(_mark_seen)
    app.after_request(_count_refused_early)
    common: dict[str, Any] = {"group_by": "url_rule", "default_latency_as_histogram": True}
    if multiprocess():  # each scrape reads the directory alone: the caches are copied there (workers/metrics.py)
        os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)
        app.before_request(_refresh_caches_on_scrape)
        metrics = GunicornInternalPrometheusMetrics(app, path=PATH, **common)
        CACHES.start()
    else:
        registry = CollectorRegistry()
        registry.register(_Global())
        registry.register(Caches())
        metrics = PrometheusMetrics(app, registry=registry, **common)
    app.extensions["cronaca.metrics"] = metrics
    return metrics


def wrap(wsgi: Wsgi) -> FastAnswers:
    """The fast path's counter around the WSGI app (inside the request ids, outside the fast path)."""
    return FastAnswers(wsgi)
