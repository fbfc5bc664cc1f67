"""Serenissima's board as SVG: the sea map with its ports and galleys, the turn track, the Doge cards, the wheel, the seats.

Everything comes from the reader's view (nothing is guessed: a hidden purse is drawn hidden),
the edition (zones, ports, goods, Doge cards) and the layout file (every position and colour).
The ports are real cities placed by longitude and latitude on a schematic coastline; the
static part of the drawing (sea, coast, zone names, routes) depends only on the layout and
the edition, so it is built once and shared by every step.
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.kernel import Edition
from replay_viewer.boards.svg import tostring as _tostring

SVG_NS = "http://www.w3.org/2000/svg"

Point = tuple[float, float]


# --- the parts of the drawing that never change between steps -----------------------------------------


@dataclass(frozen=True)
class _Board:
    """The layout projected once: points in viewBox units, lookups by the view's names, the static background."""

    layout: Mapping[str, Any]
    colours: Mapping[str, str]
    font: Mapping[str, Any]
    city: dict[str, Point]
    card: dict[str, Point]  # top-left corner of each port's card
    zone_label: dict[str, Point]
    dock: dict[str, Point]
    zone_by_name: dict[str, str]  # the view names a galley's zone by its printed name
    zone_name: dict[str, str]
    port_zone: dict[str, str]
    port_name: dict[str, str]
    space_values: dict[int, list[int]]
    doge_cards: dict[str, Mapping[str, Any]]
    galleys_in_play: dict[int, int]
    galley_spaces: int
    background: ET.Element
    fragments: dict[Any, str]  # serialized pieces by everything they are drawn from: most steps change few of them


_BOARDS: dict[tuple[int, str], tuple[Mapping[str, Any], _Board]] = {}


def _board(layout: Mapping[str, Any], edition: Edition) -> _Board:
    """The prepared board for this layout object and edition file (the viewer loads each layout once)."""
    key = (id(layout), edition.content_hash)
    hit = _BOARDS.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    board = _prepare(layout, edition)
    if len(_BOARDS) > 16:
        _BOARDS.clear()
    _BOARDS[key] = (layout, board)
    return board


def _projection(layout: Mapping[str, Any]) -> Callable[[Sequence[float]], Point]:
    """The equirectangular projection of the layout's bounds onto its map rectangle."""
    m = layout["map"]
    x0, y0, w, h = m["rect"]
    (lon0, lon1), (lat0, lat1) = m["lon"], m["lat"]

    def project(p: Sequence[float]) -> Point:
        return (round(x0 + (p[0] - lon0) / (lon1 - lon0) * w, 1), round(y0 + (lat1 - p[1]) / (lat1 - lat0) * h, 1))

    return project


def _path(points: list[Point]) -> str:
    return "M" + " L".join(f"{x},{y}" for x, y in points) + " Z"


def _prepare(layout: Mapping[str, Any], edition: Edition) -> _Board:
    project = _projection(layout)
    data = edition.data
    colours = layout["colours"]
    font = layout["font"]
    city = {pid: project(p["at"]) for pid, p in layout["ports"].items()}
    card = {pid: (city[pid][0] + p["card"][0], city[pid][1] + p["card"][1]) for pid, p in layout["ports"].items()}
    zone_label = {z: project(v["label"]) for z, v in layout["zones"].items()}
    dock = {z: project(v["dock"]) for z, v in layout["zones"].items()}
    zones = data["sea_zones"]
    board = _Board(
        layout=layout,
        colours=colours,
        font=font,
        city=city,
        card=card,
        zone_label=zone_label,
        dock=dock,
        zone_by_name={v["name"]: z for z, v in zones.items()},
        zone_name={z: v["name"] for z, v in zones.items()},
        port_zone={pid: p["zone"] for pid, p in data["ports"].items()},
        port_name={pid: p["name"] for pid, p in data["ports"].items()},
        space_values={int(k): list(v) for k, v in data["space_values"].items()},
        doge_cards={c["id"]: c for c in data["doge_deck"]},
        galleys_in_play={int(k): v["galleys_in_play"] for k, v in data["per_players"].items()},
        galley_spaces=data["galley"]["spaces"],
        background=ET.Element("g"),
        fragments={},
    )
    _background(board, layout, edition, project)
    board.fragments["background"] = _tostring(board.background)
    return board


def _background(board: _Board, layout: Mapping[str, Any], edition: Edition, project: Callable[[Sequence[float]], Point]) -> None:
    """Land, sea, islands, routes between zones and zone names: drawn once per layout."""
    c, font = board.colours, board.font
    g = board.background
    g.set("data-kind", "map")
    _title(g, f"the Mediterranean: {len(edition.data['ports'])} ports and the {len(edition.data['sea_zones'])} sea zones between them")
    x0, y0, w, h = layout["map"]["rect"]
    vb = layout["viewBox"]
    _el(g, "rect", x=vb[0], y=vb[1], width=vb[2], height=vb[3], fill=c["paper"])
    _el(g, "rect", x=x0, y=y0, width=w, height=h, fill=c["land"])
    sea = _el(g, "g", role="group", **{"aria-label": "the Mediterranean"})
    _el(sea, "path", d=_path([project(p) for p in layout["map"]["sea"]]), fill=c["sea"], stroke=c["coast"], **{"stroke-width": 1.2, "stroke-linejoin": "round"})
    for points in layout["map"].get("waters", {}).values():
        _el(sea, "path", d=_path([project(p) for p in points]), fill=c["sea"], stroke=c["coast"], **{"stroke-width": 1})
    for points in layout["map"].get("islands", {}).values():
        _el(sea, "path", d=_path([project(p) for p in points]), fill=c["land"], stroke=c["coast"], **{"stroke-width": 1})
    _el(g, "rect", x=x0, y=y0, width=w, height=h, fill="none", stroke=c["panel_edge"], **{"stroke-width": 1})
    zones = edition.data["sea_zones"]
    routes = _el(g, "g", role="group", **{"aria-label": "routes between sea zones"})
    drawn: set[frozenset[str]] = set()
    for z, zone in zones.items():
        for n in zone["neighbours"]:
            pair = frozenset((z, n))
            if pair in drawn:
                continue
            drawn.add(pair)
            (ax, ay), (bx, by) = board.zone_label[z], board.zone_label[n]
            line = _el(routes, "line", x1=ax, y1=ay, x2=bx, y2=by, stroke=c["adjacency"], **{"stroke-width": 1.2, "stroke-dasharray": "5 4", "stroke-opacity": 0.55})
            line.set("data-kind", "route")
            _title(line, f"{zone['name']} to {zones[n]['name']}: one move")
    for pid, port in edition.data["ports"].items():
        (ax, ay), (bx, by) = board.zone_label[port["zone"]], board.city[pid]
        _el(routes, "line", x1=ax, y1=ay, x2=bx, y2=by, stroke=c["adjacency"], **{"stroke-width": 0.8, "stroke-opacity": 0.45})
    names = _el(g, "g", role="group", **{"aria-label": "sea zones"})
    for z, zone in zones.items():
        x, y = board.zone_label[z]
        label = _el(names, "g", role="group", **{"aria-label": zone["name"], "data-kind": "zone", "data-id": z})
        _title(label, f"{zone['name']}: sea zone; next to {', '.join(zones[n]['name'] for n in zone['neighbours'])}")
        _el(label, "circle", cx=x, cy=y, r=3, fill=c["zone_text"], **{"fill-opacity": 0.6})
        lines = _zone_lines(zone["name"])
        for k, line in enumerate(lines):
            _text(label, x, y - 5 - (len(lines) - 1 - k) * (font["zone"] + 1), line, font["zone"], c["zone_text"],
                  **{"font-style": "italic", "text-anchor": "middle"})


