"""Every title package has the same rooms in the same places, so a newcomer who read one finds everything in the next.

The rooms (issue 12 part 5): the edition data and its loader, state, events, commands, fold,
rules, view, scoring, notation, describe, the Game glue and the board's layout. Each Game
class offers the queries a reader of any title needs: describe, view and scores.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

DOMAIN = Path(__file__).resolve().parent.parent / "domain"
TITLES = ("citta_stato", "la_citta", "serenissima")
MODULES = ("edition", "state", "events", "commands", "fold", "rules", "view", "scoring", "notation", "describe", "game")
DATA = ("edition.yaml", "layout.yaml")
QUERIES = ("describe", "view", "scores")


@pytest.mark.parametrize("package", TITLES)
def test_every_room_is_in_its_place(package: str) -> None:
    here = DOMAIN / package
    missing = [f"{m}.py" for m in MODULES if not (here / f"{m}.py").is_file()] + [d for d in DATA if not (here / d).is_file()]
    assert missing == [], f"domain/{package} lacks {missing}"


@pytest.mark.parametrize("package", TITLES)
def test_each_room_says_what_it_holds(package: str) -> None:
    """A module docstring in every room: the first thing a newcomer reads."""
    silent = [m for m in MODULES if (DOMAIN / package / f"{m}.py").is_file() and not importlib.import_module(f"domain.{package}.{m}").__doc__]
    assert silent == [], f"domain/{package}: no docstring in {silent}"


@pytest.mark.parametrize("package", TITLES)
def test_the_game_class_offers_describe_view_and_scores(package: str) -> None:
    game = importlib.import_module(f"domain.{package}.game")
    classes = [c for _, c in inspect.getmembers(game, inspect.isclass) if c.__module__ == game.__name__ and hasattr(c, "title")]
    assert len(classes) == 1, f"domain/{package}/game.py should hold one Game class, found {[c.__name__ for c in classes]}"
    lacking = [q for q in QUERIES if not callable(getattr(classes[0], q, None))]
    assert lacking == [], f"{classes[0].__name__} lacks {lacking}"
    signature = inspect.signature(classes[0].describe)
    assert list(signature.parameters)[1:] == ["event", "before", "names"], signature


@pytest.mark.parametrize("package", TITLES)
def test_the_notation_room_offers_the_decision_panel_s_choices(package: str) -> None:
    """The table companion asks each title for its legal commands in words (`notation.choices`, issue 31)."""
    notation = importlib.import_module(f"domain.{package}.notation")
    assert callable(getattr(notation, "choices", None)), f"domain/{package}/notation.py has no choices()"
    assert list(inspect.signature(notation.choices).parameters) == ["state", "commands", "names"]
