"""La Città rules: decide, the phases that run on their own, and the exact legal commands.

`decide` checks a command against the state, returns its events, then folds them onto a
scratch state and keeps adding the events of the phases that need no decision (quarry
gold, growth, the tally, feeding counts, year end...) until someone must choose again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from itertools import combinations
from typing import Any

from domain.kernel import AUTOMATIC, GAME_OVER, Chance, Command, Event, Pending, RuleViolation, pending
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.edition import SERVICES
from domain.la_citta.state import City, State, cap, evolve, order, points


def violation(rule: str, message: str, **facts: Any) -> RuleViolation:
    return RuleViolation(f"la-citta/{rule}", message, **facts)


def bits(mask: int) -> Iterator[int]:
    """The hexes set in a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _adj_of(s: State, mask: int) -> int:
    adj = s.t.adj_mask
    out = 0
    for h in bits(mask):
        out |= adj[h]
    return out


def _data(s: State) -> Any:
    return s.t.data


def _last_year(s: State) -> int:
    return int(_data(s)["year"]["years"])


# ---------------------------------------------------------------- placement checks


def _check_site(s: State, h: int) -> None:
    """Where anything may go: a lane hex, in the player count's zones, empty."""
    if h not in s.t.zone:
        raise violation("place/off-board", f"hex {h} is not a lane hex of the board", hex=h)
    if not s.t.allowed[s.zone] >> h & 1:
        raise violation(
            "place/zone", f"hex L{h} is outside the zones played with {s.players} players", hex=h, zone=s.t.zone[h], allowed=s.zone
        )
    if s.occupied >> h & 1:
        raise violation("place/occupied", f"hex L{h} already holds a building", hex=h, city=s.at[h])


def castle_site_ok(s: State, h: int) -> bool:
    return bool(s.t.allowed[s.zone] >> h & 1) and not s.occupied >> h & 1 and not s.t.near[s.zone][h] & s.occupied


def _check_castle_site(s: State, h: int) -> None:
    _check_site(s, h)
    if s.t.near[s.zone][h] & s.occupied:
        close = sorted({s.at[x] for x in bits(s.t.near[s.zone][h] & s.occupied)})
        gap = int(_data(s)["actions"]["found_city_gap"])
        raise violation(
            "place/too-close", f"a castle needs at least {gap} empty lane hexes to every city; L{h} is too close", hex=h, cities=close
        )


def _spec(s: State, building: str) -> Any:
    spec = s.t.buildings.get(building)
    if spec is None:
        raise violation("build/unknown-building", f"there is no building {building!r}", building=building)
    return spec


def _own_city(s: State, seat: int, city: int, rule: str) -> City:
    c = s.cities.get(city)
    if c is None or c.owner != seat:
        raise violation(rule, f"L{city} is not the castle of one of your cities", city=city, seat=seat)
    return c


def _check_build(s: State, seat: int, building: str, city: int, h: int) -> City:
    spec = _spec(s, building)
    c = _own_city(s, seat, city, "build/not-your-city")
    if not s.stock[s.t.pool_of[building]]:
        raise violation("build/no-tokens", f"no {building} tokens are left, on either face of the twin stack", building=building)
    _check_site(s, h)
    if not _adj_of(s, c.mask) >> h & 1:
        raise violation("build/not-adjacent", f"L{h} is not next to a building of the city at L{city}", hex=h, city=city)
    if s.t.adj_mask[h] & s.occupied & ~c.mask:
        other = sorted({s.at[x] for x in bits(s.t.adj_mask[h] & s.occupied & ~c.mask)})
        raise violation("build/touches-other-city", f"L{h} touches another city; cities stay one empty hex apart", hex=h, cities=other)
    if spec.get("one_per_city") and building in c.kinds():
        raise violation("build/second-market", f"the city at L{city} already has a {building}", city=city, building=building)
    if spec.get("needs_lake") and not s.land.lake[h]:
        raise violation("build/needs-lake", f"a {building} must be next to a lake; L{h} is not", hex=h, building=building)
    if not spec.get("citizen_from_supply") and c.on_castle < 2:
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


