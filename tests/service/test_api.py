"""The HTTP API through Flask's test client, on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import json
import threading
import time
from typing import Any
from uuid import UUID

from tests.service.helpers import auth, play_out_http

PROBLEM = "application/problem+json"


def start(client: Any, seats: list[str] | None = None, **body: Any) -> tuple[str, list[str]]:
    answer = client.post("/api/records", json={"title": "toy", "seats": seats or ["ann", "bob"], **body})
    assert answer.status_code == 201, answer.get_json()
    data = answer.get_json()
    assert answer.headers["Location"] == f"/api/records/{data['id']}"
    return data["id"], [s["token"] for s in data["seats"]]


def wait_for_verdict(client: Any, import_id: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.time() + timeout
    while time.time() < deadline:
        status = client.get(f"/api/imports/{import_id}").get_json()
        if status["status"] in ("accepted", "rejected"):
            return status  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"import {import_id} still {status['status']}")


def test_a_live_game_end_to_end(client: Any) -> None:
    record_id, tokens = start(client)
    played = play_out_http(client, record_id, tokens)
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["finished"] and summary["steps"] == played + 1 and summary["version"] == summary["steps"] + 2 and summary["scores"]["finished"]
    steps = summary["steps"]
    seen = [client.get(f"/api/records/{record_id}/steps/{n}").get_json() for n in range(steps + 1)]
    assert [s["step"] for s in seen] == list(range(steps + 1))
    assert all(s["view_of"] == "all" for s in seen)
    assert seen[-1]["pending"]["kind"] == "game-over"
    assert seen[-1]["scores"] == summary["scores"]
    events = client.get(f"/api/records/{record_id}/events?from=1&to=3").get_json()
    assert [e["step"] for e in events["events"]] == [2, 3] and "data" in events["events"][0]
    exported = client.get(f"/api/records/{record_id}/export")
    assert exported.status_code == 200 and "attachment" in exported.headers["Content-Disposition"]
    submitted = client.post("/api/imports", data=exported.data, content_type="application/json")
    assert submitted.status_code == 202, submitted.get_json()
    verdict = wait_for_verdict(client, submitted.get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    copy = verdict["record_id"]
    original = client.get(f"/api/records/{record_id}/events").get_json()["events"]
    assert client.get(f"/api/records/{copy}/events").get_json()["events"] == original
    assert client.get(f"/api/records/{copy}/export").get_json() == exported.get_json()


def test_secrets_never_leave_an_unfinished_record(client: Any) -> None:
    record_id, tokens = start(client)
    client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/draw", "seat": 0}},
                headers=auth(tokens[0]))
    answer = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/draw", "seat": 1}},
                         headers=auth(tokens[1]))
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["events"] == [{"step": 3, "type": "toy/drawn", "redacted": True}]
    assert body["view"]["bags"][0] == 2 and len(body["view"]["bags"][1]) == 2  # bob sees his own bag only

    from api.service import service  # the secrets, read from inside the service for the probe

    with client.application.app_context():
        records = service().records
        meta = records.timeline(UUID(record_id)).meta
        secrets = [meta.seed, *meta.token_hashes]
        bags = [list(b) for b in records.timeline(UUID(record_id)).head.bags]
    paths = ["", "/events", "/events?from=0&to=9", "/turns", "/legal", "/export", "/steps/0", "/steps/1", "/steps/2", "/steps/3"]
    for headers in ({}, auth(tokens[0]), auth(tokens[1])):
        for path in paths:
            text = client.get(f"/api/records/{record_id}{path}", headers=headers).get_data(as_text=True)
            assert not any(secret in text for secret in secrets), path
            if "/events" in path:
                assert '"data"' not in text and "cube" not in text
        listing = client.get("/api/records", headers=headers).get_data(as_text=True)
        assert not any(secret in listing for secret in secrets)
    public = client.get(f"/api/records/{record_id}/steps/3").get_json()
    assert public["view_of"] == "public" and public["view"]["bags"] == [{"hidden": True}, {"hidden": True}]
    ann = client.get(f"/api/records/{record_id}/steps/3", headers=auth(tokens[0])).get_json()
    assert ann["view"]["bags"] == [sorted(bags[0]), 2]
    assert client.get(f"/api/records/{record_id}/export").status_code == 403
    legal = client.get(f"/api/records/{record_id}/legal").get_json()
    assert legal["commands"] is None and legal["pending"] == {"seat": 0, "kind": "turn"}
    assert client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[1])).get_json()["commands"] is None
    assert len(client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[0])).get_json()["commands"]) == 2
    assert client.get(f"/api/records/{record_id}/steps/3", headers=auth("forged")).status_code == 403


def test_errors_are_problem_json_a_person_can_act_on(client: Any) -> None:
    record_id, tokens = start(client)
    unknown = client.get("/api/records/3f0b8e2e-0000-4000-8000-000000000000")
    assert unknown.status_code == 404 and unknown.content_type == PROBLEM and "no record" in unknown.get_json()["detail"]
    assert client.get("/api/records/not-a-uuid").status_code == 404
    bad_json = client.post(f"/api/records/{record_id}/commands", data='{"command": ', content_type="application/json",
                           headers=auth(tokens[0]))
    assert bad_json.status_code == 400 and bad_json.content_type == PROBLEM and "JSON" in bad_json.get_json()["detail"]
    bad_import = client.post("/api/imports", data="[1, 2", content_type="application/json")
    assert bad_import.status_code == 400 and bad_import.content_type == PROBLEM
    huge = client.post("/api/imports", data=b" " * (5 * 1024 * 1024), content_type="application/json")
    assert huge.status_code == 413 and huge.content_type == PROBLEM and "bytes" in huge.get_json()["detail"]
    violation = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 1}},
                            headers=auth(tokens[1]))
    assert violation.status_code == 422 and violation.content_type == PROBLEM
    assert violation.get_json()["rule"] == "toy/turn" and violation.get_json()["facts"] == {"seat": 1, "turn": 0}
    # the rules' sentence numbers seats; `said` is the same sentence as the table reads it, by name
    assert "seat 0" in violation.get_json()["detail"], violation.get_json()
    assert violation.get_json()["said"] == "it is ann's turn", violation.get_json()
    malformed = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/fly", "seat": 0}},
                            headers=auth(tokens[0]))
    assert malformed.status_code == 422 and malformed.get_json()["rule"] == "command/malformed"
    schema = client.post(f"/api/records/{record_id}/commands", json={"cmd": {}}, headers=auth(tokens[0]))
    assert schema.status_code == 422 and "command" in schema.get_json()["errors"]["json"]
    anonymous = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 0}})
    assert anonymous.status_code == 401 and "Bearer" in anonymous.get_json()["detail"]
    wrong_seat = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 0}},
                             headers=auth(tokens[1]))
    assert wrong_seat.status_code == 403
    stale = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 0}, "version": 7},
                        headers=auth(tokens[0]))
    assert stale.status_code == 409 and stale.get_json()["facts"]["version"] == 2  # Started, the setup's event
    no_title = client.post("/api/records", json={"title": "chess", "seats": ["a", "b"]})
    assert no_title.status_code == 422 and "chess" in no_title.get_json()["detail"]
    not_a_file = client.post("/api/imports", json={"hello": 1})
    assert not_a_file.status_code == 422 and not_a_file.get_json()["rule"] == "file/format"
    assert client.get(f"/api/records/{record_id}/steps/99").status_code == 404


def test_concurrent_commands_over_http_one_conflicts(client: Any) -> None:
    record_id, tokens = start(client)
    answers: list[int] = []
    barrier = threading.Barrier(4)

    def send() -> None:
        barrier.wait()
        with client.application.test_client() as own:
            answers.append(own.post(f"/api/records/{record_id}/commands",
                                    json={"command": {"type": "toy/roll", "seat": 0}, "version": 2},
                                    headers=auth(tokens[0])).status_code)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200, 409, 409, 409]
    from api.service import service

    with client.application.app_context():
        rows = service().records.recorder.select_events(UUID(record_id))
    assert [r.originator_version for r in rows] == [1, 2, 3]


def test_listing_pages_and_filters(client: Any) -> None:
    ids = [start(client, [f"p{k}", "zed"])[0] for k in range(5)]
    page = client.get("/api/records?per_page=2&page=2").get_json()
    assert page["total"] == 5 and [r["id"] for r in page["items"]] == ids[::-1][2:4]
    assert [r["id"] for r in client.get("/api/records?player=p3").get_json()["items"]] == [ids[3]]
    assert client.get("/api/records?status=finished").get_json()["total"] == 0
    assert client.get("/api/records?status=paused").status_code == 422


def test_turns_and_openapi(client: Any) -> None:
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    assert turns[0]["from"] == 0 and turns[-1]["to"] == client.get(f"/api/records/{record_id}").get_json()["steps"]
    spec = client.get("/api/openapi.json").get_json()
    for path in ["/api/records", "/api/records/{record_id}/commands", "/api/records/{record_id}/steps/{n}",
                 "/api/records/{record_id}/events", "/api/records/{record_id}/turns", "/api/records/{record_id}/legal",
                 "/api/records/{record_id}/export", "/api/imports", "/api/imports/{import_id}"]:
        assert path in spec["paths"], path
    assert "seat" in spec["components"]["securitySchemes"]
    page = client.get("/api/docs")
    assert page.status_code == 200 and b"/viewer/apidocs.js" in page.data
    assert client.get("/viewer/apidocs.js").status_code == 200


def test_transcribed_record_over_http(client: Any) -> None:
    record_id, tokens = start(client, mode="transcribed")
    answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[0]), json={
        "command": {"type": "toy/roll", "seat": 0}, "outcomes": [{"kind": "roll", "source": "die", "values": [6]}]})
    assert answer.status_code == 200 and answer.get_json()["view"]["points"] == [6, 0]
    impossible = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[1]), json={
        "command": {"type": "toy/roll", "seat": 1}, "outcomes": [{"kind": "roll", "source": "die", "values": [0]}]})
    assert impossible.status_code == 422 and impossible.get_json()["rule"] == "chance/roll/impossible-face"


def test_import_of_a_file_sent_as_its_bytes_is_rejected_with_a_report(client: Any) -> None:
    """The file's own bytes as the body (curl --data-binary @game.json); multipart is refused (CSRF)."""
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    document = client.get(f"/api/records/{record_id}/export").get_json()
    document["entries"][1]["command"]["seat"] = 1
    answer = client.post("/api/imports", data=json.dumps(document, indent=2).encode(), content_type="application/json")
    assert answer.status_code == 202
    verdict = wait_for_verdict(client, answer.get_json()["id"])
    assert verdict["status"] == "rejected" and verdict["record_id"] is None
    report = verdict["report"]
    assert report["ok"] is False and report["entry_index"] == 1 and report["rule"] == "toy/turn"
    assert report["facts"] == {"seat": 1, "turn": 0} and report["event_index"] == 1


