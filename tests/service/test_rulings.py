"""Rulings on the record (issue 15, part 4): the arbiter key records a ruling, a correction is decided by the
rules as a variation is, and the record reads "as played" and "as ruled", both replayable and both exported.

The HTTP tests run on SQLite and on the real PostgreSQL (`client`, `records`); the records are short toy games
played to the end through the API, or a random Città-Stato game (a board to draw) imported once per store.
Every refusal is checked to store nothing; a ruling changed with SQL in the store is found by its chain.
The page test drives the record page's "as ruled" switch in real Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any
from uuid import UUID

import pytest
from playwright.sync_api import expect

from domain import catalog
from domain.kernel import Entry, SeededChance, fold, play
from domain.kernel.selfplay import PlayedGame, play_random
from domain.records import Records, evidence, recordfile
from domain.records.chain import chain_of, stream_item
from domain.records.errors import Conflict, Forbidden, Invalid, Unauthorized
from domain.records.rulings import Arbitration, rulings_id, verify
from tests.service import browsing
from tests.service.browsing import served_app
from tests.service.helpers import auth, play_out, play_out_http
from tests.service.test_api import wait_for_verdict
from tests.service.test_teaching_api import problem

NAMES = ["Ada", "Ben"]
BOARD_TITLE = "citta-stato"


def new_record(client: Any, finish: bool = True) -> dict[str, Any]:
    """A toy record started over HTTP (and played to its end): the answer to POST /api/records, with "tokens"."""
    answer = client.post("/api/records", json={"title": "toy", "seats": NAMES})
    assert answer.status_code == 201, answer.get_json()
    made = answer.get_json()
    made["tokens"] = [s["token"] for s in made["seats"]]
    if finish:
        play_out_http(client, made["id"], made["tokens"])
    return made  # type: ignore[no-any-return]


def rulings(client: Any, record_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/records/{record_id}/rulings")
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()  # type: ignore[no-any-return]


def roll(seat: int, face: int) -> dict[str, Any]:
    """A toy log entry: `seat` rolls the die and it shows `face`."""
    return {"command": {"type": "toy/roll", "seat": seat}, "outcomes": [{"kind": "roll", "source": "die", "values": [face]}]}


def view_at(client: Any, record_id: str, n: int, reading: str = "steps") -> dict[str, Any]:
    path = f"/api/records/{record_id}/{'ruled/steps' if reading == 'ruled' else 'steps'}/{n}"
    answer = client.get(path)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()  # type: ignore[no-any-return]


# ---- recording and reading rulings ---------------------------------------------------------------


def test_the_arbiter_rules_and_everyone_reads_the_rulings_in_the_export_too(client: Any) -> None:
    made = new_record(client)
    other = new_record(client, finish=False)
    record_id, key = made["id"], made["arbiter_key"]
    base = f"/api/records/{record_id}/rulings"
    body = {"step": 3, "decision": "The roll stands", "reason": "Both players saw the die; the table agreed."}
    assert rulings(client, record_id)["rulings"] == [] and rulings(client, record_id)["chain"]["length"] == 0

    # who may rule: the arbiter key, and no other
    problem(client.post(base, json=body), 401)
    assert client.post(base, json=body).headers["WWW-Authenticate"].startswith("Bearer")
    problem(client.post(base, json=body, headers=auth(made["annotator_key"])), 403)
    problem(client.post(base, json=body, headers=auth(made["tokens"][0])), 403)
    problem(client.post(base, json=body, headers=auth(other["arbiter_key"])), 403)
    problem(client.post(base, json=body, headers=auth("not-a-key")), 403)
    assert rulings(client, record_id)["rulings"] == []

    answer = client.post(base, json=body, headers=auth(key))
    assert answer.status_code == 201, answer.get_json()
    ruling = answer.get_json()
    assert ruling["id"].startswith("r-") and ruling["by"] == "arbiter" and ruling["at"]
    assert {k: ruling[k] for k in ("step", "line", "decision", "reason", "correction")} == {**body, "line": None,
                                                                                         "correction": None}
    assert answer.headers["Location"] == f"{base}/{ruling['id']}"
    assert client.get(answer.headers["Location"]).get_json() == ruling
    problem(client.get(f"{base}/r-000000000000"), 404)

    # a ruling about a line of the notation
    lines = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True).splitlines()
    by_line = client.post(base, json={"line": len(lines), "decision": "Void", "reason": "written twice"}, headers=auth(key))
    assert by_line.status_code == 201, by_line.get_json()
    assert by_line.get_json()["line"] == len(lines) and by_line.get_json()["step"] is None

    listed = rulings(client, record_id)
    assert [r["id"] for r in listed["rulings"]] == [ruling["id"], by_line.get_json()["id"]]
    assert listed["as_ruled"] is None  # nothing corrects the record
    assert listed["chain"]["length"] == 3 and len(listed["chain"]["head"]) == 64  # Opened and two rulings

    exported = client.get(f"/api/records/{record_id}/export").get_json()
    assert exported["rulings"] == listed["rulings"]
    # anyone holding the file and the stream's chain key (revealed in the evidence once the game is over) recomputes
    # the rulings stream's head: its opening (with the key's commitment), then one item per ruling
    key = json.loads(evidence.unpack(client.get(f"/api/records/{record_id}/evidence").data)["rulings.json"])["key"]
    items = [stream_item("Opened", 1, {"record_id": record_id, "chain_key": key}),
             *(stream_item("Ruled", k + 2, {"ruling": r}) for k, r in enumerate(exported["rulings"]))]
    assert chain_of(items, key=key)[-1] == listed["chain"]["head"]
    assert chain_of(items)[-1] != listed["chain"]["head"]  # without the key, no link is recomputed
    # the file still imports as it did (the rulings are the arbiter's, not the game's)
    reimport = client.post("/api/imports", json=exported)
    assert wait_for_verdict(client, reimport.get_json()["id"])["status"] == "accepted"

    # with no correction, "as ruled" reads as played
    summary = client.get(f"/api/records/{record_id}/ruled").get_json()
    assert summary["corrected"] is False and summary["ruling"] is None and summary["rulings"] == 2
    assert summary["steps"] == summary["as_played"]["steps"] == sum(len(e["events"]) for e in exported["entries"])
    for n in (0, 4, summary["steps"]):
        assert view_at(client, record_id, n, "ruled")["view"] == view_at(client, record_id, n)["view"]


def test_a_correction_is_decided_by_the_rules_and_the_record_reads_as_ruled(client: Any) -> None:
    made = new_record(client)
    record_id, key = made["id"], made["arbiter_key"]
    played = client.get(f"/api/records/{record_id}").get_json()
    at = 3  # toy: one event an entry, so every step from 1 is a decision point
    before = view_at(client, record_id, at)
    seat = before["pending"]["seat"]
    correction = {"from_step": at, "entries": [roll(seat, 6), roll(1 - seat, 5)]}
    answer = client.post(f"/api/records/{record_id}/rulings", headers=auth(key),
                         json={"decision": "Replay from step 3", "reason": "the die was cocked", "correction": correction})
    assert answer.status_code == 201, answer.get_json()
    ruling = answer.get_json()
    assert ruling["step"] == at  # the step defaults to where the correction starts
    stored = ruling["correction"]
    assert stored["from_step"] == at
    # the events are the rules' own, filled in
    assert [e["events"] for e in stored["entries"]] == [[{"type": "toy/rolled", "data": {"seat": seat, "face": 6}}],
                                                         [{"type": "toy/rolled", "data": {"seat": 1 - seat, "face": 5}}]]

    # as played: the record is untouched, and the correction is no what-if line of it
    assert client.get(f"/api/records/{record_id}/variations").get_json()["variations"] == []
    again = client.get(f"/api/records/{record_id}").get_json()
    assert (again["version"], again["steps"], again["scores"]) == (played["version"], played["steps"], played["scores"])

    # as ruled: the main line to step 3, then the correction
    summary = client.get(f"/api/records/{record_id}/ruled").get_json()
    assert summary["corrected"] is True and summary["ruling"] == ruling["id"] and summary["from_step"] == at
    assert summary["steps"] == at + 2 and summary["moves"] == 2 and summary["finished"] is False
    assert summary["as_played"] == {"steps": played["steps"], "finished": True, "scores": played["scores"]}
    for n in range(at + 1):
        assert view_at(client, record_id, n, "ruled")["view"] == view_at(client, record_id, n)["view"]
    points = list(before["view"]["points"])
    points[seat] += 6
    first = view_at(client, record_id, at + 1, "ruled")
    assert first["view"]["points"] == points and first["event"] == "toy/rolled" and first["ruling"] == ruling["id"]
    points[1 - seat] += 5
    last = view_at(client, record_id, at + 2, "ruled")
    assert last["view"]["points"] == points and last["steps"] == at + 2
    assert [s["total"] for s in summary["scores"]["seats"]] == points
    problem(client.get(f"/api/records/{record_id}/ruled/steps/{at + 3}"), 404)
    told = client.get(f"/api/records/{record_id}/ruled/story").get_json()
    assert [line["step"] for line in told["lines"]] == [at + 1, at + 2]
    assert [line.get("by") for line in told["lines"]] == ["transcriber"] * 2  # rolls the arbiter gives: a person's word

    # a later correction is the reading; a ruling without one leaves it
    later = client.post(f"/api/records/{record_id}/rulings", headers=auth(key),
                        json={"decision": "Only the first roll is replayed", "reason": "appeal",
                              "correction": {"from_step": at, "entries": [roll(seat, 2)]}})
    assert later.status_code == 201, later.get_json()
    plain = client.post(f"/api/records/{record_id}/rulings", headers=auth(key),
                        json={"step": 1, "decision": "noted", "reason": "no change"})
    assert plain.status_code == 201
    summary = client.get(f"/api/records/{record_id}/ruled").get_json()
    assert summary["ruling"] == later.get_json()["id"] and summary["steps"] == at + 1
    assert rulings(client, record_id)["as_ruled"] == later.get_json()["id"]
    assert view_at(client, record_id, at + 1, "ruled")["view"]["points"][seat] == before["view"]["points"][seat] + 2

    # both readings in the export: the corrections with their entries
    exported = client.get(f"/api/records/{record_id}/export").get_json()
    assert [r["correction"] for r in exported["rulings"]] == [stored, later.get_json()["correction"], None]
    assert exported["entries"] == client.get(f"/api/records/{record_id}/export").get_json()["entries"]


def test_bad_rulings_are_refused_with_a_reason_and_nothing_is_stored(client: Any) -> None:
    made = new_record(client)
    record_id, key = made["id"], made["arbiter_key"]
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    base = f"/api/records/{record_id}/rulings"
    good = {"step": 1, "decision": "stands", "reason": "fine"}
    seat = view_at(client, record_id, 2)["pending"]["seat"]

    def refused(body: Any, status: int, rule: str | None) -> dict[str, Any]:
        return problem(client.post(base, json=body, headers=auth(key)), status, rule)

    found = refused({**good, "step": steps + 1}, 422, "ruling/step")
    assert str(steps) in found["detail"]
    refused({**good, "step": -1}, 422, "ruling/step")
    refused({**good, "step": "one"}, 422, "ruling/step")
    refused({**good, "step": None, "line": 0}, 422, "ruling/line")
    refused({**good, "step": None, "line": 100_000}, 422, "ruling/line")
    refused({"step": 1, "reason": "no decision"}, 422, "ruling/decision")
    refused({"step": 1, "decision": "no reason", "reason": "  "}, 422, "ruling/reason")
    refused({**good, "reason": "x" * 8_001}, 422, "ruling/reason")
    refused({"decision": "about nothing", "reason": "?"}, 422, "ruling/about")
    refused({**good, "colour": "red"}, 422, "ruling/field")
    refused([good], 422, "ruling/field")
    # corrections the rules refuse: the game's own rule, the entry named
    wrong_seat = refused({**good, "correction": {"from_step": 2, "entries": [roll(1 - seat, 6)]}}, 422, "toy/turn")
    assert "correction entry 0" in wrong_seat["detail"] and wrong_seat["facts"]["entry"] == 0
    later = refused({**good, "correction": {"from_step": 2, "entries": [roll(seat, 6), roll(seat, 6)]}}, 422, "toy/turn")
    assert "correction entry 1" in later["detail"]
    refused({**good, "correction": {"from_step": 2, "entries": [{"command": {"type": "toy/fly", "seat": seat}}]}}, 422,
            "command/malformed")
    refused({**good, "correction": {"from_step": 2, "entries": [
        {**roll(seat, 6), "outcomes": [{"kind": "roll", "source": "die", "values": [6]}] * 2}]}}, 422, "chance/unused-outcome")
    refused({**good, "correction": {"from_step": 2, "entries": [{**roll(seat, 6), "chance": "drawn"}]}}, 422, "ruling/chance")
    refused({**good, "correction": {"from_step": 2, "entries": [
        {**roll(seat, 6), "events": [{"type": "toy/rolled", "data": {"seat": seat, "face": 5}}]}]}}, 422, "log/event-mismatch")
    # a correction from a step that does not exist, or that is no decision point
    beyond = refused({**good, "correction": {"from_step": steps + 5, "entries": []}}, 422, "ruling/from-step")
    assert "from_step" in beyond["detail"]
    refused({**good, "correction": {"from_step": 0, "entries": [roll(0, 6)]}}, 422, "ruling/from-step")
    refused({**good, "correction": {"from_step": "two", "entries": []}}, 422, "ruling/from-step")
    refused({**good, "correction": {"from_step": steps, "entries": [roll(seat, 6)]}}, 422, "ruling/correction")  # over
    refused({**good, "correction": {"from_step": 2}}, 422, "ruling/correction")
    refused({**good, "correction": {"from_step": 2, "entries": [], "seed": "x"}}, 422, "ruling/correction")
    refused({**good, "correction": [1, 2]}, 422, "ruling/correction")

    listed = rulings(client, record_id)
    assert listed["rulings"] == [] and listed["chain"] == {"head": None, "length": 0}
    assert client.get(f"/api/records/{record_id}/ruled").get_json()["corrected"] is False
    problem(client.get("/api/records/00000000-0000-0000-0000-000000000000/rulings"), 404)
    problem(client.post("/api/records/00000000-0000-0000-0000-000000000000/rulings", json=good, headers=auth(key)), 404)


def test_a_record_in_progress_takes_rulings_but_no_correction_and_shows_no_secret(client: Any) -> None:
    made = new_record(client, finish=False)
    record_id, key, tokens = made["id"], made["arbiter_key"], made["tokens"]
    base = f"/api/records/{record_id}/rulings"
    for _ in range(3):  # a few moves, through the seats' own tokens
        legal = client.get(f"/api/records/{record_id}/legal").get_json()
        mine = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[legal["pending"]["seat"]])).get_json()
        answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[legal["pending"]["seat"]]),
                             json={"command": mine["commands"][-1], "version": mine["version"]})
        assert answer.status_code == 200, answer.get_json()
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    seat = view_at(client, record_id, steps)["pending"]["seat"]

    found = problem(client.post(base, headers=auth(key), json={"step": 2, "decision": "replay", "reason": "misdeal",
                                                                "correction": {"from_step": 2, "entries": [roll(seat, 6)]}}),
                    409, "ruling/in-progress")
    assert "in progress" in found["detail"]
    assert rulings(client, record_id)["rulings"] == []
    plain = client.post(base, headers=auth(key), json={"step": 2, "decision": "play on", "reason": "the draw stands"})
    assert plain.status_code == 201, plain.get_json()

    # as ruled is as played, seen as the reader may see it: another seat's bag stays a count
    public = view_at(client, record_id, steps, "ruled")
    assert public["view_of"] == "public" and public["view"] == view_at(client, record_id, steps)["view"]
    assert not any(isinstance(bag, list) for bag in public["view"]["bags"])  # each seat's bag is hidden from the public
    ada = client.get(f"/api/records/{record_id}/ruled/steps/{steps}", headers=auth(tokens[0])).get_json()
    assert ada["view_of"] == "seat:0" and isinstance(ada["view"]["bags"][0], list) and isinstance(ada["view"]["bags"][1], int)
    arbiter = client.get(f"/api/records/{record_id}/ruled/steps/{steps}", headers=auth(key)).get_json()
    assert arbiter["view_of"] == "public"
    problem(client.get(f"/api/records/{record_id}/ruled/steps/{steps}", headers=auth("forged")), 403)
    summary = client.get(f"/api/records/{record_id}/ruled").get_json()
    assert summary["corrected"] is False and "scores" not in summary and "detail" not in summary["pending"]

    # once the game is over, the correction is taken
    play_out_http(client, record_id, tokens)
    answer = client.post(base, headers=auth(key), json={"decision": "replay", "reason": "misdeal",
                                                         "correction": {"from_step": 2, "entries": []}})
    assert answer.status_code == 201, answer.get_json()
    summary = client.get(f"/api/records/{record_id}/ruled").get_json()
    assert summary["corrected"] is True and summary["steps"] == 2


# ---- the chain of the rulings stream ---------------------------------------------------------------


def tamper(records: Records, store_env: dict[str, str], stream: UUID, version: int, old: bytes, new: bytes) -> None:
    """Change one stored event's bytes with SQL, as someone with the database would."""
    if store_env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        import sqlite3

        with sqlite3.connect(store_env["SQLITE_DBNAME"]) as conn:
            (state,) = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                                    (stream.hex, version)).fetchone()
            assert old in bytes(state)
            conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                         (bytes(state).replace(old, new), stream.hex, version))
        return
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as conn:
        table = f'"{store_env["POSTGRES_SCHEMA"]}".{records.recorder.events_table_name}'
        (state,) = conn.execute(f"SELECT state FROM {table} WHERE originator_id = %s AND originator_version = %s",
                                (stream, version)).fetchone()
        assert old in bytes(state)
        conn.execute(f"UPDATE {table} SET state = %s WHERE originator_id = %s AND originator_version = %s",
                     (bytes(state).replace(old, new), stream, version))


