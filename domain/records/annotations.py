"""Annotations on a record's steps: comments, glyphs and shapes on the board (issue 14, spec section 2).

One `Notes` stream per record, beside the game's stream and never in it: `Opened`, then one
`Annotated` per note, `Edited` and `Deleted` as they happen, so the history of a lesson is the
stream itself (a deleted note is kept there, only no longer listed). Its id is derived from the
record's, so every process finds it without an index.

Who may write: the record's annotator key, anything; a seat's token, its own private notes only
(their audience is that seat). Who may read: the public sees notes for everyone, a seat those and
its own seat's, the annotator all of them (domain/records/teaching.py says who a token is).

A note's text is a small Markdown subset rendered by markdown-it-py with raw HTML off, so a
`<script>` a student pastes is shown as text, and only http(s)/mailto links survive.
"""

from __future__ import annotations

import builtins
import copy
import difflib
import importlib
import re
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.domain import event
from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import Edition
from domain.records import recordfile, room
from domain.records.access import ANNOTATOR, PUBLIC, SEAT, Who
from domain.records.aggregates import Chained
from domain.records.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RecordsError,
    TooLarge,
    Unauthorized,
)
from domain.records.kept import Kept
from domain.records.markdown import render
from domain.records.readmodels_teaching import Note, NoteList
from domain.records.room import over_limit

if TYPE_CHECKING:
    from domain.records.application import Records
    from domain.records.variations import Variations

ALL = "all"  # `list(line=ALL)`: the notes of every line
MAIN = "main"

MAX_TEXT = 8_000
MAX_SHAPES = 64
MAX_LABEL = 24
MAX_AUTHOR = 80
BRUSHES = ("green", "red", "blue", "yellow")
GLYPHS = ("!", "?", "!!", "??", "!?", "?!")
SHAPE_KEYS = {"arrow": ("from", "to"), "highlight": ("at",), "label": ("at", "text")}
FIELDS = ("line", "step", "audience", "author", "text", "shapes", "glyph")
KEPT = 512  # records whose notes are kept read per process (_get)
NOTE_ID = re.compile(r"n-[0-9A-Za-z_-]{1,40}")

T = TypeVar("T")


notes_id = room.notes_id  # the id of a record's notes stream: derived, so any process finds it


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Notes(Chained):
    """Every note of one record, on any of its lines; the stream keeps each version of each (hash-chained)."""

    @event("Opened")
    def __init__(self, id: UUID, record_id: str, chain: str | None = None,  # noqa: A002  (the library's name)
                 chain_key: str | None = None) -> None:
        self._chained(chain, chain_key)
        self.record_id = record_id
        self.notes: dict[str, dict[str, Any]] = {}  # live notes by id, in the order they were made
        self.size = 0  # the bytes the live notes take in the record file, as exported (room.py)

    @event("Annotated")
    def annotate(self, note: dict[str, Any], chain: str | None = None) -> None:
        self._chained(chain)
        self.notes[note["id"]] = dict(note)
        self.size += room.item(shown(note).to_json())

    @event("Edited")
    def edit(self, note_id: str, changes: dict[str, Any], at: str, chain: str | None = None) -> None:
        self._chained(chain)
        before = self.notes[note_id]
        self.notes[note_id] = {**before, **changes, "edited": at}
        self.size += room.item(shown(self.notes[note_id]).to_json()) - room.item(shown(before).to_json())

    @event("Deleted")
    def delete(self, note_id: str, at: str, chain: str | None = None) -> None:
        self._chained(chain)
        self.size -= room.item(shown(self.notes.pop(note_id)).to_json())


# ---- the board's places ----------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _places_of(title: str, content_hash: str, edition: Edition) -> dict[str, str]:
    """lower-case name -> canonical name of every place of a title's board (its notation's `places`)."""
    module = catalog.TITLES.get(title)
    try:
        places = importlib.import_module(f"{module}.notation").places if module else None
    except (ModuleNotFoundError, AttributeError):
        places = None
    return {p.lower(): p for p in (places(edition) if places is not None else ())}


def places_of(title: str, edition: Edition) -> dict[str, str]:
    return _places_of(title, edition.content_hash, edition)


@dataclass(frozen=True)
class Board:
    """What checking a note needs to know of its record."""

    title: str
    seats: list[str]
    places: dict[str, str]
    last_step: int  # the main line's


