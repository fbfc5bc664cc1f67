"""Sharing a game and the pages' edges in real Chromium (issue 32): a step copied as a picture, the compact
player framed by a page of another site, a wrong address answered with a page, the icon, a live game's opening.

One server and one browser for the module; the "other site" is a second HTTP server on another port.
"""

from __future__ import annotations

import html
import http.server
import io
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import expect

from domain.records.settings import Settings
from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import NAMES, auth, import_finished_http, record_file
from tests.service.test_api import start

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path_factory.mktemp("share")) as (base, app):
        yield base, app.test_client()


browser, context = browsing.browser, browsing.context  # fixtures, used by name

def finished_record(client: Any, title: str) -> str:
    """One finished game of `title` in this served app's store, imported once: kept with the app (a module's
    `served` may be made twice in one run, when its tests are not run one after another)."""
    finished: dict[str, str] = client.application.extensions.setdefault("share-page finished", {})
    if title not in finished:
        finished[title] = import_finished_http(client, record_file(title, f"share-{title}", greedy=True)).record_id
    return finished[title]


@pytest.fixture
def club_site() -> Iterator[tuple[str, dict[str, str]]]:
    """Another site (another port): serves whatever page the test writes into `pages` under its path."""
    pages: dict[str, str] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        # "localhost", not 127.0.0.1: another origin than the service's, as a club's site is
        yield f"http://localhost:{server.server_port}", pages
    finally:
        server.shutdown()


def at_step(page: Any, n: int) -> None:
    expect(page.locator("body")).to_have_attribute("data-step", str(n))
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")