def missing(layout: Mapping[str, Any], edition: Edition) -> list[str]:
    """What the layout lacks to draw this edition: ports, zones and goods without a position or colour."""
    data = edition.data
    out = [f"port {p}" for p in data["ports"] if p not in layout.get("ports", {})]
    out += [f"sea zone {z}" for z in data["sea_zones"] if z not in layout.get("zones", {})]
    out += [f"good {g}" for g in data["goods"] if g not in layout.get("goods", {})]
    players = data["players"]["max"]
    if len(layout.get("seats", [])) < players:
        out.append(f"seat colours for {players} players")
    return out


# --- small builders -----------------------------------------------------------------------------------


def _el(parent: ET.Element, tag: str, **attrs: Any) -> ET.Element:
    """A child element with every attribute as text; `class_` stands for `class`."""
    return ET.SubElement(parent, tag, {("class" if k == "class_" else k): str(round(v, 2) if isinstance(v, float) else v) for k, v in attrs.items()})


def _title(parent: ET.Element, text: str) -> None:
    ET.SubElement(parent, "title").text = text


def _text(parent: ET.Element, x: float, y: float, words: str, size: float, fill: str, **attrs: Any) -> ET.Element:
    t = _el(parent, "text", x=round(x, 1), y=round(y, 1), fill=fill, **{"font-size": size}, **attrs)
    t.text = words
    return t


def _hidden(value: Any) -> bool:
    """A value the reader may not see: `{"hidden": true}` from the public view, None in another seat's view."""
    return value is None or (isinstance(value, dict) and value.get("hidden") is True)


def _piece(parent: ET.Element, kind: str, ident: str, tip: str, changed: bool = False, **attrs: Any) -> ET.Element:
    g = _el(parent, "g", class_=f"piece {kind}" + (" changed" if changed else ""), **{"data-kind": kind, "data-id": ident}, **attrs)
    _title(g, tip)
    return g


def _halo(parent: ET.Element, board: _Board, x: float, y: float, w: float, h: float, r: float = 4) -> None:
    """The outline that marks what the last event changed."""
    _el(parent, "rect", x=round(x - 3, 1), y=round(y - 3, 1), width=round(w + 6, 1), height=round(h + 6, 1), rx=r + 2,
        fill="none", stroke=board.colours["highlight"], class_="halo", **{"stroke-width": 3})


class _Names:
    """Seat names and colours as the drawing writes them."""

    def __init__(self, names: Sequence[str], layout: Mapping[str, Any]) -> None:
        self.names, self.seats = names, layout["seats"]
        self.key = tuple(str(n) for n in names)  # part of every cached piece's key: names are drawn into it

    def name(self, seat: Any) -> str:
        if not isinstance(seat, int) or seat < 0:
            return "nobody"
        return str(self.names[seat]) if seat < len(self.names) and self.names[seat] else f"seat {seat}"

    def colour(self, seat: int) -> str:
        return str(self.seats[seat % len(self.seats)]["colour"])

    def ink(self, seat: int) -> str:
        return str(self.seats[seat % len(self.seats)]["ink"])

    def word(self, seat: int) -> str:
        return str(self.seats[seat % len(self.seats)]["word"])


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# --- the drawing ----------------------------------------------------------------------------------------


