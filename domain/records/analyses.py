"""The analysis of a finished record (issue 33, part 2): asked for once, run as a job, stored once.

One `Analysis` stream per record and edition (its id derived from both, so every process finds it, and two askers
at once make one stream: the second save meets the first's and answers its status). `Requested`, then `Queued`
for each job handed the work, `Started` by the job that runs it, `Progressed` with the rows judged so far (the
walk's, review_walk.py: a job started again after its worker died goes on from the last), then `Done` with the
analysis, or `Failed`. Only the job the stream last queued writes to it: a job queued again supersedes the one
before, which stops at its next write. Nothing is recomputed on a read: a page reads what `Done` stored.

Only a finished record is analysed (its secrets are public then; each decision is still judged from what its
seat saw). An edition the service can no longer load is refused, named (409); a record read under another
edition is another analysis.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import EditionError
from domain.kernel.cache import Bounded
from domain.kernel.review import calibration_sentence, reviewer
from domain.records.errors import Conflict, NotFound, first_line
from domain.records.kept import Kept
from domain.records.readmodels_analysis import DONE, FAILED, QUEUED, RUNNING, AnalysisStatus
from domain.records.review_walk import ANALYSIS_BUDGET, AnalysisBudget, Row, Walk, assemble
from domain.records.timeline import EVERY

if TYPE_CHECKING:
    from domain.records.application import Records
    from domain.records.timeline import Meta

log = logging.getLogger("cronaca.analyses")

HANDING_OVER = 10.0  # seconds a job just named is taken to be on its way to the queue, not lost
MAX_ATTEMPTS = 3  # jobs queued for one analysis before it is said to have failed (one that keeps killing its worker)
KEPT = 256  # analyses kept read per process


def analysis_id(record_id: UUID, edition: dict[str, str]) -> UUID:
    """The id of a record's analysis under its edition: derived, so any process (and a second asker) finds it."""
    return uuid5(NAMESPACE_URL, f"cronaca:analysis:{record_id}:{edition.get('id')}:{edition.get('content_hash')}")


def job_id(stream: UUID, attempt: int) -> str:
    """The id of an analysis's job: named on the stream before the job is handed over, so the job finds itself
    there however soon it starts (and a job id is never reused: RQ would run a reused one twice)."""
    return f"analysis-{stream}-{attempt}-{secrets.token_hex(4)}"


class SupersededError(Exception):
    """This job is no longer the analysis's: another was queued after it (its worker was taken for dead)."""


class Analysis(Aggregate):
    """One record's analysis: queued, running (with the rows judged so far), done (the analysis) or failed."""

    @event("Requested")
    def __init__(self, id: UUID, record_id: str, edition: dict[str, str], budget: dict[str, Any],  # noqa: A002  (the library's name)
                 job: str) -> None:
        self.record_id = record_id
        self.edition = edition
        self.budget = budget
        self.status = QUEUED
        self.job = job  # the job that may write to it: the first, named before it is handed over
        self.attempts = 1
        self.progress = 0.0
        self.rows: list[Row] = []
        self.analysis: dict[str, Any] | None = None
        self.error: str | None = None

    @event("Queued")
    def queue(self, job: str) -> None:
        self.job = job
        self.attempts += 1
        if self.status != DONE:
            self.status = QUEUED
            self.error = None

    @event("Started")
    def start(self, job: str) -> None:
        self.status = RUNNING

    @event("Progressed")
    def progressed(self, job: str, progress: float, rows: list[Row]) -> None:
        self.rows = [*self.rows, *rows]
        self.progress = max(self.progress, progress)

    @event("Done")
    def done(self, job: str, analysis: dict[str, Any]) -> None:
        self.status = DONE
        self.progress = 1.0
        self.analysis = analysis
        self.rows = []

    @event("Failed")
    def fail(self, job: str, error: str) -> None:
        self.status = FAILED
        self.error = error

    def status_of(self) -> AnalysisStatus:
        return AnalysisStatus(str(self.id), self.record_id, dict(self.edition), self.status, self.progress,
                              self.attempts, dict(self.budget), self.analysis, self.error)


