"""Every action card, Political Scheme, city ability and burn bonus, each at least once."""

from __future__ import annotations

import pytest

from domain.citta_stato import commands as cmd
from domain.citta_stato.edition import BANNERS, BI, CI, COLOURS
from domain.citta_stato.fold import put
from domain.citta_stato.state import State
from domain.kernel import Outcome, RuleViolation

from .helpers import (
    GAME,
    act,
    banner,
    board,
    c6,
    default_policy,
    kinds,
    market,
    pick,
    play,
    seat,
    settle_choices,
    supply,
    total_cubes,
    turn_state,
)


def use_card(card: str, policy=None, expansion: bool | None = None, **seat0) -> tuple[State, State, list]:
    """Seat 0 uses `card` as its first action (1 cube of the card's colour to the Market)."""
    colour = card[0]
    s = turn_state(expansion=expansion, **seat0)
    s = board(s, present=put(s.present, CI[colour], card))
    after, events = act(s, cmd.UseCard(0, colour), **({"policy": policy} if policy else {}))
    assert total_cubes(after) == total_cubes(s)
    assert card in after.seats[0].cards or "CardBurnedUnder" in kinds(events)
    return s, after, events


def d_banners(before: State, after: State) -> tuple[int, ...]:
    return tuple(a - b for a, b in zip(after.seats[0].banners, before.seats[0].banners, strict=True))


def d_vp(before: State, after: State) -> int:
    return after.seats[0].vp - before.seats[0].vp


def d_supply_total(before: State, after: State) -> int:
    return sum(after.seats[0].supply) - sum(before.seats[0].supply)


# --- yellow: Historical Ports --------------------------------------------------------------
@pytest.mark.parametrize(
    ("card", "city", "gain"),
    [
        ("Y1", "GEN", (2, 0, 0, 0)),  # yellow banner, + port bonus (first choice: yellow)
        ("Y2", "PIS", (1, 0, 1, 0)),
        ("Y3", "ANC", (1, 0, 0, 1)),
        ("Y4", "AMA", (1, 1, 0, 0)),
        ("Y5", "VEN", (1, 0, 1, 0)),
        ("Y6", "RAG", (2, 0, 0, 0)),
    ],
)
def test_port_cards_give_their_banner_and_a_bonus_banner_for_their_city(card: str, city: str, gain: tuple[int, ...]) -> None:
    before, after, _ = use_card(card, city=city)
    assert d_banners(before, after) == gain


def test_port_card_gives_no_bonus_to_another_city() -> None:
    before, after, _ = use_card("Y1", city="AMA")
    assert d_banners(before, after) == (1, 0, 0, 0)


@pytest.mark.parametrize(("card", "colour"), [("Y7", "G"), ("Y8", "P"), ("Y10", "O")])
def test_alexandria_constantinople_jaffa_banner_and_two_coin_fleet(card: str, colour: str) -> None:
    before, after, events = use_card(card, expansion=card == "Y10" or None)
    assert d_banners(before, after)[BI[colour]] == 1 and sum(d_banners(before, after)) == 1
    assert kinds(events).count("CubeBought") == 2  # two 1-coin cubes
    assert d_supply_total(before, after) == -1 + 2


def test_holy_land_gives_two_different_banners() -> None:
    before, after, events = use_card("Y9", expansion=True)
    assert sorted(d_banners(before, after)) == [0, 0, 1, 1]
    s = turn_state(expansion=True)
    s = board(s, present=put(s.present, CI["Y"], "Y9"))
    s, _ = play(s, cmd.UseCard(0, "Y"))
    s, _ = play(s, cmd.PickColour(0, "O"))
    assert [o.colour for o in GAME.legal(s)] == ["Y", "G", "P"]  # the second must differ


