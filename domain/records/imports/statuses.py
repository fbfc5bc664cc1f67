"""An import's status as its reader may read it, the import read back, and the changes that queue it.

An import is an aggregate (aggregates.Import): submitted -> queued -> validating -> accepted or rejected.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import UUID

from eventsourcing.application import project_aggregate
from eventsourcing.persistence import IntegrityError

from domain.kernel import Reader
from domain.kernel.violations import ALL
from domain.records.access import seat_in
from domain.records.aggregates import Import
from domain.records.errors import Conflict, NotFound
from domain.records.readmodels_imports import ImportReport, ImportStatus
from domain.records.rows import stored_event
from domain.records.timeline import select_streams

if TYPE_CHECKING:
    from domain.records.application import Records


class Statuses:
    """Imports read back and changed; the base of `Imports` (imports/__init__.py)."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def status(self, import_id: UUID, token: str | None = None) -> ImportStatus:
        """An import's status and report, as the caller may read it.

        The report keeps its secrets wrapped (kernel.violations.Secret); they are shown here
        to their seat (the tokens handed out at submit), and to every reader when the file is
        a finished game's (its holder has every secret it implies, and a finished record's
        export is public); to nobody else.
        """
        return self._status_of(import_id, self.get(import_id), token)

    def statuses(self, import_ids: list[UUID]) -> dict[UUID, ImportStatus]:
        """`status` of several imports, read in one query, with no token (`cronaca import`'s lines);
        those not found are left out."""
        return {import_id: self._status_of(import_id, found, None) for import_id, found in self.get_many(import_ids).items()}

    def _status_of(self, import_id: UUID, found: Import, token: str | None) -> ImportStatus:
        reader: Reader = seat_in(found.token_hashes, token, "import")
        report = ImportReport(found.report) if found.report is not None else None
        if report is not None and report.game_over:
            reader = ALL
        return ImportStatus(str(import_id), found.status, found.attempts, found.record_id, report, reader)

    def get(self, import_id: UUID) -> Import:
        """An import folded from its own events by the library's projector. Not the repository's `get`, which
        asks the snapshot table first: imports are never snapshotted, and that was one database round trip
        of every import read (a status poll, each of a batch job's imports)."""
        found = project_aggregate(None, self.records.events.get(import_id))
        if not isinstance(found, Import):
            raise NotFound(f"no import {import_id}")
        return found

    def get_many(self, import_ids: list[UUID]) -> dict[UUID, Import]:
        """`get` of each of several imports (a batch job's), read in one query; those missing are not
        in what is returned."""
        mapper = self.records.mapper
        found: dict[UUID, Import] = {}
        for import_id, rows in select_streams(self.records.recorder, import_ids).items():
            events = [mapper.to_domain_event(stored_event(import_id, version, topic, state)) for version, topic, state in rows]
            aggregate = project_aggregate(None, events)
            if isinstance(aggregate, Import):
                found[import_id] = aggregate
        return found

    def _change(self, import_id: UUID, change: Callable[[Import], None]) -> Import:
        """Apply a change to an import, retrying when another process appended first
        (the API marking it queued while a worker already took it, say)."""
        for _ in range(20):
            found = self.get(import_id)
            change(found)
            try:
                self.records.save(found)
            except IntegrityError:
                continue
            return found
        raise Conflict(f"import {import_id} is changing too fast to update")

    def _change_read(self, found: Import, change: Callable[[Import], None]) -> Import:
        """`_change` on an import this job has just read or saved: no second read unless
        another process appended to it meanwhile (then the save conflicts and it is read again)."""
        change(found)
        try:
            self.records.save(found)
        except IntegrityError:
            return self._change(found.id, change)
        return found

    def mark_queued(self, import_id: UUID, job_id: str) -> None:
        self._change(import_id, lambda found: found.queue(job_id=job_id))

    def mark_validating(self, import_id: UUID) -> None:
        self._change(import_id, lambda found: None if found.report is not None else found.validating())
