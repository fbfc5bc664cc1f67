"""A game at the table (issue 31): the outcomes the table saw, asked for one at a time, the setup entered, and
take-backs.

The table's own cubes, cards and dice decide a transcribed record's chance; the device in the middle of the
table is told what was seen. `asks` says which outcome the rules need next for a choice (or the setup) and what
it could be, with nothing stored; `setup` completes a record started without its setup's outcomes. Each
outcome is checked for possibility as a stored one is (kernel.asking, an `ObservedChance`).

A take-back (`withdraw`) withdraws the last log entry, stored as an event of its own (`Record.Withdrawn`): the
record shows that it happened, its rows stay in the stream and its chain. At the table the table key takes back a
mis-tap at once; in a live game the seat that made the entry asks, every other seat consents (`consent`), and an
entry whose draw the service has shown is never taken back.

Who may ask: the record's table key (for any seat's choice and the setup) or a seat's own token (for its own
choice, or the setup). What an ask shows is what the asker may see: the table key's device is told every draw, so
the pool a draw comes from (the cubes still in the bag, the cards still in the deck) is offered to it; a seat's
token is offered only the pools its own view shows (`Words.open_pool`: its own bag), and any other pool is named
with nothing of it listed, and refused with nothing of it said if the seat gives an outcome from it
(kernel.asking.HiddenPool, 403): the table key enters those. An import of an unfinished game hands out a table key
too. (A transcribed record with no table key, started through the API before issue 31, imported before its imports
had one, or made by `Play.start` alone, has no one else to enter them: its seats' commands still do, each refusal
saying a pool's size only, as before: `sealed`. Its refusals still tell a right guess from a wrong one; an ask,
which stores nothing, never checks such an outcome.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import Edition, Entry, MalformedCommand, Outcome, RuleViolation, play
from domain.kernel.asking import DRAW, ROLL, Ask, Closed, HiddenPool, SeatChance, next_ask
from domain.kernel.describe import name_of
from domain.records.aggregates import TRANSCRIBED, RequestKey
from domain.records.errors import Conflict, Forbidden, Invalid, Refused, Unauthorized
from domain.records.timeline import Meta

if TYPE_CHECKING:
    from domain.records.application import Records

TABLE_BY, SEATS_BY = "table", "seats"  # who took an entry back: the table key, or a live game's seats together
SETUP_DONE = "the setup's outcomes are entered already; the record goes on with its players' choices"
LIVE_DRAWS = "a live game draws its own outcomes (and shows them): only a game at the table is told what was seen"


def outcomes_of(given: Sequence[Mapping[str, Any]] | None) -> list[Outcome]:
    """The outcomes sent, or a 422 naming the one that is not an outcome."""
    out = []
    for k, o in enumerate(given or []):
        try:
            out.append(Outcome.from_json(dict(o)))
        except (KeyError, TypeError, ValueError) as exc:
            raise Invalid(f"outcomes[{k}]: an outcome is {{\"kind\", \"source\", \"values\"}}: {exc}",
                          rule="command/outcomes", field=f"outcomes[{k}]") from exc
    return out


def closed_to(words: Any, seat: int | None) -> Closed:
    """The pools hidden from a seat's token: all but those the title says that seat's view shows (no seat: all). The
    table key, which is told every draw, asks with none closed."""
    opened = words.open_pool

    def closed(source: str) -> bool:
        return seat is None or opened is None or not opened(source, seat)
    return closed


def sealed(meta: Any) -> bool:
    """Whether a seat's outcome from a pool its view hides is refused: a record with a table key, which enters them."""
    return getattr(meta, "table_hash", None) is not None


def hidden_pool(exc: HiddenPool) -> Forbidden:
    """A seat's outcome from a pool it may not see: refused before it is checked, naming the pool and nothing in it."""
    return Forbidden(f"{exc}; enter it on the table's device (the table key)", rule="chance/hidden-pool",
                     kind=exc.kind, source=exc.source)


