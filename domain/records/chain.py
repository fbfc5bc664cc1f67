"""Hash chains over stored streams: nobody can quietly change a stored event.

Every stored event of a chained stream carries `chain`, the SHA-256 of the previous
event's link and of its own canonical JSON (`link`); the last link (the head) stands for
the whole stream, so a record's header shows it and a verifier that holds the head, or
the file the stream was exported to, finds any changed, added or removed event.

A game record's chain is defined on what its record file carries (`record_items`), so
the same links are computed by the service as it writes, by `/verify` from the stored
rows, and by an offline verifier from an exported file alone:

- item 0, the start: ``{"started": {title, edition, seats, options, mode, commitment, dice?}}``
  (the edition's id and content hash, and its file's text when the record carries one;
  the seats by name; the commitment is null for a transcribed record; `dice` only when
  the seats share the chance, as the file's `chance.dice` says);
- one item per game event, step n (1-based: the state after it is step n):
  ``{"step": n, "event": <event json>, "entry": <entry head>}``, where the entry head is
  the log entry without its events (`outcomes` and `setup` or `command`, as the file writes
  it; each outcome with its `by`; a shared-dice contribution left to chance.seats) on an
  entry's first event and null on the others;
- the end, when the game is over: ``{"finished": {"seed", "scores"}}`` (the seed revealed,
  null for a transcribed record).

Other streams (notes, rulings, imports) chain each stored event's own fields
(`stream_item`).

Every link is keyed: HMAC-SHA256 under the stream's chain key, 32 random bytes drawn at its start,
committed to in its first item (`chain_commitment`, sha256 of the key's hex) and, for a record,
revealed in its end item as its seed is. So while a record is in progress its published head lets
nobody confirm a guess of a hidden value (a face-down disc, a drawn card): without the key no link
can be recomputed. A stream stored before chain keys has none: its links stay sha256, as they were.
Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import json.encoder
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from domain.kernel.events import Event, event_layout
from domain.kernel.frozen import thaw
from domain.records.dice import by_of

GENESIS = "0" * 64
"""The link before the first: every chain starts from it."""

OFF = ""
"""Passed as a new stream's `chain`: no chain at all (the write-path benchmark only, never in production)."""


def _refuse(obj: Any) -> Any:
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


# json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False) makes a new encoder on every call;
# its C encoder, made once, gives the same text at about half the cost (the write path hashes every event).
# (The C parts are not in typeshed's json.encoder: read by name.)
_MAKE_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_ENCODE_BASESTRING = getattr(json.encoder, "c_encode_basestring", None)
_C_ENCODER = (_MAKE_ENCODER(None, _refuse, _ENCODE_BASESTRING, None, ":", ",", True, False, True)
              if _MAKE_ENCODER is not None and _ENCODE_BASESTRING is not None else None)


def _text(obj: Any) -> str:
    """`canonical(obj)` before its UTF-8 encoding."""
    if _C_ENCODER is not None:
        return "".join(_C_ENCODER(obj, 0))
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(obj: Any) -> bytes:
    """The one byte form of a JSON value that everyone hashes:
    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()``."""
    return _text(obj).encode()


def key_commitment(key: str) -> str:
    """What a stream publishes of its chain key at the start: sha256 of the key's hex text, hex (as a seed's
    commitment is made)."""
    return hashlib.sha256(key.encode()).hexdigest()


def _digest(key: str | None, message: bytes) -> str:
    """A link's hash of `message`: HMAC-SHA256 under the stream's chain key (the 32 bytes its 64 hex digits
    spell), so nobody without the key can confirm a guess of a hidden value from a published link; a stream
    stored before chain keys (key None) keeps its unsalted sha256(message)."""
    if key is None:
        return hashlib.sha256(message).hexdigest()
    return hmac.digest(bytes.fromhex(key), message, "sha256").hex()