def draw(view: dict[str, Any], previous: dict[str, Any] | None, layout: dict[str, Any], edition: Edition, names: Sequence[str]) -> str:
    """One step of a Serenissima game as the reader of `view` may see it; what differs from `previous` is outlined.

    Each piece (a port, a galley, a seat's row, the wheel) is serialized once for the data it
    is drawn from and kept, so stepping through a record redraws only what the step changed.
    """
    board = _board(layout, edition)
    who = _Names(names, layout)
    vb = layout["viewBox"]
    turn = view.get("turn", 0)
    summary = f"Serenissima board, {view.get('phase', 'before setup')}" + (f", turn {turn}" if turn else "")
    svg = ET.Element("svg", {"xmlns": SVG_NS, "viewBox": " ".join(str(v) for v in vb), "role": "img", "aria-label": summary,
                             "font-family": board.font["family"], "class": "board serenissima"})
    _title(svg, summary)
    stepped = previous is not None
    before = previous or {}
    key = who.key
    parts = [_tostring(svg)[: -len("</svg>")], board.fragments["background"]]
    parts += _ports(board, who, view, before, stepped)
    parts += _galleys(board, who, view, before, stepped)
    active, pending = view.get("active_galley"), view.get("pending")
    parts.append(_memo(board, ("heading", key, view.get("phase"), turn, repr(active), repr(pending)), lambda g: _heading(g, board, who, view)))
    doge, old_doge = view.get("doge"), before.get("doge")
    parts.append(_memo(board, ("track", repr(doge), stepped and (old_doge or {}).get("track") != (doge or {}).get("track")),
                       lambda g: _track(g, board, view, before, stepped)))
    parts.append(_memo(board, ("doge", repr(doge), repr(old_doge) if stepped else None), lambda g: _doge(g, board, view, before, stepped)))
    owners = _owners(view)
    parts.append(_memo(board, ("wheel", key, view.get("players"), owners, view.get("black_token"),
                               (_owners(before), before.get("black_token")) if stepped else None),
                       lambda g: _wheel(g, board, who, view, before, stepped)))
    parts.append(_seats(board, who, view, before, stepped))
    supply = view.get("goods_supply")
    parts.append(_memo(board, ("supply", repr(supply), repr(before.get("goods_supply")) if stepped else None),
                       lambda g: _supply(g, board, view, before, stepped)))
    parts.append("</svg>")
    return "".join(parts)


def _memo(board: _Board, key: Any, build: Callable[[ET.Element], Any]) -> str:
    """The serialized pieces `build(holder)` draws, from the cache when the same data was drawn before."""
    hit = board.fragments.get(key)
    if hit is None:
        holder = ET.Element("g")
        build(holder)
        hit = "".join(_tostring(child) for child in holder)
        if len(board.fragments) > 8_000:  # about a thousand steps' worth (some 12 MB); then it starts over
            background = board.fragments["background"]
            board.fragments.clear()
            board.fragments["background"] = background
        board.fragments[key] = hit
    return hit


def _layer(label: str, parts: list[str]) -> list[str]:
    """A labelled group around already serialized pieces."""
    head = _tostring(ET.Element("g", {"role": "group", "aria-label": label}))
    return [head[: -len(" />")] + ">", *parts, "</g>"]


