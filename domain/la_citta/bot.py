"""What the greedy bot (domain.kernel.bots) reads into a running La Città score: citizens the food will not feed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.kernel.bots import Table
from domain.kernel.contract import Game


def shape(game: Game, state: Any, scores: Mapping[str, Any], seat: int) -> dict[int, float]:
    """Citizens count, less those the seat's food will not feed at the year's end; gold is worth a little."""
    seats = game.view(state, seat)["seats"]  # food and gold are on the table: the deciding seat sees every seat's
    return {row["seat"]: row["total"] - max(0, seats[row["seat"]]["citizens"] - seats[row["seat"]]["food"])
            + 0.25 * seats[row["seat"]]["gold"] for row in scores["seats"]}


DEMO_TABLES = (Table({"players": 3}), Table({"players": 4}), Table({"players": 2}), Table({"players": 5}))