def link(previous: str, item: Mapping[str, Any] | bytes, key: str | None = None) -> str:
    """The link of `item` after `previous`: HMAC-SHA256(key, previous + "\\n" + canonical(item)), hex
    (sha256 of the same bytes with no key: a stream stored before chain keys). An item given as bytes is
    its canonical form already (`event_item_bytes`: no JSON value is bytes)."""
    return _digest(key, previous.encode() + b"\n" + (item if type(item) is bytes else canonical(item)))


# ---- a game record's items ----------------------------------------------------------------


def started_item(title: str, edition: Mapping[str, Any], edition_file: str | None, seats: Sequence[str],
                 options: Mapping[str, Any], mode: str, commitment: str | None, dice: str | None = None,
                 chain_commitment: str | None = None) -> dict[str, Any]:
    """Item 0 of a record: what its record file says of the game before the first event (`dice` only
    when the seats share the chance, `chain_commitment` only when the record has a chain key: a record
    without them keeps the shape it always had)."""
    shown: dict[str, Any] = {"id": edition.get("id"), "content_hash": edition.get("content_hash")}
    if edition_file is not None:
        shown["file"] = edition_file
    started = {"title": title, "edition": shown, "seats": list(seats), "options": dict(options), "mode": mode,
               "commitment": commitment}
    if dice is not None:
        started["dice"] = dice
    if chain_commitment is not None:
        started["chain_commitment"] = chain_commitment
    return {"started": started}


def event_item(step: int, event: Mapping[str, Any], entry: Mapping[str, Any] | None) -> dict[str, Any]:
    """Game event `step` (1-based); `entry` is its log entry's head on the entry's first event, else None."""
    return {"step": step, "event": event, "entry": entry}


# A game event's item is {"entry": head, "event": event, "step": n} (its keys already in order), so its canonical
# bytes are put together around the event's and the head's own: one canonical JSON and one SHA-256 a game event.
_EVENT_BODY = b'{"entry":%s,"event":%s,"step":%d}'
_EVENT_ITEM = b"%s\n" + _EVENT_BODY  # with the link before it: what is hashed


def event_item_bytes(step: int, event: Any, head: bytes, encode: Callable[[Any], bytes] | None = None) -> bytes:
    """`canonical(event_item(step, event, entry))` from the head's canonical bytes (b"null" on an entry's
    later events; `head_bytes` on its first): what `verify` hashes for each stored game event. `encode`:
    `quick` where a matching link is all that is asked."""
    return _EVENT_BODY % (head, (encode or canonical)(event), int(step))


def quick(obj: Any) -> bytes:
    """`canonical(obj)` by orjson, for checking stored links only (where it is used, faster: `/verify`'s chain part of
    a 5,000-event record took 26-33 ms with it against 38-45 with `canonical`, 11-29): the same bytes for what a
    stored row reads back as except for some floats (1e-7, not 1e-07; 0.00001, not 1e-05), NaN and Infinity (null).
    A link that matches these bytes matched the canonical ones (SHA-256 finds no other text with the same hash), so
    only a mismatch needs `canonical` to decide it."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: an integer past 64 bits, a key not a string
        return canonical(obj)


def event_link(previous: str, step: int, event: Mapping[str, Any], entry: Mapping[str, Any] | None,
               key: str | None = None) -> str:
    """`link(previous, event_item(step, event, entry), key)` (`entry` is already an entry head, or None)."""
    head = b"null" if entry is None else canonical(entry)
    return _digest(key, _EVENT_ITEM % (previous.encode(), head, canonical(event), int(step)))


def canonical_events(events: Sequence[Mapping[str, Any]]) -> list[bytes]:
    """`canonical(event)` of each game event: what its link hashes, and what the store writes (rows.py)."""
    encoder = _C_ENCODER
    if encoder is None:
        return [canonical(event) for event in events]
    join = "".join
    return [join(encoder(event, 0)).encode() for event in events]


def event_bytes(event: Event) -> bytes:
    """`canonical(event.to_json())` from the event itself, without its JSON object: what an import's record
    stores and hashes for each of the rules' own events (~400 a file), in a third of the time.
    Each event class gets its own encoder, made once (`_event_encoder`)."""
    encode = _EVENT_ENCODERS.get(type(event))
    if encode is None:
        encode = _EVENT_ENCODERS[type(event)] = _event_encoder(type(event))
    return encode(event)


_EVENT_ENCODERS: dict[type, Callable[[Event], bytes]] = {}


def _json_text(value: Any) -> str:
    """A field's value as `canonical` writes it (a frozen container thawed first)."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is int:
        return int.__repr__(value)
    return _text(thaw(value))


