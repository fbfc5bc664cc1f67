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


_POLL_KEYS = frozenset(("type", "seat", "slots"))


def parse(payload: Any) -> Command:
    """A command from its JSON payload; refused with `MalformedCommand` exactly as the schemas refuse.

    The book's own fast path builds every command whose fields are plain values; a poll's list of
    slots would go through marshmallow (about a hundred times slower), so a plain one is built here:
    a dict with exactly the poll's keys, an int seat and a list of ints loads to just that."""
    if type(payload) is dict and payload.get("type") == Poll.kind and payload.keys() == _POLL_KEYS:
        seat, slots = payload["seat"], payload["slots"]
        if type(seat) is int and type(slots) is list and all(type(x) is int for x in slots):
            return Poll(seat, tuple(slots))
    return BOOK.parse(payload)
