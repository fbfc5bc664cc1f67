"""What the bots read into a La Città state: citizens the food will not feed (the greedy bot, domain.kernel.bots),
and the face-down cards re-dealt as one seat could imagine them (the planner, domain.kernel.review)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.kernel.bots import Table
from domain.kernel.chance import Chance
from domain.kernel.contract import Game
from domain.kernel.review import Budget
from domain.la_citta.edition import SERVICES
from domain.la_citta.rules import voice_contents
from domain.la_citta.state import State


def shape(game: Game, state: Any, scores: Mapping[str, Any], seat: int) -> dict[int, float]:
    """Citizens count, less those the seat's food will not feed at the year's end; gold is worth a little."""
    seats = game.view(state, seat)["seats"]  # food and gold are on the table: the deciding seat sees every seat's
    return {row["seat"]: row["total"] - max(0, seats[row["seat"]]["citizens"] - seats[row["seat"]]["food"])
            + 0.25 * seats[row["seat"]]["gold"] for row in scores["seats"]}


def determinize(state: State, seat: int, chance: Chance) -> State:
    """A state `seat` cannot tell from this one (its view is equal), the face-down cards re-dealt by `chance`.

    Re-dealt: the voice-of-the-people cards other seats polled but `seat` did not (from those cards and
    the voice deck), and the politics cards drawn blind (from those cards and the politics deck: nobody
    has seen them). A face-down voice card nobody polled is not drawn yet, so chance draws it anyway.
    """
    if not state.players:
        return state
    changes: dict[str, Any] = {}
    if not state.voice:
        down = list(state.voice_down)
        hidden = [k for k, card in enumerate(down) if card and seat not in state.voice_seen[k]]
        if hidden:
            pool = chance.shuffle("determinize:voice", sorted(voice_contents(state) + [down[k] for k in hidden]))
            for k, card in zip(hidden, pool, strict=False):
                down[k] = card
            rest = pool[len(hidden):]
            changes["voice_down"] = tuple(down)
            changes["voice_deck"] = tuple(rest.count(sv) for sv in SERVICES)
    blind = [(i, k) for i, cards in enumerate(state.played) for k, (card, face_down) in enumerate(cards) if face_down and card]
    if blind:
        pool = chance.shuffle("determinize:politics", sorted([*state.deck, *(state.played[i][k][0] for i, k in blind)]))
        played = [list(cards) for cards in state.played]
        for (i, k), card in zip(blind, pool, strict=False):
            played[i][k] = (card, True)
        changes["played"] = tuple(tuple(cards) for cards in played)
        changes["deck"] = tuple(sorted(pool[len(blind):]))
    return state._replace(**changes) if changes else state


DEMO_TABLES = (Table({"players": 3}), Table({"players": 4}), Table({"players": 2}), Table({"players": 5}))


# What benchmarks/calibration.py measured of the analysis's win chances (the estimator of
# domain.records.review_walk.ANALYSIS_BUDGET) in 4-player greedy self-play games, 2026-12-06: the factors that
# correct them by how far into the game (kernel.review.calibrated), and the corrected chances at mid-game scored
# held out; kernel.review.calibration_sentence says them on the analysis page.
CALIBRATION: dict[str, Any] | None = {"games": 1000, "estimator": "random:12", "brier": 0.152, "raw_brier": 0.158,
                                      "leader_brier": 0.2156, "fair_brier": 0.1703, "favourite_share": 0.1,
                                      "favourites": 400, "favourites_predicted": 0.53, "favourites_won": 0.513,
                                      "shrink_by_progress": {"0.25": 0.28, "0.5": 0.633, "0.75": 0.779}}

# What the analysis's `suggest` thinks with (domain.kernel.review.suggest_budget; benchmarks/planner.py measures it
# against the greedy bot): the greedy bot's 4 best commands, each played out on the same 4 deals, random playouts:
# uniformly random playouts already beat the greedy bot at one seat in four (0.46 of 12 games),
# at a third of the greedy-lite ones' cost.
SUGGEST = Budget(candidates=4, per_candidate=4, rollout="random")