_string: Callable[[str], str] = _ENCODE_BASESTRING or json.encoder.py_encode_basestring
"""A string as `canonical` writes it (ensure_ascii off)."""


def _event_encoder(cls: type[Event]) -> Callable[[Event], bytes]:
    """An event class's canonical JSON as one format string, its fields in sorted order, like
    `{"data":{"a":%d,"b":%s},"type":"t"}`: a field declared `int` or `str` (most are) is put in directly
    when its value has exactly that type; any other value, or field, goes through `_json_text`.
    Generated from the dataclass's own fields, as `frozen.frozen_init` is."""
    names, declared = event_layout(cls)
    order = sorted(range(len(names)), key=lambda k: names[k])
    keys = [_text(names[k]) for k in order]
    fast, general, exact = [], [], []
    for position, k in enumerate(order):
        value = f"v[{position}]"
        general.append(f"_json_text({value})")
        if declared[k] == "int":
            fast.append((f"{keys[position]}:%d", value))
            exact.append(f"type({value}) is int")
        elif declared[k] == "str":
            fast.append((f"{keys[position]}:%s", f"_string({value})"))
            exact.append(f"type({value}) is str")
        else:
            fast.append((f"{keys[position]}:%s", f"_json_text({value})"))
    around = ('{"data":{', '},"type":' + _text(cls.type).replace("%", "%%") + "}")
    ns: dict[str, Any] = {
        "_fast": around[0] + ",".join(slot for slot, _ in fast) + around[1],
        "_general": around[0] + ",".join(f"{key}:%s" for key in keys) + around[1],
        "_json_text": _json_text, "_string": _string,
        "_get": operator.attrgetter(*(names[k] for k in order)) if names else None,
    }
    fetch = "v = ()" if not names else "v = (_get(e),)" if len(names) == 1 else "v = _get(e)"
    source = (f"def encode(e):\n    {fetch}\n"
              f"    if {' and '.join(exact) or 'True'}:\n"
              f"        return (_fast % ({''.join(arg + ', ' for _, arg in fast)})).encode()\n"
              f"    return (_general % ({''.join(arg + ', ' for arg in general)})).encode()\n")
    exec(source, ns)  # noqa: S102 - generated from the event class's own field names
    encode: Callable[[Event], bytes] = ns["encode"]
    return encode


def links_of(previous: str, step: int, bodies: Sequence[bytes], head: bytes, key: str | None = None) -> list[str]:
    """The links of one log entry's game events from their canonical bytes (`canonical_events`) and the
    entry head's (`head_bytes`), the first at `step` and after `previous`: one HMAC-SHA256 a game event
    under the record's chain key (one SHA-256 for a record stored before chain keys)."""
    prev = previous.encode()
    links = []
    if key is None:
        sha256 = hashlib.sha256
        for body in bodies:
            found = sha256(_EVENT_ITEM % (prev, head, body, step)).hexdigest()
            links.append(found)
            prev, head, step = found.encode(), b"null", step + 1
        return links
    keyed = hmac.new(bytes.fromhex(key), digestmod=hashlib.sha256)  # the key's pads hashed once, copied per event
    for body in bodies:
        mac = keyed.copy()
        mac.update(_EVENT_ITEM % (prev, head, body, step))
        found = mac.hexdigest()
        links.append(found)
        prev, head, step = found.encode(), b"null", step + 1
    return links