# --- white: Commerce -----------------------------------------------------------------------
@pytest.mark.parametrize(("card", "coins"), [("W1", 3), ("W2", 4), ("W3", 5), ("W9", 6)])
def test_monopolies_and_slave_trade_are_fleets_of_their_coins(card: str, coins: int) -> None:
    before, after, events = use_card(card, expansion=card == "W9" or None)
    spent = sum(e.cost for e in events if type(e).__name__ == "CubeBought")
    assert spent == coins  # six 1-coin cubes on offer, so every coin buys one
    assert d_supply_total(before, after) == -1 + coins


@pytest.mark.parametrize(("card", "colours"), [("W5", "YO"), ("W6", "GP"), ("W7", "YG"), ("W8", "OP")])
def test_naval_engineering_and_rich_landing_banners(card: str, colours: str) -> None:
    before, after, _ = use_card(card)
    assert d_banners(before, after) == tuple(1 if c in colours else 0 for c in BANNERS)


@pytest.mark.parametrize("card", ["W4", "W10"])
def test_freedom_of_thought_burns_itself_under_the_chosen_colour(card: str) -> None:
    before, after, events = use_card(card, policy=pick(cmd.PickColour(0, "O")), expansion=card == "W10" or None)
    s = after.seats[0]
    assert card not in s.cards and card in s.burned_cards
    assert s.burned[CI["O"]] == 1 and s.burned[CI["W"]] == 0
    assert d_vp(before, after) == 1  # the first orange burn bonus


# --- green: Guild Contracts ----------------------------------------------------------------
@pytest.mark.parametrize(("card", "colour"), [("G1", "P"), ("G2", "O"), ("G3", "Y"), ("G4", "G"), ("G9", "B"), ("G10", "W")])
def test_guild_contracts_draw_a_colour_and_score_it(card: str, colour: str) -> None:
    before, after, _ = use_card(card, expansion=card in ("G9", "G10") or None)
    b = before.seats[0]
    expected = b.supply[CI[colour]] + b.bag[CI[colour]] - (1 if colour == "G" else 0)  # the paid green cube went to the Market
    assert after.seats[0].bag[CI[colour]] == 0
    assert supply(after, 0, colour) == expected
    assert d_vp(before, after) == expected


@pytest.mark.parametrize(("card", "colours"), [("G5", "PB"), ("G6", "YW"), ("G7", "GO"), ("G8", "YWGOBP")])
def test_magistrate_merchant_shipwright_authority_draw_colours(card: str, colours: str) -> None:
    before, after, _ = use_card(card)
    bag = after.seats[0].bag
    for c in COLOURS:
        assert (bag[CI[c]] == 0) == (c in colours), c
    assert d_supply_total(before, after) == -1 + sum(before.seats[0].bag[CI[c]] for c in colours)
    assert d_vp(before, after) == 0


# --- orange: Militia -----------------------------------------------------------------------
@pytest.mark.parametrize(("card", "colour"), [("O1", "Y"), ("O2", "G"), ("O3", "O"), ("O4", "P")])
def test_ports_remove_cubes_to_the_box_for_two_vp_each(card: str, colour: str) -> None:
    before, after, _ = use_card(card)  # policy removes as many as possible
    held = supply(before, 0, colour) - (1 if colour == "O" else 0)
    assert supply(after, 0, colour) == 0
    assert after.box[CI[colour]] - before.box[CI[colour]] == held
    assert d_vp(before, after) == 2 * held


@pytest.mark.parametrize("card", ["O5", "O6"])
def test_warfare_intent_recovers_a_removed_disc_for_its_power(card: str) -> None:
    before, after, _ = use_card(card, discs=(1, 2), retired=(0, 4))
    assert after.seats[0].discs == (1, 2, 4) and after.seats[0].retired == (0,)
    assert d_vp(before, after) == 4


@pytest.mark.parametrize("card", ["O7", "O8"])
def test_hunt_saracen_pirates_removes_a_disc_for_its_power(card: str) -> None:
    before, after, _ = use_card(card)
    assert 5 not in after.seats[0].discs and 5 in after.seats[0].retired
    assert d_vp(before, after) == 5


