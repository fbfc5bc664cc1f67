"""What the teaching services answer: notes, variations and lessons, typed (readmodels.py's kin).

`Records`' teaching services (domain/records/teaching.py) return these instead of dictionaries; each
model's `to_json()` is the API's answer, key for key and in the same order, and the lesson's live messages
carry the same JSON. Views, pending decisions, commands and shapes inside are the titles' own JSON values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.records.markdown import render
from domain.records.readmodels import RecordFile, Step, StoryLine

# ---- notes ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Note:
    """A note on a step of the main line or of a variation, its Markdown made safe HTML."""

    id: str
    line: str | None  # None: the main line; else a variation id
    step: int
    audience: int | None  # None: everyone; a seat: that seat and the annotator
    author: str
    by: str  # "annotator" or "seat:<n>"
    text: str
    html: str
    shapes: list[dict[str, Any]]
    glyph: str | None
    created: str
    edited: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "line": self.line, "step": self.step, "audience": self.audience, "author": self.author,
                "by": self.by, "text": self.text, "html": self.html, "shapes": self.shapes, "glyph": self.glyph,
                "created": self.created, "edited": self.edited}


@dataclass(frozen=True, slots=True)
class NoteList:
    """The notes one reader may see, in (line, step, made) order, and whether that reader may add one."""

    notes: tuple[Note, ...]
    reader: str  # "public", "seat:<n>" or "annotator"
    can_annotate: bool

    def to_json(self) -> dict[str, Any]:
        return {"notes": [note.to_json() for note in self.notes], "reader": self.reader, "can_annotate": self.can_annotate}


# ---- variations ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VariationSummary:
    """A what-if line of a finished record: where it leaves its parent, its moves, whether its game ended."""

    id: str
    record_id: str
    parent: str | None  # None: it leaves the main line; else another variation's id
    from_step: int
    title: str
    author: str
    last_step: int
    moves: int
    finished: bool
    pending: dict[str, Any]
    created: str
    chance: list[str]  # each move's: "drawn" from the variation's seed, or "author" (outcomes given)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "record_id": self.record_id, "parent": self.parent, "from_step": self.from_step,
                "title": self.title, "author": self.author, "last_step": self.last_step, "moves": self.moves,
                "finished": self.finished, "pending": self.pending, "created": self.created, "chance": self.chance}


@dataclass(frozen=True, slots=True)
class LineStep:
    """A step of a variation's line, all-seeing, as a record's step is answered, with the line it is on."""

    step: Step
    line: str

    def to_json(self) -> dict[str, Any]:
        return {**self.step.to_json(), "line": self.line}


@dataclass(frozen=True, slots=True)
class Choice:
    """A legal command and the table's words for it."""

    command: dict[str, Any]
    said: str

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "said": self.said}


@dataclass(frozen=True, slots=True)
class LineLegal:
    """The pending decision at a variation's last step and every legal command for it."""

    step: int
    pending: dict[str, Any]
    commands: tuple[Choice, ...]

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "pending": self.pending, "commands": [c.to_json() for c in self.commands]}


@dataclass(frozen=True, slots=True)
class LineStory:
    """A variation's own moves in words (all-seeing); the parent's are in the parent's story."""

    steps: int
    from_step: int
    lines: tuple[StoryLine, ...]
    line: str
    view_of: str = "all"

    def to_json(self) -> dict[str, Any]:
        return {"steps": self.steps, "from_step": self.from_step, "view_of": self.view_of,
                "lines": [line.to_json() for line in self.lines], "line": self.line}


@dataclass(frozen=True, slots=True)
class LinePlayed:
    """A command played on a variation: the steps and events it made, where its chance came from, what is next."""

    id: str
    steps: tuple[int, int]  # the first and last step it made
    events: list[dict[str, Any]]  # {"step", ...the event's JSON}
    chance: str  # "drawn" or "author"
    pending: dict[str, Any]
    finished: bool
    said: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "steps": list(self.steps), "events": self.events, "chance": self.chance,
                "pending": self.pending, "finished": self.finished, "said": self.said}


# ---- lessons -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chapter:
    """A chapter of a lesson: a step range of a finished record's main line or of one of its variations."""

    id: str
    title: str
    introduction: str
    record_id: str
    line: str | None
    from_step: int
    to_step: int

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Chapter:
        return cls(stored["id"], stored["title"], stored["introduction"], stored["record_id"], stored["line"],
                   stored["from_step"], stored["to_step"])

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "introduction": self.introduction, "record_id": self.record_id,
                "line": self.line, "from_step": self.from_step, "to_step": self.to_step}

    def shown(self) -> dict[str, Any]:
        """As the lesson page reads it: also the introduction as HTML (Markdown, as a note's text)."""
        return {**self.to_json(), "introduction_html": render(self.introduction)}


@dataclass(frozen=True, slots=True)
class Presenter:
    """Where the teacher has the class: a chapter's step, the shapes drawn on it, and the lesson's version then."""

    chapter: str
    step: int
    shapes: list[dict[str, Any]]
    seq: int

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Presenter:
        return cls(stored["chapter"], stored["step"], list(stored["shapes"]), stored["seq"])

    def to_json(self) -> dict[str, Any]:
        return {"chapter": self.chapter, "step": self.step, "shapes": self.shapes, "seq": self.seq}


