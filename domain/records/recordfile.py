"""The record file (docs/formats/record-json.md): a header and the kernel's log entries.

`export` writes what a record holds; `check` re-decides a file's log through the rules
with observed chance and says whether it is acceptable, so `import(export(r))` gives back
`r` event for event.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain import catalog
from domain.kernel import Edition, EditionError, Entry, Game, SeededChance, commitment, replay
from domain.kernel.events import UnknownEventType
from domain.records.aggregates import MODES
from domain.records.settings import Limits

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
    claims: dict[str, Any] = field(default_factory=dict)  # what the file says of its end: finished, scores


class FileTooLarge(BadRecordFile):
    """A file beyond the size limit: 413 at the HTTP edge, where every other bad file is 422."""


def parse(document: Any, limits: Limits | None = None) -> tuple[Header, list[dict[str, Any]]]:
    """Shape checks and limits only; the rules judge the entries later.

    It runs at submit, before anything is stored, so it is bounded by the file's size and
    never runs a rule. A file that claims more than `limits` (seats, entries, bytes, nesting)
    is refused here: written as one record, it would hold the event store for minutes.
    """
    if not isinstance(document, Mapping):
        raise BadRecordFile("file/not-an-object", "a record file is a JSON object")
    _within(document, limits or Limits())
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise BadRecordFile(
            "file/format", f'expected "format": "{FORMAT}" and "version": {VERSION}',
            format=document.get("format"), version=document.get("version"),
        )
    title = document.get("title")
    if not isinstance(title, str) or title not in catalog.TITLES:
        raise BadRecordFile("file/title", f"unknown title {title!r}", known=sorted(catalog.TITLES))
    edition = document.get("edition")
    if not isinstance(edition, Mapping) or not isinstance(edition.get("id"), str) or not isinstance(edition.get("content_hash"), str):
        raise BadRecordFile("file/edition", "edition must be an object with id and content_hash")
    if edition.get("file") is not None and not isinstance(edition["file"], str):
        raise BadRecordFile("file/edition", "edition.file, when given, is the edition's YAML text as a string",
                            field="edition.file", given=json_type(edition["file"]))
    seats = document.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, Mapping) and isinstance(s.get("name"), str) for s in seats):
        raise BadRecordFile("file/seats", 'seats must be a non-empty list of {"name": ...}')
    _seats_of_title(title, len(seats))
    mode = document.get("mode")
    if not isinstance(mode, str) or mode not in MODES:
        raise BadRecordFile("file/mode", f"mode must be one of {list(MODES)}", given=mode)
    options = document.get("options", {})
    chance = document.get("chance") or {}
    entries = document.get("entries")
    if not isinstance(options, Mapping) or not isinstance(chance, Mapping):
        raise BadRecordFile("file/options", "options and chance must be objects")
    for key in ("seed", "commitment"):
        if chance.get(key) is not None and not isinstance(chance[key], str):
            raise BadRecordFile("file/chance", f"chance.{key} must be a string", field=f"chance.{key}",
                                given=json_type(chance[key]))
    if not isinstance(entries, list) or not entries:
        raise BadRecordFile("file/entries", "entries must be a non-empty list of objects, the setup first")
    for index, raw in enumerate(entries):  # each an object of the right shape, or the entry and field that is not
        _shape(index, raw)
    players = options.get("players", len(seats))
    if players != len(seats):
        raise BadRecordFile("file/seats", f"options.players is {players!r} but the file names {len(seats)} seats; "
                            "name one seat per player", seats=len(seats), players=players)
    if mode != "live" and (chance.get("seed") is not None or chance.get("commitment") is not None):
        raise BadRecordFile("file/chance", "a transcribed file's outcomes are the table's: it carries no seed or commitment",
                            mode=mode)
    if document.get("finished") is not None and not isinstance(document["finished"], bool):
        raise BadRecordFile("file/claims", "finished, when given, is true or false", field="finished",
                            given=json_type(document["finished"]))
    if document.get("scores") is not None and not isinstance(document["scores"], Mapping):
        raise BadRecordFile("file/claims", "scores, when given, is an object (as an export writes it)", field="scores",
                            given=json_type(document["scores"]))
    claimed = (document.get("scores") or {}).get("seats")
    for k, seat in enumerate(claimed if isinstance(claimed, list) else []):
        path, value = (f"scores.seats.{k}.seat", seat.get("seat")) if isinstance(seat, Mapping) else (f"scores.seats.{k}", seat)
        if not isinstance(seat, Mapping) or not isinstance(value, int | None):
            raise BadRecordFile("file/claims", f"`{path}` must be {'a seat number' if isinstance(seat, Mapping) else 'an object'}, "
                                f"not {json_type(value)}", field=path, given=json_type(value))
    claims = {key: document[key] for key in ("finished", "scores") if document.get(key) is not None}
    header = Header(
        title=title,
        edition={"id": edition["id"], "content_hash": edition["content_hash"]},
        edition_file=edition.get("file"),
        seats=[s["name"] for s in seats],
        options=dict(options),
        mode=mode,
        commitment=chance.get("commitment"),
        seed=chance.get("seed"),
        claims=claims,
    )
    return header, [dict(e) for e in entries]


def json_type(value: Any) -> str:
    """A value's type as JSON names it, for findings."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def _over(limit: str, value: int, limits: Limits, what: str, cls: type[BadRecordFile] = BadRecordFile) -> BadRecordFile:
    allowed = getattr(limits, limit)
    setting = Limits.ENV[limit]
    return cls("file/limit", f"{what} ({value}) is more than this service accepts ({allowed}, {setting})",
               limit=setting, allowed=allowed, value=value)