def test_mercenary_tradition_gives_seven() -> None:
    before, after, _ = use_card("O9", expansion=True)
    assert d_vp(before, after) == 7


def test_corsair_raid_fleet_then_vp_by_orange_level() -> None:
    before, after, events = use_card("O10", expansion=True, tracks=(1, 1, 3, 1))
    assert kinds(events).count("CubeBought") == 2
    assert d_vp(before, after) == 3


# --- black: Republic -----------------------------------------------------------------------
@pytest.mark.parametrize(("card", "colour"), [("B1", "G"), ("B2", "O"), ("B3", "Y"), ("B4", "W")])
def test_move_one_then_two_vp_per_burned_card_of_a_colour(card: str, colour: str) -> None:
    burned = c6(**{colour: 2})
    before, after, _ = use_card(card, burned=burned, policy=pick(cmd.Shift(0, "right", 1)))
    assert after.seats[0].form == before.seats[0].form + 1
    assert d_vp(before, after) == 4


@pytest.mark.parametrize(("card", "direction", "step"), [("B5", "right", 1), ("B6", "left", -1)])
def test_dynastic_order_and_financial_power_move_their_way_then_three_vp(card: str, direction: str, step: int) -> None:
    s = turn_state()
    s = board(s, present=put(s.present, CI["B"], card))
    s, _ = play(s, cmd.UseCard(0, "B"))
    offered = GAME.legal(s)
    assert {o.direction for o in offered} == {direction}
    assert {o.spaces for o in offered} == {1, 2}
    before_form = s.seats[0].form
    s, _ = play(s, cmd.Shift(0, direction, 2))
    assert s.seats[0].form == before_form + 2 * step
    s, _ = play(s, cmd.Accept(0))
    assert s.seats[0].vp == 13


@pytest.mark.parametrize("card", ["B7", "B10"])
def test_republican_thought_crown_and_vp_per_purple_banner(card: str) -> None:
    before, after, _ = use_card(card, expansion=card == "B10" or None)
    assert after.seats[0].crowns == before.seats[0].crowns + 1
    assert d_vp(before, after) == banner(before, 0, "P")


def test_subversive_push_moves_up_to_seven_within_the_track() -> None:
    s = turn_state(form=2)
    s = board(s, present=put(s.present, CI["B"], "B8"))
    s, _ = play(s, cmd.UseCard(0, "B"))
    offered = {(o.direction, o.spaces) for o in GAME.legal(s)}
    assert offered == {("left", 1)} | {("right", k) for k in range(1, 8)}
    s, _ = play(s, cmd.Shift(0, "right", 7))
    assert s.seats[0].form == 9


def test_republican_chart_two_crowns() -> None:
    before, after, _ = use_card("B9", expansion=True)
    assert after.seats[0].crowns - before.seats[0].crowns == 2


# --- purple: Sovereign ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("card", "per", "colours"),
    [("P1", 2, "P"), ("P2", 2, "O"), ("P3", 2, "G"), ("P4", 2, "Y"), ("P5", 1, "YP"), ("P6", 1, "OP"), ("P7", 1, "GY")],
)
def test_sovereign_cards_score_banners(card: str, per: int, colours: str) -> None:
    before, after, _ = use_card(card)
    assert d_vp(before, after) == per * sum(banner(before, 0, c) for c in colours)
    assert after.seats[0].banners == before.seats[0].banners  # banners are kept


def test_hegemonic_republic_one_vp_per_two_cubes() -> None:
    before, after, _ = use_card("P8")
    assert d_vp(before, after) == (sum(before.seats[0].supply) - 1) // 2


def test_doges_council_one_vp_per_burned_card() -> None:
    before, after, _ = use_card("P9", expansion=True, burned=c6(Y=1, O=2))
    assert d_vp(before, after) == 3


def test_city_assembly_counts_other_used_cards() -> None:
    before, after, _ = use_card("P10", expansion=True, cards=("Y1", "G2"))
    assert d_vp(before, after) == 2


