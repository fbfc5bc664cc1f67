"""A record's game events as stored rows: the store writes the very bytes the hash chain hashed.

Each game event is one stored `Record.Happened` row (aggregates.py), ~420 of them an import.
The library's way to a row is general: an event object made and applied through the
`@event` decorator's argument binding, then `Mapper.to_stored_event` copying its fields and
encoding them with `JSONTranscoder` (a new encoder pass per row). The hash chain had already
put each game event in its canonical JSON (chain.py) to hash it. So `Record.record` keeps
those bytes on the event it stores (`Encoded`, canonical.py), and `RecordMapper`, the library's extension
point for turning events into rows (`Application.construct_mapper`), splices them into the
row instead of encoding the event a second time: the chain then adds one SHA-256 a game
event to the write path, and a row costs a few string joins.
An import's events come as `CanonicalEvent`s instead: their bytes made straight from the rules'
event objects (`chain.event_bytes`), with no JSON object made of them at all.

A log entry's head (on its first game event's row) goes the same way when the chain hashed it
as it is (`chain.own_head`: no outcome to mark, as most commands): its canonical bytes, already
made for the link, instead of a second encoding by the transcoder.

A row written here decodes to what the library would have written: the same fields in the
same order (`timestamp`, `event`, `entry`, `seat`, `chain`), the timestamp and any other entry
encoded by the library's own transcoder; only the game event's and a hashed head's keys are in
sorted order (their canonical form; the timeline puts a command's `type` first again). Any other
event, or a `Happened` without its bytes, goes the library's way.
"""

from __future__ import annotations

from datetime import datetime
from json.encoder import c_encode_basestring, c_make_encoder  # type: ignore[attr-defined]
from typing import Any

from eventsourcing.persistence import EventStore, JSONTranscoder, Mapper, Recording, StoredEvent
from eventsourcing.utils import get_topic

from domain.records.aggregates import Record
from domain.records.canonical import CanonicalEvent, Encoded
from domain.records.timeline import loads

_HAPPENED: type[Any] = Record.Happened  # type: ignore[attr-defined]  # made by the library's @event decorator
_CARRIED = (Encoded, CanonicalEvent)
"""The forms of a game event that carry their canonical bytes (the row is made from those)."""


class RecordMapper(Mapper):
    """The library's mapper, with a short way for game events that carry their canonical bytes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._happened = _HAPPENED
        self._topic = get_topic(_HAPPENED)
        self._stamp: tuple[datetime | None, bytes] = (None, b"")
        # the transcoder's encoder made once (its `encode` makes a new one per call): a log entry's head is
        # plain JSON, anything else still goes to the transcoder's own `default`
        plain = self.transcoder.encoder if isinstance(self.transcoder, JSONTranscoder) else None
        self._entry_encoder = (c_make_encoder(None, plain.default, c_encode_basestring, None, ":", ",", False, False, True)
                               if plain is not None and c_make_encoder is not None and c_encode_basestring is not None
                               and not plain.ensure_ascii else None)

    def _entry(self, entry: dict[str, Any]) -> bytes:
        """A log entry's head: the bytes the chain hashed when it carries them, else the transcoder's."""
        if type(entry) is Encoded:
            return entry.canonical
        if self._entry_encoder is None:
            return self.transcoder.encode(entry)
        return "".join(self._entry_encoder(entry, 0)).encode()

    def _timestamp(self, stamp: datetime) -> bytes:
        """The transcoder's bytes for a timestamp; the events of one log entry share theirs."""
        last, encoded = self._stamp
        if stamp is not last:
            encoded = self.transcoder.encode(stamp)
            self._stamp = (stamp, encoded)
        return encoded

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        return self.to_stored_events((domain_event,))[0]

    def to_stored_events(self, domain_events: Any) -> list[StoredEvent]:
        """The rows of a save's events, the game events' made in one loop (an import saves ~4,200 a batch) from
        their canonical bytes; any other event, or a `Happened` without its bytes, the library's way."""
        library = super().to_stored_event
        happened, topic, timestamp, entry_bytes, new, carried = (self._happened, self._topic, self._timestamp, self._entry,
                                                                 _new, _CARRIED)
        if getattr(happened, "class_version", 1) > 1:
            return list(map(library, domain_events))
        compress = self.compressor.compress if self.compressor else None
        encrypt = self.cipher.encrypt if self.cipher else None
        rows: list[StoredEvent] = []
        append, join = rows.append, b"".join
        for domain_event in domain_events:
            fields = domain_event.__dict__
            event: Any = fields.get("event") if type(domain_event) is happened else None
            if type(event) not in carried:
                append(library(domain_event))
                continue
            entry, seat, chain = fields["entry"], fields["seat"], fields["chain"]
            state = join((
                b'{"timestamp":', timestamp(fields["timestamp"]),
                b',"event":', event.canonical,
                b',"entry":', b"null" if entry is None else entry_bytes(entry),
                b',"seat":', b"null" if seat is None else b"%d" % seat,
                b',"chain":', b"null" if chain is None else b'"%s"' % chain.encode(),
                b"}"))
            if compress is not None:
                state = compress(state)
            if encrypt is not None:
                state = encrypt(state)
            made = new(StoredEvent)
            made.__dict__.update(originator_id=fields["originator_id"], originator_version=fields["originator_version"],
                                 topic=topic, state=state)
            append(made)
        return rows


def stored_event(originator_id: Any, originator_version: int, topic: str, state: bytes) -> StoredEvent:
    """`StoredEvent(...)` as its frozen dataclass __init__ makes it (the fields in its __dict__, in their order),
    without that __init__'s object.__setattr__ per field: one a row, ~420 rows an import."""
    made = _new(StoredEvent)
    made.__dict__.update(originator_id=originator_id, originator_version=originator_version, topic=topic, state=state)
    return made


_new = object.__new__


class RecordEventStore(EventStore):
    """The library's event store (`Application.construct_event_store`), its `put` without the recordings.

    The library's `put` makes a `Notification` and a `Recording` of every event it stores, for
    `Application._notify`, which does nothing unless the application is a process application that others
    follow; Records is none (nothing reads a save's recordings: live followers are told by Redis or by
    polling the store, api/live.py). An import's save stored ~4,200 events a batch: making those
    ~8,400 frozen dataclasses, and freeing them, took a twentieth of the batch job's CPU."""

    def put(self, domain_events: Any, **kwargs: Any) -> list[Recording]:
        mapper = self.mapper
        rows = mapper.to_stored_events(domain_events) if isinstance(mapper, RecordMapper) else list(
            map(mapper.to_stored_event, domain_events))
        self.recorder.insert_events(rows, **kwargs)
        return []


class RecordTranscoder(JSONTranscoder):
    """The library's JSON transcoder, reading by orjson (`timeline.loads`: what `json.loads` gives, about five
    times faster on an import's stored file, a JSON string of ~80 KB inside its row) and then giving each
    object, innermost first, to the library's own hook for its registered types (a timestamp, a UUID), as
    `json.JSONDecoder(object_hook=...)` does. Writing is the library's."""

    def decode(self, data: bytes) -> Any:
        return self._revived(loads(data))

    def _revived(self, obj: Any) -> Any:
        if type(obj) is dict:
            for key, value in obj.items():
                if type(value) is dict or type(value) is list:
                    obj[key] = self._revived(value)
            return self._decode_obj(obj)
        if type(obj) is list:
            for k, value in enumerate(obj):
                if type(value) is dict or type(value) is list:
                    obj[k] = self._revived(value)
        return obj
