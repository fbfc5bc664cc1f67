"""/api/imports: submit a record file or a notation file, then poll for the verdict."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import request
from flask_smorest import Blueprint

from api import schemas
from api.security import JSON, json_body
from api.service import bearer, json_response, service
from api.transcripts import notation_body
from domain.transcripts import MEDIA_TYPE
from workers.dispatch import hand_over

blp = Blueprint("imports", __name__, url_prefix="/api/imports", description="Import record files")

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
@blp.doc(requestBody={"content": ACCEPTED, "required": True})
def submit() -> Any:
    """Submit a record file. It is saved first, then queued; poll its status. The seat tokens of the
    record it will create are in this answer only."""
    svc = service()
    if request.mimetype == MEDIA_TYPE:
        import_id, tokens = svc.records.submit_notation(notation_body())
    else:
        import_id, tokens = svc.records.submit(_document())
    hand_over(svc.records, svc.dispatcher, import_id, 1)  # if the queue is down, the relay retries
    status = svc.records.import_status(import_id)
    status["seats"] = [{"seat": i, "token": t} for i, t in enumerate(tokens)]
    response = json_response(status, 202)
    response.headers["Location"] = f"/api/imports/{import_id}"
    return response


@blp.route("/<uuid:import_id>")
@blp.response(200, schemas.ImportStatus)
@blp.doc(security=[{"seat": []}, {}])
def status(import_id: UUID) -> Any:
    """submitted, queued, validating, accepted (with record_id) or rejected (with the report)."""
    return json_response(service().records.import_status(import_id, bearer()))
