"""`describe(event, before, names)`: each La Città event in words, for the move list.

One small function per event type (DESCRIBE, dispatched by type like the fold). Seats are named
by the names given, places by the board's L-names, cities by their owner and castle hex, cards
and buildings by the edition's names. Two facts are hidden while the game is in progress, as the
view hides them: the voice-of-the-people cards a seat looks at when polling (only that seat reads
them) and a politics card drawn blind (nobody reads it until it reaches the discard pile).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain.kernel import Event
from domain.kernel.describe import Sentence, hidden, name_of, sentence
from domain.kernel.events import every_event
from domain.la_citta import events as ev
from domain.la_citta.edition import TITLE
from domain.la_citta.state import State
from domain.la_citta.view import hex_name

Names = Sequence[str]


def describe(event: Event, before: State, names: Names) -> Sentence | None:
    return DESCRIBE[type(event)](event, before, names)


# ---------------------------------------------------------------- words


def _and(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _word(name: str) -> str:
    """An edition name as words: farm_house -> farm house, polling_the_people -> polling the people."""
    return name.replace("_", " ")


def _card(name: str) -> str:
    return f"the {_word(name)} card"


def _coins(n: int) -> str:
    return f"{n} gold"


def _food(n: int, sign: str = "+") -> str:
    return f"{sign}{n} food"


def _city(s: State, names: Names, castle: int) -> str:
    """A city by its owner and its castle's hex (as it stands before the event)."""
    c = s.cities.get(castle)
    owner = f"{name_of(names, c.owner)}'s " if c is not None else ""
    return f"{owner}city at {hex_name(castle)}"


def _building_at(s: State, h: int) -> str:
    for c in s.cities.values():
        if c.mask >> h & 1:
            if c.castle == h:
                return "castle"
            for x, kind in c.buildings:
                if x == h:
                    return _word(kind)
    return "building"


def _terrain(s: State, code: str) -> str:
    land = s.t.data["terrain"][code]
    wheat = int(land["wheat"])
    return f"{land['kind']} with {wheat} wheat" if wheat else str(land["kind"])


# ---------------------------------------------------------------- setup


def _started(e: ev.GameStarted, s: State, names: Names) -> Sentence:
    return sentence(f"A game of La Città for {e.players} players begins with the {e.setup} setup; {name_of(names, e.start)} starts.")


def _tiles(e: ev.TilesPlaced, s: State, names: Names) -> Sentence:
    codes: dict[str, int] = {}
    for code in e.tiles.values():
        codes[code] = codes.get(code, 0) + 1
    laid = "as in the beginner layout" if s.setup == "beginner" else "shuffled onto the board"
    kinds = _and([f"{n} {_terrain(s, code)}" for code, n in sorted(codes.items())])
    return sentence(f"The {len(e.tiles)} terrain tiles are laid {laid}: {kinds}.")


def _castle_placed(e: ev.CastlePlaced, s: State, names: Names) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} places a castle on {hex_name(e.hex)} with {_count(e.citizens, 'citizen')} ({_food(e.food)})."
    )


def _start_player(e: ev.StartPlayerSet, s: State, names: Names) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} becomes the starting player.")


_GOLD_REASON = {"start": " to start", "action": " with an action card"}


def _gold(e: ev.GoldGained, s: State, names: Names) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} takes {_coins(e.amount)}{_GOLD_REASON.get(e.reason, '')}.")


# ---------------------------------------------------------------- the politics cards


def _dealt(e: ev.PoliticsDealt, s: State, names: Names) -> Sentence:
    cards = _and([_word(c) for c in e.cards])
    if not s.display:
        dealt = "is" if len(e.cards) == 1 else "are"
        return sentence(f"{_count(len(e.cards), 'politics card')} {dealt} dealt face up: {cards}.")
    return sentence(f"The politics display is refilled: {cards}.")


def _rebuilt(e: ev.PoliticsDeckRebuilt, s: State, names: Names) -> Sentence:
    return sentence(f"The politics deck is empty: the discard pile ({_count(len(e.cards), 'card')}) is shuffled into a new deck.")


# ---------------------------------------------------------------- the year's start


def _year(e: ev.YearBegan, s: State, names: Names) -> Sentence:
    return sentence(f"Year {e.year} of {s.t.years} begins; {name_of(names, e.start)} is the starting player.")


def _voice_up(e: ev.VoiceLaidOut, s: State, names: Names) -> Sentence:
    down = int(s.t.data["voice"]["face_down"])
    return sentence(f"The voice of the people: {e.face_up} face up, {_count(down, 'card')} face down.")