def test_a_ruling_changed_in_the_database_is_found_at_its_place(records: Records, store_env: dict[str, str]) -> None:
    record_id, tokens = records.play.start("toy", NAMES, arbiter_key="the-arbiter")
    play_out(records, record_id, tokens)
    arbitration = Arbitration(records)
    with pytest.raises(Unauthorized):
        arbitration.rule(record_id, None, {"step": 1, "decision": "a", "reason": "b"})
    with pytest.raises(Forbidden):
        arbitration.rule(record_id, "a-guess", {"step": 1, "decision": "a", "reason": "b"})
    first = arbitration.rule(record_id, "the-arbiter", {"step": 1, "decision": "The draw stands", "reason": "seen by all"})
    second = arbitration.rule(record_id, "the-arbiter", {"step": 2, "decision": "Ben's roll was a 6", "reason": "photo"})
    clean = verify(records, record_id)
    assert clean["ok"] and clean["length"] == 3 and clean["head"] == arbitration.list(record_id).chain_head

    tamper(records, store_env, rulings_id(record_id), 3, b"was a 6", b"was a 1")
    found = verify(records, record_id)
    assert not found["ok"] and [(p["index"], p.get("ruling")) for p in found["problems"]] == [(2, second.id)]
    assert "changed" in found["problems"][0]["what"]
    tamper(records, store_env, rulings_id(record_id), 2, b"The draw stands", b"The draw is void")
    found = verify(records, record_id)
    assert [p.get("ruling") for p in found["problems"]] == [first.id, second.id]


