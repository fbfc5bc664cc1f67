"""Scoring: `scores(state)`, with the First score, Second score, the Republic card check and the crown payment."""

from __future__ import annotations

from typing import Any

from . import solo
from .edition import BANNERS
from .state import GHOST, Now, State, crowns_between


def scores(state: State) -> dict[str, Any]:
    """The contract's `scores`: running VP during play, the final score with its breakdown at the end."""
    over = state.phase == "over"
    rows = final_scores(state) if state.seats else []
    totals = list(state.finals) if over else [s.vp for s in state.seats]
    seats = []
    for i, s in enumerate(state.seats):
        breakdown = dict(rows[i])
        breakdown.update(crowns=s.crowns, banners=dict(zip(BANNERS, s.banners, strict=True)), form=s.form, supply_cubes=sum(s.supply))
        seats.append({"seat": i, "total": totals[i], "breakdown": breakdown})
    if state.solo is not None:  # the human wins by the scenario's terms, not by out-scoring the Ghost
        report = solo.report(state)
        order = [0, GHOST] if report["won"] or not over else [GHOST, 0]
        return {"finished": over, "ranking": order, "seats": seats, "solo": report}
    out: dict[str, Any] = {"finished": over, "ranking": ranking(state, totals) if state.seats else [], "seats": seats}
    level = tied(state, totals) if state.seats else []
    if level:  # seats the rulebook's tie-breaks do not part share their place (listed in seat order in `ranking`)
        out["tied"] = level
    return out


def in_form(state: Now, seat: int) -> bool:
    s = state.seats[seat]
    form = state.t.republic_form.get(s.republic)
    if form is None:  # no Republic card dealt yet (a replay stopped in setup)
        return False
    lo, hi = state.t.forms[form]
    return lo <= s.form <= hi


def final_scores(state: Now) -> list[dict[str, Any]]:
    out = []
    for i, s in enumerate(state.seats):
        first, second = s.vp, s.second
        if i == GHOST and state.solo is not None:  # the Ghost's marker stays on the required score
            out.append({"first": first, "second": 0, "in_form": False, "crowns_required": 0, "crowns_held": 0, "republic_bonus_crowns": 0, "paid": False, "final": first})
            continue
        low, high = min(first, second), max(first, second)
        form_ok = in_form(state, i)
        required = crowns_between(state, first, second)
        bonus = state.t.crowned_bonus if state.t.republic_crowns.get(s.republic) else 0
        paid = form_ok and s.crowns + bonus >= required
        out.append(
            {
                "first": first,
                "second": second,
                "in_form": form_ok,
                "crowns_required": required,
                "crowns_held": s.crowns,
                "republic_bonus_crowns": bonus,
                "paid": paid,
                "final": high if paid else low,
            }
        )
    return out


def _standing(state: State, finals: list[int], i: int) -> tuple[int, int, int]:
    """The rulebook's order: the final score, then First + Second, then cubes in supply (higher is better)."""
    s = state.seats[i]
    return (-finals[i], -(s.vp + s.second), -sum(s.supply))


def ranking(state: State, finals: list[int]) -> list[int]:
    """Best first by `_standing`; seats still level after both tie-breaks are listed in seat order (see `tied`)."""
    return sorted(range(state.players), key=lambda i: (*_standing(state, finals, i), i))


def tied(state: State, finals: list[int]) -> list[list[int]]:
    """Groups of seats the rulebook's two tie-breaks leave level: they share their place.

    The rulebook stops at "If still in a tie, then the player with the most cubes in their
    supply is declared the winner", so no seat order (or anything else) is invented to part them.
    """
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i in range(state.players):
        groups.setdefault(_standing(state, finals, i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]
