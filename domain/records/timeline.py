"""Reading a record's game state: our own projector over stored events, with checkpoints.

A record's stream holds one stored event per game event (aggregates.py). The library's
`repository.get` maps every stored event to an object and checks it against a runtime
Protocol before mutating an aggregate (~20 µs per event). Game state needs none of that:
we select the stream's rows (the store's `select_rows`, domain/records/store), decode their
JSON in one parse, and fold each game event with the title's own `evolve`. Streams are
append-only, so a state once folded for step n is true forever: each `Timeline` keeps a
checkpoint every `EVERY` game events and serves any step by folding fewer than `EVERY` events.
"""

from __future__ import annotations

import gc
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

import orjson

from domain import catalog
from domain.kernel import Edition, Event, Game, event_from_json
from domain.kernel.cache import Bounded
from domain.kernel.events import event_types
from domain.records.store import select_stream
from domain.records.store import select_streams as select_streams  # the store's reads, imported from here by callers

EVERY = 16

STARTED = "Record.Started"
HAPPENED = "Record.Happened"
FINISHED = "Record.Finished"
JOINED = "Record.Joined"  # shared dice (domain/records/dice.py): a seat's commitment and its setup contribution
REVEALED = "Record.Revealed"  # shared dice: a seat's secret, after the end
WITHDRAWN = "Record.Withdrawn"  # a take-back: the last log entry leaves the game (its rows stay, issue 31)
WITHDRAWAL_ASKED = "Record.WithdrawalAsked"  # a live game: a seat asks to take its last entry back
WITHDRAWAL_CONSENTED = "Record.WithdrawalConsented"  # a live game: another seat consents to it


@dataclass
class Meta:
    """What a record says about itself (from its own stored events, never from the game)."""

    title: str
    edition: dict[str, str]
    edition_file: str | None
    seats: list[str]
    token_hashes: list[str]
    options: dict[str, Any]
    mode: str
    commitment: str | None
    seed: str | None
    origin: dict[str, Any] | None
    created: str
    annotator_hash: str | None = None  # the record's annotator key, hashed (domain/records/teaching.py)
    arbiter_hash: str | None = None  # the record's arbiter key, hashed: who may record rulings
    table_hash: str | None = None  # a game at the table: its table key, hashed (acts for any seat, reads as the public)
    version: int = 0
    finished: bool = False
    revealed_seed: str | None = None
    chain_key: str | None = None  # the key of the record's chain links: the service's secret until the end (chain.py)
    revealed_chain_key: str | None = None  # the same key, once the Finished event revealed it
    scores: dict[str, Any] | None = None
    steps: int = 0
    entry_starts: list[int] = field(default_factory=list)  # the step at which each log entry begins
    entry_seats: list[int | None] = field(default_factory=list)
    chain_head: str | None = None  # the last link of the record's chain (chain.py); None: stored before chains
    chain_length: int = 0  # the chained items: the start, each game event, the end
    dice: str | None = None  # "shared": the seats contribute to chance (dice.py)
    seat_commitments: list[str | None] = field(default_factory=list)  # shared dice: per seat, once joined
    contributions: list[dict[str, str]] = field(default_factory=list)  # shared dice: per seat, entry k (as text) -> hex
    secrets: list[str | None] = field(default_factory=list)  # shared dice: per seat, once revealed
    finished_at: str | None = None  # when the Finished event was stored (the reveal deadline counts from it)
    withdrawn_steps: int = 0  # game events of entries taken back: still stored and chained, no longer steps
    withdrawal: dict[str, Any] | None = None  # a live game: the take-back asked and not yet done (its consents)

    @property
    def waiting(self) -> list[int]:
        """Shared dice: the seats that have not joined yet (the setup waits for them all)."""
        return [k for k, c in enumerate(self.seat_commitments) if c is None] if self.dice else []

    @property
    def awaiting_setup(self) -> bool:
        """A game at the table started without its setup's outcomes: nothing is decided before they are entered."""
        return self.mode == "transcribed" and not self.entry_starts  # aggregates.TRANSCRIBED (it imports this module)

    @property
    def entry_sizes(self) -> list[int]:
        """How many game events each log entry caused."""
        if not self.entry_starts:
            return []  # shared dice: no setup until every seat has joined
        return [b - a for a, b in zip(self.entry_starts, [*self.entry_starts[1:], self.steps], strict=True)]


class paused_collector:  # noqa: N801  (used as a `with` statement, like contextlib's)
    """The cyclic garbage collector paused while a whole stream is decoded: json.loads of 5,000 rows makes
    ~50,000 containers, none in a cycle, and each 700 of them started a collection that, every so often,
    walked the whole heap (a long-running process's caches): a third of `/verify`'s chain part on a long
    record, and most of its spread. Left paused if it was paused (a thread in its own pause: it resumes it)."""

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()


