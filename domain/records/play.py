"""Live play: start a record, decide a seat's command, and the shared dice's joins and reveals.

Live chance: a live record draws a secret seed at the start and publishes its SHA-256.
Log entry k (0 = setup) is decided with `SeededChance(seed + "/" + k)`, so after the seed
is revealed (in the `Finished` event and the export) anyone can re-derive every outcome.
With shared dice (dice.py, docs/trust.md) every seat's contribution enters each entry's seed.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid4

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import (
    EditionError,
    Entry,
    Event,
    MalformedCommand,
    ObservedChance,
    Outcome,
    RuleViolation,
    SeededChance,
    commitment,
    play,
)
from domain.kernel.asking import AskingChance, Closed, HiddenPool, Needed, SeatChance
from domain.kernel.describe import name_of
from domain.kernel.notation import seat_names_problem
from domain.records import dice, recordfile, room
from domain.records.access import new_tokens, token_hash
from domain.records.aggregates import LIVE, MODES, Record, RequestKey
from domain.records.errors import Conflict, Forbidden, Invalid, NotFound, Refused, Unauthorized
from domain.records.reading import titles
from domain.records.readmodels_play import CommandPlayed, Joined, SecretRevealed
from domain.records.room import over_limit
from domain.records.settings import Limits
from domain.records.table import closed_to, hidden_pool, sealed
from domain.records.timeline import Timeline
from domain.records.views import visible

if TYPE_CHECKING:
    from domain.records.application import Records


@dataclass
class Played:
    """What one accepted command did."""

    version: int
    first_step: int
    events: list[Event]
    finished: bool
    seat: int | None = None
    replayed: bool = False  # the answer to a retry with the same Idempotency-Key: nothing was stored this time
    table: bool = False  # entered with the table key: answered as the table reads (the public view)

    @property
    def last_step(self) -> int:
        """The record's steps after this command (its last event's step)."""
        return self.first_step + len(self.events)


TABLE = "table"  # the table key's own scope of Idempotency-Keys (a seat's are per seat)


def no_unused(chance: Any) -> None:
    """Refuse outcomes given that the rules never asked for (an observed chance's leftovers)."""
    if isinstance(chance, ObservedChance) and chance.unused:
        raise Invalid(
            f"{len(chance.unused)} outcome(s) given that the rules never asked for",
            rule="chance/unused-outcome",
            unused=[o.to_json() for o in chance.unused],
        )


def checked_contribution(value: Any, k: int, rule: str = "dice/contribution") -> str:
    """A seat's contribution as the protocol writes it, or a 422 naming the entry it was for."""
    if value is None:
        raise Invalid(f"this record's dice are shared: a command carries its seat's \"contribution\" for entry {k} "
                      f"(HMAC-SHA256 of the seat's secret and 'cronaca/entry/{k}', docs/trust.md)",
                      rule="dice/contribution-missing", entry=k)
    if not dice.is_hex64(value):
        raise Invalid(f"the contribution for entry {k} must be 64 lower-case hex digits (an HMAC-SHA256)", rule=rule,
                      entry=k, field="contribution")
    return str(value)


class Play:
    """Starting records and the commands, joins and reveals that make them."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def record(self, record_id: UUID) -> Record:
        """The record's aggregate, to act on."""
        try:
            record: Record = self.records.repository.get(record_id)
        except AggregateNotFoundError as exc:
            raise NotFound(f"no record {record_id}") from exc
        return record

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
        table_key: str | None = None,
    ) -> tuple[UUID, list[str]]:
        """Create a record and run the setup; returns its id and one secret token per seat.

        `dice_mode="shared"` (live only): every seat contributes to chance (docs/trust.md); the setup
        then waits until every seat has joined (`join`), so it is not run here. A transcribed record given no
        `setup_outcomes` at all (None) whose setup needs chance waits for them likewise (`table.Table.setup`).

        `annotator_key` (made by the caller, handed out once) is stored hashed: it lets its holder
        annotate the record and branch variations from it (domain/records/teaching.py). `table_key` (a game at the
        table only, made by the caller and handed out once) is stored hashed too: one device enters every seat's
        choices with it (access.py)."""
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
        over = room.over_count(len(seats), Limits.from_env(self.records.env).max_seats, room.SEATS, "the record's seats")
        if over is not None:
            raise over_limit(over)
        options = {"players": len(seats), **dict(options or {})}
        if options["players"] != len(seats):
            raise Invalid(f"options.players is {options['players']!r} but {len(seats)} seats are named; "
                          "name one seat per player", rule="setup/seats", seats=len(seats), players=options["players"])
        try:
            edition = self.records.edition(title, None, edition_file)
        except EditionError as exc:
            raise Invalid(str(exc)) from exc
        if dice_mode not in (None, dice.SHARED):
            raise Invalid(f"dice is \"{dice.SHARED}\" (every seat contributes) or left out (the service's seed alone), "
                          f"not {dice_mode!r}", rule="setup/dice", given=dice_mode)
        if dice_mode == dice.SHARED and mode != LIVE:
            raise Invalid("shared dice are for a live record: a transcribed record's outcomes are the table's",
                          rule="setup/dice", mode=mode)
        if table_key is not None and mode == LIVE:
            raise Invalid("a table key is for a game at the table (\"mode\": \"transcribed\"): a live game's seats "
                          "each play with their own token", rule="setup/table-key", mode=mode)
        if mode == LIVE:
            if setup_outcomes:
                raise Invalid("a live record draws its own setup: send no \"setup_outcomes\" (they are for a "
                              "transcribed record)", rule="setup/live-outcomes")
            seed = seed or secrets.token_hex(16)
            # shared dice: the options are tried with a throwaway seed now; the setup is drawn once all seats joined
            chance: Any = recordfile.live_chance(secrets.token_hex(16) if dice_mode else seed, 0)
        else:
            seed = None
            # no setup_outcomes at all: the table deals first and enters what it saw afterwards (POST .../setup)
            chance = ObservedChance(setup_outcomes) if setup_outcomes is not None else AskingChance([])
        try:
            produced = game.setup(edition, options, chance)
        except Needed:
            produced = []  # the setup waits for the table's outcomes: the options were read up to its first deal
        except RuleViolation as exc:
            raise Refused(exc, None) from exc
        except (KeyError, ValueError, TypeError) as exc:
            raise Invalid(f"the game cannot be set up with these options: {exc}", options=options) from exc
        no_unused(chance)
        awaiting = mode != LIVE and setup_outcomes is None and not produced
        if not produced and not awaiting:
            raise Invalid("the setup causes no game event, so there is nothing to record", rule="setup/no-events")
        setup = Entry(None, tuple(chance.log), tuple(produced), options=options).to_json()
        tokens = new_tokens(len(seats))
        chain_key = secrets.token_hex(32) if self.records.chain else None  # every link keyed (chain.py), revealed at the end
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
            **({"table_hash": token_hash(table_key)} if table_key else {}),
            chain=self.first_link(title, edition.ref, edition_file, list(seats), options, mode,
                                   commitment(seed) if seed else None, dice_mode, chain_key),
            chain_key=chain_key,
        )
        if not dice_mode and not awaiting:
            record.record(setup, seat=None)
        self.records.save(record)
        return record.id, tokens

    def first_link(self, title: str, edition: dict[str, str], edition_file: str | None, seats: list[str],
                   options: dict[str, Any], mode: str, commitment: str | None, dice_mode: str | None,
                   chain_key: str | None) -> str | None:
        """The `Started` event's link (chain.started_item, as the record file will say it), or None with chains off."""
        if not self.records.chain:
            return None
        return Record.started_link(title, edition, edition_file, seats, options, mode, commitment, dice_mode, chain_key)

    def command(
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
        record = self.record(record_id)
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            if token is None:
                raise Unauthorized("a command needs the token of the seat that makes it (Authorization: Bearer <token>)")
            table = self.records.access.is_table(meta, token)  # a game at the table: one device for every seat
            keyed = body = None
            if idempotency_key is not None:
                keyed, body = self.records.idempotency.command_key(record_id, TABLE if table else seat, idempotency_key, payload,
                                                                   expected_version, outcomes, contribution)
                again = self._played_before(record_id, keyed, body)
                if again is not None:
                    return again
            record.check_takes_command()
            shared = getattr(record, "dice", None) == dice.SHARED
            if expected_version is not None and expected_version != record.version:
                raise Conflict(
                    f"the record is at version {record.version}, the command was decided against {expected_version}; "
                    "reload the record and decide again",
                    version=record.version, expected_version=expected_version,
                )
            if meta.version != record.version:
                raise Conflict("the record changed while the command was being read; decide again", version=record.version)
            game = timeline.game
            try:
                cmd = game.parse_command(payload)
            except MalformedCommand as exc:
                raise Invalid(exc.message, rule="command/malformed", errors=exc.errors) from exc
            if table:  # the table key enters whichever seat's choice: the one that decides now
                deciding = game.pending(timeline.head)
                if not deciding.over and deciding.seat is not None and cmd.seat != deciding.seat:
                    raise Conflict(f"it is {name_of(meta.seats, deciding.seat)}'s decision now (seat {deciding.seat}, "
                                   f"{deciding.kind}), not {name_of(meta.seats, cmd.seat)}'s; the record is at version "
                                   f"{record.version}", rule="command/not-deciding", version=record.version,
                                   deciding=deciding.seat, command_seat=cmd.seat)
                seat = cmd.seat
            elif cmd.seat != seat:
                raise Forbidden(f"this token is for seat {seat} ({name_of(meta.seats, seat)}), the command is for seat "
                                f"{cmd.seat} ({name_of(meta.seats, cmd.seat)}): each seat enters its own choices; the "
                                f"record is at version {record.version}", token_seat=seat, command_seat=cmd.seat,
                                version=record.version)
            # a seat's own token enters no draw from a pool its view hides (checking it would tell what the pool holds)
            closed = None if table else closed_to(catalog.words(meta.title), seat)
            chance = self._chance(record, shared, outcomes, contribution, closed, sealed(meta))
            try:
                produced, after = play(game, timeline.head, cmd, chance)
            except HiddenPool as exc:
                raise hidden_pool(exc) from exc
            except RuleViolation as exc:
                raise Refused(exc, None if table else seat, meta.title, meta.seats, cmd.seat) from exc  # as this reader may read it
            no_unused(chance)
            if not produced:
                raise Invalid("the rules accept this command but it changes nothing, so there is nothing to record",
                              rule="command/no-events")
            entry = Entry(cmd.to_json(), tuple(chance.log), tuple(produced)).to_json()
            if shared:
                entry["contribution"] = contribution  # the timeline keeps it under the seat (chance.seats), not in the entry
            own = self._room_for(record_id, meta.version, record.entries, entry, record.mode, len(record.seats),
                                 shared)
            first_step = record.steps
            record.record(entry, seat=seat)
            finished = game.pending(after).over
            if finished:
                record.finish(seed=record.seed, scores=game.scores(after))
            used = [] if keyed is None or body is None else [RequestKey(id=keyed, body=body, answer={
                "seat": seat, "first_step": first_step, "events": len(produced), "version": record.version,
                "finished": finished, **({"table": True} if table else {})})]
            try:
                self.records.save(record, *used)
            except IntegrityError as exc:
                if keyed is not None and body is not None:  # the same key's first attempt, stored a moment before?
                    again = self._played_before(record_id, keyed, body)
                    if again is not None:
                        return again
                raise Conflict("another command was appended first; reload the record and decide again") from exc
            if not finished:
                room.keep_own(record_id, record.version, own)
            return Played(record.version, first_step, list(produced), finished, seat, table=table)

    @staticmethod
    def _chance(record: Record, shared: bool, outcomes: list[Mapping[str, Any]] | None, contribution: str | None,
                closed: Closed | None = None, seal: bool = True) -> Any:
        """The chance a command meets: a live record's own (its seed, and with shared dice the seat's
        contribution), or a transcribed record's outcomes as the table met them (`closed`: the pools the sender may
        not see, table.closed_to; `seal`: refused before they are checked, table.sealed)."""
        if record.mode == LIVE:
            if outcomes is not None:
                raise Invalid("a live record draws its own chance: send no \"outcomes\" with its commands",
                              rule="command/live-outcomes")
            assert record.seed is not None
            if shared:
                return SeededChance(dice.entry_seed(record.seed, record.entries,
                                                    [checked_contribution(contribution, record.entries)]))
            if contribution is not None:
                raise Invalid("this record's dice are the service's alone: send no \"contribution\"",
                              rule="dice/not-shared")
            return recordfile.live_chance(record.seed, record.entries)
        if outcomes is None:
            raise Invalid("a transcribed record needs the chance outcomes each command met (\"outcomes\": [...])")
        try:
            return SeatChance([Outcome.from_json(dict(o)) for o in outcomes], closed, seal)
        except (KeyError, TypeError, ValueError) as exc:
            raise Invalid(f"an outcome needs kind, source and values: {exc}", rule="command/outcomes") from exc

    def _room_for(self, record_id: UUID, version: int, entries: int, entry: dict[str, Any], mode: str, seats: int,
                  shared: bool) -> int:
        """Refuse a command whose entry the record file could not hold on import (CRONACA_MAX_ENTRIES, and its
        own bytes within CRONACA_MAX_UPLOAD_BYTES; room.py); the record's own part grown by it."""
        over = room.over_entries(self.records, entries + 1, "the number of log entries")
        if over is not None:
            raise over_limit(over)
        exported = dice.mark_outcomes([{k: v for k, v in entry.items() if k != "contribution"}], mode)[0]
        # shared dice: the export lists each entry's contributions under chance.seats, one hex digest per seat
        added = room.item(exported) + (seats * room.item({"0000000": "0" * 64}) if shared else 0)
        own, over = room.own_bytes(self.records, record_id, version, added)
        if over is not None:
            raise over_limit(over)
        return own

    def _played_before(self, record_id: UUID, keyed: UUID, body: str) -> Played | None:
        """The command an Idempotency-Key stored before, as `play` answered it then; None if it stored none."""
        used = self.records.idempotency.used(keyed, body, "request", "command")
        if used is None:
            return None
        first, count = int(used.answer["first_step"]), int(used.answer["events"])
        with self.records.access.reading(record_id) as timeline:  # caught up: the first attempt's events are stored
            events = list(timeline.events[first:first + count])
        return Played(int(used.answer["version"]), first, events, bool(used.answer["finished"]), used.answer["seat"],
                      replayed=True, table=bool(used.answer.get("table")))

    def answer(self, record_id: UUID, played: Played) -> CommandPlayed:
        """What `POST .../commands` answers for a command: its events (payloads only when it ended the game), and
        the seat's view and pending decision right after it, as they were then (a retry gets the same answer)."""
        last = played.last_step
        with self.records.access.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            state = timeline.state_at(last)
            game = timeline.game
            _, view = visible(game, state, len(meta.seats), played.finished, None if played.table else played.seat)
            pending = game.pending(state)
        shown: dict[str, Any] = {"seat": pending.seat, "kind": pending.kind}
        if played.finished or played.table or (played.seat is not None and played.seat == pending.seat):
            shown = pending.to_json()
        events = [{"step": played.first_step + k + 1, **e.to_json()} if played.finished
                  else {"step": played.first_step + k + 1, "type": e.type, "redacted": True}
                  for k, e in enumerate(played.events)]
        return CommandPlayed(played.version, played.first_step + 1, last, events, played.finished, view, shown)

    # ---- shared dice (domain/records/dice.py, docs/trust.md) ------------------------------

    def _shared_record(self, record_id: UUID, seat: int, token: str | None) -> tuple[Record, Timeline]:
        """The record and its timeline, for an act of seat `seat` on its shared dice: its own token only."""
        record = self.record(record_id)
        timeline = self.records.timeline(record_id)
        assert timeline.meta is not None
        if token is None:
            raise Unauthorized(f"seat {seat}'s act needs its token (Authorization: Bearer <token>)")
        mine = self.records.access.seat_of(timeline.meta, token)
        if not 0 <= seat < len(timeline.meta.seats):
            raise NotFound(f"seat {seat} does not exist; this record has seats 0 to {len(timeline.meta.seats) - 1}")
        if mine != seat:
            raise Forbidden(f"this token is for seat {mine}, not seat {seat}: a seat joins and reveals for itself only",
                            rule="dice/seat", token_seat=mine, seat=seat)
        if getattr(record, "dice", None) != dice.SHARED:
            raise Conflict("this record's dice are the service's alone: its seats neither join nor reveal",
                           rule="dice/not-shared")
        return record, timeline

    def join(self, record_id: UUID, seat: int, token: str | None, commitment_hex: Any, contribution: Any) -> Joined:
        """A seat joins a shared-dice record: its commitment (sha256 of its secret) and its part of the setup.
        The last seat to join draws the setup (entry 0) from the service's seed and every seat's part."""
        record, timeline = self._shared_record(record_id, seat, token)
        if record.joined[seat] is not None:
            raise Conflict(f"seat {seat} has already joined (commitment {record.joined[seat]}); a commitment is never replaced",
                           rule="dice/joined", seat=seat)
        if not dice.is_hex64(commitment_hex):
            raise Invalid("the commitment must be 64 lower-case hex digits: the SHA-256 of the seat's secret", rule="dice/commitment",
                          field="commitment", seat=seat)
        part = checked_contribution(contribution, 0)
        record.join(seat=seat, commitment=str(commitment_hex), contribution=part)
        started = False
        if None not in record.joined:
            assert record.seed is not None
            chance = SeededChance(dice.entry_seed(record.seed, 0, [str(p) for p in record.setup_parts]))
            game = timeline.game
            try:
                produced = game.setup(self.records.edition(record.title, record.edition, record.edition_file), record.options, chance)
            except RuleViolation as exc:
                raise Refused(exc, None) from exc
            setup = Entry(None, tuple(chance.log), tuple(produced), options=record.options).to_json()
            record.record(setup, seat=None)
            started = True
        try:
            self.records.save(record)
        except IntegrityError as exc:
            raise Conflict("another seat joined at the same moment; join again") from exc
        waiting = [k for k, c in enumerate(record.joined) if c is None]
        return Joined(seat, str(commitment_hex), waiting, started, record.version)

    def reveal_secret(self, record_id: UUID, seat: int, token: str | None, secret: Any) -> SecretRevealed:
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
            self.records.save(record)
        except IntegrityError as exc:
            raise Conflict("the record changed at the same moment; reveal again") from exc
        assert timeline.meta is not None
        own = {"seat": seat, "commitment": record.joined[seat], "secret": secret,
               "contributions": dict(timeline.meta.contributions[seat])}
        return SecretRevealed(seat, dice.check_reveals({"dice": dice.SHARED, "seats": [own]}),
                              [k for k, s in enumerate(record.revealed) if s is None], record.version)

