"""Files that keep everything: a lesson file and a record file carry notes, variations and chapters
through export and import (domain/records/lessonfile.py), for every title; bad files are refused
naming where, and nothing is stored."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.records import Records, lessonfile
from domain.records.errors import Invalid, RecordsError
from domain.records.settings import Settings
from domain.records.teaching import Teaching
from tests.service.helpers import as_json, auth, import_finished_http, record_file, same_notes, studied

TITLES = ["citta-stato", "la-citta", "serenissima"]
KEY = "the-annotator-key-of-this-test"


def record_document(title: str) -> dict[str, Any]:
    """A finished greedy-bot game of `title` as a transcribed record file (a fresh copy of one game per title)."""
    return record_file(title, f"lessonfile-{title}", greedy=True)


def study(teaching: Teaching, record_id: UUID, title: str, key: str = KEY) -> dict[str, Any]:
    """Notes on three steps of the main line (one only seat 1 sees), a variation of two moves with a note."""
    return studied(teaching, record_id, title, key, "**Why** not war?", moves=2)


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Records]:
    """A second service on a SQLite file of its own: where a file is imported."""
    app = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                     "SQLITE_DBNAME": str(tmp_path / "fresh.sqlite3")}).store)
    yield app
    app.close()


@pytest.mark.parametrize("title", TITLES)
def test_a_lesson_exported_and_imported_on_a_fresh_service_is_the_same_lesson(records: Records, fresh: Records,
                                                                              title: str) -> None:
    teaching = Teaching(records)
    record_id = records.imports.import_checked(record_document(title), KEY)
    made = study(teaching, record_id, title)
    vid = made["variation"]
    lesson, teacher = teaching.lessons.create("Openings", "Two ways to start")
    lid = UUID(lesson.id)
    teaching.lessons.add_chapter(lid, teacher, {"title": "As played", "introduction": "the game", "record_id": str(record_id),
                                                "line": None, "from_step": 0, "to_step": made["steps"]})
    teaching.lessons.add_chapter(lid, teacher, {"title": "What if", "record_id": str(record_id), "line": str(vid),
                                                "from_step": made["from_step"], "to_step": made["last_step"]})

    document = json.loads(json.dumps(lessonfile.export_lesson(teaching, lid, KEY).to_json()))
    assert document["format"] == "cronaca-lesson" and len(document["records"]) == 1
    assert len(document["records"][0]["file"]["annotations"]) == 4  # the annotator key reads the seat-only note too

    again = Teaching(fresh)
    result = lessonfile.import_lesson(again, document)
    new_record = UUID(result.records["r1"])
    assert new_record != record_id and set(result.annotator_keys) == {"r1"}
    rebuilt = again.lessons.get(UUID(result.lesson.id), result.teacher_key).to_json()
    assert rebuilt["teacher"] is True
    assert (rebuilt["title"], rebuilt["introduction"]) == ("Openings", "Two ways to start")
    original = teaching.lessons.get(lid, None).to_json()["chapters"]
    assert [(c["title"], c["introduction"], c["from_step"], c["to_step"]) for c in rebuilt["chapters"]] == \
        [(c["title"], c["introduction"], c["from_step"], c["to_step"]) for c in original]
    assert {c["record_id"] for c in rebuilt["chapters"]} == {str(new_record)}
    new_vid = rebuilt["chapters"][1]["line"]
    assert rebuilt["chapters"][0]["line"] is None and new_vid not in (None, str(vid))
    assert again.variations.entries(UUID(new_vid)) == teaching.variations.entries(vid)
    assert again.variations.summary(UUID(new_vid)).from_step == made["from_step"]
    same_notes(teaching.notes.all_notes(record_id), again.notes.all_notes(new_record), {None: None, str(vid): new_vid})
    # the new record's own key reads every note; the public not the seat-only one
    assert len(again.notes.list(new_record, result.annotator_keys["r1"]).to_json()["notes"]) == 4
    assert len(again.notes.list(new_record, None).to_json()["notes"]) == 3
    # exported again, the lesson file says the same (new ids aside)
    second = lessonfile.export_lesson(again, UUID(result.lesson.id), result.annotator_keys["r1"]).to_json()
    assert [(c["title"], c["from_step"], c["to_step"], c["line"] is None) for c in second["chapters"]] == \
        [(c["title"], c["from_step"], c["to_step"], c["line"] is None) for c in document["chapters"]]


def test_a_lesson_file_exported_without_the_annotator_key_keeps_only_public_notes(records: Records) -> None:
    teaching = Teaching(records)
    record_id = records.imports.import_checked(record_document("citta-stato"), KEY)
    made = study(teaching, record_id, "citta-stato")
    lesson, teacher = teaching.lessons.create("Public", "")
    teaching.lessons.add_chapter(UUID(lesson.id), teacher, {"record_id": str(record_id), "from_step": 0,
                                                               "to_step": made["steps"]})
    for token in (None, teacher):  # the teacher key opens the lesson, not the record's private notes
        document = lessonfile.export_lesson(teaching, UUID(lesson.id), token).to_json()
        notes = document["records"][0]["file"]["annotations"]
        assert len(notes) == 3 and all(n["audience"] is None for n in notes)
        assert len(document["records"][0]["file"]["variations"]) == 1


def lesson_of(records: Records) -> tuple[Teaching, dict[str, Any]]:
    teaching = Teaching(records)
    record_id = records.imports.import_checked(record_document("citta-stato"), KEY)
    made = study(teaching, record_id, "citta-stato")
    lesson, teacher = teaching.lessons.create("To break", "")
    teaching.lessons.add_chapter(UUID(lesson.id), teacher, {"record_id": str(record_id), "line": str(made["variation"]),
                                                               "from_step": made["from_step"], "to_step": made["last_step"]})
    return teaching, lessonfile.export_lesson(teaching, UUID(lesson.id), KEY).to_json()


def nothing_stored(records: Records) -> None:
    assert records.reading.find() == []
    assert list(records.recorder.select_notifications(start=1, limit=10)) == []


@pytest.fixture
def exported(tmp_path: Path) -> Iterator[dict[str, Any]]:
    app = Records({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "source.sqlite3")})
    yield lesson_of(app)[1]
    app.close()


def test_a_note_on_a_step_that_does_not_exist_is_named_and_nothing_is_stored(exported: dict[str, Any], fresh: Records) -> None:
    document = copy.deepcopy(exported)
    notes = document["records"][0]["file"]["annotations"]
    notes[2]["step"] = 100_000
    with pytest.raises(Invalid) as caught:
        lessonfile.import_lesson(Teaching(fresh), document)
    assert "record r1" in caught.value.message and "note 2" in caught.value.message
    assert caught.value.facts["rule"] == "annotation/step" and caught.value.facts["record"] == "r1"
    nothing_stored(fresh)


def test_a_variation_the_rules_refuse_is_named_with_its_entry_and_nothing_is_stored(exported: dict[str, Any],
                                                                                   fresh: Records) -> None:
    document = copy.deepcopy(exported)
    line = document["records"][0]["file"]["variations"][0]
    line["entries"][0]["command"]["seat"] = 1 - line["entries"][0]["command"]["seat"]  # not that seat's turn
    with pytest.raises(RecordsError) as caught:
        lessonfile.import_lesson(Teaching(fresh), document)
    assert caught.value.status == 422
    assert f"variation {line['ref']}" in caught.value.message and "entry 0" in caught.value.message
    assert caught.value.facts["variation"] == line["ref"] and caught.value.facts["entry"] == 0
    nothing_stored(fresh)


def test_a_bad_record_in_a_lesson_file_is_named_by_its_ref_and_entry(exported: dict[str, Any], fresh: Records) -> None:
    document = copy.deepcopy(exported)
    entries = document["records"][0]["file"]["entries"]
    entries[5]["command"]["seat"] = 1 - entries[5]["command"]["seat"]
    with pytest.raises(Invalid) as caught:
        lessonfile.import_lesson(Teaching(fresh), document)
    assert caught.value.message.startswith("record r1:") and caught.value.facts["entry"] == 5
    nothing_stored(fresh)


@pytest.mark.parametrize(("change", "rule"), [
    (lambda d: d["chapters"][0].update(record="r9"), "lesson-file/shape"),
    (lambda d: d["chapters"][0].update(line="nope"), "lesson-file/shape"),
    (lambda d: d.update(format="cronaca-record"), "lesson-file/format"),
    (lambda d: d["records"][0]["file"].update(annotations={"a": 1}), "file/annotations"),
    (lambda d: d["records"][0]["file"]["annotations"][0].update(line="no-such-line"), "file/annotations"),
    (lambda d: d["records"][0]["file"]["variations"][0].update(parent="no-such-line"), "file/variations"),
    (lambda d: d["records"][0]["file"]["variations"][0].update(from_step="3"), "file/variations"),
])
def test_malformed_lesson_files_are_refused_before_anything_runs(exported: dict[str, Any], fresh: Records,
                                                                 change: Any, rule: str) -> None:
    document = copy.deepcopy(exported)
    change(document)
    with pytest.raises(Invalid) as caught:
        lessonfile.import_lesson(Teaching(fresh), document)
    assert caught.value.facts["rule"] == rule, caught.value.message
    nothing_stored(fresh)


def test_a_record_file_with_a_megabyte_note_is_refused_at_submit(records: Records) -> None:
    document = record_document("citta-stato")
    document["annotations"] = [{"step": 3, "text": "x" * 1_000_000}]
    with pytest.raises(RecordsError) as caught:
        records.imports.submit(document)
    assert caught.value.status == 413 and caught.value.facts["rule"] == "annotation/too-long"


def test_a_record_file_keeps_its_notes_and_variations_through_export_and_import(client: Any) -> None:
    first, key, _, _ = import_finished_http(client, record_document("la-citta"))
    record_id = UUID(first)
    service = client.application.extensions["cronaca"]
    teaching = service.teaching
    made = study(teaching, record_id, "la-citta", key)
    public = client.get(f"/api/records/{record_id}/export").get_json()
    assert len(public["annotations"]) == 3 and len(public["variations"]) == 1
    full = client.get(f"/api/records/{record_id}/export", headers=auth(key))
    assert full.status_code == 200, full.get_json()
    document = full.get_json()
    assert len(document["annotations"]) == 4
    assert client.get(f"/api/records/{record_id}/export", headers=auth("not-a-key")).status_code == 403

    verdict = import_finished_http(client, document).verdict
    assert "extras" not in verdict["report"], verdict
    new_record = UUID(verdict["record_id"])
    [line] = as_json(teaching.variations.of_record(new_record))
    assert line["from_step"] == made["from_step"] and line["id"] != str(made["variation"])
    assert teaching.variations.entries(UUID(line["id"])) == teaching.variations.entries(made["variation"])
    same_notes(teaching.notes.all_notes(record_id), teaching.notes.all_notes(new_record),
               {None: None, str(made["variation"]): line["id"]})


def test_an_import_whose_notes_are_refused_keeps_the_game_and_says_why(client: Any) -> None:
    document = record_document("serenissima")
    document["annotations"] = [{"id": "n-1", "step": 2, "text": "fine"}, {"id": "n-2", "step": 99_999, "text": "nowhere"}]
    verdict = import_finished_http(client, document).verdict
    extras = verdict["report"]["extras"]
    assert extras["ok"] is False and extras["rule"] == "annotation/step" and "note 1" in extras["message"]
    teaching = client.application.extensions["cronaca"].teaching
    assert teaching.notes.all_notes(UUID(verdict["record_id"])) == []  # all or none: the good note is not kept either


def test_nested_variations_come_back_under_their_parents_whatever_the_file_order(records: Records, fresh: Records) -> None:
    teaching = Teaching(records)
    record_id = records.imports.import_checked(record_document("citta-stato"), KEY)
    made = study(teaching, record_id, "citta-stato")
    parent = made["variation"]
    child = teaching.variations.branch(record_id, KEY, made["from_step"], str(parent), "deeper", "").to_json()
    legal = teaching.variations.legal(UUID(child["id"])).to_json()["commands"]
    teaching.variations.play(UUID(child["id"]), KEY, legal[-1]["command"])
    teaching.notes.add(record_id, KEY, {"line": child["id"], "step": made["from_step"] + 1, "text": "deeper still"})
    document = lessonfile.record_file(teaching, record_id, KEY).to_json()
    document["variations"].reverse()  # the child first: the import orders them
    copy_id = fresh.imports.import_checked({k: v for k, v in document.items() if k not in ("annotations", "variations")})
    lessonfile.attach_extras(fresh, copy_id, document)
    again = Teaching(fresh)
    lines = {line["title"]: line for line in as_json(again.variations.of_record(copy_id))}
    assert set(lines) == {"what if", "deeper"}
    assert lines["deeper"]["parent"] == lines["what if"]["id"]
    assert again.variations.entries(UUID(lines["deeper"]["id"])) == teaching.variations.entries(UUID(child["id"]))
    same_notes(teaching.notes.all_notes(record_id), again.notes.all_notes(copy_id),
               {None: None, str(parent): lines["what if"]["id"], child["id"]: lines["deeper"]["id"]})
    lessonfile.attach_extras(fresh, copy_id, document)  # a job run again adds nothing
    assert len(as_json(again.variations.of_record(copy_id))) == 2 and len(again.notes.all_notes(copy_id)) == 5


def test_a_lesson_travels_over_http_and_a_bad_one_is_a_problem(client: Any) -> None:
    records = client.application.extensions["cronaca"].records
    teaching = client.application.extensions["cronaca"].teaching
    record_id = records.imports.import_checked(record_document("serenissima"), KEY)
    made = study(teaching, record_id, "serenissima")
    created = client.post("/api/lessons", json={"title": "Over the wire", "introduction": ""}).get_json()
    lid, teacher = created["lesson"]["id"], created["teacher_key"]
    chapter = client.post(f"/api/lessons/{lid}/chapters", headers=auth(teacher),
                          json={"title": "What if", "record_id": str(record_id), "line": str(made["variation"]),
                                "from_step": made["from_step"], "to_step": made["last_step"]})
    assert chapter.status_code == 201, chapter.get_json()
    exported = client.get(f"/api/lessons/{lid}/export", headers=auth(KEY))
    assert exported.status_code == 200, exported.get_json()
    document = exported.get_json()
    assert len(document["records"][0]["file"]["annotations"]) == 4
    answer = client.post("/api/lessons/import", json=document)
    assert answer.status_code == 201, answer.get_json()
    made_again = answer.get_json()
    lesson = client.get(f"/api/lessons/{made_again['lesson']['id']}").get_json()
    assert lesson["title"] == "Over the wire" and len(lesson["chapters"]) == 1
    new_record = made_again["records"]["r1"]
    notes = client.get(f"/api/records/{new_record}/annotations", headers=auth(made_again["annotator_keys"]["r1"])).get_json()
    assert len(notes["notes"]) == 4
    before = len(records.reading.find())
    document["records"][0]["file"]["annotations"][0]["shapes"] = [{"kind": "highlight", "at": "atlantis"}]
    refused = client.post("/api/lessons/import", json=document)
    assert refused.status_code == 422 and refused.content_type.startswith("application/problem+json")
    problem = refused.get_json()
    assert problem["facts"]["record"] == "r1" and problem["facts"]["note"] == 0, problem
    assert problem["rule"] == "annotation/place" and "atlantis" in problem["detail"], problem
    assert len(records.reading.find()) == before


def test_notes_written_by_hand_without_ids_get_their_own(client: Any) -> None:
    document = record_document("serenissima")
    document["annotations"] = [{"step": 2, "text": "by hand"}, {"step": 3, "glyph": "!!", "audience": 0}]
    verdict = import_finished_http(client, document).verdict
    assert "extras" not in verdict["report"], verdict
    notes = client.application.extensions["cronaca"].teaching.notes.all_notes(UUID(verdict["record_id"]))
    assert sorted((n["step"], n["text"], n["glyph"], n["audience"]) for n in notes) == [(2, "by hand", None, None),
                                                                                         (3, "", "!!", 0)]
    assert len({n["id"] for n in notes}) == 2 and all(n["id"].startswith("n-") for n in notes)


@pytest.mark.parametrize("title", TITLES)
def test_a_notation_file_with_notes_and_a_variation_brings_them_back(client: Any, title: str) -> None:
    """The notation's own reader (domain/records/studynotation.py) gives the extras; this file attaches them."""
    studynotation = pytest.importorskip("domain.records.studynotation")
    service = client.application.extensions["cronaca"]
    record_id = service.records.imports.import_checked(record_document(title), KEY)
    made = study(service.teaching, record_id, title)
    text = studynotation.render_study(service.records, service.teaching, record_id, KEY)
    verdict = import_finished_http(client, text.encode(), content_type="text/x-cronaca-notation").verdict
    assert "extras" not in verdict["report"], verdict
    new_record = UUID(verdict["record_id"])
    [line] = as_json(service.teaching.variations.of_record(new_record))
    assert line["from_step"] == made["from_step"]
    assert [e["command"] for e in service.teaching.variations.entries(UUID(line["id"]))] == \
        [e["command"] for e in service.teaching.variations.entries(made["variation"])]
    before = service.teaching.notes.all_notes(record_id)
    after = service.teaching.notes.all_notes(new_record)
    lines = {None: None, str(made["variation"]): line["id"]}
    def said(note: dict[str, Any], line: str | None) -> tuple[str, ...]:
        return tuple(map(str, (line, note["step"], note["text"], note["glyph"], note["audience"], note["shapes"])))

    assert sorted(said(n, lines[n["line"]]) for n in before) == sorted(said(n, n["line"]) for n in after)


