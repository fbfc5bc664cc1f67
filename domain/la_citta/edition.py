"""The edition file and the tables derived from it once per edition (board, distances, buildings).

Path distances are asked for on every build, founding and relocation, so the lane graph is
turned once into bit masks ("which hexes lie within 1 or 3 steps of this one") per
player-count zone and cached by the edition's content hash.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, NamedTuple

import marshmallow
from marshmallow import fields, validate

from domain.kernel import Edition, parse_edition, thaw
from domain.kernel.editions import derived

TITLE = "la-citta"
SERVICES = ("culture", "education", "health")


class _Strict(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE


class BoardSchema(_Strict):
    lane_every = fields.Integer(required=True, validate=validate.Range(min=2))
    slots = fields.Dict(fields.String(), fields.List(fields.Integer(), validate=validate.Length(equal=3)), required=True)
    edges = fields.Dict(fields.String(), fields.List(fields.Integer(), validate=validate.Length(equal=3)), required=True)
    slot_zones = fields.Dict(fields.String(), fields.Integer(), required=True)
    edge_terrain = fields.Dict(fields.String(), fields.String(), required=True)
    zone_for_players = fields.Dict(fields.Raw(), fields.Integer(), required=True)


class TerrainSchema(_Strict):
    kind = fields.String(required=True, validate=validate.OneOf(["farmland", "mountain", "lake", "wasteland"]))
    wheat = fields.Integer(required=True)


class BuildingSchema(_Strict):
    size = fields.String(required=True, validate=validate.OneOf(["small", "medium", "large"]))
    pool = fields.String(required=True)
    arches = fields.Dict(fields.String(validate=validate.OneOf(SERVICES)), fields.Integer(), required=True)
    produces = fields.String(validate=validate.OneOf(["food", "gold"]))
    one_per_city = fields.Boolean()
    citizen_from_supply = fields.Boolean()
    needs_lake = fields.Boolean()
    lifts = fields.String(validate=validate.OneOf(["market", "water"]))


class OptionSchema(_Strict):
    cost = fields.Integer(required=True, validate=validate.Range(min=0))
    building = fields.String()
    size = fields.String()
    figures = fields.Integer()
    citizens = fields.Integer()
    look = fields.Integer()


class PoliticsSchema(_Strict):
    count = fields.Integer(required=True, validate=validate.Range(min=0))
    effect = fields.String(
        required=True,
        validate=validate.OneOf(["build", "master_builder", "bread_and_games", "golden_times", "rich_harvest", "polling"]),
    )
    options = fields.List(fields.Nested(OptionSchema), required=True, validate=validate.Length(min=1))
    not_in_last_year = fields.Boolean()


class LaCittaEditionSchema(_Strict):
    board = fields.Nested(BoardSchema, required=True)
    terrain = fields.Dict(fields.String(), fields.Nested(TerrainSchema), required=True)
    tiles = fields.Dict(fields.String(), fields.Integer(), required=True)
    beginner = fields.Dict(required=True)
    start = fields.Dict(fields.String(), fields.Integer(), required=True)
    year = fields.Dict(fields.String(), fields.Integer(), required=True)
    actions = fields.Dict(fields.String(), fields.Raw(), required=True)
    voice = fields.Dict(required=True)
    neighbour_gap = fields.List(fields.Integer(), required=True, validate=validate.Length(equal=2))
    caps = fields.Dict(fields.String(), fields.Integer(), required=True)
    pools = fields.Dict(fields.String(), fields.Integer(), required=True)
    buildings = fields.Dict(fields.String(), fields.Nested(BuildingSchema), required=True)
    politics = fields.Dict(fields.String(), fields.Nested(PoliticsSchema), required=True)
    scoring = fields.Dict(fields.String(), fields.Integer(), required=True)


def load_edition(raw: bytes, source: str = "<edition>") -> Edition:
    return parse_edition(raw, TITLE, LaCittaEditionSchema(), source)


def default_edition() -> Edition:
    raw = resources.files("domain.la_citta").joinpath("edition.yaml").read_bytes()
    return load_edition(raw, "domain/la_citta/edition.yaml")


Cube = tuple[int, int, int]
_DIRS: tuple[Cube, ...] = ((1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1))


class Traits(NamedTuple):
    """What the rules ask of a building kind while checking a build, read once from the edition."""

    size: str
    pool: int  # index into Tables.pools
    one_per_city: bool
    needs_lake: bool
    from_supply: bool  # its citizen comes from the supply, not the castle
    food: bool  # produces food (like a castle)


@dataclass(frozen=True, slots=True)
class Tables:
    """Everything fixed by the edition, computed once: the board graph and the rule tables.

    Hexes are numbered 1..N (the L-numbers); masks are ints with bit h set for hex h.
    """

    data: Mapping[str, Any]  # the edition's data as plain dicts (faster to read than frozen ones)
    hexes: tuple[int, ...]
    cube: Mapping[int, Cube]
    id_of: Mapping[Cube, int]
    adj: Mapping[int, tuple[int, ...]]
    adj_mask: tuple[int, ...]
    touches: Mapping[int, tuple[str, ...]]
    zone: Mapping[int, int]
    junctions: tuple[int, ...]
    allowed: Mapping[int, int]  # zone level -> mask of playable hexes
    near: Mapping[int, tuple[int, ...]]  # zone level -> per hex, mask of hexes within the founding distance
    neighbour: Mapping[int, tuple[int, ...]]  # zone level -> per hex, mask of hexes within neighbour distance
    buildings: Mapping[str, Any]
    pools: tuple[str, ...]
    pool_of: Mapping[str, int]
    pool_size: tuple[int, ...]
    politics: Mapping[str, Any]
    politics_deck: tuple[str, ...]
    sizes: Mapping[str, tuple[str, ...]]  # size class -> building kinds
    # numbers and building traits the rules read on every command, looked up once here
    years: int
    rounds: int  # political rounds a year
    action_cards: int
    figures: int  # coloured figures a year
    lifts: Mapping[str, int]  # building kind -> LIFTS_MARKET | LIFTS_WATER bits
    cap_market: int  # the limit without a market
    cap_water: int  # the limit with a market but no fountain or public bath
    food_kinds: frozenset[str]  # buildings that produce food (besides the castle)
    gold_kinds: frozenset[str]  # buildings that produce gold
    arches: Mapping[str, Mapping[str, int]]  # building kind -> service -> printed arches
    traits: Mapping[str, Traits]
    found_from_supply: int  # citizens a new city takes from the supply
    build_class: str  # the size an action card builds


LIFTS_MARKET = 1
LIFTS_WATER = 2
_LIFTS = {None: 0, "market": LIFTS_MARKET, "water": LIFTS_WATER}


def _corners(t: Cube, k: int) -> list[Cube]:
    a, b, c = t
    if a + b + c == -1:
        return [(k * a + k, k * b, k * c), (k * a, k * b + k, k * c), (k * a, k * b, k * c + k)]
    return [(k * a + k, k * b + k, k * c), (k * a + k, k * b, k * c + k), (k * a, k * b + k, k * c + k)]


def _bfs_masks(start: int, adj: Mapping[int, tuple[int, ...]], allowed: int, depth: int) -> int:
    """Mask of allowed hexes within `depth` lane steps of start (start included)."""
    seen = {start: 0}
    queue = deque([start])
    mask = 1 << start
    while queue:
        h = queue.popleft()
        d = seen[h]
        if d == depth:
            continue
        for n in adj[h]:
            if n not in seen and allowed >> n & 1:
                seen[n] = d + 1
                mask |= 1 << n
                queue.append(n)
    return mask


def build_tables(data: Mapping[str, Any]) -> Tables:
    """Generate the lane board from the slot and edge triangles (reference 1.3) and the rule tables."""
    data = thaw(data)
    board = data["board"]
    k = int(board["lane_every"])
    slots = {name: tuple(c) for name, c in board["slots"].items()}
    edges = {name: tuple(c) for name, c in board["edges"].items()}
    area_name = {c: n for n, c in slots.items()} | {c: n for n, c in edges.items()}

    def is_lane(h: Cube) -> bool:
        return any(c % k == 0 for c in h)

    segments: set[tuple[Cube, Cube]] = set()
    for t in slots.values():
        p = _corners(t, k)
        for one, other in ((0, 1), (1, 2), (0, 2)):
            a, b = sorted((p[one], p[other]))
            segments.add((a, b))
    seg_hexes: dict[tuple[Cube, Cube], list[Cube]] = {}
    for s in segments:
        j1, j2 = s
        d = [(j2[i] - j1[i]) // k for i in range(3)]
        seg_hexes[s] = [(j1[0] + m * d[0], j1[1] + m * d[1], j1[2] + m * d[2]) for m in range(1, k)]
    lane = {j for s in segments for j in s} | {h for hs in seg_hexes.values() for h in hs}
    order = sorted(lane, key=lambda h: (h[2], h[0]))
    id_of = {h: i + 1 for i, h in enumerate(order)}
    cube = {i: h for h, i in id_of.items()}

    def nbrs(h: Cube) -> list[Cube]:
        return [(h[0] + d[0], h[1] + d[1], h[2] + d[2]) for d in _DIRS]

    adj = {id_of[h]: tuple(sorted(id_of[n] for n in nbrs(h) if n in id_of)) for h in order}
    touches: dict[int, tuple[str, ...]] = {}
    for h in order:
        names = {area_name[tuple(c // k for c in n)] for n in nbrs(h) if not is_lane(n)}
        touches[id_of[h]] = tuple(sorted(names))
    slot_zone = {n: int(z) for n, z in board["slot_zones"].items()}
    zone: dict[int, int] = {}
    junction_zone: dict[Cube, int] = {}
    for s, hs in seg_hexes.items():
        z = min(slot_zone[a] for h in hs for a in touches[id_of[h]] if a in slot_zone)
        for h in hs:
            zone[id_of[h]] = z
        for j in s:
            junction_zone[j] = min(junction_zone.get(j, 99), z)
    for j, z in junction_zone.items():
        zone[id_of[j]] = z
    hexes = tuple(range(1, len(order) + 1))
    adj_mask = [0] * (len(order) + 1)
    for hx in hexes:
        for n in adj[hx]:
            adj_mask[hx] |= 1 << n
    levels = sorted(set(board["zone_for_players"].values()))
    allowed = {lv: sum(1 << h for h in hexes if zone[h] <= lv) for lv in levels}
    found_gap = int(data["actions"]["found_city_gap"])
    max_gap = int(data["neighbour_gap"][1])
    near = {lv: tuple([0] + [_bfs_masks(h, adj, allowed[lv], found_gap) for h in hexes]) for lv in levels}
    neighbour = {lv: tuple([0] + [_bfs_masks(h, adj, allowed[lv], max_gap + 1) for h in hexes]) for lv in levels}
    pools = tuple(sorted(data["pools"]))
    buildings = data["buildings"]
    sizes: dict[str, tuple[str, ...]] = {}
    for kind, b in buildings.items():
        sizes[b["size"]] = (*sizes.get(b["size"], ()), kind)
    deck = tuple(sorted(name for name, card in data["politics"].items() for _ in range(int(card["count"]))))
    return Tables(
        data=data,
        hexes=hexes,
        cube=cube,
        id_of=id_of,
        adj=adj,
        adj_mask=tuple(adj_mask),
        touches=touches,
        zone=zone,
        junctions=tuple(sorted(id_of[j] for j in junction_zone)),
        allowed=allowed,
        near=near,
        neighbour=neighbour,
        buildings=buildings,
        pools=pools,
        pool_of={kind: pools.index(b["pool"]) for kind, b in buildings.items()},
        pool_size=tuple(int(data["pools"][p]) for p in pools),
        politics=data["politics"],
        politics_deck=deck,
        sizes=sizes,
        years=int(data["year"]["years"]),
        rounds=int(data["year"]["political_rounds"]),
        action_cards=int(data["year"]["action_cards"]),
        figures=int(data["year"]["coloured_figures"]),
        lifts={kind: _LIFTS[b.get("lifts")] for kind, b in buildings.items()},
        cap_market=int(data["caps"]["without_market"]),
        cap_water=int(data["caps"]["without_water"]),
        food_kinds=frozenset(kind for kind, b in buildings.items() if b.get("produces") == "food"),
        gold_kinds=frozenset(kind for kind, b in buildings.items() if b.get("produces") == "gold"),
        arches={kind: {sv: int(n) for sv, n in b["arches"].items()} for kind, b in buildings.items()},
        traits={
            kind: Traits(
                b["size"],
                pools.index(b["pool"]),
                bool(b.get("one_per_city")),
                bool(b.get("needs_lake")),
                bool(b.get("citizen_from_supply")),
                b.get("produces") == "food",
            )
            for kind, b in buildings.items()
        },
        found_from_supply=int(data["actions"]["found_city_from_supply"]),
        build_class=str(data["actions"]["build_class"]),
    )


def _build_tables(edition: Edition) -> Tables:
    return build_tables(edition.data)


def tables(edition: Edition) -> Tables:
    """The tables of an edition, computed once per content hash."""
    return derived(edition, _build_tables)


@dataclass(frozen=True, slots=True)
class Terrain:
    """What each lane hex gets from the land around it, fixed once the tiles are down."""

    tiles: Mapping[str, str]
    food: tuple[int, ...]
    gold: tuple[int, ...]
    lake: tuple[bool, ...]


_TERRAIN: dict[tuple[str, tuple[tuple[str, str], ...]], Terrain] = {}


def terrain(edition: Edition, t: Tables, tiles: Mapping[str, str]) -> Terrain:
    key = (edition.content_hash, tuple(sorted(tiles.items())))
    found = _TERRAIN.get(key)
    if found is not None:
        return found
    kinds = edition.data["terrain"]
    area = {**edition.data["board"]["edge_terrain"], **tiles}
    food = [0] * (len(t.hexes) + 1)
    gold = [0] * (len(t.hexes) + 1)
    lake = [False] * (len(t.hexes) + 1)
    for h in t.hexes:
        for a in t.touches[h]:
            info = kinds[area[a]]
            if info["kind"] == "farmland":
                food[h] += int(info["wheat"])
            elif info["kind"] == "mountain":
                gold[h] += 1
            elif info["kind"] == "lake":
                lake[h] = True
    found = _TERRAIN[key] = Terrain(tiles=dict(tiles), food=tuple(food), gold=tuple(gold), lake=tuple(lake))
    return found


def terrain_words(data: Mapping[str, Any], code: str) -> str:
    """A terrain by the edition's words: "farmland (2 wheat)", "lake" (the view's tiles, the table's buttons)."""
    land = data["terrain"][code]
    wheat = int(land["wheat"])
    return f"{land['kind']} ({wheat} wheat)" if wheat else str(land["kind"])


