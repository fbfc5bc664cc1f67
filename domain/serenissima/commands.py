"""Serenissima's commands: each is one small decision, so `legal` can list every choice.

Sailor and goods transfers name places by galley number, with `0` for the zone's port.
Commands that go through a port carry an optional `port`: needed only where the zone has
several ports (ambiguity 30), and left out of the JSON when empty so one-port logs stay as
they were.
"""

from __future__ import annotations

from typing import Any

import marshmallow
from marshmallow import fields

from domain.kernel import Command, CommandBook, command


def _without_empty_port(self: Command) -> dict[str, Any]:
    """The command's JSON, without `port` when no port was named."""
    out = Command.to_json(self)
    if not out["port"]:
        del out["port"]
    return out


@command("serenissima/choose-start")
class ChooseStart(Command):
    port: str
    galley: int


@command("serenissima/choose-galley")
class ChooseGalley(Command):
    galley: int


@command("serenissima/choose-plan")
class ChoosePlan(Command):
    plan: str  # "action" or "investment"


@command("serenissima/move-sailor")
class MoveSailor(Command):
    source: int
    target: int
    port: str = ""

    to_json = _without_empty_port


@command("serenissima/buy-good")
class BuyGood(Command):
    port: str = ""

    to_json = _without_empty_port


@command("serenissima/shift-good")
class ShiftGood(Command):
    good: str
    source: int
    target: int


@command("serenissima/toss-good")
class TossGood(Command):
    good: str


@command("serenissima/end-loading")
class EndLoading(Command):
    pass


@command("serenissima/sail")
class Sail(Command):
    zone: str


@command("serenissima/end-movement")
class EndMovement(Command):
    pass


@command("serenissima/blockade")
class Blockade(Command):
    declare: bool


@command("serenissima/sell")
class Sell(Command):
    good: str
    port: str = ""

    to_json = _without_empty_port


@command("serenissima/attack-galley")
class AttackGalley(Command):
    galley: int


@command("serenissima/attack-port")
class AttackPort(Command):
    port: str = ""

    to_json = _without_empty_port


@command("serenissima/claim-port")
class ClaimPort(Command):
    port: str = ""

    to_json = _without_empty_port


@command("serenissima/continue-battle")
class ContinueBattle(Command):
    go: bool


@command("serenissima/capture")
class Capture(Command):
    good: str


@command("serenissima/end-capture")
class EndCapture(Command):
    pass


@command("serenissima/unload")
class Unload(Command):
    sailors: int


@command("serenissima/end-activation")
class EndActivation(Command):
    pass


@command("serenissima/recruit-port")
class RecruitPort(Command):
    port: str


@command("serenissima/recruit-galley")
class RecruitGalley(Command):
    galley: int


@command("serenissima/buy-galley")
class BuyGalley(Command):
    galley: int
    port: str


@command("serenissima/build-fort")
class BuildFort(Command):
    port: str


@command("serenissima/build-basilica")
class BuildBasilica(Command):
    port: str


@command("serenissima/end-investment")
class EndInvestment(Command):
    pass


def _schema(**extra: fields.Field) -> marshmallow.Schema:
    body: dict[str, fields.Field] = {"seat": fields.Integer(required=True, strict=True)}
    body.update(extra)
    return marshmallow.Schema.from_dict(body)(unknown=marshmallow.RAISE)


def _int() -> fields.Integer:
    return fields.Integer(required=True, strict=True)


def _str() -> fields.String:
    return fields.String(required=True)


def _port() -> fields.String:
    return fields.String(load_default="")


def _bool() -> fields.Boolean:
    return fields.Boolean(required=True, truthy={True}, falsy={False})


BOOK = CommandBook()
BOOK.add(ChooseStart, _schema(port=_str(), galley=_int()))
BOOK.add(ChooseGalley, _schema(galley=_int()))
BOOK.add(ChoosePlan, _schema(plan=fields.String(required=True, validate=marshmallow.validate.OneOf(["action", "investment"]))))
BOOK.add(MoveSailor, _schema(source=_int(), target=_int(), port=_port()))
BOOK.add(BuyGood, _schema(port=_port()))
BOOK.add(ShiftGood, _schema(good=_str(), source=_int(), target=_int()))
BOOK.add(TossGood, _schema(good=_str()))
BOOK.add(EndLoading, _schema())
BOOK.add(Sail, _schema(zone=_str()))
BOOK.add(EndMovement, _schema())
BOOK.add(Blockade, _schema(declare=_bool()))
BOOK.add(Sell, _schema(good=_str(), port=_port()))
BOOK.add(AttackGalley, _schema(galley=_int()))
BOOK.add(AttackPort, _schema(port=_port()))
BOOK.add(ClaimPort, _schema(port=_port()))
BOOK.add(ContinueBattle, _schema(go=_bool()))
BOOK.add(Capture, _schema(good=_str()))
BOOK.add(EndCapture, _schema())
BOOK.add(Unload, _schema(sailors=_int()))
BOOK.add(EndActivation, _schema())
BOOK.add(RecruitPort, _schema(port=_str()))
BOOK.add(RecruitGalley, _schema(galley=_int()))
BOOK.add(BuyGalley, _schema(galley=_int(), port=_str()))
BOOK.add(BuildFort, _schema(port=_str()))
BOOK.add(BuildBasilica, _schema(port=_str()))
BOOK.add(EndInvestment, _schema())
