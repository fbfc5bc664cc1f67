"""The records application: game records and imports in one `eventsourcing.Application`.

One stream per record (aggregate `Record`) and one per import (aggregate `Import`): SQLite by
default, PostgreSQL through the library's own environment variables (docs/deployment.md).

`Records` keeps what the library asks of an application (construction, the `construct_*`
extension points, saving, snapshots) and the record's stores (timelines, the directory, the
editions). What is done with records lives in small services, each holding the application:

- `access`        who reads or acts: token -> seat, annotator, arbiter; `read_as` (access.py)
- `idempotency`   request keys shared by commands and imports (idempotency.py)
- `play`          start, commands, shared dice (play.py)
- `table`         a game at the table: the outcomes it asks for, its setup entered (table.py)
- `reading`       steps, events, turns, summary, listing, export, notation, legal (reading.py)
- `presenting`    story, boards, scores over time, and their caches (presenting.py)
- `verification`  chains, /verify, evidence parts (verification.py)
- `imports`       submit, judge, batches, statuses (imports/)
- `replays`       rejected imports' games as checked (replayed.py)
- `analyses`      a finished record's analysis: asked for, run as a job, stored once (analyses.py)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import Any, cast
from uuid import UUID

from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.persistence import InfrastructureFactory, JSONTranscoder, Transcoder
from eventsourcing.utils import Environment

from domain import catalog
from domain.kernel import Edition, EditionError
from domain.records.access import Access
from domain.records.aggregates import Record
from domain.records.analyses import Analyses
from domain.records.directory import Directory
from domain.records.errors import NotFound
from domain.records.idempotency import Idempotency
from domain.records.imports import Imports
from domain.records.play import Play
from domain.records.presenting import Presenting
from domain.records.reading import Reading
from domain.records.reading import titles as titles  # where callers have always found it
from domain.records.replayed import ImportReplays
from domain.records.rows import RecordEventStore, RecordMapper, RecordTranscoder
from domain.records.store import construct_factory
from domain.records.table import Table
from domain.records.timeline import Meta, Timeline, Timelines
from domain.records.verification import Verification


class Records(Application[UUID]):
    """Game records and imports."""

    reveal_hours = 72.0  # shared dice: a seat not revealed this long after the end is marked unverifiable (docs/trust.md)

    snapshotting_intervals = {Record: 100}  # noqa: RUF012  (the library reads a class attribute)
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": "var/cronaca.sqlite3"}  # noqa: RUF012

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        super().__init__(env)
        # Every stream is hash-chained (chain.py); off only for the write-path benchmark (CRONACA_CHAIN=off), never in production.
        self.chain = str(self.env.get("CRONACA_CHAIN") or "on").lower() != "off"
        with contextlib.suppress(TypeError, ValueError):  # shared dice: hours a seat has to reveal (docs/trust.md)
            self.reveal_hours = float(self.env.get("CRONACA_REVEAL_HOURS") or self.reveal_hours)
        self._editions: dict[str, Edition] = {}
        self._editions_lock = threading.Lock()
        self.built_snapshots: dict[UUID, list[Any]] = {}  # an imported record's, taken as it was built (imports/judge.py)
        self.timelines = Timelines(self.recorder, self.mapper, catalog.game, self.edition_of)
        self.directory = Directory(self.recorder, self.mapper)
        self.access = Access(self)
        self.idempotency = Idempotency(self)
        self.play = Play(self)
        self.table = Table(self)
        self.reading = Reading(self)
        self.presenting = Presenting(self)
        self.verification = Verification(self)
        self.imports = Imports(self)
        self.replays = ImportReplays(self)
        self.analyses = Analyses(self)

    def close(self) -> None:
        """The directory's warm-up thread ends before the store closes (Directory.stop_warming)."""
        self.directory.stop_warming()
        super().close()

    def construct_factory(self, env: Environment) -> InfrastructureFactory[Any]:
        """The store's own factory for the library's SQLite and PostgreSQL modules (domain/records/store)."""
        return construct_factory(env)

    def construct_event_store(self) -> RecordEventStore:
        """The library's event store, its `put` making no recordings that nothing here reads (rows.py)."""
        return RecordEventStore(mapper=self.mapper, recorder=self.recorder)

    def construct_transcoder(self) -> Transcoder:
        """The library's transcoder, reading by orjson (rows.RecordTranscoder) unless another is configured."""
        transcoder = self.factory.transcoder()
        if type(transcoder) is JSONTranscoder:
            transcoder = RecordTranscoder()
        if isinstance(transcoder, JSONTranscoder):
            self.register_transcodings(transcoder)
        return transcoder

    def construct_mapper(self) -> RecordMapper:
        """The library's mapper, writing a record's game events from the bytes the chain hashed (rows.py)."""
        return cast(RecordMapper, self.factory.mapper(transcoder=self.construct_transcoder(), mapper_class=RecordMapper))

    # ---- editions -------------------------------------------------------------------

    def edition(self, title: str, ref: Mapping[str, str] | None = None, file: str | None = None) -> Edition:
        """The edition a record names: the title's default, or a file the record carries."""
        game = catalog.game(title)
        with self._editions_lock:
            if ref is not None and ref.get("content_hash") in self._editions:
                return self._editions[ref["content_hash"]]
        edition = game.load_edition(file.encode(), "<record edition>") if file is not None else game.default_edition()
        if ref is not None and (edition.content_hash != ref.get("content_hash") or edition.id != ref.get("id")):
            raise EditionError(
                f"this record was played with edition {ref.get('id')} ({ref.get('content_hash')}); "
                f"the service has {edition.id} ({edition.content_hash}); include the edition file"
            )
        with self._editions_lock:
            self._editions[edition.content_hash] = edition
        return edition

    def edition_of(self, meta: Meta) -> Edition:
        """The edition a record's metadata names."""
        return self.edition(meta.title, meta.edition, meta.edition_file)

    def timeline(self, record_id: UUID) -> Timeline:
        """The record's timeline (timeline.py): its metadata, events and folds, caught up with its stream."""
        found = self.timelines.get(record_id)
        if found is None:
            raise NotFound(f"no record {record_id}")
        return found

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """The library's snapshotting after a save, except for a record an import built whole
        (imports/judge.py, `_create_imported`): its snapshots, already taken in memory, are put in one go."""
        built = {aggregate_id: self.built_snapshots.pop(aggregate_id) for aggregate_id in processing_event.aggregates
                 if aggregate_id in self.built_snapshots}
        if not built:
            super()._take_snapshots(processing_event)
            return
        taken = [snapshot for snapshots in built.values() for snapshot in snapshots]
        if taken and self.snapshots is not None:
            self.snapshots.put(taken)
        others = {k: v for k, v in processing_event.aggregates.items() if k not in built}
        intervals = self.snapshotting_intervals or {}
        if any(type(aggregate) in intervals for aggregate in others.values()):  # a batch's imports: none are
            rest: ProcessingEvent[UUID] = ProcessingEvent()
            rest.events = [e for e in processing_event.events if e.originator_id in others]
            rest.aggregates = others
            super()._take_snapshots(rest)
