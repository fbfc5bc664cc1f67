"""What the import services answer: an import's status and the verdict on its file, typed (readmodels.py's kin).

`Records.imports.status` returns an `ImportStatus`, `validate` and `judge` an `ImportReport`, a rejected
import's replay (`Records.replays.summary`) a `ReplaySummary`; the edge (api/,
workers/, api/import_cli.py) makes the JSON with `to_json()`, key for key the answer the API has always given.
An `ImportReport` has no `to_json()`: it is JSON only as some reader may read it (`read_by`, or the status).
The report is the checker's own document (docs/formats/record-json.md, "How an import is judged"): its fields differ by
verdict (a finding's rule, message and facts; an accepted game's counts and scores; a notation file's header),
so it is kept whole, its secrets wrapped as stored (kernel.violations.Secret), and the fields a caller decides
on are read through typed properties. Who may read which secret is part of the status (`reader`): the reveal
happens when the JSON is made, never before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from domain.kernel import Reader
from domain.kernel.violations import reveal
from domain.records.readmodels import Turn


@dataclass(frozen=True, slots=True)
class ImportReport:
    """The verdict on an imported file, as stored with the import (its secrets still wrapped)."""

    stored: dict[str, Any]

    @property
    def ok(self) -> bool:
        return bool(self.stored.get("ok"))

    @property
    def record_id(self) -> str | None:
        """The record an accepted file made."""
        found = self.stored.get("record_id")
        return None if found is None else str(found)

    @property
    def rule(self) -> str | None:
        """The rule a refused file broke first (kernel.violations.RuleViolation.rule, or a file/... rule)."""
        found = self.stored.get("rule")
        return None if found is None else str(found)

    @property
    def message(self) -> str | None:
        found = self.stored.get("message")
        return None if found is None else str(found)

    @property
    def facts(self) -> dict[str, Any]:
        """A finding's facts as stored (secrets wrapped): `read_by` shows them to a reader."""
        return dict(self.stored.get("facts") or {})

    @property
    def game_over(self) -> bool:
        """Whoever holds the file holds every secret the report could tell: the file says its game ended, or
        its game was accepted as finished (a finished record's export is public). Then every reader reads all."""
        return bool(self.stored.get("file_says_finished") or (self.stored.get("ok") and self.stored.get("finished")))

    def read_by(self, reader: Reader) -> dict[str, Any]:
        """The report as `reader` may read it: a secret shown to its seat (or to all), the rest see what it shows."""
        revealed: dict[str, Any] = reveal(self.stored, reader)
        return revealed


@dataclass(frozen=True, slots=True)
class ImportStatus:
    """An import as one reader may read it: submitted, queued, validating, accepted (with its record) or rejected."""

    id: str
    status: str
    attempts: int
    record_id: str | None
    report: ImportReport | None
    reader: Reader  # who reads the report: a seat of the file (its token), everyone (the game is over), or the public

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "attempts": self.attempts, "record_id": self.record_id,
                "report": self.report.read_by(self.reader) if self.report is not None else None}


@dataclass(frozen=True, slots=True)
class Submitted:
    """The answer to a submission: the import's status, with the seat tokens and keys it hands out (shown once)."""

    status: ImportStatus
    tokens: list[str]  # the seats' tokens of the record it will make, in seat order
    annotator_key: str
    arbiter_key: str
    table_key: str | None = None  # a game in progress goes on at the table: its device enters what no seat may see

    def to_json(self) -> dict[str, Any]:
        return {**self.status.to_json(), "seats": [{"seat": i, "token": t} for i, t in enumerate(self.tokens)],
                "annotator_key": self.annotator_key, "arbiter_key": self.arbiter_key,
                **({"table_key": self.table_key} if self.table_key else {})}


@dataclass(frozen=True, slots=True)
class AssumedLine:
    """A line of a rejected file where the checker went on with another move (or outcome) than the written one."""

    found: dict[str, Any]  # the finding's line, column, step, round, player, rule, written, assumed and message, as read

    FIELDS: ClassVar[tuple[str, ...]] = ("line", "column", "step", "round", "player", "rule", "written", "assumed", "message")

    @classmethod
    def of(cls, finding: dict[str, Any]) -> AssumedLine:
        """The fields a replay shows of a finding the reader may read (its secrets already revealed or hidden)."""
        return cls({k: finding[k] for k in cls.FIELDS if k in finding})

    def to_json(self) -> dict[str, Any]:
        return dict(self.found)


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """A rejected import's game as checked (replayed.py), as one reader may read it: title, seats, steps, turns
    and the lines where the checker assumed another move; `as_reported` False when the rules read it otherwise now."""

    id: str
    title: str
    edition: dict[str, str]
    seats: tuple[str, ...]
    options: dict[str, Any]
    steps: int
    finished: bool
    view_of: str
    assumed: tuple[AssumedLine, ...]
    findings: int
    summary: Any  # the report's own summary, as the reader may read it
    as_reported: bool
    turns: tuple[Turn, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "edition": self.edition,
                "seats": [{"seat": i, "name": n} for i, n in enumerate(self.seats)], "options": self.options,
                "steps": self.steps, "finished": self.finished, "view_of": self.view_of,
                "assumed": [a.to_json() for a in self.assumed], "findings": self.findings, "summary": self.summary,
                "as_reported": self.as_reported, "turns": [turn.to_json() for turn in self.turns]}
