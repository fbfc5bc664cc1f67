"""The Città-Stato Game: glue only, each method of the contract handed to the room that holds it.

edition.py loads the edition, state.py begins, rules.py sets up, decides and says what is legal
and pending, fold.py evolves, view.py shows a seat what it may see, scoring.py scores,
describe.py says an event in words, commands.py parses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel import Chance, Command, Edition, Event, Pending
from domain.kernel.describe import Sentence

from . import bot, commands, rules, scoring
from . import edition as ed
from .describe import describe as describe_event
from .fold import evolve
from .rules import decide, play
from .state import State
from .state import begin as begin_state
from .view import public_view as public_view_of
from .view import view as view_of


class CittaStato:
    title = ed.TITLE
    name = "Città-Stato"
    seats = (2, 5)
    bot_shape = staticmethod(bot.shape)
    bot_determinize = staticmethod(bot.determinize)
    bot_calibration = bot.CALIBRATION
    bot_suggest = bot.SUGGEST

    def default_edition(self) -> Edition:
        return ed.default()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return ed.load(raw, source)

    def begin(self, edition: Edition) -> State:
        return begin_state(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        return rules.setup(edition, options, chance)

    # The rules' own functions, not wrappers: replay calls `parse_command` and `play` once per command and
    # `evolve` once per event.
    parse_command = staticmethod(commands.parse)
    decide = staticmethod(decide)
    play = staticmethod(play)
    evolve = staticmethod(evolve)

    def pending(self, state: State) -> Pending:
        return rules.pending_step(state)

    def legal(self, state: State) -> list[Command]:
        return rules.options(state)

    def public_view(self, state: State) -> dict[str, Any]:
        return public_view_of(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view_of(state, seat)

    def scores(self, state: State) -> dict[str, Any]:
        return scoring.scores(state)

    def describe(self, event: Event, before: State, names: Sequence[str]) -> Sentence | None:
        return describe_event(event, before, names)


GAME = CittaStato()
