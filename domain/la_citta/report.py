"""La Città's words for a dispute report (domain/kernel/report_words.py): buildings and cards by the edition's
names, the decks and steps of a year, what a player held and how the points at the end are made."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.report_words import listed

from . import events as ev
from .edition import default_edition
from .game import GAME
from .state import order

_DATA = default_edition().data
_THINGS = {key: key.replace("_", " ") for part in ("buildings", "politics") for key in _DATA[part] if "_" in key}
_SOURCES = {"voice": "the Voice of the People cards", "tiles": "the landscape tiles", "politics": "the politics cards"}
_STEPS = {"send-away": "sending hungry citizens away", "political-turn": "a political turn",
          "year-start": "the start of the year", "attract": "attracting citizens",
          "demolish": "demolishing a building", "place-castle": "placing a castle"}


def terms(token: str, names: Sequence[str]) -> str | None:
    """A token of the rules in the edition's words: `farm_house` farm house, `voice` the Voice of the People cards,
    `send-away` sending hungry citizens away; None for any other word (hexes stay L-numbers, as the board prints them)."""
    return _THINGS.get(token) or _SOURCES.get(token) or _STEPS.get(token)


def waiting(state: Any, since: Sequence[Any], moved: int, kind: str, names: Sequence[str]) -> str | None:
    """Why the rules wait for another player where `moved`'s line stands (rulebook: the year's political turns go
    clockwise from the starting player; a player whose citizens went hungry turns down the first action card of the
    next year for nothing): the step, and the rule that took `moved`'s turn when one did."""
    who = names[moved] if moved < len(names) else "this player"
    start = names[order(state)[0]] if getattr(state, "seating", None) else None
    clockwise = f"clockwise from the starting player, {start}" if start else "clockwise from the starting player"
    if kind == "political-turn":
        if any(isinstance(e, ev.TurnForfeited) and e.seat == moved for e in since):
            return (f"to take a political turn: {who}'s turn was lost to hunger (the rules take the first political "
                    f"turn of a year from a player whose citizens went hungry at the last feeding, and {who}'s did: "
                    "an action card turned down for nothing)")
        return f"to take a political turn (year {state.year}, the turns go {clockwise})"
    if kind == "attract":
        return f"to attract citizens (the migration goes {clockwise})"
    if kind == "send-away":
        return f"to send hungry citizens away (the feeding goes {clockwise})"
    if kind == "demolish":
        return "to demolish a building of a city with more buildings than citizens"
    if kind == "place-castle":
        return "to place a castle"
    return None


def held_words(state: Any, seat: int, names: Sequence[str]) -> str:
    """What the seat held, as its own view shows it: gold, food, action cards, castles, each city with its citizens
    and buildings, and the hunger penalty that takes its next political turn away."""
    view = GAME.view(state, seat)
    mine = (view.get("seats") or [{}] * (seat + 1))[seat]
    parts = [f"{mine.get('gold', 0)} gold", f"{mine.get('food', 0)} food",
             f"{mine.get('action_cards', 0)} action card{'s' if mine.get('action_cards') != 1 else ''} left this year",
             (f"{mine['castles_left']} castle{'s' if mine['castles_left'] != 1 else ''} not yet built"
              if mine.get("castles_left") else "every castle built")]
    cities = []
    for city in view.get("cities", []):
        if city["owner"] != seat:
            continue
        built = [f"{b['building'].replace('_', ' ')} on {b['hex']}" for b in city["buildings"]]
        limit = f" of {city['limit']}" if city["limit"] is not None else ""
        cities.append(f"the city at {city['castle']} ({city['citizens']}{limit} citizens"
                      + (f"; {listed(built)}" if built else "") + ")")
    parts.append(listed(cities) if cities else "no city")
    if mine.get("loses_first_turn"):
        parts.append("its citizens went hungry at the last feeding, so its next political turn is lost "
                     "(an action card turned down for nothing)")
    if mine.get("hungry"):
        parts.append(f"{mine['hungry']} hungry citizen{'s' if mine['hungry'] != 1 else ''} to send away")
    return f"{names[seat] if seat < len(names) else 'this player'} held " + "; ".join(parts)


def breakdown_words(breakdown: Mapping[str, Any]) -> str:
    """The points at the end (rulebook, End of the game): citizens, cities with every service, the hunger of the
    last year; gold only breaks a tie."""
    said = f"{breakdown.get('citizens')} for citizens, {breakdown.get('all_services')} for cities with every service"
    if breakdown.get("starved"):
        said += f", {breakdown['starved']} for hunger in the last year"
    return said + f" (gold {breakdown.get('gold')}, for a tie only)"
