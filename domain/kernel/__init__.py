"""The game-agnostic kernel: events, commands, chance, violations, editions, the Game contract."""

from domain.kernel.chance import Chance, ObservedChance, Outcome, SeededChance, commitment
from domain.kernel.commands import Command, CommandBook, command, load_options
from domain.kernel.contract import AUTOMATIC, GAME_OVER, Game, Pending, fold, pending, play
from domain.kernel.editions import Edition, EditionError, load_edition_file, parse_edition
from domain.kernel.events import Event, event, event_from_json, round_trips
from domain.kernel.frozen import FrozenDict, freeze, thaw
from domain.kernel.log import Entry, Report, replay
from domain.kernel.violations import (
    ALL,
    ImpossibleOutcome,
    MalformedCommand,
    Reader,
    RuleViolation,
    Secret,
    reveal,
    secret_size,
)

__all__ = [
    "Chance", "ObservedChance", "Outcome", "SeededChance", "commitment",
    "Command", "CommandBook", "command", "load_options",
    "AUTOMATIC", "GAME_OVER", "Game", "Pending", "fold", "pending", "play",
    "Edition", "EditionError", "load_edition_file", "parse_edition",
    "Event", "event", "event_from_json", "round_trips",
    "FrozenDict", "freeze", "thaw",
    "Entry", "Report", "replay",
    "ALL", "ImpossibleOutcome", "MalformedCommand", "Reader", "RuleViolation", "Secret", "reveal", "secret_size",
]
