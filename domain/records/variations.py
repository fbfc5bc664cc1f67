"""What-if lines: a variation branches from a decision point of a finished record (or of another
variation of it) and plays on, every command decided by the same rules as the game itself.

Each variation is a stream of its own (aggregate `Variation`): `Branched` names the record, the
parent line and the step it leaves from; each `Played` holds one log entry (`Entry.to_json()`),
the seat that chose it and whether its chance was chosen by the author or drawn from the
variation's own seed. The game's stream is never touched. A small index stream per record
(`RecordVariations`, saved in the same transaction as the variation) lists a record's variations.

Steps continue the parent's numbering: a variation from step 40 has its first event at step 41,
and its state at any step n <= 40 is the parent's. Only finished records get variations: on a
record in progress they would show what its seats cannot see.
"""

from __future__ import annotations

import bisect
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError

from domain import catalog
from domain.kernel import ALL, Entry, Event, Game, MalformedCommand, ObservedChance, Outcome, RuleViolation, play
from domain.kernel.cache import Bounded
from domain.kernel.commands import Command
from domain.kernel.describe import say
from domain.records import recordfile, room, story
from domain.records.errors import Conflict, Invalid, NotFound, Refused, Unauthorized, WrongKey
from domain.records.readmodels import StoryLine
from domain.records.readmodels_teaching import Choice, LineLegal, LinePlayed, LineStep, LineStory, VariationSummary
from domain.records.room import over_limit
from domain.records.timeline import Meta, stored_event
from domain.records.turns import round_in_view
from domain.records.views import all_seeing_step
from domain.transcripts import game_for

if TYPE_CHECKING:
    from domain.kernel import Edition
    from domain.records.application import Records
    from domain.records.presenting import Drawing

AUTHOR = "author"  # the variation's author chose the chance outcomes
DRAWN = "drawn"  # drawn from the variation's own seed (recordfile.live_chance(seed, k), k = the entry's index)
MAIN = "main"
TITLE_MAX = 120
AUTHOR_MAX = 80
FOLD_CACHE = 256  # variations whose folded states are kept per process (a variation is short)
BOARD_CACHE = 512  # drawn boards of variation steps kept per process


class Variation(Aggregate):
    """One what-if line: where it leaves its parent, then the commands played on it."""

    @event("Branched")
    def __init__(self, record_id: str, parent: str | None, from_step: int, title: str, author: str, seed: str) -> None:
        self.record_id = record_id
        self.parent = parent  # None: the record's main line; else another variation of the record
        self.from_step = from_step
        self.title = title
        self.author = author
        self.seed = seed
        self.entries: list[dict[str, Any]] = []
        self.seats: list[int] = []
        self.chances: list[str] = []
        self.events = 0
        self.size = exported_size(parent, from_step, title, author, seed)  # its bytes in the record file (room.py)

    @event("Played")
    def played(self, entry: dict[str, Any], seat: int, chance: str) -> None:
        self.entries.append(entry)
        self.seats.append(seat)
        self.chances.append(chance)
        self.events += len(entry["events"])
        self.size += room.item({**entry, "chance": chance})

    @property
    def last_step(self) -> int:
        return self.from_step + self.events


class RecordVariations(Aggregate):
    """The ids of a record's variations, oldest first: how `of_record` finds them without a scan."""

    @event("Opened")
    def __init__(self, id: UUID, record_id: str) -> None:  # noqa: A002  (the library takes the id under this name)
        self.record_id = record_id
        self.variation_ids: list[str] = []

        self.size = 0  # the bytes the variations take in the record file, as measured by each change (room.py)
        self.entries = 0  # their entries, all lines together (an import counts them against CRONACA_MAX_ENTRIES)

    @event("Added")
    def add(self, variation_id: str) -> None:
        self.variation_ids.append(variation_id)

    @event("Grew")
    def grow(self, size: int, entries: int) -> None:
        """A variation made or played on: what it added to the record file (saved with the variation's own events)."""
        self.size += size
        self.entries += entries


