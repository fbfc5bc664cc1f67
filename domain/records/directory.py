"""Lists of records and imports: a projection that follows the application's notification log.

Each process keeps its own copy and catches up (one indexed query for the few topics it
cares about) before answering, so any number of API processes and the relay agree with
the event store without a second database.

The records list is answered from in-memory indexes, not a scan (issue 16: 100,000 records,
p99 <= 20 ms): per key (every record; a title; a status; a title and a status; a player's
casefolded name) the summaries in notification order, oldest first, so a page newest first is
a slice from the end and the count is the list's length. A record that finishes moves from its
in-progress lists to its finished ones (bisect by position). A query with a player and another
filter reads the shortest list that covers one of its filters and checks the others on it.

A new process reads the whole log once (issue 16: 100,000 records took 10-50 s through the
library's notifications, one JSON document and one summary at a time). On PostgreSQL and SQLite
with plain JSON (no cipher, no compressor) that catch-up is done in bulk (`_SqlLog`, by the store's
`RowRecorder.select_notified_rows`, domain/records/store):

- windows of notification ids, never `LIMIT`: a window's rows are sorted in memory, where a large
  `LIMIT` made PostgreSQL sort every row after the position on each page;
- only the bytes read: an import's events are read for their timestamp (the first 200 bytes: a
  `Submitted` carries the whole imported file), a finished record's scores not at all when far
  behind (`scores_at`: read on the first page that shows the record, one indexed query a page);
- a record's `Started` state read by one anchored regular expression that follows the JSON
  layout exactly (strings with escapes, flat objects), its four values then decoded in one
  `json.loads` per window as small arrays, not as dicts; a state the expression does not match
  (another key order, nested options) is decoded whole, so what is read never changes;
- the indexes rebuilt once at the end in notification order (what appending keeps), not moved
  one finished record at a time;
- the cyclic garbage collector paused (timeline.paused_collector).

Any other store (the library's in-memory one) or a mapper with a cipher or a compressor is read
the library's way, unchanged. A new API process warms its directory in a background thread
(`start_warming`, started by api/app.py) and says so on /readyz until it is done (api/health.py).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import threading
import time
import weakref
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Any
from uuid import UUID

from eventsourcing.utils import get_topic

from domain.records.aggregates import ACCEPTED, QUEUED, REJECTED, SUBMITTED, VALIDATING, Import, Record
from domain.records.store import RowRecorder
from domain.records.story import winners
from domain.records.timeline import decode_rows, paused_collector, timestamp_of

# The library makes each aggregate's event classes from its @event methods: the checker cannot see them.
TOPICS = [
    get_topic(Record.Started),  # type: ignore[attr-defined]
    get_topic(Record.Finished),  # type: ignore[attr-defined]
    get_topic(Import.Submitted),  # type: ignore[attr-defined]
    get_topic(Import.Queued),  # type: ignore[attr-defined]
    get_topic(Import.Validating),  # type: ignore[attr-defined]
    get_topic(Import.Accepted),  # type: ignore[attr-defined]
    get_topic(Import.Rejected),  # type: ignore[attr-defined]
]
STARTED_TOPIC, FINISHED_TOPIC, SUBMITTED_TOPIC, QUEUED_TOPIC = TOPICS[:4]
IMPORT_KINDS = {TOPICS[4]: VALIDATING, TOPICS[5]: ACCEPTED, TOPICS[6]: REJECTED}
# Read for their timestamp only: the first PREFIX bytes of their state (a Finished's when its scores wait).
SHORT_TOPICS = [SUBMITTED_TOPIC, *IMPORT_KINDS]
PREFIX = 200

WINDOW = 20_000  # notification ids a bulk query covers at first; grown while windows are sparse (game events)
MAX_WINDOW = 1 << 22
WINDOW_ROWS = 20_000  # rows a window aims at
EAGER_BELOW = 2_000  # a catch-up this few ids behind reads finished records' scores at once (and keeps its indexes)

# The JSON layout of what the library stores (json.dumps, separators "," and ":", keys in the event's order).
_STR = rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"'  # a JSON string, escapes included
_FLAT = rb'(?:' + _STR + rb'|[^"{}\[\]]++)*+'  # the inside of an object or array with nothing nested
_STAMP = rb'\{"timestamp":\{"_type_":"datetime_iso","_data_":"([^"\\]*+)"\}'
STAMP_RE = re.compile(_STAMP + rb'[,}]')
STARTED_RE = re.compile(
    _STAMP + rb',"originator_topic":' + _STR + rb',"title":(' + _STR + rb'),"edition":(?:null|\{' + _FLAT + rb'\}),'
    rb'"edition_file":(?:null|' + _STR + rb'),"seats":(\[(?:' + _STR + rb'(?:,' + _STR + rb')*+)?\]),'
    rb'"token_hashes":\[' + _FLAT + rb'\],"options":\{' + _FLAT + rb'\},"mode":(' + _STR + rb')[,}]')


@dataclass(slots=True)
class RecordSummary:
    id: UUID
    title: str
    players: list[str]
    mode: str
    created: str
    position: int
    finished: bool = False
    ranking: list[int] = field(default_factory=list)
    totals: dict[int, Any] = field(default_factory=dict)  # seat -> final total, once finished
    winners: list[int] = field(default_factory=list)
    folded: frozenset[str] = frozenset()  # the players' names casefolded, for the player filter
    scores_at: int | None = None  # the Finished notification whose scores are not read yet (module doc)

    def __post_init__(self) -> None:
        self.folded = frozenset(map(str.casefold, self.players))

    @property
    def status(self) -> str:
        return "finished" if self.finished else "in-progress"


@dataclass
class ImportSummary:
    id: UUID
    status: str
    submitted: str
    touched: float
    attempts: int = 0
    job_id: str | None = None


class _SqlLog:
    """The notification log read in bulk, straight from the events table (the store's `RowRecorder`)."""

    def __init__(self, recorder: RowRecorder) -> None:
        self.recorder = recorder

    @staticmethod
    def of(recorder: Any, mapper: Any) -> _SqlLog | None:
        """The bulk reader for this store, or None: read the library's way (module doc)."""
        if getattr(mapper, "cipher", None) is not None or getattr(mapper, "compressor", None) is not None:
            return None
        if isinstance(recorder, RowRecorder):
            return _SqlLog(recorder)
        return None

    def last(self) -> int:
        return int(self.recorder.max_notification_id() or 0)

    def window(self, after: int, upto: int, short: Sequence[str]) -> list[tuple[int, UUID, str, bytes]]:
        """(id, originator id, topic, state) of the directory's notifications in (after, upto], oldest first;
        the state of a topic in `short` cut to its first PREFIX bytes (a Finished one's left out: its scores wait)."""
        return self.recorder.select_notified_rows(after, upto, TOPICS, short=[t for t in short if t != FINISHED_TOPIC],
                                                  prefix=PREFIX, empty=[t for t in short if t == FINISHED_TOPIC])

    def states(self, ids: Sequence[int]) -> dict[int, bytes]:
        """The whole stored state of these notifications, by id."""
        return self.recorder.select_states(ids)


class Directory:
    def __init__(self, recorder: Any, mapper: Any) -> None:
        self.recorder = recorder
        self.mapper = mapper
        self.position = 0
        self.records: dict[UUID, RecordSummary] = {}
        self.imports: dict[UUID, ImportSummary] = {}
        self._index: dict[tuple[str, ...], list[RecordSummary]] = {}  # key -> summaries, oldest first (module doc)
        self._lock = threading.Lock()
        self._log = _SqlLog.of(recorder, mapper)
        self._deferred = False  # a bulk catch-up under way: the indexes are rebuilt at its end
        self.warm = threading.Event()  # the first catch-up is done (what /readyz waits for)
        self.warm_error: str | None = None  # why the last warm-up failed (one line, no secrets)
        self.warm_seconds: float | None = None
        self._warming: tuple[int, threading.Thread] | None = None  # (process id, thread)
        mine = weakref.WeakMethod(self._after_fork)  # the hook outlives the directory; it must not keep it alive
        os.register_at_fork(after_in_child=lambda: _call(mine))

    # ---- catching up ---------------------------------------------------------------------

    def catch_up(self) -> None:
        with self._lock:
            if self._log is None:
                self._catch_up_by_notifications()
            else:
                self._catch_up_in_bulk(self._log)

    def _catch_up_by_notifications(self) -> None:
        """The library's way: pages of notifications, each state decoded whole."""
        while True:
            rows = self.recorder.select_notifications(self.position, limit=500, topics=TOPICS, inclusive_of_start=False)
            if not rows:
                return
            triples = [(row.originator_version, row.topic, row.state) for row in rows]
            for row, (_, topic, payload) in zip(rows, decode_rows(self.mapper, triples), strict=True):
                self._absorb(row.originator_id, row.id, topic, payload)
                self.position = row.id

    def _catch_up_in_bulk(self, log: _SqlLog) -> None:
        """Windows of notification ids up to the last one stored now (module doc).

        Every id up to the last stored one is committed (the library appends under an exclusive table lock,
        so ids are issued in commit order), so a window read after `last` misses none of its rows and the
        position can move to the window's end even when it held none of ours.
        """
        last = log.last()
        if last <= self.position:
            return
        far = last - self.position > EAGER_BELOW
        short = [*SHORT_TOPICS, FINISHED_TOPIC] if far else SHORT_TOPICS
        if not far:
            self._absorb_window(log, log.window(self.position, last, short), lazy=False)
            self.position = last
            return
        # Far behind: the next window is read (by the database, in another thread) while this one is absorbed.
        self._deferred = True
        width = WINDOW
        try:
            with paused_collector(), ThreadPoolExecutor(1, thread_name_prefix="cronaca-directory-read") as reader:
                upto = min(self.position + width, last)
                coming: Future[list[tuple[int, UUID, str, bytes]]] | None = reader.submit(
                    log.window, self.position, upto, short)
                while coming is not None:
                    rows = coming.result()
                    if len(rows) < WINDOW_ROWS // 4:
                        width = min(width * 4, MAX_WINDOW)
                    elif len(rows) > WINDOW_ROWS * 2:
                        width = max(width // 2, 1_000)
                    after, upto = upto, min(upto + width, last)
                    coming = reader.submit(log.window, after, upto, short) if after < last else None
                    try:
                        self._absorb_window(log, rows, lazy=True)
                    except BaseException:
                        if coming is not None:
                            coming.cancel()
                        raise
                    self.position = after
        finally:
            self._deferred = False
            self._rebuild_index()

    def _absorb_window(self, log: _SqlLog, rows: list[tuple[int, UUID, str, bytes]], lazy: bool) -> None:
        """One window's rows: every state read first (nothing changes if a read fails), then absorbed.

        Records and imports are separate projections, and a record's `Finished` only needs its `Started`
        absorbed before it: so the window's starts are absorbed in order, then its ends, then its imports."""
        started = [row for row in rows if row[2] == STARTED_TOPIC]
        ended = [row for row in rows if row[2] == FINISHED_TOPIC]
        imported = [row for row in rows if row[2] != STARTED_TOPIC and row[2] != FINISHED_TOPIC]
        matched = [STARTED_RE.match(row[3]) for row in started]
        fragments = [b'["%b",%b,%b,%b]' % m.group(1, 2, 3, 4) for m in matched if m is not None]
        decoded = iter(json.loads(b"[" + b",".join(fragments) + b"]") if fragments else [])
        starts = [next(decoded) if m is not None else json.loads(row[3]) for row, m in zip(started, matched, strict=True)]
        scores = [None] * len(ended) if lazy else [json.loads(row[3])["scores"] for row in ended]
        stamps: list[Any] = []
        whole: list[int] = []  # import rows whose cut state did not match: read whole below
        for position, _, topic, state in imported:
            if topic == QUEUED_TOPIC:
                stamps.append(json.loads(state))
                continue
            m = STAMP_RE.match(state)
            if m is None:
                whole.append(position)
            stamps.append(None if m is None else m.group(1).decode())
        if whole:
            found = log.states(whole)
            stamps = [json.loads(found[row[0]]) if row[0] in found else value for row, value in zip(imported, stamps,
                                                                                                strict=True)]
        for (position, oid, _, _), start in zip(started, starts, strict=True):
            if type(start) is list:  # [stamp, title, seats, mode], cut from the row (STARTED_RE)
                self._start(oid, position, start[1], start[2], start[3], start[0])
            else:
                self._absorb(oid, position, STARTED_TOPIC, start)
        for (position, oid, _, _), scored in zip(ended, scores, strict=True):
            self._finish(oid, position, scored)
        for (position, oid, topic, _), value in zip(imported, stamps, strict=True):
            if isinstance(value, dict):
                self._absorb(oid, position, topic, value)
            else:
                self._imported(oid, topic, value, None)

    def _absorb(self, oid: Any, position: int, topic: str, payload: dict[str, Any]) -> None:
        """One notification, its state decoded whole."""
        oid = oid if isinstance(oid, UUID) else UUID(str(oid))
        if topic.endswith("Record.Started"):
            self._start(oid, position, payload["title"], payload["seats"], payload["mode"], timestamp_of(payload))
        elif topic.endswith("Record.Finished"):
            self._finish(oid, position, payload["scores"])
        else:
            self._imported(oid, topic, timestamp_of(payload), payload)

    def _start(self, oid: UUID, position: int, title: str, seats: list[str], mode: str, stamp: str) -> None:
        if oid in self.records:  # a stream starts once; never index a record twice
            return
        summary = RecordSummary(oid, title, seats, mode, stamp, position)
        self.records[oid] = summary
        if not self._deferred:
            for key in self._keys(summary):
                self._index.setdefault(key, []).append(summary)  # notification order: appended is in order

    def _finish(self, oid: UUID, position: int, scores: dict[str, Any] | None) -> None:
        """A record's end; its scores read now, or (None) on the first page that shows it (`scores_at`)."""
        summary = self.records.get(oid)
        if summary is None:
            return
        if not summary.finished and not self._deferred:
            self._move_to_finished(summary)
        summary.finished = True
        if scores is None:
            summary.scores_at = position
        else:
            self._scored(summary, scores)

    @staticmethod
    def _scored(summary: RecordSummary, scores: dict[str, Any]) -> None:
        summary.ranking = list(scores.get("ranking", []))
        summary.totals = {row["seat"]: row.get("total") for row in scores.get("seats", [])
                          if isinstance(row, dict) and "seat" in row}
        summary.winners = winners(scores)
        summary.scores_at = None

    def _imported(self, oid: UUID, topic: str, stamp: str, payload: dict[str, Any] | None) -> None:
        """An import's event: its status, when it was last touched, its attempts and job."""
        if topic == SUBMITTED_TOPIC or topic.endswith("Import.Submitted"):
            self.imports[oid] = ImportSummary(oid, SUBMITTED, stamp, _seconds(stamp))
            return
        found = self.imports.get(oid)
        if found is None:
            return
        found.touched = _seconds(stamp)
        kind = topic.rsplit(".", 1)[-1]
        if kind == "Queued":
            found.attempts += 1
            found.job_id = (payload or {}).get("job_id")
            if found.status == SUBMITTED:
                found.status = QUEUED
        else:
            found.status = {"Validating": VALIDATING, "Accepted": ACCEPTED, "Rejected": REJECTED}[kind]

    def _load_scores(self, summaries: list[RecordSummary]) -> None:
        """The scores of the finished records among these that a bulk catch-up left unread: one query."""
        waiting = {s.scores_at: s for s in summaries if s.scores_at is not None}
        if not waiting or self._log is None:
            return
        for position, state in self._log.states(list(waiting)).items():
            self._scored(waiting[position], json.loads(state)["scores"])

    # ---- warming up (a new process) --------------------------------------------------------

    def start_warming(self) -> None:
        """Catch up once in a background thread, so the first request does not wait for it (api/app.py).

        Started again if the last attempt failed (the store did not answer) or in a forked child, whose
        parent's thread does not exist there; a no-op once warm or while a thread of this process runs."""
        if self.warm.is_set():
            return
        running = self._warming
        if running is not None and running[0] == os.getpid() and running[1].is_alive():
            return
        thread = threading.Thread(target=self._warm_up, name="cronaca-directory-warm-up", daemon=True)
        self._warming = (os.getpid(), thread)
        thread.start()

    def stop_warming(self, timeout: float = 30.0) -> None:
        """Wait for this process's warm-up thread, if one runs: the store must not close under it (a read on
        an SQLite connection closed by another thread can crash the whole process)."""
        running = self._warming
        if running is not None and running[0] == os.getpid() and running[1] is not threading.current_thread():
            running[1].join(timeout)

    def _warm_up(self) -> None:
        started = time.perf_counter()
        try:
            self.catch_up()
        except Exception as exc:  # noqa: BLE001  (said by /readyz, which starts another attempt)
            self.warm_error = f"{type(exc).__name__}"
            return
        self.warm_error = None
        self.warm_seconds = time.perf_counter() - started
        self.warm.set()

    def progress(self) -> str:
        """What /readyz says while warming: how far the catch-up is (read without the lock: it is held)."""
        said = f"warming: {len(self.records):,} records read"
        if self.warm_error:
            said += f" (the last attempt failed: {self.warm_error}; trying again)"
        return said

    # ---- indexes -----------------------------------------------------------------------------

    @staticmethod
    def _keys(summary: RecordSummary) -> list[tuple[str, ...]]:
        """Every index list a record is in (its status part changes when it finishes)."""
        return [("all",), ("title", summary.title), ("status", summary.status),
                ("title+status", summary.title, summary.status), *(("player", p) for p in sorted(summary.folded))]

    def _rebuild_index(self) -> None:
        """Every index list from the summaries, in notification order (the records dict's order): what
        appending each record as it started and moving it when it finished would have made."""
        everything = list(self.records.values())
        by_title: defaultdict[tuple[str, bool], list[RecordSummary]] = defaultdict(list)
        by_player: defaultdict[str, list[RecordSummary]] = defaultdict(list)
        for summary in everything:
            by_title[summary.title, summary.finished].append(summary)
            for name in summary.folded:
                by_player[name].append(summary)
        index: dict[tuple[str, ...], list[RecordSummary]] = {("all",): everything}
        for finished in (False, True):
            status = "finished" if finished else "in-progress"
            found = [s for s in everything if s.finished is finished]
            if found:
                index["status", status] = found
        for title in {title for title, _ in by_title}:  # a title's list merges its two statuses' lists back into notification order
            parts = [by_title.get((title, False), []), by_title.get((title, True), [])]
            index["title", title] = sorted(parts[0] + parts[1], key=_position) if all(parts) else parts[0] or parts[1]
            for finished, part in zip((False, True), parts, strict=True):
                if part:
                    index["title+status", title, "finished" if finished else "in-progress"] = part
        index.update((("player", name), found) for name, found in by_player.items())
        self._index = index

    def _move_to_finished(self, summary: RecordSummary) -> None:
        """A record that finishes leaves its in-progress lists for its finished ones, kept in notification order."""
        for old, new in ((("status", "in-progress"), ("status", "finished")),
                         (("title+status", summary.title, "in-progress"), ("title+status", summary.title, "finished"))):
            ordered = self._index.get(old, [])
            k = bisect.bisect_left(ordered, summary.position, key=_position)
            if k < len(ordered) and ordered[k] is summary:
                del ordered[k]
            target = self._index.setdefault(new, [])
            if not target or target[-1].position < summary.position:  # finishing in the order they started: the usual
                target.append(summary)
            else:
                target.insert(bisect.bisect_left(target, summary.position, key=_position), summary)

    def _lists(self, title: str | None, wanted: str | None, status: str | None) -> tuple[str, list[RecordSummary], bool]:
        """(the index's name, its list, whether it matches the query exactly) for the shortest list covering a filter."""
        if wanted is None:
            key: tuple[str, ...] = (("title+status", title, status) if title and status else ("title", title) if title
                                    else ("status", status) if status else ("all",))
            return " + ".join(key[0].split("+")), self._index.get(key, []), True
        options = [("player", self._index.get(("player", wanted), []))]
        if title and status:
            options.append(("title+status", self._index.get(("title+status", title, status), [])))
        elif title or status:
            options.append(("title" if title else "status",
                            self._index.get(("title", title) if title else ("status", str(status)), [])))
        name, found = min(options, key=lambda option: len(option[1]))
        return " + ".join(name.split("+")), found, not (title or status)

    def plan(self, title: str | None = None, player: str | None = None, status: str | None = None) -> str:
        """Which index answers this query (for the listing benchmark and the docs): its name and length, and
        whether the other filters are checked on its records."""
        self.catch_up()
        with self._lock:
            name, found, exact = self._lists(title or None, player.casefold() if player else None, status or None)
            return f"{name} index ({len(found):,} records{'' if exact else ', other filters checked on each'})"

    def _matching(self, title: str | None, player: str | None, status: str | None) -> tuple[list[RecordSummary], bool]:
        """The summaries that match, oldest first (the index's own list when exact: callers must not change it)."""
        wanted = player.casefold() if player else None
        _, found, exact = self._lists(title or None, wanted, status or None)
        if exact:
            return found, True
        return [s for s in found if (not title or s.title == title) and (not status or s.status == status)
                and (wanted is None or wanted in s.folded)], False

    def find(
        self, title: str | None = None, player: str | None = None, status: str | None = None
    ) -> list[RecordSummary]:
        """Newest first."""
        self.catch_up()
        with self._lock:
            found, _ = self._matching(title, player, status)
            return found[::-1]

    def _after_fork(self) -> None:
        """In a forked child (gunicorn `--preload`): a catch-up the parent had under way (its lock held by a thread
        that does not exist here) is dropped, and the child reads the log again from the start."""
        if not self._lock.locked():
            return
        self._lock = threading.Lock()
        self.position, self.records, self.imports, self._index = 0, {}, {}, {}
        self._deferred = False
        self.warm = threading.Event()
        self._warming = None

    def page(self, title: str | None = None, player: str | None = None, status: str | None = None,
             offset: int = 0, limit: int = 20) -> tuple[int, list[RecordSummary]]:
        """(how many match, the `limit` of them after `offset`), newest first.

        The matching list is in notification order (oldest first), so newest first is a slice
        from its end: no sort and no scan when an index matches the query exactly (module doc).
        The page's finished records whose scores a bulk catch-up left unread are read now, in one query.
        """
        self.catch_up()
        with self._lock:
            found, _ = self._matching(title, player, status)
            total = len(found)
            stop = max(total - max(offset, 0), 0)
            shown = found[max(stop - max(limit, 0), 0):stop][::-1]
            self._load_scores(shown)
            return total, shown


_position = attrgetter("position")


def _call(method: weakref.WeakMethod[Callable[[], None]]) -> None:
    """A method held weakly, called if its object still lives."""
    bound = method()
    if bound is not None:
        bound()


def _seconds(stamp: str) -> float:
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return 0.0
