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
from domain.kernel.log import JSON_SCALARS, is_object
from domain.kernel.notation import seat_names_problem
from domain.records import dice
from domain.records.aggregates import MODES
from domain.records.chain import key_commitment, record_key
from domain.records.settings import Limits
from domain.records.takebacks import BadTakeBack, history

FORMAT = "cronaca-record"
VERSION = 1


def entry_seed(seed: str, index: int) -> str:
    """The seed of log entry `index` of a live record (0 is the setup)."""
    return f"{seed}/{index}"


def live_chance(seed: str, index: int) -> SeededChance:
    return SeededChance(entry_seed(seed, index))


class BadRecordFile(ValueError):  # noqa: N818  (named for what the file is, as the docs and answers say)
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
    # Teaching kept with the game (issue 14): notes and what-if lines, attached after the record is accepted
    # (domain/records/lessonfile.py); shapes checked here, the rules and the notes' own checks judge them there.
    annotations: list[dict[str, Any]] = field(default_factory=list)
    variations: list[dict[str, Any]] = field(default_factory=list)
    # Shared dice (docs/trust.md): {"dice": "shared", "seats": [{"seat", "commitment", "secret"?, "contributions"}]};
    # None: the service's seed alone (or a transcribed file).
    shared: dict[str, Any] | None = None
    # The chain key the file reveals (`chance.chain_key`, the one its `chain_commitment` promised; chain.record_key):
    # a finished file's record is stored under it again, so its export gives back the same links. None: none revealed.
    chain_key: str | None = None
    # The file's nesting of lists and objects as `parse` measured it (None: not measured, STORED limits):
    # kept with an import (`Import.depth`), so its job need not walk the file again.
    depth: int | None = None
    # The file as compact JSON, when `parse` made it to measure the file's size: what an import stores, so that
    # submit does not encode a 36-86 KB file a second time (None when the caller gave the size).
    compact: str | None = field(default=None, repr=False, compare=False)
    # The entries taken back (issue 31), oldest first: {"entry", "by", "consents", "log"}, shapes checked (`read_withdrawn`);
    # `check` re-decides each where it was entered (takebacks.history), and an import stores them back in that order.
    withdrawn: list[dict[str, Any]] = field(default_factory=list)


class FileTooLarge(BadRecordFile):
    """A file beyond the size limit: 413 at the HTTP edge, where every other bad file is 422."""


STORED = Limits(max_bytes=2**62, max_seats=2**31, max_entries=2**62, max_depth=2**31)
"""The limits of a file rebuilt from a record's own stored rows (`/verify`): stored, not uploaded, so none;
`parse` then skips measuring it (the walk and the size's json.dumps were a tenth of verifying a long record)."""