index_id = room.variations_id


def exported_size(parent: str | None, from_step: int, title: str, author: str, seed: str) -> int:
    """A variation without entries as the record file writes it (lessonfile.record_extras; its ref is its id)."""
    return room.item({"ref": str(UUID(int=0)), "parent": parent, "from_step": from_step, "title": title,
                      "author": author, "seed": seed, "entries": []})


@dataclass(frozen=True)
class Line:
    """A line of a record: its main line (line None) or one variation, with the steps it holds.

    `title` is the game's title (what `places(edition)` and the notation need); a variation's own
    display title is in its summary."""

    record_id: UUID
    line: str | None
    title: str
    seats: list[str]
    first_step: int
    last_step: int
    finished: bool


def command_words(title: str, command: Mapping[str, Any], state: Any = None) -> str:
    """A command in the title's notation words ("war O"), as a table would write it.

    Where the title writes some commands only from the state (Serenissima's sailing), give
    `state` (the state the command is decided in); without it such a command falls back to
    plain words built from its fields, never an error."""
    _, words = game_for(title)
    if state is not None and words.write is not None:
        try:
            return words.write(state, command)
        except Exception:  # noqa: BLE001  (a phrase the title cannot write falls back below)
            pass
    try:
        return words.vocabulary.write(command)
    except (ValueError, KeyError, TypeError):
        kind = str(command.get("type", "")).rsplit("/", 1)[-1].replace("-", " ")
        rest = [f"{k}={v}" for k, v in command.items() if k not in ("type", "seat")]
        return " ".join([kind, *rest])


class _NoDraw(Exception):  # noqa: N818  (a signal, not an error)
    """A choice met chance: what it draws is not known before it is played."""


class _RefusingChance:
    """A chance that refuses every draw, shuffle and roll: a choice is put in words only from what it decides
    without chance, so its sentence never shows an outcome nobody drew."""

    def __init__(self) -> None:
        self.log: list[Outcome] = []

    def draw(self, source: str, contents: Sequence[Any], n: int) -> tuple[Any, ...]:
        raise _NoDraw(source)

    def shuffle(self, source: str, items: Sequence[Any]) -> tuple[Any, ...]:
        raise _NoDraw(source)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        raise _NoDraw(source)


def command_said(title: str, command: Mapping[str, Any], state: Any, names: Sequence[str], reader: Any) -> str:
    """A choice in the title's own sentence (`describe`, as `reader` may read it) with the table's words after it:
    "Ada takes the Merchant Fleet action (fleet)". A choice whose outcome is drawn, or that the title does not
    put in words, is said in the table's words only (`command_words`)."""
    words = command_words(title, command, state)
    game, _ = game_for(title)
    said: list[str] = []
    try:
        events = game.decide(state, sent_command(game, command), _RefusingChance())
        before = state
        for event in events[:2]:  # what the choice does, and the first thing that follows ("found a city" and where)
            told = game.describe(event, before, names)
            before = game.evolve(before, event)
            text = say(told, reader) if told is not None else None
            if text:
                said.append(text.rstrip("."))
    except Exception:  # noqa: BLE001  (a choice that meets chance or that the title cannot tell: its words alone)
        return words
    return f"{'; '.join(said)} ({words})" if said else words


def sent_command(game: Game, command: Any) -> Command:
    """A command as a client sent it, read by the title's rules (not yet judged legal). One reading for a
    variation's play and a lesson pause's answer, so both refuse a malformed one alike: a 422 naming what."""
    if not isinstance(command, Mapping):
        raise Invalid("a command is a JSON object", rule="command/malformed")
    try:
        return game.parse_command(command)
    except MalformedCommand as exc:
        raise Invalid(exc.message, rule="command/malformed", errors=exc.errors) from exc