def _within(document: Mapping[str, Any], limits: Limits) -> None:
    """The file's claims against the limits, cheapest first and before anything walks the whole file."""
    seats, entries = document.get("seats"), document.get("entries")
    if isinstance(seats, list) and len(seats) > limits.max_seats:
        raise _over("max_seats", len(seats), limits, "the number of seats")
    if isinstance(entries, list) and len(entries) > limits.max_entries:
        raise _over("max_entries", len(entries), limits, "the number of log entries")
    depth = nesting(document, limits.max_depth)
    if depth > limits.max_depth:
        raise _over("max_depth", depth, limits, "the file's nesting of lists and objects")
    size = len(json.dumps(document, separators=(",", ":")))
    if size > limits.max_bytes:
        raise _over("max_bytes", size, limits, "the file's size in bytes", FileTooLarge)


def nesting(document: Any, stop: int) -> int:
    """How deeply lists and objects nest (the file itself is 1), level by level without recursion;
    at most stop + 1. A parsed JSON file holds only dicts and lists (anything else cannot be stored)."""
    level, depth = [document], 0
    while level:
        depth += 1
        if depth > stop:
            return depth
        below = []
        for node in level:
            for child in node.values() if type(node) is dict else node:
                kind = type(child)
                if kind is dict or kind is list:
                    below.append(child)
        level = below
    return depth


def _seats_of_title(title: str, seats: int) -> None:
    """The title's own seat range, refused at submit (a title whose engine is missing is the job's to judge)."""
    try:
        low, high = catalog.game(title).seats
    except Exception:  # noqa: BLE001  (no engine: the job rejects it with file/title)
        return
    if not low <= seats <= high:
        raise BadRecordFile("file/seats", f"{title} is played by {low} to {high} seats, the file names {seats}",
                            seats=seats, low=low, high=high)


_SCALAR = str | int | float | None


def _entry_problem(raw: Mapping[str, Any]) -> tuple[str, str, Any] | None:
    """The first field of an entry whose value has the wrong shape: (field path, what it must be, the value)."""
    for key in ("command", "setup"):
        if raw.get(key) is not None and not isinstance(raw[key], Mapping):
            return key, "an object", raw[key]
    command = raw.get("command")
    if command is not None and not isinstance(command.get("type"), str):
        return "command.type", "a string", command.get("type")
    for key in ("outcomes", "events"):
        if key in raw and not isinstance(raw[key], list):
            return key, "a list", raw[key]
    for k, outcome in enumerate(raw.get("outcomes", [])):
        if not isinstance(outcome, Mapping):
            return f"outcomes.{k}", "an object", outcome
        for key in ("kind", "source"):
            if not isinstance(outcome.get(key), str):
                return f"outcomes.{k}.{key}", "a string", outcome.get(key)
        values = outcome.get("values")
        if not isinstance(values, list):
            return f"outcomes.{k}.values", "a list", values
        for j, value in enumerate(values):
            if not isinstance(value, _SCALAR):
                return f"outcomes.{k}.values.{j}", "a string, number, boolean or null", value
    for k, event in enumerate(raw.get("events", [])):
        if not isinstance(event, Mapping):
            return f"events.{k}", "an object", event
        if not isinstance(event.get("type"), str):
            return f"events.{k}.type", "a string", event.get("type")
        if "data" in event and not isinstance(event["data"], Mapping):
            return f"events.{k}.data", "an object", event["data"]
    return None


def _shape(index: int, raw: Any) -> None:
    if not isinstance(raw, Mapping):
        raise BadRecordFile("file/entries", f"entry {index} must be an object, not {json_type(raw)}", entry=index,
                            given=json_type(raw))
    problem = _entry_problem(raw)
    if problem is not None:
        path, must, value = problem
        raise BadRecordFile("file/entries", f"entry {index}: `{path}` must be {must}, not {json_type(value)}",
                            entry=index, field=path, given=json_type(value))


def read_entries(raw_entries: list[Any]) -> list[Entry]:
    """The file's entries as the kernel's log; the first one that cannot be read is a `file/entries`
    finding naming the entry and, where its shape is wrong, the field. (`parse` checks the shapes
    only: the event types are the title's, known once its engine is loaded.)"""
    entries = []
    for index, raw in enumerate(raw_entries):
        _shape(index, raw)
        try:
            entries.append(Entry.from_json(raw))
        except (UnknownEventType, ValueError, TypeError, KeyError) as exc:
            raise BadRecordFile("file/entries", f"entry {index} cannot be read: {exc}", entry=index) from exc
    return entries