def ask_json(ask: Ask, words: Any, names: Sequence[str], edition: Edition | None = None) -> dict[str, Any]:
    """An ask as the page offers it: what is asked in words, each value that could come up (as the table says it:
    `Words.value_words`), and, where the title gives them (`Words.where`), the place each position fills (`where`: its
    board id and words), so the table enters what it sees at each place, in any order."""

    seats = ask.source in words.seat_sources  # a draw of seats (a first player): each by its player's name
    where = places_of(ask, words, edition)

    def said(token: Any) -> str:
        if seats and isinstance(token, int) and 0 <= token < len(names):
            return names[token]
        found = words.terms(str(token), names) if words.terms is not None else None
        return str(found or token)

    def value(token: Any) -> str:
        found = words.value_words(edition, ask.source, token) if edition is not None and words.value_words else None
        return found or said(token)

    source = said(ask.source)
    if ask.hidden:
        sentence = (f"a {ask.kind} from {source}: what it holds is hidden from this seat, so the table's device "
                    "(the table key) enters it")
    elif ask.kind == DRAW:
        sentence = f"draw {ask.n} from {source}" if ask.n else f"nothing is left to draw from {source}: send no values"
    elif ask.kind == ROLL:
        sentence = f"roll {ask.n} {'die' if ask.n == 1 else 'dice'} of {ask.faces} faces ({source})"
    elif where and len(where) == ask.n:
        sentence = f"{source} laid on their places ({ask.n} in all)"
    else:
        sentence = f"the order of {source} ({ask.n} in all), first to last"
    out: dict[str, Any] = {"kind": ask.kind, "source": ask.source, "n": ask.n,
                           "possible": [{"value": v, "count": k, "words": value(v)} for v, k in ask.possible()],
                           "words": sentence}
    if ask.kind == ROLL:
        out["faces"] = ask.faces
    if ask.hidden:
        out["hidden"] = True
    if where and len(where) == ask.n:
        out["where"] = [{"place": place, "words": said} for place, said in where]
    return out


def places_of(ask: Ask, words: Any, edition: Edition | None) -> Sequence[tuple[str, str]]:
    """The places the ask's positions fill, as the title says them (`Words.where`): none for a roll or a title without."""
    if edition is None or ask.kind == ROLL or ask.hidden or words.where is None:
        return ()
    return tuple(words.where(edition, ask.source))