@dataclass
class Fold:
    """A variation's states: the parent's state at from_step, then one checkpoint after each entry."""

    base_step: int
    checkpoints: list[Any]  # [state at from_step, after entry 0, after entry 1, ...]
    at: list[int] = field(default_factory=list)  # the step of each checkpoint
    events: list[Event] = field(default_factory=list)  # the variation's own events, in order

    def __post_init__(self) -> None:
        self.at = [self.base_step]

    @property
    def entries(self) -> int:
        return len(self.at) - 1

    @property
    def starts(self) -> list[int]:
        """The step at which each entry begins."""
        return self.at[:-1]

    @property
    def last_step(self) -> int:
        return self.base_step + len(self.events)

    def grow(self, game: Game, entries: Sequence[Mapping[str, Any]]) -> None:
        """Fold the entries not folded yet (a stream is append-only: the rest stays true)."""
        state = self.checkpoints[-1]
        for entry in entries[self.entries:]:
            for obj in entry["events"]:
                e = stored_event(obj)
                state = game.evolve(state, e)
                self.events.append(e)
            self.checkpoints.append(state)
            self.at.append(self.last_step)

    def state_at(self, game: Game, n: int) -> Any:
        """The state at step n, base_step <= n <= last_step: from the nearest checkpoint at or before it."""
        k = bisect.bisect_right(self.at, n) - 1
        state = self.checkpoints[k]
        for e in self.events[self.at[k] - self.base_step:n - self.base_step]:
            state = game.evolve(state, e)
        return state


