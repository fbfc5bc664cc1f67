"""La Città commands: one per kind of choice a seat makes, each with its schema."""

from __future__ import annotations

from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import Command, CommandBook, command

SERVICE = validate.OneOf(["culture", "education", "health"])


@command("la-citta/place-castle")
class PlaceCastle(Command):
    hex: int


@command("la-citta/take-gold")
class TakeGold(Command):
    pass


@command("la-citta/found-city")
class FoundCity(Command):
    hex: int
    source: int


@command("la-citta/build")
class Build(Command):
    card: str  # "action" or the politics card taken
    building: str
    city: int
    hex: int


@command("la-citta/bread-and-games")
class BreadAndGames(Command):
    hex: int
    service: str
    figures: int


@command("la-citta/golden-times")
class GoldenTimes(Command):
    city: int
    citizens: int


@command("la-citta/rich-harvest")
class RichHarvest(Command):
    hex: int


@command("la-citta/poll")
class Poll(Command):
    slots: tuple[int, ...]


@command("la-citta/blind-draw")
class BlindDraw(Command):
    pass


@command("la-citta/attract")
class Attract(Command):
    city: int
    service: str


@command("la-citta/demolish")
class Demolish(Command):
    hex: int


@command("la-citta/send-away")
class SendAway(Command):
    city: int
    citizens: int


class _Schema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    seat = fields.Integer(required=True, strict=True)


def _schema(**extra: fields.Field) -> marshmallow.Schema:
    return type("Schema", (_Schema,), dict(extra))()


def _int() -> fields.Integer:
    return fields.Integer(required=True, strict=True)


BOOK = CommandBook()
BOOK.add(PlaceCastle, _schema(hex=_int()))
BOOK.add(TakeGold, _schema())
BOOK.add(FoundCity, _schema(hex=_int(), source=_int()))
BOOK.add(Build, _schema(card=fields.String(required=True), building=fields.String(required=True), city=_int(), hex=_int()))
BOOK.add(BreadAndGames, _schema(hex=_int(), service=fields.String(required=True, validate=SERVICE), figures=_int()))
BOOK.add(GoldenTimes, _schema(city=_int(), citizens=_int()))
BOOK.add(RichHarvest, _schema(hex=_int()))
BOOK.add(Poll, _schema(slots=fields.List(fields.Integer(strict=True), required=True)))
BOOK.add(BlindDraw, _schema())
BOOK.add(Attract, _schema(city=_int(), service=fields.String(required=True, validate=SERVICE)))
BOOK.add(Demolish, _schema(hex=_int()))
BOOK.add(SendAway, _schema(city=_int(), citizens=_int()))


_SHAPES: dict[str, tuple[type[Command], tuple[tuple[str, type], ...]]] = {
    cls.kind: (cls, tuple((name, int if name != "card" and name != "building" and name != "service" else str) for name in names))
    for cls, names in (
        (PlaceCastle, ("seat", "hex")),
        (TakeGold, ("seat",)),
        (FoundCity, ("seat", "hex", "source")),
        (Build, ("seat", "card", "building", "city", "hex")),
        (BreadAndGames, ("seat", "hex", "service", "figures")),
        (GoldenTimes, ("seat", "city", "citizens")),
        (RichHarvest, ("seat", "hex")),
        (BlindDraw, ("seat",)),
        (Attract, ("seat", "city", "service")),
        (Demolish, ("seat", "hex")),
        (SendAway, ("seat", "city", "citizens")),
    )
}
_SERVICES = frozenset(["culture", "education", "health"])


def parse(payload: Any) -> Command:
    """Parse a command: a quick exact-type check for well-formed payloads, the schemas for everything else.

    The quick path accepts only what the schema would accept (exact keys, int not bool, known
    service); anything else goes through `BOOK.parse`, which explains what is wrong.
    """
    if type(payload) is dict:
        shape = _SHAPES.get(payload.get("type"))  # type: ignore[arg-type]
        if shape is not None and len(payload) == len(shape[1]) + 1:
            cls, spec = shape
            try:
                if all(type(payload[name]) is kind for name, kind in spec):
                    service = payload.get("service")
                    if service is None or service in _SERVICES:
                        return cls(**{name: payload[name] for name, _ in spec})
            except KeyError:
                pass
    return BOOK.parse(payload)
