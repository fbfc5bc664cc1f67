"""One test per row of the reference's rules tables (§6 setup, §7.3-§7.11)."""

from __future__ import annotations

import pytest

from domain.kernel import Outcome, SeededChance
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.rules import combat_value
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


def P(s, pid):  # noqa: N802 - reads like the board
    return s.ports[s.t.port_index[pid]]


# --- §6 setup ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sailors", "galleys", "starting", "closed", "track"),
    [(2, 30, 12, 3, 4, 0), (3, 26, 12, 2, 4, 0), (4, 22, 15, 2, 0, 2)],
)
def test_setup_per_player_count(players, sailors, galleys, starting, closed, track) -> None:
    chance = SeededChance(f"setup-{players}")
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": players}, chance):
        s = GAME.evolve(s, e)
    assert s.galleys_in_play == galleys and s.track == track and s.money == (5,) * players
    assert sum(p.closed for p in s.ports) == closed
    closed_goods = sorted(s.t.port_good[i] for i, p in enumerate(s.ports) if p.closed)
    assert closed_goods == (sorted(["wood", "wine", "stone", "marble"]) if closed else [])
    assert not any(p.closed and s.t.port_starting[i] for i, p in enumerate(s.ports))
    # snake order: clockwise, then counterclockwise, then clockwise again with 2 players
    clockwise = [(s.first + k) % players for k in range(players)]
    expected = clockwise + clockwise[::-1] + (clockwise if starting == 3 else [])
    assert list(s.queue) == expected
    picks = iter(n for n in range(1, galleys + 1))
    while s.phase == "setup":
        seat, kind = GAME.pending(s).seat, GAME.pending(s).kind
        if kind == "choose-start":
            free = [c for c in GAME.legal(s) if isinstance(c, cm.ChooseStart)]
            command = next(c for c in free if c.galley == min(x.galley for x in free))
        else:
            command = cm.ChooseGalley(seat, next(n for n in picks if s.galleys[n] is None))
        for e in GAME.decide(s, command, chance):
            s = GAME.evolve(s, e)
    for seat in range(players):
        mine = [g for g in s.galleys if g is not None and g.owner == seat]
        home = [i for i, p in enumerate(s.ports) if p.owner == seat]
        assert len(mine) == starting and len(home) == 1
        assert all(g.sailors == 3 and g.zone == s.t.port_zone[home[0]] for g in mine)
        assert s.ports[home[0]].sailors == 3 and s.t.port_starting[home[0]]
        assert s.supply[seat] == sailors - 3 - 3 * starting
    assert GAME.pending(s).kind == "plan"  # the wheel has started: lowest galley first


def test_setup_refuses_a_taken_starting_port_and_galley() -> None:
    chance = SeededChance("setup-x")
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 4}, chance):
        s = GAME.evolve(s, e)
    seat = GAME.pending(s).seat
    refuse(s, cm.ChooseStart(seat, "napoli", 1), "serenissima/setup/starting-port")
    s, _ = play(s, cm.ChooseStart(seat, "venezia", 1))
    nxt = GAME.pending(s).seat
    refuse(s, cm.ChooseStart(nxt, "venezia", 2), "serenissima/setup/starting-port")
    refuse(s, cm.ChooseStart(nxt, "genova", 1), "serenissima/setup/galley-taken")
    refuse(s, cm.ChooseStart(nxt, "genova", 16), "serenissima/setup/galley-taken")


def test_closed_ports_may_be_given_as_an_option() -> None:
    events = GAME.setup(EDITION, {"players": 3, "closed_ports": ["ragusa", "napoli", "rodi", "atene"]}, SeededChance("c"))
    assert next(e for e in events if e.type == "serenissima/ports-closed").ports == ("ragusa", "napoli", "rodi", "atene")
    from domain.kernel import RuleViolation

    with pytest.raises(RuleViolation):
        GAME.setup(EDITION, {"players": 3, "closed_ports": ["ragusa", "corfu", "rodi", "atene"]}, SeededChance("c"))


# --- §7.1 the wheel --------------------------------------------------------------------------