class Variations:
    """The what-if service over a records application (same store, same rules)."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self._folds: Bounded[UUID, Fold] = Bounded("variation-folds", FOLD_CACHE)
        self._boards: Bounded[tuple[UUID, int], bytes] = Bounded("variation-boards", BOARD_CACHE)
        self._lock = threading.RLock()

    # ---- reading the stores ---------------------------------------------------------

    def _variation(self, variation_id: UUID | str) -> Variation:
        try:
            vid = variation_id if isinstance(variation_id, UUID) else UUID(str(variation_id))
        except ValueError as exc:
            raise NotFound(f"no variation {variation_id}") from exc
        try:
            found: Aggregate = self.records.repository.get(vid)
        except AggregateNotFoundError as exc:
            raise NotFound(f"no variation {variation_id}") from exc
        if not isinstance(found, Variation):
            raise NotFound(f"no variation {variation_id}")
        return found

    def _meta(self, record_id: UUID) -> Meta:
        return self.records.access.meta(record_id)

    def _game(self, meta: Any) -> tuple[Game, Edition]:
        return catalog.game(meta.title), self.records.edition(meta.title, meta.edition, meta.edition_file)

    def _fold(self, variation: Variation) -> Fold:
        """The variation's folded states, caught up with its stored entries (kept in a bounded LRU)."""
        vid = variation.id
        found = self._folds.get(vid)
        if found is None:
            base = self.parent_state(variation)
            found = Fold(variation.from_step, [base])
        meta = self._meta(UUID(variation.record_id))
        game = catalog.game(meta.title)
        with self._lock:
            if found.entries < len(variation.entries):
                found.grow(game, variation.entries)
            self._folds.put(vid, found)
        return found

    def parent_state(self, variation: Variation) -> Any:
        """The state a variation leaves from: its parent line's (the main line's or a variation's) at from_step."""
        if variation.parent is None:
            with self.records.access.reading(UUID(variation.record_id)) as timeline:
                return timeline.state_at(variation.from_step)
        return self.state_at(UUID(variation.parent), variation.from_step)

    # ---- who may branch and play --------------------------------------------------

    def _authorise(self, meta: Any, token: str | None, what: str) -> None:
        if token is None:
            raise Unauthorized(f"{what} needs the record's annotator key (Authorization: Bearer <key>)")
        if not self.records.access.is_annotator(meta, token):
            raise WrongKey(f"this key is not the record's annotator key: only its holder may {what.split()[0]}")

    def _finished_only(self, meta: Any) -> None:
        if not meta.finished:
            raise Conflict("a record in progress gets no variations: they would show what its seats cannot see")

    # ---- lines -----------------------------------------------------------------------

    def line(self, record_id: UUID, line: str | None) -> Line:
        """A line's steps: the record's main line (None or "main"), or one of its variations (else 404)."""
        if line is None or line == MAIN:
            meta = self._meta(record_id)
            return Line(record_id, None, meta.title, list(meta.seats), 0, meta.steps, meta.finished)
        variation = self._variation(line)
        if UUID(variation.record_id) != record_id:
            raise NotFound(f"variation {line} is not a line of record {record_id}")
        meta = self._meta(record_id)
        fold = self._fold(variation)
        return Line(record_id, str(variation.id), meta.title, list(meta.seats), variation.from_step, fold.last_step,
                    self._over(meta, fold))

    def _over(self, meta: Any, fold: Fold) -> bool:
        return bool(catalog.game(meta.title).pending(fold.checkpoints[-1]).over)

    def decision_steps(self, record_id: UUID, parent: str | None) -> tuple[list[int], int]:
        """The steps of a line where a variation may leave it (a seat decides there), and its last step."""
        meta = self._meta(record_id)
        if parent is None:
            return list(meta.entry_starts[1:]), meta.steps  # entry 0 is the setup: nobody decides at step 0
        variation = self._variation(parent)
        if UUID(variation.record_id) != record_id:
            raise NotFound(f"variation {parent} is not a line of record {record_id}")
        fold = self._fold(variation)
        return [variation.from_step, *fold.starts[1:]], fold.last_step

    def check_from_step(self, record_id: UUID, parent: str | None, from_step: Any) -> int:
        """`from_step` if a line may leave from it (a decision point of the main line or of `parent`, or its last
        step), else a 422 naming the nearest that may: a variation's and a ruling's correction's one check."""
        if not isinstance(from_step, int) or isinstance(from_step, bool):
            raise Invalid("from_step must be a step number", rule="variation/step", given=repr(from_step))
        steps, last = self.decision_steps(record_id, parent)
        points = sorted({*steps, last})
        if from_step in points:
            return from_step
        where = "the main line" if parent is None else f"variation {parent}"
        if not points[0] <= from_step <= last and parent is not None:
            message = f"step {from_step} is not on {where}, which holds steps {points[0]} to {last}"
        else:
            message = f"step {from_step} of {where} is not a decision point: a variation leaves where a command starts"
        below = [s for s in points if s < from_step]
        above = [s for s in points if s > from_step]
        nearest = ([below[-1]] if below else []) + ([above[0]] if above else [])
        if nearest:
            message += f"; the nearest are {' and '.join(map(str, nearest))}"
        raise Invalid(message, rule="variation/step", step=from_step, nearest=nearest, last_step=last)

    # ---- writing -------------------------------------------------------------------

    def branch(self, record_id: UUID, token: str | None, from_step: int, parent: str | None = None,
               title: str = "", author: str = "") -> VariationSummary:
        """A new variation of a finished record, leaving `parent` (None: the main line) at `from_step`."""
        meta = self._meta(record_id)
        self._authorise(meta, token, "branching a variation")
        self._finished_only(meta)
        parent = self._parent_id(record_id, parent)
        title, author = self._names(title, author)
        from_step = self.check_from_step(record_id, parent, from_step)
        variation = Variation(record_id=str(record_id), parent=parent, from_step=from_step, title=title, author=author,
                              seed=secrets.token_hex(16))
        self._save_new(record_id, variation)
        return self.summary(variation.id)

    def _parent_id(self, record_id: UUID, parent: Any) -> str | None:
        if parent is None or parent == MAIN:
            return None
        found = self._variation(str(parent))
        if UUID(found.record_id) != record_id:
            raise NotFound(f"variation {parent} is not a line of record {record_id}")
        return str(found.id)

    def _names(self, title: Any, author: Any) -> tuple[str, str]:
        if not isinstance(title, str) or len(title) > TITLE_MAX:
            raise Invalid(f"a variation's title is text of at most {TITLE_MAX} characters", rule="variation/title")
        if not isinstance(author, str) or len(author) > AUTHOR_MAX:
            raise Invalid(f"a variation's author is a name of at most {AUTHOR_MAX} characters", rule="variation/author")
        return title.strip(), author.strip()

    def _save_new(self, record_id: UUID, variation: Variation) -> None:
        """The variation and its place in the record's index, in one transaction (retried if the index moved)."""
        pending = variation.collect_events()
        for _ in range(20):
            index = self._index(record_id)
            self._within_limits(record_id, index, 1, variation.size, len(variation.entries))
            index.add(str(variation.id))
            index.grow(size=variation.size, entries=len(variation.entries))
            try:
                self.records.save(index, *pending)
            except IntegrityError:
                continue
            return
        raise Conflict(f"the variations of record {record_id} are changing too fast; try again")

    def _index(self, record_id: UUID) -> RecordVariations:
        try:
            found: RecordVariations = self.records.repository.get(index_id(record_id))
        except AggregateNotFoundError:
            return RecordVariations(id=index_id(record_id), record_id=str(record_id))
        return found

    def _within_limits(self, record_id: UUID, index: RecordVariations, lines: int, size: int, entries: int) -> None:
        """What a change adds to the record's variations must leave its file importable (room.py): at most
        recordfile.MAX_VARIATIONS lines, their entries within CRONACA_MAX_ENTRIES, the file within its bytes."""
        if lines:
            over = room.over_count(len(index.variation_ids) + lines, recordfile.MAX_VARIATIONS, room.VARIATIONS,
                                   "the record's variations")
            if over is not None:
                raise over_limit(over)
        over = room.over_entries(self.records, index.entries + entries, "the number of log entries of the variations")
        if over is not None:
            raise over_limit(over)
        over = room.over_bytes(self.records, record_id, "this variation", variations=index.size + size)
        if over is not None:
            raise over_limit(over)

    def _save_played(self, variation: Variation, size: int) -> None:
        """A command played on a variation, saved with what it adds to the record's index (in one transaction,
        retried while only the index moved: another line of the record played at the same moment)."""
        record_id = UUID(variation.record_id)
        based_on = variation.version - len(variation.pending_events)
        pending = variation.collect_events()
        for _ in range(20):
            index = self._index(record_id)
            self._within_limits(record_id, index, 0, size, 1)
            index.grow(size=size, entries=1)
            try:
                self.records.save(index, *pending)
            except IntegrityError as exc:
                if self._variation(variation.id).version != based_on:
                    raise Conflict("another command was played on this variation first; reload it and decide "
                                   "again") from exc
                continue
            return
        raise Conflict(f"the variations of record {record_id} are changing too fast; try again")

    def play(self, variation_id: UUID, token: str | None, command: Mapping[str, Any],
             outcomes: list[Mapping[str, Any]] | None = None) -> LinePlayed:
        """Decide one command on the variation, as `Records.play.command` decides one on a record, and store it."""
        variation = self._variation(variation_id)
        meta = self._meta(UUID(variation.record_id))
        self._authorise(meta, token, "playing on a variation")
        game, _ = self._game(meta)
        fold = self._fold(variation)
        state = fold.checkpoints[-1]
        if game.pending(state).over:
            raise Conflict("this variation's game is over: it takes no more commands")
        cmd = sent_command(game, command)
        k = len(variation.entries)
        if outcomes is not None:
            if not isinstance(outcomes, list):
                raise Invalid("outcomes is a list of {kind, source, values}", rule="command/outcomes")
            try:
                chance: Any = ObservedChance([Outcome.from_json(dict(o)) for o in outcomes])
            except (KeyError, TypeError, ValueError) as exc:
                raise Invalid(f"an outcome needs kind, source and values: {exc}", rule="command/outcomes") from exc
            marked = AUTHOR
        else:
            chance = recordfile.live_chance(variation.seed, k)
            marked = DRAWN
        try:
            produced, after = play(game, state, cmd, chance)
        except RuleViolation as exc:
            raise Refused(exc, None, meta.title, meta.seats, cmd.seat) from exc
        self._no_unused(chance)
        if not produced:
            raise Invalid("the rules accept this command but it changes nothing, so there is nothing to record",
                                 rule="command/no-events")
        entry = Entry(cmd.to_json(), tuple(chance.log), tuple(produced)).to_json()
        first = variation.last_step + 1
        before = variation.size
        variation.played(entry=entry, seat=cmd.seat, chance=marked)
        self._save_played(variation, variation.size - before)
        fold = self._fold(variation)
        before = state
        said = []
        for e in produced:
            words = say(story.tell(game, e, before, meta.seats), ALL)
            if words is not None:
                said.append(words)
            before = game.evolve(before, e)
        pending = game.pending(after)
        return LinePlayed(str(variation.id), (first, variation.last_step),
                          [{"step": first + i, **e.to_json()} for i, e in enumerate(produced)], marked, pending.to_json(),
                          pending.over, said)

    def _no_unused(self, chance: Any) -> None:
        if isinstance(chance, ObservedChance) and chance.has_unused:
            raise Invalid(f"{len(chance.unused)} outcome(s) given that the rules never asked for",
                                         rule="chance/unused-outcome", unused=[o.to_json() for o in chance.unused])

    def restore(self, record_id: UUID, exported: Mapping[str, Any], parent: str | None) -> UUID:
        """An exported variation recreated on a record (an import): every entry re-decided by the rules,
        its outcomes checked possible (and, where drawn, given by its seed), all saved at once."""
        meta = self._meta(record_id)
        self._finished_only(meta)
        if not isinstance(exported, Mapping):
            raise Invalid("a variation is an object with from_step, title, author, seed and entries", rule="variation/file")
        parent = self._parent_id(record_id, parent)
        title, author = self._names(exported.get("title", ""), exported.get("author", ""))
        from_step = self.check_from_step(record_id, parent, exported.get("from_step"))
        seed = exported.get("seed")
        if seed is not None and not isinstance(seed, str):
            raise Invalid("a variation's seed is a string", rule="variation/file", field="seed")
        raw = exported.get("entries", [])
        if not isinstance(raw, list):
            raise Invalid("a variation's entries are a list", rule="variation/file", field="entries")
        game, _ = self._game(meta)
        variation = Variation(record_id=str(record_id), parent=parent, from_step=from_step, title=title, author=author,
                              seed=seed or secrets.token_hex(16))
        state = self.parent_state(variation)
        for k, obj in enumerate(raw):
            state = self.redecide(game, variation, state, k, obj)
        self._save_new(record_id, variation)
        return variation.id

    def redecide(self, game: Game, variation: Variation, state: Any, k: int, obj: Any) -> Any:
        """One exported entry decided again on `state`; appended to the variation, or a 422 naming it."""
        where = f"variation entry {k}"
        if game.pending(state).over:
            raise Invalid(f"{where}: the game is already over there", rule="variation/entries", entry=k)
        try:
            entry = Entry.from_json(obj)
            if entry.command is None:
                raise ValueError("an entry needs a command")
            marked = obj.get("chance", AUTHOR)
            if marked not in (AUTHOR, DRAWN):
                raise ValueError(f"`chance` is {AUTHOR!r} or {DRAWN!r}")
            cmd = game.parse_command(entry.command)
        except MalformedCommand as exc:
            raise Invalid(f"{where}: {exc.message}", rule="command/malformed", entry=k, errors=exc.errors) from exc
        except (ValueError, TypeError, KeyError) as exc:
            raise Invalid(f"{where} cannot be read: {exc}", rule="variation/entries", entry=k) from exc
        chance = ObservedChance.of(entry.outcomes)
        try:
            produced, after = play(game, state, cmd, chance)
        except RuleViolation as exc:
            shown = exc.to_json(None)
            raise Invalid(f"{where}: {shown['message']}", rule=exc.rule, entry=k, **shown["facts"]) from exc
        if chance.has_unused:
            raise Invalid(f"{where} gives {len(chance.unused)} outcome(s) the rules never asked for",
                                 rule="chance/unused-outcome", entry=k)
        if not produced:
            raise Invalid(f"{where} causes no game event", rule="command/no-events", entry=k)
        if entry.events and tuple(produced) != entry.events:
            raise Invalid(f"{where}: its events are not those the rules give", rule="log/event-mismatch", entry=k)
        if marked == DRAWN:
            seeded = recordfile.live_chance(variation.seed, k)
            try:
                play(game, state, cmd, seeded)
            except RuleViolation:
                seeded.log.append(Outcome("?", "?", ()))  # cannot be the same: reported below
            if [o.to_json() for o in seeded.log] != [o.to_json() for o in entry.outcomes]:
                raise Invalid(f"{where} is marked drawn, but its outcomes are not those its seed gives",
                                     rule="chance/not-from-seed", entry=k)
        variation.played(entry=Entry(cmd.to_json(), tuple(chance.log), tuple(produced)).to_json(), seat=cmd.seat,
                         chance=marked)
        return after

    # ---- reading -------------------------------------------------------------------

    def state_at(self, variation_id: UUID, n: int) -> Any:
        """The game state at step n of the variation's line (0 <= n <= last step; before from_step: the parent's)."""
        variation = self._variation(variation_id)
        return self._state(variation, self._fold(variation), n)

    def _state(self, variation: Variation, fold: Fold, n: int) -> Any:
        if not 0 <= n <= fold.last_step:
            raise NotFound(f"step {n} does not exist; this line has steps 0 to {fold.last_step}",
                                          steps=fold.last_step)
        if n < variation.from_step:
            if variation.parent is None:
                with self.records.access.reading(UUID(variation.record_id)) as timeline:
                    return timeline.state_at(n)
            return self.state_at(UUID(variation.parent), n)
        return fold.state_at(catalog.game(self._meta(UUID(variation.record_id)).title), n)

    def _event_at(self, variation: Variation, fold: Fold, n: int) -> Event:
        """The event that leads to step n (n >= 1) on the variation's line."""
        if n > variation.from_step:
            return fold.events[n - 1 - variation.from_step]
        if variation.parent is None:
            with self.records.access.reading(UUID(variation.record_id)) as timeline:
                return timeline.events[n - 1]
        parent = self._variation(variation.parent)
        return self._event_at(parent, self._fold(parent), n)

    def summary(self, variation_id: UUID) -> VariationSummary:
        variation = self._variation(variation_id)
        return self._summary(variation)

    def _summary(self, variation: Variation) -> VariationSummary:
        meta = self._meta(UUID(variation.record_id))
        fold = self._fold(variation)
        pending = catalog.game(meta.title).pending(fold.checkpoints[-1])
        return VariationSummary(str(variation.id), variation.record_id, variation.parent, variation.from_step,
                                variation.title, variation.author, fold.last_step, len(variation.entries), pending.over,
                                pending.to_json(), variation.created_on.isoformat(), list(variation.chances))

    def of_record(self, record_id: UUID) -> list[VariationSummary]:
        """The record's variations, oldest first."""
        self._meta(record_id)  # 404 for no such record
        try:
            index: RecordVariations = self.records.repository.get(index_id(record_id))
        except AggregateNotFoundError:
            return []
        return [self._summary(self._variation(vid)) for vid in index.variation_ids]

    def step(self, variation_id: UUID, n: int) -> LineStep:
        """Step n of the variation's line, all-seeing (its record is finished), as `Records.reading.step` answers."""
        variation = self._variation(variation_id)
        meta = self._meta(UUID(variation.record_id))
        game = catalog.game(meta.title)
        fold = self._fold(variation)
        state = self._state(variation, fold, n)
        event = self._event_at(variation, fold, n) if n > 0 else None
        return LineStep(all_seeing_step(game, state, n, fold.last_step, event), str(variation.id))

    def legal(self, variation_id: UUID) -> LineLegal:
        """The pending decision at the variation's end and its legal commands, each in the table's words."""
        variation = self._variation(variation_id)
        meta = self._meta(UUID(variation.record_id))
        game = catalog.game(meta.title)
        fold = self._fold(variation)
        state = fold.checkpoints[-1]
        pending = game.pending(state)
        commands = () if pending.over else tuple(
            Choice(c.to_json(), command_said(meta.title, c.to_json(), state, meta.seats, ALL)) for c in game.legal(state))
        return LineLegal(fold.last_step, pending.to_json(), commands)

    def story(self, variation_id: UUID) -> LineStory:
        """The variation's own move list, shaped as `Records.presenting.story` (all-seeing)."""
        variation = self._variation(variation_id)
        meta = self._meta(UUID(variation.record_id))
        game = catalog.game(meta.title)
        fold = self._fold(variation)
        # where an entry's chance came from, as the record's own story marks it: drawn from the variation's
        # seed (anyone can recompute it: "service"), or chosen by its author (a person's word: "transcriber")
        met = [("service" if e.get("chance") == DRAWN else "transcriber") if e.get("outcomes") else None
               for e in self.entries(variation_id)]
        lines: list[StoryLine] = []
        for k, (start, seat) in enumerate(zip(fold.starts, variation.seats, strict=True)):
            state = fold.checkpoints[k]
            round_ = round_in_view(partial(game.view, state, None))
            end = fold.starts[k + 1] if k + 1 < len(fold.starts) else fold.last_step
            for step in range(start + 1, end + 1):
                e = fold.events[step - 1 - fold.base_step]
                text = say(story.tell(game, e, state, meta.seats), ALL)
                state = game.evolve(state, e)
                if text is None:
                    continue
                lines.append(StoryLine(step, seat, meta.seats[seat] if 0 <= seat < len(meta.seats) else None, round_,
                                       text, met[k] if k < len(met) else None))
        return LineStory(fold.last_step, variation.from_step, tuple(lines), str(variation.id))

    def board(self, variation_id: UUID, n: int, draw: Drawing) -> bytes:
        """Step n's board, what changed since step n-1 marked, as `Records.presenting.board` draws a finished record's."""
        variation = self._variation(variation_id)
        key = (variation.id, n)
        found = self._boards.get(key)
        if found is not None:
            return found
        meta = self._meta(UUID(variation.record_id))
        game, edition = self._game(meta)
        fold = self._fold(variation)
        state = self._state(variation, fold, n)
        previous = game.view(self._state(variation, fold, n - 1), None) if n > 0 else None
        svg = draw(meta.title, game.view(state, None), previous, edition, list(meta.seats)).encode()
        self._boards.put(key, svg)
        return svg

    def entries(self, variation_id: UUID) -> list[dict[str, Any]]:
        """The variation's log (Entry.to_json() + "chance"), for an export."""
        variation = self._variation(variation_id)
        return [{**entry, "chance": marked} for entry, marked in zip(variation.entries, variation.chances, strict=True)]

    def exported(self, variation_id: UUID) -> dict[str, Any]:
        """What `restore` takes back: {"from_step","title","author","seed","entries"} (the parent is the caller's)."""
        variation = self._variation(variation_id)
        return {"from_step": variation.from_step, "title": variation.title, "author": variation.author,
                "seed": variation.seed, "entries": self.entries(variation.id)}
