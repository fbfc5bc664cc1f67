"""Città-Stato drawn as SVG: the main board (VP, round, upgrade, Warfare and Form-of-Republic
tracks, the Present/Future cards, the Market, the Political Schemes) and one board per seat.

Every position, size and colour comes from `domain/citta_stato/layout.yaml`; this module only
decides what to draw from the reader's view. A value the view hides (`{"hidden": true}`, or
None for another seat's Republic card) is drawn face down, never guessed. Whatever differs
from the same reader's previous view carries the class `changed` and a bright outline, so a
player sees what the last event did.

A step must draw in a few milliseconds, so the printed board (every space, label and empty
slot, which depend only on the layout and the edition) is drawn once and kept as text; each
step draws only the pieces on top of it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.kernel import Edition
from domain.kernel.cache import Bounded
from replay_viewer.boards.svg import RAW, fitted
from replay_viewer.boards.svg import tostring as _tostring

SVG_NS = "http://www.w3.org/2000/svg"
_MISSING = object()

# What each upgrade track's value means, for the tooltips (the rulebook's names for the tracks).
_TRACK_MEANING = {"Y": ("Merchant Fleet", "coins"), "G": ("City Guilds", "cubes drawn"),
                  "O": ("War", "VP"), "P": ("Politics", "highest scheme level")}


def _hidden(value: Any) -> bool:
    return isinstance(value, dict) and value.get("hidden") is True


def _split(label: str | None) -> tuple[str, str]:
    """'Y3 Marseilles' -> ('Y3', 'Marseilles'): the view labels a card by its id and printed name."""
    if not label:
        return "", ""
    key, _, name = label.partition(" ")
    return key, name


def _wrap(text: str, width: int) -> list[str]:
    """At most two lines of about `width` characters, broken between words."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines if len(lines) <= 2 else [lines[0], " ".join(lines[1:])]


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _mix(colour: str, under: str, alpha: float) -> str | None:
    """`colour` at `alpha` over `under` as one opaque colour ("#rrggbb"), or None when either is not hex."""
    if not (len(colour) == len(under) == 7 and colour[0] == under[0] == "#"):
        return None
    try:
        top, bottom = (int(colour[k:k + 2], 16) for k in (1, 3, 5)), (int(under[k:k + 2], 16) for k in (1, 3, 5))
        return "#" + "".join(f"{round(alpha * a + (1 - alpha) * b):02x}" for a, b in zip(top, bottom, strict=True))
    except ValueError:
        return None


def _faded(shape: ET.Element, under: str, alpha: float) -> ET.Element:
    """A piece shown faded (none left): its fill and stroke mixed with the board under it, the picture
    `opacity` would give on that plain ground without an opacity layer for the browser to composite."""
    for attr in ("fill", "stroke"):
        value = shape.get(attr)
        if value in (None, "none"):
            continue
        mixed = _mix(value, under, alpha)
        if mixed is None:
            shape.set(f"{attr}-opacity", f"{alpha:g}")
        else:
            shape.set(attr, mixed)
    return shape


class _AttrNames(dict[str, str]):
    """Python keywords to SVG attributes, worked out once each: class_ -> class, font_size -> font-size."""

    def __missing__(self, key: str) -> str:
        name = self[key] = key.rstrip("_").replace("_", "-")
        return name


_ATTR = _AttrNames()


def _attrs(attrs: Mapping[str, Any]) -> dict[str, str]:
    return {_ATTR[k]: v if type(v) is str else str(v) if type(v) is int else f"{v:g}"
            for k, v in attrs.items() if v is not None}