class Analyses:
    """Ask for a record's analysis, read its status, and run it (the job's side)."""

    def __init__(self, records: Records, budget: AnalysisBudget = ANALYSIS_BUDGET) -> None:
        self.records = records
        self.budget = budget
        self.save_every = 3.0  # seconds between two stores of the rows judged (what a job started again goes on from)
        self._kept: Kept[Analysis] = Kept(records, KEPT, "analyses")
        self._finished: Bounded[UUID, bool] = Bounded("analysed-records", KEPT)

    def _finished_meta(self, record_id: UUID, token: str | None) -> Meta:
        """The record's metadata for a reader who may read it (403 a token that opens nothing, 404 no record),
        once it is finished (409: an analysis of a game in progress would tell its secrets)."""
        with self.records.access.read_as(record_id, token) as (_, meta, _seat):
            pass
        if not meta.finished:
            raise Conflict("the game is in progress: it is analysed once it is over (an analysis would tell what "
                           "its seats cannot see yet)", rule="analysis/in-progress")
        return meta

    def _edition_checked(self, meta: Meta) -> None:
        try:
            self.records.edition_of(meta)
        except EditionError as exc:
            raise Conflict(f"this record was played with edition {meta.edition.get('id')} "
                           f"({meta.edition.get('content_hash')}), which the service no longer has: {exc}",
                           rule="analysis/edition", edition=meta.edition) from exc

    def get(self, record_id: UUID, token: str | None = None) -> Analysis:
        """The record's analysis as stored (shared: never change it); 404 when nobody asked for one."""
        meta = self._finished_meta(record_id, token)
        found = self._kept.get(analysis_id(record_id, meta.edition))
        if found is None:
            raise NotFound(f"no analysis of record {record_id} under edition {meta.edition.get('id')} "
                           f"({meta.edition.get('content_hash')}) was asked for: POST /api/records/{record_id}/analysis",
                           rule="analysis/none", edition=meta.edition)
        return found

    def status(self, record_id: UUID, token: str | None = None) -> AnalysisStatus:
        return self.told(self.get(record_id, token).status_of(), record_id, token)

    def told(self, status: AnalysisStatus, record_id: UUID, token: str | None = None) -> AnalysisStatus:
        """A status as answered: with how far the title's win chances can be trusted (its measured calibration in
        a sentence, read at each answer: figures measured again are said at once, never frozen into the analysis)."""
        meta = self._finished_meta(record_id, token)
        return dataclasses.replace(status, trust=calibration_sentence(catalog.game(meta.title)))

    def request(self, record_id: UUID, token: str | None = None) -> tuple[Analysis, bool]:
        """The record's analysis, asked for now unless it was before: (it, whether its job should be handed over:
        a new analysis's first, named on it). Two askers at once: one stream, one job."""
        meta = self._finished_meta(record_id, token)
        self._edition_checked(meta)
        stream = analysis_id(record_id, meta.edition)
        found = self._kept.get(stream)
        if found is None:
            made = Analysis(id=stream, record_id=str(record_id), edition=dict(meta.edition), budget=self.budget.to_json(),
                            job=job_id(stream, 1))
            try:
                self.records.save(made)
            except IntegrityError:  # another asker saved it a moment before: its job is the one
                found = self._kept.get(stream)
                assert found is not None
                return found, False
            self._kept.keep(made)
            return made, True
        return found, False

    def again(self, found: Analysis, lost: Callable[[str], bool], asked: bool = False) -> str | None:
        """The id of a new job for an analysis that wants one (None: it does not), named on it before it is handed
        over: a queued or running analysis whose job was lost (its worker died, the queue forgot it), or (`asked`)
        one that failed and is asked for again. A lost one is said to have failed instead after MAX_ATTEMPTS jobs
        (a record that keeps killing its workers). Two askers at once: the first names the new job, the second
        finds it named and hands nothing over."""
        if not ((asked and found.status == FAILED) or (found.status in (QUEUED, RUNNING) and not self._handing(found)
                                                        and lost(found.job))):
            return None
        seen = found.job
        try:
            if found.status != FAILED and found.attempts >= MAX_ATTEMPTS:
                self._change(found.id, lambda a: a.fail(job=seen, error=f"its job was lost {a.attempts} times"), seen)
                return None
            new = job_id(found.id, found.attempts + 1)
            self._change(found.id, lambda a: a.queue(job=new), seen)
        except SupersededError:
            return None
        return new

    def _handing(self, found: Analysis) -> bool:
        """Whether the job the analysis names may still be on its way to the queue: named (asked for, or queued
        again) moments ago and not started. The queue does not know it yet, so it would look lost, and a second asker
        or a reader polling meanwhile would queue another."""
        named = found.modified_on
        return found.status == QUEUED and datetime.now(tz=named.tzinfo) - named < timedelta(seconds=HANDING_OVER)

    def _change(self, stream: UUID, change: Callable[[Analysis], Any], job: str | None = None) -> Analysis:
        """Apply a change to the stored analysis, read again on a concurrent write; with `job`, only while that
        job is still the analysis's (SupersededError otherwise)."""
        for _ in range(5):
            found: Analysis = self.records.repository.get(stream)
            if job is not None and found.job != job:
                raise SupersededError(f"analysis {stream}: job {job} was superseded by {found.job}")
            change(found)
            try:
                self.records.save(found)
            except IntegrityError:
                continue
            self._kept.keep(found)
            return found
        raise Conflict(f"analysis {stream} is changing too fast to update")

    # ---- the job's side ------------------------------------------------------------------------------

    def run(self, stream: UUID, job: str) -> AnalysisStatus:
        """Run (or go on with) an analysis as job `job`: nothing when it is done or another job has it."""
        found: Analysis = self.records.repository.get(stream)
        if found.status == DONE or found.job != job:
            return found.status_of()
        try:
            return self._run(found, job)
        except SupersededError as exc:
            log.info("%s", exc)
            return self.records.repository.get(stream).status_of()
        except Exception as exc:
            log.exception("analysis %s failed", stream)
            said = first_line(exc)
            with contextlib.suppress(SupersededError):
                self._change(stream, lambda a: a.fail(job=job, error=said), job)
            raise

    def walk(self, record_id: UUID, budget: AnalysisBudget) -> tuple[Walk, list[str], Any]:
        """The walk over a finished record's log (review_walk.py), with its seats' names and its title's words."""
        with self.records.access.read_meta(record_id) as (timeline, meta):
            # a finished record no longer changes: its log and folds are taken once, the timeline's lock let go
            entries = [dict(e) for e in timeline.entries]
            starts, events, checkpoints = list(meta.entry_starts), list(timeline.events), list(timeline.checkpoints)
            game, title, names = timeline.game, meta.title, list(meta.seats)
        edition = self.records.edition_of(meta)

        def state_at(step: int) -> Any:
            base = min(step // EVERY, len(checkpoints) - 1)
            state = checkpoints[base]
            for e in events[base * EVERY:step]:
                state = game.evolve(state, e)
            return state

        return Walk(game, edition, entries, starts, state_at, reviewer, budget), names, catalog.choices(title)

    def compute(self, record_id: UUID, budget: AnalysisBudget | None = None) -> dict[str, Any]:
        """A finished record's analysis made here and now, stored nowhere (the benchmark's; a job stores its own)."""
        self._finished_meta(record_id, None)
        walk, names, chooser = self.walk(record_id, budget or self.budget)
        rows = walk.rows()
        return assemble(rows, walk.suggest(rows, names, chooser), names, walk.budget)

    def _run(self, found: Analysis, job: str) -> AnalysisStatus:
        self._change(found.id, lambda a: a.start(job=job), job)
        walk, names, chooser = self.walk(UUID(found.record_id), AnalysisBudget.from_json(found.budget))

        def stored(progress: float, rows: list[Row]) -> None:
            self._change(found.id, lambda a: a.progressed(job=job, progress=progress, rows=rows), job)

        rows = walk.rows(found.rows, stored, every=self.save_every)
        points = walk.suggest(rows, names, chooser,
                              lambda p: self._change(found.id, lambda a: a.progressed(job=job, progress=p, rows=[]), job))
        analysis = assemble(rows, points, names, walk.budget)
        return self._change(found.id, lambda a: a.done(job=job, analysis=analysis), job).status_of()
