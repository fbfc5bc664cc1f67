"""`Event.of` (kernel.events.interner): every event class builds each distinct value once and hands out that
same object after, so a replay finds the rules' events identical to the log's; a table is bounded, and a
value of another type that compares equal (`True == 1`) is a different key only where the caller guarantees
the type, which is why rules intern only values of a known type."""

from __future__ import annotations

from domain.kernel import Event
from domain.kernel.events import INTERNED, INTERNED_KEPT, event


@event("kernel-test/built")
class Built(Event):
    seat: int
    hex: int
    building: str
    losers: tuple[int, ...]


@event("kernel-test/razed")
class Razed(Event):
    seat: int
    hex: int
    building: str
    losers: tuple[int, ...]


def test_one_value_is_one_object_and_another_value_another() -> None:
    first = Built.of(0, 12, "farm", (1, 2))
    assert Built.of(0, 12, "farm", (1, 2)) is first
    assert first == Built(0, 12, "farm", (1, 2)) and first.to_json()["data"]["losers"] == [1, 2]
    other = Built.of(1, 12, "farm", (1, 2))
    assert other is not first and other.seat == 1


def test_a_full_table_starts_again_so_a_long_game_never_grows_it_without_end() -> None:
    INTERNED[Built].clear()
    for k in range(INTERNED_KEPT + 5):
        Built.of(0, k, "farm", ())
    assert 0 < len(INTERNED[Built]) <= INTERNED_KEPT
    assert Built.of(0, 3, "farm", ()).hex == 3


def test_each_event_class_has_its_own_table_and_clear_empties_them_all() -> None:
    built, razed = Built.of(0, 7, "farm", ()), Razed.of(0, 7, "farm", ())
    assert type(built) is Built and type(razed) is Razed and built is not razed  # same fields, another event
    INTERNED.clear()  # as a fresh process has them
    assert not INTERNED[Built] and not INTERNED[Razed]
    assert Built.of(0, 7, "farm", ()) is not built  # built anew
