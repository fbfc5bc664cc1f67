"""What `Arbitration` (rulings.py) answers: the rulings on a record and the record "as ruled", typed
(readmodels.py's kin).

Each model's `to_json()` is the API's answer (`/api/records/{id}/rulings`, `/ruled`, `/ruled/steps/{n}`,
`/ruled/story`), key for key and in the same order. A correction stays the plain JSON object it is stored as
(`from_step` and the log entries the rules gave back), as the record file carries it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.records.readmodels import Step

RULED = "ruled"  # the reading every as-ruled answer names


@dataclass(frozen=True, slots=True)
class Ruling:
    """One ruling as stored: what it is about (a step, a notation line), the decision, the reason, the
    correction if any, who ruled and when."""

    id: str
    step: int | None
    line: int | None
    decision: str
    reason: str
    correction: dict[str, Any] | None
    by: str
    at: str

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Ruling:
        """The ruling of a stored one (a copy: the stored one is shared)."""
        correction = stored.get("correction")
        return cls(stored["id"], stored.get("step"), stored.get("line"), stored["decision"], stored["reason"],
                   copy.deepcopy(correction) if correction is not None else None, stored["by"], stored["at"])

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "step": self.step, "line": self.line, "decision": self.decision, "reason": self.reason,
                "correction": self.correction, "by": self.by, "at": self.at}


@dataclass(frozen=True, slots=True)
class RulingList:
    """Every ruling of a record, oldest first, the one the as-ruled reading follows, and the stream's chain."""

    record_id: str
    rulings: tuple[Ruling, ...]
    as_ruled: str | None
    chain_head: str | None
    chain_length: int

    def to_json(self) -> dict[str, Any]:
        return {"record_id": self.record_id, "rulings": [r.to_json() for r in self.rulings], "as_ruled": self.as_ruled,
                "chain": {"head": self.chain_head, "length": self.chain_length}}


@dataclass(frozen=True, slots=True)
class AsPlayed:
    """The record as played, beside its as-ruled reading: its steps, and its scores once finished."""

    steps: int
    finished: bool
    scores: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"steps": self.steps, "finished": self.finished}
        if self.finished:
            out["scores"] = self.scores
        return out


@dataclass(frozen=True, slots=True)
class RuledSummary:
    """The as-ruled reading in brief. Uncorrected, it is the record as played (its scores once finished);
    corrected, the correction's end: its pending decision, its scores and the correction's moves."""

    record_id: str
    ruling: str | None
    from_step: int | None
    steps: int
    rulings: int
    as_played: AsPlayed
    corrected: bool
    finished: bool
    pending: dict[str, Any]
    scores: dict[str, Any] | None = None
    moves: int | None = None  # the correction's entries

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"record_id": self.record_id, "reading": RULED, "ruling": self.ruling,
                               "from_step": self.from_step, "steps": self.steps, "rulings": self.rulings,
                               "as_played": self.as_played.to_json(), "corrected": self.corrected,
                               "finished": self.finished, "pending": self.pending}
        if self.corrected or self.finished:
            out["scores"] = self.scores
        if self.corrected:
            out["moves"] = self.moves
        return out


@dataclass(frozen=True, slots=True)
class RuledStep:
    """A step of the as-ruled reading, shaped as the record's own steps; `from_step` once corrected."""

    step: Step
    ruling: str | None
    from_step: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {**self.step.to_json(), "reading": RULED, "ruling": self.ruling}
        if self.ruling is not None:
            out["from_step"] = self.from_step
        return out


@dataclass(frozen=True, slots=True)
class RuledLine:
    """One move of a correction in words; `by` "transcriber" when its outcomes are the arbiter's word."""

    step: int
    seat: int | None
    round: int | None
    text: str
    player: str | None
    by: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "seat": self.seat, "round": self.round, "text": self.text,
                               "player": self.player}
        if self.by is not None:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class RuledStory:
    """The latest correction's moves in words, all-seeing (without corrections, no lines)."""

    steps: int
    from_step: int | None
    ruling: str | None
    lines: tuple[RuledLine, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "from_step": self.from_step, "view_of": "all", "reading": RULED,
                "ruling": self.ruling, "lines": [line.to_json() for line in self.lines]}
