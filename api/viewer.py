"""The viewer shell's pages and assets, served from the replay_viewer package."""

from __future__ import annotations

import hashlib
import html
from functools import cache
from importlib import resources
from typing import Any
from uuid import UUID

import cairosvg
from flask import Blueprint, Response, abort, request
from flask.typing import ResponseReturnValue

from api.security import HeaderPolicy, header_policy
from api.service import service
from domain import catalog
from domain.kernel.cache import Bounded
from domain.records.errors import RecordsError
from replay_viewer import boards

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


def _page(name: str, card: str) -> ResponseReturnValue:
    """A page with its link preview (`card`, meta tags) written into its head; revalidated like every asset."""
    body = _asset_bytes(name).replace(b"</head>", card.encode() + b"</head>", 1)
    response = Response(body, content_type=TYPES[".html"])
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(hashlib.sha1(body, usedforsecurity=False).hexdigest())
    return response.make_conditional(request)


def _asset_bytes(name: str) -> bytes:
    return resources.files("replay_viewer").joinpath(name).read_bytes()


def _asked_step() -> int | None:
    """The step a shared link names in its query (`?step=N`): a fragment never reaches the server, nor a chat's
    preview, so a link to a step carries it there too (the page moves it into its fragment)."""
    raw = request.args.get("step", "")
    return int(raw) if raw.isdigit() and len(raw) < 10 else None


def card(record_id: UUID, path: str) -> str:
    """A record's link preview (OpenGraph and Twitter meta tags): its title and players, the step's sentence and
    the board at that step as a picture, all as anyone may see them (no token: a game in progress shows its public
    view only). `?spoilers=off` says neither the game's length nor its end. No record, no preview. Its links are
    absolute, at CRONACA_PUBLIC_URL when it is set, else at the host the request names."""
    step, spoilers = _asked_step(), request.args.get("spoilers") != "off"
    try:
        summary = service().records.reading.summary(record_id, None)
        if step is None:  # where the page opens: a finished game after its setup, a game in progress at its last step
            turns = service().records.reading.turns(record_id, None) if summary.finished else []
            shown = min(turns[0].stop, summary.steps) if turns else summary.steps
        else:
            shown = min(step, summary.steps)
        lines = service().records.presenting.story(record_id, None).lines if step is not None else ()
    except RecordsError:
        return ""
    name = catalog.game(summary.title).name
    players = ", ".join(seat["name"] for seat in summary.seats)
    title = f"{name}: {players}" + (f", step {shown}" if step is not None else "")
    if step is None:
        state = (f"finished in {summary.steps} steps" if summary.finished else f"in progress, {summary.steps} steps "
                 "so far") if spoilers else ("finished" if summary.finished else "in progress")
        description = f"A game of {name} for {len(summary.seats)} players ({players}), {state}."
    else:
        said = [line.text for line in lines if line.step <= shown]
        sentence = said[-1] if said and shown > 0 else "Before the game: nothing has happened yet."
        description = f"Step {shown}" + (f" of {summary.steps}" if spoilers else "") + f": {sentence}"
    query = "&".join(part for part in (f"step={step}" if step is not None else "",
                                       "spoilers=off" if not spoilers else "") if part)
    # the configured address (CRONACA_PUBLIC_URL) when there is one: the Host header is the client's to write
    root = service().settings.public_url or request.host_url.rstrip("/")
    tags = {"og:type": "website", "og:site_name": "Cronaca", "og:title": title, "og:description": description,
            "og:url": f"{root}{path}" + (f"?{query}" if query else ""),
            "twitter:card": "summary", "twitter:title": title, "twitter:description": description}
    if boards.drawable(summary.title, summary.edition["id"]):
        picture = f"{root}/api/records/{record_id}/steps/{shown}/board.png"
        alt = f"The board of {name} at step {shown}"
        tags.update({"og:image": picture, "og:image:alt": alt, "twitter:card": "summary_large_image",
                     "twitter:image": picture, "twitter:image:alt": alt})
    return "".join(f'<meta {"name" if key.startswith("twitter:") else "property"}="{key}" '
                   f'content="{html.escape(value, quote=True)}">\n' for key, value in tags.items()) \
        + f'<meta name="description" content="{html.escape(description, quote=True)}">\n'


@viewer.route("/")
def index() -> Any:
    return _asset("index.html")


@viewer.route("/records/new")
def new_record() -> Any:
    """Start a game from the browser: the title, the players in seat order, the options, live or at the table."""
    return _asset("new.html")


@viewer.route("/records/<uuid:record_id>")
def record(record_id: UUID) -> Any:
    """The record page, with the link preview a chat shows for it (`card`)."""
    return _page("record.html", card(record_id, f"/records/{record_id}"))


@viewer.route("/embed/records/<uuid:record_id>")
@header_policy(HeaderPolicy(frame_ancestors="*"))
def embed(record_id: UUID) -> Any:
    """A compact player of one record that any site may frame (a club's page, a forum post): the board, the step
    controls and the step's sentence, public or all-seeing only (a seat token is never asked for in a frame).
    Only `frame-ancestors` is opened; the rest of the policy is every page's. A link to it unfurls as the record
    page's does (`card`)."""
    return _page("embed.html", card(record_id, f"/embed/records/{record_id}"))


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
