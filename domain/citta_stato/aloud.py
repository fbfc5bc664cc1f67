"""Città-Stato's board read aloud: what a screen reader says of one step's board, in the rulebook's words.

`board(view, edition, names)` reads the same reader's view the picture is drawn from (replay_viewer/boards),
so it says exactly what the picture shows: a seat's bag by colour only to that seat, a face-down War disc as
face down. One sentence per part of the table: the round, each player's board, the Market, the action cards,
the Political Schemes, the Warfare track and the general supply.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.aloud import count, is_hidden, listed, part
from domain.kernel.describe import name_of
from domain.kernel.editions import Edition

from .describe import FORM
from .edition import COLOUR_NAMES as COLOUR
from .edition import COLOURS

PHASE = {"setup": "setup", "turns": "the players' turns", "over": "the game is over"}


def _by_colour(counts: Any, what: str = "") -> str:
    """'3 yellow, 1 green and 1 purple' from {colour: n}; 'none' when every count is 0."""
    if is_hidden(counts) or not isinstance(counts, Mapping):
        return f"{counts} {what}".strip() if isinstance(counts, int) else "hidden"
    return listed((f"{n} {COLOUR.get(c, c)}" for c in COLOURS if isinstance(n := counts.get(c, 0), int) and n), "empty")


def _seat(view: Mapping[str, Any], s: Mapping[str, Any], names: Sequence[str]) -> str:
    who = name_of(names, s.get("seat"))
    city = str(s.get("city") or "").partition(" ")[2] or s.get("city")
    form = part(s, "form")
    parts = [f"{count(s.get('vp'), 'VP', 'VP')}, {count(s.get('crowns'), 'crown')}"]
    if form.get("name"):
        parts.append(f"{FORM.get(form['name'], form['name'])} marker on space {form.get('space')}")
    parts.append(f"supply {_by_colour(s.get('supply'))}")
    bag = s.get("bag")
    parts.append(f"bag {_by_colour(bag)}" if isinstance(bag, Mapping) and not is_hidden(bag)
                 else f"bag of {count(bag, 'cube')}, colours hidden")
    parts.append(f"banners {_by_colour(s.get('banners'))}")
    tracks = part(s, "tracks")
    parts.append("tracks " + listed(f"{COLOUR.get(c, c)} {n}" for c, n in tracks.items()))
    cards = s.get("cards")
    parts.append("cards in hand " + (listed((str(c) for c in cards), "none") if isinstance(cards, list) else "hidden"))
    discs = s.get("war_discs")
    parts.append("War discs " + (listed(str(d) for d in discs) if isinstance(discs, list)
                                 else f"{count(discs, 'disc')} face down"))
    republic = s.get("republic")
    parts.append(f"Republic card {republic}" if isinstance(republic, str) and republic else "Republic card hidden")
    if s.get("personal_scheme"):
        parts.append(f"personal scheme {s['personal_scheme']}")
    if s.get("passed"):
        parts.append("passed")
    place = f" ({city})" if city else ""
    ghost = " the Ghost" if s.get("role") == "Ghost" else ""
    return f"{who}{ghost}{place}: " + "; ".join(parts) + "."


def board(view: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> list[str]:
    """Sentences for one step's board as this reader may see it."""
    out: list[str] = []
    pending = part(view, "pending")
    to_play = f"; {name_of(names, pending['seat'])} to play" if isinstance(pending.get("seat"), int) else ""
    phase = PHASE.get(str(view.get("phase")), str(view.get("phase")))
    out.append(f"Round {view.get('round')}, {phase}{to_play}; upgrade track at {view.get('upgrade')}.")
    out.extend(_seat(view, s, names) for s in view.get("seats") or [] if isinstance(s, Mapping))
    rows = [r for r in view.get("market") or [] if isinstance(r, Mapping)]
    out.append("Market: " + "; ".join(f"at {count(r.get('cost'), 'coin')} "
                                      + listed((COLOUR.get(c, c) for c in r.get("cubes") or []), "nothing")
                                      for r in rows) + ".")
    for side in ("present", "future"):
        cards = part(view, side)
        out.append(f"{side.capitalize()} cards: " + listed(f"{COLOUR.get(c, c)} {cards[c]}" for c in COLOURS if cards.get(c)) + ".")
    schemes = [s for s in view.get("schemes") or [] if isinstance(s, Mapping)]
    out.append("Political Schemes: " + listed(f"level {s.get('slot')} {s.get('scheme') if s.get('face_up') else 'face down'}"
                                              for s in schemes) + ".")
    war = [w for w in view.get("warfare") or [] if isinstance(w, Mapping)]
    discs = (f"space {k} {name_of(names, w.get('seat'))}'s disc, "
             + (f"value {w['value']}" if isinstance(w.get("value"), int) else "face down") for k, w in enumerate(war, 1))
    out.append("Warfare track: " + listed(discs, "no discs") + ".")
    out.append(f"General supply {_by_colour(view.get('reserve'))}; box {_by_colour(view.get('box'))}.")
    return out
