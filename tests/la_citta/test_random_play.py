"""Random legal play: 200 complete games per player count with the invariants after every event.

The Game contract every title keeps (legal is exact, replay, JSON, tampering, seeds, secrets) is
checked by tests/contract/test_game_contract.py, with this title's answers in tests/la_citta/contract.py."""

from __future__ import annotations

import os

import pytest

from domain.kernel.selfplay import play_random
from domain.la_citta import GAME
from tests.la_citta.contract import options
from tests.la_citta.helpers import ED
from tests.la_citta.invariants import check

GAMES = int(os.environ.get("LA_CITTA_GAMES", "200"))


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(players):
    kinds: set[str] = set()
    for k in range(GAMES):
        played = play_random(GAME, ED, options(players, k), f"inv-{players}-{k}", check=check)
        assert played.scores["finished"] and played.state.year == 6 and played.state.phase == "over"
        assert len(played.scores["ranking"]) == players
        kinds.update(e.command["type"] for e in played.entries[1:])
    assert {"la-citta/build", "la-citta/found-city", "la-citta/attract", "la-citta/blind-draw"} <= kinds


