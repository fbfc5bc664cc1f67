"""The bad input the issue lists, plus malformed and out-of-turn commands: refused by rule id, state unchanged."""

from __future__ import annotations

import pytest

from domain.kernel import MalformedCommand
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.state import replace
from tests.serenissima.board import BLUE, ORANGE, RED, activate, galley, play, port, refuse, table
from tests.serenissima.test_rules import invest_board, port_board


def test_moving_further_than_the_sailors_allow() -> None:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 1)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    s, _ = play(s, cm.Sail(BLUE, "algerian"))
    refuse(s, cm.Sail(BLUE, "sicily_strait"), "serenissima/movement/no-moves-left")


def test_loading_beyond_five_pieces() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, "balearic", 2, ["wood", "wood", "wood"])
    s = activate(s, 4, "action")
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/galley-full")
    refuse(s, cm.MoveSailor(BLUE, 0, 4), "serenissima/loading/galley-full")


def test_emptying_a_port() -> None:
    s = table()
    s = port(s, "valencia", BLUE, 1)
    s = galley(s, 4, BLUE, "balearic", 1)
    s = activate(s, 4, "action")
    refuse(s, cm.MoveSailor(BLUE, 0, 4), "serenissima/loading/port-must-keep-sailor")


@pytest.mark.parametrize(("good", "rule"), [("wine", "serenissima/sale/produced-here"), ("gold", "serenissima/sale/already-held")])
def test_selling_a_good_the_port_produces_or_holds(good: str, rule: str) -> None:
    s = table()
    s = port(s, "napoli", RED, 1, ["gold"])
    s = galley(s, 4, BLUE, "tyrrhenian", 1, ["wine", "gold"])
    s = activate(s, 4, "action")
    s = replace(s, act=replace(s.act, stage="trade"))
    refuse(s, cm.Sell(BLUE, good), rule)


def test_buying_a_second_galley_in_one_investment() -> None:
    s = invest_board()
    s, _ = play(s, cm.BuyGalley(BLUE, 1, "valencia"))
    refuse(s, cm.BuyGalley(BLUE, 2, "valencia"), "serenissima/investment/one-galley")


def test_building_a_fort_without_wood_and_stone() -> None:
    s = invest_board()
    refuse(s, cm.BuildFort(BLUE, "tunis"), "serenissima/investment/fort-needs-goods")


def test_attacking_a_players_last_port() -> None:
    refuse(port_board(ports_of_red=1), cm.AttackPort(BLUE), "serenissima/battle/last-port")


def test_a_blockade_by_a_player_without_more_sailors() -> None:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 3)
    s = galley(s, 7, RED, "algerian", 3)
    s = galley(s, 8, ORANGE, "algerian", 4)
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    s, _ = play(s, cm.Sail(BLUE, "algerian"))
    assert GAME.pending(s).seat == ORANGE
    refuse(s, cm.Blockade(RED, True), "serenissima/blockade/not-enough-sailors")


def test_out_of_turn_and_wrong_step() -> None:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 3)
    s = activate(s, 4)
    refuse(s, cm.ChoosePlan(RED, "action"), "serenissima/turn/not-your-decision")
    refuse(s, cm.EndLoading(BLUE), "serenissima/turn/wrong-step")


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "serenissima/sail", "seat": 0},
        {"type": "serenissima/sail", "seat": 0, "zone": "lion", "speed": 2},
        {"type": "serenissima/unload", "seat": 0, "sailors": "2"},
        {"type": "serenissima/choose-plan", "seat": 0, "plan": "trade"},
        {"type": "serenissima/blockade", "seat": "0", "declare": True},
        {"type": "serenissima/row", "seat": 0},
    ],
)
def test_malformed_commands_never_reach_the_rules(payload: dict) -> None:
    with pytest.raises(MalformedCommand):
        GAME.parse_command(payload)


def test_well_formed_commands_parse_to_their_class() -> None:
    c = GAME.parse_command({"type": "serenissima/buy-galley", "seat": 1, "galley": 3, "port": "genova"})
    assert c == cm.BuyGalley(1, 3, "genova") and GAME.parse_command(c.to_json()) == c