def test_a_step_is_copied_as_a_picture_and_its_player_is_framed_by_another_site(
        served: tuple[str, Any], context: Any, club_site: tuple[str, dict[str, str]]) -> None:
    base, client = served
    record_id = finished_record(client, "la-citta")
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    middle = turns[len(turns) // 2]["to"]
    reader = context()
    reader.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    reader.goto(f"{base}/records/{record_id}#step={middle}")
    at_step(reader, middle)
    share = reader.locator("#share")
    expect(share).to_be_visible()
    share.locator("summary").click()

    # the picture: the PNG of this step's board, on the clipboard
    expected = client.get(f"/api/records/{record_id}/steps/{middle}/board.png")
    share.get_by_role("button", name="copy a picture").click()
    expect(share.locator(".share-status")).to_contain_text(f"board at step {middle} is copied as a picture")
    copied = reader.evaluate("""async () => {
        const [item] = await navigator.clipboard.read();
        const blob = await item.getType('image/png');
        return [...new Uint8Array(await blob.arrayBuffer())];
    }""")
    picture = Image.open(io.BytesIO(bytes(copied)))
    assert picture.size == Image.open(io.BytesIO(expected.data)).size and picture.size[0] > 600
    expect(share.get_by_role("link", name="open the picture")).to_have_attribute(
        "href", f"/api/records/{record_id}/steps/{middle}/board.png")

    # the snippet follows the step shown
    reader.keyboard.press("ArrowRight")
    at_step(reader, middle + 1)
    snippet = share.locator("textarea.share-snippet")
    expect(snippet).to_have_value(re.compile(re.escape(f'{base}/embed/records/{record_id}#step={middle + 1}"')))
    share.get_by_role("button", name="copy the snippet").click()
    assert reader.evaluate("navigator.clipboard.readText()") == snippet.input_value()

    # another site pastes the snippet: the player opens at that step in its frame and steps with the keys
    site, pages = club_site
    pages["/club"] = f"<!doctype html><title>Our club</title><h1>Saturday's game</h1>{snippet.input_value()}"
    visitor = context()
    visitor.goto(f"{site}/club")
    frame = visitor.frame_locator("iframe")
    expect(frame.locator("body")).to_have_attribute("data-step", str(middle + 1))
    expect(frame.locator("body")).to_have_attribute("data-loaded", "all")
    expect(frame.locator("#board > svg")).to_have_attribute("aria-label", re.compile("La Città board"))
    # the picture is silent (aria-hidden); a screen reader reads the board in sentences, every seat by name
    expect(frame.locator("#board-words #board-lines li").first).to_be_attached()
    said = " ".join(frame.locator("#board-lines li").all_text_contents())
    assert all(name in said for name in NAMES), said
    line = max((li for li in client.get(f"/api/records/{record_id}/story").get_json()["lines"]
                if li["step"] <= middle + 1), key=lambda li: li["step"])
    expect(frame.locator("#said")).to_have_text(line["text"])
    expect(frame.locator("#who")).to_have_text("La Città: " + ", ".join(NAMES))
    frame.locator("#next").click()
    expect(frame.locator("body")).to_have_attribute("data-step", str(middle + 2))
    frame.locator("#slider").focus()
    visitor.keyboard.press("ArrowLeft")
    expect(frame.locator("body")).to_have_attribute("data-step", str(middle + 1))
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    expect(frame.locator("#steps")).to_have_text(str(steps))
    expect(frame.locator("#open")).to_have_attribute("href", f"/records/{record_id}#step={middle + 1}")
    visitor.screenshot(path=str(browsing.SHOTS / "embed-la-citta.png"))

    # spoiler-free in a frame: nothing after the step, not even the game's length
    pages["/quiet"] = (f'<iframe src="{base}/embed/records/{record_id}#step=5&amp;spoilers=off" '
                       'width="480" height="520" title="a game"></iframe>')
    visitor.goto(f"{site}/quiet")
    frame = visitor.frame_locator("iframe")
    expect(frame.locator("body")).to_have_attribute("data-step", "5")
    expect(frame.locator("#of")).to_be_hidden()
    expect(frame.locator("#slider")).to_have_attribute("max", "6")
    frame.locator("#last").click()
    expect(frame.locator("body")).to_have_attribute("data-step", "6")

    # only the player may be framed: the record page itself refuses another site's frame
    embed = client.get(f"/embed/records/{record_id}")
    policy = embed.headers["Content-Security-Policy"]
    assert "frame-ancestors *" in policy and "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "X-Frame-Options" not in embed.headers
    assert "frame-ancestors 'none'" in client.get(f"/records/{record_id}").headers["Content-Security-Policy"]
    pages["/steal"] = f'<iframe src="{base}/records/{record_id}" width="600" height="400" title="x"></iframe>'
    visitor.goto(f"{site}/steal")
    expect(visitor.frame_locator("iframe").locator("#board")).to_have_count(0)


def test_a_wrong_address_answers_a_browser_with_a_page_and_a_program_with_json(
        served: tuple[str, Any], context: Any) -> None:
    base, client = served
    reader = context()
    answer = reader.goto(f"{base}/records/0b6f3c1e-8d0a-4c1e")  # an id cut short in a chat
    assert answer is not None and answer.status == 404
    expect(reader.locator("h1")).to_have_text("No page here")
    expect(reader.get_by_role("link", name="the records list")).to_have_attribute("href", "/")
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    program = client.get("/records/0b6f3c1e-8d0a-4c1e", headers={"Accept": "application/json"})
    assert program.status_code == 404 and program.mimetype == "application/problem+json"
    assert client.get("/records/0b6f3c1e-8d0a-4c1e").mimetype == "application/problem+json"  # no Accept: JSON
    api = client.get("/api/records/0b6f3c1e-8d0a-4c1e", headers={"Accept": "text/html,*/*;q=0.8"})
    assert api.status_code == 404 and api.mimetype == "application/problem+json"  # the API always answers JSON


def test_a_walk_through_the_pages_asks_for_nothing_missing(served: tuple[str, Any], context: Any) -> None:
    base, client = served
    record_id = finished_record(client, "serenissima")
    reader = context()
    missing: list[str] = []
    # a finished record's page asks for its analysis: "none asked for yet" (404 analysis/none) is the API's answer
    reader.on("response", lambda r: missing.append(r.url) if r.status == 404 and not r.url.endswith("/analysis")
              else None)
    for path in ("/", f"/records/{record_id}", "/import", "/reconcile", "/api/docs", f"/embed/records/{record_id}"):
        reader.goto(base + path)
        reader.wait_for_load_state("networkidle")
    assert not missing, missing
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/png"
    assert Image.open(io.BytesIO(icon.data)).size == (32, 32)


def test_a_live_game_opens_at_its_latest_step(served: tuple[str, Any], context: Any) -> None:
    base, client = served
    record_id, tokens = start(client, ["Ada", "Ben"], title="serenissima")
    for _ in range(6):  # a few moves by whoever must decide
        seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
        command = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()["commands"][0]
        played = client.post(f"/api/records/{record_id}/commands", json={"command": command}, headers=auth(tokens[seat]))
        assert played.status_code in (200, 201), played.get_json()
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    reader = context()
    reader.goto(f"{base}/records/{record_id}")
    at_step(reader, steps)
    expect(reader.locator("#slider")).to_have_value(str(steps))


@pytest.mark.parametrize("title", ["la-citta", "citta-stato", "serenissima"])
def test_each_game_speaks_its_own_words_of_rounds_and_final_scores(served: tuple[str, Any], context: Any,
                                                                   title: str) -> None:
    base, client = served
    record_id = finished_record(client, title)
    word = {"la-citta": "year"}.get(title, "round")
    story = client.get(f"/api/records/{record_id}/story").get_json()
    scores = client.get(f"/api/records/{record_id}/scores").get_json()
    assert story["round_word"] == scores["round_word"] == word
    final = {seat["seat"]: seat for seat in scores["final"]["seats"]}
    for seat, entry in final.items():
        assert entry["said"].startswith(NAMES[seat] + ": ") and str(entry["total"]) in entry["said"], entry
    if title == "citta-stato":  # the breakdown's labels read as a sentence: which score counts, and why
        assert all("First score" in e["said"] and "score counts" in e["said"] for e in final.values())

    reader = context()
    reader.goto(f"{base}/records/{record_id}#step={scores['steps']}")
    at_step(reader, scores["steps"])
    headings = reader.locator("#moves h3").all_inner_texts()
    assert len(headings) > 3 and all(re.fullmatch(rf"Setup|{word.capitalize()} \d+", h) for h in headings), headings
    groups = reader.locator("#moves ol[aria-label]").evaluate_all("lists => lists.map(l => l.getAttribute('aria-label'))")
    assert all(g == "setup" or g.startswith(word + " ") for g in groups), groups
    expect(reader.locator("#chart text.axis").last).to_have_text(word)
    for lead in reader.locator("#leads a").all_inner_texts():
        assert lead.endswith("in the setup") or f"— {word} " in lead, lead
    marks = {line["by"] for line in story["lines"] if line.get("by")}
    assert marks, "a transcribed game's chance is the transcriber's word"
    legend = reader.locator("#story-marks")  # the marks explained on the page, not only in tooltips
    expect(legend).to_be_visible()
    for by, words in (("transcriber", "✎ chance asserted by the transcriber"), ("service", "⚄ chance drawn by the service")):
        if by in marks:
            expect(legend).to_contain_text(words)
    for place, seat in enumerate(scores["final"]["ranking"]):
        expect(reader.locator("ol.ranking li").nth(place)).to_contain_text(final[seat]["said"])


def test_la_cittas_all_seeing_board_shows_every_voice_card_and_the_final_voice(served: tuple[str, Any]) -> None:
    _, client = served
    record_id = finished_record(client, "la-citta")
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]

    def voice_cards(n: int) -> list[ET.Element]:
        svg = ET.fromstring(client.get(f"/api/records/{record_id}/steps/{n}/board").data)
        return [g for g in svg.iter() if g.get("data-kind") == "voice-card"]

    def words(card: ET.Element) -> list[str]:
        return [(t.text or "").strip() for t in card.iter() if t.tag.endswith("text") and (t.text or "").strip()]

    checked = 0
    for n in range(0, steps + 1, 7):
        view = client.get(f"/api/records/{record_id}/steps/{n}").get_json()["view"]
        if not view["voice"]["face_down"]:
            continue
        cards = voice_cards(n)
        assert all("?" not in words(card) for card in cards), n  # the all-seeing view hides nothing
        checked += 1
    assert checked > 3
    final = client.get(f"/api/records/{record_id}/steps/{steps}").get_json()["view"]["voice"]
    assert final["services"] and final["face_up"] is None  # the year's cards are put away; the people's wish stays
    face_up = voice_cards(steps)[0]
    assert words(face_up), "the final voice of the people is drawn, not an empty box"
    assert any("the people want" in (t.text or "") for t in face_up.iter() if t.tag.endswith("title"))


