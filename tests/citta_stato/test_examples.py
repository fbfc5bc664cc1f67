"""The rulebook's worked examples, reproduced move by move."""

from __future__ import annotations

from domain.citta_stato import commands as cmd
from domain.citta_stato.edition import CI
from domain.citta_stato.fold import put
from domain.citta_stato.rules import settle
from domain.citta_stato.scoring import final_scores, ranking, tied
from domain.kernel import SeededChance

from .helpers import (
    GAME,
    act,
    banner,
    board,
    c6,
    default_policy,
    kinds,
    market,
    new_game,
    pick,
    play,
    seat,
    supply,
    turn_state,
)


def test_first_action_cubes_fill_the_market_column_from_the_top() -> None:
    """Yellow's first action spends an orange cube: top orange space; the next player's lands beneath."""
    s = new_game(3)
    s = board(s, first=0, current=0, market=market(), present=put(s.present, CI["O"], "O1"))
    s = seat(s, 0, supply=c6(O=1, Y=2))
    s = seat(s, 1, supply=c6(O=1))
    s, _ = act(s, cmd.UseCard(0, "O"), policy=pick(cmd.PickNumber(0, 0)))
    assert s.market[CI["O"]] == (True, False, False)
    s = board(s, present=put(s.present, CI["O"], "O2"))
    s, _ = act(s, cmd.UseCard(1, "O"))
    assert s.market[CI["O"]] == (True, True, False)


def test_merchant_fleet_example_one_unspent_coin_is_lost() -> None:
    """3 coins: the green cube in the 2-coin row; the 1-coin row is empty, so 1 coin is lost."""
    s = turn_state(tracks=(3, 1, 1, 1), actions=1, supply=c6(Y=2))
    s = board(s, market=market(G=".x."))
    s, _ = play(s, cmd.CityAction(0, "Y"))
    assert GAME.legal(s) == [cmd.MarketCube(0, "G", 2), cmd.Decline(0)]
    s, events = play(s, cmd.MarketCube(0, "G", 2))
    assert supply(s, 0, "G") == 1 and kinds(events)[-1] == "TurnEnded"  # 1 coin left, nothing to buy


def test_merchant_fleet_example_two_three_cubes_for_three_coins() -> None:
    s = turn_state(tracks=(3, 1, 1, 1), actions=1, supply=c6(Y=2))
    s = board(s, market=market(O="..x", P="..x", G="..x"))
    for colour in "OPG":
        s, _ = play(s, cmd.MarketCube(0, colour, 1)) if GAME.pending(s).kind == "fleet" else play(s, cmd.CityAction(0, "Y"))
        if GAME.pending(s).kind == "fleet" and supply(s, 0, colour) == 0:
            s, _ = play(s, cmd.MarketCube(0, colour, 1))
    assert (supply(s, 0, "O"), supply(s, 0, "P"), supply(s, 0, "G")) == (1, 1, 1)
    assert GAME.pending(s).kind == "turn"


def test_venezia_example_takes_the_yellow_present_card_and_uses_it() -> None:
    s = turn_state(city="VEN")
    card = s.present[CI["Y"]]
    s, _ = play(s, cmd.CityAction(0, "W"))
    assert cmd.TakeCard(0, card, "present", "use") in GAME.legal(s)
    s, _ = act(s, cmd.TakeCard(0, card, "present", "use"))
    assert card in s.seats[0].cards


def test_war_action_example_first_space_loses_one_vp_and_places_a_disc() -> None:
    s = turn_state(vp=0)
    s, events = play(s, cmd.CityAction(0, "O"))
    assert s.seats[0].vp == -1  # negative VP are allowed
    s, _ = play(s, cmd.WarDisc(0, 3))
    assert s.warfare == ((0, 3),) and 3 not in s.seats[0].discs
    assert GAME.view(s, 1)["warfare"] == [{"seat": 0, "value": None}]


def test_republic_action_examples() -> None:
    red = turn_state(banners=(0, 0, 0, 3))
    red, _ = act(red, cmd.CityAction(0, "B"))
    assert red.seats[0].banners == (0, 0, 0, 0) and red.seats[0].crowns == 1 + 3
    green = turn_state(banners=(1, 1, 1, 1))
    green, _ = act(green, cmd.CityAction(0, "B"))
    assert green.seats[0].banners == (0, 0, 0, 0) and green.seats[0].crowns == 1 + 3


def test_politics_example_colour_vp_for_everyone_then_one_left() -> None:
    """Red picks black with Political Plot: Red scores 2, nobody else; then every marker 1 to the left."""
    s = turn_state(expansion=True, supply=c6(P=1, B=2), tracks=(1, 1, 1, 2), vp=0)
    for i in (1, 2, 3):
        s = seat(s, i, supply=c6(Y=2, O=1))
    s = board(s, schemes=("S1", "S7", "S2", "S3"), schemes_up=(True,) * 4)
    before = s
    s, _ = play(s, cmd.CityAction(0, "P"))
    s, _ = play(s, cmd.UseScheme(0, 2))
    s, _ = play(s, cmd.PickColour(0, "B"))
    s, _ = play(s, cmd.Accept(0))
    assert s.seats[0].vp == 2 and all(x.vp == 0 for x in s.seats[1:])
    s, _ = play(s, cmd.Shift(0, "left", 1))
    assert [x.form for x in s.seats] == [x.form - 1 for x in before.seats]


