"""Città-Stato commands: what a seat may submit, each with its schema (unknown fields rejected), and `parse`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import Command, CommandBook, command

from .edition import BANNERS, COLOURS


@command("citta-stato/city-action")
class CityAction(Command):
    colour: str
    jokers: int = 0  # how many W/B cubes stand in for the action's colour


@command("citta-stato/use-card")
class UseCard(Command):
    colour: str
    jokers: int = 0


@command("citta-stato/burn-card")
class BurnCard(Command):
    colour: str
    jokers: int = 0


@command("citta-stato/upgrade")
class Upgrade(Command):
    colour: str
    jokers: int = 0


@command("citta-stato/pass")
class Pass(Command):
    pass


@command("citta-stato/market-cube")
class MarketCube(Command):
    colour: str
    cost: int  # the row, named by its price: 1 = bottom row


@command("citta-stato/accept")
class Accept(Command):
    pass


@command("citta-stato/decline")
class Decline(Command):
    pass


@command("citta-stato/shift")
class Shift(Command):
    direction: str
    spaces: int = 1


@command("citta-stato/pick-colour")
class PickColour(Command):
    colour: str


@command("citta-stato/pick-number")
class PickNumber(Command):
    value: int


@command("citta-stato/take-card")
class TakeCard(Command):
    card: str
    source: str
    mode: str


@command("citta-stato/keep-republic")
class KeepRepublic(Command):
    keep: str  # old | new


@command("citta-stato/trade-banners")
class TradeBanners(Command):
    trade: str


@command("citta-stato/use-scheme")
class UseScheme(Command):
    slot: int


@command("citta-stato/war-disc")
class WarDisc(Command):
    value: int


def _schema(**extra: fields.Field) -> marshmallow.Schema:
    body = {"seat": fields.Integer(required=True, strict=True, validate=validate.Range(min=0)), **extra}
    cls = marshmallow.Schema.from_dict(body)
    return cls(unknown=marshmallow.RAISE)


def _int(**kw: Any) -> fields.Integer:
    return fields.Integer(strict=True, **kw)


_paid: dict[str, fields.Field] = {"colour": fields.String(required=True, validate=validate.OneOf(COLOURS)), "jokers": _int(load_default=0, validate=validate.Range(min=0))}

BOOK = CommandBook()
BOOK.add(CityAction, _schema(**_paid))
BOOK.add(UseCard, _schema(**_paid))
BOOK.add(BurnCard, _schema(**_paid))
BOOK.add(Upgrade, _schema(colour=fields.String(required=True, validate=validate.OneOf(BANNERS)), jokers=_paid["jokers"]))
BOOK.add(Pass, _schema())
BOOK.add(MarketCube, _schema(colour=fields.String(required=True, validate=validate.OneOf(COLOURS)), cost=_int(required=True)))
BOOK.add(Accept, _schema())
BOOK.add(Decline, _schema())
BOOK.add(Shift, _schema(direction=fields.String(required=True, validate=validate.OneOf(("left", "right", "none"))), spaces=_int(load_default=1, validate=validate.Range(min=0))))
BOOK.add(PickColour, _schema(colour=fields.String(required=True, validate=validate.OneOf(COLOURS))))
BOOK.add(PickNumber, _schema(value=_int(required=True)))
BOOK.add(TakeCard, _schema(card=fields.String(required=True), source=fields.String(required=True, validate=validate.OneOf(("present", "future", "supply"))), mode=fields.String(required=True, validate=validate.OneOf(("use", "burn")))))
BOOK.add(KeepRepublic, _schema(keep=fields.String(required=True, validate=validate.OneOf(("old", "new")))))
BOOK.add(TradeBanners, _schema(trade=fields.String(required=True)))
BOOK.add(UseScheme, _schema(slot=_int(required=True)))
BOOK.add(WarDisc, _schema(value=_int(required=True)))


_PARSED: dict[tuple[Any, ...], Command] = {}


def parse(payload: Mapping[str, Any]) -> Command:
    """The command book's parse, remembered per payload (keys, values and the type of each value).

    A replayed log repeats the same few hundred payloads; the types are part of the key, so
    `true` is never taken for `1`. Only payloads that parsed are kept, so every malformed one
    still reaches the book and is refused there. The key is one flat tuple, the keys, then the
    values, then their types (n of each, so it splits only one way): half the cost of a tuple of tuples.
    """
    try:
        key = (*payload, *payload.values(), *map(type, payload.values()))
        found = _PARSED.get(key)
    except (AttributeError, TypeError):  # not a mapping, or a list / object value: no key, parse as is
        return BOOK.parse(payload)
    if found is None:
        found = BOOK.parse(payload)
        if len(_PARSED) >= 4096:
            _PARSED.clear()
        _PARSED[key] = found
    return found
