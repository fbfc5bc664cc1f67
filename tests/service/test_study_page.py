"""The record page's study layer in real Chromium: notes drawn and read, private notes, variations.

One server and one browser for the module. Each title gets a finished random game imported with
an annotator key (the key is what lets a teacher write); a live game gives seat tokens for the
private-note test. The annotator draws with the mouse and the keyboard in one browser context, a
student (no key) reads in another. Screenshots of each title land in the screenshot folder (browsing.SHOTS) as study-*.png.
"""

from __future__ import annotations

import json
import re
import uuid
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
# two places of each board an arrow is drawn between, and one to ring
AUTHOR = "Prof. D'Annunzio"  # a name with a space and an apostrophe
TYPED = 'L\'apertura è "tranquilla" — 🎲 <b>ok</b>\n\nSee https://lichess.org/study. Then the market.'
PLACES = {"citta-stato": ("market:G3", "present:O", "war:2"), "la-citta": ("L41", "L75", "E03"),
          "serenissima": ("venezia", "ragusa", "ionian")}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    with served_app(tmp_path_factory.mktemp("study")) as (base, app):
        yield base, app.test_client(), app


# fixtures, used by name; `context` opens a page per call, each a different person at a different computer
browser, context = browsing.browser, browsing.context


_finished: dict[str, tuple[str, str]] = {}


def finished_record(client: Any, title: str) -> tuple[str, str]:
    """A finished random game of `title`, imported as a record file: (record id, annotator key)."""
    if title not in _finished:
        record_id, key, _, _ = import_finished_http(client, record_file(title, f"study-{title}"))
        _finished[title] = (record_id, key)
    return _finished[title]


def decision_steps(app: Any, record_id: str) -> list[int]:
    steps, _ = app.extensions["cronaca"].teaching.variations.decision_steps(uuid.UUID(record_id), None)
    return list(steps)


def ready(page: Any, step: int, line: str = "main") -> None:
    """The board of `step` on `line` is on the page and the study layer has drawn what it read."""
    expect(page.locator("body")).to_have_attribute("data-study", "ready")
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")
    expect(page.locator("body")).to_have_attribute("data-study-step", f"{line}:{step}")


def click_place(page: Any, place: str, shift: bool = False) -> None:
    """Click where the board draws `place`: its anchor, through the overlay's own transform."""
    xy = page.evaluate("""(place) => {
        document.querySelector('#board').scrollIntoView({block: 'start'});
        const layer = document.querySelector('#board-wrap svg.cronaca-shapes');
        const spot = window.__places[place];
        const p = new DOMPoint(spot.x, spot.y).matrixTransform(layer.getScreenCTM());
        return [p.x, p.y];
    }""", place)
    if shift:
        page.keyboard.down("Shift")
    page.mouse.click(xy[0], xy[1])
    if shift:
        page.keyboard.up("Shift")


def annotator_at(served: tuple[str, Any, Any], context: Any, title: str, nth: int) -> tuple[Any, str, int]:
    """A teacher's page (the annotator key) on the `nth` decision of `title`'s finished record."""
    base, client, app = served
    record_id, key = finished_record(client, title)
    at = decision_steps(app, record_id)[nth]
    teacher = context()
    teacher.goto(f"{base}/records/{record_id}#step={at}&key={key}")
    ready(teacher, at)
    return teacher, record_id, at


def load_places(page: Any, base: str, record_id: str) -> None:
    page.evaluate("async (url) => { window.__places = (await (await fetch(url)).json()).places; }",
                  f"{base}/api/records/{record_id}/places")


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.screenshot(path=str(SHOTS / name), full_page=False)


