"""The Serenissima board as SVG: pieces as the view says, secrets undrawn, changes outlined, every piece titled."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from importlib import resources
from typing import Any

import pytest
import yaml

from domain.kernel import SeededChance, fold
from domain.kernel.selfplay import play_random
from domain.records.views import public_view
from domain.serenissima import GAME
from domain.serenissima import events as ev
from domain.serenissima.state import State, replace
from replay_viewer import boards
from replay_viewer.boards import serenissima as board

EDITION = GAME.default_edition()
LAYOUT = boards.layout_for("serenissima", EDITION)
NAMES = ["Ada", "Ben", "Cleo", "Dario"]
SEED = "board-3"  # a random 4-seat game with hidden money that sells goods and fights


@pytest.fixture(scope="module")
def played() -> tuple[list[Any], list[State]]:
    game = play_random(GAME, EDITION, {"players": 4, "money": "hidden"}, SEED)
    events = [e for entry in game.entries for e in entry.events]
    states = [GAME.begin(EDITION)]
    for e in events:
        states.append(GAME.evolve(states[-1], e))
    return events, states


def drawn(view: dict[str, Any], previous: dict[str, Any] | None = None, names: list[str] = NAMES) -> ET.Element:
    return ET.fromstring(board.draw(view, previous, LAYOUT, EDITION, names))


def pieces(root: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("data-kind") == kind]


def title(e: ET.Element) -> str:
    t = e.find("{http://www.w3.org/2000/svg}title")
    return "" if t is None or t.text is None else t.text


def changed(root: ET.Element, kind: str) -> set[str]:
    return {e.get("data-id", "") for e in pieces(root, kind) if "changed" in (e.get("class") or "").split()}


def first(events: list[Any], kind: type) -> int:
    """The step right after the first event of this type."""
    return next(i for i, e in enumerate(events) if isinstance(e, kind)) + 1


def test_the_pieces_drawn_are_the_pieces_in_the_view(played: tuple[list[Any], list[State]]) -> None:
    events, states = played
    seen = {"sailor": 0, "cube": 0, "galley": 0}
    for n in range(0, len(states), 9):
        view = GAME.view(states[n], None)
        root = drawn(view)
        galleys, ports = view["galleys"].values(), view["ports"].values()
        sailors = sum(g["sailors"] for g in galleys) + sum(p["sailors"] for p in ports)
        cubes = sum(len(g["goods"]) for g in galleys) + sum(len(p["warehouse"]) for p in ports)
        assert len(pieces(root, "galley")) == len(view["galleys"]), n
        assert len(pieces(root, "galley-cube")) == len(view["galleys"]), n
        assert len(pieces(root, "sailor")) == sailors, n
        assert len(pieces(root, "cube")) == cubes, n
        assert len(pieces(root, "port")) == len(view["ports"]), n
        assert len(pieces(root, "fort")) == sum(p["fort"] for p in ports), n
        assert len(pieces(root, "basilica")) == sum(p["basilica"] for p in ports), n
        assert len(pieces(root, "doge-card")) == len(view["doge"]["face_up"]), n
        assert [d.get("data-count") for d in pieces(root, "doge-deck")] == [str(view["doge"]["face_down"])], n
        supply = {p.get("data-id"): int(p.get("data-count", "-1")) for p in pieces(root, "supply-cube")}
        assert supply == view["goods_supply"], n
        seen["sailor"] += sailors
        seen["cube"] += cubes
        seen["galley"] += len(view["galleys"])
    assert all(seen.values()), seen  # the game really had sailors, cubes and galleys to count


def test_forts_basilicas_and_warehouse_cubes_sit_on_their_port(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    view = copy.deepcopy(GAME.view(states[len(states) // 2], None))
    view["ports"]["genova"].update(fort=True, owner=1, sailors=2)
    view["ports"]["venezia"].update(basilica=True, warehouse=["gold", "marble"])
    root = drawn(view)
    port = {p.get("data-id"): p for p in pieces(root, "port")}
    assert [f.get("data-id") for f in pieces(port["genova"], "fort")] == ["genova"]
    assert [b.get("data-id") for b in pieces(port["venezia"], "basilica")] == ["venezia"]
    assert [title(c).split()[0] for c in pieces(port["venezia"], "cube")] == ["gold", "marble"]
    assert len(pieces(port["genova"], "sailor")) == 2
    assert "Genova: owned by Ben" in title(port["genova"]) and "a fort" in title(port["genova"])


def test_a_galley_is_drawn_in_its_zone_with_its_crew_and_cargo(played: tuple[list[Any], list[State]]) -> None:
    events, states = played
    view = GAME.view(states[first(events, ev.GoodBought)], None)
    root = drawn(view)
    for galley in pieces(root, "galley"):
        data = view["galleys"][galley.get("data-id")]
        assert data["zone"] in title(galley) and NAMES[data["owner"]] in title(galley)
        assert len(pieces(galley, "sailor")) == data["sailors"]
        assert sorted(title(c).split()[0] for c in pieces(galley, "cube")) == sorted(data["goods"])
    assert any(view["galleys"][g]["goods"] for g in view["galleys"])  # a galley with cargo was looked at


def test_ports_stand_where_the_cities_are() -> None:
    """The projection keeps the map's geography: west is left, north is up."""
    view = GAME.view(fold(GAME, GAME.begin(EDITION), GAME.setup(EDITION, {"players": 3}, _chance())), None)
    root = drawn(view)
    at = {}
    for port in pieces(root, "port"):
        circle = next(port.iter("{http://www.w3.org/2000/svg}circle"))
        at[port.get("data-id")] = (float(circle.get("cx", "0")), float(circle.get("cy", "0")))
    geo = {pid: LAYOUT["ports"][pid]["at"] for pid in at}
    assert len(at) == len(EDITION.data["ports"])
    for a in at:
        for b in at:
            if geo[a][0] < geo[b][0]:
                assert at[a][0] < at[b][0], (a, b)
            if geo[a][1] > geo[b][1]:
                assert at[a][1] < at[b][1], (a, b)


