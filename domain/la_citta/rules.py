"""La Città rules: setup, decide, the phases that run on their own, and the exact legal commands.

`setup` turns the table's options into the opening events (tiles, castles, gold, the first
face-up politics cards) and runs on until the first choice.

`decide` checks a command against the state, returns its events, then folds them onto a
scratch state and keeps adding the events of the phases that need no decision (quarry
gold, growth, the tally, feeding counts, year end...) until someone must choose again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import combinations
from typing import Any, ClassVar

import marshmallow
from marshmallow import fields, validate

from domain.kernel import (
    AUTOMATIC,
    GAME_OVER,
    Chance,
    Command,
    Edition,
    Event,
    Pending,
    RuleViolation,
    load_options,
    pending,
)
from domain.kernel.editions import derived
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.edition import LIFTS_MARKET, LIFTS_WATER, SERVICES, Traits, tile_slots
from domain.la_citta.fold import FOLD, evolve_all, tuple_new
from domain.la_citta.state import City, State, begin, bits, cap, order, points


def violation(rule: str, message: str, **facts: Any) -> RuleViolation:
    return RuleViolation(f"la-citta/{rule}", message, **facts)


def _adj_of(s: State, mask: int) -> int:
    adj = s.t.adj_mask
    out = 0
    for h in bits(mask):
        out |= adj[h]
    return out


def _data(s: State) -> Any:
    return s.t.data


# ---------------------------------------------------------------- the frequent events, made once

SEATS = (2, 5)  # the fewest and most players La Città is for

# Events are immutable values. Those that differ only by seat, option or phase (a turn's end, an
# action card used, a forfeit, a migration turn, a phase begun: half of all events) are made once
# here and handed out again: building one costs more than the rest of its command's checks.
_SEAT_RANGE = range(SEATS[1])
TURN_ENDED = tuple(ev.TurnEnded(seat) for seat in _SEAT_RANGE)
FORFEITED = tuple(ev.TurnForfeited(seat) for seat in _SEAT_RANGE)
MIGRATION_ENDED = tuple(ev.MigrationTurnEnded(seat) for seat in _SEAT_RANGE)
ACTION_USED = {option: tuple(ev.ActionCardUsed(seat, option) for seat in _SEAT_RANGE)
               for option in ("take-gold", "found-city", "build")}
PHASE_BEGAN = {phase: ev.PhaseBegan(phase) for phase in ("year-start", "politics", "demolish-migration", "count-food", "demolish-feeding")}


# ---------------------------------------------------------------- placement checks


def city_at(s: State, h: int) -> City | None:
    """The city standing on hex h, if any (cities never overlap)."""
    if s.occupied >> h & 1:
        for c in s.cities.values():
            if c.mask >> h & 1:
                return c
    return None


def _castles_on(s: State, mask: int) -> list[int]:
    """The castles of the cities with a hex in mask (for messages)."""
    return sorted(k for k, c in s.cities.items() if c.mask & mask)


def _check_site(s: State, h: int) -> None:
    """Where anything may go: a lane hex, in the player count's zones, empty."""
    if h not in s.t.zone:
        raise violation("place/off-board", f"hex {h} is not a lane hex of the board", hex=h)
    if not s.t.allowed[s.zone] >> h & 1:
        raise violation(
            "place/zone", f"hex L{h} is outside the zones played with {s.players} players", hex=h, zone=s.t.zone[h], allowed=s.zone
        )
    if s.occupied >> h & 1:
        raise violation("place/occupied", f"hex L{h} already holds a building", hex=h, city=_castles_on(s, 1 << h)[0])


def castle_site_ok(s: State, h: int) -> bool:
    return bool(s.t.allowed[s.zone] >> h & 1) and not s.occupied >> h & 1 and not s.t.near[s.zone][h] & s.occupied


def _check_castle_site(s: State, h: int) -> None:
    _check_site(s, h)
    if s.t.near[s.zone][h] & s.occupied:
        close = _castles_on(s, s.t.near[s.zone][h] & s.occupied)
        gap = int(_data(s)["actions"]["found_city_gap"])
        raise violation(
            "place/too-close", f"a castle needs at least {gap} empty lane hexes to every city; L{h} is too close", hex=h, cities=close
        )


def _spec(s: State, building: str) -> Traits:
    traits = s.t.traits.get(building)
    if traits is None:
        raise violation("build/unknown-building", f"there is no building {building!r}", building=building)
    return traits


def _own_city(s: State, seat: int, city: int, rule: str) -> City:
    c = s.cities.get(city)
    if c is None or c.owner != seat:
        raise violation(rule, f"L{city} is not the castle of one of your cities", city=city, seat=seat)
    return c