_DIGITS = bytes(ord("0") if 48 <= c <= 57 else ord(".") for c in range(256))
_NINETEEN = b"0" * 19
_NUMBER_BEFORE = (b"", b"[", b",", b":", b" ", b"\t", b"\n", b"\r")


def _long_integer(raw: bytes) -> bool:
    """Whether a JSON text may hold an integer of 19 digits or more: a run of as many digits after `[ , :` or a
    space (a run inside a string, a hash's, is no number). One `translate` and `find`s: a regular expression
    took longer than the parse itself on 1.7 MB."""
    digits = raw.translate(_DIGITS)
    start = digits.find(_NINETEEN)
    while start >= 0:
        before = raw[start - 1:start] if start else b""
        if before == b"-":
            before = raw[start - 2:start - 1] if start > 1 else b""
        if before in _NUMBER_BEFORE:
            return True
        end = digits.find(b".", start)
        start = -1 if end < 0 else digits.find(_NINETEEN, end)
    return False


def loads(data: bytes | str) -> Any:
    """`json.loads`, by orjson: about twice as fast on a stream's rows (/verify reads 1.7 MB of them on a long
    record). orjson refuses some texts `json` reads (NaN, lone surrogates: those go to `json`) and reads an
    integer past 64 bits as a float: a text that may hold one (`_long_integer`) goes to `json` too, so what
    comes back is always what `json.loads` gives."""
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if _long_integer(raw):
        return json.loads(data)
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(data)


def decode_rows(mapper: Any, rows: list[tuple[int, str, bytes]]) -> list[tuple[int, str, dict[str, Any]]]:
    """(version, topic, payload) of stored rows, undoing the mapper's cipher and compressor if any."""
    cipher = getattr(mapper, "cipher", None)
    compressor = getattr(mapper, "compressor", None)
    if cipher is None and compressor is None:
        # plain JSON: one parse for all rows is much cheaper than one per row
        blob = b"[" + b",".join(bytes(state) for _, _, state in rows) + b"]"
        with paused_collector():
            payloads = loads(blob)
        return [(version, topic, payload) for (version, topic, _), payload in zip(rows, payloads, strict=True)]
    out = []
    for version, topic, state in rows:
        data = state
        if cipher is not None:
            data = cipher.decrypt(data)
        if compressor is not None:
            data = compressor.decompress(data)
        out.append((version, topic, loads(data)))
    return out


_CLASSES: dict[str, type[Event]] = {}


def _load_title_of(event_type: str) -> None:
    """A title's event types are known once its package is imported: a fresh process reading a stream
    before anything else asked for that title (a verify, a recheck) imports it by the type's prefix."""
    title = event_type.partition("/")[0]
    if title in catalog.TITLES:
        try:
            catalog.game(title)
        except Exception:  # noqa: BLE001  (a title that cannot load: event_from_json names the unknown type)
            return


def stored_event(obj: dict[str, Any]) -> Event:
    """`event_from_json` without its per-call field-name check: what we stored passed it once already."""
    cls = _CLASSES.get(obj["type"])
    if cls is None:
        _load_title_of(obj["type"])
        _CLASSES.update(event_types())
        if obj["type"] not in _CLASSES:
            return event_from_json(obj)  # raises UnknownEventType with the name
        cls = _CLASSES[obj["type"]]
    return cls(**obj["data"])


def timestamp_of(payload: dict[str, Any]) -> str:
    stamp = payload.get("timestamp")
    if isinstance(stamp, dict):
        return str(stamp.get("_data_", ""))
    return str(stamp or "")


T = TypeVar("T")


