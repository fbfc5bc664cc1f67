"""Setup steps 1-13 for 2 to 5 players."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.citta_stato.edition import CI, COLOURS
from domain.kernel import ObservedChance, Outcome, RuleViolation, SeededChance

from .helpers import EDITION, GAME, new_game, total_cubes


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_by_player_count(players: int) -> None:
    s = new_game(players, f"setup-{players}")
    t = s.t
    assert s.phase == "turns" and s.round == 1 and s.current == s.first
    assert s.expansion == (players == 5)
    assert total_cubes(s) == (110 if players == 5 else 88)
    assert s.upgrade == {2: 3, 3: 4, 4: 6, 5: 7}[players]
    assert len({x.city for x in s.seats}) == players
    for x in s.seats:
        city = t.cities[x.city]["cubes"]
        extra = [b - k for b, k in zip(x.bag, (1, 0, 1, 1, 0, 1), strict=True)]
        assert min(extra) >= 0 and sum(extra) <= 2  # a full Market column sends the cube to its owner's bag
        assert Counter(c for c in COLOURS for _ in range(x.supply[CI[c]])) == Counter(city[:6])
        assert x.tracks == (1, 1, 1, 1) and x.form == 5 and x.vp == 0
        assert x.discs == ((1, 2, 3, 4, 5) if players <= 3 else (0, 1, 2, 3, 4, 5))
    overflow = sum(sum(x.bag) - 4 for x in s.seats)
    assert sum(sum(col) for col in s.market) + overflow == 2 * players
    assert overflow == 0 or players == 5
    # coloured cubes not used go to the box; white and black stay in the supply
    for c in "YGOP":
        assert s.reserve[CI[c]] == 0
    assert s.reserve[CI["W"]] == (25 if players == 5 else 20)
    # Republic cards: plain cards, by the deal deck for this player count
    forms = Counter(t.republic_form[x.republic] for x in s.seats)
    deal = t.deal[players]
    assert all(forms[f] <= deal[f] for f in forms) and all(t.republic_crowns[x.republic] == 0 for x in s.seats)
    assert sorted(s.pool) == ["R1", "R2", "R3"]
    # four schemes on the board, six face-up decks each with a Present and a Future card
    assert len(s.schemes) == 4 and all(s.schemes_up)
    assert all(s.present) and all(s.future)
    per_colour = 10 if players == 5 else 8
    for i in range(6):
        assert len(s.decks[i]) == per_colour - 2


def test_pisa_and_genova_take_a_sealed_personal_scheme_before_the_board_is_filled() -> None:
    found = 0
    for k in range(60):
        s = new_game(4, f"seal-{k}")
        for x in s.seats:
            if x.city in ("PIS", "GEN"):
                seal = "blue" if x.city == "PIS" else "red"
                assert s.t.schemes[x.scheme]["seal"] == seal and x.scheme not in s.schemes
                found += 1
            else:
                assert x.scheme == ""
    assert found > 10


def test_market_placement_in_player_order_overflows_to_the_owners_bag() -> None:
    outcomes = [
        Outcome("draw", "deck:cities", ("ANC", "RAG", "GAE", "AMA", "VEN")),
        Outcome("draw", "schemes", ("S1", "S2", "S3", "S4")),
        Outcome("draw", "deck:republic", ("R4", "R5", "R6", "R8", "R9")),
        *(Outcome("draw", f"deck:{c}", (f"{c}1", f"{c}2")) for c in COLOURS),
        Outcome("draw", "first-player", (2,)),
    ]
    chance = ObservedChance(outcomes)
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 5}, chance):
        s = GAME.evolve(s, e)
    assert not chance.unused
    # purple: GAE (seat 2), AMA (3), VEN (4) fill the column; RAG (seat 1) places last and overflows
    assert s.market[CI["P"]] == (True, True, True)
    assert s.seats[1].bag[CI["P"]] == 2 and s.seats[0].bag[CI["P"]] == 1
    assert s.first == 2 and s.present[CI["Y"]] == "Y1" and s.future[CI["Y"]] == "Y2"


def test_setup_with_an_impossible_outcome_is_refused() -> None:
    with pytest.raises(RuleViolation) as err:
        GAME.setup(EDITION, {"players": 2}, ObservedChance([Outcome("draw", "deck:cities", ("GAE", "AMA"))]))
    assert err.value.rule == "chance/draw/not-there"  # Gaeta is an expansion city


@pytest.mark.parametrize("options", [{"players": 1}, {"players": 6}, {"players": 5, "expansion": False}, {"players": 3, "colour": "red"}, {}])
def test_bad_setup_options(options: dict) -> None:
    with pytest.raises(RuleViolation) as err:
        GAME.setup(EDITION, options, SeededChance("x"))
    assert err.value.rule == "citta-stato/setup/options"


def test_expansion_with_fewer_players() -> None:
    s = new_game(3, "exp3", expansion=True)
    assert s.expansion and total_cubes(s) == 110 and len(s.decks[0]) == 8
