"""The Città-Stato state: small frozen values shared structurally between steps, and `begin`.

Counts of cubes are 6-tuples in colour order (Y W G O B P); banners and the four upgrade
tracks are 4-tuples (Y G O P). A bag is only a count per colour: its order is not state.
A deck is the sorted multiset of its unseen cards; the Present and Future cards are visible.
Both are NamedTuples rather than dataclasses because the fold copies them on every event
and tuple copying is twice as fast. `tasks` is the queue of steps still to settle (the head is the pending decision, or an
automatic step decide settles at once); each is a plain tuple (kind, seat, *params).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from domain.kernel import Edition

from .edition import Tables, tables

Task = tuple  # (kind, seat, *params)
N = TypeVar("N", bound=tuple)
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


class Draft:
    """A State's fields as a mutable object: what the fold writes a command's events onto.

    `rules.settle` folds a command's events and every automatic step after it onto one Draft and
    makes the State once at the end (`freeze`), instead of one State a event (5-6 events a solo
    decision); the automatic steps read the Draft itself. A slot is read about three times as fast
    as a NamedTuple's field (a descriptor call in Python 3.11), and both answer to the same names,
    so a function that only reads a state takes either (`Now`).
    """

    __slots__ = (
        "edition", "t", "players", "expansion", "phase", "round", "first", "current", "next_first", "upgrade",
        "schemes", "schemes_up", "scheme_pool", "present", "future", "decks", "discards", "market", "warfare",
        "revealed", "pool", "reserve", "box", "seats", "tasks", "finals", "solo", "removed",
    )  # fmt: skip
    edition: Edition
    t: Tables
    players: int
    expansion: bool
    phase: str
    round: int
    first: int
    current: int
    next_first: int
    upgrade: int
    schemes: tuple[str, ...]
    schemes_up: tuple[bool, ...]
    scheme_pool: tuple[str, ...]
    present: tuple[str, ...]
    future: tuple[str, ...]
    decks: tuple[tuple[str, ...], ...]
    discards: tuple[tuple[str, ...], ...]
    market: tuple[tuple[bool, ...], ...]
    warfare: tuple[tuple[int, int], ...]
    revealed: bool
    pool: tuple[str, ...]
    reserve: tuple[int, ...]
    box: tuple[int, ...]
    seats: tuple[Seat, ...]
    tasks: tuple[Task, ...]
    finals: tuple[int, ...]
    solo: SoloGame | None
    removed: tuple[int, ...]


assert Draft.__slots__ == State._fields, "a Draft has the State's fields, in order"
Now = State | Draft  # what a function that only reads the state takes


def _thaw_and_freeze() -> tuple[Callable[[State], Draft], Callable[[Draft], State]]:
    """`thaw(state)` and `freeze(draft)`, each one unpacking or one tuple written out field by field (built
    from the field names, as `setter` is): a loop of setattr / getattr costs about three times as much."""
    names = ", ".join(f"d.{name}" for name in State._fields)
    source = (
        f"def thaw(s):\n    d = new(Draft)\n    {names} = s\n    return d\n"
        f"def freeze(d):\n    return make(State, ({names}))\n"
    )
    scope: dict[str, Any] = {"new": object.__new__, "Draft": Draft, "make": tuple.__new__, "State": State}
    exec(source, scope)  # noqa: S102  (generated from the class's own field names)
    return scope["thaw"], scope["freeze"]


_thaw, _freeze = _thaw_and_freeze()

# The last draft frozen and the State it made. A fold goes on from the state it has just made (a replay
# plays each command from the state the last one settled at; a stream folds event after event), so
# `thaw` hands that draft back instead of copying the same fields into a new one: about a tenth of a
# 2-player decision. A draft is spent once frozen (nothing writes to it again), so the one kept always
# holds exactly its State's fields; `thaw` takes it out of the list before anyone writes to it (one
# `pop`, so two threads can never be handed the same draft), and any other state is thawed afresh. The list
# holds one pair, or one a thread folding at that moment.
_SPARE: list[tuple[State, Draft]] = []


def thaw(state: State) -> Draft:
    """A draft of `state` to fold events onto (`rules.settle`, `fold.evolve`)."""
    try:
        made, draft = _SPARE.pop()
    except IndexError:
        return _thaw(state)
    return draft if made is state else _thaw(state)


def freeze(draft: Draft) -> State:
    """The State of a draft's fields. The draft is spent: write nothing to it after this (thaw it again)."""
    state = _freeze(draft)
    _SPARE.append((state, draft))  # (every freeze follows a thaw, which emptied the list)
    return state


