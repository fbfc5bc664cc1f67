"""The records application: start a record, apply a seat's command, read any step, import files.

One stream per record (aggregate `Record`) and one per import (aggregate `Import`), in
an `eventsourcing.Application`: SQLite by default, PostgreSQL through the library's own
environment variables (docs/deployment.md).

Live chance: a live record draws a secret seed at the start and publishes its SHA-256.
Log entry k (0 = setup) is decided with `SeededChance(seed + "/" + k)`, so after the seed
is revealed (in the `Finished` event and the export) anyone can re-derive every outcome.
"""

from __future__ import annotations

import bisect
import contextlib
import copy
import hashlib
import json
import logging
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent, project_aggregate
from eventsourcing.persistence import (
    InfrastructureFactory,
    IntegrityError,
    JSONTranscoder,
    PersistenceError,
    Transcoder,
)
from eventsourcing.utils import Environment

from domain import catalog
from domain.kernel import (
    Edition,
    EditionError,
    Entry,
    Event,
    MalformedCommand,
    ObservedChance,
    Outcome,
    Reader,
    RuleViolation,
    SeededChance,
    commitment,
    play,
    reveal,
)
from domain.kernel.describe import Sentence, say
from domain.kernel.notation import seat_names_problem
from domain.kernel.violations import ALL
from domain.records import chain as chains
from domain.records import dice, recordfile, room, story
from domain.records.aggregates import LIVE, MODES, TRANSCRIBED, VALIDATING, Import, Record, RequestKey
from domain.records.directory import Directory
from domain.records.rows import CanonicalEvent, RecordEventStore, RecordMapper, RecordTranscoder, stored_event
from domain.records.settings import Limits
from domain.records.store import construct_factory
from domain.records.timeline import Meta, Timeline, Timelines, loads, select_streams
from domain.records.turns import round_in_view, turn_ranges
from domain.records.views import visible