def test_galleys_activate_in_number_order_and_a_sunk_galley_is_skipped() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 2)
    s = galley(s, 2, BLUE, "balearic", 1)
    s = galley(s, 5, RED, "algerian", 2)
    s = galley(s, 9, BLUE, "balearic", 1)
    s = activate(s, 2, "action")
    s, events = play(s, cm.MoveSailor(BLUE, 2, 9))  # galley 2 sinks on purpose
    assert types(events) == ["sailor-moved", "activation-ended", "galley-activated"]
    assert events[-1].galley == 5
    s, events = play(s, cm.ChoosePlan(RED, "investment"))
    s, events = play(s, cm.EndInvestment(RED))
    assert events[-1].galley == 9


def test_a_galley_bought_ahead_of_the_token_acts_this_turn() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 2)
    s = galley(s, 3, BLUE, "balearic", 1)
    s = activate(s, 3, "investment")
    s, _ = play(s, cm.BuyGalley(BLUE, 11, "valencia"))
    s, events = play(s, cm.EndInvestment(BLUE))
    assert events[-1].type == "serenissima/galley-activated" and events[-1].galley == 11


# --- §7.3 loading ----------------------------------------------------------------------------


def loading_at(owner: int) -> object:
    s = table()
    s = port(s, "valencia", owner, 2) if owner != NEUTRAL else s
    s = port(s, "genova", BLUE, 1)
    s = galley(s, 4, BLUE, "balearic", 2)
    s = galley(s, 6, BLUE, "balearic", 2, ["stone"])
    s = galley(s, 14, RED, "aegean", 1)
    return activate(s, 4, "action")


def test_loading_in_own_port_moves_sailors_both_ways_and_first_cube_free() -> None:
    s = loading_at(BLUE)
    s, _ = play(s, cm.MoveSailor(BLUE, 0, 4))
    s, _ = play(s, cm.MoveSailor(BLUE, 4, 0))
    s, _ = play(s, cm.MoveSailor(BLUE, 4, 0))
    assert P(s, "valencia").sailors == 3 and s.galleys[4].sailors == 1
    bank = s.bank
    s, a = play(s, cm.BuyGood(BLUE))
    s, b = play(s, cm.BuyGood(BLUE))
    assert (a[0].price, b[0].price, b[0].paid_to) == (0, 1, NEUTRAL) and s.bank == bank - 1


def test_loading_in_a_neutral_port_pays_the_bank_and_never_touches_the_port() -> None:
    s = loading_at(NEUTRAL)
    refuse(s, cm.MoveSailor(BLUE, 4, 0), "serenissima/loading/not-your-port")
    s, _ = play(s, cm.MoveSailor(BLUE, 6, 4))  # galley to galley is fine
    s, a = play(s, cm.BuyGood(BLUE))
    assert a[0].price == 1 and a[0].paid_to == NEUTRAL and s.money[BLUE] == 4


def test_loading_in_another_players_port_pays_that_player() -> None:
    s = loading_at(RED)
    refuse(s, cm.MoveSailor(BLUE, 0, 4), "serenissima/loading/not-your-port")
    s, a = play(s, cm.BuyGood(BLUE))
    assert a[0].paid_to == RED and s.money == (4, 6, 5, 5)


def test_no_loading_where_there_is_no_port_or_a_closed_one() -> None:
    s = table()
    s = galley(s, 4, BLUE, "sardinian", 2)
    s = activate(s, 4, "action")
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/no-port")
    s = table(players=3)
    s = replace(s, ports=tuple(replace(p, closed=(s.t.ports[i] == "napoli")) for i, p in enumerate(s.ports)))
    s = galley(s, 4, BLUE, "tyrrhenian", 2)
    s = activate(s, 4, "action")
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/port-closed")


def test_goods_move_between_own_galleys_free_and_can_be_tossed() -> None:
    s = loading_at(NEUTRAL)
    s, _ = play(s, cm.ShiftGood(BLUE, "stone", 6, 4))
    assert s.galleys[4].goods == ("stone",) and s.money[BLUE] == 5
    supply = s.goods[s.t.good_index["stone"]]
    s, _ = play(s, cm.TossGood(BLUE, "stone"))
    assert s.galleys[4].goods == () and s.goods[s.t.good_index["stone"]] == supply + 1
    refuse(s, cm.ShiftGood(BLUE, "stone", 14, 4), "serenissima/loading/not-your-galley")


