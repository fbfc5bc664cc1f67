"""Serenissima's domain events. Stored forever: never rename a type or a field.

Galleys are named by their wheel number; ports by their edition id; seats are 0-based.
In sailor transfers `0` stands for the port of the zone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from domain.kernel import Event, event
from domain.kernel.frozen import freeze, thaw

_PLAIN, _SCALARS, _NESTED = 0, 1, 2
_LAYOUT: dict[type, tuple[tuple[str, int], ...]] = {}


def _layout(cls: type) -> tuple[tuple[str, int], ...]:
    found = _LAYOUT.get(cls)
    if found is None:
        kinds = []
        for f in dataclasses.fields(cls):
            note = str(f.type)
            kinds.append((f.name, _SCALARS if note.startswith("tuple[") else _NESTED if note.startswith("Mapping") else _PLAIN))
        found = _LAYOUT[cls] = tuple(kinds)
    return found


class SerenissimaEvent(Event):
    """Same JSON as the kernel's Event, built faster from the declared field types.

    Validating a log turns every event to JSON twice; our fields are scalars, tuples of
    scalars or one mapping, so there is no need to walk each value to find out.
    """

    __slots__ = ()

    def __post_init__(self) -> None:
        for name, kind in _layout(type(self)):
            if kind == _SCALARS:
                value = getattr(self, name)
                if type(value) is not tuple:
                    object.__setattr__(self, name, freeze(value))
            elif kind == _NESTED:
                object.__setattr__(self, name, freeze(getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, kind in _layout(type(self)):
            value = getattr(self, name)
            data[name] = value if kind == _PLAIN else list(value) if kind == _SCALARS else thaw(value)
        return {"type": self.type, "data": data}

# --- setup -----------------------------------------------------------------------------


@event("serenissima/game-started")
class GameStarted(SerenissimaEvent):
    edition: Mapping[str, str]
    players: int
    hidden_money: bool


@event("serenissima/first-player-chosen")
class FirstPlayerChosen(SerenissimaEvent):
    seat: int


@event("serenissima/ports-closed")
class PortsClosed(SerenissimaEvent):
    ports: tuple[str, ...]


@event("serenissima/doge-deck-shuffled")
class DogeDeckShuffled(SerenissimaEvent):
    """The face-down deck is a multiset: shuffling only gathers every card back into it."""

    cards: tuple[str, ...]


@event("serenissima/start-chosen")
class StartChosen(SerenissimaEvent):
    seat: int
    port: str
    galley: int


@event("serenissima/galley-chosen")
class GalleyChosen(SerenissimaEvent):
    seat: int
    galley: int


# --- the wheel -------------------------------------------------------------------------


@event("serenissima/turn-started")
class TurnStarted(SerenissimaEvent):
    turn: int


@event("serenissima/galley-activated")
class GalleyActivated(SerenissimaEvent):
    galley: int


@event("serenissima/plan-chosen")
class PlanChosen(SerenissimaEvent):
    galley: int
    plan: str  # "action" or "investment"


@event("serenissima/activation-ended")
class ActivationEnded(SerenissimaEvent):
    galley: int


# --- loading ---------------------------------------------------------------------------


@event("serenissima/sailor-moved")
class SailorMoved(SerenissimaEvent):
    source: int
    target: int


@event("serenissima/good-bought")
class GoodBought(SerenissimaEvent):
    galley: int
    good: str
    price: int
    paid_to: int  # a seat, or -1 for the bank


@event("serenissima/good-shifted")
class GoodShifted(SerenissimaEvent):
    good: str
    source: int
    target: int


@event("serenissima/good-tossed")
class GoodTossed(SerenissimaEvent):
    galley: int
    good: str


@event("serenissima/loading-ended")
class LoadingEnded(SerenissimaEvent):
    galley: int


# --- movement and blockades ------------------------------------------------------------


@event("serenissima/sailed")
class Sailed(SerenissimaEvent):
    """`blockaders` are the seats that may declare a blockade, in the order they decide."""

    galley: int
    zone: str
    blockaders: tuple[int, ...]


@event("serenissima/movement-ended")
class MovementEnded(SerenissimaEvent):
    galley: int


@event("serenissima/blockade-declared")
class BlockadeDeclared(SerenissimaEvent):
    seat: int


@event("serenissima/blockade-waived")
class BlockadeWaived(SerenissimaEvent):
    seat: int


# --- sale ------------------------------------------------------------------------------


@event("serenissima/sale-announced")
class SaleAnnounced(SerenissimaEvent):
    good: str
    blockaders: tuple[int, ...]


@event("serenissima/good-sold")
class GoodSold(SerenissimaEvent):
    galley: int
    port: str
    good: str
    space_value: int
    income: int


# --- battle and conquest ---------------------------------------------------------------


@event("serenissima/claim-announced")
class ClaimAnnounced(SerenissimaEvent):
    port: str
    blockaders: tuple[int, ...]


@event("serenissima/battle-started")
class BattleStarted(SerenissimaEvent):
    """`galley` is the target galley, or 0 when the target is `port`. `value` is the attacker's first combat value."""

    galley: int
    port: str
    value: int


