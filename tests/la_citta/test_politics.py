"""Every politics card: its price, its effect, and when it may not be taken."""

from __future__ import annotations

import pytest

from domain.kernel import RuleViolation, SeededChance
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.state import points
from tests.la_citta.helpers import ScriptedChance, advance, fold, play, position, to_tally

ALL = ["palace", "hospital", "public_bath", "cathedral", "university", "master_builder", "bread_and_games"]


def town(gold=10, display=ALL, citizens=6, buildings=(), year=1):
    return position(2, cities=[(0, 68, citizens), (1, 132, 3)], buildings=buildings, gold=[gold, 0], display=display, year=year)


@pytest.mark.parametrize(
    ("card", "building", "site", "cost", "arches"),
    [
        ("palace", "palace", 75, 1, {"culture": 2}),
        ("hospital", "hospital", 75, 1, {"education": 1, "health": 1}),
        ("public_bath", "public_bath", 55, 1, {"health": 2}),
        ("cathedral", "cathedral", 75, 3, {"culture": 3}),
        ("university", "university", 75, 3, {"education": 3}),
    ],
)
def test_building_cards(card, building, site, cost, arches):
    s = town(buildings=[(0, 68, 61, "school"), (0, 68, 54, "statue")] if site == 55 else ())
    chance = ScriptedChance(politics=[["golden_times"]])
    s2, events = play(s, cm.Build(0, card, building, 68, site), chance)
    assert events[0] == ev.PoliticsCardTaken(0, card, cost)
    assert events[2] == ev.PoliticsDealt(("golden_times",))
    assert s2.gold[0] == 10 - cost
    assert card not in s2.display or s2.display.count(card) == s.display.count(card) - 1
    assert len(s2.display) == 7
    for service, n in arches.items():
        assert points(s2, s2.cities[68], service) - points(s, s.cities[68], service) == n


def test_public_bath_needs_a_lake_but_the_hospital_does_not():
    s = town()
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.Build(0, "public_bath", "public_bath", 68, 75), SeededChance("x"))
    assert info.value.rule == "la-citta/build/needs-lake"
    assert not s.land.lake[75]
    play(s, cm.Build(0, "hospital", "hospital", 68, 75))


@pytest.mark.parametrize(
    ("building", "cost"), [("farm_house", 1), ("market_place", 1), ("hospital", 2), ("palace", 2), ("cathedral", 4), ("university", 4)]
)
def test_master_builder_prices(building, cost):
    s = town(gold=cost)
    s2, events = play(s, cm.Build(0, "master_builder", building, 68, 75))
    assert events[0] == ev.PoliticsCardTaken(0, "master_builder", cost) and s2.gold[0] == 0
    poorer = town(gold=cost - 1)
    with pytest.raises(RuleViolation) as info:
        GAME.decide(poorer, cm.Build(0, "master_builder", building, 68, 75), SeededChance("x"))
    assert info.value.rule == "la-citta/politics/cannot-pay"
    assert cm.Build(0, "master_builder", building, 68, 75) not in rules.legal(poorer)


@pytest.mark.parametrize(("figures", "cost"), [(1, 0), (2, 2), (3, 5)])
def test_bread_and_games(figures, cost):
    s = town(gold=5, display=["bread_and_games"], buildings=[(0, 68, 75, "hospital")])
    before = points(s, s.cities[68], "health"), points(s, s.cities[68], "education")
    s2, _ = play(s, cm.BreadAndGames(0, 75, "health", figures))
    assert s2.gold[0] == 5 - cost and s2.figures[0] == figures
    assert points(s2, s2.cities[68], "health") == before[0] + figures, "the arch chosen when placing counts"
    assert points(s2, s2.cities[68], "education") == before[1], "not the hospital's other arch"


def test_bread_and_games_limits_and_year_end():
    s = town(gold=20, display=["bread_and_games"] * 3, buildings=[(0, 68, 75, "school"), (0, 68, 61, "farm_house")])
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.BreadAndGames(0, 61, "culture", 1), SeededChance("x"))
    assert info.value.rule == "la-citta/bread-and-games/no-arch"
    s, _ = play(s, cm.BreadAndGames(0, 75, "education", 3))
    s, _ = play(s, cm.TakeGold(1))
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.BreadAndGames(0, 75, "education", 2), SeededChance("x"))
    assert info.value.rule == "la-citta/figures/none-left", "4 coloured figures per year"
    assert all(c.figures <= 1 for c in rules.legal(s) if isinstance(c, cm.BreadAndGames))
    s = fold(s, [ev.YearEnded(1)])
    assert s.bread == () and s.figures == (0, 0), "figures come back at the end of the year"


