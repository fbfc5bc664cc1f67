"""Random legal play: complete games with invariants after every event.

The Game contract every title keeps (legal is exact, replay, JSON, tampering, seeds, secrets) is
checked by tests/contract/test_game_contract.py, with this title's answers in tests/serenissima/contract.py."""

from __future__ import annotations

import json
import time

import pytest

from domain.kernel import event_from_json, fold
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from tests.serenissima.invariants import Ledger

EDITION = GAME.default_edition()
GAMES_PER_COUNT = 200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant(players: int) -> None:
    start = time.perf_counter()
    lengths = []
    for k in range(GAMES_PER_COUNT):
        options = {"players": players, "money": "hidden" if k % 2 else "visible"}
        played = play_random(GAME, EDITION, options, f"inv-{players}-{k}", check=Ledger())
        events = [e for entry in played.entries for e in entry.events]
        stored = json.loads(json.dumps([e.to_json() for e in events]))
        assert fold(GAME, GAME.begin(EDITION), [event_from_json(obj) for obj in stored]) == played.state
        scores = played.scores
        assert scores["finished"]
        assert played.state.scorings == EDITION.data["scoring"]["scorings_to_end"]
        assert sorted(scores["ranking"]) == list(range(players))
        totals = [scores["seats"][s]["total"] for s in scores["ranking"]]
        assert totals == sorted(totals, reverse=True)
        lengths.append(played.state.turn)
    elapsed = time.perf_counter() - start
    print(f"{players} players: {GAMES_PER_COUNT} games in {elapsed:.1f}s, turns {min(lengths)}-{max(lengths)}")