class Timeline:
    """One record's game events folded once, with checkpoints for any step."""

    def __init__(self, game: Game, edition_for: Callable[[Meta], Edition]) -> None:
        self.game = game
        self.edition_for = edition_for
        self.meta: Meta | None = None
        self.entries: list[dict[str, Any]] = []
        self.events: list[Event] = []
        self.checkpoints: list[Any] = []
        self.head: Any = None
        self.lock = threading.RLock()  # held by the writer absorbing rows and by readers (Records.reading)
        self.memo: dict[str, tuple[int, Any]] = {}  # derived answers, valid while the version is the same
        self.stepwise: tuple[int, dict[tuple[str, int], Any]] = (0, {})  # answers about one step (`of_step`)
        self.withdrawn: list[dict[str, Any]] = []  # entries taken back, as they were, with when and by whom

    def kept(self, key: str, make: Callable[[], T]) -> T:
        """A derived answer (a move list, a body) of the record as it stands, made once per version (`memo`):
        call it under `lock`. What it keeps is shared between readers, so it must be immutable."""
        version = -1 if self.meta is None else self.meta.version
        known = self.memo.get(key)
        if known is not None and known[0] == version:
            found: T = known[1]
            return found
        made = make()
        self.memo[key] = (version, made)
        return made

    def of_step(self, key: str, step: int, make: Callable[[], T]) -> T:
        """A derived answer about one step (the round a turn starts in): a step's state stays the same as the record
        grows, so it is made once, not once per version; a take-back (its events leave the steps) starts them anew.
        Call it under `lock`."""
        withdrawn = 0 if self.meta is None else self.meta.withdrawn_steps
        if self.stepwise[0] != withdrawn:
            self.stepwise = (withdrawn, {})
        known = self.stepwise[1]
        if (key, step) not in known:
            known[(key, step)] = make()
        found: T = known[(key, step)]
        return found

    def absorb(self, rows: Iterable[tuple[int, str, dict[str, Any]]]) -> None:
        """Apply stored record events in stream order: the only place the stored layout is read.

        `Happened` rows are most of any stream, so their fold is inlined here with locals."""
        evolve = self.game.evolve
        events = self.events
        entries = self.entries
        checkpoints = self.checkpoints
        state = self.head
        version = None
        chained = None  # the last chained row's payload
        for stored_version, topic, payload in rows:
            version = stored_version
            if topic.endswith(HAPPENED):
                chained = payload
                obj = payload["event"]
                obj = {"type": obj["type"], "data": obj["data"]}  # stored canonical, keys sorted (rows.py): "type" first again
                if payload["entry"] is not None:
                    self._open_entry(payload["entry"], payload["seat"])
                entries[-1]["events"].append(obj)
                e = stored_event(obj)
                state = evolve(state, e)
                events.append(e)
                if not len(events) % EVERY:
                    checkpoints.append(state)
            elif topic.endswith(STARTED):
                chained = payload
                self._start(payload)
                state = self.head
                checkpoints = self.checkpoints
            elif topic.endswith(FINISHED):
                chained = payload
                self._finish(payload)
            elif topic.endswith(JOINED):
                self._joined(payload)
            elif topic.endswith(REVEALED):
                assert self.meta is not None
                self.meta.secrets[payload["seat"]] = payload["secret"]
            elif topic.endswith(WITHDRAWN):
                state = self._withdraw(payload, stored_version)
            elif topic.endswith(WITHDRAWAL_ASKED):
                assert self.meta is not None
                self.meta.withdrawal = {k: payload[k] for k in ("number", "seat", "entry", "at_version")} | {"consents": []}
            elif topic.endswith(WITHDRAWAL_CONSENTED):
                assert self.meta is not None
                if self.meta.withdrawal is not None and self.meta.withdrawal["number"] == payload["number"]:
                    self.meta.withdrawal["consents"].append(payload["seat"])
        self.head = state
        if version is not None:
            assert self.meta is not None
            self.meta.version = version
            self.meta.steps = len(events)
        if chained is not None and chained.get("chain") is not None:
            assert self.meta is not None
            self.meta.chain_head = chained["chain"]
            self.meta.chain_length = 1 + len(events) + self.meta.withdrawn_steps + self.meta.finished

    def _start(self, payload: dict[str, Any]) -> None:
        self.meta = Meta(
            title=payload["title"],
            edition=payload["edition"],
            edition_file=payload["edition_file"],
            seats=payload["seats"],
            token_hashes=payload["token_hashes"],
            options=payload["options"],
            mode=payload["mode"],
            commitment=payload["commitment"],
            seed=payload["seed"],
            origin=payload.get("origin"),
            created=timestamp_of(payload),
            annotator_hash=payload.get("annotator_hash"),
            arbiter_hash=payload.get("arbiter_hash"),
            table_hash=payload.get("table_hash"),
            dice=payload.get("dice"),
            chain_key=payload.get("chain_key"),
        )
        if self.meta.dice:
            seats = len(self.meta.seats)
            self.meta.seat_commitments, self.meta.secrets = [None] * seats, [None] * seats
            self.meta.contributions = [{} for _ in range(seats)]
        self.head = self.game.begin(self.edition_for(self.meta))
        self.checkpoints = [self.head]

    def _open_entry(self, head: dict[str, Any], seat: int | None) -> None:
        """A log entry's first game event opens it, its keys in the order `Entry.to_json()` gives them."""
        assert self.meta is not None
        if "contribution" in head and seat is not None:  # shared dice: kept under chance.seats, not in the entry
            self.meta.contributions[seat][str(len(self.entries))] = head["contribution"]
        self.meta.withdrawal = None  # a new entry: a take-back asked before it is void
        entry = {"outcomes": head["outcomes"], "events": [],
                 **{k: v for k, v in head.items() if k not in ("outcomes", "contribution")}}
        command = entry.get("command")
        if type(command) is dict and "type" in command:  # a head stored canonical, keys sorted (rows.py): "type" first again
            entry["command"] = {"type": command["type"], **command}
        self.entries.append(entry)
        self.meta.entry_starts.append(len(self.events))
        self.meta.entry_seats.append(seat)

    def _withdraw(self, payload: dict[str, Any], version: int) -> Any:
        """The last log entry taken back: its events leave the fold (kept in `withdrawn`, with when and by whom);
        returns the state before it, the new head."""
        assert self.meta is not None
        start = self.meta.entry_starts.pop()
        seat = self.meta.entry_seats.pop()
        entry = self.entries.pop()
        del self.events[start:]
        del self.checkpoints[start // EVERY + 1:]
        self.meta.withdrawal = None
        # `row`: the game-event rows stored before its first (the earlier entries, kept or taken back): where the
        # record file's chain (chain.record_items) puts it back
        self.withdrawn.append({"entry": len(self.entries), "seat": seat, "first_step": start + 1,
                               "steps": len(entry["events"]), "row": start + self.meta.withdrawn_steps,
                               "by": payload.get("by"), "consents": payload.get("consents") or [], "version": version,
                               "at": timestamp_of(payload), "log": entry})
        self.meta.withdrawn_steps += len(entry["events"])
        state = self.checkpoints[-1]
        for e in self.events[(len(self.checkpoints) - 1) * EVERY:]:
            state = self.game.evolve(state, e)
        return state

    def _finish(self, payload: dict[str, Any]) -> None:
        assert self.meta is not None
        self.meta.finished = True
        self.meta.finished_at = timestamp_of(payload)
        self.meta.revealed_seed = payload["seed"]
        self.meta.revealed_chain_key = payload.get("chain_key")
        self.meta.scores = payload["scores"]

    def _joined(self, payload: dict[str, Any]) -> None:
        """Shared dice: a seat's commitment, and its contribution to the setup (entry 0)."""
        assert self.meta is not None
        seat = payload["seat"]
        self.meta.seat_commitments[seat] = payload["commitment"]
        self.meta.contributions[seat]["0"] = payload["contribution"]

    def state_at(self, step: int) -> Any:
        """The state after the first `step` game events (0 <= step <= len(events))."""
        if not 0 <= step <= len(self.events):
            raise IndexError(step)
        # Never `head`, and maybe an earlier checkpoint: while another thread absorbs new rows,
        # the events list runs ahead of `head` and of the checkpoint list for a moment.
        base = min(step // EVERY, len(self.checkpoints) - 1)
        state = self.checkpoints[base]
        evolve = self.game.evolve
        for e in self.events[base * EVERY : step]:
            state = evolve(state, e)
        return state


class Timelines:
    """A bounded cache of timelines (least recently read dropped first), caught up from the recorder on each read
    of an unfinished record."""

    def __init__(self, recorder: Any, mapper: Any, game_for: Callable[[str], Game],
                 edition_for: Callable[[Meta], Edition], maxsize: int = 64) -> None:
        self.recorder = recorder
        self.mapper = mapper
        self.game_for = game_for
        self.edition_for = edition_for
        self.maxsize = maxsize
        self._cache: Bounded[UUID, Timeline] = Bounded("timelines", maxsize)

    def get(self, record_id: UUID) -> Timeline | None:
        """The record's timeline, up to date; None if there is no such record."""
        timeline = self._cache.get(record_id)
        if timeline is not None and timeline.meta is not None and timeline.meta.finished and None not in timeline.meta.secrets:
            return timeline  # a finished record never changes again (shared dice: once every seat has revealed)
        if timeline is None:
            decoded = decode_rows(self.mapper, select_stream(self.recorder, record_id))
            if not decoded or not decoded[0][1].endswith(STARTED):
                return None  # no such stream, or an import's
            timeline = Timeline(self.game_for(decoded[0][2]["title"]), self.edition_for)
            with timeline.lock:
                if timeline.meta is None:
                    timeline.absorb(decoded)
        else:
            with timeline.lock:
                gt = timeline.meta.version if timeline.meta is not None else None
                timeline.absorb(decode_rows(self.mapper, select_stream(self.recorder, record_id, gt=gt)))
        self._cache.put(record_id, timeline)
        return timeline
