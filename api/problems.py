"""Errors as RFC 9457 `application/problem+json`, each with a `detail` a person can act on."""

from __future__ import annotations

import json
from typing import Any

from flask import Response
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from api.schemas import Problem
from domain.kernel import RuleViolation
from domain.records import RecordsError

CONTENT_TYPE = "application/problem+json"


def problem(status: int, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": "about:blank", "status": status, "title": title, "detail": detail, **extra}
    return Response(json.dumps(body, default=str), status=status, content_type=CONTENT_TYPE)


DETAILS = {
    400: "the request could not be read; send a JSON object with Content-Type application/json",
    404: "nothing lives at this address; see /api/docs for the routes",
    405: "this address does not take that method; see /api/docs",
    413: "the upload is larger than this service accepts (CRONACA_MAX_UPLOAD_BYTES)",
    422: "the request is well-formed JSON but some fields are wrong; see errors",
}


class ProblemApi(Api):
    """flask-smorest's Api, answering every HTTP error as problem+json."""

    ERROR_SCHEMA = Problem

    def handle_http_exception(self, error: HTTPException) -> Response:  # type: ignore[override]
        code = error.code or 500
        data = getattr(error, "data", None) or {}
        extra: dict[str, Any] = {}
        messages = data.get("messages")
        detail = DETAILS.get(code, error.description or error.name)
        if code == 400 and messages:
            detail = "the request body is not valid JSON; check quotes, commas and brackets"
            extra["errors"] = messages
        elif code == 422 and messages:
            extra["errors"] = messages
            detail = "some fields are wrong: " + json.dumps(messages, default=str)
        elif data.get("message"):
            detail = str(data["message"])
        if code == 413:
            limit = self._app.config.get("MAX_CONTENT_LENGTH") if self._app else None
            detail = f"the upload is larger than the {limit} bytes this service accepts; split or compress it"
        response = problem(code, error.name, detail, **extra)
        for key, value in (data.get("headers") or {}).items():
            response.headers[key] = value
        return response


def register(app: Any) -> None:
    @app.errorhandler(RecordsError)
    def records_error(exc: RecordsError) -> Response:
        titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 422: "Unprocessable Content"}
        facts = dict(exc.facts)
        rule = facts.pop("rule", None)
        extra: dict[str, Any] = {"facts": facts}
        if rule:
            extra["rule"] = rule
        return problem(exc.status, titles.get(exc.status, "Bad Request"), exc.message, **extra)

    @app.errorhandler(RuleViolation)
    def rule_violation(exc: RuleViolation) -> Response:
        body = exc.to_json()
        return problem(422, "Rule violation", body["message"], rule=body["rule"], facts=body["facts"])