def _check_build(s: State, seat: int, building: str, city: int, h: int, traits: Traits) -> City:
    c = _own_city(s, seat, city, "build/not-your-city")
    if not s.stock[traits.pool]:
        raise violation("build/no-tokens", f"no {building} tokens are left, on either face of the twin stack", building=building)
    t = s.t
    if h not in t.zone or not t.allowed[s.zone] >> h & 1 or s.occupied >> h & 1:
        _check_site(s, h)  # raises, naming which
    adj = t.adj_mask[h]  # adjacency is symmetric: h is next to the city when the city is next to h
    if not adj & c.mask:
        raise violation("build/not-adjacent", f"L{h} is not next to a building of the city at L{city}", hex=h, city=city)
    if adj & s.occupied & ~c.mask:
        other = _castles_on(s, adj & s.occupied & ~c.mask)
        raise violation("build/touches-other-city", f"L{h} touches another city; cities stay one empty hex apart", hex=h, cities=other)
    if traits.one_per_city and any(k == building for _, k in c.buildings):
        raise violation("build/second-market", f"the city at L{city} already has a {building}", city=city, building=building)
    if traits.needs_lake and not s.laid.lake[h]:
        raise violation("build/needs-lake", f"a {building} must be next to a lake; L{h} is not", hex=h, building=building)
    if not traits.from_supply and c.citizens - len(c.buildings) < 2:
        raise violation(
            "build/no-spare-citizen",
            f"the castle at L{city} has no spare citizen to move onto the {building}",
            city=city,
            on_castle=c.on_castle,
        )
    return c


def build_sites(s: State, c: City) -> int:
    """Empty playable hexes next to this city and touching no other city."""
    frontier = _adj_of(s, c.mask) & s.t.allowed[s.zone] & ~s.occupied
    others = s.occupied & ~c.mask
    adj = s.t.adj_mask
    return sum(1 << h for h in bits(frontier) if not adj[h] & others)


def _built(s: State, seat: int, building: str, city: int, h: int, traits: Traits) -> ev.BuildingBuilt:
    food = s.laid.food[h] if traits.food else 0
    return ev.BuildingBuilt.of(seat, city, h, building, "supply" if traits.from_supply else "castle", food)


# ---------------------------------------------------------------- cards and chance


def voice_contents(s: State) -> list[str]:
    out: list[str] = []
    for sv, n in zip(SERVICES, s.voice_deck, strict=True):
        out += [sv] * n
    return out


def _deal(s: State, chance: Chance, n: int) -> list[Event]:
    """Refill the display at once; an empty deck is rebuilt from the discard pile first."""
    out: list[Event] = []
    deck, discard = s.deck, s.discard
    while n > 0:
        if not deck:
            if not discard:
                break
            out.append(ev.PoliticsDeckRebuilt(discard))
            deck, discard = tuple(sorted(deck + discard)), ()
        got = chance.draw("politics", deck, n)
        out.append(ev.PoliticsDealt.of(got))
        if len(got) == n:  # the deck had enough: nothing left to deal (the common case)
            break
        rest = list(deck)
        for c in got:
            rest.remove(c)
        deck = tuple(rest)
        n -= len(got)
    return out


def _card(s: State, effect: str, name: str | None = None) -> tuple[str, Any]:
    """The face-up politics card the command uses (cards of one name are interchangeable)."""
    for card in s.display:
        info = s.t.politics[card]
        if (name is None or card == name) and info["effect"] == effect:
            return card, info
    raise violation(
        "politics/not-displayed", f"no face-up politics card {name or effect!r} to take", wanted=name or effect, display=list(s.display)
    )


def _pay(s: State, seat: int, cost: int) -> None:
    if s.gold[seat] < cost:
        raise violation("politics/cannot-pay", f"this costs {cost} gold and you hold {s.gold[seat]}", cost=cost, gold=s.gold[seat])


def _figures_left(s: State, seat: int) -> int:
    return s.t.figures - s.figures[seat]


def _need_action(s: State, seat: int) -> None:
    if s.actions[seat] <= 0:
        raise violation("action/none-left", "all your action cards are used this year", seat=seat)


# ---------------------------------------------------------------- migration, demolition, feeding


def attract_candidates(s: State, seat: int) -> list[int]:
    """The seat's cities with an opposing neighbour not yet checked this turn (`links` lists only those)."""
    cities, attracted = s.cities, s.attracted
    return [k for k in s.links if cities[k].owner == seat and k not in attracted]


def to_demolish(s: State) -> City | None:
    """The first city, in turn order, with more buildings than citizens to occupy them."""
    first: City | None = None
    rank: dict[int, int] = {}
    for c in s.cities.values():
        if c.citizens <= len(c.buildings):
            if first is None:
                first = c
                continue
            rank = rank or {seat: i for i, seat in enumerate(order(s))}
            if (rank[c.owner], c.castle) < (rank[first.owner], first.castle):
                first = c
    return first


def connected(s: State, mask: int, start: int) -> bool:
    adj = s.t.adj_mask
    seen = frontier = 1 << start
    while frontier:
        grow = 0
        while frontier:  # the hexes of the frontier, lowest first (bits() inlined: this runs in every demolition)
            low = frontier & -frontier
            grow |= adj[low.bit_length() - 1]
            frontier ^= low
        frontier = grow & mask & ~seen
        seen |= frontier
    return seen == mask


def _edge(s: State, c: City) -> Iterator[int]:
    """The city's buildings, in building order, whose removal leaves the rest in one piece (lazily:
    the automatic steps only need to know the first one and whether there is a second)."""
    return _edge_of(s, c.mask, c.castle, c.buildings)


def _edge_of(s: State, mask: int, castle: int, buildings: Iterable[tuple[int, str]]) -> Iterator[int]:
    adj = s.t.adj_mask
    for h, _ in buildings:
        if (adj[h] & mask).bit_count() == 1 or connected(s, mask & ~(1 << h), castle):  # a leaf never splits
            yield h