LINE = {"ref": "v1", "parent": None, "from_step": 4, "title": "", "author": "", "seed": None, "entries": []}


@pytest.mark.parametrize(("extras", "rule", "where"), [
    ({"variations": [LINE, {**LINE, "parent": "v1"}]}, "file/variations", "variation 1"),  # the same ref twice
    ({"variations": [{**LINE, "parent": "v2"}, {**LINE, "ref": "v2", "parent": "v1"}]}, "file/variations", "circle"),
    ({"variations": [{**LINE, "entries": [{"setup": {"players": 2}}]}]}, "file/variations", "entry 0"),
    ({"variations": [{**LINE, "entries": [{"command": {"type": "x"}, "chance": "luck"}]}]}, "file/variations", "chance"),
    ({"variations": [LINE] * 501}, "file/limit", "500"),
    ({"annotations": [{"step": -1}]}, "file/annotations", "note 0"),
    ({"annotations": [{"step": 2, "audience": "Ben"}]}, "file/annotations", "audience"),
    ({"annotations": [{"step": 2, "shapes": [{"kind": "highlight"}] * 65}]}, "file/annotations", "64"),
])
def test_a_record_file_with_misshapen_extras_is_refused_at_submit(records: Records, extras: dict[str, Any], rule: str,
                                                                  where: str) -> None:
    document = {**record_document("la-citta"), **extras}
    with pytest.raises(Invalid) as caught:
        records.imports.submit(document)
    assert caught.value.facts["rule"] == rule and where in caught.value.message, caught.value.message
    nothing_stored(records)  # not even the import
