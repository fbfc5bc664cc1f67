"""The chosen reading of each of the 30 numbered ambiguities (reference §8), one test each."""

from __future__ import annotations

import pytest

from domain.kernel import SeededChance
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.rules import blockaders, combat_value
from domain.serenissima.state import NEUTRAL, replace
from tests.serenissima.board import (
    BLACK,
    BLUE,
    EDITION,
    ORANGE,
    RED,
    activate,
    doge,
    galley,
    money,
    play,
    port,
    refuse,
    rolls,
    table,
    types,
)
from tests.serenissima.test_rules import P, battle_board, end_board, invest_board, port_board


def test_01_basilica_needs_gold_and_marble_not_wood() -> None:
    s = invest_board()  # Tunis produces gold and holds marble; Valencia produces wood and holds stone
    assert EDITION.data["basilica"]["requires"] == ("gold", "marble")
    s = port(s, "valencia", BLUE, 2, ["marble"])
    refuse(s, cm.BuildBasilica(BLUE, "valencia"), "serenissima/investment/basilica-needs-goods")
    play(s, cm.BuildBasilica(BLUE, "tunis"))


def test_02_port_garrisons_never_count_for_a_blockade() -> None:
    s = table()
    s = port(s, "algiers", RED, 3)
    s = galley(s, 4, BLUE, "balearic", 2)
    s = galley(s, 7, RED, "algerian", 1)
    assert blockaders(s, "algerian", BLUE, 2) == ()


def test_03_all_blockader_galleys_against_the_active_galley_only_strictly_more() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 3)
    s = galley(s, 5, BLUE, "algerian", 5)  # Blue's other galley does not help
    s = galley(s, 7, RED, "algerian", 2)
    s = galley(s, 8, RED, "algerian", 2)
    assert blockaders(s, "algerian", BLUE, 3) == (RED,)
    assert blockaders(s, "algerian", BLUE, 4) == ()  # 4 against 4 is not more


def test_04_sales_are_blockaded_in_the_starting_zone_too() -> None:
    s = table()
    s = port(s, "napoli", NEUTRAL)
    s = galley(s, 4, BLUE, "tyrrhenian", 1, ["gold"])
    s = galley(s, 7, RED, "tyrrhenian", 2)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    s, _ = play(s, cm.EndMovement(BLUE))
    s, events = play(s, cm.Sell(BLUE, "gold"))
    assert types(events) == ["sale-announced"] and events[0].blockaders == (RED,)


def test_05_after_a_neutral_claim_blockade_a_won_battle_allows_the_conquest() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 3)
    s = galley(s, 7, RED, "algerian", 4)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, _ = play(s, cm.ClaimPort(BLUE))
    s, _ = play(s, cm.Blockade(RED, True))
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 4, 4], [1, 1, 1, 1]))
    s, _ = play(s, cm.ContinueBattle(BLUE, True), rolls([5, 1, 1], [1]))
    assert cm.ClaimPort(BLUE) in GAME.legal(s) and cm.Sell(BLUE, "wood") not in GAME.legal(s)


def test_06_goods_of_a_galley_sunk_on_purpose_go_back_to_the_supply() -> None:
    s = table()
    s = galley(s, 4, BLUE, "sardinian", 1, ["gold", "spice"])
    s = galley(s, 6, BLUE, "sardinian", 1)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    before = s.goods
    s, events = play(s, cm.MoveSailor(BLUE, 4, 6))
    assert s.galleys[4] is None and "activation-ended" in types(events)
    assert s.goods[s.t.good_index["gold"]] == before[s.t.good_index["gold"]] + 1


def test_07_hidden_money_is_a_setup_option_hiding_balances_only() -> None:
    chance = SeededChance("h")
    events = GAME.setup(EDITION, {"players": 3, "money": "hidden"}, chance)
    assert events[0].hidden_money is True
    assert GAME.setup(EDITION, {"players": 3}, SeededChance("h"))[0].hidden_money is False


def test_08_the_free_cube_is_once_per_activation_own_port_only() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 2)
    s = galley(s, 4, BLUE, "balearic", 1)
    s = activate(s, 4, "action")
    s, a = play(s, cm.BuyGood(BLUE))
    s, b = play(s, cm.BuyGood(BLUE))
    assert (a[0].price, b[0].price) == (0, 1)
    s = port(table(), "valencia", RED, 2)
    s = galley(s, 4, BLUE, "balearic", 1)
    s = activate(s, 4, "action")
    s, a = play(s, cm.BuyGood(BLUE))
    assert a[0].price == 1


