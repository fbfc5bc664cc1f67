"""When a line cannot stand: the smallest explanation that lets what follows stand. Pure: no I/O.

A table's slips are few in kind: a move written with other words or another payment (in the refused
move, or in a move before it that the rules took but that left the rest of the line refused), two
lines in the other order, a turn left out (often the end of a round), a turn written twice, a line
under the wrong player's name, a name misspelt, a step forgotten whose outcomes were written on the
move before it. Each is an edit of the reading, never of the file: the same lines read with one move
standing for another, in another order, under another seat, with a turn or a step nobody wrote put
in, or with a line left out. Each candidate is judged by reading the lines after it strictly through
the rules (`LOOKAHEAD` lines, until the first one refused): the one that reads furthest with the
fewest edits is chosen, the same move closest to what was written first. Candidates that read the
whole lookahead alike are judged further, from where they stopped, until they differ (and at the end
of the file, by the result the table wrote down). A turn nobody wrote is chosen among the legal ones,
those whose places and things the next lines speak of first; its outcomes nobody wrote down either,
so where the first possible one makes the next line refused, the values the lines after it need
are tried. Going on from the first legal move in list order is what turns one slip into dozens of
findings (every PGN importer's "illegal move" cascade); going on from the reading the rest of the
file agrees with names the slip once and reads the rest as the table meant it.

The search is bounded (`Budget`): commands decided and CPU time for one check, and the whole check
(searches, the narrowing of unknowns, the file read again) shares one cap in both. Past it the
checker goes on as it always did (the closest legal move, or the line skipped), and the report
says the budget was spent and what was not done. A title is never named here: the checker lends its reading (`Reader`).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.kernel.commands import Command
from domain.kernel.notation import Turn, Written

_MARKED = re.compile(r"^[^\W\d_]+(\d+)$")  # a letter prefix and a number: L132, G8

LOOKAHEAD = 6  # written lines after an explanation's own read strictly to judge it
ALTERNATIVES = 8  # other readings of a refused move tried, closest to what was written first
LEFT_OUT_DEPTH = 4  # commands of a turn nobody wrote, at most (an end of round: a few seats' steps)
OPEN_TURN_DEPTH = 8  # commands of one player's turn nobody wrote, grown on once a shorter one reads on (a galley's action)
LEFT_OUT_WIDTH = 80  # readings of a turn nobody wrote tried at each step, at most
LEFT_OUT_TIES = 48  # readings of a turn nobody wrote that read all the lookahead, judged again further on
EVIDENCE = 40  # written lines whose words say which turn nobody wrote is the likely one
GUESSED = 4  # readings of a turn nobody wrote whose outcomes are guessed when none reads the whole lookahead
GUESSES = 40  # possible values of one such outcome tried, at most
DEEPER = 8  # turns of several commands still open, grown one command further when a shorter one reads on
DEEPER_WIDTH = 12  # the commands each of those grows with, the ones the next lines speak of first
REFUTED_SHARE = 0.4  # of the per-search caps, what looking for a turn left out behind a refuted cheap reading may take
HORIZON = 96  # written lines a cheap reading that reads the lookahead is read further, to see it refused there
FURTHER = 4  # readings that tie on what they read are judged again this many times further, until they differ
KEEP_FURTHER = 16  # of those, judged further at most (halved at each step: the simplest, closest first)
TIES = 3  # readings of what nobody wrote, tied with the chosen one, read again to the Result when it disagrees
UNWRITTEN = ("left-step", "left-out")  # explanations that read in what nobody wrote: nothing tells them apart but what follows
# Each search, narrowing and check has two caps: commands decided and process time. The commands are the caps meant
# to end them: they are the same on every machine, so a file reads alike on any server and in the tests. The seconds
# are guards, about six times what the commands take on a machine of ordinary speed: a slow or busy day (the same
# code has run three times slower here, and a full test run on two cores slows it twice again) reaches the commands'
# caps first and only takes longer, and what the commands do not count still ends. (Caps of 0.3-0.8 s read 7 of the
# 77 hand-typed files of tests/disputes otherwise on such a day, and caps of 0.9-2.4 s one Serenissima file in a CI
# run: a search cut short by the clock read a slip as dozens.)
SEARCH_MOVES = 2_500  # commands decided by one search, at most
SEARCH_SECONDS = 1.8  # process time of one search, at most (a guard: see above)
OUT_OF_TURN = 2.0  # a line out of turn: its search may spend this many times those caps (the rules waited for another
# player, most often for a turn left out, and a whole turn of many commands is long to find: a galley's action); a gap
# guessed behind a line the rules took is tried at several lines, each with the plain caps
CHECK_MOVES = 10_000  # commands decided by every search of one check, at most
CHECK_SECONDS = 3.6  # process time of every search of one check, at most (a guard)
WHOLE_SECONDS = 4.8  # process time of one whole check past which nothing more is searched, narrowed or read again (a guard)
WHOLE_WORK = 16_000  # commands the rules decide in one whole check (every reading, search and narrowing), the same cap
CHECK_CAP = "the check's cap"  # how a narrowing the check's cap ended says why (kernel.dispute tells it apart)
KEPT_BACK = 0.2  # of both, what a narrowing leaves for the reading with its values (and the searches that reading makes)
READINGS_AGAIN = 8  # whole readings of the file after the first, in all (settled outcomes, other readings, the Result)


class Refused(Exception):  # noqa: N818  (named for what happened)
    """A strict reading met something that cannot stand (raised where a finding would be written)."""


@dataclass
class Budget:
    """What one check may spend, shared by all it does past its first reading: the searches (commands, process time),
    the narrowings (their time caps end at the check's) and the readings of the whole file again (how many, and only
    when one more fits in the time left: `read_again`). Past it the report says what was not done."""

    moves: int = CHECK_MOVES
    seconds: float = CHECK_SECONDS
    per_search: int = SEARCH_MOVES
    search_seconds: float = SEARCH_SECONDS
    used: int = 0
    elapsed: float = 0.0
    searches: int = 0
    exhausted: int = 0  # refusals read without a search, the budget being spent
    # the explanation found for a written line (its index), kept for the check's later readings (the settling
    # of unknowns reads the file again): one search a refused line, and the same reading each time
    found: dict[tuple[int, str], Explanation | None] = field(default_factory=dict)
    # what the search of a refused line knew of the outcomes nobody wrote there (a turn left out: once the narrowing
    # has settled them, the search is made again with them, and tells apart readings the guesses made alike)
    knew: dict[tuple[int, str], Any] = field(default_factory=dict)
    pinned: set[tuple[int, str]] = field(default_factory=set)  # explanations the checker chose among (not searched again)
    whole: float = WHOLE_SECONDS
    whole_work: int = WHOLE_WORK
    readings: int = READINGS_AGAIN
    started: float = field(default_factory=lambda: time.process_time())  # the check's start (a test slows the clock)
    read: int = 0  # whole readings of the file made again
    work: int = 0  # commands the rules decided in this check so far (`charge`)
    reading: tuple[float, int] = (0.0, 0)  # the time and work of the costliest whole reading so far (one more's cost)
    cut: list[str] = field(default_factory=list)  # what was not done for the whole check's cap, in words

    def left(self) -> bool:
        return self.used < self.moves and self.elapsed < self.seconds and not self.spent()

    def charge(self) -> None:
        """One command decided by the rules, anywhere in the check."""
        self.work += 1

    def remaining(self, kept: float = 0.0) -> tuple[float, int]:
        """The process time and the work the whole check has left, but the share `kept` of each."""
        return (self.whole * (1 - kept) - (time.process_time() - self.started),
                int(self.whole_work * (1 - kept)) - self.work)

    def spent(self, kept: float = 0.0) -> bool:
        seconds, work = self.remaining(kept)
        return seconds <= 0 or work <= 0

    def narrowing(self, own: float) -> tuple[float, str | None, Callable[[], bool]]:
        """The caps of a narrowing whose own time cap is `own`: it ends where the check has only `KEPT_BACK` of its
        time or work left (the reading with its values comes after it), said in words when that is what ended it."""
        return (own, f"{CHECK_CAP} ({self.whole:g} s of CPU, {self.whole_work} commands decided) was reached",
                lambda: self.spent(KEPT_BACK))

    def read_again(self, what: str) -> bool:
        """Whether one more reading of the whole file (`what`, in words) fits in what the check has left, as costly as
        the costliest so far: counted if so, said if not (the readings that settle outcomes are not asked)."""
        seconds, work = self.remaining()
        if self.read < self.readings and seconds > self.reading[0] and work > self.reading[1]:
            self.read += 1
            return True
        if what not in self.cut:
            self.cut.append(what)
        return False

    def timed(self, seconds: float, work: int) -> None:
        """A whole reading took `seconds` and `work` commands: the next may take as much as the costliest."""
        self.reading = (max(self.reading[0], seconds), max(self.reading[1], work))

    def to_json(self) -> dict[str, Any]:
        spent = []
        if self.exhausted:
            spent.append(f"{self.exhausted} refused line(s) read with the closest legal move or skipped, without a search")
        if self.cut:
            spent.append(f"not done: {'; '.join(self.cut)}")
        return {"moves": self.moves, "seconds": self.seconds, "per_search": self.per_search,
                "lookahead": LOOKAHEAD, "whole_seconds": self.whole, "whole_work": self.whole_work,
                "readings_again": self.readings, "work_used": self.work,
                "searches": self.searches, "moves_used": self.used,
                "seconds_used": round(self.elapsed, 3), "refusals_past_budget": self.exhausted, "read_again": self.read,
                "said": (f"each refused line's explanation is searched within {self.per_search} commands and "
                         f"{self.search_seconds:g} s of CPU ({OUT_OF_TURN:g} times that for a line out of turn), "
                         f"{self.moves} commands and {self.seconds:g} s for the whole file, "
                         f"each candidate judged by the {LOOKAHEAD} written lines after it, those that tie "
                         f"{FURTHER} times further (the closest {KEEP_FURTHER}), until they differ; the whole check "
                         f"(searches, narrowing of unknown outcomes, the file read again, {self.readings} times at "
                         f"most) within {self.whole:g} s of CPU and {self.whole_work} commands decided by the rules")
                + (f"; the budget was spent: {'; '.join(spent)}" if spent else "")}


@dataclass(frozen=True)
class Line:
    """One line as an explanation reads it: a written turn (maybe under another seat, a move maybe standing
    for another: `forced`, (line, column) -> the command, None to leave it out), or a turn nobody wrote
    (`turn` None): `commands`, each for the seat then to decide, read before line `at`."""

    turn: Turn | None
    seat: int | None
    forced: tuple[tuple[tuple[int, int], Command | None], ...] = ()
    commands: tuple[Command, ...] = ()
    at: int = 0
    steps: tuple[tuple[tuple[int, int], tuple[Command, ...]], ...] = ()  # (line, column) -> steps nobody wrote after it
    instead: tuple[tuple[tuple[int, int], Command], ...] = ()  # (line, column) of a move read -> what stands for it
    guessed: tuple[tuple[int, tuple[Any, ...]], ...] = ()  # a turn nobody wrote: its outcomes the lines after it need


@dataclass(eq=False)  # one candidate is itself alone (the search's lists hold it by identity)
class Explanation:
    kind: str  # reworded | skipped-move | swapped | left-out | twice | other-player | misspelt-name
    said: str  # in the table's words
    lines: tuple[Line, ...]
    consumed: int  # written lines these stand for
    edits: int
    option: int | None = None  # a reworded move: which of the refusal's options stands for it
    order: int = 0  # the rank among the candidates when reads and edits tie (closest to what was written first)
    reads: int = -1  # written lines read legally from the refused one on (its own and the lookahead's)
    reads_to_line: int | None = None
    runner_up: Explanation | None = None
    resume: tuple[Any, Any] | None = None  # the strict reading and its state where judging stopped, unrefused
    agrees: int = 0  # read to the end of the file: the seats whose claimed total it gives
    taken: int = 0  # written items its reading found not there, after outcomes it guessed (fewer: likelier)
    fits: int = 0  # a turn nobody wrote: the readings of it, leaving the game in distinct states, that fit alike
    readings: tuple[tuple[Command, ...], ...] = ()  # those readings' commands (the chosen one first)
    reading: str = ""  # what stands for the slip, in the notation's words (`Ada: left`), where it is a move or turn
    alike: tuple[Explanation, ...] = ()  # other readings with which the file reads as well (`_Search.alike`; for a
    # turn left out, those leaving the game in other states, `_undetermined`): the checker may read on with one
    ties: tuple[Explanation, ...] = ()  # other readings of what nobody wrote that read as far (the Result may tell)
    stopped: str | None = None  # the rule that refused its reading where judging stopped (None: not refused)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "said": self.said, "edits": self.edits,
                               "reads_to_line": self.reads_to_line}
        if self.fits > 1:
            out["fits"] = self.fits
        if self.alike:
            out["alike"] = [c.reading or c.said for c in self.alike]
        if self.runner_up is not None:
            out["runner_up"] = {"kind": self.runner_up.kind, "said": self.runner_up.said,
                                "edits": self.runner_up.edits, "reads_to_line": self.runner_up.reads_to_line}
        return out


@dataclass
class Refusal:
    """Where and why the written line could not stand, as the checker met it."""

    kind: str  # move | order | player | step (outcomes written that the move does not meet) | gap (an earlier line)
    # | before (the move before a refusal, which the rules took: `options`, its other readings; `_miscounted`)
    seat: int | None  # the seat the line was read as (None: a name that is none of the seats)
    waiting: int | None  # the seat the rules waited for
    place: tuple[int, int] | None = None  # the refused move's (line, column)
    options: Sequence[Command] = ()  # the legal moves closest to what was written
    shown: Sequence[str] = ()  # each in words, as every reader may read it
    near: Sequence[int] = ()  # seats whose names are near a misspelt one
    skippable: bool = False  # the checker would leave the move out (nothing of its kind could be done)
    after: Any = None  # a step: the state after the move, with the outcomes it met
    unused: Sequence[Written] = ()  # a step: the outcomes written after those the move met
    # a move: the line's moves before it, each with its place, its words and the legal moves closest to it (and in words)
    earlier: Sequence[tuple[tuple[int, int], str, Sequence[Command], Sequence[str]]] = ()


class Reader(Protocol):
    """What the search needs of the checker (kernel.dispute): strict copies that raise `Refused`."""

    seats: list[str]
    decided: int
    taken: int  # written items found not there after outcomes guessed for a turn nobody wrote, read past

    def fork(self) -> Reader: ...

    def pending(self, state: Any) -> Any: ...

    def seat_of(self, player: str) -> int | None: ...

    def read_line(self, state: Any, seat: int, turn: Turn, forced: dict[tuple[int, int], Command | None],
                  steps: dict[tuple[int, int], tuple[Command, ...]] | None = None,
                  instead: dict[tuple[int, int], Command] | None = None) -> Any: ...

    def play_step(self, state: Any, command: Command, outcomes: Sequence[Written]) -> tuple[Any, int]: ...

    def agreement(self, state: Any) -> int: ...

    def insert(self, state: Any, seat: int, command: Command, line: int,
               guessed: dict[int, tuple[Any, ...]] | None = None, index: int = 0) -> Any: ...

    def guesses(self, state: Any, commands: Sequence[Command], line: int, most: int
                ) -> list[tuple[int, int, tuple[Any, ...], list[tuple[Any, ...]]]]: ...

    def legal_for(self, state: Any, seat: int | None) -> list[Command]: ...

    def public_say(self, command: Command, state: Any) -> str: ...


def read(reader: Reader, state: Any, lines: Sequence[Line]) -> Any:
    """The lines of an explanation through `reader` (strict or not): the state after them."""
    inserted = 0  # the commands nobody wrote, counted: each one's outcomes have their own places (`Reader.insert`)
    for line in lines:
        if line.turn is None:
            for command in line.commands:
                state = reader.insert(state, command.seat, command, line.at, dict(line.guessed), inserted)
                inserted += 1
        elif line.seat is not None:
            state = reader.read_line(state, line.seat, line.turn, dict(line.forced), dict(line.steps),
                                     dict(line.instead))
    return state


@dataclass
class _Search:
    reader: Reader
    state: Any
    turns: Sequence[Turn]
    at: int
    budget: Budget
    started: float = field(default_factory=lambda: time.process_time())  # looked up when made (a test slows the clock)
    used: int = 0
    tried: list[Explanation] = field(default_factory=list)
    chains: list[Explanation] = field(default_factory=list)  # turns nobody wrote, judged (refused ones too)
    later: dict[str, float] | None = None  # the words written in the lines after the refused one (`_by_evidence`)
    words: dict[tuple[int, Command], str] = field(default_factory=dict)  # `say`'s answers
    scale: float = 1.0  # this search's share of the per-search caps (`OUT_OF_TURN`)
    until: tuple[int, float] | None = None  # a tighter cap of its own: commands used, process time (`REFUTED_SHARE`)

    def say(self, command: Command, state: Any) -> str:
        """A command in words as every reader may read it, worked out once a state (the search keeps its states)."""
        key = (id(state), command)
        try:
            found = self.words.get(key)
        except TypeError:  # a command with a value that cannot be hashed
            return self.reader.public_say(command, state)
        if found is None:
            found = self.words[key] = self.reader.public_say(command, state)
        return found

    def spent(self) -> bool:
        took = time.process_time() - self.started
        scale = self.scale
        if self.until is not None and (self.used >= self.until[0] or time.process_time() >= self.until[1]):
            return True
        return (self.used >= self.budget.per_search * scale or self.budget.used + self.used >= self.budget.moves
                or took >= self.budget.search_seconds * scale or self.budget.elapsed + took >= self.budget.seconds
                or self.budget.spent())

    def most(self, consumed: int, ahead: int = LOOKAHEAD) -> int:
        """The most written lines a candidate standing for `consumed` of them can read."""
        return min(len(self.turns) - self.at, consumed + ahead)

    def judge(self, candidate: Explanation, ahead: int = LOOKAHEAD) -> Explanation:
        """Read the candidate's lines strictly, then what follows until the first refusal (judged again further
        on, from where it stopped)."""
        resume, candidate.resume = candidate.resume, None
        fork = resume[0] if resume is not None else self.reader.fork()
        before = fork.decided
        reads = -1
        try:
            if resume is not None:
                state, reads = resume[1], candidate.reads
            else:
                state = read(fork, self.state, candidate.lines)
                reads = candidate.consumed
            for turn in self.turns[self.at + reads: self.at + self.most(candidate.consumed, ahead)]:
                seat = fork.seat_of(turn.player)
                if seat is None:
                    break
                state = fork.read_line(state, seat, turn, {})
                reads += 1
            candidate.stopped = None
            if reads >= self.most(candidate.consumed, ahead):
                candidate.resume = (fork, state)
        except Refused as refused:
            candidate.stopped = str(refused.args[0]) if refused.args else ""
        finally:
            self.used += fork.decided - before
        candidate.reads, candidate.taken = reads, fork.taken
        if reads >= 0:
            last = self.turns[min(len(self.turns), self.at + reads) - 1] if reads else None
            candidate.reads_to_line = last.line if last is not None else None
            self.tried.append(candidate)
        return candidate

    def best(self) -> Explanation | None:
        ranked = sorted(self.tried, key=lambda c: (-c.reads, -c.agrees, c.taken, c.edits, c.order))
        if not ranked:
            return None
        chosen = ranked[0]
        close = next((c for c in ranked[1:] if c.said != chosen.said and c.reads >= chosen.reads - 1), None)
        chosen.runner_up = close
        chosen.alike = self.alike(chosen, ranked)
        chosen.ties = tuple(c for c in ranked[1:] if chosen.kind in UNWRITTEN and c.kind == chosen.kind
                            and (c.reads, c.agrees, c.edits) == (chosen.reads, chosen.agrees, chosen.edits))[:TIES]
        return chosen

    def alike(self, chosen: Explanation, ranked: Sequence[Explanation]) -> tuple[Explanation, ...]:
        """The other readings with which the whole file reads as well as with the chosen one: each to its end, the
        claimed result given for as many seats, with as few edits. Nothing written tells them apart (a forgotten
        shift of the Republic whose outcomes the table wrote on the move before): the report says so, and names them.
        Only for what nobody wrote (a step or a turn left out): a move written otherwise is read as the closest to
        what was written, and that is a judge of its own."""
        if chosen.reads < len(self.turns) - self.at or chosen.kind not in UNWRITTEN:
            return ()
        seen = {chosen.reading or chosen.said}
        out = []
        for c in ranked[1:]:
            said = c.reading or c.said
            if (c.kind, c.reads, c.agrees, c.edits) == (chosen.kind, chosen.reads, chosen.agrees, chosen.edits) \
                    and said not in seen:
                seen.add(said)
                out.append(c)
        return tuple(out)


def explain(reader: Reader, state: Any, turns: Sequence[Turn], at: int, refusal: Refusal,
            budget: Budget) -> Explanation | None:
    """The explanation of the refused line `turns[at]` that lets the most of what follows stand, or None
    (the budget spent, or no candidate reads even its own lines)."""
    key = (at, refusal.kind)
    if key in budget.found:
        return budget.found[key]
    if not budget.left():
        budget.exhausted += 1
        return None
    search = _Search(reader, state, turns, at, budget, scale=OUT_OF_TURN if refusal.kind == "order" else 1.0)
    budget.searches += 1
    try:
        if refusal.kind == "step":  # outcomes the move does not meet: a step nobody wrote met them
            _left_steps(search, refusal)
        elif refusal.kind == "gap":  # a line the rules took, but a later one refused: a turn nobody wrote before it?
            _left_out(search, refusal)
        elif refusal.kind == "before":  # a move the rules took, what follows refused: written otherwise?
            for candidate in _candidates(search, refusal):
                if candidate.kind == "reworded":
                    search.judge(candidate)
                if search.spent():
                    break
        else:
            for candidate in _candidates(search, refusal):
                search.judge(candidate)
                if search.spent():
                    break
            else:
                top = max((c.reads for c in search.tried), default=-1)
                if top < search.most(1) or _short_of_result(search, top):
                    if not search.spent():
                        _left_out(search, refusal)  # nothing cheap reads on (or to the result written): a turn left out?
                elif _refuted_further(search, top) and not search.spent():
                    # a cheap reading is refused further on, by a turn left out here or by a second slip there: a
                    # share of the caps only, so that a second slip is still searched for (`REFUTED_SHARE`)
                    search.until = (search.used + int(budget.per_search * REFUTED_SHARE),
                                    time.process_time() + budget.search_seconds * REFUTED_SHARE)
                    _left_out(search, refusal)
        _further(search)
    finally:
        budget.used += search.used
        budget.elapsed += time.process_time() - search.started
    chosen = budget.found[key] = search.best()
    if chosen is not None and chosen.kind == "left-out":
        _undetermined(search, chosen)
    return chosen


def judged_further(reader: Reader, state: Any, turns: Sequence[Turn], at: int, chosen: Explanation,
                   budget: Budget, ahead: int = HORIZON) -> int:
    """How many written lines from `turns[at]` an explanation found there reads, judged `ahead` lines far (as
    `_refuted_further` judges a cheap reading; on from where it stopped), within the check's budget: two
    explanations of one slip that both read the whole lookahead are told apart so."""
    if chosen.reads < 0 or not budget.left():
        return chosen.reads
    search = _Search(reader, state, turns, at, budget)
    try:
        search.judge(chosen, ahead)
    finally:
        budget.used += search.used
        budget.elapsed += time.process_time() - search.started
    return chosen.reads


def _undetermined(search: _Search, chosen: Explanation) -> None:
    """A turn nobody wrote that several readings fit alike (as far as they were read, and by the claimed result at
    the end), leaving the game in different states: the file does not say which it was. The report says so, and
    how many fit, rather than going on from one as if it were known (`fits`, `readings`; the chosen one first)."""
    alike = [c for c in search.tried if c.kind == "left-out" and (c.reads, c.agrees, c.taken, c.edits)
             == (chosen.reads, chosen.agrees, chosen.taken, chosen.edits)]
    ends: list[Any] = []  # the state each distinct reading leaves after the turn (its outcomes as first guessed)
    kept: list[Explanation] = []
    commands: list[tuple[Command, ...]] = []
    line = search.turns[search.at].line
    for candidate in sorted(alike, key=lambda c: c is not chosen):
        chain = tuple(c for one in candidate.lines if one.turn is None for c in one.commands)
        try:
            end = _states(search.reader, search.state, (*chain, None), line)[-1]
        except Refused:
            continue
        if any(end == other for other in ends):
            continue
        ends.append(end)
        kept.append(candidate)
        commands.append(chain)
    chosen.readings = tuple(commands)
    if len(kept) < 2:
        return
    whole = chosen.reads >= len(search.turns) - search.at
    where = "the rest of the file" if whole else f"the lines read after it (to line {chosen.reads_to_line})"
    totals = f", each giving {chosen.agrees} of the totals written down" if whole and chosen.agrees else ""
    said = [k.said.split(": read as ", 1)[-1] for k in kept]
    for n, one in enumerate(kept):  # each may be the one the checker reads on with (kernel.dispute): each says so
        others = [x for k, x in enumerate(said) if k != n]
        one.fits, one.runner_up = len(kept), kept[1 if n == 0 else 0]
        one.readings = (commands[n], *(c for k, c in enumerate(commands) if k != n))
        one.alike = tuple(k for k in kept if k is not one) if one is chosen else ()
        one.said += (f"; undetermined: {len(kept)} readings of it fit {where} alike{totals} (also {', '.join(others[:2])}"
                     f"{' …' if len(others) > 2 else ''}); what it was is not said by the file")


def _short_of_result(search: _Search, top: int) -> bool:
    """Near the end of the file: the cheap readings that read to its end give none of the totals written down (a game
    cut short by a turn left out reads its last lines in the other order as well)."""
    if top < len(search.turns) - search.at:
        return False
    ends = [c for c in search.tried if c.reads == top and c.resume is not None]
    for candidate in ends:
        candidate.agrees = search.reader.agreement(candidate.resume[1]) if candidate.resume is not None else 0
    return all(c.agrees == 0 for c in ends)


def _refuted_further(search: _Search, top: int) -> bool:
    """The cheap readings that read the whole lookahead are all refused a little further on (`HORIZON` lines): a
    turn left out whose absence shows only later (a purchase nobody wrote, missed when the round is scored) reads
    its next lines in the other order, or one of them skipped, as well. The best of them is read that far first."""
    if top < search.most(1) or top >= len(search.turns) - search.at:
        return False
    best = [c for c in search.tried if c.reads == top]
    for candidate in best:
        search.tried.remove(candidate)
        search.judge(candidate, HORIZON)
        if search.spent():
            return False
    return all(c.reads < search.most(c.consumed, HORIZON) for c in best)


def _further(search: _Search) -> None:
    """Readings that all read every line of the lookahead are told apart by what follows further on: judged
    again `FURTHER` times as far, and again while several still read all (until they differ or the budget ends)."""
    ahead, keep, turns_kept = LOOKAHEAD, KEEP_FURTHER, LEFT_OUT_TIES
    while not search.spent():
        ties = [c for c in search.tried if c.reads >= search.most(c.consumed, ahead)]
        if len(ties) < 2:
            return
        if ahead >= len(search.turns) - search.at:  # all read to the end: the result the table wrote down may tell
            for tie in ties:
                if tie.resume is not None:
                    tie.agrees = search.reader.agreement(tie.resume[1])
            return
        ahead *= FURTHER
        ranked = sorted(ties, key=lambda c: (c.edits, c.order))
        # the others keep what they read so far; the turns nobody wrote that read on are judged too, as many as
        # were found at first (which one it was is what the rest of the file says, not the order it was tried in)
        for tie in ranked[:keep] + [c for c in ranked[keep:] if c.kind == "left-out"][:turns_kept]:
            if not search.spent():
                search.tried.remove(tie)
                search.judge(tie, ahead)
        keep, turns_kept = max(2, keep // 2), max(2, turns_kept // 2)


def _line(turn: Turn) -> str:
    return f"line {turn.line}"


def _candidates(search: _Search, refusal: Refusal) -> list[Explanation]:
    """The cheap explanations, closest to what was written first (the order breaks ties)."""
    reader, turns, at = search.reader, search.turns, search.at
    turn = turns[at]
    out: list[Explanation] = []
    seat = refusal.seat
    if seat is not None:  # the slip in a move before the refused one, which stands as written (all the line kept)
        for place, text, options, shown in refusal.earlier:
            for k, option in enumerate(options):
                said = shown[k] if k < len(shown) else reader.public_say(option, search.state)
                out.append(Explanation("reworded-before", f"{_line(turn)}: `{text}` read as `{said}`, with which the "
                                       "rest of the line stands", (Line(turn, seat, instead=((place, option),)),), 1, 1,
                                       reading=f"`{said}`"))
    if refusal.kind in ("move", "before") and seat is not None and refusal.place is not None:
        if refusal.skippable:  # what the checker does anyway: nothing of its kind could be done there
            out.append(Explanation("skipped-move", f"{_line(turn)}: the move is left out (nothing of its kind could "
                                   "be done there)", (Line(turn, seat, ((refusal.place, None),)),), 1, 1))
        for k, option in enumerate(refusal.options[:ALTERNATIVES]):
            said = refusal.shown[k] if k < len(refusal.shown) else reader.public_say(option, search.state)
            how = "the closest legal move" if k == 0 else "a legal move with which what follows stands"
            read = (Line(turn, seat, instead=((refusal.place, option),)) if refusal.kind == "before" else
                    Line(turn, seat, ((refusal.place, option),)))  # (a move the rules took: `instead`)
            out.append(Explanation("reworded", f"{_line(turn)} read as `{said}`, {how}", (read,), 1, 1, option=k,
                                   reading=f"`{said}`"))
        if not refusal.skippable and not refusal.options:
            out.append(Explanation("skipped-move", f"{_line(turn)}: the move is left out (nothing of its kind could be "
                                   "done there)", (Line(turn, seat, ((refusal.place, None),)),), 1, 1))
        if not refusal.skippable and refusal.options:  # a move that did not happen, the rest of the line as written
            out.append(Explanation("skipped-move", f"{_line(turn)}: the move is left out, the rest of the line read as "
                                   "written", (Line(turn, seat, ((refusal.place, None),)),), 1, 1))
    if (refusal.kind == "order" and seat is not None and refusal.place is not None and turn.moves
            and refusal.place != (turn.moves[0].line, turn.moves[0].column)):
        # a move after the ones that ended the seat's turn (`fleet, buy O 1, buy Y 1` with one coin): the line but it
        ended = next((m.text for m in reversed(turn.moves) if (m.line, m.column) < refusal.place), "")
        extra = next((m.text for m in turn.moves if (m.line, m.column) == refusal.place), "")
        out.append(Explanation("skipped-move", f"{_line(turn)}: `{extra}` is left out: the turn had ended with `{ended}`"
                               ", the rest of the line read as written", (Line(turn, seat, ((refusal.place, None),)),),
                               1, 1))
    if refusal.kind == "order":
        out.append(Explanation("twice", f"{_line(turn)} is skipped: a turn written twice, or one that did not happen "
                               "there", (), 1, 1))
    if refusal.kind == "player":
        for near in refusal.near:
            out.append(Explanation("misspelt-name", f"{_line(turn)} read as {reader.seats[near]}'s",
                                   (Line(turn, near),), 1, 1))
    if refusal.waiting is not None and refusal.waiting != seat and refusal.waiting not in refusal.near:
        kind = "misspelt-name" if refusal.kind == "player" else "other-player"
        out.append(Explanation(kind, f"{_line(turn)} read as {reader.seats[refusal.waiting]}'s, who was to play",
                               (Line(turn, refusal.waiting),), 1, 1 if refusal.kind == "order" else 2))
    if at + 1 < len(turns) and seat is not None:
        after = turns[at + 1]
        other = reader.seat_of(after.player)
        if other is not None:
            out.append(Explanation("swapped", f"lines {turn.line} and {after.line} read in the other order",
                                   (Line(after, other), Line(turn, seat)), 2, 1))
    if refusal.kind != "order":
        out.append(Explanation("twice", f"{_line(turn)} is skipped: a turn written twice, or one that did not happen "
                               "there", (), 1, 2))
    for k, candidate in enumerate(out):
        candidate.order = k
    return out


def _left_out(search: _Search, refusal: Refusal) -> None:
    """Turns nobody wrote before the refused line: the commands of whoever is to decide, one after the
    other (an end of round: several seats' steps), until the written line reads; breadth first, bounded,
    each chain judged as it is found."""
    seat = refusal.seat if refusal.seat is not None else refusal.waiting
    if seat is None:
        return
    frontier: list[tuple[tuple[tuple[Command, Any], ...], Any]] = [((), search.state)]
    _grow(search, seat, frontier, [])  # several that read all the lookahead: `_further` tells them apart
    if max((c.reads for c in search.tried), default=-1) < search.most(1) and not search.spent():
        _guess(search, seat)


def _grow(search: _Search, seat: int, frontier: list[tuple[tuple[tuple[Command, Any], ...], Any]],
          ties: list[Explanation]) -> None:
    """The chains of commands nobody wrote, one command longer at each step, judged as they are found. Once a
    chain reads all the lookahead, or none of `LEFT_OUT_DEPTH` commands does, only the player's turns still open grow
    on, to `OPEN_TURN_DEPTH` commands (`DEEPER` of them, those whose commands the next lines speak of most all told,
    each with the `DEEPER_WIDTH` commands the next lines speak of most): a turn of several commands may read further."""
    reader, turn = search.reader, search.turns[search.at]
    deeper = False
    evidence: dict[int, float] = {}  # a chain's commands, how much the next lines speak of them (`_by_evidence`)
    depth = 0
    while depth < (OPEN_TURN_DEPTH if deeper else LEFT_OUT_DEPTH):
        depth += 1
        grown: list[tuple[tuple[tuple[Command, Any], ...], Any]] = []
        width = DEEPER_WIDTH if deeper else LEFT_OUT_WIDTH
        level = 0
        for chain, state in frontier:
            pending = reader.pending(state)
            if pending.over or level >= LEFT_OUT_TIES:
                continue
            ranked, spoken = _by_evidence(search, state, reader.legal_for(state, pending.seat), pending.seat)
            for command, said in list(zip(ranked, spoken, strict=True))[:width]:
                if search.spent():
                    return
                fork = reader.fork()
                try:
                    after = fork.insert(state, pending.seat, command, turn.line)
                except Refused:
                    continue
                finally:
                    search.used += fork.decided
                longer = (*chain, (command, state))
                candidate = search.judge(_inserted(search, longer, seat))
                search.chains.append(candidate)
                if candidate.reads >= search.most(1):
                    ties.append(candidate)
                    level += 1
                    if level >= LEFT_OUT_TIES:
                        break
                    continue  # it reads all it can: no longer chain from it is simpler
                if candidate.reads < 0:
                    grown.append((longer, after))
                    evidence[id(longer)] = evidence.get(id(chain), 0.0) + said
        frontier = _distinct(grown)[:LEFT_OUT_WIDTH]
        # a shorter turn reads on, or none of a few commands does: a longer one of the same player (a turn of several
        # commands: a galley's loading, sailing and claiming) may read further; those whose commands the next lines
        # speak of most, all told, first
        if ties or depth >= LEFT_OUT_DEPTH:
            deeper = True
            frontier = sorted([(chain, after) for chain, after in frontier
                               if reader.pending(after).seat == chain[0][0].seat],
                              key=lambda grown_one: -evidence[id(grown_one[0])])[:DEEPER]
        if not frontier:
            return


def _distinct(chains: list[tuple[tuple[tuple[Command, Any], ...], Any]]) -> list[tuple[tuple[tuple[Command, Any], ...], Any]]:
    """The chains that leave the game in distinct states, the first of each kept: `starve L158, starve L158` is
    `starve L158 2`, two starvings in either order are one (grown on once, the search goes deeper for the same cost)."""
    kept: list[tuple[tuple[tuple[Command, Any], ...], Any]] = []
    for chain, after in chains:
        if not any(after == other for _, other in kept):
            kept.append((chain, after))
    return kept


def _by_evidence(search: _Search, state: Any, commands: list[Command], seat: int | None
                 ) -> tuple[list[Command], list[float]]:
    """A turn nobody wrote is most likely the one whose places and things the lines after it speak of (a city
    its owner starves later, a galley named again): the legal commands whose words are written soonest in the
    next `EVIDENCE` lines (in the same player's lines, twice as much; a word shared by many of the commands, as much
    less) first, the rules' order otherwise."""
    if len(commands) <= 1:
        return commands, [0.0] * len(commands)
    reader = search.reader
    if search.later is None:
        search.later = {}
        for distance, turn in enumerate(search.turns[search.at: search.at + EVIDENCE]):
            own = reader.seat_of(turn.player)
            for move in turn.moves:
                for word in move.words:
                    if isinstance(word, str) and not word.isdigit():
                        weight = (2.0 if own == seat else 1.0) / (1 + distance)
                        marked = _MARKED.match(word)  # `L132` is hex 132 to the rules
                        for said in (word.lower(), marked[1]) if marked else (word.lower(),):
                            search.later[said] = max(search.later.get(said, 0.0), weight)
    later = search.later

    def values(command: Command) -> set[str]:  # its values, and its words as the notation writes them (`sail candia`)
        return {str(v).lower() for k, v in command.to_json().items() if k not in ("type", "seat")
                and isinstance(v, (str, int)) and not isinstance(v, bool)} | {
            w for w in search.say(command, state).lower().strip("`").split() if not w.isdigit()}
    said = [values(c) for c in commands]
    shared = Counter(v for one in said for v in one)  # a word many of the turns say (a city's castle) tells few apart
    spoken = {id(c): -sum(later.get(v, 0.0) / shared[v] for v in one) for c, one in zip(commands, said, strict=True)}
    ranked = sorted(commands, key=lambda c: spoken[id(c)])
    return ranked, [-spoken[id(c)] for c in ranked]


def _inserted(search: _Search, chain: tuple[tuple[Command, Any], ...], seat: int,
              guessed: Sequence[dict[int, tuple[Any, ...]]] = ()) -> Explanation:
    reader, turn = search.reader, search.turns[search.at]
    whose = list(dict.fromkeys(reader.seats[c.seat] for c, _ in chain))
    said = ", ".join(f"`{reader.seats[c.seat]}: {search.say(c, state)}`" for c, state in chain)
    who = " and ".join(whose)
    lines = tuple(Line(None, None, (), (c,), turn.line,
                       guessed=tuple(sorted(guessed[k].items())) if k < len(guessed) else ())
                  for k, (c, _) in enumerate(chain))
    return Explanation("left-out", f"{who}'s turn{'s' if len(whose) > 1 else ''} missing before {_line(turn)}: "
                       f"read as {said}" + (" (its outcomes, nobody wrote them, as the lines after it need them)"
                                            if any(guessed) else ""),
                       (*lines, Line(turn, seat)), 1, len(whose), order=100 + len(search.tried), reading=said)


def _guess(search: _Search, seat: int) -> None:
    """Turns nobody wrote meet chance nobody wrote down either (a `pass` that draws): read with the first possible
    outcome, the line after them may be refused for it. For the readings that went furthest, each outcome in turn
    is given the possible values (`GUESSES` at most) and the one with which the most of what follows reads is kept;
    the narrowing of unknowns then says what else would fit."""
    reader = search.reader
    tried = 0
    for candidate in sorted(search.chains, key=lambda c: -c.reads):
        if tried >= GUESSED or search.spent():
            return
        commands = [c for line in candidate.lines if line.turn is None for c in line.commands]
        fork = reader.fork()
        try:
            unknowns = fork.guesses(search.state, commands, search.turns[search.at].line, GUESSES)
        except Refused:
            continue
        finally:
            search.used += fork.decided
        if not unknowns:
            continue
        tried += 1
        chain = tuple(zip(commands, _states(reader, search.state, commands, search.turns[search.at].line), strict=True))
        guessed: list[dict[int, tuple[Any, ...]]] = [{} for _ in commands]
        best = candidate
        for _ in range(2):  # an outcome judged while another was still wrong is judged again once that is settled
            before = best
            for at_command, outcome, assumed, values in unknowns:
                group: list[tuple[Explanation, list[dict[int, tuple[Any, ...]]]]] = [(best, guessed)]
                for value in values:
                    if value == guessed[at_command].get(outcome, assumed) or search.spent():
                        continue
                    trial = [dict(g) for g in guessed]
                    trial[at_command][outcome] = value
                    group.append((search.judge(_inserted(search, chain, seat, trial)), trial))
                best, guessed = _apart(search, group)
            if best is before or len(unknowns) < 2:
                break


def _apart(search: _Search, group: list[tuple[Explanation, Any]]) -> tuple[Explanation, Any]:
    """The one of `group` (judged readings, each with what it stands for) that reads furthest, those that tie on
    the whole lookahead judged further until they differ; the others leave the search's list."""
    ahead = LOOKAHEAD
    while True:
        top = max(c.reads for c, _ in group)
        group = [(c, g) for c, g in group if c.reads == top]
        whole = top >= search.most(group[0][0].consumed, ahead)
        if len(group) < 2 or not whole or ahead >= len(search.turns) - search.at or search.spent():
            break
        ahead *= FURTHER
        for candidate, _ in group:
            if not search.spent() and candidate in search.tried:
                search.tried.remove(candidate)
                search.judge(candidate, ahead)
    chosen = group[0]
    for candidate, _ in group[1:]:
        if candidate in search.tried:
            search.tried.remove(candidate)
    return chosen


def _states(reader: Reader, state: Any, commands: Sequence[Command | None], line: int) -> list[Any]:
    """The state before each command of a turn nobody wrote (to say each in words; None: after the last)."""
    fork = reader.fork()
    out = []
    for k, command in enumerate(commands):
        out.append(state)
        if command is not None:
            state = fork.insert(state, command.seat, command, line, index=k)
    return out


def _left_steps(search: _Search, refusal: Refusal) -> None:
    """Steps nobody wrote after a move whose brackets hold more outcomes than it meets (a forgotten end of a
    round, its cards written on the move before): the commands of whoever is then to decide, one after the
    other, meeting those outcomes in order, until all are met; breadth first, bounded, each judged by reading
    the line with them and what follows."""
    reader, place, unused = search.reader, refusal.place, tuple(refusal.unused)
    if place is None or refusal.seat is None or refusal.after is None:
        return
    frontier: list[tuple[tuple[tuple[Command, Any], ...], Any, int]] = [((), refusal.after, 0)]
    ties = 0
    for _ in range(LEFT_OUT_DEPTH):
        grown: list[tuple[tuple[tuple[Command, Any], ...], Any, int]] = []
        for chain, state, met in frontier:
            pending = reader.pending(state)
            if pending.over:
                continue
            for command in reader.legal_for(state, pending.seat)[:LEFT_OUT_WIDTH]:
                if search.spent():
                    return
                fork = reader.fork()
                try:
                    after, took = fork.play_step(state, command, unused[met:])
                except Refused:
                    continue
                finally:
                    search.used += fork.decided
                longer = (*chain, (command, state))
                if met + took < len(unused):
                    grown.append((longer, after, met + took))
                    continue
                candidate = search.judge(_stepped(search, refusal, longer))
                if candidate.reads >= search.most(1):
                    ties += 1
                    if ties >= LEFT_OUT_TIES:
                        return
                elif candidate.reads < 0:
                    grown.append((longer, after, met + took))
        frontier = grown[:LEFT_OUT_WIDTH]
        if not frontier or ties:
            return


def _stepped(search: _Search, refusal: Refusal, chain: tuple[tuple[Command, Any], ...]) -> Explanation:
    reader, turn = search.reader, search.turns[search.at]
    assert refusal.place is not None and refusal.seat is not None
    line = refusal.place[0]
    whose = list(dict.fromkeys(reader.seats[c.seat] for c, _ in chain if c.seat is not None))
    said = ", ".join(f"`{reader.seats[c.seat]}: {reader.public_say(c, state)}`" if c.seat is not None
                     else f"`{reader.public_say(c, state)}`" for c, state in chain)
    steps = "steps" if len(chain) > 1 else "step"
    return Explanation("left-step", f"{' and '.join(whose) or 'a'}'s {steps} missing after the move on line {line} "
                       f"(the outcomes written there are {'theirs' if len(chain) > 1 else 'its'}): read as {said}",
                       (Line(turn, refusal.seat, steps=((refusal.place, tuple(c for c, _ in chain)),)),), 1,
                       len(chain), order=len(search.tried), reading=said)
