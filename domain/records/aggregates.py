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

import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event

from domain.records import chain as chains
from domain.records.canonical import CanonicalEvent, Encoded
from domain.records.dice import SHARED
from domain.records.errors import Conflict

LIVE = "live"
TRANSCRIBED = "transcribed"
MODES = (LIVE, TRANSCRIBED)
NOTATION = "cronaca-notation"  # an import's stored document: {"format": NOTATION, "text": ...}


SETUP_WAITING = ("the record waits for its setup's outcomes (the deals as the table saw them): enter them first "
                 "(POST /api/records/{id}/setup; POST /api/records/{id}/asks says which comes next)")


def waiting_message(seats: list[str], waiting: list[int]) -> str:
    """What a shared-dice record that still waits for seats to join says to whoever asks it to go on."""
    names = ", ".join(f"seat {k} ({seats[k]})" for k in waiting)
    return f"the record waits for every seat to join its shared dice; not joined yet: {names}"


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
        dice: str | None = None,
        chain: str | None = None,
        chain_key: str | None = None,
        table_hash: str | None = None,
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
        self.dice = dice  # "shared": every seat contributes to chance (domain/records/dice.py); None: the service's seed alone
        self.joined: list[str | None] = [None] * len(seats)  # shared dice: each seat's commitment, once it joined
        self.revealed: list[str | None] = [None] * len(seats)  # shared dice: each seat's secret, once revealed
        self.setup_parts: list[str | None] = [None] * len(seats)  # shared dice: each seat's contribution to entry 0
        self.chain_head = chain  # the link of the last game item (chain.py); None: stored before chains, or chains off
        self.chain_length = 1 if chain is not None else 0
        # the key every link is made under (chain.py), kept as the seed is and revealed at the end with it;
        # None: a record stored before chain keys (its links are unsalted)
        self.chain_key = chain_key
        # a game at the table: its table key's SHA-256 (one device enters every seat's choices); None: no table key
        self.table_hash = table_hash
        self.withdrawal: dict[str, Any] | None = None  # a live game: the take-back asked, waiting for consents
        self.withdrawn_steps = 0  # game events of entries taken back (still stored and chained)

    @property
    def waiting(self) -> list[int]:
        """Shared dice: the seats that have not joined yet (the setup waits for them all)."""
        return [k for k, c in enumerate(self.joined) if c is None] if getattr(self, "dice", None) == SHARED else []

    @property
    def awaiting_setup(self) -> bool:
        """A game at the table started without its setup's outcomes: it waits for them (`POST .../setup`)."""
        return self.mode == TRANSCRIBED and self.entries == 0

    def check_takes_command(self) -> None:
        """The record's own rules for a command, before any is decided: a finished record takes none, a
        shared-dice record takes none until every seat has joined (its setup is not drawn before), and a game at
        the table none until its setup's outcomes are entered."""
        if self.finished:
            raise Conflict("the game is over; a finished record takes no more commands", version=self.version)
        if self.waiting:
            raise Conflict(waiting_message(self.seats, self.waiting), rule="dice/waiting", waiting=self.waiting)
        if self.awaiting_setup:
            raise Conflict(SETUP_WAITING, rule="setup/waiting", version=self.version)

    @staticmethod
    def started_link(title: str, edition: dict[str, str], edition_file: str | None, seats: list[str],
                     options: dict[str, Any], mode: str, commitment: str | None, dice: str | None = None,
                     chain_key: str | None = None) -> str:
        """The `chain` a `Started` with these fields carries: the first link of the record's chain."""
        return chains.link(chains.GENESIS, chains.started_item(
            title, edition, edition_file, seats, options, mode, commitment, dice,
            chains.key_commitment(chain_key) if chain_key is not None else None), chain_key)

    @event("Joined")
    def join(self, seat: int, commitment: str, contribution: str) -> None:
        """Shared dice: a seat commits to its secret and gives its part of the setup's chance (entry 0)."""
        self.joined = [commitment if k == seat else c for k, c in enumerate(self.joined)]
        self.setup_parts = [contribution if k == seat else c for k, c in enumerate(self.setup_parts)]

    @event("Revealed")
    def reveal(self, seat: int, secret: str) -> None:
        """Shared dice: a seat reveals its secret at the end, so anyone can recompute its contributions."""
        self.revealed = [secret if k == seat else c for k, c in enumerate(self.revealed)]

    @event("Happened")
    def happen(self, event: dict[str, Any], entry: dict[str, Any] | None, seat: int | None, chain: str | None = None) -> None:
        """One game event; `entry` (the log entry without its events) only on an entry's first."""
        self._counted(entry is not None, chain)

    def _counted(self, opens_entry: bool, chain: str | None) -> None:
        """What one game event changes in the aggregate (`happen`; `record` sets the same for a whole entry)."""
        if opens_entry:
            self.entries += 1
            self.withdrawal = None  # a take-back asked before this entry is void
        self.steps += 1
        if chain is not None:
            self.chain_head = chain
            self.chain_length = getattr(self, "chain_length", 0) + 1

    def record(self, entry: dict[str, Any], seat: int | None, after: Callable[[], None] | None = None,
               stamp: datetime | None = None, every: int = 1) -> None:
        """One `Happened` per event of a log entry (`Entry.to_json()`), saved in one go by the caller.

        Each game event, and the entry's head where it is its own (`chains.own_head`: most are), is put
        in its canonical JSON once: the chain hashes those bytes and the store writes them (rows.py).
        An import gives the events as `CanonicalEvent`s, those bytes made from the rules' event objects.
        The events are made and applied here as `happen` would have them, without the decorator's
        argument binding per event (an import's ~420), and the aggregate's counts are set once for the
        entry, not once an event.
        `after` is called after each event whose version is a multiple of `every`, the aggregate then as
        that event left it: an import building a whole record takes its snapshots there, from the aggregate
        in memory (imports/judge.py, `_build_imported`); `stamp` is the events' timestamp (an import's, one
        for the record it builds), else now."""
        events = entry["events"]
        if not events:
            raise ValueError("a log entry without game events has nothing to be stored on")
        head: dict[str, Any] = {k: v for k, v in entry.items() if k != "events"}
        carried = all(type(e) is CanonicalEvent for e in events)  # an import's: the bytes made from the rules' events
        bodies = [e.canonical for e in events] if carried else chains.canonical_events(events)
        links: list[str] | None = None
        chain_head: str | None = getattr(self, "chain_head", None)
        if chain_head is not None:  # a record stored before chains goes on without
            if chains.own_head(head):  # most entries: the row writes the head's bytes as hashed, as an event's
                head = Encoded(head)
                hashed = head.canonical = chains.canonical(head)
            else:
                hashed = chains.canonical(chains.entry_head(head, self.mode))
            links = chains.links_of(chain_head, self.steps + 1, bodies, hashed, getattr(self, "chain_key", None))
        happened = self.Happened  # type: ignore[attr-defined]  # the library makes the event class
        append, new, originator = self._pending_events.append, object.__new__, self.id
        stamp = stamp or happened.create_timestamp()
        first, steps, length = self._version, self.steps, getattr(self, "chain_length", 0)
        self.entries += 1
        self.withdrawal = None  # a take-back asked before this entry is void

        def counted(n: int) -> None:
            """The aggregate as after the entry's first n events (what `happen` would have left)."""
            self._version, self._modified_on, self.steps = first + n, stamp, steps + n
            if links is not None:
                self.chain_head, self.chain_length = links[n - 1], length + n

        version = first
        for k, obj in enumerate(events):
            version += 1
            if carried:
                body = obj
            else:
                body = Encoded(obj)
                body.canonical = bodies[k]
            # The event as the frozen dataclass's __init__ makes it (its fields, in their order, in its __dict__),
            # without that __init__'s object.__setattr__ per field and __post_init__'s check that the id is a
            # UUID (it is this aggregate's): a third of the cost of each of an import's ~420 events.
            made = new(happened)
            made.__dict__.update(originator_id=originator, originator_version=version, timestamp=stamp, event=body,
                                 entry=None if k else head, seat=seat, chain=links[k] if links is not None else None)
            append(made)
            if after is not None and version % every == 0:
                counted(k + 1)
                after()
        counted(len(events))

    @event("WithdrawalAsked")
    def ask_withdrawal(self, number: int, seat: int, entry: int, at_version: int) -> None:
        """A live game: seat `seat` asks to take back its last entry (`entry`, as the record stood at `at_version`);
        every other seat must consent (`consent`)."""
        self.withdrawal = {"number": number, "seat": seat, "entry": entry, "at_version": at_version, "consents": []}

    @event("WithdrawalConsented")
    def consent(self, number: int, seat: int) -> None:
        """A live game: another seat consents to the take-back asked as `number`."""
        asked = getattr(self, "withdrawal", None)
        if asked is not None and asked["number"] == number:
            asked["consents"] = [*asked["consents"], seat]

    @event("Withdrawn")
    def withdraw(self, entry: int, steps: int, first_step: int, seat: int | None, by: str,
                 consents: list[int] | None = None) -> None:
        """The last log entry (`entry`, its `steps` game events from `first_step`) is taken back: its rows stay in the
        stream (and in the chain), the game goes on from the state before it. `by`: "table" (the table key) or
        "seats" (a live game: asked by `seat`, every other seat consenting)."""
        self.entries -= 1
        self.steps -= steps
        self.withdrawn_steps = getattr(self, "withdrawn_steps", 0) + steps
        self.withdrawal = None

    def finish(self, seed: str | None, scores: dict[str, Any]) -> None:
        """The game is over: the seed is revealed, the scores are final (the chain's last link)."""
        head, key = getattr(self, "chain_head", None), getattr(self, "chain_key", None)
        if head is None:
            self._finished(seed=seed, scores=scores)
        elif key is None:  # a record stored before chain keys
            self._finished(seed=seed, scores=scores, chain=chains.link(head, chains.finished_item(seed, scores)))
        else:  # the key revealed with the seed: from now on anyone can recompute every link
            self._finished(seed=seed, scores=scores, chain=chains.link(head, chains.finished_item(seed, scores, key), key),
                           chain_key=key)

    @event("Finished")
    def _finished(self, seed: str | None, scores: dict[str, Any], chain: str | None = None,
                  chain_key: str | None = None) -> None:
        self.finished = True
        self.revealed_seed = seed
        self.scores = scores
        if chain is not None:
            self.chain_head = chain
            self.chain_length = getattr(self, "chain_length", 0) + 1


