"""Judging an import: its stored file checked by the rules (or the dispute checker, for a notation file) and,
when it is clean, the record it makes, built whole in memory and saved with the verdict."""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from eventsourcing.persistence import IntegrityError, PersistenceError

from domain import catalog, transcripts
from domain.kernel import Edition, Entry
from domain.records import chain as chains
from domain.records import dice, lessonfile, recordfile
from domain.records.aggregates import LIVE, NOTATION, TRANSCRIBED, VALIDATING, Import, Record
from domain.records.errors import RecordsError
from domain.records.imports.statuses import Statuses
from domain.records.readmodels_imports import ImportReport
from domain.records.rows import CanonicalEvent
from domain.records.settings import Limits
from domain.records.timeline import loads

if TYPE_CHECKING:
    from domain.records.application import Records


def imported_record_id(import_id: UUID) -> UUID:
    """The id of the record an import makes: the same whichever attempt makes it, so it is made at most once."""
    return uuid5(NAMESPACE_URL, f"cronaca:import:{import_id}")


def rulings_left(document: Any) -> dict[str, Any]:
    """What the report says of a file's rulings: they are not carried into the new record. A ruling is the word
    of the arbiter who holds the old record's key; whoever imports the file holds only the new record's, so
    taking them over would let any file speak for an arbiter. The new record's arbiter rules afresh."""
    found = document.get("rulings") if isinstance(document, Mapping) else None
    if not isinstance(found, list) or not found:
        return {}
    return {"rulings": {"carried": False, "count": len(found),
                        "message": f"the file's {len(found)} {'ruling stays' if len(found) == 1 else 'rulings stay'} with "
                                   "the record it was exported from: a ruling is its arbiter's word, "
                                   "and this record's arbiter (the key in the submit answer) rules afresh"}}


def keys_of(found: Import) -> tuple[str | None, str | None, str | None]:
    """An import's annotator, arbiter and table key hashes (None on an import saved before they existed)."""
    return getattr(found, "annotator_hash", None), getattr(found, "arbiter_hash", None), getattr(found, "table_hash", None)