def test_loading_limits_five_pieces_five_sailors_port_capacity() -> None:
    s = table()
    s = port(s, "algiers", BLUE, 3)
    s = galley(s, 4, BLUE, "algerian", 5)
    s = galley(s, 6, BLUE, "algerian", 2, ["spice", "spice", "spice"])
    s = activate(s, 4, "action")
    refuse(s, cm.MoveSailor(BLUE, 6, 4), "serenissima/loading/galley-full")  # 5 sailors already
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/galley-full")
    refuse(s, cm.MoveSailor(BLUE, 4, 0), "serenissima/loading/port-full")  # Algiers holds 3
    refuse(s, cm.MoveSailor(BLUE, 4, 6), "serenissima/loading/galley-full")  # 2 sailors + 3 goods
    refuse(s, cm.MoveSailor(BLUE, 4, 4), "serenissima/loading/active-galley")


def test_loading_needs_money_and_supply() -> None:
    s = loading_at(NEUTRAL)
    s = money(s, blue=0)
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/cannot-pay")
    s = money(s, blue=5)
    s = replace(s, goods=tuple(0 if g == "wood" else n for g, n in zip(s.t.goods, s.goods, strict=True)))
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/supply-empty")


# --- §7.4 movement ----------------------------------------------------------------------------


def test_one_zone_per_sailor_counting_returns() -> None:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 2)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    refuse(s, cm.Sail(BLUE, "ionian"), "serenissima/movement/not-adjacent")
    s, _ = play(s, cm.Sail(BLUE, "catalan"))
    s, _ = play(s, cm.Sail(BLUE, "balearic"))
    assert s.act.moves_made == 2
    refuse(s, cm.Sail(BLUE, "catalan"), "serenissima/movement/no-moves-left")
    assert combat_value(s.act, s.galleys[4]) == 0


# --- §7.5 blockades ----------------------------------------------------------------------------


def blockade_board() -> object:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 3, ["wood"])
    s = galley(s, 7, RED, "algerian", 2)
    s = galley(s, 8, RED, "algerian", 2)
    s = galley(s, 3, ORANGE, "algerian", 4)
    s = galley(s, 12, BLACK, "algerian", 3)
    return activate(s, 4, "action")


def test_declaration_order_most_sailors_then_lowest_galley_and_first_yes_ends_it() -> None:
    s = blockade_board()
    s, _ = play(s, cm.EndLoading(BLUE))
    s, events = play(s, cm.Sail(BLUE, "algerian"))
    assert events[0].blockaders == (ORANGE, RED)  # 4 and 4: Orange holds galley 3, Red galley 7; Black's 3 is not more
    s, _ = play(s, cm.Blockade(ORANGE, False))
    assert GAME.pending(s).seat == RED
    s, events = play(s, cm.Blockade(RED, True))
    assert GAME.pending(s).kind == "sale-or-battle" and s.act.moves_left == 0


def test_all_waive_and_the_galley_sails_on() -> None:
    s = blockade_board()
    s, _ = play(s, cm.EndLoading(BLUE))
    s, _ = play(s, cm.Sail(BLUE, "algerian"))
    s, _ = play(s, cm.Blockade(ORANGE, False))
    s, _ = play(s, cm.Blockade(RED, False))
    assert GAME.pending(s).kind == "movement"
    s, _ = play(s, cm.Sail(BLUE, "sicily_strait"))
    assert s.galleys[4].zone == "sicily_strait"


def test_a_blockade_cannot_involve_the_starting_zone() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 3)
    s = galley(s, 7, RED, "algerian", 5)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    s, a = play(s, cm.Sail(BLUE, "balearic"))
    s, b = play(s, cm.Sail(BLUE, "algerian"))
    assert a[0].blockaders == () and b[0].blockaders == ()


def test_a_sale_blockade_leaves_battle_or_end_but_never_the_sale() -> None:
    s = blockade_board()
    s = replace(s, act=replace(s.act, stage="trade"))
    s = galley(s, 4, BLUE, "algerian", 3, ["wood"])
    s, _ = play(s, cm.Sell(BLUE, "wood"))
    s, _ = play(s, cm.Blockade(ORANGE, True))
    refuse(s, cm.Sell(BLUE, "wood"), "serenissima/sale/after-battle")
    refuse(s, cm.AttackGalley(BLUE, 7), "serenissima/blockade/fight-the-blockader")
    assert {c.galley for c in GAME.legal(s) if isinstance(c, cm.AttackGalley)} == {3}


