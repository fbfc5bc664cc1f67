"""The record file (docs/formats/record-json.md): a header and the kernel's log entries.

`export` writes what a record holds; `check` re-decides a file's log through the rules
with observed chance and says whether it is acceptable, so `import(export(r))` gives back
`r` event for event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from domain import catalog
from domain.kernel import Edition, EditionError, Entry, Game, ObservedChance, SeededChance, commitment, replay
from domain.kernel.events import UnknownEventType
from domain.records.aggregates import MODES

FORMAT = "cronaca-record"
VERSION = 1


def entry_seed(seed: str, index: int) -> str:
    """The seed of log entry `index` of a live record (0 is the setup)."""
    return f"{seed}/{index}"


def live_chance(seed: str, index: int) -> SeededChance:
    return SeededChance(entry_seed(seed, index))


class BadRecordFile(ValueError):
    """A file that is not a record file at all; `rule` says which part, like a violation."""

    def __init__(self, rule: str, message: str, **facts: Any) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.facts = facts


@dataclass
class Header:
    title: str
    edition: dict[str, str]
    edition_file: str | None
    seats: list[str]
    options: dict[str, Any]
    mode: str
    commitment: str | None
    seed: str | None


def parse(document: Any) -> tuple[Header, list[dict[str, Any]]]:
    """Shape checks only; the rules judge the entries later."""
    if not isinstance(document, Mapping):
        raise BadRecordFile("file/not-an-object", "a record file is a JSON object")
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise BadRecordFile(
            "file/format", f'expected "format": "{FORMAT}" and "version": {VERSION}',
            format=document.get("format"), version=document.get("version"),
        )
    title = document.get("title")
    if title not in catalog.TITLES:
        raise BadRecordFile("file/title", f"unknown title {title!r}", known=sorted(catalog.TITLES))
    edition = document.get("edition")
    if not isinstance(edition, Mapping) or not isinstance(edition.get("id"), str) or not isinstance(edition.get("content_hash"), str):
        raise BadRecordFile("file/edition", "edition must be an object with id and content_hash")
    seats = document.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, Mapping) and isinstance(s.get("name"), str) for s in seats):
        raise BadRecordFile("file/seats", 'seats must be a non-empty list of {"name": ...}')
    mode = document.get("mode")
    if mode not in MODES:
        raise BadRecordFile("file/mode", f"mode must be one of {list(MODES)}", given=mode)
    options = document.get("options", {})
    chance = document.get("chance") or {}
    entries = document.get("entries")
    if not isinstance(options, Mapping) or not isinstance(chance, Mapping):
        raise BadRecordFile("file/options", "options and chance must be objects")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, Mapping) for e in entries):
        raise BadRecordFile("file/entries", "entries must be a non-empty list of objects, the setup first")
    header = Header(
        title=title,
        edition={"id": edition["id"], "content_hash": edition["content_hash"]},
        edition_file=edition.get("file"),
        seats=[s["name"] for s in seats],
        options=dict(options),
        mode=mode,
        commitment=chance.get("commitment"),
        seed=chance.get("seed"),
    )
    return header, [dict(e) for e in entries]


def export(meta: Any, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The file of a finished record (`meta` is a timeline.Meta)."""
    edition: dict[str, Any] = dict(meta.edition)
    if meta.edition_file is not None:
        edition["file"] = meta.edition_file
    chance: dict[str, Any] = {}
    if meta.mode == "live":
        chance = {"commitment": meta.commitment, "seed": meta.revealed_seed, "derivation": "entry k: SeededChance(seed + '/' + k)"}
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": meta.title,
        "edition": edition,
        "seats": [{"name": n} for n in meta.seats],
        "options": meta.options,
        "mode": meta.mode,
        "chance": chance,
        "entries": entries,
        "finished": meta.finished,
        "scores": meta.scores,
    }


@dataclass
class Verdict:
    report: dict[str, Any]
    entries: list[Entry] | None = None  # the accepted log, events filled in by the rules

    @property
    def ok(self) -> bool:
        return bool(self.report["ok"])


