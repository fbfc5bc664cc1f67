"""The import job: replay a submitted record file through the rules and store the verdict."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.records import Records

_records: Records | None = None


def records() -> Records:
    """One application per worker process, configured like the API (same environment variables)."""
    global _records
    if _records is None:
        from domain.records.settings import Settings

        _records = Records(Settings.from_env().store)
    return _records


def run_validation(app: Records, import_id: UUID) -> dict[str, Any]:
    return app.validate_import(import_id)


def validate_import(import_id: str) -> dict[str, Any]:
    """RQ entry point (workers.jobs.validate_import)."""
    return run_validation(records(), UUID(import_id))
