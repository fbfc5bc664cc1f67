"""Shared dice (issue 15, parts 2 and 3): a game whose chance every seat contributes to, played through the
API to its end, its seats' reveals, its outcomes recomputed by a script written from docs/trust.md alone,
and every bad input refused with nothing stored."""

from __future__ import annotations

import copy
import hashlib
import hmac
import secrets
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from domain.records import dice
from tests.kernel import toy_game
from tests.service import browsing, trust_recompute
from tests.service.browsing import served_app
from tests.service.helpers import auth

NAMES = ["Ada", "Ben", "Cleo"]


def commit(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def part(secret: str, k: int) -> str:  # written from docs/trust.md, not from dice.py
    return hmac.new(secret.encode(), f"cronaca/entry/{k}".encode(), hashlib.sha256).hexdigest()


def start(client: Any, seats: list[str], **extra: Any) -> tuple[str, list[str]]:
    answer = client.post("/api/records", json={"title": "toy", "seats": seats, **extra})
    assert answer.status_code == 201, answer.get_json()
    body = answer.get_json()
    return body["id"], [s["token"] for s in body["seats"]]


def join_all(client: Any, record_id: str, tokens: list[str], secrets_: list[str]) -> list[dict[str, Any]]:
    answers = []
    for seat, (token, secret) in enumerate(zip(tokens, secrets_, strict=True)):
        answer = client.post(f"/api/records/{record_id}/seats/{seat}/join", headers=auth(token),
                             json={"commitment": commit(secret), "contribution": part(secret, 0)})
        assert answer.status_code == 200, answer.get_json()
        answers.append(answer.get_json())
    return answers


def play_to_end(client: Any, record_id: str, tokens: list[str], secrets_: list[str],
                forged: tuple[int, str] | None = None) -> int:
    """Roll or draw, alternately per entry, each command with its seat's contribution; `forged` = (entry, hex)
    sends that value instead at that entry. Returns the number of the last entry."""
    k = 1
    pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
    while True:
        seat = pending["seat"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        commands = legal["commands"]
        assert legal["entry"] == k  # the service says which entry the command becomes
        cmd = commands[k % len(commands)]
        given = forged[1] if forged and forged[0] == k else part(secrets_[seat], k)
        answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[seat]),
                             json={"command": cmd, "version": legal["version"], "contribution": given})
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        if body["finished"]:
            return k
        pending = body["pending"]
        k += 1
        assert k < 200, "the toy game did not end"


@pytest.fixture
def shared(client: Any) -> dict[str, Any]:
    """A 3-seat toy game with shared dice, joined, played to its end, not yet revealed."""
    record_id, tokens = start(client, NAMES, dice="shared")
    secrets_ = [secrets.token_hex(16) for _ in NAMES]
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["steps"] == 0 and summary["chance"]["waiting"] == [0, 1, 2]
    # until every seat has joined, a command is refused and names who has not joined
    early = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                        json={"command": {"type": "toy/roll", "seat": 0}, "contribution": part(secrets_[0], 1)})
    assert early.status_code == 409
    assert "Ada" in early.get_json()["detail"] and "Cleo" in early.get_json()["detail"]
    answers = join_all(client, record_id, tokens, secrets_)
    assert [a["started"] for a in answers] == [False, False, True]
    assert answers[0]["waiting"] == [1, 2] and answers[2]["waiting"] == []
    last = play_to_end(client, record_id, tokens, secrets_)
    return {"client": client, "id": record_id, "tokens": tokens, "secrets": secrets_, "last": last}


def verdict(client: Any, location: str) -> dict[str, Any]:
    """An import's status once it is decided (the embedded queue judges it in the background)."""
    deadline = time.time() + 20
    while time.time() < deadline:
        status: dict[str, Any] = client.get(location).get_json()
        if status["status"] in ("accepted", "rejected"):
            return status
        time.sleep(0.05)
    raise AssertionError(f"import {location} still {status['status']}")


