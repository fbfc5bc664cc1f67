"""What the viewer shows of a record beside its steps: the story (the move list), each step's board as a
drawing, and the scores over time; and the caches that keep them.

A record's stream is append-only, so what is drawn or told of a step never changes: sentences and answers are
kept on the timeline per version (`Timeline.memo`), drawn boards per (record, step, view) in `boards`.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain.kernel import Edition, Reader
from domain.kernel.cache import Bounded
from domain.kernel.describe import Sentence, say
from domain.kernel.violations import ALL
from domain.records import story
from domain.records.errors import NotFound
from domain.records.reading import by_at
from domain.records.readmodels import ReadModel, ScoresOverTime, SeatTotals, Story, StoryLine, as_bytes
from domain.records.timeline import Meta, Timeline
from domain.records.views import visible

if TYPE_CHECKING:
    from domain.records.application import Records

BOARD_CACHE_BYTES = 64 * 1024 * 1024  # drawn boards kept per process (tens of KB each)
BOARD_CACHE = BOARD_CACHE_BYTES // 1024  # at most this many boards, whatever their bytes (none is under 1 KB)

Drawing = Callable[[str, Any, Any, Edition, list[str]], str]
"""(title, view, previous view, edition, seat names) -> SVG: the viewer's `replay_viewer.boards.draw`."""


@dataclass(frozen=True)
class Board:
    """One step's board as one reader sees it: the SVG, its entity tag, and whether it is final (a finished record)."""

    svg: bytes
    etag: str
    finished: bool


def reader_of(meta: Meta, seat: int | None) -> tuple[Reader, str]:
    """Who reads, and the name of that view: all-seeing once finished, else the token's seat or the public."""
    if meta.finished:
        return ALL, "all"
    if seat is not None:
        return seat, f"seat:{seat}"
    return None, "public"