def tile_slots(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The slots in the order the experienced setup lays its shuffled tiles over them: by id. The rules and the
    ask for the tiles' order (`slot_places`) both read it here, so a position always means the same slot."""
    return tuple(sorted(data["board"]["slots"]))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _slot_places(edition: Edition) -> tuple[tuple[str, str], ...]:
    board = edition.data["board"]
    k = int(board["lane_every"])
    t = tables(edition)
    cubes: dict[str, Cube] = {name: (int(x), int(y), int(z)) for name, (x, y, z) in board["slots"].items()}
    rows = sorted({c[2] for c in cubes.values()})

    def across(name: str) -> float:  # the triangle's centre, left to right (drawn x grows with 2x + z)
        return sum(2 * x + z for x, _, z in _corners(cubes[name], k)) / 3

    out = []
    for name in tile_slots(edition.data):
        row = cubes[name][2]
        mates = sorted((n for n, c in cubes.items() if c[2] == row), key=across)
        corners = _corners(cubes[name], k)
        apex = next(c for c in corners if sum(d[2] == c[2] for d in corners) == 1)  # the corner alone on its row
        side = "north" if apex[2] > min(d[2] for d in corners) else "south"  # z grows southward
        which = ("the top row" if row == rows[0] else "the bottom row" if row == rows[-1]
                 else f"the {_ordinal(rows.index(row) + 1)} row")
        out.append((name, f"{name}, the {_ordinal(mates.index(name) + 1)} slot from the left in {which} "
                          f"({side} of L{t.id_of[apex]})"))
    return tuple(out)


def slot_places(edition: Edition) -> tuple[tuple[str, str], ...]:
    """Each slot the experienced setup lays a tile over, in `tile_slots` order: (its id, as the board drawing names it;
    where it lies in words, as a table finds it on the printed board: its row, its rank from the left, and the lane
    junction at its tip)."""
    return derived(edition, _slot_places)
