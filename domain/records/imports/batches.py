"""Imports in batches (`cronaca import`, the batch jobs): many submitted, queued or judged with one append
where one each would take the event table's lock once a file; whatever conflicts goes the single way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError, PersistenceError

from domain.records import lessonfile
from domain.records.aggregates import VALIDATING, Import
from domain.records.errors import RecordsError
from domain.records.imports.submit import Submitting
from domain.records.readmodels_imports import ImportReport


class Batches(Submitting):
    """`submit_many`, `mark_queued_many`, `judge_many`."""

    def submit_many(self, files: Sequence[tuple[Any, ...]]) -> list[tuple[UUID, list[str]] | RecordsError]:
        """`submit` of several record files, each (document, annotator key, arbiter key[, table key]), saved in one append, not
        one a file (`cronaca import`'s chunks: each append takes the event table's lock). A file `submit` would
        refuse is answered with that refusal, nothing of it stored; the others are saved together, or, when the
        store fails (PersistenceError, raised), none of them."""
        answers: list[tuple[Import, list[str]] | RecordsError] = []
        for document, annotator_key, arbiter_key, *table_key in files:
            try:
                header, _, stored = self._checked_file(document)
                answers.append(self._new_import(header, stored, annotator_key, arbiter_key, *table_key))
            except RecordsError as exc:
                answers.append(exc)
        made = [answer[0] for answer in answers if not isinstance(answer, RecordsError)]
        if made:
            self.records.save(*made)
        return [answer if isinstance(answer, RecordsError) else (answer[0].id, answer[1]) for answer in answers]

    def mark_queued_many(self, import_ids: list[UUID], job_id: str) -> None:
        """`mark_queued` of one batch job's imports, read in one query and saved in one append, not one each
        (`cronaca import` queues thousands, each append under the event table's lock). When another process
        appended to one of them first (a worker took the job at once), nothing of this save was stored and
        each goes `mark_queued`'s own way; so does one not found (NotFound, as there)."""
        found = self.get_many(import_ids)
        for each in found.values():
            each.queue(job_id=job_id)
        try:
            if found:
                self.records.save(*found.values())
        except IntegrityError:
            found = {}
        for import_id in import_ids:
            if import_id not in found:
                self.mark_queued(import_id, job_id)

    def judge_many(self, import_ids: list[UUID]) -> list[tuple[ImportReport, bool]]:
        """`judge` for each of several imports (a batch job's), with two saves for them all where each
        alone takes two: one marks them validating, one stores every verdict and, with an accepted game alone,
        its record. On PostgreSQL that is two locks of the event table and two commits a batch, not a file,
        so the batch's workers wait less for each other. Whatever is not plain (a file with notes or variations,
        an internal error) or conflicts (another process at one of them) goes `judge`'s own way, which
        reads it again; so the reports, records and verdicts are those each import alone would have."""
        read = self.get_many(import_ids)
        found = {import_id: read.get(import_id) or self.get(import_id) for import_id in import_ids}  # (NotFound)
        waiting = [f for f in found.values() if f.report is None and f.status != VALIDATING]
        for each in waiting:
            each.validating()
        try:
            if waiting:
                self.records.save(*waiting)
        except IntegrityError:  # another process changed one of them: each its own way
            return [self.judge(import_id) for import_id in import_ids]
        alone: set[UUID] = set()
        together: list[Any] = []
        concluded: set[UUID] = set()
        built: list[UUID] = []
        try:
            for import_id, each in found.items():
                if each.report is not None:
                    continue
                try:
                    verdict, header, document = self._verdict_on(each)
                    if verdict.ok and not lessonfile.game_alone(document):
                        alone.add(import_id)  # its notes and variations are attached after the record exists
                        continue
                    if verdict.ok:
                        assert header is not None
                        record = self._record_of(each, header, verdict)
                        built.append(record.id)
                        each.accept(record_id=str(record.id), report={**verdict.report, "record_id": str(record.id)})
                        together.append(record)
                    else:
                        each.reject(report=verdict.report)
                except PersistenceError:
                    raise
                except Exception:  # noqa: BLE001  (judge_import meets it again and gives its internal-error verdict)
                    alone.add(import_id)
                    continue
                together.append(each)
                concluded.add(import_id)
            if together:
                self.records.save(*together)
        except IntegrityError:  # an earlier attempt stored one of the records: nothing of this save was stored
            alone.update(concluded)
            concluded.clear()
        finally:
            for record_id in built:
                self.records.built_snapshots.pop(record_id, None)
        return [(ImportReport(found[i].report or {}), True) if i in concluded else
                self.judge(i) if i in alone else (ImportReport(found[i].report or {}), False) for i in import_ids]
