"""The viewer shell's pages and assets, served from the replay_viewer package."""

from __future__ import annotations

from importlib import resources
from typing import Any
from uuid import UUID

from flask import Blueprint, Response, abort

viewer = Blueprint("viewer", __name__)

TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def _asset(name: str) -> Response:
    path = resources.files("replay_viewer") / name
    if "/" in name or not path.is_file():
        abort(404)
    suffix = name[name.rfind(".") :]
    return Response(path.read_bytes(), content_type=TYPES.get(suffix, "application/octet-stream"))


@viewer.route("/")
def index() -> Any:
    return _asset("index.html")


@viewer.route("/records/<uuid:record_id>")
def record(record_id: UUID) -> Any:
    return _asset("record.html")


@viewer.route("/api/docs")
def api_docs() -> Any:
    """The interactive page for /api/openapi.json (self-contained: no CDN)."""
    return _asset("apidocs.html")


@viewer.route("/viewer/<name>")
def asset(name: str) -> Any:
    return _asset(name)
