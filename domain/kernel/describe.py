"""Events in words: the sentences of a move list, each shown as its reader may read it.

A title's `describe(event, before, names)` returns a `Sentence` (or None for an event that
says nothing a person needs, such as a bookkeeping marker). A sentence is a tuple of parts:
plain strings, and `Secret`s for the words only one seat may read while the game is in
progress ("draws {Secret('2 orange, 1 black', seat=0, shown='3 cubes')}"). `say(sentence,
reader)` joins the parts as that reader may read them, through the same `reveal` that
guards a rule violation's facts, so the move list is no new path for a secret.

`before` is the state the event folds onto (the title needs it to name what changed:
"the last cube of the row", "the third galley"); `names` are the seats' names in seat order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.kernel.violations import Reader, Secret, reveal

Part = str | Secret
Sentence = tuple[Part, ...]


def sentence(*parts: Part) -> Sentence:
    return tuple(parts)


def hidden(value: str, seat: int | None, shown: str) -> Secret:
    """Words only `seat` may read; every other reader reads `shown` instead."""
    return Secret(value, seat, shown)


def say(words: Sentence | None, reader: Reader) -> str | None:
    """The sentence as `reader` may read it (None stays None)."""
    if words is None:
        return None
    return "".join(str(reveal(part, reader)) for part in words)


def name_of(names: Sequence[str], seat: Any) -> str:
    """A seat's name, or a plain 'seat N' when the names do not reach (a test, a bare replay)."""
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return f"seat {seat}"