def reveal(client: Any, record_id: str, seat: int, token: str, secret: str) -> Any:
    return client.post(f"/api/records/{record_id}/seats/{seat}/reveal", headers=auth(token), json={"secret": secret})


def test_a_shared_dice_game_is_recomputed_from_its_file_alone(shared: dict[str, Any]) -> None:
    client, record_id, tokens, secrets_ = shared["client"], shared["id"], shared["tokens"], shared["secrets"]
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["finished"] and summary["chance"]["dice"] == "shared"
    assert [s["status"] for s in summary["chance"]["seats"]] == ["joined"] * 3
    for seat, (token, secret) in enumerate(zip(tokens, secrets_, strict=True)):
        answer = reveal(client, record_id, seat, token, secret)
        assert answer.status_code == 200, answer.get_json()
        assert answer.get_json()["problems"] == []
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert [s["status"] for s in summary["chance"]["seats"]] == ["revealed"] * 3
    verified = client.get(f"/api/records/{record_id}/verify").get_json()  # the joins and reveals sit beside the chain
    assert verified["ok"] and verified["replay"]["ok"], verified
    document = client.get(f"/api/records/{record_id}/export").get_json()
    chance = document["chance"]
    assert chance["dice"] == "shared" and [s["secret"] for s in chance["seats"]] == secrets_
    assert len(document["entries"]) == shared["last"] + 1
    # entry 0 has every seat's contribution, each command its own seat's only
    assert all("0" in s["contributions"] for s in chance["seats"])
    assert sum(len(s["contributions"]) for s in chance["seats"]) == 3 + shared["last"]
    outcomes = [o for e in document["entries"] for o in e["outcomes"]]
    assert outcomes and {o["by"] for o in outcomes} == {"service"}
    assert dice.check_reveals(chance) == []
    # the stranger's script, from docs/trust.md alone
    assert trust_recompute.recompute(copy.deepcopy(document), toy_game.GAME) == []
    # ...and it can fail: one changed die is found at its entry
    tampered = copy.deepcopy(document)
    k, o = next((k, o) for k, e in enumerate(tampered["entries"]) for o in e["outcomes"] if o["kind"] == "roll")
    o["values"] = [o["values"][0] % 6 + 1]
    found = trust_recompute.recompute(tampered, toy_game.GAME)
    assert found and found[0].startswith(f"entry {k}:")
    # the outcomes truly depend on the seats: the service's seed alone gives other draws
    alone = copy.deepcopy(document)
    for s in alone["chance"]["seats"]:
        s["contributions"] = {key: part("someone else", int(key)) for key in s["contributions"]}
        s["secret"] = "someone else"
        s["commitment"] = commit("someone else")
    assert any("outcomes are not those" in p for p in trust_recompute.recompute(alone, toy_game.GAME))
    # an import of the file checks the same derivation, and gives the same file back
    imported = client.post("/api/imports", json=document)
    assert imported.status_code in (201, 202), imported.get_json()
    status = verdict(client, imported.headers["Location"])
    assert status["status"] == "accepted", status
    again = client.get(f"/api/records/{status['record_id']}/export").get_json()
    assert again["entries"] == document["entries"] and again["chance"]["seats"] == chance["seats"]
    changed = copy.deepcopy(document)
    changed["chance"]["seats"][1]["contributions"]["0"] = "0" * 64
    refused = client.post("/api/imports", json=changed)
    report = verdict(client, refused.headers["Location"])
    assert report["status"] == "rejected" and report["report"]["rule"] == "dice/contribution"