def test_09_killed_sailors_return_to_the_owners_supply_and_can_be_recruited() -> None:
    s = battle_board(blue_sailors=3, red_sailors=2)
    red, blue = s.supply[RED], s.supply[BLUE]
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1], [4, 1]))
    assert s.supply[RED] == red + 1 and s.supply[BLUE] == blue + 1


def test_10_first_combat_value_is_set_once_per_activation() -> None:
    s = battle_board(blue_sailors=3, red_sailors=1, moves=1)
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1], [1]))
    assert s.act.value == 2
    s, _ = play(s, cm.EndCapture(BLUE))
    s, events = play(s, cm.AttackGalley(BLUE, 9), rolls([1, 1], [1]))
    assert events[0].value == 2


def test_11_no_attack_with_value_zero_but_claiming_needs_none() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 1)
    s = galley(s, 7, RED, "algerian", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade", moves_made=1))
    assert combat_value(s.act, s.galleys[4]) == 0
    refuse(s, cm.AttackGalley(BLUE, 7), "serenissima/battle/no-combat-value")
    assert cm.ClaimPort(BLUE) in GAME.legal(s)


def test_12_a_sinking_lets_the_attacker_choose_another_target() -> None:
    s = battle_board(blue_sailors=3, red_sailors=1, red_goods=())
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1], [1]))
    assert GAME.pending(s).kind == "sale-or-battle" and cm.AttackGalley(BLUE, 9) in GAME.legal(s)


def test_13_claiming_goods_never_throws_sailors_overboard() -> None:
    s = battle_board(blue_sailors=5, red_sailors=1, red_goods=("gold",))
    s = galley(s, 4, BLUE, "algerian", 5)
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1, 1, 1], [1]))
    assert events[1].salvage_by == 0 and GAME.pending(s).kind == "sale-or-battle"


def test_14_every_owner_galley_must_be_sunk_before_the_port() -> None:
    s = port_board()
    s = galley(s, 7, RED, "algerian", 1)
    s = galley(s, 8, RED, "algerian", 1)
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1, 1], [1]))
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/galleys-first")


def test_15_not_unloading_after_killing_the_garrison_leaves_the_port_neutral() -> None:
    s = port_board(garrison=1)
    s, _ = play(s, cm.AttackPort(BLUE), rolls([4, 1, 1, 1], [1]))
    s, events = play(s, cm.Unload(BLUE, 0))
    assert types(events)[0] == "port-left-neutral" and P(s, "algiers").owner == NEUTRAL
    assert GAME.scores(s)["seats"][RED]["breakdown"]["port_cards"] == 1


def test_16_forts_fire_every_port_battle_never_on_neutral_ports_or_galley_battles() -> None:
    s = port_board(fort=True)
    s = galley(s, 7, RED, "algerian", 1)
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1, 1], [1]))
    assert "fort-fired" not in types(events)
    s = table()
    s = port(s, "algiers", NEUTRAL, fort=True)
    s = galley(s, 4, BLUE, "algerian", 2)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, events = play(s, cm.ClaimPort(BLUE))
    assert "fort-fired" not in types(events)


def test_17_the_last_port_cannot_even_be_attacked() -> None:
    s = port_board(ports_of_red=1)
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/last-port")
    assert cm.AttackPort(BLUE) not in GAME.legal(s)


def test_18_taking_any_port_ends_the_activation() -> None:
    s = port_board(garrison=1)
    s, _ = play(s, cm.AttackPort(BLUE), rolls([4, 1, 1, 1], [1]))
    s, events = play(s, cm.Unload(BLUE, 2))
    assert types(events)[:3] == ["port-taken", "activation-ended", "galley-activated"]


def test_19_closed_zones_may_be_entered_and_host_galley_battles_and_blockades() -> None:
    s = table(players=3)
    s = replace(s, ports=tuple(replace(p, closed=(s.t.ports[i] == "napoli")) for i, p in enumerate(s.ports)))
    s = galley(s, 4, BLUE, "ligurian", 3)
    s = galley(s, 7, RED, "tyrrhenian", 4)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    s, events = play(s, cm.Sail(BLUE, "tyrrhenian"))
    assert events[0].blockaders == (RED,)
    s, _ = play(s, cm.Blockade(RED, False))
    s, _ = play(s, cm.EndMovement(BLUE))
    assert cm.AttackGalley(BLUE, 7) in GAME.legal(s) and cm.ClaimPort(BLUE) not in GAME.legal(s)


def test_20_two_player_starting_galleys_snake_three_rounds() -> None:
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 2}, SeededChance("two")):
        s = GAME.evolve(s, e)
    f, o = s.first, 1 - s.first
    assert s.queue == (f, o, o, f, f, o)


