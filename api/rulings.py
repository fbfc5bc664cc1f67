"""/api/records/{id}/rulings and /ruled: rulings on the record and the record "as ruled" (issue 15, part 4).

The arbiter key (made with the record or the import, shown once) records a ruling; everyone reads them. The
domain (domain/records/rulings.py) checks everything, decides a correction by the rules, and raises the
service's own errors, which api/problems.py answers as problem+json.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response, current_app
from flask_smorest import Blueprint

from api import schemas
from api.problems import CONTENT_TYPE as PROBLEM
from api.problems import problem
from api.records import NO_LAYOUT
from api.security import JSON, json_body
from api.service import bearer, json_response, service
from domain.records.rulings import Arbitration
from replay_viewer import boards
from replay_viewer.boards import NoLayout

blp = Blueprint("rulings", __name__, url_prefix="/api/records",
                description="Rulings on the record: an arbiter's decisions, with corrections decided by the rules, "
                            "and the record as ruled")

ARBITER: list[dict[str, list[str]]] = [{"arbiter": []}]  # OpenAPI security requirements, as api.teaching's
READER: list[dict[str, list[str]]] = [{"seat": []}, {}]
EXTENSION = "cronaca.rulings"

ENTRY = {"type": "object", "description": "a log entry: {command, outcomes} (events, when given, must be the rules' own)"}
RULING_BODY = {
    "type": "object",
    "additionalProperties": False,
    "required": ["decision", "reason"],
    "properties": {
        "step": {"type": "integer", "nullable": True, "description": "the step of the record the ruling is about"},
        "line": {"type": "integer", "nullable": True, "description": "the notation line the ruling is about (1-based)"},
        "decision": {"type": "string", "description": "what was decided (<= 2,000 characters)"},
        "reason": {"type": "string", "description": "why (<= 8,000 characters)"},
        "correction": {"type": "object", "nullable": True,
                       "description": "a replacement line from a decision point of the main line, decided by the rules "
                                      "as a variation is; finished records only",
                       "properties": {"from_step": {"type": "integer"}, "entries": {"type": "array", "items": ENTRY}}},
    },
}


def arbitration() -> Arbitration:
    """The rulings service of this app, over the same records and variations as teaching (built on first use)."""
    found = current_app.extensions.get(EXTENSION)
    if found is None:
        made = service()
        found = current_app.extensions.setdefault(EXTENSION, Arbitration(made.records, made.teaching.variations))
    return found


@blp.route("/<uuid:record_id>/rulings")
@blp.response(200, schemas.RulingList, description="the rulings, oldest first, and their chain's head")
def list_rulings(record_id: UUID) -> Any:
    """A record's rulings, oldest first (everyone may read them), and the head of their hash chain."""
    return json_response(arbitration().list(record_id).to_json())


@blp.route("/<uuid:record_id>/rulings", methods=["POST"])
@blp.response(201, schemas.Ruling, description="the ruling as stored")
@blp.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no arbiter key")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="not this record's arbiter key")
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="a correction on a record in progress (it would replay what its seats cannot see)")
@blp.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                  description="a step or line that does not exist, a missing decision or reason, or a correction the "
                              "rules refuse (the rule id, the entry); nothing is stored")
@blp.doc(security=ARBITER, requestBody={"content": {JSON: {"schema": RULING_BODY}}, "required": True})
def rule(record_id: UUID) -> Any:
    """Record a ruling: the step or line it is about, the decision, the reason, and optionally a correction."""
    ruling = arbitration().rule(record_id, bearer(), json_body())
    response = json_response(ruling.to_json(), 201)
    response.headers["Location"] = f"/api/records/{record_id}/rulings/{ruling.id}"
    return response


@blp.route("/<uuid:record_id>/rulings/<ruling_id>")
@blp.response(200, schemas.Ruling, description="one ruling")
def one_ruling(record_id: UUID, ruling_id: str) -> Any:
    """One ruling of a record."""
    return json_response(arbitration().one(record_id, ruling_id).to_json())


@blp.route("/<uuid:record_id>/ruled")
@blp.response(200, schemas.Ruled, description="the as-ruled reading in brief, beside the record as played")
@blp.doc(security=READER)
def ruled(record_id: UUID) -> Any:
    """The record as ruled: the main line up to the latest correction's from_step, then its entries (without
    corrections, the record as played)."""
    return json_response(arbitration().summary(record_id, bearer()).to_json())


@blp.route("/<uuid:record_id>/ruled/steps/<int:n>")
@blp.response(200, schemas.RuledStep)
@blp.doc(security=READER)
def ruled_step(record_id: UUID, n: int) -> Any:
    """Step n of the record as ruled (all-seeing once corrected; else the record's own step as the reader may see it)."""
    return json_response(arbitration().step(record_id, n, bearer()).to_json())


@blp.route("/<uuid:record_id>/ruled/steps/<int:n>/board")
@blp.response(200, schemas.SVG, description="an SVG document: the board at step n of the record as ruled, what "
                                            "changed since step n-1 highlighted", content_type="image/svg+xml")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such record or step; or no board layout (type ends in `no-layout`)")
@blp.doc(security=READER)
def ruled_board(record_id: UUID, n: int) -> Any:
    """The board at step n of the record as ruled, drawn as the record's boards are."""
    try:
        svg = arbitration().board(record_id, n, bearer(), boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response: Response = current_app.response_class(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"  # a new ruling may change the reading
    return response


@blp.route("/<uuid:record_id>/ruled/story")
@blp.response(200, schemas.RuledStory)
@blp.doc(security=READER)
def ruled_story(record_id: UUID) -> Any:
    """The latest correction's moves in words (the main line's before it are in the record's story)."""
    return json_response(arbitration().story(record_id, bearer()).to_json())