def test_bad_reveals_are_refused_and_nothing_is_stored(shared: dict[str, Any]) -> None:
    client, record_id, tokens, secrets_ = shared["client"], shared["id"], shared["tokens"], shared["secrets"]
    version = client.get(f"/api/records/{record_id}").get_json()["version"]
    wrong = reveal(client, record_id, 0, tokens[0], "not the secret")
    assert wrong.status_code == 422 and wrong.get_json()["rule"] == "dice/secret" and "seat 0" in wrong.get_json()["detail"]
    other = reveal(client, record_id, 1, tokens[0], secrets_[1])
    assert other.status_code == 403 and "seat 1" in other.get_json()["detail"]
    none = client.post(f"/api/records/{record_id}/seats/1/reveal", json={"secret": secrets_[1]})
    assert none.status_code == 401
    assert client.get(f"/api/records/{record_id}").get_json()["version"] == version  # nothing stored
    assert reveal(client, record_id, 0, tokens[0], secrets_[0]).status_code == 200
    second = reveal(client, record_id, 0, tokens[0], secrets_[0])
    assert second.status_code == 409 and second.get_json()["rule"] == "dice/revealed"
    assert client.get(f"/api/records/{record_id}").get_json()["version"] == version + 1
    # a seat that never reveals is marked unverifiable once the deadline passes
    records = client.application.extensions["cronaca"].records
    records.reveal_hours = 0
    try:
        summary = client.get(f"/api/records/{record_id}").get_json()
        assert summary["chance"]["unverifiable"] == [1, 2]
        document = client.get(f"/api/records/{record_id}/export").get_json()
        assert [s.get("unverifiable", False) for s in document["chance"]["seats"]] == [False, True, True]
        assert {p["rule"] for p in dice.check_reveals(document["chance"])} == {"dice/unrevealed"}
    finally:
        records.reveal_hours = 72.0


def test_a_forged_contribution_is_named_at_its_entry(client: Any) -> None:
    record_id, tokens = start(client, NAMES[:2], dice="shared")
    secrets_ = ["ada's secret " + secrets.token_hex(8), "ben's secret " + secrets.token_hex(8)]
    join_all(client, record_id, tokens, secrets_)
    last = play_to_end(client, record_id, tokens, secrets_, forged=(2, "ab" * 32))
    assert last >= 2
    answers = [reveal(client, record_id, s, tokens[s], secrets_[s]).get_json() for s in (0, 1)]
    assert answers[0]["problems"] == []
    assert [(p["entry"], p["rule"]) for p in answers[1]["problems"]] == [(2, "dice/contribution")]  # seat 1 acts at entry 2
    document = client.get(f"/api/records/{record_id}/export").get_json()
    assert [(p["seat"], p["entry"]) for p in dice.check_reveals(document["chance"])] == [(1, 2)]
    assert trust_recompute.recompute(document, toy_game.GAME) == ["seat 1: the contribution for entry 2 is not the secret's"]


