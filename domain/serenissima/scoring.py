"""Ducats decide Serenissima: `scores(state)`, and the counting behind it.

The scoring rounds (warehouse payouts and the basilica bonus, paid when the Doge's track
passes a scoring space), the ranking with its tie-break (the most Port cards), and the
counts of Port cards and galleys that the breakdown shows.
"""

from __future__ import annotations

from typing import Any

from domain.serenissima.state import NEUTRAL, State


def ports_of(s: State, seat: int) -> int:
    return sum(1 for p in s.ports if p.owner == seat)


def galleys_of(s: State, seat: int) -> int:
    return sum(1 for g in s.galleys if g is not None and g.owner == seat)


def scoring(s: State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(warehouse payout, basilica bonus) per seat, for the ports each owns now."""
    t = s.t
    w = [0] * s.players
    b = [0] * s.players
    for p in s.ports:
        if p.owner != NEUTRAL:
            w[p.owner] += t.payout[len(p.warehouse)]
            if p.basilica:
                b[p.owner] += t.basilica_bonus
    return tuple(w), tuple(b)


def ranking(s: State) -> tuple[int, ...]:
    """Richest first; a tie goes to the most Port cards; a full tie keeps seat order (shared)."""
    return tuple(sorted(range(s.players), key=lambda seat: (-s.money[seat], -ports_of(s, seat), seat)))


def scores(state: State) -> dict[str, Any]:
    """Ducats decide the game. With hidden money, running scores show only what was announced."""
    over = state.phase == "over"
    secret = state.hidden_money and not over
    ducats = state.announced if secret else state.money
    if over:
        ranked = list(state.ranking)
    elif secret:
        ranked = sorted(range(state.players), key=lambda seat: (-ducats[seat], -ports_of(state, seat), seat))
    else:
        ranked = list(ranking(state)) if state.players else []
    return {
        "finished": over,
        "ranking": ranked,
        "seats": [
            {
                "seat": seat,
                "total": ducats[seat],
                "breakdown": {
                    "ducats": "hidden" if secret else ducats[seat],
                    "announced": state.announced[seat],
                    "port_cards": ports_of(state, seat),
                    "galleys": galleys_of(state, seat),
                },
            }
            for seat in range(state.players)
        ],
    }
