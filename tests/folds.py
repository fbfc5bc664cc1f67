"""A check every title whose `play` folds its own events must pass: the state it hands back is the fold's."""

from __future__ import annotations

from typing import Any

from domain.kernel.chance import ObservedChance
from domain.kernel.contract import Game
from domain.kernel.editions import Edition
from domain.kernel.selfplay import PlayedGame


def play_folds_as_evolve(game: Game, edition: Edition, played: PlayedGame) -> Any:
    """Replays `played` with the title's `play`, checking at each command that its events are the log's and
    that the state it returns equals the one `evolve` makes event by event; returns the last state."""
    state = game.begin(edition)
    play = game.play  # type: ignore[attr-defined]
    for index, entry in enumerate(played.entries):
        chance = ObservedChance.of(entry.outcomes)
        if index == 0:
            events, after = game.setup(edition, entry.options, chance), None
        else:
            events, after = play(state, game.parse_command(entry.command), chance)
        assert tuple(events) == entry.events
        one_by_one = state
        for e in events:
            one_by_one = game.evolve(one_by_one, e)
        assert after is None or after == one_by_one
        state = one_by_one
    return state