def parse(document: Any, limits: Limits | None = None, size: int | None = None,
          depth: int | None = None) -> tuple[Header, list[dict[str, Any]]]:
    """Shape checks and limits only; the rules judge the entries later.

    It runs at submit, before anything is stored, so it is bounded by the file's size and
    never runs a rule. A file that claims more than `limits` (seats, entries, bytes, nesting)
    is refused here: written as one record, it would hold the event store for minutes.
    `size` is the file's length as compact JSON when the caller has it (an import stores its file so):
    then the file is not encoded again only to be measured. `depth` is the file's nesting as this
    function measured it at submit (`Header.depth`, kept as `Import.depth`): the file is not walked again,
    and its entries' shapes, which that call checked, are not checked again; the limits still are.
    """
    if not isinstance(document, Mapping):
        raise BadRecordFile("file/not-an-object", "a record file is a JSON object")
    measured, compact = (None, None) if limits is STORED else _within(document, limits or Limits(), size, depth)
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
    named = seat_names_problem([s["name"] for s in seats]) if limits is not STORED else None
    if named is not None:  # a name its notation (and so its evidence bundle) could not carry; stored records are as they were
        raise BadRecordFile("file/seats", f"seats[{named[0]}].name: {named[1]}", field=f"seats[{named[0]}].name")
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
    if depth is None:  # (a depth measured at submit: this function checked the shapes then)
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
    shared = read_shared(chance, mode, len(seats))
    try:
        chain_key = record_key(document) if chance.get("chain_key") is not None else None
    except ValueError as exc:
        raise BadRecordFile("file/chance", str(exc), field="chance.chain_key") from exc
    variations = read_variations(document.get("variations"), limits or Limits())
    annotations = read_annotations(document.get("annotations"), {v["ref"] for v in variations})
    withdrawn = read_withdrawn(document.get("withdrawn"))
    header = Header(
        title=title,
        edition={"id": edition["id"], "content_hash": edition["content_hash"]},
        edition_file=edition.get("file"),
        seats=[s["name"] for s in seats],
        options=dict(options),
        mode=mode,
        commitment=chance.get("commitment"),
        seed=chance.get("seed"),
        chain_key=chain_key,
        claims=claims,
        annotations=annotations,
        variations=variations,
        shared=shared,
        depth=measured,
        compact=compact,
        withdrawn=withdrawn,
    )
    return header, [dict(e) for e in entries]


TAKEN_BACK_BY = ("table", "seats")  # table.TABLE_BY, table.SEATS_BY: who took an entry back


def read_withdrawn(found: Any) -> list[dict[str, Any]]:
    """The file's `withdrawn` (entries taken back, oldest first), shapes only: each entry's index, who took it back
    and the entry itself (`log`, as `entries` writes one); takebacks.history re-decides them. Where it was stored (`row`,
    `first_step`, `steps`) follows from the order, so it is not read."""
    if found is None:
        return []
    if not isinstance(found, list):
        raise BadRecordFile("file/withdrawn", f"withdrawn, when given, is a list, not {json_type(found)}", field="withdrawn")
    out = []
    for k, item in enumerate(found):
        where = f"withdrawn[{k}]"
        index = item.get("entry") if isinstance(item, Mapping) else None
        if not isinstance(item, Mapping) or not isinstance(index, int) or isinstance(index, bool) or index < 1:
            raise BadRecordFile("file/withdrawn", f"{where}.entry must be the index of the entry taken back (1 or more: "
                                "the setup is never taken back)", field=f"{where}.entry")
        consents = item.get("consents") or []
        if item.get("by") not in TAKEN_BACK_BY or not isinstance(consents, list) or not all(
                isinstance(c, int) and not isinstance(c, bool) for c in consents):
            raise BadRecordFile("file/withdrawn", f"{where}: `by` is one of {list(TAKEN_BACK_BY)} and `consents` a list "
                                "of seat numbers", field=where)
        try:
            _shape(index, item.get("log"))
        except BadRecordFile as exc:
            raise BadRecordFile("file/withdrawn", f"{where}.log: {exc.message}", field=f"{where}.log") from exc
        out.append({"entry": index, "by": item["by"], "consents": list(consents), "log": dict(item["log"])})
    return out