def test_every_sale_of_the_step_may_be_blockaded_also_after_a_waived_one() -> None:
    """No source limits the blockade to the step's first sale: each good sold is asked about again."""
    s = blockade_board()
    s = galley(s, 4, BLUE, "algerian", 3, ["gold", "wood"])
    s = replace(s, act=replace(s.act, stage="trade"))
    s, events = play(s, cm.Sell(BLUE, "gold"))
    assert types(events) == ["sale-announced"] and events[0].blockaders == (ORANGE, RED)
    s, _ = play(s, cm.Blockade(ORANGE, False))
    s, events = play(s, cm.Blockade(RED, False))
    assert types(events)[-1] == "good-sold" and P(s, "algiers").warehouse == ("gold",)
    s, events = play(s, cm.Sell(BLUE, "wood"))
    assert types(events) == ["sale-announced"] and events[0].blockaders == (ORANGE, RED)
    s, _ = play(s, cm.Blockade(ORANGE, True))
    assert s.galleys[4].goods == ("wood",) and P(s, "algiers").warehouse == ("gold",)
    refuse(s, cm.Sell(BLUE, "wood"), "serenissima/sale/after-battle")
    # S002: the player suffering the blockade may then fight the blockader or end the turn
    assert {c.galley for c in GAME.legal(s) if isinstance(c, cm.AttackGalley)} == {3}
    assert cm.EndActivation(BLUE) in GAME.legal(s)


def test_attacking_an_owned_port_cannot_be_blockaded() -> None:
    s = table()
    s = port(s, "algiers", RED, 1)
    s = port(s, "tunis", RED, 1)
    s = galley(s, 4, BLUE, "algerian", 3)
    s = galley(s, 3, ORANGE, "algerian", 5)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, events = play(s, cm.AttackPort(BLUE), rolls([1, 1, 1], [1]))
    assert types(events)[:2] == ["battle-started", "battle-round"]


def test_a_blockaded_claim_is_fought_then_checked_again() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 4)
    s = galley(s, 7, RED, "algerian", 5)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, events = play(s, cm.ClaimPort(BLUE))
    assert events[0].blockaders == (RED,)
    s, _ = play(s, cm.Blockade(RED, True))
    refuse(s, cm.ClaimPort(BLUE), "serenissima/blockade/fight-the-blockader")
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 4, 4, 4], [1, 1, 1, 1, 1]))
    s, _ = play(s, cm.ContinueBattle(BLUE, True), rolls([5, 1, 1, 1], [2]))
    assert s.galleys[7] is None
    s, events = play(s, cm.ClaimPort(BLUE))
    assert events[0].blockaders == ()
    s, _ = play(s, cm.Unload(BLUE, 2))
    assert P(s, "algiers").owner == BLUE and s.act is not None and s.act.galley == 15


# --- §7.6 sale -------------------------------------------------------------------------------------


def sale_board(owner: int, warehouse: list[str], goods: list[str]) -> object:
    s = table()
    s = port(s, "napoli", owner, 1, warehouse) if owner != NEUTRAL else port(s, "napoli", NEUTRAL, 0, warehouse)
    s = galley(s, 4, BLUE, "tyrrhenian", 1, goods)
    s = activate(s, 4, "action")
    return replace(s, act=replace(s.act, stage="trade"))


def test_sale_checks_produced_held_and_full() -> None:
    s = sale_board(RED, ["gold", "wood", "stone"], ["wine", "gold", "marble"])
    refuse(s, cm.Sell(BLUE, "wine"), "serenissima/sale/produced-here")
    refuse(s, cm.Sell(BLUE, "gold"), "serenissima/sale/already-held")
    refuse(s, cm.Sell(BLUE, "spice"), "serenissima/sale/not-aboard")
    s, events = play(s, cm.Sell(BLUE, "marble"))
    assert events[0].space_value == 5 and events[0].income == 5  # the cheapest free space: the 4th
    s = galley(s, 4, BLUE, "tyrrhenian", 1, ["spice"])
    refuse(s, cm.Sell(BLUE, "spice"), "serenissima/sale/warehouse-full")


def test_several_goods_sold_in_one_step_fill_cheapest_spaces() -> None:
    s = sale_board(NEUTRAL, [], ["gold", "marble", "stone"])
    incomes = []
    for good in ("gold", "marble", "stone"):
        s, events = play(s, cm.Sell(BLUE, good))
        incomes.append(events[0].income)
    assert incomes == [2, 3, 4] and P(s, "napoli").warehouse == ("gold", "marble", "stone")
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/after-sale")


