"""The Flask application factory."""

from __future__ import annotations

from typing import Any

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
from domain.records.settings import Settings


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
    api.spec.components.security_scheme("seat", {"type": "http", "scheme": "bearer",
                                                 "description": "a seat token from POST /api/records"})
    api.spec.components.security_scheme("annotator", {"type": "http", "scheme": "bearer",
                                                      "description": "a record's annotator key from POST /api/records "
                                                                     "or POST /api/imports"})
    api.spec.components.security_scheme("teacher", {"type": "http", "scheme": "bearer",
                                                    "description": "a lesson's teacher key from POST /api/lessons"})
    api.spec.components.security_scheme("arbiter", {"type": "http", "scheme": "bearer",
                                                    "description": "a record's arbiter key from POST /api/records "
                                                                   "or POST /api/imports: records rulings"})
    api.register_blueprint(records.blp)
    api.register_blueprint(rulings.blp)
    api.register_blueprint(analyses.blp)
    api.register_blueprint(imports.blp)
    api.register_blueprint(transcripts.blp)
    api.register_blueprint(titles.blp)
    api.register_blueprint(qr.blp)
    for blueprint in teaching.BLUEPRINTS:
        api.register_blueprint(blueprint)
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
