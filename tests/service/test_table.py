"""The table companion's API (issue 31): a game at the table entered from one device with its table key, the
legal choices in words, the outcomes the table saw, take-backs; through Flask's test client on SQLite and on the
real PostgreSQL, with the slips a person makes at a table (a double tap, a stale page, another record's key)."""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from typing import Any

import pytest

from domain.records import evidence as bundles
from tests.service.helpers import auth

PROBLEM = "application/problem+json"
SEATS = ["Anna Maria", "D'Arcy"]
DIE = "die"


def start_table(client: Any, seats: list[str] | None = None, **body: Any) -> dict[str, Any]:
    """A toy game at the table: the answer to POST /api/records (seat tokens, table key)."""
    answer = client.post("/api/records", json={"title": "toy", "seats": seats or SEATS, "mode": "transcribed", **body})
    assert answer.status_code == 201, answer.get_json()
    return dict(answer.get_json())


def roll(seat: int, face: int) -> dict[str, Any]:
    """A toy roll as the table saw it: the command and the die's face."""
    return {"command": {"type": "toy/roll", "seat": seat}, "outcomes": [{"kind": "roll", "source": DIE, "values": [face]}]}


def version_of(client: Any, record_id: str) -> int:
    return int(client.get(f"/api/records/{record_id}").get_json()["version"])


# ---- A: the table key ------------------------------------------------------------------------------


def test_a_game_at_the_table_answers_its_table_key_once_and_a_live_game_none(client: Any) -> None:
    started = start_table(client)
    key = started["table_key"]
    assert isinstance(key, str) and len(key) >= 24
    assert key not in {s["token"] for s in started["seats"]} | {started["annotator_key"], started["arbiter_key"]}
    record_id = started["id"]
    for path in ("", "/legal", "/steps/1", "/turns", "/events"):  # never again, in any answer
        assert key not in client.get(f"/api/records/{record_id}{path}", headers=auth(key)).get_data(as_text=True)
    live = client.post("/api/records", json={"title": "toy", "seats": SEATS}).get_json()
    assert "table_key" not in live


def test_the_table_key_enters_every_seat_s_choices_and_reads_as_the_table(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    legal = client.get(f"/api/records/{record_id}/legal", headers=auth(key)).get_json()
    assert legal["pending"]["seat"] == 0 and {c["type"] for c in legal["commands"]} == {"toy/roll", "toy/draw"}
    first = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json={**roll(0, 5), "version": legal["version"]})
    assert first.status_code == 200, first.get_json()
    body = first.get_json()
    assert body["view"]["bags"] == [{"hidden": True}] * 2  # the table's view: nobody's bag opened
    assert body["pending"]["seat"] == 1 and "detail" in body["pending"]  # the table decides next, whoever it is
    second = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json={**roll(1, 4), "version": body["version"]})
    assert second.status_code == 200, second.get_json()
    assert second.get_json()["view"]["points"] == [5, 4]
    step = client.get(f"/api/records/{record_id}/steps/3", headers=auth(key)).get_json()
    assert step["view_of"] == "public"
    # a seat's own token still plays only its own seat
    other = client.post(f"/api/records/{record_id}/commands", headers=auth(started["seats"][1]["token"]),
                        json=roll(0, 2))
    assert other.status_code == 403 and "seat 1" in other.get_json()["detail"]


def test_the_table_key_choosing_for_a_seat_that_does_not_decide_is_told_whose_decision_it_is(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    refused = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(1, 3))
    assert refused.status_code == 409 and refused.get_json()["rule"] == "command/not-deciding"
    assert "it is Anna Maria's decision now" in refused.get_json()["detail"] and "not D'Arcy's" in refused.get_json()["detail"]
    assert refused.get_json()["facts"]["version"] == version_of(client, record_id) == 2


