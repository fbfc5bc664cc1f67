"""The lesson page in real Chromium: a teacher builds and presents a lesson, a class follows it live.

One server (werkzeug, threaded: a thread per live stream) and one browser for the module. Each title
gets a finished greedy-bot game imported as a table would send it (its annotator key adds three notes
through the API). The teacher makes the lesson and its two chapters on the page (/lessons/new, the
"add a chapter" form); two students (browser contexts of their own, no key) follow the presenter
across both chapters, one steps away and comes back, both answer a prediction pause, the teacher sees
the tally and reveals the move played. Screenshots of the teacher's and a student's page (a chapter
start, a middle step with highlights, a pause) land in browsing.SHOTS as lesson-*.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import NAMES, auth, import_finished_http, record_file

pytestmark = pytest.mark.browser
TITLES = ["citta-stato", "la-citta", "serenissima"]
SHOTS = browsing.SHOTS  # the page tests' screenshots (var/screenshots, or $CRONACA_PAGE_SHOTS)
SHOWN = {"citta-stato": "Città-Stato", "la-citta": "La Città", "serenissima": "Serenissima"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path_factory.mktemp("lesson"), CRONACA_SSE_PING=1.0) as (base, app):
        yield base, app.test_client()


# fixtures, used by name; `context` opens a page per call, each a different person at a different computer
browser, context = browsing.browser, browsing.context


def finished_record(client: Any, title: str) -> tuple[str, str]:
    """A finished greedy-bot game of `title` imported as a transcribed record file: (record id, annotator key)."""
    record_id, key, _, _ = import_finished_http(client, record_file(title, f"lesson-{title}", greedy=True))
    return record_id, key


def deciding(client: Any, record_id: str, candidates: list[int]) -> tuple[int, int]:
    """The first of `candidates` where a seat decides (and a log entry starts): (step, seat)."""
    for n in candidates:
        pending = client.get(f"/api/records/{record_id}/steps/{n}").get_json()["pending"]
        if pending.get("seat") is not None:
            return n, pending["seat"]
    raise AssertionError(f"no seat decides at any of {candidates}")


def at(page: Any, chapter: str, step: int) -> None:
    """The page shows this chapter's step (its board painted)."""
    expect(page.locator("body")).to_have_attribute("data-chapter", chapter)
    expect(page.locator("body")).to_have_attribute("data-step", str(step))


def press_to(page: Any, current: int, target: int) -> None:
    page.locator("#slider").focus()
    for _ in range(abs(target - current)):
        page.keyboard.press("ArrowRight" if target > current else "ArrowLeft")


def add_chapter(page: Any, base: str, record_id: str, first: int, last: int, title: str, introduction: str,
                added: bool = True, line: str | None = None) -> None:
    form = page.locator("#add-chapter")
    if not page.locator("#add-chapter-box").evaluate("d => d.open"):
        page.locator("#add-chapter-box summary").click()
    form.locator("input[name=record]").fill(f"{base}/records/{record_id}#step=3")  # a record's link does
    form.locator("input[name=record]").dispatch_event("change")
    expect(page.locator("#add-status")).to_contain_text("Ada, Ben")
    if line is not None:
        form.locator("select[name=line]").select_option(line)
    form.locator("input[name=from_step]").fill(str(first))
    form.locator("input[name=to_step]").fill(str(last))
    form.locator("input[name=title]").fill(title)
    form.locator("textarea[name=introduction]").fill(introduction)
    form.locator("button[type=submit]").click()
    expect(page.locator("#add-status")).to_contain_text(f"Added “{title}”" if added else "Not added")


