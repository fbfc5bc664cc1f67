"""`view(state, seat)`: what one seat may see of a La Città table, laid out for a person reviewing it.

Hexes by their L-name, cities by their castle's hex, counts rather than flags; bookkeeping that
only drives the rules (links, placing order, turn pointers) stays out. Hidden while the game is
in progress: a face-down voice-of-the-people card shows only to the seats that polled it, and a
blind politics draw shows to nobody until it reaches the face-up discard pile at the end of the year.
"""

from __future__ import annotations

from typing import Any

from domain.la_citta import rules
from domain.la_citta.edition import SERVICES, terrain_words
from domain.la_citta.state import City, State, cap, points

UNDRAWN = "undrawn"  # a face-down voice card nobody has looked at: the review view's word for it


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The table as `seat` sees it (None: the review view). `round` is the year, which the service
    uses for its turns index.

    A face-down voice card shows only in the view of a seat that polled it until the cards are revealed at
    the tally, and in the review view (the all-seeing view of a finished game: every seat's secrets shown). A
    card nobody has polled is not drawn yet (cards are drawn when first seen): None in a seat's view, UNDRAWN in
    the review view, which hides nothing and so says so."""
    s = state
    if s.voice:
        down: list[str | None] = list(s.voice_down)
    elif seat is None:
        down = [card or UNDRAWN for card in s.voice_down]
    else:
        down = [card if card and seat in s.voice_seen[i] else None for i, card in enumerate(s.voice_down)]
    return {
        "round": s.year,
        "year": s.year,
        "years": int(s.t.data["year"]["years"]),
        "phase": s.phase,
        "political_round": s.round if s.phase == "politics" else None,
        "players": s.players,
        "setup": s.setup or None,
        "start": s.start,
        "turn_order": list(s.seating),
        "pending": rules.pending_of(s).to_json(),
        "tiles": {slot: _terrain(s, code) for slot, code in sorted(s.land.tiles.items())} if s.land else {},
        "cities": [_city(s, c) for _, c in sorted(s.cities.items())],
        "seats": [_seat(s, i) for i in range(s.players)],
        "figures": {
            "bread_and_games": [
                {"seat": a, "hex": hex_name(h), "service": sv, "figures": n} for a, h, sv, n in s.bread
            ],
            "rich_harvest": [{"seat": a, "farm_house": hex_name(h)} for a, h in s.harvest],
        },
        "voice": {"face_up": s.voice_up or None, "face_down": down, "services": list(s.voice), "deck": sum(s.voice_deck)},
        "politics": {"display": list(s.display), "deck": len(s.deck), "discard": list(s.discard)},
        "stock": dict(zip(s.t.pools, s.stock, strict=True)) if s.stock else {},
        "supply": s.supply,
    }


def hex_name(h: int) -> str:
    """A lane hex as the board names it: its L-number."""
    return f"L{h}"


def _terrain(s: State, code: str) -> str:
    return terrain_words(s.t.data, code)


def _city(s: State, c: City) -> dict[str, Any]:
    return {
        "castle": hex_name(c.castle),
        "owner": c.owner,
        "citizens": c.citizens,
        "limit": cap(s, c),
        "services": {sv: points(s, c, sv) for sv in SERVICES},
        "buildings": [{"hex": hex_name(h), "building": k} for h, k in c.buildings],
    }


def _seat(s: State, i: int) -> dict[str, Any]:
    own = [c for c in s.cities.values() if c.owner == i]
    return {
        "seat": i,
        "gold": s.gold[i],
        "food": s.food[i],
        "cities": len(own),
        "citizens": sum(c.citizens for c in own),
        "action_cards": s.actions[i],
        "castles_left": s.castles_left[i],
        "figures_left": int(s.t.data["year"]["coloured_figures"]) - s.figures[i],
        "played": [("face-down" if card else "none: deck empty") if blind else card for card, blind in s.played[i]],
        "loses_first_turn": s.penalty[i],
        "hungry": s.hungry[i],
    }
