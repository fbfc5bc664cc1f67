"""The Città-Stato state: small frozen values shared structurally between steps.

Counts of cubes are 6-tuples in colour order (Y W G O B P); banners and the four upgrade
tracks are 4-tuples (Y G O P). A bag is only a count per colour: its order is not state.
A deck is the sorted multiset of its unseen cards; the Present and Future cards are visible.
Both are NamedTuples rather than dataclasses because the fold copies them on every event
and tuple copying is twice as fast. `tasks` is the queue of steps still to settle (the head is the pending decision, or an
automatic step decide settles at once); each is a plain tuple (kind, seat, *params).
"""

from __future__ import annotations

from typing import NamedTuple

from domain.kernel import Edition

from .edition import Tables

Task = tuple  # (kind, seat, *params)
ZERO6 = (0, 0, 0, 0, 0, 0)


class Seat(NamedTuple):
    city: str = ""
    bag: tuple[int, ...] = ZERO6
    supply: tuple[int, ...] = ZERO6
    tracks: tuple[int, ...] = (1, 1, 1, 1)
    form: int = 0
    vp: int = 0
    second: int = 0
    banners: tuple[int, ...] = (0, 0, 0, 0)
    crowns: int = 0
    discs: tuple[int, ...] = ()
    retired: tuple[int, ...] = ()  # war discs removed from the game
    republic: str = ""
    scheme: str = ""  # Pisa / Genova personal scheme
    scheme_used: bool = False
    cards: tuple[str, ...] = ()  # used cards kept in supply for the second scoring
    burned: tuple[int, ...] = ZERO6
    burned_cards: tuple[str, ...] = ()
    actions: int = 0
    passed: bool = False


GHOST = 1  # the solo Ghost's seat; seat 0 is the human


class SoloGame(NamedTuple):
    """Which solo game this is: the scenario, the game of its campaign, the crowns carried in."""

    scenario: int
    game: int
    carried: int


class State(NamedTuple):
    edition: Edition
    t: Tables
    players: int = 0
    expansion: bool = False
    phase: str = "setup"  # setup | turns | over
    round: int = 1
    first: int = 0
    current: int = 0
    next_first: int = -1
    upgrade: int = 0
    schemes: tuple[str, ...] = ()
    schemes_up: tuple[bool, ...] = ()
    scheme_pool: tuple[str, ...] = ()
    present: tuple[str, ...] = ("",) * 6
    future: tuple[str, ...] = ("",) * 6
    decks: tuple[tuple[str, ...], ...] = ((),) * 6
    discards: tuple[tuple[str, ...], ...] = ((),) * 6
    market: tuple[tuple[bool, ...], ...] = ()  # per colour, rows top to bottom
    warfare: tuple[tuple[int, int], ...] = ()  # (seat, value) in placement order
    revealed: bool = False
    pool: tuple[str, ...] = ()  # the face-down Republic swap cards
    reserve: tuple[int, ...] = ZERO6
    box: tuple[int, ...] = ZERO6
    seats: tuple[Seat, ...] = ()
    tasks: tuple[Task, ...] = ()
    finals: tuple[int, ...] = ()
    solo: SoloGame | None = None
    removed: tuple[int, ...] = ()  # scheme slots the Ghost turned face down this round (not "used")


def order_from(state: State, start: int) -> tuple[int, ...]:
    n = state.players
    return tuple((start + k) % n for k in range(n))


# Immutable tuples: `_replace` copies references only, so unchanged parts are shared between states.
new_state = State._replace
new_seat = Seat._replace
