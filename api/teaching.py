"""/api: teaching on finished records (issue 14) — annotations, what-if variations, lessons and their live stream.

Three blueprints over `Service.teaching` (domain/records/teaching.py): the HTTP edge checks the shape of
what comes in (marshmallow, unknown fields refused) and who is asking (`Authorization: Bearer <annotator
key | seat token | teacher key>`); the domain services decide everything else (steps, places, rules,
keys) and raise the service's own errors, which api/problems.py answers as problem+json.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

import marshmallow
from flask import Response, current_app, request
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api import schemas
from api.live import (
    PING_CONFIG,
    PING_SECONDS,
    SSE,
    Unavailable,
    admitted,
    sse_response,
    sse_stream,
    subscribe_then_read,
    unavailable,
)
from api.problems import CONTENT_TYPE as PROBLEM
from api.problems import problem
from api.records import NO_LAYOUT
from api.security import JSON, json_body
from api.service import bearer, json_response, service
from domain.records import lessonfile
from domain.records.annotations import ALL
from domain.records.errors import NotFound
from domain.records.teaching import Teaching
from replay_viewer import boards
from replay_viewer.boards import NoLayout, anchors, layout_for

# named `notes`, not `annotations`: that name is the `from __future__ import annotations` above
notes = Blueprint("annotations", __name__, url_prefix="/api/records",
                  description="Teaching: notes, arrows and highlights on a finished record's steps")
variations = Blueprint("variations", __name__, url_prefix="/api",
                       description="Teaching: what-if lines from a step of a finished record, decided by the same rules")
lessons = Blueprint("lessons", __name__, url_prefix="/api/lessons",
                    description="Teaching: lessons of chapters, a presenter the class follows live, prediction pauses")

BLUEPRINTS = (notes, variations, lessons)

Security = list[dict[str, list[str]]]  # an OpenAPI security requirement: any one of these schemes
ANNOTATOR: Security = [{"annotator": []}]
READER: Security = [{"annotator": []}, {"seat": []}, {}]
WRITER: Security = [{"annotator": []}, {"seat": []}]
TEACHER: Security = [{"teacher": []}]


# ---- schemas -----------------------------------------------------------------------------------------

Strict = schemas.Strict
BRUSHES = ["green", "red", "blue", "yellow"]


class Shape(marshmallow.Schema):
    """An arrow (from, to), a highlighted place (at) or a label (at, text); places as GET /places names them."""

    class Meta:
        unknown = marshmallow.INCLUDE  # the domain names what is wrong with a shape, with did_you_mean

    kind = fields.String(required=True, metadata={"description": "arrow, highlight or label"})
    brush = fields.String(metadata={"description": "green (default), red, blue or yellow"})


class NoteBody(Strict):
    line = fields.String(load_default=None, allow_none=True,
                         metadata={"description": "null: the main line; or a variation id of this record"})
    step = fields.Integer(required=True, metadata={"description": "the step the note is on (0..the line's last)"})
    audience = fields.Integer(load_default=None, allow_none=True,
                              metadata={"description": "null: everyone; a seat number: only that seat and the annotator"})
    author = fields.String(allow_none=True, metadata={"description": "a display name (<= 80 characters)"})
    text = fields.String(load_default="", metadata={"description": "Markdown subset (emphasis, code, lists, links); "
                                                                  "<= 8,000 characters"})
    shapes = fields.List(fields.Nested(Shape), load_default=list, metadata={"description": "at most 64"})
    glyph = fields.String(load_default=None, allow_none=True, metadata={"description": "! ? !! ?? !? ?! or null"})


class NoteChanges(Strict):
    """Only the fields sent change."""

    line = fields.String(allow_none=True, metadata={"description": "move the note to another line (null: the main one)"})
    step = fields.Integer()
    audience = fields.Integer(allow_none=True)
    author = fields.String(allow_none=True)
    text = fields.String()
    shapes = fields.List(fields.Nested(Shape))
    glyph = fields.String(allow_none=True)


class Note(marshmallow.Schema):
    id = fields.String(metadata={"example": "n-3f2a9c1b4d5e"})
    line = fields.String(allow_none=True)
    step = fields.Integer()
    audience = fields.Integer(allow_none=True)
    author = fields.String()
    by = fields.String(metadata={"description": "annotator or seat:N"})
    text = fields.String()
    html = fields.String(metadata={"description": "the text rendered, escaped: safe to insert as HTML"})
    shapes = fields.List(fields.Dict())
    glyph = fields.String(allow_none=True)
    created = fields.String()
    edited = fields.String(allow_none=True)


class NoteList(marshmallow.Schema):
    notes = fields.List(fields.Nested(Note))
    reader = fields.String(metadata={"description": "annotator, seat:N or public"})
    can_annotate = fields.Boolean()


class LineQuery(Strict):
    line = fields.String(load_default="all", validate=validate.Length(min=1, max=80),
                         metadata={"description": "all (every line), main, or a variation id"})


class Places(marshmallow.Schema):
    title = fields.String()
    viewBox = fields.List(fields.Float(), metadata={"description": "the board SVG's viewBox: x, y, width, height"})
    places = fields.Dict(metadata={"description": "{place: {x, y, label}} in viewBox units: where a shape may point"})


class BranchBody(Strict):
    from_step = fields.Integer(required=True, validate=validate.Range(min=0),
                               metadata={"description": "a decision point of the parent line"})
    parent = fields.String(load_default=None, allow_none=True,
                           metadata={"description": "null: the main line; or another variation of the record"})
    title = fields.String(load_default="", validate=validate.Length(max=200))
    author = fields.String(load_default="", validate=validate.Length(max=80))


class VariationSummary(marshmallow.Schema):
    id = fields.String()
    record_id = fields.String()
    parent = fields.String(allow_none=True)
    from_step = fields.Integer()
    title = fields.String()
    author = fields.String()
    last_step = fields.Integer()
    moves = fields.Integer()
    finished = fields.Boolean()
    pending = fields.Dict(allow_none=True)
    created = fields.String()
    chance = fields.List(fields.String(), metadata={"description": "per move: author (outcomes given) or drawn"})


class VariationList(marshmallow.Schema):
    variations = fields.List(fields.Nested(VariationSummary))


class VariationCommand(Strict):
    command = fields.Nested(schemas.CommandShape, required=True)
    outcomes = fields.List(fields.Dict(), load_default=None, allow_none=True,
                           metadata={"description": "the chance outcomes the author chooses; none: drawn from the "
                                                    "variation's own fresh seed"})


class VariationPlayed(marshmallow.Schema):
    id = fields.String()
    steps = fields.List(fields.Integer())
    events = fields.List(fields.Dict())
    chance = fields.String()
    pending = fields.Dict(allow_none=True)
    finished = fields.Boolean()
    said = fields.List(fields.String())


class LessonBody(Strict):
    title = fields.String(required=True, validate=validate.Length(min=1, max=200))
    introduction = fields.String(load_default="", validate=validate.Length(max=20_000))


class Lesson(marshmallow.Schema):
    id = fields.String()
    title = fields.String()
    introduction = fields.String()
    introduction_html = fields.String(metadata={"description": "the introduction as HTML (Markdown, as a note's text)"})
    chapters = fields.List(fields.Dict())
    presenter = fields.Dict(allow_none=True, metadata={"description": "{chapter, step, shapes, seq} or null"})
    pause = fields.Dict(allow_none=True, metadata={"description": "the open pause's question, or null"})
    teacher = fields.Boolean(metadata={"description": "the request carried this lesson's teacher key"})
    link = fields.String(metadata={"description": "the students' page: the link is the invitation"})


class LessonCreated(marshmallow.Schema):
    lesson = fields.Nested(Lesson)
    teacher_key = fields.String(metadata={"description": "shown once: present, pause and edit this lesson"})
    link = fields.String()


class LessonImported(marshmallow.Schema):
    lesson = fields.Nested(Lesson)
    teacher_key = fields.String(metadata={"description": "shown once"})
    records = fields.Dict(keys=fields.String(), values=fields.String(), metadata={"description": "{ref: new record id}"})
    annotator_keys = fields.Dict(keys=fields.String(), values=fields.String(),
                                 metadata={"description": "{ref: the new record's annotator key}, shown once"})


class ChapterBody(Strict):
    title = fields.String(load_default="", validate=validate.Length(max=200))
    introduction = fields.String(load_default="", validate=validate.Length(max=20_000))
    record_id = fields.UUID(required=True)
    line = fields.String(load_default=None, allow_none=True, metadata={"description": "null or a variation id"})
    from_step = fields.Integer(required=True)
    to_step = fields.Integer(required=True)


class ChapterChanges(Strict):
    title = fields.String(validate=validate.Length(max=200))
    introduction = fields.String(validate=validate.Length(max=20_000))
    record_id = fields.UUID()
    line = fields.String(allow_none=True)
    from_step = fields.Integer()
    to_step = fields.Integer()


class Chapter(marshmallow.Schema):
    id = fields.String()
    title = fields.String()
    introduction = fields.String()
    introduction_html = fields.String(metadata={"description": "the introduction as HTML (Markdown, as a note's text)"})
    record_id = fields.String()
    line = fields.String(allow_none=True)
    from_step = fields.Integer()
    to_step = fields.Integer()


class OrderBody(Strict):
    chapters = fields.List(fields.String(), required=True, metadata={"description": "every chapter id, in the new order"})


class PresentBody(Strict):
    chapter = fields.String(required=True)
    step = fields.Integer(required=True)
    shapes = fields.List(fields.Nested(Shape), load_default=None, allow_none=True)


class Presenter(marshmallow.Schema):
    chapter = fields.String()
    step = fields.Integer()
    shapes = fields.List(fields.Dict(), allow_none=True)
    seq = fields.Integer()


class PauseBody(Strict):
    seat = fields.Integer(required=True, metadata={"description": "the seat deciding at the presenter's step"})
    question = fields.String(load_default="", validate=validate.Length(max=2_000))


class Question(marshmallow.Schema):
    id = fields.String()
    chapter = fields.String()
    step = fields.Integer()
    seat = fields.Integer()
    seat_name = fields.String()
    question = fields.String()
    open = fields.Boolean()
    view = fields.Dict(metadata={"description": "that seat's view at that step (never the move played)"})
    pending = fields.Dict()
    choices = fields.List(fields.Dict(), metadata={"description": "[{command, said}]: that seat's legal commands"})
    answers = fields.Integer(metadata={"description": "how many students have answered"})
    played = fields.Dict(metadata={"description": "once revealed: the move the game went on with"})
    tally = fields.Dict(metadata={"description": "with the teacher key only"})


class AnswerBody(Strict):
    student = fields.String(required=True, metadata={"description": "the student's name, 1..40 characters"})
    command = fields.Nested(schemas.CommandShape, required=True)


class RevealBody(Strict):
    """Nothing to send: `{}`."""


# ---- helpers -----------------------------------------------------------------------------------------


def _teaching() -> Teaching:
    return service().teaching


def _json(body: Any, status: int = 200, location: str | None = None) -> Response:
    response = json_response(body, status)
    if location:
        response.headers["Location"] = location
    return response


def _line(value: str) -> Any:
    """The `line` query: all lines, the main one, or a variation id."""
    if value == "all":
        return ALL
    return value


# ---- annotations and places --------------------------------------------------------------------------


@notes.route("/<uuid:record_id>/places")
@notes.response(200, Places)
@notes.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                          description="no such record; or its title or edition has no board layout (`no-layout`)")
def places(record_id: UUID) -> Any:
    """Every place of the record's board a shape may name (canonical spelling), where it is drawn, and the
    board's viewBox: what the viewer needs to draw arrows and highlights and to let the annotator point."""
    records = service().records
    with records.access.reading(record_id) as timeline:
        meta = timeline.meta
        if meta is None:
            raise NotFound(f"no record {record_id}")
        title, seats = meta.title, len(meta.seats)
        edition = records.edition(meta.title, meta.edition, meta.edition_file)
    try:
        view_box = list(layout_for(title, edition)["viewBox"])
        found = anchors(title, edition, seats)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response = _json({"title": title, "viewBox": view_box, "places": found})
    response.headers["Cache-Control"] = "public, max-age=3600"  # a record's board never changes
    return response


