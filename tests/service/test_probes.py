"""The holes found by probing the service (issue 10, items 1-8 and 13's order of checks), each
reproduced as a user found it and checked at its cause."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from domain import catalog
from domain.kernel import Entry, Outcome
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import auth, play_out
from tests.service.test_api import wait_for_verdict


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[tuple[Any, Records]]:
    """The HTTP client and, behind it, the same records application (SQLite)."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "probe.sqlite3")}
    app = create_app(Settings.from_env(env))
    app.config["TESTING"] = True
    records = app.extensions["cronaca"].records
    yield app.test_client(), records
    close_app(app)


def finished_live(records: Records, title: str, seats: list[str], seed: str = "probe") -> tuple[uuid.UUID, list[str]]:
    record_id, tokens = records.play.start(title, seats)
    play_out(records, record_id, tokens, seed=seed)
    return record_id, tokens


def record_file(title: str, entries: list[Entry], seats: list[str], options: dict[str, Any],
                finished: bool = False) -> dict[str, Any]:
    """A transcribed record file of these entries, as a table would submit it."""
    edition = catalog.game(title).default_edition()
    return {"format": "cronaca-record", "version": 1, "title": title, "edition": edition.ref,
            "seats": [{"name": n} for n in seats], "options": options, "mode": "transcribed", "chance": {},
            "entries": [e.to_json() for e in entries], "finished": finished}


def impossible_draw(entries: list[Entry], after: int = 1) -> tuple[int, int, str]:
    """(entry, outcome) of a bag draw from a bag that is not the drawing seat's, and that bag's source."""
    for k, entry in enumerate(entries[after:], start=after):
        seat = (entry.command or {}).get("seat")
        for i, o in enumerate(entry.outcomes):
            if o.kind == "draw" and o.source.startswith("bag:") and o.source != f"bag:{seat}":
                return k, i, o.source
    for k, entry in enumerate(entries[after:], start=after):
        for i, o in enumerate(entry.outcomes):
            if o.kind == "draw" and o.source.startswith("bag:"):
                return k, i, o.source
    raise AssertionError("no bag draw in this game")


def with_outcome(entry: Entry, index: int, outcome: Outcome) -> Entry:
    outcomes = list(entry.outcomes)
    outcomes[index] = outcome
    return Entry(entry.command, tuple(outcomes), (), entry.options)


# ---- 1. secrets in a rule violation's facts ------------------------------------------------