def read_shared(chance: Mapping[str, Any], mode: str, seats: int) -> dict[str, Any] | None:
    """The file's shared dice (`chance.dice` and `chance.seats`), shapes only; `check` judges the reveals."""
    if chance.get("dice") is None and chance.get("seats") is None:
        return None
    if chance.get("dice") != dice.SHARED:
        raise BadRecordFile("file/chance", f'chance.dice is "{dice.SHARED}" or left out', field="chance.dice",
                            given=json_type(chance.get("dice")))
    if mode != "live":
        raise BadRecordFile("file/chance", "shared dice belong to a live record; this file is transcribed", mode=mode)
    found = chance.get("seats")
    if not isinstance(found, list) or len(found) != seats:
        raise BadRecordFile("file/chance", f"chance.seats must list the {seats} seats' commitments, in seat order",
                            field="chance.seats")
    out = []
    for k, seat in enumerate(found):
        where = f"chance.seats.{k}"
        if not isinstance(seat, Mapping) or seat.get("seat") != k:
            raise BadRecordFile("file/chance", f"{where} must be an object with \"seat\": {k}", field=where)
        if not dice.is_hex64(seat.get("commitment")):
            raise BadRecordFile("file/chance", f"{where}.commitment must be 64 lower-case hex digits", field=f"{where}.commitment")
        if seat.get("secret") is not None and not isinstance(seat["secret"], str):
            raise BadRecordFile("file/chance", f"{where}.secret must be a string", field=f"{where}.secret")
        contributions = seat.get("contributions")
        if not isinstance(contributions, Mapping) or not all(
                isinstance(key, str) and key.isdigit() and dice.is_hex64(value) for key, value in contributions.items()):
            raise BadRecordFile("file/chance", f"{where}.contributions must map entry numbers to 64 hex digits",
                                field=f"{where}.contributions")
        out.append({"seat": k, "commitment": seat["commitment"], "contributions": dict(contributions),
                    **({"secret": seat["secret"]} if seat.get("secret") is not None else {})})
    return {"dice": dice.SHARED, "seats": out}


MAX_ANNOTATIONS = 10_000  # notes one file may carry (the viewer's benchmark record holds 500)
MAX_VARIATIONS = 500  # what-if lines one file may carry
MAX_NOTE_FIELD = 8_000  # the longest note text the service keeps (annotations.py: "annotation/too-long")
MAX_SHAPES = 64  # shapes on one note (annotations.py)


