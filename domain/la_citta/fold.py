"""`evolve(state, event)`: the La Città fold, one small function per event type, dispatched by type (FOLD).

State is a NamedTuple (immutable); the fold copies its fields into a list once per batch of
events, each event's function rewrites the fields it touches, and the list becomes the next
State. Cities, seats' tuples and masks are shared between states. The fold is on the hot path
of every replay: keep each function to the fields its event changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.kernel import Event
from domain.kernel.events import every_event
from domain.la_citta import events as ev
from domain.la_citta.edition import SERVICES, TITLE, Tables, terrain
from domain.la_citta.state import City, State

tuple_new = tuple.__new__
"""`tuple.__new__`: a State or City made from its fields as they are, without the NamedTuple's own `__new__` (a
Python function around this same call)."""


def _seating(start: int, players: int) -> tuple[int, ...]:
    return tuple((start + i) % players for i in range(players))


def _with_citizens(c: City, citizens: int) -> City:
    return tuple_new(City, (c.owner, c.castle, c.buildings, citizens, c.mask))


def _links(table: tuple[int, ...], cities: dict[int, City]) -> dict[int, tuple[int, ...]]:
    """Every city's opposing neighbours, for the cities that have one, in castle order: the cities
    holding the other players' hexes within neighbour distance of the city."""
    held: dict[int, int] = {}  # owner -> the hexes of all his cities
    for c in cities.values():
        held[c.owner] = held.get(c.owner, 0) | c.mask
    occupied = 0
    for mask in held.values():
        occupied |= mask
    links = {}
    ordered = sorted(cities.items())
    masks = [(k, c.mask) for k, c in ordered]
    for k, c in ordered:
        others = occupied & ~held[c.owner]
        if not others:
            continue
        near = table[k]
        for h, _ in c.buildings:
            near |= table[h]
        near &= others
        if near:
            links[k] = tuple([k2 for k2, mask in masks if mask & near])  # in castle order, as `ordered`
    return links



# ---------------------------------------------------------------- the fold
#
# Each event's function writes the fields it changes into `m`, the state's fields as a list
# (indexed by the constants below): a command's events and each automatic step's events are
# folded onto one list and turned back into a State once, instead of one State per event.

Fields = list[Any]

(
    EDITION, T, PLAYERS, SETUP, ZONE, LAND, YEAR, PHASE, START, SEATING, PLACING, CITIES, OCCUPIED, GOLD, FOOD,
    CASTLES_LEFT, STOCK, SUPPLY, ACTIONS, FOUNDED, FIGURES, BREAD, HARVEST, PENALTY, STARVED, STARVED_LAST_YEAR,
    ROUND, TURN, ACTING, VOICE_DECK, VOICE_UP, VOICE_DOWN, VOICE_SEEN, VOICE, DISPLAY, DECK, DISCARD, PLAYED, MIG,
    ATTRACTED, LINKS, HUNGRY,
) = range(42)  # fmt: skip
assert len(State._fields) == 42 and all(
    globals()[name.upper()] == i for i, name in enumerate(State._fields)
), "the field indices follow State"