def test_vp_may_be_declined() -> None:
    before, after, events = use_card("O9", expansion=True, policy=lambda s, o: next(x for x in o if isinstance(x, cmd.Decline)))
    assert d_vp(before, after) == 0 and "Declined" in kinds(events)


# --- burn bonuses --------------------------------------------------------------------------
def burn(colour: str, already: int, policy=None, **seat0) -> tuple[State, State, list]:
    s = turn_state(burned=c6(**{colour: already}), **seat0)
    card = next(k for k in sorted(s.t.card_effects) if k[0] == colour and not s.t.card_expansion[k])
    s = board(s, present=put(s.present, CI[colour], card))
    after, events = act(s, cmd.BurnCard(0, colour), **({"policy": policy} if policy else {}))
    assert after.seats[0].burned[CI[colour]] == already + 1
    assert card in after.seats[0].burned_cards and card not in after.seats[0].cards
    assert total_cubes(after) == total_cubes(s)
    return s, after, events


def test_burn_yellow_1_swaps_one_market_cube() -> None:
    before, after, events = burn("Y", 0)
    assert kinds(events).count("MarketCubeTaken") == 1 and kinds(events).count("MarketCubePlaced") == 1


def test_burn_yellow_2_any_banner() -> None:
    before, after, _ = burn("Y", 1, policy=pick(cmd.PickColour(0, "O")))
    assert d_banners(before, after) == (0, 0, 1, 0)


def test_burn_yellow_3_swaps_any_number() -> None:
    before, after, events = burn("Y", 2)  # the policy takes every cube on offer
    taken = kinds(events).count("MarketCubeTaken")
    assert taken == 7  # six 1-coin cubes plus the paid yellow one
    assert kinds(events).count("MarketCubePlaced") == taken


@pytest.mark.parametrize(("already", "colour", "each"), [(0, "O", 1), (1, "Y", 2), (2, "G", 3)])
def test_burn_white_discards_banners_for_vp(already: int, colour: str, each: int) -> None:
    before, after, _ = burn("W", already)
    held = banner(before, 0, colour)
    assert banner(after, 0, colour) == 0
    assert d_vp(before, after) == each * held


@pytest.mark.parametrize(("already", "extra"), [(0, "fleet1"), (1, "white"), (2, "fleet3")])
def test_burn_green_draws_a_chosen_colour_then_bonus(already: int, extra: str) -> None:
    before, after, events = burn("G", already, policy=pick(cmd.PickColour(0, "P")))
    assert after.seats[0].bag[CI["P"]] == 0
    bought = kinds(events).count("CubeBought")
    if extra == "white":
        assert bought == 0 and supply(after, 0, "W") == supply(before, 0, "W") + 1
    else:
        assert bought == (1 if extra == "fleet1" else 3)


@pytest.mark.parametrize(("already", "vp"), [(0, 1), (1, 5), (2, 9)])
def test_burn_orange_vp(already: int, vp: int) -> None:
    before, after, _ = burn("O", already)
    assert d_vp(before, after) == vp


@pytest.mark.parametrize(("already", "crowns"), [(0, 0), (1, 2), (2, 4)])
def test_burn_black_swaps_republic_card_then_crowns(already: int, crowns: int) -> None:
    before, after, events = burn("B", already, policy=pick(cmd.KeepRepublic(0, "new")))
    drawn = next(e.card for e in events if type(e).__name__ == "RepublicDrawn")
    old = before.seats[0].republic
    assert after.seats[0].republic == drawn
    assert old in after.pool and drawn not in after.pool and len(after.pool) == len(before.pool)
    assert after.seats[0].crowns - before.seats[0].crowns == crowns


def test_burn_black_may_keep_the_old_card() -> None:
    before, after, events = burn("B", 0, policy=pick(cmd.KeepRepublic(0, "old")))
    assert after.seats[0].republic == before.seats[0].republic
    assert sorted(after.pool) == sorted(before.pool)