class Table:
    """Asks and the setup of games at the table."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def _acting(self, meta: Meta, token: str | None) -> bool:
        """Whether the token is the table key; refuse what no token may do here (401 without one, 409 live)."""
        if token is None:
            raise Unauthorized("the table's outcomes are entered with the table key or a seat's token "
                               "(Authorization: Bearer <key>)")
        if meta.mode != TRANSCRIBED:
            raise Conflict(LIVE_DRAWS, rule="asks/live", version=meta.version)
        return self.records.access.is_table(meta, token)

    def asks(self, record_id: UUID, token: str | None, command: Mapping[str, Any] | None,
             outcomes: Sequence[Mapping[str, Any]] | None) -> dict[str, Any]:
        """The next outcome a choice (None: the setup) needs beyond `outcomes`, or `{"ask": None}` when it needs no
        more; nothing is stored. An outcome that could not have happened is refused (422) as a command's would be."""
        given = outcomes_of(outcomes)
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            table = self._acting(meta, token)
            game = timeline.game
            words = catalog.words(meta.title)
            closed = None if table else closed_to(words, seat)
            edition = self.records.edition(meta.title, meta.edition, meta.edition_file)
            if command is None:
                if not meta.awaiting_setup:
                    raise Conflict(SETUP_DONE, rule="setup/done", version=meta.version)

                def run(chance: Any) -> Any:
                    return game.setup(edition, meta.options, chance)
                reader = None
            else:
                if meta.awaiting_setup:
                    raise Conflict("the setup's outcomes come first: ask with \"command\": null",
                                   rule="setup/waiting", version=meta.version)
                if meta.finished:
                    raise Conflict("the game is over; a finished record takes no more commands", version=meta.version)
                try:
                    cmd = game.parse_command(command)
                except MalformedCommand as exc:
                    raise Invalid(exc.message, rule="command/malformed", errors=exc.errors) from exc
                if not table and cmd.seat != seat:
                    raise Forbidden(f"this token is for seat {seat}, the choice is seat {cmd.seat}'s",
                                    token_seat=seat, command_seat=cmd.seat)
                state = timeline.head

                def run(chance: Any) -> Any:
                    return play(game, state, cmd, chance)
                reader = None if table else seat
            try:
                # sealed whatever the record: nothing is stored here, so checking a seat's outcome from a pool it may
                # not see would be a free guess at what the pool holds (a record without a table key, made by an
                # import before they had one, takes them only as its seat's command)
                ask, unused = next_ask(run, given, closed, True)
            except HiddenPool as exc:
                raise hidden_pool(exc) from exc
            except RuleViolation as exc:
                raise Refused(exc, reader, meta.title, meta.seats) from exc
            if unused:
                raise Invalid(f"{len(unused)} outcome(s) given that the rules never asked for",
                              rule="chance/unused-outcome", unused=[o.to_json() for o in unused])
            return {"ask": None if ask is None else ask_json(ask, words, meta.seats, edition),
                    "version": meta.version}

    def setup(self, record_id: UUID, token: str | None, outcomes: Sequence[Mapping[str, Any]] | None,
              idempotency_key: str | None = None) -> tuple[dict[str, Any], bool]:
        """Complete the setup of a record started without its outcomes: (the answer, whether it is a retry's)."""
        given = outcomes_of(outcomes)
        record = self.records.play.record(record_id)
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            table = self._acting(meta, token)
            keyed = self.records.idempotency.request_key(record_id, "setup", idempotency_key,
                                                         {"outcomes": [o.to_json() for o in given]})
            if keyed is not None:
                used = self.records.idempotency.used(keyed[0], keyed[1], "request", "setup")
                if used is not None:
                    return dict(used.answer), True
            if not record.awaiting_setup:
                raise Conflict(SETUP_DONE, rule="setup/done", version=record.version)
            chance = SeatChance(given, None if table else closed_to(catalog.words(meta.title), seat), sealed(meta))
            try:
                produced = timeline.game.setup(self.records.edition(record.title, record.edition, record.edition_file),
                                               record.options, chance)
            except HiddenPool as exc:
                raise hidden_pool(exc) from exc
            except RuleViolation as exc:
                raise Refused(exc, None) from exc
            if chance.unused:
                raise Invalid(f"{len(chance.unused)} outcome(s) given that the setup never asked for",
                              rule="chance/unused-outcome", unused=[o.to_json() for o in chance.unused])
            if not produced:
                raise Invalid("the setup causes no game event, so there is nothing to record", rule="setup/no-events")
            record.record(Entry(None, tuple(chance.log), tuple(produced), options=record.options).to_json(), seat=None)
            answer = {"version": record.version, "steps": len(produced)}
            try:
                self.records.save(record, *([] if keyed is None else [RequestKey(id=keyed[0], body=keyed[1],
                                                                                  answer=answer)]))
            except IntegrityError as exc:
                if keyed is not None:
                    used = self.records.idempotency.used(keyed[0], keyed[1], "request", "setup")
                    if used is not None:
                        return dict(used.answer), True
                raise Conflict("the setup was entered from another device a moment ago; reload the record",
                               rule="setup/done") from exc
            return answer, False

    # ---- take-backs ------------------------------------------------------------------------------

    def withdraw(self, record_id: UUID, token: str | None, version: int,
                 idempotency_key: str | None = None) -> tuple[dict[str, Any], bool]:
        """Take back the record's last entry (at the table: the table key, at once), or ask to (a live game: the
        seat that made it; done once every other seat consents). (the answer, whether it is a retry's)."""
        record = self.records.play.record(record_id)
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            if token is None:
                raise Unauthorized("a take-back needs the table key or the token of the seat that made the entry "
                                   "(Authorization: Bearer <key>)")
            table = self.records.access.is_table(meta, token)
            keyed = self.records.idempotency.request_key(record_id, f"withdrawal:{'table' if table else seat}",
                                                         idempotency_key, {"version": version})
            again = self._answered(keyed, "take-back")
            if again is not None:
                return again, True
            self._can_withdraw(record, meta, version)
            last, start, size = len(timeline.entries) - 1, meta.entry_starts[-1], meta.entry_sizes[-1]
            maker = meta.entry_seats[-1]
            if meta.mode == TRANSCRIBED:
                if not table:
                    raise Forbidden("at the table, the table key takes an entry back (the device every choice was "
                                    "entered on)", rule="withdrawal/table-key")
                record.withdraw(entry=last, steps=size, first_step=start + 1, seat=maker, by=TABLE_BY)
                answer = self._done(record, last, start, size, maker, TABLE_BY, [])
            else:
                if seat is None:
                    raise Forbidden("a live game's entry is taken back by the seat that made it, asked with its token",
                                    rule="withdrawal/seat")
                if seat != maker:
                    raise Forbidden(f"the last entry is {name_of(meta.seats, maker)}'s: only its own seat asks to take "
                                    "it back", rule="withdrawal/not-yours", seat=seat, entry_seat=maker)
                if timeline.entries[-1]["outcomes"]:
                    raise Conflict("the last entry drew from chance and its outcome has been shown: a live game never "
                                   "takes a choice back across a draw", rule="withdrawal/chance-shown",
                                   version=record.version)
                waiting = getattr(record, "withdrawal", None)  # a record snapshotted before take-backs has none
                if waiting is not None:
                    raise Conflict(f"a take-back of this entry is asked already (number {waiting['number']}); "
                                   "it waits for the other seats' consent", rule="withdrawal/asked",
                                   number=waiting["number"], version=record.version)
                number = record.version + 1  # the version its asking is stored at: unique in the record
                record.ask_withdrawal(number=number, seat=seat, entry=last, at_version=record.version)
                answer = self._asked(record, meta)
            return self._saved(record, keyed, answer, "take-back"), False

    def consent(self, record_id: UUID, number: int, token: str | None,
                idempotency_key: str | None = None) -> tuple[dict[str, Any], bool]:
        """Another seat of a live game consents to take-back `number`; the last consent takes the entry back."""
        record = self.records.play.record(record_id)
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            if token is None or seat is None:
                raise Unauthorized("a seat consents to a take-back with its own token (Authorization: Bearer <token>)")
            keyed = self.records.idempotency.request_key(record_id, f"consent:{seat}", idempotency_key, {"number": number})
            again = self._answered(keyed, "consent")
            if again is not None:
                return again, True
            asked = getattr(record, "withdrawal", None)
            if asked is None or asked["number"] != number:
                raise Conflict(f"no take-back {number} waits for consent: the game went on, or it was done already",
                               rule="withdrawal/not-waiting", version=record.version)
            if seat == asked["seat"]:
                raise Conflict("the seat that asked for the take-back does not consent to it: the others do",
                               rule="withdrawal/own", version=record.version)
            if seat in asked["consents"]:
                raise Conflict(f"{name_of(meta.seats, seat)} has consented already", rule="withdrawal/consented",
                               version=record.version)
            record.consent(number=number, seat=seat)
            consents = [*asked["consents"]]  # the aggregate's list, with this seat
            others = [k for k in range(len(meta.seats)) if k != asked["seat"]]
            if all(k in consents for k in others):
                start, size = meta.entry_starts[-1], meta.entry_sizes[-1]
                record.withdraw(entry=asked["entry"], steps=size, first_step=start + 1, seat=asked["seat"],
                                by=SEATS_BY, consents=consents)
                answer = self._done(record, asked["entry"], start, size, asked["seat"], SEATS_BY, consents)
            else:
                answer = self._asked(record, meta)
            return self._saved(record, keyed, answer, "consent"), False

    def _can_withdraw(self, record: Any, meta: Meta, version: int) -> None:
        """What refuses any take-back: a stale page, a finished game, nothing but the setup."""
        if record.finished:
            raise Conflict("the game is over: its entries are final", rule="withdrawal/finished", version=record.version)
        if version != record.version:
            raise Conflict(f"the record is at version {record.version}, the take-back was asked against {version}: "
                           "something was entered meanwhile; reload the record and look again",
                           version=record.version, expected_version=version)
        if len(meta.entry_starts) <= 1:
            raise Conflict("nothing to take back: the record holds its setup only", rule="withdrawal/nothing",
                           version=record.version)

    @staticmethod
    def _done(record: Any, entry: int, start: int, size: int, seat: int | None, by: str,
              consents: list[int]) -> dict[str, Any]:
        return {"withdrawn": {"entry": entry, "steps": [start + 1, start + size], "seat": seat, "by": by,
                              "consents": consents}, "asked": None, "version": record.version, "steps": record.steps}

    @staticmethod
    def _asked(record: Any, meta: Meta) -> dict[str, Any]:
        asked = dict(record.withdrawal)
        waiting = [k for k in range(len(meta.seats)) if k != asked["seat"] and k not in asked["consents"]]
        return {"withdrawn": None, "asked": {"number": asked["number"], "seat": asked["seat"], "entry": asked["entry"],
                                             "consents": list(asked["consents"]), "waiting": waiting},
                "version": record.version, "steps": record.steps}

    def _answered(self, keyed: tuple[UUID, str] | None, what: str) -> dict[str, Any] | None:
        if keyed is None:
            return None
        used = self.records.idempotency.used(keyed[0], keyed[1], "request", what)
        return None if used is None else dict(used.answer)

    def _saved(self, record: Any, keyed: tuple[UUID, str] | None, answer: dict[str, Any], what: str) -> dict[str, Any]:
        """Save the record (and the request key), or answer what a retry's first attempt stored."""
        try:
            self.records.save(record, *([] if keyed is None else [RequestKey(id=keyed[0], body=keyed[1], answer=answer)]))
        except IntegrityError as exc:
            again = self._answered(keyed, what)
            if again is not None:
                return again
            raise Conflict("the record changed at the same moment (another device); reload it and look again") from exc
        return answer

