"""The La Città board as SVG: lanes and land from the edition's cube coordinates, cities and the displays.

Hexes sit where the edition's geometry puts them (cube coordinates, lanes every `lane_every`
hexes); the layout file only scales and places that lattice and gives every colour and panel
position. The land and lanes change only when tiles are laid or the player count is known, so
that layer is built once per (edition, layout, player zone, tiles) and reused for every step.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from domain.kernel import Edition
from domain.kernel.cache import Bounded
from domain.la_citta.edition import tables
from replay_viewer.boards import NoLayout
from replay_viewer.boards.svg import fitted, width
from replay_viewer.boards.svg import write as _write

SVG_NS = "http://www.w3.org/2000/svg"
SQRT3_2 = math.sqrt(3) / 2
Point = tuple[float, float]


def _hidden(value: Any) -> bool:
    return isinstance(value, dict) and bool(value.get("hidden"))


def _shown(value: Any) -> str:
    """A number or word as text; a value this reader may not see is a question mark, never a guess."""
    return "?" if _hidden(value) or value is None else str(value)


def _hex_id(name: Any) -> int | None:
    if isinstance(name, str) and name[:1] == "L" and name[1:].isdigit():
        return int(name[1:])
    return None


def _words(kind: str) -> str:
    return kind.replace("_", " ")


# ---------------------------------------------------------------- what the layout must name


def uncovered(layout: Mapping[str, Any], edition: Edition) -> list[str]:
    """The edition's ids the layout gives no look to ("terrain F4", "building theatre"): positions come
    from the edition's own coordinates, but every terrain, building, card, service, zone and seat needs a look."""
    data = edition.data
    board = data["board"]
    wanted = [("terrain", code, layout.get("terrain", {})) for code in data["terrain"]]
    wanted += [("terrain", code, layout.get("terrain", {})) for code in sorted(set(board["edge_terrain"].values()))]
    wanted += [("building", kind, layout.get("buildings", {})) for kind in data["buildings"]]
    wanted += [("politics card", card, layout.get("politics", {})) for card in data["politics"]]
    services = {*data["voice"]["cards"], *(sv for b in data["buildings"].values() for sv in b["arches"])}
    wanted += [("service", sv, layout.get("services", {})) for sv in sorted(services)]
    zones = layout.get("board", {}).get("zones", {})
    wanted += [("zone", str(z), zones) for z in sorted({int(z) for z in board["slot_zones"].values()})]
    missing = sorted({f"{what} {ident}" for what, ident, known in wanted if ident not in known})
    players = max(int(p) for p in board["zone_for_players"])
    if len(layout.get("seats", ())) < players:
        missing.append(f"seat colours for {players} players")
    return missing


_COVERED: dict[tuple[str, int], Mapping[str, Any]] = {}


def _check(layout: Mapping[str, Any], edition: Edition) -> None:
    key = (edition.content_hash, id(layout))
    if _COVERED.get(key) is layout:
        return
    missing = uncovered(layout, edition)
    if missing:
        raise NoLayout(f"the board layout does not cover the edition {edition.id!r}: it lacks {', '.join(missing)}")
    _COVERED[key] = layout


# ---------------------------------------------------------------- geometry (per edition and layout)


@dataclass(frozen=True, slots=True)
class _Geometry:
    """Pixel positions computed once from the edition's cube coordinates and the layout's scale."""

    centre: Mapping[int, Point]  # lane hex -> pixel centre
    zone: Mapping[int, int]
    touches: Mapping[int, tuple[str, ...]]
    areas: Mapping[str, tuple[Point, ...]]  # slot or edge -> its triangle (between corner lattice points), clipped
    label_at: Mapping[str, Point]  # slot or edge -> the centre of its whole triangle
    slots: tuple[str, ...]
    edges: tuple[str, ...]
    corners: tuple[Point, ...]  # hex outline offsets at the drawn size
    hex_points: Mapping[int, str]  # lane hex -> its outline as an SVG points list
    halo_points: Mapping[int, str]  # a slightly larger outline, for the 'changed' ring
    inner_points: Mapping[int, str]  # a smaller outline, for a castle's inner wall
    size: float
    first_players: Mapping[int, int]  # zone level -> fewest players that play it
    zone_for_players: Mapping[int, int]
    terrain_of_text: Mapping[str, str]  # the view's terrain words -> the edition's terrain code
    pool_names: Mapping[str, str]  # pool id -> the buildings that share it, in words
    layout: Mapping[str, Any]  # kept alive so the cache key (its id) cannot be reused


_GEOMETRY: dict[tuple[str, int], _Geometry] = {}


def _area_corners(area: Sequence[int], k: int) -> tuple[tuple[int, int, int], ...]:
    """The three lattice points (junctions) at the corners of a land triangle (design notes 1.2)."""
    a, b, c = (int(v) for v in area)
    if a + b + c == -1:
        return ((k * a + k, k * b, k * c), (k * a, k * b + k, k * c), (k * a, k * b, k * c + k))
    return ((k * a + k, k * b + k, k * c), (k * a + k, k * b, k * c + k), (k * a, k * b + k, k * c + k))


def _clip(polygon: Sequence[Point], box: Sequence[float]) -> tuple[Point, ...]:
    """The polygon cut to the box (x0, y0, x1, y1): the edge areas' far tips fall off the printed board."""
    x0, y0, x1, y1 = box
    edges = ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False))  # axis, bound, keep values above it
    out = list(polygon)
    for axis, bound, above in edges:
        points, out = out, []
        for i, p in enumerate(points):
            q = points[i - 1]
            p_in = p[axis] >= bound if above else p[axis] <= bound
            q_in = q[axis] >= bound if above else q[axis] <= bound
            if p_in != q_in:
                f = (bound - q[axis]) / (p[axis] - q[axis])
                cut = (q[0] + f * (p[0] - q[0]), q[1] + f * (p[1] - q[1]))
                out.append((round(cut[0], 2), round(cut[1], 2)))
            if p_in:
                out.append(p)
    return tuple(out)


