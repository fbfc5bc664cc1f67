"""Every worked example of seed 002, played through the engine."""

from __future__ import annotations

import pytest

from domain.kernel import ObservedChance, Outcome, RuleViolation
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.rules import combat_value
from domain.serenissima.state import replace
from tests.serenissima.board import BLACK, BLUE, ORANGE, RED, activate, galley, money, play, port, rolls, table, types


def valencia() -> object:
    """Galley 4 (1 sailor) and galley 6 (3 sailors) of Blue in València, which Blue holds with 1 sailor."""
    s = table()
    s = port(s, "valencia", BLUE, 1)
    s = galley(s, 4, BLUE, "balearic", 1)
    s = galley(s, 6, BLUE, "balearic", 3)
    s = port(s, "algiers", RED, 1)
    s = galley(s, 7, RED, "algerian", 2, ["marble"])
    s = galley(s, 10, RED, "algerian", 2)
    return activate(s, 4, "action")


def test_valencia_loading_two_sailors_and_two_wood_for_one_ducat() -> None:
    s = valencia()
    for _ in range(2):
        s, _ = play(s, cm.MoveSailor(BLUE, 6, 4))
    assert s.galleys[4].sailors == 3 and s.galleys[6].sailors == 1
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, cm.MoveSailor(BLUE, 0, 4), ObservedChance([]))
    assert refused.value.rule == "serenissima/loading/port-must-keep-sailor"
    legal = GAME.legal(s)
    assert cm.MoveSailor(BLUE, 4, 0) in legal and cm.MoveSailor(BLUE, 4, 6) in legal  # the moves that would sink it
    s, first = play(s, cm.BuyGood(BLUE))
    s, second = play(s, cm.BuyGood(BLUE))
    assert [e.price for e in first + second] == [0, 1]
    assert s.galleys[4].goods == ("wood", "wood")
    assert s.money[BLUE] == 4


def test_the_blockade_at_algiers_and_the_battle_with_galley_7() -> None:
    s = valencia()
    for _ in range(2):
        s, _ = play(s, cm.MoveSailor(BLUE, 6, 4))
    s, _ = play(s, cm.BuyGood(BLUE))
    s, _ = play(s, cm.BuyGood(BLUE))
    s, _ = play(s, cm.EndLoading(BLUE))
    assert s.act.moves_left == 3
    # Blue heads for Tripoli; Red's 4 sailors in Algiers beat Blue's 3.
    with pytest.raises(RuleViolation) as orange:
        GAME.decide(s, cm.Blockade(ORANGE, True), ObservedChance([]))
    assert orange.value.rule == "serenissima/blockade/not-enough-sailors"
    s, events = play(s, cm.Sail(BLUE, "algerian"))
    assert events[0].blockaders == (RED,)
    assert GAME.pending(s).seat == RED and GAME.pending(s).kind == "blockade"
    s, events = play(s, cm.Blockade(RED, True))
    assert types(events) == ["blockade-declared"]
    assert GAME.pending(s).kind == "sale-or-battle" and cm.Sail(BLUE, "sidra") not in GAME.legal(s)
    # He tries to sell wood in Algiers: blockaded again.
    s, events = play(s, cm.Sell(BLUE, "wood"))
    assert types(events) == ["sale-announced"]
    s, events = play(s, cm.Blockade(RED, True))
    assert s.ports[s.t.port_index["algiers"]].warehouse == ()
    assert cm.Sell(BLUE, "wood") not in GAME.legal(s)
    # Battle with galley 7: 3 sailors - 1 zone = 2 against 2; one skull each.
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([6, 1], [5, 2]))
    assert events[0].value == 2 and len(events[1].attacker_rolls) == 2 and len(events[1].defender_rolls) == 2
    assert s.galleys[4].sailors == 2 and s.galleys[7].sailors == 1
    assert GAME.pending(s).kind == "battle" and GAME.pending(s).seat == BLUE
    # Continue: Blue still 2, Red 1; one skull each; galley 7 sinks.
    s, events = play(s, cm.ContinueBattle(BLUE, True), rolls([4, 1], [6]))
    assert len(events[0].attacker_rolls) == 2 and len(events[0].defender_rolls) == 1
    assert s.galleys[7] is None and s.galleys[4].sailors == 1
    assert GAME.pending(s).kind == "capture"
    s, _ = play(s, cm.Capture(BLUE, "marble"))
    s, _ = play(s, cm.EndCapture(BLUE))
    assert s.galleys[4].goods == ("marble", "wood", "wood")
    assert combat_value(s.act, s.galleys[4]) == 1  # "His combat value is now 1"
    assert cm.AttackGalley(BLUE, 10) in GAME.legal(s)
    s, events = play(s, cm.EndActivation(BLUE))
    assert types(events)[0] == "activation-ended"


