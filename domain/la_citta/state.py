"""The La Città state: `State` and `City`, `begin`, and the small questions asked of a state.

State is a NamedTuple (immutable) so that the fold (fold.py) can copy its fields into a list
once per batch of events; cities, seats' tuples and masks are shared between states. The
questions here (a city's population limit, its service points, a seat's food, a city's
neighbours) are asked by the rules, the view and the scores alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from domain.kernel import Edition
from domain.la_citta.edition import LIFTS_MARKET, LIFTS_WATER, Tables, Terrain, tables


class City(NamedTuple):
    owner: int
    castle: int
    buildings: tuple[tuple[int, str], ...]  # the non-castle buildings, (hex, kind)
    citizens: int  # every grey citizen in the city, castle and buildings
    mask: int  # bit set for every hex of the city, castle included

    @property
    def on_castle(self) -> int:
        """Citizens on the castle once each other building holds its one."""
        return self.citizens - len(self.buildings)

    def kinds(self) -> set[str]:
        return {k for _, k in self.buildings}


class State(NamedTuple):
    edition: Edition
    t: Tables
    players: int = 0
    setup: str = ""
    zone: int = 4
    land: Terrain | None = None
    year: int = 0
    phase: str = "setup"
    start: int = 0
    seating: tuple[int, ...] = ()  # clockwise from the starting player
    placing: tuple[int, ...] = ()
    cities: dict[int, City] = {}  # noqa: RUF012  (a field default, never mutated: every change builds a new dict)
    occupied: int = 0
    gold: tuple[int, ...] = ()
    food: tuple[int, ...] = ()
    castles_left: tuple[int, ...] = ()
    stock: tuple[int, ...] = ()
    supply: int = 0
    actions: tuple[int, ...] = ()
    founded: tuple[bool, ...] = ()
    figures: tuple[int, ...] = ()  # coloured figures used this year
    bread: tuple[tuple[int, int, str, int], ...] = ()  # (seat, hex, service, figures)
    harvest: tuple[tuple[int, int], ...] = ()  # (seat, farm house hex)
    penalty: tuple[bool, ...] = ()
    starved: tuple[bool, ...] = ()
    starved_last_year: tuple[bool, ...] = ()
    round: int = 0
    turn: int = 0
    acting: bool = False  # a political turn is under way: its first event folded, its TurnEnded not yet
    voice_deck: tuple[int, ...] = ()  # unseen cards per service
    voice_up: str = ""
    voice_down: tuple[str, ...] = ()  # "" until someone sees the card
    voice_seen: tuple[tuple[int, ...], ...] = ()
    voice: tuple[str, ...] = ()
    display: tuple[str, ...] = ()
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    played: tuple[tuple[tuple[str, bool], ...], ...] = ()  # per seat: (card, drawn blind)
    mig: int = 0
    attracted: tuple[int, ...] = ()
    links: dict[int, tuple[int, ...]] = {}  # noqa: RUF012  (a field default, never mutated): during relocation, city -> opposing neighbour cities
    hungry: tuple[int, ...] = ()

    @property
    def laid(self) -> Terrain:
        """The land once setup has laid it: every rule after setup reads it."""
        assert self.land is not None, "the land is laid at setup"
        return self.land


def begin(edition: Edition) -> State:
    return State(edition, tables(edition))


def order(s: State) -> tuple[int, ...]:
    """Clockwise from the starting player."""
    return s.seating


def bits(mask: int) -> Iterator[int]:
    """The hexes set in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cap(s: State, city: City) -> int | None:
    """The population limit: 5 without a market, 8 without a fountain or public bath too, else none."""
    lifts = s.t.lifts
    have = 0
    for _, k in city.buildings:
        have |= lifts[k]
    if not have & LIFTS_MARKET:
        return s.t.cap_market
    if not have & LIFTS_WATER:
        return s.t.cap_water
    return None


def points(s: State, city: City, service: str) -> int:
    """Service points: printed arches plus bread-and-games figures on this city's arches."""
    arches = s.t.arches
    total = 0
    for _, k in city.buildings:
        total += arches[k].get(service, 0)
    for _seat, h, sv, n in s.bread:
        if sv == service and city.mask >> h & 1:
            total += n
    return total


def food_of(s: State, seat: int) -> int:
    """Food production of a seat's castles and farm houses (what its food tokens must show)."""
    food = s.land.food if s.land else ()
    farms = s.t.food_kinds
    total = 0
    for c in s.cities.values():
        if c.owner == seat:
            total += food[c.castle] + sum(food[h] for h, k in c.buildings if k in farms)
    return total


def neighbours(s: State, c: City) -> tuple[int, ...]:
    """Opposing cities with 1 or 2 empty lane hexes between them and c (own cities never trade)."""
    return _neighbours(s.t.neighbour[s.zone], s.occupied, s.cities, c)


def _neighbours(table: tuple[int, ...], occupied: int, cities: dict[int, City], c: City) -> tuple[int, ...]:
    near = table[c.castle]
    for h, _ in c.buildings:
        near |= table[h]
    near &= occupied & ~c.mask
    if not near:
        return ()
    owner = c.owner
    return tuple(sorted(k for k, o in cities.items() if o.mask & near and o.owner != owner))
