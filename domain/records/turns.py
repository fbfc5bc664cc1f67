"""Step ranges of the setup and of each turn, shared by records and by a rejected import's replay."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


def turn_ranges(entry_seats: Sequence[int | None], entry_sizes: Sequence[int], names: Sequence[str],
                round_at: Callable[[int], int | None]) -> list[dict[str, Any]]:
    """A turn is consecutive commands by one seat. Its round is the title's own where `round_at`
    (the all-seeing view's integer `round` at a step) says; otherwise a new round starts when a
    turn's seat is not after the previous turn's seat."""
    out: list[dict[str, Any]] = [{"turn": 0, "round": 0, "seat": None, "player": None, "from": 0,
                                  "to": entry_sizes[0], "commands": 0}]
    step = entry_sizes[0]
    counted = 0
    previous: int | None = None
    for seat, size in zip(entry_seats[1:], entry_sizes[1:], strict=True):
        if out[-1]["seat"] == seat and out[-1]["turn"] > 0:
            out[-1]["to"] += size
            out[-1]["commands"] += 1
        else:
            if previous is None or (seat is not None and seat <= previous):
                counted += 1
            previous = seat
            own = round_at(step)
            out.append({"turn": len(out), "round": counted if own is None else own, "seat": seat,
                        "player": names[seat] if seat is not None else None,
                        "from": step, "to": step + size, "commands": 1})
        step += size
    return out


def round_in_view(view_at: Callable[[], Any]) -> int | None:
    """The integer `round` of an all-seeing view, or None when the view cannot say."""
    try:
        found = view_at().get("round")
    except Exception:  # noqa: BLE001  (a view that cannot say leaves the counted round)
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None