class Chained(Aggregate):
    """A stream whose every event carries `chain`: the link over the previous event's and its own
    fields (chain.stream_item), so a changed stored row shows (notes, rulings, imports).

    The first event is linked unless its maker passes `chain=chains.OFF` (for the benchmark only);
    each later event is linked when the stream has a head (one stored before chains has none).
    The links are keyed (chain.py): the first event carries the stream's chain key (drawn here), which
    never leaves the service (its streams are checked by `/verify`; a seat's private notes stay secret).
    Each event method takes `chain` and hands it to `_chained`; the first also takes `chain_key`."""

    @classmethod
    def _create(cls, event_class: Any, *, id: Any = None, **kwargs: Any) -> Any:  # noqa: A002  (the library's name)
        if kwargs.get("chain") == chains.OFF:
            kwargs["chain"] = None
        elif kwargs.get("chain") is None:
            kwargs["chain_key"] = kwargs.get("chain_key") or secrets.token_hex(32)
            kwargs["chain"] = chains.link(chains.GENESIS, chains.stream_item(event_class.__name__, cls.INITIAL_VERSION, kwargs),
                                          kwargs["chain_key"])
        return super()._create(event_class, id=id, **kwargs)

    def trigger_event(self, event_class: Any, **kwargs: Any) -> None:
        head = getattr(self, "chain_head", None)
        if head is not None and kwargs.get("chain") is None:
            kwargs["chain"] = chains.link(head, chains.stream_item(event_class.__name__, self.version + 1, kwargs),
                                          getattr(self, "chain_key", None))
        super().trigger_event(event_class, **kwargs)

    def _chained(self, chain: str | None, chain_key: str | None = None) -> None:
        if chain is not None:
            self.chain_head = chain
        if chain_key is not None:
            self.chain_key = chain_key