def _outline(size: float) -> tuple[Point, ...]:
    return tuple((size * math.cos(math.radians(60 * i - 30)), size * math.sin(math.radians(60 * i - 30))) for i in range(6))


def _geometry(edition: Edition, layout: Mapping[str, Any]) -> _Geometry:
    key = (edition.content_hash, id(layout))
    found = _GEOMETRY.get(key)
    if found is not None and found.layout is layout:
        return found
    t = tables(edition)
    data = edition.data
    board = data["board"]
    k = int(board["lane_every"])
    spec = layout["board"]
    size = float(spec["hex_size"])
    ox, oy = (float(v) for v in spec["origin"])

    def px(cube: Sequence[int]) -> Point:
        x, _, z = cube
        return (round(ox + size * SQRT3_2 * (2 * x + z), 2), round(oy + size * 1.5 * z, 2))

    triangles = {name: tuple(px(c) for c in _area_corners(cube, k)) for name, cube in {**board["slots"], **board["edges"]}.items()}
    box = [float(v) for v in spec["clip"]]
    zfp = {int(p): int(z) for p, z in board["zone_for_players"].items()}
    first = {z: min((p for p, lv in zfp.items() if lv >= z), default=0) for z in set(t.zone.values())}
    words = {}
    for code, land in data["terrain"].items():
        wheat = int(land["wheat"])
        words[f"{land['kind']} ({wheat} wheat)" if wheat else str(land["kind"])] = code
    pools: dict[str, list[str]] = {}
    for kind, b in data["buildings"].items():
        pools.setdefault(b["pool"], []).append(layout["buildings"][kind]["name"])
    gap = float(spec["hex_gap"])
    centre = {h: px(c) for h, c in t.cube.items()}
    found = _Geometry(
        centre=centre,
        zone=t.zone,
        touches=t.touches,
        areas={name: _clip(corners, box) for name, corners in triangles.items()},
        label_at={name: (sum(x for x, _ in c) / 3, sum(y for _, y in c) / 3) for name, c in triangles.items()},
        slots=tuple(sorted(board["slots"])),
        edges=tuple(sorted(board["edges"])),
        corners=_outline(size - gap),
        hex_points={h: _points(_outline(size - gap), at) for h, at in centre.items()},
        halo_points={h: _points(_outline(size + 1.2), at) for h, at in centre.items()},
        inner_points={h: _points(_outline(size - 3.6), at) for h, at in centre.items()},
        size=size,
        first_players=first,
        zone_for_players=zfp,
        terrain_of_text=words,
        pool_names={p: "/".join(names) for p, names in pools.items()},
        layout=layout,
    )
    _GEOMETRY[key] = found
    return found


def _points(corners: Sequence[Point], at: Point) -> str:
    x, y = at
    return " ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in corners)


# ---------------------------------------------------------------- small element helpers


def _title(el: Element, words: str) -> Element:
    SubElement(el, "title").text = words
    return el


def _text(parent: Element, x: float, y: float, words: str, size: float, fill: str, anchor: str = "start",
          bold: bool = False) -> Element:
    el = SubElement(parent, "text", {"x": f"{x:.1f}", "y": f"{y:.1f}", "font-size": str(size), "fill": fill,
                                     "text-anchor": anchor})
    if bold:
        el.set("font-weight", "bold")
    el.text = words
    return el


def _piece(parent: Element, kind: str, ident: str, changed: bool, tooltip: str, **extra: str) -> Element:
    g = SubElement(parent, "g", {"class": f"piece {kind}" + (" changed" if changed else ""), "data-kind": kind,
                                 "data-id": ident, **extra})
    _title(g, tooltip)
    return g


def _mark_rect(parent: Element, layout: Mapping[str, Any], x: float, y: float, w: float, h: float) -> None:
    """The yellow box with a coloured rim behind a number or line the last event changed."""
    c = layout["changed"]
    SubElement(parent, "rect", {"x": f"{x:.1f}", "y": f"{y:.1f}", "width": f"{w:.1f}", "height": f"{h:.1f}", "rx": "2",
                                "fill": c["fill"], "stroke": c["stroke"], "stroke-width": "1.5"})


# ---------------------------------------------------------------- the land and the lanes (cached)


_LAND: dict[tuple[Any, ...], str] = {}


def _players_of(zone: int, geo: _Geometry) -> str:
    first = geo.first_players.get(zone, 0)
    return f"in play with {first} or more players" if first else "never in play"