def test_spice_bonus_and_own_port_pays_nothing() -> None:
    s = sale_board(BLUE, [], ["spice", "gold"])
    s, a = play(s, cm.Sell(BLUE, "spice"))
    s, b = play(s, cm.Sell(BLUE, "gold"))
    assert (a[0].income, b[0].income) == (2, 0)
    s = sale_board(RED, [], ["spice"])
    s, a = play(s, cm.Sell(BLUE, "spice"))
    assert a[0].income == 4 and s.money[RED] == 5  # the bank pays, not the port's owner


def test_wine_turns_the_port_card() -> None:
    s = table()
    s = port(s, "tunis", RED, 1)
    s = galley(s, 4, BLUE, "sicily_strait", 1, ["wine"])
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    assert not GAME.view(s, None)["ports"]["tunis"]["wine_side"]
    assert GAME.view(s, None)["ports"]["napoli"]["wine_side"]  # wine producers have no neutral side
    s, _ = play(s, cm.Sell(BLUE, "wine"))
    assert GAME.view(s, None)["ports"]["tunis"]["wine_side"]


def test_a_closed_port_takes_no_sale_or_conquest() -> None:
    s = sale_board(NEUTRAL, [], ["gold"])
    s = replace(s, ports=tuple(replace(p, closed=(s.t.ports[i] == "napoli")) for i, p in enumerate(s.ports)))
    refuse(s, cm.Sell(BLUE, "gold"), "serenissima/sale/port-closed")
    refuse(s, cm.ClaimPort(BLUE), "serenissima/conquest/port-closed")


# --- §7.7 battle against galleys -------------------------------------------------------------------------


def battle_board(blue_sailors: int = 3, red_sailors: int = 2, red_goods: tuple[str, ...] = ("gold",), moves: int = 0) -> object:
    s = table()
    s = galley(s, 4, BLUE, "algerian", blue_sailors, ["wood"])
    s = galley(s, 7, RED, "algerian", red_sailors, list(red_goods))
    s = galley(s, 9, RED, "algerian", 1)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    return replace(s, act=replace(s.act, stage="trade", moves_made=moves))


def test_kills_beyond_the_sailors_present_are_lost_and_the_dead_go_home() -> None:
    s = battle_board(blue_sailors=3, red_sailors=1)
    supply = s.supply
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([6, 6, 6], [1]))
    assert events[1].defender_losses == 1 and events[1].attacker_losses == 0
    assert s.supply[RED] == supply[RED] + 1


def test_stopping_a_battle_ends_the_activation() -> None:
    s = battle_board(blue_sailors=3, red_sailors=3)
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([1, 1, 1], [1, 1, 1]))
    s, events = play(s, cm.ContinueBattle(BLUE, False))
    assert types(events)[:3] == ["battle-stopped", "activation-ended", "galley-activated"]


def test_the_first_value_caps_every_later_battle() -> None:
    s = battle_board(blue_sailors=4, red_sailors=1, moves=1)
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([1, 1, 4], [1]))
    assert events[0].value == 3
    s, _ = play(s, cm.EndCapture(BLUE))
    s = galley(s, 4, BLUE, "algerian", 4, ["wood"])
    assert combat_value(s.act, s.galleys[4]) == 3  # not 4, though 4 sailors are aboard
    s, events = play(s, cm.AttackGalley(BLUE, 9), rolls([1, 1, 5], [1]))
    assert len(events[1].attacker_rolls) == 3


def test_no_attack_with_a_combat_value_of_zero() -> None:
    s = battle_board(blue_sailors=2, moves=2)
    refuse(s, cm.AttackGalley(BLUE, 7), "serenissima/battle/no-combat-value")
    assert cm.ClaimPort(BLUE) in GAME.legal(s)  # claiming needs no combat value


def test_the_defender_claims_the_attackers_goods_when_the_attacker_sinks() -> None:
    s = battle_board(blue_sailors=1, red_sailors=2, red_goods=())
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([1], [4, 1]))
    assert s.galleys[4] is None
    assert GAME.pending(s).seat == RED and GAME.pending(s).kind == "capture"
    s, _ = play(s, cm.Capture(RED, "wood"))
    s, events = play(s, cm.EndCapture(RED))
    assert s.galleys[7].goods == ("wood",) and "activation-ended" in types(events)


