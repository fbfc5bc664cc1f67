"""GET /api/titles: the titles this service offers, as the catalog knows them.

The viewer names a title from here (its display name, how many seats it takes) instead of
keeping a list of its own, so a new title appears in every page once its package is catalogued.
"""

from __future__ import annotations

from typing import Any

import marshmallow
from flask_smorest import Blueprint
from marshmallow import fields

from domain import catalog
from domain.records.application import titles

blp = Blueprint("titles", __name__, url_prefix="/api", description="The titles this service offers")


class SeatRange(marshmallow.Schema):
    min = fields.Integer(required=True, metadata={"description": "fewest seats the title is played by"})
    max = fields.Integer(required=True, metadata={"description": "most seats the title is played by"})


class Title(marshmallow.Schema):
    id = fields.String(required=True, metadata={"description": "the title id records carry"})
    name = fields.String(required=True, metadata={"description": "the title as people write it"})
    seats = fields.Nested(SeatRange, required=True)


class Titles(marshmallow.Schema):
    titles = fields.List(fields.Nested(Title), required=True, metadata={"description": "in the catalog's order"})


def listing() -> dict[str, Any]:
    """Every installed title in the catalog's order: its id, display name and seat range (its Game's `seats`)."""
    out = []
    for title in titles():
        game = catalog.game(title)
        low, high = game.seats
        out.append({"id": title, "name": game.name, "seats": {"min": low, "max": high}})
    return {"titles": out}


@blp.route("/titles", methods=["GET"])
@blp.response(200, Titles)
def all_titles() -> Any:
    """The titles a record may be started or imported for."""
    return listing()
