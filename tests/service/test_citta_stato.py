"""Città-Stato through the whole service: live over HTTP with seat tokens, every step, export, import."""

from __future__ import annotations

from typing import Any

from tests.service.helpers import auth, play_out_http
from tests.service.test_api import wait_for_verdict


def test_citta_stato_live_game_replayed_exported_and_reimported(client: Any) -> None:
    answer = client.post("/api/records", json={"title": "citta-stato", "seats": ["Ada", "Bruno", "Chiara"]})
    assert answer.status_code == 201, answer.get_json()
    record_id = answer.get_json()["id"]
    tokens = [s["token"] for s in answer.get_json()["seats"]]

    players_seed = "citta"
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["chance"]["seed"] is None and summary["chance"]["commitment"]
    # half-way through, every seat's view and the public view are served and differ only where secrets are
    play_out_http(client, record_id, tokens, seed=players_seed, limit=30, must_finish=False)
    middle = client.get(f"/api/records/{record_id}").get_json()
    if not middle["finished"]:
        n = middle["steps"]
        public = client.get(f"/api/records/{record_id}/steps/{n}").get_json()
        assert public["view_of"] == "public"
        for seat, token in enumerate(tokens):
            own = client.get(f"/api/records/{record_id}/steps/{n}", headers=auth(token)).get_json()
            assert own["view_of"] == f"seat:{seat}"
        events = client.get(f"/api/records/{record_id}/events").get_json()
        assert events["redacted"] and all("data" not in e for e in events["events"])
        assert client.get(f"/api/records/{record_id}/export").status_code == 403
    # then to the end
    play_out_http(client, record_id, tokens, seed=players_seed + "-rest")
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["finished"] and summary["scores"]["finished"] and summary["chance"]["seed"]
    steps = summary["steps"]
    setup = client.get(f"/api/records/{record_id}/turns").get_json()[0]["to"]
    for n in [*range(setup, steps + 1, max(1, steps // 60)), steps]:
        step = client.get(f"/api/records/{record_id}/steps/{n}").get_json()
        assert step["step"] == n and step["view_of"] == "all"
    turns = client.get(f"/api/records/{record_id}/turns").get_json()
    assert turns[-1]["to"] == steps

    exported = client.get(f"/api/records/{record_id}/export")
    submitted = client.post("/api/imports", data=exported.data, content_type="application/json")
    verdict = wait_for_verdict(client, submitted.get_json()["id"], timeout=60)
    assert verdict["status"] == "accepted", verdict
    copy = verdict["record_id"]
    assert client.get(f"/api/records/{copy}/events").get_json()["events"] == \
        client.get(f"/api/records/{record_id}/events").get_json()["events"]
    assert client.get(f"/api/records/{copy}/export").get_json() == exported.get_json()
