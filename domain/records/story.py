"""What the viewer reads beside the board: the story in words and the scores over time.

Pure helpers over a record's folded events; `Records` (application.py) holds the lock, the
reader rules and the memos. A step's sentence depends only on its event, the state before
it and the seats' names, and a stream is append-only, so the sentences of the first k
events are true at every later version: they are built once and only new events are told.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel import Event, Game
from domain.kernel.describe import Sentence, sentence
from domain.records.readmodels import Turn

log = logging.getLogger("cronaca.story")

UNAVAILABLE = "scores over time are shown once the game is over"


def plain_words(event_type: str) -> str:
    """An event's type in words, for a title whose `describe` has not landed: 'citta-stato/cards-renewed'
    reads 'cards renewed' (the type is public: every reader already sees it in a step's `event`)."""
    words = event_type.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ").strip()
    return words or event_type


def tell(game: Game, event: Event, before: Any, names: Sequence[str]) -> Sentence | None:
    """The title's sentence for one event, or the plain words of its type when the title has no `describe`.

    A `describe` that fails on one event is logged and that line falls back to the plain words:
    one title's bug never blanks the move list.
    """
    describe = getattr(game, "describe", None)
    if describe is None:
        return sentence(plain_words(event.type))
    try:
        return describe(event, before, names)
    except Exception:
        log.exception("%s: describe failed on %s", getattr(game, "title", "?"), event.type)
        return sentence(plain_words(event.type))


def rounds_by_step(turns: Sequence[Turn], steps: int) -> list[int | None]:
    """The round of each step 0..steps, as `Records.reading.turns` counts it (step k belongs to the turn whose
    events include event k; step 0 to the setup)."""
    out: list[int | None] = [None] * (steps + 1)
    for turn in turns:
        for k in range(turn.start + 1, min(turn.stop, steps) + 1):
            out[k] = turn.round
    if turns:
        out[0] = turns[0].round
    return out


def seats_by_step(entry_starts: Sequence[int], entry_seats: Sequence[int | None], steps: int) -> list[int | None]:
    """The seat whose command caused each event, indexed by step (1-based; index 0 is None)."""
    out: list[int | None] = [None] * (steps + 1)
    bounds = [*entry_starts[1:], steps]
    for start, stop, seat in zip(entry_starts, bounds, entry_seats, strict=True):
        for k in range(start + 1, stop + 1):
            out[k] = seat
    return out


def totals_of(scores: Mapping[str, Any], seats: int) -> list[float]:
    """Each seat's running total from a `scores()` answer; 0 for a seat it does not list yet (before the setup)."""
    found = {row.get("seat"): row.get("total") for row in scores.get("seats", ()) if isinstance(row, Mapping)}
    out: list[float] = []
    for seat in range(seats):
        total = found.get(seat)
        out.append(total if isinstance(total, int | float) and not isinstance(total, bool) else 0)
    return out


def round_marks(turns: Sequence[Turn]) -> list[dict[str, int]]:
    """Where each round begins: its first step (the state after the round's first event). The setup is no round."""
    marks: list[dict[str, int]] = []
    for turn in turns:
        if turn.turn == 0 or turn.round is None:
            continue
        if not marks or marks[-1]["round"] != turn.round:
            marks.append({"round": turn.round, "step": turn.start + 1})
    return marks


def lead_changes(totals: Sequence[Sequence[float]], final_ranking: Sequence[int]) -> list[dict[str, int]]:
    """The steps where another seat takes the lead (a strictly higher running total than every other seat).

    A tie keeps the lead where it was; at the last step a tie at the top is settled by the title's
    ranking (its tie-break), so the list ends with the winner.
    """
    out: list[dict[str, int]] = []
    leader: int | None = None
    last = len(totals) - 1
    for step, row in enumerate(totals):
        if not row:
            continue
        top = max(row)
        at_top = [seat for seat, total in enumerate(row) if total == top]
        now = leader
        if len(at_top) == 1:
            now = at_top[0]
        elif step == last and final_ranking and final_ranking[0] in at_top:
            now = final_ranking[0]
        if now is not None and now != leader:
            out.append({"step": step, "seat": now})
            leader = now
    return out


def winners(scores: Mapping[str, Any]) -> list[int]:
    """The winning seat(s) of a finished game: the title's own `winners` where it shares a victory,
    else the first of its ranking (ties broken as the rules break them)."""
    shared = scores.get("winners")
    if isinstance(shared, list) and shared:
        return [s for s in shared if isinstance(s, int)]
    ranking = scores.get("ranking") or []
    return list(ranking[:1])
