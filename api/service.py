"""What the HTTP edge needs at hand: the records application, the job dispatcher, the settings, and for
teaching (issue 14) the annotations/variations/lessons facade and the lessons' live hub."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, request

from api.live import Hub, StreamCaps, hub_for
from domain.records import Records, Unauthorized
from domain.records.settings import Settings
from domain.records.teaching import Teaching
from workers.dispatch import Dispatcher, InProcessDispatcher, RQDispatcher


@dataclass
class Service:
    records: Records
    dispatcher: Dispatcher
    settings: Settings
    hub: Hub = field(default_factory=lambda: hub_for(None))  # lessons' live channel (api/live.py)
    streams: StreamCaps | None = None  # the live streams this process holds; from the settings' caps when None
    _teaching: Teaching | None = None
    _teaching_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def build(cls, settings: Settings) -> Service:
        records = Records(settings.store)
        dispatcher: Dispatcher = RQDispatcher.from_settings(settings) if settings.redis_url else InProcessDispatcher(records)
        return cls(records, dispatcher, settings, hub_for(settings.redis_url, settings.live_streams))

    def __post_init__(self) -> None:
        if self.streams is None:
            self.streams = StreamCaps(self.settings.live_streams, self.settings.live_streams_per_client)

    @property
    def caps(self) -> StreamCaps:
        """The live streams' caps: `streams`, which `__post_init__` sets when it is not given."""
        assert self.streams is not None
        return self.streams

    @property
    def teaching(self) -> Teaching:
        """Annotations, variations and lessons over the same records; built on first use, so a service
        that never teaches never builds them. Lessons publish their live changes through the hub."""
        if self._teaching is None:
            with self._teaching_lock:
                if self._teaching is None:
                    self._teaching = Teaching(self.records, publish=self.hub.publish)
        return self._teaching


def service() -> Service:
    return current_app.extensions["cronaca"]


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
    return current_app.response_class(json.dumps(body, separators=(",", ":")), status=status, mimetype="application/json")
