"""The search for the value a claimed result asks for (kernel.toward_result), on a reading made by hand: a deal
of 4 cards of 8 (1,680 orders, more than the narrowing tries one by one), each seat scoring its own card."""

from __future__ import annotations

from typing import Any

from domain.kernel.narrowing import Asked, Step, candidates_of
from domain.kernel.narrowing import narrow as narrow_together
from domain.kernel.toward_result import PLATEAU, narrow, neighbours

KEY = (3, 12)
POOL = tuple(f"R{k}" for k in range(1, 9))
DEAL = ("R5", "R2", "R8", "R3")
FIRST = ("R1", "R2", "R3", "R4")  # what the checker read with: the first cards of the pool


class Table:
    """A game whose setup deals one card to each seat, and where each seat scores its card's number; `ordered`:
    whether the deal's order is kept (seat i gets item i), else only which cards came out."""

    def __init__(self, claimed: tuple[int, ...], ordered: bool = True) -> None:
        self.claimed, self.ordered = claimed, ordered

    def play(self, state: Any, stop: int, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        value = settled.get(KEY, FIRST)
        after = tuple(value) if self.ordered else tuple(sorted(value))
        return Step(True, -1, after, {KEY: Asked("draw", POOL, FIRST, None)}, 1)

    def advance(self, state: Any, stop: int, until: int | None, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        totals = [int(card[1:]) for card in state] if self.ordered else [sum(int(card[1:]) for card in state)] * 4
        off = [abs(t - c) for t, c in zip(totals, self.claimed, strict=True)]
        miss = (sum(1 for o in off if o), sum(off))
        return Step(True, 100 + (miss[0] == 0), state, {}, 100, miss)

    def before(self, stop: int) -> Any:
        return None


MAIN = {KEY: Asked("draw", POOL, FIRST, None)}


def test_a_deal_of_more_orders_than_the_limit_is_not_complete_by_its_sets() -> None:
    """The sets of 4 cards (70) stand for their 1,680 orders only if the order does not change the game."""
    sets, whole, as_sets = candidates_of(Asked("draw", POOL, FIRST, None), 400)
    assert (len(sets), whole, as_sets) == (70, True, True)
    answer = narrow_together(Table((5, 2, 8, 3)), None, [(-1, [KEY])], 20_000, 400, MAIN)
    assert answer.consistent[KEY] is None and "orders" in answer.why[KEY]


def test_where_the_order_does_not_matter_the_sets_are_every_value() -> None:
    answer = narrow_together(Table((18, 18, 18, 18), ordered=False), None, [(-1, [KEY])], 20_000, 400, MAIN)
    consistent = answer.consistent[KEY]
    assert consistent is not None and tuple(sorted(DEAL)) in consistent
    assert all(sum(int(c[1:]) for c in deal) == 18 for deal in consistent)


def test_the_deal_the_result_asks_for_is_found_and_said_to_be_found() -> None:
    answer = narrow(Table((5, 2, 8, 3)), None, [(-1, [KEY])], 20_000, 400, MAIN)
    assert answer.consistent[KEY] == [DEAL] and answer.best[KEY] == DEAL
    assert "not proven the only one" in answer.searched[KEY] and KEY not in answer.why


def test_a_result_no_deal_gives_leaves_the_deal_undetermined_and_says_why() -> None:
    """Seat 1 claims 9 (no card scores 9): nothing found, the nearest deal read, undetermined with the reason."""
    answer = narrow(Table((5, 9, 8, 3)), None, [(-1, [KEY])], 20_000, 400, MAIN)
    assert answer.consistent[KEY] is None and "found none that gives it" in answer.why[KEY]
    assert answer.best[KEY][0] == "R5" and answer.best[KEY][2:] == ("R8", "R3")


def test_the_budget_bounds_the_search() -> None:
    answer = narrow(Table((5, 2, 8, 3)), None, [(-1, [KEY])], 1_000, 400, MAIN)
    assert answer.spent <= 1_000 + 2 * 100 + 2


def test_neighbours_swap_two_seats_and_replace_one_card_by_one_the_pool_held() -> None:
    asked = Asked("draw", POOL, FIRST, ("R2", "?", "?", "?"))
    near = list(neighbours(asked, ("R1", "R2", "R3", "R4")))
    assert ("R2", "R1", "R3", "R4") in near and ("R5", "R2", "R3", "R4") in near
    assert all("R2" in value for value in near), "a card written on the line stays"
    assert len(near) == len(set(near)) == 6 + 3 * 4


def test_a_narrowing_past_its_time_cap_says_so_and_settles_nothing() -> None:
    """The whole narrowing (joint, one at a time, the climb) has a cap of process time: past it, the deal is
    undetermined and `why` names the cap, never a guess said to be the one."""
    answer = narrow(Table((5, 2, 8, 3)), None, [(-1, [KEY])], 20_000, 400, MAIN, seconds=0.0)
    assert answer.consistent[KEY] is None
    assert "time cap" in answer.why[KEY]


class TakenTable(Table):
    """The same deal, but a later line writes R1 drawn from the deck: a deal holding R1 took it (the reading goes on
    past that line with a possible card, the item counted as not there), and with `refused` it stops there instead.
    The claimed result is met by every deal, so only what the deal took tells them apart."""

    def __init__(self, refused: bool = False) -> None:
        super().__init__((0, 0, 0, 0), ordered=False)
        self.refused = refused

    def advance(self, state: Any, stop: int, until: int | None, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        if "R1" not in state:
            return Step(True, 101, state, {}, 100, (0, 0))
        if self.refused:
            return Step(False, 40, None, {}, 40)
        return Step(True, 101, state, {}, 100, (0, 0), taken=1, took=("R1",))


def test_neighbours_first_give_up_a_card_a_later_line_drew() -> None:
    near = list(neighbours(Asked("draw", POOL, FIRST, None), FIRST, took=("R1",)))
    assert all(value[0] != "R1" for value in near[:4]) and near[0][1:] == FIRST[1:]
    assert len(set(near)) == 6 + 4 * 4, "then every other neighbour, as without"


def test_a_deal_that_took_a_card_a_later_line_drew_is_not_kept_for_meeting_the_result() -> None:
    """The first deal gives the Result, but it took R1, which a later line writes drawn: the search goes on to a deal
    that leaves R1 in the deck (the guess, not the line, was wrong), and settles on it."""
    answer = narrow(TakenTable(), None, [(-1, [KEY])], 20_000, 1, MAIN)  # limit 1: the joint search leaves it open
    assert answer.best[KEY] != FIRST and "R1" not in answer.best[KEY]
    assert answer.consistent[KEY] and all("R1" not in deal for deal in answer.consistent[KEY])


def test_a_deal_the_lines_after_it_refuse_climbs_to_one_they_stand_with() -> None:
    """The first deal is refused at a later line (it holds the card a later line draws): the search no longer stops
    there for want of a Result at the end, but climbs to a deal that reads further, and on to the Result."""
    answer = narrow(TakenTable(refused=True), None, [(-1, [KEY])], 20_000, 1, MAIN)
    assert "R1" not in answer.best[KEY] and answer.consistent[KEY] is not None


class Blocked(Table):
    """A slip of the file's own at a later line that every deal stops at alike (nothing reads past it)."""

    def advance(self, state: Any, stop: int, until: int | None, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        return Step(False, 40, None, {}, 40)


def test_a_climb_every_value_of_which_stops_at_one_slip_gives_up_and_leaves_the_budget() -> None:
    """No deal reads past the slip: after `PLATEAU` values without a better one the climb stops, so that the check's
    budget is left for the readings after it (which read the slip as explained), not spent on a plateau."""
    answer = narrow(Blocked((5, 2, 8, 3)), None, [(-1, [KEY])], 100_000, 1, MAIN)
    assert answer.consistent[KEY] is None and PLATEAU < answer.tried[KEY] <= PLATEAU + 2
    assert answer.spent < 100_000 // 2