def test_guilds_example_draws_only_what_the_bag_holds() -> None:
    s = turn_state(tracks=(1, 2, 1, 1), bag=c6(Y=1, O=2))
    s, events = play(s, cmd.CityAction(0, "G"))
    drawn = next(e for e in events if type(e).__name__ == "CubesDrawn")
    assert len(drawn.cubes) == 3 and sum(s.seats[0].bag) == 0


def test_upgrade_example_yellow_two_to_three_gains_a_white_cube() -> None:
    s = turn_state(tracks=(2, 1, 1, 1))
    upgrade = s.upgrade
    s2, _ = act(s, cmd.Upgrade(0, "Y"))
    assert s2.seats[0].tracks[0] == 3 and s2.upgrade == upgrade - 1
    assert supply(s2, 0, "W") == supply(s, 0, "W") + 1
    s3 = board(s2, current=0)
    s3, _ = play(s3, cmd.CityAction(0, "Y", 0) if supply(s3, 0, "Y") >= 2 else cmd.CityAction(0, "Y", 2))
    assert tuple(GAME.pending(s3).detail["params"]) == (3,)  # 3 coins now


def test_use_card_examples() -> None:
    # Yellow: 1 yellow cube (first action, to the Market), Alexandria: green banner + 2 coins for purple and orange.
    s = turn_state(banners=(0, 0, 0, 0), supply=c6(Y=1))
    s = board(s, present=put(s.present, CI["Y"], "Y7"), market=market(P="..x", O="..x"))
    s, _ = play(s, cmd.UseCard(0, "Y"))
    assert s.market[CI["Y"]][0] and banner(s, 0, "G") == 1
    s, _ = play(s, cmd.MarketCube(0, "P", 1))
    s, _ = play(s, cmd.MarketCube(0, "O", 1))
    assert s.seats[0].supply == c6(P=1, O=1)

    # White, second action: 2 white cubes, Naval Engineering: a yellow and an orange banner.
    s = turn_state(actions=1, banners=(0, 0, 0, 0))
    s = board(s, present=put(s.present, CI["W"], "W5"))
    w = supply(s, 0, "W")
    s, _ = act(s, cmd.UseCard(0, "W"))
    assert s.seats[0].banners == (1, 0, 1, 0) and supply(s, 0, "W") == w - 2

    # Green, third action: 3 green cubes, Authority draws the whole bag (the paid cubes went in first).
    s = turn_state(actions=2, bag=c6(Y=1, O=1))
    s = board(s, present=put(s.present, CI["G"], "G8"))
    s, _ = act(s, cmd.UseCard(0, "G"))
    assert sum(s.seats[0].bag) == 0

    # Orange, second action: remove 2 yellow cubes for 4 VP.
    s = turn_state(actions=1, supply=c6(Y=2, O=2), vp=0)
    s = board(s, present=put(s.present, CI["O"], "O1"))
    s, _ = act(s, cmd.UseCard(0, "O"))
    assert s.seats[0].vp == 4 and supply(s, 0, "Y") == 0

    # Black, third action: 3 black cubes, Secret Route: 1 left and 6 VP for three burned white cards.
    s = turn_state(actions=2, supply=c6(B=3), burned=c6(W=3), vp=0)
    s = board(s, present=put(s.present, CI["B"], "B4"))
    form = s.seats[0].form
    s, _ = act(s, cmd.UseCard(0, "B"), policy=pick(cmd.Shift(0, "left", 1)))
    assert s.seats[0].form == form - 1 and s.seats[0].vp == 6

    # Purple, first action: Royal Court with 1 yellow and 2 purple banners: 3 VP.
    s = turn_state(supply=c6(P=1), banners=(1, 0, 0, 2), vp=0)
    s = board(s, present=put(s.present, CI["P"], "P5"))
    s, _ = act(s, cmd.UseCard(0, "P"))
    assert s.seats[0].vp == 3