_BEGUN: dict[str, State] = {}
_BEGUN_KEPT = 32  # editions whose empty state is kept: a table's own edition files come and go (a plain dict, emptied
# when full: `begin` is on every fold's path, too hot for the locked kernel cache)


def begin(edition: Edition) -> State:
    """The empty state, one per edition (states are immutable; see fold.remember_setup for why it is shared)."""
    found = _BEGUN.get(edition.content_hash)
    if found is None or found.edition is not edition:
        if len(_BEGUN) >= _BEGUN_KEPT:
            _BEGUN.clear()
        found = _BEGUN[edition.content_hash] = State(edition=edition, t=tables(edition))
    return found


def order_from(state: Now, start: int) -> tuple[int, ...]:
    """Seats in turn order from `start` (read from a table: every turn and every all-player effect asks)."""
    found = _ORDERS.get((state.players, start))
    if found is None:
        n = state.players
        found = tuple((start + k) % n for k in range(n))
    return found


_ORDERS = {(n, start): tuple((start + k) % n for k in range(n)) for n in range(1, 9) for start in range(n)}


# Immutable tuples: a copy shares every unchanged part with the state it came from. The fold copies
# a State (and usually a Seat) on every event, so these build the copy from a list of the fields
# set by index: about half the cost of NamedTuple._replace, which pops every field from a dict.
_STATE_AT = {name: i for i, name in enumerate(State._fields)}
_SEAT_AT = {name: i for i, name in enumerate(Seat._fields)}
_TASKS = _STATE_AT["tasks"]
_SEATS = _STATE_AT["seats"]
_make = tuple.__new__


def new_state(state: State, **changes: Any) -> State:
    items = list(state)
    for name, value in changes.items():
        items[_STATE_AT[name]] = value
    return _make(State, items)


def new_seat(seat: Seat, **changes: Any) -> Seat:
    items = list(seat)
    for name, value in changes.items():
        items[_SEAT_AT[name]] = value
    return _make(Seat, items)


def setter(cls: type[N], *names: str) -> Callable[..., N]:
    """A copy function for one NamedTuple and a fixed set of its fields, called positionally.

    `setter(Seat, "bag", "supply")(seat, bag, supply)` is `new_seat(seat, bag=bag, supply=supply)`
    at half the cost: no keyword dict, each position written into the function. Made once at
    import (the source is built from the class's own field names, as `namedtuple` builds its own);
    the fold's hottest copies use it.
    """
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    at = [fields.index(name) for name in names]
    params = ", ".join(f"v{k}" for k in range(len(at)))
    body = "".join(f"    items[{i}] = v{k}\n" for k, i in enumerate(at))
    source = f"def set_{'_'.join(names)}(x, {params}):\n    items = list(x)\n{body}    return make(cls, items)\n"
    scope: dict[str, Any] = {"make": _make, "cls": cls}
    exec(source, scope)  # noqa: S102  (generated from the class's own field names)
    return scope[f"set_{'_'.join(names)}"]


def with_tasks(state: State, tasks: tuple[Task, ...]) -> State:
    """The commonest copy: only the queue of steps changes."""
    items = list(state)
    items[_TASKS] = tasks
    return _make(State, items)


def with_seat(state: State, i: int, seat: Seat, tasks: tuple[Task, ...]) -> State:
    """The next commonest: one seat and the queue change."""
    items = list(state)
    seats = state.seats
    items[_SEATS] = (*seats[:i], seat, *seats[i + 1 :])
    items[_TASKS] = tasks
    return _make(State, items)


def crowns_between(state: Now, a: int, b: int) -> int:
    """Crown marks on the VP track between two scores, both ends included (marks at 4, 8, 12...).

    Here, beside the State, because scoring and the solo report both count them."""
    every = state.t.crown_every
    lo, hi = min(a, b), max(a, b)
    if hi <= 0:
        return 0
    return hi // every - (max(lo, 1) - 1) // every
