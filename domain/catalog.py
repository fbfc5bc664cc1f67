"""Which titles Cronaca knows, by their public title id. Imported lazily: one title's bug never blocks another."""

from __future__ import annotations

import importlib
from typing import Any

from domain.kernel.contract import Game

TITLES = {
    "citta-stato": "domain.citta_stato",
    "la-citta": "domain.la_citta",
    "serenissima": "domain.serenissima",
}


def game(title: str) -> Game:
    """The Game for a title id; each game package exposes it as `GAME`."""
    if title not in TITLES:
        raise KeyError(f"unknown title {title!r}; known: {sorted(TITLES)}")
    return importlib.import_module(TITLES[title]).GAME


def words(title: str) -> Any:
    """A title's notation words (`domain/<title>/notation.py`, `WORDS`: a kernel.notation.Words)."""
    if title not in TITLES:
        raise KeyError(f"unknown title {title!r}; known: {sorted(TITLES)}")
    module = TITLES[title]
    try:
        return importlib.import_module(module + ".notation").WORDS
    except ModuleNotFoundError:  # a one-module title (the tests' toy) keeps its words beside its GAME
        return importlib.import_module(module).WORDS


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
