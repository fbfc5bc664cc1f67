"""What the rules ask of chance next, for a game entered at the table one outcome at a time.

At a real table the cubes are drawn, the cards turned and the dice rolled by hand; the device in the middle
is told what was seen. Before a choice (or the setup) can be stored it needs every outcome it meets, and the
person entering them needs to know which comes next and what it could be. `next_ask` plays the choice with the
outcomes given so far, each checked for possibility exactly as a stored one is (an `ObservedChance`), and stops
at the first outcome the rules ask for beyond them: that is the `Ask` (its kind, source, how many, and what the
pool holds). None: nothing more is asked, the choice can be sent with those outcomes. An outcome that could
not have happened is the rules' own `ImpossibleOutcome`, raised as for a command.

A pool's contents are a secret wherever the title's `view` hides them (a deck's cards, another seat's bag). Asked
with one seat's token (`closed`: the pools that seat's view does not show) an ask names such a pool but lists
nothing of it (`hidden`), and where someone else can enter it (`sealed`: a game at the table, whose table key
enters every outcome seen) an outcome the seat gives from it is refused (`HiddenPool`) before it is checked:
checking it would tell the seat, one refusal at a time, what the pool holds. The table key asks with nothing closed.
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
    hidden: bool = False  # a pool the asker may not see: its contents (and size) are not in the ask

    def possible(self) -> list[tuple[Any, int]]:
        """(value, how many of it could come up) in a first-seen order: the pool's items, or a die's faces."""
        if self.kind == ROLL:
            return [(face, self.n) for face in range(1, (self.faces or 6) + 1)]
        if self.hidden:
            return []
        counted = Counter(self.pool)
        return [(value, counted[value]) for value in dict.fromkeys(self.pool)]


class Needed(Exception):  # noqa: N818  (named for what happened: not a refusal, a question)
    """The rules asked for an outcome beyond those given (control flow of `next_ask`, never a rule violation)."""

    def __init__(self, ask: Ask) -> None:
        super().__init__(f"the rules ask for a {ask.kind} from {ask.source}")
        self.ask = ask


class HiddenPool(Exception):  # noqa: N818  (named for what it is: the pool the outcome came from)
    """An outcome given with a seat's token from a pool that seat's view does not show: only the table key enters it."""

    def __init__(self, kind: str, source: str) -> None:
        super().__init__(f"a {kind} from {source} is entered with the table key: what it holds is hidden from this seat")
        self.kind = kind
        self.source = source


Closed = Callable[[str], bool]
"""source -> whether its contents are hidden from the asker (never for dice: a die's faces are no secret)."""


class SeatChance(ObservedChance):
    """Outcomes entered with one seat's token: each checked as `ObservedChance` checks it, except that, `sealed`, a
    draw or a shuffle from a pool `closed` to that seat is refused (`HiddenPool`) before its values are compared with
    the pool. (Unsealed: a record with no table key, whose seats alone enter its outcomes.)"""

    def __init__(self, outcomes: Iterable[Outcome | Mapping[str, Any]], closed: Closed | None = None,
                 sealed: bool = True) -> None:
        super().__init__(outcomes)
        self.closed = closed
        self.sealed = sealed

    def _hidden(self, source: str) -> bool:
        return self.closed is not None and self.closed(source)

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        if self.sealed and self._hidden(source):
            raise HiddenPool(DRAW, source)
        return super().draw(source, contents, n)

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        if self.sealed and self._hidden(source):
            raise HiddenPool(SHUFFLE, source)
        return super().shuffle(source, items)


class AskingChance(SeatChance):
    """The outcomes given so far, each checked as `SeatChance` checks it; the first one beyond them raises
    `Needed` with what the rules asked (a pool `closed` to the asker named, its contents and size left out)."""

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        if not self.has_unused:
            if self._hidden(source):
                raise Needed(Ask(DRAW, source, n, (), hidden=True))
            raise Needed(Ask(DRAW, source, min(n, len(contents)), tuple(contents)))
        return super().draw(source, contents, n)

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        if not self.has_unused:
            hidden = self._hidden(source)
            raise Needed(Ask(SHUFFLE, source, 0 if hidden else len(items), () if hidden else tuple(items), hidden=hidden))
        return super().shuffle(source, items)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        if not self.has_unused:
            raise Needed(Ask(ROLL, source, dice, (), faces))
        return super().roll(source, dice, faces)


def next_ask(run: Callable[[AskingChance], Any], outcomes: Iterable[Outcome | Mapping[str, Any]],
             closed: Closed | None = None, sealed: bool = True) -> tuple[Ask | None, list[Outcome]]:
    """The first outcome `run` (a choice or the setup, played with the chance given) asks for beyond `outcomes`
    (None: they are all it needs), and the outcomes given that it never asked for (a claim of more chance than
    happened: only once it asks for nothing more). `closed`: the pools hidden from the asker; `sealed`: an outcome
    given from one is a `HiddenPool` (SeatChance)."""
    chance = AskingChance(outcomes, closed, sealed)
    try:
        run(chance)
    except Needed as needed:
        return needed.ask, []
    return None, chance.unused
