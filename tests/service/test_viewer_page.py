"""The record page in real Chromium: board, story, scores, navigation, readers, spoilers, bad input.

One server and one browser for the module (page loads are the cost). Every title gets a finished
greedy-bot game (`domain.kernel.bots.play_bot`, a shallower search than the default: the same
scores, half the time), imported through `POST /api/imports` as a table
would send it, and an in-progress live game for the seat switcher. Screenshots of each title's
page land in browsing.SHOTS (docs/screenshots/ when refreshed for the README).
"""

from __future__ import annotations

import time
import uuid
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from domain.kernel import SeededChance
from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.conftest import LONG_TOY
from tests.service.helpers import NAMES, auth, import_finished_http, record_file
from tests.service.test_api import start

pytestmark = pytest.mark.browser
TITLES = ["citta-stato", "la-citta", "serenissima"]
SHOTS = browsing.SHOTS  # the page tests' screenshots (var/screenshots, or $CRONACA_PAGE_SHOTS)
# In-progress games whose seats hold secrets: Città-Stato's bags and war discs, Serenissima's hidden money.
LIVE_OPTIONS: dict[str, dict[str, Any]] = {"citta-stato": {}, "la-citta": {}, "serenissima": {"money": "hidden"}}

# What the view says about one kind of piece at a step, counted independently of the drawing.
PIECES: dict[str, tuple[str, Callable[[dict[str, Any]], int]]] = {
    "citta-stato": ("cube", lambda v: sum(len(row["cubes"]) for row in v["market"])),
    "la-citta": ("castle", lambda v: len(v["cities"])),
    "serenissima": ("galley", lambda v: len(v["galleys"])),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path_factory.mktemp("viewer")) as (base, app):
        yield base, app.test_client()


browser, page = browsing.browser, browsing.page  # fixtures, used by name


_finished: dict[str, str] = {}


def finished_record(client: Any, title: str) -> str:
    """A finished greedy-bot game of `title`, imported as a transcribed record file (once per module)."""
    if title not in _finished:
        _finished[title] = import_finished_http(client, record_file(title, f"viewer-{title}", greedy=True)).record_id
    return _finished[title]


def api_board(client: Any, record_id: str, n: int, token: str | None = None) -> ET.Element:
    answer = client.get(f"/api/records/{record_id}/steps/{n}/board", headers=auth(token) if token else {})
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    return ET.fromstring(answer.get_data(as_text=True))


def kinds(svg: ET.Element) -> Counter[str]:
    return Counter(e.get("data-kind") for e in svg.iter() if e.get("data-kind"))


def changed(svg: ET.Element) -> set[str]:
    return {f"{e.get('data-kind')}:{e.get('data-id')}" for e in svg.iter() if "changed" in (e.get("class") or "").split()}


def titles_of(svg: ET.Element) -> set[str]:
    return {(e.text or "").strip() for e in svg.iter() if e.tag.endswith("title") and (e.text or "").strip()}


PAGE_KINDS = "() => { const c = {}; document.querySelectorAll('#board [data-kind]').forEach(e => { " \
             "const k = e.getAttribute('data-kind'); c[k] = (c[k] || 0) + 1; }); return c; }"
PAGE_CHANGED = "() => [...document.querySelectorAll('#board .changed')].map(e => " \
               "`${e.getAttribute('data-kind')}:${e.getAttribute('data-id')}`)"
PAGE_TITLES = "() => [...document.querySelectorAll('#board title')].map(e => e.textContent.trim()).filter(Boolean)"


def at_step(page: Any, n: int) -> None:
    """The board of step n is on the page, and the move list and the scores are in."""
    expect(page.locator("body")).to_have_attribute("data-step", str(n))
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")


