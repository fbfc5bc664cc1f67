"""kernel.asking: the next outcome a choice needs at the table, checked as a stored outcome is."""

from __future__ import annotations

import pytest

from domain.kernel import ImpossibleOutcome, play
from domain.kernel.asking import Ask, HiddenPool, next_ask
from tests.kernel import toy_game


def started() -> toy_game.State:
    game = toy_game.GAME
    state = game.begin(game.default_edition())
    for event in game.setup(game.default_edition(), {"players": 2}, None):
        state = game.evolve(state, event)
    return state


def test_a_draw_asks_for_what_the_bag_holds_then_nothing() -> None:
    state = started()
    draw = toy_game.Draw(0)
    ask, unused = next_ask(lambda chance: play(toy_game.GAME, state, draw, chance), [])
    assert ask == Ask("draw", "bag:0", 1, (1, 2, 3)) and unused == []
    assert ask.possible() == [(1, 1), (2, 1), (3, 1)]
    given = [{"kind": "draw", "source": "bag:0", "values": [2]}]
    assert next_ask(lambda chance: play(toy_game.GAME, state, draw, chance), given) == (None, [])
    more = given + [{"kind": "roll", "source": "die", "values": [3]}]
    ask, unused = next_ask(lambda chance: play(toy_game.GAME, state, draw, chance), more)
    assert ask is None and [o.to_json() for o in unused] == [more[1]]


def test_a_roll_asks_for_faces_and_an_impossible_one_is_the_rules_refusal() -> None:
    state = started()
    roll = toy_game.Roll(0)
    ask, _ = next_ask(lambda chance: play(toy_game.GAME, state, roll, chance), [])
    assert ask is not None and (ask.kind, ask.n, ask.faces) == ("roll", 1, 6)
    assert [v for v, _ in ask.possible()] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(ImpossibleOutcome) as caught:
        next_ask(lambda chance: play(toy_game.GAME, state, roll, chance), [{"kind": "roll", "source": "die", "values": [9]}])
    assert caught.value.rule == "chance/roll/impossible-face"


def test_a_pool_closed_to_the_asker_is_named_with_nothing_of_it_and_no_outcome_from_it_is_checked() -> None:
    state = started()
    draw = toy_game.Draw(0)
    closed = {"bag:0"}.__contains__  # asked as another seat would: seat 0's bag is hidden from it
    ask, _ = next_ask(lambda chance: play(toy_game.GAME, state, draw, chance), [], closed)
    assert ask == Ask("draw", "bag:0", 1, (), hidden=True) and ask.possible() == []
    for value in (2, 9):  # a cube the bag holds and one it never held: refused alike, before any check
        with pytest.raises(HiddenPool) as caught:
            next_ask(lambda chance: play(toy_game.GAME, state, draw, chance),
                     [{"kind": "draw", "source": "bag:0", "values": [value]}], closed)
        assert caught.value.source == "bag:0" and str(value) not in str(caught.value)
    assert next_ask(lambda chance: play(toy_game.GAME, state, toy_game.Roll(0), chance), [], closed)[0].kind == "roll"
