"""The fold's fast record copies (built as a slotted twin, then given the real class) are ordinary frozen records."""

from __future__ import annotations

import dataclasses

import pytest

from domain.kernel import SeededChance
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from domain.serenissima.state import Activation, Galley, Port, State, _galley, replace

EDITION = GAME.default_edition()


def _mid_game() -> State:
    played = play_random(GAME, EDITION, {"players": 3}, "state-records")
    s = GAME.begin(EDITION)
    for entry in played.entries[: len(played.entries) // 2]:
        for e in entry.events:
            s = GAME.evolve(s, e)
    while s.act is None:  # stop where an activation is under way, so every record kind is present
        s = GAME.play(s, GAME.legal(s)[0], SeededChance("state-records"))[1]
    return s


@pytest.mark.parametrize("cls", [State, Activation, Port])
def test_replace_matches_dataclasses_replace_field_by_field(cls: type) -> None:
    s = _mid_game()
    record = {State: s, Activation: s.act, Port: s.ports[0]}[cls]
    for f in dataclasses.fields(cls):
        value = ("changed",)  # any value: a record holds what it is given
        fast, slow = replace(record, **{f.name: value}), dataclasses.replace(record, **{f.name: value})
        assert type(fast) is cls and fast == slow
        assert all(getattr(fast, g.name) == getattr(slow, g.name) for g in dataclasses.fields(cls))
    assert replace(record) == record and replace(record) is not record


def test_fast_records_stay_frozen_and_hashable() -> None:
    s = _mid_game()
    copy = replace(s.act, stage="movement")
    with pytest.raises(dataclasses.FrozenInstanceError):
        copy.stage = "plan"  # type: ignore[misc]
    g = _galley(1, "balearic", 3, ("wood",))
    assert g == Galley(1, "balearic", 3, ("wood",)) and hash(g) == hash(Galley(1, "balearic", 3, ("wood",)))
    assert g.load == 4
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.sailors = 5  # type: ignore[misc]


