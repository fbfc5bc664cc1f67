"""The La Città state and the fold: one small function per event type.

State is a NamedTuple (immutable, cheap `_replace`), so each event rebuilds only the
fields it touches; cities, seats' tuples and masks are shared between states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from domain.kernel import Edition, Event
from domain.la_citta import events as ev
from domain.la_citta.edition import SERVICES, Tables, Terrain, tables, terrain


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
    cities: dict[int, City] = {}  # never mutated: every change builds a new dict
    at: tuple[int, ...] = ()  # hex -> castle of the city standing there (0: empty)
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
    links: dict[int, tuple[int, ...]] = {}  # during relocation: city -> opposing neighbour cities
    hungry: tuple[int, ...] = ()


def begin(edition: Edition) -> State:
    return State(edition, tables(edition))


def order(s: State) -> tuple[int, ...]:
    """Clockwise from the starting player."""
    return s.seating


def _seating(start: int, players: int) -> tuple[int, ...]:
    return tuple((start + i) % players for i in range(players))


def cap(s: State, city: City) -> int | None:
    """The population limit: 5 without a market, 8 without a fountain or public bath too, else none."""
    b = s.t.buildings
    lifts = {b[k].get("lifts") for _, k in city.buildings}
    caps = s.t.data["caps"]
    if "market" not in lifts:
        return int(caps["without_market"])
    if "water" not in lifts:
        return int(caps["without_water"])
    return None


def points(s: State, city: City, service: str) -> int:
    """Service points: printed arches plus bread-and-games figures on this city's arches."""
    b = s.t.buildings
    total = sum(b[k]["arches"].get(service, 0) for _, k in city.buildings)
    for _seat, h, sv, n in s.bread:
        if sv == service and s.at[h] == city.castle:
            total += n
    return total


def has_all_services(s: State, city: City) -> bool:
    printed = {sv for _, k in city.buildings for sv, n in s.t.buildings[k]["arches"].items() if n > 0}
    return printed >= set(SERVICES)


def food_of(s: State, seat: int) -> int:
    """Food production of a seat's castles and farm houses (what its food tokens must show)."""
    food = s.land.food if s.land else ()
    total = 0
    for c in s.cities.values():
        if c.owner == seat:
            total += food[c.castle] + sum(food[h] for h, k in c.buildings if s.t.buildings[k].get("produces") == "food")
    return total


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    return t[:i] + (v,) + t[i + 1 :]