@dataclass(frozen=True, slots=True)
class TallyChoice:
    """How many students picked one choice, and who."""

    command: dict[str, Any]
    said: str
    count: int
    students: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "said": self.said, "count": self.count, "students": self.students}

    def counted(self) -> dict[str, Any]:
        """What the class sees: the count, never who picked it."""
        return {"command": self.command, "said": self.said, "count": self.count}


@dataclass(frozen=True, slots=True)
class Tally:
    """For the teacher: the answers to a pause, choice by choice."""

    answers: int
    choices: tuple[TallyChoice, ...]

    def to_json(self) -> dict[str, Any]:
        return {"answers": self.answers, "choices": [c.to_json() for c in self.choices]}

    def counted(self) -> dict[str, Any]:
        return {"answers": self.answers, "choices": [c.counted() for c in self.choices]}


@dataclass(frozen=True, slots=True)
class Question:
    """A prediction pause as students see it: the asked seat's own view, its pending decision and choices;
    once revealed, the command played (`played`: None when the line has none); with the teacher key the tally."""

    id: str
    chapter: str
    step: int
    seat: int
    seat_name: str
    question: str
    open: bool
    view: Any
    pending: dict[str, Any]
    choices: tuple[Choice, ...]
    answers: int
    played: Choice | None = None  # once revealed
    tally: Tally | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "chapter": self.chapter, "step": self.step, "seat": self.seat,
                               "seat_name": self.seat_name, "question": self.question, "open": self.open,
                               "view": self.view, "pending": self.pending,
                               "choices": [c.to_json() for c in self.choices], "answers": self.answers}
        if not self.open:
            out["played"] = self.played.to_json() if self.played is not None else None
        if self.tally is not None:
            out["tally"] = self.tally.to_json()
        return out


@dataclass(frozen=True, slots=True)
class LessonView:
    """A lesson as a student (no key) or its teacher sees it: chapters in order, the presenter, an open pause."""

    id: str
    title: str
    introduction: str
    chapters: tuple[Chapter, ...]
    presenter: Presenter | None
    pause: Question | None
    teacher: bool

    @property
    def link(self) -> str:
        """The lesson page: the invitation a teacher hands out."""
        return f"/lessons/{self.id}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "introduction": self.introduction,
                "introduction_html": render(self.introduction), "chapters": [c.shown() for c in self.chapters],
                "presenter": self.presenter.to_json() if self.presenter is not None else None,
                "pause": self.pause.to_json() if self.pause is not None else None, "teacher": self.teacher,
                "link": self.link}


@dataclass(frozen=True, slots=True)
class LessonOutline:
    """What a lesson file keeps of a lesson: its title, introduction and chapters in order."""

    title: str
    introduction: str
    chapters: tuple[Chapter, ...]

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "introduction": self.introduction, "chapters": [c.to_json() for c in self.chapters]}


@dataclass(frozen=True, slots=True)
class Answered:
    """A student's pick of a pause's choices (a later one replaces it), and how many have answered."""

    pause: str
    student: str
    command: dict[str, Any]
    said: str
    count: int

    def to_json(self) -> dict[str, Any]:
        return {"pause": self.pause, "student": self.student, "command": self.command, "said": self.said,
                "count": self.count}


@dataclass(frozen=True, slots=True)
class Revealed:
    """A pause closed: the command played from its step (None when the line has none) and the tally."""

    played: Choice | None
    tally: Tally

    def to_json(self) -> dict[str, Any]:
        return {"played": self.played.to_json() if self.played is not None else None, "tally": self.tally.to_json()}


@dataclass(frozen=True, slots=True)
class FileChapter:
    """A chapter as a lesson file writes it: its record by the file's ref ("r1"), its what-if line by its id."""

    title: str
    introduction: str
    record: str
    line: str | None
    from_step: int
    to_step: int

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "introduction": self.introduction, "record": self.record, "line": self.line,
                "from_step": self.from_step, "to_step": self.to_step}


@dataclass(frozen=True, slots=True)
class LessonFile:
    """A lesson as one file (format cronaca-lesson, lessonfile.export_lesson): its words, every record its chapters
    use whole (by ref, with the notes the reader may read and the variations), and its chapters."""

    format: str
    version: int
    title: str
    introduction: str
    records: tuple[tuple[str, RecordFile], ...]  # (ref, file) in the order the chapters first use them
    chapters: tuple[FileChapter, ...]

    def to_json(self) -> dict[str, Any]:
        return {"format": self.format, "version": self.version, "title": self.title, "introduction": self.introduction,
                "records": [{"ref": ref, "file": file.to_json()} for ref, file in self.records],
                "chapters": [c.to_json() for c in self.chapters]}


@dataclass(frozen=True, slots=True)
class LessonImported:
    """A lesson file imported as a new lesson on new records: the lesson, its teacher key, and each file ref's
    new record id and annotator key (the keys are in this answer only)."""

    lesson: LessonView
    teacher_key: str
    records: dict[str, str]  # file ref -> new record id
    annotator_keys: dict[str, str]  # file ref -> the new record's annotator key

    def to_json(self) -> dict[str, Any]:
        return {"lesson": self.lesson.to_json(), "teacher_key": self.teacher_key, "records": self.records,
                "annotator_keys": self.annotator_keys}
