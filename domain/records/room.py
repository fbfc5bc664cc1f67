"""What a record may grow to: the service makes nothing it would refuse to import again (issue 28).

An import refuses a record file beyond its limits (`recordfile.parse`): its size (CRONACA_MAX_UPLOAD_BYTES),
its seats (CRONACA_MAX_SEATS), its log's entries and its variations' (CRONACA_MAX_ENTRIES), its notes
(`recordfile.MAX_ANNOTATIONS`) and variations (`recordfile.MAX_VARIATIONS`). So whatever adds to a record's
file (a record made, a command, a note added or edited, a variation branched or played on, a ruling) is
checked here first against the same limits, and refused as an import would refuse the file: 422 (413 for
the bytes) with rule `file/limit` and the limit's name, before anything is stored.

The size is the subtle one: a record's notes, lines and rulings accumulate. Measuring the whole export at
every note (600 notes of 8,000 characters are 9.8 MB of JSON) would cost more than the note; so each
stream that adds to the file keeps a running measure of its own part, updated by its own events and so
rebuilt with it: `Notes.size`, `RecordVariations.size` (each variation's `Variation.size` added to the
record's index in the same transaction), `Rulings.size`. The record's own part (header and log) is measured
from its export once per record version and kept (`_BASES`). Each part counts every item as the export
writes it (compact JSON, non-ASCII escaped, as `recordfile._within` measures a file) plus one byte for its
comma, and the three extras' keys are counted as `EXTRAS`, so the sum is never less than the file: what it
allows is imported. A record in progress counts its own part rounded up to `GRAIN` and with `RESERVE`
bytes more for the rest of its game (the longest game's whole file is about 86 KB): its commands are
checked against the entry limit and its own log's bytes only (reading every extras stream at each command
would slow play), and a seat writing notes must not learn, from where they stop, how long the log's hidden
draws are (sizes are a path too).

The stream ids of the extras live here, so this module reads each part without importing its service; it
answers with an `Over` (or None), which the caller raises as its 4xx (`over_limit`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate

from domain.kernel.cache import Bounded
from domain.records import recordfile
from domain.records.errors import Invalid, RecordsError, TooLarge
from domain.records.settings import Limits

if TYPE_CHECKING:
    from domain.records.application import Records

BYTES = Limits.ENV["max_bytes"]
ENTRIES = Limits.ENV["max_entries"]
SEATS = Limits.ENV["max_seats"]
NOTES = "notes per record file"  # recordfile.MAX_ANNOTATIONS
VARIATIONS = "variations per record file"  # recordfile.MAX_VARIATIONS
EXTRAS = len(',"annotations":[],"variations":[],"rulings":[]')
SLACK = 512  # the export's "chain" (head and length) and a shared-dice seat's "unverifiable" marks
RESERVE = 256 * 1024  # kept free on a record in progress for the rest of its game
GRAIN = 64 * 1024  # a record in progress: its own part counted in steps of this (its log's exact length is secret)
KEPT = 1024  # records whose own part's size is kept per process


def notes_id(record_id: UUID) -> UUID:
    """The id of a record's notes stream (annotations.py): derived, so any process finds it."""
    return uuid5(NAMESPACE_URL, f"cronaca:notes:{record_id}")


def variations_id(record_id: UUID) -> UUID:
    """The id of a record's index of variations (variations.py)."""
    return uuid5(NAMESPACE_URL, f"cronaca:variations:{record_id}")


def rulings_id(record_id: UUID) -> UUID:
    """The id of a record's rulings stream (rulings.py)."""
    return uuid5(NAMESPACE_URL, f"cronaca:rulings:{record_id}")


def size(value: Any) -> int:
    """A value's bytes as an import measures a file: compact JSON, non-ASCII escaped."""
    return len(json.dumps(value, separators=(",", ":")))


def item(value: Any) -> int:
    """What one item adds to a list of the file: its bytes and its comma."""
    return size(value) + 1


_BASES: Bounded[tuple[UUID, int], int] = Bounded("record-file-sizes", KEPT)  # the record's own part, by version


