"""The shortcuts taken for speed give exactly what the plain paths give: the same games from the same
seeds as before the speed work, and every state `play` hands back the one `evolve` makes event by event."""

from __future__ import annotations

import hashlib
import json

import pytest

from domain import catalog
from domain.citta_stato import GAME
from domain.citta_stato.state import State, freeze, thaw
from domain.kernel import SeededChance
from domain.kernel.selfplay import play_random
from tests.citta_stato.helpers import EDITION
from tests.folds import play_folds_as_evolve

SOLO = catalog.solo(GAME.title)
assert SOLO is not None

# sha256 of five seeded games' entries as JSON (sorted keys, no spaces), entries, events: produced by the engine as it was
# before a command's events were folded onto one working copy of the state (session 21), with this edition file.
GOLDEN = {
    "2": ("4fa2515c82a1c99c66c49273ee5528328bd37fe9ef21767396aa8ef211343a61", 495, 1362),
    "3": ("8241bd71d7185b6aa871a77288d4ce2b3300b355287f91d236c7b0f72ed626d9", 751, 1893),
    "4": ("23398905672e922a4a26a1f9529e48e0147c2094ed98173dec567b24b92dd712", 1066, 2492),
    "5": ("d9a786b877cd34569b1377f9940f0a76e8c1e087bafbeb9535c1e7035028317c", 1331, 3055),
    "solo 1": ("17d9f1a63887f496f5b592887f972b2eb2141ea06116519b2ae86f2877680fbe", 267, 1180),
    "solo 2": ("028d09084615fa6c923535cf75c7e072501688d01eef11d8ef41c1ef38cadfcb", 261, 1214),
    "solo 3": ("9f0c8d2ef602210fb74fab9a4f14bafbc5b73b9c873eba6a6c08bac26269cfd3", 263, 1266),
    "solo 4": ("0829c7cadac25affc681d78d5a1ae3e5a2a56c5da12855a49f1002d126e21729", 231, 1351),
}


def _options(game: str) -> dict:
    if game.startswith("solo"):
        return dict(SOLO(int(game.split()[1]), 1, 0))
    return {"players": int(game)}


@pytest.mark.parametrize("game", sorted(GOLDEN))
def test_seeded_games_are_the_games_the_engine_gave_before(game):
    """Random play picks among `legal` in order, so equal games mean equal legal lists, events and chance."""
    entries = [e for k in range(5) for e in play_random(GAME, EDITION, _options(game), f"golden-{game}-{k}").entries]
    text = json.dumps([e.to_json() for e in entries], sort_keys=True, separators=(",", ":"))
    got = (hashlib.sha256(text.encode()).hexdigest(), len(entries), sum(len(e.events) for e in entries))
    assert got == GOLDEN[game]


@pytest.mark.parametrize("game", ["2", "3", "4", "5", "solo 1", "solo 2", "solo 3", "solo 4"])
def test_play_gives_the_state_its_events_fold_to_one_by_one(game):
    """`play` folds a command's events and the automatic steps after it onto one working copy of the state
    (rules.settle): each state it returns must be the one `evolve` makes event by event."""
    played = play_random(GAME, EDITION, _options(game), f"one-by-one-{game}")
    state = play_folds_as_evolve(GAME, EDITION, played)
    assert state.phase == "over"


def test_thaw_hands_back_a_draft_only_to_the_state_it_was_frozen_to():
    """`thaw` reuses the draft the state was frozen from (state._SPARE); any other state gets its own fields."""
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 3}, SeededChance("spare")):
        s = GAME.evolve(s, e)
    d = thaw(s)
    d.round = 99
    moved = freeze(d)
    assert moved.round == 99 and s.round == 1
    assert thaw(moved) is d  # the fold goes on from the state it has just made: no copy
    freeze(d)
    again = thaw(s)  # an older state: a new draft of its own fields, not the one that moved on
    assert again is not d and freeze(again) == s and s.round == 1
    equal = State(*moved)  # equal to the last state frozen, but another object: thawed afresh
    assert thaw(equal) is not again and freeze(thaw(equal)) == moved