def first_line(exc: BaseException) -> str:
    """An exception's first line (its type's name when it says nothing): what a one-line log or message
    quotes of a store's fault, whose text may run to a query and its context."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class RecordsError(Exception):
    """Base of what the service refuses, each with a status the HTTP edge maps directly."""

    status = 400
    title: str | None = None  # the problem's title at the HTTP edge; None: the status's own

    def __init__(self, message: str, **facts: Any) -> None:
        super().__init__(message)
        self.message = message
        self.facts = facts


class NotFound(RecordsError):
    status = 404


class Conflict(RecordsError):
    status = 409


class Forbidden(RecordsError):
    status = 403


class Unauthorized(RecordsError):
    status = 401


class WrongKey(Forbidden):
    """A credential that opens nothing here: no seat's token, not the annotator's, arbiter's or teacher's key.
    The HTTP edge counts each against the asker's budget of failures (api/throttle.py); a valid token asking
    for what it may not do (another seat's command) stays a plain Forbidden and is never counted."""


class Invalid(RecordsError):
    status = 422


class TooLarge(RecordsError):
    """A record file beyond the service's size limit (CRONACA_MAX_UPLOAD_BYTES)."""

    status = 413
    title = "Content Too Large"


def over_limit(over: room.Over) -> RecordsError:
    """A change refused because the record's (or lesson's) file would pass an import's limit: 413 for its bytes,
    422 for a count, rule `file/limit` with the limit's name, the most allowed and the value, as an import says it."""
    return (TooLarge if over.bytes else Invalid)(over.message, rule="file/limit", limit=over.limit, allowed=over.allowed,
                                                 value=over.value)


class AlreadySubmitted(Exception):  # noqa: N818  (not an error: the answer to a retried submission)
    """A submission retried with its Idempotency-Key: the import it made the first time (docs/api.md)."""

    def __init__(self, import_id: UUID) -> None:
        super().__init__(f"submitted before as import {import_id}")
        self.import_id = import_id


class Refused(Invalid):
    """The rules refuse a command: the violation as its reader may read it (kernel.violations)."""

    title = "Rule violation"

    def __init__(self, violation: RuleViolation, reader: Reader) -> None:
        shown = violation.to_json(reader)
        super().__init__(shown["message"], **{**shown["facts"], "rule": violation.rule})
        self.rule = violation.rule


NOTATION = "cronaca-notation"  # an import's stored document: {"format": NOTATION, "text": ...}
STEP_CACHE = 20_000  # answers of finished records' steps kept per process (a few KB each)
BOARD_CACHE_BYTES = 64 * 1024 * 1024  # drawn boards kept per process (tens of KB each)

Drawing = Callable[[str, Any, Any, Edition, list[str]], str]
"""(title, view, previous view, edition, seat names) -> SVG: the viewer's `replay_viewer.boards.draw`."""


def titles() -> list[str]:
    """Titles whose engine is installed and complete (a package without `GAME` is still being written)."""
    found = []
    for title in catalog.TITLES:
        try:
            catalog.game(title)
        except Exception:  # noqa: BLE001  (one title's broken package never takes the service down)
            continue
        found.append(title)
    return found


def imported_record_id(import_id: UUID) -> UUID:
    """The id of the record an import makes: the same whichever attempt makes it, so it is made at most once."""
    return uuid5(NAMESPACE_URL, f"cronaca:import:{import_id}")


def _rulings_left(document: Any) -> dict[str, Any]:
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


def _keys_of(found: Import) -> tuple[str | None, str | None]:
    """An import's annotator and arbiter key hashes (None on an import saved before they existed)."""
    return getattr(found, "annotator_hash", None), getattr(found, "arbiter_hash", None)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_tokens(n: int) -> list[str]:
    return [secrets.token_urlsafe(24) for _ in range(n)]


@dataclass
class Played:
    """What one accepted command did."""

    version: int
    first_step: int
    events: list[Event]
    finished: bool
    seat: int | None = None
    replayed: bool = False  # the answer to a retry with the same Idempotency-Key: nothing was stored this time


@dataclass(frozen=True)
class Board:
    """One step's board as one reader sees it: the SVG, its entity tag, and whether it is final (a finished record)."""

    svg: bytes
    etag: str
    finished: bool


NOTE_EVENTS = ("Annotated", "Edited", "Deleted")


def notes_as_read(rows: list[tuple[int, str, dict[str, Any]]], whole: dict[str, Any] | None, seat: int | None
                  ) -> dict[str, Any] | None:
    """What `/verify` says of a record's notes stream to a reader of the game in progress (no token: the public;
    a seat's token: that seat): its verdict on the events of the notes this reader may read (for everyone, or
    for its seat, by each note's last audience), never the stream's head, length or versions, which count and
    place every private note. A row of a note it may not read that does not fit its link is said once, without
    where: an honest stream has none, so two records that differ only by private notes answer alike. None when
    there is nothing this reader may read and nothing wrong (a stream of private notes alone, or none).
    `whole`: `Records._stream_verdict(rows)`."""
    audience: dict[str, Any] = {}  # note id -> its last audience
    about: dict[int, str] = {}  # version -> the note its event is about
    for version, topic, payload in rows:
        name = topic.rsplit(".", 1)[-1]
        if name == "Annotated" and isinstance(payload.get("note"), dict):
            note_id = str(payload["note"].get("id"))
            audience[note_id] = payload["note"].get("audience")
        elif name in NOTE_EVENTS:
            note_id = str(payload.get("note_id"))
            changes = payload.get("changes")
            if isinstance(changes, dict) and "audience" in changes:
                audience[note_id] = changes["audience"]
        else:
            continue
        about[version] = note_id
    readable = {v for v, note_id in about.items() if audience.get(note_id) is None or (seat is not None and audience[note_id] == seat)}
    if whole is None or (not readable and whole["ok"] is not False):
        return None
    if whole["ok"] is None:
        return {"ok": None, "view_of": "public" if seat is None else f"seat:{seat}", "events": len(readable),
                "problems": [], "note": whole.get("note")}
    problems = [{"event": p["event"], "what": str(p["what"]).replace(f" (version {p['version']})", "")}
                for p in whole["problems"] if p["version"] in readable]
    if any(p["version"] not in readable for p in whole["problems"]):
        problems.append({"event": None, "what": "a stored row this reader may not read (a private note, the stream's "
                                                "opening) is missing or does not match its link"})
    return {"ok": not problems, "view_of": "public" if seat is None else f"seat:{seat}", "events": len(readable),
            "problems": problems}


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
        self._default_editions: dict[str, Edition] = {}  # the checker's, by title (validate_import)
        self._built_snapshots: dict[UUID, list[Any]] = {}  # an imported record's, taken as it was built
        self.timelines = Timelines(self.recorder, self.mapper, catalog.game, self._edition_of)
        self.directory = Directory(self.recorder, self.mapper)
        self._step_cache: OrderedDict[tuple[UUID, int], bytes] = OrderedDict()
        self._step_lock = threading.Lock()
        self._board_cache: OrderedDict[tuple[UUID, int, str], Board] = OrderedDict()
        self._board_bytes = 0
        self._board_lock = threading.Lock()

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
        return self.factory.mapper(transcoder=self.construct_transcoder(), mapper_class=RecordMapper)

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

    def _edition_of(self, meta: Meta) -> Edition:
        return self.edition(meta.title, meta.edition, meta.edition_file)

    # ---- writing --------------------------------------------------------------------

    def start(
        self,
        title: str,
        seats: list[str],
        options: Mapping[str, Any] | None = None,
        mode: str = LIVE,
        edition_file: str | None = None,
        setup_outcomes: list[Mapping[str, Any]] | None = None,
        seed: str | None = None,
        annotator_key: str | None = None,
        arbiter_key: str | None = None,
        dice_mode: str | None = None,
    ) -> tuple[UUID, list[str]]:
        """Create a record and run the setup; returns its id and one secret token per seat.

        `dice_mode="shared"` (live only): every seat contributes to chance (docs/trust.md); the setup
        then waits until every seat has joined (`join`), so it is not run here.

        `annotator_key` (made by the caller, handed out once) is stored hashed: it lets its holder
        annotate the record and branch variations from it (domain/records/teaching.py)."""
        if title not in titles():
            raise Invalid(f"unknown title {title!r}", available=titles())
        if mode not in MODES:
            raise Invalid(f"mode must be one of {list(MODES)}", given=mode)
        game = catalog.game(title)
        low, high = game.seats
        if not low <= len(seats) <= high:
            raise Invalid(f"{title} is played by {low} to {high} seats, not {len(seats)}", seats=len(seats))
        named = seat_names_problem(seats)
        if named is not None:  # refused now: the record's notation and evidence bundle must carry every name
            raise Invalid(f"seats[{named[0]}]: {named[1]}", rule="setup/seats", field=f"seats[{named[0]}]")
        over = room.over_count(len(seats), Limits.from_env(self.env).max_seats, room.SEATS, "the record's seats")
        if over is not None:
            raise over_limit(over)
        options = {"players": len(seats), **dict(options or {})}
        if options["players"] != len(seats):
            raise Invalid(f"options.players is {options['players']!r} but {len(seats)} seats are named; "
                          "name one seat per player", rule="setup/seats", seats=len(seats), players=options["players"])
        try:
            edition = self.edition(title, None, edition_file)
        except EditionError as exc:
            raise Invalid(str(exc)) from exc
        if dice_mode not in (None, dice.SHARED):
            raise Invalid(f"dice is \"{dice.SHARED}\" (every seat contributes) or left out (the service's seed alone), "
                          f"not {dice_mode!r}", rule="setup/dice", given=dice_mode)
        if dice_mode == dice.SHARED and mode != LIVE:
            raise Invalid("shared dice are for a live record: a transcribed record's outcomes are the table's",
                          rule="setup/dice", mode=mode)
        if mode == LIVE:
            if setup_outcomes:
                raise Invalid("a live record draws its own setup: send no \"setup_outcomes\" (they are for a "
                              "transcribed record)", rule="setup/live-outcomes")
            seed = seed or secrets.token_hex(16)
            # shared dice: the options are tried with a throwaway seed now; the setup is drawn once all seats joined
            chance: Any = recordfile.live_chance(secrets.token_hex(16) if dice_mode else seed, 0)
        else:
            seed = None
            chance = ObservedChance(setup_outcomes or [])
        try:
            produced = game.setup(edition, options, chance)
        except RuleViolation as exc:
            raise Refused(exc, None) from exc
        except (KeyError, ValueError, TypeError) as exc:
            raise Invalid(f"the game cannot be set up with these options: {exc}", options=options) from exc
        self._no_unused(chance)
        if not produced:
            raise Invalid("the setup causes no game event, so there is nothing to record", rule="setup/no-events")
        setup = Entry(None, tuple(chance.log), tuple(produced), options=options).to_json()
        tokens = new_tokens(len(seats))
        chain_key = secrets.token_hex(32) if self.chain else None  # every link keyed (chain.py), revealed at the end
        record = Record(
            id=uuid4(),
            title=title,
            edition=edition.ref,
            edition_file=edition_file,
            seats=list(seats),
            token_hashes=[token_hash(t) for t in tokens],
            options=options,
            mode=mode,
            commitment=commitment(seed) if seed else None,
            seed=seed,
            origin=None,
            annotator_hash=token_hash(annotator_key) if annotator_key else None,
            arbiter_hash=token_hash(arbiter_key) if arbiter_key else None,
            **({"dice": dice_mode} if dice_mode else {}),
            chain=self._first_link(title, edition.ref, edition_file, list(seats), options, mode,
                                   commitment(seed) if seed else None, dice_mode, chain_key),
            chain_key=chain_key,
        )
        if not dice_mode:
            record.record(setup, seat=None)
        self.save(record)
        return record.id, tokens

    def _first_link(self, title: str, edition: dict[str, str], edition_file: str | None, seats: list[str],
                    options: dict[str, Any], mode: str, commitment: str | None, dice_mode: str | None,
                    chain_key: str | None) -> str | None:
        """The `Started` event's link (chain.started_item, as the record file will say it), or None with chains off."""
        if not self.chain:
            return None
        return Record.started_link(title, edition, edition_file, seats, options, mode, commitment, dice_mode, chain_key)

    @staticmethod
    def _no_unused(chance: Any) -> None:
        if isinstance(chance, ObservedChance) and chance.unused:
            raise Invalid(
                f"{len(chance.unused)} outcome(s) given that the rules never asked for",
                rule="chance/unused-outcome",
                unused=[o.to_json() for o in chance.unused],
            )

    def seat_of(self, meta: Meta, token: str | None) -> int | None:
        """The seat a token opens, None for no token; a wrong token is refused, never ignored."""
        if token is None:
            return None
        digest = token_hash(token)
        for seat, known in enumerate(meta.token_hashes):
            if secrets.compare_digest(known, digest):
                return seat
        raise WrongKey("this token opens no seat of this record")

    def is_annotator(self, meta: Meta, token: str | None) -> bool:
        """Whether a token is this record's annotator key (never a seat's token)."""
        if token is None or meta.annotator_hash is None:
            return False
        return secrets.compare_digest(meta.annotator_hash, token_hash(token))

    def is_arbiter(self, meta: Meta, token: str | None) -> bool:
        """Whether a token is this record's arbiter key (who may record rulings)."""
        if token is None or meta.arbiter_hash is None:
            return False
        return secrets.compare_digest(meta.arbiter_hash, token_hash(token))

    def play(
        self,
        record_id: UUID,
        payload: Mapping[str, Any],
        token: str | None,
        expected_version: int | None = None,
        outcomes: list[Mapping[str, Any]] | None = None,
        contribution: str | None = None,
        idempotency_key: str | None = None,
    ) -> Played:
        """Decide a seat's command and append all its events, or none.

        Who may act is checked before the state they act on: a stranger's token is refused
        (401/403) before the record's version or status is compared, so it learns neither.

        With an `idempotency_key` (the seat's own; docs/api.md) the command's events are saved in one
        transaction with a `RequestKey` for (record, seat, key): a retry of a stored command, through any
        process, is answered what the first attempt was (`replayed`), even once the record has moved on;
        the same key with another body is refused (422 idempotency/reused).
        """
        try:
            record: Record = self.repository.get(record_id)
        except AggregateNotFoundError as exc:
            raise NotFound(f"no record {record_id}") from exc
        with self.reading(record_id) as timeline:
            assert timeline.meta is not None
            if token is None:
                raise Unauthorized("a command needs the token of the seat that makes it (Authorization: Bearer <token>)")
            seat = self.seat_of(timeline.meta, token)
            keyed = body = None
            if idempotency_key is not None:
                keyed = uuid5(NAMESPACE_URL, f"cronaca:idempotency:command:{record_id}:{seat}:{idempotency_key}")
                body = hashlib.sha256(json.dumps({"command": payload, "version": expected_version, "outcomes": outcomes,
                                                  "contribution": contribution}, sort_keys=True, separators=(",", ":"),
                                                 default=str).encode()).hexdigest()
                again = self._played_before(record_id, keyed, body)
                if again is not None:
                    return again
            if record.finished:
                raise Conflict("the game is over; a finished record takes no more commands")
            shared = getattr(record, "dice", None) == dice.SHARED
            if shared and timeline.meta.waiting:
                raise Conflict(self._waiting_message(timeline.meta), rule="dice/waiting", waiting=timeline.meta.waiting)
            if expected_version is not None and expected_version != record.version:
                raise Conflict(
                    f"the record is at version {record.version}, the command was decided against {expected_version}; "
                    "reload the record and decide again",
                    version=record.version, expected_version=expected_version,
                )
            if timeline.meta.version != record.version:
                raise Conflict("the record changed while the command was being read; decide again", version=record.version)
            game = timeline.game
            try:
                cmd = game.parse_command(payload)
            except MalformedCommand as exc:
                raise Invalid(exc.message, rule="command/malformed", errors=exc.errors) from exc
            if cmd.seat != seat:
                raise Forbidden(f"this token is for seat {seat}, the command is for seat {cmd.seat}", token_seat=seat, command_seat=cmd.seat)
            if record.mode == LIVE:
                if outcomes is not None:
                    raise Invalid("a live record draws its own chance: send no \"outcomes\" with its commands",
                                  rule="command/live-outcomes")
                assert record.seed is not None
                if shared:
                    chance: Any = SeededChance(dice.entry_seed(record.seed, record.entries,
                                                               [self._contribution(contribution, record.entries)]))
                elif contribution is not None:
                    raise Invalid("this record's dice are the service's alone: send no \"contribution\"",
                                  rule="dice/not-shared")
                else:
                    chance = recordfile.live_chance(record.seed, record.entries)
            else:
                if outcomes is None:
                    raise Invalid("a transcribed record needs the chance outcomes each command met (\"outcomes\": [...])")
                try:
                    chance = ObservedChance([Outcome.from_json(dict(o)) for o in outcomes])
                except (KeyError, TypeError, ValueError) as exc:
                    raise Invalid(f"an outcome needs kind, source and values: {exc}", rule="command/outcomes") from exc
            try:
                produced, after = play(game, timeline.head, cmd, chance)
            except RuleViolation as exc:
                raise Refused(exc, seat) from exc  # the facts as this seat may read them
            self._no_unused(chance)
            if not produced:
                raise Invalid("the rules accept this command but it changes nothing, so there is nothing to record",
                              rule="command/no-events")
            entry = Entry(cmd.to_json(), tuple(chance.log), tuple(produced)).to_json()
            if shared:
                entry["contribution"] = contribution  # the timeline keeps it under the seat (chance.seats), not in the entry
            own = self._room_for(record_id, timeline.meta.version, record.entries, entry, record.mode, len(record.seats),
                                 shared)
            first_step = record.steps
            record.record(entry, seat=seat)
            finished = game.pending(after).over
            if finished:
                record.finish(seed=record.seed, scores=game.scores(after))
            used = [] if keyed is None or body is None else [RequestKey(id=keyed, body=body, answer={
                "seat": seat, "first_step": first_step, "events": len(produced), "version": record.version,
                "finished": finished})]
            try:
                self.save(record, *used)
            except IntegrityError as exc:
                if keyed is not None and body is not None:  # the same key's first attempt, stored a moment before?
                    again = self._played_before(record_id, keyed, body)
                    if again is not None:
                        return again
                raise Conflict("another command was appended first; reload the record and decide again") from exc
            if not finished:
                room.keep_own(record_id, record.version, own)
            return Played(record.version, first_step, list(produced), finished, seat)

    def _room_for(self, record_id: UUID, version: int, entries: int, entry: dict[str, Any], mode: str, seats: int,
                  shared: bool) -> int:
        """Refuse a command whose entry the record file could not hold on import (CRONACA_MAX_ENTRIES, and its
        own bytes within CRONACA_MAX_UPLOAD_BYTES; room.py); the record's own part grown by it."""
        over = room.over_entries(self, entries + 1, "the number of log entries")
        if over is not None:
            raise over_limit(over)
        exported = dice.mark_outcomes([{k: v for k, v in entry.items() if k != "contribution"}], mode)[0]
        # shared dice: the export lists each entry's contributions under chance.seats, one hex digest per seat
        added = room.item(exported) + (seats * room.item({"0000000": "0" * 64}) if shared else 0)
        own, over = room.own_bytes(self, record_id, version, added)
        if over is not None:
            raise over_limit(over)
        return own

    def _played_before(self, record_id: UUID, keyed: UUID, body: str) -> Played | None:
        """The command an Idempotency-Key stored before, as `play` answered it then; None if it stored none."""
        used = self._used_key(keyed, body, "request", "command")
        if used is None:
            return None
        first, count = int(used.answer["first_step"]), int(used.answer["events"])
        with self.reading(record_id) as timeline:  # caught up: the first attempt's events are stored
            events = list(timeline.events[first:first + count])
        return Played(int(used.answer["version"]), first, events, bool(used.answer["finished"]), used.answer["seat"],
                      replayed=True)

    def played_answer(self, record_id: UUID, played: Played) -> dict[str, Any]:
        """What `POST .../commands` answers for a command: its events (payloads only when it ended the game), and
        the seat's view and pending decision right after it, as they were then (a retry gets the same answer)."""
        last = played.first_step + len(played.events)
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            state = timeline.state_at(last)
            game = timeline.game
            _, view = visible(game, state, len(meta.seats), played.finished, played.seat)
            pending = game.pending(state)
        shown: dict[str, Any] = {"seat": pending.seat, "kind": pending.kind}
        if played.finished or (played.seat is not None and played.seat == pending.seat):
            shown = pending.to_json()
        events = [{"step": played.first_step + k + 1, **e.to_json()} if played.finished
                  else {"step": played.first_step + k + 1, "type": e.type, "redacted": True}
                  for k, e in enumerate(played.events)]
        return {"version": played.version, "steps": [played.first_step + 1, last], "events": events,
                "finished": played.finished, "view": view, "pending": shown}

    # ---- shared dice (domain/records/dice.py, docs/trust.md) ------------------------------

    @staticmethod
    def _waiting_message(meta: Meta) -> str:
        names = ", ".join(f"seat {k} ({meta.seats[k]})" for k in meta.waiting)
        return f"the record waits for every seat to join its shared dice; not joined yet: {names}"

    @staticmethod
    def _contribution(value: Any, k: int, rule: str = "dice/contribution") -> str:
        """A seat's contribution as the protocol writes it, or a 422 naming the entry it was for."""
        if value is None:
            raise Invalid(f"this record's dice are shared: a command carries its seat's \"contribution\" for entry {k} "
                          f"(HMAC-SHA256 of the seat's secret and 'cronaca/entry/{k}', docs/trust.md)",
                          rule="dice/contribution-missing", entry=k)
        if not dice.is_hex64(value):
            raise Invalid(f"the contribution for entry {k} must be 64 lower-case hex digits (an HMAC-SHA256)", rule=rule,
                          entry=k, field="contribution")
        return str(value)

    def _shared_record(self, record_id: UUID, seat: int, token: str | None) -> tuple[Record, Timeline]:
        """The record and its timeline, for an act of seat `seat` on its shared dice: its own token only."""
        try:
            record: Record = self.repository.get(record_id)
        except AggregateNotFoundError as exc:
            raise NotFound(f"no record {record_id}") from exc
        timeline = self.timeline(record_id)
        assert timeline.meta is not None
        if token is None:
            raise Unauthorized(f"seat {seat}'s act needs its token (Authorization: Bearer <token>)")
        mine = self.seat_of(timeline.meta, token)
        if not 0 <= seat < len(timeline.meta.seats):
            raise NotFound(f"seat {seat} does not exist; this record has seats 0 to {len(timeline.meta.seats) - 1}")
        if mine != seat:
            raise Forbidden(f"this token is for seat {mine}, not seat {seat}: a seat joins and reveals for itself only",
                            rule="dice/seat", token_seat=mine, seat=seat)
        if getattr(record, "dice", None) != dice.SHARED:
            raise Conflict("this record's dice are the service's alone: its seats neither join nor reveal",
                           rule="dice/not-shared")
        return record, timeline

    def join(self, record_id: UUID, seat: int, token: str | None, commitment_hex: Any, contribution: Any) -> dict[str, Any]:
        """A seat joins a shared-dice record: its commitment (sha256 of its secret) and its part of the setup.
        The last seat to join draws the setup (entry 0) from the service's seed and every seat's part."""
        record, timeline = self._shared_record(record_id, seat, token)
        if record.joined[seat] is not None:
            raise Conflict(f"seat {seat} has already joined (commitment {record.joined[seat]}); a commitment is never replaced",
                           rule="dice/joined", seat=seat)
        if not dice.is_hex64(commitment_hex):
            raise Invalid("the commitment must be 64 lower-case hex digits: the SHA-256 of the seat's secret", rule="dice/commitment",
                          field="commitment", seat=seat)
        part = self._contribution(contribution, 0)
        record.join(seat=seat, commitment=str(commitment_hex), contribution=part)
        started = False
        if None not in record.joined:
            assert record.seed is not None
            chance = SeededChance(dice.entry_seed(record.seed, 0, [str(p) for p in record.setup_parts]))
            game = timeline.game
            try:
                produced = game.setup(self.edition(record.title, record.edition, record.edition_file), record.options, chance)
            except RuleViolation as exc:
                raise Refused(exc, None) from exc
            setup = Entry(None, tuple(chance.log), tuple(produced), options=record.options).to_json()
            record.record(setup, seat=None)
            started = True
        try:
            self.save(record)
        except IntegrityError as exc:
            raise Conflict("another seat joined at the same moment; join again") from exc
        waiting = [k for k, c in enumerate(record.joined) if c is None]
        return {"seat": seat, "commitment": commitment_hex, "waiting": waiting, "started": started, "version": record.version}

    def reveal_secret(self, record_id: UUID, seat: int, token: str | None, secret: Any) -> dict[str, Any]:
        """A seat reveals its secret once the game is over; it must match the commitment it joined with.
        Contributions that do not match the secret are stored anyway and named (dice.check_reveals)."""
        record, timeline = self._shared_record(record_id, seat, token)
        if not record.finished:
            raise Conflict("a seat reveals its secret once the game is over: before that, it would let whoever holds the "
                           "service's seed predict the seat's draws", rule="dice/too-early", seat=seat)
        if record.revealed[seat] is not None:
            raise Conflict(f"seat {seat} has already revealed its secret", rule="dice/revealed", seat=seat)
        if not isinstance(secret, str) or not secret:
            raise Invalid("the secret is the string the seat's commitment is the SHA-256 of", rule="dice/secret",
                          field="secret", seat=seat)
        if dice.seat_commitment(secret) != record.joined[seat]:
            raise Invalid(f"seat {seat}'s secret does not match its commitment: sha256(secret) is "
                          f"{dice.seat_commitment(secret)}, the commitment {record.joined[seat]}", rule="dice/secret",
                          field="secret", seat=seat, commitment=record.joined[seat])
        record.reveal(seat=seat, secret=secret)
        try:
            self.save(record)
        except IntegrityError as exc:
            raise Conflict("the record changed at the same moment; reveal again") from exc
        assert timeline.meta is not None
        own = {"seat": seat, "commitment": record.joined[seat], "secret": secret,
               "contributions": dict(timeline.meta.contributions[seat])}
        return {"seat": seat, "revealed": True, "problems": dice.check_reveals({"dice": dice.SHARED, "seats": [own]}),
                "waiting": [k for k, s in enumerate(record.revealed) if s is None], "version": record.version}

    # ---- reading --------------------------------------------------------------------

    def timeline(self, record_id: UUID) -> Timeline:
        found = self.timelines.get(record_id)
        if found is None:
            raise NotFound(f"no record {record_id}")
        return found

    @contextmanager
    def reading(self, record_id: UUID) -> Iterator[Timeline]:
        """The record's timeline, held still while it is read.

        Another thread may be absorbing new rows into the same timeline (its event list,
        entries and checkpoints grow together); a reader holding the lock sees them whole.
        """
        timeline = self.timeline(record_id)
        with timeline.lock:
            yield timeline

    def step(self, record_id: UUID, n: int, token: str | None) -> dict[str, Any]:
        """The state after the first n game events, as the caller may see it."""
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            seat = self.seat_of(meta, token)
            if not 0 <= n <= len(timeline.events):
                raise NotFound(f"step {n} does not exist; this record has steps 0 to {len(timeline.events)}",
                               steps=len(timeline.events))
            state = timeline.state_at(n)
            game = timeline.game
            which, view = visible(game, state, len(meta.seats), meta.finished, seat)  # total at every step (kernel contract)
            pending = game.pending(state)
            scores = game.scores(state) if meta.finished else None
            shown_pending: dict[str, Any] = {"seat": pending.seat, "kind": pending.kind}
            if meta.finished or (seat is not None and seat == pending.seat):
                shown_pending = pending.to_json()
            out: dict[str, Any] = {"step": n, "steps": len(timeline.events), "view_of": which, "view": view, "pending": shown_pending}
            if n > 0:
                out["event"] = timeline.events[n - 1].type
                by = self._by_at(timeline, n)
                if by is not None:
                    out["by"] = by  # where this step's chance outcomes came from (docs/trust.md)
            if scores is not None:
                out["scores"] = scores
            return out

    def step_json(self, record_id: UUID, n: int, token: str | None) -> bytes:
        """`step` as JSON bytes. A finished record's steps never change and show every seat the same
        all-seeing view, so their answers are kept in a bounded cache."""
        with self.reading(record_id) as timeline:
            assert timeline.meta is not None
            if not timeline.meta.finished:
                return json.dumps(self.step(record_id, n, token), separators=(",", ":")).encode()
            self.seat_of(timeline.meta, token)  # a forged token is refused even where it would change nothing
            key = (record_id, n)
            with self._step_lock:
                found = self._step_cache.get(key)
            if found is None:
                found = json.dumps(self.step(record_id, n, token), separators=(",", ":")).encode()
                with self._step_lock:
                    self._step_cache[key] = found
                    while len(self._step_cache) > STEP_CACHE:
                        self._step_cache.popitem(last=False)
            return found

    def event_range(self, record_id: UUID, start: int, stop: int | None, token: str | None = None) -> dict[str, Any]:
        """Game events [start, stop); their payloads only once the game is over (they carry secrets)."""
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            self.seat_of(meta, token)  # a token that opens no seat is refused, never ignored
            total = len(timeline.events)
            stop = total if stop is None else min(stop, total)
            start = max(0, start)
            items = []
            for i in range(start, max(start, stop)):
                e = timeline.events[i]
                items.append({"step": i + 1, **e.to_json()} if meta.finished else {"step": i + 1, "type": e.type, "redacted": True})
            return {"from": start, "to": max(start, stop), "steps": total, "redacted": not meta.finished, "events": items}

    def turns(self, record_id: UUID, token: str | None = None) -> list[dict[str, Any]]:
        """Step ranges of the setup and of each turn (consecutive commands by one seat).

        The round is the title's own where its all-seeing view has an integer `round` (only
        that number is read); otherwise a new round starts when a turn's seat is not after
        the previous turn's seat.
        """
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            self.seat_of(meta, token)
            if not meta.entry_starts:  # shared dice, waiting for its seats: no setup yet
                return [{"turn": 0, "round": 0, "seat": None, "player": None, "from": 0, "to": 0, "commands": 0}]
            known = timeline.memo.get("turns")
            if known is not None and known[0] == meta.version:
                return copy.deepcopy(known[1])  # type: ignore[no-any-return]
            out = turn_ranges(meta.entry_seats, meta.entry_sizes, meta.seats,
                              lambda step: round_in_view(lambda: timeline.game.view(timeline.state_at(step), None)))
            timeline.memo["turns"] = (meta.version, copy.deepcopy(out))
            return out

    # ---- the viewer: story, board, scores over time ------------------------------------

    @staticmethod
    def _reader(meta: Meta, seat: int | None) -> tuple[Reader, str]:
        """Who reads, and the name of that view: all-seeing once finished, else the token's seat or the public."""
        if meta.finished:
            return ALL, "all"
        if seat is not None:
            return seat, f"seat:{seat}"
        return None, "public"

    def _sentences(self, timeline: Timeline) -> list[Sentence | None]:
        """Every event's sentence, told once: the stream is append-only, so only new events are folded."""
        meta = timeline.meta
        assert meta is not None
        known = timeline.memo.get("story:sentences")  # (events told, their sentences): true at any later version
        said: list[Sentence | None] = list(known[1]) if known is not None else []
        if len(said) < len(timeline.events):
            game = timeline.game
            state = timeline.state_at(len(said))
            for e in timeline.events[len(said):]:
                said.append(story.tell(game, e, state, meta.seats))
                state = game.evolve(state, e)
            timeline.memo["story:sentences"] = (len(said), said)
        return said

    @staticmethod
    def _by_at(timeline: Timeline, step: int) -> str | None:
        """Who gave the chance outcomes of the entry that caused game event `step` (1-based): "service" or
        "transcriber"; None when that entry met no chance. Entries stored before `by` existed: from the mode."""
        meta = timeline.meta
        assert meta is not None
        index = bisect.bisect_right(meta.entry_starts, step - 1) - 1
        if not 0 <= index < len(timeline.entries):
            return None
        outcomes = timeline.entries[index].get("outcomes") or []
        if not outcomes:
            return None
        return str(outcomes[0].get("by") or dice.by_of(meta.mode))

    def story(self, record_id: UUID, token: str | None = None) -> dict[str, Any]:
        """The move list: one line per event that the title puts in words, as this reader may read it."""
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            reader, which = self._reader(meta, self.seat_of(meta, token))
            key = f"story:{which}"
            known = timeline.memo.get(key)
            if known is not None and known[0] == meta.version:
                return copy.deepcopy(known[1])  # type: ignore[no-any-return]
            steps = len(timeline.events)
            if not meta.entry_starts:  # shared dice, waiting for its seats: nothing has happened yet
                return {"steps": 0, "view_of": which, "lines": []}
            said = self._sentences(timeline)
            rounds = story.rounds_by_step(self.turns(record_id), steps)
            seats = story.seats_by_step(meta.entry_starts, meta.entry_seats, steps)
            lines = []
            for k in range(1, steps + 1):
                text = say(said[k - 1], reader)
                if text is None:
                    continue
                seat = seats[k]
                line = {"step": k, "seat": seat, "player": meta.seats[seat] if seat is not None else None,
                        "round": rounds[k], "text": text}
                by = self._by_at(timeline, k)
                if by is not None:
                    line["by"] = by  # the entry met chance: drawn by the service, or asserted by a transcriber
                lines.append(line)
            out = {"steps": steps, "view_of": which, "lines": lines}
            timeline.memo[key] = (meta.version, copy.deepcopy(out))
            return out

    def story_json(self, record_id: UUID, token: str | None = None) -> bytes:
        """`story` as JSON bytes, kept per (version, reader): a live page asks again every few seconds."""
        return self._as_json(record_id, token, "story", self.story)

    def scores_json(self, record_id: UUID, token: str | None = None) -> bytes:
        """`scores_over_time` as JSON bytes, kept per version."""
        return self._as_json(record_id, token, "scores", self.scores_over_time)

    def _as_json(self, record_id: UUID, token: str | None, name: str,
                 answer: Callable[[UUID, str | None], dict[str, Any]]) -> bytes:
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            _, which = self._reader(meta, self.seat_of(meta, token))
            key = f"{name}-json:{which}"
            known = timeline.memo.get(key)
            if known is not None and known[0] == meta.version:
                return known[1]  # type: ignore[no-any-return]
            body = json.dumps(answer(record_id, token), separators=(",", ":")).encode()
            timeline.memo[key] = (meta.version, body)
            return body

    def board(self, record_id: UUID, n: int, token: str | None, draw: Drawing) -> Board:
        """Step n's board as this reader may see it, with what changed since step n-1 marked by `draw`.

        The state at a step never changes (streams are append-only), so a drawing is kept per
        (record, step, view) in a bounded cache; `draw` may raise (a title with no layout).
        """
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            _, which = self._reader(meta, self.seat_of(meta, token))
            steps = len(timeline.events)
            if not 0 <= n <= steps:
                raise NotFound(f"step {n} does not exist; this record has steps 0 to {steps}", steps=steps)
            key = (record_id, n, which)
            with self._board_lock:
                found = self._board_cache.get(key)
                if found is not None:
                    self._board_cache.move_to_end(key)
                    return found
            game = timeline.game
            seat = int(which.split(":")[1]) if which.startswith("seat:") else None
            previous = None
            if n > 0:
                before = timeline.state_at(n - 1)
                previous = visible(game, before, len(meta.seats), meta.finished, seat)[1]
                state = game.evolve(before, timeline.events[n - 1])
            else:
                state = timeline.state_at(0)
            view = visible(game, state, len(meta.seats), meta.finished, seat)[1]
            title, names, finished, edition = meta.title, list(meta.seats), meta.finished, self._edition_of(meta)
        # drawn outside the record's lock: neighbouring steps fetched at once are drawn side by side
        svg = draw(title, view, previous, edition, names).encode()
        found = Board(svg, f'"{hashlib.sha256(svg).hexdigest()[:32]}"', finished)
        with self._board_lock:
            if key not in self._board_cache:
                self._board_bytes += len(svg)
            self._board_cache[key] = found
            while self._board_bytes > BOARD_CACHE_BYTES and len(self._board_cache) > 1:
                _, dropped = self._board_cache.popitem(last=False)
                self._board_bytes -= len(dropped.svg)
        return found

    def kept_board(self, record_id: UUID, n: int, token: str | None) -> Board | None:
        """A finished record's board already drawn, or None: for the WSGI fast path, which hands every
        other case (and every error) to `board` through Flask."""
        key = (record_id, n, "all")
        with self._board_lock:
            found = self._board_cache.get(key)
        if found is None:
            return None
        with self.reading(record_id) as timeline:
            assert timeline.meta is not None
            self.seat_of(timeline.meta, token)  # a forged token is refused even where it would change nothing
        return found

    def scores_over_time(self, record_id: UUID, token: str | None = None) -> dict[str, Any]:
        """Every seat's running total at every step, round marks, lead changes and the final scores.

        Only once the game is over: a running score can carry what a seat hides (Serenissima's ducats).
        """
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            self.seat_of(meta, token)
            if not meta.finished:
                return {"available": False, "reason": story.UNAVAILABLE}
            known = timeline.memo.get("scores")
            if known is not None and known[0] == meta.version:
                return copy.deepcopy(known[1])  # type: ignore[no-any-return]
            game = timeline.game
            seats = len(meta.seats)
            state = timeline.state_at(0)
            totals = [story.totals_of(game.scores(state), seats)]
            for e in timeline.events:
                state = game.evolve(state, e)
                totals.append(story.totals_of(game.scores(state), seats))
            final = game.scores(state)
            out = {
                "available": True,
                "steps": len(timeline.events),
                "seats": [{"seat": i, "name": name, "totals": [row[i] for row in totals]} for i, name in enumerate(meta.seats)],
                "rounds": story.round_marks(self.turns(record_id)),
                "lead_changes": story.lead_changes(totals, final.get("ranking") or []),
                "final": final,
            }
            timeline.memo["scores"] = (meta.version, copy.deepcopy(out))
            return out

    def legal(self, record_id: UUID, token: str | None) -> dict[str, Any]:
        """The pending decision; its legal commands only for the seat that must decide."""
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            seat = self.seat_of(meta, token)
            if meta.waiting:  # shared dice: nothing is decided before every seat has joined
                return {"step": 0, "version": meta.version, "pending": {"seat": None, "kind": "waiting"}, "commands": [],
                        "waiting": meta.waiting, "note": self._waiting_message(meta)}
            state = timeline.head
            pending = timeline.game.pending(state)
            out: dict[str, Any] = {"step": len(timeline.events), "version": meta.version,
                                   "pending": {"seat": pending.seat, "kind": pending.kind}}
            if meta.dice:
                out["entry"] = len(timeline.entries)  # shared dice: the log entry the next command becomes (its contribution's k)
            if pending.over:
                out["commands"] = []
            elif seat is not None and seat == pending.seat:
                out["pending"] = pending.to_json()
                out["commands"] = [c.to_json() for c in timeline.game.legal(state)]
            else:
                out["commands"] = None
                out["note"] = "the legal commands are shown only to the seat that must decide (send its token)"
            return out

    def summary(self, record_id: UUID, token: str | None = None) -> dict[str, Any]:
        with self.reading(record_id) as timeline:
            assert timeline.meta is not None
            self.seat_of(timeline.meta, token)
            return self._summary(record_id, timeline)

    def _summary(self, record_id: UUID, timeline: Timeline) -> dict[str, Any]:
        meta = timeline.meta
        assert meta is not None
        out: dict[str, Any] = {
            "id": str(record_id),
            "title": meta.title,
            "edition": meta.edition,
            "seats": [{"seat": i, "name": n} for i, n in enumerate(meta.seats)],
            "options": meta.options,
            "mode": meta.mode,
            "status": "finished" if meta.finished else "in-progress",
            "finished": meta.finished,
            "version": meta.version,
            "steps": meta.steps,
            "created": meta.created,
            "chance": {"commitment": meta.commitment, "seed": meta.revealed_seed,
                       "derivation": "entry k (0 = setup): SeededChance(seed + '/' + k)" if meta.mode == LIVE else None},
        }
        if meta.chain_key is not None:  # the chain's key: committed to from the start, revealed with the seed at the end
            out["chance"].update(chain_commitment=chains.key_commitment(meta.chain_key), chain_key=meta.revealed_chain_key)
        if meta.dice == dice.SHARED:
            out["chance"].update(self._shared_dice(meta))
        out["chain"] = {"head": meta.chain_head, "length": meta.chain_length}
        if meta.origin:
            out["origin"] = meta.origin
        if meta.finished:
            out["scores"] = meta.scores
        return copy.deepcopy(out)  # the cached metadata stays ours

    def _reveal_deadline(self, meta: Meta) -> str | None:
        """When a seat that has not revealed is marked unverifiable: `reveal_hours` after the Finished event."""
        if meta.finished_at is None:
            return None
        try:
            finished = datetime.fromisoformat(meta.finished_at)
        except ValueError:
            return None
        return (finished + timedelta(hours=self.reveal_hours)).isoformat()

    def _shared_dice(self, meta: Meta) -> dict[str, Any]:
        """A shared-dice record's protocol state: who joined, who revealed, who is unverifiable (docs/trust.md)."""
        deadline = self._reveal_deadline(meta)
        now = datetime.now(UTC).isoformat()
        seats = [{"seat": k, "commitment": c, **({"secret": meta.secrets[k]} if meta.secrets[k] is not None else {})}
                 for k, c in enumerate(meta.seat_commitments)]
        status = dice.seats_status(seats, meta.finished_at, deadline, now)
        return {"dice": dice.SHARED, "derivation": dice.DERIVATION, "waiting": meta.waiting, "reveal_deadline": deadline,
                "seats": [{**seat, "status": st["status"]} for seat, st in zip(seats, status, strict=True)],
                "unverifiable": [st["seat"] for st in status if st["status"] == "unverifiable"]}

    def find(self, title: str | None = None, player: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        return [
            {"id": str(s.id), "title": s.title, "players": s.players, "mode": s.mode, "status": s.status,
             "finished": s.finished, "created": s.created}
            for s in self.directory.find(title, player, status)
        ]

    def listing(self, title: str | None = None, player: str | None = None, status: str | None = None,
                page: int = 1, per_page: int = 20) -> dict[str, Any]:
        """One page of the records list, newest first; a finished record's item names its winner(s) and
        each seat's final total in ranking order (those are public once the game is over)."""
        total, found = self.directory.page(title, player, status, (page - 1) * per_page, per_page)
        items = []
        for s in found:
            item: dict[str, Any] = {"id": str(s.id), "title": s.title, "players": s.players, "mode": s.mode,
                                    "status": s.status, "finished": s.finished, "created": s.created}
            if s.finished:
                named = [seat for seat in s.ranking if isinstance(seat, int) and 0 <= seat < len(s.players)]
                item["winner"] = [s.players[seat] for seat in s.winners if 0 <= seat < len(s.players)]
                item["scores"] = [{"name": s.players[seat], "total": s.totals.get(seat)} for seat in named]
            items.append(item)
        return {"items": items, "total": total, "page": page, "per_page": per_page}

    def export(self, record_id: UUID, token: str | None = None) -> dict[str, Any]:
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            self.seat_of(meta, token)
            if not meta.finished:
                raise Forbidden("a record is exported once the game is over: its log holds every secret")
            document = copy.deepcopy(recordfile.export(meta, timeline.entries))  # callers may change it: never our cache
            if meta.dice == dice.SHARED:  # a seat past the reveal deadline is marked (docs/trust.md)
                unverifiable = set(self._shared_dice(meta)["unverifiable"])
                for seat in document["chance"]["seats"]:
                    if seat["seat"] in unverifiable:
                        seat["unverifiable"] = True
            document["chain"] = {"head": meta.chain_head, "length": meta.chain_length}  # chain.record_items recomputes it
            return document

    # ---- verifying: the stored rows against their chain, and the log against the rules ------------

    def verify(self, record_id: UUID, token: str | None = None) -> dict[str, Any]:
        """Recompute the record's chain from its STORED rows (never from a cache) and re-decide its log by the
        rules (recordfile.check on the file those rows make), each problem at its step.

        A row changed in the database no longer matches its link (chain.verify_links: each link against the
        one before it as stored, so one changed row is named alone); a removed row leaves a gap in the stream's
        versions. A record stored before chains has no links: its chain is said to be absent, not broken."""
        from domain.records.timeline import paused_collector

        # A long record: ~100,000 short-lived objects (rows, items, the replay's states), none kept: with the
        # collector paused they are freed by their counts, and no collection walks the process's whole heap.
        with paused_collector():
            return self._verify(record_id, token)

    def _verify(self, record_id: UUID, token: str | None) -> dict[str, Any]:
        from types import SimpleNamespace

        from domain.records.timeline import FINISHED, HAPPENED, STARTED, decode_rows, select_stream

        rows = decode_rows(self.mapper, select_stream(self.recorder, record_id))
        if not rows or not rows[0][1].endswith(STARTED):
            raise NotFound(f"no record {record_id}")
        # who may ask: a forged token is refused, as everywhere (from the rows: the cached timeline may not fold them)
        seat = self.seat_of(SimpleNamespace(token_hashes=rows[0][2].get("token_hashes") or []), token)  # type: ignore[arg-type]
        chain = self._verify_chain(rows, STARTED, HAPPENED, FINISHED)
        replay = self._verify_replay(record_id, rows)
        finished = any(topic.endswith(FINISHED) for _, topic, _ in rows)
        streams = {}  # the record's notes and rulings, each its own chain (annotations.notes_id, rulings)
        for name in ("notes", "rulings"):
            stored = decode_rows(self.mapper, select_stream(self.recorder, uuid5(NAMESPACE_URL, f"cronaca:{name}:{record_id}")))
            if name == "notes" and not finished:  # in progress: nothing of a note this reader may not read
                part = notes_as_read(stored, self._stream_verdict(stored) if stored else None, seat)
                if part is not None:
                    streams[name] = part
            elif stored:
                streams[name] = self._stream_verdict(stored)
        ok = chain["ok"] is not False and replay["ok"] and all(s["ok"] is not False for s in streams.values())
        return {"ok": ok, "head": chain.pop("head"), "length": chain.pop("length"), "chain": chain, "replay": replay,
                "streams": streams}

    @staticmethod
    def _verify_chain(rows: list[tuple[int, str, dict[str, Any]]], started: str, happened: str,
                      finished: str) -> dict[str, Any]:
        """The chain part of `verify`: the items the rows hold, their stored links, and where they part."""
        first = rows[0][2]
        mode = first.get("mode")
        if first.get("chain") is None:
            return {"ok": None, "head": None, "length": 0, "problems": [], "note": "no chain (stored before chains)"}
        key = first.get("chain_key")  # None: stored before chain keys, its links unsalted
        promised = chains.key_commitment(key) if key is not None else None
        items: list[dict[str, Any] | bytes] = []  # a game event's item as bytes, by orjson (chains.quick)
        links: list[str | None] = []
        steps: list[int] = []  # the step each item stands at (0: the start; the last step: the end)
        stored: list[tuple[Any, Any] | None] = []  # a game event's (event, entry): its canonical bytes if asked
        problems: list[dict[str, Any]] = []
        head_bytes, quick, event_body = chains.head_bytes, chains.quick, chains.event_item_bytes
        offset: int | None = None  # game event n is stored at version offset + n (the rows before are the start's)
        last_step = 0
        previous_version = 0
        for version, topic, payload in rows:
            is_event = topic.endswith(happened)
            if is_event and offset is None:
                offset = previous_version  # the start's last row (Started, or the seats joining): step 1 follows it
            if version != previous_version + 1:  # rows removed: the versions between are missing
                in_game = offset is not None and (is_event or topic.endswith(finished))
                for missing in range(previous_version + 1, version):
                    step = missing - offset if in_game and offset is not None else None
                    problems.append({"step": step, "what": f"the stored row at version {missing}"
                                     + (f" (game event {step})" if step is not None else "") + " is missing: it was removed"})
            previous_version = version
            if is_event:  # most rows: kept short (5,000 rows a long record, no item dict built)
                assert offset is not None
                last_step = version - offset
                entry, event = payload.get("entry"), payload.get("event")
                head = b"null" if entry is None else head_bytes(entry, mode, quick) if entry.__class__ is dict else quick(entry)
                item: dict[str, Any] | bytes = event_body(last_step, event, head, quick)
                stored.append((event, entry))
                steps.append(last_step)
            elif topic.endswith(started):
                item = chains.started_item(payload["title"], payload["edition"], payload.get("edition_file"),
                                           [str(s) for s in payload["seats"]], payload["options"], payload["mode"],
                                           payload.get("commitment"), payload.get("dice"), promised)
                stored.append(None)
                steps.append(0)
            elif topic.endswith(finished):
                item = chains.finished_item(payload.get("seed"), payload.get("scores"), payload.get("chain_key"))
                stored.append(None)
                steps.append(last_step)
            else:
                continue  # the stream's other events (shared dice: joined, revealed) are checked by the dice
            items.append(item)
            links.append(payload.get("chain"))

        def exact(index: int) -> dict[str, Any] | bytes:
            """An item in the contract's canonical bytes, where orjson's did not fit its link."""
            if stored[index] is None:
                return items[index]
            event, entry = stored[index]
            head = b"null" if entry is None else head_bytes(entry, mode) if entry.__class__ is dict else chains.canonical(entry)
            return event_body(steps[index], event, head)

        for found in chains.verify_links(items, links, exact, key):
            index = found["index"]
            if index >= len(items):
                continue
            item, step = items[index], steps[index]
            part = f"game event {step}" if type(item) is bytes else (
                "the start (title, edition, seats, options, mode, commitment)" if "started" in item else
                "the end (revealed seed, final scores, revealed chain key)")
            if found["found"] is None:
                what = f"{part} carries no link"
            else:
                what = (f"{part} does not match its stored link: the row was changed after it was written, "
                        "or the row before it was")
            problems.append({"step": step, "index": index, "what": what})
        problems.sort(key=lambda p: (p["step"] if p["step"] is not None else -1))
        return {"ok": not problems, "head": links[-1] if links else None, "length": len(items), "problems": problems}

    def verify_stream(self, stream_id: UUID) -> dict[str, Any]:
        """Another stream's chain (notes, rulings, an import: aggregates.Chained) recomputed from its stored rows:
        {"ok", "head", "length", "problems": [{"version", "event", "what"}]}; ok None for a stream stored before chains."""
        from domain.records.timeline import decode_rows, select_stream

        rows = decode_rows(self.mapper, select_stream(self.recorder, stream_id))
        if not rows:
            raise NotFound(f"no stream {stream_id}")
        return self._stream_verdict(rows)

    @staticmethod
    def _stream_verdict(rows: list[tuple[int, str, dict[str, Any]]]) -> dict[str, Any]:
        """`verify_stream` of a stream's stored rows (at least one)."""
        if rows[0][2].get("chain") is None:
            return {"ok": None, "head": None, "length": 0, "problems": [], "note": "no chain (stored before chains)"}
        problems: list[dict[str, Any]] = []
        items, links, names = [], [], []
        key = rows[0][2].get("chain_key")  # None: stored before chain keys, its links unsalted
        previous_version = 0
        for version, topic, payload in rows:
            for missing in range(previous_version + 1, version):
                problems.append({"version": missing, "event": None, "what": f"the stored row at version {missing} is "
                                 "missing: it was removed"})
            previous_version = version
            name = topic.rsplit(".", 1)[-1]
            items.append(chains.stream_item(name, version, payload))
            links.append(payload.get("chain"))
            names.append((version, name))
        for found in chains.verify_links(items, links, key=key):
            if found["index"] < len(items):
                version, name = names[found["index"]]
                problems.append({"version": version, "event": name, "what": f"{name} (version {version}) "
                                 + ("carries no link" if found["found"] is None else "does not match its stored link: "
                                    "the row was changed after it was written, or the row before it was")})
        problems.sort(key=lambda p: p["version"])
        return {"ok": not problems, "head": links[-1], "length": len(items), "problems": problems}

    def _verify_replay(self, record_id: UUID, rows: list[tuple[int, str, dict[str, Any]]]) -> dict[str, Any]:
        """The replay part of `verify`: the stored rows read as a record file and re-decided by the rules
        (recordfile.check, as an import is), its first finding at its step."""
        from types import SimpleNamespace

        unfolded = SimpleNamespace(begin=lambda edition: None, evolve=lambda state, event: None)  # read, never fold
        timeline = Timeline(unfolded, lambda meta: None)  # type: ignore[arg-type]
        try:
            timeline.absorb(rows)
        except Exception as exc:  # noqa: BLE001  (a row changed out of shape: said, never a 500)
            return {"ok": False, "problems": [{"step": None, "rule": "store/unreadable",
                                               "what": f"the stored rows cannot be read as a record: {exc!r}"}]}
        meta = timeline.meta
        assert meta is not None
        document = recordfile.export(meta, timeline.entries)
        if meta.mode == LIVE and not meta.finished and meta.seed is not None:
            document["chance"]["seed"] = meta.seed  # in progress: the service's own seed re-derives the draws so far
        try:
            header, raw = recordfile.parse(document, recordfile.STORED)  # stored, not uploaded: no limits
        except recordfile.BadRecordFile as exc:
            return {"ok": False, "problems": [{"step": None, "rule": exc.rule, "what": exc.message}]}
        verdict = recordfile.check(header, raw, lambda t, ref, f: self.edition(t, ref, f))
        if verdict.ok:
            return {"ok": True, "problems": [], "entries": verdict.report.get("entries"),
                    "events": verdict.report.get("events")}
        report = reveal(verdict.report, ALL if meta.finished else None)  # in progress: no seat's secret
        entry, event = report.get("entry_index"), report.get("event_index")
        step = None
        if report.get("rule") == "file/claims":
            step = meta.steps  # what the end says against what the log gives
        elif isinstance(event, int):
            step = event + 1  # the log's event index (kernel.log.replay): game event n is step n
        elif isinstance(entry, int) and 0 <= entry < len(meta.entry_starts):
            step = meta.entry_starts[entry] + 1
        problem = {"step": step, "entry": entry, "rule": report.get("rule"), "what": str(report.get("message"))}
        if meta.finished:  # in progress, a fact may be a draw some seat may not see yet
            problem["facts"] = report.get("facts") or {}
        return {"ok": False, "problems": [problem]}

    def notation(self, record_id: UUID, token: str | None = None, all_seeing: bool = False) -> str:
        """The record in its title's table notation (docs/notation/). Like the export, it holds every
        outcome, so it is served once the game is over (the operator's command line sees all)."""
        from domain import transcripts

        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            self.seat_of(meta, token)
            if not meta.finished and not all_seeing:
                raise Forbidden("a record's notation is served once the game is over: it holds every draw and card")
            tags = {"Mode": meta.mode}
            if meta.origin and meta.origin.get("import"):
                tags["Import"] = str(meta.origin["import"])
            return transcripts.render_log(meta.title, self._edition_of(meta), [Entry.from_json(e) for e in timeline.entries],
                                          meta.seats, meta.options, meta.scores if meta.finished else None, tags)

    def evidence_parts(self, record_id: UUID, document: Mapping[str, Any] | None = None) -> Any:
        """What a finished record's evidence bundle is made of (domain/records/evidence.py): the record file
        (`document`, the export with its notes, variations and rulings, when the caller has it), the notation,
        the edition file's bytes and the chain links as stored (read from the rows, never recomputed here)."""
        from importlib import import_module, resources

        from domain.kernel.editions import content_hash
        from domain.records import evidence
        from domain.records.timeline import FINISHED, HAPPENED, STARTED, decode_rows, select_stream

        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            if not meta.finished:
                raise Forbidden("evidence is served once the game is over: its record holds every secret")
            record = copy.deepcopy(dict(document)) if document is not None else copy.deepcopy(recordfile.export(meta, timeline.entries))
        if meta.edition_file is not None:
            edition = meta.edition_file.encode()
        else:  # the title's own edition file, as the package ships it
            module = catalog.TITLES[meta.title]
            try:
                edition = resources.files(module).joinpath("edition.yaml").read_bytes()
            except (FileNotFoundError, TypeError, NotADirectoryError):  # a one-module title keeps its YAML beside GAME
                edition = getattr(import_module(module), "EDITION_YAML", b"")
            edition = edition.encode() if isinstance(edition, str) else edition
        if content_hash(edition) != meta.edition.get("content_hash"):
            raise Conflict(f"the edition file this service has for {meta.title} is not the one the record was played "
                           f"with ({meta.edition.get('content_hash')})", edition=meta.edition)
        chained = (STARTED, HAPPENED, FINISHED)
        links = [str(payload["chain"]) for _, topic, payload in decode_rows(self.mapper, select_stream(self.recorder, record_id))
                 if topic.endswith(chained) and payload.get("chain") is not None]
        if "rulings" not in record:  # the plain export: the rulings travel with the record all the same
            from domain.records.rulings import rulings_of

            record["rulings"] = rulings_of(self, record_id)
        rulings_rows = decode_rows(self.mapper, select_stream(self.recorder, uuid5(NAMESPACE_URL, f"cronaca:rulings:{record_id}")))
        return evidence.Parts(record_id=str(record_id), record=record, notation=self.notation(record_id), edition=edition,
                              links=links, rulings_links=[str(p["chain"]) for _, _, p in rulings_rows if p.get("chain") is not None],
                              rulings_key=rulings_rows[0][2].get("chain_key") if rulings_rows else None)

    # ---- imports --------------------------------------------------------------------

    def submit(self, document: Any, annotator_key: str | None = None, arbiter_key: str | None = None,
               idempotency_key: str | None = None) -> tuple[UUID, list[str]]:
        """Save an import (the outbox) after shape checks; the rules judge it in a job.

        With an `idempotency_key`, a retry of a submission that was saved raises `AlreadySubmitted` with the
        import it made (one import, hence one record, whatever the retries); another body under the same key
        is refused (422 idempotency/reused)."""
        header, _, stored = self._checked_file(document)
        keyed = self._import_key(idempotency_key, stored)
        if keyed is not None and (before := self._submitted_before(*keyed)) is not None:
            raise AlreadySubmitted(before)
        found, tokens = self._new_import(header, stored, annotator_key, arbiter_key)
        saved = self._save_import(found, keyed)
        if saved != found.id:
            raise AlreadySubmitted(saved)
        return found.id, tokens

    def submit_many(self, files: Sequence[tuple[Any, str | None, str | None]]) -> list[tuple[UUID, list[str]] | RecordsError]:
        """`submit` of several record files, each (document, annotator key, arbiter key), saved in one append, not
        one a file (`cronaca import`'s chunks: each append takes the event table's lock). A file `submit` would
        refuse is answered with that refusal, nothing of it stored; the others are saved together, or, when the
        store fails (PersistenceError, raised), none of them."""
        answers: list[tuple[Import, list[str]] | RecordsError] = []
        for document, annotator_key, arbiter_key in files:
            try:
                header, _, stored = self._checked_file(document)
                answers.append(self._new_import(header, stored, annotator_key, arbiter_key))
            except RecordsError as exc:
                answers.append(exc)
        made = [answer[0] for answer in answers if not isinstance(answer, RecordsError)]
        if made:
            self.save(*made)
        return [answer if isinstance(answer, RecordsError) else (answer[0].id, answer[1]) for answer in answers]

    def _checked_file(self, document: Any) -> tuple[recordfile.Header, list[dict[str, Any]], str]:
        """A record file's header, its raw entries and the compact JSON an import stores, or the refusal `submit`
        answers."""
        try:
            header, raw = recordfile.parse(document, Limits.from_env(self.env))
        except recordfile.BadRecordFile as exc:
            refused = TooLarge if isinstance(exc, recordfile.FileTooLarge) else Invalid
            raise refused(exc.message, rule=exc.rule, **exc.facts) from exc
        return header, raw, header.compact or json.dumps(document, separators=(",", ":"))  # as parse measured it

    def _new_import(self, header: recordfile.Header, stored: str, annotator_key: str | None,
                    arbiter_key: str | None) -> tuple[Import, list[str]]:
        """A new import of a checked file, not saved, and its seats' tokens (shown once, by the caller)."""
        tokens = new_tokens(len(header.seats))
        return Import(document=stored, token_hashes=[token_hash(t) for t in tokens],
                      annotator_hash=token_hash(annotator_key) if annotator_key else None,
                      arbiter_hash=token_hash(arbiter_key) if arbiter_key else None,
                      chain=None if self.chain else chains.OFF, depth=header.depth), tokens

    def _import_key(self, idempotency_key: str | None, stored: str) -> tuple[UUID, str] | None:
        """(the RequestKey's id, the body's hash) of a keyed submission; imports share one scope of keys."""
        if idempotency_key is None:
            return None
        return (uuid5(NAMESPACE_URL, f"cronaca:idempotency:import:{idempotency_key}"),
                hashlib.sha256(stored.encode("utf-8", "surrogatepass")).hexdigest())

    def _submitted_before(self, keyed: UUID, body: str) -> UUID | None:
        """The import a key's first submission saved, None if none; another body under that key is refused."""
        used = self._used_key(keyed, body, "file", "submission")
        return None if used is None else UUID(str(used.answer["import"]))

    def _used_key(self, keyed: UUID, body: str, sent: str, made: str) -> RequestKey | None:
        """The RequestKey stored under this key's id, None if none; a retry must send the body the first did."""
        try:
            used: RequestKey = self.repository.get(keyed)
        except AggregateNotFoundError:
            return None
        if used.body != body:
            raise Invalid(f"this Idempotency-Key was first used with another {sent}: a retry sends the same body, "
                          f"a new {made} needs a new key", rule="idempotency/reused")
        return used

    def _save_import(self, found: Import, keyed: tuple[UUID, str] | None) -> UUID:
        """Save a new import, with its RequestKey in the same transaction when keyed; returns the import that
        holds the key: this one, or the one a concurrent attempt with the same key saved a moment before."""
        if keyed is None:
            self.save(found)
            return found.id
        try:
            self.save(found, RequestKey(id=keyed[0], body=keyed[1], answer={"import": str(found.id)}))
        except IntegrityError:
            before = self._submitted_before(*keyed)
            if before is None:
                raise
            return before
        return found.id

    def submit_notation(self, text: str, annotator_key: str | None = None, arbiter_key: str | None = None,
                        idempotency_key: str | None = None) -> tuple[UUID, list[str]]:
        """Save a notation file as an import. Its syntax and header are read at once: a file that
        fails there is stored as a rejected import with its report and refused (422, the report in
        the answer); the rules read the moves in the job, as for a record file. An `idempotency_key`
        as for `submit` (a retried refused file is refused again, naming the same import)."""
        from domain import transcripts

        limits = Limits.from_env(self.env)
        too_large = limits.notation_size(text)
        if too_large is not None:
            raise TooLarge(too_large, rule="file/limit", limit="CRONACA_MAX_NOTATION_BYTES")
        notation, findings = transcripts.precheck(text)
        seats = len(transcripts.seat_names(notation)) if notation is not None else 0
        if seats > limits.max_seats:
            raise Invalid(f"the file names {seats} seats; this service takes at most {limits.max_seats} (CRONACA_MAX_SEATS)",
                          rule="file/limit", limit="CRONACA_MAX_SEATS", value=seats)
        stored = json.dumps({"format": NOTATION, "text": text}, separators=(",", ":"))
        keyed = self._import_key(idempotency_key, stored)
        before = self._submitted_before(*keyed) if keyed is not None else None
        tokens = new_tokens(seats)
        found = Import(document=stored,
                       token_hashes=[token_hash(t) for t in tokens],
                       annotator_hash=token_hash(annotator_key) if annotator_key else None,
                       arbiter_hash=token_hash(arbiter_key) if arbiter_key else None,
                       chain=None if self.chain else chains.OFF)
        if findings:
            report = transcripts.rejected_at_upload(findings)
            if before is None:
                found.reject(report=report)
                before = self._save_import(found, keyed)
            first = findings[0]
            raise Invalid(f"{len(findings)} finding(s) before the moves were read; the first: {first.message}",
                          rule=first.rule, import_id=str(before), report=reveal(report, ALL))
        if before is not None:
            raise AlreadySubmitted(before)
        saved = self._save_import(found, keyed)
        if saved != found.id:
            raise AlreadySubmitted(saved)
        return found.id, tokens

    def import_status(self, import_id: UUID, token: str | None = None) -> dict[str, Any]:
        """An import's status and report, as the caller may read it.

        The report keeps its secrets wrapped (kernel.violations.Secret); they are shown here
        to their seat (the tokens handed out at submit), and to every reader when the file is
        a finished game's (its holder has every secret it implies, and a finished record's
        export is public); to nobody else.
        """
        return self._status_of(import_id, self.get_import(import_id), token)

    def import_statuses(self, import_ids: list[UUID]) -> dict[UUID, dict[str, Any]]:
        """`import_status` of several imports, read in one query, with no token (`cronaca import`'s lines);
        those not found are left out."""
        return {import_id: self._status_of(import_id, found, None) for import_id, found in self.get_imports(import_ids).items()}

    def _status_of(self, import_id: UUID, found: Import, token: str | None) -> dict[str, Any]:
        reader: Reader = None
        if token is not None:
            digest = token_hash(token)
            seats = [i for i, known in enumerate(found.token_hashes) if secrets.compare_digest(known, digest)]
            if not seats:
                raise WrongKey("this token opens no seat of this import")
            reader = seats[0]
        report = found.report
        if report is not None and (report.get("file_says_finished") or (report.get("ok") and report.get("finished"))):
            reader = ALL
        return {"id": str(import_id), "status": found.status, "attempts": found.attempts, "record_id": found.record_id,
                "report": reveal(report, reader) if report is not None else None}

    @property
    def replays(self) -> Any:
        """Rejected imports' games as checked, replayed read-only (domain/records/replayed.py), memoised here."""
        found = self.__dict__.get("_replays")
        if found is None:
            from domain.records.replayed import ImportReplays

            found = self.__dict__.setdefault("_replays", ImportReplays(self))
        return found

    def get_import(self, import_id: UUID) -> Import:
        """An import folded from its own events by the library's projector. Not the repository's `get`, which
        asks the snapshot table first: imports are never snapshotted, and that was one database round trip
        of every import read (a status poll, each of a batch job's imports)."""
        found = project_aggregate(None, self.events.get(import_id))
        if not isinstance(found, Import):
            raise NotFound(f"no import {import_id}")
        return found

    def get_imports(self, import_ids: list[UUID]) -> dict[UUID, Import]:
        """`get_import` of each of several imports (a batch job's), read in one query; those missing are not
        in what is returned."""
        mapper, found = self.mapper, {}
        for import_id, rows in select_streams(self.recorder, import_ids).items():
            events = [mapper.to_domain_event(stored_event(import_id, version, topic, state)) for version, topic, state in rows]
            aggregate = project_aggregate(None, events)
            if isinstance(aggregate, Import):
                found[import_id] = aggregate
        return found

    def _change_import(self, import_id: UUID, change: Callable[[Import], None]) -> Import:
        """Apply a change to an import, retrying when another process appended first
        (the API marking it queued while a worker already took it, say)."""
        for _ in range(20):
            found = self.get_import(import_id)
            change(found)
            try:
                self.save(found)
            except IntegrityError:
                continue
            return found
        raise Conflict(f"import {import_id} is changing too fast to update")

    def mark_queued(self, import_id: UUID, job_id: str) -> None:
        self._change_import(import_id, lambda found: found.queue(job_id=job_id))

    def mark_queued_many(self, import_ids: list[UUID], job_id: str) -> None:
        """`mark_queued` of one batch job's imports, read in one query and saved in one append, not one each
        (`cronaca import` queues thousands, each append under the event table's lock). When another process
        appended to one of them first (a worker took the job at once), nothing of this save was stored and
        each goes `mark_queued`'s own way; so does one not found (NotFound, as there)."""
        found = self.get_imports(import_ids)
        for each in found.values():
            each.queue(job_id=job_id)
        try:
            if found:
                self.save(*found.values())
        except IntegrityError:
            found = {}
        for import_id in import_ids:
            if import_id not in found:
                self.mark_queued(import_id, job_id)

    def mark_validating(self, import_id: UUID) -> None:
        self._change_import(import_id, lambda found: None if found.report is not None else found.validating())

    def validate_import(self, import_id: UUID) -> dict[str, Any]:
        """The job: judge a submitted file and, when it is valid, create its record. Idempotent."""
        return self.judge_import(import_id)[0]

    def judge_import(self, import_id: UUID) -> tuple[dict[str, Any], bool]:
        """`validate_import`'s report, and whether this call stored it (False: an earlier attempt, or another
        process meanwhile, had concluded the import): what the worker counts, without reading the import twice."""
        from domain.records import lessonfile

        found = self.get_import(import_id)
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
                    report = {**verdict.report, "record_id": str(record_id), **_rulings_left(document)}
                    if self._save_with_verdict(self._record_of(found, header, verdict), found, report):
                        return report, True
                    found = self.get_import(import_id)  # what the conflict left: read again, the accept above was not stored
                    if found.report is not None:
                        return found.report, False
                self._create_imported(record_id, header, verdict.entries, found.token_hashes, import_id, verdict.end,
                                      *_keys_of(found))
                report = {**verdict.report, "record_id": str(record_id), **self._attach_extras(record_id, document),
                          **_rulings_left(document)}
            else:
                report = verdict.report
        except PersistenceError:
            raise  # the store is down or busy: the relay queues it again, a bounded number of times
        except Exception:  # noqa: BLE001  (a bug met by one file ends in a verdict, never in a retry loop)
            error_id = uuid4().hex[:12]
            logging.getLogger("cronaca.imports").exception("import %s: internal error %s", import_id, error_id)
            verdict = recordfile.internal_error(error_id)
            report = verdict.report
            found = self.get_import(import_id)  # as stored: a failed save may have left an accept in memory only

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

    def judge_imports(self, import_ids: list[UUID]) -> list[tuple[dict[str, Any], bool]]:
        """`judge_import` for each of several imports (a batch job's), with two saves for them all where each
        alone takes two: one marks them validating, one stores every verdict and, with an accepted game alone,
        its record. On PostgreSQL that is two locks of the event table and two commits a batch, not a file,
        so the batch's workers wait less for each other. Whatever is not plain (a file with notes or variations,
        an internal error) or conflicts (another process at one of them) goes `judge_import`'s own way, which
        reads it again; so the reports, records and verdicts are those each import alone would have."""
        from domain.records import lessonfile

        read = self.get_imports(import_ids)
        found = {import_id: read.get(import_id) or self.get_import(import_id) for import_id in import_ids}  # (NotFound)
        waiting = [f for f in found.values() if f.report is None and f.status != VALIDATING]
        for each in waiting:
            each.validating()
        try:
            if waiting:
                self.save(*waiting)
        except IntegrityError:  # another process changed one of them: each its own way
            return [self.judge_import(import_id) for import_id in import_ids]
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
                self.save(*together)
        except IntegrityError:  # an earlier attempt stored one of the records: nothing of this save was stored
            alone.update(concluded)
            concluded.clear()
        finally:
            for record_id in built:
                self._built_snapshots.pop(record_id, None)
        return [(found[i].report or {}, True) if i in concluded else
                self.judge_import(i) if i in alone else (found[i].report or {}, False) for i in import_ids]

    def _verdict_on(self, found: Import) -> tuple[recordfile.Verdict, recordfile.Header | None, Any]:
        """The rules' verdict on an import's stored file, with the file's header and document; a file that
        `parse` refuses (stored before a check existed, or under other limits) is a refusal."""
        document = loads(found.document)  # as the stored rows are read (timeline.loads: orjson, json where it must)
        try:
            if isinstance(document, dict) and document.get("format") == NOTATION:
                header, verdict = self._check_notation(str(document.get("text", "")))
            else:  # stored by `submit` as compact JSON: its length is the file's size
                header, raw = recordfile.parse(document, Limits.from_env(self.env), size=len(found.document),
                                               depth=getattr(found, "depth", None))  # (None: stored before it was kept)
                verdict = recordfile.check(header, raw, lambda t, ref, f: self.edition(t, ref, f))
        except recordfile.BadRecordFile as exc:
            return recordfile.refused(exc), None, document
        return verdict, header, document

    def _record_of(self, found: Import, header: recordfile.Header, verdict: recordfile.Verdict) -> Record:
        """The record a clean verdict on `found` makes, built in memory (`_build_imported`), not saved."""
        assert verdict.entries is not None
        return self._build_imported(imported_record_id(found.id), header, verdict.entries, found.token_hashes, found.id,
                                    verdict.end, *_keys_of(found), seats=verdict.seats)

    def _save_with_verdict(self, record: Record, found: Import, report: dict[str, Any]) -> bool:
        """An accepted import's new record and its verdict in one save: one transaction (on PostgreSQL one
        append under the event table's lock, not two), and never a record without its verdict. False when
        the save conflicts (an earlier attempt made the record, or another process changed the import): nothing
        was stored, and the caller goes the separate way, which takes both cases."""
        found.accept(record_id=report["record_id"], report=report)
        try:
            self.save(record, found)
        except IntegrityError:
            return False
        finally:
            self._built_snapshots.pop(record.id, None)
        return True

    def _attach_extras(self, record_id: UUID, document: Any) -> dict[str, Any]:
        """The file's notes and variations on the record just accepted (lessonfile.attach_extras: all or none).
        The game stands on its own: when they are refused, the report says why under "extras"."""
        from domain.records import lessonfile

        try:
            lessonfile.attach_extras(self, record_id, document)
        except RecordsError as exc:
            return {"extras": {"ok": False, "rule": exc.facts.get("rule"), "message": exc.message, "facts": exc.facts}}
        except PersistenceError:
            raise  # the store: the relay queues the import again, and attaching is idempotent
        except Exception:  # noqa: BLE001  (the record is stored: a bug in reading its extras must not reject it)
            error_id = uuid4().hex[:12]
            logging.getLogger("cronaca.imports").exception("record %s: extras: internal error %s", record_id, error_id)
            return {"extras": {"ok": False, "rule": "import/internal-error", "facts": {"error_id": error_id},
                               "message": f"the service failed while attaching the file's notes and variations (error "
                                          f"{error_id}); the game was imported without them"}}
        return {}

    def import_checked(self, document: Any, annotator_key: str | None = None, arbiter_key: str | None = None) -> UUID:
        """Check a record file now, by the same rules as an import's job, and create its record: a lesson
        file's records (lessonfile.import_lesson) are answered at once, a bad one a 422 naming its entry.
        The file's notes and variations are the caller's to attach. Its seats get no tokens (nobody would
        receive them): the annotator key reads every note."""
        header, raw, stored = self._checked_file(document)
        verdict = recordfile.check(header, raw, lambda t, ref, f: self.edition(t, ref, f))
        if not verdict.ok or verdict.entries is None:
            shown = reveal(verdict.report, ALL if verdict.report.get("file_says_finished") else None)
            raise Invalid(str(shown.get("message")), rule=shown.get("rule"), entry=shown.get("entry_index"),
                          event=shown.get("event_index"), **{"facts": shown.get("facts") or {}})
        found, _ = self._new_import(header, stored, annotator_key, arbiter_key)  # its seats' tokens handed to nobody
        record_id = imported_record_id(found.id)
        self._create_imported(record_id, header, verdict.entries, found.token_hashes, found.id, verdict.end, found.annotator_hash,
                              found.arbiter_hash)
        found.accept(record_id=str(record_id), report={**verdict.report, "record_id": str(record_id)})
        self.save(found)
        return record_id

    def _change_read(self, found: Import, change: Callable[[Import], None]) -> Import:
        """`_change_import` on an import this job has just read or saved: no second read unless
        another process appended to it meanwhile (then the save conflicts and it is read again)."""
        change(found)
        try:
            self.save(found)
        except IntegrityError:
            return self._change_import(found.id, change)
        return found

    def _default_edition(self, game: Any, edition_id: str | None) -> Edition:
        """The checker's edition (transcripts.default_edition), its YAML read once per title and process."""
        from domain import transcripts

        cached = self._default_editions.get(game.title)
        if cached is None:
            cached = self._default_editions.setdefault(game.title, transcripts.default_edition(game, None))
        if edition_id not in (None, cached.id):
            return transcripts.default_edition(game, edition_id)  # another edition: the checker's own refusal
        return cached

    def _check_notation(self, text: str) -> tuple[recordfile.Header, recordfile.Verdict]:
        """The dispute checker's verdict on a notation file and the header of the record it makes; a clean
        verdict's `end` is whether the game is over and its scores, as the checker's own last state gives them."""
        from domain import transcripts

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
                         annotator_hash: str | None = None, arbiter_hash: str | None = None) -> None:
        """Store the record of an accepted import in one save (`_build_imported`), unless an earlier attempt
        of this import stored it already."""
        record = self._build_imported(record_id, header, entries, token_hashes, import_id, end, annotator_hash,
                                      arbiter_hash)
        try:
            with contextlib.suppress(IntegrityError):  # an earlier attempt of this import created it
                self.save(record)
        finally:
            self._built_snapshots.pop(record_id, None)

    def _build_imported(self, record_id: UUID, header: recordfile.Header, entries: list[Entry],
                        token_hashes: list[str], import_id: UUID, end: tuple[bool, dict[str, Any]] | None = None,
                        annotator_hash: str | None = None, arbiter_hash: str | None = None,
                        seats: list[int | None] | None = None) -> Record:
        """The record of an accepted import, built whole in memory and not saved. `end` (over, scores) is
        where the checker's own replay left the game; without it the log is folded here to learn it.
        `seats`: each entry's deciding seat, as the checker's replay parsed it; without them each command is
        parsed again here.

        Its snapshots are taken from the aggregate in memory as it is built, and put by
        `_take_snapshots` when it is saved: the library would read the new record back from the store once
        per snapshot (`snapshotting_intervals`), which cost an import more than its checking."""
        game = catalog.game(header.title)
        edition = self.edition(header.title, header.edition, header.edition_file)
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
        chain_key = (header.chain_key if over and header.chain_key else secrets.token_hex(32)) if self.chain else None
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
            chain=self._first_link(header.title, edition.ref, header.edition_file, header.seats, header.options,
                                   LIVE if live else TRANSCRIBED, header.commitment if live else None,
                                   dice.SHARED if live and header.shared else None, chain_key),
            chain_key=chain_key,
        )
        shared = header.shared if live else None
        for k, seat_of in enumerate((shared or {}).get("seats", [])):  # shared dice: the seats joined as they did live
            record.join(seat=k, commitment=seat_of["commitment"], contribution=seat_of["contributions"]["0"])
        interval = self.snapshotting_intervals.get(Record)
        snapshots: list[Any] = []

        def snapshot() -> None:
            snapshots.append(Record.Snapshot.take(record))

        stamp = Record.Happened.create_timestamp()  # the record is stored in one save: one time for its game events
        for index, entry in enumerate(entries):
            seat = seats[index] if seats is not None else None if index == 0 else game.parse_command(entry.command or {}).seat
            stored = entry.to_json(events=False)
            stored["events"] = [CanonicalEvent(chains.event_bytes(e)) for e in entry.events]  # the rules' own, no JSON objects
            if shared and index:
                stored["contribution"] = dice.contributions_of(shared["seats"], index)[0]
            record.record(stored, seat=seat, after=snapshot if interval else None, stamp=stamp, every=interval or 1)
        if over:
            record.finish(seed=header.seed, scores=scores)
            if interval and record.version % interval == 0:
                snapshot()
        for k, seat_of in enumerate((shared or {}).get("seats", [])):
            if seat_of.get("secret") is not None:
                record.reveal(seat=k, secret=seat_of["secret"])
        self._built_snapshots[record_id] = snapshots
        return record

    def _take_snapshots(self, processing_event: ProcessingEvent[UUID]) -> None:
        """The library's snapshotting after a save, except for a record an import built whole
        (`_create_imported`): its snapshots, already taken in memory, are put in one go."""
        built = {aggregate_id: self._built_snapshots.pop(aggregate_id) for aggregate_id in processing_event.aggregates
                 if aggregate_id in self._built_snapshots}
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
