"""Setups, the eight phases of a year, the end of the game, scores and views."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from domain.kernel import RuleViolation, SeededChance
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.state import cap
from tests.la_citta.helpers import ED, advance, fold, play, position, types


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_beginner_setup(players):
    events = GAME.setup(ED, {"players": players}, SeededChance("b"))
    s = fold(GAME.begin(ED), events)
    letters = ED.data["beginner"]["seats"][str(players)]
    for seat, letter in enumerate(letters):
        castles = [int(h) for h in ED.data["beginner"]["castles"][letter]]
        assert sorted(c.castle for c in s.cities.values() if c.owner == seat) == sorted(castles)
        assert s.food[seat] == 6 and s.castles_left[seat] == 2
    assert all(c.citizens == 3 + 1 for c in s.cities.values()), "3 citizens each, and year 1 growth"
    assert s.gold == (1,) * players and len(s.display) == 7 and len(s.deck) == 32 - 7
    assert s.year == 1 and s.phase == "politics" and s.voice_up and s.voice_down == ("", "", "")
    assert types(events)[:2] == ["GameStarted", "TilesPlaced"]


def test_setup_refuses_bad_options():
    for options, rule in (({"players": 6}, "players"), ({"players": 3, "setup": "odd"}, "options"), ({"players": 3, "start": 3}, "start")):
        with pytest.raises(RuleViolation) as info:
            GAME.setup(ED, options, SeededChance("x"))
        assert info.value.rule == f"la-citta/setup/{rule}"


def test_experienced_setup_order_and_constraints():
    chance = SeededChance("exp")
    events = GAME.setup(ED, {"players": 4, "setup": "experienced", "start": 1}, chance)
    assert chance.log[0].kind == "shuffle" and chance.log[0].source == "tiles"
    s = fold(GAME.begin(ED), events)
    assert Counter(s.land.tiles.values()) == {"F1": 4, "F2": 6, "F3": 4, "M": 3, "L": 5}
    assert s.placing == (1, 0, 3, 2, 2, 3, 0, 1), "counter-clockwise from the starter, then clockwise from the last"
    placed = []
    while s.phase == "castles":
        p = rules.pending_of(s)
        assert p.kind == "place-castle"
        legal = rules.legal(s)
        assert legal and all(s.t.zone[c.hex] <= 4 for c in legal)
        cmd = legal[len(legal) // 2]
        placed.append(p.seat)
        s, _ = play(s, cmd, chance)
    assert placed == [1, 0, 3, 2, 2, 3, 0, 1]
    assert s.start == 2 and s.year == 1, "the player left of the last placer starts year 1"
    assert all(c.citizens == 4 for c in s.cities.values())


def test_experienced_castle_rules():
    s = fold(GAME.begin(ED), GAME.setup(ED, {"players": 2, "setup": "experienced"}, SeededChance("e2")))
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.PlaceCastle(0, 7), SeededChance("x"))
    assert info.value.rule == "la-citta/place/zone"
    s, _ = play(s, cm.PlaceCastle(0, 68))
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.PlaceCastle(1, 86), SeededChance("x"))
    assert info.value.rule == "la-citta/place/too-close"
    assert all(not s.t.near[2][c.hex] >> 68 & 1 for c in rules.legal(s))


def test_growth_limits_five_and_eight():
    s = position(
        2,
        cities=[(0, 68, 5), (1, 132, 8), (0, 73, 8), (1, 36, 4)],
        buildings=[(1, 132, 131, "market_place"), (1, 132, 133, "hospital"), (0, 73, 66, "market_place"), (0, 73, 59, "fountain")],
    )
    assert [cap(s, s.cities[k]) for k in (68, 132, 73, 36)] == [5, 8, None, 5], "the hospital never lifts the 8 limit"
    s, events = advance(fold(s, [ev.YearEnded(1)]))
    grew = next(e for e in events if isinstance(e, ev.PopulationGrew))
    assert sorted(grew.cities) == [36, 73]


def test_fountain_without_a_market_keeps_five():
    s = position(2, cities=[(0, 73, 4), (1, 132, 3)], buildings=[(0, 73, 59, "fountain")])
    assert cap(s, s.cities[73]) == 5


def test_five_rounds_then_tally_and_year_end():
    s = fold(GAME.begin(ED), GAME.setup(ED, {"players": 2}, SeededChance("y")))
    turns = 0
    while s.year == 1:
        p = rules.pending_of(s)
        if p.kind == "political-turn":
            cmd = cm.TakeGold(p.seat) if s.actions[p.seat] else cm.BlindDraw(p.seat)
            turns += 1
        else:
            assert p.kind == "send-away", "8 citizens and 6 food each: 2 must leave"
            cmd = rules.legal(s)[0]
        s, events = play(s, cmd, SeededChance(f"t{turns}"))
    assert turns == 2 * 5
    assert s.year == 2 and s.played == ((), ())
    assert s.actions == (2, 2) and s.round == 2, "both went hungry: each first turn of year 2 was turned down"
    assert len(s.discard) == 4, "the blind draws reach the discard pile at the year end"
    assert sum(s.voice_deck) == 27 - 4 - 1, "4 voice cards in year 1, never reused; year 2 shows 1 so far (3 still unseen)"


def test_politics_deck_rebuilt_from_the_discard_pile():
    s = position(2, cities=[(0, 68, 4), (1, 132, 3)], gold=[5, 0], display=["palace"])
    s = s._replace(discard=s.deck, deck=())
    s2, events = play(s, cm.Build(0, "palace", "palace", 68, 75))
    assert isinstance(events[2], ev.PoliticsDeckRebuilt) and isinstance(events[3], ev.PoliticsDealt)
    assert len(s2.deck) == 32 - 1 - 1 and s2.discard == ()


def test_six_years_then_scores():
    played = play_random(GAME, ED, {"players": 3}, "six")
    s = played.state
    assert s.phase == "over" and s.year == 6 and rules.pending_of(s).over and rules.legal(s) == []
    years = [e.year for entry in played.entries for e in entry.events if isinstance(e, ev.YearBegan)]
    assert years == [1, 2, 3, 4, 5, 6]
    with pytest.raises(RuleViolation) as info:
        GAME.decide(s, cm.TakeGold(0), SeededChance("x"))
    assert info.value.rule == "la-citta/game-over"


def test_scoring():
    s = position(
        2,
        cities=[(0, 68, 4), (0, 73, 2), (1, 132, 3)],
        buildings=[(0, 68, 75, "hospital"), (0, 68, 61, "statue"), (0, 73, 66, "school")],
        gold=[0, 7],
    )
    s = s._replace(starved_last_year=(False, True))
    scores = GAME.scores(s)
    assert scores["seats"][0] == {"seat": 0, "total": 6 + 3, "breakdown": {"citizens": 6, "all_services": 3, "starved": 0, "gold": 0}}
    assert scores["seats"][1]["total"] == 3 - 5
    assert scores["ranking"] == [0, 1] and not scores["finished"]


def test_view_hides_what_nobody_may_see():
    s = fold(GAME.begin(ED), GAME.setup(ED, {"players": 2}, SeededChance("v")))
    for seat in (None, 0, 1):
        view = GAME.view(s, seat)
        assert view["voice"]["face_down"] == ([None] * 3 if seat is not None else ["undrawn"] * 3)  # drawn when seen
        assert view["politics"]["deck"] == 25 and "cards" not in view["politics"]
    s = s._replace(actions=(0, 3))
    s, events = play(s, cm.BlindDraw(0))
    card = events[0].card
    for seat in (None, 0, 1):
        assert GAME.view(s, seat)["seats"][0]["played"] == ["face-down"]
        assert json.loads(json.dumps(GAME.view(s, seat))) == GAME.view(s, seat)
    assert card
    json.dumps(GAME.scores(s))


def test_cronaca_selfplay_command(capsys):
    from api.cli import main

    assert main(["selfplay", "la-citta", "--players", "3", "--games", "2", "--seed", "cli"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"game {i + 1} seed=cli-{i} winner=seat ") for i, line in enumerate(lines))
    assert main(["selfplay", "la-citta", "--players", "5", "--games", "1", "--option", "setup=experienced"]) == 0
