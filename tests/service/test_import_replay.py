"""A rejected import's game as checked, replayed read-only: the step just before each finding.

A Città-Stato game is played by seeded random moves, rendered in its notation, and one line is
changed (a seat that passed is made to declare war it cannot pay for). The report names that line;
its `step` must open a replay whose view is the state the lines before it lead to, computed here
independently by checking only those lines. No record is made and nothing else is stored.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from api.app import create_app
from domain import catalog
from domain.kernel import fold
from domain.kernel.selfplay import play_random
from domain.records.settings import Settings
from domain.records.views import public_view
from domain.transcripts import MEDIA_TYPE, check_text, render_log
from tests.service.conftest import close_app
from tests.service.helpers import auth
from tests.service.test_api import wait_for_verdict

TITLE = "citta-stato"
NAMES = ["Ada", "Bruno"]
PASS = re.compile(r"^(\s*(?:\d+\. )?\w+: )pass$")


def written_game(seed: str = "replay-a") -> list[str]:
    game = catalog.game(TITLE)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": 2}, seed)
    return render_log(TITLE, edition, played.entries, NAMES, {"players": 2}, played.scores).splitlines()


def planted(lines: list[str]) -> tuple[list[str], int]:
    """The file with a pass (past the first round) turned into a war declared without the cubes; its 1-based line."""
    at = next(i for i, line in enumerate(lines) if i > 12 and PASS.match(line))
    changed = list(lines)
    changed[at] = PASS.sub(r"\1war", lines[at])
    return changed, at + 1


def text_of(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def state_before(lines: list[str], line: int) -> Any:
    """The state the file's lines before `line` lead to, checked on their own (no Result: a cut-off game)."""
    head = [x for x in lines[: line - 1] if not x.startswith("[Result ")]
    report = check_text("\n".join(head) + "\n")
    assert report.ok, report.to_json()["findings"][:2]
    game = catalog.game(TITLE)
    return fold(game, game.begin(game.default_edition()), [e for entry in report.entries or [] for e in entry.events])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    tmp = tmp_path_factory.mktemp("replay")
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp / "records.sqlite3")}))
    app.config["TESTING"] = True
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    server.shutdown()
    close_app(app)


def submit(client: Any, body: bytes) -> tuple[str, list[str], dict[str, Any]]:
    answer = client.post("/api/imports", data=body, content_type=MEDIA_TYPE)
    assert answer.status_code == 202, answer.get_json()
    import_id = answer.get_json()["id"]
    return import_id, [s["token"] for s in answer.get_json()["seats"]], wait_for_verdict(client, import_id)


def stored(app: Any) -> tuple[int, int]:
    records = app.extensions["cronaca"].records
    return records.recorder.max_notification_id() or 0, records.reading.listing().total


def test_the_findings_step_opens_the_state_just_before_the_faulty_line(served: tuple[str, Any]) -> None:
    _, app = served
    client = app.test_client()
    lines, line = planted(written_game())
    import_id, _, verdict = submit(client, text_of(lines))
    assert verdict["status"] == "rejected" and verdict["record_id"] is None
    found = [f for f in verdict["report"]["findings"] if f["line"] == line]
    assert found and found[0]["kind"] == "rule", verdict["report"]["findings"]
    fault = found[0]

    before = stored(app)
    summary = client.get(f"/api/imports/{import_id}/replay").get_json()
    assert summary["title"] == TITLE and [s["name"] for s in summary["seats"]] == NAMES
    assert summary["view_of"] == "all"  # the file claims a result: its holder has every secret
    assert summary["as_reported"] is True
    # every finding where the checker went on with another move is listed, with what it assumed
    assumed = {(a["line"], a["step"], a["assumed"]) for a in summary["assumed"]}
    assert assumed == {(f["line"], f["step"], f["assumed"]) for f in verdict["report"]["findings"] if "assumed" in f}
    assert (line, fault["step"], fault["assumed"]) in assumed
    assert fault["written"] == "war" and fault["assumed"] not in ("war", "skipped")  # a legal alternative went on

    step = client.get(f"/api/imports/{import_id}/replay/steps/{fault['step']}").get_json()
    game = catalog.game(TITLE)
    expected = state_before(lines, line)
    assert step["view"] == game.view(expected, None)
    assert step["pending"]["seat"] == NAMES.index(fault["player"])
    # one step on, the assumed move has happened: the state differs from the one before the line
    after = client.get(f"/api/imports/{import_id}/replay/steps/{fault['step'] + 1}").get_json()
    assert after["view"] != step["view"]

    story = client.get(f"/api/imports/{import_id}/replay/story").get_json()
    assert story["steps"] == summary["steps"] and story["lines"] and all(1 <= s["step"] <= summary["steps"] for s in story["lines"])
    board = client.get(f"/api/imports/{import_id}/replay/steps/{fault['step']}/board")
    assert board.status_code == 200 and board.mimetype == "image/svg+xml" and b"<svg" in board.data
    missing = client.get(f"/api/imports/{import_id}/replay/steps/{summary['steps'] + 1}")
    assert missing.status_code == 404
    assert stored(app) == before  # reading the replay stored nothing: no record, no event


