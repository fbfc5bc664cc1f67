"""A replay may stop at any step: view, pending and scores answer for every event prefix.

Random games are folded one event at a time. At every prefix the all-seeing view, each seat's
view, pending and scores must succeed and be JSON; pending is AUTOMATIC exactly at the prefixes
that fall between the events of one command (or before / inside setup), and names a seat at the
end of every log entry, or game-over at the end of the log. Secrets stay hidden at every step.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.kernel import AUTOMATIC, GAME_OVER
from domain.kernel.selfplay import play_random

from .helpers import EDITION, GAME

GAMES = 3
SETUPS: list[dict[str, Any]] = [{"players": n} for n in range(GAME.seats[0], GAME.seats[1] + 1)]
SETUPS.append({"players": 2, "solo": {"scenario": 3, "game": 2, "carried_crowns": 1}})


def check_views(state: Any, players: int) -> None:
    review = GAME.view(state, None)
    json.dumps(review)
    assert isinstance(review["round"], int) and not isinstance(review["round"], bool)
    for me in range(len(state.seats)):
        mine = GAME.view(state, me)
        json.dumps(mine)
        assert mine.keys() == review.keys()
        for i, other in enumerate(mine["seats"]):
            if i != me:
                assert other["republic"] is None and isinstance(other["bag"], int) and isinstance(other["war_discs"], int)
            else:
                assert other == review["seats"][i]
        if not state.revealed:
            assert all(d["value"] is None for d in mine["warfare"] if d["seat"] != me)
        assert isinstance(mine["republic_pool"], int)


@pytest.mark.parametrize("options", SETUPS, ids=lambda o: f"solo-{o['solo']['scenario']}" if o.get("solo") else f"{o['players']}p")
def test_every_prefix_answers(options: dict[str, Any]) -> None:
    automatic = named = 0
    for k in range(GAMES):
        played = play_random(GAME, EDITION, options, f"every-step-{k}")
        state = GAME.begin(EDITION)
        ends: set[int] = set()
        count = 0
        for entry in played.entries:
            count += len(entry.events)
            ends.add(count)
        events = [e for entry in played.entries for e in entry.events]
        for n in range(len(events) + 1):
            if n:
                state = GAME.evolve(state, events[n - 1])
            check_views(state, options["players"])
            scores = GAME.scores(state)
            json.dumps(scores)
            assert scores["finished"] == (n == len(events))
            assert len(scores["seats"]) == len(state.seats)
            p = GAME.pending(state)
            json.dumps(p.to_json())
            assert GAME.view(state, None)["pending"]["kind"] == p.kind
            if n == len(events):
                assert p.kind == GAME_OVER and p.seat is None
            elif n in ends:
                assert p.kind != AUTOMATIC and p.seat is not None, (n, p)
                assert GAME.legal(state), (n, p)
                named += 1
            else:
                assert p.kind == AUTOMATIC and p.seat is None, (n, events[n - 1], p)
                automatic += 1
    assert automatic > 0 and named > 0


def test_before_setup_is_empty_and_unfinished() -> None:
    state = GAME.begin(EDITION)
    assert GAME.scores(state) == {"finished": False, "ranking": [], "seats": []}
    assert GAME.pending(state).kind == AUTOMATIC
    v = GAME.view(state, None)
    assert v["seats"] == [] and v["phase"] == "setup" and v["pending"] == {"seat": None, "kind": AUTOMATIC}
