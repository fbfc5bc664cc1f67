"""Playing records to the end through the application or the HTTP API."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain.kernel import SeededChance
from domain.records import Records


def play_out(records: Records, record_id: UUID, tokens: list[str], seed: str = "players", limit: int = 10_000) -> int:
    """Random legal commands until the game ends; returns how many were played."""
    players = SeededChance(seed)
    for played in range(limit):
        timeline = records.timeline(record_id)
        game = timeline.game
        if game.pending(timeline.head).over:
            return played
        choices = game.legal(timeline.head)
        cmd = choices[players.below(len(choices))]
        records.play(record_id, cmd.to_json(), tokens[cmd.seat])
    raise AssertionError("the game did not end")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_out_http(client: Any, record_id: str, tokens: list[str], seed: str = "players", limit: int = 10_000,
                  must_finish: bool = True) -> int:
    """Random legal commands over HTTP, each seat with its own token; returns how many were played."""
    players = SeededChance(seed)
    for played in range(limit):
        summary = client.get(f"/api/records/{record_id}").get_json()
        if summary["finished"]:
            return played
        pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[pending["seat"]])).get_json()
        cmd = legal["commands"][players.below(len(legal["commands"]))]
        answer = client.post(f"/api/records/{record_id}/commands", json={"command": cmd, "version": legal["version"]},
                             headers=auth(tokens[pending["seat"]]))
        assert answer.status_code == 200, answer.get_json()
    if must_finish:
        raise AssertionError("the game did not end")
    return limit