@notes.route("/<uuid:record_id>/annotations")
@notes.arguments(LineQuery, location="query")
@notes.response(200, NoteList)
@notes.alt_response(404, schema=schemas.Problem, content_type=PROBLEM, description="no such record or line")
@notes.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                          description="the token is neither this record's annotator key nor one of its seats'")
@notes.doc(security=READER)
def list_notes(query: dict[str, Any], record_id: UUID) -> Any:
    """The notes the reader may see: the public those for everyone, a seat's token also its own seat's, the
    annotator key all. Sorted by line, step and creation; `can_annotate` says whether the token may add."""
    return _json(_teaching().notes.list(record_id, bearer(), _line(query["line"])).to_json())


@notes.route("/<uuid:record_id>/annotations", methods=["POST"])
@notes.arguments(NoteBody)
@notes.response(201, Note)
@notes.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no key or token")
@notes.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                          description="not this record's key or seat; or a seat writing for another audience")
@notes.alt_response(413, schema=schemas.Problem, content_type=PROBLEM,
                          description="the text is longer than 8,000 characters (rule annotation/too-long)")
@notes.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                          description="a step outside the line, a place the board does not have (with did_you_mean), "
                                      "a glyph or shape that is not one, an empty note (rule annotation/...)")
@notes.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                          description="the record's notes changed too fast under other writers; try again")
@notes.doc(security=WRITER)
def add_note(body: dict[str, Any], record_id: UUID) -> Any:
    """Add a note on a step of the main line or of a variation: Markdown text, shapes on the board, a glyph.
    A seat's token writes only its own private notes (audience: its seat)."""
    body = {k: v for k, v in body.items() if not (k == "author" and v is None)}
    note = _teaching().notes.add(record_id, bearer(), body)
    return _json(note.to_json(), 201, f"/api/records/{record_id}/annotations/{note.id}")


