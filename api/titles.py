"""GET /api/titles: the titles this service offers, as the catalog knows them.

The viewer names a title from here (its display name, how many seats it takes) instead of
keeping a list of its own, so a new title appears in every page once its package is catalogued.
"""

from __future__ import annotations

from typing import Any

import marshmallow
from flask_smorest import Blueprint
from marshmallow import fields, validate

from domain import catalog
from domain.records.application import titles

blp = Blueprint("titles", __name__, url_prefix="/api", description="The titles this service offers")


class SeatRange(marshmallow.Schema):
    min = fields.Integer(required=True, metadata={"description": "fewest seats the title is played by"})
    max = fields.Integer(required=True, metadata={"description": "most seats the title is played by"})


class Option(marshmallow.Schema):
    name = fields.String(required=True, metadata={"description": "the key in a record's `options`"})
    choices = fields.List(fields.Raw(), required=True, metadata={"description": "the values it takes"})
    default = fields.Raw(allow_none=True, metadata={"description": "its value when left out (null: the title decides, "
                                                                   "e.g. from the number of players)"})


class Title(marshmallow.Schema):
    id = fields.String(required=True, metadata={"description": "the title id records carry"})
    name = fields.String(required=True, metadata={"description": "the title as people write it"})
    seats = fields.Nested(SeatRange, required=True)
    options = fields.List(fields.Nested(Option), metadata={"description": "the setup options a page offers: each one "
                                                                          "with a few values (a yes/no, a list)"})


class Titles(marshmallow.Schema):
    titles = fields.List(fields.Nested(Title), required=True, metadata={"description": "in the catalog's order"})


def listing() -> dict[str, Any]:
    """Every installed title in the catalog's order: its id, display name, seat range (its Game's `seats`) and the
    setup options a page can offer."""
    out = []
    for title in titles():
        game = catalog.game(title)
        low, high = game.seats
        out.append({"id": title, "name": game.name, "seats": {"min": low, "max": high},
                    "options": offered(catalog.options_schema(title))})
    return {"titles": out}


def offered(schema: marshmallow.Schema | None) -> list[dict[str, Any]]:
    """The options of a title's schema that take one of a few values (a yes/no, a OneOf list); `players` is the
    number of seats, and an option of free values (a list of ports) stays the API's."""
    found: list[dict[str, Any]] = []
    for name, field in (schema.fields.items() if schema is not None else ()):
        if name == "players":
            continue
        default = field.load_default if field.load_default is not marshmallow.missing else None
        one_of = next((v for v in field.validators if isinstance(v, validate.OneOf)), None)
        if isinstance(field, fields.Boolean):
            found.append({"name": name, "choices": [False, True], "default": default})
        elif one_of is not None:
            found.append({"name": name, "choices": list(one_of.choices), "default": default})
    return found


@blp.route("/titles", methods=["GET"])
@blp.response(200, Titles)
def all_titles() -> Any:
    """The titles a record may be started or imported for."""
    return listing()