def _quarries(e: ev.QuarriesPaid, s: State, names: Names) -> Sentence:
    paid = [f"{name_of(names, seat)} {_coins(n)}" for seat, n in enumerate(e.gold) if n]
    return sentence(f"The quarries pay: {_and(paid)}.")


def _grew(e: ev.PopulationGrew, s: State, names: Names) -> Sentence:
    if not e.cities:
        return sentence("No city grows: every city is at its population limit.")
    by_owner: dict[int, list[str]] = {}
    for h in e.cities:
        by_owner.setdefault(s.cities[h].owner, []).append(hex_name(h))
    grown = [f"{name_of(names, seat)} at {_and(hexes)}" for seat, hexes in by_owner.items()]
    return sentence(f"Each city below its limit gains a citizen: {'; '.join(grown)}.")


_PHASES = {
    "year-start": "Every castle is placed: the first year can begin.",
    "demolish-migration": "Migration is over; a city with more buildings than citizens loses buildings.",
    "count-food": "Feeding: each player's food is counted against the citizens.",
    "demolish-feeding": "Feeding is over; a city with more buildings than citizens loses buildings.",
}


def _phase(e: ev.PhaseBegan, s: State, names: Names) -> Sentence:
    if e.phase == "politics":
        return sentence(f"The {s.t.rounds} political rounds begin.")
    return sentence(_PHASES.get(e.phase, f"The {_word(e.phase).replace('-', ' ')} phase begins."))


# ---------------------------------------------------------------- a political turn


def _forfeit(e: ev.TurnForfeited, s: State, names: Names) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} loses this turn to last year's hunger: an action card is turned face down unused.")


_ACTIONS = {"take-gold": "to take gold", "found-city": "to found a city", "build": "to build"}


def _action(e: ev.ActionCardUsed, s: State, names: Names) -> Sentence:
    left = s.actions[e.seat] - 1
    return sentence(f"{name_of(names, e.seat)} plays an action card {_ACTIONS.get(e.option, '')}".rstrip() + f" ({left} left).")


def _founded(e: ev.CityFounded, s: State, names: Names) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} founds a city at {hex_name(e.hex)} ({_food(e.food)}): a spare citizen moves over from "
        f"{hex_name(e.source)} and {_count(e.from_supply, 'more comes', 'more come')} from the supply."
    )


def _built(e: ev.BuildingBuilt, s: State, names: Names) -> Sentence:
    food = f" ({_food(e.food)})" if e.food else ""
    return sentence(
        f"{name_of(names, e.seat)} builds a {_word(e.building)} on {hex_name(e.hex)} for the city at {hex_name(e.city)}, "
        f"its citizen from the {e.citizen_from}{food}."
    )


def _taken(e: ev.PoliticsCardTaken, s: State, names: Names) -> Sentence:
    price = f"for {_coins(e.cost)}" if e.cost else "at no cost"
    return sentence(f"{name_of(names, e.seat)} takes {_card(e.card)} {price}.")


def _figures(e: ev.FiguresPlaced, s: State, names: Names) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} puts {_count(e.figures, 'coloured figure')} on the {_building_at(s, e.hex)} at {hex_name(e.hex)}: "
        f"+{e.figures} {e.service} for the city this year."
    )


def _arrived(e: ev.CitizensArrived, s: State, names: Names) -> Sentence:
    city = _city(s, names, e.city)
    if not e.kept:
        return sentence(f"Golden times, but {city} is at its limit: {_count(e.to_supply, 'citizen stays', 'citizens stay')} in the supply.")
    rest = f"; {_count(e.to_supply, 'more stays', 'more stay')} in the supply at the city's limit" if e.to_supply else ""
    return sentence(f"Golden times: {_count(e.kept, 'citizen moves', 'citizens move')} into {city}{rest}.")


def _harvest(e: ev.HarvestBlessed, s: State, names: Names) -> Sentence:
    food = s.land.food[e.hex] if s.land else 0
    return sentence(
        f"{name_of(names, e.seat)} puts {_count(e.figures, 'coloured figure')} on the farm house at {hex_name(e.hex)}: "
        f"a rich harvest, {_food(food)} at this year's feeding."
    )


def _polled(e: ev.VoicePolled, s: State, names: Names) -> Sentence:
    """The cards seen are the polling seat's alone (as in its view) while the game is in progress."""
    who = name_of(names, e.seat)
    slots = _and([str(i + 1) for i in e.slots])
    return sentence(
        f"{who} looks at the face-down voice cards {slots}",
        hidden(f": {_and(list(e.cards))}", e.seat, f", which only {who} has seen"),
        ".",
    )


