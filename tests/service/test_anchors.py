"""Anchors of the board's places: where a note's arrows start and end and its rings are drawn.

Every place a shape may name (the title's `notation.places`) has one anchor inside the board
drawing's viewBox, spelled as the notation spells it, and the anchor sits on the piece of the
drawing that shows that place (checked against the SVG the board module draws).
"""

from __future__ import annotations

import importlib
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from domain import catalog
from domain.kernel import SeededChance
from replay_viewer.boards import anchors, draw, layout_for, places, view_box

TITLES = [title for title, module in catalog.TITLES.items() if module.startswith("domain.")]  # the real titles
SVG = "{http://www.w3.org/2000/svg}"


def edition_of(title: str) -> Any:
    return catalog.game(title).default_edition()


@pytest.mark.parametrize("title", TITLES)
@pytest.mark.parametrize("seats", [2, 4])
def test_every_place_has_one_anchor_inside_the_view_box(title: str, seats: int) -> None:
    edition = edition_of(title)
    named = places(title, edition)
    found = anchors(title, edition, seats)
    x0, y0, w, h = view_box(title, edition)
    assert named, f"{title}: no places"
    assert list(found) == list(named), f"{title}: anchors are not one per place: {set(named) ^ set(found)}"
    for place, spot in found.items():
        assert set(spot) == {"x", "y", "label"}, (place, spot)
        assert x0 <= spot["x"] <= x0 + w and y0 <= spot["y"] <= y0 + h, f"{title}: {place} at {spot} is off the board"
        assert isinstance(spot["label"], str) and spot["label"], place


@pytest.mark.parametrize("title", TITLES)
def test_the_places_are_the_notation_vocabulary(title: str) -> None:
    """The anchors follow what the notation's markup reads: its `places(edition)`."""
    edition = edition_of(title)
    notation = importlib.import_module(f"{catalog.TITLES[title]}.notation")
    named = set(places(title, edition))
    assert named == set(notation.places(edition))
    assert len({p.lower() for p in named}) == len(named), "two places differ only by case"


@pytest.mark.parametrize("title", TITLES)
def test_distinct_places_get_distinct_anchors(title: str) -> None:
    """Two places on one point could not be told apart by a click: at most a few share a spot."""
    found = anchors(title, edition_of(title), 3)
    spots = {(round(s["x"]), round(s["y"])) for s in found.values()}
    assert len(spots) >= 0.97 * len(found), f"{title}: {len(found) - len(spots)} places share an anchor"


def _initial_view(title: str, seats: int) -> dict[str, Any]:
    """The view after setup: the ports and lanes are all on the table."""
    game = catalog.game(title)
    edition = game.default_edition()
    state = game.begin(edition)
    for event in game.setup(edition, {"players": seats}, SeededChance("anchors")):
        state = game.evolve(state, event)
    return game.view(state, None)  # type: ignore[no-any-return]


def _drawn(title: str, seats: int) -> ET.Element:

    edition = edition_of(title)
    view = _initial_view(title, seats)
    return ET.fromstring(draw(title, view, None, edition, [f"P{k}" for k in range(seats)]))


def test_la_citta_hexes_anchor_on_the_drawn_lane_centres() -> None:
    """A lane hex's anchor is the centre of the hexagon the board draws for it."""
    found = anchors("la-citta", edition_of("la-citta"), 2)
    svg = _drawn("la-citta", 2)
    lanes = {e.get("data-id"): e.get("points") for e in svg.iter(f"{SVG}polygon") if e.get("data-kind") == "lane"}
    assert lanes, "the drawing has no lane hexes"
    for name, points in lanes.items():
        xy = [tuple(map(float, p.split(","))) for p in str(points).split()]
        cx, cy = sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)
        assert abs(found[name]["x"] - cx) < 0.6 and abs(found[name]["y"] - cy) < 0.6, (name, found[name], (cx, cy))


def test_serenissima_zones_anchor_on_their_drawn_dots() -> None:
    found = anchors("serenissima", edition_of("serenissima"), 2)
    svg = _drawn("serenissima", 2)
    checked = 0
    for g in svg.iter(f"{SVG}g"):
        if g.get("data-kind") == "zone":
            dot = g.find(f"{SVG}circle")
            assert dot is not None
            spot = found[str(g.get("data-id"))]
            assert (spot["x"], spot["y"]) == (pytest.approx(float(dot.get("cx", 0))), pytest.approx(float(dot.get("cy", 0))))
            checked += 1
    assert checked == len(edition_of("serenissima").data["sea_zones"])


def test_citta_stato_spaces_anchor_inside_their_layout_cells() -> None:
    """Market spaces, Warfare spaces, scheme slots and Republic spaces: each anchor inside its printed cell."""
    edition = edition_of("citta-stato")
    lay = layout_for("citta-stato", edition)
    found = anchors("citta-stato", edition, 2)
    costs = list(edition.data["market"]["row_costs"])
    cw, ch = lay["market"]["cell"]
    for row, y in lay["market"]["rows"].items():
        for c, x in lay["decks"]["columns"].items():
            spot = found[f"market:{c}{costs[row - 1]}"]
            assert x < spot["x"] < x + cw and y < spot["y"] < y + ch
    ww, wh = lay["warfare"]["cell"]
    for k, (x, y) in lay["warfare"]["spaces"].items():
        assert x < found[f"war:{k}"]["x"] < x + ww and y < found[f"war:{k}"]["y"] < y + wh
    rw, rh = lay["republic_track"]["cell"]
    for k, (x, y) in lay["republic_track"]["spaces"].items():
        assert x < found[f"form:{k}"]["x"] < x + rw and y < found[f"form:{k}"]["y"] < y + rh
    # the market's top row is the dearest: market:Y3 above market:Y1
    assert found["market:Y3"]["y"] < found["market:Y1"]["y"]
