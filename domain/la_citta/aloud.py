"""La Città's board read aloud: what a screen reader says of one step's board, in the game's words.

`board(view, edition, names)` reads the same reader's view the picture is drawn from (replay_viewer/boards),
so it says no more than the picture: a face-down voice card a seat has not polled stays unknown. One sentence
for the year, one per player, one per city ("Ada's city at L45: castle with 3 citizens, market place at L44"),
then the voice of the people, the politics display and the stock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.aloud import count, is_hidden, listed, part
from domain.kernel.describe import name_of
from domain.kernel.editions import Edition


def _word(name: Any) -> str:
    """An edition name as words: farm_house -> farm house; a value the reader may not see -> face down."""
    return "face down" if name is None or is_hidden(name) else str(name).replace("_", " ")


def _seat(s: Mapping[str, Any], names: Sequence[str]) -> str:
    played = [p for p in s.get("played") or [] if p]
    parts = [f"{s.get('gold')} gold", f"{s.get('food')} food", count(s.get("cities"), "city", "cities"),
             count(s.get("citizens"), "citizen"), f"{count(s.get('figures_left'), 'figure')} left",
             f"{count(s.get('castles_left'), 'castle')} left", count(s.get("action_cards"), "action card")]
    down = sum(1 for p in played if p == "face-down")
    if played:
        parts.append("played " + listed([*(_word(p) for p in played if p != "face-down"),
                                         *([f"{count(down, 'card')} face down"] if down else [])]))
    if s.get("hungry"):
        parts.append(f"{count(s['hungry'], 'citizen')} hungry")
    if s.get("loses_first_turn"):
        parts.append("loses the first turn")
    return f"{name_of(names, s.get('seat'))}: " + ", ".join(parts) + "."


def _city(c: Mapping[str, Any], names: Sequence[str]) -> str:
    citizens = f"castle with {count(c.get('citizens'), 'citizen')}"
    if isinstance(c.get("limit"), int):
        citizens += f" (room for {c['limit']})"
    buildings = [f"{_word(b.get('building'))} at {b.get('hex')}" for b in c.get("buildings") or [] if isinstance(b, Mapping)]
    services = part(c, "services")
    served = [f"{_word(k)} {n}" for k, n in services.items() if n]
    tail = f"; services {listed(served)}" if served else ""
    return f"{name_of(names, c.get('owner'))}'s city at {c.get('castle')}: {listed([citizens, *buildings])}{tail}."


def board(view: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> list[str]:
    """Sentences for one step's board as this reader may see it."""
    pending = part(view, "pending")
    to_play = f"; {name_of(names, pending['seat'])} to play" if isinstance(pending.get("seat"), int) else ""
    out = [f"Year {view.get('year')} of {view.get('years')}, {_word(view.get('phase'))} phase{to_play}."]
    out.extend(_seat(s, names) for s in view.get("seats") or [] if isinstance(s, Mapping))
    out.extend(_city(c, names) for c in view.get("cities") or [] if isinstance(c, Mapping))
    figures = part(view, "figures")
    for kind, spots in figures.items():
        if spots:
            out.append(f"{_word(kind).capitalize()} figures at " + listed(str(x.get("hex", x)) if isinstance(x, Mapping) else str(x)
                                                                           for x in spots) + ".")
    voice = part(view, "voice")
    down = voice.get("face_down") if isinstance(voice.get("face_down"), list) else []
    out.append(f"Voice of the people: {_word(voice.get('face_up')) if voice.get('face_up') else 'no card'} face up; "
               + (f"face down {listed(_word(d) for d in down)}; " if down else "")
               + f"{count(voice.get('deck'), 'card')} in the deck.")
    politics = part(view, "politics")
    out.append("Politics display: " + listed((_word(c) for c in politics.get("display") or []), "empty")
               + f"; {count(politics.get('deck'), 'card')} in the deck.")
    stock = part(view, "stock")
    out.append("Building stock: " + listed(f"{n} {_word(k).replace(' ', ' or ')}" for k, n in stock.items())
               + f"; {count(view.get('supply'), 'citizen')} in the supply.")
    return out