def test_a_view_that_fails_is_a_bug_to_see_at_any_step(client: Any, monkeypatch: Any) -> None:
    """Views are total by the kernel contract, so a failing one is never dressed up as bad input:
    500 as problem+json, before setup as after a whole command, and other steps still answer."""
    from tests.kernel import toy_game

    record_id, tokens = start(client)
    client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/draw", "seat": 0}},
                headers=auth(tokens[0]))
    client.application.config["PROPAGATE_EXCEPTIONS"] = False
    shown = toy_game.Toy.view

    def fragile(self: Any, state: Any, seat: int | None) -> dict[str, Any]:
        if state.seats == 0 or sum(state.points) > 0:
            raise KeyError("not set up")
        return shown(self, state, seat)

    monkeypatch.setattr(toy_game.Toy, "view", fragile)
    for broken_step in (0, 2):
        broken = client.get(f"/api/records/{record_id}/steps/{broken_step}")
        assert broken.status_code == 500 and broken.content_type == PROBLEM
    assert client.get(f"/api/records/{record_id}/steps/1").status_code == 200


def test_the_short_way_for_steps_answers_as_flask_does(client: Any) -> None:
    """GET /steps/{n} is answered by a WSGI short way; a query string sends it through Flask."""
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
    for n in range(steps + 1):
        short = client.get(f"/api/records/{record_id}/steps/{n}")
        flask = client.get(f"/api/records/{record_id}/steps/{n}?via=flask")
        assert short.status_code == flask.status_code == 200
        assert short.get_json() == flask.get_json() and short.content_type == flask.content_type
    basic = client.get(f"/api/records/{record_id}/steps/1", headers={"Authorization": "Basic YTpi"})
    assert basic.status_code == 401 and basic.content_type == PROBLEM
    forged = client.get(f"/api/records/{record_id}/steps/1", headers=auth("forged"))
    assert forged.status_code == 403 and forged.content_type == PROBLEM
    assert client.get(f"/api/records/{record_id}/steps/{steps + 1}").status_code == 404



