"""The entries a record file says were taken back (issue 31), put back in the order they were entered and taken back.

A record at the table keeps every entry it took back (`Record.Withdrawn`; the export lists them as `withdrawn`). An
import re-decides each where it was entered and stores the entries and the take-backs in that order, so the exported
game imports back to the same record (recordfile.check, imports/judge.py).
"""

from __future__ import annotations

from typing import Any

from domain.kernel import Edition, Entry, Game, MalformedCommand, ObservedChance, RuleViolation, fold, play
from domain.kernel.events import UnknownEventType


class BadTakeBack(ValueError):  # noqa: N818  (named for what it is, as BadRecordFile)
    """A take-back the file lists that does not fit its log: a `file/withdrawn` finding (`field`: where)."""

    def __init__(self, message: str, **facts: Any) -> None:
        super().__init__(message)
        self.facts = facts


def history(game: Game, edition: Edition, entries: list[Entry], withdrawn: list[dict[str, Any]], live: bool
            ) -> list[tuple[Entry | None, dict[str, Any] | None]]:
    """The order a record with take-backs was entered in: `(entry, None)` records an entry, `(None, taken)` takes the
    last one back. Each entry taken back is re-decided by the rules from the state it was entered on (a live game's
    without chance: it never takes back a draw it showed); the first that does not fit is a `file/withdrawn` finding.

    Withdrawals only ever take back the last entry, so the file's kept entries and its withdrawals, oldest first, give
    the order: when withdrawal i takes back entry e, the places below e hold whatever the file keeps there, unless a
    later withdrawal takes that place back first (then it held that withdrawal's entry)."""
    if not withdrawn:
        return [(e, None) for e in entries]
    order: list[tuple[Entry | None, dict[str, Any] | None]] = []
    states = [game.begin(edition)]  # states[j]: the game before the entry in place j
    held: list[int | None] = []  # what each place holds now: the withdrawal that takes it back, or None (kept)

    def put(at: int, now: int) -> None:
        later = next((m for m in range(now, len(withdrawn)) if withdrawn[m]["entry"] == at), None)
        if later is None:
            if at >= len(entries):
                raise BadTakeBack(f"withdrawn[{now}] takes back entry {withdrawn[now]['entry']}, but "
                                  f"the log has no entry {at} below it", field=f"withdrawn[{now}]")
            entry = entries[at]
        else:
            entry = _redecided(game, states[at], withdrawn[later]["log"], later, live)
        order.append((entry, None))
        held.append(later)
        states.append(fold(game, states[at], entry.events))

    for i, taken in enumerate(withdrawn):
        while len(held) <= taken["entry"]:
            put(len(held), i)
        if len(held) != taken["entry"] + 1 or held[-1] != i:
            raise BadTakeBack(f"withdrawn[{i}] takes back entry {taken['entry']}, which was not the "
                              "last entry then", field=f"withdrawn[{i}]")
        order.append((None, taken))
        held.pop()
        states.pop()
    while len(held) < len(entries):
        put(len(held), len(withdrawn))
    return order


def _redecided(game: Game, state: Any, log: dict[str, Any], k: int, live: bool) -> Entry:
    """An entry taken back, decided again by the rules on the state it was entered on: its events are the rules' own."""
    where = f"withdrawn[{k}].log"
    try:
        entry = Entry.from_json(log)
        command = game.parse_command(entry.command or {})
    except (MalformedCommand, UnknownEventType, ValueError, TypeError, KeyError) as exc:
        raise BadTakeBack(f"{where} cannot be read: {exc}", field=where) from exc
    if live and entry.outcomes:
        raise BadTakeBack(f"{where}: a live game never takes back an entry whose draw it showed", field=where)
    chance = ObservedChance(entry.outcomes)
    try:
        produced, _ = play(game, state, command, chance)
    except RuleViolation as exc:
        raise BadTakeBack(f"{where}: the rules refuse it where it was entered: {exc.message}", field=where,
                          rule_broken=exc.rule) from exc
    if chance.unused or not produced:
        raise BadTakeBack(f"{where}: it claims chance the rules never asked for, or changes nothing", field=where)
    return Entry(entry.command, tuple(chance.log), tuple(produced))