@pytest.mark.parametrize(("already", "crowns", "black"), [(0, 1, 0), (1, 0, 1), (2, 2, 0)])
def test_burn_purple_moves_own_marker_then_bonus(already: int, crowns: int, black: int) -> None:
    before, after, _ = burn("P", already, policy=pick(cmd.Shift(0, "left", 1)))
    assert after.seats[0].form == before.seats[0].form - 1
    assert after.seats[0].crowns - before.seats[0].crowns == crowns
    assert supply(after, 0, "B") - supply(before, 0, "B") == black


# --- Political Schemes ---------------------------------------------------------------------
def politics(scheme: str, slot: int = 1, policy=None, expansion: bool | None = None, setup=None, **seat0) -> tuple[State, State, list]:
    s = turn_state(expansion=expansion, tracks=(1, 1, 1, slot), **seat0)
    slots = list(s.schemes)
    slots[slot - 1] = scheme
    s = board(s, schemes=tuple(slots), schemes_up=(True,) * 4)
    if setup:
        s = setup(s)
    s1, events = play(s, cmd.CityAction(0, "P"))
    s1, more = play(s1, cmd.UseScheme(0, slot))
    after, events = settle_choices(s1, policy or default_policy, events + more)
    assert after.schemes_up[slot - 1] is False
    return s, after, events


def test_turning_point_draws_the_bag_keeps_four() -> None:
    before, after, events = politics("S1")
    assert sum(after.seats[0].bag) == sum(before.seats[0].bag) - 4
    assert kinds(events).count("CubeReturned") == sum(before.seats[0].bag) - 4


def test_ideology_moves_everyone_two() -> None:
    before, after, _ = politics("S2", policy=pick(cmd.Shift(0, "left", 2)))
    assert all(a.form == b.form - 2 for a, b in zip(after.seats, before.seats, strict=True))


@pytest.mark.parametrize(("scheme", "colour"), [("S3", "B"), ("S4", "W")])
def test_republican_fate_and_credit_policy(scheme: str, colour: str) -> None:
    def give_seat1(s: State) -> State:
        return seat(s, 1, supply=c6(**{colour: 3}))

    before, after, _ = politics(scheme, setup=give_seat1)
    held = supply(before, 0, colour) + before.seats[0].bag[CI[colour]]
    assert d_vp(before, after) == held
    assert after.seats[1].vp - before.seats[1].vp == 3
    assert after.seats[2].vp == before.seats[2].vp  # nothing of that colour


def test_diplomacy_vp_per_purple_step_doubled_without_a_war_disc() -> None:
    def others(s: State) -> State:
        s = seat(s, 1, tracks=(1, 1, 1, 3))
        s = seat(s, 2, tracks=(1, 1, 1, 4), discs=(1, 2, 3, 4, 5))
        return board(s, warfare=((1, 0),))

    before, after, _ = politics("S5", setup=others)
    assert after.seats[1].vp - before.seats[1].vp == 2  # 2 steps, at war
    assert after.seats[2].vp - before.seats[2].vp == 6  # 3 steps, doubled
    assert d_vp(before, after) == 0


def test_decree_free_upgrade_even_at_zero() -> None:
    def zero(s: State) -> State:
        return board(s, upgrade=0)

    before, after, _ = politics("S6", policy=pick(cmd.PickColour(0, "Y")), setup=zero)
    assert after.seats[0].tracks[BI["Y"]] == 2 and after.upgrade == 0
    assert banner(after, 0, "Y") == banner(before, 0, "Y") - 1 + 1  # spent one, space 2 rewards one


def test_political_plot_counts_exact_colour_only() -> None:
    def cubes(s: State) -> State:
        return seat(s, 1, supply=c6(B=1, P=2))

    before, after, _ = politics("S7", expansion=True, policy=pick(cmd.PickColour(0, "P")), setup=cubes)
    assert after.seats[1].vp - before.seats[1].vp == 2  # black does not count as purple
    assert d_vp(before, after) == supply(before, 0, "P") - 1


