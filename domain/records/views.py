"""What a caller may see of a state: the only path by which game secrets leave the service.

While a game is in progress a seat sees `game.view(state, seat)`; a caller without a seat
token sees what *every* seat sees. Unless the title offers `public_view(state)`, that is
the intersection of all seats' views: any value on which two seats' views disagree is
something one of them knows and another does not, so it is replaced by `HIDDEN`. Only a
finished record shows `game.view(state, None)`, the all-seeing review view.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Game, Pending
from domain.records.readmodels import Step

HIDDEN = {"hidden": True}


def common(views: list[Any]) -> Any:
    """The part of several views on which they all agree."""
    first = views[0]
    if all(v == first for v in views[1:]):
        return first
    if all(isinstance(v, dict) for v in views):
        keys = [k for k in first if all(k in v for v in views)]
        return {k: common([v[k] for v in views]) for k in keys}
    if all(isinstance(v, list) for v in views) and len({len(v) for v in views}) == 1:
        return [common([v[i] for v in views]) for i in range(len(first))]
    return HIDDEN


def public_view(game: Game, state: Any, seats: int) -> Any:
    own = getattr(game, "public_view", None)
    if callable(own):
        return own(state)
    return common([game.view(state, seat) for seat in range(seats)])


def visible(game: Game, state: Any, seats: int, finished: bool, seat: int | None) -> tuple[str, Any]:
    """(which view, the view) for a caller holding `seat`'s token (None: no token)."""
    if finished:
        return "all", game.view(state, None)
    if seat is not None:
        return f"seat:{seat}", game.view(state, seat)
    return "public", public_view(game, state, seats)


def pending_as_seen(pending: Pending, in_full: bool) -> dict[str, Any]:
    """The pending decision in full (for the seat that must decide, or once the game is over), else only whose
    it is and of what kind: its details can name what that seat holds."""
    return pending.to_json() if in_full else {"seat": pending.seat, "kind": pending.kind}


def all_seeing_step(game: Game, state: Any, n: int, last: int, event: Any | None) -> Step:
    """A step of a line that only ever shows a finished game (a what-if line, the "as ruled" reading), shaped as
    a finished record's step: the all-seeing view, the pending decision in full, the running scores."""
    return Step(n, last, "all", game.view(state, None), game.pending(state).to_json(),
                event=event.type if event is not None else None, scores=game.scores(state))
