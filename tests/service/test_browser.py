"""The viewer shell in real Chromium (Debian's /usr/bin/chromium through Playwright)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import auth, play_out_http
from tests.service.test_api import start

pytestmark = pytest.mark.browser


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path) as (base, app):
        yield base, app.test_client()


browser, page = browsing.browser, browsing.page  # fixtures, used by name


def test_the_slider_page_loads_and_steps(served: tuple[str, Any], page: Any) -> None:
    base, client = served
    record_id, tokens = start(client, ["ann", "bob"])
    play_out_http(client, record_id, tokens)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    going, going_tokens = start(client, ["cy", "dee"])
    client.post(f"/api/records/{going}/commands", json={"command": {"type": "toy/draw", "seat": 0}},
                headers=auth(going_tokens[0]))

    page.goto(base + "/")
    expect(page.locator("#records tbody tr")).to_have_count(2)
    page.locator(f'a[href="/records/{record_id}"]').click()
    expect(page.locator("#title")).to_contain_text("ann, bob")
    start_step = int(client.get(f"/api/records/{record_id}/turns").get_json()[0]["to"])
    expect(page.locator("body")).to_have_attribute("data-step", str(start_step))
    expect(page.locator("#state dl.view dt").first).to_have_text("points")

    page.keyboard.press("ArrowRight")
    expect(page.locator("body")).to_have_attribute("data-step", str(start_step + 1))
    expected = client.get(f"/api/records/{record_id}/steps/{start_step + 1}").get_json()
    points = ", ".join(str(p) for p in expected["view"]["points"])
    expect(page.locator("#state dl.view dd").first).to_have_text(points)
    page.keyboard.press("ArrowLeft")
    expect(page.locator("body")).to_have_attribute("data-step", str(start_step))
    page.goto(f"{base}/records/{record_id}#step={start_step + 2}")  # a deep link followed on the same page
    expect(page.locator("body")).to_have_attribute("data-step", str(start_step + 2))
    page.goto(f"{base}/records/{record_id}")
    page.goto(f"{base}/records/{record_id}#step=3")  # and opened fresh
    expect(page.locator("body")).to_have_attribute("data-step", "3")

    page.locator("#slider").fill(str(steps))
    expect(page.locator("body")).to_have_attribute("data-step", str(steps))
    expect(page.locator("#status")).to_contain_text("next: game over")  # the rules' "game-over", in words
    expect(page.locator("#state")).to_contain_text("scores")

    # an unfinished record: the public view hides the bags; a seat token shows its own
    page.goto(f"{base}/records/{going}")  # a game in progress opens at its latest step
    going_steps = client.get(f"/api/records/{going}").get_json()["steps"]
    expect(page.locator("body")).to_have_attribute("data-step", str(going_steps))
    page.locator("#slider").fill("2")
    expect(page.locator("body")).to_have_attribute("data-step", "2")
    expect(page.locator("#status")).to_contain_text("view: public")
    expect(page.locator("#state .hidden-value")).to_have_count(2)
    page.goto(f"{base}/records/{going}#token={going_tokens[0]}")
    # the address holds the token before the page is loaded again (CI's busy host once reloaded the address before it)
    expect(page).to_have_url(re.compile(f"token={going_tokens[0]}"))
    page.reload()
    page.locator("#slider").fill("2")
    expect(page.locator("#status")).to_contain_text("view: seat:0")
    expect(page.locator("#state .hidden-value")).to_have_count(0)


def test_the_interactive_api_page_sends_requests(served: tuple[str, Any], page: Any) -> None:
    base, client = served
    page.goto(base + "/api/docs")
    expect(page.locator("details.op").first).to_be_visible()
    start_op = page.locator("details.op", has=page.locator("summary", has_text="/api/records")).filter(
        has=page.locator(".method.post")).first
    start_op.locator("summary").click()
    start_op.locator("textarea").fill('{"title": "toy", "seats": ["ann", "bob"]}')
    start_op.get_by_role("button", name="Send").click()
    expect(start_op.locator("pre.answer")).to_contain_text("201")
    answer = start_op.locator("pre.answer").inner_text()
    record_id = answer.split('"id": "')[1].split('"')[0]
    assert client.get(f"/api/records/{record_id}").get_json()["seats"][1]["name"] == "bob"


def test_the_import_page_shows_each_finding_at_its_line(served: tuple[str, Any], page: Any, tmp_path: Path) -> None:
    base, client = served
    record_id, tokens = start(client, ["Ada", "Bruno"])
    play_out_http(client, record_id, tokens)
    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "roll [" in line and i > 8) if any(
        "roll [" in line for line in lines[9:]) else next(i for i, line in enumerate(lines) if "roll [" in line)
    lines[at] = lines[at].replace("roll [", "rol [", 1)

    page.goto(base + "/import")
    page.locator("#text").fill("\n".join(lines) + "\n")
    page.locator("#send").click()
    expect(page.locator("#import-status")).to_contain_text("rejected", timeout=20_000)
    expect(page.locator("#findings tbody tr")).to_have_count(1)
    expect(page.locator("#findings tbody tr")).to_contain_text(f"line {at + 1}")
    expect(page.locator("#findings tbody tr")).to_contain_text("did you mean: roll")
    expect(page.locator(f"#line-{at + 1}")).to_have_class("fault")
    page.locator("#findings a.line-link").first.click()
    expect(page.locator(f"#line-{at + 1}")).to_have_class("fault focus")
    page.screenshot(path=str(tmp_path / "import.png"), full_page=True)

    # the clean file imports and links to its record
    page.locator("#text").fill(text)
    page.locator("#send").click()
    expect(page.locator("#import-status")).to_contain_text("accepted", timeout=20_000)
    expect(page.locator("#import-status a")).to_have_attribute("href", re.compile(r"^/records/"))