def test_an_unfinished_file_shows_no_secrets_without_its_token(served: tuple[str, Any]) -> None:
    _, app = served
    client = app.test_client()
    lines, line = planted(written_game())
    # cut off, and no result claimed (a tag in its place keeps the line numbers)
    cut = ['[Transcriber "Ada"]' if x.startswith("[Result ") else x for x in lines[: line + 6]]
    import_id, tokens, verdict = submit(client, text_of(cut))
    assert verdict["status"] == "rejected"
    fault = next(f for f in verdict["report"]["findings"] if f["line"] == line)
    game = catalog.game(TITLE)
    state = state_before(cut, line)
    everything = game.view(state, None)

    public = client.get(f"/api/imports/{import_id}/replay/steps/{fault['step']}").get_json()
    assert public["view_of"] == "public"
    assert public["view"] == public_view(game, state, len(NAMES)) and public["view"] != everything
    assert "scores" not in public
    mine = client.get(f"/api/imports/{import_id}/replay/steps/{fault['step']}", headers=auth(tokens[0])).get_json()
    assert mine["view_of"] == "seat:0" and mine["view"] == game.view(state, 0)
    assert client.get(f"/api/imports/{import_id}/replay", headers=auth("not-a-token")).status_code == 403
    summary = client.get(f"/api/imports/{import_id}/replay").get_json()
    assert summary["view_of"] == "public" and summary["finished"] is False
    # the assumed lines carry no seat's secrets to a stranger: what they hold stays out of the summary
    assert all("held" not in a and "alternatives" not in a for a in summary["assumed"])


def test_a_clean_import_points_at_its_record_and_an_unread_file_has_nothing_to_replay(served: tuple[str, Any]) -> None:
    _, app = served
    client = app.test_client()
    import_id, _, verdict = submit(client, text_of(written_game("replay-clean")))
    assert verdict["status"] == "accepted"
    answer = client.get(f"/api/imports/{import_id}/replay")
    assert answer.status_code == 409 and answer.get_json()["facts"]["record_id"] == verdict["record_id"]
    refused = client.post("/api/imports", data=b'[Title "citta-stato"]\n[Seats "Ada"]\n', content_type=MEDIA_TYPE)
    assert refused.status_code == 422
    unread = client.get(f"/api/imports/{refused.get_json()['facts']['import_id']}/replay")
    assert unread.status_code == 409 and "not read" in unread.get_json()["detail"]


@pytest.mark.browser
def test_the_import_page_links_a_finding_to_the_replay_just_before_it(served: tuple[str, Any], tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tests.service.browsing import CHROMIUM_ARGS

    url, _ = served
    lines, line = planted(written_game())
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{url}/import")
            page.fill("#text", "\n".join(lines) + "\n")
            page.click("#send")
            expect(page.locator("#import-status")).to_have_text("rejected", timeout=20_000)
            finding = page.locator(f'#findings tbody tr[data-line="{line}"]').first
            link = finding.locator("a.replay-link")
            href = link.get_attribute("href") or ""
            step = int(href.rsplit("step=", 1)[1])
            link.click()
            page.wait_for_url(re.compile(r"/imports/[0-9a-f-]+/replay#"))
            expect(page.locator("body")).to_have_attribute("data-step", str(step), timeout=10_000)
            expect(page.locator("#banner")).to_contain_text(f"line {line} ")
            expect(page.locator("#banner")).to_contain_text("goes on with")
            expect(page.locator("#step")).to_have_text(str(step))
            assert page.locator("#board svg").count() == 1
            assert page.locator("#moves li").count() > 10
            page.click("#next")
            expect(page.locator("body")).to_have_attribute("data-step", str(step + 1))
            assert f"step={step + 1}" in page.url
            assert not errors, errors
        finally:
            browser.close()
