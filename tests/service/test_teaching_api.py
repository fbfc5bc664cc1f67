"""Teaching over HTTP (issue 14): annotations, variations, lessons, places — and every bad input's problem.

Each test runs on SQLite and on the real PostgreSQL (`client`). The records are short toy games
played to the end through the API; the places of a board come from a real title (Città-Stato).
Every refusal is checked to store nothing.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.service.helpers import auth, play_out_http

PROBLEM = "application/problem+json"


def problem(answer: Any, status: int, rule: str | None = None) -> dict[str, Any]:
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True)[:500])
    assert answer.mimetype == PROBLEM, answer.mimetype
    body = answer.get_json()
    assert body["status"] == status and body["detail"], body
    if rule is not None:
        assert body.get("rule") == rule, body
    return body  # type: ignore[no-any-return]


def new_record(client: Any, title: str = "toy", finish: bool = True) -> tuple[str, list[str], str]:
    """(record id, seat tokens, annotator key)."""
    answer = client.post("/api/records", json={"title": title, "seats": ["Ada", "Ben"]})
    assert answer.status_code == 201, answer.get_json()
    made = answer.get_json()
    tokens = [s["token"] for s in made["seats"]]
    if finish:
        play_out_http(client, made["id"], tokens)
    return made["id"], tokens, made["annotator_key"]


def notes(client: Any, record_id: str, token: str | None = None, line: str = "all") -> list[dict[str, Any]]:
    answer = client.get(f"/api/records/{record_id}/annotations?line={line}", headers=auth(token) if token else {})
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()["notes"]  # type: ignore[no-any-return]


# ---- annotations -------------------------------------------------------------------------------------


def test_annotations_are_written_read_edited_and_deleted_by_who_may(client: Any) -> None:
    record_id, tokens, key = new_record(client)
    base = f"/api/records/{record_id}/annotations"
    made = client.post(base, headers=auth(key), json={"step": 2, "text": "**Why** roll? <script>alert(1)</script>",
                                                      "glyph": "?!", "author": "Prof. Rossi"})
    assert made.status_code == 201, made.get_json()
    note = made.get_json()
    assert made.headers["Location"] == f"{base}/{note['id']}"
    assert note["by"] == "annotator" and note["author"] == "Prof. Rossi" and note["glyph"] == "?!"
    assert "<strong>Why</strong>" in note["html"] and "<script>" not in note["html"] and "&lt;script&gt;" in note["html"]
    private = client.post(base, headers=auth(tokens[0]), json={"step": 1, "text": "I should have drawn"})
    assert private.status_code == 201, private.get_json()
    assert private.get_json()["audience"] == 0 and private.get_json()["by"] == "seat:0"
    to_ada = client.post(base, headers=auth(key), json={"step": 3, "text": "only for Ada", "audience": 0})
    assert to_ada.status_code == 201

    # who reads what
    everyone = client.get(base).get_json()
    assert everyone["reader"] == "public" and everyone["can_annotate"] is False
    assert [n["id"] for n in everyone["notes"]] == [note["id"]]
    ada = client.get(base, headers=auth(tokens[0])).get_json()
    assert ada["reader"] == "seat:0" and ada["can_annotate"] is True
    assert {n["id"] for n in ada["notes"]} == {note["id"], private.get_json()["id"], to_ada.get_json()["id"]}
    assert [n["id"] for n in notes(client, record_id, tokens[1])] == [note["id"]]  # Ben sees none of Ada's
    assert [n["step"] for n in notes(client, record_id, key)] == [1, 2, 3]  # sorted by step
    assert len(notes(client, record_id, key, "main")) == 3

    # edits: only the fields sent; a seat only its own
    edited = client.patch(f"{base}/{note['id']}", headers=auth(key), json={"text": "Why *roll*?"})
    assert edited.status_code == 200, edited.get_json()
    assert edited.get_json()["glyph"] == "?!" and edited.get_json()["edited"] and "<em>roll</em>" in edited.get_json()["html"]
    # Ada's private note does not exist for Ben (its id tells him nothing); the public note is not Ada's to edit
    problem(client.patch(f"{base}/{private.get_json()['id']}", headers=auth(tokens[1]), json={"text": "x"}), 404)
    problem(client.patch(f"{base}/{note['id']}", headers=auth(tokens[0]), json={"text": "mine now"}), 403)
    own = client.patch(f"{base}/{private.get_json()['id']}", headers=auth(tokens[0]), json={"glyph": "??"})
    assert own.status_code == 200 and own.get_json()["glyph"] == "??"
    problem(client.patch(f"{base}/n-000000000000", headers=auth(key), json={"text": "x"}), 404)
    problem(client.patch(f"{base}/{note['id']}", headers=auth(key), json={"by": "seat:1"}), 422)  # not editable

    # delete: no body needed; gone from the list; a second time is a 404
    problem(client.delete(f"{base}/{note['id']}"), 401)
    problem(client.delete(f"{base}/{note['id']}", headers=auth(tokens[1])), 403)
    gone = client.delete(f"{base}/{note['id']}", headers=auth(key))
    assert gone.status_code == 204 and gone.data == b""
    assert note["id"] not in {n["id"] for n in notes(client, record_id, key)}
    problem(client.delete(f"{base}/{note['id']}", headers=auth(key)), 404)


def test_bad_notes_are_refused_with_a_reason_and_nothing_is_stored(client: Any) -> None:
    record_id, tokens, key = new_record(client)
    other_id, other_tokens, other_key = new_record(client)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    base = f"/api/records/{record_id}/annotations"
    good = {"step": 1, "text": "fine"}
    problem(client.post(base, json=good), 401)
    assert client.post(base, json=good).headers["WWW-Authenticate"].startswith("Bearer")
    problem(client.post(base, headers=auth(other_key), json=good), 403)  # another record's annotator key
    problem(client.post(base, headers=auth(other_tokens[0]), json=good), 403)  # another record's seat
    problem(client.post(base, headers=auth("not-a-key"), json=good), 403)
    problem(client.post(base, headers=auth(tokens[0]), json={**good, "audience": 1}), 403)  # a seat for another
    found = problem(client.post(base, headers=auth(key), json={"step": steps + 1, "text": "after the end"}), 422,
                    "annotation/step")
    assert str(steps) in found["detail"]
    problem(client.post(base, headers=auth(key), json={"step": -1, "text": "before"}), 422, "annotation/step")
    problem(client.post(base, headers=auth(key), json={"step": 1, "text": "x" * 8_001}), 413, "annotation/too-long")
    megabyte = client.post(base, headers=auth(key), json={"step": 1, "text": "x" * 1_000_000})
    assert megabyte.status_code == 413 and megabyte.mimetype == PROBLEM
    problem(client.post(base, headers=auth(key), json={"step": 1}), 422, "annotation/empty")
    problem(client.post(base, headers=auth(key), json={"step": 1, "text": "?", "glyph": "!!!"}), 422, "annotation/glyph")
    problem(client.post(base, headers=auth(key), json={"step": 1, "text": "x", "colour": "red"}), 422)  # unknown field
    problem(client.post(base, headers=auth(key), json={"step": "one", "text": "x"}), 422)
    problem(client.post(base, headers=auth(key), json={"text": "x"}), 422)  # no step
    problem(client.post(base, headers=auth(key), json={**good, "line": str(uuid.uuid4())}), 404)
    problem(client.post(base, headers=auth(key), data="step=1", content_type="application/x-www-form-urlencoded"), 415)
    problem(client.post(f"/api/records/{uuid.uuid4()}/annotations", headers=auth(key), json=good), 404)
    problem(client.get(f"/api/records/{uuid.uuid4()}/annotations"), 404)
    problem(client.get(f"{base}?line={uuid.uuid4()}"), 404)
    assert notes(client, record_id, key) == []  # nothing of the above was stored


def test_shapes_name_places_of_the_board(client: Any) -> None:
    record_id, _, key = new_record(client, "citta-stato", finish=False)
    answer = client.get(f"/api/records/{record_id}/places")
    assert answer.status_code == 200, answer.get_json()
    board = answer.get_json()
    assert board["title"] == "citta-stato" and len(board["viewBox"]) == 4 and board["viewBox"][2] > 0
    places = board["places"]
    assert places and all({"x", "y", "label"} <= set(p) for p in places.values())
    first, second = sorted(places)[:2]
    assert all(board["viewBox"][0] <= p["x"] <= board["viewBox"][0] + board["viewBox"][2] for p in places.values())
    shapes = [{"kind": "arrow", "from": first, "to": second, "brush": "red"}, {"kind": "highlight", "at": second.upper()}]
    made = client.post(f"/api/records/{record_id}/annotations", headers=auth(key), json={"step": 1, "shapes": shapes})
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["shapes"][1]["at"] == second  # stored in the canonical spelling
    wrong = problem(client.post(f"/api/records/{record_id}/annotations", headers=auth(key), json={
        "step": 1, "shapes": [{"kind": "highlight", "at": first + "zz"}]}), 422, "annotation/place")
    assert first in str(wrong["facts"].get("did_you_mean", ""))
    problem(client.post(f"/api/records/{record_id}/annotations", headers=auth(key), json={
        "step": 1, "shapes": [{"at": first}]}), 422)  # a shape without a kind
    assert len(notes(client, record_id, key)) == 1
    toy_id, _, _ = new_record(client, finish=False)
    assert problem(client.get(f"/api/records/{toy_id}/places"), 404)["type"].endswith("no-layout")
    problem(client.get(f"/api/records/{uuid.uuid4()}/places"), 404)


# ---- variations --------------------------------------------------------------------------------------


def test_a_variation_is_branched_played_and_read_by_the_rules(client: Any) -> None:
    record_id, tokens, key = new_record(client)
    live_id, live_tokens, live_key = new_record(client, finish=False)
    base = f"/api/records/{record_id}/variations"
    problem(client.post(base, json={"from_step": 1}), 401)
    problem(client.post(base, headers=auth(tokens[0]), json={"from_step": 1}), 403)
    problem(client.post(f"/api/records/{live_id}/variations", headers=auth(live_key), json={"from_step": 1}), 409)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    problem(client.post(base, headers=auth(key), json={"from_step": steps + 5}), 422, "variation/step")
    problem(client.post(base, headers=auth(key), json={"from_step": 1, "parent": str(uuid.uuid4())}), 404)
    problem(client.post(base, headers=auth(key), json={"from_step": 1, "colour": "red"}), 422)
    assert client.get(base).get_json() == {"variations": []}

    made = client.post(base, headers=auth(key), json={"from_step": 1, "title": "What if Ada draws", "author": "Rossi"})
    assert made.status_code == 201, made.get_json()
    summary = made.get_json()
    vid = summary["id"]
    assert made.headers["Location"] == f"/api/variations/{vid}"
    assert summary["record_id"] == record_id and summary["from_step"] == 1 and summary["parent"] is None
    assert client.get(f"/api/variations/{vid}").get_json()["title"] == "What if Ada draws"
    assert [v["id"] for v in client.get(base).get_json()["variations"]] == [vid]

    legal = client.get(f"/api/variations/{vid}/legal").get_json()
    assert legal["step"] == 1 and legal["commands"]
    seat = legal["pending"]["seat"]
    draw = next(c["command"] for c in legal["commands"] if c["command"]["type"] == "toy/draw")
    problem(client.post(f"/api/variations/{vid}/commands", json={"command": draw}), 401)
    problem(client.post(f"/api/variations/{vid}/commands", headers=auth(tokens[seat]), json={"command": draw}), 403)
    refused = problem(client.post(f"/api/variations/{vid}/commands", headers=auth(key),
                                  json={"command": {**draw, "seat": 1 - seat}}), 422)
    assert refused["rule"] and refused["rule"].startswith("toy/")  # the rules' own id, as for a record's command
    problem(client.post(f"/api/variations/{vid}/commands", headers=auth(key), json={"command": {"type": "toy/fly"}}), 422,
            "command/malformed")
    problem(client.post(f"/api/variations/{vid}/commands", headers=auth(key), json={"command": {"type": ["x"]}}), 422)
    assert client.get(f"/api/variations/{vid}").get_json()["moves"] == 0  # nothing stored by the refusals

    played = client.post(f"/api/variations/{vid}/commands", headers=auth(key), json={"command": draw})
    assert played.status_code == 200, played.get_json()
    result = played.get_json()
    assert result["steps"][0] == 2 and result["chance"] == "drawn" and result["events"][0]["step"] == 2
    step = client.get(f"/api/variations/{vid}/steps/2")
    assert step.status_code == 200 and step.get_json()["step"] == 2 and step.get_json()["view_of"] == "all"
    problem(client.get(f"/api/variations/{vid}/steps/99"), 404)
    story = client.get(f"/api/variations/{vid}/story").get_json()
    assert [line["step"] for line in story["lines"]] == list(range(2, result["steps"][1] + 1))
    assert problem(client.get(f"/api/variations/{vid}/steps/2/board"), 404)["type"].endswith("no-layout")  # toy
    problem(client.get(f"/api/variations/{uuid.uuid4()}"), 404)
    problem(client.get(f"/api/variations/{uuid.uuid4()}/legal"), 404)

    # a variation is annotatable like the main line, on its own steps
    note = client.post(f"/api/records/{record_id}/annotations", headers=auth(key),
                       json={"line": vid, "step": 2, "text": "better"})
    assert note.status_code == 201, note.get_json()
    assert [n["line"] for n in notes(client, record_id, line=vid)] == [vid]
    assert notes(client, record_id, line="main") == []


def test_a_variation_of_a_board_title_draws_its_board(client: Any) -> None:
    """Città-Stato's board through the variation route (the record comes from a bot game)."""
    from domain import catalog
    from domain.kernel.bots import GreedyBot, play_bot
    from domain.records import recordfile
    from tests.service.test_api import wait_for_verdict

    game = catalog.game("citta-stato")
    edition = game.default_edition()
    played = play_bot(game, edition, {"players": 2}, "teaching-api", bot=GreedyBot(turns=1, steps=8, width=4))
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": "citta-stato", "edition": edition.ref,
                "seats": [{"name": "Ada"}, {"name": "Ben"}], "options": {"players": 2}, "mode": "transcribed",
                "chance": {}, "entries": [e.to_json() for e in played.entries]}
    submitted = client.post("/api/imports", json=document).get_json()
    verdict = wait_for_verdict(client, submitted["id"], timeout=60)
    assert verdict["status"] == "accepted", verdict
    record_id, key = verdict["record_id"], submitted["annotator_key"]
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    made = client.post(f"/api/records/{record_id}/variations", headers=auth(key), json={"from_step": turns[3]["from"]})
    assert made.status_code == 201, made.get_json()
    vid = made.get_json()["id"]
    command = client.get(f"/api/variations/{vid}/legal").get_json()["commands"][0]["command"]
    moved = client.post(f"/api/variations/{vid}/commands", headers=auth(key), json={"command": command})
    assert moved.status_code == 200, moved.get_json()
    board = client.get(f"/api/variations/{vid}/steps/{moved.get_json()['steps'][1]}/board")
    assert board.status_code == 200 and board.mimetype == "image/svg+xml" and board.data.startswith(b"<svg")


