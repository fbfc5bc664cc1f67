"""Serenissima as a Game: glue only, each method delegating to the room that holds it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel import Chance, Command, Edition, Event, Pending
from domain.kernel.describe import Sentence
from domain.serenissima import bot, describe, rules, scoring, view
from domain.serenissima import commands as cm
from domain.serenissima.edition import default_edition, load_edition
from domain.serenissima.fold import evolve
from domain.serenissima.state import State, begin


class Serenissima:
    title = "serenissima"
    name = "Serenissima"
    seats = (2, 4)
    bot_determinize = staticmethod(bot.determinize)
    bot_calibration = bot.CALIBRATION
    bot_suggest = bot.SUGGEST

    def default_edition(self) -> Edition:
        return default_edition()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return load_edition(raw, source)

    def begin(self, edition: Edition) -> State:
        return begin(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        return rules.setup(begin(edition), options, chance)

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        return cm.BOOK.parse(payload)

    # The hot paths of validation, bound directly (no extra call per event). `play` folds each
    # event once: `decide` already folds the automatic steps that follow a galley's activation.
    decide = staticmethod(rules.decide)
    play = staticmethod(rules.play)
    evolve = staticmethod(evolve)

    def pending(self, state: State) -> Pending:
        return rules.pending(state)

    def legal(self, state: State) -> list[Command]:
        return rules.legal(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def scores(self, state: State) -> dict[str, Any]:
        return scoring.scores(state)

    def describe(self, event: Event, before: State, names: Sequence[str]) -> Sentence | None:
        return describe.describe(event, before, names)