class Judging(Statuses):
    """Imports judged one at a time (`judge`); batches.py judges many together."""

    def __init__(self, records: Records) -> None:
        super().__init__(records)
        self._default_editions: dict[str, Edition] = {}  # the checker's, by title

    def validate(self, import_id: UUID) -> ImportReport:
        """The job: judge a submitted file and, when it is valid, create its record. Idempotent."""
        return self.judge(import_id)[0]

    def judge(self, import_id: UUID) -> tuple[ImportReport, bool]:
        """`validate`'s report, and whether this call stored it (False: an earlier attempt, or another
        process meanwhile, had concluded the import): what the worker counts, without reading the import twice."""
        report, concluded = self._judge(import_id)
        return ImportReport(report), concluded

    def _judge(self, import_id: UUID) -> tuple[dict[str, Any], bool]:
        """`judge`, its report as the import stores it."""
        found = self.get(import_id)
        if found.report is not None:
            return found.report, False
        if found.status != VALIDATING:
            found = self._change_read(found, lambda found: None if found.report is not None else found.validating())
        try:
            verdict, header, document = self._verdict_on(found)
            if verdict.ok:
                assert verdict.entries is not None and header is not None
                record_id = imported_record_id(import_id)
                if lessonfile.game_alone(document):  # the common import: its record and its verdict in one save
                    report = {**verdict.report, "record_id": str(record_id), **rulings_left(document)}
                    if self._save_with_verdict(self._record_of(found, header, verdict), found, report):
                        return report, True
                    found = self.get(import_id)  # what the conflict left: read again, the accept above was not stored
                    if found.report is not None:
                        return found.report, False
                self._create_imported(record_id, header, verdict.entries, found.token_hashes, import_id, verdict.end,
                                      *keys_of(found), history=verdict.history)
                report = {**verdict.report, "record_id": str(record_id), **self._attach_extras(record_id, document),
                          **rulings_left(document)}
            else:
                report = verdict.report
        except PersistenceError:
            raise  # the store is down or busy: the relay queues it again, a bounded number of times
        except Exception:
            error_id = uuid4().hex[:12]
            logging.getLogger("cronaca.imports").exception("import %s: internal error %s", import_id, error_id)
            verdict = recordfile.internal_error(error_id)
            report = verdict.report
            found = self.get(import_id)  # as stored: a failed save may have left an accept in memory only

        concluded = [False]

        def conclude(found: Import) -> None:
            concluded[0] = False
            if found.report is not None:  # another attempt concluded first
                return
            if verdict.ok:
                found.accept(record_id=report["record_id"], report=report)
            else:
                found.reject(report=report)
            concluded[0] = True

        return self._change_read(found, conclude).report or report, concluded[0]

    def _verdict_on(self, found: Import) -> tuple[recordfile.Verdict, recordfile.Header | None, Any]:
        """The rules' verdict on an import's stored file, with the file's header and document; a file that
        `parse` refuses (stored before a check existed, or under other limits) is a refusal."""
        document = loads(found.document)  # as the stored rows are read (timeline.loads: orjson, json where it must)
        try:
            if isinstance(document, dict) and document.get("format") == NOTATION:
                header, verdict = self._check_notation(str(document.get("text", "")))
            else:  # stored by `submit` as compact JSON: its length is the file's size
                header, raw = recordfile.parse(document, Limits.from_env(self.records.env), size=len(found.document),
                                               depth=getattr(found, "depth", None))  # (None: stored before it was kept)
                verdict = recordfile.check(header, raw, lambda t, ref, f: self.records.edition(t, ref, f))
        except recordfile.BadRecordFile as exc:
            return recordfile.refused(exc), None, document
        return verdict, header, document

    def _record_of(self, found: Import, header: recordfile.Header, verdict: recordfile.Verdict) -> Record:
        """The record a clean verdict on `found` makes, built in memory (`_build_imported`), not saved."""
        assert verdict.entries is not None
        return self._build_imported(imported_record_id(found.id), header, verdict.entries, found.token_hashes, found.id,
                                    verdict.end, *keys_of(found), seats=verdict.seats, history=verdict.history)

    def _save_with_verdict(self, record: Record, found: Import, report: dict[str, Any]) -> bool:
        """An accepted import's new record and its verdict in one save: one transaction (on PostgreSQL one
        append under the event table's lock, not two), and never a record without its verdict. False when
        the save conflicts (an earlier attempt made the record, or another process changed the import): nothing
        was stored, and the caller goes the separate way, which takes both cases."""
        found.accept(record_id=report["record_id"], report=report)
        try:
            self.records.save(record, found)
        except IntegrityError:
            return False
        finally:
            self.records.built_snapshots.pop(record.id, None)
        return True

    def _attach_extras(self, record_id: UUID, document: Any) -> dict[str, Any]:
        """The file's notes and variations on the record just accepted (lessonfile.attach_extras: all or none).
        The game stands on its own: when they are refused, the report says why under "extras"."""
        try:
            lessonfile.attach_extras(self.records, record_id, document)
        except RecordsError as exc:
            return {"extras": {"ok": False, "rule": exc.facts.get("rule"), "message": exc.message, "facts": exc.facts}}
        except PersistenceError:
            raise  # the store: the relay queues the import again, and attaching is idempotent
        except Exception:
            error_id = uuid4().hex[:12]
            logging.getLogger("cronaca.imports").exception("record %s: extras: internal error %s", record_id, error_id)
            return {"extras": {"ok": False, "rule": "import/internal-error", "facts": {"error_id": error_id},
                               "message": f"the service failed while attaching the file's notes and variations (error "
                                          f"{error_id}); the game was imported without them"}}
        return {}

    def _default_edition(self, game: Any, edition_id: str | None) -> Edition:
        """The checker's edition (transcripts.default_edition), its YAML read once per title and process."""
        cached = self._default_editions.get(game.title)
        if cached is None:
            cached = self._default_editions.setdefault(game.title, transcripts.default_edition(game, None))
        if edition_id not in (None, cached.id):
            return transcripts.default_edition(game, edition_id)  # another edition: the checker's own refusal
        return cached

    def _check_notation(self, text: str) -> tuple[recordfile.Header, recordfile.Verdict]:
        """The dispute checker's verdict on a notation file and the header of the record it makes; a clean
        verdict's `end` is whether the game is over and its scores, as the checker's own last state gives them."""
        report = transcripts.check_text(text, edition_for=self._default_edition)
        found = report.to_json()
        found["notation"] = True
        found["file_says_finished"] = report.claimed is not None  # a Result tag: the table says the game ended
        title = report.title or ""
        header = recordfile.Header(title=title, edition={}, edition_file=None, seats=report.seats,
                                   options=dict(report.options), mode=TRANSCRIBED, commitment=None, seed=None)
        empty = next((k for k, e in enumerate(report.entries or []) if k and not e.events), None)
        if report.ok and empty is not None:  # a record keeps a command on its first game event: none, no place
            found.update(ok=False, summary=f"move {empty} causes no game event; a record cannot store it")
        if report.ok and empty is None and report.entries is not None and report.scores is not None:
            header.edition = self._default_edition(catalog.game(title), None).ref
            return header, recordfile.Verdict(found, list(report.entries), (report.finished, report.scores))
        return header, recordfile.Verdict(found)

    def _create_imported(self, record_id: UUID, header: recordfile.Header, entries: list[Entry],
                         token_hashes: list[str], import_id: UUID, end: tuple[bool, dict[str, Any]] | None = None,
                         annotator_hash: str | None = None, arbiter_hash: str | None = None,
                         table_hash: str | None = None,
                         history: list[tuple[Entry | None, dict[str, Any] | None]] | None = None) -> None:
        """Store the record of an accepted import in one save (`_build_imported`), unless an earlier attempt
        of this import stored it already."""
        record = self._build_imported(record_id, header, entries, token_hashes, import_id, end, annotator_hash,
                                      arbiter_hash, table_hash, history=history)
        try:
            with contextlib.suppress(IntegrityError):  # an earlier attempt of this import created it
                self.records.save(record)
        finally:
            self.records.built_snapshots.pop(record_id, None)

    def _build_imported(self, record_id: UUID, header: recordfile.Header, entries: list[Entry],
                        token_hashes: list[str], import_id: UUID, end: tuple[bool, dict[str, Any]] | None = None,
                        annotator_hash: str | None = None, arbiter_hash: str | None = None,
                        table_hash: str | None = None, seats: list[int | None] | None = None,
                        history: list[tuple[Entry | None, dict[str, Any] | None]] | None = None) -> Record:
        """The record of an accepted import, built whole in memory and not saved. `end` (over, scores) is
        where the checker's own replay left the game; without it the log is folded here to learn it.
        `seats`: each entry's deciding seat, as the checker's replay parsed it; without them each command is
        parsed again here. `history`: a file with take-backs, its entries and take-backs in the order they were made
        (recordfile.history), each entry taken back stored and then withdrawn as it was at the table. `table_hash`:
        a game still in progress goes on at the table, its device entering what a seat may not see (play.py seals the
        pools a seat's view hides); a finished one takes no more commands and gets none.

        Its snapshots are taken from the aggregate in memory as it is built, and put by
        `_take_snapshots` when it is saved: the library would read the new record back from the store once
        per snapshot (`snapshotting_intervals`), which cost an import more than its checking."""
        game = catalog.game(header.title)
        edition = self.records.edition(header.title, header.edition, header.edition_file)
        if end is None:
            state = game.begin(edition)
            for entry in entries:
                for e in entry.events:
                    state = game.evolve(state, e)
            end = (game.pending(state).over, game.scores(state))
        over, scores = end
        # A live record's chance is only ever the service's own secret: a live log cut before its
        # end carries a seed everyone holding the file knows, so it goes on as a transcribed record.
        live = header.mode == LIVE and header.seed is not None and over
        # a finished file's revealed key gives back its own links (an export imported again is the same record);
        # any other record draws a key of its own (a key in an unfinished file is known to whoever holds it)
        chain_key = (header.chain_key if over and header.chain_key else secrets.token_hex(32)) if self.records.chain else None
        record = Record(
            id=record_id,
            title=header.title,
            edition=edition.ref,
            edition_file=header.edition_file,
            seats=header.seats,
            token_hashes=token_hashes,
            options=header.options,
            mode=LIVE if live else TRANSCRIBED,
            commitment=header.commitment if live else None,
            seed=header.seed if live else None,
            origin={"import": str(import_id), **({"cut_from_live": header.commitment} if header.mode == LIVE and not live else {})},
            annotator_hash=annotator_hash,
            arbiter_hash=arbiter_hash,
            **({"dice": dice.SHARED} if live and header.shared else {}),
            **({"table_hash": table_hash} if table_hash and not over else {}),
            chain=self.records.play.first_link(header.title, edition.ref, header.edition_file, header.seats, header.options,
                                   LIVE if live else TRANSCRIBED, header.commitment if live else None,
                                   dice.SHARED if live and header.shared else None, chain_key),
            chain_key=chain_key,
        )
        shared = header.shared if live else None
        for k, seat_of in enumerate((shared or {}).get("seats", [])):  # shared dice: the seats joined as they did live
            record.join(seat=k, commitment=seat_of["commitment"], contribution=seat_of["contributions"]["0"])
        interval = self.records.snapshotting_intervals.get(Record)
        snapshots: list[Any] = []

        def snapshot() -> None:
            snapshots.append(Record.Snapshot.take(record))

        stamp = Record.Happened.create_timestamp()  # type: ignore[attr-defined]  # the record is stored in one save: one time for its game events
        starts: list[tuple[int, int | None]] = []  # each place's first step (less one) and deciding seat
        for placed, taken in history or [(e, None) for e in entries]:
            if placed is None:  # the last entry taken back, as the table (or the seats) did
                assert taken is not None
                start, seat = starts.pop()
                record.withdraw(entry=len(starts), steps=record.steps - start, first_step=start + 1, seat=seat,
                                by=taken["by"], consents=taken["consents"])
                if interval and record.version % interval == 0:
                    snapshot()
                continue
            index = len(starts)
            kept = history is None or (index < len(entries) and placed is entries[index])
            seat = (seats[index] if seats is not None and kept else None if index == 0
                    else game.parse_command(placed.command or {}).seat)
            starts.append((record.steps, seat))
            stored = placed.to_json(events=False)
            stored["events"] = [CanonicalEvent(chains.event_bytes(e)) for e in placed.events]  # the rules' own, no JSON objects
            if shared and index and kept:
                stored["contribution"] = dice.contributions_of(shared["seats"], index)[0]
            record.record(stored, seat=seat, after=snapshot if interval else None, stamp=stamp, every=interval or 1)
        if over:
            record.finish(seed=header.seed, scores=scores)
            if interval and record.version % interval == 0:
                snapshot()
        for k, seat_of in enumerate((shared or {}).get("seats", [])):
            if seat_of.get("secret") is not None:
                record.reveal(seat=k, secret=seat_of["secret"])
        self.records.built_snapshots[record_id] = snapshots
        return record