@notes.route("/<uuid:record_id>/annotations/<note_id>", methods=["PATCH"])
@notes.arguments(NoteChanges)
@notes.response(200, Note)
@notes.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no key or token")
@notes.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                          description="not this record's key; or a seat editing a note that is not its own")
@notes.alt_response(413, schema=schemas.Problem, content_type=PROBLEM, description="text too long")
@notes.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="as for POST")
@notes.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                          description="the record's notes changed too fast under other writers; try again")
@notes.doc(security=WRITER)
def edit_note(changes: dict[str, Any], record_id: UUID, note_id: str) -> Any:
    """Change a note (only the fields sent). The earlier text stays in the record's history."""
    return _json(_teaching().notes.edit(record_id, note_id, bearer(), changes).to_json())


@notes.route("/<uuid:record_id>/annotations/<note_id>", methods=["DELETE"])
@notes.response(204)
@notes.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no key or token")
@notes.alt_response(403, schema=schemas.Problem, content_type=PROBLEM,
                          description="not this record's key; or a seat deleting a note that is not its own")
@notes.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                          description="the record's notes changed too fast under other writers; try again")
@notes.doc(security=WRITER)
def delete_note(record_id: UUID, note_id: str) -> Any:
    """Delete a note: it is no longer listed (the history keeps it)."""
    _teaching().notes.delete(record_id, note_id, bearer())
    return current_app.response_class(status=204)


