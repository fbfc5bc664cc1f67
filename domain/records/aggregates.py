"""The two aggregates of the records application: a game record and an import.

A record's stream is `Started`, then one `Happened` per game event, then `Finished`, so
game event n (1-based, the state after it is step n) is stream version n + 1. The events
of one log entry (the setup, or one command) are saved together or not at all; the first
of them also carries the entry's own data (the command or setup options, the chance
outcomes it met, the seat), which is what an export needs to give back the kernel's log.
The aggregate itself keeps only what commands need (who holds which seat, the seed, how
many entries and game events so far); game state is always a fold, done by
`timeline.Timeline`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event

LIVE = "live"
TRANSCRIBED = "transcribed"
MODES = (LIVE, TRANSCRIBED)


class Record(Aggregate):
    """One game, from setup to the last command."""

    @event("Started")
    def __init__(
        self,
        id: UUID,  # noqa: A002  (the library takes the aggregate id under this name)
        title: str,
        edition: dict[str, str],
        edition_file: str | None,
        seats: list[str],
        token_hashes: list[str],
        options: dict[str, Any],
        mode: str,
        commitment: str | None,
        seed: str | None,
        origin: dict[str, Any] | None,
        annotator_hash: str | None = None,
        arbiter_hash: str | None = None,
    ) -> None:
        self.title = title
        self.edition = edition
        self.edition_file = edition_file
        self.seats = seats
        self.token_hashes = token_hashes
        self.options = options
        self.mode = mode
        self.commitment = commitment
        self.seed = seed
        self.origin = origin
        self.annotator_hash = annotator_hash  # the annotator key's SHA-256 (teaching.py); None: no key was made
        self.arbiter_hash = arbiter_hash  # the arbiter key's SHA-256: who may record rulings (rulings.py)
        self.entries = 0
        self.steps = 0
        self.finished = False
        self.revealed_seed: str | None = None
        self.scores: dict[str, Any] | None = None

    @event("Happened")
    def happen(self, event: dict[str, Any], entry: dict[str, Any] | None, seat: int | None) -> None:
        """One game event; `entry` (the log entry without its events) only on an entry's first."""
        if entry is not None:
            self.entries += 1
        self.steps += 1

    def record(self, entry: dict[str, Any], seat: int | None, after: Callable[[], None] | None = None) -> None:
        """Trigger one `Happened` per event of a log entry (`Entry.to_json()`); saved in one go by the caller.

        `after` is called after each of them: an import building a whole record takes its
        snapshots there, from the aggregate in memory (application.Records._create_imported)."""
        events = entry["events"]
        if not events:
            raise ValueError("a log entry without game events has nothing to be stored on")
        head = {k: v for k, v in entry.items() if k != "events"}
        for k, obj in enumerate(events):  # as `happen` would, without its argument binding (an import's 400 events)
            self.trigger_event(self.Happened, event=obj, entry=None if k else head, seat=seat)
            if after is not None:
                after()

    @event("Finished")
    def finish(self, seed: str | None, scores: dict[str, Any]) -> None:
        self.finished = True
        self.revealed_seed = seed
        self.scores = scores


SUBMITTED = "submitted"
QUEUED = "queued"
VALIDATING = "validating"
ACCEPTED = "accepted"
REJECTED = "rejected"


class Import(Aggregate):
    """A submitted record file: submitted -> queued -> validating -> accepted | rejected.

    It is saved before any job is queued (the outbox), so a submission survives Redis or
    the worker being down; `Queued` marks that the relay handed it to the queue.
    """

    @event("Submitted")
    def __init__(self, document: str, token_hashes: list[str], annotator_hash: str | None = None,
                 arbiter_hash: str | None = None) -> None:
        self.document = document
        self.token_hashes = token_hashes
        self.annotator_hash = annotator_hash  # handed on to the record an accepted import makes
        self.arbiter_hash = arbiter_hash
        self.status = SUBMITTED
        self.attempts = 0
        self.record_id: str | None = None
        self.report: dict[str, Any] | None = None

    @event("Queued")
    def queue(self, job_id: str) -> None:
        self.attempts += 1
        if self.status == SUBMITTED:
            self.status = QUEUED

    @event("Validating")
    def validating(self) -> None:
        self.status = VALIDATING

    @event("Accepted")
    def accept(self, record_id: str, report: dict[str, Any]) -> None:
        self.status = ACCEPTED
        self.record_id = record_id
        self.report = report

    @event("Rejected")
    def reject(self, report: dict[str, Any]) -> None:
        self.status = REJECTED
        self.report = report