def test_napoli_claimed_despite_blacks_galley() -> None:
    s = table()
    s = port(s, "genova", ORANGE, 1)
    s = galley(s, 8, ORANGE, "ligurian", 3, ["wood"])
    s = galley(s, 5, BLACK, "tyrrhenian", 3)
    s = galley(s, 15, BLACK, "cilician", 1)  # so the wheel moves on instead of ending the turn
    s = activate(s, 8, "action")
    s, _ = play(s, cm.EndLoading(ORANGE))
    s, events = play(s, cm.Sail(ORANGE, "tyrrhenian"))
    assert events[0].blockaders == ()  # 3 against 3: no blockade
    s, _ = play(s, cm.EndMovement(ORANGE))
    s, events = play(s, cm.ClaimPort(ORANGE))
    assert events[0].blockaders == ()
    assert [c.sailors for c in GAME.legal(s)] == [1, 2, 3]
    s, events = play(s, cm.Unload(ORANGE, 1))
    napoli = s.ports[s.t.port_index["napoli"]]
    assert napoli.owner == ORANGE and napoli.sailors == 1
    assert s.galleys[8].sailors == 2
    assert "activation-ended" in types(events)
    assert GAME.scores(s)["seats"][ORANGE]["breakdown"]["port_cards"] == 2


def test_antakya_investment_for_seven_ducats() -> None:
    s = table()
    s = port(s, "costantinopoli", BLACK, 3)
    s = port(s, "antakya", BLACK, 2, ["marble"])
    s = galley(s, 9, BLACK, "aegean", 2)
    s = galley(s, 12, BLACK, "marmara", 1)
    s = money(s, black=10)
    s = activate(s, 9, "investment")
    for c in [cm.RecruitPort(BLACK, "costantinopoli"), cm.RecruitPort(BLACK, "antakya")] + [cm.RecruitGalley(BLACK, 12)] * 3:
        s, _ = play(s, c)
    with pytest.raises(RuleViolation) as full:
        GAME.decide(s, cm.RecruitPort(BLACK, "antakya"), ObservedChance([]))
    assert full.value.rule == "serenissima/investment/port-full"
    s, _ = play(s, cm.BuildBasilica(BLACK, "antakya"))
    assert s.money[BLACK] == 10 - 7
    assert s.ports[s.t.port_index["antakya"]].basilica and s.galleys[12].sailors == 4
    s, events = play(s, cm.EndInvestment(BLACK))
    assert types(events)[:2] == ["investment-ended", "activation-ended"]


def test_valencia_scores_twenty_with_a_basilica() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 2, ["stone", "marble", "wine", "gold"], basilica=True)
    s = galley(s, 1, BLUE, "balearic", 2)
    s = activate(s, 1, "investment")
    assert s.track == 2  # the 4-player start; the first scoring space is 6
    s = replace(s, track=4)
    s, events = play(s, cm.EndInvestment(BLUE), [Outcome("draw", "deck:doge", ("hour2",))])
    scored = next(e for e in events if e.type == "serenissima/scored")
    assert scored.warehouses[BLUE] == 15 and scored.basilicas[BLUE] == 5 and scored.amounts[BLUE] == 20
    assert s.money[BLUE] == 25 and s.announced[BLUE] == 25
