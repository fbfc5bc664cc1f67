"""A fold or describe table that leaves an event type out stops the title's import, naming the type."""

from __future__ import annotations

import importlib
import sys

import pytest

from domain.kernel.events import MissingHandler, every_event
from tests.kernel.toy_game import GAME, Drawn, Rolled, Started


def test_a_table_missing_an_event_type_fails_at_import() -> None:
    sys.modules.pop("tests.kernel.toy_missing_fold", None)
    with pytest.raises(MissingHandler, match=r"toy's fold has no handler for toy/rolled$"):
        importlib.import_module("tests.kernel.toy_missing_fold")
    assert "tests.kernel.toy_missing_fold" not in sys.modules


def test_a_whole_table_is_the_table_itself() -> None:
    table = {Started: GAME.evolve, Drawn: GAME.evolve, Rolled: GAME.evolve}
    assert every_event("toy", table, "fold") is table


def test_every_missing_type_is_named_and_other_titles_types_are_not_asked_for() -> None:
    with pytest.raises(MissingHandler) as caught:
        every_event("toy", {Started: GAME.evolve}, "describe")
    assert str(caught.value) == "toy's describe has no handler for toy/drawn, toy/rolled"
