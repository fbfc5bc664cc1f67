"""Lessons (issue 14): chapters of finished records, the presenter a class follows, prediction pauses.

Each test runs on SQLite and on the real PostgreSQL (`records`). The record is a real finished
Città-Stato game (random legal play, imported as a record file): its seats hide bags and war
discs from each other, so a pause's question can be checked to show only the asked seat's view.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain import catalog
from domain.records import Records
from domain.records.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from domain.records.lessons import Lessons, canonical, words_for
from domain.records.teaching import Teaching
from tests.service.helpers import NAMES, at_once, import_finished, record_file

TITLE = "citta-stato"


# Options under which each title's seats hide something from each other (Serenissima: its money).
OPTIONS: dict[str, dict[str, Any]] = {"citta-stato": {}, "la-citta": {}, "serenissima": {"money": "hidden"}}


def finished(records: Records, title: str = TITLE, annotator_key: str | None = None) -> UUID:
    """A finished random game of `title` (the same game each time), imported as a record file."""
    record_id, _ = import_finished(records, record_file(title, f"lessons-{title}", OPTIONS[title]), annotator_key)
    return record_id


def decisions(records: Records, record_id: UUID) -> list[tuple[int, int, dict[str, Any]]]:
    """(step, seat, command played) of every command of the record's main line, in order."""
    with records.access.reading(record_id) as timeline:
        meta = timeline.meta
        assert meta is not None
        return [(start, seat, timeline.entries[k]["command"])
                for k, (start, seat) in enumerate(zip(meta.entry_starts, meta.entry_seats, strict=True))
                if k and seat is not None]


def state_at(records: Records, record_id: UUID, step: int) -> tuple[Any, Any]:
    with records.access.reading(record_id) as timeline:
        return timeline.game, timeline.state_at(step)


