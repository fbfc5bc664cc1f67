"""Random legal play: 200 complete games per player count, with the invariants after every event.

Checked after every event: cubes conserved (88, or 110 with the expansion) across bags,
supplies, Market, box and reserve; no negative count; at most one war disc per player on the
track; the event round-trips through JSON; a second fold of the stored stream (each event read
back from JSON) is identical to the game's state. After every game the whole stream is read
back from its JSON text as the same events (the second fold already showed they fold the same). The Game contract every title keeps (legal is exact, replay,
JSON, tampering, seeds, secrets) is checked by tests/contract/test_game_contract.py, with
this title's answers in tests/citta_stato/contract.py.
"""

from __future__ import annotations

import json

import pytest

from domain.citta_stato.state import State
from domain.kernel import Event, event_from_json
from domain.kernel.events import dumps, loads
from domain.kernel.selfplay import play_random

from .helpers import EDITION, GAME, total_cubes

GAMES = 200


def check(state: State, e: Event) -> None:
    """The counts every state keeps (the event's own round trip is `Refold`'s)."""
    if state.phase == "setup":
        return
    assert total_cubes(state) == (110 if state.expansion else 88), e
    for counts in (state.reserve, state.box):
        assert min(counts) >= 0, e
    for x in state.seats:
        assert min(x.bag) >= 0 and min(x.supply) >= 0 and min(x.banners) >= 0 and x.crowns >= 0, (e, x)
        assert x.actions >= 0 and max(x.burned) <= state.t.burn_limit, e
        assert 1 <= x.form <= state.t.rep_spaces, e
        assert all(1 <= t <= len(v) for t, v in zip(x.tracks, state.t.track_values, strict=True)), e
    on_track = [i for i, _ in state.warfare]
    assert len(on_track) == len(set(on_track)) <= state.t.warfare_spaces, e
    assert state.upgrade >= 0, e


class Refold:
    """Folds each event again, as read back from its JSON, beside the game: both states must stay identical."""

    def __init__(self) -> None:
        self.state = GAME.begin(EDITION)

    def __call__(self, state: State, e: Event) -> None:
        check(state, e)
        stored = event_from_json(json.loads(json.dumps(e.to_json())))
        assert stored == e, e  # the event round-trips through JSON
        self.state = GAME.evolve(self.state, stored)
        assert self.state == state, e


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_the_invariants(players: int) -> None:
    winners = set()
    for k in range(GAMES):
        played = play_random(GAME, EDITION, {"players": players}, f"random-{players}-{k}", Refold())
        state = played.state
        assert GAME.pending(state).over and state.round == state.t.rounds + 1
        events = [e for entry in played.entries for e in entry.events]
        assert loads(dumps(events)) == events  # and the whole stream through its JSON text (Refold folded each)
        scores = played.scores
        assert scores["finished"] and sorted(scores["ranking"]) == list(range(players))
        assert [s["total"] for s in scores["seats"]] == list(state.finals)
        winners.add(scores["ranking"][0])
        for who in (None, *range(players)):
            json.dumps(GAME.view(state, who))
        json.dumps(GAME.pending(state).to_json())
    assert len(winners) > 1  # random play is not rigged toward one seat