@pytest.mark.parametrize("title", TITLES)
def test_an_annotator_draws_and_writes_and_a_student_sees_it(served: tuple[str, Any, Any], context: Any, title: str) -> None:
    base, client, app = served
    record_id, key = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    at = decision_steps(app, record_id)[len(decision_steps(app, record_id)) // 3]
    a, b, ring = PLACES[title]

    teacher = context()
    teacher.goto(f"{base}/records/{record_id}#step={at}&key={key}")
    ready(teacher, at)
    expect(teacher.locator("#note-form")).to_be_visible()
    expect(teacher.locator("#key-box")).to_be_hidden()
    load_places(teacher, base, record_id)
    # the mouse: a place then another is an arrow; shift+click twice on one place a red ring
    click_place(teacher, a)
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", a)
    click_place(teacher, b)
    expect(teacher.locator("#draft-shapes li")).to_have_count(1)  # as a person would: the arrow is drawn, then on
    click_place(teacher, ring, shift=True)
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", ring)
    click_place(teacher, ring, shift=True)
    expect(teacher.locator("#draft-shapes li")).to_have_count(2)
    expect(teacher.locator("svg.cronaca-shapes g.arrow")).to_have_count(1)
    # typed as a teacher types: the arrow keys, Home and End move in the text, never the record
    box = teacher.locator("#note-text")
    box.click()
    box.type(f"**Why** not {title}? <script>window.__owned = 1</script>")
    for key in ("ArrowLeft", "ArrowLeft", "Home", "ArrowRight", "End", "ArrowUp", "ArrowDown", "PageDown"):
        box.press(key)
    box.press("Enter")
    teacher.keyboard.insert_text(TYPED)  # pasted, as a long paragraph often is
    ready(teacher, at)
    teacher.locator("#note-glyph").select_option("?!")
    teacher.locator("#note-author").fill(AUTHOR)
    teacher.locator("#note-save").click()
    expect(teacher.locator("#step-notes li.note")).to_have_count(1)
    expect(teacher.locator("#step-notes li.note strong").first).to_have_text(AUTHOR)
    expect(teacher.locator("#step-notes .note-html strong")).to_have_text("Why")
    saved = client.get(f"/api/records/{record_id}/annotations?line=main").get_json()["notes"]
    mine = [n for n in saved if n["step"] == at and n["author"] == AUTHOR]
    assert len(mine) == 1
    assert {"kind": "arrow", "from": a, "to": b, "brush": "green"} in mine[0]["shapes"]
    assert {"kind": "highlight", "at": ring, "brush": "red"} in mine[0]["shapes"]
    assert mine[0]["glyph"] == "?!"

    # the student: no key, another browser; the arrow over the board, the comment at its step
    student = context()
    student.goto(f"{base}/records/{record_id}#step={at}")
    ready(student, at)
    arrow = student.locator(f'svg.cronaca-shapes g.arrow[data-from="{a}"][data-to="{b}"]')
    expect(arrow).to_have_count(1)
    expect(arrow).to_have_attribute("data-brush", "green")
    expect(student.locator(f'svg.cronaca-shapes g.highlight[data-at="{ring}"]')).to_have_attribute("data-brush", "red")
    expect(student.locator("#step-notes .note-html")).to_contain_text("Why not")
    expect(student.locator("#step-notes .note-html")).to_contain_text("<script>")  # shown as text, never run
    assert student.evaluate("() => window.__owned") is None
    read = student.locator("#step-notes .note-html")
    expect(read).to_contain_text("L'apertura è \"tranquilla\" — 🎲 <b>ok</b>")  # as typed: <b> is text, never bold
    expect(read.locator("b")).to_have_count(0)
    expect(read.locator("br")).to_have_count(1)  # the line break typed in the note
    expect(read.locator("p")).to_have_count(2)  # and the paragraph after the blank line
    link = read.locator('a[href="https://lichess.org/study"]')  # typed bare in a sentence, its full stop left out
    expect(link).to_have_attribute("target", "_blank")  # a student who follows it keeps the page
    expect(read).to_contain_text("https://lichess.org/study. Then")
    expect(student.locator("#moves .note-comment .note-html strong")).to_have_text("Why")
    expect(student.locator("#moves .glyph")).to_have_text("?!")
    expect(student.locator("#note-form")).to_have_count(0)
    # another step has none of it
    student.keyboard.press("ArrowRight")
    ready(student, at + 1)
    expect(student.locator("svg.cronaca-shapes g.shape")).to_have_count(0)
    expect(student.locator("#step-notes li.none")).to_be_visible()
    # the arrow lies over the places the board draws, whatever the page's width
    student.set_viewport_size({"width": 900, "height": 900})
    student.keyboard.press("ArrowLeft")
    ready(student, at)
    box = student.locator("#board > svg").bounding_box()
    over = student.locator("svg.cronaca-shapes").bounding_box()
    assert abs(box["x"] - over["x"]) < 2 and abs(box["width"] - over["width"]) < 3 and abs(box["height"] - over["height"]) < 3
    # and on a phone, in its pan box (whose board has no border): the layer maps the board's coordinates as the board does
    student.set_viewport_size({"width": 390, "height": 844})
    expect(arrow).to_have_count(1)
    board, layer = (student.evaluate(f"() => {{ const m = document.querySelector({sel!r}).getScreenCTM(); return [m.a, m.d, m.e, m.f]; }}")
                    for sel in ("#board > svg", "#board-wrap svg.cronaca-shapes"))
    assert all(abs(x - y) < 0.5 for x, y in zip(board, layer, strict=True)), (board, layer)
    # a step with noted shapes, come to on a phone: its arrow is brought into the pan box, its head at least
    student.evaluate("() => { const pan = document.getElementById('board-pan'); pan.scrollLeft = 0; pan.scrollTop = 0; }")
    student.keyboard.press("ArrowRight")
    ready(student, at + 1)
    student.keyboard.press("ArrowLeft")
    ready(student, at)
    load_places(student, base, record_id)
    head = student.evaluate("""(place) => { const box = document.getElementById('board-pan').getBoundingClientRect();
      const spot = window.__places[place];
      const p = new DOMPoint(spot.x, spot.y).matrixTransform(document.querySelector('#board-wrap svg.cronaca-shapes').getScreenCTM());
      return [p.x - box.left, p.y - box.top, box.width, box.height]; }""", b)
    assert 0 <= head[0] <= head[2] and 0 <= head[1] <= head[3], (b, head)
    student.set_viewport_size({"width": 900, "height": 900})

    # the teacher edits, then deletes the note
    teacher.locator("#step-notes li.note button.edit").click()
    expect(teacher.locator("#draft-shapes li")).to_have_count(2)
    teacher.locator("#note-text").fill("*Better*: war")
    teacher.locator("#note-save").click()
    expect(teacher.locator("#step-notes .note-html em")).to_have_text("Better")
    expect(teacher.locator("#step-notes .edited")).to_be_visible()
    teacher.locator("#step-notes li.note button.delete").click()
    expect(teacher.locator("#step-notes li.note")).to_have_count(0)
    assert not [n for n in client.get(f"/api/records/{record_id}/annotations?line=main").get_json()["notes"]
                if n["step"] == at and n["author"] == AUTHOR]
    assert steps >= at

    # an empty comment saved by mistake: spaces and a line break are nothing, and the page says why
    teacher.locator("#note-text").fill("  \n ")
    teacher.locator("#note-save").click()
    expect(teacher.locator("#note-problem")).to_contain_text("needs a text, a shape or a glyph")
    expect(teacher.locator("#step-notes li.note")).to_have_count(0)
    teacher.locator("#note-glyph").select_option("!")  # a glyph alone is a note: saved, then deleted again
    teacher.locator("#note-save").click()
    expect(teacher.locator("#step-notes li.note .glyph")).to_have_text("!")
    teacher.locator("#step-notes li.note button.delete").click()
    expect(teacher.locator("#step-notes li.note")).to_have_count(0)
    ready(teacher, at)


def test_the_keyboard_draws_arrows_and_rings(served: tuple[str, Any, Any], context: Any) -> None:
    teacher, _, at = annotator_at(served, context, "la-citta", 2)
    teacher.locator("#place-find").fill("L41")
    listbox = teacher.locator("#places")
    listbox.focus()
    expect(listbox.locator("[aria-selected=true]")).to_have_attribute("data-place", "L41")
    listbox.press("Enter")  # the arrow's start
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", "L41")
    teacher.locator("#place-find").fill("")
    listbox.focus()
    for _ in range(3):
        listbox.press("ArrowDown")  # moves in the list: not a step of the record
    target = listbox.locator("[aria-selected=true]").get_attribute("data-place")
    assert target and target != "L41"
    listbox.press("Enter")
    expect(teacher.locator("svg.cronaca-shapes g.arrow")).to_have_attribute("data-from", "L41")
    expect(teacher.locator("svg.cronaca-shapes g.arrow")).to_have_attribute("data-to", target)
    listbox.press("h")
    expect(teacher.locator(f'svg.cronaca-shapes g.highlight[data-at="{target}"]')).to_have_count(1)
    listbox.press("Enter")
    listbox.press("Escape")  # a started arrow cancelled
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_count(0)
    ready(teacher, at)  # the record never moved
    teacher.locator("#note-save").click()  # shapes alone make a note
    expect(teacher.locator("#step-notes li.note")).to_have_count(1)
    expect(teacher.locator("#step-notes .note-shapes")).to_contain_text("arrow from")


def test_finding_a_place_by_name_draws_on_the_place_found_never_on_one_the_filter_hid(
        served: tuple[str, Any, Any], context: Any) -> None:
    """Issue 32: typing a name in "find a place" and pressing Enter picked nothing, and the next Enter, h or l
    acted on the place the filter had just hidden (an arrow Venezia -> Ragusa drew "Venezia highlighted")."""
    teacher, _, at = annotator_at(served, context, "serenissima", 2)
    find, listbox = teacher.locator("#place-find"), teacher.locator("#places")
    find.fill("Venezia")
    find.press("Enter")  # the first match is picked: the arrow's start
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", "venezia")
    expect(listbox.locator("[aria-selected=true]")).to_have_attribute("data-place", "venezia")
    find.fill("ragusa")  # the filter hides Venezia: the list's focus moves to what it shows
    expect(listbox.locator("li[data-place]")).to_have_count(1)
    expect(listbox.locator("[aria-selected=true]")).to_have_attribute("data-place", "ragusa")
    find.press("Enter")  # the arrow ends on the place found
    arrow = teacher.locator("svg.cronaca-shapes g.arrow")
    expect(arrow).to_have_count(1)
    expect(arrow).to_have_attribute("data-from", "venezia")
    expect(arrow).to_have_attribute("data-to", "ragusa")
    expect(teacher.locator("svg.cronaca-shapes g.highlight")).to_have_count(0)
    listbox.press("h")  # in the list, on the place it shows selected
    expect(teacher.locator('svg.cronaca-shapes g.highlight[data-at="ragusa"]')).to_have_count(1)
    expect(teacher.locator('svg.cronaca-shapes g.highlight[data-at="venezia"]')).to_have_count(0)
    # with the list focused on one place, a filter typed afterwards moves the keys to its match
    find.fill("")
    listbox.focus()
    listbox.press("End")
    last = listbox.locator("[aria-selected=true]").get_attribute("data-place")
    assert last and last != "ionian"
    find.fill("Ionian")
    teacher.locator("#label-text").fill("Storm")
    listbox.focus()
    listbox.press("l")
    expect(teacher.locator('svg.cronaca-shapes g.label[data-at="ionian"]')).to_have_count(1)
    expect(teacher.locator(f'svg.cronaca-shapes g.label[data-at="{last}"]')).to_have_count(0)
    find.fill("no such sea")
    find.press("Enter")  # nothing to pick: said, and nothing drawn
    expect(teacher.locator("#draft-said")).to_contain_text('No place of this board is called "no such sea"')
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_count(0)
    ready(teacher, at)  # the record never moved


def test_a_click_counts_though_the_shapes_are_redrawn_between_press_and_release(
        served: tuple[str, Any, Any], context: Any) -> None:
    """Chromium drops a click whose press target left the page before the release: the overlay is
    redrawn (the place under the pointer, a step's panel) whenever it likes, so no shape may be that
    target. CI once lost a ring's second click this way on a busy machine."""
    teacher, record_id, _ = annotator_at(served, context, "serenissima", 3)
    load_places(teacher, served[0], record_id)
    a, _, ring = PLACES["serenissima"]
    click_place(teacher, ring)
    expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", ring)
    teacher.mouse.down()  # the pointer is still on the ring's start: the second half of a ring
    replaced = teacher.evaluate("""async (place) => {
        const layer = document.querySelector('#board-wrap svg.cronaca-shapes');
        const start = layer.querySelector('.pending.start');
        const spot = window.__places[place];
        const p = new DOMPoint(spot.x, spot.y).matrixTransform(layer.getScreenCTM());
        layer.dispatchEvent(new MouseEvent('mousemove', {clientX: p.x, clientY: p.y, bubbles: true}));
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
        return !start.isConnected;
    }""", a)
    assert replaced  # the page redrew the overlay while the button was down (the focus moved)
    teacher.mouse.up()
    expect(teacher.locator("#draft-shapes li")).to_have_count(1)
    expect(teacher.locator("#draft-shapes li")).to_have_attribute("data-kind", "highlight")
    expect(teacher.locator(f'svg.cronaca-shapes g.highlight[data-at="{ring}"]')).to_have_count(1)


def test_a_seat_only_note_is_seen_by_that_seat_and_the_annotator_only(served: tuple[str, Any, Any], context: Any) -> None:
    base, client, _ = served
    answer = client.post("/api/records", json={"title": "serenissima", "seats": NAMES, "options": {}})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    record_id, key, tokens = body["id"], body["annotator_key"], [s["token"] for s in body["seats"]]
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]

    ada = context()
    ada.goto(f"{base}/records/{record_id}#step={steps}&token={tokens[0]}")
    ready(ada, steps)
    expect(ada.locator("#compose-title")).to_contain_text("private note for Ada")
    expect(ada.locator("#note-audience")).to_be_disabled()
    ada.locator("#note-text").fill("Ada: keep the galley near Venezia")
    ada.locator("#note-save").click()
    expect(ada.locator("#step-notes li.note .audience")).to_have_text("only Ada")

    seen = client.get(f"/api/records/{record_id}/annotations", headers=auth(key)).get_json()["notes"]
    assert [n["audience"] for n in seen] == [0]
    assert client.get(f"/api/records/{record_id}/annotations").get_json()["notes"] == []
    assert client.get(f"/api/records/{record_id}/annotations", headers=auth(tokens[1])).get_json()["notes"] == []

    for reader in (f"&token={tokens[1]}", ""):  # Ben's seat, then the public
        other = context()
        other.goto(f"{base}/records/{record_id}#step={steps}{reader}")
        ready(other, steps)
        expect(other.locator("#step-notes li.none")).to_be_visible()
        assert "Venezia" not in other.locator("#step-notes").inner_text()
        assert "Venezia" not in other.locator("#moves").inner_text()
    teacher = context()
    teacher.goto(f"{base}/records/{record_id}#step={steps}&key={key}")
    ready(teacher, steps)
    expect(teacher.locator("#step-notes li.note")).to_contain_text("keep the galley near Venezia")
    expect(teacher.locator("#step-notes li.note .audience")).to_have_text("only Ada")


