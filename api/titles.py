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
    kind = fields.String(required=True, validate=validate.OneOf(["choice", "number", "list", "text", "group"]),
                         metadata={"description": "how a page asks for it: one of `choices`, a whole number "
                                                  "(`min`/`max` when bounded), a list of words, a word, or a `group` "
                                                  "of options of its own (an object)"})
    choices = fields.List(fields.Raw(), metadata={"description": "the values it takes (kind `choice`)"})
    default = fields.Raw(allow_none=True, metadata={"description": "its value when left out (null: the title decides, "
                                                                   "e.g. from the number of players)"})
    required = fields.Boolean(metadata={"description": "within a group: must be given when the group is"})
    min = fields.Integer(metadata={"description": "kind `number`: the least it takes"})
    max = fields.Integer(metadata={"description": "kind `number`: the most it takes"})
    description = fields.String(metadata={"description": "what it is, in the title's words"})
    options = fields.List(fields.Nested(lambda: Option()), metadata={"description": "kind `group`: its own options"})


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
    """Every option of a title's schema, as a page asks for it (`Option`): a yes/no or a OneOf list as choices, a
    whole number, a list of words (Serenissima's closed ports), a nested schema as a group of its own (Città-Stato's
    solo game); `players` is the number of seats. Each with its default and the schema's own description."""
    return [_option(name, field) for name, field in (schema.fields.items() if schema is not None else ())
            if name != "players"]


def _option(name: str, field: fields.Field) -> dict[str, Any]:
    default = field.load_default if field.load_default is not marshmallow.missing else None
    out: dict[str, Any] = {"name": name, "default": default}
    one_of = next((v for v in field.validators if isinstance(v, validate.OneOf)), None)
    bounds = next((v for v in field.validators if isinstance(v, validate.Range)), None)
    if isinstance(field, fields.Boolean):
        out.update(kind="choice", choices=[False, True])
    elif one_of is not None:
        out.update(kind="choice", choices=list(one_of.choices))
    elif isinstance(field, fields.Integer):
        out["kind"] = "number"
        if bounds is not None:
            out.update({k: v for k, v in (("min", bounds.min), ("max", bounds.max)) if v is not None})
    elif isinstance(field, fields.List):
        out["kind"] = "list"
    elif isinstance(field, fields.Nested) and isinstance(field.schema, marshmallow.Schema):
        out.update(kind="group", options=[{**_option(k, f), "required": f.required} for k, f in field.schema.fields.items()])
    else:
        out["kind"] = "text"
    if field.metadata.get("description"):
        out["description"] = str(field.metadata["description"])
    return out


@blp.route("/titles", methods=["GET"])
@blp.response(200, Titles)
def all_titles() -> Any:
    """The titles a record may be started or imported for."""
    return listing()
