"""Bad input: a RuleViolation naming the rule and nothing changed; malformed commands never reach the rules."""

from __future__ import annotations

import dataclasses

import pytest

from domain.citta_stato import commands as cmd
from domain.citta_stato import events as ev
from domain.citta_stato.edition import CI
from domain.citta_stato.fold import put
from domain.kernel import MalformedCommand, ObservedChance, RuleViolation, SeededChance
from domain.kernel.events import INTERNED

from .helpers import GAME, act, board, c6, play, turn_state


def refused(state, command, rule: str) -> RuleViolation:
    before = GAME.view(state, None)
    legal = GAME.legal(state)
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, command, SeededChance("bad"))
    assert err.value.rule == rule, err.value
    assert GAME.view(state, None) == before and GAME.legal(state) == legal
    assert command not in legal
    return err.value


def test_wrong_seat() -> None:
    s = turn_state()
    err = refused(s, cmd.Pass(2), "citta-stato/turn/out-of-turn")
    assert err.facts["turn"] == 0


def test_unknown_seat() -> None:
    refused(turn_state(), cmd.Pass(7), "citta-stato/seat/unknown")


def test_out_of_turn_during_a_follow_up() -> None:
    s = turn_state(tracks=(3, 1, 1, 1))
    s, _ = play(s, cmd.CityAction(0, "Y"))
    refused(s, cmd.MarketCube(1, "Y", 1), "citta-stato/turn/out-of-turn")
    refused(s, cmd.Pass(0), "citta-stato/fleet/not-offered")


def test_paid_with_cubes_the_player_lacks() -> None:
    s = turn_state(supply=c6(Y=1), actions=1)
    err = refused(s, cmd.UseCard(0, "Y"), "citta-stato/use-card/cubes")
    assert err.facts["held"]["Y"] == 1 and list(err.facts["offered"]) == ["Y", "Y"]


def test_wrong_colour_joker_for_white() -> None:
    refused(turn_state(), cmd.CityAction(0, "W", 1), "citta-stato/city-action/colour")


def test_joker_the_player_lacks() -> None:
    refused(turn_state(supply=c6(Y=3)), cmd.Upgrade(0, "Y", 1), "citta-stato/upgrade/cubes")


def test_card_not_on_display() -> None:
    s = turn_state()
    s = board(s, present=put(s.present, CI["G"], ""))
    refused(s, cmd.UseCard(0, "G"), "citta-stato/use-card/not-on-display")
    refused(s, cmd.BurnCard(0, "G"), "citta-stato/burn-card/not-on-display")


def test_fourth_burn_of_a_colour() -> None:
    err = refused(turn_state(burned=c6(O=3)), cmd.BurnCard(0, "O"), "citta-stato/burn-card/limit")
    assert err.facts["burned"] == 3


def test_upgrade_at_counter_zero() -> None:
    refused(board(turn_state(), upgrade=0), cmd.Upgrade(0, "G"), "citta-stato/upgrade/counter-zero")


def test_upgrade_past_the_end() -> None:
    refused(turn_state(tracks=(5, 1, 1, 1)), cmd.Upgrade(0, "Y"), "citta-stato/upgrade/track-end")


def test_war_without_discs() -> None:
    refused(turn_state(discs=()), cmd.CityAction(0, "O"), "citta-stato/war/no-disc")


def test_war_again_needs_a_disc_in_supply_even_with_one_on_the_track() -> None:
    """Rule 000: "As long as the player has War discs in their supply, they can perform this Action."."""
    s = board(turn_state(discs=(), actions=1), warfare=((0, 2),))
    err = refused(s, cmd.CityAction(0, "O"), "citta-stato/war/no-disc")
    assert err.facts["discs"] == 0


def test_a_full_warfare_track_stops_only_a_seat_that_would_place_a_disc() -> None:
    s = turn_state()
    s = board(s, t=dataclasses.replace(s.t, warfare_spaces=2), warfare=((1, 2), (2, 3)))
    refused(s, cmd.CityAction(0, "O"), "citta-stato/war/track-full")
    s = board(s, warfare=((0, 1), (1, 2)))  # seat 0 already at war: the track being full does not matter
    assert cmd.CityAction(0, "O") in GAME.legal(s)