def _rejected(rule: str, message: str, entry: int | None = None, event: int | None = None, **facts: Any) -> Verdict:
    return Verdict({"ok": False, "entry_index": entry, "event_index": event, "rule": rule, "message": message, "facts": facts})


def check(header: Header, raw_entries: list[dict[str, Any]], edition_for: Callable[[str, dict[str, str], str | None], Edition]) -> Verdict:
    """Re-decide the whole log with observed chance; the first thing wrong is the verdict."""
    verdict = _judge(header, raw_entries, edition_for)
    if verdict.ok and verdict.entries is not None:
        empty = next((k for k, entry in enumerate(verdict.entries) if not entry.events), None)
        if empty is not None:  # a record keeps an entry's command on its first game event: none, no place
            return _rejected("log/no-events", f"entry {empty} causes no game event; a record cannot store it", entry=empty)
    return verdict


def _judge(header: Header, raw_entries: list[dict[str, Any]], edition_for: Callable[[str, dict[str, str], str | None], Edition]) -> Verdict:
    try:
        game = catalog.game(header.title)
    except (KeyError, ImportError, AttributeError):
        return _rejected("file/title", f"this service has no rules engine for {header.title!r}")
    low, high = game.seats
    if not low <= len(header.seats) <= high:
        return _rejected("file/seats", f"{header.title} seats {low} to {high}, the file names {len(header.seats)}")
    try:
        edition = edition_for(header.title, header.edition, header.edition_file)
    except EditionError as exc:
        return _rejected("file/edition", str(exc), edition=header.edition)
    try:
        entries = [Entry.from_json(e) for e in raw_entries]
    except (UnknownEventType, ValueError, TypeError, KeyError) as exc:
        return _rejected("file/entries", f"an entry cannot be read: {exc}")
    if entries[0].options is None or dict(entries[0].options) != header.options:
        return _rejected("file/setup", "the first entry must be the setup, with the header's options", entry=0)
    if header.mode == "live" and header.seed is not None and header.commitment != commitment(str(header.seed)):
        return _rejected("chance/commitment", "the revealed seed does not match the commitment published at the start",
                         commitment=header.commitment, sha256_of_seed=commitment(str(header.seed)))
    report, _ = replay(game, edition, entries)
    if not report.ok:
        return Verdict(
            {"ok": False, "entry_index": report.entry_index, "event_index": report.event_index,
             "rule": report.rule, "message": report.message, "facts": report.facts}
        )
    seed = str(header.seed) if header.mode == "live" and header.seed is not None else None
    if seed is None and all(entry.events for entry in entries):
        return Verdict({"ok": True, "entries": report.entries, "events": report.events}, entries)
    accepted, wrong = _second_pass(game, edition, entries, seed)
    if wrong is not None:
        return _rejected("chance/not-from-seed", "this outcome is not the one the revealed seed gives", entry=wrong,
                         given=[o.to_json() for o in entries[wrong].outcomes])
    return Verdict({"ok": True, "entries": report.entries, "events": report.events}, accepted)


def _second_pass(game: Game, edition: Edition, entries: list[Entry], seed: str | None) -> tuple[list[Entry], int | None]:
    """Fill in events a file may omit and, for a live record with its seed revealed, check that
    every outcome is the one the seed gives (re-deciding entry k with SeededChance(seed/k))."""
    state = game.begin(edition)
    out = []
    for index, entry in enumerate(entries):
        chance: Any = live_chance(seed, index) if seed is not None else ObservedChance(entry.outcomes)
        if index == 0:
            produced = game.setup(edition, entry.options or {}, chance)
        else:
            produced = game.decide(state, game.parse_command(entry.command or {}), chance)
        if seed is not None and tuple(chance.log) != tuple(entry.outcomes):
            return out, index
        for e in produced:
            state = game.evolve(state, e)
        out.append(Entry(entry.command, entry.outcomes, tuple(produced), entry.options))
    return out, None

