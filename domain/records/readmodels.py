"""What the read services answer: typed, immutable read models of a record.

`Records.reading` and `Records.presenting` return these instead of dictionaries, so a caller reads
`step.view` or `summary.steps` and a checker follows every field. JSON is made at the edge: each
model's `to_json()` is the answer the API has always given, key for key and in the same order, and
`as_bytes` serialises it as the API sends it (compact). The views, pending decisions and scores inside
are the titles' own JSON values and stay so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any, Protocol


class ReadModel(Protocol):
    def to_json(self) -> Any: ...


def as_bytes(model: ReadModel) -> bytes:
    """A read model as the API's JSON body: compact, keys in the model's order."""
    return json.dumps(model.to_json(), separators=(",", ":")).encode()


@dataclass(frozen=True, slots=True)
class Step:
    """The state after the first `step` game events, as one reader may see it."""

    step: int
    steps: int
    view_of: str  # "all", "seat:<n>" or "public"
    view: Any
    pending: dict[str, Any]  # in full for the seat that must decide (or once finished), else its seat and kind
    event: str | None = None  # the type of the event that led here (none at step 0)
    by: str | None = None  # who gave this step's chance outcomes: "service" or "transcriber"
    scores: dict[str, Any] | None = None  # once the game is over

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "steps": self.steps, "view_of": self.view_of, "view": self.view,
                               "pending": self.pending}
        if self.event is not None:
            out["event"] = self.event
        if self.by is not None:
            out["by"] = self.by
        if self.scores is not None:
            out["scores"] = self.scores
        return out


@dataclass(frozen=True, slots=True)
class EventPage:
    """Game events [start, stop) of `steps`; while the game is in progress only their types (`redacted`)."""

    start: int
    stop: int
    steps: int
    redacted: bool
    events: list[dict[str, Any]]  # {"step", ...the event's JSON} or {"step", "type", "redacted": true}

    def to_json(self) -> dict[str, Any]:
        return {"from": self.start, "to": self.stop, "steps": self.steps, "redacted": self.redacted, "events": self.events}


@dataclass(frozen=True, slots=True)
class Legal:
    """The pending decision at the head of a record, and its legal commands for the seat that must decide
    (None for any other reader, with a `note` saying why)."""

    step: int
    version: int
    pending: dict[str, Any]
    commands: list[dict[str, Any]] | None
    entry: int | None = None  # shared dice: the log entry the next command becomes (its contribution's k)
    waiting: list[int] | None = None  # shared dice: the seats that have not joined yet
    note: str | None = None
    # for whoever may act: each command as the decision panel offers it (kernel.choices), in the commands' order
    choices: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "version": self.version, "pending": self.pending}
        if self.entry is not None:
            out["entry"] = self.entry
        out["commands"] = self.commands
        if self.choices is not None:
            out["choices"] = self.choices
        if self.waiting is not None:
            out["waiting"] = self.waiting
        if self.note is not None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Turn:
    """The setup (turn 0) or one turn: consecutive commands by one seat, game events [start, stop)."""

    turn: int
    round: int | None
    seat: int | None
    player: str | None
    start: int
    stop: int
    commands: int

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "round": self.round, "seat": self.seat, "player": self.player,
                "from": self.start, "to": self.stop, "commands": self.commands}


@dataclass(frozen=True, slots=True)
class Summary:
    """A record's header, status and version; its chance and chain commitments; once finished, its scores."""

    id: str
    title: str
    edition: dict[str, str]
    seats: list[dict[str, Any]]  # {"seat", "name"} in seat order
    options: dict[str, Any]
    mode: str
    status: str  # "finished" or "in-progress"
    finished: bool
    version: int
    steps: int
    created: str
    chance: dict[str, Any]
    chain: dict[str, Any]  # {"head", "length"}
    origin: dict[str, Any] | None = None  # where an imported record came from
    scores: dict[str, Any] | None = None  # once the game is over
    # entries taken back (issue 31), when any: which, whose, their steps then, by whom, when (their log: the export)
    withdrawn: list[dict[str, Any]] | None = None
    withdrawal: dict[str, Any] | None = None  # a live game's take-back asked and waiting for consent

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "title": self.title, "edition": self.edition, "seats": self.seats,
                               "options": self.options, "mode": self.mode, "status": self.status,
                               "finished": self.finished, "version": self.version, "steps": self.steps,
                               "created": self.created, "chance": self.chance, "chain": self.chain}
        if self.origin:
            out["origin"] = self.origin
        if self.finished:
            out["scores"] = self.scores
        if self.withdrawn:
            out["withdrawn"] = self.withdrawn
        if self.withdrawal is not None:
            out["withdrawal"] = self.withdrawal
        return out


