"""Turn order, passing, End of Round and the end of the game."""

from __future__ import annotations

import pytest

from domain.citta_stato import commands as cmd
from domain.citta_stato import events as ev
from domain.citta_stato.edition import CI
from domain.citta_stato.rules import settle
from domain.citta_stato.state import GHOST
from domain.kernel import Outcome, RuleViolation, SeededChance

from .helpers import GAME, act, board, c6, kinds, new_game, pick, play, seat, settle_choices, turn_state
from .test_solo import ghost_draws, ready


def pass_all(s, order):
    """Everyone passes (each is marked as having acted once: no pass before a first action)."""
    for i in order:
        s = seat(s, i, actions=max(1, s.seats[i].actions))
    for i in order:
        s, _ = play(s, cmd.Pass(i))
    return s


def test_action_costs_grow_and_only_the_first_cube_goes_to_the_market() -> None:
    s = turn_state(players=2, supply=c6(Y=6), bag=(0,) * 6)
    s = board(s, market=board(s).market)
    offered = {(o.colour, o.jokers) for o in GAME.legal(s) if isinstance(o, cmd.Upgrade)}
    assert ("Y", 0) in offered
    s, _ = act(s, cmd.Upgrade(0, "Y"))
    assert sum(sum(c) for c in s.market) > 0 and s.seats[0].bag == (0,) * 6
    s = board(s, current=0)
    s, _ = act(s, cmd.Upgrade(0, "Y"))
    assert s.seats[0].bag == c6(Y=2) and s.seats[0].actions == 2  # the second action: 2 cubes to the bag
    s = board(s, current=0)
    costs = {o.jokers for o in GAME.legal(s) if isinstance(o, cmd.Upgrade) and o.colour == "Y"}
    assert costs == {0, 1}  # 3 cubes; the one white cube (space 3's reward) may stand in for one


def test_white_stands_in_for_yellow_but_not_the_reverse() -> None:
    s = turn_state(supply=c6(W=1, Y=3))
    legal = GAME.legal(s)
    assert cmd.Upgrade(0, "Y", 1) in legal and cmd.Upgrade(0, "G", 1) in legal
    assert not any(getattr(o, "colour", "") == "W" and o.jokers for o in legal)
    s2 = turn_state(supply=c6(Y=3))
    assert not any(isinstance(o, cmd.UseCard) and o.colour == "W" for o in GAME.legal(s2))


def test_first_passer_becomes_first_player_but_never_twice_in_a_row() -> None:
    s = new_game(3, "pass")
    s = board(s, first=0, current=0)
    s = pass_all(s, [0, 1, 2])  # the first player passed first: the next passer leads
    s, _ = settle_choices(s)
    assert s.round == 2 and s.first == 1
    s = board(s, current=1)
    s = pass_all(s, [1, 2, 0])
    s, _ = settle_choices(s)
    assert s.first == 2


def test_two_players_alternate() -> None:
    s = new_game(2, "two")
    first = s.first
    for r in range(3):
        s = pass_all(s, [s.current, 1 - s.current])
        s, _ = settle_choices(s)
        assert s.first == (first + r + 1) % 2


def test_end_of_round_resets_board_and_draws_cubes_with_bonus_for_fewest_vp() -> None:
    s = new_game(3, "reset")
    s = board(s, first=0, current=0, upgrade=0, schemes_up=(False, True, False, True))
    s = seat(s, 0, vp=5, bag=c6(Y=10), supply=(0,) * 6, tracks=(1, 2, 1, 1))
    s = seat(s, 1, vp=2, bag=c6(Y=10), supply=(0,) * 6)
    s = seat(s, 2, vp=2, bag=c6(Y=10), supply=(0,) * 6)
    s = pass_all(s, [0, 1, 2])
    s, events = settle_choices(s)
    assert s.upgrade == s.t.upgrade_start[3] and all(s.schemes_up)
    assert [sum(x.supply) for x in s.seats] == [4, 3 + 2, 3 + 2]  # green value, +2 for the fewest VP