@event("serenissima/fort-fired")
class FortFired(SerenissimaEvent):
    port: str
    rolls: tuple[int, ...]
    kills: int


@event("serenissima/battle-round")
class BattleRound(SerenissimaEvent):
    attacker_rolls: tuple[int, ...]
    defender_rolls: tuple[int, ...]
    attacker_losses: int
    defender_losses: int
    salvage_by: int  # the galley that may claim a sunk galley's goods, 0 if none


@event("serenissima/battle-stopped")
class BattleStopped(SerenissimaEvent):
    galley: int


@event("serenissima/good-captured")
class GoodCaptured(SerenissimaEvent):
    galley: int
    good: str


@event("serenissima/capture-ended")
class CaptureEnded(SerenissimaEvent):
    returned: tuple[str, ...]


@event("serenissima/port-taken")
class PortTaken(SerenissimaEvent):
    port: str
    seat: int
    sailors: int


@event("serenissima/port-left-neutral")
class PortLeftNeutral(SerenissimaEvent):
    port: str


# --- investment ------------------------------------------------------------------------


@event("serenissima/sailor-recruited")
class SailorRecruited(SerenissimaEvent):
    seat: int
    port: str  # "" when recruited onto a galley
    galley: int  # 0 when recruited onto a port
    price: int


@event("serenissima/galley-bought")
class GalleyBought(SerenissimaEvent):
    """A bought galley comes with its first sailor (also paid), so it never floats empty."""

    seat: int
    galley: int
    port: str
    price: int


@event("serenissima/fort-built")
class FortBuilt(SerenissimaEvent):
    seat: int
    port: str
    price: int


@event("serenissima/basilica-built")
class BasilicaBuilt(SerenissimaEvent):
    seat: int
    port: str
    price: int


@event("serenissima/investment-ended")
class InvestmentEnded(SerenissimaEvent):
    seat: int


# --- end of turn -----------------------------------------------------------------------


@event("serenissima/doge-card-drawn")
class DogeCardDrawn(SerenissimaEvent):
    card: str
    track_from: int
    track_to: int


@event("serenissima/wine-paid")
class WinePaid(SerenissimaEvent):
    amounts: tuple[int, ...]


@event("serenissima/scored")
class Scored(SerenissimaEvent):
    """Scoring is announced even with hidden money, so the amounts are public."""

    number: int
    amounts: tuple[int, ...]
    warehouses: tuple[int, ...]
    basilicas: tuple[int, ...]


@event("serenissima/doge-deck-reshuffled")
class DogeDeckReshuffled(SerenissimaEvent):
    cards: tuple[str, ...]


@event("serenissima/special-investment-opened")
class SpecialInvestmentOpened(SerenissimaEvent):
    seats: tuple[int, ...]


@event("serenissima/game-ended")
class GameEnded(SerenissimaEvent):
    ranking: tuple[int, ...]