def test_republic_without_a_trade_and_politics_without_a_scheme() -> None:
    refused(turn_state(banners=(1, 1, 1, 0)), cmd.CityAction(0, "B"), "citta-stato/republic/no-trade")
    s = board(turn_state(), schemes_up=(False, True, True, True))
    refused(s, cmd.CityAction(0, "P"), "citta-stato/politics/no-scheme")


def test_choice_not_offered() -> None:
    s = turn_state()
    s, _ = play(s, cmd.CityAction(0, "O"))
    refused(s, cmd.WarDisc(0, 0), "citta-stato/war-disc/not-offered")  # the 0 disc was retired
    refused(s, cmd.Accept(0), "citta-stato/war-disc/not-offered")


def test_after_the_game_is_over() -> None:
    s = board(turn_state(), phase="over")
    refused(s, cmd.Pass(0), "citta-stato/game/over")


def test_a_refused_command_leaves_a_game_playable() -> None:
    s = turn_state()
    with pytest.raises(RuleViolation):
        GAME.decide(s, cmd.BurnCard(0, "O", 5), SeededChance("x"))
    s, events = act(s, cmd.UseCard(0, "O"))
    assert s.seats[0].actions == 1 and s.current == 1


def test_no_pass_before_the_first_action_of_a_round() -> None:
    s = turn_state()
    refused(s, cmd.Pass(0), "citta-stato/pass/first-action-required")
    assert cmd.Pass(0) in GAME.legal(board(s, seats=s.seats[:0] + (s.seats[0]._replace(actions=1),) + s.seats[1:]))
    broke = turn_state(supply=(0,) * 6)  # nothing can be paid: passing is the only move
    assert GAME.legal(broke) == [cmd.Pass(0)]


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "citta-stato/use-card", "seat": 0, "colour": "Y", "tip": 1},  # unknown field
        {"type": "citta-stato/use-card", "seat": 0},  # missing field
        {"type": "citta-stato/use-card", "seat": "0", "colour": "Y"},  # mistyped
        {"type": "citta-stato/use-card", "seat": True, "colour": "Y"},  # a bool is not a seat
        {"type": "citta-stato/use-card", "seat": 0, "colour": "R"},  # no such colour
        {"type": "citta-stato/upgrade", "seat": 0, "colour": "W"},  # white has no track
        {"type": "citta-stato/shift", "seat": 0, "direction": "up"},
        {"type": "citta-stato/teleport", "seat": 0},
        ["citta-stato/pass", 0],
    ],
)
def test_malformed_commands_are_rejected_by_schema(payload) -> None:
    with pytest.raises(MalformedCommand):
        GAME.parse_command(payload)


def test_parse_cache_does_not_confuse_types() -> None:
    assert GAME.parse_command({"type": "citta-stato/pass", "seat": 1}) == cmd.Pass(1)
    with pytest.raises(MalformedCommand):
        GAME.parse_command({"type": "citta-stato/pass", "seat": True})


def test_a_drawn_number_of_the_wrong_type_is_refused_and_never_leaks_into_another_record() -> None:
    """Events are shared values (kernel.events.interner) and `true == 1` in Python: a log's `true` for a seat is refused."""
    edition = GAME.default_edition()
    seeded = SeededChance("leak")
    events = [e.to_json() for e in GAME.setup(edition, {"players": 2}, seeded)]
    INTERNED.clear()  # as in a fresh process whose first import writes `true` / `false` for the first player
    for odd in (True, False, 1.0):
        outcomes = [o if o.source != "first-player" else type(o)(o.kind, o.source, (odd,)) for o in seeded.log]
        with pytest.raises(RuleViolation) as err:
            GAME.setup(edition, {"players": 2}, ObservedChance(outcomes))
        assert err.value.rule == "chance/draw/not-there" and err.value.facts["source"] == "first-player"
    clean = GAME.setup(edition, {"players": 2}, ObservedChance(seeded.log))
    assert [e.to_json() for e in clean] == events
    assert [type(e.seat) for e in clean if isinstance(e, ev.FirstPlayerChosen)] == [int]