def test_another_record_s_table_key_opens_nothing_here_and_nothing_is_stored(client: Any) -> None:
    mine, theirs = start_table(client), start_table(client, seats=["Zoë", "Bea"])
    record_id = mine["id"]
    before = version_of(client, record_id)
    refused = client.post(f"/api/records/{record_id}/commands", headers=auth(theirs["table_key"]), json=roll(0, 3))
    assert refused.status_code == 403 and refused.content_type == PROBLEM
    assert "opens no seat of this record" in refused.get_json()["detail"]
    assert client.get(f"/api/records/{record_id}/legal", headers=auth(theirs["table_key"])).status_code == 403
    assert version_of(client, record_id) == before


def test_a_double_tap_with_the_table_key_is_stored_once(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    tap, version = str(uuid.uuid4()), version_of(client, record_id)
    first, again = (client.post(f"/api/records/{record_id}/commands", headers={**auth(key), "Idempotency-Key": tap},
                                json={**roll(0, 6), "version": version}) for _ in range(2))
    assert first.status_code == 200 and again.status_code == 200, again.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true" and again.get_json() == first.get_json()
    assert client.get(f"/api/records/{record_id}").get_json()["steps"] == 2  # the setup and one roll


def test_a_live_record_takes_no_table_key(records: Any) -> None:
    from domain.records.errors import Invalid

    try:
        records.play.start("toy", SEATS, table_key="x" * 32)
    except Invalid as exc:
        assert "table" in str(exc)
    else:
        raise AssertionError("a live record was given a table key")


# ---- B: the legal choices in words -----------------------------------------------------------------


def test_whoever_may_act_gets_each_legal_command_in_words_and_nobody_else(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    for token in (key, started["seats"][0]["token"]):  # the table key, and the deciding seat's own token
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(token)).get_json()
        assert [c["command"] for c in legal["choices"]] == legal["commands"]
        assert {c["words"]: (c["group"], c["parts"], c["place"]) for c in legal["choices"]} == {
            "roll": ("actions", ["roll"], None), "draw": ("actions", ["draw"], None)}
    for token in (started["seats"][1]["token"], None):  # a seat not deciding, the public: neither commands nor words
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(token) if token else {}).get_json()
        assert legal["commands"] is None and "choices" not in legal


def test_a_real_title_s_choices_come_from_its_own_package(client: Any) -> None:
    answer = client.post("/api/records", json={"title": "la-citta", "seats": ["Anna Maria", "D'Arcy", "Zoë"],
                                               "mode": "live"})
    assert answer.status_code == 201, answer.get_json()
    started = answer.get_json()
    legal = client.get(f"/api/records/{started['id']}/legal").get_json()
    seat = legal["pending"]["seat"]
    legal = client.get(f"/api/records/{started['id']}/legal", headers=auth(started["seats"][seat]["token"])).get_json()
    placed = [c for c in legal["choices"] if c["place"]]
    assert placed and all(c["place"] in c["words"] for c in placed)
    assert all(" ".join(c["parts"]) == c["words"] and "la-citta/" not in c["words"] for c in legal["choices"])


# ---- C: the outcomes the table saw -------------------------------------------------------------------


def seen(ask: dict[str, Any], pick: random.Random) -> list[Any]:
    """What a table might see for an ask: dice faces, or items of the pool as many as it holds of each."""
    if ask["kind"] == "roll":
        return [pick.randint(1, ask["faces"]) for _ in range(ask["n"])]
    pool = [p["value"] for p in ask["possible"] for _ in range(p["count"])]
    if ask["kind"] == "shuffle":
        pick.shuffle(pool)
        return pool
    return pick.sample(pool, ask["n"])


