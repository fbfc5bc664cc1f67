"""What the rules ask of chance next, for a game entered at the table one outcome at a time.

At a real table the cubes are drawn, the cards turned and the dice rolled by hand; the device in the middle
is told what was seen. Before a choice (or the setup) can be stored it needs every outcome it meets, and the
person entering them needs to know which comes next and what it could be. `next_ask` plays the choice with the
outcomes given so far, each checked for possibility exactly as a stored one is (an `ObservedChance`), and stops
at the first outcome the rules ask for beyond them: that is the `Ask` (its kind, source, how many, and what the
pool holds). None: nothing more is asked, the choice can be sent with those outcomes. An outcome that could
not have happened is the rules' own `ImpossibleOutcome`, raised as for a command.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from domain.kernel.chance import ObservedChance, Outcome

T = TypeVar("T")

DRAW, ROLL, SHUFFLE = "draw", "roll", "shuffle"


@dataclass(frozen=True)
class Ask:
    """The next outcome the rules need: a draw of `n` from `pool`, a roll of `n` dice of `faces`, or the order
    of `pool` (a shuffle, `n` its length)."""

    kind: str
    source: str
    n: int
    pool: tuple[Any, ...] = ()
    faces: int | None = None

    def possible(self) -> list[tuple[Any, int]]:
        """(value, how many of it could come up) in a first-seen order: the pool's items, or a die's faces."""
        if self.kind == ROLL:
            return [(face, self.n) for face in range(1, (self.faces or 6) + 1)]
        counted = Counter(self.pool)
        return [(value, counted[value]) for value in dict.fromkeys(self.pool)]


class Needed(Exception):  # noqa: N818  (named for what happened: not a refusal, a question)
    """The rules asked for an outcome beyond those given (control flow of `next_ask`, never a rule violation)."""

    def __init__(self, ask: Ask) -> None:
        super().__init__(f"the rules ask for a {ask.kind} from {ask.source}")
        self.ask = ask


class AskingChance(ObservedChance):
    """The outcomes given so far, each checked as `ObservedChance` checks it; the first one beyond them raises
    `Needed` with what the rules asked."""

    def __init__(self, outcomes: Iterable[Outcome | Mapping[str, Any]]) -> None:
        super().__init__(outcomes)

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        if not self.has_unused:
            raise Needed(Ask(DRAW, source, min(n, len(contents)), tuple(contents)))
        return super().draw(source, contents, n)

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        if not self.has_unused:
            raise Needed(Ask(SHUFFLE, source, len(items), tuple(items)))
        return super().shuffle(source, items)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        if not self.has_unused:
            raise Needed(Ask(ROLL, source, dice, (), faces))
        return super().roll(source, dice, faces)


def next_ask(run: Callable[[AskingChance], Any], outcomes: Iterable[Outcome | Mapping[str, Any]]
             ) -> tuple[Ask | None, list[Outcome]]:
    """The first outcome `run` (a choice or the setup, played with the chance given) asks for beyond `outcomes`
    (None: they are all it needs), and the outcomes given that it never asked for (a claim of more chance than
    happened: only once it asks for nothing more)."""
    chance = AskingChance(outcomes)
    try:
        run(chance)
    except Needed as needed:
        return needed.ask, []
    return None, chance.unused