def _built(s: State, seat: int, building: str, city: int, h: int) -> ev.BuildingBuilt:
    spec = s.t.buildings[building]
    food = s.land.food[h] if spec.get("produces") == "food" else 0
    source = "supply" if spec.get("citizen_from_supply") else "castle"
    return ev.BuildingBuilt(seat, city, h, building, source, food)


# ---------------------------------------------------------------- cards and chance


def voice_contents(s: State) -> list[str]:
    return [sv for sv, n in zip(SERVICES, s.voice_deck, strict=True) for _ in range(n)]


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
        out.append(ev.PoliticsDealt(got))
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
    return int(_data(s)["year"]["coloured_figures"]) - s.figures[seat]


def _need_action(s: State, seat: int) -> None:
    if s.actions[seat] <= 0:
        raise violation("action/none-left", "all your action cards are used this year", seat=seat)


# ---------------------------------------------------------------- migration, demolition, feeding


def attract_candidates(s: State, seat: int) -> list[int]:
    return [k for k, c in sorted(s.cities.items()) if c.owner == seat and k not in s.attracted and s.links.get(k)]


def to_demolish(s: State) -> City | None:
    """The first city, in turn order, with more buildings than citizens to occupy them."""
    short = [c for c in s.cities.values() if c.citizens < 1 + len(c.buildings)]
    if not short:
        return None
    rank = {seat: i for i, seat in enumerate(order(s))}
    return min(short, key=lambda c: (rank[c.owner], c.castle))


def connected(s: State, mask: int, start: int) -> bool:
    adj = s.t.adj_mask
    seen = 1 << start
    frontier = seen
    while frontier:
        grow = 0
        for h in bits(frontier):
            grow |= adj[h]
        frontier = grow & mask & ~seen
        seen |= frontier
    return seen == mask


def removable(s: State, c: City) -> list[int]:
    """Buildings on the city's edge: taking one away leaves the rest in one piece."""
    return [h for h, _ in c.buildings if connected(s, c.mask & ~(1 << h), c.castle)]


def _food_counts(s: State) -> tuple[tuple[int, ...], tuple[int, ...]]:
    food = list(s.food)
    for seat, h in s.harvest:
        food[seat] += s.land.food[h]
    people = [0] * s.players
    for c in s.cities.values():
        people[c.owner] += c.citizens
    return tuple(food), tuple(people)


# ---------------------------------------------------------------- pending


# Phases that always run on to their next event: nobody is ever asked anything in them.
RUNNING = frozenset({"setup", "year-start", "tally", "count-food"})


class _NoChance:
    """`_auto` only draws in RUNNING phases, so asking whether a state is settled never needs chance."""

    log: list[Any] = []

    def draw(self, source: str, contents: Any, n: int) -> Any:
        raise AssertionError("settled() asked chance")

    shuffle = roll = draw


