"""La Città commands: one per kind of choice a seat makes, each with its schema."""

from __future__ import annotations

import dataclasses
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


SCHEMAS: dict[type[Command], marshmallow.Schema] = {
    PlaceCastle: _schema(hex=_int()),
    TakeGold: _schema(),
    FoundCity: _schema(hex=_int(), source=_int()),
    Build: _schema(card=fields.String(required=True), building=fields.String(required=True), city=_int(), hex=_int()),
    BreadAndGames: _schema(hex=_int(), service=fields.String(required=True, validate=SERVICE), figures=_int()),
    GoldenTimes: _schema(city=_int(), citizens=_int()),
    RichHarvest: _schema(hex=_int()),
    Poll: _schema(slots=fields.List(fields.Integer(strict=True), required=True)),
    BlindDraw: _schema(),
    Attract: _schema(city=_int(), service=fields.String(required=True, validate=SERVICE)),
    Demolish: _schema(hex=_int()),
    SendAway: _schema(city=_int(), citizens=_int()),
}
BOOK = CommandBook()
for _cls, _fields_schema in SCHEMAS.items():
    BOOK.add(_cls, _fields_schema)


_POLL_KEYS = frozenset(("type", "seat", "slots"))

Shape = tuple[tuple[str, ...], type[Command], tuple[type, ...], int]


def _plain(field: fields.Field) -> type | None:
    """int or str: a required field the schema checks for its exact JSON type and nothing else but the service."""
    if not field.required or field.data_key is not None or field.validators not in ([], [SERVICE]):
        return None
    if type(field) is fields.Integer and field.strict:
        return int
    return str if type(field) is fields.String else None


def _shapes() -> dict[str, Shape]:
    """Each command kind whose fields are all plain (`_plain`): its keys in the order `to_json` writes them
    ("type", "seat", then the fields as the class orders them), its class, each value's exact type, and where
    its service is (0: none).

    A payload with just these keys in this order, each value of exactly its type (a bool is not an int) and a
    service among the three loads to the same command through the schema; anything else goes to the command
    book, which refuses it in the schema's words."""
    out: dict[str, Shape] = {}
    for cls, schema in SCHEMAS.items():
        names = tuple(f.name for f in dataclasses.fields(cls))
        if set(names) != set(schema.fields):
            continue
        types = tuple(t for t in (_plain(schema.fields[name]) for name in names) if t is not None)
        if len(types) == len(names):
            out[cls.kind] = (("type", *names), cls, (str, *types), names.index("service") + 1 if "service" in names else 0)
    return out


_SHAPES = _shapes()
_SERVICES = frozenset(SERVICE.choices)


def parse(payload: Any) -> Command:
    """A command from its JSON payload; refused with `MalformedCommand` exactly as the schemas refuse.

    Every replayed entry is parsed here, so a payload as `to_json` writes it is read by its kind's shape (its
    keys and its values' types compared at once), a poll's list of slots too (the command book would send it
    through marshmallow, about a hundred times slower); anything else goes to the book."""
    if type(payload) is dict:
        kind = payload.get("type")
        shape = _SHAPES.get(kind) if type(kind) is str else None
        if shape is not None:
            keys, cls, types, service = shape
            values = tuple(payload.values())
            if tuple(payload) == keys and tuple(map(type, values)) == types and (not service or values[service] in _SERVICES):
                return cls(*values[1:])
        elif kind == Poll.kind and payload.keys() == _POLL_KEYS:
            seat, slots = payload["seat"], payload["slots"]
            if type(seat) is int and type(slots) is list and all(type(x) is int for x in slots):
                return Poll(seat, tuple(slots))
    return BOOK.parse(payload)
