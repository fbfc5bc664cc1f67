"""Random legal play: the engine against itself, for tests, benchmarks and `cronaca selfplay`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.kernel.chance import SeededChance
from domain.kernel.commands import Command
from domain.kernel.contract import Game, play
from domain.kernel.editions import Edition
from domain.kernel.events import Event
from domain.kernel.log import Entry

Check = Callable[[Any, Event], None]


@dataclass
class PlayedGame:
    seed: str
    entries: list[Entry]
    state: Any
    scores: dict[str, Any]

    @property
    def event_count(self) -> int:
        return sum(len(e.events) for e in self.entries)


def play_random(
    game: Game,
    edition: Edition,
    options: Mapping[str, Any],
    seed: str,
    check: Check | None = None,
    max_commands: int = 100_000,
) -> PlayedGame:
    """Play one game with seeded chance and uniformly random legal choices.

    The table's chance and the players' choices use two streams of the same seed, so a
    game is reproduced exactly from its seed. `check(state, event)` runs after every event.
    """
    return play_out(game, edition, options, seed, lambda state, n, players: random_choice(game, state, players),
                    check, max_commands)


def random_choice(game: Game, state: Any, players: SeededChance) -> Command:
    """A uniformly random legal command, drawn from the players' stream."""
    choices = game.legal(state)
    if not choices:
        raise AssertionError(f"no legal command while pending {game.pending(state)}")
    return choices[players.below(len(choices))]


def play_out(
    game: Game,
    edition: Edition,
    options: Mapping[str, Any],
    seed: str,
    choose: Callable[[Any, int, SeededChance], Command],
    check: Check | None = None,
    max_commands: int = 100_000,
    after: Callable[[Any], None] | None = None,
) -> PlayedGame:
    """One game to its end: `choose(state, n, players)` picks the n-th command (random play, a bot);
    the table's chance is `SeededChance(seed)`, the players' stream `seed + "/players"`.
    `after(state)` sees the state after every command."""
    chance = SeededChance(seed)
    players = SeededChance(seed + "/players")
    state = game.begin(edition)
    produced = game.setup(edition, options, chance)
    entries = [Entry(None, tuple(chance.log), tuple(produced), options=dict(options))]
    for e in produced:
        state = game.evolve(state, e)
        if check:
            check(state, e)
    if after is not None:
        after(state)
    for n in range(max_commands):
        if game.pending(state).over:
            break
        cmd = choose(state, n, players)
        chance.log.clear()
        if check:
            produced = game.decide(state, cmd, chance)
            for e in produced:
                state = game.evolve(state, e)
                check(state, e)
        else:
            produced, state = play(game, state, cmd, chance)
        if after is not None:
            after(state)
        entries.append(Entry(cmd.to_json(), tuple(chance.log), tuple(produced)))
    else:
        raise AssertionError(f"game did not end within {max_commands} commands")
    return PlayedGame(seed, entries, state, game.scores(state))