def _blind(e: ev.BlindDrawn, s: State, names: Names) -> Sentence:
    """A blind card stays face down for everyone (its drawer too, as the view has it) until the year ends."""
    who = name_of(names, e.seat)
    if not e.card:
        return sentence(f"{who} has no action card left and would draw blind, but no politics card is left to draw.")
    return sentence(f"{who} has no action card left and draws a politics card blind: ", hidden(_card(e.card), None, "it stays face down"), ".")


def _turn_ended(e: ev.TurnEnded, s: State, names: Names) -> Sentence:
    return sentence(f"{name_of(names, e.seat)}'s turn ends (political round {s.round} of {s.t.rounds}).")


# ---------------------------------------------------------------- tally and migration


def _revealed(e: ev.VoiceRevealed, s: State, names: Names) -> Sentence:
    wanted = _and(list(e.services))
    return sentence(f"The voice of the people is revealed: {_and(list(e.cards))} beside {s.voice_up}; the people want {wanted}.")


def _attracted(e: ev.CityAttracted, s: State, names: Names) -> Sentence:
    city = _city(s, names, e.city)
    if not e.losers:
        return sentence(f"{city[0].upper()}{city[1:]} draws no citizen with its {e.service}.")
    came = _and([_city(s, names, k) for k in e.losers])
    rest = f"; at its limit, {_count(e.to_supply, 'goes', 'go')} to the supply instead" if e.to_supply else ""
    return sentence(f"{city[0].upper()}{city[1:]} draws {_count(len(e.losers), 'citizen')} with its {e.service}, from {came}{rest}.")


def _mig_ended(e: ev.MigrationTurnEnded, s: State, names: Names) -> Sentence:
    return sentence(f"{name_of(names, e.seat)}'s migration turn ends.")


def _demolished(e: ev.BuildingDemolished, s: State, names: Names) -> Sentence:
    who = name_of(names, e.seat)
    food = f" ({_food(e.food, '-')})" if e.food else ""
    if e.building == "castle":
        return sentence(f"{who}'s empty castle at {hex_name(e.hex)} is pulled down{food}; the castle goes back to {who}.")
    return sentence(f"{who}'s city at {hex_name(e.city)} lacks citizens: its {_word(e.building)} at {hex_name(e.hex)} is pulled down{food}.")


# ---------------------------------------------------------------- feeding and the year's end


def _counted(e: ev.FeedingCounted, s: State, names: Names) -> Sentence:
    parts = []
    for seat, (food, people, short) in enumerate(zip(e.food, e.citizens, e.shortfall, strict=True)):
        hungry = f", {short} short" if short else ""
        parts.append(f"{name_of(names, seat)} has {food} food for {_count(people, 'citizen')}{hungry}")
    return sentence(f"Food counted: {'; '.join(parts)}.")


def _starved(e: ev.CitizenStarved, s: State, names: Names) -> Sentence:
    go = "goes" if e.citizens == 1 else "go"
    return sentence(f"{_count(e.citizens, 'hungry citizen')} of {_city(s, names, e.city)} {go} back to the supply.")


def _year_ended(e: ev.YearEnded, s: State, names: Names) -> Sentence:
    """The cards drawn blind reach the face-up discard pile here, so every reader may read them now."""
    blind = [_word(card) for pile in s.played for card, was_blind in pile if was_blind and card]
    shown = f" (drawn blind: {_and(blind)})" if blind else ""
    played = sum(1 for pile in s.played for card, _ in pile if card)
    cards = f": the {_count(played, 'politics card')} played this year go to the discard pile{shown}" if played else ""
    end = "; the game is over" if e.year >= s.t.years else ""
    return sentence(f"Year {e.year} ends{cards}{end}.")


DESCRIBE: dict[type[Event], Callable[[Any, State, Names], Sentence | None]] = every_event(TITLE, {
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
}, "describe")


ROUND = "year"  # what the viewer calls a round of La Città: its six years


def final_said(name: str, total: int, breakdown: dict[str, Any]) -> str:
    """A seat's final score in one sentence, from its breakdown (scoring.scores): what each part is worth."""
    parts = [_count(breakdown["citizens"], "citizen")]
    if breakdown.get("all_services"):
        parts.append(f"{breakdown['all_services']} for cities with every service")
    if breakdown.get("starved"):
        parts.append(f"{breakdown['starved']} for citizens who starved in the last year")
    return f"{name}: {', '.join(parts)}: {total} VP (gold breaks a tie: {breakdown['gold']})."