def test_claims_only_into_free_space_after_tossing_own_goods() -> None:
    s = battle_board(blue_sailors=2, red_sailors=1, red_goods=("gold",))
    s = galley(s, 4, BLUE, "algerian", 2, ["wood", "wood", "wood"])
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1], [1]))
    refuse(s, cm.Capture(BLUE, "gold"), "serenissima/capture/no-room")
    s, _ = play(s, cm.TossGood(BLUE, "wood"))
    s, _ = play(s, cm.Capture(BLUE, "gold"))
    assert s.galleys[4].goods == ("gold", "wood", "wood")


def test_when_both_galleys_sink_their_goods_go_back() -> None:
    s = battle_board(blue_sailors=1, red_sailors=1, red_goods=("gold",))
    gold = s.goods[s.t.good_index["gold"]]
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([4], [4]))
    assert s.galleys[4] is None and s.galleys[7] is None
    assert s.goods[s.t.good_index["gold"]] == gold + 1 and "activation-ended" in types(events)


# --- §7.8 ports ------------------------------------------------------------------------------------------


def port_board(fort: bool = False, garrison: int = 2, ports_of_red: int = 2) -> object:
    s = table()
    s = port(s, "algiers", RED, garrison, fort=fort)
    if ports_of_red > 1:
        s = port(s, "tunis", RED, 1)
    s = galley(s, 4, BLUE, "algerian", 4)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    return replace(s, act=replace(s.act, stage="trade"))


def test_the_port_owners_galleys_must_be_sunk_first_others_may_be_ignored() -> None:
    s = port_board()
    s = galley(s, 7, RED, "algerian", 1)
    s = galley(s, 3, ORANGE, "algerian", 3)
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/galleys-first")
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1, 1], [1]))
    s, events = play(s, cm.AttackPort(BLUE), rolls([1, 1, 1, 1], [1, 1]))
    assert types(events)[:2] == ["battle-started", "battle-round"]


def test_a_fort_fires_two_dice_once_before_the_port_battle() -> None:
    s = port_board(fort=True)
    outcomes = [Outcome("roll", "dice:fort", (5, 6))] + rolls([4, 4], [1, 1])
    s, events = play(s, cm.AttackPort(BLUE), outcomes)
    assert types(events)[:3] == ["fort-fired", "battle-started", "battle-round"]
    assert events[0].kills == 2 and s.galleys[4].sailors == 2 and events[1].value == 2
    assert GAME.pending(s).kind == "unload"
    assert [c.sailors for c in GAME.legal(s)] == [0, 1, 2]
    s, _ = play(s, cm.Unload(BLUE, 1))
    assert P(s, "algiers").owner == BLUE and P(s, "algiers").fort  # the fort stays, whoever owns it


def test_a_fort_can_sink_the_attacker_before_any_round() -> None:
    s = port_board(fort=True)
    s = galley(s, 4, BLUE, "algerian", 1)
    s, events = play(s, cm.AttackPort(BLUE), [Outcome("roll", "dice:fort", (6, 1))])
    assert s.galleys[4] is None and "activation-ended" in types(events)


def test_mutual_destruction_leaves_the_port_neutral() -> None:
    s = port_board(garrison=1)
    s = galley(s, 4, BLUE, "algerian", 1)
    s, events = play(s, cm.AttackPort(BLUE), rolls([6], [6]))
    assert P(s, "algiers").owner == NEUTRAL and P(s, "algiers").sailors == 0 and s.galleys[4] is None


def test_unloading_every_sailor_sinks_the_galley() -> None:
    s = table()
    s = galley(s, 4, BLUE, "algerian", 1, ["wood"])
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    s, _ = play(s, cm.ClaimPort(BLUE))
    s, _ = play(s, cm.Unload(BLUE, 1))
    assert s.galleys[4] is None and P(s, "algiers").owner == BLUE


def test_a_players_last_port_cannot_be_attacked() -> None:
    s = port_board(ports_of_red=1)
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/last-port")


# --- §7.9 investment ---------------------------------------------------------------------------------------


def invest_board() -> object:
    s = table()
    s = port(s, "valencia", BLUE, 2, ["stone"])
    s = port(s, "tunis", BLUE, 1, ["marble"])
    s = galley(s, 4, BLUE, "balearic", 2)
    s = galley(s, 6, BLUE, "algerian", 2)
    s = money(s, blue=20)
    return activate(s, 4, "investment")


