"""/api/records/{id}/analysis: a finished record's analysis (issue 33): ask for it, then poll for it.

The analysis runs as a job (RQ with REDIS_URL, a thread of this process otherwise: workers/dispatch.py) and is
stored once on a stream of its own (domain/records/analyses.py); a read answers what is stored.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import marshmallow
from flask_smorest import Blueprint
from marshmallow import fields

from api import schemas
from api.problems import CONTENT_TYPE as PROBLEM
from api.service import bearer, json_response, service
from domain.records.readmodels_analysis import DONE
from workers.dispatch import analysis_status, ask_analysis

blp = Blueprint("analyses", __name__, url_prefix="/api/records",
                description="A finished record's analysis: expected standings, turning points, luck")

READER: list[dict[str, list[str]]] = [{"seat": []}, {}]


class Standing(marshmallow.Schema):
    win = fields.Float(metadata={"description": "chance to win (a shared win counted in shares), 0-1"})
    rank = fields.Float(metadata={"description": "expected final rank (1 = first)"})
    score = fields.Float(metadata={"description": "expected final score"})


class Point(Standing):
    step = fields.Integer(metadata={"description": "the step after the decision (or chance) judged"})


class Expected(marshmallow.Schema):
    seat = fields.Integer()
    player = fields.String()
    series = fields.List(fields.Nested(Point), metadata={"description": "after every judged decision, from the view "
                                                                        "of the seat that decided"})


class WhatIf(marshmallow.Schema):
    from_step = fields.Integer(metadata={"description": "branch a variation here (POST /api/records/{id}/variations)"})
    parent = fields.String(allow_none=True)
    command = fields.Dict(metadata={"description": "then play this (POST /api/variations/{id}/commands)"})


class TurningPoint(marshmallow.Schema):
    step = fields.Integer(metadata={"description": "the step the decision was taken at"})
    seat = fields.Integer()
    player = fields.String()
    swing = fields.Float(metadata={"description": "what the choice did to its seat's chance to win"})
    rank_swing = fields.Float(metadata={"description": "what it did to its expected rank (negative: better)"})
    played = fields.String(metadata={"description": "the move played, in the title's words"})
    suggested = fields.String(allow_none=True, metadata={"description": "the reviewer's move there, in the title's "
                                                                         "words (null: its time was spent on larger swings)"})
    played_said = fields.String(allow_none=True, metadata={"description": "the move played as the move list tells it "
                                                                         "(null: nothing of it is told before chance)"})
    suggested_said = fields.String(allow_none=True, metadata={"description": "the reviewer's move as the move list "
                                                                             "would tell it, up to what chance draws"})
    same = fields.Boolean(metadata={"description": "the reviewer would have played the same (never listed now: "
                                                   "such a decision is no turning point)"})
    expected_before = fields.Nested(Standing, metadata={"description": "its seat's standing before the choice"})
    expected_played = fields.Nested(Standing)
    expected_suggested = fields.Nested(Standing, allow_none=True)
    what_if = fields.Nested(WhatIf, allow_none=True)


class Draw(marshmallow.Schema):
    step = fields.Integer(metadata={"description": "the step after the entry that met chance"})
    from_step = fields.Integer(metadata={"description": "the step that entry began at (what was drawn lies between)"})
    by = fields.Integer(allow_none=True, metadata={"description": "the seat whose move met chance (null: the setup)"})
    drawn = fields.List(fields.String(), metadata={"description": "what chance gave, as the record file's outcome "
                                                                  "values (the first few)"})
    win = fields.Float()
    score = fields.Float()


class Luck(marshmallow.Schema):
    seat = fields.Integer()
    player = fields.String()
    draws = fields.Integer()
    win = fields.Float(metadata={"description": "what chance did to its chance to win, all outcomes together"})
    score = fields.Float(metadata={"description": "what chance did to its expected score"})
    luckiest = fields.Nested(Draw, allow_none=True)
    unluckiest = fields.Nested(Draw, allow_none=True)
    each = fields.List(fields.Nested(Draw), metadata={"description": "every draw's luck, in step order"})


class Analysis(marshmallow.Schema):
    decisions = fields.Integer()
    chance_steps = fields.Integer()
    budget = fields.Dict()
    playouts = fields.Dict(keys=fields.String(), values=fields.Integer(),
                           metadata={"description": "games played out per estimate, as the clock allowed (`median`, "
                                                    "`fewest`, `most`): how far a figure can be trusted follows from "
                                                    "these, not from the budget"})
    expected = fields.List(fields.Nested(Expected))
    turning_points = fields.List(fields.Nested(TurningPoint))
    luck = fields.List(fields.Nested(Luck))


class AskBody(schemas.Strict):
    """Nothing to say yet: the budget is the service's one default. A JSON body all the same (`{}`): a
    cross-site form cannot send one without the browser asking first."""


class AnalysisStatus(marshmallow.Schema):
    id = fields.String()
    record_id = fields.String()
    edition = fields.Dict(metadata={"description": "the edition the record was analysed under"})
    status = fields.String(metadata={"description": "queued, running, done or failed"})
    progress = fields.Float(metadata={"description": "0-1"})
    attempts = fields.Integer(metadata={"description": "jobs queued for it (one lost with its worker is queued again)"})
    budget = fields.Dict()
    analysis = fields.Nested(Analysis, metadata={"description": "once done"})
    error = fields.String(metadata={"description": "once failed"})
    trust = fields.String(metadata={"description": "how far the title's win chances can be trusted: its measured "
                                                   "calibration in a sentence"})


@blp.route("/<uuid:record_id>/analysis", methods=["POST"])
@blp.arguments(AskBody)
@blp.response(202, AnalysisStatus, description="asked for (or already queued or running): poll the GET")
@blp.alt_response(200, schema=AnalysisStatus, description="done before: the analysis")
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="a token that opens no seat")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM, description="no such record")
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                  description="the game is in progress (rule analysis/in-progress), or the record's edition is no "
                              "longer the service's (rule analysis/edition, naming it)")
@blp.doc(security=READER)
def ask(_: dict[str, Any], record_id: UUID) -> Any:
    """Ask for the analysis of a finished record: run once, in the background, and stored. Asked again (or twice
    at once), the same analysis and job answer."""
    svc = service()
    status = svc.records.analyses.told(ask_analysis(svc.records, svc.dispatcher, record_id, bearer()), record_id, bearer())
    response = json_response(status.to_json(), 200 if status.status == DONE else 202)
    response.headers["Location"] = f"/api/records/{record_id}/analysis"
    return response


@blp.route("/<uuid:record_id>/analysis")
@blp.response(200, AnalysisStatus)
@blp.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="a token that opens no seat")
@blp.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                  description="no such record, or no analysis of it under its edition was asked for")
@blp.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the game is in progress")
@blp.doc(security=READER)
def read(record_id: UUID) -> Any:
    """The analysis's status (queued, running, done, failed), its progress 0-1, and once done the analysis:
    `expected` standings per seat, `turning_points` with the reviewer's move and its what-if line, `luck`."""
    svc = service()
    status = analysis_status(svc.records, svc.dispatcher, record_id, bearer())
    return json_response(svc.records.analyses.told(status, record_id, bearer()).to_json())
