"""/api/check and /api/reconcile: table notation checked on the spot, nothing stored.

`POST /api/imports` stores a file and creates a record from it; these two only answer:
the dispute report of one notation file, or the reconciliation of two transcripts of one
game. The caller sent the text, so the report shows everything it implies.
"""

from __future__ import annotations

import os
from typing import Any

import marshmallow
from flask import request
from flask_smorest import Blueprint
from marshmallow import fields, validate
from werkzeug.exceptions import BadRequest

from api import schemas
from api.problems import CONTENT_TYPE as PROBLEM
from api.problems import problem
from api.service import json_response
from domain.kernel import ALL, reveal
from domain.records.errors import TooLarge
from domain.records.settings import Limits
from domain.transcripts import MEDIA_TYPE, UnreadableTranscriptError, check_text, reconcile_texts

blp = Blueprint("transcripts", __name__, url_prefix="/api", description="Check and reconcile table notation")

MAX_TEXT = 2_000_000  # characters of notation in one text: a long game is ~40,000


class CheckBody(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TEXT),
                         metadata={"description": "a notation file (docs/notation/)"})


class ReconcileBody(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    first = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TEXT))
    second = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TEXT))


def bounded(text: str) -> str:
    """The same size bound as an import (CRONACA_MAX_NOTATION_BYTES): 413 beyond it."""
    too_large = Limits.from_env(os.environ).notation_size(text)
    if too_large is not None:
        raise TooLarge(too_large, rule="file/limit", limit="CRONACA_MAX_NOTATION_BYTES")
    return text


def notation_body() -> str:
    """The notation text of a request: a `text/x-cronaca-notation` body, or JSON `{"text": ...}`."""
    return bounded(_notation_text())


def notation_text(raw: bytes) -> str:
    """A notation file's bytes as its text (UTF-8, a BOM allowed), or ValueError saying why not (`cronaca import`
    reads files with it too)."""
    if b"\x00" in raw:
        raise ValueError("this is not a text file (it holds NUL bytes)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"the notation is not UTF-8 text (byte {exc.start})") from exc


def _notation_text() -> str:
    if request.mimetype == MEDIA_TYPE:
        try:
            return notation_text(request.get_data())
        except ValueError as exc:
            raise BadRequest(str(exc)) from exc
    body = request.get_json(silent=True)
    try:
        return str(CheckBody().load(body if isinstance(body, dict) else {})["text"])
    except marshmallow.ValidationError as exc:
        raise BadRequest(f"send the notation as a {MEDIA_TYPE} body or as JSON {{\"text\": ...}}: {exc.messages}") from exc


@blp.route("/check", methods=["POST"])
@blp.response(200, schemas.CheckReport, description="the dispute report (docs/notation/): findings at their lines, "
                                                     "unknowns narrowed")
@blp.doc(requestBody={"content": {MEDIA_TYPE: {"schema": {"type": "string"}},
                                  "application/json": {"schema": {"type": "object", "properties": {"text": {"type": "string"}}}}},
                      "required": True})
def check() -> Any:
    """Check a notation file on the spot; nothing is stored."""
    return json_response(reveal(check_text(notation_body()).to_json(), ALL))


@blp.route("/reconcile", methods=["POST"])
@blp.arguments(ReconcileBody)
@blp.response(200, schemas.Reconciliation, description="every disagreement, the first divergence, and which version "
                                                        "the rules accept")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                  description="a transcript the notation cannot read at all (a NUL byte): which one (field), its line")
def reconcile(body: dict[str, Any]) -> Any:
    """Two transcripts of one game (each player kept a log), aligned turn by turn."""
    try:
        found = reconcile_texts(bounded(body["first"]), bounded(body["second"]))
    except UnreadableTranscriptError as exc:
        return problem(422, "Unreadable transcript", str(exc), rule="notation/unreadable", field=exc.side,
                       line=exc.line, column=exc.column)
    return json_response(reveal(found, ALL))