def test_serenissimas_status_box_holds_its_every_line(served: tuple[str, Any], context: Any) -> None:
    base, client = served
    document = record_file("serenissima", "share-serenissima", greedy=True)
    document["seats"] = [{"name": "Gianmaria D'Angelo"}, {"name": "Maria Teresa Bianchi"}]  # long names, as tables have
    record_id = import_finished_http(client, document).record_id
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    longest, at = 0, 0
    for n in range(0, steps + 1, 3):  # the step whose active galley says the most
        act = client.get(f"/api/records/{record_id}/steps/{n}").get_json()["view"].get("active_galley")
        if isinstance(act, dict) and len(str(act.get("step", ""))) > longest:
            longest, at = len(str(act.get("step", ""))), n
    assert longest >= len("sale-or-battle") - 2, longest
    reader = context()
    reader.goto(f"{base}/records/{record_id}#step={at}")
    at_step(reader, at)
    overflow = reader.evaluate("""() => {
        const box = document.querySelector('#board [data-kind=heading]');
        const frame = box.querySelector('rect').getBBox();
        return [...box.querySelectorAll('text')].map((t) => [t.textContent, t.getBBox(), frame])
            .filter(([, b]) => b.x + b.width > frame.x + frame.width - 2 || b.y + b.height > frame.y + frame.height)
            .map(([text, b]) => `${text}: ${b.x + b.width} past ${frame.x + frame.width}`);
    }""")
    assert overflow == [], overflow


