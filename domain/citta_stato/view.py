"""What a seat may see of a Città-Stato state, laid out for a person reviewing the game.

Hidden from other seats: bags (only their size), unplayed war discs (only how many), face-down
war values until revealed, Republic cards, the swap pool and a drawn swap card. Everything else is
public and shown with the game's own names (cities, schemes, cards) next to their ids. Total: it
answers for any state a fold reaches, from before setup to the end, so a replay can stop anywhere.
"""

from __future__ import annotations

from typing import Any

from domain.kernel import AUTOMATIC, GAME_OVER, Edition, thaw

from . import solo
from .edition import BANNERS, COLOURS
from .rules import unsettled
from .state import GHOST, Seat, State

_NAMES: dict[str, dict[str, str]] = {}


def names(edition: Edition) -> dict[str, str]:
    """Id -> printed name for cities, schemes and cards, once per edition."""
    found = _NAMES.get(edition.content_hash)
    if found is None:
        d = edition.data
        found = {k: v["name"] for part in ("cities", "schemes", "cards") for k, v in d[part].items()}
        _NAMES[edition.content_hash] = found
    return found


def label(named: dict[str, str], key: str) -> str | None:
    """'Y3 Marseilles': the id a log uses and the name on the card; None for an empty place."""
    if not key:
        return None
    name = named.get(key)
    return f"{key} {name}" if name else key


def by_colour(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(COLOURS, counts, strict=True))


def by_banner(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(BANNERS, counts, strict=True))


def form_name(state: State, space: int) -> str | None:
    """The form of government whose stretch of the Republic track holds `space`."""
    for form, (lo, hi) in state.t.forms.items():
        if lo <= space <= hi:
            return form
    return None


def waiting_for(state: State, seat: int | None) -> dict[str, Any]:
    """The decision the game waits for; a drawn Republic swap card is shown only to its owner."""
    if state.phase == "over":
        return {"seat": None, "kind": GAME_OVER}
    if unsettled(state):
        return {"seat": None, "kind": AUTOMATIC}
    if not state.tasks:
        return {"seat": state.current, "kind": "turn", "action": state.seats[state.current].actions + 1}
    task = state.tasks[0]
    params: list[Any] = thaw(list(task[2:]))
    if task[0] == "keep_republic" and not (seat is None or task[1] == seat):
        params = [None]
    return {"seat": task[1], "kind": task[0].replace("_", "-"), "params": params}


def seat_view(state: State, i: int, s: Seat, mine: bool, named: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": i,
        "city": label(named, s.city),
        "vp": s.vp,
        "second_score": s.second,
        "crowns": s.crowns,
        "banners": by_banner(s.banners),
        "tracks": by_banner(s.tracks),
        "form": {"space": s.form, "name": form_name(state, s.form)},
        "republic": s.republic if mine else None,
        "bag": by_colour(s.bag) if mine else sum(s.bag),
        "supply": by_colour(s.supply),
        "war_discs": list(s.discs) if mine else len(s.discs),
        "retired_discs": list(s.retired),
        "personal_scheme": label(named, s.scheme),
        "cards": [label(named, c) for c in s.cards],
        "burned": by_colour(s.burned),
        "burned_cards": [label(named, c) for c in s.burned_cards],
        "actions": s.actions,
        "passed": s.passed,
    }
    if state.solo is not None:
        out["role"] = "Ghost" if i == GHOST else "human"
    return out


def market_rows(state: State) -> list[dict[str, Any]]:
    """Rows top to bottom, each with its price and the colours holding a cube there."""
    return [
        {"cost": cost, "cubes": [c for c, col in zip(COLOURS, state.market, strict=False) if col[r]]}
        for r, cost in enumerate(state.t.row_costs)
        if state.market
    ]


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What `seat` may see (None: everything, for review)."""
    sees_all = seat is None
    named = names(state.edition)
    out: dict[str, Any] = {
        "round": state.round,
        "phase": state.phase,
        "pending": waiting_for(state, seat),
        "first_player": state.first if state.seats else None,
        "current": state.current if state.phase == "turns" else None,
        "upgrade": state.upgrade,
        "schemes": [
            {"slot": k + 1, "scheme": label(named, x), "face_up": up}
            for k, (x, up) in enumerate(zip(state.schemes, state.schemes_up, strict=False))
        ],
        "market": market_rows(state),
        "present": {c: label(named, x) for c, x in zip(COLOURS, state.present, strict=True)},
        "future": {c: label(named, x) for c, x in zip(COLOURS, state.future, strict=True)},
        "deck_sizes": {c: len(d) for c, d in zip(COLOURS, state.decks, strict=True)},
        "discards": {c: [label(named, x) for x in d] for c, d in zip(COLOURS, state.discards, strict=True)},
        "warfare": [
            {"seat": i, "value": v if sees_all or state.revealed or i == seat else None} for i, v in state.warfare
        ],
        "republic_pool": list(state.pool) if sees_all else len(state.pool),
        "reserve": by_colour(state.reserve),
        "box": by_colour(state.box),
        "seats": [seat_view(state, i, s, sees_all or i == seat, named) for i, s in enumerate(state.seats)],
    }
    if state.solo is not None:
        out["solo"] = solo.report(state)
    return out


NOBODY = -1  # a reader holding no seat: every seat's view but its own secrets


def public_view(state: State) -> dict[str, Any]:
    """What a reader without a seat sees while the game is in progress.

    Every seat sees how many cubes another seat's bag holds and how many War discs it has
    left (its owner knows them too), so they are public; the intersection of the seats'
    views (domain.records.views.common) would hide them, because each seat sees its own by
    colour. Nothing a seat alone knows is shown: bags by colour, disc values, Republic cards.
    """
    return view(state, NOBODY)

