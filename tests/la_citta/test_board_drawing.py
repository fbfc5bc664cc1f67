"""The La Città board drawn as SVG (replay_viewer/boards/la_citta.py): pieces, secrets, changes, layout."""

from __future__ import annotations

import copy
import math
import xml.etree.ElementTree as ET
from collections import Counter
from functools import cache
from typing import Any

import pytest

from domain.kernel.selfplay import play_random
from domain.la_citta import GAME
from domain.la_citta.edition import tables
from domain.la_citta.notation import places as notation_places
from domain.records.views import public_view
from replay_viewer.boards import NoLayout, layout_for
from replay_viewer.boards import draw as draw_any
from replay_viewer.boards.la_citta import draw, uncovered
from replay_viewer.boards.svg import width
from tests.la_citta.helpers import ED

NS = "{http://www.w3.org/2000/svg}"
NAMES = ("Ada", "Ben", "Cleo", "Dario")
SERVICES = ("culture", "education", "health")


@cache
def game(players: int) -> tuple[list[Any], list[Any]]:
    """A seeded random game: its events and the state after each (index = step)."""
    played = play_random(GAME, ED, {"players": players}, "board-drawing")
    events = [e for entry in played.entries for e in entry.events]
    states = [GAME.begin(ED)]
    for e in events:
        states.append(GAME.evolve(states[-1], e))
    return events, states


def svg(view: dict[str, Any], previous: dict[str, Any] | None, names: tuple[str, ...] = NAMES) -> ET.Element:
    return ET.fromstring(draw(view, previous, layout_for("la-citta", ED), ED, names))


def kinds(root: ET.Element, kind: str) -> list[ET.Element]:
    return [el for el in root.iter() if el.get("data-kind") == kind]


def title(el: ET.Element) -> str:
    t = el.find(f"{NS}title")
    return "" if t is None or t.text is None else t.text


def step_after(players: int, event_type: str, nth: int = 0) -> int:
    events, _ = game(players)
    found = [i + 1 for i, e in enumerate(events) if e.type == f"la-citta/{event_type}"]
    assert len(found) > nth, f"the seeded game has no {event_type} #{nth}"
    return found[nth]


def test_pieces_match_the_view_at_every_tenth_step():
    _, states = game(4)
    for n in range(0, len(states), 10):
        view = GAME.view(states[n], None)
        root = svg(view, GAME.view(states[n - 1], None) if n else None)
        cities = view["cities"]
        assert len(kinds(root, "castle")) == len(cities)
        assert {el.get("data-id") for el in kinds(root, "building")} == {b["hex"] for c in cities for b in c["buildings"]}
        assert sum(int(el.get("data-count")) for el in kinds(root, "citizen")) == sum(c["citizens"] for c in cities)
        figures = sum(f["figures"] for f in view["figures"]["bread_and_games"]) + len(view["figures"]["rich_harvest"])
        assert len(kinds(root, "figure")) == figures
        assert len(kinds(root, "lane")) == len(tables(ED).hexes)
        assert {el.get("data-id") for el in kinds(root, "tile")} == set(ED.data["board"]["slots"])
        assert [el.get("data-card") for el in kinds(root, "politics-card")] == view["politics"]["display"]
        assert len(kinds(root, "voice-card")) == 1 + len(view["voice"]["face_down"])


def test_a_building_shows_its_kind_and_owner():
    _, states = game(4)
    n = step_after(4, "building-built", 5)
    view = GAME.view(states[n], None)
    root = svg(view, None)
    owner_of = {b["hex"]: (c["owner"], b["building"]) for c in view["cities"] for b in c["buildings"]}
    for el in kinds(root, "building"):
        owner, kind = owner_of[el.get("data-id")]
        assert (int(el.get("data-owner")), el.get("data-building")) == (owner, kind)
        assert kind.replace("_", " ") in title(el) and NAMES[owner] in title(el)