@dataclass(frozen=True)
class Span:
    """A line a note may sit on, and its steps."""

    line: str | None
    first: int
    last: int

    @property
    def name(self) -> str:
        return "the main line" if self.line is None else f"variation {self.line}"


def _reader(whom: Who) -> str:
    return ANNOTATOR if whom.kind == ANNOTATOR else f"seat:{whom.seat}" if whom.kind == SEAT else PUBLIC


def sees(whom: Who, note: Mapping[str, Any]) -> bool:
    """The public sees notes for everyone; a seat also its own seat's; the annotator every note."""
    return whom.annotator or note["audience"] is None or (whom.kind == SEAT and note["audience"] == whom.seat)


def _order(note: Mapping[str, Any]) -> tuple[Any, ...]:
    return (note["line"] is not None, note["line"] or "", note["step"], note["created"])


def shown(note: Mapping[str, Any]) -> Note:
    """A note as the API shows it: the stored fields and the rendered text."""
    return Note(note["id"], note["line"], note["step"], note["audience"], note["author"], note["by"], note["text"],
                render(note["text"]), [dict(s) for s in note["shapes"]], note["glyph"], note["created"], note["edited"])


class Annotations:
    """Create, list, edit and delete notes; export and restore them whole."""

    def __init__(self, records: Records, variations: Variations | None) -> None:
        self.records = records
        self.variations = variations
        self._kept: Kept[Notes] = Kept(records, KEPT, "notes")  # records' notes as last read, by stream id

    # ---- reading ------------------------------------------------------------------------------

    def list(self, record_id: UUID, token: str | None, line: str | None = ALL) -> NoteList:
        """The notes this reader may see, on one line or all of them, in (line, step, made) order."""
        whom = self.records.access.who(record_id, token)
        wanted: Callable[[Mapping[str, Any]], bool]
        if line == ALL:
            wanted = lambda note: True  # noqa: E731
        else:
            span = self._span(record_id, line, board_of(self.records, record_id))
            wanted = lambda note: note["line"] == span.line  # noqa: E731
        found = self._get(record_id)
        notes = [] if found is None else [n for n in found.notes.values() if wanted(n) and sees(whom, n)]
        return NoteList(tuple(shown(n) for n in sorted(notes, key=_order)), _reader(whom), whom.kind != PUBLIC)

    def all_notes(self, record_id: UUID) -> builtins.list[dict[str, Any]]:  # `list` here is the method above
        """Every live note, whoever it is for, in the record file's shape: what the annotator's export and a
        lesson file carry (no reader's answer, so plain JSON values)."""
        board_of(self.records, record_id)  # an unknown record is a 404, not an empty list
        found = self._get(record_id)
        return [] if found is None else [shown(n).to_json() for n in sorted(found.notes.values(), key=_order)]

    # ---- writing ------------------------------------------------------------------------------

    def add(self, record_id: UUID, token: str | None, body: Mapping[str, Any]) -> Note:
        """A new note, checked whole before anything is stored."""
        whom = self._writer(record_id, token)
        board = board_of(self.records, record_id)
        fields = self._fields(record_id, board, _mapping(body, "the note"), whom, None)
        at = now()
        by = ANNOTATOR if whom.annotator else f"seat:{whom.seat}"
        default_author = ANNOTATOR if whom.annotator else board.seats[whom.seat or 0]
        note = {"id": f"n-{secrets.token_hex(6)}", **fields, "author": fields.get("author") or default_author, "by": by,
                "created": at, "edited": None}
        self._change(record_id, lambda notes: notes.annotate(note=note))
        return shown(note)

    def edit(self, record_id: UUID, note_id: str, token: str | None, changes: Mapping[str, Any]) -> Note:
        """Change some fields of a note; the note is checked whole again, and the stream keeps the old version."""
        whom = self._writer(record_id, token)
        board = board_of(self.records, record_id)
        changes = _mapping(changes, "the changes")

        def change(notes: Notes) -> dict[str, Any]:
            note = self._note(notes, note_id, whom)
            fields = self._fields(record_id, board, changes, whom, note)
            if "author" in fields and not fields["author"]:
                fields["author"] = note["author"]
            changed = {k: v for k, v in fields.items() if note.get(k) != v}
            if changed:
                notes.edit(note_id=note_id, changes=changed, at=now())
            return notes.notes[note_id]

        return shown(self._change(record_id, change))

    def delete(self, record_id: UUID, note_id: str, token: str | None) -> None:
        """Take a note off the list; its versions stay in the stream."""
        whom = self._writer(record_id, token)

        def change(notes: Notes) -> None:
            self._note(notes, note_id, whom)
            notes.delete(note_id=note_id, at=now())

        self._change(record_id, change)

    def restore(self, record_id: UUID, notes: Iterable[Mapping[str, Any]], line_map: Mapping[str, str] | None = None) -> None:
        """An import's notes on the new record: each checked as `add` checks it, ids and authors kept,
        variation ids renamed through `line_map` (old -> new); all saved at once, or none."""
        board = board_of(self.records, record_id)
        line_map = dict(line_map or {})
        made: list[dict[str, Any]] = []
        seen: set[str] = set()
        for i, given in enumerate(notes):
            try:
                made.append(self._restored(record_id, board, given, line_map, seen))
            except RecordsError as exc:
                ident = given.get("id") if isinstance(given, Mapping) else None
                where = f"note {i}" + (f" ({ident})" if isinstance(ident, str) else "")
                raise type(exc)(f"{where}: {exc.message}", **{**exc.facts, "note": i}) from exc

        def change(stream: Notes) -> None:
            clash = sorted(seen & set(stream.notes))
            if clash:
                raise Conflict(f"record {record_id} already has notes {', '.join(clash)}", notes=clash)
            for note in made:
                stream.annotate(note=note)

        if made:
            self._change(record_id, change)

    # ---- checks -------------------------------------------------------------------------------

    def _restored(self, record_id: UUID, board: Board, given: Any, line_map: Mapping[str, str],
                  seen: set[str]) -> dict[str, Any]:
        given = _mapping(given, "a note")
        ident = given.get("id")
        if not isinstance(ident, str) or not NOTE_ID.fullmatch(ident):
            raise Invalid(f"a note's id is written n-<letters or digits>, not {ident!r}", rule="annotation/id")
        if ident in seen:
            raise Invalid(f"two notes have the id {ident}", rule="annotation/id", id=ident)
        seen.add(ident)
        by = given.get("by", ANNOTATOR)
        whom = Who(ANNOTATOR)
        if by != ANNOTATOR:
            found = re.fullmatch(r"seat:(\d+)", by) if isinstance(by, str) else None
            if found is None or int(found.group(1)) >= len(board.seats):
                raise Invalid(f"a note is by \"annotator\" or a seat of this record (seat:0 to seat:{len(board.seats) - 1}), "
                              f"not {by!r}", rule="annotation/by", by=by)
        body = {k: given[k] for k in FIELDS if k in given}
        line = body.get("line")
        if isinstance(line, str) and line in line_map:
            body["line"] = line_map[line]
        fields = self._fields(record_id, board, body, whom, None)
        created = _stamp(given.get("created")) or now()
        return {"id": ident, **fields, "author": fields.get("author") or (ANNOTATOR if by == ANNOTATOR else
                board.seats[int(by.split(":")[1])]), "by": by, "created": created, "edited": _stamp(given.get("edited"))}

    def _writer(self, record_id: UUID, token: str | None) -> Who:
        whom = self.records.access.who(record_id, token)  # NotFound, or Forbidden for a key of another record
        if whom.kind == PUBLIC:
            raise Unauthorized("a note needs the record's annotator key or a seat's token (Authorization: Bearer <key>)")
        return whom

    @staticmethod
    def _note(notes: Notes, note_id: str, whom: Who) -> dict[str, Any]:
        """A live note this writer may change: the annotator any, a seat only its own."""
        note = notes.notes.get(note_id)
        if note is None or not sees(whom, note):
            raise NotFound(f"no note {note_id} on record {notes.record_id}", note=note_id)
        if not whom.annotator and note["by"] != f"seat:{whom.seat}":
            raise Forbidden(f"note {note_id} is {note['by']}'s: seat {whom.seat} may change only its own notes",
                            note=note_id, by=note["by"])
        return note

    def _span(self, record_id: UUID, line: Any, board: Board) -> Span:
        """The line a note names and its steps: the main line (None or "main"), or a variation of this record."""
        if line is None or line == MAIN:
            return Span(None, 0, board.last_step)
        if not isinstance(line, str):
            raise Invalid(f"a note's line is null (the main line) or a variation id, not {line!r}", rule="annotation/line")
        try:
            name = str(UUID(line))
        except ValueError as exc:
            raise NotFound(f"record {record_id} has no line {line!r}", line=line) from exc
        if self.variations is None:
            raise NotFound(f"record {record_id} has no variation {name}", line=name)
        found = self.variations.line(record_id, name)  # NotFound when it is not this record's
        return Span(name, found.first_step, found.last_step)  # a variation's steps continue its parent's: from_step..last

    def _fields(self, record_id: UUID, board: Board, body: Mapping[str, Any], whom: Who,
                note: Mapping[str, Any] | None) -> dict[str, Any]:
        """The fields a body sets, checked and in canonical form; with `note`, a change to it (checked whole)."""
        unknown = sorted(str(k) for k in body if k not in FIELDS)
        if unknown:
            raise Invalid(f"a note has no field {', '.join(unknown)}; it has {', '.join(FIELDS)}",
                          rule="annotation/field", fields=unknown)
        out: dict[str, Any] = {}
        merged = {**(note or {}), **body}
        if note is None or "line" in body or "step" in body:
            span = self._span(record_id, merged.get("line"), board)
            step = merged.get("step")
            if not isinstance(step, int) or isinstance(step, bool) or not span.first <= step <= span.last:
                raise Invalid(f"step {step!r} is not on {span.name}: a note sits on a step from {span.first} to {span.last}",
                              rule="annotation/step", step=step, first=span.first, last=span.last)
            out.update(line=span.line, step=step)
        if note is None or "audience" in body:
            out["audience"] = _audience(body.get("audience"), whom, board)
        if "author" in body or note is None:
            out["author"] = _author(body.get("author"))
        if "text" in body or note is None:
            out["text"] = _text(body.get("text"))
        if "shapes" in body or note is None:
            out["shapes"] = checked_shapes(body.get("shapes"), board)
        if "glyph" in body or note is None:
            glyph = body.get("glyph")
            if glyph is not None and glyph not in GLYPHS:
                raise Invalid(f"a glyph is one of {' '.join(GLYPHS)} or null, not {glyph!r}", rule="annotation/glyph",
                              glyph=glyph, glyphs=list(GLYPHS))
            out["glyph"] = glyph
        final = {**merged, **out}
        if not str(final.get("text") or "").strip() and not final.get("shapes") and final.get("glyph") is None:
            # spaces and line breaks alone show nothing: a note saved by mistake, not one to list
            raise Invalid("a note needs a text, a shape or a glyph: this one has none", rule="annotation/empty")
        return out

    def _within_limits(self, record_id: UUID, notes: Notes, count: int, size: int) -> None:
        """A change that adds notes or bytes must leave the record's file importable (room.py): at most
        recordfile.MAX_ANNOTATIONS notes, and the whole file within CRONACA_MAX_UPLOAD_BYTES."""
        if len(notes.notes) > count:
            over = room.over_count(len(notes.notes), recordfile.MAX_ANNOTATIONS, room.NOTES, "the record's notes")
            if over is not None:
                raise over_limit(over)
        if notes.size > size:
            over = room.over_bytes(self.records, record_id, "this note", notes=notes.size)
            if over is not None:
                raise over_limit(over)

    def _get(self, record_id: UUID) -> Notes | None:
        """The record's notes as stored now, read-only (shared with other readers: never change it)."""
        return self._kept.get(notes_id(record_id))

    def _change(self, record_id: UUID, change: Callable[[Notes], T]) -> T:
        """Apply a change to the record's notes and save it, again when another writer saved first."""
        for _ in range(20):
            found = self._get(record_id)
            notes = copy.deepcopy(found) if found is not None else Notes(id=notes_id(record_id), record_id=str(record_id))
            before = (len(found.notes), found.size) if found is not None else (0, 0)
            result = change(notes)
            if not notes.pending_events:
                return result  # nothing changed: nothing to save
            self._within_limits(record_id, notes, *before)
            try:
                self.records.save(notes)
            except IntegrityError:
                continue
            self._kept.keep(notes)
            return result
        raise Conflict(f"the notes of record {record_id} are changing too fast to update")


