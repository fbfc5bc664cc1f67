"""What the greedy bot (domain.kernel.bots) reads into a running Città-Stato score: the debts the scores already show."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.kernel.bots import Table
from domain.kernel.contract import Game


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
