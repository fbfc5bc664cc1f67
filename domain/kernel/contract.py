"""The Game contract every title implements: a decider plus a few queries.

    setup(edition, options, chance) -> [Event]   deal, shuffle, place: all as events
    decide(state, command, chance) -> [Event]    or raise RuleViolation; never mutates state
    evolve(state, event) -> state                total, deterministic, pure
    pending(state) -> Pending                    whose decision it is, and of what kind
    legal(state) -> [Command]                    the legal commands for that decision
    view(state, seat | None) -> JSON             what one seat may see (None: all-seeing review)
    scores(state) -> JSON                        running and final scores with breakdown
    describe(event, before, names) -> Sentence   the event in words, read from the state it folds onto (kernel.describe)

`play(state, command, chance) -> ([Event], state)` is optional: a title whose `decide`
already folds its own events (to settle the automatic steps that follow a choice) offers it
so that callers get the new state without folding the same events twice.

`bot_shape(game, state, scores, seat) -> {seat: points}` is optional too: what the greedy bot
(kernel.bots) should read into a running score that the end will still change.
`bot_determinize(state, seat, chance) -> state` too: the state with what `seat` cannot see
re-dealt by chance, its view unchanged (kernel.review's planner judges from a seat's view);
`bot_calibration`, the figures benchmarks/calibration.py measured of that planner's win
chances (kernel.review.calibration_sentence says them in one sentence, kernel.review.calibrated
applies their correction); and `bot_suggest`, the Budget its `suggest` is measured at.

`begin(edition)` is the state before the first event: the fold starts there, so `evolve`
never has to find an edition file on its own. Large choices are split into a chain of
small pending decisions (buy one cube, then another, then done), so `legal` can always
enumerate.

`view`, `pending` and `scores` are total: they answer for every state a fold can reach,
including before setup and between the events of one command (`pending` is then
`pending(None, AUTOMATIC)`), because a replay may stop at any step.

`scores()` returns {"finished": bool, "ranking": [seat, ...] best first (ties in the
order the rules break them), "seats": [{"seat": i, "total": n, "breakdown": {...}}]}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.kernel.chance import Chance
from domain.kernel.commands import Command
from domain.kernel.describe import Sentence
from domain.kernel.editions import Edition
from domain.kernel.events import Event
from domain.kernel.frozen import FrozenDict, freeze, thaw

GAME_OVER = "game-over"
# Between the events of one command (mid-setup, or while the rules settle steps nobody
# chooses) no seat is asked anything; a replay can still stop there and show the state.
AUTOMATIC = "automatic"


@dataclass(frozen=True, slots=True)
class Pending:
    """Who must decide next and what kind of decision it is; seat None once the game is over."""

    seat: int | None
    kind: str
    detail: FrozenDict = field(default_factory=FrozenDict)

    @property
    def over(self) -> bool:
        return self.kind == GAME_OVER

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "detail": thaw(self.detail)}


def pending(seat: int | None, kind: str, **detail: Any) -> Pending:
    return Pending(seat, kind, freeze(detail))


class Game(Protocol):
    title: str  # the public title id, stored in every record
    name: str  # the title as people write it, shown wherever the title is named
    seats: tuple[int, int]  # fewest and most seats the title supports

    def default_edition(self) -> Edition: ...

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition: ...

    def begin(self, edition: Edition) -> Any: ...

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]: ...

    def parse_command(self, payload: Mapping[str, Any]) -> Command: ...

    def decide(self, state: Any, command: Command, chance: Chance) -> list[Event]: ...

    def evolve(self, state: Any, event: Event) -> Any: ...

    def pending(self, state: Any) -> Pending: ...

    def legal(self, state: Any) -> Sequence[Command]: ...

    def view(self, state: Any, seat: int | None) -> dict[str, Any]: ...

    def scores(self, state: Any) -> dict[str, Any]: ...

    def describe(self, event: Event, before: Any, names: Sequence[str]) -> Sentence | None: ...


def fold(game: Game, state: Any, events: Sequence[Event]) -> Any:
    for e in events:
        state = game.evolve(state, e)
    return state


def play(game: Game, state: Any, command: Command, chance: Chance) -> tuple[list[Event], Any]:
    """Decide a command and fold its events: the title's own `play` when it has one."""
    own = getattr(game, "play", None)
    if own is not None:
        return own(state, command, chance)
    events = game.decide(state, command, chance)
    return events, fold(game, state, events)
