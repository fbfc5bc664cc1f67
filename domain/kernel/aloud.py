"""The words every title's `aloud.board` reads a board with: a screen reader's board is sentences, not digits.

Each title package has a room `aloud.py` whose `board(view, edition, names) -> list[str]` says the board of one
step in the game's own words, from the same reader's view the picture is drawn from (so it says no more than
the picture shows). These are the small helpers they share: lists as a person says them, counts with their
noun, and what a value the view hides reads as.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

HIDDEN = "hidden"


def is_hidden(value: Any) -> bool:
    """A value this reader may not see: `{"hidden": true, ...}` in a view (a count may ride beside it)."""
    return isinstance(value, Mapping) and value.get("hidden") is True


def listed(items: Iterable[str], empty: str = "none") -> str:
    """'a', 'a and b', 'a, b and c'; `empty` when there is nothing."""
    words = [w for w in items if w]
    if not words:
        return empty
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " and " + words[-1]


def count(n: Any, one: str, many: str | None = None) -> str:
    """'1 cube', '3 cubes'; a hidden number reads as 'hidden'."""
    if is_hidden(n) or not isinstance(n, int):
        return f"{many or one + 's'} {HIDDEN}"
    return f"{n} {one if n == 1 else (many or one + 's')}"


def part(view: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A part of a view that is a mapping (a seat's supply, the voice of the people), or an empty one."""
    found = view.get(key)
    return found if isinstance(found, Mapping) else {}
