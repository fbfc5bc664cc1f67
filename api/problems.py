"""Errors as RFC 9457 `application/problem+json`, each with a `detail` a person can act on."""

from __future__ import annotations

import http
import json
import logging
from importlib import resources
from typing import Any

from apispec import BasePlugin
from eventsourcing.persistence import InterfaceError, OperationalError
from flask import Response, request
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException

from api.schemas import Problem
from domain.kernel import RuleViolation
from domain.records import RecordsError
from domain.records.errors import first_line

CONTENT_TYPE = "application/problem+json"


def problem(status: int, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": "about:blank", "status": status, "title": title, "detail": detail, **extra}
    return Response(json.dumps(body, default=str), status=status, content_type=CONTENT_TYPE)


DETAILS = {
    400: "the request could not be read; send a JSON object with Content-Type application/json",
    404: "nothing lives at this address; see /api/docs for the routes",
    405: "this address does not take that method; see /api/docs",
    413: "the upload is larger than this service accepts (CRONACA_MAX_UPLOAD_BYTES)",
    415: "send the body as application/json",
    422: "the request is well-formed JSON but some fields are wrong; see errors",
    500: "the service failed on this request and has logged it; try again, and report it if it keeps failing",
}

# What an operation of each shape can answer besides its own documented errors (ProblemResponses).
WITH_BODY = (400, 413, 415, 422)
WITH_PATH_ID = (404,)
WITH_TOKEN = (401, 403, 429)


class ProblemResponses(BasePlugin):
    """Declares in the OpenAPI document the problem+json answers each operation can give, by its shape:
    a body can be unreadable, too large, of the wrong type or wrong; an id can name nothing; a seat token
    can be malformed or another seat's. An operation's own alt_response for a code wins."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for operation in (operations or {}).values():
            if not isinstance(operation, dict):
                continue
            codes: list[int] = []
            if operation.get("requestBody"):
                codes += WITH_BODY
            if path and "{" in path:
                codes += WITH_PATH_ID
            if operation.get("security"):
                codes += WITH_TOKEN
            responses = operation.setdefault("responses", {})
            for code in codes:
                if code not in responses and str(code) not in responses:
                    responses[code] = http.HTTPStatus(code).name


class ProblemApi(Api):
    """flask-smorest's Api, answering every HTTP error as problem+json."""

    ERROR_SCHEMA = Problem

    def _register_responses(self) -> None:
        """flask-smorest's shared responses, with its error ones declared as what they are: problem+json."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
            prepare_response(response, self.spec, CONTENT_TYPE if status >= 400 else self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "any other error (500: a fault of the service, logged)", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)

    def handle_http_exception(self, error: HTTPException) -> Response:
        code = error.code or 500
        if code == 404 and wants_page():
            return not_found_page()
        data = getattr(error, "data", None) or {}
        extra: dict[str, Any] = {}
        messages = data.get("messages")
        own = error.description if error.description != type(error).description else None  # raised saying why
        detail = own or DETAILS.get(code, error.description or error.name)
        allowed = getattr(error, "valid_methods", None)
        if code == 405 and allowed:
            detail = f"this address takes {', '.join(sorted(allowed))}; see /api/docs"
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
        title = "Unprocessable Content" if code == 422 else error.name  # RFC 9110's name, as the domain's 422s
        response = problem(code, title, detail, **extra)
        for key, value in error.get_headers():  # Allow (405), WWW-Authenticate, Retry-After...
            if key.lower() != "content-type":
                response.headers[key] = value
        for key, value in (data.get("headers") or {}).items():
            response.headers[key] = value
        return response


def wants_page() -> bool:
    """A browser asking for a page (a mistyped record address, a link cut short), not a program asking the API:
    an address outside /api/ whose request prefers HTML to JSON. The API's addresses always answer problem+json."""
    if request.path.startswith("/api/"):
        return False
    accepted = request.accept_mimetypes
    return accepted.quality("text/html") > max(accepted.quality("application/json"), accepted.quality(CONTENT_TYPE))


def not_found_page() -> Response:
    """What a browser asking for a page at a wrong address reads: a page that says so and links the records list."""
    page = resources.files("replay_viewer").joinpath("notfound.html").read_bytes()
    return Response(page, status=404, content_type="text/html; charset=utf-8")


def records_problem(exc: RecordsError) -> Response:
    """What the records application refused, as problem+json with its status, rule and facts."""
    titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 422: "Unprocessable Content"}
    facts = dict(exc.facts)
    rule = facts.pop("rule", None)
    extra: dict[str, Any] = {"facts": facts}
    if rule:
        extra["rule"] = rule
    if exc.said:
        extra["said"] = exc.said
    answer = problem(exc.status, exc.title or titles.get(exc.status, "Bad Request"), exc.message, **extra)
    if exc.status == 401:
        answer.headers["WWW-Authenticate"] = 'Bearer realm="cronaca"'
    if exc.status == 503:
        answer.headers["Retry-After"] = "1"  # a statement cut by a timeout: the store is busy, not down
    return answer


def register(app: Any) -> None:
    app.register_error_handler(RecordsError, records_problem)  # a WrongKey is counted first (api/throttle.py)

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def store_away(exc: Exception) -> Response:
        """The event store unreachable past its own retries (PostgreSQL down or restarting, every connection cut):
        the service is unavailable for a moment, not broken (each append is one transaction: all of it or none).
        503 with Retry-After, which clients and balancers retry; the cause in the log, one line, not in the answer.
        (Was a 500 "the service failed" with a traceback logged.)"""
        logging.getLogger("cronaca.api").warning("the store did not answer: %s", first_line(exc))
        answer = problem(503, "Service Unavailable", "the event store cannot be reached just now; try again in a "
                         "moment (a command or upload sent again with the same Idempotency-Key is answered as stored "
                         "if this attempt was)")
        answer.headers["Retry-After"] = "2"
        return answer

    @app.errorhandler(RuleViolation)
    def rule_violation(exc: RuleViolation) -> Response:
        body = exc.to_json()
        return problem(422, "Rule violation", body["message"], rule=body["rule"], facts=body["facts"])