@pytest.mark.parametrize("title", TITLES)
def test_a_class_follows_a_lesson_and_answers_a_pause(served: tuple[str, Any], context: Any, title: str) -> None:
    base, client = served
    record_id, key = finished_record(client, title)
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    ends = [t["to"] for t in turns]
    assert len(ends) >= 10, ends
    one = (ends[1], ends[4])
    two_from, two_to = ends[4], ends[9]
    pause_step, pause_seat = deciding(client, record_id, [e for e in ends[6:9] if two_from < e < two_to])
    middle = two_from + 2

    # notes on three steps (an arrow among them), made with the record's annotator key
    board = client.get(f"/api/records/{record_id}/places").get_json()
    places, width = board["places"], board["viewBox"][2]
    a = min(places, key=lambda p: abs(places[p]["x"] - width * 0.3) + places[p]["y"] * 0.01)  # two places far apart
    b = min(places, key=lambda p: abs(places[p]["x"] - width * 0.7) + places[p]["y"] * 0.01)
    ring = min(places, key=lambda p: abs(places[p]["x"] - width * 0.5) + places[p]["y"] * 0.01)
    notes = [{"step": one[0] + 1, "text": "**Opening**: watch the market.", "glyph": "!?"},
             {"step": middle, "text": "Why not the other way?", "glyph": "?!",
              "shapes": [{"kind": "arrow", "from": a, "to": b, "brush": "blue"}]},
             {"step": pause_step, "text": "The key decision of the chapter."}]
    for note in notes:
        answer = client.post(f"/api/records/{record_id}/annotations", json=note, headers=auth(key))
        assert answer.status_code == 201, answer.get_json()
    # a variation of two moves from the end of the third turn
    branch_from = ends[2]
    made = client.post(f"/api/records/{record_id}/variations", json={"from_step": branch_from, "title": "what if"},
                       headers=auth(key))
    assert made.status_code == 201, made.get_json()
    variation_id = made.get_json()["id"]
    for k in range(2):
        legal = client.get(f"/api/variations/{variation_id}/legal").get_json()["commands"]
        played = client.post(f"/api/variations/{variation_id}/commands", json={"command": legal[-1 - k]["command"]},
                             headers=auth(key))
        assert played.status_code in (200, 201), played.get_json()
    branch_last = client.get(f"/api/variations/{variation_id}").get_json()["last_step"]
    branch_story = {line["step"]: line["text"] for line in client.get(f"/api/variations/{variation_id}/story").get_json()["lines"]}
    assert branch_story, "the variation's story says nothing"

    teacher = context(viewport={"width": 1500, "height": 1000})
    # the teacher makes the lesson on the page and lands on it with the key in the hash
    teacher.goto(f"{base}/lessons/new")
    teacher.locator("#new-lesson input[name=title]").fill(f"Reading a game of {SHOWN[title]}")
    teacher.locator("#new-lesson textarea[name=introduction]").fill("Two chapters: the opening, then the middle game.")
    teacher.locator("#new-lesson button[type=submit]").click()
    teacher.wait_for_url(re.compile(r"/lessons/[0-9a-f-]{36}#key="))
    lesson_id = teacher.url.split("/lessons/")[1].split("#")[0]
    teacher_key = teacher.url.split("#key=")[1]
    expect(teacher.locator("body")).to_have_attribute("data-ready", "yes")
    expect(teacher.locator("#share")).to_be_visible()

    add_chapter(teacher, base, record_id, one[0], one[1], "The opening", "How Ada and Ben set out.")
    add_chapter(teacher, base, record_id, two_from, two_to, "The middle game", "Where the game turned.")
    expect(teacher.locator("#chapters li")).to_have_count(2)
    lesson = client.get(f"/api/lessons/{lesson_id}", headers=auth(teacher_key)).get_json()
    c1, c2 = (c["id"] for c in lesson["chapters"])
    assert [(c["from_step"], c["to_step"], c["line"]) for c in lesson["chapters"]] == [(*one, None), (two_from, two_to, None)]
    at(teacher, c1, one[0])

    # reordering is the teacher's: swap and swap back, the server keeps the order
    teacher.locator("#chapters li").nth(0).locator(".chapter-tools button").nth(1).click()
    expect(teacher.locator("#chapters li").first).to_have_attribute("data-chapter", c2)
    assert [c["id"] for c in client.get(f"/api/lessons/{lesson_id}").get_json()["chapters"]] == [c2, c1]
    teacher.locator("#chapters li").nth(0).locator(".chapter-tools button").nth(1).click()
    expect(teacher.locator("#chapters li").first).to_have_attribute("data-chapter", c1)
    # a chapter outside the record's steps is refused with the service's sentence; one added is removed again
    add_chapter(teacher, base, record_id, 0, 99_999, "Too long", "", added=False)
    expect(teacher.locator("#add-status")).to_contain_text("not inside the main line")
    add_chapter(teacher, base, record_id, 0, 3, "A spare", "")
    expect(teacher.locator("#chapters li")).to_have_count(3)
    teacher.once("dialog", lambda dialog: dialog.accept())
    teacher.locator("#chapters li").nth(2).locator(".chapter-tools button").nth(2).click()
    expect(teacher.locator("#chapters li")).to_have_count(2)
    assert [c["id"] for c in client.get(f"/api/lessons/{lesson_id}").get_json()["chapters"]] == [c1, c2]
    # a third chapter on a what-if variation, picked in the form's line list
    add_chapter(teacher, base, record_id, branch_from, branch_last, "What if", "Another way.", line=variation_id)
    c3 = client.get(f"/api/lessons/{lesson_id}").get_json()["chapters"][2]
    assert (c3["line"], c3["from_step"], c3["to_step"]) == (variation_id, branch_from, branch_last)

    # two students open the link (no key): chapter 1's start until the presenter moves
    pupils = [context() for _ in range(2)]
    for pupil in pupils:
        pupil.goto(f"{base}/lessons/{lesson_id}")
        expect(pupil.locator("body")).to_have_attribute("data-live", "open")
        at(pupil, c1, one[0])
        expect(pupil.locator("#add-chapter-box")).to_be_hidden()
        expect(pupil.locator("#chapter-intro")).to_contain_text("How Ada and Ben set out.")
    expect(pupils[0].locator("#follow-text")).to_contain_text("has not started")
    teacher.locator(f'#chapters li[data-chapter="{c1}"] .chapter-link').click()  # present where it stands
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:{one[0]}:0")
    expect(pupils[0].locator("#follow")).to_be_hidden()
    shoot(teacher, f"lesson-{title}-teacher-start")
    shoot(pupils[0], f"lesson-{title}-student-start")

    # the presenter steps: both students follow, with the notes of the step
    teacher.locator("#slider").focus()
    teacher.keyboard.press("ArrowRight")
    at(teacher, c1, one[0] + 1)
    for pupil in pupils:
        at(pupil, c1, one[0] + 1)
        expect(pupil.locator("#notes .note")).to_have_count(1)
        expect(pupil.locator("#notes .note-text strong")).to_have_text("Opening")

    # to chapter 2 (the list), then a few steps: both students follow across chapters
    teacher.locator(f'#chapters li[data-chapter="{c2}"] .chapter-link').click()
    at(teacher, c2, two_from)
    for pupil in pupils:
        at(pupil, c2, two_from)
        expect(pupil.locator("#chapter-title")).to_contain_text("The middle game")
        expect(pupil.locator(f'#chapters li[data-chapter="{c2}"]')).to_have_attribute("aria-current", "true")
    press_to(teacher, two_from, middle)
    for pupil in pupils:
        at(pupil, c2, middle)
        expect(pupil.locator("#notes .note")).to_have_count(1)
        expect(pupil.locator("#said")).not_to_be_empty()

    # highlights for the class: an arrow picked from the lists, a ring clicked on the board
    teacher.locator("#place-from").select_option(b)
    teacher.locator("#place-to").select_option(a)
    teacher.locator("#brush").select_option("red")
    teacher.locator("#add-shape").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c2}:{middle}:1")
    teacher.locator("#brush").select_option("green")
    click_place(teacher, ring)
    click_place(teacher, ring)
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c2}:{middle}:2")
    presenter = client.get(f"/api/lessons/{lesson_id}").get_json()["presenter"]
    assert presenter["shapes"] == [{"kind": "arrow", "from": b, "to": a, "brush": "red"},
                                   {"kind": "highlight", "at": ring, "brush": "green"}]
    for pupil in pupils:
        expect(pupil.locator("body")).to_have_attribute("data-shapes", "2")
        # the note's blue arrow and the presenter's red one and green ring, over the board
        expect(pupil.locator("#board svg.overlay .shape")).to_have_count(3)
        expect(pupil.locator(f'#board svg.overlay .shape[data-kind="arrow"][data-from="{b}"][data-brush="red"]')).to_have_count(1)
        expect(pupil.locator("#board svg.overlay")).to_have_attribute("aria-label", re.compile("red arrow from"))
        expect(pupil.locator("#notes .note-shapes")).to_contain_text("blue arrow from")  # the note's shape in words
    shoot(teacher, f"lesson-{title}-teacher-highlights")
    shoot(pupils[0], f"lesson-{title}-student-highlights")

    # a student steps away: the banner says where the presenter is; the other keeps following
    away, follower = pupils
    away.locator("#slider").focus()
    away.keyboard.press("ArrowLeft")
    at(away, c2, middle - 1)
    expect(away.locator("body")).to_have_attribute("data-following", "no")
    press_to(teacher, middle, pause_step)
    at(follower, c2, pause_step)
    expect(away.locator("#follow")).to_be_visible()
    expect(away.locator("#follow-text")).to_contain_text(f"The presenter is at chapter 2, step {pause_step}")
    at(away, c2, middle - 1)  # stayed where it stepped
    away.locator("#follow-button").click()
    at(away, c2, pause_step)
    expect(away.locator("body")).to_have_attribute("data-following", "yes")
    expect(away.locator("#follow")).to_be_hidden()

    # a prediction pause: the seat deciding here, its view and choices; two answers
    seat_name = NAMES[pause_seat]
    expect(teacher.locator("#pause-decider")).to_contain_text(f"{seat_name} decides at this step")
    teacher.locator("#pause-question").fill(f"What would you do as {seat_name}?")
    teacher.locator("#open-pause-button").click()
    expect(teacher.locator("body")).to_have_attribute("data-pause", re.compile(r"p-"))
    pause_id = teacher.locator("body").get_attribute("data-pause")
    question = client.get(f"/api/lessons/{lesson_id}/pauses/{pause_id}").get_json()
    assert question["seat"] == pause_seat and question["step"] == pause_step and question["choices"]
    for k, (pupil, name) in enumerate(zip(pupils, ["Anna", "Bruno"], strict=True)):
        expect(pupil.locator("#pause-title")).to_have_text(f"What would you do as {seat_name}?")
        expect(pupil.locator("#choices input[type=radio]")).to_have_count(len(question["choices"]))
        expect(pupil.locator("#choices")).to_contain_text(question["choices"][0]["said"])
        expect(pupil.locator("#pause-view-data dl.view").first).to_be_visible()  # the seat's view as data
        expect(pupil.locator("body")).to_have_attribute("data-board-of", "asked-seat")  # its board, not the all-seeing one
        pupil.keyboard.press("ArrowRight")  # no peeking at the answer while the pause is open
        expect(pupil.locator("body")).to_have_attribute("data-step", str(pause_step))
        pupil.locator("#student").fill(name)
        pupil.locator("#choices input[type=radio]").nth(min(k, len(question["choices"]) - 1)).check()
        pupil.locator("#answer button[type=submit]").click()
        expect(pupil.locator("#answer-status")).to_contain_text("Answer sent")
    expect(teacher.locator("body")).to_have_attribute("data-tally", "2")
    expect(teacher.locator("#tally")).to_contain_text("Anna")
    expect(teacher.locator("#tally")).to_contain_text("Bruno")
    for pupil in pupils:
        expect(pupil.locator("#pause-count")).to_have_text("2 answers so far")
        expect(pupil.locator("#tally")).not_to_contain_text("Anna")  # students never see who picked what
    tally = client.get(f"/api/lessons/{lesson_id}/pauses/{pause_id}", headers=auth(teacher_key)).get_json()["tally"]
    assert tally["answers"] == 2
    assert sorted(s for c in tally["choices"] for s in c["students"]) == ["Anna", "Bruno"]
    assert pupils[0].evaluate("localStorage.getItem('cronaca:student')") == "Anna"
    shoot(teacher, f"lesson-{title}-teacher-pause")
    shoot(pupils[0], f"lesson-{title}-student-pause")

    # reveal: every student sees the move played, and the counts
    teacher.locator("#reveal").click()
    expect(teacher.locator("body")).to_have_attribute("data-revealed", pause_id)
    expect(pupils[0].locator("body")).to_have_attribute("data-board-of", "all")  # the answer is out
    played = client.get(f"/api/lessons/{lesson_id}/pauses/{pause_id}").get_json()["played"]
    assert played and played["said"]
    expect(teacher.locator("#played")).to_contain_text(f"{seat_name} played: {played['said']}")
    for pupil in pupils:
        expect(pupil.locator("#played")).to_contain_text(f"{seat_name} played: {played['said']}")
        expect(pupil.locator("body")).to_have_attribute("data-tally", "2")
        expect(pupil.locator("#answer")).to_be_hidden()
    picks = [min(k, len(question["choices"]) - 1) for k in range(2)]
    for pupil, k in zip(pupils, picks, strict=True):
        if question["choices"][k]["command"] == played["command"]:
            expect(pupil.locator("#played")).to_contain_text("as you said")
        else:
            expect(pupil.locator("#played")).not_to_contain_text("as you said")
    expect(pupils[0].locator("#tally li.played")).to_contain_text(played["said"])
    shoot(pupils[1], f"lesson-{title}-student-reveal")

    # on to the variation's chapter (PageDown): the class sees its board and its own story
    teacher.locator("#slider").focus()
    teacher.keyboard.press("PageDown")
    at(teacher, c3["id"], branch_from)
    first_move = min(branch_story)
    press_to(teacher, branch_from, first_move)
    for pupil in pupils:
        at(pupil, c3["id"], first_move)
        expect(pupil.locator("#board > .board-wrap > svg").first).to_be_attached()
        expect(pupil.locator("#said")).to_have_text(branch_story[first_move])
        expect(pupil.locator("#chapter-intro")).to_contain_text("a variation")


