"""The viewer shell's pages and assets, served from the replay_viewer package."""

from __future__ import annotations

from importlib import resources
from typing import Any
from uuid import UUID

from flask import Blueprint, Response, abort, request
from flask.typing import ResponseReturnValue

viewer = Blueprint("viewer", __name__)

TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# The folders assets are served from: the pages' own, and lib/ (the ES modules every page imports).
FOLDERS = frozenset({"", "lib"})


def _asset(name: str) -> ResponseReturnValue:
    """A page, script or style sheet of the viewer; nothing else of the package (its Python) is served.

    Revalidated on every use (no-cache, with an ETag): a page imports several modules, each answered 304 while
    unchanged, and a new version of the viewer is never mixed with a cached old one.
    """
    folder, _, file = name.rpartition("/")
    suffix = file[file.rfind(".") :]
    path = resources.files("replay_viewer").joinpath(*name.split("/"))
    if folder not in FOLDERS or suffix not in TYPES or not path.is_file():
        abort(404)
    response = Response(path.read_bytes(), content_type=TYPES[suffix])
    response.headers["Cache-Control"] = "no-cache"
    response.add_etag()
    return response.make_conditional(request)


@viewer.route("/")
def index() -> Any:
    return _asset("index.html")


@viewer.route("/records/<uuid:record_id>")
def record(record_id: UUID) -> Any:
    return _asset("record.html")


@viewer.route("/lessons/<uuid:lesson_id>")
def lesson(lesson_id: UUID) -> Any:
    """A lesson: the teacher presents (with the key in #key=), the class follows live."""
    return _asset("lesson.html")


@viewer.route("/lessons/new")
def new_lesson() -> Any:
    """The same page with a small form: a title and an introduction make a lesson and its teacher key."""
    return _asset("lesson.html")


@viewer.route("/import")
def import_page() -> Any:
    """Paste or upload what a table wrote; the report links each finding to its line."""
    return _asset("import.html")


@viewer.route("/imports/<uuid:import_id>/replay")
def import_replay(import_id: UUID) -> Any:
    """A rejected import's game as checked, step by step: where each finding of its report links."""
    return _asset("replay.html")


@viewer.route("/api/docs")
def api_docs() -> Any:
    """The interactive page for /api/openapi.json (self-contained: no CDN)."""
    return _asset("apidocs.html")


@viewer.route("/viewer/<path:name>")
def asset(name: str) -> Any:
    return _asset(name)
