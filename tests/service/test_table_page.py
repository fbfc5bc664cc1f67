"""The table companion's pages (issue 31) in Chromium at phone size (390 x 844): a game started from /records/new and
played to its end by tapping the decision panel's buttons, live (each seat on its own page) and at the table (one
page, the table key, outcomes entered as seen); then the finished record is compared with the same choices sent
through the API. Also: a double tap stores one choice, two pages at once get one choice and a sentence, a mis-tap is
taken back, the new-game form refuses what it should in words.

The bot taps only what the page offers: it picks among the enabled buttons of the region labelled "decision" with a
seeded random choice, so a run is repeatable. Games are of two players, the shortest a title has.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from domain import catalog
from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import auth

pytestmark = pytest.mark.browser

browser = browsing.browser  # fixture, used by name
PHONE = {"width": 390, "height": 844}
TITLES = [t for t in catalog.TITLES if t != "toy"]
NAMES = ["Ada O'Neil", "Bruno di Sant'Elia"]  # an apostrophe and spaces, as people write their names
MAX_TAPS = 1500  # a bound, not a budget: a game that does not end within it is a failure
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path_factory.mktemp("table-page"), CRONACA_SSE_PING=0.5) as (base, app):
        yield base, app.test_client()


def phone(browser: Any, errors: list[str]) -> Any:
    """A page in a context of its own (another device), at phone size; its uncaught errors go to `errors`."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def start_from_form(page: Any, base: str, title: str, mode: str) -> dict[str, Any]:
    """/records/new filled in as a person would; the links it shows: {"record": id, "seats": [...], "table": link?}."""
    page.goto(f"{base}/records/new")
    expect(page.locator("body[data-ready=yes]")).to_be_visible()
    page.select_option("#title-choice", title)
    inputs = page.locator("#seats input")
    expect(inputs).to_have_count(2)
    for n, name in enumerate(NAMES):
        inputs.nth(n).fill(name)
    page.check(f"input[name=mode][value={mode}]")
    page.click("#start")
    expect(page.locator("#started")).to_be_visible()
    expect(page.locator("#seat-links li")).to_have_count(2)
    expect(page.locator("#seat-links .qr svg")).to_have_count(2)  # each link's QR code, drawn
    seats = page.eval_on_selector_all("#seat-links a.secret-link", "links => links.map(a => a.href)")
    table = page.eval_on_selector_all("#table-link a.secret-link", "links => links.map(a => a.href)")
    assert all("#token=" in link for link in seats) and "?" not in "".join(seats + table)  # secrets in fragments only
    record = seats[0].split("/records/")[1].split("#")[0]
    return {"record": record, "seats": seats, "table": table[0] if table else None}


PANEL = """() => { const d = document.getElementById("decision");
  return [d.dataset.state || "", Number(d.dataset.version || -1), d.getAttribute("aria-busy") === "true",
          d.querySelectorAll("button.choice:enabled").length, document.getElementById("decision-said").hidden
            ? "" : document.getElementById("decision-said").textContent]; }"""
SETTLED = """([v, s]) => { const d = document.getElementById("decision");
  return d.getAttribute("aria-busy") === "false" && (Number(d.dataset.version) !== v || d.dataset.state !== s
    || !document.getElementById("decision-said").hidden); }"""


def tap_until_over(pages: list[Any], seed: int) -> int:
    """Tap offered buttons until the game is over: a page whose panel is deciding (or asks an outcome) at the newest
    version any page shows gets one tap on one of its enabled choices (seeded); after a tap that sends, the bot waits
    for that page's panel to settle on what comes next. No tap may be refused: the page offered it. Taps counted."""
    rng = random.Random(seed)
    taps = 0
    deadline = time.monotonic() + 600
    while taps < MAX_TAPS:
        assert time.monotonic() < deadline, "the game did not end in ten minutes"
        panels = [page.evaluate(PANEL) for page in pages]
        if any(state == "over" for state, *_ in panels):
            return taps
        newest = max(version for _, version, *_ in panels)
        ready = [(page, panel) for page, panel in zip(pages, panels, strict=True)
                 if panel[0] in ("deciding", "outcome") and panel[1] == newest and not panel[2] and panel[3]]
        if not ready:
            time.sleep(0.01)
            continue
        page, (state, version, _, count, said) = ready[0]
        assert not said, f"the page refused a tap: {said}"
        button = page.locator("#decision button.choice:enabled").nth(rng.randrange(count))
        sends = "part" not in (button.get_attribute("class") or "")
        button.tap()
        taps += 1
        if sends:
            page.wait_for_function(SETTLED, arg=[version, state], polling="raf", timeout=30_000)
            said = page.evaluate(PANEL)[4]
            assert not said, f"the page refused a tap: {said}"
    raise AssertionError(f"the game did not end within {MAX_TAPS} taps")


def replayed_through_api(client: Any, exported: dict[str, Any]) -> dict[str, Any]:
    """The same choices and outcomes sent through the API to a new game at the table; its export."""
    setup, *entries = exported["entries"]
    started = client.post("/api/records", json={"title": exported["title"], "seats": [s["name"] for s in exported["seats"]],
                                                "options": exported["options"], "mode": "transcribed",
                                                "setup_outcomes": bare(setup["outcomes"])})
    assert started.status_code == 201, started.get_json()
    record, key = started.get_json()["id"], started.get_json()["table_key"]
    version = started.get_json()["record"]["version"]
    for entry in entries:
        sent = client.post(f"/api/records/{record}/commands", headers=auth(key),
                           json={"command": entry["command"], "version": version, "outcomes": bare(entry["outcomes"])})
        assert sent.status_code == 200, sent.get_json()
        version = sent.get_json()["version"]
    answer = client.get(f"/api/records/{record}/export")
    assert answer.status_code == 200
    return answer.get_json()


def bare(outcomes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Outcomes as a command sends them (an export marks who gave each)."""
    return [{k: v for k, v in o.items() if k != "by"} for o in outcomes]


def same_game(played: dict[str, Any], replayed: dict[str, Any]) -> None:
    """Entry for entry the same commands and events, and the same scores."""
    assert len(played["entries"]) == len(replayed["entries"])
    for a, b in zip(played["entries"], replayed["entries"], strict=True):
        assert a.get("command") == b.get("command")
        assert a["events"] == b["events"]
    assert played["scores"] == replayed["scores"]
    assert played["finished"] and replayed["finished"]


@pytest.mark.parametrize("title", TITLES)
def test_a_live_game_is_played_to_its_end_by_tapping(browser: Any, served: tuple[str, Any], title: str) -> None:
    base, client = served
    errors: list[str] = []
    starter = phone(browser, errors)
    links = start_from_form(starter, base, title, "live")
    assert links["table"] is None  # a live game has no table key: each seat plays from its own link
    pages = [phone(browser, errors) for _ in links["seats"]]
    for page, link in zip(pages, links["seats"], strict=True):
        page.goto(link)
    taps = tap_until_over(pages, seed=31)
    for page in pages:
        expect(page.locator("#decision")).to_have_attribute("data-state", "over")
    exported = client.get(f"/api/records/{links['record']}/export").get_json()
    assert len(exported["entries"]) - 1 <= taps  # each stored choice took a tap at least
    same_game(exported, replayed_through_api(client, exported))
    assert not errors, errors