def test_bad_joins_and_commands(client: Any) -> None:
    record_id, tokens = start(client, NAMES[:2], dice="shared")
    secret = "s" * 32
    url = f"/api/records/{record_id}/seats"
    other = client.post(f"{url}/1/join", headers=auth(tokens[0]), json={"commitment": commit(secret), "contribution": part(secret, 0)})
    assert other.status_code == 403
    bad = client.post(f"{url}/0/join", headers=auth(tokens[0]), json={"commitment": "abc", "contribution": part(secret, 0)})
    assert bad.status_code == 422 and bad.get_json()["rule"] == "dice/commitment"
    assert client.get(f"/api/records/{record_id}").get_json()["chance"]["waiting"] == [0, 1]
    legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[0])).get_json()
    assert legal["pending"]["kind"] == "waiting" and legal["commands"] == [] and legal["waiting"] == [0, 1]
    for path in ("story", "turns", "steps/0", "events"):  # a waiting record reads as an empty one
        assert client.get(f"/api/records/{record_id}/{path}").status_code == 200, path
    ok = client.post(f"{url}/0/join", headers=auth(tokens[0]), json={"commitment": commit(secret), "contribution": part(secret, 0)})
    assert ok.status_code == 200
    twice = client.post(f"{url}/0/join", headers=auth(tokens[0]), json={"commitment": commit("x"), "contribution": part("x", 0)})
    assert twice.status_code == 409 and twice.get_json()["rule"] == "dice/joined"
    waiting = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                          json={"command": {"type": "toy/roll", "seat": 0}, "contribution": part(secret, 1)})
    assert waiting.status_code == 409 and "Ben" in waiting.get_json()["detail"] and "Ada" not in waiting.get_json()["detail"]
    early = client.post(f"{url}/0/reveal", headers=auth(tokens[0]), json={"secret": secret})
    assert early.status_code == 409 and early.get_json()["rule"] == "dice/too-early"
    client.post(f"{url}/1/join", headers=auth(tokens[1]), json={"commitment": commit("b" * 32), "contribution": part("b" * 32, 0)})
    version = client.get(f"/api/records/{record_id}").get_json()["version"]
    missing = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]), json={"command": {"type": "toy/roll", "seat": 0}})
    assert missing.status_code == 422 and missing.get_json()["rule"] == "dice/contribution-missing"
    malformed = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                            json={"command": {"type": "toy/roll", "seat": 0}, "contribution": "zz"})
    assert malformed.status_code == 422 and malformed.get_json()["rule"] == "dice/contribution"
    assert client.get(f"/api/records/{record_id}").get_json()["version"] == version
    # shared dice are for live records; a record without them takes no contribution and no join
    transcribed = client.post("/api/records", json={"title": "toy", "seats": NAMES[:2], "mode": "transcribed", "dice": "shared"})
    assert transcribed.status_code == 422 and transcribed.get_json()["rule"] == "setup/dice"
    plain_id, plain = start(client, NAMES[:2])
    stray = client.post(f"/api/records/{plain_id}/commands", headers=auth(plain[0]),
                        json={"command": {"type": "toy/roll", "seat": 0}, "contribution": part(secret, 1)})
    assert stray.status_code == 422 and stray.get_json()["rule"] == "dice/not-shared"
    no_join = client.post(f"/api/records/{plain_id}/seats/0/join", headers=auth(plain[0]),
                          json={"commitment": commit(secret), "contribution": part(secret, 0)})
    assert no_join.status_code == 409 and no_join.get_json()["rule"] == "dice/not-shared"


def test_outcomes_say_who_they_come_from(client: Any) -> None:
    """A live record's outcomes are the service's; a transcribed record's, the transcriber's."""
    record_id, tokens = start(client, NAMES[:2], mode="transcribed")
    for seat, face in ((0, 6), (1, 6)):
        answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[seat]),
                             json={"command": {"type": "toy/roll", "seat": seat},
                                   "outcomes": [{"kind": "roll", "source": "die", "values": [face]}]})
        assert answer.status_code == 200, answer.get_json()
    client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                json={"command": {"type": "toy/roll", "seat": 0}, "outcomes": [{"kind": "roll", "source": "die", "values": [6]}]})
    document = client.get(f"/api/records/{record_id}/export").get_json()
    assert {o["by"] for e in document["entries"] for o in e["outcomes"]} == {"transcriber"}
    steps = client.get(f"/api/records/{record_id}/story").get_json()
    assert {line.get("by") for line in steps["lines"] if line.get("by")} == {"transcriber"}
    assert client.get(f"/api/records/{record_id}/steps/2").get_json()["by"] == "transcriber"  # a roll
    assert "by" not in client.get(f"/api/records/{record_id}/steps/1").get_json()  # the setup met no chance
    live_id, live = start(client, NAMES[:2])
    client.post(f"/api/records/{live_id}/commands", headers=auth(live[0]), json={"command": {"type": "toy/roll", "seat": 0}})
    assert client.get(f"/api/records/{live_id}/steps/2", headers=auth(live[0])).get_json()["by"] == "service"
    # the dispute report: an impossible outcome in a transcript is the transcriber's word
    from domain import transcripts

    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True).replace("roll [6]", "roll [9]", 1)
    findings = [f for f in transcripts.check_text(text).to_json()["findings"] if f["kind"] == "chance"]
    assert findings and {f["by"] for f in findings} == {"transcriber"}