class Presenting:
    """The story, the boards and the scores over time of a record, as its reader may see them."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.boards: Bounded[tuple[UUID, int, str], Board] = Bounded("boards", BOARD_CACHE)
        self._board_bytes = 0
        self._board_lock = threading.Lock()

    def _sentences(self, timeline: Timeline) -> list[Sentence | None]:
        """Every event's sentence, told once: the stream is append-only, so only new events are folded."""
        meta = timeline.meta
        assert meta is not None
        known = timeline.memo.get("story:sentences")  # (events told, their sentences): true at any later version
        said: list[Sentence | None] = list(known[1]) if known is not None else []
        if len(said) < len(timeline.events):
            game = timeline.game
            state = timeline.state_at(len(said))
            for e in timeline.events[len(said):]:
                said.append(story.tell(game, e, state, meta.seats))
                state = game.evolve(state, e)
            timeline.memo["story:sentences"] = (len(said), said)
        return said


    def story(self, record_id: UUID, token: str | None = None) -> Story:
        """The move list: one line per event that the title puts in words, as this reader may read it."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            reader, which = reader_of(meta, seat)
            if not meta.entry_starts:  # shared dice, waiting for its seats: nothing has happened yet
                return Story(0, which, ())
            return timeline.kept(f"story:{which}", lambda: self._told(record_id, timeline, meta, reader, which))

    def _told(self, record_id: UUID, timeline: Timeline, meta: Meta, reader: Reader, which: str) -> Story:
        """The move list as `reader` reads it (immutable: kept on the timeline, shared, never copied)."""
        steps = len(timeline.events)
        said = self._sentences(timeline)
        rounds = story.rounds_by_step(self.records.reading.turns(record_id), steps)
        seats = story.seats_by_step(meta.entry_starts, meta.entry_seats, steps)
        lines = []
        for k in range(1, steps + 1):
            text = say(said[k - 1], reader)
            if text is None:
                continue
            seat = seats[k]
            lines.append(StoryLine(k, seat, meta.seats[seat] if seat is not None else None, rounds[k], text,
                                   by_at(timeline, k)))  # the entry met chance: drawn by the service, or asserted
        return Story(steps, which, tuple(lines))

    def story_json(self, record_id: UUID, token: str | None = None) -> bytes:
        """`story` as the API's JSON body, kept per (version, reader): a live page asks again every few seconds."""
        return self._as_json(record_id, token, "story", self.story)

    def scores_json(self, record_id: UUID, token: str | None = None) -> bytes:
        """`scores_over_time` as the API's JSON body, kept per version."""
        return self._as_json(record_id, token, "scores", self.scores_over_time)

    def _as_json(self, record_id: UUID, token: str | None, name: str,
                 answer: Callable[[UUID, str | None], ReadModel]) -> bytes:
        """The bodies are kept on the timeline beside the models: which version and reader they answer is known
        only under the record's lock, hence here and not at the edge."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            _, which = reader_of(meta, seat)
            return timeline.kept(f"{name}-json:{which}", lambda: as_bytes(answer(record_id, token)))

    def board(self, record_id: UUID, n: int, token: str | None, draw: Drawing) -> Board:
        """Step n's board as this reader may see it, with what changed since step n-1 marked by `draw`.

        The state at a step never changes (streams are append-only), so a drawing is kept per
        (record, step, view) in a bounded cache; `draw` may raise (a title with no layout).
        """
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            _, which = reader_of(meta, seat)
            steps = len(timeline.events)
            if not 0 <= n <= steps:
                raise NotFound(f"step {n} does not exist; this record has steps 0 to {steps}", steps=steps)
            # a take-back makes a step of a record in progress another state: its drawings are new
            key = (record_id, n, f"{which}@{meta.withdrawn_steps}" if meta.withdrawn_steps else which)
            found = self.boards.get(key)
            if found is not None:
                return found
            game = timeline.game
            seat = int(which.split(":")[1]) if which.startswith("seat:") else None
            previous = None
            if n > 0:
                before = timeline.state_at(n - 1)
                previous = visible(game, before, len(meta.seats), meta.finished, seat)[1]
                state = game.evolve(before, timeline.events[n - 1])
            else:
                state = timeline.state_at(0)
            view = visible(game, state, len(meta.seats), meta.finished, seat)[1]
            title, names, finished, edition = meta.title, list(meta.seats), meta.finished, self.records.edition_of(meta)
        # drawn outside the record's lock: neighbouring steps fetched at once are drawn side by side
        svg = draw(title, view, previous, edition, names).encode()
        found = Board(svg, f'"{hashlib.sha256(svg).hexdigest()[:32]}"', finished)
        self._keep_board(key, found)
        return found

    def _keep_board(self, key: tuple[UUID, int, str], board: Board) -> None:
        """Keep a drawn board, the oldest dropped while the boards kept pass BOARD_CACHE_BYTES (one stays)."""
        with self._board_lock:
            was = self.boards.pop(key)
            self._board_bytes += len(board.svg) - (len(was.svg) if was is not None else 0)
            for _, dropped in self.boards.put(key, board):
                self._board_bytes -= len(dropped.svg)
            while self._board_bytes > BOARD_CACHE_BYTES and len(self.boards) > 1:
                oldest = self.boards.pop_oldest()
                if oldest is not None:
                    self._board_bytes -= len(oldest[1].svg)

    def kept_board(self, record_id: UUID, n: int, token: str | None) -> Board | None:
        """A finished record's board already drawn, or None: for the WSGI fast path, which hands every
        other case (and every error) to `board` through Flask."""
        found = self.boards.get((record_id, n, "all"))
        if found is None:
            return None
        self.records.access.check(record_id, token)  # a forged token is refused even where it would change nothing
        return found

    def scores_over_time(self, record_id: UUID, token: str | None = None) -> ScoresOverTime:
        """Every seat's running total at every step, round marks, lead changes and the final scores.

        Only once the game is over: a running score can carry what a seat hides (Serenissima's ducats).
        """
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            if not meta.finished:
                return ScoresOverTime(available=False, reason=story.UNAVAILABLE)
            return timeline.kept("scores", lambda: self._counted(record_id, timeline, meta))

    def _counted(self, record_id: UUID, timeline: Timeline, meta: Meta) -> ScoresOverTime:
        """Every seat's total at every step of a finished record (immutable: kept, shared, never copied)."""
        game = timeline.game
        seats = len(meta.seats)
        state = timeline.state_at(0)
        totals = [story.totals_of(game.scores(state), seats)]
        for e in timeline.events:
            state = game.evolve(state, e)
            totals.append(story.totals_of(game.scores(state), seats))
        final = game.scores(state)
        return ScoresOverTime(
            available=True,
            steps=len(timeline.events),
            seats=tuple(SeatTotals(i, name, [row[i] for row in totals]) for i, name in enumerate(meta.seats)),
            rounds=story.round_marks(self.records.reading.turns(record_id)),
            lead_changes=story.lead_changes(totals, final.get("ranking") or []),
            final=final,
        )
