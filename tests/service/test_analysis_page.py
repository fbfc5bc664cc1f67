"""The record page's analysis in real Chromium (issue 33, part 3): asked for with its button, followed to the end,
then drawn: the expected-standing chart, key moments marked in the move list and listed to jump through, a luck
line per seat; spoiler-free, nothing after the step shown; axe clean at 1400 and 390 px. Screenshots:
analysis-<title>.png (browsing.SHOTS) and phone-analysis-<title>.png."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from domain.records.review_walk import AnalysisBudget
from tests.service import browsing
from tests.service.browsing import axe_violations, served_app
from tests.service.helpers import import_finished_http, record_file

pytestmark = pytest.mark.browser
SHOTS = browsing.SHOTS  # the page tests' screenshots (var/screenshots, or $CRONACA_PAGE_SHOTS)
PHONE = {"width": 390, "height": 844}

browser, context = browsing.browser, browsing.context  # fixtures, used by name


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Any]]:
    with served_app(tmp_path_factory.mktemp("analysis")) as (base, app):
        app.extensions["cronaca"].records.analyses.budget = AnalysisBudget(playouts=8, seconds=None, chances=1,
                                                                           suggestions=4, suggest_share=0.5)
        yield base, app.test_client(), app


def shot(page: Any, name: str, at: str = "#charts") -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.locator(at).evaluate("(box) => box.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(SHOTS / name), full_page=False)


MARGIN = 0.1  # analysis.js: the reviewer's move is named only when better by this much win chance


def better(p: dict[str, Any]) -> bool:
    """The reviewer's move is named (and offered as a what-if line) only when it beats the move played by the margin."""
    return bool(p["suggested"] and not p["same"]
                and p["expected_suggested"]["win"] - p["expected_played"]["win"] >= MARGIN)


def beside(page: Any) -> tuple[dict[str, float], dict[str, float]]:
    """The score chart's and the expected-standing chart's boxes on the page."""
    return page.locator("#chart svg").bounding_box(), page.locator("#expected-chart svg").bounding_box()


def read_as_a_player(page: Any, analysis: dict[str, Any], story: dict[str, Any]) -> None:
    """The words: a move is named better only when it is (by the margin), and no luck figure passes 100 points;
    each key moment said to be in the round (year) the move list puts its move in."""
    items = page.locator("#moments li")
    rounds = {line["step"]: line["round"] for line in story["lines"]}
    for k, p in enumerate(sorted(analysis["turning_points"], key=lambda p: p["step"])):
        text = items.nth(k).inner_text()
        at = rounds.get(p["step"] + 1)
        if at is not None:
            assert text.split(" ", 1)[1].startswith(f"{story['round_word'].capitalize()} {at}" if at else "In the setup"), (text, at)
        assert ("Better" in text) == better(p), (text, p)
        assert f"(step {p['step']})" in text and p["player"] in text
        assert (p["played_said"] or p["played"]) in text  # the move as the move list tells it, where it can
        if better(p):
            assert (p["suggested_said"] or p["suggested"]) in text
    made = analysis["playouts"]["median"]  # the note says how often the game was played out, not the budget's wish
    assert ("once" if made == 1 else f"about {made} times") in page.locator("#analysis-note").inner_text()
    for line in page.locator("#luck li").all_inner_texts():
        assert all(int(n) <= 100 for n in re.findall(r"(\d+) points of win chance", line)), line


def opened_what_if(context: Any, address: str, client: Any, points: list[dict[str, Any]]) -> None:
    """One click on a key moment's "try it as a what-if" opens a what-if line branched at its decision, with the
    reviewer's move played, and shows the board once that move is made (every event of it)."""
    offered = [p for p in sorted(points, key=lambda p: p["step"]) if p["what_if"] and better(p)]
    if not offered:
        return
    page = context()
    page.goto(address)
    expect(page.locator("#moments .what-if")).to_have_count(len(offered))
    page.locator("#moments .what-if").first.click()
    page.wait_for_url(re.compile(r"line="))
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")
    line = re.search(r"line=([0-9a-f-]+)", page.url)
    assert line is not None
    variation = client.get(f"/api/variations/{line.group(1)}").get_json()
    assert variation["from_step"] == offered[0]["what_if"]["from_step"] and variation["moves"] == 1, variation
    expect(page.locator("body")).to_have_attribute("data-step", str(variation["last_step"]))


