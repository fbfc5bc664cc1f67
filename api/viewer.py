"""The viewer shell's pages and assets, served from the replay_viewer package."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any
from uuid import UUID

import cairosvg
from flask import Blueprint, Response, abort, request
from flask.typing import ResponseReturnValue

from api.security import HeaderPolicy, header_policy
from domain.kernel.cache import Bounded

viewer = Blueprint("viewer", __name__)

TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# The folders assets are served from: the pages' own, and lib/ (the ES modules every page imports).
FOLDERS = frozenset({"", "lib"})
# An asset's bytes and ETag, read and hashed once per version of the file (its size and time of change): a page
# asks for ten of them on every load, each revalidated.
_READ: Bounded[tuple[str, int, int], tuple[bytes, str]] = Bounded("viewer-assets", 64)


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
    with resources.as_file(path) as file_path:
        seen = file_path.stat()
    key = (name, seen.st_size, seen.st_mtime_ns)
    found = _READ.get(key)
    if found is None:
        body = path.read_bytes()
        found = (body, hashlib.sha1(body, usedforsecurity=False).hexdigest())
        _READ.put(key, found)
    response = Response(found[0], content_type=TYPES[suffix])
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(found[1])
    return response.make_conditional(request)


@viewer.route("/")
def index() -> Any:
    return _asset("index.html")


@viewer.route("/records/new")
def new_record() -> Any:
    """Start a game from the browser: the title, the players in seat order, the options, live or at the table."""
    return _asset("new.html")


@viewer.route("/records/<uuid:record_id>")
def record(record_id: UUID) -> Any:
    return _asset("record.html")


@viewer.route("/embed/records/<uuid:record_id>")
@header_policy(HeaderPolicy(frame_ancestors="*"))
def embed(record_id: UUID) -> Any:
    """A compact player of one record that any site may frame (a club's page, a forum post): the board, the step
    controls and the step's sentence, public or all-seeing only (a seat token is never asked for in a frame).
    Only `frame-ancestors` is opened; the rest of the policy is every page's."""
    return _asset("embed.html")


@viewer.route("/favicon.ico")
def favicon() -> Any:
    """The site's icon, asked by every browser on every page: favicon.svg as a PNG (an .ico of one picture)."""
    response = Response(_icon(), content_type="image/png")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@cache
def _icon() -> bytes:
    svg = resources.files("replay_viewer").joinpath("favicon.svg").read_bytes()
    return bytes(cairosvg.svg2png(bytestring=svg, output_width=32, output_height=32))


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
    """Paste or upload what a table wrote, then check only or import; the report links each finding to its line
    and to the game as checked."""
    return _asset("import.html")


@viewer.route("/reconcile")
def reconcile_page() -> Any:
    """Two transcripts of one game side by side from their first divergence, with what the rules accept of each."""
    return _asset("reconcile.html")


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