def test_galley_costs_one_per_galley_owned_one_per_investment_in_own_port() -> None:
    s = invest_board()
    refuse(s, cm.BuyGalley(BLUE, 8, "algiers"), "serenissima/investment/not-your-port")
    refuse(s, cm.BuyGalley(BLUE, 6, "valencia"), "serenissima/investment/galley-number")
    s, events = play(s, cm.BuyGalley(BLUE, 8, "tunis"))
    assert events[0].price == 2 + 1  # 2 galleys owned, plus its first sailor
    assert s.galleys[8].zone == "sicily_strait" and s.galleys[8].sailors == 1
    refuse(s, cm.BuyGalley(BLUE, 9, "valencia"), "serenissima/investment/one-galley")


def test_recruits_go_to_own_ports_and_galleys_in_own_ports_only() -> None:
    s = invest_board()
    refuse(s, cm.RecruitGalley(BLUE, 6), "serenissima/investment/galley-not-in-your-port")
    s, events = play(s, cm.RecruitGalley(BLUE, 4))
    assert events[0].price == 1 and s.galleys[4].sailors == 3
    s = replace(s, supply=(0,) + s.supply[1:])
    refuse(s, cm.RecruitPort(BLUE, "valencia"), "serenissima/investment/no-sailors-left")


def test_fort_needs_wood_and_stone_and_basilica_gold_and_marble() -> None:
    s = invest_board()
    s, events = play(s, cm.BuildFort(BLUE, "valencia"))  # produces wood, holds stone
    assert events[0].price == 2 and P(s, "valencia").warehouse == ("stone",)  # no cube is used up
    refuse(s, cm.BuildFort(BLUE, "valencia"), "serenissima/investment/one-fort")
    refuse(s, cm.BuildFort(BLUE, "tunis"), "serenissima/investment/fort-needs-goods")
    s, _ = play(s, cm.BuildBasilica(BLUE, "tunis"))  # produces gold, holds marble
    refuse(s, cm.BuildBasilica(BLUE, "valencia"), "serenissima/investment/basilica-needs-goods")


def test_fort_tokens_run_out() -> None:
    s = invest_board()
    s = replace(s, ports=tuple(replace(p, fort=(s.t.ports[i] in ("genova", "napoli", "rodi", "atene", "candia"))) for i, p in enumerate(s.ports)))
    refuse(s, cm.BuildFort(BLUE, "valencia"), "serenissima/investment/no-fort-tokens")


# --- §7.10 end of turn ------------------------------------------------------------------------------------


def end_board(track: int = 2, players: int = 4) -> object:
    s = table(players)
    s = port(s, "napoli", BLUE, 1)
    s = port(s, "tunis", RED, 1, ["wine", "stone"])
    s = port(s, "valencia", RED, 2)
    s = galley(s, 12, BLUE, "tyrrhenian", 1)
    s = galley(s, 11, RED, "balearic", 1)
    s = galley(s, 10, RED, "balearic", 1)
    s = activate(s, 12, "investment")
    return replace(s, track=track)


def test_wine_card_pays_three_per_owned_wine_port_and_does_not_move() -> None:
    s, events = play(end_board(), cm.EndInvestment(BLUE), doge("wine"))
    wine = next(e for e in events if e.type == "serenissima/wine-paid")
    assert wine.amounts == (3, 3, 0, 0) and s.track == 2


def test_one_hourglass_scores_when_it_reaches_a_scoring_space() -> None:
    s, events = play(end_board(track=4), cm.EndInvestment(BLUE), doge("hour1"))
    assert s.track == 5 and "scored" not in types(events)
    s, events = play(end_board(track=5), cm.EndInvestment(BLUE), doge("hour1"))
    scored = next(e for e in events if e.type == "serenissima/scored")
    assert scored.amounts == (0, 6, 0, 0)  # Red: Tunis 2 cubes = 6, Valencia empty = 0


def test_two_hourglasses_score_when_passing() -> None:
    s, events = play(end_board(track=5), cm.EndInvestment(BLUE), doge("hour2"))
    assert s.track == 7 and s.scorings == 1


def test_reshuffle_card_gathers_every_card_after_scoring() -> None:
    s = replace(end_board(track=5), discard=("hour1", "wine"))
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour2s"))
    assert types(events)[-4:] == ["doge-card-drawn", "scored", "doge-deck-reshuffled", "special-investment-opened"]
    assert s.discard == ()


def test_a_drawn_card_comes_from_what_is_left_of_the_deck() -> None:
    s = replace(end_board(), discard=("wine",))
    from domain.kernel import ImpossibleOutcome, ObservedChance

    with pytest.raises(ImpossibleOutcome):
        GAME.decide(s, cm.EndInvestment(BLUE), ObservedChance(doge("wine")))


