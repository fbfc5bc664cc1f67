"""Issue 14, "how this is checked": a teacher's whole path in real Chromium, then a class on a fresh service.

A finished game is imported (API). On the RECORD page, with the record's annotator key in the hash, the
teacher annotates three steps through the UI (an arrow drawn with the mouse, a highlight with the
keyboard, comments with glyphs, one of them for Ada only) and makes a variation with one legal move
from the page. On /lessons/new the teacher makes a lesson and two chapters (a main-line range, the
variation), then downloads the lesson file ("download lesson file", with the annotator key so the
seat-only note travels too). A FRESH service (a second server on its own SQLite file) imports it
through /lessons/new's import form; the two lessons are compared through the API (chapters, notes,
the variation's moves). A class of two students (browser contexts of their own) follows the imported
lesson across both chapters and answers a prediction pause: tally 2, the reveal shows the move to both.
Screenshots (browsing.SHOTS): lesson-import-form.png and lesson-imported.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import auth
from tests.service.test_lesson_page import add_chapter, at, deciding, finished_record, press_to
from tests.service.test_study_page import PLACES, click_place, load_places, ready

pytestmark = pytest.mark.browser
TITLE = "citta-stato"
SHOTS = browsing.SHOTS  # the page tests' screenshots (var/screenshots, or $CRONACA_PAGE_SHOTS)
NAMES = ["Ada", "Ben"]

# fixtures, used by name; `context` opens a page per call, each in a browser context of its own
browser, context = browsing.browser, browsing.context


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[tuple[str, Any], tuple[str, Any]]]:
    """Two services, each served on its own port with its own SQLite file: the teacher's, and a fresh one."""
    with served_app(tmp_path_factory.mktemp("first"), CRONACA_SSE_PING=1.0) as (base, app), \
            served_app(tmp_path_factory.mktemp("fresh"), CRONACA_SSE_PING=1.0) as (fresh_base, fresh_app):
        yield (base, app.test_client()), (fresh_base, fresh_app.test_client())


def open_record(page: Any, base: str, record_id: str, key: str, step: int) -> None:
    """The record page at `step` with the annotator key in the hash (a fresh load: the key opens the tools)."""
    page.goto("about:blank")
    page.goto(f"{base}/records/{record_id}#step={step}&key={key}")
    ready(page, step)
    expect(page.locator("#note-form")).to_be_visible()


def save_note(page: Any, text: str, glyph: str, audience: str = "") -> None:
    page.locator("#note-text").fill(text)
    page.locator("#note-glyph").select_option(glyph)
    page.locator("#note-audience").select_option(audience)
    page.locator("#note-author").fill("Prof. Rossi")
    page.locator("#note-save").click()


def comparable(notes: list[dict[str, Any]], line_map: dict[str, str]) -> list[tuple[Any, ...]]:
    """What must survive the trip: line (renamed to the new variation id), step, text, shapes, glyph, audience, author."""
    return sorted((line_map.get(n["line"], n["line"]) if n["line"] else None, n["step"], n["text"],
                   json.dumps(n["shapes"], sort_keys=True), n["glyph"], n["audience"], n["author"]) for n in notes)


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=True)