def finished_item(seed: str | None, scores: Any, chain_key: str | None = None) -> dict[str, Any]:
    """The last item of a finished record: the revealed seed, the final scores and, for a record with one,
    the revealed chain key (a record without keeps the shape it always had)."""
    finished = {"seed": seed, "scores": scores}
    if chain_key is not None:
        finished["chain_key"] = chain_key
    return {"finished": finished}


UNCHAINED = ("events", "contribution")
"""Not part of a chained entry head: the events are items of their own; a seat's contribution to shared
dice is kept apart in the file (chance.seats) and checked there against the seat's secret (dice.py)."""


def entry_head(entry: Mapping[str, Any], mode: str | None) -> dict[str, Any]:
    """A log entry as its first game event's item carries it: without its events, every outcome marked
    with its `by` (kept where it says, else derived from the record's mode, as dice.mark_outcomes does),
    so an entry stored before `by` existed and its export give the same item."""
    if "events" in entry or "contribution" in entry:
        head = {k: v for k, v in entry.items() if k not in UNCHAINED}
    else:
        head = dict(entry)
    outcomes = head.get("outcomes")
    if type(outcomes) is list and outcomes:
        default = None
        marked = []
        for o in outcomes:  # every verify and every write: a loop with dict checks, not an ABC's per outcome
            if type(o) is dict:
                if not o.get("by"):
                    default = default or by_of(str(mode))
                    o = {**o, "by": default}
            elif isinstance(o, Mapping):
                o = {**o, "by": o.get("by") or by_of(str(mode))}
            marked.append(o)
        if default is not None or any(m is not o for m, o in zip(marked, outcomes, strict=True)):
            head["outcomes"] = marked
    return head


def own_head(entry: Mapping[str, Any]) -> bool:
    """The entry is its own head (`entry_head` would give it unchanged): no events, no contribution, every
    outcome marked with its `by` (most commands, which meet no chance, have none). The store then writes
    the head's canonical bytes as they were hashed (rows.py), as it does a game event's."""
    if "events" in entry or "contribution" in entry:
        return False
    outcomes = entry.get("outcomes")
    return not (isinstance(outcomes, list) and outcomes and not all(type(o) is dict and o.get("by") for o in outcomes))


def head_bytes(entry: Mapping[str, Any], mode: str | None, encode: Callable[[Any], bytes] = canonical) -> bytes:
    """`canonical(entry_head(entry, mode))`, without the copy when the entry is its own head already
    (`own_head`). `encode`: `quick` where a matching link is all that is asked."""
    return encode(entry if own_head(entry) else entry_head(entry, mode))


