"""The edition file's schema and the lookup tables the rules use, built once per edition."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import Edition, EditionError, parse_edition
from domain.kernel.editions import derived

TITLE = "serenissima"


def _strict(**kw: Any) -> fields.Integer:
    return fields.Integer(required=True, strict=True, **kw)


class _Schema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE


class PlayersSchema(_Schema):
    min = _strict(validate=validate.Range(min=1))
    max = _strict(validate=validate.Range(min=1))


class GalleySchema(_Schema):
    spaces = _strict(validate=validate.Range(min=1))
    max_sailors = _strict(validate=validate.Range(min=1))
    min_sailors = _strict(validate=validate.Range(min=1))


class PerPlayersSchema(_Schema):
    sailors = _strict(validate=validate.Range(min=1))
    galleys_in_play = _strict(validate=validate.Range(min=1))
    starting_galleys = _strict(validate=validate.Range(min=1))
    close_ports = fields.Boolean(required=True)
    track_start = _strict(validate=validate.Range(min=0))
    scoring_spaces = fields.List(fields.Integer(strict=True), required=True)


class StartSchema(_Schema):
    ducats = _strict(validate=validate.Range(min=0))
    port_sailors = _strict(validate=validate.Range(min=1))
    galley_sailors = _strict(validate=validate.Range(min=1))


class GoodSchema(_Schema):
    cubes = _strict(validate=validate.Range(min=0))
    colour = fields.String(required=True)
    sale_bonus = _strict()


class PricesSchema(_Schema):
    sailor = _strict(validate=validate.Range(min=0))
    cube = _strict(validate=validate.Range(min=0))
    free_cubes_in_own_port = _strict(validate=validate.Range(min=0))
    galley_per_owned = _strict(validate=validate.Range(min=0))


class BuildingSchema(_Schema):
    price = _strict(validate=validate.Range(min=0))
    requires = fields.List(fields.String(), required=True)
    tokens = _strict(validate=validate.Range(min=0))
    dice = fields.Integer(strict=True, load_default=0)


class DiceSchema(_Schema):
    faces = _strict(validate=validate.Range(min=2))
    skull_faces = fields.List(fields.Integer(strict=True), required=True)


class ZoneSchema(_Schema):
    name = fields.String(required=True)
    neighbours = fields.List(fields.String(), required=True)


class PortSchema(_Schema):
    name = fields.String(required=True)
    zone = fields.String(required=True)
    produces = fields.String(required=True)
    size = _strict(validate=validate.Range(min=1))
    starting = fields.Boolean(required=True)


class ScoringSchema(_Schema):
    warehouse_payout_by_cubes = fields.List(fields.Integer(strict=True), required=True)
    basilica_bonus = _strict()
    scorings_to_end = _strict(validate=validate.Range(min=1))


class TrackSchema(_Schema):
    last = _strict(validate=validate.Range(min=1))


class DogeCardSchema(_Schema):
    id = fields.String(required=True)
    copies = _strict(validate=validate.Range(min=1))
    advance = _strict(validate=validate.Range(min=0))
    effect = fields.String(required=True, validate=validate.OneOf(["none", "pay_wine", "reshuffle_all"]))


class SerenissimaEditionSchema(_Schema):
    players = fields.Nested(PlayersSchema, required=True)
    colour_sailors = _strict(validate=validate.Range(min=1))
    max_galleys_per_player = _strict(validate=validate.Range(min=1))
    galley = fields.Nested(GalleySchema, required=True)
    per_players = fields.Dict(keys=fields.Raw(), values=fields.Nested(PerPlayersSchema), required=True)
    start = fields.Nested(StartSchema, required=True)
    closed_goods = fields.List(fields.String(), required=True)
    goods = fields.Dict(keys=fields.String(), values=fields.Nested(GoodSchema), required=True)
    wine_good = fields.String(required=True)
    prices = fields.Nested(PricesSchema, required=True)
    fort = fields.Nested(BuildingSchema, required=True)
    basilica = fields.Nested(BuildingSchema, required=True)
    dice = fields.Nested(DiceSchema, required=True)
    sea_zones = fields.Dict(keys=fields.String(), values=fields.Nested(ZoneSchema), required=True)
    space_values = fields.Dict(keys=fields.Raw(), values=fields.List(fields.Integer(strict=True)), required=True)
    ports = fields.Dict(keys=fields.String(), values=fields.Nested(PortSchema), required=True)
    scoring = fields.Nested(ScoringSchema, required=True)
    turn_track = fields.Nested(TrackSchema, required=True)
    wine_card_payout = _strict()
    doge_deck = fields.List(fields.Nested(DogeCardSchema), required=True)
    special_investment_galleys = _strict(validate=validate.Range(min=0))

    @marshmallow.validates_schema
    def _consistent(self, data: dict, **_: object) -> None:
        zones = data["sea_zones"]
        for zid, zone in zones.items():
            for n in zone["neighbours"]:
                if n not in zones or zid not in zones[n]["neighbours"]:
                    raise marshmallow.ValidationError(f"zone {zid}: neighbour {n} unknown or not symmetric")
        for pid, port in data["ports"].items():
            if port["zone"] not in zones:
                raise marshmallow.ValidationError(f"port {pid}: unknown zone {port['zone']}")
            if port["produces"] not in data["goods"]:
                raise marshmallow.ValidationError(f"port {pid}: unknown good {port['produces']}")
            if port["size"] not in data["space_values"] and str(port["size"]) not in map(str, data["space_values"]):
                raise marshmallow.ValidationError(f"port {pid}: no space values for size {port['size']}")


SCHEMA = SerenissimaEditionSchema()


def load_edition(raw: bytes, source: str = "<edition>") -> Edition:
    return parse_edition(raw, TITLE, SCHEMA, source)


def default_edition() -> Edition:
    return load_edition(resources.files(__package__).joinpath("edition.yaml").read_bytes(), "serenissima/edition.yaml")


@dataclass(frozen=True, slots=True)
class Tables:
    """Everything the rules look up, in fast shapes: ports by index, zones by id."""

    zones: tuple[str, ...]
    neighbours: dict[str, tuple[str, ...]]
    ports: tuple[str, ...]  # sorted port ids; a port's index is its place here
    port_index: dict[str, int]
    port_zone: tuple[str, ...]
    port_good: tuple[str, ...]
    port_size: tuple[int, ...]
    port_values: tuple[tuple[int, ...], ...]
    port_starting: tuple[bool, ...]
    zone_port: dict[str, int]  # the zone's only port; -1 without port, SEVERAL when the player must name one
    zone_ports: dict[str, tuple[int, ...]]  # every port of the zone, by index (ambiguity 30)
    goods: tuple[str, ...]
    good_index: dict[str, int]
    good_cubes: dict[str, int]
    sale_bonus: dict[str, int]
    wine: str
    colour_sailors: int
    max_galleys: int
    galley_spaces: int
    galley_max_sailors: int
    per_players: dict[int, dict]
    start_ducats: int
    start_port_sailors: int
    start_galley_sailors: int
    closed_goods: tuple[str, ...]
    sailor_price: int
    cube_price: int
    free_cubes: int
    galley_price: int
    fort_price: int
    fort_requires: tuple[str, ...]
    fort_tokens: int
    fort_dice: int
    basilica_price: int
    basilica_requires: tuple[str, ...]
    basilica_tokens: int
    dice_faces: int
    skulls: frozenset[int]
    payout: tuple[int, ...]
    basilica_bonus: int
    scorings_to_end: int
    track_last: int
    wine_payout: int
    doge_advance: dict[str, int]
    doge_effect: dict[str, str]
    doge_deck: tuple[str, ...]  # the full multiset, sorted
    special_galleys: int
    players_min: int
    players_max: int
    port_name: tuple[str, ...]  # printed names, for the review view
    zone_name: dict[str, str]

    def skull_count(self, faces: tuple[int, ...]) -> int:
        return sum(1 for f in faces if f in self.skulls)


SEVERAL = -2  # zone_port of a zone with more than one port: the command names the port


def _only(ports: tuple[int, ...]) -> int:
    return ports[0] if len(ports) == 1 else (-1 if not ports else SEVERAL)


def tables(edition: Edition) -> Tables:
    """Tables for an edition, cached by content hash so every state shares one copy."""
    return derived(edition, _build)


def _build(edition: Edition) -> Tables:
    d = edition.data
    ports = tuple(sorted(d["ports"]))
    p = [d["ports"][pid] for pid in ports]
    deck: list[str] = []
    for card in d["doge_deck"]:
        deck += [card["id"]] * card["copies"]
    try:
        values = tuple(tuple(d["space_values"][str(x["size"])]) for x in p)
    except KeyError as exc:
        raise EditionError(f"no space values for warehouse size {exc}") from exc
    zone_ports = {z: tuple(i for i, x in enumerate(p) if x["zone"] == z) for z in d["sea_zones"]}
    return Tables(
        zones=tuple(sorted(d["sea_zones"])),
        neighbours={z: tuple(sorted(v["neighbours"])) for z, v in d["sea_zones"].items()},
        ports=ports,
        port_index={pid: i for i, pid in enumerate(ports)},
        port_zone=tuple(x["zone"] for x in p),
        port_good=tuple(x["produces"] for x in p),
        port_size=tuple(x["size"] for x in p),
        port_values=values,
        port_starting=tuple(bool(x["starting"]) for x in p),
        zone_port={z: _only(here) for z, here in zone_ports.items()},
        zone_ports=zone_ports,
        goods=tuple(sorted(d["goods"])),
        good_index={g: i for i, g in enumerate(sorted(d["goods"]))},
        good_cubes={g: v["cubes"] for g, v in d["goods"].items()},
        sale_bonus={g: v["sale_bonus"] for g, v in d["goods"].items()},
        wine=d["wine_good"],
        colour_sailors=d["colour_sailors"],
        max_galleys=d["max_galleys_per_player"],
        galley_spaces=d["galley"]["spaces"],
        galley_max_sailors=d["galley"]["max_sailors"],
        per_players={int(k): dict(v) for k, v in d["per_players"].items()},
        start_ducats=d["start"]["ducats"],
        start_port_sailors=d["start"]["port_sailors"],
        start_galley_sailors=d["start"]["galley_sailors"],
        closed_goods=tuple(d["closed_goods"]),
        sailor_price=d["prices"]["sailor"],
        cube_price=d["prices"]["cube"],
        free_cubes=d["prices"]["free_cubes_in_own_port"],
        galley_price=d["prices"]["galley_per_owned"],
        fort_price=d["fort"]["price"],
        fort_requires=tuple(d["fort"]["requires"]),
        fort_tokens=d["fort"]["tokens"],
        fort_dice=d["fort"]["dice"],
        basilica_price=d["basilica"]["price"],
        basilica_requires=tuple(d["basilica"]["requires"]),
        basilica_tokens=d["basilica"]["tokens"],
        dice_faces=d["dice"]["faces"],
        skulls=frozenset(d["dice"]["skull_faces"]),
        payout=tuple(d["scoring"]["warehouse_payout_by_cubes"]),
        basilica_bonus=d["scoring"]["basilica_bonus"],
        scorings_to_end=d["scoring"]["scorings_to_end"],
        track_last=d["turn_track"]["last"],
        wine_payout=d["wine_card_payout"],
        doge_advance={c["id"]: c["advance"] for c in d["doge_deck"]},
        doge_effect={c["id"]: c["effect"] for c in d["doge_deck"]},
        doge_deck=tuple(sorted(deck)),
        special_galleys=d["special_investment_galleys"],
        players_min=d["players"]["min"],
        players_max=d["players"]["max"],
        port_name=tuple(x["name"] for x in p),
        zone_name={z: v["name"] for z, v in d["sea_zones"].items()},
    )
