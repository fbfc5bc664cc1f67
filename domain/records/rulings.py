"""Rulings on the record (issue 15, part 4): whoever settles a dispute writes the decision down, as an event.

One `Rulings` stream per record, beside the game's stream and never in it (its id derived from the
record's, so any process finds it): `Opened`, then one `Ruled` per ruling, each carrying its `chain`
link (domain/records/chain.py: `stream_item` of the event's own fields after the previous link), so a
ruling cannot be quietly changed or removed either. Only the holder of the record's arbiter key
(made with the record or the import, stored hashed) may rule.

A ruling names the step or the notation line it is about, the decision and the reason, and may
carry a correction: a replacement line from a decision point of the main line. The correction is
decided by the rules exactly as a variation is (domain/records/variations.py's own checks and
`redecide`, called on an unsaved `Variation`: nothing is copied here), and what is stored is the
log the rules gave back (events filled in). A correction replays every hidden draw from its step
on, so a record in progress takes none (409) until its game is over.

The record then has two readings: "as played" (the record itself) and "as ruled" (the main line up
to the latest correction's `from_step`, then that correction's entries). Both are replayable step
by step and board by board; a record without corrections reads the same both ways.
"""

from __future__ import annotations

import builtins
import copy
import json
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import ALL, Event
from domain.kernel.cache import Bounded
from domain.kernel.describe import say
from domain.records import room, story
from domain.records.aggregates import NOTATION
from domain.records.chain import GENESIS, link, stream_item, verify_links
from domain.records.errors import Conflict, Invalid, NotFound, RecordsError, Unauthorized, WrongKey
from domain.records.kept import Kept
from domain.records.readmodels_rulings import (
    AsPlayed,
    RuledLine,
    RuledStep,
    RuledStory,
    RuledSummary,
    Ruling,
    RulingList,
)
from domain.records.room import over_limit
from domain.records.turns import round_in_view
from domain.records.variations import AUTHOR, Fold, Variation, Variations
from domain.records.views import all_seeing_step

if TYPE_CHECKING:
    from domain.records.application import Records
    from domain.records.presenting import Drawing
    from domain.records.timeline import Meta

ARBITER = "arbiter"
PLAYED = "played"  # the record as it was played (as ruled: readmodels_rulings.RULED)
FIELDS = ("step", "line", "decision", "reason", "correction")
CORRECTION_FIELDS = ("from_step", "entries")
DECISION_MAX = 2_000
REASON_MAX = 8_000
MAX_CORRECTION = 2_000  # entries one correction may carry (a whole replayed game is a few hundred)
MAX_RULINGS = 1_000  # rulings one record may carry
KEPT = 256  # records whose rulings and as-ruled folds are kept per process

T = TypeVar("T")


rulings_id = room.rulings_id  # the id of a record's rulings stream: derived, so any process finds it


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Rulings(Aggregate):
    """Every ruling on one record, in the order they were made; each event carries its chain link."""

    @event("Opened")
    def __init__(self, id: UUID, record_id: str, chain: str,  # noqa: A002  (the library takes the id under this name)
                 chain_key: str | None = None) -> None:
        self.record_id = record_id
        self.rulings: list[dict[str, Any]] = []
        self.chain_head = chain
        self.size = 0  # the bytes the rulings take in the record file (room.py)
        # the key the stream's links are made under (chain.py), revealed in the record's evidence once the game
        # is over; None: a stream stored before chain keys (unsalted links)
        self.chain_key = chain_key

    @event("Ruled")
    def rule(self, ruling: dict[str, Any], chain: str) -> None:
        self.rulings.append(ruling)
        self.chain_head = chain
        self.size += room.item(ruling)


def open_rulings(record_id: UUID) -> Rulings:
    """A new (unsaved) rulings stream for a record, its first link over its own fields."""
    key = secrets.token_hex(32)
    first = link(GENESIS, stream_item("Opened", 1, {"record_id": str(record_id), "chain_key": key}), key)
    return Rulings(id=rulings_id(record_id), record_id=str(record_id), chain=first, chain_key=key)


