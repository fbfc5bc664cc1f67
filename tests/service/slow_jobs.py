"""Job wrappers only the worker tests queue: the real jobs, lingering so that a test kills their worker mid-job."""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from domain.kernel.review import reviewer
from domain.records import analyses
from workers import jobs

PAUSE = 30.0


def validate_import_slowly(import_id: str) -> dict[str, Any]:
    """Marks the import validating, then waits long enough for a test to kill this worker mid-job."""
    jobs.records().imports.mark_validating(UUID(import_id))
    time.sleep(PAUSE)
    return jobs.validate_import(import_id)


def analyse_record_slowly(analysis_id: str, job_id: str) -> dict[str, Any]:
    """The real analysis job, each of its rows stored as soon as judged and each estimate lingering, so that a test
    kills this worker mid-walk with some rows stored."""
    class Lingering:
        def __init__(self, budget: Any) -> None:
            self.inner = reviewer(budget)

        def estimate(self, *args: Any) -> Any:
            time.sleep(0.2)
            return self.inner.estimate(*args)

        def suggest(self, *args: Any) -> Any:
            return self.inner.suggest(*args)

    analyses.reviewer = Lingering  # type: ignore[assignment]  # this worker process only runs this test's jobs
    jobs.records().analyses.save_every = 0.0
    return jobs.analyse_record(analysis_id, job_id)