def _set(t: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    items = list(t)
    items[i] = v
    return tuple(items)


def _add(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    items = list(t)
    items[i] += v
    return tuple(items)


def _started(m: Fields, e: ev.GameStarted) -> None:
    n = e.players
    t: Tables = m[T]
    d = t.data
    placing: tuple[int, ...] = ()
    if e.setup == "experienced":
        first = tuple((e.start - i) % n for i in range(n))
        placing = first + tuple((first[-1] + i) % n for i in range(n))
    voice = d["voice"]["cards"]
    m[PLAYERS] = n
    m[SETUP] = e.setup
    m[ZONE] = int(d["board"]["zone_for_players"][str(n)])
    m[START] = e.start
    m[SEATING] = _seating(e.start, n)
    m[PHASE] = "castles"
    m[PLACING] = placing
    m[GOLD] = m[FOOD] = m[ACTIONS] = m[FIGURES] = m[HUNGRY] = (0,) * n
    m[FOUNDED] = m[PENALTY] = m[STARVED] = m[STARVED_LAST_YEAR] = (False,) * n
    m[CASTLES_LEFT] = (int(d["start"]["castles_per_player"]),) * n
    m[STOCK] = t.pool_size
    m[SUPPLY] = int(d["start"]["citizen_supply"])
    m[VOICE_DECK] = tuple(int(voice[sv]) for sv in SERVICES)
    m[DECK] = t.politics_deck
    m[PLAYED] = ((),) * n


def _tiles(m: Fields, e: ev.TilesPlaced) -> None:
    m[LAND] = terrain(m[EDITION], m[T], e.tiles)


def _castle_placed(m: Fields, e: ev.CastlePlaced) -> None:
    h = e.hex
    m[CITIES] = {**m[CITIES], h: tuple_new(City, (e.seat, h, (), e.citizens, 1 << h))}
    m[OCCUPIED] |= 1 << h
    m[CASTLES_LEFT] = _add(m[CASTLES_LEFT], e.seat, -1)
    m[FOOD] = _add(m[FOOD], e.seat, e.food)
    m[SUPPLY] -= e.citizens
    m[PLACING] = m[PLACING][1:]


def _start_player(m: Fields, e: ev.StartPlayerSet) -> None:
    m[START] = e.seat
    m[SEATING] = _seating(e.seat, m[PLAYERS])


def _gold(m: Fields, e: ev.GoldGained) -> None:
    m[GOLD] = _add(m[GOLD], e.seat, e.amount)


def _remove(pile: tuple[str, ...], cards: tuple[str, ...]) -> tuple[str, ...]:
    rest = list(pile)
    for c in cards:
        rest.remove(c)
    return tuple(rest)


def _dealt(m: Fields, e: ev.PoliticsDealt) -> None:
    m[DECK] = _remove(m[DECK], e.cards)
    m[DISPLAY] = tuple(sorted(m[DISPLAY] + e.cards))


def _rebuilt(m: Fields, e: ev.PoliticsDeckRebuilt) -> None:
    """In the political phase a rebuild only ever happens inside a turn (a refill or a blind draw)."""
    m[ACTING] = m[ACTING] or m[PHASE] == "politics"
    m[DECK] = tuple(sorted(m[DECK] + e.cards))
    m[DISCARD] = _remove(m[DISCARD], e.cards)


def _year(m: Fields, e: ev.YearBegan) -> None:
    m[YEAR] = e.year
    m[START] = e.start
    m[SEATING] = _seating(e.start, m[PLAYERS])
    m[PHASE] = "year-start"
    m[ACTIONS] = (m[T].action_cards,) * m[PLAYERS]


def _voice_up(m: Fields, e: ev.VoiceLaidOut) -> None:
    k = int(m[T].data["voice"]["face_down"])
    m[VOICE_DECK] = _add(m[VOICE_DECK], SERVICES.index(e.face_up), -1)
    m[VOICE_UP] = e.face_up
    m[VOICE_DOWN] = ("",) * k
    m[VOICE_SEEN] = ((),) * k
    m[VOICE] = ()


def _quarries(m: Fields, e: ev.QuarriesPaid) -> None:
    m[GOLD] = tuple(g + p for g, p in zip(m[GOLD], e.gold, strict=True))


def _grew(m: Fields, e: ev.PopulationGrew) -> None:
    cities = m[CITIES].copy()
    for h in e.cities:
        c = cities[h]
        cities[h] = _with_citizens(c, c.citizens + 1)
    m[CITIES] = cities
    m[SUPPLY] -= len(e.cities)


def _phase(m: Fields, e: ev.PhaseBegan) -> None:
    m[PHASE] = e.phase
    if e.phase == "politics":
        m[ROUND] = 1
        m[TURN] = 0
        m[ACTING] = False
    elif e.phase == "migration":
        m[MIG] = 0
        m[ATTRACTED] = ()


def _forfeit(m: Fields, e: ev.TurnForfeited) -> None:
    m[PENALTY] = _set(m[PENALTY], e.seat, False)
    m[ACTIONS] = _add(m[ACTIONS], e.seat, -1)
    m[ACTING] = True


def _action(m: Fields, e: ev.ActionCardUsed) -> None:
    actions = list(m[ACTIONS])  # _add in line: one of the most frequent events
    actions[e.seat] -= 1
    m[ACTIONS] = tuple(actions)
    m[ACTING] = True


def _founded(m: Fields, e: ev.CityFounded) -> None:
    h = e.hex
    cities = m[CITIES].copy()
    src = cities[e.source]
    cities[e.source] = _with_citizens(src, src.citizens - 1)
    cities[h] = tuple_new(City, (e.seat, h, (), 1 + e.from_supply, 1 << h))
    m[CITIES] = cities
    m[OCCUPIED] |= 1 << h
    m[CASTLES_LEFT] = _add(m[CASTLES_LEFT], e.seat, -1)
    m[FOOD] = _add(m[FOOD], e.seat, e.food)
    m[SUPPLY] -= e.from_supply
    m[FOUNDED] = _set(m[FOUNDED], e.seat, True)


def _built(m: Fields, e: ev.BuildingBuilt) -> None:
    h = e.hex
    extra = 1 if e.citizen_from == "supply" else 0
    cities = m[CITIES].copy()
    c = cities[e.city]
    cities[e.city] = tuple_new(City, (c.owner, c.castle, (*c.buildings, (h, e.building)), c.citizens + extra, c.mask | 1 << h))
    m[CITIES] = cities
    m[OCCUPIED] |= 1 << h
    m[STOCK] = _add(m[STOCK], m[T].pool_of[e.building], -1)
    m[SUPPLY] -= extra
    if e.food:
        m[FOOD] = _add(m[FOOD], e.seat, e.food)


def _taken(m: Fields, e: ev.PoliticsCardTaken) -> None:
    played = m[PLAYED]
    m[DISPLAY] = _remove(m[DISPLAY], (e.card,))
    m[PLAYED] = _set(played, e.seat, (*played[e.seat], (e.card, False)))
    m[GOLD] = _add(m[GOLD], e.seat, -e.cost)
    m[ACTING] = True


def _figures(m: Fields, e: ev.FiguresPlaced) -> None:
    m[BREAD] = (*m[BREAD], (e.seat, e.hex, e.service, e.figures))
    m[FIGURES] = _add(m[FIGURES], e.seat, e.figures)


def _arrived(m: Fields, e: ev.CitizensArrived) -> None:
    cities = m[CITIES].copy()
    c = cities[e.city]
    cities[e.city] = _with_citizens(c, c.citizens + e.kept)
    m[CITIES] = cities
    m[SUPPLY] -= e.kept


def _harvest(m: Fields, e: ev.HarvestBlessed) -> None:
    m[HARVEST] = (*m[HARVEST], (e.seat, e.hex))
    m[FIGURES] = _add(m[FIGURES], e.seat, e.figures)


def _voice_counts(deck: tuple[int, ...], cards: tuple[str, ...]) -> tuple[int, ...]:
    out = list(deck)
    for c in cards:
        out[SERVICES.index(c)] -= 1
    return tuple(out)


def _polled(m: Fields, e: ev.VoicePolled) -> None:
    down = list(m[VOICE_DOWN])
    seen = list(m[VOICE_SEEN])
    drawn = []
    for slot, card in zip(e.slots, e.cards, strict=True):
        if not down[slot]:
            down[slot] = card
            drawn.append(card)
        if e.seat not in seen[slot]:
            seen[slot] = (*seen[slot], e.seat)
    m[VOICE_DOWN] = tuple(down)
    m[VOICE_SEEN] = tuple(seen)
    m[VOICE_DECK] = _voice_counts(m[VOICE_DECK], tuple(drawn))


def _blind(m: Fields, e: ev.BlindDrawn) -> None:
    played = m[PLAYED]
    if e.card:
        m[DECK] = _remove(m[DECK], (e.card,))
    m[PLAYED] = _set(played, e.seat, (*played[e.seat], (e.card, True)))
    m[ACTING] = True


def _turn_ended(m: Fields, e: ev.TurnEnded) -> None:
    m[ACTING] = False
    turn = m[TURN] + 1
    if turn < m[PLAYERS]:
        m[TURN] = turn
    elif m[ROUND] < m[T].rounds:
        m[TURN] = 0
        m[ROUND] += 1
    else:
        m[TURN] = m[ROUND] = 0
        m[PHASE] = "tally"


def _revealed(m: Fields, e: ev.VoiceRevealed) -> None:
    """Buildings stand still until relocation is over, so who neighbours whom is worked out once here
    (only cities with a neighbour are listed, in castle order: the relocation candidates)."""
    drawn = tuple(c for c, old in zip(e.cards, m[VOICE_DOWN], strict=True) if not old)
    m[LINKS] = _links(m[T].neighbour[m[ZONE]], m[CITIES])
    m[VOICE_DOWN] = e.cards
    m[VOICE] = e.services
    m[VOICE_DECK] = _voice_counts(m[VOICE_DECK], drawn)
    m[PHASE] = "migration"
    m[MIG] = 0
    m[ATTRACTED] = ()


def _attracted(m: Fields, e: ev.CityAttracted) -> None:
    cities = m[CITIES].copy()
    for h in e.losers:
        c = cities[h]
        cities[h] = _with_citizens(c, c.citizens - 1)
    c = cities[e.city]
    cities[e.city] = _with_citizens(c, c.citizens + e.kept)
    m[CITIES] = cities
    m[SUPPLY] += e.to_supply
    m[ATTRACTED] = (*m[ATTRACTED], e.city)


def _mig_ended(m: Fields, e: ev.MigrationTurnEnded) -> None:
    m[MIG] += 1
    m[ATTRACTED] = ()


def _demolished(m: Fields, e: ev.BuildingDemolished) -> None:
    h = e.hex
    cities = m[CITIES].copy()
    c = cities[e.city]
    if m[BREAD]:
        m[BREAD] = tuple(b for b in m[BREAD] if b[1] != h)
    if m[HARVEST]:
        m[HARVEST] = tuple(x for x in m[HARVEST] if x[1] != h)
    m[OCCUPIED] &= ~(1 << h)
    if e.food:
        m[FOOD] = _add(m[FOOD], e.seat, -e.food)
    if e.building == "castle":
        del cities[e.city]
        m[CASTLES_LEFT] = _add(m[CASTLES_LEFT], e.seat, 1)
        m[SUPPLY] += c.citizens
    else:
        cities[e.city] = tuple_new(City, (c.owner, c.castle, tuple([b for b in c.buildings if b[0] != h]), c.citizens, c.mask & ~(1 << h)))
        m[STOCK] = _add(m[STOCK], m[T].pool_of[e.building], 1)
    m[CITIES] = cities


def _counted(m: Fields, e: ev.FeedingCounted) -> None:
    starved = tuple(x > 0 for x in e.shortfall)
    m[PHASE] = "feeding"
    m[HUNGRY] = e.shortfall
    m[STARVED] = starved
    if m[YEAR] == m[T].years:
        m[STARVED_LAST_YEAR] = starved


def _starved(m: Fields, e: ev.CitizenStarved) -> None:
    cities = m[CITIES].copy()
    c = cities[e.city]
    cities[e.city] = _with_citizens(c, c.citizens - e.citizens)
    m[CITIES] = cities
    m[SUPPLY] += e.citizens
    m[HUNGRY] = _add(m[HUNGRY], e.seat, -e.citizens)


def _year_ended(m: Fields, e: ev.YearEnded) -> None:
    n = m[PLAYERS]
    discard = list(m[DISCARD])
    for pile in m[PLAYED]:
        discard.extend(card for card, _ in pile if card)
    last = e.year >= m[T].years
    m[PHASE] = "over" if last else "year-start"
    m[DISCARD] = tuple(sorted(discard))
    m[PLAYED] = ((),) * n
    m[FOUNDED] = (False,) * n
    m[FIGURES] = m[HUNGRY] = (0,) * n
    m[BREAD] = m[HARVEST] = ()
    m[PENALTY] = m[STARVED] if not last else (False,) * n
    m[STARVED] = (False,) * n
    m[LINKS] = {}
    m[VOICE_UP] = ""
    m[VOICE_DOWN] = m[VOICE_SEEN] = ()


FOLD: dict[type[Event], Callable[[Fields, Any], None]] = every_event(TITLE, {
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
}, "fold")


def evolve(s: State, e: Event) -> State:
    m = list(s)
    FOLD[type(e)](m, e)
    return tuple_new(State, m)


def evolve_all(s: State, events: Iterable[Event]) -> State:
    """`evolve` over a batch of events, with one copy of the state's fields for the whole batch."""
    m = list(s)
    fold = FOLD
    for e in events:
        fold[type(e)](m, e)
    return tuple_new(State, m)