def record_items(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The chained items of a record, from its record file (recordfile.export's shape)."""
    seats = [s.get("name") if isinstance(s, Mapping) else s for s in document.get("seats") or []]
    edition = document.get("edition") or {}
    chance = document.get("chance") or {}
    items: list[dict[str, Any]] = [started_item(
        document.get("title"), edition, edition.get("file"), seats, document.get("options") or {},  # type: ignore[arg-type]
        document.get("mode"), chance.get("commitment"), chance.get("dice"), chance.get("chain_commitment"))]  # type: ignore[arg-type]
    step = row = 0
    mode = document.get("mode")
    # entries taken back (issue 31) stay chained where they were stored: before the kept entries after their `row`
    withdrawn = sorted((w for w in document.get("withdrawn") or [] if isinstance(w, Mapping)), key=lambda w: w.get("row", 0))
    back = 0

    def taken_back(until: int | None) -> None:
        nonlocal back, row
        while back < len(withdrawn) and (until is None or withdrawn[back].get("row", 0) <= until):
            log = withdrawn[back].get("log") or {}
            head, first = entry_head(log, mode), int(withdrawn[back].get("first_step", 1))
            for k, event in enumerate(log.get("events") or []):
                items.append(event_item(first + k, event, None if k else head))
                row += 1
            back += 1

    for entry in document.get("entries") or []:
        taken_back(row)
        head = entry_head(entry, mode)
        for k, event in enumerate(entry.get("events") or []):
            step += 1
            row += 1
            items.append(event_item(step, event, None if k else head))
    taken_back(None)
    if document.get("finished"):
        items.append(finished_item(chance.get("seed"), document.get("scores"), chance.get("chain_key")))
    return items


def record_key(document: Mapping[str, Any]) -> str | None:
    """The chain key a record file's links are made under: its revealed `chance.chain_key` (None: a record
    stored before chain keys, whose links are unsalted). Raises ValueError where the file commits to a key
    it does not reveal, or reveals one that is not the one committed to."""
    chance = document.get("chance") or {}
    promised, key = chance.get("chain_commitment"), chance.get("chain_key")
    if promised is None and key is None:
        return None
    if not isinstance(key, str) or not is_key(key):
        raise ValueError("chance.chain_commitment is given but chance.chain_key is not revealed as 64 hex digits")
    if key_commitment(key) != promised:
        raise ValueError(f"chance.chain_key does not match chance.chain_commitment: sha256(key) is {key_commitment(key)}")
    return key


def is_key(value: Any) -> bool:
    """A chain key: 64 lower-case hex digits (32 random bytes)."""
    return type(value) is str and len(value) == 64 and all(c in "0123456789abcdef" for c in value)


# ---- other streams -------------------------------------------------------------------------

SKIPPED = frozenset({"originator_id", "originator_version", "originator_topic", "timestamp", "chain", "chain_key"})


def stream_item(name: str, version: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """A stored event of another stream (notes, rulings, imports): its name, its place and its own
    fields, without the library's bookkeeping (ids, timestamps), its link and the stream's chain key
    (its first event carries the key: the item then carries the key's commitment instead)."""
    item = {"event": name, "version": version, "data": {k: v for k, v in data.items() if k not in SKIPPED}}
    if data.get("chain_key") is not None:
        item["chain_commitment"] = key_commitment(str(data["chain_key"]))
    return item


# ---- computing and checking ----------------------------------------------------------------


def chain_of(items: Sequence[Mapping[str, Any] | bytes], previous: str = GENESIS, key: str | None = None) -> list[str]:
    """The links, one per item, each over the one before (the first over `previous`)."""
    links = []
    for item in items:
        previous = link(previous, item, key)
        links.append(previous)
    return links


def verify_links(items: Sequence[Mapping[str, Any] | bytes], links: Sequence[str | None],
                 exact: Callable[[int], Mapping[str, Any] | bytes] | None = None,
                 key: str | None = None) -> list[dict[str, Any]]:
    """Where the links do not fit the items: [{"index", "step"?, "expected", "found"}], in order.

    Each link is checked against the link before it *as found*, so one changed item is reported
    alone rather than with every item after it; an item whose link was recomputed to match shows
    at the next item (whose link no longer follows). A missing link is found None; links beyond
    the items are reported with expected None. Items written by `quick`: where one does not fit its
    link, `exact(index)` gives it in canonical bytes and decides."""
    problems: list[dict[str, Any]] = []
    previous: str | None = GENESIS
    for index, item in enumerate(items):
        found = links[index] if index < len(links) else None
        expected = link(previous if previous is not None else GENESIS, item, key)
        if found != expected and exact is not None:
            expected = link(previous if previous is not None else GENESIS, exact(index), key)
        if found != expected:
            problem: dict[str, Any] = {"index": index, "expected": expected, "found": found}
            if not isinstance(item, bytes) and "step" in item:
                problem["step"] = item["step"]
            problems.append(problem)
        previous = found if found is not None else expected
    for index in range(len(items), len(links)):
        problems.append({"index": index, "expected": None, "found": links[index]})
    return problems