def settled(s: State) -> bool:
    """Do the rules wait for a seat here? No before setup is dealt, inside a political turn, or while
    `_auto` still has events to add: a replay can stop at such steps, and they must not name a seat."""
    if s.phase in RUNNING or s.acting:
        return False
    if s.phase == "castles" and not s.display:  # the display is the last thing setup deals
        return False
    return not _auto(s, _NoChance())  # type: ignore[arg-type]


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
    ph = s.phase
    n = s.players
    if ph == "castles":
        if s.placing:
            return []
        out: list[Event] = []
        if s.setup == "experienced":
            out.append(ev.StartPlayerSet((s.start + 1) % n))
        return [*out, ev.PhaseBegan("year-start")]
    if ph == "year-start":
        return _year_start(s, chance)
    if ph == "politics":
        seat = order(s)[s.turn]
        if s.penalty[seat]:
            return [ev.TurnForfeited(seat), ev.TurnEnded(seat)]
        return []
    if ph == "tally":
        hidden = [i for i, c in enumerate(s.voice_down) if not c]
        drawn = iter(chance.draw("voice", voice_contents(s), len(hidden)) if hidden else ())
        cards = tuple(c or next(drawn) for c in s.voice_down)
        counts = Counter((s.voice_up, *cards))
        top = max(counts.values())
        return [ev.VoiceRevealed(cards, tuple(sv for sv in SERVICES if counts[sv] == top))]
    if ph == "migration":
        if s.mig >= n:
            return [ev.PhaseBegan("demolish-migration")]
        seat = order(s)[s.mig]
        cands = attract_candidates(s, seat)
        if not cands:
            return [ev.MigrationTurnEnded(seat)]
        if len(cands) == 1 and len(s.voice) == 1:
            return _attract(s, cm.Attract(seat, cands[0], s.voice[0]), chance)
        return []
    if ph.startswith("demolish-"):
        c = to_demolish(s)
        if c is None:
            return [ev.PhaseBegan("count-food")] if ph == "demolish-migration" else [ev.YearEnded(s.year)]
        if not c.buildings:
            return [ev.BuildingDemolished(c.owner, c.castle, c.castle, "castle", s.land.food[c.castle])]
        edge = removable(s, c)
        if c.citizens <= 1 or len(edge) == 1:
            return [_demolished(s, c, edge[0])]
        return []
    if ph == "count-food":
        food, people = _food_counts(s)
        return [ev.FeedingCounted(food, people, tuple(max(0, p - f) for f, p in zip(food, people, strict=True)))]
    if ph == "feeding":
        if not any(s.hungry):
            return [ev.PhaseBegan("demolish-feeding")]
        seat = next(x for x in order(s) if s.hungry[x])
        peopled = [c for _, c in sorted(s.cities.items()) if c.owner == seat and c.citizens > 0]
        if len(peopled) == 1 or sum(c.citizens for c in peopled) == s.hungry[seat]:
            return [ev.CitizenStarved(seat, c.castle, min(c.citizens, s.hungry[seat])) for c in peopled[:1]]
        return []
    return []


def _year_start(s: State, chance: Chance) -> list[Event]:
    year = s.year + 1
    start = s.start if year == 1 else (s.start + 1) % s.players
    out: list[Event] = [ev.YearBegan(year, start)]
    (card,) = chance.draw("voice", voice_contents(s), int(_data(s)["voice"]["face_up"]))
    out.append(ev.VoiceLaidOut(card))
    gold = [0] * s.players
    for c in s.cities.values():
        gold[c.owner] += sum(s.land.gold[h] for h, k in c.buildings if s.t.buildings[k].get("produces") == "gold")
    if any(gold):
        out.append(ev.QuarriesPaid(tuple(gold)))
    turn = {seat: i for i, seat in enumerate((start + i) % s.players for i in range(s.players))}
    grow = []
    for k, c in sorted(s.cities.items(), key=lambda kc: (turn[kc[1].owner], kc[0])):
        limit = cap(s, c)
        if limit is None or c.citizens < limit:
            grow.append(k)
    out.append(ev.PopulationGrew(tuple(grow)))
    out.extend(_deal(s, chance, int(_data(s)["start"]["face_up_politics"]) - len(s.display)))
    out.append(ev.PhaseBegan("politics"))
    return out


def advance(s: State, chance: Chance) -> tuple[list[Event], State]:
    out: list[Event] = []
    while True:
        more = _auto(s, chance)
        if not more:
            return out, s
        for e in more:
            s = evolve(s, e)
        out.extend(more)


# ---------------------------------------------------------------- the commands


def _place_castle(s: State, c: cm.PlaceCastle, chance: Chance) -> list[Event]:
    _check_castle_site(s, c.hex)
    return [ev.CastlePlaced(c.seat, c.hex, int(_data(s)["start"]["citizens_per_castle"]), s.land.food[c.hex])]


def _take_gold(s: State, c: cm.TakeGold, chance: Chance) -> list[Event]:
    _need_action(s, c.seat)
    return [ev.ActionCardUsed(c.seat, "take-gold"), ev.GoldGained(c.seat, int(_data(s)["actions"]["gold"]), "action"), ev.TurnEnded(c.seat)]


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
        ev.ActionCardUsed(c.seat, "found-city"),
        ev.CityFounded(c.seat, c.hex, c.source, extra, s.land.food[c.hex]),
        ev.TurnEnded(c.seat),
    ]


