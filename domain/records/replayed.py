"""A rejected import's game as checked, replayed read-only: no record is made.

The dispute checker goes on past each finding with the closest legal move (or a possible
outcome) assumed in its place, so a file with findings still has a whole log, the game as
checked. Its steps are what the import page links each finding to (`Finding.step`: the
game events before that line).

Nothing of it is stored: the log is the checker's verdict on the stored text, so it is
computed again from that text and kept in a bounded in-process memo. Storing the checked
entries in the report instead would put every draw and hidden card of an unfinished game
into a document `Records.imports.status` serves, and make the report far larger than the file it
judges. A rejected import never changes, so its memo never goes stale; if the rules have
changed since the file was judged, the findings read again differ from the stored ones and
the summary says so (`as_reported: false`) rather than linking to the wrong steps.

Readers follow `Records.imports.status`: everyone sees all when the file says the game ended
(its holder has every secret it implies); otherwise a seat token of the import sees that
seat's view and anyone else what every seat sees.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain import catalog, transcripts
from domain.kernel import Edition, Entry, Event, Game, Reader
from domain.kernel.cache import Bounded
from domain.kernel.describe import Sentence, say
from domain.kernel.violations import ALL, reveal
from domain.records import story
from domain.records.access import seat_in
from domain.records.aggregates import ACCEPTED, NOTATION, REJECTED
from domain.records.errors import Conflict, NotFound
from domain.records.readmodels import Step, Story, StoryLine, Turn
from domain.records.readmodels_imports import AssumedLine, ReplaySummary
from domain.records.turns import round_in_view, turn_ranges
from domain.records.views import pending_as_seen, visible

if TYPE_CHECKING:
    from domain.records.application import Records
    from domain.records.presenting import Drawing

EVERY = 16  # a state kept every EVERY steps: any step is at most EVERY-1 folds away
GAMES = 32  # games as checked kept per process
BOARDS = 256  # boards drawn kept per process


@dataclass
class CheckedGame:
    """One rejected import's log as the checker decided it, folded once."""

    title: str
    seats: list[str]
    options: dict[str, Any]
    edition: Edition
    game: Game
    events: list[Event]
    entry_starts: list[int]  # the step each entry starts from (entry 0: the setup)
    entry_seats: list[int | None]
    checkpoints: list[Any]
    report: dict[str, Any]  # the report as read again, secrets still wrapped
    as_reported: bool  # the findings read again are the stored report's (line, rule, step)
    all_seeing: bool  # the file says the game ended: every reader sees all
    token_hashes: list[str]
    sentences: list[Sentence | None] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)

    @property
    def steps(self) -> int:
        return len(self.events)

    def state_at(self, step: int) -> Any:
        state = self.checkpoints[step // EVERY]
        for e in self.events[(step // EVERY) * EVERY : step]:
            state = self.game.evolve(state, e)
        return state


def fold_checked(title: str, edition: Edition, entries: list[Entry]) -> tuple[Game, list[Event], list[int], list[int | None], list[Any]]:
    """The entries' events in order, where each entry starts and whose it is, and the checkpoints."""
    game = catalog.game(title)
    events: list[Event] = []
    starts: list[int] = []
    seats: list[int | None] = []
    state = game.begin(edition)
    checkpoints = [state]
    for index, entry in enumerate(entries):
        starts.append(len(events))
        seats.append(None if index == 0 or entry.command is None else game.parse_command(entry.command).seat)
        for e in entry.events:
            state = game.evolve(state, e)
            events.append(e)
            if len(events) % EVERY == 0:
                checkpoints.append(state)
    return game, events, starts, seats, checkpoints


def count_turns(game: Game, checked: CheckedGame) -> list[Turn]:
    """Setup and turns with their step ranges, as `Records.reading.turns` counts them for a record."""
    sizes = [b - a for a, b in zip(checked.entry_starts, [*checked.entry_starts[1:], checked.steps], strict=True)]
    return turn_ranges(checked.entry_seats, sizes, checked.seats,
                       lambda step: round_in_view(lambda: game.view(checked.state_at(step), None)))


def _marks(findings: list[dict[str, Any]]) -> list[tuple[Any, Any, Any]]:
    return [(f.get("line"), f.get("rule"), f.get("step")) for f in findings]


class ImportReplays:
    """The games as checked of rejected imports, memoised per process."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self._games: Bounded[UUID, CheckedGame] = Bounded("import-replays", GAMES)
        self._boards: Bounded[tuple[UUID, int, str], bytes] = Bounded("import-replay-boards", BOARDS)

    # ---- the game as checked ------------------------------------------------------------

    def checked(self, import_id: UUID) -> CheckedGame:
        found = self._games.get(import_id)
        if found is not None:
            return found
        found = self._check(import_id)
        self._games.put(import_id, found)
        return found

    def _check(self, import_id: UUID) -> CheckedGame:
        stored = self.records.imports.get(import_id)
        if stored.status == ACCEPTED and stored.record_id:
            raise Conflict(f"this import made record {stored.record_id}: replay the record itself",
                           record_id=stored.record_id, location=f"/records/{stored.record_id}")
        if stored.status != REJECTED or stored.report is None:
            raise Conflict(f"the import is {stored.status}; its game can be replayed once it is judged", status=stored.status)
        document = json.loads(stored.document)
        if not (isinstance(document, dict) and document.get("format") == NOTATION):
            raise Conflict("only a notation file's game as checked can be replayed; this import is a record file")
        report = transcripts.check_text(str(document.get("text", "")))
        if report.entries is None or report.title is None:
            raise Conflict("the moves of this file were not read (its header or syntax stopped the checker): "
                           "there is no game to replay", summary=stored.report.get("summary"))
        edition = catalog.game(report.title).default_edition()  # the only edition the checker reads a text with
        entries = list(report.entries)
        game, events, starts, seats, checkpoints = fold_checked(report.title, edition, entries)
        again = report.to_json()
        checked = CheckedGame(
            title=report.title, seats=list(report.seats), options=dict(report.options), edition=edition, game=game,
            events=events, entry_starts=starts, entry_seats=seats, checkpoints=checkpoints, report=again,
            as_reported=_marks(again["findings"]) == _marks(stored.report.get("findings") or []),
            all_seeing=bool(stored.report.get("file_says_finished")), token_hashes=list(stored.token_hashes),
        )
        state = checkpoints[0]
        for e in events:
            checked.sentences.append(story.tell(game, e, state, checked.seats))
            state = game.evolve(state, e)
        checked.turns = count_turns(game, checked)
        return checked

    def _reader(self, checked: CheckedGame, token: str | None) -> tuple[Reader, int | None, str]:
        """(reader, seat, view name) as an import's status decides who reads."""
        seat = seat_in(checked.token_hashes, token, "import")
        if checked.all_seeing:
            return ALL, None, "all"
        if seat is not None:
            return seat, seat, f"seat:{seat}"
        return None, None, "public"

    def _at(self, checked: CheckedGame, n: int) -> None:
        if not 0 <= n <= checked.steps:
            raise NotFound(f"step {n} does not exist; the game as checked has steps 0 to {checked.steps}", steps=checked.steps)

    # ---- what a reader gets --------------------------------------------------------------

    def summary(self, import_id: UUID, token: str | None = None) -> ReplaySummary:
        """Title, seats, steps, turns and the lines where the checker assumed another move than the written one."""
        checked = self.checked(import_id)
        reader, _, which = self._reader(checked, token)
        report = reveal(checked.report, reader)
        assumed = tuple(AssumedLine.of(f) for f in report["findings"] if f.get("assumed") is not None)
        return ReplaySummary(
            str(import_id), checked.title, checked.edition.ref, tuple(checked.seats), checked.options, checked.steps,
            checked.game.pending(checked.state_at(checked.steps)).over, which, assumed, len(report["findings"]),
            report["summary"], checked.as_reported, tuple(checked.turns),
        )

    def step(self, import_id: UUID, n: int, token: str | None = None) -> Step:
        """The state after the first n events of the game as checked, as the reader may see it."""
        checked = self.checked(import_id)
        reader, seat, _ = self._reader(checked, token)
        self._at(checked, n)
        game = checked.game
        state = checked.state_at(n)
        which, view = visible(game, state, len(checked.seats), reader is ALL, seat)
        pending = game.pending(state)
        shown = pending_as_seen(pending, reader is ALL or (seat is not None and seat == pending.seat))
        return Step(n, checked.steps, which, view, shown, event=checked.events[n - 1].type if n > 0 else None,
                    scores=game.scores(state) if reader is ALL else None)

    def story(self, import_id: UUID, token: str | None = None) -> Story:
        """The move list of the game as checked: one line per event the title puts in words."""
        checked = self.checked(import_id)
        reader, _, which = self._reader(checked, token)
        rounds = story.rounds_by_step(checked.turns, checked.steps)
        seats = story.seats_by_step(checked.entry_starts, checked.entry_seats, checked.steps)
        lines = []
        for k in range(1, checked.steps + 1):
            text = say(checked.sentences[k - 1], reader)
            if text is None:
                continue
            seat = seats[k]
            lines.append(StoryLine(k, seat, checked.seats[seat] if seat is not None else None, rounds[k], text))
        return Story(checked.steps, which, tuple(lines), catalog.round_word(checked.title))

    def board(self, import_id: UUID, n: int, token: str | None, draw: Drawing) -> bytes:
        """Step n's board as SVG, what changed since step n-1 marked; `draw` may raise (no layout)."""
        checked = self.checked(import_id)
        reader, seat, which = self._reader(checked, token)
        self._at(checked, n)
        key = (import_id, n, which)
        found = self._boards.get(key)
        if found is not None:
            return found
        game, seats, every = checked.game, len(checked.seats), reader is ALL
        previous = visible(game, checked.state_at(n - 1), seats, every, seat)[1] if n > 0 else None
        view = visible(game, checked.state_at(n), seats, every, seat)[1]
        svg = draw(checked.title, view, previous, checked.edition, list(checked.seats)).encode()
        self._boards.put(key, svg)
        return svg