def asked_through(client: Any, record_id: str, key: str, command: dict[str, Any] | None, pick: random.Random,
                  given: list[dict[str, Any]] | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the outcomes entered, the asks answered) for a choice (None: the setup), one ask at a time after `given`."""
    outcomes: list[dict[str, Any]] = [*(given or [])]
    asks: list[dict[str, Any]] = []
    for _ in range(200):
        answer = client.post(f"/api/records/{record_id}/asks", headers=auth(key),
                             json={"command": command, "outcomes": outcomes})
        assert answer.status_code == 200, answer.get_json()
        ask = answer.get_json()["ask"]
        if ask is None:
            return outcomes, asks
        asks.append(ask)
        outcomes.append({"kind": ask["kind"], "source": ask["source"], "values": seen(ask, pick)})
    raise AssertionError("the asks never ended")


def test_a_roll_is_asked_with_its_faces_and_nothing_more_once_it_is_given(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    asked = client.post(f"/api/records/{record_id}/asks", headers=auth(key),
                        json={"command": {"type": "toy/roll", "seat": 0}, "outcomes": []}).get_json()
    assert asked["ask"]["kind"] == "roll" and asked["ask"]["faces"] == 6 and asked["ask"]["n"] == 1
    assert [p["value"] for p in asked["ask"]["possible"]] == [1, 2, 3, 4, 5, 6] and "roll 1 die" in asked["ask"]["words"]
    done = client.post(f"/api/records/{record_id}/asks", headers=auth(key), json={**roll(0, 4)}).get_json()
    assert done == {"ask": None, "version": asked["version"]}
    seven = client.post(f"/api/records/{record_id}/asks", headers=auth(key), json=roll(0, 7))
    assert seven.status_code == 422 and "[7]" in seven.get_json()["detail"]
    twice = client.post(f"/api/records/{record_id}/asks", headers=auth(key),
                        json={"command": roll(0, 4)["command"], "outcomes": roll(0, 4)["outcomes"] * 2})
    assert twice.status_code == 422 and twice.get_json()["rule"] == "chance/unused-outcome"
    drawn = client.post(f"/api/records/{record_id}/asks", headers=auth(key),
                        json={"command": {"type": "toy/draw", "seat": 0}, "outcomes": []}).get_json()["ask"]
    assert drawn["kind"] == "draw" and drawn["source"] == "bag:0" and [(p["value"], p["count"]) for p in drawn["possible"]] == [
        (1, 1), (2, 1), (3, 1)]
    assert version_of(client, record_id) == asked["version"]  # asking stores nothing


def test_who_may_ask_and_when(client: Any) -> None:
    started = start_table(client)
    record_id = started["id"]
    other_seat = client.post(f"/api/records/{record_id}/asks", headers=auth(started["seats"][1]["token"]),
                             json={"command": {"type": "toy/roll", "seat": 0}, "outcomes": []})
    assert other_seat.status_code == 403 and "seat 1" in other_seat.get_json()["detail"]
    assert client.post(f"/api/records/{record_id}/asks", json={"command": None, "outcomes": []}).status_code == 401
    setup_done = client.post(f"/api/records/{record_id}/asks", headers=auth(started["table_key"]),
                             json={"command": None, "outcomes": []})
    assert setup_done.status_code == 409 and "entered already" in setup_done.get_json()["detail"]
    live = client.post("/api/records", json={"title": "toy", "seats": SEATS}).get_json()
    refused = client.post(f"/api/records/{live['id']}/asks", headers=auth(live["seats"][0]["token"]),
                          json={"command": {"type": "toy/roll", "seat": 0}, "outcomes": []})
    assert refused.status_code == 409 and "live game draws its own" in refused.get_json()["detail"]


@pytest.mark.parametrize("title", ["la-citta", "serenissima"])
def test_a_game_at_the_table_starts_before_its_deals_and_takes_them_as_seen(client: Any, title: str) -> None:
    names = ["Anna Maria", "D'Arcy", "Zoë"]
    answer = client.post("/api/records", json={"title": title, "seats": names, "mode": "transcribed"})
    assert answer.status_code == 201, answer.get_json()
    record_id, key = answer.get_json()["id"], answer.get_json()["table_key"]
    waiting = client.get(f"/api/records/{record_id}/legal", headers=auth(key)).get_json()
    assert waiting["pending"]["kind"] == "setup" and waiting["commands"] == [] and "setup" in waiting["note"]
    early = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json={
        "command": {"type": f"{title}/anything", "seat": 0}, "outcomes": []})
    assert early.status_code == 409 and early.get_json()["facts"]["version"] == 1 and "setup" in early.get_json()["detail"]
    pick = random.Random(title)
    outcomes, asks = asked_through(client, record_id, key, None, pick)
    assert asks and all(a["words"] and a["possible"] for a in asks)
    # slips: a value the pool never held, a deal left out; each a 422 naming it, nothing stored
    slip = [dict(o) for o in outcomes]
    slip[0] = {**slip[0], "values": ["unicorn", *slip[0]["values"][1:]]}
    refused = client.post(f"/api/records/{record_id}/setup", headers=auth(key), json={"outcomes": slip})
    assert refused.status_code == 422 and "unicorn" in refused.get_json()["detail"]
    short = client.post(f"/api/records/{record_id}/setup", headers=auth(key), json={"outcomes": outcomes[:-1]})
    assert short.status_code == 422 and short.get_json()["rule"] == "chance/missing-outcome"
    assert version_of(client, record_id) == 1
    tap = str(uuid.uuid4())
    entered, again = (client.post(f"/api/records/{record_id}/setup", headers={**auth(key), "Idempotency-Key": tap},
                                  json={"outcomes": outcomes}) for _ in range(2))
    assert entered.status_code == 200 and again.status_code == 200 and again.get_json() == entered.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert client.post(f"/api/records/{record_id}/setup", headers=auth(key), json={"outcomes": outcomes}).status_code == 409
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["version"] == entered.get_json()["version"] and summary["steps"] == entered.get_json()["steps"]
    # then choices, each with the outcomes the table saw, until one met chance
    met = 0
    for _ in range(100):
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(key)).get_json()
        choice = pick.choice(legal["choices"])
        outcomes, asks = asked_through(client, record_id, key, choice["command"], pick)
        played = client.post(f"/api/records/{record_id}/commands", headers=auth(key),
                             json={"command": choice["command"], "outcomes": outcomes, "version": legal["version"]})
        assert played.status_code == 200, (choice, played.get_json())
        met += bool(asks)
        if met:
            break
    assert met


def test_the_tiles_order_is_asked_slot_by_slot_and_a_table_entering_by_slot_gets_the_tiles_it_saw(client: Any) -> None:
    """La Città's experienced setup lays its tiles face up over the board's slots: the ask names, per position, the
    slot it fills (the board drawing's id, and where it lies in words), every slot once. A table that enters what it
    saw slot by slot, in any order, and sends the values in the ask's order gets a board with each tile where it saw
    it; the same values entered in order make the same record."""
    made = [client.post("/api/records", json={"title": "la-citta", "seats": SEATS, "options": {"setup": "experienced"},
                                              "mode": "transcribed"}).get_json() for _ in range(2)]
    (record_id, key), (in_order, in_order_key) = ((m["id"], m["table_key"]) for m in made)
    ask = client.post(f"/api/records/{record_id}/asks", headers=auth(key),
                      json={"command": None, "outcomes": []}).get_json()["ask"]
    where = ask["where"]
    drawn = client.get(f"/api/records/{record_id}/steps/0/board", headers=auth(key)).get_data(as_text=True)
    slots = re.findall(r'data-kind="tile" data-id="([^"]+)"', drawn)
    assert ask["kind"] == "shuffle" and len(where) == ask["n"] == len(slots)
    assert sorted(w["place"] for w in where) == sorted(slots)  # every slot the board draws, once
    assert all(w["place"] in w["words"] and "from the left" in w["words"] and re.search(r"of L\d+", w["words"])
               for w in where)
    pick = random.Random(31)
    tiles = [p["value"] for p in ask["possible"] for _ in range(p["count"])]
    pick.shuffle(tiles)
    saw = dict(zip(slots, tiles, strict=True))  # what lies on each slot of the table's board
    entered: dict[str, Any] = {}
    for place in pick.sample(slots, len(slots)):  # the table taps the slots in its own order
        entered[place] = saw[place]
    values = [entered[w["place"]] for w in where]
    outcomes, _ = asked_through(client, record_id, key, None, pick, [{"kind": "shuffle", "source": "tiles",
                                                                      "values": values}])
    for rid, k in ((record_id, key), (in_order, in_order_key)):
        assert client.post(f"/api/records/{rid}/setup", headers=auth(k), json={"outcomes": outcomes}).status_code == 200
    laid = client.get(f"/api/records/{record_id}/steps/2", headers=auth(key)).get_json()["view"]["tiles"]
    # the slots the table saw alike hold tiles alike, and only those: each tile lies where it was seen
    assert {frozenset(s for s in slots if saw[s] == saw[slot]) for slot in slots} == \
        {frozenset(s for s in slots if laid[s] == laid[slot]) for slot in slots}
    assert len(set(saw.values())) > 2
    assert sorted(p["words"] for p in ask["possible"]) == sorted(set(laid.values()))  # each tile in the view's words
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    assert all(client.get(f"/api/records/{rid}/steps/{n}", headers=auth(k)).get_json()["view"] ==
               client.get(f"/api/records/{in_order}/steps/{n}", headers=auth(in_order_key)).get_json()["view"]
               for rid, k in ((record_id, key),) for n in range(1, steps + 1))


# ---- D: take-backs ---------------------------------------------------------------------------------


def withdraw(client: Any, record_id: str, token: str, version: int, tap: str | None = None) -> Any:
    return client.post(f"/api/records/{record_id}/withdrawals", json={"version": version},
                       headers={**auth(token), **({"Idempotency-Key": tap} if tap else {})})


def test_the_table_key_takes_back_a_mis_tap_and_the_record_shows_it(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]
    assert client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(0, 5)).status_code == 200
    slip = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(1, 4)).get_json()  # meant 6
    version = slip["version"]
    assert withdraw(client, record_id, started["seats"][1]["token"], version).status_code == 403  # not the table key
    stale = withdraw(client, record_id, key, version - 1)
    assert stale.status_code == 409 and stale.get_json()["facts"]["version"] == version
    assert "reload" in stale.get_json()["detail"]
    tap = str(uuid.uuid4())
    first, again = withdraw(client, record_id, key, version, tap), withdraw(client, record_id, key, version, tap)
    assert first.status_code == 200 and again.status_code == 200 and again.get_json() == first.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    taken = first.get_json()
    assert taken["withdrawn"] == {"entry": 2, "steps": [3, 3], "seat": 1, "by": "table", "consents": []}
    assert taken["steps"] == 2 and taken["version"] == version + 1
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["steps"] == 2 and summary["withdrawn"][0]["steps"] == [3, 3] and summary["withdrawn"][0]["by"] == "table"
    assert client.get(f"/api/records/{record_id}/legal", headers=auth(key)).get_json()["pending"]["seat"] == 1
    assert client.get(f"/api/records/{record_id}/steps/3").status_code == 404  # the step is gone from the game
    again_played = client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(1, 6)).get_json()
    assert again_played["view"]["points"] == [5, 6]
    verified = client.get(f"/api/records/{record_id}/verify").get_json()
    assert verified["ok"] and verified["chain"]["ok"] and verified["replay"]["ok"], verified
    seat = 0
    while not client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(seat, 6)).get_json()["finished"]:
        seat = 1 - seat
    document = client.get(f"/api/records/{record_id}/export").get_json()
    assert [w["log"]["outcomes"][0]["values"] for w in document["withdrawn"]] == [[4]]
    assert document["entries"][2]["outcomes"][0]["values"] == [6]
    bundle = client.get(f"/api/records/{record_id}/evidence")
    assert bundle.status_code == 200 and bundles.verify(bundle.data).ok  # the chain with the entry taken back in it


def test_a_record_holding_its_setup_only_has_nothing_to_take_back(client: Any) -> None:
    started = start_table(client)
    refused = withdraw(client, started["id"], started["table_key"], version_of(client, started["id"]))
    assert refused.status_code == 409 and "setup only" in refused.get_json()["detail"]


def live_entry_without_chance(client: Any, record_id: str, tokens: list[str]) -> tuple[int, int]:
    """Play a live game's first choices until one meets no chance: (its seat, the record's version)."""
    for _ in range(80):
        seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        played = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[seat]),
                             json={"command": legal["commands"][-1], "version": legal["version"]})
        assert played.status_code == 200, played.get_json()
        steps = played.get_json()["steps"]
        if client.get(f"/api/records/{record_id}/steps/{steps[1]}").get_json().get("by") is None:
            return seat, played.get_json()["version"]
    raise AssertionError("no choice without chance")


def test_a_live_take_back_needs_every_other_seat_s_consent(client: Any) -> None:
    started = client.post("/api/records", json={"title": "citta-stato", "seats": ["Anna Maria", "D'Arcy", "Zoë"]}).get_json()
    record_id, tokens = started["id"], [s["token"] for s in started["seats"]]
    seat, version = live_entry_without_chance(client, record_id, tokens)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    other = (seat + 1) % 3
    assert withdraw(client, record_id, tokens[other], version).get_json()["rule"] == "withdrawal/not-yours"
    asked = withdraw(client, record_id, tokens[seat], version)
    assert asked.status_code == 200, asked.get_json()
    number = asked.get_json()["asked"]["number"]
    assert asked.get_json()["withdrawn"] is None and sorted(asked.get_json()["asked"]["waiting"]) == sorted({0, 1, 2} - {seat})
    assert client.get(f"/api/records/{record_id}").get_json()["steps"] == steps  # nothing taken back yet

    def consent(who: int) -> Any:
        return client.post(f"/api/records/{record_id}/withdrawals/{number}/consent", headers=auth(tokens[who]), json={})

    assert consent(seat).status_code == 409  # the asking seat does not consent to itself
    first = consent(other)
    assert first.status_code == 200 and first.get_json()["asked"]["consents"] == [other]
    assert consent(other).get_json()["rule"] == "withdrawal/consented"
    assert client.get(f"/api/records/{record_id}").get_json()["withdrawal"]["consents"] == [other]
    last = consent((seat + 2) % 3)
    assert last.status_code == 200 and last.get_json()["withdrawn"]["by"] == "seats", last.get_json()
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["steps"] < steps and summary["withdrawn"][0]["seat"] == seat and "withdrawal" not in summary
    assert client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"] == seat  # its decision again
    assert client.get(f"/api/records/{record_id}/verify").get_json()["ok"]


def test_a_live_draw_once_shown_is_never_taken_back(client: Any) -> None:
    started = client.post("/api/records", json={"title": "toy", "seats": SEATS}).get_json()
    record_id, token = started["id"], started["seats"][0]["token"]
    rolled = client.post(f"/api/records/{record_id}/commands", headers=auth(token),
                         json={"command": {"type": "toy/roll", "seat": 0}}).get_json()
    refused = withdraw(client, record_id, token, rolled["version"])
    assert refused.status_code == 409 and refused.get_json()["rule"] == "withdrawal/chance-shown"
    assert version_of(client, record_id) == rolled["version"]  # nothing stored


def test_a_take_back_asked_is_void_once_the_game_goes_on(client: Any) -> None:
    started = client.post("/api/records", json={"title": "citta-stato", "seats": ["Anna Maria", "D'Arcy"]}).get_json()
    record_id, tokens = started["id"], [s["token"] for s in started["seats"]]
    seat, version = live_entry_without_chance(client, record_id, tokens)
    number = withdraw(client, record_id, tokens[seat], version).get_json()["asked"]["number"]
    deciding = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
    legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[deciding])).get_json()
    assert client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[deciding]),
                       json={"command": legal["commands"][0], "version": legal["version"]}).status_code == 200
    late = client.post(f"/api/records/{record_id}/withdrawals/{number}/consent", headers=auth(tokens[1 - seat]), json={})
    assert late.status_code == 409 and late.get_json()["rule"] == "withdrawal/not-waiting"
    assert "withdrawal" not in client.get(f"/api/records/{record_id}").get_json()


def test_a_seat_s_token_choosing_for_another_seat_is_told_so_with_the_version(client: Any) -> None:
    started = client.post("/api/records", json={"title": "toy", "seats": SEATS}).get_json()
    refused = client.post(f"/api/records/{started['id']}/commands", headers=auth(started["seats"][1]["token"]),
                          json={"command": {"type": "toy/roll", "seat": 0}})
    assert refused.status_code == 403 and "D'Arcy" in refused.get_json()["detail"] and "Anna Maria" in refused.get_json()["detail"]
    assert refused.get_json()["facts"]["version"] == version_of(client, started["id"])


# ---- E: what a seat's token may learn of a hidden pool ------------------------------------------------


def seat_learns_no_hidden_pool(client: Any, record_id: str, key_asks: list[dict[str, Any]],
                               outcomes: list[dict[str, Any]], command: dict[str, Any] | None, token: str) -> bool:
    """Ask again with a seat's token what the table key was asked, one outcome at a time: a pool the seat's view shows
    is offered as to the table key; at the first one it hides, nothing of it is listed, and an outcome given from it
    is refused (403) without a word of what it holds. Whether such a pool was met."""
    for k, table_ask in enumerate(key_asks):
        answer = client.post(f"/api/records/{record_id}/asks", headers=auth(token),
                             json={"command": command, "outcomes": outcomes[:k]})
        assert answer.status_code == 200, answer.get_json()
        ask = answer.get_json()["ask"]
        assert (ask["kind"], ask["source"]) == (table_ask["kind"], table_ask["source"])
        if not ask.get("hidden"):
            assert ask["possible"] == table_ask["possible"] and ask["n"] == table_ask["n"]
            continue
        assert table_ask["possible"] and ask["possible"] == [] and "table key" in ask["words"]
        held = {json.dumps(p["value"]).strip('"') for p in table_ask["possible"]} | {p["words"] for p in table_ask["possible"]}
        refused = client.post(f"/api/records/{record_id}/asks", headers=auth(token),
                              json={"command": command, "outcomes": outcomes[:k + 1]})
        sent = client.post(f"/api/records/{record_id}/" + ("setup" if command is None else "commands"),
                           headers=auth(token), json={"outcomes": outcomes} if command is None else
                           {"command": command, "outcomes": outcomes})
        for no in (refused, sent):
            assert no.status_code == 403 and no.get_json()["rule"] == "chance/hidden-pool", no.get_json()
            said = json.dumps({k: v for k, v in no.get_json().items() if k != "facts"}) + json.dumps(
                {k: v for k, v in no.get_json()["facts"].items() if k != "source"})
            assert "count" not in no.get_json()["facts"]
            assert not [v for v in held if re.search(rf"(?<![\w-]){re.escape(str(v))}(?![\w-])", said)], said
        return True
    return False


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
def test_a_seat_s_token_is_offered_no_pool_its_view_hides_and_told_nothing_of_it(client: Any, title: str) -> None:
    answer = client.post("/api/records", json={"title": title, "seats": ["Anna Maria", "D'Arcy", "Zoë"],
                                               "mode": "transcribed"})
    started = answer.get_json()
    record_id, key, tokens = started["id"], started["table_key"], [s["token"] for s in started["seats"]]
    pick = random.Random(title)
    outcomes, asks = asked_through(client, record_id, key, None, pick)
    hidden = seat_learns_no_hidden_pool(client, record_id, asks, outcomes, None, tokens[0])
    assert client.post(f"/api/records/{record_id}/setup", headers=auth(key), json={"outcomes": outcomes}).status_code == 200
    for _ in range(400):  # then the game's choices, until a seat's own choice drew from a pool it may not see
        if hidden:
            break
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(key)).get_json()
        if not legal.get("choices"):  # the game is over
            break
        choice = pick.choice(legal["choices"])
        outcomes, asks = asked_through(client, record_id, key, choice["command"], pick)
        hidden = seat_learns_no_hidden_pool(client, record_id, asks, outcomes, choice["command"],
                                            tokens[choice["command"]["seat"]])
        played = client.post(f"/api/records/{record_id}/commands", headers=auth(key),
                             json={"command": choice["command"], "outcomes": outcomes, "version": legal["version"]})
        assert played.status_code == 200, played.get_json()
    assert hidden


# ---- F: take-backs in the record file ----------------------------------------------------------------


def imported(client: Any, document: dict[str, Any]) -> dict[str, Any]:
    """The verdict on a record file sent to POST /api/imports, once judged."""
    answer = client.post("/api/imports", data=json.dumps(document).encode(), content_type="application/json")
    assert answer.status_code == 202, answer.get_json()
    for _ in range(400):
        status = client.get(f"/api/imports/{answer.get_json()['id']}").get_json()
        if status["status"] in ("accepted", "rejected"):
            return dict(status)
        time.sleep(0.05)
    raise AssertionError("the import was never judged")


def test_an_exported_game_with_take_backs_imports_back_to_the_same_record(client: Any) -> None:
    started = start_table(client)
    record_id, key = started["id"], started["table_key"]

    def enter(body: dict[str, Any]) -> None:
        assert client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=body).status_code == 200

    def take_back() -> None:
        assert withdraw(client, record_id, key, version_of(client, record_id)).status_code == 200

    draw = {"command": {"type": "toy/draw", "seat": 0}}
    enter(roll(0, 5))
    enter(roll(1, 4))
    enter({**draw, "outcomes": [{"kind": "draw", "source": "bag:0", "values": [2]}]})
    take_back()  # the draw, then the roll under it: two take-backs in a row
    take_back()
    enter(roll(1, 6))
    enter({**draw, "outcomes": [{"kind": "draw", "source": "bag:0", "values": [3]}]})
    take_back()
    seat = 0
    while not client.post(f"/api/records/{record_id}/commands", headers=auth(key), json=roll(seat, 6)).get_json()["finished"]:
        seat = 1 - seat
    document = client.get(f"/api/records/{record_id}/export").get_json()
    assert [(w["entry"], w["log"]["command"]["type"]) for w in document["withdrawn"]] == [
        (3, "toy/draw"), (2, "toy/roll"), (3, "toy/draw")]
    verdict = imported(client, document)
    assert verdict["status"] == "accepted", verdict
    again_id = verdict["record_id"]
    again = client.get(f"/api/records/{again_id}/export").get_json()

    def kept(doc: dict[str, Any]) -> dict[str, Any]:  # all but when each take-back was made
        return {**doc, "withdrawn": [{k: v for k, v in w.items() if k != "at"} for w in doc["withdrawn"]]}

    assert kept(again) == kept(document)
    summary, again_summary = (client.get(f"/api/records/{r}").get_json() for r in (record_id, again_id))
    assert kept(again_summary)["withdrawn"] == kept(summary)["withdrawn"]  # the take-backs shown on the record
    steps = summary["steps"]
    assert again_summary["steps"] == steps
    assert (client.get(f"/api/records/{again_id}/steps/{steps}").get_json()["view"]
            == client.get(f"/api/records/{record_id}/steps/{steps}").get_json()["view"])
    assert client.get(f"/api/records/{again_id}/verify").get_json()["ok"]
    # an entry taken back is re-decided where it was entered: a cube its bag never held is a finding
    document["withdrawn"][0]["log"]["outcomes"][0]["values"] = [7]
    slip = imported(client, document)
    assert slip["status"] == "rejected" and slip["report"]["rule"] == "file/withdrawn", slip["report"]
    assert "withdrawn[0]" in slip["report"]["message"]
