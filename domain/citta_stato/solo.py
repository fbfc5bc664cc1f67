"""The solo mode's end of game: the required score, each objective, the crowns carried, the campaign.

A solo game is a 2-seat Città-Stato game (seat 1 is the Ghost) whose scenario and game
number are in `State.solo`; the rules run as usual (see rules.GHOST_AUTO for the Ghost's
steps). Everything here is a pure query on a state, so a record's report can always be
recomputed from its events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.kernel import thaw

from .edition import BI, CI, Scenario
from .state import GHOST, Seat, State, crowns_between

Check = Callable[[State, Seat, Any], tuple[bool, Any]]


def _at_least(have: dict[str, int], want: Any) -> bool:
    return all(have[c] >= int(n) for c, n in want.items())


def _own_cubes(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: s.supply[CI[c]] for c in want}
    return _at_least(have, want), have


def _track_at_least(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: s.tracks[BI[c]] for c in want}
    return _at_least(have, want), have


def _track_exactly(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: s.tracks[BI[c]] for c in want}
    return all(have[c] == int(n) for c, n in want.items()), have


def _own_crowns_at_least(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    return s.crowns >= int(want), s.crowns


def _republic_card_form(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    form = state.t.republic_form.get(s.republic, "")
    return form == want, form


def _own_banners(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: s.banners[BI[c]] for c in want}
    return _at_least(have, want), have


def _own_banners_total_at_least(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    return sum(s.banners) >= int(want), sum(s.banners)


def _own_used_card_each_colour(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: sum(1 for card in s.cards if card[0] == c) for c in want}
    return all(have[c] >= 1 for c in want), have


def _no_war_discs_left(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    return (not s.discs) == bool(want), list(s.discs)


def _burned_each_colour_at_least(state: State, s: Seat, want: Any) -> tuple[bool, Any]:
    have = {c: s.burned[CI[c]] for c in want}
    return _at_least(have, want), have


OBJECTIVES: dict[str, Check] = {
    "own_cubes": _own_cubes,
    "track_at_least": _track_at_least,
    "track_exactly": _track_exactly,
    "own_crowns_at_least": _own_crowns_at_least,
    "republic_card_form": _republic_card_form,
    "own_banners": _own_banners,
    "own_banners_total_at_least": _own_banners_total_at_least,
    "own_used_card_each_colour": _own_used_card_each_colour,
    "no_war_discs_left": _no_war_discs_left,
    "burned_each_colour_at_least": _burned_each_colour_at_least,
}


def scenario(state: State) -> Scenario:
    assert state.solo is not None and state.t.solo is not None
    return state.t.solo.scenarios[state.solo.scenario]


def report(state: State) -> dict[str, Any]:
    """The human's score against the required score and each objective, one by one; final once the game is over.

    Objectives are read from the final state: after the Second-scoring crowns, and the crown
    payment only checks crowns, it never spends them.
    """
    assert state.solo is not None
    sc = scenario(state)
    game = state.solo.game
    required = sc.required[game]
    over = state.phase == "over"
    score = state.finals[0] if over else state.seats[0].vp
    human = state.seats[0]
    objectives = []
    for kind, target in sc.objectives[game]:
        met, value = OBJECTIVES[kind](state, human, target)
        objectives.append({"objective": kind, "target": thaw(target), "value": value, "met": met})
    won = over and score >= required and all(o["met"] for o in objectives)
    return {
        "scenario": sc.number,
        "name": sc.name,
        "game": game,
        "crowns_carried_in": state.solo.carried,
        "required_score": required,
        "score": score,
        "score_met": score >= required,
        "objectives": objectives,
        "ghost_actions": {"this_round": state.seats[GHOST].actions, "per_round": sc.draws},
        "finished": over,
        "won": won,
        "crowns_carried_out": crowns_between(state, score, required) if won else 0,
    }


def solo_options(scenario: int, game: int = 1, carried: int = 0) -> dict[str, Any]:
    """The setup options of game `game` of a scenario's campaign, with the crowns `carried` into it from the game
    before: what the catalog hands a command line (`catalog.solo`), so no other package spells them. The rules
    check them (an unknown scenario is the rule citta-stato/solo/scenario)."""
    return {"players": 2, "solo": {"scenario": scenario, "game": game, "carried_crowns": carried}}


def next_game(state: State) -> dict[str, Any]:
    """From a finished solo game: the options of the campaign's next game, or that the campaign is won or lost."""
    if state.solo is None or state.phase != "over":
        raise ValueError("next_game needs a finished solo game")
    r = report(state)
    if not r["won"]:
        return {"campaign": "lost", "next": None, "report": r}
    if state.solo.game >= max(scenario(state).required):
        return {"campaign": "won", "next": None, "report": r}
    return {"campaign": "continues", "next": solo_options(state.solo.scenario, state.solo.game + 1, r["crowns_carried_out"]),
            "report": r}
