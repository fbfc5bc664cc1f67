"""Lessons: chapters of finished records a class follows live, and prediction pauses (issue 14).

A lesson is a stream of its own (aggregate `Lesson`) in the records' store. The teacher holds
a key made at creation (handed out once, stored hashed); students need none: the lesson's
link is the invitation, and what they can do without a key is read, follow and answer.

Presenter mode: the teacher's chapter, step and drawn shapes are events (`Presented`), and
each change is handed to `publish` (api/live.py: SSE through Redis or in-process) with the
lesson's version as its `seq`, so a student who missed messages can tell and read the lesson
again. Prediction pause: at the presented step, the deciding seat's view and legal commands
are the question; students answer with one of them; the teacher sees the tally, then reveals
the command played at that step. The question shows only that seat's view: the record is
finished and public, but the pause asks what that seat knew then.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain.kernel import RuleViolation, SeededChance
from domain.records import room
from domain.records.access import token_hash
from domain.records.annotations import Annotations, board_of, checked_shapes
from domain.records.errors import Conflict, Invalid, NotFound, TooLarge, Unauthorized, WrongKey
from domain.records.readmodels_teaching import (
    Answered,
    Chapter,
    Choice,
    LessonOutline,
    LessonView,
    Presenter,
    Question,
    Revealed,
    Tally,
    TallyChoice,
)
from domain.records.room import over_limit
from domain.records.variations import Variations, command_said, command_words, sent_command

if TYPE_CHECKING:
    from domain.records.application import Records

Publish = Callable[[str, dict[str, Any]], None]
"""(lesson id, message) -> None: how a lesson's live changes reach its students (api/live.py)."""

MAX_TITLE = 200
MAX_INTRODUCTION = 8_000
MAX_QUESTION = 2_000
MAX_STUDENT = 40
MAX_RECORDS = 32  # records one lesson file may carry (lessonfile.py): a lesson's chapters use at most these
MAX_CHAPTERS = 256  # chapters one lesson file may carry
RECORDS = "records per lesson file"
CHAPTERS = "chapters per lesson file"
CHAPTER_FIELDS = ("title", "introduction", "record_id", "line", "from_step", "to_step")
MAIN = "main"
STRIPES = 64
RETRIES = 50

T = TypeVar("T")
log = logging.getLogger("cronaca.lessons")


class Lesson(Aggregate):
    """One lesson: its chapters in order, where the presenter stands, and its prediction pauses."""

    @event("Created")
    def __init__(self, title: str, introduction: str, teacher_hash: str) -> None:
        self.title = title
        self.introduction = introduction
        self.teacher_hash = teacher_hash
        self.chapters: list[dict[str, Any]] = []
        self.presenter: dict[str, Any] | None = None
        self.pauses: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, dict[str, dict[str, Any]]] = {}  # pause id -> student -> command (the latest)
        self.open_pause: str | None = None

    @event("ChapterAdded")
    def add_chapter(self, chapter: dict[str, Any]) -> None:
        self.chapters.append(dict(chapter))

    @event("ChapterEdited")
    def edit_chapter(self, chapter_id: str, changes: dict[str, Any]) -> None:
        for chapter in self.chapters:
            if chapter["id"] == chapter_id:
                chapter.update(changes)

    @event("ChapterRemoved")
    def remove_chapter(self, chapter_id: str) -> None:
        self.chapters = [c for c in self.chapters if c["id"] != chapter_id]
        if self.presenter is not None and self.presenter["chapter"] == chapter_id:
            self.presenter = None  # nothing left to follow there

    @event("Ordered")
    def order(self, chapter_ids: list[str]) -> None:
        by_id = {c["id"]: c for c in self.chapters}
        self.chapters = [by_id[i] for i in chapter_ids]

    @event("Presented")
    def present(self, chapter_id: str, step: int, shapes: list[dict[str, Any]]) -> None:
        # the version this event gives the lesson: what students compare to see they missed nothing
        self.presenter = {"chapter": chapter_id, "step": step, "shapes": list(shapes), "seq": self.version + 1}

    @event("PauseOpened")
    def open(self, pause: dict[str, Any]) -> None:
        self.pauses[pause["id"]] = {**pause, "open": True}
        self.answers[pause["id"]] = {}
        self.open_pause = pause["id"]

    @event("Answered")
    def answer(self, pause_id: str, student: str, command: dict[str, Any]) -> None:
        self.answers[pause_id][student] = command

    @event("Revealed")
    def reveal(self, pause_id: str) -> None:
        self.pauses[pause_id]["open"] = False
        if self.open_pause == pause_id:
            self.open_pause = None

    def chapter(self, chapter_id: str) -> dict[str, Any]:
        for chapter in self.chapters:
            if chapter["id"] == chapter_id:
                return chapter
        raise NotFound(f"lesson {self.id} has no chapter {chapter_id!r}", chapters=[c["id"] for c in self.chapters])

    def pause(self, pause_id: str) -> dict[str, Any]:
        found = self.pauses.get(pause_id)
        if found is None:
            raise NotFound(f"lesson {self.id} has no pause {pause_id!r}")
        return found


