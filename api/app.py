"""The Flask application factory."""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from flask import Flask

from api import (
    analyses,
    health,
    imports,
    logs,
    metrics,
    operators,
    problems,
    qr,
    records,
    rulings,
    security,
    teaching,
    throttle,
    titles,
    transcripts,
    viewer,
)
from api.fastpath import StepFastPath
from api.service import Service
from domain import catalog
from domain.records.settings import Settings

# The OpenAPI document, and what it says each operation's body may be (security.BodyTypes), by the titles catalogued
# and the app's own settings of it: the same for every app a process makes, and flask-smorest builds it as each
# blueprint is registered, most of an app's start (~0.15 s of ~0.19 s). Built by the first app, shared by the next
# (an app for each store: the tests make hundreds). Nothing writes to a document once built.
_DOCUMENTED: dict[tuple[Any, ...], tuple[APISpec, dict[tuple[str, str], tuple[str, ...]]]] = {}


def create_app(settings: Settings | None = None, service: Service | None = None, **config: Any) -> Flask:
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config.update(
        API_TITLE="Cronaca",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        MAX_CONTENT_LENGTH=settings.max_upload,
        JSON_SORT_KEYS=False,
        CRONACA_JSON_DEPTH=max(security.MAX_DEPTH, settings.limits.max_depth),
    )
    app.config.update(config)
    app.extensions["cronaca"] = service or Service.build(settings)
    # The records directory read in the background: the first listing does not wait, /readyz says when it is done.
    app.extensions["cronaca"].records.directory.start_warming()

    body_types = security.BodyTypes()
    api = problems.ProblemApi(app, spec_kwargs={
        "info": {"description": "Event-sourced game records: play live, replay step by step, import and check logs."},
        "extra_plugins": [problems.ProblemResponses(), body_types],
    })
    document(app, api, body_types, config)
    app.register_blueprint(viewer.viewer)
    app.register_blueprint(health.health)
    problems.register(app)
    metrics.install(app)  # /metrics, request and command counters (api/metrics.py); before the body guard's hook
    guard = throttle.Guard.from_settings(settings)  # wrong credentials' budget, shared through Redis (api/throttle.py)
    throttle.install(app, guard)
    security.install(app, body_types)
    app.wsgi_app = StepFastPath(app.wsgi_app, app.extensions["cronaca"].records, guard)  # type: ignore[method-assign]
    app.wsgi_app = metrics.wrap(app.wsgi_app)  # type: ignore[method-assign]
    operators.mount(app, settings.operator_key, settings.redis_url, guard)  # /ops, only with CRONACA_OPERATOR_KEY
    app.wsgi_app = logs.RequestIds(app.wsgi_app)  # type: ignore[method-assign]  # outermost: every answer has one
    return app


def document(app: Flask, api: problems.ProblemApi, body_types: security.BodyTypes, config: dict[str, Any]) -> None:
    """Register every API blueprint on `app`, documented: the OpenAPI document built once a process (above)."""
    blueprints = [records.blp, rulings.blp, analyses.blp, imports.blp, transcripts.blp, titles.blp, qr.blp,
                  *teaching.BLUEPRINTS]
    key = (tuple(catalog.TITLES), *sorted((k, repr(v)) for k, v in config.items() if k.startswith(("API_", "OPENAPI_"))))
    built = _DOCUMENTED.get(key)
    if built is not None:
        spec, accepted = built
        for blueprint in blueprints:  # as flask-smorest's Api.register_blueprint, but for the document's part
            app.extensions["flask-smorest"]["blp_name_to_api"][blueprint.name] = api
            app.register_blueprint(blueprint)
        api.spec = spec
        body_types.accepted = accepted
        return
    for name, description in SECURITY_SCHEMES.items():
        api.spec.components.security_scheme(name, {"type": "http", "scheme": "bearer", "description": description})
    for blueprint in blueprints:
        api.register_blueprint(blueprint)
    _DOCUMENTED[key] = (api.spec, body_types.accepted)


SECURITY_SCHEMES = {
    "seat": "a seat token from POST /api/records",
    "annotator": "a record's annotator key from POST /api/records or POST /api/imports",
    "teacher": "a lesson's teacher key from POST /api/lessons",
    "arbiter": "a record's arbiter key from POST /api/records or POST /api/imports: records rulings",
}
