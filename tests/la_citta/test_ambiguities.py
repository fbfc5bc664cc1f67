"""The 24 numbered ambiguities of the reference edition: the reading implemented, one test each
(those covered by a worked example or the politics tests point there)."""

from __future__ import annotations

import pytest

from domain.kernel import RuleViolation, SeededChance
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.state import neighbours
from tests.la_citta.helpers import advance, fold, play, position, to_tally


def refused(s, cmd, rule):
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cmd, SeededChance("x"))
    assert info.value.rule == rule, info.value


def steps(s, a, b):
    dist = {a: 0}
    queue = [a]
    for h in queue:
        for n in s.t.adj[h]:
            if s.t.allowed[s.zone] >> n & 1 and n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist[b]


@pytest.mark.parametrize(("other", "gap", "near"), [(54, 1, True), (41, 2, True), (40, 2, True), (32, 3, False)])
def test_01_neighbours_have_one_or_two_empty_hexes_between(other, gap, near):
    s = position(4, cities=[(0, 68, 3), (1, other, 3)])
    assert steps(s, 68, other) - 1 == gap
    assert (neighbours(s, s.cities[68]) == (other,)) is near


def test_01_own_cities_never_trade():
    s = position(2, cities=[(0, 68, 3), (0, 41, 3)])
    assert neighbours(s, s.cities[68]) == ()


def test_02_founding_distance_counts_every_hex_of_every_city_own_included():
    s = position(2, cities=[(0, 68, 5), (1, 132, 3)], buildings=[(0, 68, 75, "farm_house"), (0, 68, 86, "quarry")])
    site = next(h for h in rules.bits(s.t.allowed[2] & ~s.occupied) if steps(s, 68, h) >= 4 and steps(s, 86, h) <= 3)
    refused(s, cm.FoundCity(0, site, 68), "la-citta/place/too-close")
    far = next(h for h in rules.bits(s.t.allowed[2]) if all(steps(s, x, h) >= 4 for x in (68, 75, 86, 132)))
    play(s, cm.FoundCity(0, far, 68))


def test_03_corner_cutting_counts_for_adjacency_and_distance():
    s = position(2, cities=[(0, 68, 4), (1, 55, 3)], buildings=[(0, 68, 61, "statue")])
    assert 55 in s.t.adj[54] and 41 not in (61, 55)
    refused(s, cm.Build(0, "action", "school", 68, 54), "la-citta/build/touches-other-city")
    assert steps(s, 61, 55) == 2, "61-54-55 cuts the corner of junction J41"


def test_04_edge_terrain_counts_like_a_tile():
    s = position(2)
    assert s.t.touches[73] == ("E11", "S06") and s.land.lake[73] and s.land.food[73] == 2
    assert s.land.food[163] == 4, "edge farmland E06 (2) + tile S22 (2)"


def test_05_zones_limit_placement_not_terrain():
    s = position(2, cities=[(0, 68, 3), (1, 132, 3)])
    assert s.t.zone[37] == 2 and "S01" in s.t.touches[37] and s.land.food[37] == 2 + 3, "S01 is zone 3, still counted"
    refused(s, cm.FoundCity(0, 31, 68), "la-citta/place/zone")


def test_06_polling_offers_two_for_free_and_three_for_two_gold():
    info = GAME.default_edition().data["politics"]["polling_the_people"]["options"]
    assert [(o["cost"], o["look"]) for o in info] == [(0, 2), (2, 3)]  # behaviour: test_politics


def test_07_master_builder_medium_includes_the_public_bath():
    s = position(2, cities=[(0, 68, 6), (1, 132, 3)], buildings=[(0, 68, 61, "school"), (0, 68, 54, "statue")], gold=[2, 0], display=["master_builder"])
    s2, events = play(s, cm.Build(0, "master_builder", "public_bath", 68, 55))
    assert events[0] == ev.PoliticsCardTaken(0, "master_builder", 2)


def test_08_rich_harvest_lost_with_its_farm_house():
    s = position(
        2,
        cities=[(0, 75, 2), (1, 90, 2)],
        buildings=[(0, 75, 86, "statue"), (1, 90, 89, "farm_house")],
        display=["rich_harvest"],
        start=1,
    )
    s, _ = play(s, cm.RichHarvest(1, 89))
    assert s.harvest == ((1, 89),)
    s, events = advance(to_tally(s, ["culture"] * 3))
    assert ev.BuildingDemolished(1, 90, 89, "farm_house", 1) in events
    counted = next(e for e in events if isinstance(e, ev.FeedingCounted))
    assert counted.food[1] == 0, "no bonus from a farm house that is gone"