def click_place(page: Any, place: str) -> None:
    """A mouse click on a place of the board, where its anchor is drawn."""
    point = page.evaluate("""async (place) => {
      const overlay = document.querySelector('#board svg.overlay');
      const rid = (await (await fetch(`/api/lessons/${location.pathname.split('/').pop()}`)).json())
        .chapters.find((c) => c.id === document.body.dataset.chapter).record_id;
      const a = (await (await fetch(`/api/records/${rid}/places`)).json()).places[place];
      const p = new DOMPoint(a.x, a.y).matrixTransform(overlay.getScreenCTM());
      return [p.x, p.y];
    }""", place)
    page.mouse.click(point[0], point[1])


def shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_wrong_key_reads_as_a_student_and_an_unknown_lesson_says_so(served: tuple[str, Any], context: Any) -> None:
    base, client = served
    made = client.post("/api/lessons", json={"title": "Empty", "introduction": ""})
    assert made.status_code == 201, made.get_json()
    lesson_id = made.get_json()["lesson"]["id"]
    page = context()
    page.goto(f"{base}/lessons/{lesson_id}#key=not-the-key")
    expect(page.locator("#notice")).to_contain_text("not this lesson's teacher key")
    expect(page.locator("body")).to_have_attribute("data-ready", "yes")
    expect(page.locator("#add-chapter-box")).to_be_hidden()
    expect(page.locator("#no-chapters")).to_be_visible()
    page.goto(f"{base}/lessons/00000000-0000-4000-8000-000000000000")
    expect(page.locator("#notice")).to_contain_text("no lesson here")

    # with a chapter: the page started again as a student's steps one step a press (it wired its buttons twice)
    record_id, _ = finished_record(client, "serenissima")
    key = made.get_json()["teacher_key"]
    added = client.post(f"/api/lessons/{lesson_id}/chapters", headers={"Authorization": f"Bearer {key}"},
                        json={"record_id": record_id, "from_step": 2, "to_step": 9, "title": "Opening"})
    assert added.status_code == 201, added.get_json()
    page.goto(f"{base}/lessons/{lesson_id}#key=not-the-key")
    expect(page.locator("#notice")).to_contain_text("not this lesson's teacher key")
    page.locator("#chapters .chapter-link").first.click()
    at(page, added.get_json()["id"], 2)
    page.locator("#next").click()
    at(page, added.get_json()["id"], 3)


