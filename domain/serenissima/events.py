"""Serenissima's domain events. Stored forever: never rename a type or a field.

Galleys are named by their wheel number; ports by their edition id; seats are 0-based.
In sailor transfers `0` stands for the port of the zone (the named one, see PortNamed).
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.kernel import Event, event

# --- setup -----------------------------------------------------------------------------


@event("serenissima/game-started")
class GameStarted(Event):
    edition: Mapping[str, str]
    players: int
    hidden_money: bool


@event("serenissima/first-player-chosen")
class FirstPlayerChosen(Event):
    seat: int


@event("serenissima/ports-closed")
class PortsClosed(Event):
    ports: tuple[str, ...]


@event("serenissima/doge-deck-shuffled")
class DogeDeckShuffled(Event):
    """The face-down deck is a multiset: shuffling only gathers every card back into it."""

    cards: tuple[str, ...]


@event("serenissima/start-chosen")
class StartChosen(Event):
    seat: int
    port: str
    galley: int


@event("serenissima/galley-chosen")
class GalleyChosen(Event):
    seat: int
    galley: int


# --- the wheel -------------------------------------------------------------------------


@event("serenissima/turn-started")
class TurnStarted(Event):
    turn: int


@event("serenissima/galley-activated")
class GalleyActivated(Event):
    galley: int


@event("serenissima/plan-chosen")
class PlanChosen(Event):
    galley: int
    plan: str  # "action" or "investment"


@event("serenissima/activation-ended")
class ActivationEnded(Event):
    galley: int


@event("serenissima/port-named")
class PortNamed(Event):
    """In a zone with several ports (ambiguity 30) the player names the port of this step.

    Emitted before the step's first loading, sale, claim or attack through a port; later
    events of the step ("0" in sailor transfers, unloading, the fort) mean this port.
    Never emitted where the zone has one port, so those logs are unchanged.
    """

    galley: int
    port: str


# --- loading ---------------------------------------------------------------------------


@event("serenissima/sailor-moved")
class SailorMoved(Event):
    source: int
    target: int


@event("serenissima/good-bought")
class GoodBought(Event):
    galley: int
    good: str
    price: int
    paid_to: int  # a seat, or -1 for the bank


@event("serenissima/good-shifted")
class GoodShifted(Event):
    good: str
    source: int
    target: int


@event("serenissima/good-tossed")
class GoodTossed(Event):
    galley: int
    good: str


@event("serenissima/loading-ended")
class LoadingEnded(Event):
    galley: int


# --- movement and blockades ------------------------------------------------------------


@event("serenissima/sailed")
class Sailed(Event):
    """`blockaders` are the seats that may declare a blockade, in the order they decide."""

    galley: int
    zone: str
    blockaders: tuple[int, ...]


@event("serenissima/movement-ended")
class MovementEnded(Event):
    galley: int


@event("serenissima/blockade-declared")
class BlockadeDeclared(Event):
    seat: int


@event("serenissima/blockade-waived")
class BlockadeWaived(Event):
    seat: int


# --- sale ------------------------------------------------------------------------------


@event("serenissima/sale-announced")
class SaleAnnounced(Event):
    good: str
    blockaders: tuple[int, ...]


@event("serenissima/good-sold")
class GoodSold(Event):
    galley: int
    port: str
    good: str
    space_value: int
    income: int


# --- battle and conquest ---------------------------------------------------------------


@event("serenissima/claim-announced")
class ClaimAnnounced(Event):
    port: str
    blockaders: tuple[int, ...]


@event("serenissima/battle-started")
class BattleStarted(Event):
    """`galley` is the target galley, or 0 when the target is `port`. `value` is the attacker's first combat value.

    Against a port with a fort it follows the fort-fired event and counts the sailors the fort left.
    """

    galley: int
    port: str
    value: int


@event("serenissima/fort-fired")
class FortFired(Event):
    """Before the combat against `port` begins, its fort's dice kill `kills` sailors on the attacking galley."""

    port: str
    rolls: tuple[int, ...]
    kills: int


@event("serenissima/battle-round")
class BattleRound(Event):
    attacker_rolls: tuple[int, ...]
    defender_rolls: tuple[int, ...]
    attacker_losses: int
    defender_losses: int
    salvage_by: int  # the galley that may claim a sunk galley's goods, 0 if none


@event("serenissima/battle-stopped")
class BattleStopped(Event):
    galley: int


@event("serenissima/good-captured")
class GoodCaptured(Event):
    galley: int
    good: str


@event("serenissima/capture-ended")
class CaptureEnded(Event):
    returned: tuple[str, ...]


@event("serenissima/port-taken")
class PortTaken(Event):
    port: str
    seat: int
    sailors: int


@event("serenissima/port-left-neutral")
class PortLeftNeutral(Event):
    port: str


# --- investment ------------------------------------------------------------------------


@event("serenissima/sailor-recruited")
class SailorRecruited(Event):
    seat: int
    port: str  # "" when recruited onto a galley
    galley: int  # 0 when recruited onto a port
    price: int


@event("serenissima/galley-bought")
class GalleyBought(Event):
    """A bought galley comes with its first sailor (also paid), so it never floats empty."""

    seat: int
    galley: int
    port: str
    price: int


@event("serenissima/fort-built")
class FortBuilt(Event):
    seat: int
    port: str
    price: int


@event("serenissima/basilica-built")
class BasilicaBuilt(Event):
    seat: int
    port: str
    price: int


@event("serenissima/investment-ended")
class InvestmentEnded(Event):
    seat: int


# --- end of turn -----------------------------------------------------------------------


@event("serenissima/doge-card-drawn")
class DogeCardDrawn(Event):
    card: str
    track_from: int
    track_to: int


@event("serenissima/wine-paid")
class WinePaid(Event):
    amounts: tuple[int, ...]


@event("serenissima/scored")
class Scored(Event):
    """Scoring is announced even with hidden money, so the amounts are public."""

    number: int
    amounts: tuple[int, ...]
    warehouses: tuple[int, ...]
    basilicas: tuple[int, ...]


@event("serenissima/doge-deck-reshuffled")
class DogeDeckReshuffled(Event):
    cards: tuple[str, ...]


@event("serenissima/special-investment-opened")
class SpecialInvestmentOpened(Event):
    seats: tuple[int, ...]


@event("serenissima/game-ended")
class GameEnded(Event):
    ranking: tuple[int, ...]