@dataclass(frozen=True)
class Room:
    """A record file's size by parts, the limit it must stay within, and whether its game is still on."""

    record: int
    notes: int
    variations: int
    rulings: int
    allowed: int
    finished: bool

    @property
    def record_counted(self) -> int:
        """The record's own part as counted: exact once its game is over; in progress, rounded up to `GRAIN` and
        with room for the rest of its game, so no refusal depends on the length of what its log hides."""
        if self.finished:
            return self.record
        grain = min(GRAIN, max(1, self.allowed // 64))
        return -(-self.record // grain) * grain + min(RESERVE, self.allowed // 4)

    @property
    def total(self) -> int:
        return self.record_counted + self.notes + self.variations + self.rulings + EXTRAS + SLACK


def limits(records: Records) -> Limits:
    return Limits.from_env(records.env)


def record_part(records: Records, record_id: UUID) -> tuple[int, bool]:
    """The bytes of the record's own file (header and log), measured once per record version; and whether it is finished."""
    with records.access.reading(record_id) as timeline:  # NotFound for no such record
        meta = timeline.meta
        assert meta is not None
        key = (record_id, meta.version)
        found = _BASES.get(key)
        if found is None:
            found = size(recordfile.export(meta, timeline.entries))
            _BASES.put(key, found)
        return found, bool(meta.finished)


def _part(records: Records, stream_id: UUID) -> int:
    try:
        found: Aggregate = records.repository.get(stream_id)
    except AggregateNotFoundError:
        return 0
    return int(getattr(found, "size", 0))


def measure(records: Records, record_id: UUID, notes: int | None = None, variations: int | None = None,
            rulings: int | None = None) -> Room:
    """The record file's size by parts; a part the caller holds (its stream as it is about to be saved) is given."""
    record, finished = record_part(records, record_id)
    return Room(record,
                _part(records, notes_id(record_id)) if notes is None else notes,
                _part(records, variations_id(record_id)) if variations is None else variations,
                _part(records, rulings_id(record_id)) if rulings is None else rulings,
                limits(records).max_bytes, finished)


@dataclass(frozen=True)
class Over:
    """A limit a change would pass: its name (an environment variable or what a file may carry), the most
    allowed, the value the change would make, and whether it is the file's bytes (413) or a count (422)."""

    limit: str
    allowed: int
    value: int
    message: str
    bytes: bool = False


def over_limit(over: Over) -> RecordsError:
    """A change refused because the record's (or lesson's) file would pass an import's limit: 413 for its bytes,
    422 for a count, rule `file/limit` with the limit's name, the most allowed and the value, as an import says it."""
    return (TooLarge if over.bytes else Invalid)(over.message, rule="file/limit", limit=over.limit, allowed=over.allowed,
                                                 value=over.value)


def over_bytes(records: Records, record_id: UUID, what: str, **parts: int) -> Over | None:
    """Whether a change would make the record's file more than an import takes (`parts`: the streams as changed)."""
    room = measure(records, record_id, **parts)
    if room.total <= room.allowed:
        return None
    kept = "" if room.finished else " (its game still on: its own part counted with room for the rest of it)"
    return Over(BYTES, room.allowed, room.total, f"{what} would make the record's file {room.total} bytes, more than "
                f"this service imports ({room.allowed}, {BYTES}){kept}: an export it could not import again", bytes=True)


def over_count(value: int, allowed: int, limit: str, what: str) -> Over | None:
    """Whether a change would give a file more of something than an import takes."""
    if value <= allowed:
        return None
    return Over(limit, allowed, value, f"{what} would be {value}, more than this service imports ({allowed}, "
                f"{limit}): an export it could not import again")


def over_entries(records: Records, value: int, what: str) -> Over | None:
    return over_count(value, limits(records).max_entries, ENTRIES, what)


def own_bytes(records: Records, record_id: UUID, version: int, added: int) -> tuple[int, Over | None]:
    """A command's entry (`added`: its bytes as the export writes it) against the record's own part, which is
    read once and then grown entry by entry (`keep_own`); its extras are not read here: a record in progress
    keeps `RESERVE` free for its game instead. Returns the part's new size, and the limit passed if one is."""
    found = _BASES.get((record_id, version))
    if found is None:
        found, _ = record_part(records, record_id)
    grown = found + added
    allowed = limits(records).max_bytes
    total = grown + EXTRAS + SLACK
    if total <= allowed:
        return grown, None
    return grown, Over(BYTES, allowed, total, f"this command would make the record's file {total} bytes, more than "
                       f"this service imports ({allowed}, {BYTES}): an export it could not import again", bytes=True)


def keep_own(record_id: UUID, version: int, value: int) -> None:
    """The record's own part at a version, as `own_bytes` grew it (not after its game finished: the export
    then also reveals the seed and the scores, so that version is measured again)."""
    _BASES.put((record_id, version), value)
