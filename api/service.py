"""What the HTTP edge needs at hand: the records application, the job dispatcher, the settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, request

from domain.records import Records, Unauthorized
from domain.records.settings import Settings
from workers.dispatch import Dispatcher, InProcessDispatcher, RQDispatcher


@dataclass
class Service:
    records: Records
    dispatcher: Dispatcher
    settings: Settings

    @classmethod
    def build(cls, settings: Settings) -> Service:
        records = Records(settings.store)
        dispatcher: Dispatcher
        if settings.redis_url:
            dispatcher = RQDispatcher(settings.redis_url, settings.queue)
        else:
            dispatcher = InProcessDispatcher(records)
        return cls(records, dispatcher, settings)


def service() -> Service:
    return current_app.extensions["cronaca"]  # type: ignore[no-any-return]


def bearer() -> str | None:
    """The seat token from `Authorization: Bearer <token>`, if any."""
    header = request.headers.get("Authorization")
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized('send a seat token as "Authorization: Bearer <token>"')
    return token.strip()


def json_response(body: Any, status: int = 200) -> Any:
    """Serialise once with the standard library; the hot read paths skip schema dumping."""
    import json

    return current_app.response_class(json.dumps(body, separators=(",", ":")), status=status, mimetype="application/json")
