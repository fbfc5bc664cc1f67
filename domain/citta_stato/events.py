"""Città-Stato domain events. Stored forever: names and fields are a public format.

`pops` says the event settles the decision (or automatic step) at the head of the task
queue; the fold removes that step before applying the event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, TypeVar

from domain.kernel import Event, event

E = TypeVar("E", bound=Event)


class Step(Event):
    """An event that settles the step at the head of the task queue."""

    __slots__ = ()
    pops: ClassVar[bool] = True


class Fact(Event):
    """An event that happens outside any queued step (setup, a turn's action)."""

    __slots__ = ()
    pops: ClassVar[bool] = False


# --- setup -------------------------------------------------------------------------------
@event("citta-stato/game-started")
class GameStarted(Fact):
    edition: Mapping[str, str]
    players: int
    expansion: bool


@event("citta-stato/cities-dealt")
class CitiesDealt(Fact):
    cities: tuple[str, ...]


@event("citta-stato/personal-scheme-dealt")
class PersonalSchemeDealt(Fact):
    seat: int
    scheme: str


@event("citta-stato/schemes-placed")
class SchemesPlaced(Fact):
    slots: tuple[str, ...]


@event("citta-stato/republic-cards-dealt")
class RepublicCardsDealt(Fact):
    cards: tuple[str, ...]


@event("citta-stato/cards-revealed")
class CardsRevealed(Fact):
    colour: str
    present: str
    future: str


@event("citta-stato/first-player-chosen")
class FirstPlayerChosen(Fact):
    seat: int


@event("citta-stato/city-cubes-placed")
class CityCubesPlaced(Fact):
    seat: int


@event("citta-stato/setup-completed")
class SetupCompleted(Fact):
    pass


# --- turns -------------------------------------------------------------------------------
@event("citta-stato/action-taken")
class ActionTaken(Fact):
    seat: int
    action: str  # city | use | burn | upgrade
    colour: str
    paid: tuple[str, ...]
    card: str = ""


@event("citta-stato/passed")
class Passed(Fact):
    seat: int


@event("citta-stato/future-revealed")
class FutureRevealed(Fact):
    colour: str
    card: str


@event("citta-stato/turn-ended")
class TurnEnded(Step):
    seat: int
    next: int


@event("citta-stato/step-skipped")
class StepSkipped(Step):
    """A step with nothing to do (no cube to buy, no disc to recover...)."""

    seat: int
    step: str


@event("citta-stato/declined")
class Declined(Step):
    seat: int
    step: str


@event("citta-stato/accepted")
class Accepted(Step):
    seat: int
    step: str


@event("citta-stato/cube-bought")
class CubeBought(Step):
    seat: int
    colour: str
    cost: int


@event("citta-stato/banner-gained")
class BannerGained(Step):
    seat: int
    colour: str


@event("citta-stato/banner-returned")
class BannerReturned(Step):
    seat: int
    colour: str


@event("citta-stato/cube-gained")
class CubeGained(Step):
    seat: int
    colour: str
    got: bool


@event("citta-stato/crowns-gained")
class CrownsGained(Step):
    seat: int
    crowns: int


@event("citta-stato/cubes-drawn")
class CubesDrawn(Step):
    """Cubes from a bag to the supply; `keep` >= 0 means all but `keep` go back by choice."""

    seat: int
    cubes: tuple[str, ...]
    keep: int = -1


@event("citta-stato/cube-returned")
class CubeReturned(Step):
    seat: int
    colour: str


@event("citta-stato/vp-scored")
class VpScored(Step):
    seat: int
    vp: int
    score: str  # first | second


@event("citta-stato/form-shifted")
class FormShifted(Step):
    seats: tuple[int, ...]
    direction: str  # left | right | none
    spaces: int


@event("citta-stato/war-disc-placed")
class WarDiscPlaced(Step):
    seat: int
    value: int


@event("citta-stato/scheme-chosen")
class SchemeChosen(Step):
    seat: int
    slot: int  # 1-4 on the board, 0 = the city's personal scheme
    scheme: str


@event("citta-stato/banners-traded")
class BannersTraded(Step):
    seat: int
    trade: str


@event("citta-stato/alliance-disc-removed")
class AllianceDiscRemoved(Step):
    seat: int
    value: int
    others: tuple[int, ...]


@event("citta-stato/card-taken")
class CardTaken(Step):
    seat: int
    card: str
    source: str  # present | future | supply
    mode: str  # use | burn


@event("citta-stato/card-burned-under")
class CardBurnedUnder(Step):
    seat: int
    card: str
    position: str


@event("citta-stato/market-cube-taken")
class MarketCubeTaken(Step):
    seat: int
    colour: str
    cost: int


@event("citta-stato/market-cube-placed")
class MarketCubePlaced(Step):
    seat: int
    colour: str


@event("citta-stato/banners-discarded")
class BannersDiscarded(Step):
    seat: int
    colour: str
    count: int


@event("citta-stato/colour-chosen")
class ColourChosen(Step):
    seat: int
    colour: str


@event("citta-stato/republic-drawn")
class RepublicDrawn(Step):
    seat: int
    card: str


@event("citta-stato/republic-kept")
class RepublicKept(Step):
    seat: int
    kept: str
    returned: str


@event("citta-stato/cubes-removed")
class CubesRemoved(Step):
    seat: int
    colour: str
    count: int


@event("citta-stato/war-disc-recovered")
class WarDiscRecovered(Step):
    seat: int
    value: int


@event("citta-stato/war-disc-retired")
class WarDiscRetired(Step):
    seat: int
    value: int


@event("citta-stato/decree-upgrade")
class DecreeUpgrade(Step):
    seat: int
    colour: str


@event("citta-stato/crowns-removed")
class CrownsRemoved(Step):
    seat: int
    count: int


@event("citta-stato/crown-stolen")
class CrownStolen(Step):
    seat: int
    victim: int


# --- end of round ------------------------------------------------------------------------
@event("citta-stato/war-revealed")
class WarRevealed(Step):
    discs: tuple[tuple[int, int], ...]  # (seat, value) in placement order


@event("citta-stato/war-paid")
class WarPaid(Step):
    seat: int
    colour: str


@event("citta-stato/war-forfeited")
class WarForfeited(Step):
    seat: int
    paid: tuple[str, ...]


@event("citta-stato/war-won")
class WarWon(Step):
    seat: int
    losers: tuple[int, ...]


@event("citta-stato/war-ended")
class WarEnded(Step):
    pass


@event("citta-stato/cards-renewed")
class CardsRenewed(Step):
    """Present discarded, Future moved down, new cards drawn; `rebuilt_after` draws before the discards were reshuffled in (-1: never)."""

    colour: str
    drawn: tuple[str, ...]
    rebuilt_after: int = -1


@event("citta-stato/round-reset")
class RoundReset(Step):
    round: int
    first: int


@event("citta-stato/second-scoring-started")
class SecondScoringStarted(Step):
    pass


@event("citta-stato/form-crowns-taken")
class FormCrownsTaken(Step):
    crowns: tuple[int, ...]


@event("citta-stato/game-ended")
class GameEnded(Step):
    finals: tuple[int, ...]


# --- solo: the Ghost ---------------------------------------------------------------------
@event("citta-stato/solo-started")
class SoloStarted(Fact):
    """The scenario's fixed setup replaces the random deals; carried crowns are the human's from the start."""

    scenario: int
    game: int
    carried_crowns: int


@event("citta-stato/ghost-set-up")
class GhostSetUp(Fact):
    bag: tuple[str, ...]
    market: tuple[str, ...]  # cubes the Ghost adds to the Market, each to its column's top free space


@event("citta-stato/ghost-drew")
class GhostDrew(Step):
    """One Ghost action: the cube drawn from its bag, and the Present card of that colour it discards ("" if none)."""

    cube: str
    discarded: str


@event("citta-stato/market-row-cleared")
class MarketRowCleared(Step):
    cost: int
    cubes: tuple[str, ...]


@event("citta-stato/schemes-removed")
class SchemesRemoved(Step):
    slots: tuple[int, ...]


@event("citta-stato/track-moved-back")
class TrackMovedBack(Step):
    seat: int
    colour: str


@event("citta-stato/cube-bagged")
class CubeBagged(Step):
    seat: int
    colour: str

