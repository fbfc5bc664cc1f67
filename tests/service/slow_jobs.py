"""A job wrapper only the worker tests queue: the real job, after lingering in "validating"."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from workers import jobs

PAUSE = 30.0


def validate_import_slowly(import_id: str) -> dict[str, Any]:
    """Marks the import validating, then waits long enough for a test to kill this worker mid-job."""
    jobs.records().imports.mark_validating(UUID(import_id))
    time.sleep(PAUSE)
    return jobs.validate_import(import_id)