def test_an_impossible_draw_shows_the_bag_size_never_its_contents(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    played = play_random(catalog.game("citta-stato"), catalog.game("citta-stato").default_edition(), {"players": 3}, "leak")
    k, i, source = impossible_draw(played.entries)
    seats = ["Ada", "Bruno", "Chiara"]
    record_id, tokens = records.play.start("citta-stato", seats, {"players": 3}, mode="transcribed",
                                      setup_outcomes=[o.to_json() for o in played.entries[0].outcomes])
    for entry in played.entries[1:k]:
        records.play.command(record_id, dict(entry.command or {}), tokens[entry.command["seat"]],
                     outcomes=[o.to_json() for o in entry.outcomes])
    cmd = played.entries[k].command
    assert cmd is not None
    bad = [o.to_json() for o in played.entries[k].outcomes]
    held = bad[i]["values"]
    bad[i] = {"kind": "draw", "source": source, "values": ["B"] * len(held) if "B" not in held else ["X"] * len(held)}
    answer = client.post(f"/api/records/{record_id}/commands", json={"command": cmd, "outcomes": bad},
                         headers=auth(tokens[cmd["seat"]]))
    body = answer.get_json()
    assert answer.status_code == 422 and body["rule"] == "chance/draw/not-there", body
    assert body["facts"]["held"]["hidden"] is True and isinstance(body["facts"]["held"]["count"], int)
    assert "values" not in json.dumps(body["facts"]["held"])
    # the bag's real contents (what the seat's view shows only as a count) appear nowhere in the answer
    state = records.timeline(record_id).head
    view = catalog.game("citta-stato").view(state, cmd["seat"])
    owner = int(source.split(":")[1])
    if owner != cmd["seat"]:
        assert isinstance(view["seats"][owner]["bag"], int)
        assert body["facts"]["held"]["count"] == view["seats"][owner]["bag"]


def test_an_in_progress_import_report_hides_a_bag_and_its_seat_token_opens_no_more(app_client: tuple[Any, Records]) -> None:
    client, _ = app_client
    game = catalog.game("citta-stato")
    played = play_random(game, game.default_edition(), {"players": 3}, "leak-import")
    k, i, source = impossible_draw(played.entries)
    entries = played.entries[: k + 1]
    values = entries[k].outcomes[i].values
    entries[k] = with_outcome(entries[k], i, Outcome("draw", source, ("X",) * len(values)))
    document = record_file("citta-stato", entries, ["Ada", "Bruno", "Chiara"], {"players": 3})
    submitted = client.post("/api/imports", json=document)
    assert submitted.status_code == 202, submitted.get_json()
    seat_tokens = [s["token"] for s in submitted.get_json()["seats"]]
    verdict = wait_for_verdict(client, submitted.get_json()["id"])
    report = verdict["report"]
    assert verdict["status"] == "rejected" and report["rule"] == "chance/draw/not-there" and report["entry_index"] == k
    assert report["facts"]["held"] == {"hidden": True, "count": report["facts"]["held"]["count"]}
    for token in seat_tokens:
        seen = client.get(f"/api/imports/{submitted.get_json()['id']}", headers=auth(token)).get_json()
        assert set(seen["report"]["facts"]["held"]) == {"hidden", "count"}
    stranger = client.get(f"/api/imports/{submitted.get_json()['id']}", headers=auth("not-a-seat"))
    assert stranger.status_code == 403


# ---- 2. and 4. a live record cut short; a file that claims more than its log ----------------


def test_a_cut_live_export_is_refused_while_it_claims_the_end_and_imported_transcribed_once_honest(
    app_client: tuple[Any, Records],
) -> None:
    client, records = app_client
    record_id, _ = finished_live(records, "toy", ["ann", "bob"])
    exported = records.reading.export(record_id).to_json()
    cut = copy.deepcopy(exported)
    cut["entries"] = cut["entries"][:-2]
    claims_the_end = client.post("/api/imports", json=cut)
    verdict = wait_for_verdict(client, claims_the_end.get_json()["id"])
    assert verdict["status"] == "rejected" and verdict["report"]["rule"] == "file/claims"
    assert "says the game is finished" in verdict["report"]["message"]
    honest = copy.deepcopy(cut)
    honest["finished"], honest["scores"] = False, None
    verdict = wait_for_verdict(client, client.post("/api/imports", json=honest).get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    summary = client.get(f"/api/records/{verdict['record_id']}").get_json()
    assert summary["mode"] == "transcribed" and not summary["finished"]
    assert summary["chance"]["seed"] is None and summary["chance"]["commitment"] is None
    assert "transcribed" in verdict["report"]["note"]


def test_a_file_whose_scores_disagree_with_its_log_is_refused_seat_by_seat(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, _ = finished_live(records, "toy", ["ann", "bob"])
    exported = records.reading.export(record_id).to_json()
    forged = copy.deepcopy(exported)
    seats = forged["scores"]["seats"]
    seats[0]["total"] += 3
    verdict = wait_for_verdict(client, client.post("/api/imports", json=forged).get_json()["id"])
    assert verdict["status"] == "rejected" and verdict["report"]["rule"] == "file/claims"
    differs = verdict["report"]["facts"]["seats"]
    assert [d["seat"] for d in differs] == [0] and differs[0]["claimed"] == differs[0]["computed"] + 3


# ---- 3. seats and players disagree ----------------------------------------------------------


def test_seats_and_players_that_disagree_are_refused_up_front(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    answer = client.post("/api/records", json={"title": "citta-stato", "seats": ["a", "b", "c"], "options": {"players": 4}})
    body = answer.get_json()
    assert answer.status_code == 422 and body["rule"] == "setup/seats"
    assert "4" in body["detail"] and "3" in body["detail"]
    before = client.get("/api/records").get_json()["total"]
    game = catalog.game("citta-stato")
    played = play_random(game, game.default_edition(), {"players": 3}, "two-seats")
    document = record_file("citta-stato", played.entries[:5], ["Ada", "Bruno"], {"players": 3})
    refused = client.post("/api/imports", json=document)
    assert refused.status_code == 422 and refused.get_json()["rule"] == "file/seats", refused.get_json()
    assert "3" in refused.get_json()["detail"] and "2 seats" in refused.get_json()["detail"]
    assert client.get("/api/records").get_json()["total"] == before


# ---- 5. tokens that open no seat are refused everywhere ----------------------------------------


def test_a_token_of_no_seat_is_refused_on_every_record_endpoint(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, tokens = finished_live(records, "toy", ["ann", "bob"])
    stranger = auth("a-token-of-nobody")
    for path in ["", "/events", "/turns", "/legal", "/steps/1", "/export"]:
        answer = client.get(f"/api/records/{record_id}{path}", headers=stranger)
        assert answer.status_code == 403, (path, answer.status_code)
        assert client.get(f"/api/records/{record_id}{path}", headers=auth(tokens[0])).status_code == 200, path


# ---- 6. a live command's outcomes are refused -------------------------------------------------


def test_outcomes_sent_to_a_live_record_are_refused(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    version = records.reading.summary(record_id).version
    answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                         json={"command": {"type": "toy/roll", "seat": 0},
                               "outcomes": [{"kind": "roll", "source": "die", "values": [6]}]})
    assert answer.status_code == 422 and answer.get_json()["rule"] == "command/live-outcomes"
    assert records.reading.summary(record_id).version == version


# ---- 7. a draw changed to another possible one, in a live record with its seed revealed -------


@pytest.mark.parametrize("title,seats", [("citta-stato", ["Ada", "Bruno", "Chiara"]), ("serenissima", ["Ada", "Bruno"])])
def test_a_changed_draw_is_reported_at_the_entry_where_it_was_changed(app_client: tuple[Any, Records], title: str,
                                                                       seats: list[str]) -> None:
    client, records = app_client
    record_id, _ = finished_live(records, title, seats, seed="swap")
    exported = records.reading.export(record_id).to_json()
    changed_at = None
    for k, entry in enumerate(exported["entries"][1:], start=1):
        for o in entry["outcomes"]:
            values = o["values"]
            if k <= len(exported["entries"]) // 3:
                continue
            if o["kind"] in ("draw", "shuffle") and len(set(map(str, values))) > 1:
                j = next(j for j in range(len(values)) if values[j] != values[0])
                values[0], values[j] = values[j], values[0]  # the same items, another order: still possible
            elif o["kind"] == "draw" and len(values) == 1:
                later = [v for e in exported["entries"][k + 1 :] for x in e["outcomes"]
                         if x["source"] == o["source"] for v in x["values"] if v != values[0]]
                if not later:
                    continue
                values[0] = later[0]  # a card that was still in the deck: a possible draw, not the one played
            elif o["kind"] == "roll":
                values[0] = values[0] % 6 + 1  # another face of the same die: still possible
            else:
                continue
            entry["events"] = []  # the transcriber rewrote the line; events are filled in by the rules
            changed_at = k
            break
        if changed_at is not None:
            break
    assert changed_at is not None
    verdict = wait_for_verdict(client, client.post("/api/imports", json=exported).get_json()["id"], timeout=60)
    report = verdict["report"]
    assert verdict["status"] == "rejected" and report["rule"] == "chance/not-from-seed", report
    assert report["entry_index"] == changed_at
    assert "the revealed seed gives" in report["message"] and "the log says" in report["message"]


# ---- 8. a mismatch names the field and both values ----------------------------------------------


def test_an_event_mismatch_names_the_field_and_both_values(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, _ = finished_live(records, "toy", ["ann", "bob"])
    forged = records.reading.export(record_id).to_json()
    entry = next(e for e in forged["entries"][1:] if e["events"] and e["events"][0]["data"])
    event = entry["events"][0]
    field, value = next((k, v) for k, v in event["data"].items() if isinstance(v, int) and k != "seat")
    event["data"][field] = value + 100
    verdict = wait_for_verdict(client, client.post("/api/imports", json=forged).get_json()["id"])
    report = verdict["report"]
    assert report["rule"] == "log/event-mismatch"
    assert f"data.{field}" in report["message"] and str(value + 100) in report["message"] and str(value) in report["message"]
    log_side, rules_side = report["message"].split("the rules give")
    assert str(value + 100) in log_side and rules_side.strip() == str(value)


# ---- 13. who may act is checked before what state they act on -----------------------------------


def test_a_stranger_with_a_stale_version_learns_nothing_of_the_version(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    stale = client.post(f"/api/records/{record_id}/commands", headers=auth("nobody"),
                        json={"command": {"type": "toy/roll", "seat": 0}, "version": 1})
    assert stale.status_code == 403 and "version" not in json.dumps(stale.get_json()["facts"])
    anonymous = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 0}, "version": 1})
    assert anonymous.status_code == 401
    mine = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]),
                       json={"command": {"type": "toy/roll", "seat": 0}, "version": 1})
    assert mine.status_code == 409 and mine.get_json()["facts"]["version"] == records.reading.summary(record_id).version


# ---- beyond: counts and claims that must agree --------------------------------------------------


def test_setup_outcomes_for_a_live_record_and_a_seed_in_a_transcribed_file_are_refused(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    answer = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"],
                                               "setup_outcomes": [{"kind": "roll", "source": "die", "values": [6]}]})
    assert answer.status_code == 422 and answer.get_json()["rule"] == "setup/live-outcomes"
    record_id, _ = finished_live(records, "toy", ["ann", "bob"])
    document = records.reading.export(record_id).to_json()
    document["mode"] = "transcribed"
    refused = client.post("/api/imports", json=document)
    assert refused.status_code == 422 and refused.get_json()["rule"] == "file/chance"