def _mapping(body: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise Invalid(f"{what} is a JSON object, not {type(body).__name__}", rule="annotation/field")
    return body


def _stamp(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        return None


def _audience(audience: Any, whom: Who, board: Board) -> int | None:
    if audience is not None and (not isinstance(audience, int) or isinstance(audience, bool)
                                 or not 0 <= audience < len(board.seats)):
        raise Invalid(f"a note's audience is null (everyone) or a seat from 0 to {len(board.seats) - 1}, not {audience!r}",
                      rule="annotation/audience", audience=audience)
    if whom.kind == SEAT:
        if audience is not None and audience != whom.seat:
            raise Forbidden(f"seat {whom.seat}'s token writes notes for seat {whom.seat} only, not for seat {audience}",
                            token_seat=whom.seat, audience=audience)
        return whom.seat
    return audience


def _author(author: Any) -> str:
    if author is None:
        return ""
    if not isinstance(author, str) or len(author.strip()) > MAX_AUTHOR:
        shown = author if not isinstance(author, str) else f"{len(author.strip())} characters"
        raise Invalid(f"a note's author is a name of at most {MAX_AUTHOR} characters, not {shown!r}",
                      rule="annotation/author", limit=MAX_AUTHOR)
    return author.strip()


def _text(text: Any) -> str:
    if text is None:
        return ""
    if not isinstance(text, str):
        raise Invalid(f"a note's text is a string, not {type(text).__name__}", rule="annotation/text")
    if len(text) > MAX_TEXT:
        raise TooLarge(f"a note's text is at most {MAX_TEXT} characters; this one has {len(text)}",
                       rule="annotation/too-long", limit=MAX_TEXT, length=len(text))
    return text


def _place(word: Any, board: Board, where: str) -> str:
    found = board.places.get(word.lower()) if isinstance(word, str) else None
    if found is None:
        name = catalog.game(board.title).name  # the title as people write it, not its id
        near = [board.places[k] for k in difflib.get_close_matches(str(word).lower(), list(board.places), n=3, cutoff=0.5)]
        if board.places:
            message = f"{where}: {word!r} is no place of the {name} board"
        else:
            message = f"{where}: the {name} board has no named places for shapes"
        raise Invalid(message + (f"; did you mean {' or '.join(near)}?" if near else ""), rule="annotation/place",
                      place=word, did_you_mean=near)
    return found


def board_of(records: Records, record_id: UUID) -> Board:
    """What shapes and steps are checked against (a note's, a lesson presenter's): the record's places and its
    last step."""
    with records.access.read_meta(record_id) as (timeline, meta):
        last = len(timeline.events)
    edition = records.edition(meta.title, meta.edition, meta.edition_file)
    return Board(meta.title, list(meta.seats), places_of(meta.title, edition), last)


def checked_shapes(shapes: Any, board: Board) -> list[dict[str, Any]]:
    """Arrows, highlights and labels on the board's named places, each with a brush."""
    if shapes is None:
        return []
    if not isinstance(shapes, list):
        raise Invalid(f"a note's shapes are a list, not {type(shapes).__name__}", rule="annotation/shape")
    if len(shapes) > MAX_SHAPES:
        raise Invalid(f"a note draws at most {MAX_SHAPES} shapes; this one has {len(shapes)}", rule="annotation/shapes",
                      limit=MAX_SHAPES, shapes=len(shapes))
    out = []
    for k, shape in enumerate(shapes):
        where = f"shape {k}"
        kind = shape.get("kind") if isinstance(shape, Mapping) else None
        if kind not in SHAPE_KEYS:
            raise Invalid(f"{where}: a shape is an object whose kind is arrow, highlight or label, not {kind!r}",
                          rule="annotation/shape", shape=k)
        keys = SHAPE_KEYS[kind]
        extra = sorted(str(x) for x in shape if x not in (*keys, "kind", "brush"))
        if extra:
            raise Invalid(f"{where}: a {kind} has {', '.join(keys)} and a brush, not {', '.join(extra)}",
                          rule="annotation/shape", shape=k)
        brush = shape.get("brush") or "green"
        if brush not in BRUSHES:
            raise Invalid(f"{where}: a brush is one of {', '.join(BRUSHES)}, not {brush!r}", rule="annotation/brush",
                          shape=k, brush=brush)
        made: dict[str, Any] = {"kind": kind}
        for key in keys:
            if key == "text":
                label = shape.get("text")
                if not isinstance(label, str) or not 0 < len(label) <= MAX_LABEL:
                    raise Invalid(f"{where}: a label's text is 1 to {MAX_LABEL} characters, not {label!r}",
                                  rule="annotation/label", shape=k)
                made["text"] = label
            else:
                made[key] = _place(shape.get(key), board, where)
        made["brush"] = brush
        out.append(made)
    return out