# ---- variations --------------------------------------------------------------------------------------


@variations.route("/records/<uuid:record_id>/variations")
@variations.response(200, VariationList)
def list_variations(record_id: UUID) -> Any:
    """A record's variations, oldest first (every reader may see them: only finished records have any)."""
    service().records.timeline(record_id)  # 404 for a record that does not exist
    return _json({"variations": [summary.to_json() for summary in _teaching().variations.of_record(record_id)]})


@variations.route("/records/<uuid:record_id>/variations", methods=["POST"])
@variations.arguments(BranchBody)
@variations.response(201, VariationSummary)
@variations.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no annotator key")
@variations.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="not this record's annotator key")
@variations.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                         description="the record is in progress: a variation would show what its seats cannot see")
@variations.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                         description="from_step is not a decision point of the parent line (rule variation/step, "
                                     "with the nearest ones)")
@variations.doc(security=ANNOTATOR)
def branch(body: dict[str, Any], record_id: UUID) -> Any:
    """Branch a what-if line from a decision point of the main line or of another variation."""
    summary = _teaching().variations.branch(record_id, bearer(), body["from_step"], body["parent"], body["title"],
                                            body["author"])
    return _json(summary.to_json(), 201, f"/api/variations/{summary.id}")


@variations.route("/variations/<uuid:variation_id>")
@variations.response(200, VariationSummary)
def variation(variation_id: UUID) -> Any:
    """A variation: its record, parent and branching step, its moves, whether its game ended."""
    return _json(_teaching().variations.summary(variation_id).to_json())


