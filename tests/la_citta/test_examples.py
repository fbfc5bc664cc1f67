"""The worked examples of the rulebooks and of the reference edition, reproduced."""

from __future__ import annotations

from domain.kernel import SeededChance
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.state import cap, food_of
from tests.la_citta.helpers import ED, ScriptedChance, advance, fold, play, position, to_tally, types


def _first_legal_until(s, stop, chance):
    """Answer every other decision with its first legal command until `stop(state)` holds."""
    for _ in range(500):
        if stop(s):
            return s
        s, _ = play(s, rules.legal(s)[0], chance)
    raise AssertionError("never reached")


def test_city_development_example():
    """001 page 7: castle with 4 food, farm house for 4 more, quarry, market from the supply,
    public bath for 1 gold, then a blind draw in round five (the bath stands by the quarry and a
    lake, not by the castle and market: ambiguity 23)."""
    display = ["public_bath", "palace", "palace", "hospital", "cathedral", "university", "university"]
    chance = ScriptedChance(politics=[display, ["cathedral"]], voice=[["culture"]])
    s = GAME.begin(ED)
    s = fold(s, GAME.setup(ED, {"players": 2, "setup": "beginner"}, chance))
    blue = s.cities[68]
    assert s.land.food[68] == 4 and s.food[0] == 6, "blue's castle takes 4 food (3 + 1 wheat)"
    assert blue.citizens == 4, "phase 4 adds a citizen to the castle: 4 citizens"
    assert s.gold[0] == 1

    s, _ = play(s, cm.Build(0, "action", "farm_house", 68, 75), chance)
    assert s.land.food[68] + s.land.food[75] == 8, "castle and farm house feed 8"
    assert s.food[0] == 6 + 4 and s.cities[68].on_castle == 3
    s, _ = play(s, cm.TakeGold(1), chance)

    s, _ = play(s, cm.Build(0, "action", "quarry", 68, 86), chance)
    assert s.land.gold[86] == 1 and s.cities[68].on_castle == 2
    s, _ = play(s, cm.TakeGold(1), chance)

    supply = s.supply
    s, _ = play(s, cm.Build(0, "action", "market_place", 68, 61), chance)
    assert s.supply == supply - 1, "the market's citizen comes from the supply"
    assert s.cities[68].citizens == 5 and s.cities[68].on_castle == 2
    assert cap(s, s.cities[68]) == 8
    s, _ = play(s, cm.TakeGold(1), chance)

    s, events = play(s, cm.Build(0, "public_bath", "public_bath", 68, 98), chance)
    assert s.land.lake[98]
    assert s.gold[0] == 0 and cap(s, s.cities[68]) is None, "market + public bath: no limit"
    assert ev.PoliticsDealt(("cathedral",)) in events, "the display is refilled at once"
    s, _ = play(s, cm.BlindDraw(1), chance)

    assert rules.pending_of(s).seat == 0
    assert rules.legal(s) == [cm.BlindDraw(0)], "no action card, no gold, no spare citizen: only the blind draw"
    s, events = play(s, cm.BlindDraw(0), chance)
    assert isinstance(events[0], ev.BlindDrawn) and events[0].card
    assert GAME.view(s, 1)["seats"][0]["played"][-1] == "face-down"

    s = _first_legal_until(s, lambda x: x.year == 2 and x.phase == "politics", SeededChance("rest"))
    assert s.gold[0] == 1, "the quarry pays 1 gold in phase 3 of the next year"
    assert s.cities[68].citizens == 6, "phase 4 adds a citizen (no limit any more)"