@dataclass(frozen=True, slots=True)
class StoryLine:
    """One event the title puts in words, as the reader may read it."""

    step: int
    seat: int | None
    player: str | None
    round: int | None
    text: str
    by: str | None = None  # the entry met chance: drawn by the service, or asserted by a transcriber

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "seat": self.seat, "player": self.player, "round": self.round,
                               "text": self.text}
        if self.by is not None:
            out["by"] = self.by
        return out


@dataclass(frozen=True, slots=True)
class Story:
    """The move list of a record as one reader may read it."""

    steps: int
    view_of: str
    lines: tuple[StoryLine, ...]

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "view_of": self.view_of, "lines": [line.to_json() for line in self.lines]}


@dataclass(frozen=True, slots=True)
class SeatTotals:
    """One seat's running total at every step 0..steps."""

    seat: int
    name: str
    totals: list[float]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "totals": self.totals}


@dataclass(frozen=True, slots=True)
class ScoresOverTime:
    """Running totals, round marks, lead changes and the final scores; only once the game is over
    (`available` false with its `reason` before: a running score can carry what a seat hides)."""

    available: bool
    reason: str | None = None
    steps: int = 0
    seats: tuple[SeatTotals, ...] = ()
    rounds: list[dict[str, int]] | None = None  # {"round", "step"}: where each round begins
    lead_changes: list[dict[str, int]] | None = None  # {"step", "seat"}: where another seat takes the lead
    final: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.available:
            return {"available": False, "reason": self.reason}
        return {"available": True, "steps": self.steps, "seats": [seat.to_json() for seat in self.seats],
                "rounds": self.rounds, "lead_changes": self.lead_changes, "final": self.final}


@dataclass(frozen=True, slots=True)
class RecordRow:
    """A record as the list shows it; a finished record's row in a listing names its winner(s) and each seat's
    final total in ranking order (public once the game is over)."""

    id: str
    title: str
    players: list[str]
    mode: str
    status: str
    finished: bool
    created: str
    winner: list[str] | None = None
    scores: list[dict[str, Any]] | None = None  # {"name", "total"}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "title": self.title, "players": self.players, "mode": self.mode,
                               "status": self.status, "finished": self.finished, "created": self.created}
        if self.winner is not None:
            out["winner"] = self.winner
        if self.scores is not None:
            out["scores"] = self.scores
        return out


@dataclass(frozen=True, slots=True)
class Listing:
    """One page of the records list, newest first."""

    items: list[RecordRow]
    total: int
    page: int
    per_page: int

    def to_json(self) -> dict[str, Any]:
        return {"items": [row.to_json() for row in self.items], "total": self.total, "page": self.page,
                "per_page": self.per_page}


@dataclass(frozen=True, slots=True)
class RecordFile:
    """A finished record as its file (docs/formats/record-json.md): what `GET .../export` answers and an
    import takes back. The entries, chance and scores are the file's own JSON values; the notes, variations
    and rulings are there when the export carries them (`lessonfile.record_file`), in that order."""

    format: str
    version: int
    title: str
    edition: dict[str, Any]
    seats: list[dict[str, Any]]  # {"name"} in seat order
    options: dict[str, Any]
    mode: str
    chance: dict[str, Any]
    entries: list[dict[str, Any]]
    finished: bool
    scores: dict[str, Any] | None
    chain: dict[str, Any] | None = None  # {"head", "length"}: the stored chain the file was read from
    withdrawn: list[dict[str, Any]] | None = None  # entries taken back (issue 31): never replayed, still chained
    annotations: list[dict[str, Any]] | None = None
    variations: list[dict[str, Any]] | None = None
    rulings: list[dict[str, Any]] | None = None

    @classmethod
    def of(cls, document: dict[str, Any]) -> RecordFile:
        """The model of a file as `recordfile.export` writes it; a key this model does not know is refused, so
        that a key added to the file is never dropped from the answer without a word."""
        unknown = set(document) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"a record file's keys the read model does not know: {sorted(unknown)}")
        return cls(document["format"], document["version"], document["title"], document["edition"], document["seats"],
                   document["options"], document["mode"], document["chance"], document["entries"], document["finished"],
                   document["scores"], document.get("chain"), document.get("withdrawn"))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": self.format, "version": self.version, "title": self.title,
                               "edition": self.edition, "seats": self.seats, "options": self.options, "mode": self.mode,
                               "chance": self.chance, "entries": self.entries, "finished": self.finished,
                               "scores": self.scores}
        if self.withdrawn is not None:
            out["withdrawn"] = self.withdrawn
        for name in ("chain", "annotations", "variations", "rulings"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out