def _land(view: Mapping[str, Any], changed_slots: frozenset[str], geo: _Geometry, layout: Mapping[str, Any],
          edition: Edition) -> str:
    """The land areas and lane hexes as serialized markup, cached: they change only when tiles are laid."""
    players = view.get("players")
    level = geo.zone_for_players.get(players) if isinstance(players, int) else None
    tiles = view.get("tiles") if isinstance(view.get("tiles"), dict) else {}
    key = (id(geo), level, tuple(sorted((s, str(v)) for s, v in tiles.items())), changed_slots)
    found = _LAND.get(key)
    if found is not None:
        return found
    spec = layout["board"]
    terrain = layout["terrain"]
    edge_terrain = edition.data["board"]["edge_terrain"]
    slot_zones = edition.data["board"]["slot_zones"]
    out_of_play = spec["out_of_play"]
    in_play = {h for h, z in geo.zone.items() if level is None or z <= level}
    played_areas = {a for h in in_play for a in geo.touches[h]}

    def area_words(name: str) -> tuple[str | None, str]:
        if name in geo.edges:
            code = str(edge_terrain[name])
            return code, f"{terrain[code]['label']} (printed edge)"
        shown = tiles.get(name)
        if shown is None:
            return None, spec["empty_slot"]["label"]
        if _hidden(shown):
            return None, "a tile not shown to you"
        code = geo.terrain_of_text.get(str(shown))
        return code, str(shown)

    root = Element("g", {"role": "group", "aria-label": "land areas and lanes"})
    land = SubElement(root, "g", {"role": "group", "aria-label": "land: terrain tiles and printed edges"})
    for name in (*geo.slots, *geo.edges):
        code, words = area_words(name)
        corners = geo.areas[name]
        playable = level is None or name in played_areas
        zone = slot_zones.get(name)
        tip = f"{name}: {words}" + (f", a zone {zone} slot" if zone is not None else "")
        tip += "" if playable else f" (out of play with {players} players: no lane in play borders it)"
        is_changed = name in changed_slots
        g = _piece(land, "tile" if name in geo.slots else "edge", name, is_changed, tip)
        colours = terrain.get(code, {}) if code else {}
        fill = colours.get("fill", spec["empty_slot"]["fill"])
        SubElement(g, "polygon", {"points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners), "fill": fill,
                                  "stroke": spec["area_stroke"], "stroke-width": "1"})
        if not playable:
            SubElement(g, "polygon", {"points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners),
                                      "fill": out_of_play["shade"], "fill-opacity": str(out_of_play["opacity"])})
        cx, cy = geo.label_at[name]
        if code:
            _text(g, cx, cy + 3.5, colours.get("label", code), layout["terrain_font"],
                  colours.get("text", "#000000") if playable else "#2b2b2b", "middle", bold=True)
        if is_changed:
            c = layout["changed"]
            SubElement(g, "polygon", {"points": " ".join(f"{x:.1f},{y:.1f}" for x, y in corners), "fill": "none",
                                      "stroke": c["stroke"], "stroke-width": str(c["width"])})
    lanes = SubElement(root, "g", {"role": "group", "aria-label": "lane hexes, tinted by player-count zone"})
    zones = spec["zones"]
    for h in sorted(geo.centre):
        z = geo.zone[h]
        beside = " and ".join(f"{a} ({area_words(a)[1]})" for a in geo.touches[h]) or "a junction of three lanes"
        tip = f"L{h}: lane hex beside {beside}; zone {z}, {_players_of(z, geo)}"
        playing = h in in_play
        if not playing:
            tip += f"; out of play with {players} players"
        g = SubElement(lanes, "polygon", {"class": "lane" + ("" if playing else " out-of-play"), "data-kind": "lane",
                                          "data-id": f"L{h}", "data-zone": str(z), "points": geo.hex_points[h],
                                          "fill": zones[str(z)]["fill"] if playing else out_of_play["fill"],
                                          "stroke": spec["lane_stroke"], "stroke-width": "0.6"})
        _title(g, tip)
    out: list[str] = []
    _write(root, out)
    if len(_LAND) > 64:
        _LAND.clear()
    found = _LAND[key] = "".join(out)
    return found


# ---------------------------------------------------------------- cities, buildings, citizens, figures


def _seat_name(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names) and names[seat]:
        return str(names[seat])
    return f"seat {seat + 1}" if isinstance(seat, int) else "an unknown seat"


def _seat_colours(layout: Mapping[str, Any], seat: Any) -> Mapping[str, str]:
    colours = layout["seats"]
    return colours[seat % len(colours)] if isinstance(seat, int) else {"fill": "#777777", "text": "#ffffff", "colour": "grey"}


def _occupied(view: Mapping[str, Any] | None) -> dict[int, str]:
    """Hex -> what stands on it, for spotting what the last event removed."""
    out: dict[int, str] = {}
    for city in (view or {}).get("cities", ()) or ():
        if not isinstance(city, dict):
            continue
        h = _hex_id(city.get("castle"))
        if h is not None:
            out[h] = "castle"
        for b in city.get("buildings", ()) or ():
            bh = _hex_id(b.get("hex")) if isinstance(b, dict) else None
            if bh is not None:
                out[bh] = _words(str(b.get("building")))
    return out


_CITY: dict[tuple[Any, ...], str] = {}


def _cities(view: Mapping[str, Any], previous: Mapping[str, Any] | None, geo: _Geometry, layout: Mapping[str, Any],
            edition: Edition, names: Sequence[str]) -> str:
    """Every city's castle, buildings and citizens, plus a dashed ring where something was just removed.

    A city's markup is kept by what it depends on (the city, how it was a step ago, the names): from
    one step to the next nearly every city is unchanged, so nearly every city is drawn from the cache."""
    before = {c.get("castle"): c for c in (previous or {}).get("cities", ()) or () if isinstance(c, dict)}
    out = ['<g role="group" aria-label="cities: castles, buildings and citizens">']
    who_all = tuple(names)
    for city in view.get("cities", ()) or ():
        if not isinstance(city, dict):
            continue
        old = before.get(city.get("castle")) if previous is not None else city
        key = (id(geo), repr(city), "same" if old == city else repr(old), who_all)
        found = _CITY.get(key)
        if found is None:
            holder = Element("g")
            _city(holder, city, old, geo, layout, edition, names)
            parts: list[str] = []
            for child in holder:
                _write(child, parts)
            if len(_CITY) > 4096:
                _CITY.clear()
            found = _CITY[key] = "".join(parts)
        out.append(found)
    if previous is not None:
        now = _occupied(view)
        removed = _occupied(previous)
        vacated = layout["pieces"]["vacated"]
        holder = Element("g")
        for h in sorted(set(removed) - set(now)):
            if h in geo.centre:
                g = _piece(holder, "vacated", f"L{h}", True, f"L{h}: the {removed[h]} here was just removed")
                SubElement(g, "polygon", {"points": geo.hex_points[h], "fill": "none", "stroke": vacated["stroke"],
                                          "stroke-width": "2.2", "stroke-dasharray": vacated["dash"]})
        for child in holder:
            _write(child, out)
    out.append("</g>")
    return "".join(out)