PREVIEW = re.compile(r'<meta (?:property|name)="((?:og|twitter):[a-z:_]+)" content="([^"]*)">')


def preview(client: Any, path: str) -> dict[str, str]:
    """The link preview a chat reads from the page at `path` (its OpenGraph and Twitter meta tags), unescaped."""
    answer = client.get(path)
    assert answer.status_code == 200
    return {key: html.unescape(value) for key, value in PREVIEW.findall(answer.get_data(as_text=True))}


@pytest.mark.parametrize("title", ["la-citta", "citta-stato", "serenissima"])
def test_a_step_s_link_unfurls_in_a_chat_with_its_board_and_opens_that_step(served: tuple[str, Any], context: Any,
                                                                         title: str) -> None:
    """The share box's link to a step (the step in its query, which a chat's preview reads: a fragment never reaches
    the server) unfurls as the game's title and players, the step's sentence and that step's board as a picture;
    the embedded player's link too. Opened, it shows that step, the address in the page's own #step= form."""
    base, client = served
    record_id = finished_record(client, title)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    n = steps // 2
    name = next(t["name"] for t in client.get("/api/titles").get_json()["titles"] if t["id"] == title)
    line = max((li for li in client.get(f"/api/records/{record_id}/story").get_json()["lines"] if li["step"] <= n),
               key=lambda li: li["step"])
    for path in (f"/records/{record_id}", f"/embed/records/{record_id}"):
        card = preview(client, f"{path}?step={n}")
        assert card["og:title"] == f"{name}: {', '.join(NAMES)}, step {n}" == card["twitter:title"]
        assert card["og:description"] == f"Step {n} of {steps}: {line['text']}" == card["twitter:description"]
        assert card["og:image"] == f"http://localhost/api/records/{record_id}/steps/{n}/board.png" == card["twitter:image"]
        assert card["twitter:card"] == "summary_large_image" and card["og:url"] == f"http://localhost{path}?step={n}"
        picture = client.get(card["og:image"].removeprefix("http://localhost"))
        assert picture.status_code == 200 and picture.mimetype == "image/png"
    quiet = preview(client, f"/records/{record_id}?step={n}&spoilers=off")  # spoiler-free: not even the length
    assert quiet["og:description"] == f"Step {n}: {line['text']}"
    whole = preview(client, f"/records/{record_id}")  # no step: the game, where the page opens (after the setup)
    assert whole["og:description"] == f"A game of {name} for 2 players ({', '.join(NAMES)}), finished in {steps} steps."
    first = client.get(f"/api/records/{record_id}/turns").get_json()[0]["to"]
    assert whole["og:image"].endswith(f"/steps/{first}/board.png")

    reader = context()
    reader.goto(f"{base}/records/{record_id}?step={n}")
    at_step(reader, n)
    assert reader.evaluate("location.search + location.hash") == f"#step={n}"
    reader.locator("#share summary").click()
    link = reader.locator("#share input.share-link")
    expect(link).to_have_value(f"{base}/records/{record_id}?step={n}")
    expect(reader.get_by_role("button", name="copy the link")).to_be_visible()
    reader.keyboard.press("End")
    expect(link).to_have_value(f"{base}/records/{record_id}?step={steps}")
    player = context()
    player.goto(f"{base}/embed/records/{record_id}?step={n}&spoilers=off")
    expect(player.locator("body")).to_have_attribute("data-step", str(n))
    expect(player.locator("#of")).to_be_hidden()