def test_09_bread_and_games_figures_on_a_demolished_building_stay_used():
    s = position(2, cities=[(0, 75, 2), (1, 90, 3)], buildings=[(0, 75, 86, "statue"), (1, 90, 89, "school")], display=["bread_and_games"], start=1)
    s, _ = play(s, cm.BreadAndGames(1, 89, "education", 1))
    s = s._replace(cities={**s.cities, 90: s.cities[90]._replace(citizens=1)}, supply=s.supply + 2)
    s = fold(s, [ev.BuildingDemolished(1, 90, 89, "school", 0)])
    assert s.bread == () and s.figures[1] == 1


def test_10_golden_times_may_overflow_the_cap():
    s = position(2, cities=[(0, 68, 5), (1, 132, 3)], display=["golden_times"])
    assert cm.GoldenTimes(0, 68, 1) in rules.legal(s)
    _, events = play(s, cm.GoldenTimes(0, 68, 1))
    assert events[1] == ev.CitizensArrived(0, 68, 0, 1)


def test_11_market_needs_no_spare_and_may_join_a_full_city():
    s = position(2, cities=[(0, 68, 5), (1, 132, 3)], buildings=[(0, 68, 75, "farm_house"), (0, 68, 61, "school"), (0, 68, 54, "statue"), (0, 68, 86, "quarry")])
    assert s.cities[68].on_castle == 1
    refused(s, cm.Build(0, "action", "statue", 68, 87), "la-citta/build/no-spare-citizen")
    s2, _ = play(s, cm.Build(0, "action", "market_place", 68, 87))
    assert s2.cities[68].citizens == 6


def test_12_citizens_above_a_lowered_cap_stay_but_do_not_grow():
    s = position(2, cities=[(0, 68, 7), (1, 132, 3)])
    s = fold(s, [ev.YearEnded(1)])
    s, events = advance(s)
    grew = next(e for e in events if isinstance(e, ev.PopulationGrew))
    assert 68 not in grew.cities and 132 in grew.cities and s.cities[68].citizens == 7


def test_13_relocation_pulls_one_from_each_weaker_neighbour_overflow_to_supply():
    s = position(3, cities=[(0, 68, 5), (1, 54, 1), (2, 86, 2)], buildings=[(0, 68, 75, "statue"), (2, 86, 87, "farm_house")])
    s = s._replace(cities={**s.cities, 54: s.cities[54]._replace(citizens=0)}, supply=s.supply + 1)
    s, events = advance(to_tally(s, ["culture"] * 3))
    pull = events[1]
    assert pull == ev.CityAttracted(0, 68, "culture", (86,), 0, 1), "L54 has no citizen to lose; the gain over 5 goes to the supply"


def test_14_a_tie_is_chosen_city_by_city():
    s = position(4, cities=[(0, 75, 2), (0, 158, 3), (1, 54, 2), (1, 165, 3)])
    s, _ = advance(to_tally(s, ["culture", "health", "health"]))
    assert rules.legal(s) == [cm.Attract(0, 75, "culture"), cm.Attract(0, 75, "health"), cm.Attract(0, 158, "culture"), cm.Attract(0, 158, "health")]


def test_15_demolition_from_the_edge_castle_last_food_returned():
    s = position(
        2,
        cities=[(0, 68, 3), (1, 132, 3)],
        buildings=[(0, 68, 75, "farm_house"), (0, 68, 86, "quarry"), (0, 68, 87, "school"), (0, 68, 61, "statue")],
    )
    s = fold(s, [ev.PhaseBegan("demolish-migration")])
    assert rules.pending_of(s).seat == 0 and rules.pending_of(s).kind == "demolish"
    assert sorted(c.hex for c in rules.legal(s)) == [61, 87], "only edge buildings"
    refused(s, cm.Demolish(0, 75), "la-citta/demolish/splits-city")
    refused(s, cm.Demolish(0, 68), "la-citta/demolish/castle-last")
    s, events = play(s, cm.Demolish(0, 87))
    s, events = play(s, cm.Demolish(0, 86))
    assert s.cities[68].buildings == ((75, "farm_house"), (61, "statue"))
    assert s.stock[s.t.pool_of["quarry"]] == 40 - 1


