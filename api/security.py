"""What every answer and every request body goes through at the HTTP edge, in one place.

- Protective headers on every response (API, viewer, errors, the WSGI fast path): a
  Content-Security-Policy, no sniffing, no referrer (a seat token rides in the viewer's
  `#token=` fragment), no framing. A view that must be framed gets its own `HeaderPolicy`.
- Request bodies: each operation accepts exactly the media types its OpenAPI `requestBody`
  declares (JSON when it declares none), so a cross-site form (text/plain, multipart,
  urlencoded: the types a browser sends without asking) is refused with 415 before any view
  runs. JSON is parsed once here, bounded: no nesting deeper than MAX_DEPTH, no NaN or
  Infinity, no lone UTF-16 surrogates (not text; they break UTF-8 storage). Each refusal
  names the field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from apispec import BasePlugin
from flask import Flask, Response, current_app, g, request

from api.problems import problem
from domain.records.recordfile import nesting

JSON = "application/json"
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# Any JSON body: the parser's own bound, far below Python's recursion limit. A record file nests 8 levels
# (entries, commands, outcomes); its own, configurable bound is CRONACA_MAX_DEPTH (422 file/limit, default 32),
# so an import is refused here only when deeper than both (app config CRONACA_JSON_DEPTH is the larger).
MAX_DEPTH = 64

API_SOURCES = "default-src 'none'"
PAGE_SOURCES = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                "base-uri 'none'; form-action 'self'")
# The operators' pages only (/ops, api/operators.py): rq-dashboard's pages have inline scripts and styles and
# compile their templates with underscore's `_.template` (new Function), so they need these; no other page does.
OPS_PAGE_SOURCES = ("default-src 'none'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; "
                    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; "
                    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

V = TypeVar("V", bound=Callable[..., Any])


@dataclass(frozen=True)
class HeaderPolicy:
    """The protective headers of one kind of answer; `frame_ancestors` is what an embeddable page changes."""

    frame_ancestors: str = "'none'"

    def headers(self, page: bool) -> list[tuple[str, str]]:
        sources = PAGE_SOURCES if page else API_SOURCES
        found = [("Content-Security-Policy", f"{sources}; frame-ancestors {self.frame_ancestors}"),
                 ("X-Content-Type-Options", "nosniff"),
                 ("Referrer-Policy", "no-referrer")]
        if self.frame_ancestors == "'none'":
            found.append(("X-Frame-Options", "DENY"))  # for browsers that predate frame-ancestors
        return found


DEFAULT = HeaderPolicy()
API_HEADERS = DEFAULT.headers(page=False)  # the fast path's answers are API answers


def header_policy(policy: HeaderPolicy) -> Callable[[V], V]:
    """Give one view its own headers, e.g. `@header_policy(HeaderPolicy(frame_ancestors="https:"))`."""

    def mark(view: V) -> V:
        view.header_policy = policy  # type: ignore[attr-defined]
        return view

    return mark


def _protect(response: Response) -> Response:
    view = current_app.view_functions.get(request.endpoint or "")
    policy = getattr(view, "header_policy", DEFAULT)
    for name, value in policy.headers(page=response.mimetype == "text/html"):
        response.headers.setdefault(name, value)
    return response


# ---- request bodies ---------------------------------------------------------------------------------


class BodyTypes(BasePlugin):
    """Reads, while the OpenAPI document is built, which media types each operation's body may have."""

    def __init__(self) -> None:
        self.accepted: dict[tuple[str, str], tuple[str, ...]] = {}

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content")
            if content:
                self.accepted[(rule.endpoint, method.upper())] = tuple(content)


def accepted_types(endpoint: str, method: str) -> tuple[str, ...]:
    plugin: BodyTypes = current_app.extensions["cronaca.body_types"]
    return plugin.accepted.get((endpoint, method), (JSON,))


