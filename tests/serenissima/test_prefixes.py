"""A replay may stop after any event: view, pending and scores must answer at every prefix.

Random games are folded one event at a time. Where a log entry ends a seat is asked (or the
game is over); anywhere inside an entry the rules are still settling and nobody is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.kernel import AUTOMATIC, GAME_OVER
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME

EDITION = GAME.default_edition()
GAMES = 8  # per player count; every third with hidden money


def _check_views(state: Any, players: int) -> None:
    every = GAME.view(state, None)
    json.dumps(every)
    assert isinstance(every["round"], int) and not isinstance(every["round"], bool)
    for seat in range(players):
        own = GAME.view(state, seat)
        json.dumps(own)
        if state.hidden_money and state.phase != "over":
            # a seat sees exactly the all-seeing view, less the other seats' ducats
            assert own == _hide_others(every, seat)
            assert all(row["ducats"] is None for row in own["seats"] if row["seat"] != seat)
        else:
            assert own == every


def _hide_others(view: dict[str, Any], seat: int) -> dict[str, Any]:
    ducats = [m if i == seat else None for i, m in enumerate(view["ducats"])]
    rows = [{**row, "ducats": ducats[row["seat"]]} for row in view["seats"]]
    return {**view, "ducats": ducats, "seats": rows}


def _check_at(state: Any, players: int, end_of_entry: bool, last: bool) -> None:
    _check_views(state, players)
    scores = GAME.scores(state)
    json.dumps(scores)
    waiting = GAME.pending(state)
    json.dumps(waiting.to_json())
    if not end_of_entry:
        assert waiting.kind == AUTOMATIC and waiting.seat is None, waiting
        assert GAME.legal(state) == []
    elif last:
        assert waiting.kind == GAME_OVER and scores["finished"]
    else:
        assert waiting.kind not in (AUTOMATIC, GAME_OVER) and waiting.seat in range(players), waiting
        assert not scores["finished"]
        assert GAME.legal(state), waiting


@pytest.mark.parametrize("players", range(GAME.seats[0], GAME.seats[1] + 1))
def test_every_prefix_answers(players: int) -> None:
    kinds_inside: set[str] = set()
    for k in range(GAMES):
        options = {"players": players, "money": "hidden" if k % 3 == 0 else "visible"}
        played = play_random(GAME, EDITION, options, f"prefix-{players}-{k}")
        state = GAME.begin(EDITION)
        _check_at(state, players, end_of_entry=False, last=False)
        assert GAME.scores(state) == {"finished": False, "ranking": [], "seats": []}
        assert GAME.view(state, None)["round"] == 0
        for n, entry in enumerate(played.entries):
            for j, e in enumerate(entry.events):
                state = GAME.evolve(state, e)
                end = j == len(entry.events) - 1
                if not end:
                    kinds_inside.add(type(e).__name__)
                _check_at(state, players, end, last=end and n == len(played.entries) - 1)
        assert GAME.view(state, None)["round"] == state.turn > 0
    # the games did stop inside setup, between galleys and inside battles
    assert {"FirstPlayerChosen", "ActivationEnded", "BattleStarted"} <= kinds_inside