KEEP_SOURCES = """(() => { const Native = window.EventSource; window.__sources = [];
  window.EventSource = class extends Native { constructor(...args) { super(...args); window.__sources.push(this); } }; })()"""
SLEEP = "() => window.__sources.forEach((s) => s.close())"  # the phone's connection dies while it sleeps, unnoticed
WAKE = """() => { for (const hidden of [true, false]) {
  Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
  document.dispatchEvent(new Event('visibilitychange')); } }"""


def test_a_class_keeps_up_through_late_joins_sleeping_phones_and_wanderings(served: tuple[str, Any], context: Any) -> None:
    """A class as it is: names with apostrophes and accents, a teacher on the arrow keys who types in a text box and
    double-taps "next", a highlight drawn and taken away, a student who comes late, one who taps elsewhere and
    comes back, a phone that sleeps and wakes, a live stream refused for a moment; a pause a student with an
    apostrophe in her name answers."""
    base, client = served
    record_id = import_finished_http(client, record_file("serenissima", "lesson-keeps-up")).record_id  # random: quick
    made = client.post("/api/lessons", json={"title": "L'apertura di Ada — «prima» 🎲",
                                             "introduction": "Read <b>this</b> first.\nThen the board."})
    assert made.status_code == 201, made.get_json()
    lesson_id, key = made.get_json()["lesson"]["id"], made.get_json()["teacher_key"]
    ids = []
    for first, last, name in ((2, 30, "Ada's opening"), (30, 60, "Bruno d'Este's reply")):
        added = client.post(f"/api/lessons/{lesson_id}/chapters", headers=auth(key),
                            json={"record_id": record_id, "from_step": first, "to_step": last, "title": name})
        assert added.status_code == 201, added.get_json()
        ids.append(added.get_json()["id"])
    c1, c2 = ids
    teacher = context()
    teacher.goto(f"{base}/lessons/{lesson_id}#key={key}")
    expect(teacher.locator("body")).to_have_attribute("data-ready", "yes")
    expect(teacher.locator("#title")).to_have_text("L'apertura di Ada — «prima» 🎲")
    expect(teacher.locator("#lesson-intro")).to_contain_text("Read <b>this</b> first.")  # typed, so shown as text
    expect(teacher.locator("#lesson-intro b")).to_have_count(0)
    expect(teacher.locator("#lesson-intro br")).to_have_count(1)
    expect(teacher.locator(f'#chapters li[data-chapter="{c2}"]')).to_contain_text("Bruno d'Este's reply")
    at(teacher, c1, 2)

    # the arrow keys present; inside the question's box they move the caret, never the board
    teacher.keyboard.press("ArrowRight")
    at(teacher, c1, 3)
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:3:0")
    question = teacher.locator("#pause-question")
    question.click()
    question.type("Where's Ada's galley?")
    for press in ("ArrowLeft", "ArrowLeft", "Home", "ArrowRight", "End", "PageDown"):
        question.press(press)
    at(teacher, c1, 3)
    question.fill("")
    teacher.locator("#next").dblclick()  # a double tap: two steps, and the class gets the last
    at(teacher, c1, 5)
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:5:0")
    assert client.get(f"/api/lessons/{lesson_id}").get_json()["presenter"]["step"] == 5

    # an arrow for the class; a student who comes late sees the teacher's step and the arrow
    teacher.locator("#place-from").select_option(index=0)
    teacher.locator("#place-to").select_option(index=4)
    teacher.locator("#add-shape").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:5:1")
    late = context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    late.add_init_script(KEEP_SOURCES)
    late.goto(f"{base}/lessons/{lesson_id}")
    at(late, c1, 5)
    expect(late.locator("body")).to_have_attribute("data-live", "open")
    expect(late.locator("body")).to_have_attribute("data-shapes", "1")
    expect(late.locator('#board svg.overlay .shape[data-kind="arrow"]')).to_have_count(1)
    teacher.locator("#add-shape").click()  # the same arrow again: taken away, for the class too
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:5:0")
    expect(late.locator("body")).to_have_attribute("data-shapes", "0")
    expect(late.locator("#board svg.overlay .shape")).to_have_count(0)

    # the student taps around (another chapter, a step of it), then follows again with the banner's button
    late.locator(f'#chapters li[data-chapter="{c2}"] .chapter-link').tap()
    at(late, c2, 30)
    late.locator("#next").tap()
    at(late, c2, 31)
    expect(late.locator("#follow-text")).to_contain_text("The presenter is at chapter 1, step 5")
    teacher.keyboard.press("ArrowRight")
    expect(late.locator("#follow-text")).to_contain_text("The presenter is at chapter 1, step 6")
    at(late, c2, 31)
    late.locator("#follow-button").tap()
    at(late, c1, 6)
    expect(late.locator("#follow")).to_be_hidden()

    # the phone sleeps (its line dies unnoticed) while the teacher moves on; woken, it catches up without a reload
    late.evaluate(SLEEP)
    teacher.keyboard.press("ArrowRight")
    teacher.keyboard.press("ArrowRight")
    at(teacher, c1, 8)
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:8:0")
    late.wait_for_timeout(300)
    at(late, c1, 6)  # asleep: nothing came
    late.evaluate(WAKE)
    at(late, c1, 8)
    assert late.evaluate("() => window.__sources.length") == 2 and late.evaluate("() => performance.getEntriesByType("
                                                                                  "'navigation').length") == 1

    # a stream refused for a moment (the live channel down: 503): EventSource gives up, the page does not
    refused = context()
    refused.route("**/live", lambda route: route.fulfill(status=503, content_type="application/problem+json",
                                                         body=json.dumps({"title": "Service Unavailable"})))
    refused.goto(f"{base}/lessons/{lesson_id}")
    expect(refused.locator("body")).to_have_attribute("data-live", "retrying")
    refused.unroute("**/live")
    at(refused, c1, 8)  # where the teacher is, read with the lesson
    expect(refused.locator("body")).to_have_attribute("data-live", "open")
    teacher.keyboard.press("ArrowRight")
    at(refused, c1, 9)
    at(late, c1, 9)

    # the teacher's line drops as they step (a page left open overnight, the service restarting): the teacher is told
    # the class did not get it, and sends it again
    teacher.route("**/present", lambda route: route.abort("connectionrefused"))
    teacher.keyboard.press("ArrowRight")
    at(teacher, c1, 10)
    expect(teacher.locator("#follow-text")).to_contain_text("The class did not get step 10: the service did not answer")
    at(late, c1, 9)
    teacher.unroute("**/present")
    teacher.locator("#follow-button").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:10:0")
    expect(teacher.locator("#follow")).to_be_hidden()
    at(late, c1, 10)

    # the arrows lie on the board's places at a desk and on a phone (its pan box scrolled): the drawing layer maps the
    # board's own coordinates exactly as the board does
    teacher.locator("#place-from").select_option(index=1)
    teacher.locator("#place-to").select_option(index=6)
    teacher.locator("#add-shape").click()
    expect(late.locator('#board svg.overlay .shape[data-kind="arrow"]')).to_have_count(1)
    # the phone shows part of the board: the arrow is brought into its pan box, its head at least (from the Adriatic
    # to Algiers is wider than the box: the head says which way it points)
    drawn = client.get(f"/api/lessons/{lesson_id}").get_json()["presenter"]["shapes"][0]
    anchors = client.get(f"/api/records/{record_id}/places").get_json()["places"]
    late.wait_for_timeout(200)
    head = late.evaluate("""(a) => { const box = document.getElementById('board').getBoundingClientRect();
      const p = new DOMPoint(a.x, a.y).matrixTransform(document.querySelector('#board svg.overlay').getScreenCTM());
      return [p.x - box.left, p.y - box.top, box.width, box.height]; }""", anchors[drawn["to"]])
    assert 0 <= head[0] <= head[2] and 0 <= head[1] <= head[3], (drawn, head)
    late.evaluate("() => { const box = document.getElementById('board'); box.scrollLeft = 90; box.scrollTop = 60; }")
    for seen in (teacher, late):
        board, layer = (seen.evaluate(f"() => {{ const m = document.querySelector({sel!r}).getScreenCTM(); "
                                      "return [m.a, m.d, m.e, m.f]; }") for sel in ("#board .board-wrap > svg:not(.overlay)",
                                                                                    "#board svg.overlay"))
        assert all(abs(x - y) < 0.5 for x, y in zip(board, layer, strict=True)), (board, layer)
    # many at once (a ring, another arrow in red), then all cleared with one button, for the class too
    teacher.locator("#place-from").select_option(index=3)
    teacher.locator("#place-to").select_option("")
    teacher.locator("#add-shape").click()
    teacher.locator("#brush").select_option("red")
    teacher.locator("#place-to").select_option(index=9)
    teacher.locator("#add-shape").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:10:3")
    expect(late.locator("#board svg.overlay .shape")).to_have_count(3)
    expect(late.locator('#board svg.overlay .shape[data-brush="red"]')).to_have_count(1)
    teacher.locator("#clear-shapes").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{c1}:10:0")
    expect(late.locator("#board svg.overlay .shape")).to_have_count(0)

    # a pause, answered by a student whose name has a space and an apostrophe
    step, _ = deciding(client, record_id, list(range(11, 30)))
    teacher.locator("#slider").fill(str(step))
    at(teacher, c1, step)
    at(late, c1, step)
    late.locator(f'#chapters li[data-chapter="{c2}"] .chapter-link').tap()  # away when the question comes
    at(late, c2, 30)
    teacher.locator("#open-pause-button").click()
    expect(late.locator("#choices .choice").first).to_be_visible()
    at(late, c1, step)  # brought to the board the question is about, the asked seat's own
    expect(late.locator("body")).to_have_attribute("data-following", "yes")
    expect(late.locator("body")).to_have_attribute("data-board-of", "asked-seat")
    late.locator("#student").fill("Anna Maria D'Angelo")
    late.locator("#choices .choice").first.tap()
    late.locator("#answer button[type=submit]").tap()
    expect(late.locator("#answer-status")).to_contain_text("Answer sent")
    expect(teacher.locator("#tally .students")).to_have_text(" (Anna Maria D'Angelo)")
