"""The Città-Stato board drawn as SVG: pieces match the view, secrets stay hidden, changes are marked,
every piece has a tooltip, and the layout file places every id of the edition."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

import yaml

from domain.citta_stato import GAME
from domain.kernel import thaw
from domain.kernel.bots import play_bot
from domain.kernel.selfplay import play_random
from domain.records.views import public_view
from replay_viewer.boards import citta_stato as citta_board
from replay_viewer.boards import draw as draw_title
from replay_viewer.boards import layout_for
from replay_viewer.boards.citta_stato import draw, missing_positions
from replay_viewer.boards.svg import width

EDITION = GAME.default_edition()
LAYOUT = layout_for("citta-stato", EDITION)
NAMES = ["Ada", "Ben", "Cleo"]
SVG = "{http://www.w3.org/2000/svg}"


@cache
def game(players: int = 3, solo: bool = False) -> tuple[Any, ...]:
    """Every state of one seeded greedy-bot game, step by step (index = step)."""
    options: dict[str, Any] = {"players": 2, "solo": {"scenario": 1, "game": 1}} if solo else {"players": players}
    # greedy play for the table, random play for the solo game (the Ghost's many draws make the bot slow there)
    played = (play_random if solo else play_bot)(GAME, EDITION, options, f"board-test-{players}-{solo}")
    states = [GAME.begin(EDITION)]
    for entry in played.entries:
        for e in entry.events:
            states.append(GAME.evolve(states[-1], e))
    return tuple(states)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img" and root.get("aria-label")
    return root


def pieces(root: ET.Element, kind: str) -> list[ET.Element]:
    return [el for el in root.iter() if el.get("data-kind") == kind]


def title(el: ET.Element) -> str:
    t = el.find(f"{SVG}title")
    return "" if t is None or t.text is None else t.text


def drawn(step: int, seat: int | None | str = None, previous: bool = True, players: int = 3) -> tuple[ET.Element, dict[str, Any]]:
    """The drawing of `step` as one reader sees it: a seat, None (all-seeing) or 'public'."""
    states = game(players)

    def view(k: int) -> dict[str, Any]:
        if seat == "public":
            return public_view(GAME, states[k], players)  # type: ignore[no-any-return]
        return GAME.view(states[k], seat)  # type: ignore[arg-type]

    v = view(step)
    return parse(draw(v, view(step - 1) if previous and step > 0 else None, LAYOUT, EDITION, NAMES)), v


def middle() -> int:
    return len(game()) // 2


def test_pieces_match_the_view() -> None:
    root, v = drawn(middle())
    assert len(pieces(root, "cube")) == sum(len(row["cubes"]) for row in v["market"])
    assert {(p.get("data-colour"), int(p.get("data-row", 0))) for p in pieces(root, "cube")} == {
        (c, r + 1) for r, row in enumerate(v["market"]) for c in row["cubes"]}
    seats = v["seats"]
    assert sorted(int(p.get("data-value", -99)) for p in pieces(root, "vp-marker")) == sorted(s["vp"] for s in seats)
    assert sorted(int(p.get("data-value", -99)) for p in pieces(root, "form-marker")) == sorted(s["form"]["space"] for s in seats)
    assert len(pieces(root, "war-disc")) == len(v["warfare"])
    for kind, field in (("supply", "supply"), ("banners", "banners"), ("burned", "burned")):
        found = {(int(p.get("data-seat", -1)), p.get("data-colour")): int(p.get("data-count", -1)) for p in pieces(root, kind)}
        assert found == {(i, c): n for i, s in enumerate(seats) for c, n in s[field].items()}, kind
    tracks = {(int(p.get("data-seat", -1)), p.get("data-colour")): int(p.get("data-value", -1)) for p in pieces(root, "track-marker")}
    assert tracks == {(i, t): n for i, s in enumerate(seats) for t, n in s["tracks"].items()}
    for i, s in enumerate(seats):
        discs = [int(p.get("data-value", -1)) for p in pieces(root, "disc") if p.get("data-seat") == str(i)]
        assert discs == s["war_discs"]
        assert [p.get("data-count") for p in pieces(root, "crowns") if p.get("data-seat") == str(i)] == [str(s["crowns"])]
    cards = {p.get("data-id"): p.get("data-card") for p in pieces(root, "card")}
    for role in ("present", "future"):
        for c, label in v[role].items():
            assert cards[f"{role}-{c}"] == (label.split()[0] if label else None)
    assert len(pieces(root, "scheme")) == len(v["schemes"])


def test_hidden_values_are_not_drawn() -> None:
    step = middle()
    public, pv = drawn(step, "public")
    everything, av = drawn(step, None)
    own, _ = drawn(step, 0)
    public_text, own_text = ET.tostring(public, encoding="unicode"), ET.tostring(own, encoding="unicode")
    secrets = [s["republic"] for s in av["seats"]]
    assert all(secrets)
    for i, rid in enumerate(secrets):
        assert not re.search(rf"\b{rid}\b", public_text), f"seat {i}'s Republic card shows in the public drawing"
        assert bool(re.search(rf"\b{rid}\b", own_text)) == (i == 0 or rid in av["republic_pool"])
    assert all(p.get("data-card") is None for p in pieces(public, "republic-card"))
    # bags: contents only where the view gives them
    assert all(p.find(f"{SVG}rect") is None for p in pieces(public, "bag"))
    assert len(pieces(everything, "bag")[0].findall(f"{SVG}g")) == 6
    # unplayed war discs: values for their owner only
    assert all(p.get("data-value") is None for p in pieces(public, "disc"))
    assert {p.get("data-seat") for p in pieces(own, "disc") if p.get("data-value") is not None} == {"0"}
    assert sum(1 for p in pieces(everything, "disc") if p.get("data-value") is not None) == sum(
        len(s["war_discs"]) for s in av["seats"])
    assert pv["seats"][1]["bag"] != av["seats"][1]["bag"]  # the public view really hides something here


def first_step(states: tuple[Any, ...], differs: Any) -> int:
    views = [GAME.view(s, None) for s in states]
    return next(n for n in range(2, len(views)) if differs(views[n - 1], views[n]))


def test_changes_are_marked() -> None:
    states = game()
    n = first_step(states, lambda a, b: a["seats"] and b["seats"] and a["market"] != b["market"])
    root, v = drawn(n)
    before = GAME.view(states[n - 1], None)
    cells = {(c, r + 1) for r in range(len(v["market"]))
             for c in "YWGOBP" if (c in v["market"][r]["cubes"]) != (c in before["market"][r]["cubes"])}
    marked = {(p.get("data-colour"), int(p.get("data-row", 0))) for p in pieces(root, "market-space")}
    assert marked == cells and cells
    assert all("changed" in (p.get("class") or "") for p in pieces(root, "market-space"))
    for p in pieces(root, "supply"):
        i, c = int(p.get("data-seat", -1)), p.get("data-colour")
        moved = v["seats"][i]["supply"][c] != before["seats"][i]["supply"][c]
        assert ("changed" in (p.get("class") or "")) == moved
    unmarked, _ = drawn(n, previous=False)
    assert not [el for el in unmarked.iter() if "changed" in (el.get("class") or "")]


def test_every_piece_has_a_title_and_groups_a_label() -> None:
    root, _ = drawn(middle())
    kinds = {el.get("data-kind") for el in root.iter() if el.get("data-kind")}
    assert {"cube", "supply", "bag", "card", "scheme", "vp-marker", "form-marker", "track-marker", "disc"} <= kinds
    for el in root.iter():
        if el.get("data-kind"):
            assert el.get("data-id") and title(el), el.attrib
            assert list(el)[0].tag == f"{SVG}title"
        if el.get("role") == "group":
            assert el.get("aria-label")
    supply = next(p for p in pieces(root, "supply") if p.get("data-seat") == "1" and p.get("data-colour") == "O")
    assert "orange" in title(supply) and "Ben" in title(supply)


def test_layout_covers_every_id_of_the_edition() -> None:
    assert missing_positions(LAYOUT, EDITION) == []
    smaller = copy.deepcopy(LAYOUT)
    del smaller["republic_track"]["spaces"][9]
    del smaller["player_board"]["supply"]["cubes"]["P"]
    assert missing_positions(smaller, EDITION) == ["republic space 9", "supply colour P"]
    raw = {"id": EDITION.id, "title": EDITION.title, "data": thaw(EDITION.data), "provenance": thaw(EDITION.provenance)}
    raw["data"]["republic_track"].update(spaces=10, crowns=[*raw["data"]["republic_track"]["crowns"], 0])
    raw["data"]["warfare_spaces"] = 6
    grown = GAME.load_edition(yaml.safe_dump(raw, allow_unicode=True).encode(), "grown.yaml")
    assert grown.data["republic_track"]["spaces"] == 10
    assert missing_positions(LAYOUT, grown) == ["warfare space 6", "republic space 10"]


def test_solo_game_draws_the_ghost_and_the_scenario() -> None:
    states = game(solo=True)
    v = GAME.view(states[len(states) // 2], 0)
    root = parse(draw(v, None, LAYOUT, EDITION, ["Ada"]))
    boards = [el for el in root.iter() if el.get("class") == "player-board"]
    assert [el.get("aria-label") for el in boards] == ["Ada's board", "the Ghost's board"]
    assert [p.get("data-seat") for p in pieces(root, "republic-card") if p.get("data-id", "").startswith("republic-")] == ["0"]
    assert any(el.get("aria-label") == "Solo game" for el in root.iter())
    assert str(v["solo"]["required_score"]) in title(pieces(root, "solo-score")[0])
    ghost_bag = next(p for p in pieces(root, "bag") if p.get("data-seat") == "1")
    assert ghost_bag.get("data-count") == str(v["seats"][1]["bag"])


def test_every_step_draws_from_before_setup_to_the_end() -> None:
    states = game()
    assert not pieces(parse(draw(GAME.view(states[0], None), None, LAYOUT, EDITION, NAMES)), "supply")
    views = [GAME.view(s, None) for s in states[::7]] + [GAME.view(states[-1], None)]
    pairs = list(zip(views, views[1:], strict=False))
    first = []
    for before, now in pairs:
        first.append(draw(now, before, LAYOUT, EDITION, NAMES))
        assert len(pieces(parse(first[-1]), "vp-marker")) == len(now["seats"])
    # parts of the board are kept between steps: drawn afresh and in another order, every step comes out the same
    citta_board._SECTIONS.clear()
    backwards = [draw(now, before, LAYOUT, EDITION, NAMES) for before, now in reversed(pairs)]
    assert backwards[::-1] == first
    final = parse(draw_title("citta-stato", views[-1], views[-2], EDITION, NAMES))
    assert pieces(final, "round-marker")[0].get("data-value") == str(EDITION.data["rounds"])


def test_a_long_name_is_cut_to_its_header_and_kept_whole_in_the_titles() -> None:
    """A name with spaces and apostrophes, longer than a player board's header: cut with an ellipsis before the
    first player's mark and the VP box (it ran under both), whole in the board's title and the seats' list."""
    names = ["Anna Maria de la Cruz", "D'Angelo Bartolomeo", "Zoë"]
    step = middle()
    v = GAME.view(game()[step], None)
    root = parse(draw(v, None, LAYOUT, EDITION, names))
    pb = LAYOUT["player_board"]
    boards = [el for el in root.iter() if "player-board" in (el.get("class") or "")]
    assert len(boards) == 3
    for i, board in enumerate(boards):
        header = next(t for t in board.iter(f"{SVG}text") if (t.get("x"), t.get("y")) == tuple(str(c) for c in pb["name"]))
        shown = "".join(header.itertext()).removeprefix("▶ ")
        right = pb["first_player"][0] - 16 if v.get("first_player") == i else pb["vp"][0] - pb["vp_box"][0]
        assert width("".join(header.itertext()), LAYOUT["font"]["large"], bold=True) <= right - pb["name"][0], shown
        if names[i] == "Zoë":
            assert shown == "Zoë"
        else:
            assert shown.endswith("…") and names[i].startswith(shown[:-1].rstrip()), shown
        assert names[i] in (board.get("aria-label") or title(board)), "the whole name stays readable"