def test_21_a_bought_galley_picks_any_free_number() -> None:
    s = invest_board()
    numbers = {c.galley for c in GAME.legal(s) if isinstance(c, cm.BuyGalley)}
    assert numbers == set(range(1, 16)) - {4, 6}


def test_22_a_bought_galley_comes_with_a_bought_sailor() -> None:
    s = invest_board()
    supply, ducats = s.supply[BLUE], s.money[BLUE]
    s, _ = play(s, cm.BuyGalley(BLUE, 1, "valencia"))
    assert s.galleys[1].sailors == 1 and s.supply[BLUE] == supply - 1 and s.money[BLUE] == ducats - 3
    assert P(s, "valencia").sailors == 2  # no sailor is moved from the port by an investment


def test_23_special_investment_clockwise_from_first_player_not_after_final_scoring() -> None:
    s = replace(end_board(), first=RED)
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    assert events[-1].seats == (ORANGE, BLACK, BLUE)
    s = replace(end_board(track=11), scorings=2)
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    assert "special-investment-opened" not in types(events) and events[-1].type == "serenissima/game-ended"


def test_24_the_start_space_never_scores() -> None:
    s = replace(end_board(track=0, players=3), scorings=0)
    s, events = play(s, cm.EndInvestment(BLUE), doge("wine"))
    assert "scored" not in types(events)


@pytest.mark.parametrize(("start", "card", "scores"), [(5, "hour1", True), (4, "hour2", True), (5, "hour2", True), (6, "hour2", False), (3, "hour2", False)])
def test_25_reaches_and_passes_are_one_test(start: int, card: str, scores: bool) -> None:
    s, events = play(end_board(track=start), cm.EndInvestment(BLUE), doge(card))
    assert ("scored" in types(events)) is scores


def test_26_payout_is_by_cube_count() -> None:
    s = end_board(track=5)
    s = port(s, "napoli", BLUE, 1, ["gold", "stone", "marble"])
    s = port(s, "valencia", RED, 2, ["gold", "stone", "marble"])
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    scored = next(e for e in events if e.type == "serenissima/scored")
    assert scored.warehouses[BLUE] == 10 and scored.warehouses[RED] == 10 + 6


def test_27_neutral_ports_and_their_basilicas_score_for_nobody() -> None:
    s = end_board(track=5)
    s = port(s, "antakya", NEUTRAL, 0, ["marble", "wine"], basilica=True)
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    scored = next(e for e in events if e.type == "serenissima/scored")
    assert sum(scored.basilicas) == 0 and sum(scored.amounts) == 6


def test_28_empty_supplies_stop_loading_and_recruiting_money_is_unlimited() -> None:
    s = invest_board()
    s = replace(s, supply=(0,) + s.supply[1:])
    refuse(s, cm.RecruitGalley(BLUE, 4), "serenissima/investment/no-sailors-left")
    refuse(s, cm.BuyGalley(BLUE, 1, "valencia"), "serenissima/investment/no-sailors-left")
    s = money(end_board(track=5), red=0)
    s, _ = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    assert s.bank > 0  # the bank pays whatever it owes


def test_29_any_number_of_voluntary_sinkings_including_by_unloading() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 2)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, _ = play(s, cm.ClaimPort(BLUE))
    s, _ = play(s, cm.Unload(BLUE, 2))
    assert s.galleys[4] is None and P(s, "algiers").sailors == 2


def test_30_two_ports_in_one_zone_the_player_names_the_port_one_per_step() -> None:
    """The reference map has one port per zone; an edition with two makes each step name its port.

    The full reading (loading, buying, selling, claims, attacks, forts, random play) is in
    test_two_ports.py.
    """
    from domain.kernel import RuleViolation
    from tests.serenissima.test_two_ports import ZONE, twin_table

    assert all(len(ports) <= 1 for ports in GAME.begin(EDITION).t.zone_ports.values())
    s = twin_table()
    s = port(s, "algiers", BLUE, 2)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = activate(s, 4, "action")
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, cm.BuyGood(BLUE), SeededChance("x"))
    assert refused.value.rule == "serenissima/loading/name-the-port"
    s, events = play(s, cm.BuyGood(BLUE, "tripoli"))
    assert types(events) == ["port-named", "good-bought"] and events[1].good == "marble"
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, cm.MoveSailor(BLUE, 0, 4, "algiers"), SeededChance("x"))
    assert refused.value.rule == "serenissima/loading/one-port-per-step"
