"""The viewer's API: the story, the board, scores over time, the paged records list, ETags, the demo."""

from __future__ import annotations

import io
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest
from PIL import Image
from playwright.sync_api import expect, sync_playwright
from werkzeug.serving import make_server

from api import service_cli
from api.app import create_app
from domain import catalog
from domain.kernel import Entry, SeededChance, bots
from domain.kernel.bots import GreedyBot
from domain.kernel.describe import hidden, say, sentence
from domain.records import Records, dice
from domain.records.aggregates import LIVE, Record
from domain.records.settings import Settings
from domain.records.story import lead_changes, plain_words, tell
from tests.kernel import toy_game
from tests.service.browsing import CHROMIUM_ARGS
from tests.service.conftest import postgres_env
from tests.service.helpers import auth, play_out

REAL = ("citta-stato", "la-citta", "serenissima")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, Records]]:
    """A test client and its records application on a fresh SQLite file."""
    app = create_app(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                        "SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}))
    app.config["TESTING"] = True
    yield app.test_client(), app.extensions["cronaca"].records
    app.extensions["cronaca"].records.close()


def move(records: Records, record_id: Any, tokens: list[str], players: SeededChance) -> None:
    """One random legal command by the seat that must decide."""
    timeline = records.timeline(record_id)
    choices = timeline.game.legal(timeline.head)
    cmd = choices[players.below(len(choices))]
    records.play.command(record_id, cmd.to_json(), tokens[cmd.seat])


def toy_says(event: Any, before: Any, names: Any) -> Any:
    """A describe for the toy: a drawn cube is its drawer's secret until the game is over."""
    if isinstance(event, toy_game.Drawn):
        return sentence(names[event.seat], " draws ", hidden(f"a {event.cube}", event.seat, "a cube"))
    if isinstance(event, toy_game.Rolled):
        return sentence(names[event.seat], f" rolls {event.face}")
    return None  # the setup says nothing a person needs


# ---- the story --------------------------------------------------------------------------------------


def test_story_falls_back_to_the_event_type_in_words(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, record_id, tokens)
    story = client.get(f"/api/records/{record_id}/story").get_json()
    timeline = records.timeline(record_id)
    turns = records.reading.turns(record_id)
    assert story["view_of"] == "all" and story["steps"] == len(timeline.events)
    assert [line["step"] for line in story["lines"]] == list(range(1, story["steps"] + 1))
    for line in story["lines"]:
        event = timeline.events[line["step"] - 1]
        assert line["text"] == event.type.split("/")[-1] and "/" not in line["text"]
        turn = next(t for t in turns if t.start < line["step"] <= t.stop)
        assert (line["seat"], line["round"]) == (turn.seat, turn.round)
        assert line["player"] == (None if turn.seat is None else ["ann", "bob"][turn.seat])
    assert plain_words("citta-stato/cards-renewed") == "cards renewed"


def test_story_lines_hide_what_the_reader_may_not_see(served: tuple[Any, Records],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    client, records = served
    monkeypatch.setattr(toy_game.GAME, "describe", toy_says, raising=False)
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    for _ in range(4):
        records.play.command(record_id, {"type": "toy/draw", "seat": records.timeline(record_id).head.turn},
                     tokens[records.timeline(record_id).head.turn])
    cubes = [e.cube for e in records.timeline(record_id).events if isinstance(e, toy_game.Drawn)]
    public = client.get(f"/api/records/{record_id}/story").get_json()
    ann = client.get(f"/api/records/{record_id}/story", headers=auth(tokens[0])).get_json()
    assert public["view_of"] == "public" and ann["view_of"] == "seat:0"
    assert [line["step"] for line in public["lines"]] == [2, 3, 4, 5]  # the setup says nothing
    assert [line["text"] for line in public["lines"]] == ["ann draws a cube", "bob draws a cube"] * 2
    assert [line["text"] for line in ann["lines"]] == [
        f"ann draws a {cubes[0]}", "bob draws a cube", f"ann draws a {cubes[2]}", "bob draws a cube"]
    assert client.get(f"/api/records/{record_id}/story", headers=auth("not-a-seat")).status_code == 403
    assert client.get(f"/api/records/{uuid4()}/story").status_code == 404
    play_out(records, record_id, tokens)
    finished = client.get(f"/api/records/{record_id}/story").get_json()
    assert finished["view_of"] == "all" and finished["steps"] > public["steps"]
    assert [line["text"] for line in finished["lines"][:4]] == [
        f"ann draws a {cubes[0]}", f"bob draws a {cubes[1]}", f"ann draws a {cubes[2]}", f"bob draws a {cubes[3]}"]


def test_a_real_title_story_in_progress_is_public_words(served: tuple[Any, Records]) -> None:
    """Città-Stato read publicly mid-game: a line for each event its describe (or the fallback) tells,
    no raw type id, and the text is what the public reader may read of each sentence."""
    client, records = served
    record_id, tokens = records.play.start("citta-stato", ["Ada", "Bruno", "Chiara"])
    players = SeededChance("story")
    for _ in range(25):
        move(records, record_id, tokens, players)
    story = client.get(f"/api/records/{record_id}/story").get_json()
    timeline = records.timeline(record_id)
    assert story["view_of"] == "public" and story["steps"] == len(timeline.events)
    assert story["lines"] and all(line["text"] and not line["text"].startswith("citta-stato/") for line in story["lines"])

    state = timeline.state_at(0)
    said = {}
    for k, e in enumerate(timeline.events, start=1):
        said[k] = say(tell(timeline.game, e, state, ["Ada", "Bruno", "Chiara"]), None)
        state = timeline.game.evolve(state, e)
    assert {line["step"]: line["text"] for line in story["lines"]} == {k: t for k, t in said.items() if t is not None}


def test_story_follows_a_live_game(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    first = client.get(f"/api/records/{record_id}/story").get_json()
    records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0])
    second = client.get(f"/api/records/{record_id}/story").get_json()
    assert second["steps"] == first["steps"] + 1
    assert second["lines"][:-1] == first["lines"] and second["lines"][-1]["text"] == "rolled"


# ---- the board --------------------------------------------------------------------------------------


def test_board_draws_the_readers_view_with_the_previous_step(served: tuple[Any, Records],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    client, records = served
    drawn: list[tuple[Any, Any]] = []

    def fake_draw(title: str, view: Any, previous: Any, edition: Any, names: Any) -> str:
        drawn.append((view, previous))
        return f"<svg xmlns='http://www.w3.org/2000/svg'><title>{title} {names} {view['points']}</title></svg>"

    monkeypatch.setattr("replay_viewer.boards.draw", fake_draw)
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0])
    live = client.get(f"/api/records/{record_id}/steps/2/board", headers=auth(tokens[1]))
    assert live.status_code == 200 and live.mimetype == "image/svg+xml"
    assert live.headers["Cache-Control"] == "private, no-cache"
    view, previous = drawn[-1]
    assert view == records.reading.step(record_id, 2, tokens[1]).view and isinstance(view["bags"][0], int)
    assert previous == records.reading.step(record_id, 1, tokens[1]).view
    client.get(f"/api/records/{record_id}/steps/0/board")
    assert drawn[-1][1] is None
    missing = client.get(f"/api/records/{record_id}/steps/3/board")
    assert missing.status_code == 404 and "steps 0 to 2" in missing.get_json()["detail"]
    play_out(records, record_id, tokens)
    steps = records.reading.summary(record_id).steps
    done = client.get(f"/api/records/{record_id}/steps/{steps}/board")
    assert done.status_code == 200 and done.headers["Cache-Control"] == "public, max-age=3600"
    assert drawn[-1][0] == records.reading.step(record_id, steps, None).view  # all-seeing
    calls = len(drawn)
    again = client.get(f"/api/records/{record_id}/steps/{steps}/board", headers={"If-None-Match": done.headers["ETag"]})
    assert again.status_code == 304 and not again.data and len(drawn) == calls  # from the cache, not drawn again
    fast = client.get(f"/api/records/{record_id}/steps/{steps}/board")  # the WSGI fast path: a kept drawing
    assert (fast.status_code, fast.data, fast.headers["ETag"], fast.headers["Content-Type"]) == (
        200, done.data, done.headers["ETag"], done.headers["Content-Type"])
    assert fast.headers["Cache-Control"] == done.headers["Cache-Control"] and len(drawn) == calls
    assert client.get(f"/api/records/{record_id}/steps/{steps}/board", headers=auth("forged")).status_code == 403
    assert client.get(f"/api/records/{record_id}/steps/1/board", headers=auth("wrong")).status_code == 403


