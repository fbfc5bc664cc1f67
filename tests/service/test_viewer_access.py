"""Every page for every reader (issue 32): a phone's 390 px and a desktop's 1400 px, axe-core, a screen reader.

axe-core (pinned in package.json, test-only, installed by `npm ci`) is injected into each page as it is
served and run over the whole document: no serious or critical violation on any page at either width.
The record page is also read as a screen reader reads it: the board in sentences of the game's words,
one live region, a skip link past the move list, and the move list as one tab stop walked with the arrow
keys. At 390 px the board's text must be readable where it is shown (the issue measured a median of 4 px).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.service import browsing
from tests.service.browsing import axe_violations, served_app
from tests.service.helpers import Accepted, auth, import_finished_http, record_file

pytestmark = pytest.mark.browser
TITLES = ["citta-stato", "la-citta", "serenissima"]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = browsing.SHOTS  # the page tests' screenshots (var/screenshots, or $CRONACA_PAGE_SHOTS)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 1000}
WIDTHS = {"phone": PHONE, "desktop": DESKTOP}
READABLE_PX = 9  # the smallest median board text a reader reads without zooming


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, dict[str, str]]]:
    """The app with a finished game of each title and a lesson of one chapter: (base, client, {page: path})."""
    with served_app(tmp_path_factory.mktemp("access")) as (base, app):
        client = app.test_client()
        accepted = {title: import_finished_http(client, record_file(title, f"access-{title}", greedy=True))
                    for title in TITLES}
        records = {title: found.record_id for title, found in accepted.items()}
        made = client.post("/api/lessons", json={"title": "Reading an opening", "introduction": "Watch the market."})
        assert made.status_code == 201, made.get_json()
        lesson = made.get_json()
        chapter = client.post(f"/api/lessons/{lesson['lesson']['id']}/chapters",
                              json={"record_id": records["citta-stato"], "from_step": 3, "to_step": 12,
                                    "title": "The opening", "introduction": "How Ada and Ben set out."},
                              headers={"Authorization": f"Bearer {lesson['teacher_key']}"})
        assert chapter.status_code == 201, chapter.get_json()
        table = client.post("/api/records", json={"title": "la-citta", "seats": ["Ada O'Neil", "Bruno di Sant'Elia"],
                                                  "options": {"players": 2}, "mode": "transcribed"})
        assert table.status_code == 201, table.get_json()
        paths = {"records list": "/", "import": "/import", "reconcile": "/reconcile", "api docs": "/api/docs",
                 "lesson": f"/lessons/{lesson['lesson']['id']}", "new lesson": "/lessons/new",
                 "new game": "/records/new", "embed": f"/embed/records/{records['la-citta']}",
                 "not found": "/records/no-such-record",
                 "table game": f"/records/{table.get_json()['id']}#table={table.get_json()['table_key']}",
                 **{f"record {title}": f"/records/{records[title]}" for title in TITLES},
                 "lesson teacher": teachers_lesson(client, accepted)}
        yield base, client, paths


def teachers_lesson(client: Any, accepted: dict[str, Accepted]) -> str:
    """A lesson of each title's whole game (a note with an arrow where a seat decides after the middle) and a
    what-if variation's chapter: the path of its teacher's page, the key in the hash."""
    made = client.post("/api/lessons", json={"title": "Three games, start to end", "introduction": "Read them whole."})
    assert made.status_code == 201, made.get_json()
    lesson_id, key = made.get_json()["lesson"]["id"], made.get_json()["teacher_key"]
    names = {title["id"]: title["name"] for title in client.get("/api/titles").get_json()["titles"]}
    for title, found in accepted.items():
        rid, steps = found.record_id, client.get(f"/api/records/{found.record_id}").get_json()["steps"]
        places = sorted(client.get(f"/api/records/{rid}/places").get_json()["places"])
        note = {"step": deciding_middle(client, rid), "text": "Why not the other way?", "glyph": "?!",
                "shapes": [{"kind": "arrow", "from": places[0], "to": places[-1], "brush": "blue"}]}
        assert client.post(f"/api/records/{rid}/annotations", json=note, headers=auth(found.annotator_key)).status_code == 201
        chapter = {"record_id": rid, "from_step": 0, "to_step": steps, "title": f"A whole game of {names[title]}"}
        assert client.post(f"/api/lessons/{lesson_id}/chapters", json=chapter, headers=auth(key)).status_code == 201
    # the what-if on a game of its own: a variation's link in the move list is a tab stop the screen-reader test
    # does not expect on the records it walks
    rid, annotator, _, _ = import_finished_http(client, record_file("serenissima", "access-what-if"))
    branch = client.get(f"/api/records/{rid}/turns").get_json()[3]["to"]
    variation = client.post(f"/api/records/{rid}/variations", json={"from_step": branch, "title": "what if"},
                            headers=auth(annotator)).get_json()["id"]
    legal = client.get(f"/api/variations/{variation}/legal").get_json()["commands"]
    played = client.post(f"/api/variations/{variation}/commands", json={"command": legal[-1]["command"]}, headers=auth(annotator))
    assert played.status_code in (200, 201), played.get_json()
    chapter = {"record_id": rid, "line": variation, "from_step": branch, "to_step": branch + 1, "title": "What if"}
    assert client.post(f"/api/lessons/{lesson_id}/chapters", json=chapter, headers=auth(key)).status_code == 201
    return f"/lessons/{lesson_id}#key={key}"


def deciding_middle(client: Any, record_id: str) -> int:
    """The end of a turn near the game's middle where a seat decides (a prediction pause may be asked there): two
    turns past the middle, whose step and the next the screen-reader test reads with no shape drawn."""
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    for turn in turns[len(turns) // 2 + 2:]:
        if client.get(f"/api/records/{record_id}/steps/{turn['to']}").get_json()["pending"].get("seat") is not None:
            return int(turn["to"])
    raise AssertionError("no seat decides after the middle")


browser = browsing.browser  # fixture, used by name


@pytest.fixture
def opened(browser: Any) -> Iterator[Any]:
    """Opens a page at a viewport, in a context that lets the test inject axe-core (the pages' CSP forbids
    inline scripts, rightly); the test fails if a page threw."""
    errors: list[str] = []
    contexts: list[Any] = []

    def open_at(viewport: dict[str, int], touch: bool = False) -> Any:
        context = browser.new_context(viewport=viewport, bypass_csp=True, has_touch=touch, is_mobile=touch)
        contexts.append(context)
        made = context.new_page()
        made.on("pageerror", lambda exc: errors.append(str(exc)))
        return made

    yield open_at
    for context in contexts:
        context.close()
    assert not errors, f"the page threw: {errors}"


def ready(page: Any, name: str) -> None:
    """Wait until the page has drawn what a reader comes for."""
    if name.startswith("record "):
        expect(page.locator("body")).to_have_attribute("data-loaded", "all")
        expect(page.locator("#board svg")).to_have_count(1)
    elif name == "lesson":
        expect(page.locator("body")).to_have_attribute("data-ready", "yes")
        expect(page.locator("#board .board-wrap > svg:not(.overlay)")).to_have_count(1)
    elif name == "records list":
        # three finished, the what-if's game of the teacher's lesson, one at the table
        expect(page.locator("#records tbody tr")).to_have_count(len(TITLES) + 2)
    elif name == "embed":
        expect(page.locator("body")).to_have_attribute("data-loaded", "all")
    elif name == "table game":  # the decision panel asks for the setup's outcomes seen at the table
        expect(page.locator("#decision")).to_be_visible()
        expect(page.locator("#decision button.choice").first).to_be_visible()
    elif name == "new game":  # the players' lines come once the titles are read (a loaded machine: after #start)
        expect(page.locator("#start")).to_be_visible()
        expect(page.locator("#seats li").nth(1)).to_be_visible()
    elif name == "api docs":
        expect(page.locator("main, body").first).to_contain_text("records")
    else:
        page.wait_for_load_state("networkidle")


PAGES = ["records list", "import", "reconcile", "api docs", "lesson", "new lesson", "new game", "embed", "not found",
         "table game", *(f"record {t}" for t in TITLES)]


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_nothing_serious_on_any_page(served: tuple[str, Any, dict[str, str]], opened: Any,
                                               name: str, width: str) -> None:
    base, _, paths = served
    page = opened(WIDTHS[width])
    page.goto(base + paths[name])
    ready(page, name)
    assert page.locator('meta[name="viewport"]').count() == 1, f"{name} has no viewport meta"
    violations = axe_violations(page)
    assert violations == [], f"{name} at {width}: {violations}"
    # nothing wider than the screen: a phone reader scrolls down, never sideways (the board pans in its own box)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"{name} at {width} scrolls sideways by {overflow} px"


def board_text_px(page: Any, box: str = "#board-wrap", texts: str = "#board svg text") -> list[float]:
    """The rendered size (CSS px) of every board text a reader sees in the board's box at its default view."""
    sizes: list[float] = page.evaluate("""([boxed, texts]) => {
      const box = document.querySelector(boxed).getBoundingClientRect();
      const out = [];
      for (const t of document.querySelectorAll(texts)) {
        if (!t.textContent.trim()) continue;
        const r = t.getBoundingClientRect();
        if (r.width === 0 || r.right < box.left || r.left > box.right || r.bottom < box.top || r.top > box.bottom) continue;
        const ctm = t.getScreenCTM();
        const size = parseFloat(getComputedStyle(t).fontSize);
        out.push(size * Math.hypot(ctm.a, ctm.b));
      }
      return out;
    }""", [box, texts])
    return sizes