def _city(parent: Element, city: Mapping[str, Any], old: Mapping[str, Any] | None, geo: _Geometry,
          layout: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> None:
    """One city: its castle (the owner's colour) with the citizens standing on it, each building with its citizen."""
    pieces = layout["pieces"]
    halo = layout["changed"]
    citizen = pieces["citizen"]
    arches = edition.data["buildings"]
    castle = str(city.get("castle"))
    h = _hex_id(castle)
    if h is None or h not in geo.centre:
        return
    at = geo.centre[h]
    owner = city.get("owner")
    who = _seat_name(names, owner)
    colours = _seat_colours(layout, owner)
    buildings = [b for b in city.get("buildings", ()) or () if isinstance(b, dict) and _hex_id(b.get("hex")) in geo.centre]
    total = city.get("citizens")
    on_buildings = min(total, len(buildings)) if isinstance(total, int) else 0
    on_castle = total - on_buildings if isinstance(total, int) else None
    services = city.get("services") if isinstance(city.get("services"), dict) else {}
    limit = city.get("limit")
    service_words = ", ".join(f"{sv} {_shown(n)}" for sv, n in services.items())
    tip = (f"{who}'s city, castle at {castle} ({colours['colour']}): {_shown(total)} citizens, "
           f"limit {'none' if limit is None else _shown(limit)}; services: {service_words or 'none'}")
    changed = old is None or old.get("owner") != owner
    g = _piece(parent, "castle", castle, changed, tip, **{"data-owner": str(owner)})
    if changed:
        SubElement(g, "polygon", {"points": geo.halo_points[h], "fill": halo["fill"], "stroke": halo["stroke"],
                                  "stroke-width": str(halo["width"])})
    SubElement(g, "polygon", {"points": geo.hex_points[h], "fill": colours["fill"], "stroke": "#1a1a1a", "stroke-width": "1.2"})
    SubElement(g, "polygon", {"points": geo.inner_points[h], "fill": "none", "stroke": colours["text"], "stroke-width": "0.9"})
    old_buildings = {b.get("hex"): b.get("building") for b in (old or {}).get("buildings", ()) or () if isinstance(b, dict)}
    old_total = (old or {}).get("citizens")
    old_on_castle = old_total - min(old_total, len(old_buildings)) if isinstance(old_total, int) else None
    stack_changed = old is None or old_on_castle != on_castle
    if stack_changed and not changed:
        SubElement(g, "circle", {"cx": f"{at[0]:.1f}", "cy": f"{at[1]:.1f}", "r": f"{geo.size * 0.55:.1f}",
                                 "fill": "none", "stroke": halo["stroke"], "stroke-width": "2"})
    stack = _text(parent, at[0], at[1] + pieces["castle_font"] * 0.36, _shown(on_castle), pieces["castle_font"],
                  colours["text"], "middle", bold=True)
    stack.attrib.update({"class": "piece citizen" + (" changed" if stack_changed else ""), "data-kind": "citizen",
                         "data-id": f"{castle}/castle", "data-count": str(on_castle if on_castle is not None else 0)})
    _title(stack, f"{_shown(on_castle)} citizens on {who}'s castle at {castle} ({_shown(total)} in the city)")
    dx, dy = (float(v) * geo.size for v in citizen["at"])
    for i, b in enumerate(buildings):
        hexname = str(b.get("hex"))
        bh = _hex_id(hexname)
        assert bh is not None
        bat = geo.centre[bh]
        kind = str(b.get("building"))
        look = layout["buildings"].get(kind, {"mark": "?", "name": _words(kind), "fill": "#ffffff"})
        printed = arches.get(kind, {}).get("arches", {})
        arch_words = ", ".join(f"{n} {sv}" for sv, n in printed.items())
        new = old_buildings.get(hexname) != kind
        bg = _piece(parent, "building", hexname, new,
                    f"{look['name']} at {hexname} in {who}'s city ({castle})" + (f": arches {arch_words}" if arch_words else ""),
                    **{"data-owner": str(owner), "data-building": kind})
        if new:
            SubElement(bg, "polygon", {"points": geo.halo_points[bh], "fill": halo["fill"], "stroke": halo["stroke"],
                                       "stroke-width": str(halo["width"])})
        SubElement(bg, "polygon", {"points": geo.hex_points[bh], "fill": look["fill"], "stroke": colours["fill"],
                                   "stroke-width": "2.4"})
        _text(bg, bat[0], bat[1] + pieces["building_font"] * 0.36, look["mark"], pieces["building_font"], "#1a1a1a",
              "middle", bold=True)
        if i < on_buildings:
            pip = SubElement(parent, "circle", {"class": "piece citizen" + (" changed" if new else ""), "data-kind": "citizen",
                                                "data-id": f"{hexname}/citizen", "data-count": "1",
                                                "cx": f"{bat[0] + dx:.1f}", "cy": f"{bat[1] + dy:.1f}", "r": str(citizen["r"]),
                                                "fill": citizen["fill"], "stroke": citizen["stroke"], "stroke-width": "0.8"})
            _title(pip, f"a citizen of {who}'s city ({castle}) on the {look['name']} at {hexname}")


def _figures(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, geo: _Geometry,
             layout: Mapping[str, Any], names: Sequence[str]) -> None:
    """Coloured figures: bread and games (service points on a building) and rich harvest (on a farm house)."""
    spec = layout["pieces"]["figure"]
    figures = view.get("figures") if isinstance(view.get("figures"), dict) else {}
    was = (previous or {}).get("figures") if isinstance((previous or {}).get("figures"), Mapping) else {}

    def entries(source: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for f in source.get("bread_and_games", ()) or ():
            if isinstance(f, dict):
                out.append(("bread", f.get("seat"), f.get("hex"), f.get("service"), f.get("figures")))
        for f in source.get("rich_harvest", ()) or ():
            if isinstance(f, dict):
                out.append(("harvest", f.get("seat"), f.get("farm_house"), None, 1))
        return out

    now = entries(figures)
    if not now:
        return
    new = Counter(now) - Counter(entries(was))
    group = SubElement(parent, "g", {"role": "group", "aria-label": "coloured figures"})
    per_hex: Counter[str] = Counter()
    for entry in now:
        source, seat, hexname, service, count = entry
        h = _hex_id(hexname)
        if h not in geo.centre or not isinstance(count, int):
            continue
        fresh = new[entry] > 0
        if fresh:
            new[entry] -= 1
        colours = _seat_colours(layout, seat)
        who = _seat_name(names, seat)
        for _ in range(count):
            i = per_hex[hexname]
            per_hex[hexname] += 1
            x = geo.centre[h][0] + (float(spec["at"][0]) + i * float(spec["step"])) * geo.size
            y = geo.centre[h][1] + float(spec["at"][1]) * geo.size
            what = f"+1 {service} (bread and games)" if source == "bread" else "rich harvest"
            g = _piece(group, "figure", f"{source}/{hexname}/{service or 'farm'}/{i}", fresh,
                       f"{who}'s coloured figure on {hexname}: {what}", **{"data-owner": str(seat)})
            if fresh:
                SubElement(g, "circle", {"cx": f"{x:.1f}", "cy": f"{y:.1f}", "r": f"{float(spec['r']) + 2:.1f}",
                                         "fill": layout["changed"]["fill"], "stroke": layout["changed"]["stroke"],
                                         "stroke-width": "1.5"})
            SubElement(g, "circle", {"cx": f"{x:.1f}", "cy": f"{y:.1f}", "r": str(spec["r"]), "fill": colours["fill"],
                                     "stroke": spec["stroke"], "stroke-width": "0.9"})


# ---------------------------------------------------------------- the panel: status, voice, politics, seats, stock


def _status(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, layout: Mapping[str, Any],
            names: Sequence[str]) -> None:
    spec = layout["panel"]["status"]
    panel = layout["panel"]
    year, years, phase = view.get("year"), view.get("years"), view.get("phase")
    words = f"Year {_shown(year)} of {_shown(years)} · {_words(str(phase or 'setup'))}"
    if isinstance(view.get("political_round"), int):
        words += f", political round {view['political_round']}"
    pending = view.get("pending") if isinstance(view.get("pending"), dict) else {}
    if isinstance(pending.get("seat"), int):  # the name shortened to the line's room, "to play" kept
        room = float(spec["width"]) - width(words + " ·  to play", panel["heading_font"], True)
        who = _seat_name(names, pending["seat"])
        full, words = f"{words} · {who} to play", f"{words} · {fitted(who, room, panel['heading_font'], True)} to play"
    elif pending.get("kind") == "game-over":
        words += " · game over"
        full = words
    else:
        full = words
    g = SubElement(parent, "g", {"role": "group", "aria-label": "status", "class": "status", "data-kind": "status"})
    keys = ("year", "phase", "political_round")
    if previous is not None and any(previous.get(k) != view.get(k) for k in keys):
        g.set("class", "status changed")
        _mark_rect(g, layout, spec["x"] - 3, spec["y"] - panel["heading_font"] - 1, spec["width"], panel["heading_font"] + 6)
    _title(g, full)
    _text(g, spec["x"], spec["y"], words, panel["heading_font"], panel["heading_fill"], bold=True)


def _card(parent: Element, x: float, y: float, w: float, h: float, fill: str, stroke: str) -> None:
    SubElement(parent, "rect", {"x": f"{x:.1f}", "y": f"{y:.1f}", "width": str(w), "height": str(h), "rx": "3",
                                "fill": fill, "stroke": stroke, "stroke-width": "1"})


def _halo_rect(parent: Element, layout: Mapping[str, Any], x: float, y: float, w: float, h: float) -> None:
    c = layout["changed"]
    SubElement(parent, "rect", {"x": f"{x - 2.5:.1f}", "y": f"{y - 2.5:.1f}", "width": f"{w + 5:.1f}",
                                "height": f"{h + 5:.1f}", "rx": "4", "fill": c["fill"], "stroke": c["stroke"],
                                "stroke-width": str(c["width"])})


def _voice(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, layout: Mapping[str, Any]) -> None:
    spec = layout["panel"]["voice"]
    panel = layout["panel"]
    services = layout["services"]
    back, face = layout["card_back"], layout["card_face"]
    voice = view.get("voice") if isinstance(view.get("voice"), dict) else {}
    was = (previous or {}).get("voice") if isinstance((previous or {}).get("voice"), Mapping) else {}
    group = SubElement(parent, "g", {"role": "group", "aria-label": "voice of the people"})
    x0, y0 = float(spec["x"]), float(spec["y"])
    w, h = (float(v) for v in spec["card"])
    wish = [sv for sv in voice.get("services", ()) or () if isinstance(sv, str)]
    heading = "Voice of the people" + (f": the people want {' and '.join(wish)}" if wish else "")
    _text(group, x0, y0 + 9, heading, panel["font"], panel["heading_fill"], bold=True)
    top = y0 + 14
    old_down = was.get("face_down") if isinstance(was.get("face_down"), list) else []
    slots: list[tuple[str, Any, Any, bool]] = [("face-up", voice.get("face_up"), was.get("face_up") if previous is not None else None, True)]
    down = voice.get("face_down") if isinstance(voice.get("face_down"), list) else []
    for i, card in enumerate(down):
        slots.append((f"face-down/{i}", card, old_down[i] if i < len(old_down) else None, False))
    for i, (ident, card, old, up) in enumerate(slots):
        x = x0 + i * (w + float(spec["gap"]))
        changed = previous is not None and old != card
        if up and card is None and wish:
            tip = f"the voice of the people: the people want {' and '.join(wish)} (the year's cards are back in the deck)"
        elif up and card is None:
            tip = "the face-up voice card: none laid out"
        elif up:
            tip = f"the face-up voice card: {_shown(card)}"
        elif card == "undrawn":  # the review view: nobody looked at it, so it was never drawn from the deck
            tip = f"face-down voice card {i}: nobody looked at it (a card is drawn when first seen)"
        elif isinstance(card, str):
            tip = f"face-down voice card {i}: {card}" + ("" if wish else " (you have looked at it)")
        else:
            tip = f"face-down voice card {i}: not seen by you"
        g = _piece(group, "voice-card", ident, changed, tip, **{"data-face": "up" if up or (wish and isinstance(card, str)) else "down"})
        if changed:
            _halo_rect(g, layout, x, top, w, h)
        if isinstance(card, str) and card in services:
            look = services[card]
            if up or wish:
                _card(g, x, top, w, h, look["fill"], face["stroke"])
                _text(g, x + w / 2, top + h / 2 + 3, look["label"], 8, look["text"], "middle", bold=True)
            else:  # a face-down card this reader has seen: the back, with what they know on a band
                _card(g, x, top, w, h, back["fill"], face["stroke"])
                SubElement(g, "rect", {"x": f"{x + 2:.1f}", "y": f"{top + h / 2 - 8:.1f}", "width": f"{w - 4:.1f}",
                                       "height": "16", "fill": look["fill"]})
                _text(g, x + w / 2, top + h / 2 + 3, look["label"], 7.5, look["text"], "middle", bold=True)
        elif card == "undrawn":
            _card(g, x, top, w, h, back["fill"], face["stroke"])
            _text(g, x + w / 2, top + h / 2 - 1, "not", 8, back["text"], "middle", bold=True)
            _text(g, x + w / 2, top + h / 2 + 9, "drawn", 8, back["text"], "middle", bold=True)
        elif up and wish and all(sv in services for sv in wish):  # the tally's outcome, once its cards are put away
            _card(g, x, top, w, h, services[wish[0]]["fill"], face["stroke"])
            for k, sv in enumerate(wish):
                _text(g, x + w / 2, top + h / 2 + 3 + 10 * (k - (len(wish) - 1) / 2), services[sv]["label"], 8,
                      services[sv]["text"], "middle", bold=True)
        elif up:
            SubElement(g, "rect", {"x": f"{x:.1f}", "y": f"{top:.1f}", "width": str(w), "height": str(h), "rx": "3",
                                   "fill": "none", "stroke": face["stroke"], "stroke-dasharray": "3 2"})
        else:
            _card(g, x, top, w, h, back["fill"], face["stroke"])
            _text(g, x + w / 2, top + h / 2 + 5, "?", 14, back["text"], "middle", bold=True)
        caption = ("the people want" if up and card is None and wish else "face up") if up else "face down"
        _text(group, x + w / 2, top + h + 9, caption, 7.5, panel["text_fill"], "middle")
    deck = voice.get("deck")
    x = float(spec["deck_x"])
    g = _piece(group, "voice-deck", "voice-deck", previous is not None and was.get("deck") != deck,
               f"voice-of-the-people deck: {_shown(deck)} cards")
    if "changed" in g.get("class", ""):
        _halo_rect(g, layout, x, top, w, h)
    _card(g, x, top, w, h, back["fill"], face["stroke"])
    _text(g, x + w / 2, top + h / 2 - 2, _shown(deck), 12, back["text"], "middle", bold=True)
    _text(g, x + w / 2, top + h / 2 + 11, "deck", 8, back["text"], "middle")


def _politics(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, layout: Mapping[str, Any],
              edition: Edition) -> None:
    spec = layout["panel"]["politics"]
    panel = layout["panel"]
    face = layout["card_face"]
    politics = view.get("politics") if isinstance(view.get("politics"), dict) else {}
    was = (previous or {}).get("politics") if isinstance((previous or {}).get("politics"), Mapping) else {}
    group = SubElement(parent, "g", {"role": "group", "aria-label": "politics display"})
    x0, y0 = float(spec["x"]), float(spec["y"])
    w, h = (float(v) for v in spec["card"])
    gap = float(spec["gap"])
    per_row = int(spec["per_row"])
    _text(group, x0, y0 + 9, "Politics display", panel["font"], panel["heading_fill"], bold=True)
    display = politics.get("display") if isinstance(politics.get("display"), list) else []
    old = was.get("display") if isinstance(was.get("display"), list) else []
    fresh = Counter(str(c) for c in display) - Counter(str(c) for c in old) if previous is not None else Counter()
    cards = edition.data["politics"]
    top = y0 + 14
    for i, card in enumerate(display):
        x = x0 + (i % per_row) * (w + gap)
        y = top + (i // per_row) * (h + gap)
        name = str(card)
        changed = fresh[name] > 0
        if changed:
            fresh[name] -= 1
        if _hidden(card):
            tip = "a politics card not shown to you"
        else:
            costs = " / ".join(f"{o['cost']} gold" for o in cards[name]["options"]) if name in cards else "?"
            tip = f"politics card on display: {_words(name)} (costs {costs})"
        g = _piece(group, "politics-card", f"display/{i}", changed, tip, **{"data-card": name})
        if changed:
            _halo_rect(g, layout, x, y, w, h)
        _card(g, x, y, w, h, face["fill"], face["stroke"])
        lines = layout["politics"].get(name, [_words(name)]) if not _hidden(card) else ["?"]
        first = y + h / 2 + 3 - (len(lines) - 1) * 5
        for n, line in enumerate(lines):
            _text(g, x + w / 2, first + n * 10, line, 8.5, face["text"], "middle", bold=True)
    rows = max(1, math.ceil(len(display) / per_row))
    y = top + rows * (h + gap) + 10
    deck, discard = politics.get("deck"), politics.get("discard")
    n_discard = len(discard) if isinstance(discard, list) else discard
    piles = [("politics-deck", f"deck {_shown(deck)} face down", was.get("deck") != deck),
             ("politics-discard", f"discard {_shown(n_discard)} face up",
              (len(was["discard"]) if isinstance(was.get("discard"), list) else was.get("discard")) != n_discard)]
    x = float(spec["deck_x"])
    for ident, words, moved in piles:
        changed = previous is not None and moved
        tip = words
        if ident == "politics-discard" and isinstance(discard, list) and discard:
            tip += ": " + ", ".join(_words(str(c)) for c in discard)
        g = _piece(group, ident, ident, changed, tip)
        if changed:
            _mark_rect(g, layout, x - 2, y - 9, len(words) * 5.4 + 4, 12)
        _text(g, x, y, words, panel["font"], panel["text_fill"])
        x += len(words) * 5.4 + 16


def _seats(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, layout: Mapping[str, Any],
           names: Sequence[str]) -> None:
    spec = layout["panel"]["seats"]
    panel = layout["panel"]
    seats = [s for s in view.get("seats", ()) or () if isinstance(s, dict)]
    before = {s.get("seat"): s for s in (previous or {}).get("seats", ()) or () if isinstance(s, dict)}
    group = SubElement(parent, "g", {"role": "group", "aria-label": "players"})
    x0, y0 = float(spec["x"]), float(spec["y"])
    _text(group, x0, y0, "Players", panel["font"], panel["heading_fill"], bold=True)
    for dx, header in spec["columns"].values():
        _text(group, x0 + dx, y0, header, 8.5, panel["text_fill"], "middle")
    start = view.get("start")
    order = view.get("turn_order") if isinstance(view.get("turn_order"), list) else []
    for row, seat in enumerate(seats):
        i = seat.get("seat")
        who = _seat_name(names, i)
        colours = _seat_colours(layout, i)
        old = before.get(i)
        y = y0 + 8 + row * float(spec["row"])
        g = _piece(group, "seat", f"seat/{i}", previous is not None and old != seat,
                   f"{who} ({colours['colour']})" + (", starting player" if i == start and order else ""),
                   **{"data-owner": str(i)})
        sw = float(spec["swatch"])
        SubElement(g, "rect", {"x": f"{x0:.1f}", "y": f"{y + 3:.1f}", "width": str(sw), "height": str(sw), "fill": colours["fill"],
                               "stroke": "#1a1a1a", "stroke-width": "0.8"})
        cw, ch = (float(v) for v in spec["cell"])
        # the name in the room before the first column, the starting player's star kept whole
        star = " ★" if i == start and order else ""
        room = min(float(dx) for dx, _ in spec["columns"].values()) - cw / 2 - sw - 6 - width(star, panel["font"], True)
        _text(g, x0 + sw + 4, y + 12, fitted(who, room, panel["font"], bold=True) + star, panel["font"], panel["text_fill"], bold=True)
        for field, (dx, header) in spec["columns"].items():
            value = seat.get(field)
            moved = previous is not None and (old is None or old.get(field) != value)
            if moved:
                _mark_rect(g, layout, x0 + dx - cw / 2, y + 2, cw, ch)
            cell = _text(g, x0 + dx, y + 12, _shown(value), panel["font"], panel["text_fill"], "middle", bold=moved)
            cell.attrib.update({"class": "piece seat-field" + (" changed" if moved else ""), "data-kind": "seat-field",
                                "data-id": f"seat/{i}/{field}"})
            _title(cell, f"{who}: {_shown(value)} {header.rstrip('.')} ({_words(field)})")
        played = seat.get("played") if isinstance(seat.get("played"), list) else []
        notes = []
        if played:
            notes.append("played: " + ", ".join("a face-down card" if p == "face-down" or _hidden(p) else _words(str(p)) for p in played))
        if seat.get("loses_first_turn") is True:
            notes.append("loses first turn")
        if isinstance(seat.get("hungry"), int) and seat["hungry"] > 0:
            notes.append(f"{seat['hungry']} hungry")
        if notes:
            words = "; ".join(notes)
            moved = previous is not None and old is not None and (old.get("played") != seat.get("played") or old.get("hungry") != seat.get("hungry"))
            line = _piece(g, "seat-played", f"seat/{i}/played", moved, f"{who}: {words}")
            shown = words if len(words) <= 64 else words[:63] + "…"
            if moved:
                _mark_rect(line, layout, x0 + sw + 2, y + 17, min(len(shown) * 4.6 + 6, float(spec["width"]) - sw - 4), 12)
            _text(line, x0 + sw + 4, y + 26, shown, 8.5, panel["text_fill"])


def _stock(parent: Element, view: Mapping[str, Any], previous: Mapping[str, Any] | None, geo: _Geometry,
           layout: Mapping[str, Any]) -> None:
    spec = layout["panel"]["stock"]
    panel = layout["panel"]
    group = SubElement(parent, "g", {"role": "group", "aria-label": "building stock and citizen supply"})
    x0, y0 = float(spec["x"]), float(spec["y"])
    _text(group, x0, y0, "Stock", panel["font"], panel["heading_fill"], bold=True)
    stock = view.get("stock") if isinstance(view.get("stock"), dict) else {}
    was = (previous or {}).get("stock") if isinstance((previous or {}).get("stock"), Mapping) else {}
    items = [("supply", "citizen supply", view.get("supply"), (previous or {}).get("supply"))]
    items += [(f"stock/{pool}", geo.pool_names.get(pool, _words(pool)), n, was.get(pool)) for pool, n in stock.items()]
    columns = [float(c) for c in spec["columns"]]
    for i, (ident, words, n, old) in enumerate(items):
        x = x0 + columns[i % len(columns)]
        y = y0 + (1 + i // len(columns)) * float(spec["row"])
        text = f"{words} {_shown(n)}"
        changed = previous is not None and old != n
        g = _piece(group, "stock", ident, changed, f"{words}: {_shown(n)} left in the supply")
        if changed:
            _mark_rect(g, layout, x - 2, y - 9, len(text) * 4.7 + 4, 12)
        _text(g, x, y, text, 8, panel["text_fill"])


_LEGEND: dict[int, str] = {}


def _legend(geo: _Geometry, layout: Mapping[str, Any], edition: Edition) -> str:
    """What the marks mean, wrapped to the panel's width; the same for every step, so kept as markup."""
    found = _LEGEND.get(id(geo))
    if found is not None:
        return found
    spec = layout["panel"]["legend"]
    group = Element("g", {"role": "group", "aria-label": "legend"})
    x0, y = float(spec["x"]), float(spec["y"])
    words = ["Castle: its number is the citizens on it; grey dot: a citizen on a building; coloured dot: a coloured figure."]
    marks = [f"{layout['buildings'][k]['mark']} {layout['buildings'][k]['name']}" for k in edition.data["buildings"]]
    words.append(" · ".join(marks))
    zones = layout["board"]["zones"]
    words.append("Lanes by zone: " + ", ".join(f"{zones[str(z)]['label']} from {p} players" for z, p in sorted(geo.first_players.items()))
                 + "; grey: out of play.")
    per_line = int(float(spec["width"]) / 4.4)
    for paragraph in words:
        line = ""
        for word in paragraph.split(" "):
            if line and len(line) + 1 + len(word) > per_line:
                _text(group, x0, y, line, 8, layout["panel"]["text_fill"])
                y += 10.5
                line = word
            else:
                line = f"{line} {word}" if line else word
        if line:
            _text(group, x0, y, line, 8, layout["panel"]["text_fill"])
            y += 10.5
        y += 2
    out: list[str] = []
    _write(group, out)
    found = _LEGEND[id(geo)] = "".join(out)
    return found


# ---------------------------------------------------------------- the document


def draw(view: dict[str, Any], previous: dict[str, Any] | None, layout: dict[str, Any], edition: Edition,
         names: Sequence[str]) -> str:
    """One step of a La Città game as one complete SVG document, what changed since `previous` ringed."""
    _check(layout, edition)
    geo = _geometry(edition, layout)
    box = " ".join(str(v) for v in layout["viewBox"])
    year, years = view.get("year"), view.get("years")
    svg = Element("svg", {"xmlns": SVG_NS, "viewBox": box, "role": "img", "font-family": layout["font"],
                          "aria-label": f"La Città board, year {_shown(year)} of {_shown(years)}, "
                                        f"{_words(str(view.get('phase') or 'setup'))}"})
    _title(svg, "La Città board")
    x, y, w, h = layout["viewBox"]
    SubElement(svg, "rect", {"x": str(x), "y": str(y), "width": str(w), "height": str(h), "fill": layout["background"]})
    tiles = view.get("tiles") if isinstance(view.get("tiles"), dict) else {}
    old_tiles = (previous or {}).get("tiles") if isinstance((previous or {}).get("tiles"), Mapping) else {}
    changed_slots = frozenset(s for s in geo.slots if previous is not None and tiles.get(s) != old_tiles.get(s))
    board = SubElement(svg, "g", {"role": "group", "aria-label": "the board"})
    SubElement(board, "g", {"data-land": ""})  # replaced by the cached land and lanes below
    SubElement(board, "g", {"data-cities": ""})
    _figures(board, view, previous, geo, layout, names)
    SubElement(board, "g", {"data-place-names": ""})
    panel = SubElement(svg, "g", {"role": "group", "aria-label": "displays and players"})
    _status(panel, view, previous, layout, names)
    _voice(panel, view, previous, layout)
    _politics(panel, view, previous, layout, edition)
    _seats(panel, view, previous, layout, names)
    _stock(panel, view, previous, geo, layout)
    SubElement(panel, "g", {"data-legend": ""})
    out: list[str] = []
    _write(svg, out)
    markup = "".join(out)
    markup = markup.replace('<g data-land="" />', _land(view, changed_slots, geo, layout, edition), 1)
    markup = markup.replace('<g data-cities="" />', _cities(view, previous, geo, layout, edition, names), 1)
    markup = markup.replace('<g data-place-names="" />', _place_names(geo, layout), 1)
    return markup.replace('<g data-legend="" />', _legend(geo, layout, edition), 1)


_PLACE_NAMES: Bounded[int, str] = Bounded("la-citta place names", 8)  # per geometry (a few editions)


def _place_names(geo: _Geometry, layout: Mapping[str, Any]) -> str:
    """Every place's name as the notation writes it (`L41` low on each lane hex, clear of the castle's number or the
    building's mark in its middle; `S07`, `E03` under an area's label),
    over the pieces, hidden unless the page shows them (its "names of the places" switch): a table writing its game
    with a pencil finds here what to write, as a chess board's edge gives its files and ranks. Cached per geometry."""
    found = _PLACE_NAMES.get(id(geo))
    if found is not None:
        return found
    spec = layout["board"]["place_names"]
    group = Element("g", {"class": "place-names", "display": "none", "aria-hidden": "true", "pointer-events": "none",
                          "font-size": str(spec["font"]), "fill": spec["fill"], "stroke": spec["halo"],
                          "stroke-width": str(spec["halo_width"]), "paint-order": "stroke", "text-anchor": "middle"})
    dx, dy = (float(v) * geo.size for v in spec["lane_at"])  # off the middle, where a castle's number or a mark is
    for h, (x, y) in sorted(geo.centre.items()):
        SubElement(group, "text", {"x": f"{x + dx:.1f}", "y": f"{y + dy:.1f}"}).text = f"L{h}"
    for name in (*geo.slots, *geo.edges):
        x, y = geo.label_at[name]
        SubElement(group, "text", {"x": f"{x:.1f}", "y": f"{y + spec['below_label']:.1f}"}).text = name
    out: list[str] = []
    _write(group, out)
    found = "".join(out)
    _PLACE_NAMES.put(id(geo), found)
    return found


def anchors(layout: dict[str, Any], edition: Edition, seats: int) -> dict[str, dict[str, Any]]:
    """Where a note's arrow or ring meets each place (`notation.places`), in viewBox units: a lane
    hex `L41` at its centre, a tile slot `S07` or printed edge area `E03` where its name is printed
    (or, for an edge area whose tip falls off the board, the middle of the part that is drawn)."""
    _check(layout, edition)
    geo = _geometry(edition, layout)
    x0, y0, x1, y1 = (float(v) for v in layout["board"]["clip"])
    out: dict[str, dict[str, Any]] = {}
    for h, (x, y) in sorted(geo.centre.items()):
        out[f"L{h}"] = {"x": x, "y": y, "label": f"lane hex L{h}"}
    for name in (*geo.slots, *geo.edges):
        x, y = geo.label_at[name]
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            corners = geo.areas[name]
            x, y = sum(p[0] for p in corners) / len(corners), sum(p[1] for p in corners) / len(corners)
        kind = "tile slot" if name in geo.slots else "edge area"
        out[name] = {"x": round(x, 1), "y": round(y, 1), "label": f"{kind} {name}"}
    return out