browser, page = browsing.browser, browsing.page  # fixtures, used by name


@pytest.mark.browser
def test_the_move_list_marks_drawn_and_asserted_outcomes(tmp_path: Any, page: Any) -> None:
    """The record page: a small mark on each move-list line whose chance was drawn by the service (⚄), or asserted
    by a transcriber (✎)."""
    with served_app(tmp_path) as (base, app):
        client = app.test_client()
        shared_id, tokens = start(client, NAMES[:2], dice="shared")
        secrets_ = ["a" * 32, "b" * 32]
        join_all(client, shared_id, tokens, secrets_)
        play_to_end(client, shared_id, tokens, secrets_)
        told_id, told = start(client, NAMES[:2], mode="transcribed")
        for seat in (0, 1, 0):
            client.post(f"/api/records/{told_id}/commands", headers=auth(told[seat]),
                        json={"command": {"type": "toy/roll", "seat": seat},
                              "outcomes": [{"kind": "roll", "source": "die", "values": [6]}]})
        for record_id, mine, other in ((shared_id, "service", "transcriber"), (told_id, "transcriber", "service")):
            lines = client.get(f"/api/records/{record_id}/story").get_json()["lines"]
            marked = sum(1 for line in lines if line.get("by") == mine)
            assert marked > 0
            page.goto(f"{base}/records/{record_id}#step=1")
            expect(page.locator(f"#moves li .by-{mine}")).to_have_count(marked)
            expect(page.locator(f"#moves li .by-{other}")).to_have_count(0)
            title = page.locator(f"#moves li .by-{mine}").first.get_attribute("title") or ""
            assert ("drawn by the service" if mine == "service" else "asserted by the transcriber") in title


def test_a_real_title_with_a_shared_setup_recomputes(tmp_path: Any) -> None:
    """La Città draws its setup (the politics deck) and many outcomes after it: all from every seat's secret."""
    from domain import catalog
    from domain.kernel import SeededChance
    from domain.records import Records
    from domain.records.settings import Settings

    records = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}).store)
    try:
        record_id, tokens = records.play.start("la-citta", ["Ada", "Ben"], {}, dice_mode="shared")
        secrets_ = [secrets.token_hex(16), secrets.token_hex(16)]
        for seat in (0, 1):
            records.play.join(record_id, seat, tokens[seat], commit(secrets_[seat]), part(secrets_[seat], 0))
        players, k = SeededChance("players"), 1
        while not (timeline := records.timeline(record_id)).game.pending(timeline.head).over:
            choices = timeline.game.legal(timeline.head)
            cmd = choices[players.below(len(choices))]
            records.play.command(record_id, cmd.to_json(), tokens[cmd.seat], contribution=part(secrets_[cmd.seat], k))
            k += 1
        for seat in (0, 1):
            assert records.play.reveal_secret(record_id, seat, tokens[seat], secrets_[seat]).problems == []
        document = records.reading.export(record_id).to_json()
        assert document["entries"][0]["outcomes"], "La Città's setup draws"
        game = catalog.game("la-citta")
        assert trust_recompute.recompute(copy.deepcopy(document), game) == []
        # one seat's setup contribution changed (and its commitment forged to fit): the setup's draw is found
        forged = copy.deepcopy(document)
        forged["chance"]["seats"][0].update(secret="forged", commitment=commit("forged"),
                                            contributions={key: part("forged", int(key)) for key in
                                                           forged["chance"]["seats"][0]["contributions"]})
        assert trust_recompute.recompute(forged, game)[0].startswith("entry 0:")
    finally:
        records.close()