@pytest.mark.parametrize("title", TITLES)
def test_a_finished_game_reads_as_board_story_and_scores(served: tuple[str, Any], page: Any, title: str) -> None:
    base, client = served
    record_id = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    middle = turns[len(turns) // 2]["to"]

    # a deep link opens that step: the board holds the pieces the view has, as the API drew them
    page.goto(f"{base}/records/{record_id}#step={middle}")
    at_step(page, middle)
    expect(page.locator("#slider")).to_have_value(str(middle))
    drawn = api_board(client, record_id, middle)
    on_page = page.evaluate(PAGE_KINDS)
    assert on_page == dict(kinds(drawn)) and on_page, on_page
    kind, count = PIECES[title]
    view = client.get(f"/api/records/{record_id}/steps/{middle}").get_json()["view"]
    assert on_page.get(kind, 0) == count(view), (kind, on_page, count(view))

    # the story line of this step is current, and it is the API's sentence
    story = client.get(f"/api/records/{record_id}/story").get_json()
    line = max((li for li in story["lines"] if li["step"] <= middle), key=lambda li: li["step"])
    current = page.locator("#moves li.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-step", str(line["step"]))
    expect(current).to_have_text(line["text"])
    expect(current).to_be_in_viewport()  # the move list scrolled to it
    expect(page.locator("#moves ol[role=list]").first).to_be_attached()

    # a line jumps to its step when clicked, from the keyboard (Enter on it), and opens it in a new tab with
    # ctrl; no line (nor lead change) is an href link (Chromium's navigation predictor watches href links through a delayed
    # IntersectionObserver that asked for empty frames after every step: docs/benchmarks.md, issue 13)
    expect(page.locator("#moves li[data-step] > a[href], #leads a[href]")).to_have_count(0)
    early, later = story["lines"][1]["step"], story["lines"][len(story["lines"]) // 3]["step"]
    page.locator(f'#moves li[data-step="{early}"] > a').click()
    at_step(page, early)
    assert page.evaluate("location.hash").startswith(f"#step={early}")
    page.locator(f'#moves li[data-step="{later}"] > a').focus()
    page.keyboard.press("Enter")
    at_step(page, later)
    with page.context.expect_page() as opened:
        page.locator(f'#moves li[data-step="{early}"] > a').click(modifiers=["Control"])
    tab = opened.value
    expect(tab.locator("body")).to_have_attribute("data-step", str(early))
    tab.close()
    at_step(page, later)  # the reader's own tab stayed where it was
    page.goto(f"{base}/records/{record_id}#step={middle}")
    at_step(page, middle)

    # stepping: the next step whose drawing marks other changes shows exactly those
    k = middle
    while k < steps and (not changed(api_board(client, record_id, k + 1))
                         or changed(api_board(client, record_id, k + 1)) == changed(api_board(client, record_id, k))):
        k += 1
    assert k < steps, "no step of the game marks a change"
    page.goto(f"{base}/records/{record_id}#step={k}")
    at_step(page, k)
    before = set(page.evaluate(PAGE_CHANGED))
    page.locator("#slider").focus()
    page.keyboard.press("ArrowRight")
    at_step(page, k + 1)
    after = set(page.evaluate(PAGE_CHANGED))
    assert after != before and after == changed(api_board(client, record_id, k + 1))
    page.keyboard.press("ArrowDown")  # one turn on: to the end of the turn after this step
    at_step(page, next(t["to"] for t in turns if t["to"] > k + 1))
    page.keyboard.press("Home")
    at_step(page, 0)

    # scores: a line per seat, lead changes as links that jump, the final table with every key
    scores = client.get(f"/api/records/{record_id}/scores").get_json()
    expect(page.locator("#chart polyline.seat-line")).to_have_count(2)
    expect(page.locator("#legend li")).to_have_text(NAMES)
    if scores["lead_changes"]:
        lead = page.locator("#leads a").last
        expect(lead).to_contain_text("takes the lead")
        lead.click()
        at_step(page, scores["lead_changes"][-1]["step"])
    keys = {k for seat in scores["final"]["seats"] for k in seat["breakdown"]}
    expect(page.locator("table.breakdown tbody th")).to_have_count(len(keys) + 1)
    ranked = [NAMES[s] for s in scores["final"]["ranking"]]
    for place, name in enumerate(ranked):
        expect(page.locator("ol.ranking li").nth(place)).to_contain_text(name)

    # screenshots: early, middle, final
    SHOTS.mkdir(parents=True, exist_ok=True)
    for label, n in (("early", turns[min(2, len(turns) - 1)]["to"]), ("middle", middle), ("final", steps)):
        page.goto(f"{base}/records/{record_id}#step={n}")
        at_step(page, n)
        # the status line comes with the step's own answer, after the board: a shot taken before it showed the
        # step before's "next" (a fragment change, not a new page)
        pending = client.get(f"/api/records/{record_id}/steps/{n}").get_json()["pending"]
        kind = pending["kind"].replace("-", " ")  # in words: "political turn", not the rules' "political-turn"
        said = kind if pending.get("seat") is None else f"{NAMES[pending['seat']]}: {kind}"
        expect(page.locator("#status")).to_contain_text(f"next: {said} ·")
        page.screenshot(path=str(SHOTS / f"{title}-{label}.png"), full_page=True)

    # spoiler-free: nothing after this step, not even how long the game is
    page.goto(f"{base}/records/{record_id}#step={middle}&spoilers=off")
    at_step(page, middle)
    expect(page.locator("#spoiler-free")).to_be_checked()
    expect(page.locator("#slider")).to_have_attribute("max", str(middle + 1))
    expect(page.locator("#of")).to_be_hidden()
    expect(page.locator("#final *")).to_have_count(0)
    expect(page.locator("#summary")).not_to_contain_text(str(steps))
    shown = page.eval_on_selector_all("#moves li:not([hidden])", "items => items.map(i => Number(i.dataset.step))")
    assert shown and max(shown) <= middle
    expect(page.locator("#leads a")).to_have_count(sum(1 for c in scores["lead_changes"] if c["step"] <= middle))
    page.locator("#spoiler-free").uncheck()
    expect(page.locator("ol.ranking li")).to_have_count(2)
    expect(page.locator("#slider")).to_have_attribute("max", str(steps))


SAME_AS_DRAWN = """async ([record, n]) => {
  const text = await (await fetch(`/api/records/${record}/steps/${n}/board`)).text();
  const drawn = document.importNode(new DOMParser().parseFromString(text, "image/svg+xml").documentElement, true);
  const live = document.querySelector("#board > svg");
  return { same: live.isEqualNode(drawn), kept: live.keptSince === "start" };
}"""


@pytest.mark.parametrize("title", TITLES)
def test_stepping_patches_the_board_in_place_to_what_the_api_drew(served: tuple[str, Any], page: Any, title: str) -> None:
    """The page changes only the pieces that differ (for speed): after every kind of move the board
    must still be exactly the API's drawing of that step, on the same <svg> node."""
    base, client = served
    record_id = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    ends = [t["to"] for t in client.get(f"/api/records/{record_id}/turns").get_json()]
    start = ends[1]
    page.goto(f"{base}/records/{record_id}#step={start}")
    at_step(page, start)
    page.evaluate("() => { document.querySelector('#board > svg').keptSince = 'start'; }")  # a property: not markup
    page.locator("#slider").focus()
    n = start
    moves = ["ArrowRight"] * 12 + ["ArrowLeft"] * 3 + ["ArrowDown"] * 4 + ["ArrowUp", "End", "Home", "ArrowRight"]
    for key in moves:
        page.keyboard.press(key)
        n = {"ArrowRight": n + 1, "ArrowLeft": n - 1, "ArrowDown": next((e for e in ends if e > n), steps),
             "ArrowUp": max((e for e in ends if e < n), default=0), "End": steps, "Home": 0}[key]
        expect(page.locator("body")).to_have_attribute("data-step", str(n))
        found = page.evaluate(SAME_AS_DRAWN, [record_id, n])
        assert found == {"same": True, "kept": True}, (key, n, found)


def play_some(client: Any, record_id: str, tokens: list[str], commands: int) -> None:
    players = SeededChance("viewer-live")
    for _ in range(commands):
        pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
        if pending["seat"] is None:
            return
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[pending["seat"]])).get_json()
        cmd = legal["commands"][players.below(len(legal["commands"]))]
        answer = client.post(f"/api/records/{record_id}/commands", json={"command": cmd, "version": legal["version"]},
                             headers=auth(tokens[pending["seat"]]))
        assert answer.status_code == 200, answer.get_json()