@pytest.mark.parametrize("title", TITLES)
def test_a_variation_is_made_and_played_from_the_page(served: tuple[str, Any, Any], context: Any, title: str) -> None:
    base, client, app = served
    record_id, key = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    decisions = decision_steps(app, record_id)
    at = decisions[len(decisions) // 2]
    teacher = context()
    if at + 1 in decisions or at + 1 > steps:
        teacher.goto(f"{base}/records/{record_id}#step={at}&key={key}")
    else:  # first a step that is not a decision point: the page says so, with the rule
        teacher.goto(f"{base}/records/{record_id}#step={at + 1}&key={key}")
        ready(teacher, at + 1)
        teacher.locator("#whatif").click()
        expect(teacher.locator("#whatif-problem")).to_contain_text("decision")
        expect(teacher.locator("#whatif-problem .rule")).to_contain_text("variation/step")
        teacher.keyboard.press("ArrowLeft")
    ready(teacher, at)
    teacher.locator("#whatif-title").fill("what if the other move")
    teacher.locator("#whatif").click()
    expect(teacher.locator("#study-line")).to_contain_text("what if the other move")
    vid = client.get(f"/api/records/{record_id}/variations").get_json()["variations"][-1]["id"]
    ready(teacher, at, vid)
    expect(teacher.locator("#legal .legal-move").first).to_be_visible()
    legal = client.get(f"/api/variations/{vid}/legal").get_json()["commands"]
    assert teacher.locator("#legal .legal-move").count() == min(300, len(legal))
    teacher.locator("#legal .legal-move").first.click()
    branch = teacher.locator(f'#moves li.branch[data-line="{vid}"]')
    expect(branch.locator(".branch-head")).to_contain_text("1 move")
    summary = client.get(f"/api/variations/{vid}").get_json()
    assert summary["moves"] == 1 and summary["last_step"] > at
    ready(teacher, summary["last_step"], vid)
    expect(branch).to_be_visible()
    # the rules refuse a made-up command: its rule and message are shown, nothing is stored
    teacher.locator("#raw-command").fill('{"type": "no-such-move"}')
    teacher.locator("#play .play-raw").click()
    expect(teacher.locator("#play-problem")).to_be_visible()
    expect(teacher.locator("#play-problem .rule")).to_contain_text("command/")
    # a move of the other seat, out of its turn: which rule, in the game's words (the seats' names, not
    # "seat 1"), and what was legal instead
    now = client.get(f"/api/variations/{vid}/legal").get_json()["commands"]
    wrong = {**now[0]["command"], "seat": 1 - now[0]["command"]["seat"]}
    teacher.locator("#raw-command").fill(json.dumps(wrong))
    teacher.locator("#play .play-raw").click()
    problem = teacher.locator("#play-problem")
    expect(problem.locator(".rule")).to_contain_text(title)
    expect(problem).to_contain_text(NAMES[now[0]["command"]["seat"]])
    expect(problem).not_to_contain_text("seat 0")
    expect(problem).not_to_contain_text("seat 1")
    expect(problem.locator("p.legal-said")).to_contain_text(f"Legal here ({len(now)})")
    expect(problem.locator("ul.legal-said li").first).to_have_text(now[0]["said"])
    expect(problem.locator("ul.legal-said li")).to_have_count(min(3, len(now)))
    assert client.get(f"/api/variations/{vid}").get_json()["moves"] == 1
    # a note on the variation's step, then the arrow keys walk the branch back to where it leaves
    load_places(teacher, base, record_id)
    a, b, ring = PLACES[title]
    for k, place in enumerate((b, a, ring, ring)):
        click_place(teacher, place)
        if k in (0, 2):  # a start picked: wait for it, as a person sees it, before the next click
            expect(teacher.locator("svg.cronaca-shapes .pending.start")).to_have_attribute("data-at", place)
        else:
            expect(teacher.locator("#draft-shapes li")).to_have_count((k + 1) // 2)
    expect(teacher.locator("#draft-shapes li")).to_have_count(2)
    teacher.locator("#note-glyph").select_option("!")
    teacher.locator("#note-text").fill("in the variation")
    teacher.locator("#note-save").click()
    expect(teacher.locator("#step-notes li.note")).to_contain_text("in the variation")
    notes = client.get(f"/api/records/{record_id}/annotations?line={vid}").get_json()["notes"]
    assert [(n["line"], n["step"]) for n in notes] == [(vid, summary["last_step"])]
    teacher.evaluate("() => document.activeElement.blur()")  # off the form: the page's keys step again
    teacher.keyboard.press("Home")
    ready(teacher, 0, vid)
    teacher.keyboard.press("End")
    ready(teacher, summary["last_step"], vid)
    expect(branch.locator("li.vcurrent")).to_have_count(1)
    # the move and the variation being walked say so to a screen reader, as the main line's current move does
    expect(branch.locator("li.vcurrent > a")).to_have_attribute("aria-current", "step")
    expect(branch.locator(".branch-head > a")).to_have_attribute("aria-current", "true")
    expect(teacher.locator('#moves a[aria-current="step"]')).to_have_count(1)  # the main line's is let go
    expect(teacher.locator("#said")).not_to_be_empty()
    middle = min(at, steps)
    # a student sees the branch and walks it too
    student = context()
    student.goto(f"{base}/records/{record_id}#step={middle}")
    ready(student, middle)
    student.locator(f'#moves li.branch[data-line="{vid}"] .branch-head a').click()
    ready(student, min(at + 1, summary["last_step"]), vid)
    expect(student.locator("#whatif")).to_have_count(0)
    student.locator("#study-line").get_by_role("button", name="main line", exact=True).click()  # its "↩" not said
    ready(student, at)
    expect(student.locator(f'#moves li.branch[data-line="{vid}"] [aria-current]')).to_have_count(0)
    student.keyboard.press("End")
    ready(student, steps)


def test_a_what_if_where_chance_comes_next_draws_or_asks_the_teacher_for_the_draw(
        served: tuple[str, Any, Any], context: Any) -> None:
    """A variation from a step whose move draws cubes from a bag: "chosen by me" with no draw given is refused in
    the game's words (whose bag); "drawn" draws afresh, and the branch says its chance was drawn."""
    base, client, _ = served
    record_id, key = finished_record(client, "citta-stato")
    entries, start = client.get(f"/api/records/{record_id}/export").get_json()["entries"], 0
    for k, entry in enumerate(entries):
        if k and entry["outcomes"]:
            break
        start += len(entry["events"])
    made = client.post(f"/api/records/{record_id}/variations", headers=auth(key),
                       json={"from_step": start, "title": "another draw"})
    assert made.status_code == 201, made.get_json()
    vid, seat = made.get_json()["id"], entry["command"]["seat"]
    said = next(c["said"] for c in client.get(f"/api/variations/{vid}/legal").get_json()["commands"]
                if c["command"] == entry["command"])
    teacher = context()
    teacher.goto(f"{base}/records/{record_id}#step={start}&key={key}&line={vid}")
    ready(teacher, start, vid)
    move = teacher.locator("#legal .legal-move", has_text=said).first
    teacher.locator("#chance-author").check()
    move.click()
    problem = teacher.locator("#play-problem")
    expect(problem).to_contain_text(f"a draw from {NAMES[seat]}'s bag")
    expect(problem.locator(".rule")).to_have_text("rule chance/missing-outcome")
    assert client.get(f"/api/variations/{vid}").get_json()["moves"] == 0
    teacher.locator("#chance-drawn").check()
    teacher.locator("#legal .legal-move", has_text=said).first.click()
    branch = teacher.locator(f'#moves li.branch[data-line="{vid}"] .branch-head')
    expect(branch).to_contain_text("1 move · chance drawn")
    expect(teacher.locator("#study-status")).to_contain_text("Played:")
    assert client.get(f"/api/variations/{vid}").get_json()["chance"] == ["drawn"]


@pytest.mark.parametrize("title", TITLES)
def test_screenshots_early_middle_and_final_with_notes_and_a_branch(served: tuple[str, Any, Any], context: Any,
                                                                     title: str) -> None:
    """study-<title>[-early|-final].png, each with what a class would see drawn."""
    base, client, app = served
    record_id, key = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    decisions = decision_steps(app, record_id)
    early, middle = decisions[1], decisions[(2 * len(decisions)) // 3]
    a, b, ring = PLACES[title]

    def note(step: int, line: str | None, **body: Any) -> None:
        answer = client.post(f"/api/records/{record_id}/annotations", headers=auth(key),
                             json={"step": step, "line": line, "author": "Prof. Rossi", **body})
        assert answer.status_code == 201, answer.get_json()

    note(early, None, text="A **quiet** start: the *market* matters more than it seems.", glyph="!",
         shapes=[{"kind": "arrow", "from": a, "to": b, "brush": "green"}, {"kind": "highlight", "at": ring, "brush": "yellow"},
                 {"kind": "label", "at": b, "text": "A", "brush": "blue"}])
    branched = client.post(f"/api/records/{record_id}/variations", headers=auth(key),
                           json={"from_step": middle, "parent": None, "title": "the other road", "author": "Prof. Rossi"})
    assert branched.status_code == 201, branched.get_json()
    vid = branched.get_json()["id"]
    for _ in range(2):
        legal = client.get(f"/api/variations/{vid}/legal").get_json()["commands"]
        if not legal:
            break
        played = client.post(f"/api/variations/{vid}/commands", headers=auth(key), json={"command": legal[-1]["command"]})
        assert played.status_code == 200, played.get_json()
    last = client.get(f"/api/variations/{vid}").get_json()["last_step"]
    note(last, vid, text="Here the other road pays.", glyph="!?", shapes=[{"kind": "arrow", "from": b, "to": a, "brush": "blue"}])
    note(middle, None, text="The move played: compare with the variation.", glyph="?!",
         shapes=[{"kind": "highlight", "at": a, "brush": "red"}])
    note(steps, None, text="Final: *count the points*.", glyph="??", shapes=[{"kind": "arrow", "from": ring, "to": a, "brush": "red"}])

    page = context()
    for step, line, name, shapes in ((early, None, f"study-{title}-early.png", 3), (last, vid, f"study-{title}.png", 1),
                                     (steps, None, f"study-{title}-final.png", 1)):
        page.goto("about:blank")
        page.goto(f"{base}/records/{record_id}#step={step}&key={key}" + (f"&line={line}" if line else ""))
        ready(page, step, line or "main")
        expect(page.locator("svg.cronaca-shapes g.shape")).to_have_count(shapes)
        expect(page.locator("#step-notes li.note")).to_have_count(1)
        if line:
            expect(page.locator(f'#moves li.branch[data-line="{vid}"] li.vcurrent')).to_have_count(1)
            expect(page.locator("#study-line")).to_contain_text("the other road")
        else:  # the step's line in the move list, its comment under it in sight too (not cut off at the list's end)
            comment = page.locator("#moves li.current .note-comment")
            expect(comment).to_be_visible()
            # looked at in the page, until the list has settled (it is drawn again as the step's notes arrive)
            in_sight = page.evaluate(IN_SIGHT)
            assert in_sight[0], (name, in_sight)
        shot(page, name)


# Whether the current step's comment lies inside the move list's box, asked in the page for up to 20 s until it does
# (the list is drawn again as the step's notes arrive): [in sight, the comment's box, the list's box].
IN_SIGHT = """async () => { const end = performance.now() + 20000; let found = [false, null, null];
  while (performance.now() < end) {
    const c = document.querySelector("#moves li.current .note-comment"), m = document.getElementById("moves");
    const b = c && c.getBoundingClientRect(), l = m && m.getBoundingClientRect();
    found = [!!(b && l && b.height > 0 && l.y <= b.y && b.y + b.height <= l.y + l.height + 1),
             b && [b.x, b.y, b.width, b.height], l && [l.x, l.y, l.width, l.height]];
    if (found[0]) return found;
    await new Promise((go) => setTimeout(go, 20));
  }
  return found; }"""


def test_the_annotator_key_typed_in_its_field_opens_the_tools(served: tuple[str, Any, Any], context: Any) -> None:
    base, client, app = served
    record_id, key = finished_record(client, "la-citta")
    at = decision_steps(app, record_id)[0]
    page = context()
    page.goto(f"{base}/records/{record_id}#step={at}")
    ready(page, at)
    expect(page.locator("#note-form")).to_have_count(0)
    expect(page.locator("#whatif")).to_have_count(0)
    page.locator("#key-box summary").click()
    page.locator("#key").fill("not-the-key")
    page.locator("#key-form button").click()
    expect(page.locator("#study-status")).to_contain_text("not this record's annotator key")
    expect(page.locator("#note-form")).to_have_count(0)
    page.locator("#key").fill(key)
    page.locator("#key-form button").click()
    expect(page.locator("#note-form")).to_be_visible()
    expect(page.locator("#whatif")).to_be_visible()
    expect(page.locator("#key-box")).to_be_hidden()
    assert f"key={key}" in page.url
    page.locator("#next").click()  # stepping keeps the key in the address
    ready(page, at + 1)
    expect(page).to_have_url(re.compile(f"#.*key={re.escape(key)}"))  # not wait_for_function: the page's CSP refuses its eval


def test_a_board_without_a_drawing_still_takes_words_and_glyphs(served: tuple[str, Any, Any], context: Any) -> None:
    """The toy title has no board layout: no overlay, no places; a note of words and a glyph still works."""
    base, client, _ = served
    answer = client.post("/api/records", json={"title": "toy", "seats": NAMES})
    assert answer.status_code == 201, answer.get_json()
    record_id, key = answer.get_json()["id"], answer.get_json()["annotator_key"]
    page = context()
    page.goto(f"{base}/records/{record_id}#step=0&key={key}")
    ready(page, 0)
    expect(page.locator("#places")).to_contain_text("no drawing")
    expect(page.locator("svg.cronaca-shapes")).to_have_count(0)
    page.locator("#note-save").click()  # nothing at all: the service says why
    expect(page.locator("#note-problem")).to_be_visible()
    expect(page.locator("#note-problem .rule")).to_contain_text("annotation/empty")
    page.locator("#note-text").fill("a word")
    page.locator("#note-glyph").select_option("!!")
    page.locator("#note-save").click()
    expect(page.locator("#step-notes li.note .note-html")).to_have_text("a word")
    expect(page.locator("#step-notes li.note .glyph")).to_have_text("!!")
    expect(page.locator("#whatif")).to_have_count(0)  # in progress: no variations