@variations.route("/variations/<uuid:variation_id>/steps/<int:n>")
@variations.response(200, schemas.VariationStep)
def variation_step(variation_id: UUID, n: int) -> Any:
    """The all-seeing state after step n of the variation (steps continue the parent's numbering)."""
    return _json(_teaching().variations.step(variation_id, n).to_json())


@variations.route("/variations/<uuid:variation_id>/steps/<int:n>/board")
@variations.response(200, schemas.SVG, description="an SVG document: the board at step n of the variation, what "
                                                   "changed since step n-1 highlighted", content_type="image/svg+xml")
@variations.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                         description="no such variation or step; or no board layout (type ends in `no-layout`)")
def variation_board(variation_id: UUID, n: int) -> Any:
    """The board at step n of the variation, drawn as the record's boards are."""
    try:
        svg = _teaching().variations.board(variation_id, n, boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response = current_app.response_class(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"  # a variation grows: its last step's pending decision changes
    return response


@variations.route("/variations/<uuid:variation_id>/story")
@variations.response(200, schemas.VariationStory)
def variation_story(variation_id: UUID) -> Any:
    """The variation's own moves in words (the parent's are in the parent's story)."""
    return _json(_teaching().variations.story(variation_id).to_json())


@variations.route("/variations/<uuid:variation_id>/legal")
@variations.response(200, schemas.Legal)
def variation_legal(variation_id: UUID) -> Any:
    """The pending decision at the variation's last step and every legal command for it, in words."""
    return _json(_teaching().variations.legal(variation_id).to_json())


@variations.route("/variations/<uuid:variation_id>/commands", methods=["POST"])
@variations.arguments(VariationCommand)
@variations.response(200, VariationPlayed)
@variations.alt_response(401, schema=schemas.Problem, content_type=PROBLEM, description="no annotator key")
@variations.alt_response(403, schema=schemas.Problem, content_type=PROBLEM, description="not the record's annotator key")
@variations.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the variation's game is over")
@variations.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                         description="the rules refuse the command (rule id, message, facts), it is malformed, or the "
                                     "outcomes are impossible")
@variations.doc(security=ANNOTATOR)
def play_variation(body: dict[str, Any], variation_id: UUID) -> Any:
    """Play the pending decision's command in the variation; chance from `outcomes` (the author's) or drawn."""
    return _json(_teaching().variations.play(variation_id, bearer(), body["command"], body["outcomes"]).to_json())


# ---- lessons -----------------------------------------------------------------------------------------


@lessons.route("", methods=["POST"])
@lessons.arguments(LessonBody)
@lessons.response(201, LessonCreated)
def create_lesson(body: dict[str, Any]) -> Any:
    """Make a lesson. Its teacher key is in this answer only; its `link` is the students' invitation."""
    lesson, key = _teaching().lessons.create(body["title"], body["introduction"])
    return _json({"lesson": lesson.to_json(), "teacher_key": key, "link": lesson.link}, 201, f"/api/lessons/{lesson.id}")


@lessons.route("/import", methods=["POST"])
@lessons.response(201, LessonImported, description="the new lesson, its teacher key, and the new records' ids and "
                                                    "annotator keys by the file's refs")
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                      description="the file or one of its records is wrong (naming the record ref and entry); "
                                  "nothing was saved")
@lessons.doc(requestBody={"content": {JSON: {"schema": {"type": "object"},
                                             "description": "a lesson file (format cronaca-lesson)"}},
                          "required": True})
def import_lesson() -> Any:
    """Import a lesson file: its records (checked by the rules as any import), their notes and variations,
    then the lesson. Everything is checked before anything is saved. New keys are in this answer only."""
    made = lessonfile.import_lesson(_teaching(), json_body())
    return _json(made.to_json(), 201, f"/api/lessons/{made.lesson.id}")


@lessons.route("/<uuid:lesson_id>")
@lessons.response(200, Lesson)
@lessons.doc(security=[{"teacher": []}, {}])
def get_lesson(lesson_id: UUID) -> Any:
    """The lesson: chapters, the presenter's chapter and step, the open pause's question."""
    return _json(_teaching().lessons.get(lesson_id, bearer()).to_json())


