"""Serenissima's words for a dispute report (domain/kernel/report_words.py): ports and sea zones by the names
printed on the board, decks and dice, what a player held and how the ducats at the end are made."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.report_words import listed

from . import GAME
from .edition import default_edition

_DATA = default_edition().data
_PORTS = {key: port["name"] for key, port in _DATA["ports"].items()}
_ZONES = {key: f"the {zone['name']}" for key, zone in _DATA["sea_zones"].items()}
_SOURCES = {"deck:doge": "the Doge deck", "dice:attacker": "the attacker's dice", "dice:defender": "the defender's dice",
            "dice:fort": "the fort's dice", "first-player": "the players (who plays first)"}
_STEPS = {"choose-start": "choosing a starting port", "choose-galley": "choosing a galley",
          "special-investment": "the special investment"}


def terms(token: str, names: Sequence[str]) -> str | None:
    """A token of the rules as the board says it: `venezia` Venezia, `marmara` the Sea of Marmara, `deck:doge` the
    Doge deck, `closed:wine` the closed wine ports; None for any other word."""
    if token in _PORTS:
        return _PORTS[token]
    if token in _ZONES:
        return _ZONES[token]
    if token in _SOURCES:
        return _SOURCES[token]
    kind, _, which = token.partition(":")
    if kind == "closed" and which:
        return f"the ports closed to {which}"
    return _STEPS.get(token)


_WAITING = {"choose-start": "to choose a starting port", "choose-galley": "to choose a galley",
            "special-investment": "to make the special investment", "loading": "to load goods",
            "movement": "to move the galley", "blockade": "to say whether a galley blockades",
            "sale-or-battle": "to sell or fight", "battle": "to fight the battle", "capture": "to say what is captured",
            "unload": "to unload sailors", "investment": "to invest", "plan": "to plan the galley's turn"}


def waiting(state: Any, since: Sequence[Any], moved: int, kind: str, names: Sequence[str]) -> str | None:
    """Why the rules wait for another player (rulebook: in each round the galleys act one by one as the black token
    moves, each galley's owner deciding its whole turn; in the setup the players choose in turn): the step, and the
    galley whose turn it is."""
    said = _WAITING.get(kind)
    act = getattr(state, "act", None)
    if said is not None and act is not None and kind not in ("choose-start", "choose-galley", "special-investment"):
        said += f" (galley {act.galley} is under the black token: its turn is under way)"
    return said


def _goods(goods: Sequence[str]) -> str:
    counted = Counter(goods)
    return listed([f"{n} {good}" for good, n in sorted(counted.items())]) if counted else "no goods"


def _sailors(n: int) -> str:
    return f"{n} sailor{'s' if n != 1 else ''}"


def _zone(zone: str) -> str:
    """A sea zone as a sentence says it: its board name (`the Ionian Sea`), a name printed with its port as it is."""
    said = _ZONES.get(zone)
    if said is not None:
        return said
    return zone if "/" in zone or zone.startswith("the ") else f"the {zone}"


def held_words(state: Any, seat: int, names: Sequence[str]) -> str:
    """What the seat held, as its own view shows it: ducats, sailors left to recruit, each port (sailors, warehouse,
    fort, basilica) and each galley (its zone, sailors and goods)."""
    view = GAME.view(state, seat)
    from_view = {"ducats": view["seats"][seat]["ducats"], "sailors_to_recruit": view["seats"][seat]["sailors_to_recruit"],
                 "ports": {pid: p for pid, p in view["ports"].items() if p["owner"] == seat},
                 "galleys": {n: g for n, g in view["galleys"].items() if g["owner"] == seat}}
    parts = [f"{from_view['ducats']} ducat{'s' if from_view['ducats'] != 1 else ''}",
             f"{from_view['sailors_to_recruit']} sailors left to recruit"]
    ports = []
    for pid, port in from_view["ports"].items():
        extras = [w for w, on in (("a fort", port["fort"]), ("a basilica", port["basilica"])) if on]
        stored = f", {_goods(port['warehouse'])} in the warehouse" if port["warehouse"] else ""
        ports.append(f"{_PORTS.get(pid, pid)} ({_sailors(port['sailors'])}{stored}"
                     + (f", {listed(extras)}" if extras else "") + ")")
    parts.append(f"ports {listed(ports)}" if ports else "no port")
    galleys = [f"galley {n} in {_zone(g['zone'])} ({_sailors(g['sailors'])}, {_goods(g['goods'])})"
               for n, g in from_view["galleys"].items()]
    parts.append(f"galleys {listed(galleys)}" if galleys else "no galley")
    return f"{names[seat] if seat < len(names) else 'this player'} held " + "; ".join(parts)


def breakdown_words(breakdown: Mapping[str, Any]) -> str:
    """The ducats at the end (rulebook, End of the game) as a table says them: "14 ducats, 2 Port cards for a tie".
    The ducats told aloud (`announced`) are said only while the money is hidden, where they are all the others know;
    galleys count for nothing at the end and are left out."""
    ducats, ports = breakdown.get("ducats"), breakdown.get("port_cards")
    cards = f"{ports} Port card{'s' if ports != 1 else ''} for a tie"
    if ducats == "hidden":
        told = breakdown.get("announced")
        return f"ducats hidden, {told} told to the table; {cards}"
    return f"{ducats} ducat{'s' if ducats != 1 else ''}, {cards}"
