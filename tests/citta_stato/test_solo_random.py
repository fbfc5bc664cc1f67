"""Solo mode under random legal play: 100 games per scenario with the Città-Stato invariants after every event.

On top of the multiplayer checks (cube conservation over bags, supplies, Market, box and
reserve, which counts the Ghost's bag and the cubes it has drawn this round; JSON round trip;
a shadow re-fold from JSON identical to the state) every event also checks: the Ghost is
never the pending seat, it holds its six cubes between bag and drawn pile, it never acts
more often in a round than its scenario says, and the human always plays first.
"""

from __future__ import annotations

import json

import pytest

from domain.citta_stato import events as ev
from domain.citta_stato.solo import scenario
from domain.citta_stato.state import GHOST, State
from domain.kernel import Event, replay
from domain.kernel.selfplay import PlayedGame, play_random

from .contract import assert_legal_is_exact
from .helpers import EDITION, GAME
from .test_random_play import Refold

GAMES = 100
SCENARIOS = (1, 2, 3, 4)


def options(n: int, k: int) -> dict:
    """Spread the games over the campaign's three games and a few carried-crown counts."""
    return {"players": 2, "solo": {"scenario": n, "game": k % 3 + 1, "carried_crowns": k % 4}}


class SoloRefold(Refold):
    def __call__(self, state: State, e: Event) -> None:
        super().__call__(state, e)
        if state.phase == "setup":
            return
        ghost = state.seats[GHOST]
        assert sum(ghost.bag) + sum(ghost.supply) == sum(state.t.solo.ghost_bag), e
        assert ghost.actions <= scenario(state).draws, e
        # the Ghost's marker never leaves the required score, and it gains nothing a player would
        assert ghost.vp == scenario(state).required[state.solo.game] and ghost.second == 0, e
        assert ghost.crowns == 0 and ghost.banners == (0, 0, 0, 0) and not ghost.cards and sum(ghost.burned) == 0, e
        assert ghost.tracks == (1, 1, 1, 1), e
        assert state.first == 0 and state.current == 0, e


def ghost_never_pending(played: PlayedGame) -> None:
    """After every command's events (and setup's) the decision is the human's, or the game is over."""
    state = GAME.begin(EDITION)
    for entry in played.entries:
        for e in entry.events:
            state = GAME.evolve(state, e)
        p = GAME.pending(state)
        assert p.seat == 0 or p.over, p


@pytest.mark.parametrize("n", SCENARIOS)
def test_random_solo_games_keep_the_invariants(n: int) -> None:
    ghost_actions = 0
    met: set[bool] = set()
    for k in range(GAMES):
        played = play_random(GAME, EDITION, options(n, k), f"solo-{n}-{k}", SoloRefold())
        state = played.state
        assert GAME.pending(state).over and state.round == state.t.rounds + 1
        ghost_never_pending(played)
        drew = sum(isinstance(e, ev.GhostDrew) for entry in played.entries for e in entry.events)
        assert drew == state.t.rounds * scenario(state).draws  # the Ghost always finishes its count
        ghost_actions += drew
        report = played.scores["solo"]
        assert report["finished"] and report["game"] == k % 3 + 1 and report["crowns_carried_in"] == k % 4
        assert len(report["objectives"]) == len(scenario(state).objectives[report["game"]])
        assert report["won"] == (report["score_met"] and all(o["met"] for o in report["objectives"]))
        assert played.scores["ranking"] == ([0, GHOST] if report["won"] else [GHOST, 0])
        met |= {o["met"] for o in report["objectives"]}
        for who in (None, 0, 1):
            json.dumps(GAME.view(state, who))
    assert ghost_actions > 0 and met == {True, False}  # objectives are really evaluated both ways


@pytest.mark.parametrize("n", SCENARIOS)
def test_solo_legal_is_exact(n: int) -> None:
    """Every listed command is accepted, every other well-formed one (all Ghost-seat commands included) refused."""
    checked = 0
    for k in range(3):
        played = play_random(GAME, EDITION, options(n, k), f"solo-exact-{n}-{k}")
        state = GAME.begin(EDITION)
        for index, entry in enumerate(played.entries):
            if index > 0 and index % 2 == 0:
                legal = assert_legal_is_exact(state)
                assert all(c.seat == 0 for c in legal)
                checked += 1
            for e in entry.events:
                state = GAME.evolve(state, e)
    assert checked > 60


@pytest.mark.parametrize("n", SCENARIOS)
def test_solo_logs_validate_with_observed_chance(n: int) -> None:
    for k in range(3):
        played = play_random(GAME, EDITION, options(n, k), f"solo-log-{n}-{k}")
        entries = [type(en).from_json(json.loads(json.dumps(en.to_json()))) for en in played.entries]
        assert any(o.source == "bag:ghost" for en in entries for o in en.outcomes)
        report, state = replay(GAME, EDITION, entries)
        assert report.ok, report
        assert state == played.state


def test_a_tampered_ghost_draw_is_refused() -> None:
    played = play_random(GAME, EDITION, options(1, 0), "solo-tamper")
    entries = list(played.entries)
    for k, entry in enumerate(entries[1:], start=1):  # claim a second black cube in the Ghost's bag
        draws = [o for o in entry.outcomes if o.source == "bag:ghost"]
        if draws:
            o = draws[0]
            entries[k] = type(entry)(entry.command, tuple(type(o)(o.kind, o.source, ("X",)) if x is o else x for x in entry.outcomes), entry.events)
            break
    report, _ = replay(GAME, EDITION, entries)
    assert not report.ok and report.rule == "chance/draw/not-there"


def test_the_ghosts_war_disc_stays_hidden_from_the_human_until_revealed() -> None:
    hidden = 0
    for k in range(6):
        played = play_random(GAME, EDITION, options(1, k), f"solo-leak-{k}")
        state = GAME.begin(EDITION)
        for entry in played.entries:
            for e in entry.events:
                state = GAME.evolve(state, e)
            if state.phase != "turns":
                continue
            v = GAME.view(state, 0)
            assert isinstance(v["seats"][GHOST]["war_discs"], int)
            for d in v["warfare"]:
                if d["seat"] == GHOST and not state.revealed:
                    assert d["value"] is None
                    hidden += 1
    assert hidden > 0
