"""Reading a record's game state: our own projector over stored events, with checkpoints.

The library's `repository.get` maps every stored event to an object and checks it
against a runtime Protocol before mutating an aggregate (~10 µs per event). Game state
needs none of that: we read the stored rows through the recorder, decode the JSON once,
and fold the game events with the title's own `evolve`. Streams are append-only, so a
state once folded for step n is true forever: each `Timeline` keeps a checkpoint every
`EVERY` game events and serves any step by folding fewer than `EVERY` events.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.kernel import Edition, Event, Game, event_from_json
from domain.kernel.events import event_types

EVERY = 16

STARTED = "Record.Started"
PLAYED = "Record.Played"
FINISHED = "Record.Finished"


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
    version: int = 0
    finished: bool = False
    revealed_seed: str | None = None
    scores: dict[str, Any] | None = None
    entry_seats: list[int | None] = field(default_factory=list)
    entry_sizes: list[int] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return sum(self.entry_sizes)


def decode_rows(mapper: Any, rows: Any) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(version, topic, payload) of stored rows, undoing the mapper's cipher and compressor if any."""
    cipher = getattr(mapper, "cipher", None)
    compressor = getattr(mapper, "compressor", None)
    if cipher is None and compressor is None:
        rows = list(rows)  # plain JSON: one parse for all rows is much cheaper than one per row
        payloads = json.loads(b"[" + b",".join(bytes(row.state) for row in rows) + b"]")
        for row, payload in zip(rows, payloads, strict=True):
            yield row.originator_version, row.topic, payload
        return
    for row in rows:
        data = row.state
        if cipher is not None:
            data = cipher.decrypt(data)
        if compressor is not None:
            data = compressor.decompress(data)
        yield row.originator_version, row.topic, json.loads(data)


_CLASSES: dict[str, type[Event]] = {}


def stored_event(obj: dict[str, Any]) -> Event:
    """`event_from_json` without its per-call field-name check: what we stored passed it once already."""
    cls = _CLASSES.get(obj["type"])
    if cls is None:
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
        self.lock = threading.Lock()
        self.memo: dict[str, tuple[int, Any]] = {}  # derived answers, valid while the version is the same

    def absorb(self, version: int, topic: str, payload: dict[str, Any]) -> None:
        """Apply one stored record event: the only place the stored layout is read."""
        if topic.endswith(STARTED):
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
            )
            edition = self.edition_for(self.meta)
            self.head = self.game.begin(edition)
            self.checkpoints = [self.head]
            self._add_entry(None, payload["setup"])
        elif topic.endswith(PLAYED):
            self._add_entry(payload["seat"], payload["entry"])
        elif topic.endswith(FINISHED):
            assert self.meta is not None
            self.meta.finished = True
            self.meta.revealed_seed = payload["seed"]
            self.meta.scores = payload["scores"]
        assert self.meta is not None
        self.meta.version = version

    def _add_entry(self, seat: int | None, entry: dict[str, Any]) -> None:
        assert self.meta is not None
        self.entries.append(entry)
        self.meta.entry_seats.append(seat)
        self.meta.entry_sizes.append(len(entry["events"]))
        evolve = self.game.evolve
        events = self.events
        checkpoints = self.checkpoints
        state = self.head
        for obj in entry["events"]:
            e = stored_event(obj)
            state = evolve(state, e)
            events.append(e)
            if not len(events) % EVERY:
                checkpoints.append(state)
        self.head = state

    def state_at(self, step: int) -> Any:
        """The state after the first `step` game events (0 <= step <= len(events))."""
        if not 0 <= step <= len(self.events):
            raise IndexError(step)
        if step == len(self.events):
            return self.head
        base = step // EVERY
        state = self.checkpoints[base]
        evolve = self.game.evolve
        for e in self.events[base * EVERY : step]:
            state = evolve(state, e)
        return state


class Timelines:
    """An LRU of timelines, caught up from the recorder on each read of an unfinished record."""

    def __init__(self, recorder: Any, mapper: Any, game_for: Callable[[str], Game],
                 edition_for: Callable[[Meta], Edition], maxsize: int = 64) -> None:
        self.recorder = recorder
        self.mapper = mapper
        self.game_for = game_for
        self.edition_for = edition_for
        self.maxsize = maxsize
        self._cache: OrderedDict[UUID, Timeline] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, record_id: UUID) -> Timeline | None:
        """The record's timeline, up to date; None if there is no such record."""
        with self._lock:
            timeline = self._cache.get(record_id)
            if timeline is not None:
                self._cache.move_to_end(record_id)
        if timeline is not None and timeline.meta is not None and timeline.meta.finished:
            return timeline  # a finished record never changes again
        if timeline is None:
            decoded = list(decode_rows(self.mapper, self.recorder.select_events(record_id)))
            if not decoded or not decoded[0][1].endswith(STARTED):
                return None  # no such stream, or an import's
            timeline = Timeline(self.game_for(decoded[0][2]["title"]), self.edition_for)
            with timeline.lock:
                if timeline.meta is None:
                    for version, topic, payload in decoded:
                        timeline.absorb(version, topic, payload)
        else:
            with timeline.lock:
                gt = timeline.meta.version if timeline.meta is not None else None
                for version, topic, payload in decode_rows(self.mapper, self.recorder.select_events(record_id, gt=gt)):
                    timeline.absorb(version, topic, payload)
        with self._lock:
            self._cache[record_id] = timeline
            self._cache.move_to_end(record_id)
            while len(self._cache) > self.maxsize:
                self._cache.popitem(last=False)
        return timeline