@lessons.route("/<uuid:lesson_id>/chapters", methods=["POST"])
@lessons.arguments(ChapterBody)
@lessons.response(201, Chapter)
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the record is in progress")
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                      description="steps outside the line (rule lesson/steps)")
@lessons.doc(security=TEACHER)
def add_chapter(body: dict[str, Any], lesson_id: UUID) -> Any:
    """Add a chapter: a step range of a finished record's main line or of one of its variations."""
    body = {**body, "record_id": str(body["record_id"])}
    chapter = _teaching().lessons.add_chapter(lesson_id, bearer(), body)
    return _json(chapter.shown(), 201)


@lessons.route("/<uuid:lesson_id>/chapters/<chapter_id>", methods=["PATCH"])
@lessons.arguments(ChapterChanges)
@lessons.response(200, Chapter)
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the record is in progress")
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="steps outside the line")
@lessons.doc(security=TEACHER)
def edit_chapter(changes: dict[str, Any], lesson_id: UUID, chapter_id: str) -> Any:
    """Change a chapter (only the fields sent)."""
    if "record_id" in changes:
        changes = {**changes, "record_id": str(changes["record_id"])}
    return _json(_teaching().lessons.edit_chapter(lesson_id, chapter_id, bearer(), changes).shown())


@lessons.route("/<uuid:lesson_id>/chapters/<chapter_id>", methods=["DELETE"])
@lessons.response(204)
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                      description="the lesson changed too fast under other writers; try again")
@lessons.doc(security=TEACHER)
def remove_chapter(lesson_id: UUID, chapter_id: str) -> Any:
    """Remove a chapter from the lesson."""
    _teaching().lessons.remove_chapter(lesson_id, chapter_id, bearer())
    return current_app.response_class(status=204)


@lessons.route("/<uuid:lesson_id>/order", methods=["PUT"])
@lessons.arguments(OrderBody)
@lessons.response(200, Lesson)
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                      description="the list is not exactly the lesson's chapters")
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                      description="the lesson changed too fast under other writers; try again")
@lessons.doc(security=TEACHER)
def order(body: dict[str, Any], lesson_id: UUID) -> Any:
    """Put the chapters in a new order (every chapter id, once)."""
    return _json(_teaching().lessons.order(lesson_id, bearer(), body["chapters"]).to_json())


@lessons.route("/<uuid:lesson_id>/present", methods=["POST"])
@lessons.arguments(PresentBody)
@lessons.response(200, Presenter)
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM, description="a step outside the chapter")
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                      description="the lesson changed too fast under other writers; try again")
@lessons.doc(security=TEACHER)
def present(body: dict[str, Any], lesson_id: UUID) -> Any:
    """Move the presenter: every student following the lesson goes to this chapter and step, with these shapes."""
    return _json(_teaching().lessons.present(lesson_id, bearer(), body["chapter"], body["step"], body["shapes"]).to_json())


@lessons.route("/<uuid:lesson_id>/live")
@lessons.response(200, {"type": "string"}, description="server-sent events: first `lesson` (the lesson as GET gives it), then `present`, "
                                   "`pause`, `answers`, `reveal`... each with `id: <seq>`; a `: ping` comment when "
                                   "quiet", content_type=SSE)
@lessons.alt_response(429, schema=schemas.Problem, content_type=PROBLEM,
                      description="this address follows CRONACA_LIVE_STREAMS_PER_CLIENT streams already; retry "
                                  "after `Retry-After` seconds")
@lessons.alt_response(503, schema=schemas.Problem, content_type=PROBLEM,
                      description="the live channel (Redis) cannot be reached now, or this server holds "
                                  "CRONACA_LIVE_STREAMS streams already; retry after `Retry-After` seconds")
def live(lesson_id: UUID) -> Any:
    """Follow the lesson live (EventSource). A student who steps away and comes back gets the lesson afresh.
    Streams are capped per address and per process (429 / 503 with `Retry-After` beyond, docs/deployment.md)."""
    svc = service()

    def follow() -> Any:
        try:
            subscription, first = subscribe_then_read(svc.hub, str(lesson_id),
                                                      lambda: svc.teaching.lessons.get(lesson_id, None).to_json())
        except Unavailable as exc:
            return unavailable(exc, "the page retries by itself")
        ping = float(current_app.config.get(PING_CONFIG, PING_SECONDS))
        return sse_response(sse_stream(first, subscription, ping))

    return admitted(svc.caps, request.remote_addr or "", follow)