@dataclass(frozen=True)
class Span:
    """The steps a chapter may cover on one line of a finished record."""

    title: str
    seats: list[str]
    first: int
    last: int


def canonical(command: Mapping[str, Any]) -> str:
    """A command as one string: two spellings of the same command (key order) compare equal."""
    return json.dumps(command, sort_keys=True, separators=(",", ":"))


def words_for(title: str, command: Mapping[str, Any], state: Any = None, names: Sequence[str] = (),
              seat: int | None = None) -> str:
    """A command in its title's words, read in the state it is decided in: the title's sentence as `seat` may
    read it, with the table's notation after it (variations.command_said); the notation alone without a state."""
    if state is None:
        return command_words(title, command, state)
    return command_said(title, command, state, names, seat)


def _text(value: Any, name: str, limit: int, default: str = "") -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise Invalid(f"{name} must be text", rule="lesson/field", field=name)
    if len(value) > limit:
        raise (TooLarge if limit >= MAX_INTRODUCTION else Invalid)(
            f"{name} is {len(value)} characters; at most {limit}", rule="lesson/too-long", field=name, limit=limit)
    return value


def _step(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{name} must be a whole number of steps", rule="lesson/steps", field=name, given=value)
    return value


def _record_id(value: Any) -> UUID:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError as exc:
        raise Invalid(f"record_id {value!r} is not a record id", rule="lesson/record", given=value) from exc


def _line_id(value: Any) -> str | None:
    if value is None or value == MAIN:
        return None
    if not isinstance(value, str):
        raise Invalid("line must be null (the main line) or a variation id", rule="lesson/field", field="line")
    return value


def _same(name: str, value: Any) -> Any:
    """A chapter's record or line as compared: "main" is the main line (None), ids as text."""
    if name == "line":
        return None if value in (None, MAIN) else str(value)
    return str(value).lower() if value is not None else None


class Lessons:
    """Lessons over the records' store: chapters, the presenter, and prediction pauses."""

    def __init__(self, records: Records, variations: Variations, notes: Annotations,
                 publish: Publish | None) -> None:
        self.records = records
        self.variations = variations
        self.notes = notes
        self.publish = publish
        self._stripes = [threading.RLock() for _ in range(STRIPES)]  # changes to one lesson queue here in-process

    # ---- the lesson and its teacher ----------------------------------------------------

    def create(self, title: str, introduction: str = "") -> tuple[LessonView, str]:
        """A new lesson and its teacher key (shown once: only its hash is kept)."""
        title = _text(title, "title", MAX_TITLE).strip()
        if not title:
            raise Invalid("a lesson needs a title", rule="lesson/title")
        key = secrets.token_urlsafe(24)
        lesson = Lesson(title=title, introduction=_text(introduction, "introduction", MAX_INTRODUCTION),
                        teacher_hash=token_hash(key))
        self.records.save(lesson)
        return self._shown(lesson, teacher=True), key

    def get(self, lesson_id: UUID, token: str | None) -> LessonView:
        """The lesson as a student (no key) or its teacher sees it; a key that is not the teacher's is refused."""
        lesson = self._load(lesson_id)
        teacher = token is not None and self._is_teacher(lesson, token)
        if token is not None and not teacher:
            raise WrongKey("this key is not this lesson's teacher key; students need no key")
        return self._shown(lesson, teacher)

    def _shown(self, lesson: Lesson, teacher: bool) -> LessonView:
        pause = self._question(lesson, lesson.open_pause) if lesson.open_pause is not None else None
        return LessonView(str(lesson.id), lesson.title, lesson.introduction, tuple(Chapter.of(c) for c in lesson.chapters),
                          Presenter.of(lesson.presenter) if lesson.presenter is not None else None, pause, teacher)

    def _load(self, lesson_id: UUID | str) -> Lesson:
        try:
            key = lesson_id if isinstance(lesson_id, UUID) else UUID(str(lesson_id))
            found: Aggregate = self.records.repository.get(key)
        except (ValueError, AggregateNotFoundError) as exc:
            raise NotFound(f"no lesson {lesson_id}") from exc
        if not isinstance(found, Lesson):
            raise NotFound(f"no lesson {lesson_id}")
        return found

    @staticmethod
    def _is_teacher(lesson: Lesson, token: str) -> bool:
        return secrets.compare_digest(lesson.teacher_hash, token_hash(token))

    def _teacher(self, lesson: Lesson, token: str | None) -> None:
        if token is None:
            raise Unauthorized("only the lesson's teacher may do this: send the teacher key (Authorization: Bearer <key>)")
        if not self._is_teacher(lesson, token):
            raise WrongKey("this key is not this lesson's teacher key")

    def _serial(self, lesson_id: UUID) -> AbstractContextManager[Any]:
        """The lock that orders one lesson's changes and their messages in this process (the class sees
        seq in order); held around a change and its publishing."""
        return self._stripes[hash(str(lesson_id)) % STRIPES]

    def _change(self, lesson_id: UUID, token: str | None, change: Callable[[Lesson], T],
                teacher: bool = True) -> tuple[Lesson, T]:
        """Apply a change to the latest lesson and save it, again when another request saved first
        (fifty students answering at once). `change` checks against the lesson it is given and raises."""
        with self._serial(lesson_id):  # other processes: the store's version check, retried
            for _ in range(RETRIES):
                lesson = self._load(lesson_id)
                if teacher:
                    self._teacher(lesson, token)
                out = change(lesson)
                try:
                    self.records.save(lesson)
                except IntegrityError:
                    continue
                return lesson, out
        raise Conflict(f"lesson {lesson_id} is changing too fast to update; try again")

    def _publish(self, lesson: Lesson, message: dict[str, Any]) -> None:
        """Hand a live change to the class. The change is saved already: a hub that fails loses only
        the push (students read the lesson again and catch up by its seq), never the change."""
        if self.publish is None:
            return
        try:
            self.publish(str(lesson.id), {**message, "lesson": str(lesson.id), "seq": lesson.version})
        except Exception:
            log.exception("lesson %s: could not publish %s", lesson.id, message.get("type"))

    # ---- chapters ------------------------------------------------------------------------

    def _span(self, record_id: UUID, line: str | None) -> Span:
        """The steps of a finished record's line; a record in progress gets no chapters (409)."""
        with self.records.access.read_meta(record_id) as (timeline, meta):
            if not meta.finished:
                raise Conflict(f"record {record_id} is in progress: a lesson shows only finished records "
                               "(a chapter would show what its seats cannot see)")
            span = Span(meta.title, list(meta.seats), 0, len(timeline.events))
        if line is None and not hasattr(self.variations, "line"):
            return span
        found = self.variations.line(record_id, line)
        return Span(span.title, span.seats, found.first_step, found.last_step)

    def _chapter(self, body: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """A chapter checked whole: `body` over `base` (an edit); the record finished, the steps in its line."""
        if not isinstance(body, Mapping):
            raise Invalid("a chapter is a JSON object", rule="lesson/field")
        unknown = sorted(set(body) - set(CHAPTER_FIELDS))
        if unknown:
            raise Invalid(f"a chapter has no field {unknown[0]!r}", rule="lesson/field", unknown=unknown,
                          allowed=list(CHAPTER_FIELDS))
        base = dict(base or {})
        if base and any(k in body and _same(k, body[k]) != _same(k, base.get(k)) for k in ("record_id", "line")):
            for k in ("from_step", "to_step"):  # another line: its own steps, unless the change names them
                base.pop(k, None)
        merged = {**base, **body}
        if merged.get("record_id") is None:
            raise Invalid("a chapter needs the record_id of a finished record", rule="lesson/record")
        record_id = _record_id(merged["record_id"])
        line = _line_id(merged.get("line"))
        span = self._span(record_id, line)
        first = _step(merged["from_step"], "from_step") if merged.get("from_step") is not None else span.first
        last = _step(merged["to_step"], "to_step") if merged.get("to_step") is not None else span.last
        if not span.first <= first <= last <= span.last:
            where = "the main line" if line is None else f"variation {line}"
            raise Invalid(f"steps {first} to {last} are not inside {where} of record {record_id}, which has steps "
                          f"{span.first} to {span.last} (from_step <= to_step)", rule="lesson/steps",
                          from_step=first, to_step=last, first_step=span.first, last_step=span.last)
        return {"title": _text(merged.get("title"), "title", MAX_TITLE),
                "introduction": _text(merged.get("introduction"), "introduction", MAX_INTRODUCTION),
                "record_id": str(record_id), "line": line, "from_step": first, "to_step": last}

    def add_chapter(self, lesson_id: UUID, token: str | None, body: Mapping[str, Any]) -> Chapter:
        """A chapter at the end of the lesson: a finished record's main line or variation, a step range."""
        self._teacher(self._load(lesson_id), token)  # a stranger learns nothing of the records named
        chapter = {"id": f"c-{secrets.token_hex(6)}", **self._chapter(body)}

        def change(lesson: Lesson) -> None:
            self._within_limits(lesson, [*lesson.chapters, chapter])
            lesson.add_chapter(chapter)

        with self._serial(lesson_id):
            lesson, _ = self._change(lesson_id, token, change)
            self._publish_chapters(lesson)
        return Chapter.of(chapter)

    def edit_chapter(self, lesson_id: UUID, chapter_id: str, token: str | None,
                     changes: Mapping[str, Any]) -> Chapter:
        def change(lesson: Lesson) -> dict[str, Any]:
            current = lesson.chapter(chapter_id)
            checked = self._chapter(changes, {k: v for k, v in current.items() if k != "id"})
            differs = {k: v for k, v in checked.items() if current.get(k) != v}
            if differs:
                self._within_limits(lesson, [{**c, **differs} if c["id"] == chapter_id else c for c in lesson.chapters])
                lesson.edit_chapter(chapter_id=chapter_id, changes=differs)
            return {**current, **differs}

        with self._serial(lesson_id):
            lesson, chapter = self._change(lesson_id, token, change)
            self._publish_chapters(lesson)
        return Chapter.of(chapter)

    def _within_limits(self, lesson: Lesson, chapters: list[dict[str, Any]]) -> None:
        """The lesson's chapters as changed must leave its file importable (lessonfile.import_lesson): at most
        MAX_CHAPTERS chapters on MAX_RECORDS records, and the whole file (each record's file as its annotator key
        exports it, room.py) within CRONACA_MAX_UPLOAD_BYTES, the most one request body brings.

        Checked when a chapter is added or moved to another record: a note or a variation added later to one of
        its records is checked against that record's file alone."""
        used = list(dict.fromkeys(str(c["record_id"]) for c in chapters))
        for over in (room.over_count(len(chapters), MAX_CHAPTERS, CHAPTERS, "the lesson's chapters"),
                     room.over_count(len(used), MAX_RECORDS, RECORDS, "the records the lesson's chapters use")):
            if over is not None:
                raise over_limit(over)
        ref = f"r{MAX_RECORDS}"
        total = room.size({"format": "cronaca-lesson", "version": 1, "title": lesson.title,
                           "introduction": lesson.introduction, "records": [], "chapters": []})
        total += sum(room.measure(self.records, UUID(r)).total + room.item({"ref": ref, "file": {}}) for r in used)
        total += sum(room.item({"title": c.get("title", ""), "introduction": c.get("introduction", ""), "record": ref,
                                "line": c.get("line"), "from_step": c["from_step"], "to_step": c["to_step"]})
                     for c in chapters)
        allowed = room.limits(self.records).max_bytes
        if total > allowed:
            raise over_limit(room.Over(room.BYTES, allowed, total, f"the lesson's file would be {total} bytes with this "
                                       f"chapter, more than this service imports ({allowed}, {room.BYTES}): an export "
                                       "it could not import again", bytes=True))

    def remove_chapter(self, lesson_id: UUID, chapter_id: str, token: str | None) -> None:
        def change(lesson: Lesson) -> None:
            lesson.chapter(chapter_id)
            lesson.remove_chapter(chapter_id=chapter_id)

        with self._serial(lesson_id):
            lesson, _ = self._change(lesson_id, token, change)
            self._publish_chapters(lesson)

    def order(self, lesson_id: UUID, token: str | None, chapter_ids: list[str]) -> LessonView:
        """The chapters in a new order: every chapter named once."""
        def change(lesson: Lesson) -> None:
            known = [c["id"] for c in lesson.chapters]
            if not isinstance(chapter_ids, list) or sorted(map(str, chapter_ids)) != sorted(known):
                raise Invalid("name every chapter of the lesson exactly once", rule="lesson/order",
                              chapters=known, given=chapter_ids)
            lesson.order(chapter_ids=[str(i) for i in chapter_ids])

        with self._serial(lesson_id):
            lesson, _ = self._change(lesson_id, token, change)
            self._publish_chapters(lesson)
        return self._shown(lesson, teacher=True)

    def _publish_chapters(self, lesson: Lesson) -> None:
        self._publish(lesson, {"type": "chapters", "chapters": [dict(c) for c in lesson.chapters],
                               "presenter": dict(lesson.presenter) if lesson.presenter is not None else None})

    # ---- the presenter -------------------------------------------------------------------

    def present(self, lesson_id: UUID, token: str | None, chapter_id: str, step: int,
                shapes: list[Any] | None = None) -> Presenter:
        """Move the class to a chapter's step, with the teacher's shapes drawn on the board."""
        step = _step(step, "step")

        def change(lesson: Lesson) -> dict[str, Any]:
            chapter = lesson.chapter(chapter_id)
            if not chapter["from_step"] <= step <= chapter["to_step"]:
                raise Invalid(f"chapter {chapter_id} covers steps {chapter['from_step']} to {chapter['to_step']}, "
                              f"not {step}", rule="lesson/steps", step=step, from_step=chapter["from_step"],
                              to_step=chapter["to_step"])
            lesson.present(chapter_id=chapter_id, step=step, shapes=self._shapes(UUID(chapter["record_id"]), shapes))
            assert lesson.presenter is not None
            return dict(lesson.presenter)

        with self._serial(lesson_id):
            lesson, presenter = self._change(lesson_id, token, change)
            self._publish(lesson, {"type": "present", **presenter})
        return Presenter.of(presenter)

    def _shapes(self, record_id: UUID, shapes: Any) -> list[dict[str, Any]]:
        """The presenter's shapes, checked exactly as a note's are (annotations.py): arrows, highlights
        and labels on the board's places, spelt as the notation spells them."""
        if shapes is None:
            return []
        return checked_shapes(shapes, board_of(self.records, record_id))  # one rule set for every shape drawn

    # ---- prediction pauses -----------------------------------------------------------------

    def _position(self, record_id: UUID, line: str | None, step: int) -> tuple[Any, Any, Any, dict[str, Any] | None]:
        """(game, meta, state, the command played from that step or None) on a line of a record."""
        with self.records.access.read_meta(record_id) as (timeline, meta):
            game = timeline.game
            if line is None:
                state = timeline.state_at(step)
                played = None
                for k, start in enumerate(meta.entry_starts):
                    if k and start == step:
                        played = timeline.entries[k]["command"]
                return game, meta, state, played
        vid = UUID(line)
        state = self.variations.state_at(vid, step)
        start = self.variations.summary(vid).from_step
        played = None
        for entry in self.variations.entries(vid):
            if start == step:
                played = entry["command"]
                break
            start += len(entry["events"])
        return game, meta, state, played

    def open_pause(self, lesson_id: UUID, token: str | None, seat: int, question: str = "") -> Question:
        """Stop the class at the presented step and ask the seat deciding there what it would do."""
        lesson = self._load(lesson_id)
        self._teacher(lesson, token)
        if lesson.open_pause is not None:
            raise Conflict(f"pause {lesson.open_pause} is still open: reveal it before asking again", pause=lesson.open_pause)
        if lesson.presenter is None:
            raise Invalid("nothing is presented yet: present a chapter's step, then pause there", rule="lesson/pause-step")
        question = _text(question, "question", MAX_QUESTION)
        chapter = lesson.chapter(lesson.presenter["chapter"])
        step = int(lesson.presenter["step"])
        record_id, line = UUID(chapter["record_id"]), chapter["line"]
        game, meta, state, played = self._position(record_id, line, step)
        pending = game.pending(state)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(meta.seats):
            raise Invalid(f"seat must be one of 0 to {len(meta.seats) - 1}", rule="lesson/pause-seat", seat=seat)
        if pending.seat != seat:
            deciding = "nobody decides" if pending.seat is None else f"{meta.seats[pending.seat]} (seat {pending.seat}) decides"
            raise Invalid(f"at step {step} {deciding} ({pending.kind}), not {meta.seats[seat]} (seat {seat})",
                          rule="lesson/pause-seat", step=step, seat=seat, pending_seat=pending.seat, kind=pending.kind)
        if played is None:
            raise Invalid(f"no command was played from step {step} on this line, so there is no move to reveal",
                          rule="lesson/pause-step", step=step)
        choices = [c.to_json() for c in game.legal(state)]
        pause = {"id": f"p-{secrets.token_hex(6)}", "chapter": chapter["id"], "record_id": str(record_id), "line": line,
                 "step": step, "seat": seat, "seat_name": meta.seats[seat],
                 "question": question or f"What would you do as {meta.seats[seat]}?",
                 "pending": pending.to_json(),
                 "choices": [{"command": c, "said": words_for(meta.title, c, state, meta.seats, seat)} for c in choices]}

        def change(lesson: Lesson) -> None:
            if lesson.open_pause is not None:
                raise Conflict(f"pause {lesson.open_pause} is still open: reveal it before asking again",
                               pause=lesson.open_pause)
            if lesson.presenter is None or (lesson.presenter["chapter"], lesson.presenter["step"]) != (chapter["id"], step):
                raise Conflict("the presenter moved while the pause was being opened; pause again")
            lesson.open(pause=pause)

        with self._serial(lesson_id):
            lesson, _ = self._change(lesson_id, token, change)
            shown = self._question(lesson, pause["id"])
            self._publish(lesson, {"type": "pause", "pause": shown.to_json()})
        return shown

    def question(self, lesson_id: UUID, pause_id: str) -> Question:
        """What students see of a pause: the seat's own view, its pending decision and its choices."""
        lesson = self._load(lesson_id)
        return self._question(lesson, pause_id)

    def _question(self, lesson: Lesson, pause_id: str) -> Question:
        pause = lesson.pause(pause_id)
        game, _, state, played = self._position(UUID(pause["record_id"]), pause["line"], pause["step"])
        return Question(pause["id"], pause["chapter"], pause["step"], pause["seat"], pause["seat_name"], pause["question"],
                        pause["open"], game.view(state, pause["seat"]),  # that seat's own view: never the all-seeing one
                        pause["pending"], tuple(Choice(dict(c["command"]), c["said"]) for c in pause["choices"]),
                        len(lesson.answers[pause_id]), None if pause["open"] else self._played(pause, played, state))

    def pause_board(self, lesson_id: UUID, pause_id: str, draw: Callable[..., str]) -> bytes:
        """The board of a pause as the asked seat saw it then: drawn from that seat's own view, never the
        finished record's all-seeing one (a war disc or a hidden purse would give the answer away)."""
        lesson = self._load(lesson_id)
        pause = lesson.pause(pause_id)
        record_id, line, step, seat = UUID(pause["record_id"]), pause["line"], int(pause["step"]), int(pause["seat"])
        game, meta, state, _ = self._position(record_id, line, step)
        previous = self._position(record_id, line, step - 1)[2] if step > 0 else None
        edition = self.records.edition(meta.title, meta.edition, meta.edition_file)
        before = game.view(previous, seat) if previous is not None else None
        return draw(meta.title, game.view(state, seat), before, edition, list(meta.seats)).encode()

    def _played(self, pause: Mapping[str, Any], command: Mapping[str, Any] | None, state: Any) -> Choice | None:
        """The command played from the pause's step, in the same words as its choice."""
        if command is None:
            return None
        key = canonical(command)
        for choice in pause["choices"]:
            if canonical(choice["command"]) == key:  # spelt as its choice, so a page can match them as they are
                return Choice(dict(choice["command"]), choice["said"])
        meta = self.records.access.meta(UUID(pause["record_id"]))  # not a choice: the rules read differently now
        return Choice(dict(command), words_for(meta.title, command, state, meta.seats, pause["seat"]))

    def answer(self, lesson_id: UUID, pause_id: str, student: str, command: Mapping[str, Any]) -> Answered:
        """A student's pick (a later one replaces it): one of the seat's legal commands at that step."""
        if not isinstance(student, str) or not 0 < len(student.strip()) <= MAX_STUDENT:
            raise Invalid(f"student must be a name of 1 to {MAX_STUDENT} characters", rule="lesson/student")
        student = student.strip()
        lesson = self._load(lesson_id)
        pause = lesson.pause(pause_id)
        if not pause["open"]:
            raise Conflict(f"pause {pause_id} is closed: the move was revealed", pause=pause_id)
        game, _, state, _ = self._position(UUID(pause["record_id"]), pause["line"], pause["step"])
        parsed = sent_command(game, command)
        given = parsed.to_json()
        if canonical(given) not in {canonical(c["command"]) for c in pause["choices"]}:
            raise self._illegal(game, state, parsed, pause)

        def change(lesson: Lesson) -> int:
            if not lesson.pause(pause_id)["open"]:
                raise Conflict(f"pause {pause_id} is closed: the move was revealed", pause=pause_id)
            lesson.answer(pause_id=pause_id, student=student, command=given)
            return len(lesson.answers[pause_id])

        with self._serial(lesson_id):
            lesson, count = self._change(lesson_id, None, change, teacher=False)
            self._publish(lesson, {"type": "answers", "pause": pause_id, "count": count})
        return Answered(pause_id, student, given,
                        next(c["said"] for c in pause["choices"] if canonical(c["command"]) == canonical(given)), count)

    @staticmethod
    def _illegal(game: Any, state: Any, parsed: Any, pause: Mapping[str, Any]) -> Invalid:
        """Why an answer is not one of the choices: the rule the engine names, when it names one."""
        facts: dict[str, Any] = {"rule": "lesson/answer-illegal", "seat": pause["seat"], "step": pause["step"]}
        try:
            game.decide(state, parsed, SeededChance("lesson/answer-check"))
        except RuleViolation as exc:
            shown = exc.to_json(pause["seat"])  # as that seat may read it
            facts["violation"] = {"rule": exc.rule, "message": shown["message"]}
        except Exception:  # noqa: BLE001  (the engine's reason is a courtesy; the refusal stands without it)
            pass
        reason = f" ({facts['violation']['message']})" if "violation" in facts else ""
        return Invalid(f"that is not one of {pause['seat_name']}'s legal commands at step {pause['step']}{reason}", **facts)

    def tally(self, lesson_id: UUID, pause_id: str, token: str | None) -> Tally:
        """For the teacher: how many picked each choice, and who."""
        lesson = self._load(lesson_id)
        self._teacher(lesson, token)
        return self._tally(lesson, pause_id)

    @staticmethod
    def _tally(lesson: Lesson, pause_id: str) -> Tally:
        pause = lesson.pause(pause_id)
        answers = lesson.answers[pause_id]
        choices = []
        for choice in pause["choices"]:
            key = canonical(choice["command"])
            students = [s for s, c in answers.items() if canonical(c) == key]
            choices.append(TallyChoice(dict(choice["command"]), choice["said"], len(students), students))
        return Tally(len(answers), tuple(choices))

    def reveal(self, lesson_id: UUID, pause_id: str, token: str | None) -> Revealed:
        """Close the pause and show the command played at that step, with the tally."""
        def change(lesson: Lesson) -> None:
            if not lesson.pause(pause_id)["open"]:
                raise Conflict(f"pause {pause_id} was revealed already", pause=pause_id)
            lesson.reveal(pause_id=pause_id)

        with self._serial(lesson_id):
            lesson, _ = self._change(lesson_id, token, change)
            pause = lesson.pause(pause_id)
            _, _, state, command = self._position(UUID(pause["record_id"]), pause["line"], pause["step"])
            out = Revealed(self._played(pause, command, state), self._tally(lesson, pause_id))
            played = out.played.to_json() if out.played is not None else None
            # the class sees counts, never who picked what
            self._publish(lesson, {"type": "reveal", "pause": pause_id, "played": played, "tally": out.tally.counted()})
        return out

    # ---- the lesson file ----------------------------------------------------------------

    def structure(self, lesson_id: UUID) -> LessonOutline:
        """What a lesson file keeps of the lesson: its title, introduction and chapters in order."""
        lesson = self._load(lesson_id)
        return LessonOutline(lesson.title, lesson.introduction, tuple(Chapter.of(c) for c in lesson.chapters))

    def rebuild(self, structure: Mapping[str, Any], record_map: Mapping[str, Any],
                line_map: Mapping[str, Any] | None) -> tuple[LessonView, str]:
        """A new lesson from a file's structure, its records and variations renamed through the maps
        (old id or file ref -> new id); every chapter is checked before anything is saved."""
        line_map = line_map or {}
        title = _text(structure.get("title"), "title", MAX_TITLE).strip()
        if not title:
            raise Invalid("a lesson needs a title", rule="lesson/title")
        introduction = _text(structure.get("introduction"), "introduction", MAX_INTRODUCTION)
        given: Sequence[Any] = structure.get("chapters") or []
        if not isinstance(given, list):
            raise Invalid("chapters must be a list", rule="lesson/field", field="chapters")
        chapters = []
        for k, raw in enumerate(given):
            if not isinstance(raw, Mapping):
                raise Invalid(f"chapter {k} must be an object", rule="lesson/field", chapter=k)
            old = raw.get("record_id", raw.get("record"))
            if str(old) not in record_map:
                raise Invalid(f"chapter {k} names record {old!r}, which the file does not hold", rule="lesson/record",
                              chapter=k, record=old)
            line = raw.get("line")
            if line not in (None, MAIN) and str(line) not in line_map:
                raise Invalid(f"chapter {k} names variation {line!r}, which the file does not hold", rule="lesson/record",
                              chapter=k, line=line)
            body = {name: raw.get(name) for name in CHAPTER_FIELDS if name in raw}
            body["record_id"] = str(record_map[str(old)])
            body["line"] = None if line in (None, MAIN) else str(line_map[str(line)])
            try:
                chapters.append({"id": f"c-{secrets.token_hex(6)}", **self._chapter(body)})
            except Invalid as exc:
                raise type(exc)(f"chapter {k}: {exc.message}", **{**exc.facts, "chapter": k}) from exc
        key = secrets.token_urlsafe(24)
        lesson = Lesson(title=title, introduction=introduction, teacher_hash=token_hash(key))
        for chapter in chapters:
            lesson.add_chapter(chapter=chapter)
        self.records.save(lesson)
        return self._shown(lesson, teacher=True), key