def _add(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return t[:i] + (t[i] + v,) + t[i + 1 :]


def _started(s: State, e: ev.GameStarted) -> State:
    n = e.players
    d = s.t.data
    zone = int(d["board"]["zone_for_players"][str(n)])
    placing: tuple[int, ...] = ()
    if e.setup == "experienced":
        first = tuple((e.start - i) % n for i in range(n))
        placing = first + tuple((first[-1] + i) % n for i in range(n))
    voice = d["voice"]["cards"]
    return s._replace(
        players=n,
        setup=e.setup,
        zone=zone,
        start=e.start,
        seating=_seating(e.start, n),
        phase="castles",
        placing=placing,
        at=(0,) * (len(s.t.hexes) + 1),
        gold=(0,) * n,
        food=(0,) * n,
        castles_left=(int(d["start"]["castles_per_player"]),) * n,
        stock=s.t.pool_size,
        supply=int(d["start"]["citizen_supply"]),
        actions=(0,) * n,
        founded=(False,) * n,
        figures=(0,) * n,
        penalty=(False,) * n,
        starved=(False,) * n,
        starved_last_year=(False,) * n,
        voice_deck=tuple(int(voice[sv]) for sv in SERVICES),
        deck=s.t.politics_deck,
        played=((),) * n,
        hungry=(0,) * n,
    )


def _tiles(s: State, e: ev.TilesPlaced) -> State:
    return s._replace(land=terrain(s.edition, s.t, e.tiles))


def _new_city(s: State, seat: int, h: int, citizens: int, food: int) -> State:
    city = City(seat, h, (), citizens, 1 << h)
    return s._replace(
        cities={**s.cities, h: city},
        at=_set(s.at, h, h),
        occupied=s.occupied | 1 << h,
        castles_left=_add(s.castles_left, seat, -1),
        food=_add(s.food, seat, food),
    )


def _castle_placed(s: State, e: ev.CastlePlaced) -> State:
    s = _new_city(s, e.seat, e.hex, e.citizens, e.food)
    return s._replace(supply=s.supply - e.citizens, placing=s.placing[1:])


def _start_player(s: State, e: ev.StartPlayerSet) -> State:
    return s._replace(start=e.seat, seating=_seating(e.seat, s.players))


def _gold(s: State, e: ev.GoldGained) -> State:
    return s._replace(gold=_add(s.gold, e.seat, e.amount))


def _remove(pile: tuple[str, ...], cards: tuple[str, ...]) -> tuple[str, ...]:
    rest = list(pile)
    for c in cards:
        rest.remove(c)
    return tuple(rest)


def _dealt(s: State, e: ev.PoliticsDealt) -> State:
    return s._replace(deck=_remove(s.deck, e.cards), display=tuple(sorted(s.display + e.cards)))


def _rebuilt(s: State, e: ev.PoliticsDeckRebuilt) -> State:
    """In the political phase a rebuild only ever happens inside a turn (a refill or a blind draw)."""
    acting = s.acting or s.phase == "politics"
    return s._replace(deck=tuple(sorted(s.deck + e.cards)), discard=_remove(s.discard, e.cards), acting=acting)


def _year(s: State, e: ev.YearBegan) -> State:
    actions = int(s.t.data["year"]["action_cards"])
    return s._replace(
        year=e.year, start=e.start, seating=_seating(e.start, s.players), phase="year-start", actions=(actions,) * s.players
    )


def _voice_up(s: State, e: ev.VoiceLaidOut) -> State:
    i = SERVICES.index(e.face_up)
    k = int(s.t.data["voice"]["face_down"])
    return s._replace(
        voice_deck=_add(s.voice_deck, i, -1), voice_up=e.face_up, voice_down=("",) * k, voice_seen=((),) * k, voice=()
    )


def _quarries(s: State, e: ev.QuarriesPaid) -> State:
    return s._replace(gold=tuple(g + p for g, p in zip(s.gold, e.gold, strict=True)))


def _grew(s: State, e: ev.PopulationGrew) -> State:
    cities = dict(s.cities)
    for h in e.cities:
        cities[h] = cities[h]._replace(citizens=cities[h].citizens + 1)
    return s._replace(cities=cities, supply=s.supply - len(e.cities))


def _phase(s: State, e: ev.PhaseBegan) -> State:
    if e.phase == "politics":
        return s._replace(phase="politics", round=1, turn=0, acting=False)
    if e.phase == "migration":
        return s._replace(phase="migration", mig=0, attracted=())
    return s._replace(phase=e.phase)


def _forfeit(s: State, e: ev.TurnForfeited) -> State:
    return s._replace(penalty=_set(s.penalty, e.seat, False), actions=_add(s.actions, e.seat, -1), acting=True)


def _action(s: State, e: ev.ActionCardUsed) -> State:
    return s._replace(actions=_add(s.actions, e.seat, -1), acting=True)


def _founded(s: State, e: ev.CityFounded) -> State:
    src = s.cities[e.source]
    s = s._replace(cities={**s.cities, e.source: src._replace(citizens=src.citizens - 1)})
    s = _new_city(s, e.seat, e.hex, 1 + e.from_supply, e.food)
    return s._replace(supply=s.supply - e.from_supply, founded=_set(s.founded, e.seat, True))


def _built(s: State, e: ev.BuildingBuilt) -> State:
    c = s.cities[e.city]
    extra = 1 if e.citizen_from == "supply" else 0
    c = c._replace(buildings=(*c.buildings, (e.hex, e.building)), citizens=c.citizens + extra, mask=c.mask | 1 << e.hex)
    p = s.t.pool_of[e.building]
    return s._replace(
        cities={**s.cities, e.city: c},
        at=_set(s.at, e.hex, e.city),
        occupied=s.occupied | 1 << e.hex,
        stock=_add(s.stock, p, -1),
        supply=s.supply - extra,
        food=_add(s.food, e.seat, e.food),
    )


def _taken(s: State, e: ev.PoliticsCardTaken) -> State:
    return s._replace(
        display=_remove(s.display, (e.card,)),
        played=_set(s.played, e.seat, (*s.played[e.seat], (e.card, False))),
        gold=_add(s.gold, e.seat, -e.cost),
        acting=True,
    )


def _figures(s: State, e: ev.FiguresPlaced) -> State:
    return s._replace(bread=(*s.bread, (e.seat, e.hex, e.service, e.figures)), figures=_add(s.figures, e.seat, e.figures))


def _arrived(s: State, e: ev.CitizensArrived) -> State:
    c = s.cities[e.city]
    return s._replace(cities={**s.cities, e.city: c._replace(citizens=c.citizens + e.kept)}, supply=s.supply - e.kept)


def _harvest(s: State, e: ev.HarvestBlessed) -> State:
    return s._replace(harvest=(*s.harvest, (e.seat, e.hex)), figures=_add(s.figures, e.seat, e.figures))


def _voice_counts(deck: tuple[int, ...], cards: tuple[str, ...]) -> tuple[int, ...]:
    out = list(deck)
    for c in cards:
        out[SERVICES.index(c)] -= 1
    return tuple(out)


def _polled(s: State, e: ev.VoicePolled) -> State:
    down = list(s.voice_down)
    seen = list(s.voice_seen)
    drawn = []
    for slot, card in zip(e.slots, e.cards, strict=True):
        if not down[slot]:
            down[slot] = card
            drawn.append(card)
        if e.seat not in seen[slot]:
            seen[slot] = (*seen[slot], e.seat)
    return s._replace(voice_down=tuple(down), voice_seen=tuple(seen), voice_deck=_voice_counts(s.voice_deck, tuple(drawn)))


def _blind(s: State, e: ev.BlindDrawn) -> State:
    if not e.card:
        return s._replace(played=_set(s.played, e.seat, (*s.played[e.seat], ("", True))), acting=True)
    return s._replace(
        deck=_remove(s.deck, (e.card,)), played=_set(s.played, e.seat, (*s.played[e.seat], (e.card, True))), acting=True
    )


def _turn_ended(s: State, e: ev.TurnEnded) -> State:
    turn = s.turn + 1
    if turn < s.players:
        return s._replace(turn=turn, acting=False)
    if s.round < int(s.t.data["year"]["political_rounds"]):
        return s._replace(turn=0, round=s.round + 1, acting=False)
    return s._replace(turn=0, round=0, phase="tally", acting=False)


def neighbours(s: State, c: City) -> tuple[int, ...]:
    """Opposing cities with 1 or 2 empty lane hexes between them and c (own cities never trade)."""
    near = 0
    table = s.t.neighbour[s.zone]
    mask = c.mask
    while mask:
        low = mask & -mask
        near |= table[low.bit_length() - 1]
        mask ^= low
    return tuple(k for k, o in sorted(s.cities.items()) if o.owner != c.owner and o.mask & near)


def _revealed(s: State, e: ev.VoiceRevealed) -> State:
    """Buildings stand still until relocation is over, so who neighbours whom is worked out once here."""
    drawn = tuple(c for c, old in zip(e.cards, s.voice_down, strict=True) if not old)
    return s._replace(
        voice_down=e.cards,
        voice=e.services,
        voice_deck=_voice_counts(s.voice_deck, drawn),
        phase="migration",
        mig=0,
        attracted=(),
        links={k: neighbours(s, c) for k, c in s.cities.items()},
    )


def _attracted(s: State, e: ev.CityAttracted) -> State:
    cities = dict(s.cities)
    for h in e.losers:
        cities[h] = cities[h]._replace(citizens=cities[h].citizens - 1)
    c = cities[e.city]
    cities[e.city] = c._replace(citizens=c.citizens + e.kept)
    return s._replace(cities=cities, supply=s.supply + e.to_supply, attracted=(*s.attracted, e.city))


def _mig_ended(s: State, e: ev.MigrationTurnEnded) -> State:
    return s._replace(mig=s.mig + 1, attracted=())


def _demolished(s: State, e: ev.BuildingDemolished) -> State:
    c = s.cities[e.city]
    bread = tuple(b for b in s.bread if b[1] != e.hex)
    harvest = tuple(x for x in s.harvest if x[1] != e.hex)
    common = {"at": _set(s.at, e.hex, 0), "occupied": s.occupied & ~(1 << e.hex), "food": _add(s.food, e.seat, -e.food)}
    if e.building == "castle":
        cities = dict(s.cities)
        del cities[e.city]
        return s._replace(
            cities=cities,
            castles_left=_add(s.castles_left, e.seat, 1),
            supply=s.supply + c.citizens,
            bread=bread,
            harvest=harvest,
            **common,
        )
    c = c._replace(buildings=tuple(b for b in c.buildings if b[0] != e.hex), mask=c.mask & ~(1 << e.hex))
    p = s.t.pool_of[e.building]
    return s._replace(cities={**s.cities, e.city: c}, stock=_add(s.stock, p, 1), bread=bread, harvest=harvest, **common)


def _counted(s: State, e: ev.FeedingCounted) -> State:
    last = s.year == int(s.t.data["year"]["years"])
    starved = tuple(x > 0 for x in e.shortfall)
    return s._replace(
        phase="feeding",
        hungry=e.shortfall,
        starved=starved,
        starved_last_year=starved if last else s.starved_last_year,
    )


def _starved(s: State, e: ev.CitizenStarved) -> State:
    c = s.cities[e.city]
    return s._replace(
        cities={**s.cities, e.city: c._replace(citizens=c.citizens - e.citizens)},
        supply=s.supply + e.citizens,
        hungry=_add(s.hungry, e.seat, -e.citizens),
    )


def _year_ended(s: State, e: ev.YearEnded) -> State:
    n = s.players
    discard = list(s.discard)
    for pile in s.played:
        discard.extend(card for card, _ in pile if card)
    last = e.year >= int(s.t.data["year"]["years"])
    return s._replace(
        phase="over" if last else "year-start",
        discard=tuple(sorted(discard)),
        played=((),) * n,
        founded=(False,) * n,
        figures=(0,) * n,
        bread=(),
        harvest=(),
        penalty=s.starved if not last else (False,) * n,
        starved=(False,) * n,
        hungry=(0,) * n,
        links={},
        voice_up="",
        voice_down=(),
        voice_seen=(),
    )


FOLD: dict[type[Event], Callable[[State, Any], State]] = {
    ev.GameStarted: _started,
    ev.TilesPlaced: _tiles,
    ev.CastlePlaced: _castle_placed,
    ev.StartPlayerSet: _start_player,
    ev.GoldGained: _gold,
    ev.PoliticsDealt: _dealt,
    ev.PoliticsDeckRebuilt: _rebuilt,
    ev.YearBegan: _year,
    ev.VoiceLaidOut: _voice_up,
    ev.QuarriesPaid: _quarries,
    ev.PopulationGrew: _grew,
    ev.PhaseBegan: _phase,
    ev.TurnForfeited: _forfeit,
    ev.ActionCardUsed: _action,
    ev.CityFounded: _founded,
    ev.BuildingBuilt: _built,
    ev.PoliticsCardTaken: _taken,
    ev.FiguresPlaced: _figures,
    ev.CitizensArrived: _arrived,
    ev.HarvestBlessed: _harvest,
    ev.VoicePolled: _polled,
    ev.BlindDrawn: _blind,
    ev.TurnEnded: _turn_ended,
    ev.VoiceRevealed: _revealed,
    ev.CityAttracted: _attracted,
    ev.MigrationTurnEnded: _mig_ended,
    ev.BuildingDemolished: _demolished,
    ev.FeedingCounted: _counted,
    ev.CitizenStarved: _starved,
    ev.YearEnded: _year_ended,
}


def evolve(s: State, e: Event) -> State:
    return FOLD[type(e)](s, e)