def _chance() -> SeededChance:
    return SeededChance("board-setup")


def test_the_public_drawing_does_not_depend_on_hidden_ducats(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    state = states[len(states) // 2]
    richer = replace(state, money=tuple(m + 7 for m in state.money))
    public = board.draw(public_view(GAME, state, 4), None, LAYOUT, EDITION, NAMES)
    assert public == board.draw(public_view(GAME, richer, 4), None, LAYOUT, EDITION, NAMES)
    assert board.draw(GAME.view(state, None), None, LAYOUT, EDITION, NAMES) != board.draw(GAME.view(richer, None), None, LAYOUT, EDITION, NAMES)
    purses = pieces(ET.fromstring(public), "ducats")
    assert len(purses) == 4
    for purse in purses:
        assert purse.get("data-hidden") == "true" and title(purse).endswith("hidden")
        assert not any((t.text or "").strip().isdigit() for t in purse.iter("{http://www.w3.org/2000/svg}text"))


def test_a_seat_sees_its_own_purse_and_no_other(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    state = states[len(states) // 2]
    root = drawn(GAME.view(state, 2))
    purses = {p.get("data-id"): p for p in pieces(root, "ducats")}
    assert purses["2"].get("data-hidden") == "false" and title(purses["2"]).endswith(f": {state.money[2]}")
    assert all(purses[s].get("data-hidden") == "true" for s in ("0", "1", "3"))


def test_a_sailing_galley_is_outlined_with_its_wake(played: tuple[list[Any], list[State]]) -> None:
    events, states = played
    n = first(events, ev.Sailed)
    root = drawn(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    moved = str(events[n - 1].galley)
    assert changed(root, "galley") == {moved}
    assert [w.get("data-id") for w in pieces(root, "wake")] == [moved]
    assert changed(root, "port") == set()


def test_a_sale_outlines_the_port_and_the_galley(played: tuple[list[Any], list[State]]) -> None:
    events, states = played
    n = first(events, ev.GoodSold)
    sale = events[n - 1]
    root = drawn(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    assert changed(root, "port") == {sale.port}
    assert str(sale.galley) in changed(root, "galley")
    assert any("changed" in (s.get("class") or "") for s in pieces(root, "seat"))


def test_a_doge_card_moves_the_white_token(played: tuple[list[Any], list[State]]) -> None:
    events, states = played
    n = first(events, ev.DogeCardDrawn)
    root = drawn(GAME.view(states[n], None), GAME.view(states[n - 1], None))
    assert len(changed(root, "doge-card")) == 1
    moved = events[n - 1].track_to != states[n - 1].track
    assert changed(root, "white-token") == ({"track"} if moved else set())


def test_nothing_is_outlined_without_a_previous_step(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    svg = board.draw(GAME.view(states[len(states) // 2], None), None, LAYOUT, EDITION, NAMES)
    assert "changed" not in svg and "halo" not in svg


def test_a_sunk_galley_leaves_a_wreck() -> None:
    view = GAME.view(fold(GAME, GAME.begin(EDITION), GAME.setup(EDITION, {"players": 3}, _chance())), None)
    before = copy.deepcopy(view)
    before["galleys"] = {"3": {"owner": 1, "zone": "Ionian Sea", "sailors": 2, "goods": ["wine"]}}
    root = drawn(view, before)
    assert [w.get("data-id") for w in pieces(root, "wreck")] == ["3"]
    assert "Ionian Sea" in title(pieces(root, "wreck")[0])


def test_every_piece_has_a_tooltip(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    for n in (0, 40, len(states) - 1):
        root = drawn(GAME.view(states[n], None), GAME.view(states[n - 1], None) if n else None)
        kinds = [e for e in root.iter() if e.get("data-kind")]
        assert len(kinds) > 50
        untitled = [(e.get("data-kind"), e.get("data-id")) for e in kinds if not title(e).strip()]
        assert untitled == [], n


def test_the_document_is_an_accessible_svg_with_escaped_names(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    names = ['<b>Ada</b> & "co"', "Ben", "Cleo", "Dario"]
    root = drawn(GAME.view(states[-1], None), None, names)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img" and "Serenissima" in (root.get("aria-label") or "")
    assert root.get("viewBox") == " ".join(str(v) for v in LAYOUT["viewBox"])
    seat = next(s for s in pieces(root, "seat") if s.get("data-id") == "0")
    assert title(seat).startswith('<b>Ada</b> & "co"')
    assert all(e.get("aria-label") for e in root.iter() if e.get("role") == "group")


def test_names_are_not_mixed_up_between_drawings(played: tuple[list[Any], list[State]]) -> None:
    """Pieces are kept once drawn; a drawing for other names must not reuse them."""
    _, states = played
    view = GAME.view(states[60], None)
    ada = board.draw(view, None, LAYOUT, EDITION, NAMES)
    zoe = board.draw(view, None, LAYOUT, EDITION, ["Zoe", "Ben", "Cleo", "Dario"])
    assert "Ada" in ada and "Ada" not in zoe and "Zoe" in zoe


def test_the_board_is_drawn_through_the_viewer_registry(played: tuple[list[Any], list[State]]) -> None:
    _, states = played
    svg = boards.draw("serenissima", GAME.view(states[30], None), None, EDITION, NAMES)
    assert len(pieces(ET.fromstring(svg), "port")) == len(EDITION.data["ports"])


def test_the_layout_covers_every_id_of_the_edition() -> None:
    assert EDITION.id in LAYOUT["editions"]
    assert board.missing(LAYOUT, EDITION) == []
    assert set(LAYOUT["ports"]) == set(EDITION.data["ports"])
    assert set(LAYOUT["zones"]) == set(EDITION.data["sea_zones"])


def test_an_edition_with_a_new_port_is_reported_missing() -> None:
    raw = yaml.safe_load((resources.files("domain.serenissima") / "edition.yaml").read_bytes())
    raw["id"] = "serenissima-with-malta"
    raw["data"]["ports"]["malta"] = {"name": "La Valletta", "zone": "ionian", "produces": "stone", "size": 3, "starting": False}
    extra = GAME.load_edition(yaml.safe_dump(raw, allow_unicode=True).encode(), "<test>")
    assert board.missing(LAYOUT, extra) == ["port malta"]
    with pytest.raises(boards.NoLayout):
        boards.layout_for("serenissima", extra)


def test_everything_placed_lies_on_the_canvas() -> None:
    x0, y0, w, h = LAYOUT["viewBox"]
    root = drawn(GAME.view(fold(GAME, GAME.begin(EDITION), GAME.setup(EDITION, {"players": 4}, _chance())), None))
    for e in root.iter():
        for ax, ay in (("x", "y"), ("cx", "cy"), ("x1", "y1"), ("x2", "y2")):
            if e.get(ax) is not None and e.get(ay) is not None:
                x, y = float(e.get(ax, "0")), float(e.get(ay, "0"))
                assert x0 <= x <= x0 + w and y0 <= y <= y0 + h, (e.tag, e.get("data-kind"), x, y)
    card = LAYOUT["port_card"]
    for pid, port in board._board(LAYOUT, EDITION).card.items():
        assert x0 <= port[0] and port[0] + card["width"] <= x0 + w and y0 <= port[1] and port[1] + card["height"] <= y0 + h, pid