def _owners(view: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    galleys = view.get("galleys") or {}
    return tuple((n, None if _hidden(g) else g.get("owner")) for n, g in galleys.items())


def _ports(board: _Board, who: _Names, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> list[str]:
    pc = board.layout["port_card"]
    ports = view.get("ports") or {}
    old = before.get("ports") or {}
    parts = []
    for pid in board.city:
        port = ports.get(pid)
        if port is None:  # before setup the ports are not on the table yet: the city alone
            parts.append(_memo(board, ("city", pid), lambda g, pid=pid: _city(g, board, pid)))
            continue
        changed = stepped and old.get(pid) != port
        parts.append(_memo(board, ("port", who.key, pid, repr(port), changed),
                           lambda g, pid=pid, port=port, changed=changed: _port(g, board, who, pid, port, changed, pc)))
    return _layer("ports", parts)


def _city(g: ET.Element, board: _Board, pid: str) -> None:
    """A port before setup: the city and its name where its card will lie."""
    c = board.colours
    (x, y), (cx, cy) = board.city[pid], board.card[pid]
    city = _el(g, "g", role="group", **{"aria-label": board.port_name.get(pid, pid), "data-kind": "city", "data-id": pid})
    _title(city, f"{board.port_name.get(pid, pid)}: a port, not yet in play")
    _el(city, "circle", cx=x, cy=y, r=3.5, fill=c["paper"], stroke=c["ink"])
    _text(city, cx + 4, cy + 16, board.port_name.get(pid, pid), board.layout["port_card"]["name_size"], c["muted"])


def _port_words(board: _Board, who: _Names, port: Mapping[str, Any]) -> str:
    if _hidden(port):
        return "a port (hidden)"
    owner = port.get("owner")
    words = [port["name"], "owned by " + who.name(owner) if isinstance(owner, int) else "neutral"]
    if port.get("closed"):
        words.append("closed")
    words.append(_plural(port["sailors"], "sailor"))
    cubes = port["warehouse"]
    words.append(f"warehouse {len(cubes)} of {port['spaces']}" + (f" ({', '.join(cubes)})" if cubes else ""))
    words.append(f"produces {port['produces']}")
    if port.get("fort"):
        words.append("a fort")
    if port.get("basilica"):
        words.append("a basilica")
    if port.get("wine_side"):
        words.append("wine side up")
    return words[0] + ": " + ", ".join(words[1:])


def _port(layer: ET.Element, board: _Board, who: _Names, pid: str, port: Mapping[str, Any], changed: bool, pc: Mapping[str, Any]) -> None:
    c = board.colours
    words = _port_words(board, who, port)
    g = _el(layer, "g", class_="port" + (" changed" if changed else ""), role="group",
            **{"aria-label": words, "data-kind": "port", "data-id": pid})
    _title(g, words)
    (cx, cy), (x, y) = board.city[pid], board.card[pid]
    w, h = pc["width"], pc["height"]
    if _hidden(port):
        _el(g, "rect", x=x, y=y, width=w, height=h, rx=4, fill=c["closed"], stroke=c["neutral"])
        _text(g, x + w / 2, y + h / 2 + 4, "?", board.font["size"], c["ink"], **{"text-anchor": "middle"})
        return
    owner = port.get("owner")
    owned = isinstance(owner, int)
    edge = who.colour(owner) if owned else c["neutral"]
    # the leader from the city to the nearest point of its card
    lx, ly = min(max(cx, x), x + w), min(max(cy, y), y + h)
    _el(g, "line", x1=cx, y1=cy, x2=lx, y2=ly, stroke=edge, **{"stroke-width": 1.4})
    _el(g, "circle", cx=cx, cy=cy, r=4.5, fill=edge if owned else c["paper"], stroke=c["ink"], **{"stroke-width": 1})
    if changed:
        _halo(g, board, x, y, w, h)
    closed = bool(port.get("closed"))
    _el(g, "rect", x=x, y=y, width=w, height=h, rx=4, fill=c["closed"] if closed else c["card_face"], stroke=edge,
        **{"stroke-width": 3 if owned else 1.2})
    if owned:  # the owner's colour as a band under the name, so ownership reads from afar
        _el(g, "rect", x=x + 1.5, y=y + 1.5, width=w - 3, height=15, rx=3, fill=edge)
        name_ink = who.ink(owner)
    else:
        name_ink = c["ink"]
    room = w - 10 - pc["box"]  # the name, squeezed to fit beside the produced good when it is long
    fit = {"textLength": room, "lengthAdjust": "spacingAndGlyphs"} if len(port["name"]) * pc["name_size"] * 0.68 > room else {}
    _text(g, x + 5, y + 13, port["name"], pc["name_size"], name_ink, **{"font-weight": "bold"}, **fit)
    box, gap, pip = pc["box"], pc["gap"], pc["pip"]
    good = port["produces"]
    # what the port produces: a cube in the card's top-right corner
    px, py = x + w - box - 3, y + 3
    prod = _el(g, "rect", x=px, y=py, width=box - 1, height=box - 1, rx=1.5, fill=board.layout["goods"].get(good, c["neutral"]),
               stroke=c["ink"], **{"stroke-width": 0.8, "data-kind": "produces"})
    _title(prod, f"{port['name']} produces {good}")
    if closed:
        _text(g, x + w / 2, y + 35, "closed", board.font["small"], c["ink"], **{"text-anchor": "middle", "font-style": "italic"})
        return
    # row 2: sailors, then fort, basilica and the wine side
    row = y + 19
    for k in range(port["sailors"]):
        s = _piece(g, "sailor", f"{pid}-sailor-{k + 1}", f"{who.word(owner) if owned else 'a'} sailor of {who.name(owner)} in {port['name']}")
        _el(s, "circle", cx=x + 8 + k * (2 * pip + 2), cy=row + pip + 1, r=pip, fill=edge, stroke=c["ink"], **{"stroke-width": 0.8})
    ix = x + w - 4
    if port.get("wine_side"):
        ix -= box
        s = _piece(g, "wine-side", pid, f"{port['name']}: its card shows the wine side")
        _el(s, "path", d=f"M{ix + 1},{row + 1} h{box - 3} l-{(box - 3) / 2},{box - 4} z", fill=c["wine_side"])
        _el(s, "line", x1=ix + (box - 1) / 2, y1=row + box - 3, x2=ix + (box - 1) / 2, y2=row + box, stroke=c["wine_side"])
    if port.get("basilica"):
        ix -= box + 1
        s = _piece(g, "basilica", pid, f"a basilica in {port['name']}")
        _el(s, "path", d=f"M{ix},{row + box} v-4 a{box / 2},{box / 2} 0 0 1 {box},0 v4 z", fill=c["basilica"], stroke=c["ink"], **{"stroke-width": 0.8})
    if port.get("fort"):
        ix -= box + 1
        s = _piece(g, "fort", pid, f"a fort in {port['name']}")
        _el(s, "path", d=f"M{ix},{row + box} v-{box - 1} h2.5 v2 h2 v-2 h2 v2 h2 v-2 h2.5 v{box - 1} z", fill=c["fort"], stroke=c["ink"], **{"stroke-width": 0.6})
    # row 3: the warehouse's spaces, each with its value, filled in order
    values = board.space_values.get(port["spaces"], [])
    cubes = port["warehouse"]
    top = y + h - box - 4
    for k in range(port["spaces"]):
        bx = x + 5 + k * (box + gap)
        if k < len(cubes):
            s = _piece(g, "cube", f"{pid}-warehouse-{k + 1}",
                       f"{cubes[k]} cube in {port['name']}'s warehouse" + (f", space worth {values[k]}" if k < len(values) else ""))
            _el(s, "rect", x=bx, y=top, width=box, height=box, rx=1.5, fill=board.layout["goods"].get(cubes[k], c["neutral"]),
                stroke=c["ink"], **{"stroke-width": 0.9})
        else:
            s = _el(g, "rect", x=bx, y=top, width=box, height=box, rx=1.5, fill=c["slot"], stroke=c["panel_edge"], **{"data-kind": "space"})
            _title(s, f"empty warehouse space of {port['name']}" + (f", worth {values[k]}" if k < len(values) else ""))


def _zone_of(board: _Board, galley: Mapping[str, Any]) -> str | None:
    zone = galley.get("zone")
    if isinstance(zone, str):
        return board.zone_by_name.get(zone, zone if zone in board.dock else None)
    return None


def _slot_at(board: _Board, zone: str, k: int) -> Point:
    return _slot_at_raw(board.layout, board.dock[zone], board.layout["zones"][zone], k)


def _slot_at_raw(layout: Mapping[str, Any], dock: Point, spec: Mapping[str, Any], k: int) -> Point:
    """Where the k-th galley of a zone lies: down the zone's stack, then in a new column."""
    gl = layout["galley"]
    (dx, dy), (wx, wy) = spec["stack"], spec.get("wrap", [gl["width"] + 4, 0])
    col, row = divmod(k, spec.get("rows", gl["wrap"]))
    return round(dock[0] + row * dx + col * wx, 1), round(dock[1] + row * dy + col * wy, 1)


def _zone_lines(name: str) -> list[str]:
    """A long zone name on two lines, split where the name itself pauses: "Sea of Sardinia" / "(open sea)"."""
    for mark in (" (", " / "):
        if mark in name and len(name) > 18:
            head, tail = name.split(mark, 1)
            return [head, mark.strip() + (" " if mark == " / " else "") + tail]
    return [name]


def _galleys(board: _Board, who: _Names, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> list[str]:
    galleys = view.get("galleys") or {}
    old = before.get("galleys") or {}
    active = view.get("active_galley") if isinstance(view.get("active_galley"), dict) else None
    parts: list[str] = []
    layer = ET.Element("g")  # wrecks and wakes: rare, drawn afresh
    berth: dict[str, int] = {}
    placed: dict[str, Point] = {}
    for number in sorted(galleys, key=lambda n: int(n) if str(n).isdigit() else 0):
        galley = galleys[number]
        zone = _zone_of(board, galley) if not _hidden(galley) else None
        if zone is None:
            continue
        k = berth.get(zone, 0)
        berth[zone] = k + 1
        placed[number] = _slot_at(board, zone, k)
        is_active = active is not None and str(active.get("galley")) == str(number)
        was_active = isinstance(before.get("active_galley"), dict) and str(before["active_galley"].get("galley")) == str(number)
        # the active galley's own step (loading, movement, battle) is part of what it shows
        now = (galley, active if is_active else None)
        then = (old.get(number), before.get("active_galley") if was_active else None)
        changed = stepped and now != then
        parts.append(_memo(board, ("galley", who.key, number, repr(galley), changed, placed[number], repr(active) if is_active else None),
                           lambda g, number=number, galley=galley, changed=changed, is_active=is_active:
                           _galley(g, board, who, str(number), galley, changed, placed[number], is_active, active)))
    if not stepped:
        return _layer("galleys", parts)
    for number, was in old.items():  # galleys gone since the last step: a wreck where they were
        if number in galleys or _hidden(was):
            continue
        zone = _zone_of(board, was)
        if zone is None:
            continue
        k = berth.get(zone, 0)
        berth[zone] = k + 1
        x, y = _slot_at(board, zone, k)
        gl = board.layout["galley"]
        wreck = _piece(layer, "wreck", str(number), f"galley {number} of {who.name(was.get('owner'))} sank or left play in {board.zone_name[zone]}", True)
        _halo(wreck, board, x, y, gl["width"], gl["height"])
        _el(wreck, "path", d=_hull(x, y, gl["width"], gl["height"]), fill="none", stroke=board.colours["neutral"],
            **{"stroke-width": 1.5, "stroke-dasharray": "4 3"})
        _text(wreck, x + gl["width"] / 2, y + gl["height"] - 4, f"galley {number} sunk", board.font["small"], board.colours["ink"], **{"text-anchor": "middle"})
    for number, galley in galleys.items():  # a galley that sailed: its wake from the zone it left
        was = old.get(number)
        if was is None or _hidden(was) or _hidden(galley) or was.get("zone") == galley.get("zone") or number not in placed:
            continue
        zone = _zone_of(board, was)
        if zone is None:
            continue
        (ax, ay), (bx, by) = board.dock[zone], placed[number]
        half_w, half_h = board.layout["galley"]["width"] / 2, board.layout["galley"]["height"] / 2
        wake = _el(layer, "line", x1=ax + half_w, y1=ay + half_h, x2=bx + half_w, y2=by + half_h, stroke=board.colours["highlight"],
                   class_="wake changed", **{"stroke-width": 2.5, "stroke-dasharray": "6 4", "data-kind": "wake", "data-id": str(number)})
        _title(wake, f"galley {number} sailed from {board.zone_name[zone]} to {galley.get('zone')}")
    parts += [_tostring(child) for child in layer]
    return _layer("galleys", parts)


def _hull(x: float, y: float, w: float, h: float) -> str:
    """A galley seen from the side: flat stern on the left, the bow pointing right."""
    return f"M{x},{y} h{w - 10} l10,{h * 0.35} l-8,{h * 0.65} h-{w - 6} l-2,-{h} z"


def _galley(layer: ET.Element, board: _Board, who: _Names, number: str, galley: Mapping[str, Any], changed: bool,
            at: Point, active: bool, activation: Mapping[str, Any] | None) -> None:
    c, gl = board.colours, board.layout["galley"]
    owner = galley.get("owner")
    sailors, goods = galley.get("sailors", 0), list(galley.get("goods", []))
    words = (f"galley {number} of {who.name(owner)} in {galley.get('zone')}: {_plural(sailors, 'sailor')}"
             + (f", {', '.join(goods)}" if goods else ", no goods"))
    if active and activation is not None:
        words += f"; active (black token): {activation.get('step', '')}"
        if activation.get("fighting"):
            words += f", fighting {activation['fighting']}"
    g = _el(layer, "g", class_="piece galley" + (" changed" if changed else "") + (" active" if active else ""), role="group",
            **{"aria-label": words, "data-kind": "galley", "data-id": number, "data-owner": owner})
    _title(g, words)
    x, y = at
    w, h, slot, num = gl["width"], gl["height"], gl["slot"], gl["number"]
    colour = who.colour(owner) if isinstance(owner, int) else c["neutral"]
    if changed:
        _halo(g, board, x, y, w, h)
    _el(g, "path", d=_hull(x, y, w, h), fill=colour, stroke=c["ink"], **{"stroke-width": 1})
    _text(g, x + num / 2, y + h / 2 + 4.5, number, board.font["small"], who.ink(owner) if isinstance(owner, int) else c["paper"],
          **{"text-anchor": "middle", "font-weight": "bold"})
    spaces = max(board.galley_spaces, sailors + len(goods))  # never fewer slots than what is aboard
    for k in range(spaces):
        sx, sy = x + num + k * slot, y + (h - slot + 2) / 2
        _el(g, "rect", x=round(sx, 1), y=round(sy, 1), width=slot - 2, height=slot - 2, rx=1.5, fill=c["slot"], stroke=c["ink"], **{"stroke-width": 0.5})
        if k < sailors:
            s = _piece(g, "sailor", f"galley-{number}-sailor-{k + 1}", f"{who.word(owner) if isinstance(owner, int) else ''} sailor of {who.name(owner)} on galley {number}")
            _el(s, "circle", cx=round(sx + (slot - 2) / 2, 1), cy=round(sy + (slot - 2) / 2, 1), r=(slot - 4) / 2, fill=colour, stroke=c["ink"], **{"stroke-width": 0.6})
        elif k - sailors < len(goods):
            good = goods[k - sailors]
            s = _piece(g, "cube", f"galley-{number}-{k - sailors + 1}", f"{good} cube on galley {number} of {who.name(owner)}")
            _el(s, "rect", x=round(sx + 1, 1), y=round(sy + 1, 1), width=slot - 4, height=slot - 4, rx=1,
                fill=board.layout["goods"].get(good, c["neutral"]), stroke=c["ink"], **{"stroke-width": 0.7})
    if active:
        token = _piece(g, "black-token", "map", f"black token: galley {number} is active")
        _el(token, "circle", cx=x + w + 4, cy=y + h / 2, r=6, fill=c["black_token"], stroke=c["paper"], **{"stroke-width": 1.5})


CHAR_EM = 0.56  # a DejaVu Sans letter, in ems, with room for wide ones (Chromium: 0.49 on average): a line's measure


def _heading(svg: ET.Element, board: _Board, who: _Names, view: Mapping[str, Any]) -> None:
    """The title box: the phase and turn, the active galley, whose decision it is."""
    c, hd, font = board.colours, board.layout["heading"], board.font
    x, y = hd["at"]
    lines = ["Serenissima"]
    phase, turn = view.get("phase", "before setup"), view.get("turn", 0)
    lines.append(f"Turn {turn}: {phase}" if turn else str(phase).capitalize())
    act = view.get("active_galley")
    if isinstance(act, dict):
        lines.append(f"Galley {act.get('galley')} ({who.name(act.get('owner'))}): {act.get('step', '')}")
    pending = view.get("pending") or {}
    if isinstance(pending, dict) and isinstance(pending.get("seat"), int):
        lines.append(f"Waiting for {who.name(pending['seat'])}")
    g = _el(svg, "g", role="group", **{"aria-label": "; ".join(lines), "data-kind": "heading"})
    _title(g, "; ".join(lines))
    # never clipped: a line longer than the box wraps at its spaces, and the box grows for a word wider than itself
    fits = max(8, int((hd["width"] - 14) / (font["small"] * CHAR_EM)))
    lines = lines[:1] + [part for line in lines[1:] for part in textwrap.wrap(line, fits, break_on_hyphens=False)
                         or [line]]
    width = max(hd["width"], 14 + max(len(line) for line in lines[1:]) * font["small"] * CHAR_EM)
    _el(g, "rect", x=x, y=y, width=round(width, 1), height=hd["line"] * len(lines) + 8, rx=5, fill=c["paper"],
        stroke=c["panel_edge"], **{"fill-opacity": 0.92})
    for k, line in enumerate(lines):
        _text(g, x + 7, y + hd["line"] * (k + 1), line, font["title"] if k == 0 else font["small"], c["ink"],
              **({"font-weight": "bold"} if k == 0 else {}))


def _track(svg: ET.Element, board: _Board, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> None:
    c, tr, font = board.colours, board.layout["track"], board.font
    doge = view.get("doge") or {}
    last = doge.get("last_space", 0)
    scoring = set(doge.get("scoring_spaces") or [])
    here = doge.get("track")
    was = (before.get("doge") or {}).get("track")
    words = f"turn track: the white token on space {here} of {last}, {_plural(doge.get('scorings', 0), 'scoring')} so far"
    g = _el(svg, "g", role="group", **{"aria-label": words, "data-kind": "track"})
    _title(g, words)
    lx, ly = tr["label"]
    _text(g, lx, ly, f"Turn track (scorings {doge.get('scorings', 0)})", font["small"], c["muted"])
    x0, y0 = tr["at"]
    sw, sh = tr["space"]
    for k in range(last + 1):
        x = x0 + k * sw
        space = _el(g, "rect", x=x, y=y0, width=sw - 2, height=sh, rx=3, fill=c["scoring_space"] if k in scoring else c["track"],
                    stroke=c["panel_edge"], **{"data-kind": "track-space", "data-id": k})
        _title(space, f"turn track space {k}" + (": scoring" if k in scoring else ""))
        _text(g, x + (sw - 2) / 2, y0 + sh - 5, str(k), font["small"], c["muted"], **{"text-anchor": "middle"})
    if isinstance(here, int) and 0 <= here <= last:
        changed = stepped and was != here
        token = _piece(g, "white-token", "track", f"white token on turn track space {here}", changed)
        x = x0 + here * sw + (sw - 2) / 2
        if changed:
            _halo(token, board, x - 9, y0 - 9, 18, 18, 8)
        _el(token, "circle", cx=x, cy=y0 + 1, r=8, fill=c["white_token"], stroke=c["ink"], **{"stroke-width": 1.5})


def _doge_words(board: _Board, card: str) -> tuple[int, str, str]:
    """A Doge card's hourglasses, the word on its face and its full words, from the edition's deck."""
    spec = board.doge_cards.get(card, {})
    advance = spec.get("advance", 0)
    effect = spec.get("effect", "none")
    full = f"Doge card: the white token moves {_plural(advance, 'space')}" if advance else "Doge card: the white token stays"
    if effect == "pay_wine":
        return advance, "Wine", full + "; each seat is paid for its ports with wine"
    if effect == "reshuffle_all":
        return advance, "shuffle", full + "; then all Doge cards are reshuffled"
    return advance, "", full


def _hourglass(parent: ET.Element, x: float, y: float, ink: str) -> None:
    _el(parent, "path", d=f"M{x},{y} h10 l-5,7 l5,7 h-10 l5,-7 z", fill="#d9b45a", stroke=ink, **{"stroke-width": 0.8})


def _wine_glass(parent: ET.Element, x: float, y: float, colour: str, ink: str) -> None:
    _el(parent, "path", d=f"M{x},{y} h12 q0,8 -6,9 v5 h4 v1.5 h-9.5 v-1.5 h4 v-5 q-6,-1 -6,-9 z", fill=colour, stroke=ink, **{"stroke-width": 0.8})


def _doge(svg: ET.Element, board: _Board, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> None:
    c, dg, font = board.colours, board.layout["doge"], board.font
    doge = view.get("doge") or {}
    old = before.get("doge") or {}
    words = f"Doge cards: {doge.get('face_down', 0)} face down, {len(doge.get('face_up') or [])} face up"
    g = _el(svg, "g", role="group", **{"aria-label": words, "data-kind": "doge"})
    _title(g, words)
    lx, ly = dg["label"]
    _text(g, lx, ly, "Doge cards", font["small"], c["muted"])
    x, y = dg["at"]
    cw, ch = dg["card"]
    down = doge.get("face_down", 0)
    deck_changed = stepped and old.get("face_down") != down
    deck = _piece(g, "doge-deck", "deck", f"Doge deck: {_plural(down, 'card')} face down" if not _hidden(down) else "Doge deck: hidden",
                  deck_changed, **{"data-count": down if isinstance(down, int) else "hidden"})
    if deck_changed:
        _halo(deck, board, x, y + 4, cw, ch)
    if isinstance(down, int) and down:
        for k in range(min(down, 3) - 1, -1, -1):
            _el(deck, "rect", x=x + 2 * k, y=y + 4 - 2 * k, width=cw, height=ch, rx=4, fill=c["card_back"], stroke=c["paper"])
        _text(deck, x + cw / 2, y + ch / 2 + 9, str(down), font["title"], c["paper"], **{"text-anchor": "middle", "font-weight": "bold"})
    else:
        _el(deck, "rect", x=x, y=y + 4, width=cw, height=ch, rx=4, fill="none", stroke=c["panel_edge"], **{"stroke-dasharray": "4 3"})
    up = doge.get("face_up") or []
    was_up = old.get("face_up") or []
    fx = x + cw + dg["deck_gap"]
    for k, card in enumerate(up):
        advance, word, full = _doge_words(board, card)
        newest = k == len(up) - 1
        changed = stepped and (k >= len(was_up) or was_up[k] != card)
        piece = _piece(g, "doge-card", f"{k + 1}-{card}", full + (" (the latest)" if newest else ""), changed)
        cx = fx + k * dg["fan"]
        if changed:
            _halo(piece, board, cx, y + 4, cw, ch)
        _el(piece, "rect", x=cx, y=y + 4, width=cw, height=ch, rx=4, fill=c["card_face"], stroke=c["ink"], **{"stroke-width": 1.2 if newest else 0.8})
        for n in range(advance):
            _hourglass(piece, cx + cw / 2 - 6 * advance + 12 * n + 1, y + 14, c["ink"])
        if word == "Wine":
            _wine_glass(piece, cx + cw / 2 - 6, y + 14, c["wine_side"], c["ink"])
        if word:
            _text(piece, cx + cw / 2, y + ch - 8, word, font["small"], c["ink"], **{"text-anchor": "middle"})


def _wheel(svg: ET.Element, board: _Board, who: _Names, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> None:
    """The wheel: the Doge space and one space per galley number; a cube of its owner's colour marks a galley in play."""
    c, wh, font = board.colours, board.layout["wheel"], board.font
    players = view.get("players") or 0
    count = board.galleys_in_play.get(players, 0)
    galleys = view.get("galleys") or {}
    old = before.get("galleys") or {}
    token = str(view.get("black_token", ""))
    at = int(token.split()[-1]) if token.startswith("galley ") and token.split()[-1].isdigit() else 0
    old_token = str(before.get("black_token", ""))
    words = f"the wheel: black token on {token or 'the Doge space'}"
    g = _el(svg, "g", role="group", **{"aria-label": words, "data-kind": "wheel"})
    _title(g, words)
    lx, ly = wh["label"]
    _text(g, lx, ly, "Wheel", font["small"], c["muted"], **{"text-anchor": "middle"})
    cx, cy = wh["centre"]
    r, sr = wh["radius"], wh["space"]
    _el(g, "circle", cx=cx, cy=cy, r=r, fill="none", stroke=c["panel_edge"], **{"stroke-width": 1})
    for k in range(count + 1):
        a = -math.pi / 2 + 2 * math.pi * k / (count + 1)
        x, y = round(cx + r * math.cos(a), 1), round(cy + r * math.sin(a), 1)
        galley = galleys.get(str(k)) if k else None
        if k == 0:
            space = _el(g, "circle", cx=x, cy=y, r=sr + 3, fill=c["card_back"], stroke=c["ink"], **{"data-kind": "wheel-space", "data-id": "doge"})
            _title(space, "the Doge space")
            _text(g, x, y + 4, "Doge", font["small"] - 2, c["paper"], **{"text-anchor": "middle"})
        else:
            space = _el(g, "circle", cx=x, cy=y, r=sr, fill=c["track"], stroke=c["panel_edge"], **{"data-kind": "wheel-space", "data-id": k})
            _title(space, f"wheel space {k}")
            if galley is not None and not _hidden(galley):
                owner = galley.get("owner")
                changed = stepped and (str(k) not in old or _hidden(old.get(str(k))) or old[str(k)].get("owner") != owner)
                cube = _piece(g, "galley-cube", str(k), f"{who.word(owner)} galley cube: galley {k} of {who.name(owner)} is in play", changed)
                if changed:
                    _halo(cube, board, x - sr, y - sr, 2 * sr, 2 * sr)
                _el(cube, "rect", x=x - sr + 2, y=y - sr + 2, width=2 * sr - 4, height=2 * sr - 4, rx=2, fill=who.colour(owner), stroke=c["ink"])
                _text(cube, x, y + 4, str(k), font["small"], who.ink(owner), **{"text-anchor": "middle", "font-weight": "bold"})
            else:
                _text(g, x, y + 4, str(k), font["small"], c["muted"], **{"text-anchor": "middle"})
        if k == at:
            changed = stepped and token != old_token
            piece = _piece(g, "black-token", "wheel", f"black token on {token or 'the Doge space'}", changed)
            ix, iy = round(cx + (r - sr - 12) * math.cos(a), 1), round(cy + (r - sr - 12) * math.sin(a), 1)
            if changed:
                _halo(piece, board, ix - 8, iy - 8, 16, 16, 8)
            _el(piece, "circle", cx=ix, cy=iy, r=7, fill=c["black_token"], stroke=c["paper"], **{"stroke-width": 1.5})


def _seats(board: _Board, who: _Names, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> str:
    seats = view.get("seats") or []
    old = before.get("seats") or []
    hidden_money = view.get("money") == "hidden"
    first = view.get("first_player")
    parts = []
    for i, seat in enumerate(seats):
        if _hidden(seat):
            continue
        changed = stepped and (i >= len(old) or old[i] != seat)
        parts.append(_memo(board, ("seat", who.key, i, repr(seat), changed, first, hidden_money),
                           lambda g, i=i, seat=seat, changed=changed: _seat(g, board, who, i, seat, changed, first, hidden_money)))
    return "".join(_layer("the players", parts))


def _seat(g: ET.Element, board: _Board, who: _Names, i: int, seat: Mapping[str, Any], changed: bool, first: Any, hidden_money: bool) -> None:
    """One seat's row: colour, name, purse (drawn hidden when the reader may not count it), sailors, ports, galleys."""
    c, sp, font = board.colours, board.layout["seats_panel"], board.font
    x0, y0 = sp["at"]
    w, row, sw = sp["width"], sp["row"], sp["swatch"]
    n = seat.get("seat", i)
    y = y0 + i * row
    ducats = seat.get("ducats")
    purse = "hidden" if _hidden(ducats) else f"{ducats} ducats"
    ports, galleys = seat.get("ports") or [], seat.get("galleys") or []
    words = (f"{who.name(n)} ({who.word(n)}): {purse}" + (f", {seat.get('announced_ducats')} announced" if hidden_money else "")
             + f", {_plural(seat.get('sailors_to_recruit', 0), 'sailor')} to recruit, "
             + (f"ports {', '.join(ports)}" if ports else "no port") + ", " + (f"galleys {', '.join(map(str, galleys))}" if galleys else "no galley"))
    if first == n:
        words += "; first player"
    row_g = _el(g, "g", class_="seat" + (" changed" if changed else ""), role="group", **{"aria-label": words, "data-kind": "seat", "data-id": n})
    _title(row_g, words)
    if changed:
        _halo(row_g, board, x0, y, w, row - 6)
    _el(row_g, "rect", x=x0, y=y, width=w, height=row - 6, rx=5, fill=c["panel"], stroke=c["panel_edge"])
    _el(row_g, "rect", x=x0 + 6, y=y + (row - 6 - sw) / 2, width=sw, height=sw, rx=4, fill=who.colour(n), stroke=c["ink"])
    if first == n:
        _text(row_g, x0 + 6 + sw / 2, y + (row - 6) / 2 + 4, "1st", font["small"] - 1, who.ink(n), **{"text-anchor": "middle", "font-weight": "bold"})
    _text(row_g, x0 + sw + 14, y + 16, who.name(n), font["size"], c["ink"], **{"font-weight": "bold"})
    line2 = f"{_plural(seat.get('sailors_to_recruit', 0), 'sailor')} to recruit · {_plural(len(ports), 'port')} · galleys {', '.join(map(str, galleys)) or 'none'}"
    _text(row_g, x0 + sw + 14, y + 32, line2, font["small"], c["muted"])
    # the purse, drawn hidden when the reader may not count it
    px, py = x0 + w - 110, y + 5
    purse_g = _piece(row_g, "ducats", str(n), f"{who.name(n)}'s ducats: " + ("hidden" if _hidden(ducats) else str(ducats)),
                     **{"data-hidden": "true" if _hidden(ducats) else "false"})
    _el(purse_g, "circle", cx=px + 10, cy=py + 10, r=10, fill=c["scoring_space"] if not _hidden(ducats) else c["closed"], stroke=c["ink"])
    _text(purse_g, px + 10, py + 14, "?" if _hidden(ducats) else "d", font["small"], c["ink"], **{"text-anchor": "middle", "font-weight": "bold"})
    if not _hidden(ducats):
        _text(purse_g, px + 25, py + 15, str(ducats), font["title"], c["ink"], **{"font-weight": "bold"})
    if hidden_money:
        _text(row_g, px, py + 30, f"announced {seat.get('announced_ducats')}", font["small"], c["muted"])


def _supply(svg: ET.Element, board: _Board, view: Mapping[str, Any], before: Mapping[str, Any], stepped: bool) -> None:
    c, su, font = board.colours, board.layout["supply"], board.font
    supply = view.get("goods_supply") or {}
    old = before.get("goods_supply") or {}
    g = _el(svg, "g", role="group", **{"aria-label": "goods in the supply", "data-kind": "supply"})
    _title(g, "goods in the supply: " + ", ".join(f"{n} {good}" for good, n in supply.items()))
    lx, ly = su["label"]
    _text(g, lx, ly, "Goods in the supply", font["small"], c["muted"])
    x0, y0 = su["at"]
    size = su["cube"]
    for k, good in enumerate(board.layout["goods"]):
        if good not in supply:
            continue
        n = supply[good]
        x = x0 + k * su["step"]
        changed = stepped and old.get(good) != n
        piece = _piece(g, "supply-cube", good, f"{good}: {n} cubes in the supply" if not _hidden(n) else f"{good}: hidden", changed,
                       **{"data-count": n if isinstance(n, int) else "hidden"})
        if changed:
            _halo(piece, board, x, y0, size + 26, size)
        _el(piece, "rect", x=x, y=y0, width=size, height=size, rx=2, fill=board.layout["goods"][good], stroke=c["ink"])
        _text(piece, x + size + 4, y0 + size - 3, "?" if _hidden(n) else str(n), font["size"], c["ink"])


def anchors(layout: Mapping[str, Any], edition: Edition, seats: int) -> dict[str, dict[str, Any]]:
    """Where a note's arrow or ring meets each port (its card) and sea zone (its label's dot), in viewBox units."""
    board = _board(layout, edition)
    pc = layout["port_card"]
    out: dict[str, dict[str, Any]] = {}
    for pid, (x, y) in board.card.items():
        out[pid] = {"x": round(x + pc["width"] / 2, 1), "y": round(y + pc["height"] / 2, 1),
                    "label": board.port_name.get(pid, pid)}
    for z, (x, y) in board.zone_label.items():
        out[z] = {"x": float(x), "y": float(y), "label": board.zone_name.get(z, z)}
    return out