@pytest.mark.parametrize("title", TITLES)
def test_the_seat_switcher_shows_a_seat_only_its_own_secrets(served: tuple[str, Any], page: Any, title: str) -> None:
    base, client = served
    answer = client.post("/api/records", json={"title": title, "seats": NAMES, "options": LIVE_OPTIONS[title]})
    assert answer.status_code == 201, answer.get_json()
    record_id, tokens = answer.get_json()["id"], [s["token"] for s in answer.get_json()["seats"]]
    play_some(client, record_id, tokens, 12)
    n = client.get(f"/api/records/{record_id}").get_json()["steps"]
    public, own = titles_of(api_board(client, record_id, n)), titles_of(api_board(client, record_id, n, tokens[1]))
    secrets = own - public - titles_of(api_board(client, record_id, n, tokens[0]))  # only seat 1 may read these
    if title != "la-citta":  # La Città hides nothing from one seat that another sees: its views are all public
        assert secrets, f"{title}: seat 1's board shows nothing the public's hides"

    page.goto(f"{base}/records/{record_id}#step={n}")
    at_step(page, n)
    expect(page.locator("#seat")).to_have_value("public")
    assert not secrets & set(page.evaluate(PAGE_TITLES))
    expect(page.locator("#scores-note")).to_contain_text("once the game is over")

    page.locator("#seat").select_option("seat:0")
    page.locator("#token").fill(tokens[0])
    page.locator("#token-form button").click()
    expect(page.locator("#reader-note")).to_contain_text("Ada")
    at_step(page, n)
    expect(page.locator("#status")).to_contain_text("view: seat:0")
    assert set(page.evaluate(PAGE_TITLES)) == titles_of(api_board(client, record_id, n, tokens[0]))
    assert not secrets & set(page.evaluate(PAGE_TITLES))
    assert f"token={tokens[0]}" in page.url

    page.goto(f"{base}/records/{record_id}#step={n}&token={tokens[1]}")  # followed on the same page
    at_step(page, n)
    expect(page.locator("#reader-note")).to_contain_text("Ben")
    expect(page.locator("#status")).to_contain_text("view: seat:1")  # Ben's board is painted
    assert secrets <= set(page.evaluate(PAGE_TITLES))

    # a token that opens no seat: one sentence, and the public view
    page.goto("about:blank")
    page.goto(f"{base}/records/{record_id}#step={n}&token=not-a-token-{uuid.uuid4().hex}")  # opened fresh
    at_step(page, n)
    expect(page.locator("#notice")).to_contain_text("opens no seat")
    expect(page.locator("#seat")).to_have_value("public")