def test_new_cards_present_discarded_future_moves_down() -> None:
    s = new_game(3, "cards")
    old_present, old_future = s.present, s.future
    s = pass_all(board(s, first=0, current=0), [0, 1, 2])
    s, _ = settle_choices(s)
    for i in range(6):
        assert old_present[i] in s.discards[i]
        assert s.present[i] == old_future[i]
        assert s.future[i] and s.future[i] not in (old_present[i], old_future[i])


def test_depleted_deck_is_rebuilt_from_discards_or_the_colour_runs_out() -> None:
    s = new_game(3, "deplete")
    y = CI["Y"]
    decks = list(s.decks)
    decks[y] = ()
    discards = list(s.discards)
    discards[y] = ("Y5", "Y6")
    s = board(s, decks=tuple(decks), discards=tuple(discards), first=0, current=0)
    w = CI["W"]
    decks[w] = ()
    discards[w] = ()
    s = board(s, decks=tuple(decks), discards=tuple(discards), present=s.present[:w] + ("",) + s.present[w + 1 :])
    present_y = s.present[y]
    s = pass_all(s, [0, 1, 2])
    s, events = settle_choices(s)
    renew_y = next(e for e in events if type(e).__name__ == "CardsRenewed" and e.colour == "Y")
    assert renew_y.rebuilt_after == 0 and renew_y.drawn[0] in ("Y5", "Y6", present_y)
    assert s.future[w] == "" and s.present[w]  # no more white cards after this one


def test_war_forfeit_when_the_cubes_are_short() -> None:
    s = new_game(3, "forfeit")
    s = board(s, first=0, current=2, warfare=((0, 5), (1, 1)))
    s = seat(s, 0, supply=c6(Y=2), passed=True)
    s = seat(s, 1, supply=c6(G=3), passed=True)
    s = seat(s, 2, actions=1)
    s, events = play(s, cmd.Pass(2))
    s, _ = play(s, cmd.Shift(2, "none", 0))
    assert "WarForfeited" in kinds(s and events) or GAME.pending(s).seat == 1
    assert s.seats[0].supply == (0,) * 6 and s.seats[0].bag[CI["Y"]] >= 2  # paid all it had, back to the bag
    assert 5 in s.seats[0].retired
    s, _ = play(s, cmd.PickColour(1, "G"))
    assert GAME.pending(s).seat == 1 and GAME.pending(s).kind == "take-card"  # the one left standing wins


def test_defeated_players_may_decline_and_only_take_present_cards() -> None:
    s = new_game(3, "decline")
    s = board(s, first=0, current=2, warfare=((0, 0), (1, 0)))
    s = seat(s, 0, passed=True)
    s = seat(s, 1, passed=True)
    s = seat(s, 2, passed=True)
    s, _ = settle(board(s, tasks=(("war_reveal", -1), ("war_outcome", -1), ("war_end", -1))), [], SeededChance("w"))
    assert GAME.pending(s).seat == 0  # tie: the earlier disc wins, a 0 disc can win
    assert any(o.source == "future" for o in GAME.legal(s) if isinstance(o, cmd.TakeCard))
    assert cmd.Decline(0) not in GAME.legal(s)
    s, _ = act(s, cmd.TakeCard(0, s.present[CI["O"]], "present", "burn"))


def test_a_second_war_action_pays_scores_again_and_places_no_second_disc() -> None:
    """Rule 000: "As long as the player has War discs in their supply, they can perform this Action. However,
    there can only be one War disc per player." Rule 003: "possibile fare più volte azione ma SOLO 1 token"."""
    s = turn_state(vp=10, tracks=(1, 1, 3, 1), supply=c6(O=3), bag=(0,) * 6)
    orange = s.t.track_values[2][2]
    s, _ = act(s, cmd.CityAction(0, "O"), policy=pick(cmd.WarDisc(0, 4)))
    assert s.warfare == ((0, 4),) and s.seats[0].vp == 10 + orange and s.seats[0].discs == (1, 2, 3, 5)
    s = board(s, current=0)
    assert cmd.CityAction(0, "O") in GAME.legal(s)  # the second War action is offered
    s, events = act(s, cmd.CityAction(0, "O"))
    assert "WarDiscPlaced" not in kinds(events) and s.warfare == ((0, 4),)  # no second disc
    assert s.seats[0].discs == (1, 2, 3, 5)
    assert s.seats[0].vp == 10 + 2 * orange  # the orange track's VP again
    assert s.seats[0].supply[CI["O"]] == 0 and s.seats[0].bag[CI["O"]] == 2  # action 2 costs 2 cubes, to the bag
    assert s.seats[0].actions == 2


