"""Illegal commands are refused with the rule they break, and nothing changes."""

from __future__ import annotations

import copy

import pytest

from domain.kernel import MalformedCommand, RuleViolation, SeededChance
from domain.la_citta import GAME
from domain.la_citta import commands as cm
from tests.la_citta.helpers import play, position


def refused(s, cmd, rule):
    view = copy.deepcopy(GAME.view(s, None))
    cities = dict(s.cities)
    chance = SeededChance("bad")
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cmd, chance)
    assert info.value.rule == rule, info.value
    assert GAME.view(s, None) == view and s.cities == cities, "state unchanged"
    return info.value


@pytest.fixture
def town():
    """Seat 0: castle L68 (4 citizens) with a market at L61; seat 1: castle on junction J41 next door."""
    return position(
        2,
        cities=[(0, 68, 4), (1, 41, 3)],
        buildings=[(0, 68, 61, "market_place")],
        display=["palace", "palace", "hospital", "cathedral", "university", "master_builder", "golden_times"],
    )


def test_building_off_the_city_edge(town):
    v = refused(town, cm.Build(0, "action", "statue", 68, 86), "la-citta/build/not-adjacent")
    assert v.facts["hex"] == 86


def test_building_next_to_another_city(town):
    v = refused(town, cm.Build(0, "action", "statue", 68, 54), "la-citta/build/touches-other-city")
    assert list(v.facts["cities"]) == [41]


def test_building_without_a_spare_citizen():
    s = position(2, cities=[(0, 68, 2), (1, 132, 3)], buildings=[(0, 68, 75, "farm_house")])
    v = refused(s, cm.Build(0, "action", "statue", 68, 61), "la-citta/build/no-spare-citizen")
    assert v.facts["on_castle"] == 1


def test_fountain_away_from_a_lake(town):
    refused(town, cm.Build(0, "action", "fountain", 68, 75), "la-citta/build/needs-lake")


def test_second_market(town):
    refused(town, cm.Build(0, "action", "market_place", 68, 75), "la-citta/build/second-market")


def test_second_new_city_in_a_year():
    s = position(2, cities=[(0, 68, 5), (1, 132, 3)])
    s, _ = play(s, cm.FoundCity(0, 36, 68))
    assert 36 in s.cities and s.cities[36].citizens == 3 and s.cities[68].citizens == 4
    s, _ = play(s, cm.TakeGold(1))
    refused(s, cm.FoundCity(0, 124, 68), "la-citta/found-city/once-per-year")


def test_politics_card_the_player_cannot_pay_for(town):
    v = refused(town, cm.Build(0, "palace", "palace", 68, 75), "la-citta/politics/cannot-pay")
    assert (v.facts["cost"], v.facts["gold"]) == (1, 0)
    refused(town, cm.GoldenTimes(0, 68, 2), "la-citta/politics/cannot-pay")


def test_castle_too_close_to_another_city(town):
    refused(town, cm.FoundCity(0, 85, 68), "la-citta/place/too-close")  # 3 lane steps from L61


def test_hex_outside_the_player_count_zones(town):
    v = refused(town, cm.FoundCity(0, 7, 68), "la-citta/place/zone")
    assert v.facts["zone"] == 3 and v.facts["allowed"] == 2
    refused(town, cm.FoundCity(0, 999, 68), "la-citta/place/off-board")


def test_other_refusals(town):
    refused(town, cm.TakeGold(1), "la-citta/turn")
    refused(town, cm.Build(0, "action", "palace", 68, 75), "la-citta/build/action-small")
    refused(town, cm.Build(0, "public_bath", "public_bath", 68, 75), "la-citta/politics/not-displayed")
    refused(town, cm.Build(0, "palace", "hospital", 68, 75), "la-citta/build/card-mismatch")
    refused(town, cm.Build(0, "action", "statue", 41, 40), "la-citta/build/not-your-city")
    refused(town, cm.BlindDraw(0), "la-citta/blind-draw/action-left")
    refused(town, cm.Demolish(0, 61), "la-citta/not-now")
    refused(town, cm.Build(0, "action", "statue", 68, 61), "la-citta/place/occupied")


def test_malformed_commands_never_reach_the_rules():
    for payload in (
        {"type": "la-citta/build", "seat": 0, "card": "action", "building": "statue", "city": 68},
        {"type": "la-citta/take-gold", "seat": True},
        {"type": "la-citta/take-gold", "seat": 0, "extra": 1},
        {"type": "la-citta/attract", "seat": 0, "city": 68, "service": "wealth"},
        {"type": "la-citta/fly", "seat": 0},
        {"type": "la-citta/poll", "seat": 0, "slots": [0, "1"]},
        ["la-citta/take-gold"],
    ):
        with pytest.raises(MalformedCommand):
            GAME.parse_command(payload)


def test_quick_parse_agrees_with_the_schemas():
    cases = [
        cm.Build(0, "action", "statue", 68, 75),
        cm.FoundCity(1, 36, 68),
        cm.BreadAndGames(0, 75, "health", 2),
        cm.Poll(0, (0, 2)),
        cm.SendAway(1, 68, 2),
        cm.Attract(0, 68, "culture"),
    ]
    for c in cases:
        payload = c.to_json()
        assert GAME.parse_command(payload) == c == cm.BOOK.parse(payload)