def test_a_preview_links_to_the_service_s_public_address_whatever_host_the_request_names(
        served: tuple[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind a load balancer the service knows its public address (CRONACA_PUBLIC_URL): a preview's links go
    there, never to the host a request's Host header names (anyone may write one, and a chat keeps the preview).
    Unset, the request's host is all there is. A public address that is none is refused at start."""
    _, client = served
    record_id = client.post("/api/records", json={"title": "citta-stato", "seats": NAMES}).get_json()["id"]
    settings = client.application.extensions["cronaca"].settings
    lie = {"Host": "cronaca.evil.example"}
    unset = client.get(f"/records/{record_id}?step=1", headers=lie).get_data(as_text=True)
    assert f'"og:url" content="http://cronaca.evil.example/records/{record_id}?step=1"' in unset  # the request's host
    monkeypatch.setattr(settings, "public_url", Settings.from_env({"CRONACA_PUBLIC_URL": " https://cronaca.example.org/games/ "}).public_url)
    for path in (f"/records/{record_id}", f"/embed/records/{record_id}"):
        page = client.get(f"{path}?step=1", headers=lie).get_data(as_text=True)
        card = {key: html.unescape(value) for key, value in PREVIEW.findall(page)}
        assert card["og:url"] == f"https://cronaca.example.org/games{path}?step=1"
        assert card["og:image"] == card["twitter:image"] == f"https://cronaca.example.org/games/api/records/{record_id}/steps/1/board.png"
        assert "evil" not in page
    for wrong in ("cronaca.example.org", "ftp://cronaca.example.org", "https://", "https://cronaca.example.org/?a=1"):
        with pytest.raises(ValueError, match="CRONACA_PUBLIC_URL"):
            Settings.from_env({"CRONACA_PUBLIC_URL": wrong})


def test_a_game_in_progress_unfurls_with_what_every_player_sees_only(served: tuple[str, Any]) -> None:
    """A link to a step of a game in progress, pasted in a chat, tells what the public view tells: Ada's face-down
    Republic card is in her own move list, never in the preview; the picture is the public board (no token)."""
    _, client = served
    made = client.post("/api/records", json={"title": "citta-stato", "seats": NAMES, "mode": "live"}).get_json()
    record_id, ada = made["id"], made["seats"][0]["token"]
    public = {li["step"]: li["text"] for li in client.get(f"/api/records/{record_id}/story").get_json()["lines"]}
    own = {li["step"]: li["text"] for li in client.get(f"/api/records/{record_id}/story", headers=auth(ada)).get_json()["lines"]}
    secret = [k for k in own if own[k] != public.get(k)]
    assert secret, "the deal of face-down cards is told to Ada alone"
    n = secret[0]
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    card = preview(client, f"/records/{record_id}?step={n}")
    assert card["og:description"] == f"Step {n} of {steps}: {public[n]}"
    page = client.get(f"/records/{record_id}?step={n}").get_data(as_text=True)
    assert own[n] not in page and ada not in page
    assert card["og:image"] == f"http://localhost/api/records/{record_id}/steps/{n}/board.png"
    whole = preview(client, f"/records/{record_id}")
    assert whole["og:description"].endswith(f"in progress, {steps} steps so far.")
    assert whole["og:image"].endswith(f"/steps/{steps}/board.png")