def test_a_second_war_action_on_the_first_orange_space_loses_one_vp_again() -> None:
    s = turn_state(vp=0, supply=c6(O=3), actions=1)
    s = board(s, warfare=((0, 3),))
    s, events = act(s, cmd.CityAction(0, "O"))
    assert s.seats[0].vp == -1 and s.warfare == ((0, 3),) and kinds(events).count("VpScored") == 1


def test_the_ghost_places_no_second_disc_either() -> None:
    """One disc per player holds for the solo Ghost: an orange draw with its disc already on the track only discards."""
    s = board(ready(3), warfare=((GHOST, 2),))
    present = s.present[CI["O"]]
    after, events = ghost_draws(s, "O")
    assert ev.GhostDrew("O", present) in events and ev.StepSkipped(GHOST, "ghost_disc") in events
    assert after.warfare == ((GHOST, 2),) and after.seats[GHOST].discs == s.seats[GHOST].discs


def test_a_ghost_disc_drawn_as_true_is_refused() -> None:
    """A random Ghost disc is a number: a log's `true` (which Python takes for 1) is not one of its discs."""
    s = ready(1)
    with pytest.raises(RuleViolation) as err:
        ghost_draws(s, "O", Outcome("draw", "ghost-discs", (True,)))
    assert err.value.rule == "chance/draw/not-there" and err.value.facts["source"] == "ghost-discs"
    after, _ = ghost_draws(s, "O", Outcome("draw", "ghost-discs", (1,)))
    assert after.warfare == ((GHOST, 1),) and type(after.warfare[0][1]) is int


def test_war_shift_is_optional_for_those_without_a_disc() -> None:
    s = new_game(3, "shift")
    s = board(s, first=0, current=2, warfare=((1, 2),))
    s = seat(s, 0, passed=True)
    s = seat(s, 1, passed=True)
    s = seat(s, 2, actions=1)
    s, _ = play(s, cmd.Pass(2))
    assert GAME.pending(s).seat == 0 and GAME.pending(s).kind == "war-shift"
    assert {o.direction for o in GAME.legal(s)} == {"none", "left", "right"}
    s, _ = play(s, cmd.Shift(0, "left", 1))
    assert GAME.pending(s).seat == 2  # seat 1 is at war: no shift offered


def test_game_ends_after_round_seven_with_second_scoring_in_colour_order() -> None:
    s = new_game(2, "end")
    s = board(s, round=7)
    s = seat(s, 0, cards=("Y1", "P1"), banners=(0, 0, 0, 3), vp=20)
    s = seat(s, 1, cards=("Y2",), vp=8)
    s = pass_all(s, [s.current, 1 - s.current])
    seen = []
    for _ in range(200):
        p = GAME.pending(s)
        if p.kind == "game-over":
            break
        if p.kind == "second":
            seen.append((p.seat, p.detail["params"][0]))
        choice = GAME.legal(s)
        pick_ = next((o for o in choice if isinstance(o, (cmd.TakeCard, cmd.Accept))), choice[0])
        s, _ = play(s, pick_)
    assert s.phase == "over"
    colours = [c for _, c in seen]
    assert colours == sorted(colours, key="YWGOBP".index)
    assert s.seats[0].second >= 6  # Elder Council in the second scoring: 2 per purple banner
    assert s.seats[0].vp == 20  # the first score is untouched by second-scoring VP
    assert GAME.scores(s)["finished"]