def test_16_starvation_the_player_chooses_where():
    s = position(2, cities=[(0, 73, 5), (0, 158, 4), (1, 132, 3)])
    s, events = advance(to_tally(s, ["culture"] * 3))
    assert rules.pending_of(s).kind == "send-away" and s.hungry[0] == 9 - 5
    assert cm.SendAway(0, 73, 4) in rules.legal(s) and cm.SendAway(0, 158, 4) in rules.legal(s)
    refused(s, cm.SendAway(0, 73, 5), "la-citta/feed/count")
    s, events = play(s, cm.SendAway(0, 158, 3))
    s, events = play(s, cm.SendAway(0, 73, 1))
    assert s.year == 2 and s.penalty == (True, False) and rules.pending_of(s).seat == 1
    s, events = play(s, cm.TakeGold(1))
    assert events[-2:] == [ev.TurnForfeited(0), ev.TurnEnded(0)], "the hungry player's first turn is lost"
    assert s.actions[0] == 2 and rules.pending_of(s).seat == 1


def test_17_passing_only_without_action_cards():
    s = position(2, cities=[(0, 68, 3), (1, 132, 3)])
    refused(s, cm.BlindDraw(0), "la-citta/blind-draw/action-left")
    s = s._replace(actions=(0, 3))
    assert cm.BlindDraw(0) in rules.legal(s) and cm.TakeGold(0) not in rules.legal(s)


def test_18_start_player_kept_in_year_one_then_passes_left():
    s = GAME.begin(GAME.default_edition())
    s = fold(s, GAME.setup(GAME.default_edition(), {"players": 3, "start": 2}, SeededChance("s")))
    assert s.year == 1 and s.start == 2
    s = fold(s, [ev.YearEnded(1)])
    s, _ = advance(s)
    assert s.year == 2 and s.start == 0


def test_19_quarry_gold_comes_the_next_year():
    s = position(2, cities=[(0, 68, 4), (1, 132, 3)], buildings=[(0, 68, 75, "farm_house")])
    s, events = play(s, cm.Build(0, "action", "quarry", 68, 86))
    assert not any(isinstance(e, ev.QuarriesPaid) for e in events) and s.gold[0] == 0
    s = fold(s, [ev.YearEnded(1)])
    s, events = advance(s)
    assert ev.QuarriesPaid((1, 0)) in events


def test_20_twin_stacks_share_one_pool():
    s = position(2, cities=[(0, 68, 4), (1, 132, 3)], buildings=[(0, 68, 61, "school")])
    p = s.t.pool_of["farm_house"]
    assert p == s.t.pool_of["quarry"]
    s2, _ = play(s, cm.Build(0, "action", "quarry", 68, 75))
    assert s.stock[p] == 40 and s2.stock[p] == 39
    empty = s._replace(stock=s.stock[:p] + (0,) + s.stock[p + 1 :])
    refused(empty, cm.Build(0, "action", "farm_house", 68, 75), "la-citta/build/no-tokens")


def test_21_four_castles_per_player():
    s = position(2, cities=[(0, 68, 9), (1, 132, 3)])
    s = s._replace(castles_left=(0, 2))
    refused(s, cm.FoundCity(0, 124, 68), "la-citta/found-city/no-castle")


def test_22_a_tie_after_gold_is_a_shared_win():
    s = position(2, cities=[(0, 68, 3), (1, 132, 3)], gold=[2, 2])
    scores = GAME.scores(s)
    assert scores["winners"] == [0, 1]
    s = s._replace(gold=(2, 3))
    assert GAME.scores(s)["winners"] == [1] and GAME.scores(s)["ranking"] == [1, 0]


def test_23_and_24_are_documentation():
    """23: the development example's bath stands by the quarry (see test_examples); 24: the engine
    speaks 001's words (school, public bath, farm house, bread and games, polling the people)."""
    names = set(GAME.default_edition().data["buildings"]) | set(GAME.default_edition().data["politics"])
    assert {"school", "public_bath", "farm_house", "bread_and_games", "polling_the_people"} <= names