@pytest.mark.parametrize("title", TITLES)
def test_a_phone_shows_the_board_readable_and_the_controls_in_reach(served: tuple[str, Any, dict[str, str]],
                                                                    opened: Any, title: str) -> None:
    base, client, paths = served
    record_id = paths[f"record {title}"].rsplit("/", 1)[1]
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    page = opened(PHONE)
    page.goto(base + paths[f"record {title}"])
    ready(page, f"record {title}")
    for label, step in (("early", turns[1]["to"]), ("middle", turns[len(turns) // 2]["to"]), ("final", steps)):
        page.locator("#slider").fill(str(step))
        expect(page.locator("body")).to_have_attribute("data-step", str(step))
        page.evaluate("() => window.scrollTo(0, 0)")
        sizes = board_text_px(page)
        assert len(sizes) >= 10, f"{title} {label}: only {len(sizes)} board texts are shown on a phone"
        median = statistics.median(sizes)
        assert median >= READABLE_PX, f"{title} {label}: the board's median text is {median:.1f} px on a phone"
        page.screenshot(path=str(SHOTS / f"phone-{title}-{label}.png"))
        # what the step did, in words, is on the first screen beside the step buttons, nothing over it
        expect(page.locator("#said")).not_to_be_empty()
        assert page.evaluate(SAID_SEEN) == "", f"{title} {label}: the step's sentence is not seen: {page.evaluate(SAID_SEEN)}"
    # the board comes first, the step buttons sit along the bottom edge (a thumb's reach), the move list and
    # the chart below the board
    board = page.locator("#board-pan").bounding_box()
    assert board is not None and board["y"] < PHONE["height"] / 3, board
    for button in ("#prev", "#next", "#next-turn"):
        box = page.locator(button).bounding_box()
        assert box is not None and box["y"] > PHONE["height"] * 0.8 and box["height"] >= 40, (button, box)
    story, scores = page.locator("#story").bounding_box(), page.locator("#scores").bounding_box()
    assert story is not None and scores is not None and board["y"] + board["height"] <= story["y"] <= scores["y"]
    # the reader's other controls (the view, spoiler-free, the share box, the study box, the view as data) are a
    # finger's size too; the step bar is its own, above
    expect(page.locator("#share")).to_be_visible()
    page.locator("#share > summary").click()
    page.locator("#key-box > summary").click()
    trips = page.evaluate(TRIPS, ["main", "#controls, #board-pan, #story, #chart, #state, #decision, svg, .skip-link"])
    assert trips == {"past": [], "small": [], "spilled": [], "tiny": []}, f"{title}: {trips}"
    # the links a finger taps to jump to a step (the moves, the lead changes) and the site's links: 44 px tall
    short = page.evaluate("""() => [...document.querySelectorAll('#moves li > a[data-step], #leads a, header nav a, #share-box a')]
      .map((a) => [a.textContent.slice(0, 30), a.getBoundingClientRect().height])
      .filter(([, h]) => h > 0 && h < 43.5)""")
    assert short == [], f"{title}: links shorter than a finger: {short[:5]} ({len(short)})"
    # the header is one row as tall as its link (the title beside the way back to the records), not two
    page.evaluate("() => window.scrollTo(0, 0)")
    header, back = page.locator("header").bounding_box(), page.locator("header nav a[href='/']").bounding_box()
    assert header is not None and back is not None and back["height"] >= 43.5, back
    assert header["height"] <= 56 and back["y"] + back["height"] <= header["y"] + header["height"], (title, header, back)
    # "show the whole board" fits it to the screen, and back
    page.locator("#board-zoom").click()
    expect(page.locator("#board-zoom")).to_have_attribute("aria-pressed", "true")
    width = page.locator("#board > svg").bounding_box()
    assert width is not None and width["width"] <= PHONE["width"], width
    page.locator("#board-zoom").click()
    wide = page.locator("#board > svg").bounding_box()
    assert wide is not None and wide["width"] > PHONE["width"] * 1.8, wide

# Where the step's sentence (#said) is not seen on the screen as it stands: "" when it is inside the screen and the
# element at its first line is itself (not the step bar, the board or anything else drawn over it).
SAID_SEEN = """() => { const s = document.getElementById('said'), r = s.getBoundingClientRect();
  if (r.height === 0 || r.top < 0 || r.bottom > innerHeight + 1) return `off the screen at ${Math.round(r.top)}-${Math.round(r.bottom)}`;
  const top = document.elementFromPoint(r.left + 8, r.top + 8);
  return top && s.contains(top) ? '' : `under ${top ? top.tagName + '#' + top.id + '.' + top.className : 'nothing'}`; }"""


# What a phone reader would trip on in `scope`, outside the boxes `pans` that scroll on their own (the board's):
# anything reaching past the screen's edges, a control smaller than a finger (44 CSS px, the size the pages give
# them) or whose words spill out of it (over the next one; a textarea scrolls its own), text under 12 px.
TRIPS = """([scope, pans]) => {
  const vw = document.documentElement.clientWidth;
  const panned = (e) => e.closest(pans);
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "' + (e.textContent || '').trim().slice(0, 24) + '"';
  const past = [...document.querySelectorAll(`${scope} *`)].filter((e) => !panned(e) && shown(e))
    .filter((e) => { const r = e.getBoundingClientRect(); return r.right > vw + 1 || r.left < -1; }).map(name);
  const controls = `${scope} :is(button, select, textarea, summary, input:not([type=radio]):not([type=checkbox]),
    label:has(> input[type=checkbox]), #choices .choice)`;
  const small = [...document.querySelectorAll(controls)].filter((e) => !panned(e) && shown(e))
    .filter((e) => { const r = e.getBoundingClientRect(); return r.height < 43.5 || r.width < 43.5; })
    .map((e) => { const r = e.getBoundingClientRect(); return `${name(e)} ${Math.round(r.width)}x${Math.round(r.height)}`; });
  const spilled = [...document.querySelectorAll(controls)].filter((e) => !panned(e) && shown(e))
    .filter((e) => !['SELECT', 'TEXTAREA'].includes(e.tagName) && e.scrollHeight > e.clientHeight + 2).map(name);
  const tiny = [];
  const walk = document.createTreeWalker(document.querySelector(scope), NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const at = walk.currentNode.parentElement;
    if (!walk.currentNode.textContent.trim() || panned(at) || at.closest('.visually-hidden') || !shown(at)) continue;
    const size = parseFloat(getComputedStyle(at).fontSize);
    if (size < 12) tiny.push(`${name(at)} ${size}px`);
  }
  return {past, small, spilled, tiny};
}"""


def nothing_to_trip_on(page: Any, where: str) -> None:
    """At 390 px: no sideways scroll, nothing past the edges, every control a finger's size, no tiny text, the
    board's text readable in its pan box."""
    overflow = page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"{where}: the page scrolls sideways by {overflow} px"
    trips = page.evaluate(TRIPS, ["#lesson", "#board, #pause-view-data, svg"])
    assert trips == {"past": [], "small": [], "spilled": [], "tiny": []}, f"{where}: {trips}"
    if page.locator("#board .board-wrap").count():
        sizes = board_text_px(page, box="#board", texts="#board .board-wrap > svg:not(.overlay) text")
        assert len(sizes) >= 10 and statistics.median(sizes) >= READABLE_PX, f"{where}: board text {sorted(sizes)[:10]}"


def in_thumb_reach(page: Any, where: str) -> None:
    """The step buttons are on the screen's lower half whether the page is at its top or the board is."""
    for scrolled in ("window.scrollTo(0, 0)", "document.getElementById('lesson-board-region').scrollIntoView()"):
        page.evaluate(f"() => {scrolled}")
        for button in ("#prev", "#next"):
            box = page.locator(button).bounding_box()
            assert box is not None and PHONE["height"] / 2 < box["y"] and box["y"] + box["height"] <= PHONE["height"] + 1, (
                where, scrolled, button, box)
        # what the step did, in words, in sight with the board: not under the step bar stuck to the screen's bottom
        said, bar = page.locator("#said").bounding_box(), page.locator("#controls").bounding_box()
        assert said is not None and bar is not None and said["height"] > 0, (where, said)
        assert said["y"] >= 0 and said["y"] + said["height"] <= bar["y"] + 1, (where, scrolled, "the step's words are "
                                                                                "covered", said, bar)


def shoot(page: Any, name: str, whole: bool) -> None:
    """The whole page (seen from its end, so the step bar sticky at the screen's bottom edge is drawn in its place),
    or the screen a presenter looks at on a phone: from the chapter's title, the board and the step bar under it."""
    if whole:
        page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    else:
        page.evaluate("() => document.getElementById('chapter-title').scrollIntoView()")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=whole)


@pytest.mark.parametrize("width", list(WIDTHS))
def test_a_teacher_presents_draws_and_pauses_from_a_phone_as_from_a_desk(
        served: tuple[str, Any, dict[str, str]], opened: Any, width: str) -> None:
    """The teacher's lesson page at 390 and 1400 px: each title's chapter early, in the middle (a note's arrow) and at
    its end, a highlight drawn, a prediction pause a student answers on a phone, the variation's chapter; at 390 px
    nothing to trip on, the step buttons in a thumb's reach and the student's "come back" banner on screen. The
    screenshots (lesson-teacher-* in browsing.SHOTS) were looked at."""
    base, client, paths = served
    phone = width == "phone"
    lesson_id = paths["lesson teacher"].split("/")[2].split("#")[0]
    chapters = client.get(f"/api/lessons/{lesson_id}").get_json()["chapters"]
    teacher = opened(WIDTHS[width])
    teacher.goto(base + paths["lesson teacher"])
    ready(teacher, "lesson")
    expect(teacher.locator("body")).to_have_class(re.compile(r"\bteacher\b"))
    for chapter, title in zip(chapters[:len(TITLES)], TITLES, strict=True):
        record_id = chapter["record_id"]
        turns = client.get(f"/api/records/{record_id}/turns").get_json()
        teacher.locator(f'#chapters li[data-chapter="{chapter["id"]}"] .chapter-link').click()
        expect(teacher.locator("body")).to_have_attribute("data-chapter", chapter["id"])
        for label, step in (("early", turns[1]["to"]), ("middle", deciding_middle(client, record_id)),
                            ("end", chapter["to_step"])):
            teacher.locator("#slider").fill(str(step))
            expect(teacher.locator("body")).to_have_attribute("data-step", str(step))
            expect(teacher.locator("#pause-decider")).not_to_be_empty()
            if label == "middle":  # the note's arrow, in words beside the board
                expect(teacher.locator("#notes .note-shapes")).to_contain_text("blue arrow from")
                assert "-" not in (teacher.locator("#pause-decider").text_content() or "").split("(")[-1], \
                    "the decision is said in words, not the rules' slug"
            if phone:
                nothing_to_trip_on(teacher, f"{title} {label}")
            shoot(teacher, f"lesson-teacher-{title}-{label}-{width}", whole=not phone)
    if phone:
        in_thumb_reach(teacher, "the last chapter's end")

    # in the middle of La Città's game: a highlight from the lists, then a pause a student answers on a phone
    chapter = chapters[1]
    middle = deciding_middle(client, chapter["record_id"])
    teacher.locator(f'#chapters li[data-chapter="{chapter["id"]}"] .chapter-link').click()
    teacher.locator("#slider").fill(str(middle))
    expect(teacher.locator("body")).to_have_attribute("data-step", str(middle))
    teacher.locator("#place-from").select_option(index=1)
    teacher.locator("#add-shape").click()
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{chapter['id']}:{middle}:1")
    # a ring tapped on a place the board's box shows (on a phone: where the box was scrolled to)
    anchors = client.get(f"/api/records/{chapter['record_id']}/places").get_json()["places"]
    teacher.evaluate("() => document.getElementById('lesson-board-region').scrollIntoView()")
    place, x, y = teacher.evaluate("""(anchors) => {
      const box = document.getElementById('board').getBoundingClientRect();
      const ctm = document.querySelector('#board svg.overlay').getScreenCTM();
      const mid = [box.left + box.width / 2, box.top + box.height / 2];
      return Object.entries(anchors).map(([name, a]) => { const p = new DOMPoint(a.x, a.y).matrixTransform(ctm);
        return [name, p.x, p.y]; }).sort((a, b) => Math.hypot(a[1] - mid[0], a[2] - mid[1]) - Math.hypot(b[1] - mid[0], b[2] - mid[1]))[0];
    }""", anchors)
    teacher.mouse.click(x, y)
    teacher.mouse.click(x, y)
    expect(teacher.locator("body")).to_have_attribute("data-presented", f"{chapter['id']}:{middle}:2")
    assert client.get(f"/api/lessons/{lesson_id}").get_json()["presenter"]["shapes"][-1]["at"] == place
    student = opened(PHONE)
    student.goto(f"{base}/lessons/{lesson_id}")
    expect(student.locator("body")).to_have_attribute("data-step", str(middle))
    # a student comes for the board: on the first screen, before the pause and the chapter list
    board = student.locator("#lesson-board-region").bounding_box()
    pause, listed = student.locator("#pause-box").bounding_box(), student.locator("#chapters-box").bounding_box()
    assert board is not None and pause is not None and listed is not None
    assert board["y"] < PHONE["height"] / 2 and board["y"] + board["height"] <= pause["y"] < listed["y"], (board, pause, listed)
    teacher.locator("#pause-question").fill("What would you do?")
    teacher.locator("#open-pause-button").click()
    expect(student.locator("#choices .choice").first).to_be_visible()
    nothing_to_trip_on(student, "a student's pause")
    if phone:
        shoot(student, "lesson-student-pause-phone", whole=True)
    student.locator("#student").fill("Anna")
    student.locator("#choices .choice").first.click()
    student.locator("#answer button[type=submit]").click()
    expect(teacher.locator("body")).to_have_attribute("data-tally", "1")
    for details in ("#add-chapter-box", "#export-key-box"):  # the teacher's folded forms, open
        teacher.locator(f"{details} > summary").click()
    if phone:
        nothing_to_trip_on(teacher, "the pause's tally and the open forms")
    shoot(teacher, f"lesson-teacher-pause-{width}", whole=True)
    violations = axe_violations(teacher)
    assert violations == [], f"the teacher's page at {width}: {violations}"

    # the student steps away; the banner that brings it back is on screen wherever the page is scrolled to
    student.locator("#prev").click()
    expect(student.locator("body")).to_have_attribute("data-following", "no")
    teacher.locator("#reveal").click()
    teacher.locator("#next").click()
    expect(student.locator("#follow-button")).to_be_visible()
    student.evaluate("() => document.getElementById('lesson-board-region').scrollIntoView()")
    banner = student.locator("#follow-button").bounding_box()
    assert banner is not None and banner["y"] >= 0 and banner["y"] + banner["height"] <= PHONE["height"], banner
    student.locator("#follow-button").click()
    expect(student.locator("body")).to_have_attribute("data-step", str(middle + 1))
    # following, a step is heard once: the step's sentence is the one live region that changes
    before = student.evaluate(f"() => [...document.querySelectorAll({LIVE!r})].map((n) => n.id + '=' + n.textContent)")
    teacher.locator("#next").click()
    expect(student.locator("body")).to_have_attribute("data-step", str(middle + 2))
    student.wait_for_timeout(300)
    after = student.evaluate(f"() => [...document.querySelectorAll({LIVE!r})].map((n) => n.id + '=' + n.textContent)")
    assert len(before) == len(after)
    assert [a.split("=", 1)[0] for a, b in zip(after, before, strict=True) if a != b] == ["said"], (before, after)

    # the what-if chapter: its board and the variation named
    last = chapters[-1]
    teacher.locator(f'#chapters li[data-chapter="{last["id"]}"] .chapter-link').click()
    expect(teacher.locator("body")).to_have_attribute("data-chapter", last["id"])
    expect(teacher.locator("#chapter-intro")).to_contain_text("a variation")
    if phone:
        nothing_to_trip_on(teacher, "the variation's chapter")


# La Città counts years (and the political rounds within one): a bare "round" is another game's word on its pages
ROUND = re.compile(r"(?<!political )\brounds?\b", re.IGNORECASE)
READ = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('#state, #data, #pause-view-data, script, template').forEach((n) => n.remove());
  return copy.textContent.replace(/\\s+/g, ' ');
}"""


def test_la_citta_is_read_in_years_wherever_its_pages_speak(served: tuple[str, Any, dict[str, str]], opened: Any) -> None:
    """The record page, its embed, the lesson page and the game at the table, as a reader sees them (every text,
    the board's sentences among them) and as a screen reader hears them (the accessibility tree): no "round" but
    the political rounds. The views as data (its keys are the API's field names) are left out."""
    base, client, paths = served
    record_id = paths["record la-citta"].rsplit("/", 1)[1]
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    at = [client.get(f"/api/records/{record_id}/turns").get_json()[2]["to"], steps // 2, steps]
    heard: dict[str, str] = {}
    page = opened(DESKTOP)
    for n in at:
        page.goto(f"{base}/records/{record_id}#step={n}")
        ready(page, "record la-citta")
        expect(page.locator("#said")).not_to_be_empty()
        heard[f"record page at {n}"] = page.evaluate(READ) + page.locator("body").aria_snapshot()
        # the finished game is read all-seeing: the voice cards as painted show what they are, never a "?"
        cards = page.locator('#board [data-kind="voice-card"]')
        assert cards.count() and all("?" not in card.split() for card in cards.all_text_contents()), n
    page.goto(f"{base}/embed/records/{record_id}#step={at[1]}")
    ready(page, "embed")
    heard["embed"] = page.evaluate(READ) + page.locator("body").aria_snapshot()
    page.goto(base + paths["table game"])
    ready(page, "table game")
    heard["at the table"] = page.evaluate(READ) + page.locator("body").aria_snapshot()
    lesson_id = paths["lesson teacher"].split("/")[2].split("#")[0]
    chapter = next(c for c in client.get(f"/api/lessons/{lesson_id}").get_json()["chapters"] if c["record_id"] == record_id)
    teacher = opened(DESKTOP)
    teacher.goto(base + paths["lesson teacher"])
    ready(teacher, "lesson")
    teacher.locator(f'#chapters li[data-chapter="{chapter["id"]}"] .chapter-link').click()
    for n in at:
        teacher.locator("#slider").fill(str(n))
        expect(teacher.locator("body")).to_have_attribute("data-step", str(n))
        expect(teacher.locator("#said")).not_to_be_empty()
        heard[f"lesson at {n}"] = teacher.evaluate(READ) + teacher.locator("body").aria_snapshot()
    assert "Year" in heard["record page at " + str(steps)] and "year" in heard["embed"].lower()
    found = {where: [said[max(0, m.start() - 60):m.end() + 20] for m in ROUND.finditer(said)][:3]
             for where, said in heard.items()}
    assert not any(found.values()), found


def test_the_embedded_player_is_played_with_a_finger(served: tuple[str, Any, dict[str, str]], opened: Any) -> None:
    """A club's page read on a phone frames the player: its step buttons and slider are a finger's size (44 px)
    and a tap steps."""
    base, _, paths = served
    page = opened(PHONE, touch=True)
    page.goto(f"{base}{paths['embed']}#step=4")
    ready(page, "embed")
    expect(page.locator("body")).to_have_attribute("data-step", "4")
    for control in ("#first", "#prev", "#next", "#last", "#slider"):
        box = page.locator(control).bounding_box()
        assert box is not None and box["height"] >= 43.5 and box["width"] >= 43.5, (control, box)
    page.locator("#next").tap()
    expect(page.locator("body")).to_have_attribute("data-step", "5")


LIVE = ("[aria-live]:not([aria-live=off]), [role=status], [role=alert], [role=log], output")


@pytest.mark.parametrize("title", TITLES)
def test_a_screen_reader_reads_the_board_in_sentences_and_hears_one_thing_a_step(
        served: tuple[str, Any, dict[str, str]], opened: Any, title: str) -> None:
    base, client, paths = served
    record_id = paths[f"record {title}"].rsplit("/", 1)[1]
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    middle = turns[len(turns) // 2]["to"]
    page = opened(DESKTOP)
    page.goto(f"{base}{paths[f'record {title}']}#step={middle}")
    ready(page, f"record {title}")
    expect(page.locator("body")).to_have_attribute("data-step", str(middle))

    # the board reads as the sentences the API's drawing carries, and the picture itself is silent
    view = client.get(f"/api/records/{record_id}/steps/{middle}").get_json()["view"]
    lines = page.locator("#board-lines li")
    expect(lines.first).to_be_attached()
    said = lines.all_text_contents()
    seats = [s["name"] for s in client.get(f"/api/records/{record_id}").get_json()["seats"]]
    assert all(any(line.startswith(f"{name}:") or line.startswith(f"{name} (") for line in said) for name in seats), said
    if title == "la-citta":
        assert sum("'s city at L" in line for line in said) == len(view["cities"]), said
    tree = page.locator("#board-region").aria_snapshot()
    assert "the board in words" in tree and said[1][:40] in tree, tree[:2000]
    assert not any(digits in tree for digits in ("12345", "0123456789")), tree[:2000]  # no digit soup
    assert page.locator("#board > svg").get_attribute("aria-hidden") == "true"
    # the drawing layer says nothing while it holds no shapes
    expect(page.locator("body")).to_have_attribute("data-study", "ready")
    layer = page.locator("#board-wrap > svg.cronaca-shapes")
    expect(layer).to_have_count(1)
    assert layer.get_attribute("aria-hidden") == "true" and layer.get_attribute("aria-label") is None
    assert "no shapes" not in page.locator("#board-region").aria_snapshot()

    # a step changes one live region, not two
    before = page.evaluate(f"() => [...document.querySelectorAll({LIVE!r})].map((n) => n.id + '=' + n.textContent)")
    said_before = page.locator("#said").text_content() or ""
    page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-step", str(middle + 1))
    expect(page.locator("#board-lines li").first).to_be_attached()
    expect(page.locator("#said")).not_to_have_text(said_before)  # the step's sentence is in (a loaded machine is slow)
    page.wait_for_timeout(300)
    after = page.evaluate(f"() => [...document.querySelectorAll({LIVE!r})].map((n) => n.id + '=' + n.textContent)")
    assert len(before) == len(after)
    changed = [a for a, b in zip(after, before, strict=True) if a != b]
    assert [c.split("=", 1)[0] for c in changed] == ["said"], changed
    page.evaluate("() => window.scrollTo(0, 0)")
    assert page.evaluate(SAID_SEEN) == "", "the step's sentence is beside the step controls, on the first screen"

    # the move list is one tab stop: from the line before it, Tab lands on the current line, the arrows walk the
    # lines, and the next Tab leaves the list (the skip link before it jumps to the scores)
    links = page.locator("#moves li > a[data-step]")
    assert links.count() > 50
    assert page.locator('#moves li > a[data-step][tabindex="0"]').count() == 1
    # its current line's link says it is the current step; a line's mark of who asserted its chance is said in
    # words (a game entered at the table: the transcriber); the final breakdown's every column has a head
    expect(page.locator('#moves a[aria-current="step"]')).to_have_count(1)
    expect(page.locator('#moves li.current > a[tabindex="0"]')).to_have_attribute("aria-current", "step")
    expect(page.locator("#moves").get_by_role("img", name="asserted by the transcriber (a table's word)").first).to_be_attached()
    expect(page.locator("#final").get_by_role("columnheader", name="what counts")).to_have_count(1)
    page.locator("#skip-moves").focus()
    expect(page.locator("#skip-moves")).to_be_visible()
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.closest('li') && document.activeElement.closest('li').classList.contains('current')")
    assert focused, "Tab from the skip link should land on the current move"
    step = int(page.evaluate("() => document.activeElement.dataset.step"))
    page.keyboard.press("ArrowDown")
    expect(page.locator("#moves li.current > a")).not_to_have_attribute("data-step", str(step))  # the next line's
    expect(page.locator("#moves li.current > a")).to_be_focused()
    expect(page.locator("#moves li.current > a")).to_have_attribute("aria-current", "step")
    assert int(page.locator("#moves li.current > a").get_attribute("data-step")) > step
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('#moves')"), "one Tab leaves the move list"
    page.locator("#skip-moves").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#scores-title")).to_be_focused()
    assert "#step=" in page.url  # the skip link leaves the address (step, token) as it was


def test_a_shared_link_asks_its_first_board_once_as_soon_as_the_turns_are_in(
        served: tuple[str, Any, dict[str, str]], opened: Any) -> None:
    """A record opened from its bare link (no #step) opens at the first step after the setup: opening.js asks the
    turns beside the summary and that step's board as soon as the turns are in, and record.js takes both answers
    instead of asking again (the phone's first-board benchmark, issue 32)."""
    base, client, paths = served
    record_id = paths["record serenissima"].rsplit("/", 1)[1]
    first = client.get(f"/api/records/{record_id}/turns").get_json()[0]["to"]
    page = opened(PHONE)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.removeprefix(base)))
    page.goto(base + paths["record serenissima"])
    ready(page, "record serenissima")
    expect(page.locator("body")).to_have_attribute("data-step", str(first))
    turns, board = f"/api/records/{record_id}/turns", f"/api/records/{record_id}/steps/{first}/board"
    assert asked.count(turns) == 1 and asked.count(board) == 1, asked
    assert asked.index(board) < asked.index("/viewer/study.js"), asked


def test_the_records_list_on_a_phone_has_nothing_to_trip_on(served: tuple[str, Any, dict[str, str]],
                                                            opened: Any) -> None:
    """At 390 px the list's filters, its import button, each record's title and files are a finger's size (the
    selects and the player field were 20 px tall), and nothing reaches past the screen."""
    base, _, paths = served
    page = opened(PHONE)
    page.goto(base + paths["records list"])
    ready(page, "records list")
    trips = page.evaluate(TRIPS, ["main", "#records thead"])  # the column names are for a screen reader only
    assert trips == {"past": [], "small": [], "spilled": [], "tiny": []}, trips
    for target in ("#records td:first-child a", "#records td:nth-child(7) a", "#import-game"):
        box = page.locator(target).first.bounding_box()
        assert box is not None and box["height"] >= (43.5 if target == "#import-game" else 30), (target, box)


def test_a_new_game_on_a_phone_keeps_each_players_remove_button_beside_the_name(
        served: tuple[str, Any, dict[str, str]], opened: Any) -> None:
    """At 390 px each seat's ✕ sits on its name's line (it wrapped under it, a row of its own per player)."""
    base, _, paths = served
    page = opened(PHONE)
    page.goto(base + paths["new game"])
    ready(page, "new game")
    rows = page.locator("#seats li")
    assert rows.count() >= 2
    for k in range(rows.count()):
        name, remove = rows.nth(k).locator("input").bounding_box(), rows.nth(k).locator("button").bounding_box()
        assert name is not None and remove is not None
        assert abs((name["y"] + name["height"] / 2) - (remove["y"] + remove["height"] / 2)) < 4, (k, name, remove)
        assert remove["x"] + remove["width"] <= PHONE["width"] and remove["height"] >= 43.5, remove


@pytest.mark.parametrize("width", list(WIDTHS))
def test_la_citta_names_its_places_on_request_and_the_other_titles_need_no_switch(
        served: tuple[str, Any, dict[str, str]], opened: Any, width: str) -> None:
    """A table writes `farm L71 L78`, and the printed board names no hex: on La Città's record page "names of the
    places" shows every lane hex's name over the board, a finger's size on a phone, kept for the next page, each
    name clear of the castle's number, the building's mark and the citizen on its hex; the titles whose places are
    printed (cities, seas) show no such switch."""
    base, _, paths = served
    page = opened(WIDTHS[width], touch=width == "phone")
    page.goto(base + paths["record la-citta"])
    ready(page, "record la-citta")
    switch = page.locator("#place-names")
    expect(switch).to_be_visible()
    expect(switch).to_have_attribute("aria-pressed", "false")
    name = page.locator("#board svg .place-names text", has_text=re.compile(r"^L41$"))
    expect(name).to_be_hidden()
    if width == "phone":
        box = switch.bounding_box()
        assert box is not None and box["height"] >= 43.5, box
    else:  # a desk's header keeps every site link the phone's leaves to the records list
        expect(page.locator("header nav a")).to_have_text(["records", "import", "API"])
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    expect(name).to_be_visible()
    assert page.evaluate(COVERED) == [], "a place's name covers a piece"  # the castles' numbers (the opening)
    page.keyboard.press("End")  # the names stay as the board moves on, and cover no building, mark or citizen
    expect(page.locator("body")).to_have_attribute("data-step", re.compile(r"^[1-9]\d{2,}$"))
    expect(name).to_be_visible()
    assert page.locator("#board svg [data-kind=building]").count() > 0
    assert page.evaluate(COVERED) == [], "a place's name covers a piece"
    page.reload()
    ready(page, "record la-citta")
    expect(page.locator("#place-names")).to_have_attribute("aria-pressed", "true")
    expect(name).to_be_visible()
    page.locator("#place-names").click()  # and off again, for the next test's pages
    expect(name).to_be_hidden()
    for title in ("citta-stato", "serenissima"):
        page.goto(base + paths[f"record {title}"])
        ready(page, f"record {title}")
        expect(page.locator("#place-names")).to_be_hidden()


# The places' names (La Città's switch on) whose letters overlap a piece's: the castle's number, a building's mark, a
# citizen ("name on what", at most 8). A text's ink, not its box (the font's ascent and descent overlap where no
# letter does): from its baseline up a capital's height, as wide as its letters, in the drawing's units.
COVERED = """() => {
  const ink = (t) => { const size = parseFloat(getComputedStyle(t).fontSize), y = t.y.baseVal[0].value,
    w = t.getComputedTextLength(), x = t.x.baseVal[0].value - (t.getAttribute("text-anchor") === "middle"
      || t.closest("[text-anchor=middle]") ? w / 2 : 0);
    return { left: x, right: x + w, top: y - 0.73 * size, bottom: y }; };
  const disc = (c) => ({ left: c.cx.baseVal.value - c.r.baseVal.value, right: c.cx.baseVal.value + c.r.baseVal.value,
    top: c.cy.baseVal.value - c.r.baseVal.value, bottom: c.cy.baseVal.value + c.r.baseVal.value });
  const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const svg = "#board svg:not(.overlay)";
  const pieces = [...document.querySelectorAll(`${svg} text.citizen, ${svg} [data-kind=building] text`)]
    .map((t) => [t.firstChild.textContent, ink(t)]).concat([...document.querySelectorAll(`${svg} circle.citizen`)]
    .map((c) => [c.getAttribute("data-id"), disc(c)]));
  return [...document.querySelectorAll(`${svg} .place-names text`)].flatMap((n) => pieces
    .filter(([, box]) => meet(ink(n), box)).map(([what]) => `${n.textContent} on ${what}`)).slice(0, 8);
}"""
