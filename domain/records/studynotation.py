"""A record's notation with everything a study adds, and back (issue 14, spec section 6).

Written: the record's table notation (docs/notation/) with each note as a `{...}` comment after the
move whose log entry holds its step (`[%step n]` where it is not that move's last step), its glyph
just before it, and each variation as a nested line in parentheses after the turn line it leaves
from. Read back (`extras`): the same notes on the same steps and the same variations, in the record
file's shapes (docs/formats/record-json.md), for the import to recreate on the new record.

A variation's moves are read by the dispute checker itself, never by a second reader: its parent
line up to the branch point is written out as a plain notation file, the variation's own lines
after it, and the whole is checked; whatever the rules refuse is reported at the variation's own
line. The checker of the whole file reads the main line only (the parser keeps variations apart).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain import transcripts
from domain.kernel import Entry
from domain.kernel.contract import fold
from domain.kernel.notation import (
    Comment,
    Markup,
    Move,
    Notation,
    Shape,
    Turn,
    Variation,
    Words,
    _quoted,
    find_seat,
    parse,
    read_seats,
    render,
    render_turns,
    write_comment,
    write_markup,
    write_outcome,
    write_player,
)
from domain.records.errors import Forbidden, Invalid

if TYPE_CHECKING:
    from domain.records.application import Records
    from domain.records.teaching import Teaching

ANNOTATOR = "annotator"
INDENT = "  "  # a variation's lines, one step further in than the line they leave


# ---- writing -----------------------------------------------------------------------------------------


@dataclass
class _Line:
    """A line of the study as written: its entries (the main line's with the setup first), the step after
    each, where it begins, its notes by the entry that holds their step, its variations."""

    ident: str | None
    entries: list[Entry]
    ends: list[int]
    start: int
    state: Any  # the state where the line begins (the main line: before its setup)
    notes: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # entry index (-1: the start) -> notes
    children: list[dict[str, Any]] = field(default_factory=list)


def _ends(entries: Sequence[Entry], start: int) -> list[int]:
    out, step = [], start
    for entry in entries:
        step += len(entry.events)
        out.append(step)
    return out


def _holder(line: _Line, step: int) -> int:
    """The entry of a line whose events hold `step` (-1: a variation's first step, held by none of its own)."""
    if line.ident is not None and step <= line.start:
        return -1
    for k, end in enumerate(line.ends):
        if step <= end:
            return k
    return len(line.ends) - 1


def _branch_index(line: _Line, step: int) -> int:
    """The last entry of a line that ends at or before `step` (-1: none, a variation leaving at its parent's start)."""
    found = -1
    for k, end in enumerate(line.ends):
        if end <= step:
            found = k
    return found


class _Writer:
    """Turns a record, its visible notes and its variations into the study's notation text."""

    def __init__(self, game: Any, words: Words, edition: Any, seats: list[str], entries: list[Entry],
                 notes: list[dict[str, Any]], variations: list[dict[str, Any]]) -> None:
        self.game, self.words, self.edition, self.seats = game, words, edition, seats
        main = _Line(None, entries, _ends(entries, 0), 0, game.begin(edition))
        self.lines: dict[str | None, _Line] = {None: main}
        for variation in variations:  # oldest first: a parent before its children
            parent = self.lines.get(variation["parent"])
            if parent is None:
                continue
            at = _branch_index(parent, variation["from_step"])
            state = fold(game, parent.state, [e for entry in parent.entries[: at + 1] for e in entry.events])
            own = [Entry.from_json(e) for e in variation["entries"]]
            line = _Line(variation["id"], own, _ends(own, variation["from_step"]), variation["from_step"], state)
            self.lines[line.ident] = line
            parent.children.append({**variation, "at": at})
        for note in notes:
            noted = self.lines.get(note["line"])
            if noted is not None:
                noted.notes.setdefault(_holder(noted, note["step"]), []).append(note)

    def text(self, title: str, options: Mapping[str, Any], scores: Mapping[str, Any] | None,
             tags: Mapping[str, str] | None) -> str:
        main = self.lines[None]
        return transcripts.render_log(title, self.edition, main.entries, self.seats, options, scores, tags,
                                      marks=self._marks(main), after=self._after(main))

    def _marks(self, line: _Line) -> Any:
        def marks(first: int, last: int) -> str:
            notes = [n for k in range(first, last + 1) for n in line.notes.get(k, [])]
            return _notes_text(notes, line.ends[last], self.seats) if notes else ""
        return marks

    def _after(self, line: _Line) -> Any:
        def after(first: int, last: int) -> list[str]:
            out: list[str] = []
            for child in line.children:
                at = child["at"]
                if first <= at <= last:
                    out += self._variation(child, line.ends[last] if at >= 0 else line.start)
            return out
        return after

    def _variation(self, child: Mapping[str, Any], line_end: int) -> list[str]:
        """A variation as lines: `(` with its title, author and (when it leaves mid-line) step, the notes
        on its first step on lines of their own, its turn lines (and theirs), `)`."""
        line = self.lines[child["id"]]
        step = line.start if line.start != line_end else None
        markup = write_markup(author=child["author"] or None, step=step)
        head = "(" + (" " + write_comment(child["title"] or "", markup) if child["title"] or markup else "")
        inner = [_notes_text(line.notes.get(-1, []), line.start, self.seats).lstrip()] if line.notes.get(-1) else []
        inner += self._after(line)(-1, -1) if any(c["at"] < 0 for c in line.children) else []
        inner += render_turns(self.game, self.words, line.state, line.entries, self.seats, 0, self._marks(line),
                              self._after(line))
        # where a title's line leaves commands to its end, the reader would add them to a variation that stops mid-turn
        tail = " " + write_comment("", write_markup(step=line.ends[-1])) if self.words.expand and line.entries else ""
        return [head, *(INDENT + row for row in inner), ")" + tail]


def _shape(shape: Mapping[str, Any]) -> Shape:
    kind = shape["kind"]
    brush = shape.get("brush") or "green"
    if kind == "arrow":
        return Shape("arrow", shape["from"], shape["to"], brush=brush)
    if kind == "label":
        return Shape("label", shape["at"], text=shape["text"], brush=brush)
    return Shape("highlight", shape["at"], brush=brush)


def _default_author(note: Mapping[str, Any], seats: Sequence[str]) -> str:
    by = note.get("by") or ANNOTATOR
    if by == ANNOTATOR:
        return ANNOTATOR
    seat = int(str(by).split(":")[1])
    return seats[seat] if 0 <= seat < len(seats) else ANNOTATOR


def _notes_text(notes: Sequence[Mapping[str, Any]], last_step: int, seats: Sequence[str]) -> str:
    """Notes after a move: each its glyph then its comment; a note that is only a glyph is written bare
    when nothing follows it (`war O [B R] ?!`). A lone `?` touches what it follows."""
    out = ""
    for k, note in enumerate(notes):
        audience = note.get("audience")
        by = note.get("by") or ANNOTATOR
        markup = write_markup([_shape(s) for s in note.get("shapes") or []],
                              seats[audience] if audience is not None else None,
                              by != ANNOTATOR and by == f"seat:{audience}",
                              note["author"] if note.get("author") not in (None, _default_author(note, seats)) else None,
                              note["step"] if note["step"] != last_step else None)
        glyph = note.get("glyph")
        if glyph:
            out += glyph if glyph == "?" else " " + glyph
        if note.get("text") or markup or not glyph or k < len(notes) - 1:
            out += " " + write_comment(note.get("text") or "", markup)
    return out


def render_study(records: Records, teaching: Teaching, record_id: UUID, token: str | None) -> str:
    """The record's notation with the notes `token` may read (the annotator key: all of them; a seat's
    token: everyone's and its own seat's; none: everyone's), their glyphs, and every variation."""
    notes = [note.to_json() for note in teaching.notes.list(record_id, token).notes]  # a token of neither kind: 403
    with records.access.reading(record_id) as timeline:
        meta = timeline.meta
        assert meta is not None
        if not meta.finished:
            raise Forbidden("a record's notation is served once the game is over: it holds every draw and card")
        entries = [Entry.from_json(e) for e in timeline.entries]
    tags = {"Mode": meta.mode}
    if meta.origin and meta.origin.get("import"):
        tags["Import"] = str(meta.origin["import"])
    edition = records.edition(meta.title, meta.edition, meta.edition_file)
    variations = []
    for summary in teaching.variations.of_record(record_id):
        exported = teaching.variations.exported(UUID(summary.id))
        variations.append({"id": summary.id, "parent": summary.parent, "from_step": exported["from_step"],
                           "title": exported["title"], "author": exported["author"], "entries": exported["entries"]})
    return study_text(meta.title, edition, entries, list(meta.seats), meta.options, meta.scores, notes, variations, tags)


def study_text(title: str, edition: Any, entries: Sequence[Entry], seats: Sequence[str], options: Mapping[str, Any],
               scores: Mapping[str, Any] | None, notes: Sequence[Mapping[str, Any]],
               variations: Sequence[Mapping[str, Any]], tags: Mapping[str, str] | None = None) -> str:
    """A finished log with notes (as the notes service shows them) and variations (`{"id", "parent",
    "from_step", "title", "author", "entries"}`, parents first) as a study's notation. Pure."""
    game, words = transcripts.game_for(title)
    writer = _Writer(game, words, edition, list(seats), list(entries), [dict(n) for n in notes],
                     [dict(v) for v in variations])
    return writer.text(title, options, scores, tags)


# ---- reading -----------------------------------------------------------------------------------------


@dataclass
class _Read:
    """A line as read back: its ref, the entries the checker gave it, the step after each, and where in
    the file each entry's move stands (source line, the move itself)."""

    ref: str | None
    full: list[Entry]  # the whole log up to this line's end, the setup first
    first: int  # index in `full` of the line's first own entry (the main line: 0)
    start: int  # the step where the line begins
    moves: list[Move | None]  # per own entry: the move it came from
    lines: list[int]  # per own entry: the source line of its move
    ends: list[int] = field(default_factory=list)  # per own entry: the step after it

    def __post_init__(self) -> None:
        self.ends = _ends(self.full, 0)[self.first:]


def _refused(where: str, line: int, finding: Any, **facts: Any) -> Invalid:
    """A finding of the checker on a variation's line, as the import's refusal."""
    message = finding.to_json().get("message")
    said = message.get("$secret", {}).get("value") if isinstance(message, Mapping) else message
    return Invalid(f"{where}: {said}", rule=finding.rule, line=line, **facts)


def _move_text(move: Move) -> str:
    """A move as the checker reads it: verb, words and every outcome (those on `= [..]` lines too), no comments."""
    words = [str(w) if isinstance(w, int) else "?" if w == "?" else _quoted(str(w)) for w in move.words]
    outcomes = [write_outcome(w.values) if w.values is not None else "[?]" for w in move.outcomes]
    return " ".join([move.verb, *words, *outcomes])


class _Reader:
    """Reads a study notation back: the main line's notes, then each variation, depth first."""

    def __init__(self, text: str, entries: list[Entry], title: str) -> None:
        self.text = text
        self.notation: Notation = parse(text)
        self.game, self.words = transcripts.game_for(title)
        self.seats = [name for name, _ in read_seats(self.notation.tag("Seats") or "")]
        self.edition = transcripts.default_edition(self.game, self.notation.tag("Edition"))
        self.entries = entries
        self.notes: list[dict[str, Any]] = []
        self.variations: list[dict[str, Any]] = []

    # -- the main line
    def main(self) -> _Read:
        """The main line as the checker reads it: which move each of the record's entries came from."""
        report = transcripts.check_text(self.text)
        if report.entries is None or report.places is None or len(report.entries) != len(self.entries) or [
                e.command for e in report.entries] != [e.command for e in self.entries]:
            raise Invalid("the notation's main line does not give this record's log: its notes cannot be placed",
                          rule="notation/study")
        by_place: dict[tuple[int, int], list[int]] = {}
        for k, place in enumerate(report.places):
            by_place.setdefault(place, []).append(k)
        moves: list[Move | None] = [None] * len(self.entries)
        for turn in self.notation.turns:
            for move in turn.moves:
                for k in by_place.get((move.line, move.column), []):
                    moves[k] = move
        return _Read(None, list(self.entries), 0, 0, moves, [line for line, _ in report.places])

    # -- notes
    def note(self, comment: Comment, line: _Read, step: int) -> None:
        markup: Markup = comment.markup
        audience = None
        if markup.audience is not None:
            seat = find_seat(markup.audience, self.seats)
            found = [seat] if seat is not None else []
            if not found:
                raise Invalid(f"line {comment.line}: [%for {markup.audience}] names none of the seats "
                              f"({', '.join(self.seats)})", rule="notation/audience", line=comment.line)
            audience = found[0]
        by = f"seat:{audience}" if markup.seat and audience is not None else ANNOTATOR
        author = markup.author if markup.author is not None else (self.seats[audience] if by != ANNOTATOR and
                                                                    audience is not None else ANNOTATOR)
        shapes: list[dict[str, Any]] = []
        for shape in markup.shapes:
            if shape.kind == "arrow":
                shapes.append({"kind": "arrow", "from": shape.at, "to": shape.to, "brush": shape.brush})
            elif shape.kind == "label":
                shapes.append({"kind": "label", "at": shape.at, "text": shape.text, "brush": shape.brush})
            else:
                shapes.append({"kind": "highlight", "at": shape.at, "brush": shape.brush})
        exact = markup.step if markup.step is not None else step
        ident = hashlib.sha256(f"{line.ref}:{comment.line}:{len(self.notes)}:{comment.note}".encode()).hexdigest()[:12]
        self.notes.append({"id": f"n-{ident}", "line": line.ref, "step": exact, "audience": audience, "author": author,
                           "by": by, "text": comment.note, "shapes": shapes, "glyph": comment.glyph})

    def notes_of(self, line: _Read, turns: Sequence[Turn], comments: Sequence[Comment]) -> None:
        """The notes of a line: after each move (its last step), and on lines of their own (the step the
        line has reached there)."""
        last = {id(move): k for k, move in enumerate(line.moves) if move is not None}
        for turn in turns:
            for move in turn.moves:
                if not move.comments:
                    continue
                step = line.ends[last[id(move)]] if id(move) in last else self.reached(line, move.line)
                for comment in move.comments:
                    self.note(comment, line, step)
        for comment in comments:
            self.note(comment, line, self.reached(line, comment.line))

    @staticmethod
    def reached(line: _Read, at: int) -> int:
        """The step a line has reached by source line `at`: after its last entry written before it."""
        found = line.start
        for k, source in enumerate(line.lines):
            if source <= at:
                found = line.ends[k]
        return found

    # -- variations
    def turn_spans(self, full: list[Entry]) -> list[tuple[int, int]]:
        """How the renderer cuts a log into turn lines (entry index ranges)."""
        spans: list[tuple[int, int]] = []

        def cut(first: int, last: int) -> list[str]:
            spans.append((first, last))
            return []  # no line added after the turn

        render(self.game, self.words, self.edition, full, self.seats, after=cut)
        return spans

    def variation(self, found: Variation, parent: _Read, ref: str) -> _Read:
        head = found.head
        step = head.markup.step if head is not None and head.markup.step is not None else self.reached(parent, found.line)
        ends = _ends(parent.full, 0)
        at = max((k for k, end in enumerate(ends) if end == step), default=None)
        where = f"line {found.line}: variation {ref}"
        if at is None or at < parent.first - 1:
            raise Invalid(f"{where} leaves its line at step {step}, where no move of that line ends",
                          rule="variation/step", line=found.line, step=step)
        prefix = parent.full[: at + 1]
        if not found.turns:  # nothing played yet: what the parent's line leaves to its end is not this line's
            return _Read(ref, list(prefix), at + 1, step, [], [])
        # the parent up to the branch point, written plainly; then the variation's own lines
        tags = {name: tag.value for name, tag in self.notation.tags.items() if name != "Result"}
        rows = render(self.game, self.words, self.edition, prefix, self.seats, tags).rstrip("\n").split("\n")
        source: dict[int, int] = {}  # generated line -> source line
        placed: dict[tuple[int, int], Move] = {}
        spans = self.turn_spans(parent.full)
        middle = any(a <= at < b for a, b in spans) and at + 1 < len(parent.full)
        for k, turn in enumerate(found.turns):
            texts = [_move_text(m) for m in turn.moves]
            if k == 0 and middle:
                row = rows[-1] + ", "
                rows.pop()
            else:
                row = f"{write_player(turn.player)}: "
            for move, said in zip(turn.moves, texts, strict=True):
                placed[(len(rows) + 1, len(row) + 1)] = move
                row += said + ", "
            rows.append(row[:-2])
            source[len(rows)] = turn.line
        report = transcripts.check_text("\n".join(rows) + "\n")
        stop = found.tail.markup.step if found.tail is not None else None  # where it stops, when before its line's end
        for finding in sorted(report.findings, key=lambda f: f.line):
            if stop is not None and finding.step is not None and finding.step >= stop:
                continue  # what the last line leaves to its end, which this variation never reaches
            line = source.get(finding.line, found.line)
            raise _refused(f"line {line}: variation {ref}", line, finding, variation=ref, step=finding.step)
        assert report.entries is not None and report.places is not None
        if [e.command for e in report.entries[: at + 1]] != [e.command for e in prefix]:
            raise Invalid(f"{where}: its parent line cannot be read again up to step {step}", rule="notation/study",
                          line=found.line)
        own = report.entries[at + 1:]
        places = report.places[at + 1:]
        if stop is not None:  # it stops there: not what its line leaves to the end
            kept, reached = 0, step
            for entry in own:
                if reached + len(entry.events) > stop:
                    break
                reached += len(entry.events)
                kept += 1
            own, places = own[:kept], places[:kept]
        moves = [placed.get(place) for place in places]
        lines = [source.get(place[0], found.line) for place in places]
        return _Read(ref, [*prefix, *own], at + 1, step, moves, lines)

    def read(self) -> dict[str, Any]:
        found = self.notation
        if not found.variations and not found.comments and not any(m.comments for t in found.turns for m in t.moves):
            return {"annotations": [], "variations": []}  # a plain file: nothing to place, no second check
        main = self.main()
        self.notes_of(main, self.notation.turns, self.notation.comments)
        counter = [0]

        def walk(children: Sequence[Variation], parent: _Read) -> None:
            for child in children:
                counter[0] += 1
                ref = f"v{counter[0]}"
                line = self.variation(child, parent, ref)
                head = child.head
                self.variations.append({
                    "ref": ref, "parent": parent.ref, "from_step": line.start,
                    "title": head.note if head is not None else "",
                    "author": head.markup.author or "" if head is not None else "", "seed": None,
                    "entries": [{**e.to_json(), "chance": "author"} for e in line.full[line.first:]]})
                self.notes_of(line, child.turns, child.comments)
                walk(child.variations, line)

        walk(self.notation.variations, main)
        return {"annotations": self.notes, "variations": self.variations}


def extras(text: str, entries: list[Entry], title: str) -> dict[str, Any]:
    """A study notation's notes and variations, in the record file's shapes: `{"annotations": [notes, each
    on its step of its line (null: the main line, else a variation's ref)], "variations": [{"ref", "parent",
    "from_step", "title", "author", "seed", "entries"}]}`. `entries` is the record the main line made.
    A variation the rules refuse is an Invalid naming its own line."""
    return _Reader(text, entries, title).read()
