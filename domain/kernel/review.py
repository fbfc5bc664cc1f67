"""Judging a position for a game review: what each seat may expect from here.

The analysis of a finished record (issue 33) asks two questions at every decision, and
nothing else of the planning bot: what each seat may expect from this state (`estimate`),
and what the deciding seat should have played (`suggest`). Both answer from what the
deciding seat could see then, never from the finished game's all-seeing view.

`RolloutReviewer` is the plain one: uniformly random playouts from the state as it is
(all-seeing). `Planner` is the one the analysis uses (`reviewer`): each playout starts
from a determinization, a state the seat cannot tell from the real one with the others'
secrets re-dealt (the title's `bot_determinize`, kept in its package's bot.py), and plays
on with a cheap greedy policy; `suggest` spreads its playouts over the candidate commands
(the greedy bot's best few), every candidate judged on the same determinizations.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from domain.kernel.bots import GreedyBot
from domain.kernel.chance import Chance, SeededChance
from domain.kernel.commands import Command
from domain.kernel.contract import Game, play
from domain.kernel.selfplay import random_choice


@dataclass(frozen=True)
class Budget:
    """How much thinking one question may take: `playouts` games played out, cut at `seconds` if given."""

    playouts: int = 16
    seconds: float | None = None
    max_commands: int = 5_000
    candidates: int = 8  # `suggest` plays out the greedy bot's best this many commands
    per_candidate: int = 8  # `suggest` plays out this many games of each
    rollout: str = "random"  # the playouts' policy: "random" (uniformly random legal play) or "greedy-lite" (GreedyPolicy)


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


Policy = Callable[[Game, Any, SeededChance, str], Command]  # (game, state, the players' stream, thinking key)
Standing = tuple[dict[int, float], dict[int, float], dict[int, float]]


def determinize(game: Game, state: Any, seat: int | None, chance: Chance) -> Any:
    """A state `seat` cannot tell from `state` (its view is equal), the secrets it cannot see re-dealt by `chance`.

    The title's `bot_determinize` (kept in its package's bot.py) knows what is hidden; a title without
    one hides nothing. `seat` None is the all-seeing view: the state as it is.
    """
    deal = getattr(game, "bot_determinize", None)
    if deal is None or seat is None:
        return state
    return deal(state, seat, chance)


def random_policy(game: Game, state: Any, players: SeededChance, think: str) -> Command:
    return random_choice(game, state, players)


@dataclass(frozen=True)
class GreedyPolicy:
    """The greedy bot cut down to a glance (one turn ahead, a few commands tried), now and then random.

    The `random` share keeps playouts from the greedy bot's loops (it remembers no recent states
    here) and spreads them over what opponents might do. Cost and strength: benchmarks/planner.py.
    """

    bot: GreedyBot = GreedyBot(turns=1, steps=3, width=2, breadth=4)
    random: float = 0.25

    def __call__(self, game: Game, state: Any, players: SeededChance, think: str) -> Command:
        if players.below(1000) < self.random * 1000:
            return random_choice(game, state, players)
        return self.bot.choose(game, state, players, think)


def _estimate(rows: Sequence[Standing]) -> Estimate:
    return Estimate(_mean([r[0] for r in rows]), _mean([r[1] for r in rows]), _mean([r[2] for r in rows]), len(rows))


def _error(diffs: Sequence[float], mean: float) -> float:
    """The standard error of a mean of paired differences."""
    return math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs))


def _worth(rows: Sequence[Standing], seat: int) -> float:
    """How good the playouts were for `seat`: its win share, then its rank, then its margin, as one number."""
    total = 0.0
    for win, rank, score in rows:
        rivals = [v for s, v in score.items() if s != seat]
        margin = score[seat] - (max(rivals) if rivals else 0.0)
        total += win[seat] - 0.05 * rank[seat] + 0.002 * margin
    return total / len(rows)


@dataclass(frozen=True)
class Planner:
    """Determinized playouts from the deciding seat's view, played on by a cheap policy (flat Monte Carlo).

    Playout n of a question starts from determinization n (`{think}/deal/n`) and draws the table's
    chance from `{think}/chance/n`, whichever command it judges: candidates are compared on the same
    deals and dice. So the answers depend on `think` and on what the seat could see, nothing else.
    """

    budget: Budget = Budget()
    policy: Policy = random_policy  # as Budget's default rollout; reviewer() picks the budget's
    greedy: GreedyBot = GreedyBot()  # ranks the candidates before any playout

    def estimate(self, game: Game, state: Any, seat: int | None, think: str) -> Estimate:
        started = time.monotonic()
        rows: list[Standing] = []
        for n in range(self.budget.playouts):
            if n and self.budget.seconds is not None and time.monotonic() - started > self.budget.seconds:
                break
            rows.append(self._playout(game, state, seat, None, think, n))
        return _estimate(rows)

    def suggest(self, game: Game, state: Any, think: str, recent: Sequence[Any] = ()) -> tuple[Command, Estimate]:
        """The greedy bot's choice, unless the playouts show another of its best candidates clearly better.

        The greedy bot (kernel.bots) ranks the commands on the first deal (what the seat could see);
        its `candidates` best are each played out on the same `per_candidate` deals and dice. A
        playout's win share is too coarse to overrule a careful look ahead on a few games, so the
        greedy choice stands unless another's paired advantage is more than one standard error.
        A player at the table passes the `recent` states: a command leading back to one of them (a
        sailor moved back and forth) is left out unless every command does, so its game moves on.
        """
        seat = game.pending(state).seat
        if seat is None:
            raise ValueError("no seat is deciding")
        candidates = list(game.legal(state))
        if not candidates:
            raise ValueError("no legal command")
        if recent and len(candidates) > 1:
            onward = [c for c in candidates if play(game, state, c, SeededChance(think))[1] not in recent]
            candidates = onward or candidates
        if len(candidates) > 1:
            dealt = determinize(game, state, seat, SeededChance(f"{think}/deal/0"))
            prior = self.greedy.values(game, dealt, candidates, f"{think}/greedy")
            order = sorted(range(len(candidates)), key=lambda i: (-prior[i], i))
            candidates = [candidates[i] for i in order[: self.budget.candidates]]
        started = time.monotonic()
        rows: list[list[Standing]] = [[] for _ in candidates]
        for n in range(self.budget.per_candidate):
            if n and self.budget.seconds is not None and time.monotonic() - started > self.budget.seconds:
                break
            for i, command in enumerate(candidates):
                rows[i].append(self._playout(game, state, seat, command, think, n))
        best = 0  # the greedy bot's choice
        edge = 0.0
        for i in range(1, len(candidates)):
            diffs = [_worth([a], seat) - _worth([b], seat) for a, b in zip(rows[i], rows[0], strict=True)]
            if len(diffs) > 1:
                mean = sum(diffs) / len(diffs)
                low = mean - _error(diffs, mean)
                if low > edge:
                    best, edge = i, low
        return candidates[best], _estimate(rows[best])

    def _playout(self, game: Game, state: Any, seat: int | None, command: Command | None, think: str, n: int) -> Standing:
        chance = SeededChance(f"{think}/chance/{n}")
        dealt = determinize(game, state, seat, SeededChance(f"{think}/deal/{n}"))
        if command is not None:
            _, dealt = play(game, dealt, command, chance)
        players = SeededChance(f"{think}/players/{n}")
        for k in range(self.budget.max_commands):
            if game.pending(dealt).over:
                break
            _, dealt = play(game, dealt, self.policy(game, dealt, players, f"{think}/policy/{n}/{k}"), chance)
        return final_standing(game, dealt)  # a playout cut short is judged on its running scores


POLICIES: dict[str, Policy] = {"greedy-lite": GreedyPolicy(), "random": random_policy}

# What `suggest` thinks with where a title names nothing of its own (`bot_suggest` on its Game, kept in its bot.py):
# the greedy bot's 4 best commands, each played out on the same 4 deals with uniformly random play.
SUGGEST = Budget(candidates=4, per_candidate=4, rollout="random")


def suggest_budget(game: Game) -> Budget:
    """The budget `suggest` is measured at against the greedy bot for this title (benchmarks/planner.py)."""
    own: Budget | None = getattr(game, "bot_suggest", None)
    return own or SUGGEST


def shrink_at(game: Game, progress: float) -> float:
    """How far to trust the raw win chances this far (0-1) into a game: the factors the title's calibration fitted
    at the phases it measured (`shrink_by_progress`), by straight lines between them, flat before the first, and
    to 1 (raw) at the end, where every playout meets the same finish. No figures: 1."""
    c: Mapping[str, Any] = getattr(game, "bot_calibration", None) or {}
    knots = sorted((float(at), float(factor)) for at, factor in (c.get("shrink_by_progress") or {}).items())
    if not knots:
        return 1.0
    if progress <= knots[0][0]:
        return knots[0][1]
    knots.append((1.0, 1.0))
    for (p0, s0), (p1, s1) in itertools.pairwise(knots):
        if progress <= p1 and p1 > p0:
            return s0 + (s1 - s0) * (progress - p0) / (p1 - p0)
    return 1.0


def calibrated(game: Game, estimate: Estimate, progress: float) -> Estimate:
    """The estimate as the analysis shows it: each win chance shrunk toward the even share by `shrink_at`
    (a few playouts judge a mid-game position more surely than the games bear out; benchmarks/calibration.py
    measures by how much). Expected ranks and scores are left as played out."""
    factor = shrink_at(game, progress)
    if factor == 1.0 or not estimate.win:
        return estimate
    fair = 1 / len(estimate.win)
    return replace(estimate, win={s: fair + factor * (p - fair) for s, p in estimate.win.items()})


def calibration_sentence(game: Game) -> str:
    """One sentence for the analysis page: how far its win chances can be trusted, from the title's measured
    calibration (`bot_calibration` on its Game, the figures of benchmarks/calibration.py kept in its bot.py):
    the chances as the page shows them (`calibrated`), scored on games their correction was not fitted on."""
    c: Mapping[str, Any] | None = getattr(game, "bot_calibration", None)
    if not c:
        return "These win chances have not been checked against played games of this title yet."
    favourites = (f" the seats it favoured most (the top {c['favourite_share']:.0%} of its chances, on average "
                  f"{c['favourites_predicted']:.0%}) went on to win {c['favourites_won']:.0%} of the time;"
                  if c.get("favourites") else "")
    return (f"Checked at mid-game on {c['games']:,} self-play games:{favourites} the win chances score {c['brier']:.3f} "
            f"(Brier, lower is better) where \"the current leader wins\" scores {c['leader_brier']:.3f} "
            f"and an even chance for every seat {c['fair_brier']:.3f}.")


def reviewer(budget: Budget = Budget()) -> Reviewer:
    """The reviewer the analysis uses: one place to swap in a stronger one."""
    return Planner(budget, POLICIES[budget.rollout])