def test_a_board_picture_is_the_drawing_rasterised_for_its_reader(served: tuple[Any, Records],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    client, records = served

    def fake_draw(title: str, view: Any, previous: Any, edition: Any, names: Any) -> str:
        # a seat sees its own bag (a list; others see a count): green for a reader who sees seat 0's bag, grey otherwise
        fill = "#00a000" if isinstance(view["bags"][0], list) else "#808080"
        return (f"<svg xmlns='http://www.w3.org/2000/svg' width='40' height='30' viewBox='0 0 40 30'>"
                f"<rect width='40' height='30' fill='#ffffff'/><rect x='20' y='0' width='20' height='30' fill='{fill}'/></svg>")

    monkeypatch.setattr("replay_viewer.boards.draw", fake_draw)
    record_id, tokens = records.play.start("toy", ["Ann O'Neil", "Bob"])
    records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0])

    def pixels(answer: Any) -> tuple[tuple[int, int], tuple[int, ...], tuple[int, ...]]:
        assert answer.status_code == 200 and answer.mimetype == "image/png", answer.get_data(as_text=True)[:200]
        picture = Image.open(io.BytesIO(answer.data)).convert("RGB")
        return picture.size, picture.getpixel((5, 15)), picture.getpixel((35, 15))

    public = client.get(f"/api/records/{record_id}/steps/2/board.png")
    own = client.get(f"/api/records/{record_id}/steps/2/board.png", headers=auth(tokens[0]))
    assert pixels(public) == ((40, 30), (255, 255, 255), (128, 128, 128))  # the public never sees the bag
    assert pixels(own) == ((40, 30), (255, 255, 255), (0, 160, 0))
    assert own.headers["Cache-Control"] == "private, no-cache" and own.headers["ETag"] != public.headers["ETag"]
    unchanged = client.get(f"/api/records/{record_id}/steps/2/board.png",
                           headers={**auth(tokens[0]), "If-None-Match": own.headers["ETag"]})
    assert unchanged.status_code == 304 and not unchanged.data
    assert client.get(f"/api/records/{record_id}/steps/2/board.png", headers=auth("a guess")).status_code == 403
    missing = client.get(f"/api/records/{record_id}/steps/9/board.png")
    assert missing.status_code == 404 and "steps 0 to 2" in missing.get_json()["detail"]
    play_out(records, record_id, tokens)
    steps = records.reading.summary(record_id).steps
    done = client.get(f"/api/records/{record_id}/steps/{steps}/board.png")
    assert pixels(done)[2] == (0, 160, 0) and done.headers["Cache-Control"] == "public, max-age=3600"  # all-seeing