def test_special_investment_for_fewer_than_two_galleys() -> None:
    s, events = play(end_board(), cm.EndInvestment(BLUE), doge("hour1"))
    assert events[-1].type == "serenissima/special-investment-opened"
    assert events[-1].seats == (BLUE, ORANGE, BLACK)
    assert GAME.pending(s).seat == BLUE and GAME.pending(s).kind == "special-investment"
    refuse(s, cm.BuildFort(BLUE, "napoli"), "serenissima/turn/wrong-step")
    s, _ = play(s, cm.BuyGalley(BLUE, 1, "napoli"))
    refuse(s, cm.BuyGalley(BLUE, 2, "napoli"), "serenissima/investment/enough-galleys")
    s, _ = play(s, cm.EndInvestment(BLUE))
    assert GAME.pending(s).seat == ORANGE


def test_special_investment_lets_a_fleetless_player_buy_two_galleys() -> None:
    s = end_board()
    s = port(s, "genova", ORANGE, 2)
    s = money(s, orange=10)
    s, _ = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    s, _ = play(s, cm.EndInvestment(BLUE))
    s, a = play(s, cm.BuyGalley(ORANGE, 1, "genova"))
    s, b = play(s, cm.BuyGalley(ORANGE, 2, "genova"))
    assert (a[0].price, b[0].price) == (1, 2)


def test_the_game_ends_after_the_third_scoring_richest_first_ties_by_port_cards() -> None:
    s = replace(end_board(track=11), scorings=2)
    s = money(s, blue=7, red=1, orange=7)
    s = port(s, "genova", ORANGE, 1)
    s = port(s, "atene", ORANGE, 1)
    s = port(s, "rodi", ORANGE, 1)
    s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    assert events[-1].type == "serenissima/game-ended"
    # Red scores 6 (7 in all, two ports); Blue 0 (7, one port); Orange 0 (7, three ports)
    assert events[-1].ranking == (ORANGE, RED, BLUE, BLACK)
    assert GAME.pending(s).over and GAME.legal(s) == []
    assert GAME.scores(s)["finished"] and GAME.scores(s)["ranking"] == [ORANGE, RED, BLUE, BLACK]
    refuse(s, cm.EndInvestment(BLUE), "serenissima/game-over")


@pytest.mark.parametrize(("players", "spaces"), [(2, [4, 8, 12]), (3, [4, 8, 12]), (4, [6, 9, 12])])
def test_scoring_spaces_per_player_count(players, spaces) -> None:
    found = []
    for start in range(0, 12):
        s = replace(end_board(track=start, players=players) if players > 2 else _two(start), scorings=0)
        s, events = play(s, cm.EndInvestment(BLUE), doge("hour1"))
        if "scored" in types(events):
            found.append(start + 1)
    assert found == spaces


def _two(track: int) -> object:
    s = table(2)
    s = port(s, "napoli", BLUE, 1)
    s = port(s, "tunis", RED, 1)
    s = galley(s, 12, BLUE, "tyrrhenian", 1)
    s = activate(s, 12, "investment")
    return replace(s, track=track)


# --- §7.12 hidden money -----------------------------------------------------------------------------------


def test_hidden_money_shows_others_only_what_was_announced() -> None:
    s = table(hidden=True)
    s = port(s, "tunis", RED, 1, ["wine", "stone"])
    s = port(s, "napoli", BLUE, 1)
    s = galley(s, 12, BLUE, "tyrrhenian", 1)
    s = money(s, blue=9, red=3)
    s = activate(s, 12, "investment")
    s = replace(s, track=5)
    s, _ = play(s, cm.EndInvestment(BLUE), doge("hour1"))
    seen_by_blue = GAME.view(s, BLUE)
    assert seen_by_blue["ducats"] == [9, None, None, None]
    assert seen_by_blue["announced_ducats"][RED] == 5 + 6  # starting ducats plus the announced scoring
    assert GAME.view(s, None)["ducats"] == list(s.money)
    assert GAME.view(s, RED)["ducats"][RED] == s.money[RED]
    visible = table()
    assert GAME.view(visible, BLUE)["ducats"] == [5, 5, 5, 5]
    running = GAME.scores(s)
    assert [x["total"] for x in running["seats"]] == list(s.announced) and running["seats"][BLUE]["breakdown"]["ducats"] == "hidden"
