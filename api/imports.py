"""/api/imports: submit a record file or a notation file, then poll for the verdict."""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import UUID

import marshmallow
from flask import current_app, request
from flask_smorest import Blueprint
from marshmallow import fields

from api import schemas
from api.problems import CONTENT_TYPE as PROBLEM
from api.problems import problem
from api.records import NO_LAYOUT, REPLAYED, idempotency_key
from api.security import JSON, json_body
from api.service import bearer, json_response, service
from api.transcripts import notation_body
from domain.records.access import new_tokens
from domain.records.errors import AlreadySubmitted
from domain.records.readmodels_imports import Submitted
from domain.transcripts import MEDIA_TYPE
from replay_viewer import boards
from replay_viewer.boards import NoLayout
from workers.dispatch import hand_over

blp = Blueprint("imports", __name__, url_prefix="/api/imports", description="Import record files")

class AssumedLine(marshmallow.Schema):
    line = fields.Integer()
    column = fields.Integer()
    step = fields.Integer(metadata={"description": "the step just before this line in the game as checked"})
    round = fields.Integer()
    player = fields.String()
    rule = fields.String()
    written = fields.String(metadata={"description": "what the line says"})
    assumed = fields.String(metadata={"description": "what the checker went on with instead (or `skipped`)"})
    message = fields.Raw()


class ImportReplay(marshmallow.Schema):
    id = fields.String()
    title = fields.String()
    edition = fields.Dict()
    seats = fields.List(fields.Dict())
    options = fields.Dict()
    steps = fields.Integer()
    finished = fields.Boolean(metadata={"description": "the game as checked reaches its end"})
    view_of = fields.String(metadata={"description": "all (the file says the game ended), seat:N or public"})
    assumed = fields.List(fields.Nested(AssumedLine))
    findings = fields.Integer()
    summary = fields.String()
    as_reported = fields.Boolean(metadata={"description": "false when the rules read the file differently today "
                                                          "than when its report was made"})
    turns = fields.List(fields.Nested(schemas.Turn))


# The body types a record file may come as. The OpenAPI requestBody below is built from this list and
# api.security refuses any other type with 415, so a type added here is documented and accepted at once.
# No multipart upload: a cross-site form can send one without the browser asking first (CSRF).
ACCEPTED: dict[str, dict[str, Any]] = {
    JSON: {"schema": {"type": "object"}, "description": "a record file (docs/formats/record-json.md)"},
    MEDIA_TYPE: {"schema": {"type": "string"}, "description": "a notation file (docs/notation/), UTF-8"},
}


def _document() -> Any:
    """The record file: the JSON body, parsed and bounded by api.security."""
    return json_body()


@blp.route("", methods=["POST"])
@blp.response(202, schemas.ImportStatus)
@blp.doc(requestBody={"content": ACCEPTED, "required": True}, parameters=[schemas.IDEMPOTENCY_KEY])
def submit() -> Any:
    """Submit a record file. It is saved first, then queued; poll its status. The seat tokens of the
    record it will create are in this answer only. With an `Idempotency-Key`, a retry of a submission
    that was saved answers the same import's status, without the tokens and keys (docs/api.md)."""
    svc = service()
    annotator, arbiter, table = new_tokens(3)
    key = idempotency_key()
    try:
        if request.mimetype == MEDIA_TYPE:
            import_id, tokens = svc.records.imports.submit_notation(notation_body(), annotator, arbiter, idempotency_key=key,
                                                                        table_key=table)
        else:
            import_id, tokens = svc.records.imports.submit(_document(), annotator, arbiter, idempotency_key=key,
                                                               table_key=table)
    except AlreadySubmitted as again:
        # Its seat tokens and keys were shown once, and are stored hashed: a retry never shows them again (a key
        # is no secret; whoever learnt it must not learn the tokens). The relay queues it if the first did not.
        response = json_response(svc.records.imports.status(again.import_id).to_json(), 202)
        response.headers["Location"] = f"/api/imports/{again.import_id}"
        response.headers[REPLAYED] = "true"
        return response
    hand_over(svc.records, svc.dispatcher, import_id, 1)  # if the queue is down, the relay retries
    # the seat tokens and the keys are shown once: the annotator's for notes and variations, the arbiter's for rulings,
    # the table's to go on with a game in progress at the table (what a seat's token may not enter: play.py)
    submitted = Submitted(svc.records.imports.status(import_id), tokens, annotator, arbiter, table)
    response = json_response(submitted.to_json(), 202)
    response.headers["Location"] = f"/api/imports/{import_id}"
    return response


@blp.route("/<uuid:import_id>")
@blp.response(200, schemas.ImportStatus)
@blp.doc(security=[{"seat": []}, {}])
def status(import_id: UUID) -> Any:
    """submitted, queued, validating, accepted (with record_id) or rejected (with the report)."""
    return json_response(service().records.imports.status(import_id, bearer()).to_json())


# ---- a rejected import's game as checked, replayed read-only ---------------------------------------
# The checker goes on past each finding with the closest legal move assumed, so the file's game can be
# stepped through without making a record (domain/records/replayed.py). Readers as for the status.


@blp.route("/<uuid:import_id>/replay")
@blp.response(200, ImportReplay)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="the import made a record (`facts.record_id`: replay that), is not judged yet, or its "
                              "moves were never read")
@blp.doc(security=[{"seat": []}, {}])
def replay(import_id: UUID) -> Any:
    """A rejected import's game as checked: title, seats, steps, turns and every line where the checker
    assumed another move (or outcome) than the written one. Nothing is stored: it is read again from the file."""
    return json_response(service().records.replays.summary(import_id, bearer()).to_json())


@blp.route("/<uuid:import_id>/replay/steps/<int:n>")
@blp.response(200, schemas.Step)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="as for /replay")
@blp.doc(security=[{"seat": []}, {}])
def replay_step(import_id: UUID, n: int) -> Any:
    """The state after the first n events of the game as checked (a finding's `step` is the one just before
    its line): all-seeing when the file says the game ended; otherwise the token's seat view, or what every
    player sees without a token."""
    return json_response(service().records.replays.step(import_id, n, bearer()).to_json())


@blp.route("/<uuid:import_id>/replay/steps/<int:n>/board")
@blp.response(200, schemas.SVG, description="an SVG document: the board at step n of the game as checked, as the "
                                            "reader may see it, what changed since step n-1 highlighted",
              content_type="image/svg+xml")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such import or step; or no board layout (type ends in `no-layout`)")
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="as for /replay")
@blp.alt_response(304, description="not modified: the `If-None-Match` sent is this drawing's ETag (no body)")
@blp.doc(security=[{"seat": []}, {}])
def replay_board(import_id: UUID, n: int) -> Any:
    """The board at step n of the game as checked, drawn as for a record's step."""
    try:
        svg = service().records.replays.board(import_id, n, bearer(), boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response = current_app.response_class(svg, mimetype="image/svg+xml")
    response.set_etag(hashlib.sha256(svg).hexdigest()[:32])
    response.headers["Cache-Control"] = "private, no-cache"  # a seat's view may be in it: never shared
    return response.make_conditional(request)


@blp.route("/<uuid:import_id>/replay/story")
@blp.response(200, schemas.Story)
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="as for /replay")
@blp.doc(security=[{"seat": []}, {}])
def replay_story(import_id: UUID) -> Any:
    """The move list of the game as checked, one sentence per event, as the reader may read it."""
    return json_response(service().records.replays.story(import_id, bearer()).to_json())