def trend_follows(page: Any, analysis: dict[str, Any]) -> None:
    """Each seat's bold line is the mean of its last few estimates (as many as make about 12 games played out),
    never of an estimate after the point: a barcode of 0s and 1s reads as the trend it hides."""
    span = max(1, min(12, -(-12 // max(1, analysis["playouts"]["median"]))))
    H, top, bottom = 240, 12, 34  # analysis.js drawChart's height and margins
    for seat in analysis["expected"]:
        line = page.locator(f'#expected-chart polyline.trend[data-seat="{seat["seat"]}"]')
        assert line.get_attribute("data-span") == str(span)
        drawn = [(H - bottom - float(xy.split(",")[1])) / (H - top - bottom) for xy in line.get_attribute("points").split()]
        wins = [p["win"] for p in seat["series"]]
        means = [sum(wins[max(0, k - span + 1):k + 1]) / len(wins[max(0, k - span + 1):k + 1]) for k in range(len(wins))]
        assert len(drawn) == len(means) and all(abs(d - m) < 0.01 for d, m in zip(drawn, means, strict=True))


def cursor_at(page: Any, chart: str) -> float:
    """Where a chart's step cursor stands, as a share of the chart's drawn width."""
    return float(page.evaluate("""(chart) => { const box = document.querySelector(`${chart} svg`);
        return Number(box.querySelector("line.cursor").getAttribute("x1")) / box.viewBox.baseVal.width; }""", chart))


def done_analysis(client: Any, record_id: str) -> dict[str, Any]:
    """Ask for the analysis through the API and wait for it (the module's budget: a few seconds)."""
    client.post(f"/api/records/{record_id}/analysis", json={})
    deadline = time.monotonic() + 90
    while (status := client.get(f"/api/records/{record_id}/analysis").get_json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["status"] == "done", status
    return dict(status["analysis"])


def test_the_analysis_is_asked_for_followed_and_drawn(served: tuple[str, Any, Any], context: Any) -> None:
    base, client, _ = served
    record_id, key, _, _ = import_finished_http(client, record_file("la-citta", "analysis-page", greedy=True))
    page = context(bypass_csp=True)  # axe-core is injected as an inline script
    page.goto(f"{base}/records/{record_id}#key={key}")
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")
    ask = page.locator("#analysis .analysis-button")
    expect(ask).to_be_visible()
    expect(page.locator("#analysis-said")).to_contain_text("Not analysed yet")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.method == "POST" and r.url.endswith("/analysis") else None)
    ask.dblclick()  # a double tap asks once
    expect(page.locator("#moments li").first).to_be_visible(timeout=90_000)  # followed to the end by its GET
    assert len(asked) == 1, asked
    expect(ask).to_be_hidden()
    done = client.get(f"/api/records/{record_id}/analysis").get_json()
    points = done["analysis"]["turning_points"]
    assert done["status"] == "done" and points
    expect(page.locator("#moments li")).to_have_count(len(points))
    expect(page.locator("#expected-chart svg polyline.trend")).to_have_count(2)
    expect(page.locator("#expected-chart svg polyline.estimates")).to_have_count(2)
    trend_follows(page, done["analysis"])
    expect(page.locator("#luck li")).to_have_count(2)
    marked = {p["step"] + 1 for p in points}  # each decision's first line in the move list carries its glyph
    expect(page.locator("#moves .moment-mark")).to_have_count(len(marked))
    # each glyph ("??", "!") is said in words, as a named image, and the moments' links do not spell it out
    expect(page.locator("#moves").get_by_role("img", name=re.compile(r"^key moment, "))).to_have_count(len(marked))
    assert page.locator("#moments a[data-step]").evaluate_all(
        "links => links.length > 0 && links.every((a) => a.firstElementChild?.getAttribute('aria-hidden') === 'true')")
    # the annotator may play the reviewer's better move as a what-if line (a move no better is not offered)
    expect(page.locator("#moments .what-if")).to_have_count(sum(1 for p in points if p["what_if"] and better(p)))
    assert axe_violations(page) == []
    read_as_a_player(page, done["analysis"], client.get(f"/api/records/{record_id}/story").get_json())
    opened_what_if(context, f"{base}/records/{record_id}#key={key}", client, points)
    scores, standing = beside(page)  # at 1400 px the expected standing stands beside the scores, level with them
    assert standing["x"] >= scores["x"] + scores["width"] and abs(standing["y"] - scores["y"]) < 40, (scores, standing)
    page.locator("#story-analysis .to-moments").click()  # the key moments are reachable from the move list
    expect(page.locator("#moments-box h3")).to_be_focused()
    shot(page, "analysis-la-citta.png")

    first = min(p["step"] for p in points)  # a key moment jumps the board to its decision
    page.locator("#moments a", has_text=f"(step {first})").click()
    expect(page.locator("body")).to_have_attribute("data-step", str(first))

    # spoiler-free at the first key moment's decision: it has not happened yet, nor anything after it
    later = context()
    later.goto(f"{base}/records/{record_id}#step={first}&spoilers=off")
    expect(later.locator("body")).to_have_attribute("data-loaded", "all")
    expect(later.locator("#analysis-note")).to_contain_text("Spoiler-free")
    expect(later.locator("#moments li")).to_have_text(["None yet, up to this step."])
    # the chart ends at the step shown, at the right edge as the scores do: how much of the game is left stays untold
    assert abs(cursor_at(later, "#expected-chart") - cursor_at(later, "#chart")) < 0.01
    assert cursor_at(later, "#expected-chart") > 0.95
    for draw in done["analysis"]["luck"][0]["each"]:
        if draw["step"] > first:
            expect(later.locator(f'#luck a[data-step="{draw["step"]}"]')).to_have_count(0)
    later.keyboard.press("End")
    expect(later.locator("#moments li")).to_have_count(len(points))

    phone = context(PHONE, bypass_csp=True)
    phone.goto(f"{base}/records/{record_id}")
    expect(phone.locator("#moments li")).to_have_count(len(points))
    assert axe_violations(phone) == []
    overflow = phone.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, f"the analysis at 390 px scrolls sideways by {overflow} px"
    scores, standing = beside(phone)  # stacked on a phone
    assert standing["y"] >= scores["y"] + scores["height"], (scores, standing)
    shot(phone, "phone-analysis-la-citta.png", "#analysis")


@pytest.mark.parametrize("title", ["citta-stato", "serenissima"])
def test_every_title_reads_its_analysis(served: tuple[str, Any, Any], context: Any, title: str) -> None:
    """The other titles' analyses on the page, at both widths: their words, axe clean, screenshots looked at."""
    base, client, app = served
    record_id, _, _, _ = import_finished_http(client, record_file(title, "analysis-page", greedy=True))
    analyses = app.extensions["cronaca"].records.analyses
    kept, analyses.budget = analyses.budget, dataclasses.replace(analyses.budget, playouts=3)  # the page is checked, not the analysis
    try:
        analysis = done_analysis(client, record_id)
    finally:
        analyses.budget = kept
    for size, name, at in (({"width": 1400, "height": 1000}, f"analysis-{title}.png", "#charts"),
                           (PHONE, f"phone-analysis-{title}.png", "#analysis")):
        page = context(size, bypass_csp=True)
        page.goto(f"{base}/records/{record_id}")
        if analysis["turning_points"]:
            expect(page.locator("#moments li")).to_have_count(len(analysis["turning_points"]))
        else:  # nothing stood out of the playouts' noise: said so, not left blank
            expect(page.locator("#moments li")).to_have_text([re.compile("None stood out")])
        read_as_a_player(page, analysis, client.get(f"/api/records/{record_id}/story").get_json())
        assert axe_violations(page) == []
        shot(page, name, at)