# ---- lessons -----------------------------------------------------------------------------------------


def test_a_lesson_is_built_presented_paused_and_answered(client: Any) -> None:
    record_id, tokens, annotator = new_record(client)
    live_id, _, _ = new_record(client, finish=False)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    problem(client.post("/api/lessons", json={"title": ""}), 422)
    made = client.post("/api/lessons", json={"title": "Dice and bags", "introduction": "When to stop"})
    assert made.status_code == 201, made.get_json()
    lid, key = made.get_json()["lesson"]["id"], made.get_json()["teacher_key"]
    assert made.get_json()["link"] == f"/lessons/{lid}" and made.headers["Location"] == f"/api/lessons/{lid}"
    base = f"/api/lessons/{lid}"
    assert client.get(base).get_json()["teacher"] is False and client.get(base, headers=auth(key)).get_json()["teacher"]
    problem(client.get(base, headers=auth("wrong")), 403)
    problem(client.get(f"/api/lessons/{uuid.uuid4()}"), 404)

    chapter = {"title": "Opening", "record_id": record_id, "from_step": 0, "to_step": 4}
    problem(client.post(f"{base}/chapters", json=chapter), 401)
    problem(client.post(f"{base}/chapters", headers=auth(annotator), json=chapter), 403)
    problem(client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "record_id": live_id}), 409)
    problem(client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "to_step": steps + 1}), 422, "lesson/steps")
    problem(client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "record_id": "nope"}), 422)
    problem(client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "record_id": str(uuid.uuid4())}), 404)
    first = client.post(f"{base}/chapters", headers=auth(key), json=chapter)
    assert first.status_code == 201, first.get_json()
    second = client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "title": "Ending", "from_step": 4,
                                                                       "to_step": steps})
    spare = client.post(f"{base}/chapters", headers=auth(key), json={**chapter, "title": "Spare"})
    c1, c2, c3 = (a.get_json()["id"] for a in (first, second, spare))
    edited = client.patch(f"{base}/chapters/{c2}", headers=auth(key), json={"title": "The end"})
    assert edited.status_code == 200 and edited.get_json()["title"] == "The end" and edited.get_json()["to_step"] == steps
    problem(client.patch(f"{base}/chapters/c-nope", headers=auth(key), json={"title": "x"}), 404)
    assert client.delete(f"{base}/chapters/{c3}", headers=auth(key)).status_code == 204
    problem(client.put(f"{base}/order", headers=auth(key), json={"chapters": [c2]}), 422)
    ordered = client.put(f"{base}/order", headers=auth(key), json={"chapters": [c2, c1]})
    assert ordered.status_code == 200 and [c["id"] for c in ordered.get_json()["chapters"]] == [c2, c1]

    # presenting and a prediction pause
    problem(client.post(f"{base}/present", json={"chapter": c1, "step": 1}), 401)
    problem(client.post(f"{base}/present", headers=auth(key), json={"chapter": c1, "step": 99}), 422)
    problem(client.post(f"{base}/present", headers=auth(key), json={"chapter": c1, "step": 1, "shapes": [
        {"kind": "highlight", "at": "x"}]}), 422)  # the toy board has no places to point at
    at = client.post(f"{base}/present", headers=auth(key), json={"chapter": c1, "step": 1, "shapes": []})
    assert at.status_code == 200, at.get_json()
    assert at.get_json()["chapter"] == c1 and at.get_json()["seq"] >= 1
    assert client.get(base).get_json()["presenter"]["step"] == 1
    seat = client.get(f"/api/records/{record_id}/steps/1").get_json()["pending"]["seat"]
    problem(client.post(f"{base}/pauses", headers=auth(key), json={"seat": 1 - seat}), 422, "lesson/pause-seat")
    opened = client.post(f"{base}/pauses", headers=auth(key), json={"seat": seat, "question": "What would you do?"})
    assert opened.status_code == 201, opened.get_json()
    question = opened.get_json()
    pid = question["id"]
    assert question["open"] and question["seat"] == seat and question["question"] == "What would you do?"
    assert "tally" not in client.get(f"{base}/pauses/{pid}").get_json()
    problem(client.post(f"{base}/pauses", headers=auth(key), json={"seat": seat}), 409)  # one open pause at a time
    choices = [c["command"] for c in question["choices"]]
    assert len(choices) >= 2
    for student, command in (("Carla", choices[0]), ("Dario", choices[1]), ("Carla", choices[1])):
        answered = client.post(f"{base}/pauses/{pid}/answers", json={"student": student, "command": command})
        assert answered.status_code == 201, answered.get_json()
    illegal = {**choices[0], "seat": 1 - seat}
    problem(client.post(f"{base}/pauses/{pid}/answers", json={"student": "Elsa", "command": illegal}), 422,
            "lesson/answer-illegal")
    problem(client.post(f"{base}/pauses/{pid}/answers", json={"student": "", "command": choices[0]}), 422)
    problem(client.post(f"{base}/pauses/{pid}/answers", json={"student": "Elsa"}), 422)
    tally = client.get(f"{base}/pauses/{pid}", headers=auth(key)).get_json()["tally"]
    assert tally["answers"] == 2 and sum(c["count"] for c in tally["choices"]) == 2  # Carla changed her mind
    problem(client.get(f"{base}/pauses/{pid}", headers=auth("wrong")), 403)
    problem(client.post(f"{base}/pauses/{pid}/reveal", headers=auth(key)), 415)  # send {}: a JSON body
    problem(client.post(f"{base}/pauses/{pid}/reveal", json={}), 401)
    revealed = client.post(f"{base}/pauses/{pid}/reveal", headers=auth(key), json={})
    assert revealed.status_code == 200, revealed.get_json()
    assert revealed.get_json()["played"]["command"] and revealed.get_json()["tally"]["answers"] == 2
    problem(client.post(f"{base}/pauses/{pid}/answers", json={"student": "Late", "command": choices[0]}), 409)
    problem(client.get(f"{base}/pauses/p-nope"), 404)

    # the lesson file: exported by the teacher, imported as a new lesson with its records
    for audience in (None, 0):
        assert client.post(f"/api/records/{record_id}/annotations", headers=auth(annotator), json={
            "step": 2, "text": f"for {audience}", "audience": audience}).status_code == 201
    public = client.get(f"{base}/export").get_json()  # the lesson is no secret; notes as the reader may read them
    assert [n["text"] for n in public["records"][0]["file"]["annotations"]] == ["for None"]
    exported = client.get(f"{base}/export", headers=auth(annotator))
    assert exported.status_code == 200, exported.get_json()
    assert exported.headers["Content-Disposition"].startswith("attachment")
    document = exported.get_json()
    assert sorted(n["text"] for n in document["records"][0]["file"]["annotations"]) == ["for 0", "for None"]
    assert document["format"] == "cronaca-lesson" and [c["title"] for c in document["chapters"]] == ["The end", "Opening"]
    imported = client.post("/api/lessons/import", json=document)
    assert imported.status_code == 201, imported.get_json()
    again = imported.get_json()
    assert again["lesson"]["id"] != lid and again["teacher_key"] != key
    assert [c["title"] for c in again["lesson"]["chapters"]] == ["The end", "Opening"]
    assert set(again["records"]) == {r["ref"] for r in document["records"]}
    new_record_id, new_key = again["records"]["r1"], again["annotator_keys"]["r1"]
    assert sorted(n["text"] for n in notes(client, new_record_id, new_key)) == ["for 0", "for None"]
    problem(client.post("/api/lessons/import", json={**document, "format": "something-else"}), 422)
    problem(client.post("/api/lessons/import", data="{}", content_type="text/plain"), 415)