class BadBody(Exception):  # noqa: N818  (named for what happened)
    """A request body refused before any view sees it: status, what is wrong, and where (a JSON path)."""

    def __init__(self, status: int, detail: str, path: tuple[str | int, ...] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.path = path

    def answer(self) -> Response:
        extra: dict[str, Any] = {}
        if self.path is not None:
            extra["field"] = field_name(self.path)
        if self.path is not None and self.status == 422:  # shaped like the schemas' field messages
            errors: Any = [self.detail]
            for part in reversed(self.path):
                errors = {str(part): errors}
            extra["errors"] = {"json": errors}
        title = {400: "Bad Request", 415: "Unsupported Media Type"}.get(self.status, "Unprocessable Content")
        return problem(self.status, title, self.detail, **extra)


def field_name(path: Iterable[str | int]) -> str:
    """seats[0], options.solo.scenario: as a person would point at it."""
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name or "the body"


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"\\u{ord(text[exc.start]):04x}"
    return None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a JSON number here")
    return value


def load_json(raw: bytes, depth: int = MAX_DEPTH) -> Any:
    """A JSON body, or BadBody saying where and why: bounded depth, finite numbers, text that is Unicode."""
    if not raw.strip():
        raise BadBody(400, "the body is empty; send a JSON object with Content-Type: application/json")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadBody(400, f"the body is not UTF-8 (byte {exc.start}); send JSON encoded as UTF-8") from exc
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError as exc:
        path = _deep_path(text)
        raise BadBody(400, f"{field_name(path)}… nests deeper than {depth} levels; no request needs that many",
                      path) from exc
    except json.JSONDecodeError as exc:
        raise BadBody(400, f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}; "
                           "check quotes, commas and brackets") from exc
    except ValueError as exc:  # NaN, Infinity, 1e999, an integer of more than 4300 digits
        raise BadBody(400, f"the body is not valid JSON: {exc}") from exc
    if _deeper_than(value, depth) or SURROGATE_ESCAPE.search(text):
        _locate(value, depth)  # the slow walk, only to name the field
    return value


TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # strict UTF-8 decoding lets no other way in
COLON = re.compile(r"\s*:")


def _deep_path(text: str) -> tuple[str | int, ...]:
    """Where a body too deep for the parser goes deep: the first steps of its path, read from its tokens."""
    path: list[str | int] = []  # the steps into the containers open now, outermost first
    kinds: list[str] = []  # "[" or "{" for each open container
    key: str | int = 0  # the position in the innermost container
    for token in TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            if kinds:
                path.append(key)
                if len(path) >= 4:
                    break
            kinds.append(mark)
            key = 0
        elif mark in "]}":
            if kinds:
                kinds.pop()
            key = path.pop() if path else 0
        elif mark == "," and kinds and kinds[-1] == "[" and isinstance(key, int):
            key += 1
        elif mark.startswith('"') and kinds and kinds[-1] == "{" and COLON.match(text, token.end()):
            try:
                key = json.loads(mark)
            except ValueError:
                key = "?"
    return tuple(path)


def _deeper_than(value: Any, depth: int) -> bool:
    """Level by level, without recursion (the body is not trusted to be shallow), and fast."""
    return (type(value) is dict or type(value) is list) and nesting(value, depth) > depth


def _locate(value: Any, depth: int) -> None:
    """Where the body goes too deep or holds a lone surrogate: BadBody naming the field."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            bad = _lone_surrogate(node)
            if bad:
                raise BadBody(422, f"{field_name(path)} holds a lone surrogate ({bad}), which is not text; "
                                   "send it as valid Unicode", path)
            continue
        if not isinstance(node, (dict, list)):
            continue
        if len(path) >= depth:
            raise BadBody(400, f"{field_name(path[:4])}… nests deeper than {depth} levels; no request needs "
                               "that many", path[:4])
        if isinstance(node, dict):
            for key, item in node.items():
                bad = _lone_surrogate(key)
                if bad:
                    raise BadBody(422, f"a key of {field_name(path)} holds a lone surrogate ({bad}), which is not "
                                       "text; send it as valid Unicode", path)
                stack.append((item, (*path, key)))
        else:
            stack.extend((item, (*path, k)) for k, item in enumerate(node))


def json_body() -> Any:
    """The request's JSON body, parsed once (by the guard) and bounded."""
    if "json_body" not in g:
        g.json_body = load_json(request.get_data(cache=True), current_app.config.get("CRONACA_JSON_DEPTH", MAX_DEPTH))
    return g.json_body


def _guard_body() -> Response | None:
    if request.method not in BODY_METHODS or request.url_rule is None or request.endpoint is None:
        return None
    if request.method == "DELETE" and not request.mimetype and not request.get_data(cache=True):
        return None  # a DELETE names what it deletes in its address: no body, nothing to guard
    accepted = accepted_types(request.endpoint, request.method)
    if request.mimetype not in accepted:
        given = request.mimetype or "no Content-Type"
        names = " or ".join(accepted)
        answer = problem(415, "Unsupported Media Type",
                         f"this address takes {names} (sent: {given}); set Content-Type: {accepted[0]}",
                         accepted=list(accepted))
        answer.headers["Accept"] = ", ".join(accepted)
        return answer
    if request.mimetype == JSON:
        try:
            json_body()
        except BadBody as exc:
            return exc.answer()
    return None


def install(app: Flask, body_types: BodyTypes) -> None:
    """Protective headers on every Flask answer (errors included) and the body guard before every view."""
    app.extensions["cronaca.body_types"] = body_types
    app.before_request(_guard_body)
    app.after_request(_protect)