def test_papal_concordat_crowns_for_three_vp() -> None:
    before, after, _ = politics("S8", expansion=True, crowns=3)
    assert after.seats[0].crowns == 0 and d_vp(before, after) == 9


def test_populaces_goodwill_banner_for_the_future_card() -> None:
    before, after, events = politics("S9", expansion=True, policy=pick(cmd.PickColour(0, "O")))
    future = before.future[CI["O"]]
    assert future in after.seats[0].cards or future in after.seats[0].burned_cards
    assert "FutureRevealed" in kinds(events)
    assert banner(after, 0, "O") == banner(before, 0, "O") - 1


def test_betrayal_steals_a_crown() -> None:
    def rich(s: State) -> State:
        return seat(s, 2, crowns=2)

    before, after, _ = politics("S10", expansion=True, setup=rich)
    assert after.seats[0].crowns == before.seats[0].crowns + 1 and after.seats[2].crowns == 1


def test_scheme_above_level_one_shifts_every_form_marker() -> None:
    before, after, events = politics("S7", slot=3, expansion=True, policy=pick(cmd.PickColour(0, "Y"), cmd.Shift(0, "right", 1)))
    assert all(a.form == b.form + 1 for a, b in zip(after.seats, before.seats, strict=True))


def test_scheme_level_is_checked_against_politics_track() -> None:
    s = turn_state(tracks=(1, 1, 1, 2))
    s = board(s, schemes_up=(False, True, True, True))
    s, _ = play(s, cmd.CityAction(0, "P"))
    assert [o.slot for o in GAME.legal(s)] == [2]


# --- city abilities ------------------------------------------------------------------------
def city_action(city: str, policy=None, expansion: bool | None = None, setup=None, **seat0) -> tuple[State, State, list]:
    s = turn_state(expansion=expansion, city=city, **seat0)
    if setup:
        s = setup(s)
    after, events = act(s, cmd.CityAction(0, "W"), **({"policy": policy} if policy else {}))
    assert events[-2].__class__.__name__ == "BannerGained"  # the banner of choice comes last
    return s, after, events


def test_amalfi_moves_everyone_and_draws_two_per_used_scheme() -> None:
    def used(s: State) -> State:
        return board(s, schemes_up=(False, True, False, True))

    before, after, events = city_action("AMA", setup=used, policy=pick(cmd.Shift(0, "right", 1)))
    assert all(a.form == b.form + 1 for a, b in zip(after.seats, before.seats, strict=True))
    drawn = next(e for e in events if type(e).__name__ == "CubesDrawn")
    assert len(drawn.cubes) == 4


def test_ancona_removes_a_disc_everywhere_and_draws_its_value() -> None:
    def others(s: State) -> State:
        return seat(s, 1, discs=(0, 3, 5))

    before, after, events = city_action("ANC", setup=others, policy=pick(cmd.PickNumber(0, 3)))
    assert 3 not in after.seats[0].discs and 3 not in after.seats[1].discs
    assert 3 in after.seats[1].retired
    assert len(next(e for e in events if type(e).__name__ == "CubesDrawn").cubes) == 3


@pytest.mark.parametrize("city", ["GEN", "PIS"])
def test_genova_pisa_use_their_personal_scheme_once_per_round(city: str) -> None:
    before, after, events = city_action(city, scheme="S3", tracks=(1, 1, 1, 1))
    assert after.seats[0].scheme_used
    assert [e for e in events if type(e).__name__ == "SchemeChosen"][0].slot == 0
    assert "FormShifted" not in kinds(events)  # no Form shift for the personal scheme
    assert after.schemes_up == before.schemes_up


def test_ragusa_draws_eight_keeps_five() -> None:
    before, after, events = city_action("RAG")
    assert sum(after.seats[0].bag) == sum(before.seats[0].bag) - 5
    assert kinds(events).count("CubeReturned") == 3