def test_a_real_board_picture_has_the_drawings_size(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, _ = records.play.start("serenissima", ["Ada", "Bruno", "Chiara"])
    svg = ET.fromstring(client.get(f"/api/records/{record_id}/steps/1/board").data)
    width, height = (float(v) for v in (svg.get("viewBox") or "").split()[2:])
    answer = client.get(f"/api/records/{record_id}/steps/1/board.png")
    picture = Image.open(io.BytesIO(answer.data))
    assert answer.status_code == 200 and picture.size == (round(width), round(height))
    colours = picture.convert("RGB").getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50  # a drawn board (sea, ports, text), not a blank picture
    toy, _ = records.play.start("toy", ["ann", "bob"])
    assert client.get(f"/api/records/{toy}/steps/1/board.png").get_json()["type"].endswith("no-layout")


def test_a_title_without_a_board_answers_no_layout(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, _ = records.play.start("toy", ["ann", "bob"])
    answer = client.get(f"/api/records/{record_id}/steps/1/board")
    body = answer.get_json()
    assert answer.status_code == 404 and body["type"].endswith("no-layout") and "toy" in body["detail"]


def test_real_titles_draw_a_board_or_say_why_not(served: tuple[Any, Records]) -> None:
    client, records = served
    for title in REAL:
        record_id, _ = records.play.start(title, ["Ada", "Bruno", "Chiara"])
        steps = records.reading.summary(record_id).steps
        answer = client.get(f"/api/records/{record_id}/steps/{steps}/board")
        if answer.status_code == 200:
            assert answer.mimetype == "image/svg+xml" and b"<svg" in answer.data
        else:
            assert answer.status_code == 404 and answer.get_json()["type"].endswith("no-layout"), answer.get_json()


# ---- scores over time -------------------------------------------------------------------------------


def test_scores_over_time_only_once_finished(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, tokens = records.play.start("toy", ["ann", "bob", "cy"])
    records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0])
    early = client.get(f"/api/records/{record_id}/scores", headers=auth(tokens[0])).get_json()
    assert early["available"] is False and "over" in early["reason"]
    play_out(records, record_id, tokens, seed="scores")
    scores = client.get(f"/api/records/{record_id}/scores").get_json()
    timeline = records.timeline(record_id)
    steps = len(timeline.events)
    assert scores["available"] and scores["steps"] == steps
    assert scores["final"] == records.reading.summary(record_id).scores
    for row in scores["seats"]:
        assert len(row["totals"]) == steps + 1 and row["name"] == ["ann", "bob", "cy"][row["seat"]]
        for k in (0, steps // 2, steps):
            assert row["totals"][k] == (list(timeline.state_at(k).points) or [0, 0, 0])[row["seat"]]
    turns = records.reading.turns(record_id)
    assert scores["rounds"][0] == {"round": 1, "step": turns[1].start + 1}
    assert [m["round"] for m in scores["rounds"]] == sorted({t.round for t in turns[1:]})
    totals = list(zip(*[row["totals"] for row in scores["seats"]], strict=True))
    for change in scores["lead_changes"]:
        row = totals[change["step"]]
        assert row[change["seat"]] == max(row)
    assert scores["lead_changes"][-1]["seat"] == scores["final"]["ranking"][0]


def test_lead_changes_keep_the_lead_through_ties_and_settle_the_end_by_ranking() -> None:
    totals = [[0, 0], [2, 0], [2, 2], [2, 3], [5, 5]]
    assert lead_changes(totals, [0, 1]) == [{"step": 1, "seat": 0}, {"step": 3, "seat": 1}, {"step": 4, "seat": 0}]
    assert lead_changes(totals, [1, 0]) == [{"step": 1, "seat": 0}, {"step": 3, "seat": 1}]


# ---- the records list ---------------------------------------------------------------------------------


def bulk_records(records: Records, n: int) -> None:
    """n toy records straight through the store's own API (one save per batch): every third finished,
    every fifth with a player named 'zoe'."""
    setup = Entry(None, (), (toy_game.Started(records.edition("toy").ref, 2),), options={"players": 2}).to_json()
    batch = []
    for k in range(n):
        record = Record(id=uuid4(), title="toy", edition=records.edition("toy").ref, edition_file=None,
                        seats=["zoe" if k % 5 == 0 else f"p{k}", "bob"], token_hashes=["x", "y"],
                        options={"players": 2}, mode=LIVE, commitment=None, seed=None, origin=None)
        record.record(setup, seat=None)
        if k % 3 == 0:
            record.finish(seed=None, scores={"finished": True, "ranking": [1, 0],
                                             "seats": [{"seat": 0, "total": k % 7}, {"seat": 1, "total": 10}]})
        batch.append(record)
        if len(batch) == 500:
            records.save(*batch)
            batch = []
    if batch:
        records.save(*batch)


def check_pages(records: Records, n: int) -> None:
    first = records.reading.listing(page=1, per_page=50)
    assert first.total == n and len(first.items) == 50
    last = records.reading.listing(page=(n + 49) // 50, per_page=50)
    assert len(last.items) == n - 50 * ((n + 49) // 50 - 1)
    assert records.reading.listing(page=(n + 49) // 50 + 1, per_page=50).items == []
    zoe = records.reading.listing(player="ZOE", status="finished", page=2, per_page=10)
    assert zoe.total == len([k for k in range(n) if k % 5 == 0 and k % 3 == 0])
    assert all("zoe" in r.players and r.finished for r in zoe.items) and len(zoe.items) == 10
    done = [r for r in first.items if r.finished]
    assert done and all(r.winner == ["bob"] and r.scores[0] == {"name": "bob", "total": 10} for r in done)
    assert all(r.winner is None for r in first.items if not r.finished)
    assert records.reading.listing(title="la-citta").total == 0


def test_the_list_pages_thousands_of_records(served: tuple[Any, Records]) -> None:
    client, records = served
    n = 3000
    bulk_records(records, n)  # (how fast a page is, at 100,000 records, is benchmarks.listing's to say)
    check_pages(records, n)
    answer = client.get("/api/records?status=in-progress&page=3&per_page=100").get_json()
    assert answer["total"] == n - len(range(0, n, 3)) and answer["page"] == 3 and len(answer["items"]) == 100
    newest = client.get("/api/records?per_page=1").get_json()["items"][0]
    assert newest["players"][0] == f"p{n - 1}"  # newest first
    assert client.get("/api/records?per_page=201").status_code == 422


@pytest.mark.postgres
def test_the_list_pages_on_postgresql(postgres_schema: str) -> None:

    records = Records(Settings.from_env(postgres_env(postgres_schema)).store)
    try:
        bulk_records(records, 1200)
        check_pages(records, 1200)
    finally:
        records.close()


def test_list_items_name_the_winner_of_a_played_game(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, record_id, tokens)
    scores = records.reading.summary(record_id).scores
    item = client.get("/api/records").get_json()["items"][0]
    names = ["ann", "bob"]
    assert item["winner"] == [names[scores["ranking"][0]]]
    assert item["scores"] == [{"name": names[s], "total": scores["seats"][s]["total"]} for s in scores["ranking"]]


# ---- live follow: the record's ETag ---------------------------------------------------------------------


def test_a_record_answers_304_until_it_changes(served: tuple[Any, Records]) -> None:
    client, records = served
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    first = client.get(f"/api/records/{record_id}")
    etag = first.headers["ETag"]
    assert str(first.get_json()["version"]) in etag
    same = client.get(f"/api/records/{record_id}", headers={"If-None-Match": etag})
    assert same.status_code == 304 and not same.data
    records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0])
    moved = client.get(f"/api/records/{record_id}", headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag and moved.get_json()["steps"] == 2
    assert client.get(f"/api/records/{record_id}", headers={"If-None-Match": etag, **auth("x")}).status_code == 403


# ---- the demo ----------------------------------------------------------------------------------------


def test_the_demo_plans_a_few_tables_of_every_title_with_the_solo() -> None:

    plan = service_cli.demo_plan(list(REAL))
    for title in REAL:
        counts = {len(names) for t, names, _, _ in plan if t == title}
        assert len(counts) >= 2, (title, counts)
    solo = [(t, names, options) for t, names, options, _ in plan if "solo" in options]
    assert [(t, names, options["players"]) for t, names, options in solo] == [("citta-stato", ["Ada", "Ghost"], 2)]
    assert len({seed for *_, seed in plan}) == len(plan)


def test_demo_records_are_greedy_bot_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    played: list[Any] = []
    play_bot = bots.play_bot

    def watched(*args: Any, **kwargs: Any) -> Any:
        played.append(play_bot(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(bots, "play_bot", watched)
    quick = {"citta-stato": (bots.Table({"players": 2}),)}  # one quick table: the plan is tested above
    monkeypatch.setattr(catalog, "demo_tables", lambda title: quick.get(title, ()))
    records = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "demo.sqlite3")}).store)
    try:
        assert service_cli.demo_records(records) == 1
        (made,) = records.reading.listing().items
        assert made.players == service_cli.NAMES[:2] and made.finished and made.winner
        record = records.reading.export(UUID(made.id)).to_json()
        assert len(played) == 1 and played[0].seed == "demo-citta-stato-0"
        assert record["entries"] == dice.mark_outcomes([e.to_json() for e in played[0].entries], record["mode"])
    finally:
        records.close()


def test_the_demo_lessons_chapters_are_named_as_people_write_the_titles(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    quick = {"la-citta": (bots.Table({"players": 2}),)}
    monkeypatch.setattr(catalog, "demo_tables", lambda title: quick.get(title, ()))
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "demo.sqlite3")}))
    try:
        service = app.extensions["cronaca"]
        keys: dict[str, tuple[str, str]] = {}
        assert service_cli.demo_records(service.records, 1, keys) == 1
        made = service_cli.demo_lesson(service.teaching, keys)
        assert made is not None
        chapters = app.test_client().get(f"/api/lessons/{made[0]}").get_json()["chapters"]
        assert [c["title"] for c in chapters] == ["A game of La Città", "La Città: what if the other choice?"]
    finally:
        service.records.close()


