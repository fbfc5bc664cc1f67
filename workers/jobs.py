"""The import job: replay a submitted record file through the rules and store the verdict."""

from __future__ import annotations

import gc
import logging
from typing import Any
from uuid import UUID

import domain.records.recordfile  # noqa: F401  (the checker, loaded with the worker: see warm_up)
from domain.records import Records
from domain.records.readmodels_imports import ImportReport
from domain.records.settings import Settings
from workers import metrics

_records: Records | None = None
log = logging.getLogger("cronaca.jobs")


def records() -> Records:
    """One application per worker process, configured like the API (same environment variables)."""
    global _records
    if _records is None:
        _records = Records(Settings.from_env().store)
        _tune_gc()
    return _records


def warm_up() -> None:
    """Open the store at start (the checker, `recordfile`, is loaded with this module), so a worker just
    (re)started is as quick at its first job as at the next. A title's rules load at its first file (all of them here would add seconds to every
    restart, for titles this worker may never see)."""
    records()


def _tune_gc() -> None:
    """A worker process only judges imports: what it has loaded by now (modules, the rules, the grammar)
    lives as long as it does, and a job allocates hundreds of thousands of short-lived objects (the
    checker's states, a record's ~400 events) with few cycles among them. So the collector leaves the
    former alone (`gc.freeze`) and runs less often on the latter: about 10% of a job's CPU, measured.
    Cycles are still collected (only later), so memory stays bounded."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def run_validation(app: Records, import_id: UUID) -> ImportReport:
    """Judge one import, counted: an attempt, and the verdict when this run gave it (workers.metrics)."""
    metrics.count_import("attempts")
    report, concluded_here = app.imports.judge(import_id)
    _verdict_counted(report, concluded_here)
    return report


def _verdict_counted(report: ImportReport, concluded_here: bool) -> None:
    """The verdict, when this run gave it (workers.metrics)."""
    if concluded_here:
        metrics.count_import("accepted" if report.ok else "rejected")


def validate_import(import_id: str) -> dict[str, Any]:
    """RQ entry point (workers.jobs.validate_import): the report as the import stores it."""
    return run_validation(records(), UUID(import_id)).stored


def run_validations(app: Records, import_ids: list[UUID]) -> dict[str, Any]:
    """Several imports in one job, each judged, stored and concluded as alone (its own status, report and
    record), in two saves for them all (`Records.imports.judge_many`). When that fails (the store away a
    moment, say), each is tried alone: one that fails does not stop the others; the job then fails with
    the first error, so the relay queues again the ones left without a verdict (the job is idempotent:
    the concluded ones are left as they are)."""
    if len(import_ids) > 1:
        try:
            judged = app.imports.judge_many(import_ids)
        except Exception as exc:  # noqa: BLE001  (each alone next: what can be concluded is)
            log.warning("imports %s together: %s; each alone", ", ".join(map(str, import_ids)), exc)
        else:
            for report, concluded_here in judged:
                metrics.count_import("attempts")
                _verdict_counted(report, concluded_here)
            return {"imports": {str(i): report.ok for i, (report, _) in zip(import_ids, judged, strict=True)}}
    statuses: dict[str, Any] = {}
    failed: Exception | None = None
    for import_id in import_ids:
        try:
            report = run_validation(app, import_id)
        except Exception as exc:  # noqa: BLE001  (raised again below, once the others had their turn)
            log.warning("import %s: %s", import_id, exc)
            failed = failed or exc
            statuses[str(import_id)] = None
            continue
        statuses[str(import_id)] = report.ok
    if failed is not None:
        raise failed
    return {"imports": statuses}


def run_analysis(app: Records, analysis_id: UUID, job_id: str) -> dict[str, Any]:
    """Run (or go on with) a record's analysis as this job (domain/records/analyses.py): its status as it ends."""
    return app.analyses.run(analysis_id, job_id).to_json() | {"analysis": None}


def analyse_record(analysis_id: str, job_id: str) -> dict[str, Any]:
    """RQ entry point (workers.jobs.analyse_record): the status as the job left it (the analysis is stored on its
    stream, GET /api/records/{id}/analysis, not repeated in the job's result)."""
    return run_analysis(records(), UUID(analysis_id), job_id)


def validate_imports(import_ids: list[str]) -> dict[str, Any]:
    """RQ entry point for a batch (workers.jobs.validate_imports): {"imports": {id: ok}}; the reports
    are on the imports themselves (GET /api/imports/{id}), not repeated in the job's result."""
    return run_validations(records(), [UUID(i) for i in import_ids])