def test_an_address_the_reader_opened_is_not_written_over_by_a_step(served: tuple[str, Any], page: Any) -> None:
    """The page writes `#step=` after a step, in an idle moment. An address the reader has just opened
    (another seat's token) and the page has not read yet must survive that write: here the address is
    changed without a hashchange, so the page never reads it, and a step follows."""
    base, client = served
    record_id = finished_record(client, "la-citta")
    page.goto(f"{base}/records/{record_id}#step=5")
    at_step(page, 5)
    page.evaluate("() => history.replaceState(null, '', '#step=5&token=a-token-not-read-yet')")
    page.locator("#slider").focus()
    page.keyboard.press("ArrowRight")
    at_step(page, 6)
    page.wait_for_timeout(1200)  # the idle write of #step= (its callback's timeout is 500 ms)
    assert "token=a-token-not-read-yet" in page.url, page.url
    page.evaluate("() => history.replaceState(null, '', '#step=6')")  # the page's own address again: written as before
    page.keyboard.press("ArrowRight")
    at_step(page, 7)
    expect(page).to_have_url(f"{base}/records/{record_id}#step=7", timeout=3000)


def test_bad_input_is_one_sentence_and_the_page_stays_usable(served: tuple[str, Any], page: Any) -> None:
    base, client = served
    page.goto(f"{base}/records/{uuid.uuid4()}")
    expect(page.locator("#notice")).to_contain_text("no record here")
    expect(page.locator("#summary a")).to_have_attribute("href", "/")

    record_id, tokens = start(client, NAMES, edition_file=LONG_TOY.format(target=500))  # the toy title: no board drawing
    play_some(client, record_id, tokens, 3)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    page.goto(f"{base}/records/{record_id}#step=9999")
    at_step(page, steps)
    expect(page.locator("#notice")).to_contain_text(f"no step 9999: this record has steps 0 to {steps}")
    expect(page.locator("#board .board-sentence")).to_contain_text("toy")
    expect(page.locator("#state dl.view").first).to_be_visible()  # the view as data stands in for the board
    page.keyboard.press("Home")
    at_step(page, 0)
    page.keyboard.press("ArrowRight")
    at_step(page, 1)

    # live: a move made elsewhere reaches a reader at the end by itself; a reader elsewhere stays put
    page.keyboard.press("End")
    at_step(page, steps)
    play_some(client, record_id, tokens, 1)
    grown = client.get(f"/api/records/{record_id}").get_json()["steps"]
    assert grown > steps
    expect(page.locator("body")).to_have_attribute("data-step", str(grown), timeout=8000)
    expect(page.locator("#slider")).to_have_attribute("max", str(grown))
    page.keyboard.press("Home")
    at_step(page, 0)
    play_some(client, record_id, tokens, 1)
    again = client.get(f"/api/records/{record_id}").get_json()["steps"]
    expect(page.locator("#slider")).to_have_attribute("max", str(again), timeout=8000)
    time.sleep(0.1)
    at_step(page, 0)