def test_every_piece_has_a_title_and_groups_are_labelled():
    _, states = game(4)
    n = len(states) // 2
    root = svg(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    pieces = [el for el in root.iter() if el.get("data-kind")]
    assert len(pieces) > 250
    untitled = [el.get("data-id") for el in pieces if not title(el).strip()]
    assert untitled == []
    groups = [el for el in root.iter(f"{NS}g") if el.get("role") == "group"]
    assert groups and all(el.get("aria-label") for el in groups)
    assert root.get("role") == "img" and "year" in root.get("aria-label")
    assert root.get("viewBox") == " ".join(str(v) for v in layout_for("la-citta", ED)["viewBox"])


def test_a_polled_card_shows_only_to_the_seat_that_looked():
    events, states = game(4)
    n = step_after(4, "voice-polled")
    seat = events[n - 1].seat
    mine = GAME.view(states[n], seat)
    known = [i for i, card in enumerate(mine["voice"]["face_down"]) if isinstance(card, str)]
    assert known, "the polling seat sees the cards it looked at"
    public = public_view(GAME, states[n], 4)
    assert all(public["voice"]["face_down"][i] == {"hidden": True} for i in known)

    def voice_cards(root: ET.Element) -> dict[str, ET.Element]:
        return {el.get("data-id"): el for el in kinds(root, "voice-card")}

    theirs = voice_cards(svg(mine, GAME.view(states[n - 1], seat)))
    shown = voice_cards(svg(public, public_view(GAME, states[n - 1], 4)))
    for i in known:
        card = mine["voice"]["face_down"][i]
        assert card in title(theirs[f"face-down/{i}"])
        words = title(shown[f"face-down/{i}"]) + " ".join(t.text or "" for t in shown[f"face-down/{i}"].iter(f"{NS}text"))
        assert not any(sv in words for sv in SERVICES), words
        assert "not seen" in words and "?" in words


def test_a_hidden_number_is_a_question_mark_not_a_guess():
    _, states = game(4)
    view = copy.deepcopy(GAME.view(states[40], None))
    secret = view["seats"][1]["gold"]
    view["seats"][1]["gold"] = {"hidden": True}
    view["voice"]["deck"] = {"hidden": True}
    root = svg(view, None)
    cell = next(el for el in kinds(root, "seat-field") if el.get("data-id") == "seat/1/gold")
    assert cell.text == "?" and str(secret) not in title(cell)
    deck = kinds(root, "voice-deck")[0]
    assert "?" in title(deck)


def test_what_the_last_event_changed_is_marked():
    events, states = game(4)
    n = step_after(4, "building-built", 3)
    built = events[n - 1]
    root = svg(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    changed = [el.get("data-id") for el in kinds(root, "building") if "changed" in el.get("class", "").split()]
    assert changed == [f"L{built.hex}"]
    castles = [el.get("data-id") for el in kinds(root, "castle") if "changed" in el.get("class", "").split()]
    assert castles == []
    # a step compared with itself changes nothing
    same = svg(GAME.view(states[n], None), GAME.view(states[n], None))
    assert [el.get("data-id") for el in same.iter() if "changed" in el.get("class", "").split()] == []


def test_a_removed_building_leaves_a_marked_empty_hex():
    events, states = game(4)
    n = next(i + 1 for i, e in enumerate(events) if e.type == "la-citta/building-demolished" and e.building != "castle")
    gone = f"L{events[n - 1].hex}"
    root = svg(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    assert gone not in {el.get("data-id") for el in kinds(root, "building")}
    vacated = [el for el in kinds(root, "vacated") if el.get("data-id") == gone]
    assert len(vacated) == 1 and "changed" in vacated[0].get("class")


def test_laid_tiles_and_a_seat_number_are_marked_when_they_change():
    _, states = game(4)
    n = step_after(4, "tiles-placed")
    root = svg(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    tiles = kinds(root, "tile")
    assert all("changed" in el.get("class") for el in tiles) and len(tiles) == len(ED.data["board"]["slots"])
    m = step_after(4, "gold-gained")
    seat = GAME.view(states[m], None)["seats"]
    before = GAME.view(states[m - 1], None)["seats"]
    root = svg(GAME.view(states[m], None), GAME.view(states[m - 1], None))
    marked = {el.get("data-id") for el in kinds(root, "seat-field") if "changed" in el.get("class")}
    expected = {f"seat/{s['seat']}/gold" for s, b in zip(seat, before, strict=True) if s["gold"] != b["gold"]}
    assert expected and marked == expected
    assert all("changed" not in el.get("class") for el in kinds(root, "tile"))


def test_lanes_and_land_out_of_play_with_two_players_are_greyed():
    _, states = game(2)
    view = GAME.view(states[-1], None)
    root = svg(view, None)
    t = tables(ED)
    level = int(ED.data["board"]["zone_for_players"]["2"])
    out = {el.get("data-id") for el in kinds(root, "lane") if "out-of-play" in el.get("class")}
    assert out == {f"L{h}" for h in t.hexes if t.zone[h] > level}
    # land is out of play when no lane in play borders it (a zone-3 slot beside a zone-2 lane still feeds it)
    feeding = {a for h in t.hexes if t.zone[h] <= level for a in t.touches[h]}
    areas = kinds(root, "tile") + kinds(root, "edge")
    greyed = {el.get("data-id") for el in areas if "out of play" in title(el)}
    assert greyed == {el.get("data-id") for el in areas} - feeding
    assert len(feeding) == 18 and len(greyed) == len(areas) - 18


def test_the_board_before_setup_draws_the_printed_edges_only():
    root = svg(GAME.view(GAME.begin(ED), None), None, ())
    assert kinds(root, "castle") == [] and kinds(root, "building") == []
    assert len(kinds(root, "edge")) == len(ED.data["board"]["edges"])
    assert all("empty slot" in title(el) for el in kinds(root, "tile"))


def test_the_layout_covers_every_id_of_the_edition():
    layout = layout_for("la-citta", ED)
    assert uncovered(layout, ED) == []
    data = copy.deepcopy(dict(ED.data))
    bigger = {**data, "terrain": {**data["terrain"], "F4": {"kind": "farmland", "wheat": 4}},
              "buildings": {**data["buildings"], "theatre": {"size": "small", "pool": "market", "arches": {"culture": 1}}}}
    grown = type(ED)(ED.id, ED.title, "sha256:grown", bigger, ED.provenance)  # type: ignore[arg-type]
    assert sorted(uncovered(layout, grown)) == ["building theatre", "terrain F4"]
    with pytest.raises(NoLayout, match="theatre"):
        draw_any("la-citta", GAME.view(GAME.begin(ED), None), None, grown, NAMES)


def test_every_hex_and_every_land_hex_lies_on_the_canvas():
    layout = layout_for("la-citta", ED)
    spec = layout["board"]
    size = float(spec["hex_size"])
    ox, oy = spec["origin"]
    x0, y0, x1, y1 = spec["clip"]
    vx, vy, vw, vh = layout["viewBox"]
    assert vx <= x0 and vy <= y0 and x1 <= vx + vw and y1 <= vy + vh
    k = int(ED.data["board"]["lane_every"])
    land = []
    for a, b, c in [*ED.data["board"]["slots"].values(), *ED.data["board"]["edges"].values()]:
        cells = [(x, -x - z, z) for x in range(k * a, k * a + k) for z in range(k * c, k * c + k)
                 if (-x - z) // k == b and x % k and (-x - z) % k and z % k]
        assert len(cells) == 6
        land.extend(cells)
    for x, _, z in [*tables(ED).cube.values(), *land]:
        px, py = ox + size * math.sqrt(3) / 2 * (2 * x + z), oy + size * 1.5 * z
        assert x0 + size * 0.8 <= px <= x1 - size * 0.8 and y0 + size * 0.9 <= py <= y1 - size * 0.9, (x, z)


def test_no_two_pieces_share_an_id_and_seats_keep_their_colours():
    _, states = game(4)
    root = svg(GAME.view(states[-1], None), None)
    ids = Counter((el.get("data-kind"), el.get("data-id")) for el in root.iter() if el.get("data-kind"))
    assert [k for k, n in ids.items() if n > 1] == []
    fills = {}
    for el in kinds(root, "castle"):
        poly = [p for p in el.iter(f"{NS}polygon") if p.get("fill") != "none"][-1]
        fills.setdefault(el.get("data-owner"), set()).add(poly.get("fill"))
    assert len(fills) == 4 and all(len(f) == 1 for f in fills.values())
    assert len({next(iter(f)) for f in fills.values()}) == 4


def test_names_are_escaped_into_well_formed_svg():
    _, states = game(4)
    names = ('Ada <b>&"co"</b>', "Ben", "Cleo", "Dario")
    root = svg(GAME.view(states[-1], None), None, names)  # parses: the markup stayed well formed
    castles = [el for el in kinds(root, "castle") if el.get("data-owner") == "0"]
    assert castles and all(names[0] in title(el) for el in castles)


def test_long_names_fit_the_panel_and_stay_whole_in_the_titles():
    """Names with spaces and apostrophes, longer than their places: the seat row's name is cut with an ellipsis
    before the gold column (the starting player's star kept whole: it ran over the gold), the status line keeps
    its "to play", and each title holds the whole name."""
    names = ("Anna Maria de la Cruz", "D'Angelo Bartolomeo", "Zoë", "Jean-Baptiste Marie")
    _, states = game(4)
    step = step_after(4, "turn-ended", 3)
    view = GAME.view(states[step], None)
    root = svg(view, None, names)
    layout = layout_for("la-citta", ED)
    spec, panel = layout["panel"]["seats"], layout["panel"]
    gold_left = spec["x"] + min(dx for dx, _ in spec["columns"].values()) - spec["cell"][0] / 2
    for el in kinds(root, "seat"):
        seat = int(el.get("data-owner"))
        label = next(t for t in el.iter(f"{NS}text") if t.get("font-weight") == "bold" and "seat-field" not in (t.get("class") or ""))
        shown = "".join(label.itertext())
        start = float(label.get("x"))
        assert start + width(shown, panel["font"], bold=True) <= gold_left, shown
        bare = shown.removesuffix(" ★")
        if names[seat] == "Zoë":
            assert bare == "Zoë"
        else:
            assert bare.endswith("…") and names[seat].startswith(bare[:-1].rstrip()), shown
        assert names[seat] in title(el)
    (status,) = kinds(root, "status")
    line = "".join(next(status.iter(f"{NS}text")).itertext())
    pending = view["pending"]["seat"]
    assert line.endswith(" to play") and width(line, panel["heading_font"], bold=True) <= panel["status"]["width"], line
    assert f"{names[pending]} to play" in title(status)


def test_every_place_the_notation_names_is_written_on_the_board_for_a_reader_who_asks():
    """A table writing its game with a pencil needs the places' names (`farm L71 L78`), which the printed board does
    not carry: the drawing holds each one, hidden until the page's switch shows them (so the board a link or a
    picture shows is unchanged), kept out of a screen reader's way and out of the pointer's."""
    _, states = game(3)
    root = svg(GAME.view(states[len(states) // 2], None), None)
    (group,) = [g for g in root.iter(f"{NS}g") if g.get("class") == "place-names"]
    assert group.get("display") == "none" and group.get("aria-hidden") == "true" and group.get("pointer-events") == "none"
    written = {t.text for t in group.iter(f"{NS}text")}
    assert set(notation_places(ED)) <= written, sorted(set(notation_places(ED)) - written)[:5]
    children = list(root.find(f"{NS}g[@aria-label='the board']"))
    assert children[-1] is group, "over the pieces: a hex with a building on it still shows its name"