def test_a_lesson_built_in_the_browser_travels_to_a_fresh_service_and_is_taught(services: Any, context: Any,
                                                                                 tmp_path: Path) -> None:
    (base, client), (fresh_base, fresh) = services
    record_id, key = finished_record(client, TITLE)
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    ends = [t["to"] for t in turns]
    assert len(ends) >= 10, ends
    first, last = ends[1], ends[7]  # chapter 1: the main line from the end of turn 2 to the end of turn 8
    pause_step, pause_seat = deciding(client, record_id, [e for e in ends[4:7] if first < e < last])
    arrow_step, ring_step, branch_from = first + 1, ends[3], ends[2]
    a, b, ring = PLACES[TITLE]

    # 1. the teacher annotates three steps on the record page, then makes a variation with one legal move
    teacher = context()
    open_record(teacher, base, record_id, key, arrow_step)
    load_places(teacher, base, record_id)
    click_place(teacher, a)  # the mouse: a place, then another, is an arrow
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", a)
    click_place(teacher, b)
    expect(teacher.locator("svg.cronaca-shapes g.arrow")).to_have_count(1)
    save_note(teacher, "**Opening**: watch the market.", "!?")
    expect(teacher.locator("#step-notes li.note")).to_have_count(1)

    open_record(teacher, base, record_id, key, ring_step)
    teacher.locator("#place-find").fill(ring)  # the keyboard: find the place in the list, h rings it
    listbox = teacher.locator("#places")
    listbox.focus()
    expect(listbox.locator("[aria-selected=true]")).to_have_attribute("data-place", ring)
    listbox.press("h")
    expect(teacher.locator(f'svg.cronaca-shapes g.highlight[data-at="{ring}"]')).to_have_count(1)
    save_note(teacher, "Ada, *this* is where you stand.", "!", audience="0")  # for Ada only
    expect(teacher.locator("#step-notes li.note .audience")).to_have_text("only Ada")

    open_record(teacher, base, record_id, key, pause_step)
    save_note(teacher, "The key decision: what would you do?", "?")
    expect(teacher.locator("#step-notes li.note")).to_have_count(1)

    open_record(teacher, base, record_id, key, branch_from)
    teacher.locator("#whatif-title").fill("the other road")
    teacher.locator("#whatif").click()
    expect(teacher.locator("#study-line")).to_contain_text("the other road")
    variation_id = client.get(f"/api/records/{record_id}/variations").get_json()["variations"][-1]["id"]
    ready(teacher, branch_from, variation_id)
    teacher.locator("#legal .legal-move").first.click()
    expect(teacher.locator(f'#moves li.branch[data-line="{variation_id}"] .branch-head')).to_contain_text("1 move")
    branch = client.get(f"/api/variations/{variation_id}").get_json()
    assert branch["moves"] == 1 and branch["last_step"] > branch_from
    notes = client.get(f"/api/records/{record_id}/annotations", headers=auth(key)).get_json()["notes"]
    assert sorted((n["step"], n["glyph"], n["audience"]) for n in notes) == sorted(
        [(arrow_step, "!?", None), (ring_step, "!", 0), (pause_step, "?", None)])
    assert {"kind": "arrow", "from": a, "to": b, "brush": "green"} in next(n for n in notes if n["step"] == arrow_step)["shapes"]
    assert next(n for n in notes if n["step"] == ring_step)["shapes"] == [{"kind": "highlight", "at": ring, "brush": "green"}]

    # 2. the lesson and its two chapters, made on /lessons/new and the lesson page
    teacher.goto(f"{base}/lessons/new")
    expect(teacher.locator("#import-lesson")).to_be_visible()
    teacher.locator("#new-lesson input[name=title]").fill("Reading a game of Città-Stato")
    teacher.locator("#new-lesson textarea[name=introduction]").fill("The opening as played, then another road.")
    teacher.locator("#new-lesson button[type=submit]").click()
    teacher.wait_for_url(re.compile(r"/lessons/[0-9a-f-]{36}#key="))
    lesson_id = teacher.url.split("/lessons/")[1].split("#")[0]
    teacher_key = teacher.url.split("#key=")[1]
    expect(teacher.locator("body")).to_have_attribute("data-ready", "yes")
    add_chapter(teacher, base, record_id, first, last, "The opening", "How Ada and Ben set out.")
    add_chapter(teacher, base, record_id, branch_from, branch["last_step"], "The other road", "What if.", line=variation_id)
    expect(teacher.locator("#chapters li")).to_have_count(2)
    expect(teacher.locator("#imported-keys")).to_be_hidden()  # only an import has keys to show

    # 3. the lesson file, downloaded through the page (the annotator key keeps Ada's own note in it)
    expect(teacher.locator("#export-button")).to_be_visible()
    teacher.locator("#export-key-box summary").click()
    teacher.locator("#export-lesson input[name=key]").fill(key)
    with teacher.expect_download() as info:
        teacher.locator("#export-button").click()
    download = info.value
    assert download.suggested_filename == "lesson-reading-a-game-of-citta-stato.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    lesson_file = json.loads(saved.read_text())
    expect(teacher.locator("#export-status")).to_contain_text("2 chapters, 1 record, 3 notes")
    assert lesson_file["format"] == "cronaca-lesson" and len(lesson_file["records"]) == 1
    assert len(lesson_file["records"][0]["file"]["annotations"]) == 3

    # 4. a fresh service imports it through /lessons/new's form: the teacher lands on it, keys shown once
    newcomer = context()
    newcomer.goto(f"{fresh_base}/lessons/new")
    newcomer.locator("#import-lesson input[name=file]").set_input_files(str(saved))
    shot(newcomer, "lesson-import-form.png")
    newcomer.locator("#import-lesson button[type=submit]").click()
    newcomer.wait_for_url(re.compile(r"/lessons/[0-9a-f-]{36}#key="))
    new_lesson_id = newcomer.url.split("/lessons/")[1].split("#")[0]
    new_teacher_key = newcomer.url.split("#key=")[1]
    assert new_lesson_id != lesson_id or fresh_base != base
    expect(newcomer.locator("body")).to_have_attribute("data-ready", "yes")
    expect(newcomer.locator("#imported-keys")).to_be_visible()
    expect(newcomer.locator("#imported-key-list li")).to_have_count(1)
    new_record_id = newcomer.locator("#imported-key-list li").get_attribute("data-record")
    new_key = newcomer.locator("#imported-key-list code.annotator-key").inner_text().strip()
    assert new_key and new_key != key
    expect(newcomer.locator("#imported-key-list li a")).to_have_attribute("href", re.compile(f"/records/{new_record_id}#key="))
    expect(newcomer.locator("#chapters li")).to_have_count(2)
    shot(newcomer, "lesson-imported.png")

    old = client.get(f"/api/lessons/{lesson_id}", headers=auth(teacher_key)).get_json()
    new = fresh.get(f"/api/lessons/{new_lesson_id}", headers=auth(new_teacher_key)).get_json()
    assert new["teacher"] is True and (new["title"], new["introduction"]) == (old["title"], old["introduction"])
    new_variations = fresh.get(f"/api/records/{new_record_id}/variations").get_json()["variations"]
    assert len(new_variations) == 1
    line_map = {variation_id: new_variations[0]["id"]}
    assert [(c["title"], c["introduction"], c["from_step"], c["to_step"], line_map.get(c["line"]) if c["line"] else None)
            for c in old["chapters"]] == [(c["title"], c["introduction"], c["from_step"], c["to_step"], c["line"])
                                          for c in new["chapters"]]
    assert {c["record_id"] for c in new["chapters"]} == {new_record_id}
    old_notes = client.get(f"/api/records/{record_id}/annotations", headers=auth(key)).get_json()["notes"]
    new_notes = fresh.get(f"/api/records/{new_record_id}/annotations", headers=auth(new_key)).get_json()
    assert new_notes["reader"] == "annotator"
    assert comparable(new_notes["notes"], {}) == comparable(old_notes, line_map)
    assert sorted(n["id"] for n in new_notes["notes"]) == sorted(n["id"] for n in old_notes)  # ids kept
    public = fresh.get(f"/api/records/{new_record_id}/annotations").get_json()["notes"]
    assert sorted(n["step"] for n in public) == [arrow_step, pause_step]  # Ada's note stays Ada's
    old_branch, new_branch = branch, new_variations[0]
    assert {k: new_branch[k] for k in ("from_step", "title", "last_step", "moves", "parent")} == \
        {k: old_branch[k] for k in ("from_step", "title", "last_step", "moves", "parent")}
    old_story = client.get(f"/api/variations/{variation_id}/story").get_json()["lines"]
    new_story = fresh.get(f"/api/variations/{new_branch['id']}/story").get_json()["lines"]
    assert new_story == old_story and new_story
    old_export = client.get(f"/api/records/{record_id}/export", headers=auth(key)).get_json()["variations"][0]["entries"]
    new_export = fresh.get(f"/api/records/{new_record_id}/export", headers=auth(new_key)).get_json()["variations"][0]["entries"]
    assert [e["command"] for e in new_export] == [e["command"] for e in old_export]

    # 5. a class of two follows the imported lesson across both chapters and answers a pause
    newcomer.locator("#imported-done").click()
    expect(newcomer.locator("#imported-keys")).to_be_hidden()
    c1, c2 = (c["id"] for c in new["chapters"])
    pupils = [context() for _ in range(2)]
    for pupil in pupils:
        pupil.goto(f"{fresh_base}/lessons/{new_lesson_id}")
        expect(pupil.locator("body")).to_have_attribute("data-live", "open")
        expect(pupil.locator("#export-lesson")).to_be_hidden()
        expect(pupil.locator("#imported-keys")).to_be_hidden()
    newcomer.locator(f'#chapters li[data-chapter="{c1}"] .chapter-link').click()
    expect(newcomer.locator("body")).to_have_attribute("data-presented", f"{c1}:{first}:0")
    press_to(newcomer, first, arrow_step)
    for pupil in pupils:
        at(pupil, c1, arrow_step)
        expect(pupil.locator("#notes .note-text strong")).to_have_text("Opening")  # the imported note at its step
        expect(pupil.locator(f'#board svg.overlay .shape[data-kind="arrow"][data-from="{a}"]')).to_have_count(1)
    newcomer.locator("#slider").focus()
    newcomer.keyboard.press("PageDown")  # the variation's chapter
    at(newcomer, c2, branch_from)
    newcomer.keyboard.press("End")
    for pupil in pupils:
        at(pupil, c2, branch["last_step"])
        expect(pupil.locator("#said")).to_have_text(new_story[-1]["text"])
        expect(pupil.locator("#chapter-intro")).to_contain_text("a variation")
    newcomer.keyboard.press("PageUp")  # back to chapter 1, to the step of the pause
    at(newcomer, c1, first)
    press_to(newcomer, first, pause_step)
    for pupil in pupils:
        at(pupil, c1, pause_step)
        expect(pupil.locator("#notes .note-text")).to_contain_text("The key decision")

    seat_name = NAMES[pause_seat]
    expect(newcomer.locator("#pause-decider")).to_contain_text(f"{seat_name} decides at this step")
    newcomer.locator("#pause-question").fill(f"What would you do as {seat_name}?")
    newcomer.locator("#open-pause-button").click()
    expect(newcomer.locator("body")).to_have_attribute("data-pause", re.compile(r"p-"))
    pause_id = newcomer.locator("body").get_attribute("data-pause")
    question = fresh.get(f"/api/lessons/{new_lesson_id}/pauses/{pause_id}").get_json()
    assert (question["seat"], question["step"]) == (pause_seat, pause_step) and question["choices"]
    for k, (pupil, name) in enumerate(zip(pupils, ["Anna", "Bruno"], strict=True)):
        expect(pupil.locator("#pause-title")).to_have_text(f"What would you do as {seat_name}?")
        expect(pupil.locator("#choices input[type=radio]")).to_have_count(len(question["choices"]))
        pupil.locator("#student").fill(name)
        pupil.locator("#choices input[type=radio]").nth(min(k, len(question["choices"]) - 1)).check()
        pupil.locator("#answer button[type=submit]").click()
        expect(pupil.locator("#answer-status")).to_contain_text("Answer sent")
    expect(newcomer.locator("body")).to_have_attribute("data-tally", "2")
    tally = fresh.get(f"/api/lessons/{new_lesson_id}/pauses/{pause_id}", headers=auth(new_teacher_key)).get_json()["tally"]
    assert tally["answers"] == 2 and sorted(s for c in tally["choices"] for s in c["students"]) == ["Anna", "Bruno"]
    newcomer.locator("#reveal").click()
    expect(newcomer.locator("body")).to_have_attribute("data-revealed", pause_id)
    played = fresh.get(f"/api/lessons/{new_lesson_id}/pauses/{pause_id}").get_json()["played"]
    assert played and played["said"]
    for page in (newcomer, *pupils):
        expect(page.locator("#played")).to_contain_text(f"{seat_name} played: {played['said']}")
    for pupil in pupils:
        expect(pupil.locator("body")).to_have_attribute("data-tally", "2")
        expect(pupil.locator("#answer")).to_be_hidden()


def test_a_file_that_is_no_lesson_is_refused_on_the_form(services: Any, context: Any, tmp_path: Path) -> None:
    """Not JSON, then JSON that is no lesson file: the form says why and nothing is made."""
    _, (fresh_base, fresh) = services
    page = context()
    page.goto(f"{fresh_base}/lessons/new")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    page.locator("#import-lesson input[name=file]").set_input_files(str(broken))
    page.locator("#import-lesson button[type=submit]").click()
    expect(page.locator("#import-status")).to_contain_text("not JSON")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "cronaca-lesson", "version": 99, "title": "x", "records": [], "chapters": []}))
    page.locator("#import-lesson input[name=file]").set_input_files(str(wrong))
    page.locator("#import-lesson button[type=submit]").click()
    expect(page.locator("#import-status")).to_contain_text("Not imported (nothing was saved)")
    expect(page.locator("#import-status")).to_contain_text("cronaca-lesson")
    assert page.url.endswith("/lessons/new")
