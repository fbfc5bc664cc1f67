"""Judging a position for a game review: what each seat may expect from here.

The analysis of a finished record (issue 33) asks two questions at every decision, and
nothing else of the planning bot: what each seat may expect from this state (`estimate`),
and what the deciding seat should have played (`suggest`). Both answer from what the
deciding seat could see then, never from the finished game's all-seeing view.

This first reviewer is the plain one: playouts of uniformly random legal play from the
state to the end, averaged. The planning bot replaces its insides (determinized from the
seat's view, a better rollout policy) behind the same two calls.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from domain.kernel.chance import SeededChance
from domain.kernel.commands import Command
from domain.kernel.contract import Game, play
from domain.kernel.selfplay import random_choice


@dataclass(frozen=True)
class Budget:
    """How much thinking one question may take: `playouts` games played out, cut at `seconds` if given."""

    playouts: int = 16
    seconds: float | None = None
    max_commands: int = 5_000


@dataclass(frozen=True)
class Estimate:
    """What each seat may expect at the end: its chance to win (ties shared), its rank (1 = first), its score."""

    win: Mapping[int, float]
    rank: Mapping[int, float]
    score: Mapping[int, float]
    playouts: int

    def to_json(self) -> dict[str, Any]:
        return {
            "win": {str(s): round(v, 4) for s, v in self.win.items()},
            "rank": {str(s): round(v, 3) for s, v in self.rank.items()},
            "score": {str(s): round(v, 2) for s, v in self.score.items()},
            "playouts": self.playouts,
        }


class Reviewer(Protocol):
    def estimate(self, game: Game, state: Any, seat: int | None, think: str) -> Estimate:
        """Each seat's prospects from `state`, as `seat` could see it (None: the all-seeing view)."""
        ...

    def suggest(self, game: Game, state: Any, think: str) -> tuple[Command, Estimate]:
        """The pending seat's best command from its own view, with the estimate after it."""
        ...


def final_standing(game: Game, state: Any) -> tuple[dict[int, float], dict[int, float], dict[int, float]]:
    """Win share, rank and score of each seat in a finished state (a solo game: won or not)."""
    scores = game.scores(state)
    totals = {int(row["seat"]): float(row["total"]) for row in scores["seats"]}
    solo = scores.get("solo")
    if isinstance(solo, Mapping):
        won = 1.0 if solo.get("won") else 0.0
        return {s: won for s in totals}, {s: 2.0 - won for s in totals}, totals
    top = max(totals.values())
    leaders = [s for s, t in totals.items() if t == top]
    win = {s: (1.0 / len(leaders) if s in leaders else 0.0) for s in totals}
    rank = {s: 1.0 + sum(1 for t in totals.values() if t > mine) for s, mine in totals.items()}
    return win, rank, totals


def _mean(rows: list[dict[int, float]]) -> dict[int, float]:
    seats = rows[0].keys()
    return {s: sum(r[s] for r in rows) / len(rows) for s in seats}


@dataclass(frozen=True)
class RolloutReviewer:
    """Random playouts to the end (all-seeing, until the planning bot determinizes them)."""

    budget: Budget = Budget()

    def estimate(self, game: Game, state: Any, seat: int | None, think: str) -> Estimate:
        started = time.monotonic()
        wins: list[dict[int, float]] = []
        ranks: list[dict[int, float]] = []
        totals: list[dict[int, float]] = []
        for n in range(self.budget.playouts):
            if n and self.budget.seconds is not None and time.monotonic() - started > self.budget.seconds:
                break
            end = self._play_out(game, state, f"{think}/playout/{n}")
            w, r, t = final_standing(game, end)
            wins.append(w)
            ranks.append(r)
            totals.append(t)
        return Estimate(_mean(wins), _mean(ranks), _mean(totals), len(wins))

    def suggest(self, game: Game, state: Any, think: str) -> tuple[Command, Estimate]:
        seat = game.pending(state).seat
        if seat is None:
            raise ValueError("no seat is deciding")
        best: tuple[Command, Estimate] | None = None
        for i, command in enumerate(game.legal(state)):
            _, after = play(game, state, command, SeededChance(f"{think}/try/{i}"))
            e = self.estimate(game, after, seat, f"{think}/after/{i}")
            if best is None or e.win[seat] - e.rank[seat] * 1e-3 > best[1].win[seat] - best[1].rank[seat] * 1e-3:
                best = (command, e)
        if best is None:
            raise ValueError("no legal command")
        return best

    def _play_out(self, game: Game, state: Any, think: str) -> Any:
        chance = SeededChance(think)
        players = SeededChance(think + "/players")
        for _ in range(self.budget.max_commands):
            if game.pending(state).over:
                return state
            _, state = play(game, state, random_choice(game, state, players), chance)
        raise RuntimeError(f"a playout did not end within {self.budget.max_commands} commands")


def reviewer(budget: Budget = Budget()) -> Reviewer:
    """The reviewer the analysis uses: one place to swap in a stronger one."""
    return RolloutReviewer(budget)
