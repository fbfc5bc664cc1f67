"""La Città domain events. Hexes are L-numbers; a city is named by its castle's hex."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from domain.kernel import Event, FrozenDict, event, freeze, thaw

_NAMES: dict[type, tuple[str, ...]] = {}
_CONTAINERS: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    found = _NAMES.get(cls)
    if found is None:
        found = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return found


def _containers(cls: type) -> tuple[str, ...]:
    """The fields declared as tuples or mappings: the only ones that can need freezing."""
    found = _CONTAINERS.get(cls)
    if found is None:
        found = _CONTAINERS[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if str(f.type).startswith(("tuple", "Mapping"))
        )
    return found


@dataclasses.dataclass(frozen=True, slots=True)
class LaCittaEvent(Event):
    """Same freezing and JSON as the kernel's Event, with exact type tests instead of ABC checks.

    Replaying a log serialises every event twice, so this is on the validation hot path.
    """

    def __post_init__(self) -> None:
        for name in _containers(type(self)):
            object.__setattr__(self, name, freeze(getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        data = {}
        for name in _names(type(self)):
            value = getattr(self, name)
            data[name] = thaw(value) if type(value) is tuple or type(value) is FrozenDict else value
        return {"type": self.type, "data": data}


@event("la-citta/game-started")
class GameStarted(LaCittaEvent):
    edition: Mapping[str, str]
    players: int
    setup: str  # "beginner" or "experienced"
    start: int


@event("la-citta/tiles-placed")
class TilesPlaced(LaCittaEvent):
    tiles: Mapping[str, str]  # slot -> terrain code


@event("la-citta/castle-placed")
class CastlePlaced(LaCittaEvent):
    seat: int
    hex: int
    citizens: int
    food: int


@event("la-citta/start-player-set")
class StartPlayerSet(LaCittaEvent):
    seat: int


@event("la-citta/gold-gained")
class GoldGained(LaCittaEvent):
    seat: int
    amount: int
    reason: str


@event("la-citta/politics-dealt")
class PoliticsDealt(LaCittaEvent):
    """Cards drawn from the face-down politics deck onto the face-up display."""

    cards: tuple[str, ...]


@event("la-citta/politics-deck-rebuilt")
class PoliticsDeckRebuilt(LaCittaEvent):
    """The discard pile shuffled into a new face-down deck (an unseen multiset: no order)."""

    cards: tuple[str, ...]


@event("la-citta/year-began")
class YearBegan(LaCittaEvent):
    year: int
    start: int


@event("la-citta/voice-laid-out")
class VoiceLaidOut(LaCittaEvent):
    face_up: str


@event("la-citta/quarries-paid")
class QuarriesPaid(LaCittaEvent):
    gold: tuple[int, ...]  # per seat


@event("la-citta/population-grew")
class PopulationGrew(LaCittaEvent):
    cities: tuple[int, ...]  # castles that gained one citizen


@event("la-citta/phase-began")
class PhaseBegan(LaCittaEvent):
    phase: str


@event("la-citta/turn-forfeited")
class TurnForfeited(LaCittaEvent):
    """The hunger penalty: an action card turned down with no effect."""

    seat: int


@event("la-citta/action-card-used")
class ActionCardUsed(LaCittaEvent):
    seat: int
    option: str


@event("la-citta/city-founded")
class CityFounded(LaCittaEvent):
    seat: int
    hex: int
    source: int  # castle the spare citizen came from
    from_supply: int
    food: int


@event("la-citta/building-built")
class BuildingBuilt(LaCittaEvent):
    seat: int
    city: int
    hex: int
    building: str
    citizen_from: str  # "castle" or "supply"
    food: int


@event("la-citta/politics-card-taken")
class PoliticsCardTaken(LaCittaEvent):
    seat: int
    card: str
    cost: int


@event("la-citta/figures-placed")
class FiguresPlaced(LaCittaEvent):
    seat: int
    hex: int
    service: str
    figures: int


@event("la-citta/citizens-arrived")
class CitizensArrived(LaCittaEvent):
    seat: int
    city: int
    kept: int
    to_supply: int


@event("la-citta/harvest-blessed")
class HarvestBlessed(LaCittaEvent):
    seat: int
    hex: int
    figures: int


@event("la-citta/voice-polled")
class VoicePolled(LaCittaEvent):
    """What the polling seat saw; only that seat's view shows the cards."""

    seat: int
    slots: tuple[int, ...]
    cards: tuple[str, ...]


@event("la-citta/blind-drawn")
class BlindDrawn(LaCittaEvent):
    seat: int
    card: str  # "" when the deck and discard pile were both empty


@event("la-citta/turn-ended")
class TurnEnded(LaCittaEvent):
    seat: int


@event("la-citta/voice-revealed")
class VoiceRevealed(LaCittaEvent):
    cards: tuple[str, ...]  # the face-down cards, by slot
    services: tuple[str, ...]  # one (majority) or two (2-2 tie)


@event("la-citta/city-attracted")
class CityAttracted(LaCittaEvent):
    seat: int
    city: int
    service: str
    losers: tuple[int, ...]
    kept: int
    to_supply: int


@event("la-citta/migration-turn-ended")
class MigrationTurnEnded(LaCittaEvent):
    seat: int


@event("la-citta/building-demolished")
class BuildingDemolished(LaCittaEvent):
    seat: int
    city: int
    hex: int
    building: str
    food: int


@event("la-citta/feeding-counted")
class FeedingCounted(LaCittaEvent):
    food: tuple[int, ...]
    citizens: tuple[int, ...]
    shortfall: tuple[int, ...]


@event("la-citta/citizen-starved")
class CitizenStarved(LaCittaEvent):
    seat: int
    city: int
    citizens: int


@event("la-citta/year-ended")
class YearEnded(LaCittaEvent):
    year: int
