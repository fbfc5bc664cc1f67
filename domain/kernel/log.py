"""A game log: the sequence of choices, the chance outcomes each one met, and the events it caused.

This is what a record stores and exports, and what an import replays. Entry 0 is the
setup (options instead of a command). Re-deciding a log with `ObservedChance` proves
every choice was legal and every outcome possible; comparing the events proves nothing
was written in that the rules would not have written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.kernel.chance import ObservedChance, Outcome
from domain.kernel.contract import Game, fold, play
from domain.kernel.editions import Edition
from domain.kernel.events import Event, event_from_json
from domain.kernel.violations import MalformedCommand, RuleViolation


@dataclass(frozen=True, slots=True)
class Entry:
    """One step of a log: a command (or setup options), its chance outcomes, its events."""

    command: Mapping[str, Any] | None
    outcomes: tuple[Outcome, ...]
    events: tuple[Event, ...]
    options: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "outcomes": [o.to_json() for o in self.outcomes],
            "events": [e.to_json() for e in self.events],
        }
        if self.options is not None:
            out["setup"] = dict(self.options)
        else:
            out["command"] = dict(self.command or {})
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Entry:
        return cls(
            command=obj.get("command"),
            options=obj.get("setup"),
            outcomes=tuple(Outcome.from_json(o) for o in obj.get("outcomes", [])),
            events=tuple(event_from_json(e) for e in obj.get("events", [])),
        )


@dataclass
class Report:
    """The verdict on a log: ok, or the first thing wrong with where and why."""

    ok: bool
    entries: int = 0
    events: int = 0
    entry_index: int | None = None
    event_index: int | None = None
    rule: str | None = None
    message: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class LogMismatch(RuleViolation):
    """The log's events differ from those the rules produce for the same choices."""


def _mismatch(index: int, expected: Sequence[Event], given: Sequence[Event]) -> LogMismatch | None:
    for k in range(max(len(expected), len(given))):
        if k < len(expected) and k < len(given) and expected[k] == given[k]:
            continue  # equal events have equal JSON; skip the costly to_json on the common path
        want = expected[k].to_json() if k < len(expected) else None
        got = given[k].to_json() if k < len(given) else None
        if want != got:
            return LogMismatch(
                "log/event-mismatch",
                f"entry {index}, event {k}: the rules give {want and want['type']}, the log says {got and got['type']}",
                event_in_entry=k,
                expected=want,
                given=got,
            )
    return None


def replay(game: Game, edition: Edition, entries: Sequence[Entry], check_events: bool = True) -> tuple[Report, Any]:
    """Re-decide every entry with observed chance; stop at the first violation."""
    state = game.begin(edition)
    events_seen = 0
    for index, entry in enumerate(entries):
        chance = ObservedChance(entry.outcomes)
        try:
            if index == 0:
                if entry.options is None:
                    raise RuleViolation("log/setup-first", "a log must start with its setup entry")
                produced = game.setup(edition, entry.options, chance)
                after = fold(game, state, produced)
            else:
                if entry.command is None:
                    raise RuleViolation("log/command-missing", f"entry {index} has no command")
                produced, after = play(game, state, game.parse_command(entry.command), chance)
            if chance.unused:
                raise RuleViolation(
                    "chance/unused-outcome",
                    f"the log gives {len(chance.unused)} chance outcome(s) the rules never asked for",
                    unused=[o.to_json() for o in chance.unused],
                )
            if check_events and entry.events:
                wrong = _mismatch(index, produced, entry.events)
                if wrong is not None:
                    raise wrong
        except MalformedCommand as exc:
            report = Report(False, index, events_seen, index, events_seen, "log/malformed-command", exc.message, {"errors": exc.errors})
            return report, state
        except RuleViolation as exc:
            offset = int(exc.facts.get("event_in_entry", 0)) if isinstance(exc, LogMismatch) else 0
            report = Report(False, index, events_seen, index, events_seen + offset, exc.rule, exc.message, exc.to_json()["facts"])
            return report, state
        state = after
        events_seen += len(produced)
    return Report(True, len(entries), events_seen), state