def test_voice_tie_example_anna_and_bob():
    """001: culture and health tie 2-2; Anna takes a citizen by health, Bob one back by culture."""
    anna, bob = 0, 1
    s = position(2, cities=[(anna, 75, 2), (bob, 54, 2)], buildings=[(anna, 75, 68, "hospital"), (bob, 54, 41, "palace")])
    s, events = advance(to_tally(s, ["culture", "health", "health"]))
    assert events[-1] == ev.VoiceRevealed(("culture", "health", "health"), ("culture", "health"))
    assert rules.legal(s) == [cm.Attract(anna, 75, "culture"), cm.Attract(anna, 75, "health")]
    s, events = play(s, cm.Attract(anna, 75, "health"))
    assert events[0] == ev.CityAttracted(anna, 75, "health", (54,), 1, 0)
    assert (s.cities[75].citizens, s.cities[54].citizens) == (3, 1)
    assert rules.pending_of(s).seat == bob
    before = s
    s, events = play(s, cm.Attract(bob, 54, "culture"))
    assert events[0] == ev.CityAttracted(bob, 54, "culture", (75,), 1, 0)
    after_relocation = fold(before, events[:2])
    assert isinstance(events[1], ev.MigrationTurnEnded)
    assert (after_relocation.cities[75].citizens, after_relocation.cities[54].citizens) == (2, 2), "the result is null"


def test_three_player_quarry_example():
    """001 (3p): quarries on the space by two mountains give 2 gold, across the red line nothing."""
    s = GAME.begin(ED)
    s = fold(s, GAME.setup(ED, {"players": 3}, SeededChance("q")))
    land = s.land
    assert [land.gold[h] for h in (7, 8, 9, 10)] == [2, 2, 2, 2], "G02: E02 mountain + S04 mountain"
    assert [land.gold[h] for h in (15, 16)] == [1, 1], "G06/G07 touch S04 only"
    assert [land.gold[h] for h in (2, 3, 4, 5)] == [0, 0, 0, 0], "G01 across the red line at J6: wasteland and lake"
    assert s.t.zone[7] == 3 and s.t.allowed[s.zone] >> 7 & 1, "zone 3 is played with 3 players"


def test_four_player_farm_example():
    """001 (4p): a farm house on space 1 gives 4 food, across the red line only 2."""
    s = GAME.begin(ED)
    s = fold(s, GAME.setup(ED, {"players": 4}, SeededChance("f")))
    assert [s.land.food[h] for h in (163, 157, 151, 145)] == [4, 4, 4, 4], "G37: E06 farmland 2 + S22 farmland 2"
    assert [s.land.food[h] for h in (123, 116, 109, 102)] == [2, 2, 2, 2], "G28: E05 wasteland + S17 farmland 2"


def test_migration_cascade_farm_lost_then_hunger_then_castle():
    """A citizen lost to relocation leaves the farm house empty; it is demolished, the food goes,
    the last citizen starves and the castle returns to its owner; the hunger penalty follows."""
    rival, victim = 0, 1
    s = position(
        2,
        cities=[(rival, 75, 2), (victim, 90, 2)],
        buildings=[(rival, 75, 86, "statue"), (victim, 90, 89, "farm_house")],
    )
    assert s.land.food[90] == 0 and s.land.food[89] == 1 and s.food[victim] == 1
    s, events = advance(to_tally(s, ["culture", "culture", "culture"]), SeededChance("c"))
    assert types(events)[:5] == ["VoiceRevealed", "CityAttracted", "MigrationTurnEnded", "CityAttracted", "MigrationTurnEnded"]
    assert events[1] == ev.CityAttracted(rival, 75, "culture", (90,), 1, 0)
    assert ev.BuildingDemolished(victim, 90, 89, "farm_house", 1) in events
    counted = next(e for e in events if isinstance(e, ev.FeedingCounted))
    assert counted.food[victim] == 0 and counted.shortfall[victim] == 1
    assert ev.CitizenStarved(victim, 90, 1) in events
    assert ev.BuildingDemolished(victim, 90, 90, "castle", 0) in events
    assert 90 not in s.cities and s.castles_left[victim] == 4 and s.food[victim] == 0
    assert s.year == 2
    # Year 2: the victim's first political turn is turned down with no effect.
    assert ev.TurnForfeited(victim) in events
    assert s.actions[victim] == 2
    assert food_of(s, rival) == s.food[rival]
