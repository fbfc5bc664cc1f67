"""La Città domain events. Hexes are L-numbers; a city is named by its castle's hex."""

from __future__ import annotations

from collections.abc import Mapping

from domain.kernel import Event, event


@event("la-citta/game-started")
class GameStarted(Event):
    edition: Mapping[str, str]
    players: int
    setup: str  # "beginner" or "experienced"
    start: int


@event("la-citta/tiles-placed")
class TilesPlaced(Event):
    tiles: Mapping[str, str]  # slot -> terrain code


@event("la-citta/castle-placed")
class CastlePlaced(Event):
    seat: int
    hex: int
    citizens: int
    food: int


@event("la-citta/start-player-set")
class StartPlayerSet(Event):
    seat: int


@event("la-citta/gold-gained")
class GoldGained(Event):
    seat: int
    amount: int
    reason: str


@event("la-citta/politics-dealt")
class PoliticsDealt(Event):
    """Cards drawn from the face-down politics deck onto the face-up display."""

    cards: tuple[str, ...]


@event("la-citta/politics-deck-rebuilt")
class PoliticsDeckRebuilt(Event):
    """The discard pile shuffled into a new face-down deck (an unseen multiset: no order)."""

    cards: tuple[str, ...]


@event("la-citta/year-began")
class YearBegan(Event):
    year: int
    start: int


@event("la-citta/voice-laid-out")
class VoiceLaidOut(Event):
    face_up: str


@event("la-citta/quarries-paid")
class QuarriesPaid(Event):
    gold: tuple[int, ...]  # per seat


@event("la-citta/population-grew")
class PopulationGrew(Event):
    cities: tuple[int, ...]  # castles that gained one citizen


@event("la-citta/phase-began")
class PhaseBegan(Event):
    phase: str


@event("la-citta/turn-forfeited")
class TurnForfeited(Event):
    """The hunger penalty: an action card turned down with no effect."""

    seat: int


@event("la-citta/action-card-used")
class ActionCardUsed(Event):
    seat: int
    option: str


@event("la-citta/city-founded")
class CityFounded(Event):
    seat: int
    hex: int
    source: int  # castle the spare citizen came from
    from_supply: int
    food: int


@event("la-citta/building-built")
class BuildingBuilt(Event):
    seat: int
    city: int
    hex: int
    building: str
    citizen_from: str  # "castle" or "supply"
    food: int


@event("la-citta/politics-card-taken")
class PoliticsCardTaken(Event):
    seat: int
    card: str
    cost: int


@event("la-citta/figures-placed")
class FiguresPlaced(Event):
    seat: int
    hex: int
    service: str
    figures: int


@event("la-citta/citizens-arrived")
class CitizensArrived(Event):
    seat: int
    city: int
    kept: int
    to_supply: int


@event("la-citta/harvest-blessed")
class HarvestBlessed(Event):
    seat: int
    hex: int
    figures: int


@event("la-citta/voice-polled")
class VoicePolled(Event):
    """What the polling seat saw; only that seat's view shows the cards."""

    seat: int
    slots: tuple[int, ...]
    cards: tuple[str, ...]


@event("la-citta/blind-drawn")
class BlindDrawn(Event):
    seat: int
    card: str  # "" when the deck and discard pile were both empty


@event("la-citta/turn-ended")
class TurnEnded(Event):
    seat: int


@event("la-citta/voice-revealed")
class VoiceRevealed(Event):
    cards: tuple[str, ...]  # the face-down cards, by slot
    services: tuple[str, ...]  # one (majority) or two (2-2 tie)


@event("la-citta/city-attracted")
class CityAttracted(Event):
    seat: int
    city: int
    service: str
    losers: tuple[int, ...]
    kept: int
    to_supply: int


@event("la-citta/migration-turn-ended")
class MigrationTurnEnded(Event):
    seat: int


@event("la-citta/building-demolished")
class BuildingDemolished(Event):
    seat: int
    city: int
    hex: int
    building: str
    food: int


@event("la-citta/feeding-counted")
class FeedingCounted(Event):
    food: tuple[int, ...]
    citizens: tuple[int, ...]
    shortfall: tuple[int, ...]


@event("la-citta/citizen-starved")
class CitizenStarved(Event):
    seat: int
    city: int
    citizens: int


@event("la-citta/year-ended")
class YearEnded(Event):
    year: int