SUBMITTED = "submitted"
QUEUED = "queued"
VALIDATING = "validating"
ACCEPTED = "accepted"
REJECTED = "rejected"


class Import(Chained):
    """A submitted record file: submitted -> queued -> validating -> accepted | rejected.

    It is saved before any job is queued (the outbox), so a submission survives Redis or
    the worker being down; `Queued` marks that the relay handed it to the queue.
    """

    @event("Submitted")
    def __init__(self, document: str, token_hashes: list[str], annotator_hash: str | None = None,
                 arbiter_hash: str | None = None, chain: str | None = None, depth: int | None = None,
                 chain_key: str | None = None, table_hash: str | None = None) -> None:
        self._chained(chain, chain_key)
        self.document = document
        # the file's nesting as `recordfile.parse` measured it at submit, when it also checked every entry's shape:
        # the job neither walks the file nor checks those shapes again (None: an import stored before, or a
        # notation file: the job checks all)
        self.depth = depth
        self.token_hashes = token_hashes
        self.annotator_hash = annotator_hash  # handed on to the record an accepted import makes
        self.arbiter_hash = arbiter_hash
        # the table key's: a game in progress goes on at the table, whose device alone enters what a seat may not see
        self.table_hash = table_hash
        self.status = SUBMITTED
        self.attempts = 0
        self.record_id: str | None = None
        self.report: dict[str, Any] | None = None

    @event("Queued")
    def queue(self, job_id: str, chain: str | None = None) -> None:
        self._chained(chain)
        self.attempts += 1
        if self.status == SUBMITTED:
            self.status = QUEUED

    @event("Validating")
    def validating(self, chain: str | None = None) -> None:
        self._chained(chain)
        self.status = VALIDATING

    @event("Accepted")
    def accept(self, record_id: str, report: dict[str, Any], chain: str | None = None) -> None:
        self._chained(chain)
        self.status = ACCEPTED
        self.record_id = record_id
        self.report = report

    @event("Rejected")
    def reject(self, report: dict[str, Any], chain: str | None = None) -> None:
        self._chained(chain)
        self.status = REJECTED
        self.report = report


class RequestKey(Aggregate):
    """An `Idempotency-Key`'s first use (docs/api.md): saved in the same transaction as what the request
    stored (`Records.play.command`, `Records.imports.submit`), so it exists exactly when that does, and a retry through any
    process finds it by its id (a uuid5 of the key's scope: the record and seat, or the imports; the key
    itself is never stored). `body` is the SHA-256 of the request as first sent; `answer` what rebuilds
    the first answer (a command: seat, first step, events, version, finished; an import: its id)."""

    @event("Used")
    def __init__(self, id: UUID, body: str, answer: dict[str, Any]) -> None:  # noqa: A002  (the library's name)
        self.body = body
        self.answer = answer
