"""The La Città Game: glue only, each method of the contract handed to the room that holds it.

edition.py loads the edition, state.py begins, rules.py sets up, decides and says what is legal
and pending, fold.py evolves, view.py shows a seat what it may see, scoring.py scores,
describe.py says an event in words, commands.py parses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.kernel import Chance, Command, Edition, Event, Pending
from domain.kernel.describe import Sentence
from domain.la_citta import bot, rules
from domain.la_citta import edition as ed
from domain.la_citta.commands import parse
from domain.la_citta.describe import describe
from domain.la_citta.fold import evolve
from domain.la_citta.scoring import scores
from domain.la_citta.state import State, begin
from domain.la_citta.view import view


class LaCitta:
    title = "la-citta"
    name = "La Città"
    seats = rules.SEATS
    bot_shape = staticmethod(bot.shape)
    bot_determinize = staticmethod(bot.determinize)
    bot_calibration = bot.CALIBRATION
    bot_suggest = bot.SUGGEST

    def default_edition(self) -> Edition:
        return ed.default_edition()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return ed.load_edition(raw, source)

    def begin(self, edition: Edition) -> State:
        return begin(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        return rules.setup(edition, options, chance)

    # The calls a replay makes for every command and event go straight to the rules' functions
    # (no method in between): parse_command(payload), play(state, command, chance), evolve(state, event).
    parse_command: Callable[[Mapping[str, Any]], Command] = staticmethod(parse)
    play: Callable[[State, Command, Chance], tuple[list[Event], State]] = staticmethod(rules.play)
    evolve: Callable[[State, Event], State] = staticmethod(evolve)

    def decide(self, state: State, command: Command, chance: Chance) -> list[Event]:
        return rules.decide(state, command, chance)

    def pending(self, state: State) -> Pending:
        return rules.pending_of(state)

    def legal(self, state: State) -> Sequence[Command]:
        return rules.legal(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def scores(self, state: State) -> dict[str, Any]:
        return scores(state)

    def describe(self, event: Event, before: State, names: Sequence[str]) -> Sentence | None:
        return describe(event, before, names)


GAME = LaCitta()
