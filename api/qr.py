"""POST /api/qr: a link drawn as a QR code (SVG), for the players at a table to scan from the page that started a game.

The links it draws hold secrets (a seat's token, a table key), so the link travels in a POST body only: never in an
address's query, which servers and proxies log. Drawn by segno (a well-kept, dependency-free QR encoder, ISO/IEC
18004), never by hand; nothing is stored or logged.
"""

from __future__ import annotations

import io
from typing import Any

import marshmallow
import segno
from flask import current_app
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api import schemas
from api.problems import CONTENT_TYPE as PROBLEM

blp = Blueprint("qr", __name__, url_prefix="/api", description="QR codes of links, for players to scan")

MAX_TEXT = 1000  # a record's link with its secret is about 100 characters; a QR code holds at most ~2900 bytes


class QrRequest(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_TEXT),
                         metadata={"description": "the link to draw (a seat's link, or the table key's)"})


def drawn(text: str) -> bytes:
    """`text` as a QR code in SVG (error correction M, a quiet zone of 4 modules as the standard asks)."""
    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="svg", scale=4, border=4, xmldecl=False, svgclass="qr", lineclass="qr-line",
              title="QR code of the link", dark="#000", light="#fff")
    return out.getvalue()


@blp.route("/qr", methods=["POST"])
@blp.arguments(QrRequest)
@blp.response(200, {"type": "string"}, content_type="image/svg+xml", description="the QR code, an SVG document")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="no text, or a text too long to draw")
def qr(body: dict[str, Any]) -> Any:
    """A link as a QR code; the link comes in the body, as it holds a secret (it is neither stored nor logged)."""
    response = current_app.response_class(drawn(body["text"]), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"  # the drawing holds the secret as much as the link does
    return response
