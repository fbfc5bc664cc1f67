"""What the bots need of Serenissima: the demo's tables, and hidden money imagined as one seat could
(the planner, domain.kernel.review); the greedy bot (domain.kernel.bots) reads the running scores alone."""

from __future__ import annotations

from typing import Any

from domain.kernel.bots import Table
from domain.kernel.chance import Chance
from domain.kernel.review import Budget
from domain.serenissima.state import State, replace


def determinize(state: State, seat: int, chance: Chance) -> State:
    """A state `seat` cannot tell from this one (its view is equal), the others' hidden ducats re-dealt by `chance`.

    Only money can be hidden (the `hidden` money option, until the game is over). What the other seats
    hold together is known (the bank's payments are public); each of their ducats goes to one of them
    with a chance in proportion to what that seat has announced. Everything else is on the board, and
    the Doge deck is the multiset of cards not yet face up, drawn by chance anyway.
    """
    if not state.hidden_money or state.phase == "over" or not state.players:
        return state
    others = [i for i in range(state.players) if i != seat]
    weights = [max(1, state.announced[i]) for i in others]
    money = list(state.money)
    total = sum(money[i] for i in others)
    for i in others:
        money[i] = 0
    whole = sum(weights)
    for _ in range(total):
        x = chance.roll("determinize:ducats", 1, whole)[0]
        k = 0
        while x > weights[k]:
            x -= weights[k]
            k += 1
        money[others[k]] += 1
    return replace(state, money=tuple(money))


DEMO_TABLES = (Table({"players": 3}), Table({"players": 4}), Table({"players": 2}))


# What benchmarks/calibration.py measured of the analysis's win chances (the estimator of
# domain.records.review_walk.ANALYSIS_BUDGET) in 4-player greedy self-play games, 2026-12-06: the factors that
# correct them by how far into the game (kernel.review.calibrated), and the corrected chances at mid-game scored
# held out; kernel.review.calibration_sentence says them on the analysis page.
CALIBRATION: dict[str, Any] | None = {"games": 1000, "estimator": "random:12", "brier": 0.1374, "raw_brier": 0.1379,
                                      "leader_brier": 0.2169, "fair_brier": 0.1815, "favourite_share": 0.1,
                                      "favourites": 400, "favourites_predicted": 0.725, "favourites_won": 0.718,
                                      "shrink_by_progress": {"0.25": 0.549, "0.5": 0.891, "0.75": 1.0}}

# What the analysis's `suggest` thinks with (domain.kernel.review.suggest_budget; benchmarks/planner.py measures it
# against the greedy bot): the greedy bot's 4 best commands, each played out on the same 4 deals, random playouts:
# greedy-lite playouts of a whole Serenissima game cost minutes a decision; uniformly random ones
# won 0.43 of 30 games at one seat in four.
SUGGEST = Budget(candidates=4, per_candidate=4, rollout="random")