def _extras_list(raw: Any, key: str, most: int, what: str) -> list[Any]:
    """The file's list `key` of extras (left out: none), at most `most` of them: one reading for notes and variations."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BadRecordFile(f"file/{key}", f"{key} must be a list, not {json_type(raw)}", given=json_type(raw))
    if len(raw) > most:
        raise BadRecordFile("file/limit", f"the file carries {len(raw)} {what}; this service takes at most {most}",
                            allowed=most, value=len(raw))
    return raw


def read_variations(raw: Any, limits: Limits) -> list[dict[str, Any]]:
    """The file's what-if lines (`"variations"`), parents named before they are used, no cycles.

    Each line's entries are commands only (a variation has no setup), shaped as the main log's;
    together they count against the same entry limit, since each is re-decided by the rules."""
    raw = _extras_list(raw, "variations", MAX_VARIATIONS, "variations")
    found: list[dict[str, Any]] = []
    refs: dict[str, int] = {}
    total = 0
    for k, line in enumerate(raw):
        def bad(message: str, k: int = k, **facts: Any) -> BadRecordFile:
            return BadRecordFile("file/variations", f"variation {k}: {message}", variation=k, **facts)

        if not isinstance(line, Mapping):
            raise bad(f"must be an object, not {json_type(line)}")
        ref = line.get("ref")
        if not isinstance(ref, str) or not ref or len(ref) > 80:
            raise bad("`ref` must be a non-empty string of at most 80 characters (the notes and chapters name it)",
                      field="ref", given=json_type(ref))
        if ref in refs:
            raise bad(f"`ref` {ref!r} is also variation {refs[ref]}'s", field="ref", ref=ref)
        refs[ref] = k
        for key, kinds, must in (("parent", str | None, "a variation's ref or null"), ("title", str | None, "a string"),
                                 ("author", str | None, "a string"), ("seed", str | None, "a string or null")):
            if not isinstance(line.get(key), kinds):
                raise bad(f"`{key}` must be {must}, not {json_type(line.get(key))}", field=key, ref=ref)
        step = line.get("from_step")
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise bad(f"`from_step` must be a step number (0 or more), not {json_type(step)}", field="from_step", ref=ref)
        entries = line.get("entries", [])
        if not isinstance(entries, list):
            raise bad(f"`entries` must be a list, not {json_type(entries)}", field="entries", ref=ref)
        total += len(entries)
        if total > limits.max_entries:
            raise _over("max_entries", total, limits, "the number of log entries of the variations")
        for index, entry in enumerate(entries):
            if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), Mapping):
                raise bad(f"entry {index} must be an object with a `command` object (a variation has no setup)",
                          ref=ref, entry=index)
            if entry.get("chance") not in (None, "author", "drawn"):
                raise bad(f'entry {index}: `chance` is "author" or "drawn"', ref=ref, entry=index, field="chance")
            problem = _entry_problem(entry)
            if problem is not None:
                path, must, value = problem
                raise bad(f"entry {index}: `{path}` must be {must}, not {json_type(value)}", ref=ref, entry=index,
                          field=path, given=json_type(value))
        found.append({**line, "title": line.get("title") or "", "author": line.get("author") or "",
                      "entries": [dict(e) for e in entries]})
    for k, line in enumerate(found):  # every parent is a line of this file, and following parents ends at the main line
        seen, parent = {line["ref"]}, line.get("parent")
        while parent is not None:
            if parent not in refs:
                raise BadRecordFile("file/variations", f"variation {k} ({line['ref']}): its parent {parent!r} is no "
                                    "variation of this file", variation=k, ref=line["ref"], parent=parent)
            if parent in seen:
                raise BadRecordFile("file/variations", f"variation {k} ({line['ref']}): its parents go round in a circle",
                                    variation=k, ref=line["ref"])
            seen.add(parent)
            parent = found[refs[parent]].get("parent")
    return found


def read_annotations(raw: Any, lines: set[str]) -> list[dict[str, Any]]:
    """The file's notes (`"annotations"`): each on the main line (`line` null) or a variation of this file.
    Their text, places and glyphs are the notes service's to judge (annotations.py), against the board."""
    raw = _extras_list(raw, "annotations", MAX_ANNOTATIONS, "notes")
    found: list[dict[str, Any]] = []
    for k, note in enumerate(raw):
        def bad(message: str, k: int = k, **facts: Any) -> BadRecordFile:
            return BadRecordFile("file/annotations", f"note {k}: {message}", note=k, **facts)

        if not isinstance(note, Mapping):
            raise bad(f"must be an object, not {json_type(note)}")
        step = note.get("step")
        if not isinstance(step, int) or isinstance(step, bool) or step < 0:
            raise bad(f"`step` must be a step number (0 or more), not {json_type(step)}", field="step")
        line = note.get("line")
        if line is not None and line not in lines:
            raise bad(f"`line` {line!r} is no variation of this file (null is the main line)", field="line", line=line)
        audience = note.get("audience")
        if audience is not None and (not isinstance(audience, int) or isinstance(audience, bool)):
            raise bad(f"`audience` must be a seat number or null, not {json_type(audience)}", field="audience")
        for key in ("id", "text", "author", "glyph"):
            if not isinstance(note.get(key), str | None):
                raise bad(f"`{key}` must be a string, not {json_type(note.get(key))}", field=key)
        if len(note.get("text") or "") > MAX_NOTE_FIELD:
            raise FileTooLarge("annotation/too-long", f"note {k}: its text is {len(note['text']):,} characters; a note "
                               f"holds at most {MAX_NOTE_FIELD:,}", note=k, field="text", allowed=MAX_NOTE_FIELD)
        shapes = note.get("shapes", [])
        if not isinstance(shapes, list) or len(shapes) > MAX_SHAPES or not all(isinstance(s, Mapping) for s in shapes):
            raise bad(f"`shapes` must be a list of at most {MAX_SHAPES} objects", field="shapes")
        found.append(dict(note))
    return found


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