def _build(s: State, c: cm.Build, chance: Chance) -> list[Event]:
    spec = _spec(s, c.building)
    if c.card == "action":
        _need_action(s, c.seat)
        size = _data(s)["actions"]["build_class"]
        if spec["size"] != size:
            raise violation("build/action-small", f"an action card builds only a {size} building", building=c.building)
        _check_build(s, c.seat, c.building, c.city, c.hex)
        return [ev.ActionCardUsed(c.seat, "build"), _built(s, c.seat, c.building, c.city, c.hex), ev.TurnEnded(c.seat)]
    info = s.t.politics.get(c.card)
    if info is None or info["effect"] not in ("build", "master_builder"):
        raise violation("build/card-mismatch", f"the card {c.card!r} does not build", card=c.card)
    card, info = _card(s, info["effect"], c.card)
    key = "building" if info["effect"] == "build" else "size"
    want = c.building if key == "building" else spec["size"]
    option = next((o for o in info["options"] if o.get(key) == want), None)
    if option is None:
        raise violation("build/card-mismatch", f"{card} cannot build a {c.building}", card=card, building=c.building)
    _pay(s, c.seat, int(option["cost"]))
    _check_build(s, c.seat, c.building, c.city, c.hex)
    return [
        ev.PoliticsCardTaken(c.seat, card, int(option["cost"])),
        _built(s, c.seat, c.building, c.city, c.hex),
        *_deal(s, chance, 1),
        ev.TurnEnded(c.seat),
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
    city = s.cities.get(s.at[c.hex]) if 0 < c.hex < len(s.at) else None
    kinds = dict(city.buildings) if city and city.owner == c.seat else {}
    if c.hex not in kinds or not s.t.buildings[kinds[c.hex]]["arches"].get(c.service):
        raise violation("bread-and-games/no-arch", f"L{c.hex} is not one of your buildings with a {c.service} arch", hex=c.hex, service=c.service)
    return [
        ev.PoliticsCardTaken(c.seat, card, int(option["cost"])),
        ev.FiguresPlaced(c.seat, c.hex, c.service, c.figures),
        *_deal(s, chance, 1),
        ev.TurnEnded(c.seat),
    ]


def _golden(s: State, c: cm.GoldenTimes, chance: Chance) -> list[Event]:
    card, info = _card(s, "golden_times")
    option = _option(info, "citizens", c.citizens, "golden-times/option")
    _pay(s, c.seat, int(option["cost"]))
    city = _own_city(s, c.seat, c.city, "golden-times/not-your-city")
    limit = cap(s, city)
    kept = c.citizens if limit is None else max(0, min(c.citizens, limit - city.citizens))
    return [
        ev.PoliticsCardTaken(c.seat, card, int(option["cost"])),
        ev.CitizensArrived(c.seat, c.city, kept, c.citizens - kept),
        *_deal(s, chance, 1),
        ev.TurnEnded(c.seat),
    ]


def _rich_harvest(s: State, c: cm.RichHarvest, chance: Chance) -> list[Event]:
    card, info = _card(s, "rich_harvest")
    if info.get("not_in_last_year") and s.year >= _last_year(s):
        raise violation("rich-harvest/last-year", "rich harvest may not be used in the last year", year=s.year)
    option = info["options"][0]
    _pay(s, c.seat, int(option["cost"]))
    wanted = int(option.get("figures", 1))
    if _figures_left(s, c.seat) < wanted:
        raise violation("figures/none-left", "no coloured figure left this year", left=_figures_left(s, c.seat), wanted=wanted)
    city = s.cities.get(s.at[c.hex]) if 0 < c.hex < len(s.at) else None
    if not city or city.owner != c.seat or dict(city.buildings).get(c.hex) != "farm_house":
        raise violation("rich-harvest/not-a-farm-house", f"L{c.hex} is not one of your farm houses", hex=c.hex)
    if any(h == c.hex for _, h in s.harvest):
        raise violation("rich-harvest/twice", f"the farm house at L{c.hex} already has a rich harvest this year", hex=c.hex)
    return [
        ev.PoliticsCardTaken(c.seat, card, int(option["cost"])),
        ev.HarvestBlessed(c.seat, c.hex, wanted),
        *_deal(s, chance, 1),
        ev.TurnEnded(c.seat),
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
        ev.PoliticsCardTaken(c.seat, card, int(option["cost"])),
        ev.VoicePolled(c.seat, slots, cards),
        *_deal(s, chance, 1),
        ev.TurnEnded(c.seat),
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
    return [*out, ev.BlindDrawn(c.seat, card), ev.TurnEnded(c.seat)]


def _attract(s: State, c: cm.Attract, chance: Chance) -> list[Event]:
    if c.city not in attract_candidates(s, c.seat):
        raise violation("attract/not-candidate", f"L{c.city} is not one of your cities still to check this turn", city=c.city)
    if c.service not in s.voice:
        raise violation("attract/service", f"the people asked for {list(s.voice)}, not {c.service}", service=c.service, voice=list(s.voice))
    city = s.cities[c.city]
    mine = points(s, city, c.service)
    others = [s.cities[k] for k in s.links[c.city]]
    losers = tuple(o.castle for o in others if o.citizens > 0 and points(s, o, c.service) < mine)
    limit = cap(s, city)
    kept = len(losers) if limit is None else max(0, min(len(losers), limit - city.citizens))
    return [ev.CityAttracted(c.seat, c.city, c.service, losers, kept, len(losers) - kept)]


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
    kind = dict(city.buildings)[h]
    food = s.land.food[h] if s.t.buildings[kind].get("produces") == "food" else 0
    return ev.BuildingDemolished(city.owner, city.castle, h, kind, food)


def _send_away(s: State, c: cm.SendAway, chance: Chance) -> list[Event]:
    city = _own_city(s, c.seat, c.city, "feed/not-your-city")
    if not 1 <= c.citizens <= min(city.citizens, s.hungry[c.seat]):
        raise violation(
            "feed/count",
            f"send away between 1 and {min(city.citizens, s.hungry[c.seat])} citizens from L{c.city}",
            city=c.city,
            citizens=c.citizens,
            held=city.citizens,
            shortfall=s.hungry[c.seat],
        )
    return [ev.CitizenStarved(c.seat, c.city, c.citizens)]


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
    if ph == "politics" and not s.acting:
        return order(s)[s.turn], "political-turn"
    if ph == "migration" and s.mig < s.players:
        return order(s)[s.mig], "attract"
    if ph == "feeding" and any(s.hungry):
        return next(x for x in order(s) if s.hungry[x]), "send-away"
    if ph.startswith("demolish-"):
        c = to_demolish(s)
        if c is not None:
            return c.owner, "demolish"
    if ph == "castles" and s.placing and s.display:
        return s.placing[0], "place-castle"
    return None, GAME_OVER if ph == "over" else AUTOMATIC


def decide(s: State, c: Command, chance: Chance) -> list[Event]:
    return play(s, c, chance)[0]


def play(s: State, c: Command, chance: Chance) -> tuple[list[Event], State]:
    """Decide a command and settle what follows; the state comes back too, so nobody folds twice."""
    seat, pending_kind = who(s) if settled(s) else (None, AUTOMATIC)
    if seat is None:
        if pending_kind == GAME_OVER:
            raise violation("game-over", "the game is over")
        raise violation("automatic", "the rules are still settling steps nobody chooses; no seat decides now", phase=s.phase)
    kind, handler = HANDLERS[type(c)]
    if c.seat != seat:
        raise violation("turn", f"seat {seat} decides now ({pending_kind}), not seat {c.seat}", seat=c.seat, pending=seat)
    if kind != pending_kind:
        raise violation("not-now", f"a {c.kind} command does not answer a {pending_kind} decision", command=c.kind, pending=pending_kind)
    out = handler(s, c, chance)
    after = s
    for e in out:
        after = evolve(after, e)
    more, after = advance(after, chance)
    return out + more, after


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
                out.extend(cm.Build(seat, card, kind, c.castle, h) for h in sites[c.castle] if not lake or s.land.lake[h])

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
            if options and left >= options[0].get("figures", 1) and not (info.get("not_in_last_year") and s.year >= _last_year(s)):
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