def removable(s: State, c: City) -> list[int]:
    """Buildings on the city's edge: taking one away leaves the rest in one piece."""
    return list(_edge(s, c))


def _clear(s: State, c: City) -> list[Event]:
    """A city with at most one citizen loses every building, and with none its castle too: the
    demolitions the one-at-a-time steps would make (always the first edge building), as one batch."""
    food, farms = s.laid.food, s.t.food_kinds
    left, mask = list(c.buildings), c.mask
    out: list[Event] = []
    while left:
        h = next(_edge_of(s, mask, c.castle, left))
        kind = next(k for x, k in left if x == h)
        out.append(ev.BuildingDemolished.of(c.owner, c.castle, h, kind, food[h] if kind in farms else 0))
        left.remove((h, kind))
        mask &= ~(1 << h)
    if not c.citizens:
        out.append(ev.BuildingDemolished.of(c.owner, c.castle, c.castle, "castle", food[c.castle]))
    return out


def _food_counts(s: State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Food (tokens plus this year's rich harvests) and citizens per seat, for the feeding phase."""
    food = list(s.food)
    for seat, h in s.harvest:
        food[seat] += s.laid.food[h]
    people = [0] * s.players
    for c in s.cities.values():
        people[c.owner] += c.citizens
    return tuple(food), tuple(people)


# ---------------------------------------------------------------- pending


# Phases that always run on to their next event: nobody is ever asked anything in them.
RUNNING = frozenset({"setup", "year-start", "tally", "count-food"})


class _NoChance:
    """`_auto` only draws in RUNNING phases, so asking whether a state is settled never needs chance."""

    log: ClassVar[list[Any]] = []

    def draw(self, source: str, contents: Any, n: int) -> Any:
        raise AssertionError("settled() asked chance")

    shuffle = roll = draw


def _waits(s: State) -> bool:
    """`settled` without asking `_auto`: false in the states that are always under way."""
    if s.phase in RUNNING or s.acting:
        return False
    return not (s.phase == "castles" and not s.display)  # the display is the last thing setup deals


# The last state `play` settled: the next command is decided on exactly that state object
# (states are immutable), so asking `_auto` about it again would only repeat the answer.
_last_settled: list[State | None] = [None]


def settled(s: State) -> bool:
    """Do the rules wait for a seat here? No before setup is dealt, inside a political turn, or while
    `_auto` still has events to add: a replay can stop at such steps, and they must not name a seat."""
    if s is _last_settled[0]:
        return True
    return _waits(s) and not _auto(s, _NoChance())  # type: ignore[arg-type]


def pending_of(s: State) -> Pending:
    ph = s.phase
    if ph == "over":
        return pending(None, GAME_OVER)
    if not settled(s):
        return pending(None, AUTOMATIC)
    if ph == "castles":
        return pending(s.placing[0], "place-castle", castle=len(s.placing))
    if ph == "politics":
        return pending(order(s)[s.turn], "political-turn", year=s.year, round=s.round)
    if ph == "migration":
        seat = order(s)[s.mig]
        return pending(seat, "attract", cities=attract_candidates(s, seat), services=list(s.voice))
    if ph.startswith("demolish-"):
        c = to_demolish(s)
        assert c is not None
        return pending(c.owner, "demolish", city=c.castle, citizens=c.citizens, buildings=1 + len(c.buildings))
    if ph == "feeding":
        seat = next(x for x in order(s) if s.hungry[x])
        return pending(seat, "send-away", shortfall=s.hungry[seat])
    raise AssertionError(f"phase {ph!r} should have advanced on its own")


def _auto(s: State, chance: Chance) -> list[Event]:
    """The events of whatever happens next without a decision; [] when someone must choose."""
    return _AUTO[s.phase](s, chance)


def _auto_castles(s: State, chance: Chance) -> list[Event]:
    if s.placing:
        return []
    if s.setup == "experienced":
        return [ev.StartPlayerSet.of((s.start + 1) % s.players), PHASE_BEGAN["year-start"]]
    return [PHASE_BEGAN["year-start"]]


def _auto_politics(s: State, chance: Chance) -> list[Event]:
    seat = s.seating[s.turn]
    if s.penalty[seat]:
        return [FORFEITED[seat], TURN_ENDED[seat]]
    return []


def _auto_tally(s: State, chance: Chance) -> list[Event]:
    """The face-down cards nobody has seen yet are drawn now, slot by slot; the most named services win."""
    down = s.voice_down
    hidden = down.count("")
    if hidden:
        drawn = iter(chance.draw("voice", voice_contents(s), hidden))
        cards = tuple([c or next(drawn) for c in down])
    else:
        cards = down
    counts = dict.fromkeys(SERVICES, 0)
    counts[s.voice_up] += 1
    for card in cards:
        counts[card] += 1
    top = max(counts.values())
    return [ev.VoiceRevealed.of(cards, tuple([sv for sv in SERVICES if counts[sv] == top]))]


def _auto_migration(s: State, chance: Chance) -> list[Event]:
    """Turns with nothing to attract end at once, one after another in the same batch (they change
    nothing but the turn); a forced attraction, or a choice, ends the batch."""
    out: list[Event] = []
    for mig in range(s.mig, s.players):
        seat = s.seating[mig]
        cands = attract_candidates(s, seat) if mig == s.mig else [k for k in s.links if s.cities[k].owner == seat]
        if cands:
            if not out and len(cands) == 1 and len(s.voice) == 1:
                return [_attracted(s, seat, s.cities[cands[0]], s.voice[0])]
            return out
        out.append(MIGRATION_ENDED[seat])
    out.append(PHASE_BEGAN["demolish-migration"])
    return out


def _auto_demolish(s: State, chance: Chance) -> list[Event]:
    c = to_demolish(s)
    if c is None:
        return [PHASE_BEGAN["count-food"]] if s.phase == "demolish-migration" else [ev.YearEnded.of(s.year)]
    if c.citizens <= 1 or not c.buildings:  # everything goes
        return _clear(s, c)
    edge = _edge(s, c)
    first = next(edge)
    if next(edge, None) is None:  # only one building can go
        return [_demolished(s, c, first)]
    return []


def _auto_count_food(s: State, chance: Chance) -> list[Event]:
    food, people = _food_counts(s)
    return [ev.FeedingCounted.of(food, people, tuple(max(0, p - f) for f, p in zip(food, people, strict=True)))]


def _auto_feeding(s: State, chance: Chance) -> list[Event]:
    hungry = s.hungry
    for seat in s.seating:
        if hungry[seat]:
            break
    else:
        return [PHASE_BEGAN["demolish-feeding"]]
    first: City | None = None  # the seat's peopled city with the lowest castle hex
    peopled = people = 0
    for c in s.cities.values():
        if c.owner == seat and c.citizens > 0:
            peopled += 1
            people += c.citizens
            if first is None or c.castle < first.castle:
                first = c
    if first is not None and (peopled == 1 or people == hungry[seat]):
        return [ev.CitizenStarved.of(seat, first.castle, min(first.citizens, hungry[seat]))]
    return []


def _auto_none(s: State, chance: Chance) -> list[Event]:
    return []


def _year_start(s: State, chance: Chance) -> list[Event]:
    """Phases 1-4 and the display's refill: all one batch, since nobody chooses anything in them."""
    t = s.t
    year = s.year + 1
    n = s.players
    start = s.start if year == 1 else (s.start + 1) % n
    (card,) = chance.draw("voice", voice_contents(s), int(t.data["voice"]["face_up"]))
    out: list[Event] = [ev.YearBegan.of(year, start), ev.VoiceLaidOut.of(card)]
    gold = [0] * n
    mines, quarries, lifts = s.laid.gold, t.gold_kinds, t.lifts
    grow = []
    for k, c in s.cities.items():
        have = 0  # what lifts this city's limit (see `cap`)
        for h, kind in c.buildings:
            have |= lifts[kind]
            if kind in quarries:
                gold[c.owner] += mines[h]
        if have & LIFTS_WATER and have & LIFTS_MARKET or c.citizens < (t.cap_water if have & LIFTS_MARKET else t.cap_market):
            grow.append(((c.owner - start) % n, k))  # grown in turn order, then by castle
    if any(gold):
        out.append(ev.QuarriesPaid.of(tuple(gold)))
    grow.sort()
    out.append(ev.PopulationGrew.of(tuple(k for _, k in grow)))
    out.extend(_deal(s, chance, int(t.data["start"]["face_up_politics"]) - len(s.display)))
    out.append(PHASE_BEGAN["politics"])
    return out


_AUTO: dict[str, Callable[[State, Chance], list[Event]]] = {
    "setup": _auto_none,
    "castles": _auto_castles,
    "year-start": _year_start,
    "politics": _auto_politics,
    "tally": _auto_tally,
    "migration": _auto_migration,
    "demolish-migration": _auto_demolish,
    "count-food": _auto_count_food,
    "feeding": _auto_feeding,
    "demolish-feeding": _auto_demolish,
    "over": _auto_none,
}


def advance(s: State, chance: Chance) -> tuple[list[Event], State]:
    """Add the events of the steps nobody chooses, each batch folded at once, until someone must choose."""
    return _settle(list(s), chance)


def _settle(m: list[Any], chance: Chance) -> tuple[list[Event], State]:
    """`advance` from a state's fields as a list (fold.py): every batch is folded onto that one list, and
    each step reads the State made of it, so a command and the steps after it copy the fields once."""
    out: list[Event] = []
    auto, fold = _AUTO, FOLD
    while True:
        s = tuple_new(State, m)
        more = auto[s.phase](s, chance)
        if not more:
            return out, s
        for e in more:
            fold[type(e)](m, e)
        out += more


# ---------------------------------------------------------------- the commands


def _place_castle(s: State, c: cm.PlaceCastle, chance: Chance) -> list[Event]:
    _check_castle_site(s, c.hex)
    return [ev.CastlePlaced(c.seat, c.hex, int(_data(s)["start"]["citizens_per_castle"]), s.laid.food[c.hex])]


def _take_gold(s: State, c: cm.TakeGold, chance: Chance) -> list[Event]:
    _need_action(s, c.seat)
    return [ACTION_USED["take-gold"][c.seat], ev.GoldGained.of(c.seat, int(_data(s)["actions"]["gold"]), "action"), TURN_ENDED[c.seat]]


def _found_city(s: State, c: cm.FoundCity, chance: Chance) -> list[Event]:
    _need_action(s, c.seat)
    if s.founded[c.seat]:
        raise violation("found-city/once-per-year", "you have already founded a city this year", seat=c.seat)
    if not s.castles_left[c.seat]:
        raise violation("found-city/no-castle", "all your castles are on the board", seat=c.seat)
    src = _own_city(s, c.seat, c.source, "found-city/not-your-city")
    if src.on_castle < 2:
        raise violation("found-city/no-spare", f"the castle at L{c.source} has no spare citizen", source=c.source, on_castle=src.on_castle)
    _check_castle_site(s, c.hex)
    extra = int(_data(s)["actions"]["found_city_from_supply"])
    return [
        ACTION_USED["found-city"][c.seat],
        ev.CityFounded.of(c.seat, c.hex, c.source, extra, s.laid.food[c.hex]),
        TURN_ENDED[c.seat],
    ]


def _build(s: State, c: cm.Build, chance: Chance) -> list[Event]:
    traits = _spec(s, c.building)
    if c.card == "action":
        _need_action(s, c.seat)
        size = s.t.build_class
        if traits.size != size:
            raise violation("build/action-small", f"an action card builds only a {size} building", building=c.building)
        _check_build(s, c.seat, c.building, c.city, c.hex, traits)
        return [ACTION_USED["build"][c.seat], _built(s, c.seat, c.building, c.city, c.hex, traits), TURN_ENDED[c.seat]]
    info = s.t.politics.get(c.card)
    if info is None or info["effect"] not in ("build", "master_builder"):
        raise violation("build/card-mismatch", f"the card {c.card!r} does not build", card=c.card)
    card, info = _card(s, info["effect"], c.card)
    key = "building" if info["effect"] == "build" else "size"
    want = c.building if key == "building" else traits.size
    option = next((o for o in info["options"] if o.get(key) == want), None)
    if option is None:
        raise violation("build/card-mismatch", f"{card} cannot build a {c.building}", card=card, building=c.building)
    _pay(s, c.seat, int(option["cost"]))
    _check_build(s, c.seat, c.building, c.city, c.hex, traits)
    return [
        ev.PoliticsCardTaken.of(c.seat, card, int(option["cost"])),
        _built(s, c.seat, c.building, c.city, c.hex, traits),
        *_deal(s, chance, 1),
        TURN_ENDED[c.seat],
    ]


def _option(info: Any, key: str, value: int, rule: str) -> Any:
    option = next((o for o in info["options"] if o.get(key) == value), None)
    if option is None:
        raise violation(rule, f"the card offers no option with {key} {value}", **{key: value})
    return option


def _bread(s: State, c: cm.BreadAndGames, chance: Chance) -> list[Event]:
    card, info = _card(s, "bread_and_games")
    option = _option(info, "figures", c.figures, "bread-and-games/option")
    _pay(s, c.seat, int(option["cost"]))
    if _figures_left(s, c.seat) < c.figures:
        raise violation("figures/none-left", "not enough coloured figures left this year", left=_figures_left(s, c.seat), wanted=c.figures)
    city = city_at(s, c.hex) if c.hex >= 0 else None
    kinds = dict(city.buildings) if city and city.owner == c.seat else {}
    if c.hex not in kinds or not s.t.buildings[kinds[c.hex]]["arches"].get(c.service):
        raise violation("bread-and-games/no-arch", f"L{c.hex} is not one of your buildings with a {c.service} arch", hex=c.hex, service=c.service)
    return [
        ev.PoliticsCardTaken.of(c.seat, card, int(option["cost"])),
        ev.FiguresPlaced.of(c.seat, c.hex, c.service, c.figures),
        *_deal(s, chance, 1),
        TURN_ENDED[c.seat],
    ]


def _golden(s: State, c: cm.GoldenTimes, chance: Chance) -> list[Event]:
    card, info = _card(s, "golden_times")
    option = _option(info, "citizens", c.citizens, "golden-times/option")
    _pay(s, c.seat, int(option["cost"]))
    city = _own_city(s, c.seat, c.city, "golden-times/not-your-city")
    limit = cap(s, city)
    kept = c.citizens if limit is None else max(0, min(c.citizens, limit - city.citizens))
    return [
        ev.PoliticsCardTaken.of(c.seat, card, int(option["cost"])),
        ev.CitizensArrived.of(c.seat, c.city, kept, c.citizens - kept),
        *_deal(s, chance, 1),
        TURN_ENDED[c.seat],
    ]


def _rich_harvest(s: State, c: cm.RichHarvest, chance: Chance) -> list[Event]:
    card, info = _card(s, "rich_harvest")
    if info.get("not_in_last_year") and s.year >= s.t.years:
        raise violation("rich-harvest/last-year", "rich harvest may not be used in the last year", year=s.year)
    option = info["options"][0]
    _pay(s, c.seat, int(option["cost"]))
    wanted = int(option.get("figures", 1))
    if _figures_left(s, c.seat) < wanted:
        raise violation("figures/none-left", "no coloured figure left this year", left=_figures_left(s, c.seat), wanted=wanted)
    city = city_at(s, c.hex) if c.hex >= 0 else None
    if not city or city.owner != c.seat or dict(city.buildings).get(c.hex) != "farm_house":
        raise violation("rich-harvest/not-a-farm-house", f"L{c.hex} is not one of your farm houses", hex=c.hex)
    if any(h == c.hex for _, h in s.harvest):
        raise violation("rich-harvest/twice", f"the farm house at L{c.hex} already has a rich harvest this year", hex=c.hex)
    return [
        ev.PoliticsCardTaken.of(c.seat, card, int(option["cost"])),
        ev.HarvestBlessed.of(c.seat, c.hex, wanted),
        *_deal(s, chance, 1),
        TURN_ENDED[c.seat],
    ]


def _poll(s: State, c: cm.Poll, chance: Chance) -> list[Event]:
    card, info = _card(s, "polling")
    option = _option(info, "look", len(c.slots), "poll/option")
    slots = tuple(sorted(c.slots))
    if len(set(slots)) != len(slots) or any(not 0 <= i < len(s.voice_down) for i in slots):
        raise violation("poll/slots", f"choose distinct face-down cards among {len(s.voice_down)}", slots=list(c.slots))
    _pay(s, c.seat, int(option["cost"]))
    hidden = [i for i in slots if not s.voice_down[i]]
    drawn = iter(chance.draw("voice", voice_contents(s), len(hidden)) if hidden else ())
    cards = tuple(s.voice_down[i] or next(drawn) for i in slots)
    return [
        ev.PoliticsCardTaken.of(c.seat, card, int(option["cost"])),
        ev.VoicePolled.of(c.seat, slots, cards),
        *_deal(s, chance, 1),
        TURN_ENDED[c.seat],
    ]


def _blind_draw(s: State, c: cm.BlindDraw, chance: Chance) -> list[Event]:
    if s.actions[c.seat] > 0:
        raise violation("blind-draw/action-left", "you still hold an unused action card", actions=s.actions[c.seat])
    out: list[Event] = []
    deck = s.deck
    if not deck and s.discard:
        out.append(ev.PoliticsDeckRebuilt(s.discard))
        deck = tuple(sorted(s.discard))
    card = chance.draw("politics", deck, 1)[0] if deck else ""
    return [*out, ev.BlindDrawn.of(c.seat, card), TURN_ENDED[c.seat]]


def _attract(s: State, c: cm.Attract, chance: Chance) -> list[Event]:
    if c.city not in attract_candidates(s, c.seat):
        raise violation("attract/not-candidate", f"L{c.city} is not one of your cities still to check this turn", city=c.city)
    if c.service not in s.voice:
        raise violation("attract/service", f"the people asked for {list(s.voice)}, not {c.service}", service=c.service, voice=list(s.voice))
    return [_attracted(s, c.seat, s.cities[c.city], c.service)]


def _attracted(s: State, seat: int, city: City, service: str) -> ev.CityAttracted:
    """One citizen from each opposing neighbour with fewer points; what exceeds the limit goes to the supply."""
    mine = points(s, city, service)
    cities = s.cities
    losers = tuple(k for k in s.links[city.castle] if cities[k].citizens > 0 and points(s, cities[k], service) < mine)
    limit = cap(s, city)
    kept = len(losers) if limit is None else max(0, min(len(losers), limit - city.citizens))
    return ev.CityAttracted.of(seat, city.castle, service, losers, kept, len(losers) - kept)


def _demolish(s: State, c: cm.Demolish, chance: Chance) -> list[Event]:
    city = to_demolish(s)
    assert city is not None
    kinds = dict(city.buildings)
    if c.hex == city.castle:
        raise violation("demolish/castle-last", "the castle goes last, after every other building", hex=c.hex)
    if c.hex not in kinds:
        raise violation("demolish/not-in-city", f"L{c.hex} is not a building of the city at L{city.castle}", hex=c.hex, city=city.castle)
    if not connected(s, city.mask & ~(1 << c.hex), city.castle):
        raise violation("demolish/splits-city", f"taking L{c.hex} away would split the city", hex=c.hex, city=city.castle)
    return [_demolished(s, city, c.hex)]


def _demolished(s: State, city: City, h: int) -> ev.BuildingDemolished:
    kind = next(k for x, k in city.buildings if x == h)
    food = s.laid.food[h] if kind in s.t.food_kinds else 0
    return ev.BuildingDemolished.of(city.owner, city.castle, h, kind, food)


def _send_away(s: State, c: cm.SendAway, chance: Chance) -> list[Event]:
    city = _own_city(s, c.seat, c.city, "feed/not-your-city")
    most = min(city.citizens, s.hungry[c.seat])
    if not 1 <= c.citizens <= most:
        raise violation(
            "feed/count",
            (f"send away 1 citizen from L{c.city}, not {c.citizens}" if most == 1 else
             f"send away between 1 and {most} citizens from L{c.city}, not {c.citizens}"),
            city=c.city,
            citizens=c.citizens,
            held=city.citizens,
            shortfall=s.hungry[c.seat],
        )
    return [ev.CitizenStarved.of(c.seat, c.city, c.citizens)]


HANDLERS: dict[type[Command], tuple[str, Callable[[State, Any, Chance], list[Event]]]] = {
    cm.PlaceCastle: ("place-castle", _place_castle),
    cm.TakeGold: ("political-turn", _take_gold),
    cm.FoundCity: ("political-turn", _found_city),
    cm.Build: ("political-turn", _build),
    cm.BreadAndGames: ("political-turn", _bread),
    cm.GoldenTimes: ("political-turn", _golden),
    cm.RichHarvest: ("political-turn", _rich_harvest),
    cm.Poll: ("political-turn", _poll),
    cm.BlindDraw: ("political-turn", _blind_draw),
    cm.Attract: ("attract", _attract),
    cm.Demolish: ("demolish", _demolish),
    cm.SendAway: ("send-away", _send_away),
}


def who(s: State) -> tuple[int | None, str]:
    """The seat that decides now and the kind of decision (pending_of without the details)."""
    ph = s.phase
    if ph == "politics":
        if not s.acting:
            return s.seating[s.turn], "political-turn"
    elif ph == "feeding":
        hungry = s.hungry
        for seat in s.seating:
            if hungry[seat]:
                return seat, "send-away"
    elif ph == "migration":
        if s.mig < s.players:
            return s.seating[s.mig], "attract"
    elif ph.startswith("demolish-"):
        c = to_demolish(s)
        if c is not None:
            return c.owner, "demolish"
    elif ph == "castles" and s.placing and s.display:
        return s.placing[0], "place-castle"
    return None, GAME_OVER if ph == "over" else AUTOMATIC


def decide(s: State, c: Command, chance: Chance) -> list[Event]:
    return play(s, c, chance)[0]


def play(s: State, c: Command, chance: Chance) -> tuple[list[Event], State]:
    """Decide a command and settle what follows; the state comes back too, so nobody folds twice."""
    seat, pending_kind = who(s) if s is _last_settled[0] or settled(s) else (None, AUTOMATIC)
    if seat is None:
        if pending_kind == GAME_OVER:
            raise violation("game-over", "the game is over")
        raise violation("automatic", "the rules are still settling steps nobody chooses; no seat decides now", phase=s.phase)
    kind, handler = HANDLERS[type(c)]
    if c.seat != seat:
        raise violation("turn", f"seat {seat} decides now ({pending_kind}), not seat {c.seat}", seat=c.seat, pending=seat)
    if kind != pending_kind:
        raise violation("not-now", f"{c.kind} is not a move for {pending_kind}", command=c.kind, pending=pending_kind)
    out = handler(s, c, chance)
    m = list(s)
    fold = FOLD
    for e in out:
        fold[type(e)](m, e)
    more, after = _settle(m, chance)
    if _waits(after):  # `advance` stopped where `_auto` has nothing to add: settled
        _last_settled[0] = after
    return (out + more if more else out), after


# ---------------------------------------------------------------- legal


def _political_legal(s: State, seat: int) -> list[Command]:
    out: list[Command] = []
    b = s.t.buildings
    own = [c for _, c in sorted(s.cities.items()) if c.owner == seat]
    sites = {c.castle: list(bits(build_sites(s, c))) for c in own}
    gold = s.gold[seat]

    def builds(card: str, kinds: list[str]) -> None:
        for c in own:
            spare = c.on_castle >= 2
            have = c.kinds()
            for kind in kinds:
                spec = b[kind]
                if not s.stock[s.t.pool_of[kind]] or (spec.get("one_per_city") and kind in have):
                    continue
                if not spare and not spec.get("citizen_from_supply"):
                    continue
                lake = spec.get("needs_lake")
                out.extend(cm.Build(seat, card, kind, c.castle, h) for h in sites[c.castle] if not lake or s.laid.lake[h])

    if s.actions[seat] > 0:
        out.append(cm.TakeGold(seat))
        if not s.founded[seat] and s.castles_left[seat]:
            sources = [c.castle for c in own if c.on_castle >= 2]
            if sources:
                free = [h for h in bits(s.t.allowed[s.zone] & ~s.occupied) if not s.t.near[s.zone][h] & s.occupied]
                out.extend(cm.FoundCity(seat, h, src) for h in free for src in sources)
        builds("action", list(s.t.sizes[_data(s)["actions"]["build_class"]]))
    else:
        out.append(cm.BlindDraw(seat))
    left = _figures_left(s, seat)
    for card in sorted(set(s.display)):
        info = s.t.politics[card]
        effect = info["effect"]
        options = [o for o in info["options"] if o["cost"] <= gold]
        if effect == "build":
            for o in options:
                builds(card, [o["building"]])
        elif effect == "master_builder":
            for o in options:
                builds(card, list(s.t.sizes.get(o["size"], ())))
        elif effect == "bread_and_games":
            for o in options:
                if o["figures"] > left:
                    continue
                for c in own:
                    for h, kind in c.buildings:
                        for sv in SERVICES:
                            if b[kind]["arches"].get(sv):
                                out.append(cm.BreadAndGames(seat, h, sv, o["figures"]))
        elif effect == "golden_times":
            out.extend(cm.GoldenTimes(seat, c.castle, o["citizens"]) for o in options for c in own)
        elif effect == "rich_harvest":
            if options and left >= options[0].get("figures", 1) and not (info.get("not_in_last_year") and s.year >= s.t.years):
                blessed = {h for _, h in s.harvest}
                out.extend(cm.RichHarvest(seat, h) for c in own for h, k in c.buildings if k == "farm_house" and h not in blessed)
        elif effect == "polling":
            for o in options:
                out.extend(cm.Poll(seat, combo) for combo in combinations(range(len(s.voice_down)), o["look"]))
    return out


def legal(s: State) -> list[Command]:
    p = pending_of(s)
    seat = p.seat
    if p.over or seat is None:
        return []
    if p.kind == "place-castle":
        return [cm.PlaceCastle(seat, h) for h in bits(s.t.allowed[s.zone]) if castle_site_ok(s, h)]
    if p.kind == "political-turn":
        return _political_legal(s, seat)
    if p.kind == "attract":
        return [cm.Attract(seat, k, sv) for k in attract_candidates(s, seat) for sv in s.voice]
    if p.kind == "demolish":
        city = to_demolish(s)
        assert city is not None
        return [cm.Demolish(seat, h) for h in removable(s, city)]
    if p.kind == "send-away":
        need = s.hungry[seat]
        return [
            cm.SendAway(seat, k, n)
            for k, c in sorted(s.cities.items())
            if c.owner == seat
            for n in range(1, min(need, c.citizens) + 1)
        ]
    return []


# ---------------------------------------------------------------- setup


class OptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    players = fields.Integer(strict=True, load_default=4)
    setup = fields.String(load_default="beginner", validate=validate.OneOf(["beginner", "experienced"]))
    start = fields.Integer(strict=True, load_default=0, metadata={
        "description": "the seat that starts the first year (0: the first player; the rules say choose any way)"})


_OPTIONS = OptionsSchema()  # built once: a marshmallow schema costs more to build than to load with
# Options that are a plain dict of known keys with values of exactly their field's JSON type, each among the values
# the field allows (`setup`'s OneOf), load to themselves plus the defaults: they need no trip through marshmallow
# (every replay starts here). Read from the schema, so the fast path allows exactly what it allows.
_OPTION_TYPES = {"players": int, "setup": str, "start": int}
_OPTION_DEFAULTS = {name: field.load_default for name, field in _OPTIONS.fields.items()}
_OPTION_VALUES = {name: frozenset(v.choices) for name, field in _OPTIONS.fields.items()
                  for v in field.validators if isinstance(v, validate.OneOf)}


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    if type(options) is dict and all(_OPTION_TYPES.get(k) is type(v) and (k not in _OPTION_VALUES or v in _OPTION_VALUES[k])
                                     for k, v in options.items()):
        return {**_OPTION_DEFAULTS, **options}
    return load_options("la-citta", _OPTIONS, options)


def _opening(edition: Edition, first: list[Event]) -> tuple[list[Event], State]:
    """The setup's events up to the first deal (the start and the tiles given, then the beginner's castles and
    everyone's gold) and the state they make."""
    d = edition.data
    start = first[0]
    assert isinstance(start, ev.GameStarted)
    out = list(first)
    state = evolve_all(begin(edition), out)
    if start.setup == "beginner":
        letters = d["beginner"]["seats"][str(start.players)]
        for seat, letter in enumerate(letters):
            for h in d["beginner"]["castles"][letter]:
                out.append(ev.CastlePlaced(seat, int(h), int(d["start"]["citizens_per_castle"]), state.laid.food[int(h)]))
    out.extend(ev.GoldGained.of(seat, int(d["start"]["gold"]), "start") for seat in range(start.players))
    return out, evolve_all(state, out[2:])


def _no_openings(edition: Edition) -> dict[tuple[int, int], tuple[tuple[Event, ...], State]]:
    return {}


def _beginner_opening(edition: Edition, players: int, start: int) -> tuple[tuple[Event, ...], State]:
    """`_opening` of the beginner setup: nothing in it is drawn, so it is made once per edition, player count
    and starting seat (every replay of a record starts with it), and handed out again."""
    openings = derived(edition, _no_openings)
    found = openings.get((players, start))
    if found is None:
        out, state = _opening(edition, [ev.GameStarted(edition.ref, players, "beginner", start),
                                        ev.TilesPlaced(dict(edition.data["beginner"]["tiles"]))])
        found = openings[players, start] = (tuple(out), state)
    if found[1].edition is not edition:  # an equal edition (the same content hash) loaded again: the state names this one
        return found[0], found[1]._replace(edition=edition)
    return found


def setup(edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
    """Options: players (2-5), setup ("beginner" or "experienced"), start (the first starting player)."""
    opts = _options(options)
    players, kind, start = opts["players"], opts["setup"], opts["start"]
    if not SEATS[0] <= players <= SEATS[1]:
        raise RuleViolation("la-citta/setup/players", f"La Città is for 2 to 5 players, not {players}", players=players)
    if kind not in ("beginner", "experienced"):
        raise RuleViolation("la-citta/setup/kind", f"unknown setup {kind!r}", setup=kind)
    if not 0 <= start < players:
        raise RuleViolation("la-citta/setup/start", f"no seat {start} among {players}", start=start)
    d = edition.data
    if kind == "beginner":
        opening, state = _beginner_opening(edition, players, start)
        out = list(opening)
    else:
        tiles = sorted(code for code, n in d["tiles"].items() for _ in range(int(n)))
        slots = tile_slots(d)
        if len(tiles) != len(slots):
            raise RuleViolation("la-citta/setup/tiles", "the edition has not one tile per slot", tiles=len(tiles), slots=len(slots))
        placed = ev.TilesPlaced(dict(zip(slots, chance.shuffle("tiles", tiles), strict=True)))
        out, state = _opening(edition, [ev.GameStarted(edition.ref, players, kind, start), placed])
    dealt = _deal(state, chance, int(d["start"]["face_up_politics"]))
    more, _ = advance(evolve_all(state, dealt), chance)
    return out + dealt + more