class Class:
    """What the live hub would carry: every published message, in order."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, lesson_id: str, message: dict[str, Any]) -> None:
        self.messages.append((lesson_id, json.loads(json.dumps(message))))  # as it would go over the wire

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for _, m in self.messages if m["type"] == kind]


@pytest.fixture
def hub() -> Class:
    return Class()


@pytest.fixture
def lessons(records: Records, hub: Class) -> Lessons:
    return Lessons(records, None, None, hub)


def test_a_lesson_is_created_with_a_key_shown_once_and_read_by_anyone(records: Records, lessons: Lessons) -> None:
    lesson, key = lessons.create("Opening trades", "How Ada opened.")
    lesson_id = UUID(lesson.id)
    assert lesson.teacher is True and lesson.link == f"/lessons/{lesson_id}"
    assert key not in json.dumps(lesson.to_json())
    stored = records.repository.get(lesson_id)
    assert key not in json.dumps(vars(stored), default=str)  # only its hash is kept

    public = lessons.get(lesson_id, None).to_json()
    assert public["teacher"] is False and public["title"] == "Opening trades" and public["introduction"] == "How Ada opened."
    assert public["chapters"] == [] and public["presenter"] is None and public["pause"] is None
    assert lessons.get(lesson_id, key).to_json()["teacher"] is True
    with pytest.raises(Forbidden):
        lessons.get(lesson_id, "not-the-key")
    with pytest.raises(NotFound):
        lessons.get(uuid4(), None)
    with pytest.raises(Invalid) as empty:
        lessons.create("   ")
    assert empty.value.facts["rule"] == "lesson/title"

    record_id = finished(records)
    with pytest.raises(NotFound):
        lessons.get(record_id, None)  # a record is not a lesson
    with pytest.raises(Unauthorized):
        lessons.add_chapter(lesson_id, None, {"record_id": str(record_id)})
    with pytest.raises(Forbidden):
        lessons.add_chapter(lesson_id, "not-the-key", {"record_id": str(record_id)})
    assert lessons.get(lesson_id, None).to_json()["chapters"] == []


def test_chapters_keep_their_order_and_refuse_bad_steps_and_games_in_progress(records: Records, lessons: Lessons,
                                                                               hub: Class) -> None:
    record_id = finished(records)
    steps = records.reading.summary(record_id).steps
    lesson, key = lessons.create("Two chapters")
    lesson_id = UUID(lesson.id)

    first = lessons.add_chapter(lesson_id, key, {"title": "Setup", "record_id": str(record_id), "from_step": 0, "to_step": 10}).to_json()
    whole = lessons.add_chapter(lesson_id, key, {"title": "The whole game", "record_id": str(record_id)}).to_json()
    assert first["id"].startswith("c-") and first["id"] != whole["id"]
    assert (first["line"], first["from_step"], first["to_step"]) == (None, 0, 10)
    assert (whole["from_step"], whole["to_step"]) == (0, steps)  # a chapter covers the whole line by default
    assert [c["id"] for c in lessons.get(lesson_id, None).to_json()["chapters"]] == [first["id"], whole["id"]]

    for bad in ({"from_step": 5, "to_step": 4}, {"from_step": -1}, {"to_step": steps + 1}, {"from_step": "3"}):
        with pytest.raises(Invalid) as refused:
            lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), **bad})
        assert refused.value.facts["rule"] == "lesson/steps", bad
    with pytest.raises(Invalid) as unknown_field:
        lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "colour": "red"})
    assert unknown_field.value.facts["rule"] == "lesson/field"
    with pytest.raises(NotFound):
        lessons.add_chapter(lesson_id, key, {"record_id": str(uuid4())})
    live, tokens = records.play.start(TITLE, NAMES)
    with pytest.raises(Conflict):
        lessons.add_chapter(lesson_id, key, {"record_id": str(live)})
    assert len(lessons.get(lesson_id, None).to_json()["chapters"]) == 2  # nothing refused was stored

    ordered = lessons.order(lesson_id, key, [whole["id"], first["id"]]).to_json()
    assert [c["id"] for c in ordered["chapters"]] == [whole["id"], first["id"]]
    with pytest.raises(Invalid) as partial:
        lessons.order(lesson_id, key, [whole["id"]])
    assert partial.value.facts["rule"] == "lesson/order"

    edited = lessons.edit_chapter(lesson_id, first["id"], key, {"to_step": 12, "title": "Setup and first turns"}).to_json()
    assert (edited["from_step"], edited["to_step"], edited["title"]) == (0, 12, "Setup and first turns")
    with pytest.raises(Invalid):
        lessons.edit_chapter(lesson_id, first["id"], key, {"from_step": 13})
    with pytest.raises(NotFound):
        lessons.edit_chapter(lesson_id, "c-nothing", key, {"title": "x"})
    lessons.remove_chapter(lesson_id, whole["id"], key)
    assert [c["id"] for c in lessons.get(lesson_id, None).to_json()["chapters"]] == [first["id"]]
    assert lessons.get(lesson_id, None).to_json()["chapters"][0]["to_step"] == 12
    assert [len(m["chapters"]) for m in hub.of_type("chapters")] == [1, 2, 2, 2, 1]  # every change reached the class


def test_the_presenter_moves_the_class(records: Records, lessons: Lessons, hub: Class) -> None:
    record_id = finished(records)
    lesson, key = lessons.create("Follow me")
    lesson_id = UUID(lesson.id)
    one = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "from_step": 0, "to_step": 20}).to_json()
    two = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "from_step": 20, "to_step": 40}).to_json()
    hub.messages.clear()

    shown = lessons.present(lesson_id, key, one["id"], 3).to_json()
    assert (shown["chapter"], shown["step"], shown["shapes"]) == (one["id"], 3, [])
    moved = lessons.present(lesson_id, key, two["id"], 25).to_json()
    assert moved["seq"] > shown["seq"]
    assert lessons.get(lesson_id, None).to_json()["presenter"] == moved
    sent = hub.of_type("present")
    assert [(lid, m["chapter"], m["step"]) for lid, m in hub.messages] == [(str(lesson_id), one["id"], 3),
                                                                           (str(lesson_id), two["id"], 25)]
    assert sent[1] == {"type": "present", "lesson": str(lesson_id), **moved}

    with pytest.raises(Invalid) as outside:
        lessons.present(lesson_id, key, two["id"], 41)
    assert outside.value.facts["rule"] == "lesson/steps"
    with pytest.raises(NotFound):
        lessons.present(lesson_id, key, "c-nowhere", 1)
    with pytest.raises(Unauthorized):
        lessons.present(lesson_id, None, one["id"], 1)
    with pytest.raises(Forbidden):
        lessons.present(lesson_id, "a student", one["id"], 1)
    assert len(hub.messages) == 2 and lessons.get(lesson_id, None).to_json()["presenter"] == moved  # refused moves moved nobody

    # the teacher's shapes are the board's places, spelt as the notation spells them
    from domain.citta_stato.notation import places

    edition = catalog.game(TITLE).default_edition()
    a, b = places(edition)[:2]
    drawn = lessons.present(lesson_id, key, two["id"], 26,
                            [{"kind": "arrow", "from": a.upper(), "to": b, "brush": "red"}, {"kind": "highlight", "at": b}]).to_json()
    assert drawn["shapes"] == [{"kind": "arrow", "from": a, "to": b, "brush": "red"},
                               {"kind": "highlight", "at": b, "brush": "green"}]
    with pytest.raises(Invalid) as nowhere:
        lessons.present(lesson_id, key, two["id"], 26, [{"kind": "highlight", "at": "atlantis"}])
    assert nowhere.value.facts["rule"] == "annotation/place"


def pause_step(records: Records, record_id: UUID) -> tuple[int, int, dict[str, Any]]:
    """A step where a seat chose among several commands, with the command it played."""
    game = catalog.game(TITLE)
    for step, seat, command in decisions(records, record_id):
        _, state = state_at(records, record_id, step)
        if len(game.legal(state)) >= 3 and seat == 1:
            return step, seat, command
    raise AssertionError("no step with three or more choices")


def test_a_prediction_pause_asks_the_deciding_seat_tallies_and_reveals(records: Records, lessons: Lessons,
                                                                        hub: Class) -> None:
    record_id = finished(records)
    step, seat, played = pause_step(records, record_id)
    other = 1 - seat
    lesson, key = lessons.create("Predict")
    lesson_id = UUID(lesson.id)
    chapter = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id)}).to_json()
    with pytest.raises(Invalid) as unpresented:
        lessons.open_pause(lesson_id, key, seat)
    assert unpresented.value.facts["rule"] == "lesson/pause-step"  # nothing is presented yet
    lessons.present(lesson_id, key, chapter["id"], step)

    with pytest.raises(Invalid) as wrong_seat:
        lessons.open_pause(lesson_id, key, other)
    assert wrong_seat.value.facts["rule"] == "lesson/pause-seat"
    with pytest.raises(Unauthorized):
        lessons.open_pause(lesson_id, None, seat)
    hub.messages.clear()
    question = lessons.open_pause(lesson_id, key, seat, "What would Ben do?").to_json()
    pause_id = question["id"]
    assert question["open"] and question["step"] == step and question["seat"] == seat and question["seat_name"] == NAMES[seat]
    assert question["question"] == "What would Ben do?" and "played" not in question
    with pytest.raises(Conflict):
        lessons.open_pause(lesson_id, key, seat)  # one open pause at a time

    # the question is that seat's view only: never the all-seeing one, never the other seat's
    game, state = state_at(records, record_id, step)
    assert json.loads(json.dumps(question["view"])) == json.loads(json.dumps(game.view(state, seat)))
    assert question["view"] != game.view(state, None) and question["view"] != game.view(state, other)
    legal = [c.to_json() for c in game.legal(state)]
    assert [c["command"] for c in question["choices"]] == legal
    names = NAMES  # the record file's seats
    assert all(c["said"] == words_for(TITLE, c["command"], state, names, seat) for c in question["choices"])
    # in the game's own sentences, the table's words after them (not "fleet" or "burn Y" alone)
    assert any(c["said"].startswith(NAMES[seat] + " ") and c["said"].endswith(")") for c in question["choices"])
    assert canonical(played) in {canonical(c) for c in legal}
    assert hub.of_type("pause")[0]["pause"] == json.loads(json.dumps(question))
    assert lessons.get(lesson_id, None).to_json()["pause"] == question
    assert lessons.question(lesson_id, pause_id).to_json() == question

    pick, other_pick = [c for c in legal if canonical(c) != canonical(played)][:2]
    first = lessons.answer(lesson_id, pause_id, "Chiara", pick).to_json()
    assert first["count"] == 1 and first["command"] == pick
    lessons.answer(lesson_id, pause_id, "Dario", dict(reversed(list(played.items()))))  # key order does not matter
    lessons.answer(lesson_id, pause_id, "Chiara", other_pick)  # Chiara changes her mind
    assert [m["count"] for m in hub.of_type("answers")] == [1, 2, 2]
    assert all("Chiara" not in json.dumps(m) and "Dario" not in json.dumps(m) for m in hub.of_type("answers"))

    before = lessons.tally(lesson_id, pause_id, key).to_json()
    illegal = {**played, "seat": other}  # the other seat's command: not Ben's to make
    with pytest.raises(Invalid) as refused:
        lessons.answer(lesson_id, pause_id, "Elena", illegal)
    assert refused.value.facts["rule"] == "lesson/answer-illegal"
    assert refused.value.facts["violation"]["rule"].startswith(f"{TITLE}/")  # the engine's own reason
    with pytest.raises(Invalid) as malformed:
        lessons.answer(lesson_id, pause_id, "Elena", {"type": "no-such-command", "seat": seat})
    assert malformed.value.facts["rule"] == "command/malformed"
    with pytest.raises(Invalid) as nameless:
        lessons.answer(lesson_id, pause_id, "", pick)
    assert nameless.value.facts["rule"] == "lesson/student"
    assert lessons.tally(lesson_id, pause_id, key).to_json() == before  # nothing refused was stored

    tally = before
    assert tally["answers"] == 2 and sum(c["count"] for c in tally["choices"]) == 2
    counted = {canonical(c["command"]): (c["count"], c["students"]) for c in tally["choices"]}
    assert counted[canonical(other_pick)] == (1, ["Chiara"]) and counted[canonical(played)] == (1, ["Dario"])
    assert counted[canonical(pick)] == (0, [])
    with pytest.raises(Unauthorized):
        lessons.tally(lesson_id, pause_id, None)
    with pytest.raises(Forbidden):
        lessons.tally(lesson_id, pause_id, "Chiara")

    revealed = lessons.reveal(lesson_id, pause_id, key).to_json()
    assert revealed["played"] == {"command": played, "said": words_for(TITLE, played, state, names, seat)}
    assert revealed["tally"] == tally
    sent = hub.of_type("reveal")[0]
    assert sent["played"] == revealed["played"] and sent["pause"] == pause_id and "Chiara" not in json.dumps(sent)
    closed = lessons.question(lesson_id, pause_id).to_json()
    assert closed["open"] is False and closed["played"] == revealed["played"]
    assert lessons.get(lesson_id, None).to_json()["pause"] is None
    with pytest.raises(Conflict):
        lessons.answer(lesson_id, pause_id, "Fabio", played)
    with pytest.raises(Conflict):
        lessons.reveal(lesson_id, pause_id, key)
    assert lessons.tally(lesson_id, pause_id, key).to_json() == tally
    assert all(m["lesson"] == str(lesson_id) for _, m in hub.messages)
    seqs = [m["seq"] for _, m in hub.messages]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

    # a new pause may be opened once the last is revealed, at the next step where someone decides
    step2, seat2, _ = next(d for d in decisions(records, record_id) if d[0] > step)
    lessons.present(lesson_id, key, chapter["id"], step2)
    assert lessons.open_pause(lesson_id, key, seat2).to_json()["question"] == f"What would you do as {NAMES[seat2]}?"


def test_a_lesson_file_structure_rebuilds_on_other_records(records: Records, lessons: Lessons) -> None:
    record_id = finished(records)
    lesson, key = lessons.create("To export", "intro")
    lesson_id = UUID(lesson.id)
    lessons.add_chapter(lesson_id, key, {"title": "A", "record_id": str(record_id), "from_step": 2, "to_step": 9})
    lessons.add_chapter(lesson_id, key, {"title": "B", "introduction": "then", "record_id": str(record_id)})
    structure = lessons.structure(lesson_id).to_json()
    assert [c["title"] for c in structure["chapters"]] == ["A", "B"]

    other = finished(records)
    chapters = [{k: v for k, v in c.items() if k not in ("id", "record_id")} | {"record": "r1"} for c in structure["chapters"]]
    rebuilt, new_key = lessons.rebuild({**structure, "chapters": chapters}, {"r1": str(other)}, {})
    assert new_key != key and rebuilt.id != str(lesson_id)
    again = lessons.get(UUID(rebuilt.id), new_key).to_json()
    strip = [{k: v for k, v in c.items() if k not in ("id", "record_id")} for c in structure["chapters"]]
    shown = ("id", "record_id", "introduction_html")  # the page's rendering of the introduction, not in the file
    assert [{k: v for k, v in c.items() if k not in shown} for c in again["chapters"]] == strip
    assert {c["record_id"] for c in again["chapters"]} == {str(other)}
    with pytest.raises(Invalid):
        lessons.rebuild({**structure, "chapters": [{**chapters[0], "to_step": 10_000}]}, {"r1": str(other)}, {})
    with pytest.raises(Invalid):
        lessons.rebuild({**structure, "chapters": chapters}, {"r2": str(other)}, {})


def test_a_chapter_on_a_variation_asks_and_reveals_the_variations_own_move(records: Records, hub: Class) -> None:
    annotator = "the-annotator-key"
    record_id = finished(records, annotator_key=annotator)
    teaching = Teaching(records, hub)  # the facade wires the lessons to the real variations
    lessons = teaching.lessons
    step, seat, played = pause_step(records, record_id)
    vid = teaching.variations.branch(record_id, annotator, step, title="What if").id
    choices = teaching.variations.legal(UUID(vid)).to_json()["commands"]
    instead = next(c["command"] for c in choices if canonical(c["command"]) != canonical(played))
    teaching.variations.play(UUID(vid), annotator, instead)
    line = teaching.variations.line(record_id, vid)

    lesson, key = lessons.create("What if")
    lesson_id = UUID(lesson.id)
    chapter = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "line": vid}).to_json()
    assert (chapter["line"], chapter["from_step"], chapter["to_step"]) == (vid, step, line.last_step)
    with pytest.raises(Invalid) as before_branch:
        lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "line": vid, "from_step": step - 1})
    assert before_branch.value.facts["rule"] == "lesson/steps"
    main = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id), "from_step": 1, "to_step": 2}).to_json()
    moved = lessons.edit_chapter(lesson_id, main["id"], key, {"line": vid}).to_json()  # onto the variation: its steps
    assert (moved["line"], moved["from_step"], moved["to_step"]) == (vid, step, line.last_step)
    lessons.remove_chapter(lesson_id, main["id"], key)
    other = finished(records)
    with pytest.raises(NotFound):
        lessons.add_chapter(lesson_id, key, {"record_id": str(other), "line": vid})  # another record's variation

    lessons.present(lesson_id, key, chapter["id"], step)
    question = lessons.open_pause(lesson_id, key, seat).to_json()
    game = catalog.game(TITLE)
    state = teaching.variations.state_at(UUID(vid), step)
    assert question["view"] == game.view(state, seat) and question["view"] != game.view(state, None)
    lessons.answer(lesson_id, question["id"], "Chiara", instead)
    revealed = lessons.reveal(lesson_id, question["id"], key).to_json()
    assert revealed["played"]["command"] == instead != played  # the variation's move, not the main line's
    assert revealed["tally"]["answers"] == 1

    if not line.finished:  # the variation's last step: someone decides, but nothing was played there yet
        lessons.present(lesson_id, key, chapter["id"], line.last_step)
        deciding = game.pending(teaching.variations.state_at(UUID(vid), line.last_step)).seat
        with pytest.raises(Invalid) as nothing_played:
            lessons.open_pause(lesson_id, key, deciding)
        assert nothing_played.value.facts["rule"] == "lesson/pause-step"


def test_students_answering_at_once_are_all_counted(records: Records, lessons: Lessons, hub: Class) -> None:
    record_id = finished(records)
    step, seat, played = pause_step(records, record_id)
    lesson, key = lessons.create("A full class")
    lesson_id = UUID(lesson.id)
    chapter = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id)}).to_json()
    lessons.present(lesson_id, key, chapter["id"], step)
    pause_id = lessons.open_pause(lesson_id, key, seat).to_json()["id"]
    students = [f"student {k}" for k in range(8)]
    at_once(lambda name: lessons.answer(lesson_id, pause_id, name, played).to_json(), students)
    tally = lessons.tally(lesson_id, pause_id, key).to_json()
    assert tally["answers"] == len(students)
    picked = next(c for c in tally["choices"] if canonical(c["command"]) == canonical(played))
    assert sorted(picked["students"]) == sorted(students) and picked["count"] == len(students)
    sent = hub.of_type("answers")  # in the order they were taken: the class never sees a count go back
    assert [m["count"] for m in sent] == list(range(1, len(students) + 1))
    assert [m["seq"] for m in sent] == sorted(m["seq"] for m in sent)


@pytest.mark.parametrize("title", list(OPTIONS))
def test_every_title_asks_from_the_deciding_seats_own_view(records: Records, lessons: Lessons, title: str) -> None:
    record_id = finished(records, title)
    game = catalog.game(title)
    moves = decisions(records, record_id)
    step, seat, played = moves[len(moves) // 2]  # mid-game: hands, bags and purses are full
    _, state = state_at(records, record_id, step)
    lesson, key = lessons.create(f"Mid-game in {title}")
    lesson_id = UUID(lesson.id)
    chapter = lessons.add_chapter(lesson_id, key, {"record_id": str(record_id)}).to_json()
    lessons.present(lesson_id, key, chapter["id"], step)
    question = lessons.open_pause(lesson_id, key, seat).to_json()
    assert question["view"] == game.view(state, seat)
    if game.view(state, seat) != game.view(state, None):  # where the title hides something at this step
        assert question["view"] != game.view(state, None)
    assert [c["command"] for c in question["choices"]] == [c.to_json() for c in game.legal(state)]
    assert all(c["said"] for c in question["choices"])
    lessons.answer(lesson_id, question["id"], "Chiara", played)
    revealed = lessons.reveal(lesson_id, question["id"], key).to_json()
    assert canonical(revealed["played"]["command"]) == canonical(played)
    assert revealed["tally"]["answers"] == 1