def _within(document: Mapping[str, Any], limits: Limits, size: int | None = None,
            depth: int | None = None) -> tuple[int, str | None]:
    """The file's claims against the limits, cheapest first and before anything walks the whole file (not at all
    when its `depth` is known); its nesting, and its compact JSON when that was made to measure its size."""
    seats, entries = document.get("seats"), document.get("entries")
    if isinstance(seats, list) and len(seats) > limits.max_seats:
        raise _over("max_seats", len(seats), limits, "the number of seats")
    if isinstance(entries, list) and len(entries) > limits.max_entries:
        raise _over("max_entries", len(entries), limits, "the number of log entries")
    if depth is None:
        depth = nesting(document, limits.max_depth)
    if depth > limits.max_depth:
        raise _over("max_depth", depth, limits, "the file's nesting of lists and objects")
    compact = None
    if size is None:
        compact = json.dumps(document, separators=(",", ":"))
        size = len(compact)
    if size > limits.max_bytes:
        raise _over("max_bytes", size, limits, "the file's size in bytes", FileTooLarge)
    return depth, compact


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
        if raw.get(key) is not None and not is_object(raw[key]):
            return key, "an object", raw[key]
    command = raw.get("command")
    if command is not None and not isinstance(command.get("type"), str):
        return "command.type", "a string", command.get("type")
    for key in ("outcomes", "events"):
        if key in raw and not isinstance(raw[key], list):
            return key, "a list", raw[key]
    for k, outcome in enumerate(raw.get("outcomes", [])):
        if not is_object(outcome):
            return f"outcomes.{k}", "an object", outcome
        for key in ("kind", "source"):
            if not isinstance(outcome.get(key), str):
                return f"outcomes.{k}.{key}", "a string", outcome.get(key)
        values = outcome.get("values")
        if not isinstance(values, list):
            return f"outcomes.{k}.values", "a list", values
        for j, value in enumerate(values):
            if type(value) not in JSON_SCALARS and not isinstance(value, _SCALAR):
                return f"outcomes.{k}.values.{j}", "a string, number, boolean or null", value
    for k, event in enumerate(raw.get("events", [])):
        if not is_object(event):
            return f"events.{k}", "an object", event
        if not isinstance(event.get("type"), str):
            return f"events.{k}.type", "a string", event.get("type")
        if "data" in event and not is_object(event["data"]):
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


def read_entries(raw_entries: list[Any], shaped: bool = False) -> list[Entry]:
    """The file's entries as the kernel's log; the first one that cannot be read is a `file/entries`
    finding naming the entry and, where its shape is wrong, the field. (`parse` checks the shapes
    only: the event types are the title's, known once its engine is loaded.) `shaped`: the entries
    are `parse`'s, their shapes checked there already (`_shape`), so `Entry.from_json` does not check them again."""
    entries = []
    for index, raw in enumerate(raw_entries):
        if not shaped:
            _shape(index, raw)
        try:
            entries.append(Entry.from_json(raw, checked=shaped))
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