@lessons.route("/<uuid:lesson_id>/pauses", methods=["POST"])
@lessons.arguments(PauseBody)
@lessons.response(201, Question)
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="a pause is open already")
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                      description="no presenter step yet, or that seat does not decide there (rule lesson/pause-seat)")
@lessons.doc(security=TEACHER)
def open_pause(body: dict[str, Any], lesson_id: UUID) -> Any:
    """Stop at the presenter's step and ask the class what that seat should do."""
    teaching = _teaching()
    opened = teaching.lessons.open_pause(lesson_id, bearer(), body["seat"], body["question"])
    found = teaching.lessons.question(lesson_id, opened.id)
    return _json(found.to_json(), 201, f"/api/lessons/{lesson_id}/pauses/{opened.id}")


@lessons.route("/<uuid:lesson_id>/pauses/<pause_id>")
@lessons.response(200, Question)
@lessons.doc(security=[{"teacher": []}, {}])
def question(lesson_id: UUID, pause_id: str) -> Any:
    """The pause's question, from the asked seat's view, with its legal choices; with the teacher key the tally."""
    teaching = _teaching()
    token = bearer()
    found = teaching.lessons.question(lesson_id, pause_id)
    if token is not None:  # the teacher's key (another is refused): who picked what
        found = replace(found, tally=teaching.lessons.tally(lesson_id, pause_id, token))
    return _json(found.to_json())


@lessons.route("/<uuid:lesson_id>/pauses/<pause_id>/board")
@lessons.response(200, schemas.SVG, description="an SVG document: the board at the pause's step as the asked seat "
                                                "saw it", content_type="image/svg+xml")
@lessons.alt_response(404, schema=schemas.Problem, content_type=PROBLEM,
                      description="no such lesson or pause; or no board layout (type ends in `no-layout`)")
def pause_board(lesson_id: UUID, pause_id: str) -> Any:
    """The pause's board from the asked seat's own view: what that seat knew, nothing the others hid."""
    try:
        svg = _teaching().lessons.pause_board(lesson_id, pause_id, boards.draw)
    except NoLayout as exc:
        return problem(404, "Not Found", str(exc), type=NO_LAYOUT)
    response = current_app.response_class(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=3600"  # a pause's step and seat never change
    return response


@lessons.route("/<uuid:lesson_id>/pauses/<pause_id>/answers", methods=["POST"])
@lessons.arguments(AnswerBody)
@lessons.response(201, schemas.Answered, description="the answer taken (a later answer of the same student "
                                                     "replaces it)")
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM, description="the pause is closed")
@lessons.alt_response(422, schema=schemas.Problem, content_type=PROBLEM,
                      description="not one of the seat's legal commands (rule lesson/answer-illegal), or no student name")
def answer(body: dict[str, Any], lesson_id: UUID, pause_id: str) -> Any:
    """A student's prediction: one of the asked seat's legal commands. No key: the lesson link is the invitation."""
    return _json(_teaching().lessons.answer(lesson_id, pause_id, body["student"], body["command"]).to_json(), 201)


@lessons.route("/<uuid:lesson_id>/pauses/<pause_id>/reveal", methods=["POST"])
@lessons.arguments(RevealBody)
@lessons.response(200, schemas.Revealed, description="the move played and the tally: the pause closes")
@lessons.alt_response(409, schema=schemas.Problem, content_type=PROBLEM,
                      description="the pause was revealed already, or the lesson changed too fast under other writers")
@lessons.doc(security=TEACHER)
def reveal(_: dict[str, Any], lesson_id: UUID, pause_id: str) -> Any:
    """Close the pause and show the move played, with the tally. Send `{}` as the body."""
    return _json(_teaching().lessons.reveal(lesson_id, pause_id, bearer()).to_json())


@lessons.route("/<uuid:lesson_id>/export")
@lessons.response(200, schemas.LESSON_FILE, description="a lesson file (format cronaca-lesson): the chapters' records "
                                                        "with their notes and variations")
@lessons.doc(security=[{"annotator": []}, {"seat": []}, {}])
def export(lesson_id: UUID) -> Any:
    """The lesson as one file that keeps everything; import it with POST /api/lessons/import. The lesson is no
    secret (its link is the invitation); each record's notes are those the token may read there (a record's
    annotator key: all of them; none: the public's)."""
    response = _json(lessonfile.export_lesson(_teaching(), lesson_id, bearer()).to_json())
    response.headers["Content-Disposition"] = f'attachment; filename="lesson-{lesson_id}.json"'
    return response
