"""A game log: the sequence of choices, the chance outcomes each one met, and the events it caused.

This is what a record stores and exports, and what an import replays. Entry 0 is the
setup (options instead of a command). Re-deciding a log with `ObservedChance` proves
every choice was legal and every outcome possible; comparing the events proves nothing
was written in that the rules would not have written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.kernel.chance import NO_OUTCOMES, Chance, ObservedChance, Outcome
from domain.kernel.contract import Game, fold, play
from domain.kernel.editions import Edition
from domain.kernel.events import Event, event_from_json
from domain.kernel.violations import MalformedCommand, RuleViolation, Secret

JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The types a parsed JSON scalar has: checked by `type(v) in`, before any slower check."""


def is_object(value: Any) -> bool:
    """A JSON object: a dict (what a parsed file holds) at the cost of a type check, any mapping otherwise."""
    return type(value) is dict or isinstance(value, Mapping)


@dataclass(frozen=True, slots=True)
class Entry:
    """One step of a log: a command (or setup options), its chance outcomes, its events."""

    command: Mapping[str, Any] | None
    outcomes: tuple[Outcome, ...]
    events: tuple[Event, ...]
    options: Mapping[str, Any] | None = None

    def to_json(self, events: bool = True) -> dict[str, Any]:
        """The entry as a file writes it; without `events`, only its head (what a record's writer, which puts
        the events in their canonical bytes straight from the objects, needs as JSON)."""
        out: dict[str, Any] = {"outcomes": [o.to_json() for o in self.outcomes]}
        if events:
            out["events"] = [e.to_json() for e in self.events]
        if self.options is not None:
            out["setup"] = dict(self.options)
        else:
            out["command"] = dict(self.command or {})
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], checked: bool = False) -> Entry:
        """Read an entry from a file. A value of the wrong type is a ValueError naming its field, never
        a TypeError from deep inside the rules (an unhashable command type, a nested outcome value).
        `checked`: the caller has checked these same shapes already (recordfile.parse, every import's
        ~180 entries), so they are not checked again; an unknown event type or field still is."""
        if checked:
            return cls(
                command=obj.get("command"),
                options=obj.get("setup"),
                outcomes=tuple(Outcome.from_json(o if type(o) is dict else dict(o)) for o in obj.get("outcomes", [])),
                events=tuple(event_from_json(e if type(e) is dict else dict(e)) for e in obj.get("events", [])),
            )
        if not is_object(obj):
            raise ValueError("an entry must be an object")
        command, options = obj.get("command"), obj.get("setup")
        if command is not None and not is_object(command):
            raise ValueError("`command` must be an object")
        if command is not None and not isinstance(command.get("type"), str):
            raise ValueError("`command.type` must be a string")
        if options is not None and not is_object(options):
            raise ValueError("`setup` must be an object")
        outcomes, events = obj.get("outcomes", []), obj.get("events", [])
        if not isinstance(outcomes, list):
            raise ValueError("`outcomes` must be a list")
        if not isinstance(events, list):
            raise ValueError("`events` must be a list")
        for k, o in enumerate(outcomes):
            if not is_object(o) or not isinstance(o.get("kind"), str) or not isinstance(o.get("source"), str):
                raise ValueError(f"`outcomes.{k}` must be an object with string `kind` and `source`")
            values = o.get("values")
            if not isinstance(values, list) or not all(type(v) in JSON_SCALARS or isinstance(v, str | int | float) for v in values):
                raise ValueError(f"`outcomes.{k}.values` must be a list of strings, numbers, booleans or nulls")
        for k, e in enumerate(events):
            if not is_object(e) or not isinstance(e.get("type"), str) or not is_object(e.get("data", {})):
                raise ValueError(f"`events.{k}` must be an object with a string `type` and an object `data`")
        return cls(
            command=command,
            options=options,
            outcomes=tuple(Outcome.from_json(dict(o)) for o in outcomes),
            events=tuple(event_from_json(dict(e)) for e in events),
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
    message: str | dict[str, Any] | None = None  # a stored message: text, or a wrapped Secret (kernel.violations)
    facts: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


class LogMismatch(RuleViolation):
    """The log's events differ from those the rules produce for the same choices."""


def _difference(want: Any, got: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (dotted path, value in want, value in got)."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if key not in got:
                return (f"{path}{key}", want[key], "(missing)")
            if key not in want:
                return (f"{path}{key}", "(not produced)", got[key])
            found = _difference(want[key], got[key], f"{path}{key}.")
            if found is not None:
                return found
        return None
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            found = _difference(a, b, f"{path}{i}.")
            if found is not None:
                return found
        return None
    return None if want == got else (path.rstrip(".") or "(whole event)", want, got)


def _mismatch(index: int, expected: Sequence[Event], given: Sequence[Event]) -> LogMismatch | None:
    """The first event that differs, named by its field and both values.

    Event types are public (they are listed while a game is in progress); payload values
    may be secret, so the sentence with the values is a `Secret` and the public one names
    only the field.
    """
    if tuple(expected) == given:
        return None  # the common case, every event as the rules give it: tuples compare in C, identity first
    for k in range(max(len(expected), len(given))):
        if k < len(expected) and k < len(given) and expected[k] == given[k]:
            continue  # equal events have equal JSON; skip the costly to_json on the common path
        want = expected[k].to_json() if k < len(expected) else None
        got = given[k].to_json() if k < len(given) else None
        if want == got:
            continue
        where = f"entry {index}, event {k}"
        if want is None or got is None:
            extra = "the log has an event the rules do not produce" if want is None else "the log stops short"
            kind = (got or want or {}).get("type")
            return LogMismatch("log/event-mismatch", f"{where}: {extra} ({kind})", event_in_entry=k,
                               field=None, expected=Secret(want), given=Secret(got))
        if want.get("type") != got.get("type"):
            return LogMismatch("log/event-mismatch",
                               f"{where}: the rules give a {want.get('type')} event, the log says {got.get('type')}",
                               event_in_entry=k, field="type", expected=Secret(want), given=Secret(got))
        field_, rules_value, log_value = _difference(want, got) or ("(whole event)", want, got)
        public = f"{where} ({want['type']}): `{field_}` differs from what the rules give"
        full = f"{where} ({want['type']}): `{field_}` is {json.dumps(log_value)} in the log, the rules give {json.dumps(rules_value)}"
        return LogMismatch("log/event-mismatch", Secret(full, None, public), event_in_entry=k, field=field_,
                           expected=Secret(rules_value), given=Secret(log_value), event_type=want["type"])
    return None


def _not_from_seed(index: int, drawn: Sequence[Outcome], written: Sequence[Outcome]) -> RuleViolation | None:
    """The first outcome of an entry that differs from what its seed gives."""
    for k in range(max(len(drawn), len(written))):
        want = drawn[k].to_json() if k < len(drawn) else None
        got = written[k].to_json() if k < len(written) else None
        if want == got:
            continue
        where = f"entry {index}, outcome {k}"
        source = (want or got or {}).get("source")
        public = f"{where} ({source}) is not the one the revealed seed gives: it was changed"
        full = f"{where} ({source}): the log says {json.dumps(got)}, the revealed seed gives {json.dumps(want)}"
        return RuleViolation("chance/not-from-seed", Secret(full, None, public), outcome_in_entry=k, source=source,
                             seed_gives=Secret(want), log_says=Secret(got))
    return None


def replay(
    game: Game,
    edition: Edition,
    entries: Sequence[Entry],
    check_events: bool = True,
    seeded: Callable[[int], Chance] | None = None,
    accepted: list[Entry] | None = None,
    seats: list[int | None] | None = None,
) -> tuple[Report, Any]:
    """Re-decide every entry; stop at the first violation.

    Chance is observed (each written outcome checked for possibility), or, with `seeded`,
    drawn again from the entry's seed (a live record whose seed is revealed): each entry's
    written outcomes are then compared with the seed's before its legality counts, so a
    changed draw is reported at the entry where it was changed. `accepted`, when given,
    collects each entry as the rules decided it (events filled in where a log omits them);
    `seats` each accepted entry's deciding seat as its command was parsed (None for the setup),
    so that a record built from them need not parse every command again.
    """
    state = game.begin(edition)
    events_seen = 0
    # Looked up once, not per entry: a replay is the hot path of every import and every check.
    own_play = getattr(game, "play", None)
    parse_command = game.parse_command
    for index, entry in enumerate(entries):
        if seeded is not None:
            chance: Any = seeded(index)
        elif entry.outcomes:
            chance = ObservedChance.of(entry.outcomes)
        else:  # most commands meet no chance: one shared, always empty, observer (see NO_OUTCOMES)
            chance = NO_OUTCOMES
        try:
            if index == 0:
                if entry.options is None:
                    raise RuleViolation("log/setup-first", "a log must start with its setup entry")
                produced = game.setup(edition, entry.options, chance)
                after = fold(game, state, produced)
            else:
                if entry.command is None:
                    raise RuleViolation("log/command-missing", f"entry {index} has no command")
                command = parse_command(entry.command)
                if own_play is not None:
                    produced, after = own_play(state, command, chance)
                else:
                    produced, after = play(game, state, command, chance)
            if seeded is not None:
                changed = _not_from_seed(index, chance.log, entry.outcomes)
                if changed is not None:
                    raise changed
            elif entry.outcomes and chance.has_unused:
                raise RuleViolation(
                    "chance/unused-outcome",
                    f"the log gives {len(chance.unused)} chance outcome(s) the rules never asked for",
                    unused=[o.to_json() for o in chance.unused],
                )
            if check_events and entry.events and tuple(produced) != entry.events:
                wrong = _mismatch(index, produced, entry.events)
                if wrong is not None:
                    raise wrong
        except MalformedCommand as exc:
            report = Report(False, index, events_seen, index, events_seen, "log/malformed-command", exc.message, {"errors": exc.errors})
            return report, state
        except RuleViolation as exc:
            if seeded is not None and index > 0 and not isinstance(exc, LogMismatch):
                # a command the rules refuse with the seed's chance: was it the written chance that changed?
                changed = _not_from_seed(index, chance.log, entry.outcomes[: len(chance.log)])
                exc = changed or exc
            offset = int(exc.facts.get("event_in_entry", 0)) if isinstance(exc, LogMismatch) else 0
            stored = exc.stored()
            report = Report(False, index, events_seen, index, events_seen + offset, exc.rule, stored["message"], stored["facts"])
            return report, state
        if accepted is not None:
            accepted.append(Entry(entry.command, tuple(chance.log), tuple(produced), entry.options))
        if seats is not None:
            seats.append(None if index == 0 else command.seat)
        state = after
        events_seen += len(produced)
    return Report(True, len(entries), events_seen), state
