"""The table companion's API (issue 31): a game at the table entered from one device with its table key, the
legal choices in words, the outcomes the table saw, take-backs; through Flask's test client on SQLite and on the
real PostgreSQL, with the slips a person makes at a table (a double tap, a stale page, another record's key)."""

from __future__ import annotations

import uuid
from typing import Any

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