def test_ragusa_keeps_all_when_five_or_fewer() -> None:
    before, after, events = city_action("RAG", bag=c6(Y=2, P=2))
    assert sum(after.seats[0].bag) == 0 and "CubeReturned" not in kinds(events)


def test_venezia_takes_any_present_card_free() -> None:
    before, after, events = city_action("VEN", policy=pick(cmd.TakeCard(0, turn_state().present[CI["O"]], "present", "use")))
    card = before.present[CI["O"]]
    assert card in after.seats[0].cards and after.present[CI["O"]] == ""
    assert sum(after.seats[0].supply) <= sum(before.seats[0].supply)  # only the action's own cube was paid


def test_gaeta_swaps_a_banner() -> None:
    before, after, _ = city_action("GAE", expansion=True, policy=pick(cmd.PickColour(0, "P"), cmd.PickColour(0, "Y"), cmd.PickColour(0, "Y")))
    assert d_banners(before, after) == (2, 0, 0, -1)  # P -> Y, then the city action's own Y banner


def test_noli_burns_a_used_card_under_any_colour() -> None:
    before, after, _ = city_action("NOL", expansion=True, cards=("G1",), policy=pick(cmd.PickColour(0, "O")))
    s = after.seats[0]
    assert s.cards == () and "G1" in s.burned_cards and s.burned[CI["O"]] == 1
    assert d_vp(before, after) == 1  # orange first-burn bonus


# --- other city actions --------------------------------------------------------------------
def test_republic_action_trades() -> None:
    s = turn_state(banners=(1, 1, 1, 3))
    s, _ = play(s, cmd.CityAction(0, "B", 0))
    assert {o.trade for o in GAME.legal(s)} == {"purple", "mixed"}
    s2, _ = play(s, cmd.TradeBanners(0, "purple"))
    assert s2.seats[0].banners == (1, 1, 1, 0) and s2.seats[0].crowns == 4
    s3, _ = play(s, cmd.TradeBanners(0, "mixed"))
    assert s3.seats[0].banners == (0, 0, 0, 2) and s3.seats[0].crowns == 4


def test_guilds_draw_by_green_track() -> None:
    s = turn_state(tracks=(1, 2, 1, 1), bag=c6(Y=2, P=1), actions=1, supply=c6(G=2))
    after, events = act(s, cmd.CityAction(0, "G"), seed="g")
    # the 2 green cubes paid go into the bag first, then 4 are drawn from 5
    drawn = next(e for e in events if type(e).__name__ == "CubesDrawn")
    assert len(drawn.cubes) == 4
    assert sum(after.seats[0].bag) == 1


def test_outcome_of_a_draw_can_be_observed() -> None:
    s = turn_state(tracks=(1, 1, 1, 1), bag=c6(Y=2, P=3))  # green space 1: draw 3 of 5
    s2, events = play(s, cmd.CityAction(0, "G"), outcomes=[Outcome("draw", "bag:0", ("P", "Y", "P"))])
    assert s2.seats[0].bag == c6(Y=1, P=1)
    assert next(e for e in events if type(e).__name__ == "CubesDrawn").cubes == ("P", "Y", "P")
    with pytest.raises(RuleViolation) as err:  # a cube that was not in the bag
        play(s, cmd.CityAction(0, "G"), outcomes=[Outcome("draw", "bag:0", ("B", "Y", "P"))])
    assert err.value.rule == "chance/draw/not-there"


def test_market_placement_is_own_colour_first_free_from_the_top() -> None:
    s = turn_state()
    s = board(s, market=market(O="...", Y="..x"))
    s, _ = play(s, cmd.CityAction(0, "Y"))
    s, _ = play(s, cmd.Decline(0)) if GAME.pending(s).kind == "fleet" else (s, [])
    assert s.market[CI["Y"]] in ((True, False, True), (True, False, False))