def add_ruling(rulings: Rulings, ruling: dict[str, Any]) -> None:
    """Append a ruling with its link after the stream's head."""
    item = stream_item("Ruled", rulings.version + 1, {"ruling": ruling})
    rulings.rule(ruling=ruling, chain=link(rulings.chain_head, item, getattr(rulings, "chain_key", None)))


def rulings_key(records: Records, record_id: UUID) -> str | None:
    """The key of a record's rulings chain, for its evidence once the game is over (None: no rulings stream,
    or one stored before chain keys)."""
    try:
        found: Rulings = records.repository.get(rulings_id(record_id))
    except AggregateNotFoundError:
        return None
    return getattr(found, "chain_key", None)


def latest_correction(rulings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ruling whose correction the "as ruled" reading follows: the last one that carries a correction."""
    return next((r for r in reversed(rulings) if r.get("correction") is not None), None)


def rulings_of(records: Records, record_id: UUID) -> list[dict[str, Any]]:
    """A record's rulings, oldest first, as the record file carries them (`"rulings"`); [] when it has none."""
    with records.access.reading(record_id):  # 404 for no such record
        pass
    try:
        found: Rulings = records.repository.get(rulings_id(record_id))
    except AggregateNotFoundError:
        return []
    return copy.deepcopy(found.rulings)


def verify(records: Records, record_id: UUID) -> dict[str, Any]:
    """The rulings stream's chain recomputed from its STORED events: {"ok", "head", "length", "problems"},
    each problem at its ruling ({"index", "ruling"?, "what"})."""
    stored = list(records.repository.event_store.get(rulings_id(record_id)))
    items, links, names = [], [], []
    key = stored[0].__dict__.get("chain_key") if stored else None
    for e in stored:
        data = {k: v for k, v in e.__dict__.items()}
        items.append(stream_item(type(e).__name__, e.originator_version, data))
        links.append(data.get("chain"))
        ruling = data.get("ruling")
        names.append(ruling.get("id") if isinstance(ruling, Mapping) else None)
    problems = []
    for found in verify_links(items, links, key=key):
        index = found["index"]
        where = {"index": index, **({"ruling": names[index]} if index < len(names) and names[index] else {})}
        what = "the event's link is missing" if found["found"] is None else (
            "a link beyond the stream's events" if found["expected"] is None else
            "the event's content or its place does not match its link: it was changed after it was written")
        problems.append({**where, "what": what, "expected": found["expected"], "found": found["found"]})
    head = links[-1] if links else None
    return {"ok": not problems, "head": head, "length": len(links), "problems": problems}


@dataclass
class Reading:
    """The "as ruled" reading of a record: the ruling it follows (None: none corrects it, the record
    as played), the correction's folded states, and its last step."""

    ruling: str | None
    from_step: int | None
    fold: Fold | None
    last_step: int


class Arbitration:
    """Record rulings (the arbiter key), list and export them, and serve the "as ruled" reading."""

    def __init__(self, records: Records, variations: Variations | None = None) -> None:
        self.records = records
        self.variations = variations if variations is not None else Variations(records)
        self._kept: Kept[Rulings] = Kept(records, KEPT, "rulings")
        self._folds: Bounded[tuple[UUID, str], Fold] = Bounded("ruling-folds", KEPT)
        self._boards: Bounded[tuple[UUID, str, int], bytes] = Bounded("ruling-boards", KEPT)

    # ---- reading the stores -------------------------------------------------------------------

    def _meta(self, record_id: UUID) -> Meta:
        return self.records.access.meta(record_id)  # NotFound for no such record

    def _get(self, record_id: UUID) -> Rulings | None:
        """The record's rulings as stored now (shared: never change it)."""
        return self._kept.get(rulings_id(record_id))

    def _rulings(self, record_id: UUID) -> list[dict[str, Any]]:
        found = self._get(record_id)
        return [] if found is None else found.rulings

    # ---- listing ------------------------------------------------------------------------------

    def list(self, record_id: UUID) -> RulingList:
        """Every ruling, oldest first, with the one the "as ruled" reading follows and the stream's chain head."""
        self._meta(record_id)
        found = self._get(record_id)
        rulings = [] if found is None else found.rulings
        latest = latest_correction(rulings)
        return RulingList(str(record_id), tuple(Ruling.of(r) for r in rulings),
                          latest["id"] if latest is not None else None,
                          found.chain_head if found is not None else None, found.version if found is not None else 0)

    def one(self, record_id: UUID, ruling_id: str) -> Ruling:
        self._meta(record_id)
        for ruling in self._rulings(record_id):
            if ruling["id"] == ruling_id:
                return Ruling.of(ruling)
        raise NotFound(f"record {record_id} has no ruling {ruling_id}", ruling=ruling_id)

    def exported(self, record_id: UUID) -> builtins.list[dict[str, Any]]:  # `list` here is the method above
        """What the record file carries under "rulings"."""
        self._meta(record_id)
        return copy.deepcopy(self._rulings(record_id))

    # ---- ruling -------------------------------------------------------------------------------

    def rule(self, record_id: UUID, token: str | None, body: Any) -> Ruling:
        """A new ruling, checked whole (its correction decided by the rules) before anything is stored."""
        meta = self._meta(record_id)
        self._authorise(meta, token)
        if not isinstance(body, Mapping):
            raise Invalid(f"a ruling is a JSON object, not {type(body).__name__}", rule="ruling/field")
        unknown = sorted(str(k) for k in body if k not in FIELDS)
        if unknown:
            raise Invalid(f"a ruling has no field {', '.join(unknown)}; it has {', '.join(FIELDS)}",
                          rule="ruling/field", fields=unknown)
        raw = body.get("correction")
        if raw is not None and not meta.finished:
            raise Conflict("a correction replays the game from its step with every draw and hidden card in it: a record "
                           "in progress takes none until its game is over (a ruling without a correction it takes now)",
                           rule="ruling/in-progress")
        decision = _words(body.get("decision"), "decision", DECISION_MAX)
        reason = _words(body.get("reason"), "reason", REASON_MAX)
        step = self._step(meta, body.get("step"))
        line = self._line(record_id, meta, body.get("line"))
        correction = self._correction(record_id, meta, raw) if raw is not None else None
        if step is None and correction is not None:
            step = correction["from_step"]
        if step is None and line is None:
            raise Invalid("a ruling names what it is about: the step (\"step\") or the notation line (\"line\")",
                          rule="ruling/about")
        ruling = {"id": f"r-{secrets.token_hex(6)}", "step": step, "line": line, "decision": decision, "reason": reason,
                  "correction": correction, "by": ARBITER, "at": now()}

        def change(rulings: Rulings) -> None:
            if len(rulings.rulings) >= MAX_RULINGS:
                raise Invalid(f"a record holds at most {MAX_RULINGS} rulings", rule="ruling/too-many", limit=MAX_RULINGS)
            add_ruling(rulings, ruling)
            over = room.over_bytes(self.records, record_id, "this ruling", rulings=rulings.size)
            if over is not None:
                raise over_limit(over)

        self._change(record_id, change)
        return Ruling.of(ruling)

    def _authorise(self, meta: Meta, token: str | None) -> None:
        if token is None:
            raise Unauthorized("a ruling needs the record's arbiter key (Authorization: Bearer <key>)")
        if not self.records.access.is_arbiter(meta, token):
            if meta.arbiter_hash is None:
                raise WrongKey("this record was made without an arbiter key: nobody may record rulings on it")
            raise WrongKey("this key is not the record's arbiter key: only its holder may record rulings")

    @staticmethod
    def _step(meta: Meta, step: Any) -> int | None:
        if step is None:
            return None
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= meta.steps:
            raise Invalid(f"step {step!r} does not exist: this record has steps 0 to {meta.steps}", rule="ruling/step",
                          step=step, last_step=meta.steps)
        return step

    def _line(self, record_id: UUID, meta: Meta, line: Any) -> int | None:
        """A notation line: of the notation file the record was imported from, else of its rendered notation."""
        if line is None:
            return None
        lines = self._notation_lines(record_id, meta)
        if not isinstance(line, int) or isinstance(line, bool) or not 1 <= line <= lines:
            raise Invalid(f"line {line!r} does not exist: the record's notation has lines 1 to {lines}",
                          rule="ruling/line", line=line, lines=lines)
        return line

    def _notation_lines(self, record_id: UUID, meta: Meta) -> int:
        imported = (meta.origin or {}).get("import")
        if imported:
            try:
                document = self.records.imports.get(UUID(str(imported))).document
            except (NotFound, ValueError):
                document = None
            if document is not None:
                found = json.loads(document)
                if isinstance(found, Mapping) and found.get("format") == NOTATION:
                    return len(str(found.get("text", "")).splitlines())
        try:
            return len(self.records.reading.notation(record_id, all_seeing=True).splitlines())
        except RecordsError:
            raise
        except Exception as exc:
            raise Invalid("this record's notation cannot be written, so a ruling names its step instead of a line",
                          rule="ruling/line") from exc

    def _correction(self, record_id: UUID, meta: Meta, raw: Any) -> dict[str, Any]:
        """The correction decided by the rules as a variation from the main line is (variations.py's own code):
        its from_step a decision point, every entry re-decided, its outcomes the arbiter's."""
        if not isinstance(raw, Mapping):
            raise Invalid("a correction is an object with from_step and entries", rule="ruling/correction")
        unknown = sorted(str(k) for k in raw if k not in CORRECTION_FIELDS)
        if unknown:
            raise Invalid(f"a correction has no field {', '.join(unknown)}; it has from_step and entries",
                          rule="ruling/correction", fields=unknown)
        entries = raw.get("entries")
        if not isinstance(entries, list):
            raise Invalid("a correction's entries are a list of log entries (command and outcomes)",
                          rule="ruling/correction", field="entries")
        if len(entries) > MAX_CORRECTION:
            raise Invalid(f"a correction carries at most {MAX_CORRECTION} entries, not {len(entries)}",
                          rule="ruling/correction", limit=MAX_CORRECTION)
        for k, entry in enumerate(entries):
            marked = entry.get("chance", AUTHOR) if isinstance(entry, Mapping) else AUTHOR
            if marked != AUTHOR:
                raise Invalid(f"correction entry {k}: its outcomes are the arbiter's (chance \"{AUTHOR}\"), not {marked!r}",
                              rule="ruling/chance", entry=k)
        with _as_correction():
            from_step = self.variations.check_from_step(record_id, None, raw.get("from_step"))
        variations = self.variations
        game = catalog.game(meta.title)
        line = Variation(record_id=str(record_id), parent=None, from_step=from_step, title="correction", author=ARBITER,
                         seed="")  # never saved: it only collects what the rules decide
        state = variations.parent_state(line)
        with _as_correction():
            for k, obj in enumerate(entries):
                state = variations.redecide(game, line, state, k, obj)
        return {"from_step": from_step, "entries": [dict(e) for e in line.entries]}

    def _change(self, record_id: UUID, change: Callable[[Rulings], T]) -> T:
        """Apply a change to the record's rulings and save it, again when another writer saved first."""
        for _ in range(20):
            found = self._get(record_id)
            rulings = copy.deepcopy(found) if found is not None else open_rulings(record_id)
            result = change(rulings)
            try:
                self.records.save(rulings)
            except IntegrityError:
                continue
            self._kept.keep(rulings)
            return result
        raise Conflict(f"the rulings of record {record_id} are changing too fast to update")

    # ---- the "as ruled" reading -----------------------------------------------------------------

    def reading(self, record_id: UUID) -> Reading:
        """Which line the record reads as ruled, folded (kept per process: a ruling never changes)."""
        meta = self._meta(record_id)
        latest = latest_correction(self._rulings(record_id))
        if latest is None:
            return Reading(None, None, None, meta.steps)
        key = (record_id, latest["id"])
        fold = self._folds.get(key)
        if fold is None:
            correction = latest["correction"]
            with self.records.access.reading(record_id) as timeline:
                base = timeline.state_at(correction["from_step"])
            fold = Fold(correction["from_step"], [base])
            fold.grow(catalog.game(meta.title), correction["entries"])
            self._folds.put(key, fold)
        return Reading(latest["id"], fold.base_step, fold, fold.last_step)

    def _reader_token(self, meta: Meta, token: str | None) -> str | None:
        """The token as the record's own reads take it: a seat's token stays; the arbiter and annotator keys
        read as the public (a record in progress shows them what every player sees); any other is refused."""
        if token is None or self.records.access.is_arbiter(meta, token) or self.records.access.is_annotator(meta, token):
            return None
        self.records.access.seat_of(meta, token)  # 403 for a token that opens no seat
        return token

    def _state(self, record_id: UUID, reading: Reading, n: int) -> Any:
        assert reading.fold is not None and reading.from_step is not None
        if not 0 <= n <= reading.last_step:
            raise NotFound(f"step {n} does not exist; the record as ruled has steps 0 to {reading.last_step}",
                           steps=reading.last_step)
        if n <= reading.from_step:
            with self.records.access.reading(record_id) as timeline:
                return timeline.state_at(n)
        return reading.fold.state_at(catalog.game(self._meta(record_id).title), n)

    def _event_at(self, record_id: UUID, reading: Reading, n: int) -> Event:
        """The event that leads to step n (n >= 1) of the as-ruled reading."""
        assert reading.fold is not None and reading.from_step is not None
        if n > reading.from_step:
            return reading.fold.events[n - 1 - reading.from_step]
        with self.records.access.reading(record_id) as timeline:
            return timeline.events[n - 1]

    def summary(self, record_id: UUID, token: str | None = None) -> RuledSummary:
        """The as-ruled reading in brief, beside the record as played."""
        meta = self._meta(record_id)
        token = self._reader_token(meta, token)
        reading = self.reading(record_id)
        played = AsPlayed(meta.steps, meta.finished, meta.scores if meta.finished else None)
        brief: dict[str, Any] = {"record_id": str(record_id), "ruling": reading.ruling, "from_step": reading.from_step,
                                 "steps": reading.last_step, "rulings": len(self._rulings(record_id)), "as_played": played}
        if reading.fold is None:  # nothing corrects it: the record as played
            return RuledSummary(**brief, corrected=False, finished=meta.finished,
                                pending=self.records.reading.step(record_id, meta.steps, token).pending,
                                scores=meta.scores if meta.finished else None)
        game = catalog.game(meta.title)
        end = reading.fold.checkpoints[-1]
        pending = game.pending(end)
        return RuledSummary(**brief, corrected=True, finished=pending.over, pending=pending.to_json(),
                            scores=game.scores(end), moves=reading.fold.entries)

    def step(self, record_id: UUID, n: int, token: str | None = None) -> RuledStep:
        """Step n of the as-ruled reading, shaped as the record's own steps (all-seeing once corrected: only a
        finished record has corrections); without corrections, the record's own step as this reader may see it."""
        meta = self._meta(record_id)
        token = self._reader_token(meta, token)
        reading = self.reading(record_id)
        if reading.fold is None:
            return RuledStep(self.records.reading.step(record_id, n, token), None)
        game = catalog.game(meta.title)
        state = self._state(record_id, reading, n)
        event = self._event_at(record_id, reading, n) if n > 0 else None
        return RuledStep(all_seeing_step(game, state, n, reading.last_step, event), reading.ruling, reading.from_step)

    def board(self, record_id: UUID, n: int, token: str | None, draw: Drawing) -> bytes:
        """Step n's board of the as-ruled reading, what changed since step n-1 marked (`draw` may raise NoLayout)."""
        meta = self._meta(record_id)
        token = self._reader_token(meta, token)
        reading = self.reading(record_id)
        if reading.fold is None:
            return self.records.presenting.board(record_id, n, token, draw).svg
        assert reading.ruling is not None
        key = (record_id, reading.ruling, n)
        found = self._boards.get(key)
        if found is not None:
            return found
        game = catalog.game(meta.title)
        state = self._state(record_id, reading, n)
        previous = game.view(self._state(record_id, reading, n - 1), None) if n > 0 else None
        edition = self.records.edition(meta.title, meta.edition, meta.edition_file)
        svg = draw(meta.title, game.view(state, None), previous, edition, list(meta.seats)).encode()
        self._boards.put(key, svg)
        return svg

    def story(self, record_id: UUID, token: str | None = None) -> RuledStory:
        """The correction's own moves in words (the main line's before it are in the record's story);
        without corrections, no lines."""
        meta = self._meta(record_id)
        self._reader_token(meta, token)
        reading = self.reading(record_id)
        if reading.fold is None:
            return RuledStory(reading.last_step, reading.from_step, reading.ruling)
        fold = reading.fold
        game = catalog.game(meta.title)
        latest = latest_correction(self._rulings(record_id))
        assert latest is not None
        entries = latest["correction"]["entries"]
        lines: builtins.list[RuledLine] = []
        for k, start in enumerate(fold.starts):
            state = fold.checkpoints[k]
            seat = entries[k].get("command", {}).get("seat")
            round_ = round_in_view(partial(game.view, state, None))
            end = fold.starts[k + 1] if k + 1 < len(fold.starts) else fold.last_step
            for step in range(start + 1, end + 1):
                e = fold.events[step - 1 - fold.base_step]
                text = say(story.tell(game, e, state, meta.seats), ALL)
                state = game.evolve(state, e)
                if text is not None:
                    player = meta.seats[seat] if isinstance(seat, int) and 0 <= seat < len(meta.seats) else None
                    # a correction's outcomes are the arbiter's word
                    lines.append(RuledLine(step, seat, round_, text, player, "transcriber" if entries[k].get("outcomes") else None))
        return RuledStory(reading.last_step, reading.from_step, reading.ruling, tuple(lines))


@contextmanager
def _as_correction() -> Iterator[None]:
    """Variations' refusals said of a correction: "variation entry 3" becomes "correction entry 3", and the
    rule of a from_step that is no decision point becomes `ruling/from-step` (the game's own rules stay)."""
    try:
        yield
    except RecordsError as exc:
        message = exc.message.replace("variation entry", "correction entry")
        facts = dict(exc.facts)
        if facts.get("rule") == "variation/step":
            facts["rule"] = "ruling/from-step"
            message = "the correction's from_step: " + message.replace("a variation leaves", "a correction starts")
        elif facts.get("rule") == "variation/entries":
            facts["rule"] = "ruling/correction"
        refused = Invalid if isinstance(exc, Invalid) else type(exc)  # a Refused is built from a violation
        raise refused(message, **facts) from exc


def _words(value: Any, name: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid(f"a ruling's {name} is text, and it is required", rule=f"ruling/{name}")
    if len(value) > limit:
        raise Invalid(f"a ruling's {name} is at most {limit:,} characters; this one has {len(value):,}",
                      rule=f"ruling/{name}", limit=limit, length=len(value))
    return value.strip()
