"""Step ranges of the setup and of each turn, shared by records and by a rejected import's replay."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from domain.records.readmodels import Turn


def turn_ranges(entry_seats: Sequence[int | None], entry_sizes: Sequence[int], names: Sequence[str],
                round_at: Callable[[int], int | None]) -> list[Turn]:
    """A turn is consecutive commands by one seat. Its round is the title's own where `round_at`
    (the all-seeing view's integer `round` at a step) says; otherwise a new round starts when a
    turn's seat is not after the previous turn's seat."""
    out = [Turn(0, 0, None, None, 0, entry_sizes[0], 0)]
    step = entry_sizes[0]
    counted = 0
    previous: int | None = None
    for seat, size in zip(entry_seats[1:], entry_sizes[1:], strict=True):
        last = out[-1]
        if last.seat == seat and last.turn > 0:
            out[-1] = replace(last, stop=last.stop + size, commands=last.commands + 1)
        else:
            if previous is None or (seat is not None and seat <= previous):
                counted += 1
            previous = seat
            own = round_at(step)
            out.append(Turn(len(out), counted if own is None else own, seat, names[seat] if seat is not None else None,
                            step, step + size, 1))
        step += size
    return out


def round_in_view(view_at: Callable[[], Any]) -> int | None:
    """The integer `round` of an all-seeing view, or None when the view cannot say."""
    try:
        found = view_at().get("round")
    except Exception:  # noqa: BLE001  (a view that cannot say leaves the counted round)
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None