def test_golden_times_options_and_cap():
    for citizens, cost in ((1, 0), (2, 2), (3, 5)):
        s = town(gold=5, display=["golden_times"], citizens=2)
        s2, events = play(s, cm.GoldenTimes(0, 68, citizens))
        assert s2.gold[0] == 5 - cost and s2.cities[68].citizens == 2 + citizens
    s = town(gold=5, display=["golden_times"], citizens=4)
    s2, events = play(s, cm.GoldenTimes(0, 68, 3))
    assert events[1] == ev.CitizensArrived(0, 68, 1, 2), "citizens over the limit of 5 go back to the supply"
    assert s2.cities[68].citizens == 5 and s2.gold[0] == 0


def test_rich_harvest_doubles_one_farm_house_at_feeding():
    s = position(
        2,
        cities=[(0, 68, 9), (1, 132, 3)],
        buildings=[(0, 68, 75, "farm_house")],
        display=["rich_harvest", "rich_harvest"],
    )
    assert s.food[0] == 4 + 4
    for bad, rule in ((68, "la-citta/rich-harvest/not-a-farm-house"), (132, "la-citta/rich-harvest/not-a-farm-house")):
        with pytest.raises(RuleViolation) as info:
            GAME.decide(s, cm.RichHarvest(0, bad), SeededChance("x"))
        assert info.value.rule == rule
    s, _ = play(s, cm.RichHarvest(0, 75))
    s, _ = play(s, cm.TakeGold(1))
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.RichHarvest(0, 75), SeededChance("x"))
    assert info.value.rule == "la-citta/rich-harvest/twice"
    s, events = advance(to_tally(s, ["health", "health", "health"]))
    counted = next(e for e in events if isinstance(e, ev.FeedingCounted))
    assert counted.food[0] == 8 + 4 and counted.shortfall[0] == 0, "9 citizens fed by 8 + a second harvest of 4"


def test_rich_harvest_not_in_the_last_year():
    s = position(2, cities=[(0, 68, 4), (1, 132, 3)], buildings=[(0, 68, 75, "farm_house")], display=["rich_harvest"], year=6)
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.RichHarvest(0, 75), SeededChance("x"))
    assert info.value.rule == "la-citta/rich-harvest/last-year"
    assert not any(isinstance(c, cm.RichHarvest) for c in rules.legal(s))


def test_polling_the_people_look_two_or_three():
    s = position(2, cities=[(0, 68, 3), (1, 132, 3)], gold=[2, 0], display=["polling_the_people"] * 2)
    assert {c.slots for c in rules.legal(s) if isinstance(c, cm.Poll)} == {(0, 1), (0, 2), (1, 2), (0, 1, 2)}
    chance = ScriptedChance(voice=[["education", "health"]])
    s, events = play(s, cm.Poll(0, (0, 2)), chance)
    assert events[1] == ev.VoicePolled(0, (0, 2), ("education", "health"))
    assert GAME.view(s, 0)["voice"]["face_down"] == ["education", None, "health"]
    assert GAME.view(s, 1)["voice"]["face_down"] == [None, None, None], "only the polling seat saw them"
    s, _ = play(s, cm.TakeGold(1))
    assert s.gold[0] == 2, "looking at 2 is free"
    s = s._replace(gold=(1, 2))
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.Poll(0, (0, 1, 2)), SeededChance("x"))
    assert info.value.rule == "la-citta/politics/cannot-pay", "looking at 3 costs 2 gold"
    s = s._replace(gold=(2, 0))
    chance = ScriptedChance(voice=[["culture"]])
    s, events = play(s, cm.Poll(0, (0, 1, 2)), chance)
    assert events[1] == ev.VoicePolled(0, (0, 1, 2), ("education", "culture", "health")), "seen cards stay where they were"
    assert s.gold[0] == 0 and sum(s.voice_deck) == 27 - 4


def test_a_card_is_offered_only_when_it_can_be_carried_out():
    s = position(2, cities=[(0, 68, 1), (1, 132, 3)], gold=[9, 0], display=["palace", "bread_and_games", "rich_harvest"])
    offered = rules.legal(s)
    assert not any(isinstance(c, cm.Build) and c.card == "palace" for c in offered), "no spare citizen"
    assert not any(isinstance(c, (cm.BreadAndGames, cm.RichHarvest)) for c in offered), "no arch, no farm house"