def test_a_command_asked_with_legal_answers_the_decision_after_it_as_legal_does(client: Any) -> None:
    """`?legal=true` (the record page's decision panel): the answer carries what GET /legal then answers the same
    token: no choices for a seat whose turn passed, the choices for the table key (it decides for every seat);
    without it the answer is as before."""
    record_id, tokens = start(client)
    for _ in range(4):
        seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
        if seat is None:  # over
            break
        mine = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        answer = client.post(f"/api/records/{record_id}/commands?legal=true", headers=auth(tokens[seat]),
                             json={"command": mine["commands"][0], "version": mine["version"]})
        assert answer.status_code == 200, answer.get_json()
        said = answer.get_json()["legal"]
        assert said == client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        assert said["version"] == answer.get_json()["version"] and not said["commands"]  # the other seat's turn
    table = client.post("/api/records", json={"title": "toy", "seats": ["ann", "bob"], "mode": "transcribed"}).get_json()
    key = table["table_key"]
    answer = client.post(f"/api/records/{table['id']}/commands?legal=true", headers=auth(key),
                         json={"command": {"type": "toy/roll", "seat": 0}, "version": table["record"]["version"],
                               "outcomes": [{"kind": "roll", "source": "die", "values": [4]}]})
    assert answer.status_code == 200, answer.get_json()
    said = answer.get_json()["legal"]
    assert said["commands"] and said == client.get(f"/api/records/{table['id']}/legal", headers=auth(key)).get_json()
    plain = client.post(f"/api/records/{table['id']}/commands", headers=auth(key),
                        json={"command": {"type": "toy/roll", "seat": 1}, "outcomes": [{"kind": "roll", "source": "die", "values": [2]}]})
    assert plain.status_code == 200 and "legal" not in plain.get_json()
    wrong = client.post(f"/api/records/{table['id']}/commands?legal=perhaps", headers=auth(key),
                        json={"command": {"type": "toy/roll", "seat": 0}, "outcomes": [{"kind": "roll", "source": "die", "values": [2]}]})
    assert wrong.status_code == 422 and "legal" in wrong.get_json()["detail"]