def export(meta: Any, entries: list[dict[str, Any]], withdrawn: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The file of a finished record (`meta` is a timeline.Meta). `withdrawn`: the entries taken back (issue 31,
    timeline.Timeline.withdrawn), listed after the log as `withdrawn` (never replayed: the record's chain covers
    them, chain.record_items puts each back at its `row`)."""
    edition: dict[str, Any] = dict(meta.edition)
    if meta.edition_file is not None:
        edition["file"] = meta.edition_file
    chance: dict[str, Any] = {}
    if meta.mode == "live":
        chance = {"commitment": meta.commitment, "seed": meta.revealed_seed, "derivation": "entry k: SeededChance(seed + '/' + k)"}
        if getattr(meta, "dice", None) == dice.SHARED:
            chance.update(dice=dice.SHARED, derivation=dice.DERIVATION, seats=[
                {"seat": k, "commitment": promised, **({"secret": meta.secrets[k]} if meta.secrets[k] is not None else {}),
                 "contributions": dict(meta.contributions[k])} for k, promised in enumerate(meta.seat_commitments)])
    if getattr(meta, "chain_key", None) is not None:  # the chain's key, committed to and (the game over) revealed
        chance.update(chain_commitment=key_commitment(meta.chain_key), chain_key=meta.revealed_chain_key)
    entries = dice.mark_outcomes(entries, meta.mode)
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
        **({"withdrawn": [{**{k: w[k] for k in ("entry", "seat", "first_step", "steps", "row", "by", "consents", "at")},
                           "log": dice.mark_outcomes([w["log"]], meta.mode)[0]} for w in withdrawn]} if withdrawn else {}),
    }


@dataclass
class Verdict:
    report: dict[str, Any]
    entries: list[Entry] | None = None  # the accepted log, events filled in by the rules
    # (over, scores) where the rules' replay left the game: the record is built without folding its log again
    end: tuple[bool, dict[str, Any]] | None = None
    # each accepted entry's deciding seat (None for the setup), as the replay parsed its command
    seats: list[int | None] | None = None
    # a file with take-backs: the order its entries were entered and taken back in (`history`); None: the entries alone
    history: list[tuple[Entry | None, dict[str, Any] | None]] | None = None

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
        entries = read_entries(raw_entries, shaped=True)  # `check` takes the entries as `parse` gave them
    except BadRecordFile as exc:
        return _rejected(exc.rule, exc.message, **exc.facts)
    if entries[0].options is None or dict(entries[0].options) != header.options:
        return _rejected("file/setup", "the first entry must be the setup, with the header's options", entry=0)
    if header.mode == "live" and header.seed is not None and header.commitment != commitment(str(header.seed)):
        return _rejected("chance/commitment", "the revealed seed does not match the commitment published at the start",
                         commitment=header.commitment, sha256_of_seed=commitment(str(header.seed)))
    seed = str(header.seed) if header.mode == "live" and header.seed is not None else None
    seeded: Callable[[int], SeededChance] | None = (lambda k: live_chance(seed, k)) if seed else None
    if seed is not None and header.shared is not None:  # shared dice: the service's seed and the seats' contributions
        problems = dice.check_reveals(header.shared)
        unfit = next((p for p in problems if p["rule"] != "dice/unrevealed"), None)
        if unfit is not None:
            return _rejected(unfit["rule"], unfit["what"], entry=unfit["entry"], seat=unfit["seat"])
        seed_of = dice.seeds({**header.shared, "seed": seed})
        missing = next((k for k in range(len(entries)) if not dice.contributions_of(header.shared["seats"], k)), None)
        if missing is not None:
            return _rejected("dice/contribution-missing", f"entry {missing} has no seat's contribution in chance.seats",
                             entry=missing)
        seeded = lambda k: SeededChance(seed_of(k))  # noqa: E731
    accepted: list[Entry] = []
    seats: list[int | None] = []
    report, state = replay(game, edition, entries, seeded=seeded, accepted=accepted, seats=seats)
    if not report.ok:
        return Verdict(
            {"ok": False, "entry_index": report.entry_index, "event_index": report.event_index,
             "rule": report.rule, "message": report.message, "facts": report.facts}
        )
    wrong = _claims(game, state, header.claims, len(entries))
    if wrong is not None:
        return wrong
    over = game.pending(state).over
    try:
        order = history(game, edition, accepted, header.withdrawn, header.mode == "live") if header.withdrawn else None
    except BadTakeBack as exc:
        return _rejected("file/withdrawn", str(exc), **exc.facts)
    found: dict[str, Any] = {"ok": True, "entries": report.entries, "events": report.events, "finished": over}
    if header.mode == "live" and not over:
        found["note"] = ("a live record's log cut before its end is imported as transcribed: its seed is known to "
                         "whoever holds the file, so the rest of the game takes the table's outcomes")
    return Verdict(found, accepted, (over, game.scores(state)), seats, order)


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
