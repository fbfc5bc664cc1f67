"""/api/imports: submit a record file, then poll for the verdict."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from flask import request
from flask_smorest import Blueprint
from werkzeug.exceptions import BadRequest

from api import schemas
from api.service import json_response, service
from workers.dispatch import hand_over

blp = Blueprint("imports", __name__, url_prefix="/api/imports", description="Import record files")


def _document() -> Any:
    """The file from a JSON body, or from a multipart upload's `file` field."""
    upload = request.files.get("file")
    raw = upload.read() if upload is not None else request.get_data()
    if not raw:
        raise BadRequest("send the record file as the JSON body (or as multipart field `file`)")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the record file is not valid JSON: {exc}") from exc


@blp.route("", methods=["POST"])
@blp.response(202, schemas.ImportStatus)
@blp.doc(requestBody={"content": {"application/json": {"schema": {"type": "object"}}}, "required": True})
def submit() -> Any:
    """Submit a record file. It is saved first, then queued; poll its status. The seat tokens of the
    record it will create are in this answer only."""
    svc = service()
    import_id, tokens = svc.records.submit(_document())
    hand_over(svc.records, svc.dispatcher, import_id, 1)  # if the queue is down, the relay retries
    status = _status(import_id)
    status["seats"] = [{"seat": i, "token": t} for i, t in enumerate(tokens)]
    response = json_response(status, 202)
    response.headers["Location"] = f"/api/imports/{import_id}"
    return response


def _status(import_id: UUID) -> dict[str, Any]:
    found = service().records.get_import(import_id)
    return {"id": str(import_id), "status": found.status, "attempts": found.attempts, "record_id": found.record_id,
            "report": found.report}


@blp.route("/<uuid:import_id>")
@blp.response(200, schemas.ImportStatus)
def status(import_id: UUID) -> Any:
    """submitted, queued, validating, accepted (with record_id) or rejected (with the report)."""
    return json_response(_status(import_id))