# ---- the contract of the HTTP edge -------------------------------------------------------------------


def test_the_openapi_document_describes_teaching(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    paths = spec["paths"]
    for path, methods in {
        "/api/records/{record_id}/places": {"get"},
        "/api/records/{record_id}/annotations": {"get", "post"},
        "/api/records/{record_id}/annotations/{note_id}": {"patch", "delete"},
        "/api/records/{record_id}/variations": {"get", "post"},
        "/api/variations/{variation_id}": {"get"},
        "/api/variations/{variation_id}/steps/{n}": {"get"},
        "/api/variations/{variation_id}/steps/{n}/board": {"get"},
        "/api/variations/{variation_id}/story": {"get"},
        "/api/variations/{variation_id}/legal": {"get"},
        "/api/variations/{variation_id}/commands": {"post"},
        "/api/lessons": {"post"},
        "/api/lessons/import": {"post"},
        "/api/lessons/{lesson_id}": {"get"},
        "/api/lessons/{lesson_id}/chapters": {"post"},
        "/api/lessons/{lesson_id}/chapters/{chapter_id}": {"patch", "delete"},
        "/api/lessons/{lesson_id}/order": {"put"},
        "/api/lessons/{lesson_id}/present": {"post"},
        "/api/lessons/{lesson_id}/live": {"get"},
        "/api/lessons/{lesson_id}/pauses": {"post"},
        "/api/lessons/{lesson_id}/pauses/{pause_id}": {"get"},
        "/api/lessons/{lesson_id}/pauses/{pause_id}/answers": {"post"},
        "/api/lessons/{lesson_id}/pauses/{pause_id}/reveal": {"post"},
        "/api/lessons/{lesson_id}/export": {"get"},
    }.items():
        assert path in paths, path
        assert methods <= set(paths[path]), (path, set(paths[path]))
    assert {"seat", "annotator", "teacher"} <= set(spec["components"]["securitySchemes"])
    assert "text/event-stream" in paths["/api/lessons/{lesson_id}/live"]["get"]["responses"]["200"]["content"]
    assert paths["/api/records/{record_id}/annotations"]["post"]["responses"]["413"]
    assert {"annotations", "variations", "lessons"} <= {t["name"] for t in spec["tags"]}


@pytest.mark.parametrize("given", ["text/plain", "application/x-www-form-urlencoded"])
def test_teaching_bodies_refuse_what_a_cross_site_form_can_send(client: Any, given: str) -> None:
    record_id, _, key = new_record(client, finish=False)
    made = client.post("/api/lessons", data='{"title": "x"}', content_type=given)
    assert problem(made, 415)["accepted"] == ["application/json"]
    problem(client.post(f"/api/records/{record_id}/annotations", headers=auth(key), data='{"step": 1, "text": "x"}',
                        content_type=given), 415)


def test_a_pause_board_is_the_asked_seats_own_view(client: Any) -> None:
    """A finished Città-Stato game is all-seeing on its record page; in a prediction pause the class sees the
    board as the asked seat saw it then (its own bag and war discs, not the other's)."""
    from domain import catalog
    from replay_viewer.boards import draw, layout_for
    from tests.service.helpers import NAMES, import_finished_http, record_file

    title = "citta-stato"
    accepted = import_finished_http(client, record_file(title, "pause-board"))
    rid = accepted.record_id
    game = catalog.game(title)
    edition = game.default_edition()
    layout_for(title, edition)  # this edition has a drawing
    steps = client.get(f"/api/records/{rid}").get_json()["steps"]
    made = client.post("/api/lessons", json={"title": "Pauses", "introduction": ""}).get_json()
    lid, key = made["lesson"]["id"], made["teacher_key"]
    base = f"/api/lessons/{lid}"
    chapter = client.post(f"{base}/chapters", headers=auth(key),
                          json={"title": "All", "record_id": rid, "from_step": 0, "to_step": steps}).get_json()["id"]
    # the first decision, past the setup, at which the deciding seat's view hides something of the game
    from domain.kernel import Entry

    entries = [Entry.from_json(e) for e in record_file(title, "pause-board")["entries"]]
    states = [game.begin(edition)]  # states[n]: after n game events
    for event in (e for entry in entries for e in entry.events):
        states.append(game.evolve(states[-1], event))
    starts = [sum(len(e.events) for e in entries[:k]) for k in range(1, len(entries))]
    found = [(n, game.pending(states[n]).seat) for n in starts
             if game.view(states[n], game.pending(states[n]).seat) != game.view(states[n], None)]
    assert found, "no decision where a seat's view hides something"
    step, seat = found[0]
    state, previous = states[step], states[step - 1]
    assert client.post(f"{base}/present", headers=auth(key), json={"chapter": chapter, "step": step}).status_code == 200
    pid = client.post(f"{base}/pauses", headers=auth(key), json={"seat": seat}).get_json()["id"]

    answer = client.get(f"{base}/pauses/{pid}/board")
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    mine = draw(title, game.view(state, seat), game.view(previous, seat), edition, NAMES)
    everything = client.get(f"/api/records/{rid}/steps/{step}/board").get_data(as_text=True)
    assert answer.get_data(as_text=True) == mine
    assert answer.get_data(as_text=True) != everything  # the all-seeing board would show what the seat did not know
    problem(client.get(f"{base}/pauses/p-nope/board"), 404)


def test_introductions_are_markdown_as_notes_are(client: Any) -> None:
    """A teacher writes a lesson's and a chapter's introduction as a note's text: emphasis shows, raw HTML and a
    script link stay words; the text as written is kept beside it (the lesson file carries only that)."""
    record_id, _, _ = new_record(client)
    written = "Zoë's class — *first years*\n\nRead `R4` <script>alert(1)</script> [then](javascript:alert(1))"
    made = client.post("/api/lessons", json={"title": "D'Angelo's opening", "introduction": written})
    lesson, key = made.get_json()["lesson"], made.get_json()["teacher_key"]
    assert lesson["introduction"] == written
    html = lesson["introduction_html"]
    assert "<em>first years</em>" in html and "<code>R4</code>" in html and html.count("<p>") == 2, html
    assert "<script" not in html and "&lt;script&gt;" in html and "javascript:" not in html.replace("(javascript:", ""), html
    chapter = client.post(f"/api/lessons/{lesson['id']}/chapters", headers=auth(key),
                          json={"title": "One", "introduction": "**Watch** the market", "record_id": record_id,
                                "from_step": 0, "to_step": 2})
    assert chapter.get_json()["introduction_html"] == "<p><strong>Watch</strong> the market</p>", chapter.get_json()
    again = client.get(f"/api/lessons/{lesson['id']}").get_json()
    assert again["introduction_html"] == html and again["chapters"][0]["introduction_html"].startswith("<p><strong>")
    exported = client.get(f"/api/lessons/{lesson['id']}/export").get_json()
    assert "introduction_html" not in json.dumps(exported), "the file keeps what was written, not its rendering"
