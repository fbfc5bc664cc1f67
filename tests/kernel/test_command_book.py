"""CommandBook's fast path must accept exactly what the schema accepts, and build the same command."""

from __future__ import annotations

from typing import Any

import marshmallow
import pytest
from hypothesis import given
from hypothesis import strategies as st
from marshmallow import fields, validate

from domain.kernel import Command, CommandBook, MalformedCommand, command


@command("test/move")
class Move(Command):
    steps: int
    zone: str
    go: bool


@command("test/ranged")
class Ranged(Command):
    steps: int
    bonus: int = 0


@command("test/lengthy")
class Lengthy(Command):
    name: str


class MoveSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    seat = fields.Integer(required=True, strict=True)
    steps = fields.Integer(required=True, strict=True)
    zone = fields.String(required=True, validate=validate.OneOf(["north", "south"]))
    go = fields.Boolean(required=True)


class RangedSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    seat = fields.Integer(required=True, strict=True)
    steps = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=3))
    bonus = fields.Integer(strict=True, load_default=0, validate=validate.Range(min=0, max=2, max_inclusive=False))


class LengthySchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    seat = fields.Integer(required=True, strict=True)
    name = fields.String(required=True, validate=validate.Length(max=3))


BOOK = CommandBook()
BOOK.add(Move, MoveSchema())
BOOK.add(Ranged, RangedSchema())
BOOK.add(Lengthy, LengthySchema())


def _by_schema(payload: dict[str, Any]) -> Command | str:
    try:
        return BOOK._parse_with_schema(payload)
    except MalformedCommand:
        return "malformed"


def _by_book(payload: dict[str, Any]) -> Command | str:
    try:
        return BOOK.parse(payload)
    except MalformedCommand:
        return "malformed"


def test_simple_schemas_get_a_fast_path_and_others_do_not() -> None:
    assert "test/move" in BOOK._fast and "test/ranged" in BOOK._fast
    assert "test/lengthy" not in BOOK._fast  # Length is not a check the fast path makes


def test_fast_path_builds_the_same_command_as_the_schema() -> None:
    payload = {"type": "test/move", "seat": 1, "steps": 2, "zone": "north", "go": True}
    assert BOOK.parse(payload) == BOOK._parse_with_schema(payload) == Move(1, 2, "north", True)
    short = {"type": "test/ranged", "seat": 0, "steps": 1}
    assert BOOK.parse(short) == BOOK._parse_with_schema(short) == Ranged(0, 1, 0)
    assert BOOK.parse({**short, "bonus": 1}) == Ranged(0, 1, 1)


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "test/move", "seat": True, "steps": 2, "zone": "north", "go": True},  # bool is not an int
        {"type": "test/move", "seat": 1, "steps": 2, "zone": "west", "go": True},  # not one of the choices
        {"type": "test/move", "seat": 1, "steps": 2, "zone": "north"},  # missing field
        {"type": "test/move", "seat": 1, "steps": 2, "zone": "north", "go": True, "x": 0},  # unknown field
        {"type": "test/ranged", "seat": 0, "steps": 9},  # out of range
        {"type": "test/ranged", "seat": 0, "steps": 0},
        {"type": "test/ranged", "seat": 0, "steps": 1, "bonus": 2},  # the range's top is exclusive
        {"type": "test/ranged", "seat": 0, "steps": 1, "bonus": None},
        {"type": "test/lengthy", "seat": 0, "name": "long"},  # too long: only the schema knows
    ],
)
def test_payloads_the_schema_refuses_are_refused(payload: dict[str, Any]) -> None:
    with pytest.raises(MalformedCommand):
        BOOK.parse(payload)


values = st.one_of(st.integers(-2, 4), st.booleans(), st.sampled_from(["north", "south", "3", "abcd"]), st.none())
keys = st.sampled_from(["seat", "steps", "zone", "go", "name", "bonus", "extra"])


@given(st.dictionaries(keys, values), st.sampled_from(["test/move", "test/ranged", "test/lengthy"]))
def test_fast_path_agrees_with_the_schema_on_any_payload(body: dict[str, Any], kind: str) -> None:
    payload = {"type": kind, **body}
    assert _by_book(payload) == _by_schema(payload)


@pytest.mark.parametrize("kind", [[], {}, ["x"], {"a": 1}, 7, None, True])
def test_a_type_that_is_not_a_string_is_malformed_not_a_crash(kind: Any) -> None:
    with pytest.raises(MalformedCommand):
        BOOK.parse({"type": kind, "seat": 0})