def refused(exc: BadRecordFile) -> Verdict:
    """A file `parse` refuses, as the job's verdict (one stored before a check existed, or under other limits)."""
    return _rejected(exc.rule, exc.message, **exc.facts)


def internal_error(error_id: str) -> Verdict:
    """The verdict when judging a file failed in the service itself: the error id the operator finds in the
    log beside the traceback, and nothing of the failure (no traceback, no secret)."""
    return _rejected("import/internal-error", f"the service failed while judging this file (error {error_id}); "
                     "the file was not imported. Tell the operator this error id; they can trace it in the service's log",
                     error_id=error_id)


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
    """Re-decide the whole log (observed chance, or the revealed seed's); the first thing wrong is the verdict."""
    verdict = _judge(header, raw_entries, edition_for)
    if verdict.ok and verdict.entries is not None:
        empty = next((k for k, entry in enumerate(verdict.entries) if not entry.events), None)
        if empty is not None:  # a record keeps an entry's command on its first game event: none, no place
            verdict = _rejected("log/no-events", f"entry {empty} causes no game event; a record cannot store it", entry=empty)
    # Who may read the report's secrets (application.import_status): a file that says its game is
    # over is a finished game's record, whose every secret its holder already has; one in progress
    # shows them only to their seats.
    verdict.report["file_says_finished"] = bool(header.claims.get("finished"))
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
        entries = read_entries(raw_entries)
    except BadRecordFile as exc:
        return _rejected(exc.rule, exc.message, **exc.facts)
    if entries[0].options is None or dict(entries[0].options) != header.options:
        return _rejected("file/setup", "the first entry must be the setup, with the header's options", entry=0)
    if header.mode == "live" and header.seed is not None and header.commitment != commitment(str(header.seed)):
        return _rejected("chance/commitment", "the revealed seed does not match the commitment published at the start",
                         commitment=header.commitment, sha256_of_seed=commitment(str(header.seed)))
    seed = str(header.seed) if header.mode == "live" and header.seed is not None else None
    accepted: list[Entry] = []
    report, state = replay(game, edition, entries, seeded=(lambda k: live_chance(seed, k)) if seed else None,
                           accepted=accepted)
    if not report.ok:
        return Verdict(
            {"ok": False, "entry_index": report.entry_index, "event_index": report.event_index,
             "rule": report.rule, "message": report.message, "facts": report.facts}
        )
    wrong = _claims(game, state, header.claims, len(entries))
    if wrong is not None:
        return wrong
    over = game.pending(state).over
    found: dict[str, Any] = {"ok": True, "entries": report.entries, "events": report.events, "finished": over}
    if header.mode == "live" and not over:
        found["note"] = ("a live record's log cut before its end is imported as transcribed: its seed is known to "
                         "whoever holds the file, so the rest of the game takes the table's outcomes")
    return Verdict(found, accepted)


def _claims(game: Game, state: Any, claims: Mapping[str, Any], entries: int) -> Verdict | None:
    """What the file says of its end (finished, scores) against what its log gives."""
    over = game.pending(state).over
    if "finished" in claims and bool(claims["finished"]) != over:
        pending = game.pending(state)
        said = "finished" if claims["finished"] else "in progress"
        gives = "is over" if over else f"stops with seat {pending.seat} to decide ({pending.kind})"
        return _rejected("file/claims", f"the file says the game is {said}, but its log {gives} after entry {entries - 1}",
                         entry=entries - 1, claimed_finished=bool(claims["finished"]), log_finished=over)
    if over and "scores" in claims:
        computed = game.scores(state)
        differs = _score_differences(claims["scores"], computed)
        if differs:
            return _rejected("file/claims", "the file's scores are not those its log gives: "
                             + "; ".join(f"seat {d['seat']}: the file says {d['claimed']}, the log gives {d['computed']}" for d in differs),
                             entry=entries - 1, seats=differs)
    return None


def _score_differences(claimed: Any, computed: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Seat by seat, the totals that differ (a whole score table that differs in shape counts as one)."""
    def totals(scores: Any) -> dict[Any, Any]:
        seats = scores.get("seats") if isinstance(scores, Mapping) else None
        if not isinstance(seats, list):
            return {}
        return {str(s.get("seat")): s.get("total") for s in seats if isinstance(s, Mapping)}  # str: any JSON is a key

    mine, theirs = totals(computed), totals(claimed)
    if not theirs:
        return [] if claimed == computed else [{"seat": None, "claimed": claimed, "computed": computed}]
    return [{"seat": int(seat) if seat.isdigit() else seat, "claimed": theirs.get(seat), "computed": total}
            for seat, total in mine.items() if theirs.get(seat) != total]
