"""Lists of records and imports: a projection that follows the application's notification log.

Each process keeps its own copy and catches up (one indexed query for the few topics it
cares about) before answering, so any number of API processes and the relay agree with
the event store without a second database.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from domain.records.aggregates import ACCEPTED, QUEUED, REJECTED, SUBMITTED, VALIDATING, Import, Record
from domain.records.story import winners
from domain.records.timeline import decode_rows, timestamp_of

TOPICS = [
    get_topic(Record.Started),
    get_topic(Record.Finished),
    get_topic(Import.Submitted),
    get_topic(Import.Queued),
    get_topic(Import.Validating),
    get_topic(Import.Accepted),
    get_topic(Import.Rejected),
]


@dataclass
class RecordSummary:
    id: UUID
    title: str
    players: list[str]
    mode: str
    created: str
    position: int
    finished: bool = False
    ranking: list[int] = field(default_factory=list)
    totals: dict[int, Any] = field(default_factory=dict)  # seat -> final total, once finished
    winners: list[int] = field(default_factory=list)
    folded: frozenset[str] = frozenset()  # the players' names casefolded, for the player filter

    def __post_init__(self) -> None:
        self.folded = frozenset(p.casefold() for p in self.players)

    @property
    def status(self) -> str:
        return "finished" if self.finished else "in-progress"


@dataclass
class ImportSummary:
    id: UUID
    status: str
    submitted: str
    touched: float
    attempts: int = 0
    job_id: str | None = None


class Directory:
    def __init__(self, recorder: Any, mapper: Any) -> None:
        self.recorder = recorder
        self.mapper = mapper
        self.position = 0
        self.records: dict[UUID, RecordSummary] = {}
        self.imports: dict[UUID, ImportSummary] = {}
        self._lock = threading.Lock()

    def catch_up(self) -> None:
        with self._lock:
            while True:
                rows = self.recorder.select_notifications(
                    self.position, limit=500, topics=TOPICS, inclusive_of_start=False
                )
                if not rows:
                    return
                triples = [(row.originator_version, row.topic, row.state) for row in rows]
                for row, (_, topic, payload) in zip(rows, decode_rows(self.mapper, triples), strict=True):
                    self._absorb(row.originator_id, row.id, topic, payload)
                    self.position = row.id

    def _absorb(self, oid: Any, position: int, topic: str, payload: dict[str, Any]) -> None:
        oid = oid if isinstance(oid, UUID) else UUID(str(oid))
        stamp = timestamp_of(payload)
        kind = topic.rsplit(".", 1)[-1]
        if topic.endswith("Record.Started"):
            self.records[oid] = RecordSummary(oid, payload["title"], payload["seats"], payload["mode"], stamp, position)
        elif topic.endswith("Record.Finished") and oid in self.records:
            self.records[oid].finished = True
            self.records[oid].ranking = list(payload["scores"].get("ranking", []))
            self.records[oid].totals = {row["seat"]: row.get("total") for row in payload["scores"].get("seats", [])
                                        if isinstance(row, dict) and "seat" in row}
            self.records[oid].winners = winners(payload["scores"])
        elif topic.endswith("Import.Submitted"):
            self.imports[oid] = ImportSummary(oid, SUBMITTED, stamp, _seconds(stamp))
        elif oid in self.imports:
            found = self.imports[oid]
            found.touched = _seconds(stamp)
            if kind == "Queued":
                found.attempts += 1
                found.job_id = payload.get("job_id")
                if found.status == SUBMITTED:
                    found.status = QUEUED
            else:
                found.status = {"Validating": VALIDATING, "Accepted": ACCEPTED, "Rejected": REJECTED}[kind]

    def find(
        self, title: str | None = None, player: str | None = None, status: str | None = None
    ) -> list[RecordSummary]:
        """Newest first."""
        self.catch_up()
        found = []
        for summary in self.records.values():
            if title and summary.title != title:
                continue
            if player and not any(player.casefold() == p.casefold() for p in summary.players):
                continue
            if status and summary.status != status:
                continue
            found.append(summary)
        found.sort(key=lambda s: s.position, reverse=True)
        return found

    def page(self, title: str | None = None, player: str | None = None, status: str | None = None,
             offset: int = 0, limit: int = 20) -> tuple[int, list[RecordSummary]]:
        """(how many match, the `limit` of them after `offset`), newest first.

        Records arrive in notification order, so newest first is the dict read backwards: no
        sort, and only the page's summaries are kept, however many records match.
        """
        self.catch_up()
        wanted = player.casefold() if player else None
        total = 0
        out: list[RecordSummary] = []
        with self._lock:
            newest_first = list(reversed(self.records.values()))
        for summary in newest_first:
            if title and summary.title != title:
                continue
            if status and summary.status != status:
                continue
            if wanted is not None and wanted not in summary.folded:
                continue
            if offset <= total < offset + limit:
                out.append(summary)
            total += 1
        return total, out


def _seconds(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return 0.0
