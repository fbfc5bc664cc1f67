"""What `Records.analyses` answers: an analysis's status and, once done, the analysis (readmodels.py's kin)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

QUEUED = "queued"
RUNNING = "running"
DONE = "done"
FAILED = "failed"


@dataclass(frozen=True, slots=True)
class AnalysisStatus:
    """One record's analysis under one edition: where its job is, how far it got, and what it found."""

    id: str
    record_id: str
    edition: dict[str, str]
    status: str  # queued, running, done, failed
    progress: float  # 0-1
    attempts: int  # jobs queued for it so far
    budget: dict[str, Any]
    analysis: dict[str, Any] | None = None  # once done: expected, turning_points, luck (review_walk.assemble)
    error: str | None = None  # once failed: why
    trust: str | None = None  # how far the title's win chances can be trusted (review.calibration_sentence)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "record_id": self.record_id, "edition": self.edition,
                               "status": self.status, "progress": round(self.progress, 3), "attempts": self.attempts,
                               "budget": self.budget}
        if self.analysis is not None:
            out["analysis"] = self.analysis
        if self.error is not None:
            out["error"] = self.error
        if self.trust is not None:
            out["trust"] = self.trust
        return out