def test_the_live_demo_is_played_by_the_bot(tmp_path: Path) -> None:

    records = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "live.sqlite3")}).store)
    try:
        made = service_cli.demo_live(records, commands=3)
        assert made is not None
        timeline = records.timeline(UUID(made[0]))
        game = catalog.game(timeline.meta.title)
        state = timeline.state_at(timeline.meta.entry_sizes[0])  # after the setup
        bot, rng = GreedyBot(), SeededChance("demo-live/bot")
        first = bot.choose(game, state, rng, "demo-live/bot-think/0")
        assert timeline.entries[1]["command"] == first.to_json()
    finally:
        records.close()


# ---- the list page in Chromium ----------------------------------------------------------------------------


@pytest.mark.browser
def test_the_list_page_shows_winners_files_and_pages(tmp_path: Path) -> None:



    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}))
    records = app.extensions["cronaca"].records
    bulk_records(records, 40)
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, record_id, tokens)
    scores = records.reading.summary(record_id).scores
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(base + "/")
            first = page.locator("#records tbody tr").first
            names = ["ann", "bob"]
            expect(first.locator("td").nth(3)).to_have_text(names[scores["ranking"][0]])
            expect(first.locator("td").nth(4)).to_have_text(
                " · ".join(f"{names[s]} {scores['seats'][s]['total']}" for s in scores["ranking"]))
            expect(first.get_by_role("link", name="JSON record file", exact=False)).to_have_attribute(
                "href", f"/api/records/{record_id}/export")
            expect(first.locator("a", has_text="notation")).to_have_attribute("href", f"/api/records/{record_id}/notation")
            expect(page.locator("#import-game")).to_have_attribute("href", "/import")
            expect(page.locator("#page-of")).to_have_text("page 1 of 2")
            expect(page.locator("#records tbody tr")).to_have_count(25)
            page.locator("#next-page").click()
            expect(page.locator("#page-of")).to_have_text("page 2 of 2")
            expect(page.locator("#records tbody tr")).to_have_count(16)
            assert "page=2" in page.url
            page.locator("select[name=status]").select_option("in-progress")
            page.locator("#filters button").click()
            expect(page.locator("#list-status")).to_have_text(f"{len([k for k in range(40) if k % 3])} records")
            expect(page.locator("#records tbody tr").first.locator("td").nth(6)).to_have_text("once finished")
            page.go_back()
            expect(page.locator("#page-of")).to_have_text("page 2 of 2")
            browser.close()
    finally:
        server.shutdown()
        records.close()