def test_war_resolution_example() -> None:
    """Yellow (4) wins and takes the white Future card; Blue and Green tie at 2, Blue placed first and
    takes the green Present; Green can only take orange or black."""
    yellow, blue, green, red = 0, 1, 2, 3
    s = new_game(4, "war")
    s = board(
        s,
        first=red,
        current=red,
        warfare=((blue, 2), (green, 2), (yellow, 4)),
        present=("", "", "G1", "O1", "B1", ""),
    )
    for i in range(4):
        s = seat(s, i, passed=i != red, actions=1, supply=c6(Y=5), bag=(0,) * 6)
    s, _ = play(s, cmd.Pass(red))
    assert GAME.pending(s).kind == "war-shift" and GAME.pending(s).seat == red  # only Red is not at war
    s, _ = play(s, cmd.Shift(red, "none", 0))
    white_future = s.future[CI["W"]]
    for who, value in ((blue, 2), (green, 2), (yellow, 4)):
        for _ in range(value):
            s, _ = play(s, cmd.PickColour(who, "Y"))
        assert s.seats[who].bag == c6(Y=value)  # paid cubes go back to the bag
    assert GAME.pending(s).seat == yellow
    assert cmd.TakeCard(yellow, white_future, "future", "use") in GAME.legal(s)
    s, _ = play(s, cmd.TakeCard(yellow, white_future, "future", "burn"))
    assert GAME.pending(s).seat == blue
    assert {o.card for o in GAME.legal(s) if isinstance(o, cmd.TakeCard)} == {"G1", "O1", "B1"}
    s, _ = play(s, cmd.TakeCard(blue, "G1", "present", "burn"))
    while GAME.pending(s).seat == blue:  # Blue's burn bonus: a colour to draw, a 1-coin fleet
        s, _ = play(s, default_policy(s, GAME.legal(s)))
    assert GAME.pending(s).seat == green
    assert {o.card for o in GAME.legal(s) if isinstance(o, cmd.TakeCard)} == {"O1", "B1"}
    s, _ = play(s, cmd.TakeCard(green, "O1", "present", "burn"))
    s, _ = act(s, cmd.Accept(green)) if GAME.pending(s).kind == "vp" else (s, [])
    assert s.warfare == ()
    assert 4 in s.seats[yellow].retired and 2 in s.seats[blue].retired and 2 in s.seats[green].retired


def test_final_scoring_example() -> None:
    """Blue 19/2 outside its form: 2. Yellow 17/10 owes 2 crowns, has 1: 10. Red 14/3 pays 3: 14."""
    s = new_game(3, "final")
    blue, yellow, red = 0, 1, 2
    s = seat(s, blue, vp=19, second=2, republic="R8", form=2, crowns=5)  # a Doge card, marker in Plutocracy
    s = seat(s, yellow, vp=17, second=10, republic="R6", form=5, crowns=1)
    s = seat(s, red, vp=14, second=3, republic="R4", form=1, crowns=3)
    finals = [r["final"] for r in final_scores(s)]
    assert finals == [2, 10, 14]
    assert [r["crowns_required"] for r in final_scores(s)] == [4, 2, 3]
    assert ranking(s, finals) == [red, yellow, blue]
    s = board(s, round=8, tasks=(("game_end", -1),))
    s, events = settle(s, [], SeededChance("x"))
    assert s.phase == "over" and s.finals == (2, 10, 14)
    assert GAME.scores(s)["ranking"] == [red, yellow, blue]


def test_ties_break_by_first_plus_second_then_cubes_in_supply() -> None:
    s = new_game(3, "ties")
    s = seat(s, 0, vp=10, second=4, republic="R4", form=2, crowns=5, supply=c6(Y=1))
    s = seat(s, 1, vp=10, second=6, republic="R4", form=2, crowns=5, supply=c6(Y=1))
    s = seat(s, 2, vp=10, second=6, republic="R4", form=2, crowns=5, supply=c6(Y=3))
    finals = [r["final"] for r in final_scores(s)]
    assert finals == [10, 10, 10]
    assert ranking(s, finals) == [2, 1, 0]
    assert tied(s, finals) == []


def test_seats_level_after_both_tie_breaks_share_their_place() -> None:
    """The rulebook has two tie-breaks and no third: seats still level are reported as sharing the place."""
    s = new_game(3, "shared")
    for i, second in ((0, 6), (1, 4), (2, 6)):
        s = seat(s, i, vp=10, second=second, republic="R4", form=2, crowns=5, supply=c6(Y=2))
    finals = [r["final"] for r in final_scores(s)]
    assert finals == [10, 10, 10] and tied(s, finals) == [[0, 2]]
    s = board(s, round=8, tasks=(("game_end", -1),))
    s, _ = settle(s, [], SeededChance("x"))
    scores = GAME.scores(s)
    assert scores["ranking"] == [0, 2, 1] and scores["tied"] == [[0, 2]]


def test_faq_the_yellow_cube_just_spent_can_be_bought_back() -> None:
    s = turn_state(tracks=(3, 1, 1, 1), supply=c6(Y=1))
    s = board(s, market=market())
    s, _ = play(s, cmd.CityAction(0, "Y"))
    assert s.market[CI["Y"]] == (True, False, False)
    assert cmd.MarketCube(0, "Y", 3) in GAME.legal(s)
    s, _ = play(s, cmd.MarketCube(0, "Y", 3))
    assert supply(s, 0, "Y") == 1 and s.market[CI["Y"]] == (False, False, False)
