"""A greedy bot for any title: realistic games for demos, benchmarks and the solo campaigns.

The search knows no title's rules. For the pending decision it tries every legal command on
the state, follows the deciding seat's own next commands greedily (a turn is a chain of small
commands: "buy a cube" is worth something only once the cube is used) through `turns` more
of its turns, and keeps the command whose chain ends at the best value for that seat.

The value is read from the contract's JSON only, `scores(state)` and, for some titles, the
seat's `view`: the seat's running total ahead of its best rival. A running total ignores
what the end will still ask for, so a title may offer `bot_shape` on its Game (kept in its
package's `bot.py`): the debts its scores already show (crowns short of a payment, citizens
the food will not feed). A solo report (`scores()["solo"]`) is judged by
the scenario's terms: the game won, each objective met (or how far along), the score up to
the required one.

It never peeks at the table's chance: its simulations draw from a throwaway `SeededChance`
keyed by the bot's own thinking seed, so a die it "rolls" while thinking is not the die the
table rolls. `play_bot` plays a whole game in the shape of `selfplay.play_random`: the
table's outcomes come from `SeededChance(seed)`, and the log replays with `replay`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.kernel.chance import SeededChance
from domain.kernel.commands import Command
from domain.kernel.contract import Game, play
from domain.kernel.editions import Edition
from domain.kernel.selfplay import Check, PlayedGame, play_out, random_choice

Value = Callable[[Game, Any, int], float]
Shape = Callable[[Game, Any, Mapping[str, Any], int], dict[int, float]]  # (game, state, scores, deciding seat) -> points

# A solo report's weights: a won game beats any score; an objective met is worth more than a turn's points.
WIN = 1000.0
OBJECTIVE = 30.0
PROGRESS = 10.0  # an objective part-way: this times the fraction done
BEYOND = 0.25  # each point past the required score (it carries crowns into the next game)
REPEAT = 1e6  # a command that leads back to a recent state: never, unless every command does


@dataclass(frozen=True)
class Table:
    """A table the demo sits (a title's `DEMO_TABLES`): its setup options, and its seats' names when the
    title names them itself (a solo game's Ghost); otherwise the demo names one seat per player."""

    options: Mapping[str, Any]
    names: tuple[str, ...] = ()


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def progress(value: Any, target: Any) -> float:
    """How far along an objective is, 0..1, from its report's value and target alone (no title knowledge)."""
    if isinstance(target, Mapping) and isinstance(value, Mapping):  # at least n of each
        want = sum(max(0, int(n)) for n in target.values() if _number(n))
        have = sum(min(int(value.get(k, 0)), int(n)) for k, n in target.items() if _number(n))
        return have / want if want else 0.0
    if isinstance(target, list) and isinstance(value, Mapping):  # one of each listed
        return sum(1 for k in target if value.get(k, 0)) / len(target) if target else 0.0
    if _number(target) and _number(value):
        return max(0.0, min(1.0, value / target)) if target > 0 else 0.0
    return 0.0  # a form, a flag: met or not


def solo_value(report: Mapping[str, Any], points: float) -> float:
    """A solo report as one number: won first, then objectives, then `points` up to the required score."""
    required = float(report.get("required_score", 0))
    score = float(report["score"]) if report.get("finished") else points
    value = WIN if report.get("won") else 0.0
    for o in report.get("objectives", []):
        value += OBJECTIVE if o.get("met") else PROGRESS * progress(o.get("value"), o.get("target"))
    return value + min(score, required) + BEYOND * max(0.0, score - required)


def value_for(game: Game) -> Value:
    """The value a seat's chain ends at: its shaped points ahead of the best rival's, or its solo report."""
    shape: Shape | None = getattr(game, "bot_shape", None)

    def value(game: Game, state: Any, seat: int) -> float:
        scores = game.scores(state)
        if shape is None or scores["finished"]:
            points = {row["seat"]: float(row["total"]) for row in scores["seats"]}
        else:
            points = shape(game, state, scores, seat)
        report = scores.get("solo")
        if isinstance(report, Mapping):  # a solo game: only the human ever decides
            return solo_value(report, points[seat])
        rivals = [p for s, p in points.items() if s != seat]
        return points[seat] - (max(rivals) if rivals else 0.0)

    return value


@dataclass(frozen=True)
class GreedyBot:
    """One decision, judged after the deciding seat's next `turns` turns (at most `steps` commands).

    A turn ends where the seat meets the kind of decision it is choosing now again (its next
    turn action, its next cube to buy); the chain also stops when another seat must decide.
    Inside the chain only `width` of the legal commands are tried (a seeded sample when there
    are more) and the best is taken, so a decision costs about candidates x steps x width
    simulated commands. The defaults are measured by benchmarks/solo_bot.py.
    """

    turns: int = 2
    steps: int = 16
    width: int = 6
    breadth: int = 32  # candidates judged at the decision itself (a seeded sample when there are more)
    value: Value | None = None  # None: value_for(game)

    def choose(self, game: Game, state: Any, rng: SeededChance, think: str, recent: Sequence[Any] = ()) -> Command:
        """The command for the pending decision; ties go to `rng`; `think` keys the throwaway chance.

        A command whose result equals one of the `recent` states (a sailor moved back and forth)
        is taken only when every command does that, so a game always moves on.
        """
        pending = game.pending(state)
        if pending.seat is None:
            raise ValueError(f"no seat is deciding ({pending.kind})")
        candidates = list(game.legal(state))
        if not candidates:
            raise ValueError(f"no legal command while pending {pending}")
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > self.breadth:
            candidates = [candidates[i] for i in _sample(rng, len(candidates), self.breadth)]
        value = self.value or value_for(game)
        best: list[Command] = []
        top = float("-inf")
        for c in candidates:
            v = self._judge(game, state, c, pending.seat, pending.kind, value, think, recent)
            if v > top:
                top, best = v, [c]
            elif v == top:
                best.append(c)
        return best[rng.below(len(best))] if len(best) > 1 else best[0]

    def values(self, game: Game, state: Any, candidates: Sequence[Command], think: str) -> list[float]:
        """What `choose` would make of each of `candidates` for the deciding seat (the planner's prior)."""
        pending = game.pending(state)
        if pending.seat is None:
            raise ValueError(f"no seat is deciding ({pending.kind})")
        value = self.value or value_for(game)
        return [self._judge(game, state, c, pending.seat, pending.kind, value, think, ()) for c in candidates]

    def _judge(self, game: Game, state: Any, c: Command, seat: int, kind: str, value: Value, think: str,
               recent: Sequence[Any]) -> float:
        _, after = play(game, state, c, SeededChance(think))  # the same imagined chance for every candidate
        penalty = REPEAT if any(after == r for r in recent) else 0.0
        picker = SeededChance(think + "/width")
        turns = 0
        for _ in range(self.steps):
            p = game.pending(after)
            if p.over or p.seat != seat:
                break
            if p.kind == kind:
                turns += 1
                if turns > self.turns:
                    break
            options = list(game.legal(after))
            if len(options) > self.width:
                options = [options[i] for i in _sample(picker, len(options), self.width)]
            follow = think + "/follow"
            scored = [(value(game, s, seat), s) for s in (play(game, after, o, SeededChance(follow))[1] for o in options)]
            after = max(scored, key=lambda x: x[0])[1]
        return value(game, after, seat) - penalty


def _sample(rng: SeededChance, n: int, k: int) -> list[int]:
    """k of range(n), in order, chosen by rng."""
    pool = list(range(n))
    for i in range(k):
        j = i + rng.below(n - i)
        pool[i], pool[j] = pool[j], pool[i]
    return sorted(pool[:k])


def play_bot(
    game: Game,
    edition: Edition,
    options: Mapping[str, Any],
    seed: str,
    bot: GreedyBot | None = None,
    seats: Sequence[int] | None = None,
    check: Check | None = None,
    max_commands: int = 100_000,
    memory: int = 32,
) -> PlayedGame:
    """Play one game with the bot at `seats` (all by default) and uniformly random legal play elsewhere.

    As in `play_random`, the table's chance is `SeededChance(seed)` and the random seats draw
    from `seed + "/players"`; the bot breaks ties from `seed + "/bot"` and imagines from
    `seed + "/bot-think/<n>"`, streams that tell nothing of the table's. `memory` recent states
    are kept so the bot never loops.
    """
    bot = bot or GreedyBot()
    rng = SeededChance(seed + "/bot")
    recent: deque[Any] = deque(maxlen=memory)

    def choose(state: Any, n: int, players: SeededChance) -> Command:
        if seats is None or game.pending(state).seat in seats:
            return bot.choose(game, state, rng, f"{seed}/bot-think/{n}", recent)
        return random_choice(game, state, players)

    return play_out(game, edition, options, seed, choose, check, max_commands, after=recent.append)