def _add(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    el = ET.SubElement(parent, tag, _attrs(attrs))
    if text is not None:
        el.text = text
    return el


def _safe(get: Callable[[dict[str, Any]], Any], view: dict[str, Any]) -> Any:
    try:
        return get(view)
    except (KeyError, IndexError, TypeError, AttributeError, StopIteration):
        return _MISSING


class _Canvas:
    """What both layers share: the layout, the edition's numbers and the drawing helpers."""

    def __init__(self, layout: dict[str, Any], edition: Edition) -> None:
        self.lay, self.data = layout, edition.data
        self.colours: dict[str, dict[str, str]] = layout["colours"]
        self.font = layout["font"]
        self.ink: str = layout["ink"]
        self.faint: str = layout["faint"]
        self.empty: dict[str, str] = layout["empty"]
        self.pal: dict[str, Any] = layout["palette"]

    def group(self, parent: ET.Element, label: str, **attrs: Any) -> ET.Element:
        g = _add(parent, "g", role="group", aria_label=label, **attrs)
        _add(g, "title", label)
        return g

    def spot(self, parent: ET.Element, title: str) -> ET.Element:
        """A hoverable part of the printed board (a space, a label): a group with its tooltip."""
        g = _add(parent, "g")
        _add(g, "title", title)
        return g

    def text(self, parent: ET.Element, x: float, y: float, s: str, size: str = "size", fill: str | None = None,
             anchor: str | None = None, bold: bool = False) -> ET.Element:
        return _add(parent, "text", s, x=x, y=y, font_size=self.font[size], fill=fill, text_anchor=anchor,
                    font_weight="bold" if bold else None)

    def crown(self, parent: ET.Element, x: float, y: float, size: float) -> ET.Element:
        """A small crown glyph with its top-left corner at (x, y)."""
        c, h = self.lay["crown"], size * 0.7
        pts = [(0, h), (0, 0), (size * 0.25, h * 0.45), (size * 0.5, 0), (size * 0.75, h * 0.45), (size, 0), (size, h)]
        return _add(parent, "polygon", points=" ".join(f"{x + px:g},{y + py:g}" for px, py in pts),
                    fill=c["fill"], stroke=c["stroke"], stroke_width=0.8)

    def form_name(self, form: str | None) -> str:
        return self.lay["forms"][form]["name"] if form in self.lay["forms"] else "no form"

    def republic_text(self, rid: str) -> str:
        card = self.data["republic_cards"].get(rid)
        if not card:
            return rid
        crowns = card.get("crowns", 0)
        return self.form_name(card["form"]) + (f", {_plural(crowns, 'crown')}" if crowns else "")


def _rect_path(x: float, y: float, w: float, h: float, rx: float = 0) -> str:
    """A rectangle (with round corners of radius rx) as path data: the same outline a <rect> draws."""
    if not rx:
        return f"M{x:g},{y:g}H{x + w:g}V{y + h:g}H{x:g}Z"
    r = min(rx, w / 2, h / 2)
    arc = f"A{r:g},{r:g} 0 0 1 "
    return (f"M{x + r:g},{y:g}H{x + w - r:g}{arc}{x + w:g},{y + r:g}V{y + h - r:g}{arc}{x + w - r:g},{y + h:g}"
            f"H{x + r:g}{arc}{x:g},{y + h - r:g}V{y + r:g}{arc}{x + r:g},{y:g}Z")


class _Sheet:
    """Many printed shapes and labels of one look, drawn as one <path> per look and one <text> per
    type style (a <tspan> per label): the picture of as many <rect>s and <text>s, in a few
    elements, so a step's frame walks, lays out and paints far fewer nodes. Spaces do not overlap
    one another and labels and glyphs sit inside them, so drawing every space, then every label,
    then every glyph (a crown) changes nothing on screen."""

    def __init__(self) -> None:
        self.paths: dict[tuple[tuple[str, Any], ...], list[str]] = {}
        self.texts: dict[tuple[tuple[str, Any], ...], list[tuple[float, float, str]]] = {}
        self.glyphs: dict[tuple[tuple[str, Any], ...], list[str]] = {}

    def rect(self, x: float, y: float, w: float, h: float, rx: float = 0, **look: Any) -> None:
        self.paths.setdefault(tuple(look.items()), []).append(_rect_path(x, y, w, h, rx))

    def polygon(self, points: Sequence[tuple[float, float]], **look: Any) -> None:
        self.glyphs.setdefault(tuple(look.items()), []).append("M" + "L".join(f"{x:g},{y:g}" for x, y in points) + "Z")

    def text(self, x: float, y: float, s: str, **style: Any) -> None:
        self.texts.setdefault(tuple(style.items()), []).append((x, y, s))

    def draw(self, parent: ET.Element) -> None:
        for look, parts in self.paths.items():
            _add(parent, "path", d="".join(parts), **dict(look))
        for style, labels in self.texts.items():
            t = _add(parent, "text", **dict(style))
            for x, y, s in labels:
                _add(t, "tspan", s, x=x, y=y)
        for look, parts in self.glyphs.items():
            _add(parent, "path", d="".join(parts), **dict(look))


class _Printed(_Canvas):
    """The printed board: spaces, labels and empty slots, the same at every step of every game.

    Drawn as few elements (see _Sheet): each part is one group whose tooltip says what its spaces
    are, as their printed numbers do; what a space's number alone does not say (a player board
    track's meaning and rewards) is in its row's tooltip."""

    def sheet_text(self, sheet: _Sheet, x: float, y: float, s: str, size: str = "size", fill: str | None = None,
                   anchor: str | None = None, bold: bool = False) -> None:
        sheet.text(x, y, s, font_size=self.font[size], fill=fill, text_anchor=anchor, font_weight="bold" if bold else None)

    def sheet_crown(self, sheet: _Sheet, x: float, y: float, size: float) -> None:
        """The crown glyph of _Canvas.crown, into a sheet."""
        c, h = self.lay["crown"], size * 0.7
        pts = [(0, h), (0, 0), (size * 0.25, h * 0.45), (size * 0.5, 0), (size * 0.75, h * 0.45), (size, 0), (size, h)]
        sheet.polygon([(x + px, y + py) for px, py in pts], fill=c["fill"], stroke=c["stroke"], stroke_width=0.8)

    def main(self) -> str:
        root = ET.Element("g", _attrs({"class": "printed"}))
        b = self.lay["board"]
        _add(root, "rect", x=b["x"], y=b["y"], width=b["w"], height=b["h"], rx=8, fill=b["fill"], stroke=b["stroke"],
             stroke_width=2)
        self.vp_track(root)
        self.small_tracks(root)
        self.labels(root)
        self.market(root)
        self.warfare(root)
        self.republic_track(root)
        return _tostring(root)

    def vp_track(self, root: ET.Element) -> None:
        lay = self.lay["vp_track"]
        cw, ch = lay["cell"]
        every = int(self.data.get("vp_track_crown_every", 0) or 0)
        spaces = lay["spaces"]
        g = self.group(root, f"Victory point track: spaces {min(spaces)} to {max(spaces)}"
                       + (f", a crown mark on every {every}th" if every > 0 else ""))
        sheet = _Sheet()
        for v, (x, y) in spaces.items():
            sheet.rect(x, y, cw - 2, ch - 2, fill=self.empty["fill"], stroke=self.empty["stroke"])
            self.sheet_text(sheet, x + 3, y + 11, str(v), "small", fill=self.faint)
            if every > 0 and v > 0 and v % every == 0:
                self.sheet_crown(sheet, x + cw - 15, y + 3, 11)
        sheet.draw(g)

    def small_tracks(self, root: ET.Element) -> None:
        for key, label in (("round_track", "Round"), ("upgrade_track", "Upgrade")):
            lay = self.lay[key]
            spaces = lay["spaces"]
            g = self.group(root, f"{label} track: spaces {min(spaces)} to {max(spaces)}")
            self.text(g, *lay["label"], label, bold=True)
            cw, ch = lay["cell"]
            sheet = _Sheet()
            for n, (x, y) in spaces.items():
                sheet.rect(x, y, cw, ch, 3, fill=self.empty["fill"], stroke=self.empty["stroke"])
                self.sheet_text(sheet, x + cw / 2, y + ch / 2 + 4, str(n), anchor="middle")
            sheet.draw(g)

    def labels(self, root: ET.Element) -> None:
        d, s, w = self.lay["decks"], self.lay["supplies"], self.lay["warfare"]
        sheet = _Sheet()
        for (x, y), label in (((d["label"][0], d["future_y"] + 20), "Future"), ((d["label"][0], d["present_y"] + 20), "Present"),
                              (tuple(self.lay["market"]["label"]), "Market"), (tuple(w["label"]), "War"),
                              (tuple(self.lay["schemes"]["label"]), "Political Schemes"),
                              (tuple(self.lay["republic_track"]["label"]), "Form of Republic")):
            self.sheet_text(sheet, x, y, label, "small" if label in ("Future", "Present") else "size", bold=True)
        for key, label in (("reserve", "Reserve"), ("box", "Box"), ("pool", "Swap pool")):
            x, y = s[key]
            self.sheet_text(sheet, x, y + s["cube"] - 3, label, "small", bold=True)
        sheet.draw(root)

    def market(self, root: ET.Element) -> None:
        lay = self.lay["market"]
        costs = list(self.data["market"]["row_costs"])
        columns = self.lay["decks"]["columns"]
        g = self.group(root, "Market spaces: a column per colour (" + ", ".join(self.colours[c]["name"] for c in columns)
                       + "), a row per cost (" + ", ".join(f"{c} coins" for c in costs) + ")")
        cw, ch = lay["cell"]
        sheet = _Sheet()
        for r, y in lay["rows"].items():
            cost = costs[r - 1] if r - 1 < len(costs) else "?"
            coin = self.spot(g, f"Market row costing {cost} coins")
            _add(coin, "circle", cx=lay["cost_x"] + 30, cy=y + ch / 2, r=lay["coin"], fill=self.lay["crown"]["fill"],
                 stroke=self.lay["crown"]["stroke"])
            self.text(coin, lay["cost_x"] + 30, y + ch / 2 + 4, str(cost), anchor="middle", bold=True)
            for x in columns.values():
                sheet.rect(x, y, cw, ch, 3, fill=self.empty["fill"], stroke=self.empty["stroke"])
        sheet.draw(g)

    def warfare(self, root: ET.Element) -> None:
        lay = self.lay["warfare"]
        spaces = lay["spaces"]
        g = self.group(root, f"Warfare spaces {min(spaces)} to {max(spaces)}")
        w, h = lay["cell"]
        sheet = _Sheet()
        for k, (x, y) in spaces.items():
            sheet.rect(x, y, w, h, 3, fill=self.empty["fill"], stroke=self.empty["stroke"])
            self.sheet_text(sheet, x + 4, y + 12, str(k), "small", fill=self.faint)
        sheet.draw(g)

    def republic_track(self, root: ET.Element) -> None:
        lay = self.lay["republic_track"]
        rt = self.data["republic_track"]
        crowns = list(rt["crowns"])
        forms = {f: (lo, hi) for f, (lo, hi) in rt["forms"].items()}
        w, h = lay["cell"]
        spaces = lay["spaces"]
        above = "; ".join(f"{s}: {_plural(crowns[s - 1], 'crown')}" for s in spaces if 0 < s <= len(crowns) and crowns[s - 1])
        g = self.group(root, f"Form of Republic spaces {min(spaces)} to {max(spaces)}" + (f"; crowns above {above}" if above else ""))
        sheet = _Sheet()
        for s, (x, y) in spaces.items():
            f = next((f for f, (lo, hi) in forms.items() if lo <= s <= hi), None)
            n = crowns[s - 1] if s - 1 < len(crowns) else 0
            sheet.rect(x, y, w, h, 3, fill=self.lay["forms"][f]["fill"] if f in self.lay["forms"] else self.empty["fill"],
                       stroke=self.pal["frame"])
            self.sheet_text(sheet, x + 4, y + 12, str(s), "small", fill=self.faint)
            for k in range(n):
                self.sheet_crown(sheet, x + w - 16 - k * 14, y + 3, 12)
        sheet.draw(g)
        for f, (lo, hi) in forms.items():
            if lo not in spaces or hi not in spaces:
                continue
            x0, x1, y = spaces[lo][0], spaces[hi][0] + w, spaces[lo][1] + h + 2
            band = self.spot(g, f"{self.form_name(f)}: spaces {lo} to {hi}")
            _add(band, "rect", x=x0, y=y, width=x1 - x0, height=lay["band"], rx=3, fill=self.lay["forms"][f]["fill"],
                 stroke=self.pal["frame"])
            self.text(band, (x0 + x1) / 2, y + lay["band"] - 5, self.form_name(f), "small", anchor="middle", bold=True)

    def seat(self) -> str:
        """The spaces and slots of one player board, drawn at (0, 0): the same for every seat."""
        pb = self.lay["player_board"]
        root = ET.Element("g", _attrs({"class": "printed"}))
        cw, ch = pb["tracks"]["cell"]
        for t, y in pb["tracks"]["rows"].items():
            col = self.colours[t]
            meaning, unit = _TRACK_MEANING.get(t, (col["name"], ""))
            values = list(self.data["tracks"][t]["values"])
            rewards = self.data["tracks"][t].get("rewards", {})
            spaces = [space for space in pb["tracks"]["x"] if space <= len(values)]
            said = ", ".join(f"{space}: {values[space - 1]}" for space in spaces)
            paid = "; ".join(f"space {space} {', '.join(f'{what} {c}' for what, c in rewards[space])}"
                             for space in spaces if rewards.get(space))
            row = self.spot(root, f"{col['name']} track ({meaning}), {unit} by space: {said}" + (f"; rewards: {paid}" if paid else ""))
            _add(row, "rect", x=6, y=y + 2, width=12, height=ch - 4, rx=2, fill=col["fill"], stroke=self.pal["outline"])
            sheet = _Sheet()
            for space in spaces:
                x = pb["tracks"]["x"][space]
                sheet.rect(x, y, cw, ch, 2, fill=col["tint"], stroke=self.pal["frame"])
                self.sheet_text(sheet, x + cw / 2, y + ch - 4, str(values[space - 1]), "small", anchor="middle")
            sheet.draw(row)
        sheet = _Sheet()
        self.sheet_text(sheet, *pb["war_discs"]["label"], "War", "small", bold=True)
        self.sheet_text(sheet, *pb["burned"]["label"], "Burned", "small", bold=True)
        sw, sh = pb["burned"]["slot"]
        for c, (x, y) in pb["burned"]["at"].items():
            for k in range(int(self.data.get("burn_limit", 3))):
                sheet.rect(x + k * (sw + 1), y, sw, sh, 1, fill=self.colours[c]["tint"], stroke=self.empty["stroke"], stroke_width=0.7)
        x, y = pb["used_cards"]
        self.sheet_text(sheet, x + 24, y + 15, "used", "small")
        sheet.draw(root)
        return _tostring(root)


_PRINTED: dict[tuple[int, str], tuple[dict[str, Any], str, str]] = {}
# 1 to 10 kB each: recent steps of a few records (Bounded locks: the service draws from several threads)
_SECTIONS: Bounded[tuple[Any, ...], tuple[dict[str, Any], str]] = Bounded("board-sections", 4096)


def _printed(layout: dict[str, Any], edition: Edition) -> tuple[str, str]:
    """The printed main board and player board as SVG text, drawn once per layout and edition."""
    key = (id(layout), edition.content_hash)
    found = _PRINTED.get(key)
    if found is None or found[0] is not layout:
        p = _Printed(layout, edition)
        found = _PRINTED[key] = (layout, p.main(), p.seat())
    return found[1], found[2]


class _Board(_Canvas):
    """One step: the reader's view drawn over the printed board."""

    def __init__(self, view: dict[str, Any], previous: dict[str, Any] | None, layout: dict[str, Any],
                 edition: Edition, names: Sequence[str]) -> None:
        super().__init__(layout, edition)
        self.view, self.previous, self.names = view, previous, names
        self.edition_hash = edition.content_hash
        self.names_key = tuple(names)
        self.seats: list[dict[str, Any]] = [s for s in view.get("seats") or [] if isinstance(s, dict)]
        pending = view.get("pending")
        self.pending: dict[str, Any] = pending if isinstance(pending, dict) else {}
        self.printed_main, self.printed_seat = _printed(layout, edition)
        vb = layout["viewBox"]
        summary = self.summary()
        self.root = ET.Element("svg", _attrs({
            "xmlns": SVG_NS, "viewBox": " ".join(str(v) for v in vb), "role": "img", "aria-label": summary,
            "class": "board board-citta-stato", "font-family": self.font["family"], "font-size": self.font["size"],
            "fill": self.ink,
        }))
        _add(self.root, "title", summary)
        _add(self.root, "rect", x=vb[0], y=vb[1], width=vb[2], height=vb[3], fill=layout["paper"])
        _add(self.root, RAW, self.printed_main)

    # ---- helpers -------------------------------------------------------------------------

    def changed(self, get: Callable[[dict[str, Any]], Any]) -> bool:
        """Does the part `get` reads differ from the previous step's view? (Never at step 0.)"""
        if self.previous is None:
            return False
        return bool(_safe(get, self.view) != _safe(get, self.previous))

    def piece(self, parent: ET.Element, kind: str, ident: str, title: str, changed: bool = False,
              **data: Any) -> ET.Element:
        """A hoverable thing: a group with a tooltip, a kind and an id (tests count them by these)."""
        g = _add(parent, "g", class_=f"piece {kind} changed" if changed else f"piece {kind}", data_kind=kind,
                 data_id=ident, **{f"data_{k}": v for k, v in data.items()})
        _add(g, "title", title)
        return g

    def outline(self, shape: ET.Element, changed: bool) -> ET.Element:
        """The highlight on the main shape of a changed piece: a thick bright stroke."""
        if changed:
            hl = self.lay["highlight"]
            shape.set("stroke", hl["stroke"])
            shape.set("stroke-width", str(hl["width"]))
        return shape

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.seats) and self.seats[seat].get("role") == "Ghost":
            return "the Ghost"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return str(self.names[seat])
        return f"Seat {seat + 1}"

    def seat_colour(self, seat: int) -> tuple[str, str]:
        found = self.lay["ghost"]
        if not (0 <= seat < len(self.seats) and self.seats[seat].get("role") == "Ghost"):
            found = self.lay["seats"].get(seat, found)
        return found["colour"], found["ink"]

    def summary(self) -> str:
        v = self.view
        who = ", ".join(f"{self.name(i)} {s.get('vp')} VP" for i, s in enumerate(self.seats))
        return f"Città-Stato board, round {v.get('round')}, {v.get('phase')}" + (f": {who}" if who else "")

    # ---- the main board ------------------------------------------------------------------

    def svg(self) -> str:
        self.vp_markers()
        self.round_and_upgrade()
        self.status()
        self.section("decks", lambda v: (v["future"], v["present"], v["deck_sizes"], v["discards"]), self.decks)
        self.section("market", lambda v: v["market"], self.market)
        self.section("warfare", lambda v: (v["warfare"], [s.get("role") for s in v["seats"]]), self.warfare)
        self.section("schemes", lambda v: v["schemes"], self.schemes)
        self.form_markers()
        self.section("supplies", lambda v: (v["reserve"], v["box"], v["republic_pool"]), self.supplies)
        self.legend()
        for i, s in enumerate(self.seats):
            self.player_board(i, s)
        if isinstance(self.view.get("solo"), dict):
            self.solo_panel(self.view["solo"])
        return _tostring(self.root)

    def vp_markers(self) -> None:
        lay = self.lay["vp_track"]
        g = self.group(self.root, "Victory point markers")
        cw, ch = lay["cell"]
        spaces = lay["spaces"]
        lo, hi = min(spaces), max(spaces)
        at: dict[int, list[int]] = {}
        for i, s in enumerate(self.seats):
            vp = s.get("vp")
            if isinstance(vp, int):
                at.setdefault(lo if vp < lo else lo + (vp - lo) % (hi - lo + 1), []).append(i)
        r = lay["marker"]
        for space, seats in at.items():
            x, y = spaces[space]
            for k, i in enumerate(seats):
                vp = self.seats[i]["vp"]
                colour, _ = self.seat_colour(i)
                lap = "" if lo <= vp <= hi else f" (past the printed track: the marker stands on {space})"
                changed = self.changed(lambda v, i=i: v["seats"][i]["vp"])
                m = self.piece(g, "vp-marker", f"vp-{i}", f"{self.name(i)}: {vp} VP{lap}", changed, seat=i, value=vp)
                cx = x + (cw - 2) / 2 + (k - (len(seats) - 1) / 2) * (2 * r + 0.5)
                self.outline(_add(m, "circle", cx=cx, cy=y + ch - r - 4, r=r, fill=colour, stroke=self.pal["outline"],
                                  stroke_width=0.8), changed)

    def round_and_upgrade(self) -> None:
        rounds = self.data.get("rounds")
        for key, unit in (("round_track", "round"), ("upgrade_track", "upgrade")):
            lay = self.lay[key]
            value = self.view.get(unit)
            if unit == "round" and isinstance(value, int) and isinstance(rounds, int) and value > rounds:
                value, title = rounds, f"The game ended after round {rounds}"  # the view counts one round past the last
            elif unit == "round":
                title = f"Round {value} of {rounds}"
            else:
                title = f"Upgrade marker on {value}: an upgrade now moves {value} steps"
            if value not in lay["spaces"]:
                continue
            cw, ch = lay["cell"]
            x, y = lay["spaces"][value]
            changed = self.changed(lambda v, unit=unit: v[unit])
            m = self.piece(self.root, f"{unit}-marker", unit, title, changed, value=value)
            self.outline(_add(m, "rect", x=x, y=y, width=cw, height=ch, rx=3, fill=self.ink, stroke=self.ink), changed)
            self.text(m, x + cw / 2, y + ch / 2 + 4, str(value), fill=self.lay["paper"], anchor="middle", bold=True)

    def status(self) -> None:
        p, phase = self.pending, self.view.get("phase")
        if p.get("kind") == "game-over" or phase == "over":
            line = "Game over"
        elif phase == "setup" or not self.seats:
            line = "Setting up"
        elif p.get("seat") is None:
            line = "The rules settle the next steps"
        elif p.get("kind") == "turn":
            line = f"{self.name(p['seat'])} to play, action {p.get('action')}"
        else:
            line = f"{self.name(p['seat'])} to decide: {str(p.get('kind', '')).replace('-', ' ')}"
        g = self.group(self.root, "Whose turn")
        self.text(g, *self.lay["status"], line, "large", bold=True)

    def card(self, parent: ET.Element, ident: str, title: str, colour: str, x: float, y: float, label: str | None,
             role: str, changed: bool, note: str = "") -> None:
        w, h = self.lay["decks"]["card"]
        col = self.colours[colour]
        key, name = _split(label)
        g = self.piece(parent, "card", ident, title, changed, colour=colour, card=key or None)
        if not label:
            self.outline(_add(g, "rect", x=x, y=y, width=w, height=h, rx=4, fill="none", stroke=self.empty["stroke"],
                              stroke_dasharray="4 3"), changed)
            self.text(g, x + w / 2, y + h / 2 + 4, f"no {role} card", "small", fill=self.faint, anchor="middle")
            return
        self.outline(_add(g, "rect", x=x, y=y, width=w, height=h, rx=4, fill=col["tint"], stroke=self.pal["frame"]), changed)
        _add(g, "rect", x=x + 1, y=y + 1, width=w - 2, height=15, rx=3, fill=col["fill"])
        self.text(g, x + 5, y + 12, key, "small", fill=col["ink"], bold=True)
        self.text(g, x + w - 5, y + 12, note or role, "small", fill=col["ink"], anchor="end")
        for k, line in enumerate(_wrap(name, 16)):
            self.text(g, x + 5, y + 29 + k * 13, line)

    def decks(self) -> None:
        lay = self.lay["decks"]
        g = self.group(self.root, "Action cards: the Present and Future card of each colour")
        v = self.view
        sizes = v.get("deck_sizes") if isinstance(v.get("deck_sizes"), dict) else {}
        discards = v.get("discards") if isinstance(v.get("discards"), dict) else {}
        future = v.get("future") if isinstance(v.get("future"), dict) else {}
        present = v.get("present") if isinstance(v.get("present"), dict) else {}
        h = lay["card"][1]
        for c, x in lay["columns"].items():
            cname = self.colours[c]["name"]
            size, fut, pres = sizes.get(c, 0), future.get(c), present.get(c)
            self.card(g, f"future-{c}", f"Future {cname} card (top of the {cname} deck, {_plural(size, 'card')} left): "
                      f"{fut or 'none'}", c, x, lay["future_y"], fut, "future",
                      self.changed(lambda v, c=c: (v["future"][c], v["deck_sizes"][c])), note=f"deck {size}")
            self.card(g, f"present-{c}", f"Present {cname} card: {pres or 'none'}", c, x, lay["present_y"], pres,
                      "present", self.changed(lambda v, c=c: v["present"][c]))
            gone = discards.get(c)
            if isinstance(gone, list) and gone:
                t = self.spot(g, f"Discarded {cname} cards: " + ", ".join(gone))
                self.text(t, x + 2, lay["present_y"] + h + 12, f"{len(gone)} discarded", "small", fill=self.faint)

    def market(self) -> None:
        """The cubes in the Market; a space whose cube came or went is outlined even when empty now."""
        lay = self.lay["market"]
        g = self.group(self.root, "Market")
        costs = list(self.data["market"]["row_costs"])
        rows = self.view.get("market") if isinstance(self.view.get("market"), list) else []
        cw, ch = lay["cell"]
        cube = lay["cube"]
        for r, y in lay["rows"].items():
            row = rows[r - 1] if r - 1 < len(rows) and isinstance(rows[r - 1], dict) else {}
            cost = row.get("cost", costs[r - 1] if r - 1 < len(costs) else "?")
            cubes = row.get("cubes") if isinstance(row.get("cubes"), list) else []
            for c, x in self.lay["decks"]["columns"].items():
                cname = self.colours[c]["name"]
                has = c in cubes
                changed = self.changed(lambda v, r=r, c=c: c in v["market"][r - 1]["cubes"])
                if changed:
                    space = self.piece(g, "market-space", f"market-space-{c}-{r}", f"Market, {cname} column, row costing "
                                       f"{cost}: " + (f"a {cname} cube came" if has else "its cube went"), True, colour=c, row=r)
                    self.outline(_add(space, "rect", x=x, y=y, width=cw, height=ch, rx=3, fill="none"), True)
                if has:
                    m = self.piece(g, "cube", f"market-{c}-{r}", f"{cname} cube in the Market, row costing {cost}",
                                   changed, colour=c, row=r)
                    self.outline(_add(m, "rect", x=x + (cw - cube) / 2, y=y + (ch - cube) / 2, width=cube, height=cube,
                                      rx=2, fill=self.colours[c]["fill"], stroke=self.pal["outline"]), changed)

    def warfare(self) -> None:
        lay = self.lay["warfare"]
        g = self.group(self.root, "Warfare track")
        entries = self.view.get("warfare") if isinstance(self.view.get("warfare"), list) else []
        w, h = lay["cell"]
        for k, (x, y) in lay["spaces"].items():
            if k - 1 >= len(entries) or not isinstance(entries[k - 1], dict):
                continue
            e = entries[k - 1]
            seat, value = e.get("seat"), e.get("value")
            shown = isinstance(value, int)
            colour, ink = self.seat_colour(seat if isinstance(seat, int) else -1)
            who = self.name(seat) if isinstance(seat, int) else "someone"
            changed = self.changed(lambda v, k=k: v["warfare"][k - 1])
            d = self.piece(g, "war-disc", f"warfare-{k}",
                           f"{who}'s war disc on Warfare space {k}: " + (f"value {value}" if shown else "face down"),
                           changed, seat=seat, value=value if shown else None)
            self.outline(_add(d, "circle", cx=x + w / 2 + 6, cy=y + h / 2, r=h / 2 - 3, fill=colour, stroke=self.pal["outline"]), changed)
            self.text(d, x + w / 2 + 6, y + h / 2 + 5, str(value) if shown else "?", "large", fill=ink, anchor="middle",
                      bold=True)

    def schemes(self) -> None:
        lay = self.lay["schemes"]
        g = self.group(self.root, "Political Schemes")
        schemes = {s.get("slot"): s for s in self.view.get("schemes") or [] if isinstance(s, dict)}
        w, h = lay["card"]
        known = self.data["schemes"]
        shift_from = self.data.get("scheme_shift_from_level", 99)
        fd = self.lay["face_down"]
        for slot, (x, y) in lay["slots"].items():
            s = schemes.get(slot)
            if s is None:
                cell = self.spot(g, f"Political Scheme slot, level {slot}: empty")
                _add(cell, "rect", x=x, y=y, width=w, height=h, rx=4, fill="none", stroke=self.empty["stroke"],
                     stroke_dasharray="4 3")
                self.text(cell, x + 6, y + 16, f"Level {slot}", "small", fill=self.faint)
                continue
            key, name = _split(s.get("scheme"))
            up = bool(s.get("face_up"))
            info = known.get(key, {})
            seal = info.get("seal", "")
            shift = f", shifts every Form marker {info.get('shift')}" if info and slot >= shift_from else ""
            changed = self.changed(lambda v, slot=slot: next(x for x in v["schemes"] if x["slot"] == slot))
            card = self.piece(g, "scheme", f"scheme-{slot}", f"Level {slot} Political Scheme: {s.get('scheme')} "
                              f"({seal} seal{shift}), " + ("face up" if up else "face down: used or removed this round"),
                              changed, slot=slot, face_up="true" if up else "false")
            self.outline(_add(card, "rect", x=x, y=y, width=w, height=h, rx=4, fill=self.pal["card"] if up else fd["fill"],
                              stroke=self.pal["frame"]), changed)
            ink = self.ink if up else fd["ink"]
            self.text(card, x + 6, y + 15, f"Level {slot}" + ("" if up else " · face down"), "small", fill=ink, bold=True)
            if seal:
                _add(card, "circle", cx=x + w - 12, cy=y + 11, r=6, fill=self.pal["seals"].get(seal, self.pal["outline"]),
                     stroke=self.pal["outline"], stroke_width=0.6)
            self.text(card, x + 6, y + 33, f"{key} {name}", fill=ink)

    def form_markers(self) -> None:
        lay = self.lay["republic_track"]
        g = self.group(self.root, "Form of Republic markers")
        w, h = lay["cell"]
        spaces = lay["spaces"]
        at: dict[int, list[int]] = {}
        for i, s in enumerate(self.seats):
            form = s.get("form")
            space = form.get("space") if isinstance(form, dict) else None
            if space in spaces:
                at.setdefault(space, []).append(i)
        m = lay["marker"]
        for space, seats in at.items():
            x, y = spaces[space]
            for k, i in enumerate(seats):
                colour, _ = self.seat_colour(i)
                form = self.seats[i]["form"].get("name")
                changed = self.changed(lambda v, i=i: v["seats"][i]["form"]["space"])
                p = self.piece(g, "form-marker", f"form-{i}", f"{self.name(i)}'s Form of Republic cube: space {space}"
                               f" ({self.form_name(form)})", changed, seat=i, value=space)
                cx = x + w / 2 + (k - (len(seats) - 1) / 2) * (m + 1)
                self.outline(_add(p, "rect", x=cx - m / 2, y=y + h - m - 5, width=m, height=m, fill=colour, stroke=self.pal["outline"]),
                             changed)

    def supplies(self) -> None:
        lay = self.lay["supplies"]
        g = self.group(self.root, "General supply, box and Republic swap pool")
        size, step = lay["cube"], lay["step"]
        for key, label in (("reserve", "reserve"), ("box", "box")):
            counts = self.view.get(key) if isinstance(self.view.get(key), dict) else {}
            x, y = lay[key]
            for k, c in enumerate(self.colours):
                n = counts.get(c, 0)
                changed = self.changed(lambda v, key=key, c=c: v[key][c])
                cx = x + lay["indent"] + k * step
                p = self.piece(g, f"{key}-stack", f"{key}-{c}", f"{_plural(n, self.colours[c]['name'] + ' cube')} in the "
                               f"{label}", changed, colour=c, count=n)
                cube = self.outline(_add(p, "rect", x=cx, y=y, width=size, height=size, rx=2, fill=self.colours[c]["fill"],
                                         stroke=self.pal["outline"]), changed)
                if not n:
                    _faded(cube, self.lay["board"]["fill"], 0.35)
                self.text(p, cx + size + 3, y + size - 3, str(n), "small")
        pool = self.view.get("republic_pool")
        x, y = lay["pool"]
        pw, ph = lay["pool_card"]
        fd = self.lay["face_down"]
        changed = self.changed(lambda v: v["republic_pool"])
        cards: list[str | None] = list(pool) if isinstance(pool, list) else [None] * pool if isinstance(pool, int) else [None]
        for k, rid in enumerate(cards):
            cx = x + lay["indent"] + k * (pw + 4)
            if rid is not None:
                title = f"Republic card {rid} in the swap pool ({self.republic_text(rid)})"
            elif isinstance(pool, int):
                title = "Republic card in the swap pool, face down"
            else:
                title = "Republic swap pool: hidden"
            p = self.piece(g, "republic-card", f"pool-{k}", title, changed, card=rid)
            self.outline(_add(p, "rect", x=cx, y=y - 2, width=pw, height=ph, rx=3,
                              fill=fd["fill"] if rid is None else self.pal["card"], stroke=self.pal["outline"]), changed)
            self.text(p, cx + pw / 2, y + ph / 2 + 3, rid or "?", "small", fill=fd["ink"] if rid is None else self.ink, anchor="middle")

    def legend(self) -> None:
        if not self.seats:
            return
        g = self.group(self.root, "Players and their colours")
        x, y = self.lay["legend"]
        for i, s in enumerate(self.seats):
            colour, _ = self.seat_colour(i)
            label = f"{self.name(i)} {s.get('vp')} VP"
            item = self.spot(g, f"{self.name(i)}: {s.get('vp')} VP")
            _add(item, "circle", cx=x + 6, cy=y - 4, r=6, fill=colour, stroke=self.pal["outline"])
            self.text(item, x + 16, y, label)
            x += 34 + 7 * len(label)

    # ---- one seat's board ----------------------------------------------------------------

    def player_board(self, i: int, s: dict[str, Any]) -> None:
        seat_lay = self.lay["seats"].get(i)
        if seat_lay is None:
            return

        def shown(v: dict[str, Any]) -> Any:
            """Everything of the view the seat's board shows."""
            return v["seats"][i], v["pending"]["seat"] == i, v["first_player"] == i, v["phase"] == "over"

        self.section(f"seat-{i}", shown, lambda: self.draw_player_board(self.root, i, s, seat_lay))

    def section(self, name: str, get: Callable[[dict[str, Any]], Any], build: Callable[[], None],
                parent: ET.Element | None = None) -> None:
        """Draw a part of the board once per (what it shows, what it showed a step before) and keep
        the text: replaying step by step, most parts do not change from one step to the next."""
        now = _safe(get, self.view)
        before = _safe(get, self.previous) if self.previous is not None else now
        key = (id(self.lay), self.edition_hash, self.names_key, name, repr(now), "same" if before == now else repr(before))
        found = _SECTIONS.get(key)
        if found is None or found[0] is not self.lay:
            root, self.root = self.root, ET.Element("g")
            try:
                build()
                found = (self.lay, "".join(_tostring(el) for el in self.root))
            finally:
                self.root = root
            _SECTIONS.put(key, found)
        _add(self.root if parent is None else parent, RAW, found[1])

    def draw_player_board(self, root: ET.Element, i: int, s: dict[str, Any], seat_lay: dict[str, Any]) -> None:
        pb = self.lay["player_board"]
        name = self.name(i)
        colour, ink = self.seat_colour(i)
        g = self.group(root, f"{name}'s board", transform=f"translate({seat_lay['at'][0]},{seat_lay['at'][1]})",
                       class_="player-board", data_seat=i)
        w, h = pb["size"]
        to_play = self.pending.get("seat") == i
        _add(g, "rect", x=0, y=0, width=w, height=h, rx=6, fill=pb["fill"], stroke=colour, stroke_width=4 if to_play else 1.5)
        _add(g, "rect", x=0, y=0, width=w, height=pb["header"], rx=6, fill=colour)
        _add(g, RAW, self.printed_seat)
        # the name in the room its header leaves: up to the first player's mark, else up to the VP box
        first_here = self.view.get("first_player") == i
        right = pb["first_player"][0] - 16 if first_here else pb["vp"][0] - pb["vp_box"][0]
        shown = fitted(("▶ " if to_play else "") + name, right - pb["name"][0], self.font["large"], bold=True)
        self.text(g, *pb["name"], shown, "large", fill=ink, bold=True)
        changed = self.changed(lambda v: v["seats"][i]["vp"])
        vp = self.piece(g, "vp", f"vp-total-{i}", f"{name}: {s.get('vp')} VP", changed, seat=i, value=s.get("vp"))
        self.outline(_add(vp, "rect", x=pb["vp"][0] - pb["vp_box"][0] + 4, y=3, width=pb["vp_box"][0], height=pb["vp_box"][1], rx=3, fill=colour, stroke=colour), changed)
        self.text(vp, *pb["vp"], f"{s.get('vp')} VP", "large", fill=ink, anchor="end", bold=True)
        city = s.get("city")
        notes = [_split(city)[1] if isinstance(city, str) else ("Ghost" if s.get("role") == "Ghost" else "")]
        if self.view.get("phase") == "over":
            notes.append(f"second scoring {s.get('second_score')}")
        elif s.get("passed"):
            notes.append("passed")
        if self.view.get("first_player") == i:
            first = self.spot(g, f"{name} is the first player this round")
            fx, fy = pb["first_player"]
            _add(first, "circle", cx=fx, cy=fy, r=9, fill=self.pal["card"], stroke=self.pal["outline"])
            self.text(first, fx, fy + 3.5, "1st", "small", anchor="middle", bold=True)
        self.text(g, *pb["city"], " · ".join(n for n in notes if n), "small")
        # each part kept on its own too: a seat's tracks or discs come back unchanged across many steps
        for part, fields, draw_part in (
            ("supply", ("supply",), lambda: self.seat_supply(self.root, i, s, name)),
            ("banners", ("banners", "crowns"), lambda: self.seat_banners(self.root, i, s, name)),
            ("tracks", ("tracks", "role"), lambda: self.seat_tracks(self.root, i, s, name, colour, ink)),
            ("bag", ("bag",), lambda: self.seat_bag(self.root, i, s, name)),
            ("republic", ("republic", "role"), lambda: self.seat_republic(self.root, i, s, name)),
            ("discs", ("war_discs", "retired_discs", "role"), lambda: self.seat_discs(self.root, i, s, name, colour, ink)),
            ("burned", ("burned", "burned_cards"), lambda: self.seat_burned(self.root, i, s, name)),
            ("cards", ("cards", "personal_scheme"), lambda: self.seat_cards(self.root, i, s, name)),
        ):
            self.section(f"seat-{i}-{part}", lambda v, fields=fields: [v["seats"][i].get(f) for f in fields], draw_part, g)

    def seat_supply(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        pb = self.lay["player_board"]["supply"]
        size = pb["cube"]
        supply = s.get("supply") if isinstance(s.get("supply"), dict) else {}
        for c, (x, y) in pb["cubes"].items():
            n = supply.get(c, 0)
            col = self.colours[c]
            changed = self.changed(lambda v, c=c: v["seats"][i]["supply"][c])
            p = self.piece(g, "supply", f"supply-{i}-{c}", f"{_plural(n, col['name'] + ' cube')} in {name}'s supply",
                           changed, seat=i, colour=c, count=n)
            cube = self.outline(_add(p, "rect", x=x, y=y, width=size, height=size, rx=3, fill=col["fill"], stroke=self.pal["outline"]),
                                changed)
            if not n:
                _faded(cube, self.lay["player_board"]["fill"], 0.3)
            self.text(p, x + size / 2, y + size / 2 + 5, str(n), "large", fill=col["ink"] if n else self.ink,
                      anchor="middle", bold=True)

    def seat_banners(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        pb = self.lay["player_board"]
        bw, bh = pb["banners"]["size"]
        banners = s.get("banners") if isinstance(s.get("banners"), dict) else {}
        for b, (x, y) in pb["banners"]["at"].items():
            n = banners.get(b, 0)
            col = self.colours[b]
            changed = self.changed(lambda v, b=b: v["seats"][i]["banners"][b])
            p = self.piece(g, "banners", f"banners-{i}-{b}", f"{_plural(n, col['name'] + ' Banner tile')} ({name})",
                           changed, seat=i, colour=b, count=n)
            pts = f"{x},{y} {x + bw},{y} {x + bw},{y + bh} {x + bw / 2:g},{y + bh - 6} {x},{y + bh}"
            banner = self.outline(_add(p, "polygon", points=pts, fill=col["fill"], stroke=self.pal["outline"]), changed)
            if not n:
                _faded(banner, self.lay["player_board"]["fill"], 0.3)
            self.text(p, x + bw + 2, y + bh - 6, str(n), bold=True)
        x, y = pb["crowns"]
        n = s.get("crowns", 0)
        changed = self.changed(lambda v: v["seats"][i]["crowns"])
        p = self.piece(g, "crowns", f"crowns-{i}", f"{name}: {_plural(n, 'Crown tile')}", changed, seat=i, count=n)
        self.outline(self.crown(p, x, y + 4, 22), changed)
        self.text(p, x + 26, y + 16, f"× {n}", bold=True)

    def seat_tracks(self, g: ET.Element, i: int, s: dict[str, Any], name: str, colour: str, ink: str) -> None:
        pb = self.lay["player_board"]["tracks"]
        cw, ch = pb["cell"]
        tracks = s.get("tracks") if isinstance(s.get("tracks"), dict) else {}
        for t, y in pb["rows"].items():
            space = tracks.get(t)
            values = list(self.data["tracks"][t]["values"])
            if space not in pb["x"] or not 1 <= space <= len(values):
                continue
            x = pb["x"][space]
            col = self.colours[t]
            meaning, unit = _TRACK_MEANING.get(t, (col["name"], ""))
            changed = self.changed(lambda v, t=t: v["seats"][i]["tracks"][t])
            cell = self.piece(g, "track-marker", f"track-{i}-{t}", f"{name}'s disc on the {col['name']} track ({meaning}):"
                              f" space {space}, {values[space - 1]} {unit}", changed, seat=i, colour=t, value=space)
            self.outline(_add(cell, "rect", x=x, y=y, width=cw, height=ch, rx=8, fill=colour, stroke=self.pal["outline"]), changed)
            self.text(cell, x + cw / 2, y + ch - 4, str(values[space - 1]), "small", fill=ink, anchor="middle", bold=True)

    def seat_bag(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        x, y = self.lay["player_board"]["bag"]
        bag = s.get("bag")
        changed = self.changed(lambda v: v["seats"][i]["bag"])
        count: int | None
        if isinstance(bag, dict) and not _hidden(bag):
            count = sum(bag.values())
            inside = ", ".join(f"{n} {self.colours[c]['name']}" for c, n in bag.items() if n) or "empty"
            title = f"{name}'s bag: {_plural(count, 'cube')} ({inside})"
        elif isinstance(bag, int):
            count, title = bag, f"{name}'s bag: {_plural(bag, 'cube')}, contents hidden"
        else:
            hidden = bag.get("count") if _hidden(bag) else None
            count = hidden if isinstance(hidden, int) else None
            title = f"{name}'s bag: " + (f"{_plural(count, 'cube')}, contents hidden" if count is not None else "hidden")
        p = self.piece(g, "bag", f"bag-{i}", title, changed, seat=i, count=count)
        d = f"M{x + 15},{y} h18 l-4,8 c14,4 18,14 18,22 c0,8 -6,10 -25,10 c-19,0 -25,-2 -25,-10 c0,-8 4,-18 18,-22 z"
        self.outline(_add(p, "path", d=d, fill=self.pal["bag"]["fill"], stroke=self.pal["bag"]["stroke"], stroke_width=1.2), changed)
        if isinstance(bag, dict) and not _hidden(bag):
            self.text(p, x + 24, y + 7, str(count), "small", fill=self.pal["bag"]["ink"], anchor="middle", bold=True)
            for k, (c, n) in enumerate(bag.items()):
                cx, cy = x + 4 + (k % 3) * 14, y + 12 + (k // 3) * 14
                p.append(_bag_cube(cx, cy, self.colours[c], n, self.pal["outline"]))
        else:
            self.text(p, x + 24, y + 28, "?" if count is None else str(count), "large", fill=self.pal["bag"]["ink"], anchor="middle",
                      bold=True)

    def seat_republic(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        x, y = self.lay["player_board"]["republic"]
        cw, ch = self.lay["player_board"]["republic_card"]
        card = s.get("republic")
        if s.get("role") == "Ghost" or card == "":
            return
        changed = self.changed(lambda v: v["seats"][i]["republic"])
        fd = self.lay["face_down"]
        if isinstance(card, str):
            info = self.data["republic_cards"].get(card, {})
            form = info.get("form")
            p = self.piece(g, "republic-card", f"republic-{i}", f"{name}'s Republic card {card}: {self.republic_text(card)}",
                           changed, seat=i, card=card)
            fill = self.lay["forms"][form]["fill"] if form in self.lay["forms"] else self.pal["card"]
            self.outline(_add(p, "rect", x=x, y=y, width=cw, height=ch, rx=3, fill=fill, stroke=self.pal["outline"]), changed)
            self.text(p, x + cw / 2, y + 13, card, "small", anchor="middle", bold=True)
            self.text(p, x + cw / 2, y + 25, str(form or ""), "small", anchor="middle")
            for k in range(int(info.get("crowns", 0))):
                self.crown(p, x + 3 + k * 9, y + ch - 7, 7)
        else:
            p = self.piece(g, "republic-card", f"republic-{i}", f"{name}'s Republic card, face down", changed, seat=i)
            self.outline(_add(p, "rect", x=x, y=y, width=cw, height=ch, rx=3, fill=fd["fill"], stroke=self.pal["outline"]), changed)
            self.text(p, x + cw / 2, y + ch / 2 + 6, "?", "large", fill=fd["ink"], anchor="middle", bold=True)

    def seat_discs(self, g: ET.Element, i: int, s: dict[str, Any], name: str, colour: str, ink: str) -> None:
        pb = self.lay["player_board"]["war_discs"]
        x, y = pb["at"]
        step, r = pb["step"], pb["radius"]
        discs = s.get("war_discs")
        changed = self.changed(lambda v: v["seats"][i]["war_discs"])
        fd = self.lay["face_down"]
        k = 0
        if isinstance(discs, list):
            for value in discs:
                p = self.piece(g, "disc", f"disc-{i}-{k}", f"{name}'s war disc, value {value}", changed, seat=i, value=value)
                self.outline(_add(p, "circle", cx=x + k * step, cy=y, r=r, fill=colour, stroke=self.pal["outline"]), changed)
                self.text(p, x + k * step, y + 4, str(value), "small", fill=ink, anchor="middle", bold=True)
                k += 1
        else:
            count = discs if isinstance(discs, int) else None
            for _ in range(1 if count is None else count):
                title = f"{name}'s war disc, face down" if count is not None else f"{name}'s war discs: hidden"
                p = self.piece(g, "disc", f"disc-{i}-{k}", title, changed, seat=i)
                self.outline(_add(p, "circle", cx=x + k * step, cy=y, r=r, fill=fd["fill"], stroke=self.pal["outline"]), changed)
                if count is None:
                    self.text(p, x + k * step, y + 4, "?", "small", fill=fd["ink"], anchor="middle", bold=True)
                k += 1
        retired = s.get("retired_discs") if isinstance(s.get("retired_discs"), list) else []
        changed = self.changed(lambda v: v["seats"][i]["retired_discs"])
        for n, value in enumerate(retired):
            cx = x + (k + n) * step + 6
            p = self.piece(g, "retired-disc", f"retired-{i}-{n}", f"{name}'s war disc {value}, removed from the game",
                           changed, seat=i, value=value)
            self.outline(_add(p, "circle", cx=cx, cy=y, r=r, fill=self.pal["retired"], stroke=self.pal["frame"], stroke_dasharray="2 2"),
                         changed)
            self.text(p, cx, y + 4, str(value), "small", fill=self.faint, anchor="middle")

    def seat_burned(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        pb = self.lay["player_board"]["burned"]
        sw, sh = pb["slot"]
        burned = s.get("burned") if isinstance(s.get("burned"), dict) else {}
        cards = s.get("burned_cards") if isinstance(s.get("burned_cards"), list) else []
        lx, ly = pb["label"]
        label = self.spot(g, f"{name}'s burned cards: " + (", ".join(cards) if cards else "none"))
        _add(label, "rect", x=lx - 2, y=ly - 10, width=46, height=13, fill="none", stroke="none", pointer_events="all")
        for c, (x, y) in pb["at"].items():
            n = burned.get(c, 0)
            col = self.colours[c]
            changed = self.changed(lambda v, c=c: v["seats"][i]["burned"][c])
            p = self.piece(g, "burned", f"burned-{i}-{c}", f"{_plural(n, 'card')} burned under {col['name']} ({name})",
                           changed, seat=i, colour=c, count=n)
            limit = max(int(self.data.get("burn_limit", 3)), n)
            self.outline(_add(p, "rect", x=x - 1.5, y=y - 1.5, width=limit * (sw + 1) + 2, height=sh + 3, rx=2,
                              fill="none", stroke="none", pointer_events="all"), changed)
            for k in range(n):
                _add(p, "rect", x=x + k * (sw + 1), y=y, width=sw, height=sh, rx=1, fill=col["fill"], stroke=self.pal["outline"],
                     stroke_width=0.7)

    def seat_cards(self, g: ET.Element, i: int, s: dict[str, Any], name: str) -> None:
        pb = self.lay["player_board"]
        x, y = pb["used_cards"]
        cards = s.get("cards") if isinstance(s.get("cards"), list) else []
        changed = self.changed(lambda v: v["seats"][i]["cards"])
        p = self.piece(g, "used-cards", f"used-cards-{i}",
                       f"{name}'s used cards, kept for the second scoring: " + (", ".join(cards) if cards else "none"),
                       changed, seat=i, count=len(cards))
        _add(p, "rect", x=x + 3, y=y - 3, width=16, height=21, rx=2, fill=self.pal["card"], stroke=self.pal["outline"])
        self.outline(_add(p, "rect", x=x, y=y, width=16, height=21, rx=2, fill=self.pal["card"], stroke=self.pal["outline"]), changed)
        self.text(p, x + 8, y + 15, str(len(cards)), "small", anchor="middle", bold=True)
        scheme = s.get("personal_scheme")
        if isinstance(scheme, str):
            changed = self.changed(lambda v: v["seats"][i]["personal_scheme"])
            p = self.piece(g, "personal-scheme", f"personal-scheme-{i}", f"{name}'s personal Political Scheme: {scheme}",
                           changed, seat=i)
            sx, sy = pb["scheme"]
            self.outline(_add(p, "rect", x=sx - 4, y=sy - 12, width=pb["size"][0] - sx - 2, height=16, rx=3, fill=self.pal["card"],
                              stroke=self.pal["frame"]), changed)
            self.text(p, sx, sy, scheme, "small")

    def solo_panel(self, r: dict[str, Any]) -> None:
        lay = self.lay["solo"]
        x, y = lay["at"]
        w, h = lay["size"]
        g = self.group(self.root, "Solo game")
        _add(g, "rect", x=x, y=y, width=w, height=h, rx=6, fill=self.lay["player_board"]["fill"], stroke=self.pal["frame"])
        self.text(g, x + 10, y + 20, f"Solo scenario {r.get('scenario')}: {r.get('name')}, game {r.get('game')}", "large",
                  bold=True)
        changed = self.changed(lambda v: v["solo"]["score"])
        score = self.piece(g, "solo-score", "solo-score", f"Solo score {r.get('score')}, {r.get('required_score')} required",
                           changed, value=r.get("score"))
        self.outline(_add(score, "rect", x=x + 6, y=y + 28, width=w - 12, height=18, rx=3, fill="none", stroke="none"), changed)
        self.text(score, x + 10, y + 42, f"Score {r.get('score')} of {r.get('required_score')} required"
                  + (" (met)" if r.get("score_met") else ""))
        ghost = r.get("ghost_actions") if isinstance(r.get("ghost_actions"), dict) else {}
        lines = [f"Crowns carried in: {r.get('crowns_carried_in')}",
                 f"Ghost actions this round: {ghost.get('this_round')} of {ghost.get('per_round')}"]
        for o in r.get("objectives") or []:
            mark = "met" if o.get("met") else "not yet"
            lines.append(f"{str(o.get('objective', '')).replace('_', ' ')}: target {_short(o.get('target'))}, "
                         f"now {_short(o.get('value'))} ({mark})")
        if r.get("finished"):
            lines.append("Won" if r.get("won") else "Lost")
        for k, line in enumerate(lines):
            self.text(g, x + 10, y + 62 + k * 18, line)


def _short(value: Any) -> str:
    """A solo objective's target or value as a person reads it: 'B 1, W 1' rather than a dict."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " ".join(_short(v) for v in value)
    return str(value)


def _bag_cube(x: float, y: float, colour: dict[str, str], n: int, outline: str) -> ET.Element:
    """One colour's count inside a visible bag (a small cube with its number)."""
    g = ET.Element("g")
    _add(g, "rect", x=x, y=y, width=12, height=12, rx=1, fill=colour["fill"], stroke=outline, stroke_width=0.6)
    _add(g, "text", str(n), x=x + 6, y=y + 10, font_size=9, fill=colour["ink"], text_anchor="middle")
    return g


def missing_positions(layout: Mapping[str, Any], edition: Edition) -> list[str]:
    """Every id of the edition the layout has no position for (empty when the layout covers it)."""
    d = edition.data
    out: list[str] = []

    def need(where: Any, keys: Sequence[Any], what: str) -> None:
        have = where if isinstance(where, Mapping) else {}
        out.extend(f"{what} {k}" for k in keys if k not in have)

    colours = list(d["colours"])
    need(layout.get("colours"), colours, "colour")
    need(layout["decks"]["columns"], colours, "deck column")
    need(layout["market"]["rows"], list(range(1, len(d["market"]["row_costs"]) + 1)), "market row")
    need(layout["warfare"]["spaces"], list(range(1, d["warfare_spaces"] + 1)), "warfare space")
    need(layout["schemes"]["slots"], list(range(1, d["scheme_slots"] + 1)), "scheme slot")
    need(layout["republic_track"]["spaces"], list(range(1, d["republic_track"]["spaces"] + 1)), "republic space")
    need(layout["forms"], list(d["republic_track"]["forms"]), "form")
    need(layout["round_track"]["spaces"], list(range(1, d["rounds"] + 1)), "round")
    top = max([*d["upgrade_start"].values(), *d.get("solo", {}).get("upgrade_by_game", {}).values()])
    need(layout["upgrade_track"]["spaces"], list(range(0, top + 1)), "upgrade space")
    need(layout["seats"], list(range(d["players"]["max"])), "seat")
    pb = layout["player_board"]
    need(pb["supply"]["cubes"], colours, "supply colour")
    need(pb["burned"]["at"], colours, "burned colour")
    need(pb["banners"]["at"], list(d["banner_colours"]), "banner colour")
    need(pb["tracks"]["rows"], list(d["tracks"]), "upgrade track")
    longest = max(len(t["values"]) for t in d["tracks"].values())
    need(pb["tracks"]["x"], list(range(1, longest + 1)), "upgrade track space")
    return out


def draw(view: dict[str, Any], previous: dict[str, Any] | None, layout: dict[str, Any], edition: Edition,
         names: Sequence[str]) -> str:
    """The SVG document of one step of a Città-Stato game, as the reader of `view` may see it."""
    return _Board(view, previous, layout, edition, names).svg()


def anchors(layout: Mapping[str, Any], edition: Edition, seats: int) -> dict[str, dict[str, Any]]:
    """Where a note's arrow or ring meets each place of the board (`notation.places`), in viewBox units.

    Taken from the same layout entries the drawing reads, so a shape lands on the space it names.
    Places a printing does not fix (a card, a city, a seat's upgrade track) get one fixed spot: a
    card its colour's Present card (spread along its foot), a city a strip on the main board's
    free corner, an upgrade track space the first player board's track.
    """
    d = edition.data
    colours: dict[str, Any] = layout["colours"]
    out: dict[str, dict[str, Any]] = {}

    def put(name: str, x: float, y: float, label: str) -> None:
        out[name] = {"x": round(float(x), 1), "y": round(float(y), 1), "label": label}

    decks = layout["decks"]
    cw, ch = decks["card"]
    for c, x in decks["columns"].items():
        cname = colours[c]["name"]
        put(f"future:{c}", x + cw / 2, decks["future_y"] + ch / 2, f"Future {cname} card")
        put(f"present:{c}", x + cw / 2, decks["present_y"] + ch / 2, f"Present {cname} card")
        put(f"deck:{c}", x + cw - 22, decks["future_y"] + 8, f"{cname} deck")
        cards = [k for k in d["cards"] if str(k).startswith(c) and str(k)[len(c):].isdigit()]
        cards.sort(key=lambda k: int(str(k)[len(c):]))
        for n, card in enumerate(cards):
            spread = (cw - 18) / max(1, len(cards) - 1)
            put(str(card), x + 9 + n * spread, decks["present_y"] + ch - 7, f"{cname} card {card}")
    market = layout["market"]
    mw, mh = market["cell"]
    costs = list(d["market"]["row_costs"])
    for row, y in market["rows"].items():
        if row - 1 >= len(costs):
            continue
        for c, x in decks["columns"].items():
            put(f"market:{c}{costs[row - 1]}", x + mw / 2, y + mh / 2,
                f"Market, {colours[c]['name']} column, row costing {costs[row - 1]}")
    sw, sh = layout["schemes"]["card"]
    for slot, (x, y) in layout["schemes"]["slots"].items():
        put(f"scheme:{slot}", x + sw / 2, y + sh / 2, f"Political Scheme level {slot}")
    ww, wh = layout["warfare"]["cell"]
    for k, (x, y) in layout["warfare"]["spaces"].items():
        put(f"war:{k}", x + ww / 2, y + wh / 2, f"Warfare space {k}")
    rt = layout["republic_track"]
    rw, rh = rt["cell"]
    spaces = rt["spaces"]
    for k, (x, y) in spaces.items():
        put(f"form:{k}", x + rw / 2, y + rh / 2, f"Form of Republic space {k}")
    for form, (lo, hi) in d["republic_track"]["forms"].items():
        if lo in spaces and hi in spaces:
            x0, x1 = spaces[lo][0], spaces[hi][0] + rw
            put(str(form), (x0 + x1) / 2, spaces[lo][1] + rh + 2 + rt["band"] / 2, layout["forms"][form]["name"])
    pb = layout["player_board"]
    bx, by = layout["seats"][0]["at"]
    tw, th = pb["tracks"]["cell"]
    for t, y in pb["tracks"]["rows"].items():
        values = d["tracks"][t]["values"]
        for space, x in pb["tracks"]["x"].items():
            if space <= len(values):
                put(f"track:{t}{space}", bx + x + tw / 2, by + y + th / 2, f"{colours[t]['name']} track space {space}")
    board = layout["board"]
    cities = list(d["cities"])
    left, right = layout["supplies"]["reserve"][0] + 12, board["x"] + board["w"] - 24
    for n, city in enumerate(cities):
        x = left + n * (right - left) / max(1, len(cities) - 1)
        put(str(city), x, board["y"] + board["h"] - 22, f"{d['cities'][city]['name']} (city)")
    return out
