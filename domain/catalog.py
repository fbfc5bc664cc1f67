"""Which titles Cronaca knows, by their public title id: the one place a title is named outside its package.

Everything else about a title is read from its package through here: its Game (`GAME`), its
display name (`GAME.name`), its notation words and places (`notation.py`), its board in sentences (`aloud.py`), its demo tables
(`bot.py`), the words its decision panel offers (`notation.choices`), its solo mode's setup (`solo.py`), and the name of
the package itself, by which the viewer finds the title's board
drawing. Imported lazily: one title's bug never blocks another.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from domain.kernel.bots import Table
from domain.kernel.choices import Chooser, plain
from domain.kernel.contract import Game
from domain.kernel.editions import Edition

TITLES = {
    "citta-stato": "domain.citta_stato",
    "la-citta": "domain.la_citta",
    "serenissima": "domain.serenissima",
}


def _module(title: str) -> str:
    if title not in TITLES:
        raise KeyError(f"unknown title {title!r}; known: {sorted(TITLES)}")
    return TITLES[title]


def _room(title: str, room: str) -> ModuleType | None:
    """A room of the title's package (`notation`, `bot`), or None when the package has no such module."""
    name = f"{_module(title)}.{room}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        if missing.name != name:  # the room exists but something it imports does not: a bug to show
            raise
        return None


def game(title: str) -> Game:
    """The Game for a title id; each game package exposes it as `GAME`."""
    return importlib.import_module(_module(title)).GAME


def package(title: str) -> str:
    """The name of the title's package ("citta_stato"): the viewer keeps the title's board drawing
    under the same name (replay_viewer/boards/<package>.py)."""
    return _module(title).rpartition(".")[2]


def words(title: str) -> Any:
    """A title's notation words (`domain/<title>/notation.py`, `WORDS`: a kernel.notation.Words)."""
    notation = _room(title, "notation")
    # a one-module title (the tests' toy) keeps its words beside its GAME
    return (notation or importlib.import_module(_module(title))).WORDS


def places(title: str, edition: Edition) -> tuple[str, ...] | None:
    """Every place of the title's board as its notation spells it (`notation.places(edition)`), or
    None when its notation names no places."""
    notation = _room(title, "notation")
    listed = getattr(notation, "places", None)
    return tuple(listed(edition)) if callable(listed) else None


def read_aloud(title: str, view: Mapping[str, Any], edition: Edition, names: Sequence[str]) -> list[str]:
    """One step's board in sentences of the game's words (`aloud.py`'s `board(view, edition, names)`), from the
    same reader's view its picture is drawn from; no sentences for a title without that room."""
    said = getattr(_room(title, "aloud"), "board", None)
    return list(said(view, edition, names)) if callable(said) else []


def options_schema(title: str) -> Any:
    """The marshmallow schema of the title's setup options (`rules.py`'s `OptionsSchema`), or None: the page that
    starts a game offers its fields (api/titles.py says which)."""
    found = getattr(_room(title, "rules"), "OptionsSchema", None)
    return found() if callable(found) else None


def choices(title: str) -> Chooser:
    """How the title offers its legal commands to the decision panel (`notation.choices(state, commands, names)`:
    words, group, parts, place; kernel.choices); a title without one offers its notation's words, one group."""
    found = getattr(_room(title, "notation"), "choices", None)
    return found if callable(found) else plain(words(title))


def solo(title: str) -> Callable[[int, int, int], dict[str, Any]] | None:
    """How the title sets up one game of its solo mode: `solo.py`'s `solo_options(scenario, game, carried)`,
    the setup options of game `game` of that scenario's campaign with what the game before carried into it;
    None for a title without a solo mode."""
    found = getattr(_room(title, "solo"), "solo_options", None)
    return found if callable(found) else None


def demo_tables(title: str) -> Sequence[Table]:
    """The tables the demo sits for this title, in order (`bot.py`'s `DEMO_TABLES`); none when it offers none."""
    return tuple(getattr(_room(title, "bot"), "DEMO_TABLES", ()))


def available() -> list[str]:
    """Titles whose engine is installed (a package that fails to import is not offered)."""
    found = []
    for title, module in TITLES.items():
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        found.append(title)
    return found


def round_word(title: str) -> str:
    """What the title calls a round ("year" for La Città), as its describe room says (`ROUND`); "round" otherwise."""
    return str(getattr(_room(title, "describe"), "ROUND", "round"))


def final_said(title: str, name: str, total: Any, breakdown: dict[str, Any]) -> str | None:
    """A seat's final score and its breakdown in one sentence of the title's words (`describe.final_said`), or None
    for a title whose describe room does not say it."""
    say = getattr(_room(title, "describe"), "final_said", None)
    return say(name, total, breakdown) if callable(say) else None
