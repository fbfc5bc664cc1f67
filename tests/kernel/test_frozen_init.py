"""`frozen_init`: the generated `__init__` of events and commands behaves as the dataclass's
`__init__` followed by the base class's `__post_init__` (the freezing rules), only faster."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from domain.kernel import Command, Event, FrozenDict
from domain.kernel.commands import command
from domain.kernel.events import event
from domain.kernel.frozen import freeze, frozen_init


@event("kernel-test/sample")
class Sample(Event):
    seat: int
    cards: tuple[str, ...]
    table: dict
    note: str = "none"


@command("kernel-test/choose")
class Choose(Command):
    hex: int
    slots: tuple[int, ...] = ()


@event("kernel-test/own-post-init")
class Checked(Event):
    seat: int

    def __post_init__(self) -> None:
        if self.seat < 0:
            raise ValueError("no negative seat")


def _dataclass_init(cls, *args, **kwargs):
    """An instance built the dataclass's way: its own fields set, then the base class's freezing."""
    obj = object.__new__(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = dict(zip(names, args, strict=False)) | kwargs
    for f in dataclasses.fields(cls):
        object.__setattr__(obj, f.name, values.get(f.name, f.default))
    type(obj).__mro__[1].__post_init__(obj)
    return obj


def test_events_freeze_their_container_fields_as_before():
    e = Sample(1, ["a", "b"], {"k": [1, 2]})
    assert e == _dataclass_init(Sample, 1, ["a", "b"], {"k": [1, 2]})
    assert type(e.cards) is tuple and type(e.table) is FrozenDict and e.table["k"] == (1, 2) and e.note == "none"
    assert Sample(seat=1, cards=("a",), table={}, note="x").note == "x"
    assert hash(e) == hash(Sample(1, ("a", "b"), FrozenDict({"k": (1, 2)})))
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.seat = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Sample(1, ())  # type: ignore[call-arg]
    assert pickle.loads(pickle.dumps(e)) == e and dataclasses.replace(e, seat=3).seat == 3


def test_commands_freeze_any_list_or_dict_as_before():
    c = Choose(0, 7, [1, 2])
    assert c == _dataclass_init(Choose, 0, 7, [1, 2]) and type(c.slots) is tuple and hash(c) == hash(Choose(0, 7, (1, 2)))
    odd = Choose(0, [7], {"a": 1})  # type: ignore[arg-type]  # wrong types are still frozen, never kept mutable
    assert odd.hex == (7,) and type(odd.slots) is FrozenDict
    assert Choose(seat=1, hex=2) == Choose(1, 2, ())


def test_a_class_with_its_own_post_init_keeps_the_dataclass_init():
    assert Checked(2).seat == 2
    with pytest.raises(ValueError, match="no negative seat"):
        Checked(-1)


def test_classes_frozen_init_cannot_serve_keep_their_own():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        items: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        a: int

    assert frozen_init(Factory, (), freeze_any=True) is None
    assert frozen_init(KeywordOnly, (), freeze_any=True) is None


def test_freeze_returns_flat_tuples_as_they_are_and_still_freezes_nested_ones():
    flat = (1, "a", None, True, 2.5)
    assert freeze(flat) is flat and freeze([1, "a"]) == (1, "a") and type(freeze([1, "a"])) is tuple
    nested = freeze(([1, 2], {"a": [3]}))
    assert nested == ((1, 2), FrozenDict({"a": (3,)})) and type(nested[1]) is FrozenDict
    with pytest.raises(TypeError):
        freeze((1, object()))