def test_corrections_in_the_domain_refuse_in_progress_and_name_the_rule(records: Records) -> None:
    record_id, tokens = records.play.start("toy", NAMES, arbiter_key="the-arbiter")
    arbitration = Arbitration(records)
    with pytest.raises(Conflict):
        arbitration.rule(record_id, "the-arbiter", {"decision": "a", "reason": "b",
                                                    "correction": {"from_step": 1, "entries": []}})
    play_out(records, record_id, tokens)
    with pytest.raises(Invalid) as refused:
        arbitration.rule(record_id, "the-arbiter", {"decision": "a", "reason": "b",
                                                    "correction": {"from_step": 1, "entries": [roll(1, 6)]}})
    assert refused.value.facts["rule"] == "toy/turn"
    assert arbitration.list(record_id).rulings == ()


# ---- a board as ruled, and the record page ---------------------------------------------------------


@cache
def board_game() -> PlayedGame:
    game = catalog.game(BOARD_TITLE)
    return play_random(game, game.default_edition(), {"players": 2}, "rulings-board")


def corrected_entry(k: int) -> tuple[int, dict[str, Any]]:
    """(the step command entry k starts at, another legal entry there, decided by the rules with drawn outcomes)."""
    game = catalog.game(BOARD_TITLE)
    entries = board_game().entries
    state = game.begin(game.default_edition())
    for entry in entries[:k]:
        state = fold(game, state, entry.events)
    step = sum(len(e.events) for e in entries[:k])
    played = dict(entries[k].command or {})
    choices = [c for c in game.legal(state) if c.to_json() != played] or game.legal(state)
    chance = SeededChance("the arbiter's replay")
    produced, _ = play(game, state, choices[0], chance)
    return step, Entry(choices[0].to_json(), tuple(chance.log), tuple(produced)).to_json()


