"""A short way through WSGI for the hottest read, `GET /api/records/{id}/steps/{n}`.

A viewer stepping through a game asks for one step per key press, and a finished record's
steps are answered from a cache; Flask's request machinery would then be most of the cost.
This middleware answers exactly that request when it succeeds and hands everything else —
including every error, so problem+json answers stay Flask's — to the Flask app unchanged.
The route is still declared in the blueprint, so the OpenAPI document describes it, and its
answers carry the same protective headers as Flask's (api.security).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any
from uuid import UUID

from api.security import API_HEADERS
from api.throttle import Guard
from domain.records import Records
from domain.records.presenting import Board

STEP = re.compile(r"^/api/records/([0-9a-fA-F-]{36})/steps/([0-9]{1,9})$")
BOARD = re.compile(r"^/api/records/([0-9a-fA-F-]{36})/steps/([0-9]{1,9})/board$")  # a finished record's, once drawn

Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class StepFastPath:
    def __init__(self, app: Wsgi, records: Records, guard: Guard) -> None:
        self.app = app
        self.records = records
        self.guard = guard

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        # A client over its budget of wrong credentials learns nothing from a credential here either: Flask answers 429.
        if (environ.get("REQUEST_METHOD") == "GET" and not environ.get("QUERY_STRING")
                and not (environ.get("HTTP_AUTHORIZATION") and self.guard.blocked(environ) is not None)):
            found = STEP.match(environ.get("PATH_INFO", ""))
            if found is not None:
                body = self._answer(found.group(1), int(found.group(2)), environ.get("HTTP_AUTHORIZATION"))
                if body is not None:
                    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                              *API_HEADERS])
                    return [body]
            found = BOARD.match(environ.get("PATH_INFO", ""))
            if found is not None and not environ.get("HTTP_IF_NONE_MATCH"):
                board = self._board(found.group(1), int(found.group(2)), environ.get("HTTP_AUTHORIZATION"))
                if board is not None:
                    start_response("200 OK", [("Content-Type", "image/svg+xml; charset=utf-8"), ("Content-Length", str(len(board.svg))),
                                              ("ETag", board.etag), ("Cache-Control", "public, max-age=3600"),
                                              *API_HEADERS])
                    return [board.svg]
        return self.app(environ, start_response)

    @staticmethod
    def _token(authorization: str | None) -> tuple[bool, str | None]:
        """(usable, token): a malformed Authorization header is left to Flask to refuse properly."""
        if not authorization:
            return True, None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return False, None
        return True, token.strip()

    def _board(self, record_id: str, n: int, authorization: str | None) -> Board | None:
        usable, token = self._token(authorization)
        if not usable:
            return None
        try:
            return self.records.presenting.kept_board(UUID(record_id), n, token)
        except Exception:  # noqa: BLE001  (Flask answers it again, properly)
            return None

    def _answer(self, record_id: str, n: int, authorization: str | None) -> bytes | None:
        usable, token = self._token(authorization)
        if not usable:
            return None
        try:
            return self.records.reading.step_json(UUID(record_id), n, token)
        except Exception:  # noqa: BLE001  (Flask answers it again, properly, as problem+json)
            return None
