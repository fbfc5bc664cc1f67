"""What the bots read into a Città-Stato state: the debts a running score already shows (the greedy bot,
domain.kernel.bots), and the hidden parts re-dealt as one seat could imagine them (the planner, domain.kernel.review)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from domain.kernel.bots import Table
from domain.kernel.chance import Chance
from domain.kernel.contract import Game
from domain.kernel.review import Budget

from .edition import COLOURS
from .rules import bag_list, republic_deck
from .state import State, new_seat, new_state


def shape(game: Game, state: Any, scores: Mapping[str, Any], seat: int) -> dict[int, float]:
    """The VP track, less what the final scoring would take: crowns short of the payment, a Form off the card.

    The weights are measured (benchmarks/solo_bot.py), not printed numbers: a crown short costs
    about two points, a Form outside the card three; cubes, banners and spare crowns are worth a little.
    """
    out = {}
    for row in scores["seats"]:
        b = row["breakdown"]
        crowns = b["crowns_held"] + b["republic_bonus_crowns"]
        short = max(0, b["crowns_required"] - crowns)
        spare = min(3, max(0, crowns - b["crowns_required"]))
        out[row["seat"]] = (row["total"] - 2.0 * short - 3.0 * (not b["in_form"]) + 0.25 * b["supply_cubes"]
                            + 0.5 * sum(b["banners"].values()) + 0.5 * spare)
    return out


# The tables the demo sits, in order. The solo is the human against the Ghost (scenario 1, first game of the campaign).
DEMO_TABLES = (
    Table({"players": 3}),
    Table({"players": 2, "solo": {"scenario": 1, "game": 1, "carried_crowns": 0}}, ("Ada", "Ghost")),
    Table({"players": 4}),
    Table({"players": 2}),
    Table({"players": 5}),
)


def determinize(state: State, seat: int, chance: Chance) -> State:
    """A state `seat` cannot tell from this one (its view is equal), the others' secrets re-dealt by `chance`.

    Re-dealt among the other seats: the cubes of their bags (pooled, each bag keeping its size), each
    seat's own War discs (those in its supply and those face down on the track: its starting set less
    the retired ones, which everyone can count), and the Republic cards nobody has shown `seat` (the
    others' cards, a swap card another seat drew, the swap pool, the plain cards left out of the deal).
    What `seat` alone remembers (the card it put back in the pool, a disc value an alliance named) is
    not used: the deal is uniform over what the view leaves open. Each pool is sorted before it is
    shuffled, so who held what before cannot show through the deal.
    """
    if not state.seats:
        return state
    others = [i for i in range(len(state.seats)) if i != seat]
    seats = list(state.seats)
    dealt = iter(chance.shuffle("determinize:bags", sorted(c for i in others for c in bag_list(seats[i].bag))))
    for i in others:
        got = Counter(next(dealt) for _ in range(sum(seats[i].bag)))
        seats[i] = new_seat(seats[i], bag=tuple(got[c] for c in COLOURS))
    warfare = list(state.warfare)
    for i in others:
        down = [k for k, (owner, _) in enumerate(warfare) if owner == i] if not state.revealed else []
        mixed = chance.shuffle(f"determinize:discs:{i}", sorted([*seats[i].discs, *(warfare[k][1] for k in down)]))
        for k, value in zip(down, mixed, strict=False):
            warfare[k] = (i, value)
        seats[i] = new_seat(seats[i], discs=tuple(sorted(mixed[len(down):])))
    return _republic(new_state(state, seats=tuple(seats), warfare=tuple(warfare)), seat, chance)


def _republic(state: State, seat: int, chance: Chance) -> State:
    """The Republic cards `seat` has not seen, dealt again into the places that hold them face down."""
    seats = list(state.seats)
    holders = [i for i, s in enumerate(seats) if i != seat and s.republic]
    drawn = [k for k, task in enumerate(state.tasks) if task[0] == "keep_republic" and task[1] != seat]
    hidden = [seats[i].republic for i in holders] + [state.tasks[k][2] for k in drawn] + list(state.pool)
    if state.solo is None:  # the plain cards left out of the deal could be anywhere hidden too
        seen = Counter(s.republic for s in seats if s.republic)
        seen.update(task[2] for task in state.tasks if task[0] == "keep_republic")
        seen.update(state.pool)
        hidden += (Counter(republic_deck(state)) + Counter(state.t.swap_pool) - seen).elements()
    if not hidden:
        return state
    mixed = iter(chance.shuffle("determinize:republic", sorted(hidden)))
    for i in holders:
        seats[i] = new_seat(seats[i], republic=next(mixed))
    tasks = list(state.tasks)
    for k in drawn:
        tasks[k] = (*tasks[k][:2], next(mixed), *tasks[k][3:])
    pool = tuple(sorted(next(mixed) for _ in state.pool))
    return new_state(state, seats=tuple(seats), tasks=tuple(tasks), pool=pool)


# What benchmarks/calibration.py measured of the analysis's win chances (the estimator of
# domain.records.review_walk.ANALYSIS_BUDGET) in 4-player greedy self-play games, 2026-12-06: the factors that
# correct them by how far into the game (kernel.review.calibrated), and the corrected chances at mid-game scored
# held out; kernel.review.calibration_sentence says them on the analysis page.
CALIBRATION: dict[str, Any] | None = {"games": 1000, "estimator": "random:12", "brier": 0.1672, "raw_brier": 0.1725,
                                      "leader_brier": 0.3697, "fair_brier": 0.1725, "favourite_share": 0.1,
                                      "favourites": 400, "favourites_predicted": 0.392, "favourites_won": 0.404,
                                      "shrink_by_progress": {"0.25": 0.281, "0.5": 0.499, "0.75": 0.728}}

# What the analysis's `suggest` thinks with (domain.kernel.review.suggest_budget; benchmarks/planner.py measures it
# against the greedy bot): the greedy bot's 4 best commands, each played out on the same 4 deals, greedy-lite playouts:
# uniformly random playouts of Città-Stato hardly tell a good move from a poor one (12 games at
# the fair share), the greedy-lite ones won 0.54 of 24 games at one seat in four.
SUGGEST = Budget(candidates=4, per_candidate=4, rollout="greedy-lite")