def test_a_cold_load_asks_the_record_and_its_board_once_as_its_reader(served: tuple[str, Any], page: Any) -> None:
    """Issue 29: opening.js asks the record's summary and the addressed step's board (with the address's seat
    token) before record.js has run, and record.js takes those answers instead of asking again; the study layer
    (study.js) is fetched after that board. Ben's board is drawn with Ben's secrets, not the public's."""
    base, client = served
    answer = client.post("/api/records", json={"title": "citta-stato", "seats": NAMES, "options": {}})
    assert answer.status_code == 201, answer.get_json()
    record_id, tokens = answer.get_json()["id"], [s["token"] for s in answer.get_json()["seats"]]
    play_some(client, record_id, tokens, 12)
    n = client.get(f"/api/records/{record_id}").get_json()["steps"] - 2
    asked: list[tuple[str, str | None]] = []
    page.on("request", lambda r: asked.append((r.url.removeprefix(base), r.headers.get("authorization"))))

    page.goto(f"{base}/records/{record_id}#step={n}&token={tokens[1]}")
    at_step(page, n)
    expect(page.locator("body")).to_have_attribute("data-study", "ready")
    urls = [url for url, _ in asked]
    summary, board = f"/api/records/{record_id}", f"/api/records/{record_id}/steps/{n}/board"
    assert urls.count(board) == 1, urls
    assert [who for url, who in asked if url in (summary, board)][:2] == [f"Bearer {tokens[1]}"] * 2
    assert urls.index(board) < urls.index("/viewer/study.js")
    assert set(page.evaluate(PAGE_TITLES)) == titles_of(api_board(client, record_id, n, tokens[1]))
    expect(page.locator("#reader-note")).to_contain_text("Ben")