def import_board_game(client: Any) -> dict[str, Any]:
    edition = catalog.game(BOARD_TITLE).default_edition()
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": BOARD_TITLE, "edition": edition.ref,
                "seats": [{"name": n} for n in NAMES], "options": {"players": 2}, "mode": "transcribed", "chance": {},
                "entries": [e.to_json() for e in board_game().entries]}
    answer = client.post("/api/imports", json=document)
    assert answer.status_code in (200, 201, 202), answer.get_json()
    verdict = wait_for_verdict(client, answer.get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    return {"id": verdict["record_id"], "arbiter_key": answer.get_json()["arbiter_key"]}


def test_the_board_as_ruled_is_drawn_from_the_correction(client: Any) -> None:
    made = import_board_game(client)
    record_id = made["id"]
    at, entry = corrected_entry(len(board_game().entries) // 2)
    answer = client.post(f"/api/records/{record_id}/rulings", headers=auth(made["arbiter_key"]),
                         json={"decision": "the other move", "reason": "the first was misread",
                               "correction": {"from_step": at, "entries": [entry]}})
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["correction"]["entries"][0]["events"] == entry["events"]
    last = client.get(f"/api/records/{record_id}/ruled").get_json()["steps"]
    assert last == at + len(entry["events"])
    same = client.get(f"/api/records/{record_id}/ruled/steps/{at}/board")
    assert same.status_code == 200 and same.mimetype == "image/svg+xml"
    assert same.data == client.get(f"/api/records/{record_id}/steps/{at}/board").data  # before the correction: as played
    ruled = client.get(f"/api/records/{record_id}/ruled/steps/{last}/board")
    assert ruled.status_code == 200 and ruled.data.startswith(b"<svg")
    step = view_at(client, record_id, last, "ruled")
    game = catalog.game(BOARD_TITLE)
    state = game.begin(game.default_edition())
    for e in board_game().entries[: len(board_game().entries) // 2]:
        state = fold(game, state, e.events)
    state = fold(game, state, Entry.from_json(entry).events)
    assert json.loads(json.dumps(game.view(state, None))) == step["view"]
    problem(client.get(f"/api/records/{record_id}/ruled/steps/{last + 1}/board"), 404)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    with served_app(tmp_path_factory.mktemp("rulings")) as (base, app):
        yield base, app.test_client()


browser, context = browsing.browser, browsing.context  # fixtures, used by name


@pytest.mark.browser
def test_the_record_page_switches_between_as_played_and_as_ruled(served: tuple[str, Any], context: Any) -> None:
    base, client = served
    made = import_board_game(client)
    record_id = made["id"]
    plain = context()
    plain.goto(f"{base}/records/{record_id}#step=3")
    expect(plain.locator("body")).to_have_attribute("data-study", "ready")
    expect(plain.locator("#ruling-switch")).to_be_hidden()  # no correction: one reading

    at, entry = corrected_entry(len(board_game().entries) // 3)
    answer = client.post(f"/api/records/{record_id}/rulings", headers=auth(made["arbiter_key"]),
                         json={"decision": "Replay the move", "reason": "misread at the table",
                               "correction": {"from_step": at, "entries": [entry]}})
    assert answer.status_code == 201, answer.get_json()
    ruling = answer.get_json()["id"]
    last = at + len(entry["events"])

    page = context()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{base}/records/{record_id}#step={at - 1}")
    expect(page.locator("body")).to_have_attribute("data-loaded", "all")
    expect(page.locator("body")).to_have_attribute("data-study-step", f"main:{at - 1}")
    switch = page.locator("#ruling-switch")
    expect(switch).to_be_visible()
    expect(switch).to_contain_text("Replay the move")
    expect(page.locator("#as-played")).to_have_attribute("aria-pressed", "true")
    with page.expect_response(lambda r: f"/api/records/{record_id}/ruled/steps/" in r.url and r.status == 200):
        page.locator("#as-ruled").click()
    expect(page.locator("body")).to_have_attribute("data-study-step", f"ruled:{at - 1}")
    expect(page.locator("#as-ruled")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#study-line")).to_contain_text(ruling)
    expect(page.locator("#steps")).to_have_text(str(last))  # the as-ruled reading's length
    page.locator("#last").click()
    expect(page.locator("body")).to_have_attribute("data-study-step", f"ruled:{last}")
    expect(page.locator("#board > svg")).to_be_visible()
    assert any(url.endswith(f"/api/records/{record_id}/ruled/steps/{last}/board") for url in asked)  # drawn as ruled
    page.screenshot(path=str(browsing.SHOTS / "record-as-ruled.png"))
    expect(page.locator("#whatif-box")).to_be_hidden()
    assert "line=ruled" in page.evaluate("() => location.hash")
    page.reload()  # the address keeps the reading
    expect(page.locator("body")).to_have_attribute("data-study-step", f"ruled:{last}")
    expect(page.locator("#as-ruled")).to_have_attribute("aria-pressed", "true")
    page.locator("#as-played").click()
    expect(page.locator("body")).to_have_attribute("data-study-step", f"main:{last}")
    expect(page.locator("#steps")).to_have_text(str(client.get(f"/api/records/{record_id}").get_json()["steps"]))
