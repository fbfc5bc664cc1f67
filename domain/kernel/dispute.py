"""The dispute checker: a notation file in, a report a table can act on out. Pure: no I/O.

Every finding is reported, not only the first. At a line the rules refuse, the report lists
the legal moves closest to what was written (same action with other words first, then the
same player's other moves) and goes on from the closest one, marked as assumed, so the
findings after it are still found. Chance outcomes are checked for possibility at their
own line; one nobody wrote down (`?`) is given a possible value to go on with, and is then
narrowed from what follows (a cube later paid must have been drawn): the report says which
values stay consistent with the rest of the log, or "undetermined" when the search budget
runs out. The claimed result is compared with the computed scores, seat by seat.

`reconcile` aligns two transcripts of one game turn by turn and says where they part and
which version the rules accept.
"""

from __future__ import annotations

import copy
import difflib
import functools
import itertools
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from domain.kernel.cache import Bounded
from domain.kernel.chance import Outcome, _within
from domain.kernel.commands import Command
from domain.kernel.contract import Game, Pending, fold, play
from domain.kernel.editions import Edition, EditionError
from domain.kernel.explain import (
    ALTERNATIVES,
    CHECK_CAP,
    LOOKAHEAD,
    TIES,
    UNWRITTEN,
    Budget,
    Explanation,
    Refusal,
    Refused,
    explain,
    judged_further,
)
from domain.kernel.explain import read as read_explained
from domain.kernel.log import Entry
from domain.kernel.narrowing import Answer, Asked, Step, candidates_of, draw_sets, rank
from domain.kernel.notation import (
    NUMBER_WORDS,
    PUBLIC,
    UNKNOWN,
    Move,
    Notation,
    NotationError,
    Owner,
    Turn,
    Words,
    Written,
    find_seat,
    fold_name,
    parse,
    read_options,
    read_result,
    read_seats,
    seat_name_problem,
    write_outcome,
)
from domain.kernel.report_words import breakdown_default, counted, plain, plain_any, verbs_of
from domain.kernel.toward_result import NARROWING_SECONDS
from domain.kernel.toward_result import narrow as narrow_together
from domain.kernel.violations import MARK, ImpossibleOutcome, MalformedCommand, RuleViolation, Secret

EARLIER = 3  # moves of a line before a refused one whose other readings the explanations try
EARLIER_OPTIONS = 6  # other readings of each, closest to what was written first (`buy O 2` for `buy O 3`, `buy W 3`)
SETUP_GUESSES = 256  # setups made again with other values of the `[?]` before a written outcome they make impossible
NARROWING_BUDGET = 20_000  # moves re-decided, in all, while narrowing unknown outcomes
CANDIDATES = 400  # possible values of one unknown outcome tried at most
MOST_COUNTED = 12  # counts tried for a `?` written where a move's count belongs (`load ? from 11`)
COUNT_LOOKAHEAD = 40  # lines read after such a move to tell the counts apart (a strict reading: to the next slip)
READ_LEGAL = 600  # legal moves put in words, at most, to find those closest to what was written
READ_LEGAL_SPENT = 40  # the same once the check's whole budget is spent: a finding past it stays cheap
_BRACKETS = re.compile(r"\[[^\]]*\]|\{[^}]*\}")  # outcomes and comments: not the move's words
MAX_FINDINGS = 200  # a file past this many findings is not read further: its report stays a report (bad input)


@dataclass
class Finding:
    """One thing wrong, at its own line."""

    kind: str  # notation | header | rule | chance | result | order
    line: int
    rule: str
    message: Any  # text, or a Secret whose `shown` is the public sentence
    column: int | None = None
    round: int | None = None
    seat: int | None = None
    player: str | None = None
    written: Any = None  # text, or a Secret whose `shown` hides a face-down outcome (`_hide`)
    held: Any = None  # the seat's own view of what it held (a Secret of the seat): the machine's
    holding: Any = None  # the same summed up in words, as a person says it (a Secret of the seat)
    alternatives: Any = None
    assumed: Any = None  # text, or a Secret (a hidden move went on with)
    did_you_mean: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)
    step: int | None = None  # game events of the checked log before this line: the replay step just before it
    facts: dict[str, Any] = field(default_factory=dict)
    explanation: Any = None  # how the rest was read (kernel.explain): {kind, said, edits, reads_to_line, runner_up}

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if v not in (None, [], {})}
        if self.kind == "chance":
            out["by"] = "transcriber"  # the outcome at issue is the transcript's word, never a committed draw (docs/trust.md)
        return _stored(out)


def _stored(value: Any) -> Any:
    if isinstance(value, Secret):
        return value.to_json()
    if isinstance(value, Mapping):
        return {k: _stored(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_stored(v) for v in value]
    return value


@dataclass
class Unknown:
    """An outcome nobody wrote down, and what the rest of the log says it could have been."""

    line: int
    column: int
    kind: str
    source: str
    move: int  # index among the checked moves
    outcome: int  # index among that move's outcomes
    assumed: tuple[Any, ...]
    pool: tuple[Any, ...] = ()  # what a draw came from, or (dice, faces) for a roll
    partial: tuple[Any, ...] | None = None
    consistent: list[tuple[Any, ...]] | None = None  # None: undetermined
    tried: int = 0
    written: tuple[Any, ...] | None = None  # what was written, where that could not happen
    owner: Owner = PUBLIC  # who alone may read it while the game is in progress (Words.secret_outcomes)
    blind: bool = False  # hidden and written so it could not be: narrowed as if written `[?]` (_Checker._hidden_at)
    why: str | None = None  # why it is undetermined: which bound of the search, how many combinations
    together: list[int] = field(default_factory=list)  # lines of the unknowns it was decided together with
    doubts: list[str] = field(default_factory=list)  # what was not reported as a finding because it rests on a guess
    alone: str | None = None  # narrowed by itself, the other unknowns as read, because a joint search met this bound
    searched: str | None = None  # found by a search for the claimed result (kernel.toward_result): not proven the only
    seated: bool = False  # its items are seats (a first player: `Words.seat_sources`), written by the players' names
    face_down: tuple[Any, ...] | None = None  # written so, but one player's: read as `[?]` (`_split_read`, `_written_late`)

    def to_json(self, seats: Sequence[str] = ()) -> dict[str, Any]:
        """`seats`: the players' names, for whose alone a hidden outcome is, and for a drawn seat (a seat is never said
        by its number)."""
        def write(values: Sequence[Any]) -> str:
            return write_outcome([seats[v] if self.seated and type(v) is int and 0 <= v < len(seats) else v
                                  for v in values])
        out: dict[str, Any] = {"line": self.line, "column": self.column, "kind": self.kind, "source": self.source,
                               "assumed": write(self.assumed), "by": "transcriber"}  # asserted, not drawn
        what = f"the {self.kind} from {self.source}"
        if self.written is not None:
            out["written"] = write(self.written)
            said = f"line {self.line}: {what} is written {out['written']}, which could not happen;"
        elif self.face_down is not None:  # what is written for a card one player alone saw is never tried
            out["written"] = write(self.face_down)
            said = (f"line {self.line}: {what} is written {out['written']}, and read as [?] "
                    "(one player's card: what is written for it is not tried);")
        else:
            said = f"line {self.line}: {what} was not written down;"
        if self.together:
            out["together"] = list(self.together)
            said += f" it was narrowed together with the unknowns of line(s) {', '.join(map(str, self.together))};"
        if self.doubts:
            out["doubts"] = list(self.doubts)
        if self.consistent is None:
            why = self.why or (f"the search budget ran out after {_counted(self.tried, 'possibility', 'possibilities')}"
                               if self.tried else "the check's budget was spent before any value of it could be tried "
                               "against the lines after it")
            out["consistent"] = "undetermined"
            out["why"] = why
            out["message"] = f"{said} undetermined: {why}" + (
                f"; not reported as findings, since they rest on the value assumed here: {'; '.join(self.doubts)}"
                if self.doubts else "")
        else:
            shown = [write(v) for v in self.consistent]
            out["consistent"] = shown
            if self.searched is not None:
                out["searched"] = self.searched
                out["message"] = (f"{said} the claimed result is given by {', '.join(shown[:8])}"
                                  f"{' …' if len(shown) > 8 else ''} ({self.searched})")
            elif len(shown) == 1:
                out["message"] = f"{said} what follows says it must have been {shown[0]}"
            elif shown:
                out["message"] = (f"{said} what follows fits {len(shown)} possibilities: "
                                  f"{', '.join(shown[:8])}{' …' if len(shown) > 8 else ''}")
            else:
                out["message"] = f"{said} no possible value fits what follows"
            if self.alone is not None:
                out["alone"] = self.alone
                out["message"] += f" (narrowed by itself, the other unknowns as read: {self.alone})"
        if self.owner != PUBLIC:  # a face-down draw: its value, and what could have been, are its seat's
            whose = ("no player's" if self.owner is None else f"{seats[self.owner]}'s alone"
                     if 0 <= self.owner < len(seats) else "one player's alone")
            public = {"assumed": "[?]", "written": "[?]", "consistent": {"hidden": True}, "why": "undetermined",
                      "doubts": {"hidden": True}, "alone": "hidden", "searched": "hidden", "message": f"line {self.line}: {what} is hidden: {whose} to read while the game is in progress"}
            out.update({k: Secret(out[k], self.owner, public[k]) for k in public if k in out})
        return {k: _stored(v) for k, v in out.items()}


@dataclass(slots=True)
class Checked:
    """One move as the checker took it: the state before, the command decided, what it met."""

    state: Any
    seat: int
    command: Command
    written: tuple[Written, ...]
    entry: Entry
    line: int
    assumed: bool = False
    said: Command | None = None  # what the line itself said, when it could be read (the narrowing judges by it)
    taken: tuple[Written, ...] = ()  # the outcomes as the checker took them: an impossible one made unknown
    column: int = 0  # the move's column on its line: which move of the line an entry came from


@dataclass
class DisputeReport:
    title: str | None
    seats: list[str]
    options: dict[str, Any]
    findings: list[Finding]
    unknowns: list[Unknown]
    scores: dict[str, Any] | None
    claimed: dict[str, int] | None
    finished: bool
    entries: list[Entry] | None  # the log as the rules decided it (with assumed moves where findings are)
    lines: int = 0
    moves: int = 0
    places: list[tuple[int, int]] | None = None  # (line, column) of the move each entry came from (the setup: column 0)
    words: Words | None = None  # the title's words, for the unknowns' sentences (never in the JSON)
    explaining: dict[str, Any] | None = None  # the explanations' search budget, and what it spent (kernel.explain)
    # a turn left out, by the line after it: the commands of each reading of it that fits the file alike (never in
    # the JSON: a command may hold what a seat alone may read; the finding says them in words)
    readings: dict[int, list[list[dict[str, Any]]]] = field(default_factory=dict)
    secrets: bool = False  # the file holds what some reader may not read while the game is in progress (`_searched`)

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        out = {
            "ok": self.ok, "settled": not unsettled(self), "title": self.title, "seats": self.seats, "options": self.options,
            "finished": self.finished, "moves": self.moves,
            "findings": [f.to_json() for f in sorted(self.findings, key=lambda f: (f.line, f.column or 0))],
            "unknowns": [self._said(u.to_json(self.seats)) for u in self.unknowns],
            "claimed": self.claimed, "scores": self.scores,
            "summary": summary(self),
            **({"explaining": self.explaining} if self.explaining else {}),
        }
        return _searched(out, self.finished) if self.secrets else out


    def _said(self, unknown: dict[str, Any]) -> dict[str, Any]:
        """An unknown's sentence in the table's words (report_words): names for seats, the game's words for sources."""
        if "message" in unknown:
            terms = self.words.terms if self.words is not None else None
            unknown["message"] = plain_any(unknown["message"], lambda text: plain(text, self.seats, None, terms, True))
        return unknown


_HIDDEN = {"hidden": True}
_DOUBTS = re.compile(r"; \d+ later line\(s\) the rules refuse as read \(.*?\) may be that turn's doing: not reported apart")
HIDDEN_READING = "a reading kept hidden while the game is in progress"  # `assumed` to all but its seat (`_searched`)
_SEARCH_USED = ("searches", "moves_used", "seconds_used", "refusals_past_budget", "read_again")


def _secret(value: Any, seat: int | None = None, shown: Any = None) -> Any:
    """`value` as a stored Secret of `seat` (None: every secret's reader alone), unless it is one already."""
    if isinstance(value, Mapping) and MARK in value:
        return value
    return Secret(value, seat, _HIDDEN if shown is None else shown).to_json()


def _searched(out: dict[str, Any], finished: bool) -> dict[str, Any]:
    """A report of a file that holds secrets (face-down cards, hidden money, a War disc placed face down), with what
    the search made of them kept for a reader who may read every secret (the game over, or the file's own sender):
    which explanation was chosen, its runner-up, what was assumed and the readings it chose among depend on what the
    file says of the hidden outcomes, and so do the unknowns' narrowing, the search's spending and the score of an
    unfinished game. Everyone else reads each finding's line, rule and sentence of the rule (as an import report
    without tokens shows `{"hidden": true}`), so no count or choice lets them confirm a guess of a hidden card."""
    for found in out["findings"]:
        explanation = found.get("explanation")
        if explanation is not None and MARK not in explanation:
            said = explanation.get("said")
            message = found.get("message")
            if isinstance(message, str):  # the reading chosen, and the lines refused after it (`_after_open_turn`)
                public = _DOUBTS.sub("", message.replace(f"; {said}", "", 1) if isinstance(said, str) else message)
                if public != message:
                    found["message"] = _secret(message, None, public)
            found["explanation"] = _secret(explanation)
        if isinstance(found.get("assumed"), str) and not found["assumed"].startswith("skipped"):
            found["assumed"] = _secret(found["assumed"], found.get("seat"), HIDDEN_READING)
        alternatives = found.get("alternatives")
        if isinstance(alternatives, Mapping) and isinstance(alternatives.get(MARK), Mapping):
            inner = alternatives[MARK]
            if isinstance(inner.get("shown"), Mapping):  # how many legal moves a seat had rests on what it holds
                inner["shown"] = {k: v for k, v in inner["shown"].items() if k != "count"}
    for unknown in out["unknowns"]:
        if isinstance(unknown.get("message"), Mapping):
            continue  # a face-down outcome: hidden whole already (Unknown.to_json)
        message = unknown.get("message")
        if isinstance(message, str):
            head = message.split(";", 1)[0]
            unknown["message"] = _secret(message, None, f"{head}; what the rest of the file says of it is shown once "
                                                        "the game is over (the file holds hidden cards or money)")
        for key in ("assumed", "consistent", "why", "together", "doubts", "alone", "searched"):
            if key in unknown:
                unknown[key] = _secret(unknown[key], None, "[?]" if key == "assumed" else None)
    explaining = out.get("explaining")
    if explaining:
        spent = "; the budget was spent"  # the budget stays named to all; what was spent, not

        def kept(key: str, value: Any) -> Any:
            if key in _SEARCH_USED:
                return _secret(value)
            if key == "said" and isinstance(value, str) and spent in value:
                return _secret(value, None, value.split(spent, 1)[0])
            return value

        out["explaining"] = {k: kept(k, v) for k, v in explaining.items()}
    if not finished and out.get("scores") is not None:
        out["scores"] = _secret(out["scores"])
    return out


def _holds_secrets(words: Words, findings: Sequence[Finding], game: Game | None = None, state: Any = None,
                   seats: int = 0) -> bool:
    """The title has hidden outcomes or words (`Words.secret_outcomes`, `secret_words`), a finding keeps a secret
    (a seat's hidden money in a rule's facts), or the seats' views of where the file ends differ (hidden money)."""
    if words.secret_outcomes is not None or words.secret_words is not None:
        return True
    if findings and game is not None and state is not None and seats > 1:
        first = game.view(state, 0)
        if any(game.view(state, seat) != first for seat in range(1, seats)):
            return True

    def secret(value: Any) -> bool:
        if isinstance(value, Secret):
            return True
        if isinstance(value, Mapping):
            return MARK in value or any(secret(v) for v in value.values())
        return isinstance(value, (list, tuple)) and any(secret(v) for v in value)

    return any(secret(f.message) or secret(f.written) or secret(f.assumed) or secret(f.facts) for f in findings)


def unsettled(report: DisputeReport) -> list[Unknown]:
    """The unknowns the search could not settle, with slips that rest on their guess left unreported (or left between
    several values, one of which a refusal rests on): a file with no finding but these is not "clean". A face-down
    draw's, while the game is on, is its seat's to read: what every reader is told does not count it."""
    return [u for u in report.unknowns if (u.consistent is None or len(u.consistent) > 1) and u.doubts
            and (report.finished or u.owner == PUBLIC)]


def summary(report: DisputeReport) -> str:
    if report.ok:
        done = "to its end" if report.finished else "so far (the game is not over)"
        open_ = unsettled(report)
        if open_:
            lines = ", ".join(str(u.line) for u in open_)
            return counted(f"no finding, but not settled: {report.moves} moves checked {done}; {len(open_)} "
                           f"unknown(s) (line(s) {lines}) could not be narrowed within the check's bounds, and what "
                           "rests on them is not reported (see the unknowns)")
        return f"clean: {report.moves} moves checked {done}; every move legal and every outcome possible"
    kinds = Counter(f.kind for f in report.findings)
    return counted(f"{len(report.findings)} finding(s): ") + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))


# ---- chance as the table wrote it --------------------------------------------------------------


_NAME_WORDS = 8  # the most words a player's name written bare in brackets is looked for in


class WrittenChance:
    """Outcomes as written in a notation file: values only, in the order the rules ask for them.

    The rules name the kind and source of each; known values are checked for possibility,
    unknown ones (`[?]`, or `?` inside) get a possible value from `choose` and are noted.
    """

    def __init__(self, written: Sequence[Written], fixed: Mapping[int, tuple[Any, ...]] | None = None,
                 settled: Mapping[tuple[int, int], tuple[Any, ...]] | None = None,
                 seat_of: Callable[[str], int | None] | None = None, overriding: bool = False,
                 also: Mapping[str, str] | None = None) -> None:
        self.written = list(written)
        self.seat_of = seat_of  # a player's name or colour -> seat, for draws whose items are seats (a first player)
        self.also = also or {}  # a word for an item the rules name otherwise (`Words.other_names`)
        self.fixed = dict(fixed) if fixed else {}  # outcome index -> values the narrowing search tries
        self.fallback: dict[int, tuple[Any, ...]] = {}  # outcome index -> what stands for it if what is written cannot be
        if settled:
            for index, w in enumerate(self.written):  # unknowns the narrowing settled, by their place in the file
                if (w.line, w.column) not in settled or index in self.fixed:
                    continue
                if not w.known:
                    self.fixed[index] = settled[(w.line, w.column)]
                elif overriding:  # the narrowing's probes: a written outcome the checker found impossible is searched
                    self.fallback[index] = settled[(w.line, w.column)]  # too, where the probe's reading refuses it
        self.next = 0
        self.log: list[Outcome] = []
        self.unknowns: list[tuple[int, str, str, tuple[Any, ...], tuple[Any, ...], tuple[Any, ...] | None]] = []
        self.failed_at: int | None = None
        self.asked: list[tuple[str, str]] = []  # (kind, source) of each written outcome the rules took, in order

    def _as_items(self, values: Sequence[Any], contents: Sequence[Any]) -> tuple[Any, ...]:
        """Written words as the items they name; a player named where the items are seat numbers is that seat."""
        if all(type(v) is str and v != UNKNOWN and v in contents for v in values):
            return tuple(values)  # the common case: the very items, written as they are
        by_text = _by_text(contents, self.also)
        found = tuple(_named(by_text, v) for v in values)
        if self.seat_of is None or all(not isinstance(v, str) or v == UNKNOWN or v in by_text for v in found):
            return found
        out: list[Any] = []
        k = 0
        while k < len(found):  # a player's name of several words, written bare (`[Maria Grazia]`): the longest that names a seat
            taken = 1
            for end in range(min(len(found), k + _NAME_WORDS), k, -1):
                run = found[k:end]
                if not all(isinstance(v, str) and v != UNKNOWN and v not in by_text for v in run):
                    continue
                seat = self.seat_of(" ".join(run))
                if seat is not None and str(seat) in by_text:
                    out.append(by_text[str(seat)])
                    taken = end - k
                    break
            else:
                out.append(found[k])
            k += taken
        return tuple(out)

    @property
    def unused(self) -> list[Written]:
        return self.written[self.next:]

    def _take(self, kind: str, source: str) -> tuple[int, Written]:
        if self.next >= len(self.written):
            raise ImpossibleOutcome(
                "chance/missing-outcome",
                f"the rules ask for a {kind} from {source} here: write what happened in brackets, or [?] if nobody wrote it down",
                kind=kind, source=source)
        index = self.next
        self.next += 1
        self.failed_at = index
        self.asked.append((kind, source))
        return index, self.written[index]

    def draw(self, source: str, contents: Sequence[Any], n: int) -> tuple[Any, ...]:
        index, written = self._take("draw", source)
        want = min(n, len(contents))
        values = self.fixed.get(index)
        if values is not None:
            if not written.known:
                self.unknowns.append((index, "draw", source, tuple(values), tuple(contents),
                                      self._as_items(written.values, contents) if written.values is not None else None))
            _check_draw(source, contents, want, values)
        else:
            values = self._as_items(written.values, contents) if written.values is not None else None
            if values is None or UNKNOWN in values:
                partial = values
                values = _first_draw(contents, want, partial)
                self.unknowns.append((index, "draw", source, values, tuple(contents), partial))
            else:
                try:
                    _check_draw(source, contents, want, values)
                except ImpossibleOutcome:
                    if index not in self.fallback:
                        raise
                    values = self.fallback[index]
                    _check_draw(source, contents, want, values)
        self.log.append(Outcome("draw", source, tuple(values)))
        self.failed_at = None
        return tuple(values)

    def shuffle(self, source: str, items: Sequence[Any]) -> tuple[Any, ...]:
        index, written = self._take("shuffle", source)
        values = self.fixed.get(index)
        if values is not None and not written.known:
            self.unknowns.append((index, "shuffle", source, tuple(values), tuple(items), None))
        if values is None:
            values = _as_contents(written.values, items) if written.values is not None else None
            if values is None or UNKNOWN in values:
                partial = values
                values = _first_draw(items, len(items), partial)
                self.unknowns.append((index, "shuffle", source, values, tuple(items), partial))
            elif Counter(map(_key, values)) != Counter(map(_key, items)) and index in self.fallback:
                values = self.fallback[index]
            if Counter(map(_key, values)) != Counter(map(_key, items)):
                # what differs, in the file's words (a message of a hidden outcome is its seat's: `_Checker._hide`)
                extra = sorted((Counter(map(str, values)) - Counter(map(str, items))).elements())
                short = sorted((Counter(map(str, items)) - Counter(map(str, values))).elements())
                raise ImpossibleOutcome("chance/shuffle/not-a-permutation",
                                        f"the order written for {source} is not an ordering of what was shuffled: "
                                        f"{len(values)} written, {len(items)} shuffled"
                                        + (f"; {', '.join(extra)} written, not among them" if extra else "")
                                        + (f"; {', '.join(short)} not written" if short else ""),
                                        source=source, given=list(values), not_among=extra, not_written=short,
                                        shuffled=Secret(sorted(map(str, items)), None, {"hidden": True, "count": len(items)}))
        self.log.append(Outcome("shuffle", source, tuple(values)))
        self.failed_at = None
        return tuple(values)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        index, written = self._take("roll", source)
        values = self.fixed.get(index)
        if values is not None and not written.known:
            self.unknowns.append((index, "roll", source, tuple(values), (dice, faces), written.values))
        if values is None:
            raw = written.values
            if raw is None or UNKNOWN in raw:
                partial = raw
                values = tuple(v if v != UNKNOWN else 1 for v in (raw or (UNKNOWN,) * dice))[:dice]
                values = values + (1,) * (dice - len(values))
                self.unknowns.append((index, "roll", source, values, (dice, faces), partial))
            else:
                values = tuple(raw)
                if index in self.fallback and (len(values) != dice or any(
                        not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= faces for v in values)):
                    values = tuple(self.fallback[index])
                if len(values) != dice or any(not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= faces for v in values):
                    raise ImpossibleOutcome("chance/roll/impossible-face", f"{dice} dice of {faces} faces cannot show {list(values)}",
                                            source=source, rolled=list(values), dice=dice, faces=faces)
        self.log.append(Outcome("roll", source, tuple(values)))
        self.failed_at = None
        return tuple(values)


def _key(value: Any) -> str:
    return str(value)


def _by_text(contents: Sequence[Any], also: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The items by the words that name them: as written (a written 3 is the content "3" where the bag holds
    strings), and casefolded (`[Cathedral]`, `[GOLDEN_TIMES]` from a keyboard that capitalizes) where that names
    one item alone (`_named`); and by the title's other words for them (`also`: `[Rhodes]` for rodi)."""
    by_text = {str(c): c for c in contents}
    folded: dict[str, list[Any]] = {}
    for text, item in by_text.items():
        folded.setdefault(text.casefold(), []).append(item)
    for key, items in folded.items():
        if len(items) == 1:
            by_text.setdefault(key, items[0])
    for word, item in (also or {}).items():
        if item in by_text:
            by_text.setdefault(word, by_text[item])
    return by_text


def _named(by_text: dict[str, Any], value: Any) -> Any:
    """The item a written value names (`_by_text`), or the value itself where none."""
    if value == UNKNOWN:
        return value
    text = str(value)
    return by_text.get(text, by_text.get(text.casefold(), value))


def _as_contents(values: Sequence[Any], contents: Sequence[Any]) -> tuple[Any, ...]:
    """Written words as the items they name (`_by_text`)."""
    by_text = _by_text(contents)
    return tuple(_named(by_text, v) for v in values)


def _check_draw(source: str, contents: Sequence[Any], want: int, values: Sequence[Any]) -> None:
    if len(values) != want:
        raise ImpossibleOutcome("chance/draw/count", f"{want} must be drawn from {source}, the line shows {len(values)}",
                                source=source, drawn=list(values), expected_count=want)
    if _within(tuple(map(str, values)), list(map(str, contents))):  # the common, possible draw (by `_key`): no Counters
        return
    missing = Counter(map(_key, values)) - Counter(map(_key, contents))
    if missing:
        raise ImpossibleOutcome(
            "chance/draw/not-there", f"{sorted(missing.elements())} could not be drawn from {source}: it was not there",
            source=source, drawn=list(values), not_there=sorted(missing.elements()),
            held=Secret(sorted(map(str, contents)), None, {"hidden": True, "count": len(contents)}))


def _first_draw(contents: Sequence[Any], n: int, partial: Sequence[Any] | None) -> tuple[Any, ...]:
    """A possible draw that agrees with what was written: the known values, then the rest in order."""
    pool = list(contents)
    known = [v for v in (partial or ()) if v != UNKNOWN]
    for v in known:
        for i, c in enumerate(pool):
            if _key(c) == _key(v):
                pool.pop(i)
                break
        else:
            raise ImpossibleOutcome("chance/draw/not-there", f"{v!r} could not be drawn: it was not there",
                                    not_there=[str(v)], held=Secret(sorted(map(str, contents)), None,
                                                                    {"hidden": True, "count": len(contents)}))
    filled = list(known) + pool[: max(0, n - len(known))]
    return tuple(_as_contents(filled, contents))


def _candidates(kind: str, pool: tuple[Any, ...], assumed: tuple[Any, ...], partial: tuple[Any, ...] | None,
                limit: int) -> tuple[list[tuple[Any, ...]], bool]:
    """Every distinct possible value of an unknown outcome (multisets, sorted), up to `limit`; and
    whether that was all of them."""
    out: list[tuple[Any, ...]] = []
    if kind == "roll":
        dice, faces = pool
        fixed = list(partial or (UNKNOWN,) * dice)
        choices = [range(1, faces + 1) if v == UNKNOWN else (v,) for v in fixed]
        for combo in itertools.product(*choices):
            out.append(tuple(combo))
            if len(out) > limit:
                return out[:limit], False
        return out, True
    sets, complete, by_text = draw_sets(pool, len(assumed), partial, limit)
    if kind == "shuffle":
        complete = complete and len(sets) <= 1
    return [tuple(by_text[v] for v in c) for c in sets[:limit]], complete


# ---- the checker -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Steps:
    """A move of several steps being read (`sail a b c`, `load 2 from 4`): each step's start, to read one otherwise."""

    move: Move
    turn: Turn
    commands: Sequence[Command]
    said: Sequence[Mapping[str, Any]]
    starts: list[tuple[Any, tuple[int, int, int], Refusal | None]]  # before each step: state, marks, first refusal


class _Checker:
    spelled: frozenset[str] = frozenset()  # the words the file's outcomes write more than once (`_respelt`)
    overriding = False  # settled values stand only for outcomes nobody wrote (a probe: for impossible ones too)
    reads_unwritten = False  # a probe reads a move found written without its outcomes with `[?]` for them at once

    def __init__(self, game: Game, words: Words, edition: Edition, seats: list[str], colours: list[str | None],
                 options: dict[str, Any], settled: Mapping[tuple[int, int], tuple[Any, ...]] | None = None) -> None:
        self.settled = dict(settled or {})
        self.game, self.words, self.edition = game, words, edition
        self.other_names = dict(words.other_names(edition)) if words.other_names is not None else {}
        self.seats, self.colours, self.options = seats, colours, options
        self.findings: list[Finding] = []
        self.checked: list[Checked] = []
        self._said: Command | None = None
        self._partway: tuple[tuple[int, int], int, int, str] | None = None  # a count's move past its first (`move`)
        self._steps: _Steps | None = None  # the move of several steps being read (`move`, `_step_mended`)
        self.claimed: dict[int, int] = {}  # seat -> the total the table wrote down (the narrowing's last judge)
        self.state: Any = None
        self.setup_entry: Entry | None = None
        self.unknowns: list[Unknown] = []
        self._readings: dict[tuple[Any, ...], tuple[list[dict[str, Any]], list[Command]]] = {}
        self._parsed: dict[tuple[Any, ...], Command] = {}
        self._jsons: dict[int, dict[str, Any]] = {}  # id of a command kept in `_readings` or `_parsed` -> its JSON
        self._pending: tuple[Any, Any] = (None, None)  # the last state asked, and its pending decision
        own = getattr(game, "play", None)  # looked up once: the title's own play, else decide and fold
        self._play: Callable[[Any, Command, Any], tuple[Sequence[Any], Any]] = (
            own if own is not None else lambda state, command, chance: play(game, state, command, chance))
        self._seats: dict[str, int | None] = {}
        self.short: dict[str, int] = {}  # a player written as the first words of one seat's name -> that seat
        self.initials: set[str] = set()  # those of `short` written as the initials of the seat's name (`AM`)
        self._verbs: dict[str, str] | None = None  # command id -> the verb a line writes (report_words)
        # the explanations' reading (kernel.explain): a strict copy raises Refused where a finding would be written
        self.strict = False
        self.guessed = False  # a strict copy read outcomes of a turn nobody wrote with a guess (`insert`)
        self.taken = 0  # written items found not there after such a guess, read past (`_past_guess`)
        self.took: tuple[str, ...] = ()  # those items as written, each once (kernel.toward_result changes a guess of one first)
        self.decided = 0  # commands a strict copy decided (the search's budget)
        self.budget: Budget | None = None  # the check's one budget, once charged (`charging`)
        self._counted: dict[tuple[int, int], tuple[int, int, str]] = {}  # a move written with a count, refused part way
        self.forced: dict[tuple[int, int], Command | None] = {}  # (line, column) of a refused move -> what stands for it
        self.steps: dict[tuple[int, int], tuple[Command, ...]] = {}  # (line, column) of a move -> the steps left out after it
        self.instead: dict[tuple[int, int], Command] = {}  # (line, column) of a move read, but another stood for it
        self._blanks: dict[tuple[int, int], list[Written]] = {}  # the unwritten outcomes of an inserted command, by place
        self._line_moves: list[tuple[tuple[int, int], Any, int, Mapping[str, Any] | None, str]] = []  # this line's so far
        self.line_before: list[tuple[tuple[int, int], Any, int, Mapping[str, Any] | None, str]] = []  # the line before's
        self.mended: set[tuple[int, int | None]] = set()  # where words were mended and read as meant (`two` for 2)
        # a word misspelt and read as its nearest (`famagsuta`: famagusta) -> that word and the finding that said so:
        # the same misspelling written again, on the line or after it, reads so with no finding of its own
        self.respellings: dict[str, tuple[str, Finding]] = {}
        # hidden outcomes written with a word that names nothing of the edition (`[R11]`): the table's slip whatever
        # an outcome nobody wrote before them was (`_doubted` keeps them)
        self.misspelt: set[tuple[int, int | None]] = set()
        self.refused: Refusal | None = None  # the first refusal of the line being read, as the search needs it
        self._stood_in = False
        self.over_reported = False
        self.held_back = False  # a refusal was read as it always was, an unsettled unknown before it (`_run`)
        self.held_at: int | None = None  # the line of the first such refusal
        self.unreadable: set[tuple[int, int]] = set()  # (line, column) of moves whose words no state makes readable
        self.explanations: dict[int, Explanation] = {}  # index of a written turn -> how it was read (the narrowing reads so)
        self.ahead: tuple[Sequence[Turn], int] = ((), 0)  # the file's lines and the one being read (`_unwritten_count`)
        self.unwritten: set[tuple[int, int]] = set()  # (line, column) of moves whose outcomes nobody wrote (`[?]` each)
        self.bracketed: Finding | None = None  # the first bracket found holding several draws' outcomes (`_split_read`)
        self.asided: Finding | None = None  # the first move found with its outcomes in parentheses (`_written_aside`)
        # (line, column) of a move -> the move as read: outcomes written a line late moved to the move that asked them,
        # and taken from the move they were written on (`_written_late`)
        self.late: dict[tuple[int, int], Move] = {}
        # (line, column) of an outcome one player alone saw, read as `[?]` whatever was written for it -> as written
        self.face_down: dict[tuple[int, int], tuple[Any, ...]] = {}

    # -- the reading the explanations search with (kernel.explain.Reader)
    def fork(self) -> _Checker:
        """A strict copy reading from where this one is: its own log, the same caches; no finding, a Refused."""
        other = copy.copy(self)
        other.findings, other.checked, other.unknowns = [], [], []
        other.strict, other.decided, other.forced, other.refused = True, 0, {}, None
        other.guessed, other.taken, other.took = False, 0, ()
        other.counting()
        return other

    def charging(self, budget: Budget) -> None:
        """Every command this checker, its strict copies and its probes decide is charged to the check's budget."""
        self.budget = budget
        own = self._play

        def charged(state: Any, command: Command, chance: Any) -> tuple[Sequence[Any], Any]:
            budget.charge()
            return own(state, command, chance)
        self._play = charged

    def counting(self) -> None:
        """Count the commands this checker decides from now on (`decided`)."""
        own = self._play

        def counted(state: Any, command: Command, chance: Any) -> tuple[Sequence[Any], Any]:
            self.decided += 1
            return own(state, command, chance)
        self._play = counted

    def read_line(self, state: Any, seat: int, turn: Turn, forced: dict[tuple[int, int], Command | None] | None = None,
                  steps: dict[tuple[int, int], tuple[Command, ...]] | None = None,
                  instead: dict[tuple[int, int], Command] | None = None) -> Any:
        """One written line through the rules as `seat`'s, a refused move standing for `forced`'s command, a move
        before it for `instead`'s, and the steps nobody wrote (`steps`) after a move whose brackets hold their outcomes."""
        self.forced, self.steps, self.instead = dict(forced or {}), dict(steps or {}), dict(instead or {})
        self.line_before, self._line_moves = self._line_moves, []
        for move in turn.moves:
            pending = self.pending(state)
            if pending.over:
                if not self.over_reported:
                    self.finding("order", move.line, "notation/after-the-end",
                                 f"line {move.line}: the game is already over; this and every later move are not checked",
                                 seat=seat, written=move.text)
                    self.over_reported = True
                break
            state = self.move(state, seat, move, turn, pending)
        state = self.line_end(state, seat, turn)
        self.forced, self.steps, self.instead = {}, {}, {}
        return state

    def insert(self, state: Any, seat: int, command: Command, line: int,
               guessed: dict[int, tuple[Any, ...]] | None = None, index: int = 0) -> Any:
        """A command nobody wrote (a turn left out), the `index`th of those before `line`: its outcomes unknown (the
        first possible, or `guessed`: outcome index -> values), narrowed later by what follows. Their places are
        the line's and `inserted_place`'s columns, the same in every reading (the narrowing settles them by place)."""
        base = inserted_place(index, 0)
        written = self._blanks.get((line, base))
        if written is None:  # the same places each time the search reads this turn nobody wrote
            written = self._blanks[(line, base)] = [Written(None, line, base - k) for k in range(32)]
        fixed = dict(guessed or {})
        if self.settled:  # what the narrowing settled comes before a guess
            fixed.update({k: v for k in range(32) if (v := self.settled.get((line, base - k))) is not None})
        chance = WrittenChance(written, fixed, seat_of=self.seat_of, also=self.other_names)
        try:
            produced, after = self._play(state, command, chance)
        except RuleViolation as exc:
            if self.strict:
                raise Refused(exc.rule) from exc
            return state
        chance.written = chance.written[: chance.next]  # its outcomes nobody wrote: unknowns what follows narrows
        self.guessed = self.guessed or bool(chance.unknowns)
        self._said = command
        move = Move("", (), tuple(chance.written), (), line, 0, "" if self.strict else self.say(command, state))
        return self._keep(state, seat, move, command, chance, produced, after, assumed=True)

    def guesses(self, state: Any, commands: Sequence[Command], line: int, most: int
                ) -> list[tuple[int, int, tuple[Any, ...], list[tuple[Any, ...]]]]:
        """The outcomes nobody wrote of commands nobody wrote: (which command, which outcome, the value first
        assumed, the possible values, `most` at most), for the search to try (kernel.explain)."""
        out = []
        for k, command in enumerate(commands):
            mark = len(self.unknowns)
            state = self.insert(state, command.seat if command.seat is not None else 0, command, line, index=k)
            for unknown in self.unknowns[mark:]:
                values, _ = _candidates(unknown.kind, unknown.pool, unknown.assumed, unknown.partial, most)
                out.append((k, unknown.outcome, unknown.assumed, values))
        return out

    def agreement(self, state: Any) -> int:
        """How many seats' totals, as the table wrote them down, a finished game gives (0: none written, or unfinished)."""
        if not self.claimed or not self.game.pending(state).over:
            return 0
        totals = {s["seat"]: s["total"] for s in self.game.scores(state).get("seats", [])}
        return sum(1 for seat, total in self.claimed.items() if totals.get(seat) == total)

    def play_step(self, state: Any, command: Command, outcomes: Sequence[Written]) -> tuple[Any, int]:
        """A step nobody wrote meeting the outcomes written before it: the state after it, and how many it met."""
        chance = self.chance(outcomes)
        try:
            _, after = self._play(state, command, chance)
        except RuleViolation as exc:
            raise Refused(exc.rule) from exc
        return after, chance.next

    def _left_steps(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance,
                    produced: Sequence[Any], after: Any, steps: tuple[Command, ...]) -> Any:
        """The move with the outcomes it meets, then the steps nobody wrote after it with the rest (kernel.explain)."""
        rest = chance.unused
        chance.written = chance.written[: chance.next]
        state = self._keep(state, seat, move, command, chance, produced, after)
        for step in steps:
            met = self.chance(rest)
            try:
                produced, after = self._play(state, step, met)
            except RuleViolation as exc:
                if self.strict:
                    raise Refused(exc.rule) from exc
                return state
            met.written, rest = met.written[: met.next], rest[met.next:]
            self._said = step
            quiet = Move("", (), tuple(met.written), (), move.line, move.column,
                         "" if self.strict else self.say(step, state))
            state = self._keep(state, step.seat if step.seat is not None else seat, quiet, step, met, produced, after,
                               assumed=True)
        if rest and self.strict:
            raise Refused("chance/unused-outcome")
        return state

    def legal_for(self, state: Any, seat: int | None) -> list[Command]:
        return [c for c in self.game.legal(state) if c.seat == seat]

    def broken(self, state: Any, command: Command) -> tuple[str, str | None]:
        """The rule `command` breaks in `state`, and its words (a count past what is left: the count a move before
        it left short), or out-of-turn where the rules take it there."""
        try:
            play(self.game, state, command, self.chance([Written(None, 0, 0)] * 32, {}))
        except RuleViolation as exc:
            message = exc.stored()["message"]
            return exc.rule, message if isinstance(message, str) else None
        return "notation/out-of-turn", None

    def public_say(self, command: Command, state: Any) -> str:
        """A command in words as every reader may read it (hidden words as `secret_words` gives them)."""
        hidden = self._words(self._json(command))
        return hidden if hidden is not None else self.say(command, state)

    def chance(self, written: Sequence[Written], settled: Mapping[tuple[int, int], tuple[Any, ...]] | None = None
               ) -> WrittenChance:
        """The outcomes of one move as written; a player named in a draw of seats is read as that seat."""
        return WrittenChance(written, settled=self.settled if settled is None else settled, seat_of=self.seat_of,
                             overriding=self.overriding, also=self.other_names)

    # -- who is who
    def seat_of(self, player: str) -> int | None:
        if player not in self._seats:
            self._seats[player] = self._seat_of(player)
        return self._seats[player]

    def _seat_of(self, player: str) -> int | None:
        wanted = fold_name(player)
        for i, name in enumerate(self.seats):
            if fold_name(name) == wanted:
                return i
        for i, colour in enumerate(self.colours):
            if colour is not None and fold_name(colour) == wanted:
                return i
        for i, colour in enumerate(self.words.colours[: len(self.seats)]):
            if fold_name(colour) == wanted:
                return i
        found = find_seat(player, self.seats)  # `Niccolo` for Niccolò, `A.Rossi` for A. Rossi: one seat's name alone
        if found is None:
            found = self._shortened(player)
            if found is not None:
                self.short[player] = found
        return found

    def _shortened(self, player: str) -> int | None:
        """`Anna` for Anna Maria, `Bruno` for Bruno 2: the seat whose name alone begins with the words written; `AM`
        for Anna Maria: the seat whose name's words alone begin with those letters, one each (a finding where a line
        first writes it, `short`; every line after it that writes it is read so)."""
        found, initials = _begun(player, self.seats)
        if len(found) != 1:
            return None
        if initials:
            self.initials.add(player)
        return found[0]

    def shortening_of(self, player: str) -> tuple[list[str], str]:
        """The seats whose names a player written shortened may be, where it is more than one (`Anna` where Anna Maria
        and Anna Lisa sit; `AM` where Anna Maria and Aldo Moro do), and the sentence that says so; none otherwise."""
        found, initials = _begun(player, self.seats)
        if len(found) < 2:
            return [], ""
        names = [self.seats[i] for i in found]
        each = "both" if len(names) == 2 else "each"
        why = f"these are the initials of {each}" if initials else f"it begins {each} of their names".replace(
            "both of their names", "both names")
        return names, f"{player!r} could be {' or '.join(names)}: {why}"

    def round_of(self, state: Any) -> int | None:
        if self.words.round_of is not None:
            return self.words.round_of(state)
        try:
            found = self.game.view(state, None).get("round")
        except Exception:  # noqa: BLE001  (a view that cannot say gives no round)
            return None
        return found if isinstance(found, int) and not isinstance(found, bool) else None

    def held(self, state: Any, seat: int) -> Any:
        if self.words.held is not None:
            return Secret(self.words.held(state, seat), seat)
        view = self.game.view(state, seat)
        seats = view.get("seats") if isinstance(view, dict) else None
        mine = seats[seat] if isinstance(seats, list) and seat < len(seats) else view
        return Secret(mine, seat)

    def alternatives(self, state: Any, seat: int, written: Mapping[str, Any] | None, most: int = 5,
                     text: str | None = None) -> list[Command]:
        """The legal moves closest to what was written: the same action with the most of its words (`written`, the
        command it says), then, where `text` (the move as written) is given, those whose words differ from it in the
        fewest characters (`unload valencia` for `load valencia`, `burn P B` for an unreadable `burn W B`), then
        the values nearest (`L104` for `L105`); the rules' order otherwise."""
        legal = list(self.game.legal(state))
        if written is None and text is None:
            return legal[:most]

        def closeness(cmd: Command) -> tuple[int, int]:
            if written is None:
                return (0, 0)
            other = cmd.to_json()
            if other.get("type") != written.get("type"):
                return (0, -len(other))
            same = sum(1 for k, v in other.items() if k not in ("type", "seat") and written.get(k) == v)
            differ = sum(1 for k, v in other.items() if k not in ("type", "seat") and written.get(k) != v)
            return (1, same * 10 - differ)

        ranked = sorted(legal, key=closeness, reverse=True)
        ranked = [c for c in ranked if c.seat == seat] or ranked
        spent = self.budget is not None and self.budget.spent()
        head = ranked[:READ_LEGAL_SPENT if spent else READ_LEGAL]  # put in words: the closest by what they say
        bare = " ".join(_BRACKETS.sub(" ", text).lower().split()) if text is not None else None

        def nearness(cmd: Command) -> tuple[int, ...]:
            own = closeness(cmd)
            if bare is not None:
                said = self.say(cmd, state).lower()
                apart = (int(said.split(" ", 1)[0] != bare.split(" ", 1)[0]), _slips(bare, said))
            else:
                apart = (0, 0)
            values = [written_apart(written.get(k), v) for k, v in cmd.to_json().items()
                      if k not in ("type", "seat") and written.get(k) != v] if written is not None else []
            return (-own[0], -own[1], *apart, sum(a for a, _ in values), sum(n for _, n in values))
        return sorted(head, key=nearness)[:most]

    def say(self, command: Command, state: Any = None) -> str:
        if self.words.write is not None and state is not None:
            try:
                return self.words.write(state, command.to_json())
            except (ValueError, KeyError):
                pass
        try:
            return self.words.vocabulary.write(command.to_json())
        except ValueError:
            return str(command.to_json())

    def finding(self, kind: str, line: int, rule: str, message: Any, state: Any = None, seat: int | None = None,
                **more: Any) -> Finding:
        if self.strict:
            raise Refused(rule)
        found = Finding(kind, line, rule, self.plain(message, kind, seat), seat=seat, **more)
        if found.step is None and self.setup_entry is not None:
            found.step = len(self.setup_entry.events) + sum(len(c.entry.events) for c in self.checked)
        if seat is not None:
            found.player = self.seats[seat]
        if state is not None:
            found.round = self.round_of(state)
            if seat is not None and found.held is None:
                found.held = self.held(state, seat)
            if seat is not None and found.holding is None and self.words.held_words is not None:
                found.holding = Secret(self.words.held_words(state, seat, self.seats), seat)
        self.findings.append(found)
        return found

    def plain(self, message: Any, kind: str, seat: int | None = None) -> Any:
        """A finding's sentence in the table's words (domain/kernel/report_words.py): names for seat numbers,
        words for Python's lists and command ids; the game's words for the rules' tokens where the finding
        is about the rules (not about what was written, whose words are the notation's)."""
        if self._verbs is None:
            self._verbs = verbs_of(self.words.vocabulary.by_kind)
        things = kind in ("rule", "chance", "result")
        return plain_any(message, lambda text: plain(text, self.seats, self._verbs, self.words.terms, things, seat))

    # -- the setup
    def setup(self, written: tuple[Written, ...], line: int) -> Any:
        state = self.game.begin(self.edition)
        chance = self.chance(written, self.settled)
        try:
            try:
                produced = self.game.setup(self.edition, self.options, chance)
            except ImpossibleOutcome as exc:
                respelt = ((self._setup_respelt(state, written, chance) or self._setup_swapped(state, written, chance, exc))
                           if self.guesses_setup and not self.strict else None)  # (a probe's guess: no respelling)
                guessed = respelt or (self._setup_guessed(written, chance) if self.guesses_setup else None)
                if guessed is None:
                    raise
                chance, produced = guessed
        except RuleViolation as exc:
            found = self.finding("chance" if isinstance(exc, ImpossibleOutcome) else "header", line, exc.rule,
                                 exc.stored()["message"], facts=exc.stored()["facts"])
            self._hide(found, None, self._owners(state, None, None, chance), about=chance.failed_at)
            return None
        except (KeyError, ValueError, TypeError) as exc:
            self.finding("header", line, "notation/options", f"the game cannot be set up with these options: {exc}")
            return None
        self._note_unknowns(chance, -1, self._owners(state, None, None, chance))
        if chance.unused:
            extra = chance.unused[0]
            self.finding("chance", extra.line, "chance/unused-outcome",
                         f"line {extra.line}: the setup line gives {_counted(len(chance.unused), 'outcome')} the rules "
                         "never ask for",
                         column=extra.column)
        after = fold(self.game, state, produced)
        self.setup_entry = Entry(None, tuple(chance.log), tuple(produced), options=self.options)
        return after

    guesses_setup = True  # (not a narrowing's probe: `_Probe`)

    def _setup_swapped(self, state: Any, written: tuple[Written, ...], failed: WrittenChance, exc: ImpossibleOutcome
                       ) -> tuple[WrittenChance, list[Any]] | None:
        """A shuffle of the Setup line written with one item that was not shuffled where one that was is not written
        (`F4` for the landscape tiles' F2): read with that one in its place, one finding; the game checked on. Only an
        outcome every reader may see."""
        bad = failed.failed_at
        extra, short = exc.facts.get("not_among"), exc.facts.get("not_written")
        if (exc.rule != "chance/shuffle/not-a-permutation" or bad is None or bad >= len(written) or not extra
                or not short or len(extra) != 1 or len(short) != 1):
            return None
        owners = self._owners(state, None, None, failed)
        values = list(written[bad].values or ())
        if bad >= len(owners) or owners[bad] != PUBLIC or extra[0] not in map(str, values):
            return None
        values[[str(v) for v in values].index(extra[0])] = short[0]
        outcomes = list(written)
        outcomes[bad] = Written(tuple(values), written[bad].line, written[bad].column)
        chance = self.chance(outcomes, self.settled)
        try:
            produced = self.game.setup(self.edition, self.options, chance)
        except RuleViolation:
            return None
        self.finding("chance", written[bad].line, exc.rule,
                     f"line {written[bad].line}: {exc.message}; read with {short[0]} where {extra[0]} is written, the "
                     f"one not written", column=written[bad].column, assumed=short[0], did_you_mean=[short[0]])
        return chance, produced

    def _setup_respelt(self, state: Any, written: tuple[Written, ...], failed: WrittenChance
                       ) -> tuple[WrittenChance, list[Any]] | None:
        """The setup made again with each outcome the rules could not take for a misspelt word (`[master_bulder]`
        where the file writes master_builder elsewhere, `[raguza]` where the edition names ragusa: `_as_spelled`) read
        as the file or the edition spells it, one finding at each:
        a slip of the Setup line leaves the whole game to check. Only outcomes every reader may see (`_respelt`); None
        where that does not make the setup."""
        outcomes, chance, said = list(written), failed, []
        known = self.spelled | _edition_spellings(self.edition)  # (the edition's words: every reader has them)
        for _ in range(len(written)):
            bad = chance.failed_at
            if bad is None or bad >= len(outcomes):
                return None
            owners = self._owners(state, None, None, chance)
            values = outcomes[bad].values or ()
            meant = _as_spelled(values, known)
            if meant is None or bad >= len(owners) or owners[bad] != PUBLIC or any(
                    w != m and _names_a_thing(self.edition, [w]) for w, m in zip(values, meant, strict=True)):
                return None  # (a card the edition has, written where it could not be dealt: another slip than a spelling)
            said.append((outcomes[bad], meant))
            outcomes[bad] = Written(tuple(meant), outcomes[bad].line, outcomes[bad].column)
            chance = self.chance(outcomes, self.settled)
            try:
                produced = self.game.setup(self.edition, self.options, chance)
            except ImpossibleOutcome:
                continue
            except RuleViolation:
                return None
            for slip, meant in said:
                pairs = [(str(w), str(m)) for w, m in zip(slip.values or (), meant, strict=True) if w != m]
                self.finding("chance", slip.line, "chance/draw/not-there",
                             f"line {slip.line}: " + " and ".join(f"{w!r}" for w, _ in pairs)
                             + f" (in {write_outcome(slip.values or ())}) names nothing of the game; read as "
                             + " and ".join(m for _, m in pairs) + ", the nearest word the file or the edition writes",
                             column=slip.column, assumed=write_outcome(meant), did_you_mean=[m for _, m in pairs])
            return chance, produced
        return None

    def _setup_guessed(self, written: tuple[Written, ...], failed: WrittenChance
                       ) -> tuple[WrittenChance, list[Any]] | None:
        """The setup made again where a written outcome is impossible with the first guesses of the `[?]` before it
        (the cities nobody wrote, then a scheme card of one of them; `failed`: the chance it failed with): each unknown
        draw tried with the other sets its pool holds, `SETUP_GUESSES` setups at most, and the first with which every
        written outcome stands kept in `settled` (the narrowing judges it by the lines after it, as any guess). None
        when none stands."""
        unknowns = [u for u in failed.unknowns if u[1] == "draw" and (failed.failed_at is None or u[0] < failed.failed_at)]
        if not unknowns:
            return None
        # each draw's values in the order the rules take them where there are few enough (the cities dealt seat by
        # seat: which seat has which city decides which scheme each draws next), its sets otherwise
        drawn = [candidates_of(Asked(kind, pool, values, partial), SETUP_GUESSES)[0]
                 for _, kind, _, values, pool, partial in unknowns]
        for k, combination in enumerate(itertools.product(*drawn)):
            if k >= SETUP_GUESSES:
                return None
            guess = dict(self.settled)
            for (index, *_), values in zip(unknowns, combination, strict=True):
                guess[(written[index].line, written[index].column)] = values
            chance = self.chance(written, guess)
            try:
                produced = self.game.setup(self.edition, self.options, chance)
            except RuleViolation:
                continue
            self.settled.update(guess)
            return chance, produced
        return None

    def _note_unknowns(self, chance: WrittenChance, move: int, owners: Sequence[Owner]) -> None:
        for index, kind, source, values, pool, partial in chance.unknowns:
            written = chance.written[index]
            self.unknowns.append(Unknown(written.line, written.column, kind, source, move, index, tuple(values),
                                         pool, partial, owner=owners[index] if index < len(owners) else PUBLIC,
                                         seated=source in self.words.seat_sources,
                                         face_down=self.face_down.get((written.line, written.column))))

    # -- what a finding shows while the game is in progress
    def _owners(self, state: Any, seat: int | None, command: Mapping[str, Any] | None, chance: WrittenChance | None,
                written: int | None = None) -> list[Owner]:
        """Who alone may read each outcome written at a move (`Words.secret_outcomes`): the title's word for those
        the rules took (`chance.asked`); the moving seat for the rest, whose source nobody knows (a move that could
        not be read, an outcome more than the rules asked for). `written`: how many; all of `chance`'s by default."""
        count = len(chance.written) if written is None and chance is not None else written or 0
        hook = self.words.secret_outcomes
        if hook is None:
            return [PUBLIC] * count
        asked = chance.asked[:count] if chance is not None else []
        said = list(hook(state, seat, command, asked)) if asked else []
        return [*said, *[seat] * (count - len(said))]

    def _words(self, command: Mapping[str, Any] | None) -> str | None:
        """How everyone but its seat reads a command whose words are hidden (`Words.secret_words`), else None."""
        hook = self.words.secret_words
        return hook(command) if hook is not None and command is not None else None

    def _hide(self, found: Finding, move: Move | None, owners: Sequence[Owner], words: str | None = None,
              about: int | None = None) -> None:
        """Wrap what `found` shows of a hidden outcome or of hidden words as a `Secret` of the seat they belong to,
        as a rule's facts are (kernel.violations): `written`, which every other reader reads with each hidden
        outcome as `[?]` and hidden words as `secret_words` gives them; the message and facts too when they are
        about a hidden outcome (`about`, its index) or hidden words. Shown whole to all once the game is over."""
        private = [o for o in owners if o != PUBLIC]
        if words is not None:
            private.append(found.seat)
        if not private:
            return
        owner = private[0] if all(o == private[0] for o in private) else None
        if found.written is not None and move is not None:
            found.written = Secret(found.written, owner, _public_text(move, owners, words))
        if words is None and (about is None or about >= len(owners) or owners[about] == PUBLIC):
            return
        whose = ("no player's" if owner is None else f"{self.seats[owner]}'s alone" if 0 <= owner < len(self.seats)
                 else "one player's alone")
        found.message = Secret(found.message, owner, f"line {found.line}: what is written here does not stand; why is "
                                                     f"{whose} to read while the game is in progress")
        found.facts = {k: v if k in OPEN_FACTS or (isinstance(v, Mapping) and MARK in v) else Secret(v, owner)
                       for k, v in found.facts.items()}

    # -- one move
    def move(self, state: Any, seat: int, move: Move, turn: Turn, pending: Any = None) -> Any:
        """One move of a line through the rules (`pending`: the state's, when the caller has it already)."""
        if pending is None:
            pending = self.pending(state)
        place = (move.line, move.column)
        move = self.late.get(place, move)  # outcomes written a line late, read at the move that asked them
        if place in self.instead:  # a move read, but another stood for it (kernel.explain): what follows says so
            return self._stand_in(state, seat, move, self.instead.pop(place))
        try:
            said, commands = self._commands(state, seat, move)
        except NotationError as exc:
            again = self._spelt_as_before(move)
            if again is not None and self._reads(again, seat, state):
                return self.move(state, seat, again, turn, pending)
            spelt = _numbers_as_words(move)
            if spelt is not None and self._reads_as(state, seat, spelt[0]):  # `recruit two galley 1`: 2
                numbered, words = spelt
                if not self.strict:
                    found = self.mended_slip(move.line,
                                             f"line {move.line}: {' and '.join(f'`{w}`' for w in words)} is a number "
                                             f"written as a word in `{move.text}`; read as `{numbered.text}`", state, seat, written=move.text,
                                             column=move.column, assumed=numbered.text, did_you_mean=[numbered.text])
                    hidden = self._words(self.words.vocabulary.read(numbered, seat))  # `disc five`: face down
                    self._hide(found, move, self._owners(state, seat, None, None, len(move.outcomes)), hidden)
                    if hidden is not None:  # (what it reads as is its player's alone, as the words are)
                        found.assumed, found.did_you_mean = Secret(found.assumed, seat, "a number written as a word"), []
                    self.mended.add((found.line, found.column))  # read as meant: nothing refused (no gap behind it)
                return self.move(state, seat, numbered, turn, pending)
            counted = self._unwritten_count(state, seat, move, turn) if not self.strict else None
            if counted is not None:  # `load ? from 11`: how many, nobody wrote down
                return self._read_unwritten_count(state, seat, move, turn, *counted)
            unwritten = self._unwritten_word(state, seat, move) if "typed apart" not in str(exc.message) else None
            nobody = self._unwritten_said(move, unwritten) if unwritten is not None else None
            if unwritten is not None and len(unwritten) == 1 and not self.strict:  # `upgrade P ?`: a word nobody
                # wrote down, the one move the rules take so (a search's strict reading refuses it, as any slip: a
                # reading that rewords another move so that this one reads is no likelier for it)
                return self._read_unwritten(state, seat, move, unwritten[0], str(nobody))
            split = self._comma_forgotten(state, move, seat)
            if split is not None:  # `burn O yes`: two moves, the comma between them forgotten
                first, second = split
                if not self.strict:
                    found = self.mended_slip(move.line,
                                             f"line {move.line}: a comma is missing in `{move.text}`; read as "
                                             f"`{first.text}, {second.text}`", state, seat, written=move.text,
                                             column=second.column, assumed=f"{first.text}, {second.text}")
                    hidden = next((w for part in (first, second) if (w := self._words(
                        self.words.vocabulary.read(part, seat))) is not None), None)  # `disc 3 yes`: face down
                    self._hide(found, move, self._owners(state, seat, None, None, len(move.outcomes)), hidden)
                    if hidden is not None:
                        found.assumed = Secret(found.assumed, seat, "read as two moves")
                return self.move(self.move(state, seat, first, turn), seat, second, turn)
            try:
                self.words.vocabulary.read(move, seat)
            except NotationError:
                self.unreadable.add(place)  # its words, not what the game holds (a word misspelt)
            message, near = exc.message, exc.did_you_mean
            if nobody is not None and unwritten is not None:  # several: which one, what follows says (kernel.explain)
                secret = self._words(self._json(unwritten[0][0])) is not None  # `disc ?`: the discs left are the seat's
                message, near = nobody, [] if secret else [text for _, text in unwritten][:5]
            doubled = _doubled(move)
            meant = self._reads(doubled[0], seat, state) if doubled is not None else []
            respelt: tuple[str, str] | None = None  # (the word as written, as read) where one word stands for it
            if meant and doubled is not None:  # `unload 2 to to 12`: a word written twice, read once (the closest
                # legal moves ranked by it; the explanation search still takes another that lets more of the file stand)
                message = f"line {move.line}: {doubled[1]!r} is written twice in {move.text!r}"
            else:
                meant, respelt = self._meant(move, seat, exc.did_you_mean, state)
            if len(meant) > 1 and pending.seat == seat:  # the steps the corrected move leaves out come first
                quiet = Move(move.verb, move.words, (), move.comments, move.line, move.column, move.text)
                for written in meant[:-1]:
                    state = self._decide(state, seat, quiet, self.game.parse_command(written), written)
            before = len(self.findings)
            if respelt is not None and not self.strict and len(near) > 1 and isinstance(message, str):
                # offered only the words that read here (`upgarde`: upgrade, not trade, which is no move now)
                kept = [respelt[1], *(w for w in near if w != respelt[1] and self._meant(move, seat, [w], state)[0])]
                offered = f"did you mean {' or '.join(near)}?"
                if kept != list(near) and offered in message:
                    message, near = message.replace(offered, f"did you mean {' or '.join(kept)}?"), kept
            state = self._replace(state, seat, move, meant[-1] if meant else None, "notation",
                                  "notation/move", message, did_you_mean=near, expected=exc.expected,
                                  column=exc.column)
            noted = self.findings[before] if len(self.findings) > before else None
            if respelt is not None and meant and not self.strict and noted is not None and isinstance(noted.message, str):
                known = self.respellings.get(respelt[0])  # (a hidden word's slip: each line its own finding)
                if known is None or (known[1].line, known[1].column or 0) >= (move.line, move.column):  # or read again
                    self.respellings[respelt[0]] = (respelt[1], noted)
            return state
        except MalformedCommand as exc:
            public = _public_text(move, self._owners(state, seat, None, None, len(move.outcomes)), None)
            return self._replace(state, seat, move, None, "notation", "notation/move",
                                 f"line {move.line}: {public!r} does not say a whole move: {exc.message}",
                                 facts={"errors": exc.errors})
        if pending.seat != seat and not pending.over:
            if place in self.forced:  # a move after the seat's turn ended, left out as an explanation says (kernel.explain)
                return self._stand_in(state, seat, move, self.forced.pop(place))
            if self.strict:
                raise Refused("notation/out-of-turn")
            if self.refused is None:
                self.refused = Refusal("order", seat, pending.seat, place, earlier=self._earlier(place))
            waiting = self._waiting(state, seat, pending.seat, pending.kind)
            found = self.finding("order", move.line, "notation/out-of-turn",
                                 f"line {move.line}: {self.seats[seat]} moves here, but the rules wait for {waiting}"
                                 f": a line out of order, or a turn written twice; this move is skipped",
                                 state, seat, written=move.text, column=move.column, assumed="skipped")
            self._hide(found, move, self._owners(state, seat, said[0] if said else None, None, len(move.outcomes)),
                       next((w for c in said if (w := self._words(c)) is not None), None))
            return state
        if not self.strict and said:  # a later refusal of the line may be this move's, written with other words
            self._line_moves.append((place, state, seat, said[-1], self._words(said[-1]) or move.text))
        if len(commands) == 1:  # the common move: one command, with the move's own outcomes
            return self._decide(state, seat, move, commands[0], said[0])
        quiet = Move(move.verb, move.words, (), move.comments, move.line, move.column, move.text)
        self._stood_in = False
        repeated = all(c == said[0] for c in said)  # `load 3 from 4`: one move written with a count
        steps = _Steps(move, turn, commands, said, [])  # (several steps of one kind: a path, a list of loads)
        for k, (command, written) in enumerate(zip(commands, said, strict=True)):
            before = len(self.findings)
            steps.starts.append((state, (len(self.checked), before, len(self.unknowns)), self.refused))
            # past the first of a count (`load 3` where 2 could be): a refusal reads it as those that stood (`_replace`)
            self._partway = (place, k, len(commands), move.text) if repeated and k > 0 else None
            self._steps = None if (repeated and k > 0) or self.strict else steps
            state = self._decide(state, seat, move if k == len(commands) - 1 else quiet, command, written)
            self._partway = self._steps = None
            if self._stood_in or any(f.kind in ("rule", "notation") for f in self.findings[before:]):
                if repeated and k > 0 and not self._stood_in:
                    self._counted[place] = (k, len(commands), move.text)
                break  # the closest legal move stands for the whole of this one (or the steps read as mended)
        return state

    def _step_mended(self, steps: _Steps, seat: int, rule: str, message: str) -> Any | None:
        """A move of several steps refused at its last step read so far (`sail barcelona napoli palermo`: the Catalan
        Sea is not next to the Ligurian Sea; `sail palermo corfu tunis algiers corfu`: the Ionian Sea is not next to
        the Algerian Sea), where one step is the slip, that one or the one before it: the legal steps closest to what
        each says are tried in its place, and of those with which the rest of the move stands, the one with which
        the most of the lines after it read is kept (the refused step's on a tie, the closest first); one finding
        (the rule the written steps break, and the step read otherwise). The state after the move so read, or None.
        Hidden words are not tried."""
        move, commands, said = steps.move, steps.commands, steps.said
        k = len(steps.starts) - 1
        counted = len(commands) > 1 and all(c == commands[0] for c in commands)  # `unload 2 to 3`: each step alike
        best: tuple[int, int, Command] | None = None  # (lines read after it, -which step, the step read instead)

        def as_read(j: int, option: Command) -> list[tuple[Command, Mapping[str, Any]]]:
            """The move's steps from `j` on, step `j` read as `option` (a counted move: every step)."""
            rest = ([(option, self._json(option))] * (len(commands) - 1) if counted
                    else list(zip(commands[j + 1:], said[j + 1:], strict=True)))
            return [(option, self._json(option)), *rest]

        for j in (k, k - 1) if k > 0 else (k,):
            state = steps.starts[j][0]
            if self._words(said[j]) is not None:
                continue
            for option in self.alternatives(state, seat, said[j], ALTERNATIVES, None):
                if option == commands[j] or option.kind != commands[j].kind or option.seat != seat:
                    continue
                fork = self.fork()
                try:
                    ahead = fork.read_steps(state, seat, move, as_read(j, option))
                except (Refused, RuleViolation):
                    continue
                reads = self._reads_after(fork, ahead, seat, move, steps.turn)
                if best is None or (reads, -j) > best[:2]:
                    best = (reads, -j, option)
        if best is None:
            return None
        j, option = -best[1], best[2]
        state, marks, refusal = steps.starts[j]
        del self.checked[marks[0]:], self.findings[marks[1]:], self.unknowns[marks[2]:]
        self.refused = refusal
        written, meant = self.say(commands[j], state), self.say(option, state)
        times = f" ({len(commands)} times, as written)" if counted else ""
        self.finding("rule", move.line, rule,
                     f"{message}; `{written}` read as `{meant}`{times}, with which the rest of `{_bare(move)}` stands"
                     if not counted else f"{message}; `{_bare(move)}` read as `{meant}`{times}",
                     state, seat, written=move.text, column=move.column, assumed=meant, did_you_mean=[meant])
        self.mended.add((move.line, move.column))
        return self.read_steps(state, seat, move, as_read(j, option))

    def read_steps(self, state: Any, seat: int, move: Move, steps: Sequence[tuple[Command, Mapping[str, Any]]]) -> Any:
        """Steps of one move through the rules, the move's outcomes met by the last."""
        quiet = Move(move.verb, move.words, (), move.comments, move.line, move.column, move.text)
        for j, (command, written) in enumerate(steps):
            state = self._decide(state, seat, move if j == len(steps) - 1 else quiet, command, written)
        return state

    def _reads_after(self, fork: _Checker, state: Any, seat: int, move: Move, turn: Turn) -> int:
        """How many moves a strict copy reads after `move`: the rest of its line, then the lines after it."""
        turns, at = self.ahead
        read = 0
        try:
            for other in [m for m in turn.moves if (m.line, m.column) > (move.line, move.column)]:
                state = fork.move(state, seat, other, turn)
                read += 1
            state = fork.line_end(state, seat, turn)
            for later in turns[at + 1: at + 1 + COUNT_LOOKAHEAD]:
                who = fork.seat_of(later.player)
                if who is None:
                    break
                state = fork.read_line(state, who, later)
                read += len(later.moves)
        except Refused:
            pass
        return read

    def _unwritten_word(self, state: Any, seat: int, move: Move) -> list[tuple[Command, str]] | None:
        """The seat's legal moves whose words are the move's, a `?` standing for one word or none (`upgrade P ?`:
        `upgrade P`, `upgrade P B`; `disc ?`: each disc left), in words, those that leave the `?` out first; None
        where no `?` stands among the words or no legal move reads so."""
        if UNKNOWN not in move.words:
            return None
        pattern = [str(w).lower() for w in (move.verb, *move.words)]
        found = [(c, said) for c in self.game.legal(state) if c.seat == seat
                 and _fills(pattern, (said := self.say(c, state)).lower().split())]
        return sorted(found, key=lambda f: len(f[1].split())) or None

    @staticmethod
    def _unwritten_said(move: Move, legal: list[tuple[Command, str]]) -> str:
        """The finding's sentence for a move with a word nobody wrote down: what the rules take there."""
        said = [text for _, text in legal]
        bare = [t for t in said if len(t.split()) == len(move.words)]  # the `?` left out
        glyph = (f" (an annotation is written on the move, with no space: `{move.text.removesuffix(' ?')}?`)"
                 if bare and move.words[-1] == UNKNOWN and move.text.endswith(" ?") else "")
        head = f"line {move.line}: a `?` in `{move.text}` stands for a word nobody wrote down{glyph}; the rules take "
        if len(said) == 1:
            return f"{head}only `{said[0]}` here: read so"
        return head + ", ".join(f"`{t}`" for t in said[:-1][:7]) + f" or `{said[-1]}` here"

    def _read_unwritten(self, state: Any, seat: int, move: Move, legal: tuple[Command, str], said: str) -> Any:
        """A move with a word nobody wrote down (`?`) where the rules take one move only: one finding at its line
        (once: a line read again as an explanation of it says), and the move read as that one."""
        command, meant = legal
        said_here = any((f.line, f.column, f.rule) == (move.line, move.column, "notation/move") for f in self.findings)
        if not said_here:
            found = self.mended_slip(move.line, said, state, seat, written=move.text,
                                     column=move.column, assumed=meant, did_you_mean=[meant])
            words = self._words(self._json(command))
            self._hide(found, move, self._owners(state, seat, None, None, len(move.outcomes)), words)
            if words is not None:
                found.assumed, found.did_you_mean = Secret(found.assumed, seat, words), []
            self.mended.add((found.line, found.column))
        return self._decide(state, seat, move, command, self._json(command))

    def _unwritten_count(self, state: Any, seat: int, move: Move, turn: Turn) -> tuple[list[Move], int] | None:
        """A `?` written where a move's count belongs (`load ? from 11`): the counts the rules take there, each as the
        move written with it (1 first, as far as each more is legal), and the one with which the rest of the line and
        the lines after it read furthest (the first of those: what the file does not tell is not guessed higher);
        None where no count reads in its place."""
        if not move.words or move.words[0] != UNKNOWN or UNKNOWN in move.words[1:]:
            return None
        twice = self._reads(Move(move.verb, (2, *move.words[1:]), (), (), move.line, move.column, move.text), seat, state)
        if len(twice) != 2 or twice[0] != twice[1]:
            return None  # a number there is not how many times (`disc ?`: which disc)
        taken: list[Move] = []
        fork = self.fork()
        after = state
        for n in range(1, MOST_COUNTED + 1):
            text = re.sub(r"(?<!\S)\?(?!\S)", str(n), move.text, count=1)
            counted = Move(move.verb, (n, *move.words[1:]), move.outcomes, move.comments, move.line, move.column, text,
                           move.glyph)
            quiet = Move(move.verb, (1, *move.words[1:]), (), move.comments, move.line, move.column, text)
            if len(self._reads(counted, seat, state)) != n:
                break
            try:  # one more of the same move, after those before it
                after = fork.move(after, seat, quiet, turn)
            except Refused:
                break
            taken.append(counted)
        if not taken:
            return None
        return taken, max(range(len(taken)), key=lambda k: (self._reads_on(state, seat, taken[k], turn), -k))

    def _reads_on(self, state: Any, seat: int, move: Move, turn: Turn) -> int:
        """How many moves a strict reading makes from `move` on: the rest of its line, then the lines after it."""
        fork = self.fork()
        try:
            state = fork.move(state, seat, move, turn)
        except Refused:
            return 0
        return 1 + self._reads_after(fork, state, seat, move, turn)

    def _read_unwritten_count(self, state: Any, seat: int, move: Move, turn: Turn, taken: list[Move], chosen: int
                              ) -> Any:
        """A move with its count nobody wrote down: one finding saying the counts the rules take there, the move
        read as the one with which the lines after it stand."""
        meant = taken[chosen]
        most = f"`{taken[0].text}`" if len(taken) == 1 else f"1 to {len(taken)} (`{taken[-1].text}` at most)"
        said = (f"line {move.line}: a `?` in `{move.text}` stands for a count nobody wrote down; the rules take "
                + (f"only {most} here: read so" if len(taken) == 1 else
                   f"{most} here: read as `{meant.text}`, with which the lines after it stand"))
        found = self.mended_slip(move.line, said, state, seat, written=move.text, column=move.column,
                                 assumed=meant.text, did_you_mean=[m.text for m in taken][:5])
        self._hide(found, move, self._owners(state, seat, None, None, len(move.outcomes)), None)
        self.mended.add((found.line, found.column))
        return self.move(state, seat, meant, turn)

    def _reads_as(self, state: Any, seat: int, move: Move) -> bool:
        """The move's words read as a move of the game (what the game then holds is the rules' to say)."""
        try:
            self._commands(state, seat, move)
        except (NotationError, MalformedCommand):
            return False
        return True

    def _comma_forgotten(self, state: Any, move: Move, seat: int) -> tuple[Move, Move] | None:
        """A move whose words do not read, but read as two moves at a verb of the game (`burn O yes`: `burn O`, `yes`;
        the last such verb first): the two, the outcomes written going with the second; None where no split reads."""
        vocabulary = self.words.vocabulary
        for k in range(len(move.words) - 1, -1, -1):  # the last verb first: `recruit galley 11 recruit valencia`
            word = move.words[k]
            if not isinstance(word, str) or word.lower() not in vocabulary.by_verb:
                continue
            head = " ".join(map(str, (move.verb, *move.words[:k])))
            first = Move(move.verb, move.words[:k], (), (), move.line, move.column, head)
            second = Move(word, move.words[k + 1:], move.outcomes, move.comments, move.line,
                          move.column + len(head) + 1, " ".join(map(str, (word, *move.words[k + 1:]))))
            try:  # both moves the rules take, one after the other (`galley 3` alone is none; `war W`: W is no
                # answer after war), as far as no chance is met (what the line writes for it goes with the second)
                vocabulary.read(second, seat)
                after = state
                for part in (first, second):
                    for command in self._commands(after, seat, part)[1]:
                        after = self._play(after, command, self.chance(()))[1]
            except ImpossibleOutcome:
                pass
            except (NotationError, ValueError, RuleViolation):
                continue
            return first, second
        return None

    def _waiting(self, state: Any, seat: int, waited: int | None, kind: str) -> str:
        """Whom the rules wait for and why, in the table's words (`Words.waiting`; else the step as the title says it):
        the events from `seat`'s last move on let a title name the rule that took its turn (La Città's hunger)."""
        who = self.seats[waited] if waited is not None else "nobody"
        if self.words.waiting is not None:
            since: list[Any] = []
            for checked in reversed(self.checked):  # its own last move's too: what the rules did after it
                since[:0] = checked.entry.events
                if checked.seat == seat or len(since) > 500:
                    break
            said = self.words.waiting(state, since, seat, kind, self.seats)
            if said:
                return f"{who} {said}"
        step = self.words.terms(kind, self.seats) if self.words.terms is not None else None
        return f"{who} ({step or kind.replace('-', ' ')})"

    def _commands(self, state: Any, seat: int, move: Move) -> tuple[list[dict[str, Any]], list[Command]]:
        """What a move says (the command JSON) and the commands it stands for. Where a move's commands do
        not depend on the state (no `expand`), a move written again (`pass`, `buy Y 1`) is read once."""
        if self.words.expand is not None:
            said = self._expand(state, seat, self.words.vocabulary.read(move, seat), move)
            return said, [self._parse(c) for c in said]
        key = (move.verb, move.words, seat)
        found = self._readings.get(key)
        if found is None:
            said = [dict(self.words.vocabulary.read(move, seat))]
            found = self._readings[key] = (said, [self._known(self.game.parse_command(c)) for c in said])
        return found

    def _parse(self, said: Mapping[str, Any]) -> Command:
        """The engine's command for what a move says; the same words (`end movement`) are parsed once."""
        try:
            key: Any = (tuple(said.items()), tuple(map(type, said.values())))  # typed: True and 1 are not one word
            found = self._parsed.get(key)
        except TypeError:  # a list among the values: parsed each time
            return self.game.parse_command(said)
        if found is None:
            found = self._parsed[key] = self._known(self.game.parse_command(said))
        return found

    def _known(self, command: Command) -> Command:
        """A command kept for the whole check (so its id stays its own), with its JSON worked out once."""
        self._jsons[id(command)] = command.to_json()
        return command

    def _json(self, command: Command) -> dict[str, Any]:
        """A command's JSON for the log: a kept command's copied, any other's worked out."""
        found = self._jsons.get(id(command))
        return dict(found) if found is not None else command.to_json()

    def pending(self, state: Any) -> Any:
        """The rules' pending decision; asked again of the same state (a line's end, the next line), given again."""
        if state is not self._pending[0]:
            whose = self.words.whose
            self._pending = (state, Pending(*whose(state)) if whose is not None else self.game.pending(state))
        return self._pending[1]

    def _expand(self, state: Any, seat: int, written: Mapping[str, Any] | None, move: Move) -> list[dict[str, Any]]:
        """The commands a move stands for: the title's `expand` (the steps the line leaves out, then the
        move's own commands; at a line's end, what it leaves to its end), else the move's one command."""
        if self.words.expand is None:
            return [dict(written)] if written is not None else []
        try:
            return [c if type(c) is dict else dict(c) for c in self.words.expand(state, seat, written)]
        except NotationError as exc:
            raise NotationError(f"line {move.line}: {exc.message}", move.line, move.column, exc.expected,
                                exc.did_you_mean) from exc

    def line_end(self, state: Any, seat: int, turn: Turn) -> Any:
        """What a line leaves to its end (a title with `expand`), played after its last move."""
        if self.words.expand is None or not turn.moves or self.pending(state).over:
            return state
        last = turn.moves[-1]
        quiet = Move(last.verb, last.words, (), last.comments, last.line, last.column, last.text)
        said = self._expand(state, seat, None, last)
        for written in said:
            before = len(self.findings)
            state = self._decide(state, seat, quiet, self._parse(written), written, left_out=True)
            if any(f.kind in ("rule", "notation") for f in self.findings[before:]):
                break
        return state

    def _decide(self, state: Any, seat: int, move: Move, command: Command, written: Mapping[str, Any],
                left_out: bool = False) -> Any:
        """One command of a move through the rules, with the move's outcomes; a finding where it cannot stand."""
        chance = self.chance(move.outcomes, self.settled)
        self._said = command
        try:
            if self.reads_unwritten and (move.line, move.column) in self.unwritten:
                chance, produced, after = self._unwritten_read(state, move, command, move.outcomes)
                if len(chance.written) > len(move.outcomes):  # read past as the checker did, counted as an item
                    self.taken += 1  # not there (kernel.narrowing.rank): values that leave none unwritten rank first
            else:
                produced, after = self._play(state, command, chance)
        except ImpossibleOutcome as exc:
            if self.strict and self.guessed and exc.rule == _TAKEN:  # the guess may have taken it (kernel.explain)
                return self._past_guess(state, seat, move, command, chance)
            split = self._split_read(state, seat, move, command, chance, written) if exc.rule in (_COUNT, _FACES) else None
            if split is not None:  # `[Y3 W8 G1 O2 B1 P5]` for six decks' draws: read as six brackets, one finding
                retry, produced, after, brackets = split
                whole = brackets[0][0]
                first = self.bracketed
                if first is not None and not self.strict and first.line < whole.line and any(
                        f is first for f in self.findings):  # the table's habit, named once: at its first line
                    _read_so_too(first, whole.line)
                    return self._keep(state, seat, move, command, retry, produced, after)
                said = " ".join(write_outcome(part) if part is not None else "[?]" for _, parts in brackets for part in parts)
                held = ", ".join(f"`{write_outcome(w.values or ())}` the outcomes of {len(parts)} draws"
                                 for w, parts in brackets)
                found = self.mended_slip(
                    whole.line, f"line {whole.line}: {'one bracket holds' if len(brackets) == 1 else 'brackets hold'} "
                    f"{held}; each is written in brackets of its own: read as {said}", state, seat, written=move.text,
                    column=whole.column, assumed=said)
                owners = self._owners(state, seat, written, retry)
                self._hide(found, move, owners, None, next((k for k, o in enumerate(owners) if o != PUBLIC), None))
                self.mended.add((found.line, found.column))  # read as meant: nothing refused (no gap behind it)
                self.bracketed = found if not self.strict else self.bracketed
                return self._keep(state, seat, move, command, retry, produced, after)
            bad = chance.written[chance.failed_at] if chance.failed_at is not None and chance.failed_at < len(chance.written) else None
            stored = exc.stored()
            message = _at(bad.line if bad else move.line, stored["message"])
            respelt = self._respelt(state, seat, command, chance, written) if not self.strict else None
            if respelt is not None and bad is not None:  # `[hospitol]`: a word the file writes elsewhere, misspelt
                meant, retry, produced, after = respelt
                found = self.finding("chance", bad.line, exc.rule,
                                     f"{message}; read as {write_outcome(meant)}, as the file spells it elsewhere",
                                     state, seat, written=move.text, column=bad.column, facts=stored["facts"],
                                     assumed=write_outcome(meant), did_you_mean=[str(v) for v in meant])
                return self._keep(state, seat, move, command, retry, produced, after)
            if left_out and isinstance(message, str):
                message += (f"; the line leaves {self.say(command, state)!r} to its end, and it meets chance here: "
                            f"write it, with what happened (or [?])")
            named = bad is not None and _names_a_thing(self.edition, bad.values)
            blind = bad is not None and self._hidden_at(state, seat, command, chance) and not (self.unknowns and named)
            unwritten = exc.rule == _MISSING and not left_out  # `stay` written with the End of Round's draws left off
            aside = self._written_aside(state, seat, move, command, written) if unwritten and not (
                self.strict or self.reads_unwritten) else None
            if aside is not None:  # written after it as a remark is, `(Y3 W8 G1)`: read as its brackets, one finding
                return aside
            late = self._written_late(state, seat, move, command, written) if unwritten and not (
                self.strict or self.reads_unwritten) else None
            if late is not None:  # written at the next move: read as this one's, one finding
                return late
            if blind and isinstance(message, str):
                message += "; read as a draw nobody wrote down ([?]), which what follows settles"
            elif unwritten and isinstance(message, str):
                many = self._asked_past(state, move, command) if not self.strict else 0
                message += ("; read as `[?]`, which what follows settles" if many <= 1 else
                            f"; read as `[?]` for each of the {many} outcomes the rules ask there, which what follows settles")
            found = self.finding("chance", bad.line if bad else move.line, exc.rule, message,
                                 state, seat, written=move.text, column=bad.column if bad else move.column,
                                 facts=stored["facts"],
                                 assumed="[?]" if blind or unwritten else "a possible outcome in its place")
            if blind and not named:
                self.misspelt.add((found.line, found.column))
            self._hide(found, move, self._owners(state, seat, written, chance), self._words(written), chance.failed_at)
            after = self._with_possible_chance(state, seat, move, command, chance, stored["facts"], blind)
            if (move.line, move.column) in self.unwritten:  # read as written `[?]`: nothing refused, no gap behind it
                self.mended.add((found.line, found.column))
            return after
        except RuleViolation as exc:
            message = exc.stored()["message"]
            if isinstance(message, str) and message.startswith(f"{command.kind} is not one of the choices"):
                # the move as written, not its kind's first verb (hidden words: `_replace` hides it from the others)
                message = f"`{self.say(command, state)}`" + message[len(command.kind):]
            return self._replace(state, seat, move, written, "rule", exc.rule, _at(move.line, message),
                                 facts=exc.stored()["facts"])
        if chance.next < len(chance.written):
            steps = self.steps.pop((move.line, move.column), None)
            if steps is not None:  # outcomes of steps nobody wrote (kernel.explain): theirs
                return self._left_steps(state, seat, move, command, chance, produced, after, steps)
            early = self._written_early(state, seat, move, command, chance, produced, after) if not (
                self.strict or self.reads_unwritten) else None
            if early is not None:  # the next line's move's, written a line early: read as its, one finding
                return early
            if self.refused is None and not self.strict:  # a step left out after it? (kernel.explain)
                self.refused = Refusal("step", seat, None, (move.line, move.column), after=after,
                                       unused=tuple(chance.unused))
            extra = chance.unused[0]
            words, owners = self._words(written), self._owners(state, seat, written, chance)
            found = self.finding("chance", extra.line, "chance/unused-outcome",
                                 f"line {extra.line}: {_public_text(move, owners, words)!r} meets "
                                 f"{_counted(len(chance.written) - len(chance.unused), 'outcome')}, and "
                                 f"{_counted(len(chance.unused), 'more is', 'more are')} written", state, seat,
                                 column=extra.column, written=move.text)
            self._hide(found, move, owners, words)
        return self._keep(state, seat, move, command, chance, produced, after)

    def _respelt(self, state: Any, seat: int, command: Command, chance: WrittenChance, written: Mapping[str, Any]
                 ) -> tuple[tuple[Any, ...], WrittenChance, Sequence[Any], Any] | None:
        """The outcome the rules could not take read with its misspelt words (`[hospitol]`: written nowhere else in
        the file, and close to a word the file writes elsewhere, `spelled`) as that word, where the rules then take
        it: (the values read, the chance, what it produced, the state after), or None. Only an outcome every reader
        may see: the words of a hidden one stay as written (no guess of a secret pool is tried)."""
        bad = chance.failed_at
        if bad is None or bad >= len(chance.written) or not self.spelled:
            return None
        values = chance.written[bad].values
        owners = self._owners(state, seat, written, chance)
        if not values or bad >= len(owners) or owners[bad] != PUBLIC:
            return None
        meant = _as_spelled(values, self.spelled)
        if meant is None:
            return None
        outcomes = list(chance.written)
        outcomes[bad] = Written(tuple(meant), outcomes[bad].line, outcomes[bad].column)
        retry = self.chance(outcomes)
        try:
            produced, after = self._play(state, command, retry)
        except (ImpossibleOutcome, RuleViolation):
            return None
        return tuple(meant), retry, produced, after

    def _past_guess(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance) -> Any:
        """A strict copy after a turn nobody wrote: a written item not there is read as a possible one, counted
        (`taken`), since the outcomes guessed for that turn may have taken it; the narrowing settles them later."""
        written = list(chance.written)
        bad = chance.failed_at
        while bad is not None and bad < len(written):
            self._note_taken(written[bad])
            written[bad] = Written(None, written[bad].line, written[bad].column)
            retry = self.chance(written)
            try:
                produced, after = self._play(state, command, retry)
            except ImpossibleOutcome as exc:
                if exc.rule != _TAKEN or retry.failed_at is None or retry.failed_at <= bad:
                    raise Refused(exc.rule) from exc
                self.taken += 1
                bad = retry.failed_at
                continue
            except RuleViolation as exc:
                raise Refused(exc.rule) from exc
            self.taken += 1
            return self._keep(state, seat, move, command, retry, produced, after, assumed=True)
        raise Refused(_TAKEN)

    def _note_taken(self, written: Written) -> None:
        """The items of a written outcome found not there, each once (`took`: kernel.toward_result gives them up first)."""
        self.took += tuple(str(v) for v in written.values or () if v != UNKNOWN and str(v) not in self.took)

    def _meant(self, move: Move, seat: int, near: Sequence[str], state: Any = None
               ) -> tuple[list[dict[str, Any]], tuple[str, str] | None]:
        """The move read with its misspelt verb or word replaced by the nearest word, when that reads (the
        commands it stands for, or none): the alternatives are then ranked by closeness to its own command,
        so one typo does not derail the lines after it. Also the word respelt, as written and as read (None for a
        number, whose meaning depends on where it stands)."""
        twice = [w for w in dict.fromkeys(move.words) if isinstance(w, str) and move.words.count(w) > 1]
        for word in near:
            tries: list[tuple[Move, str | None]] = [(replace(move, verb=word), move.verb)]
            # `sail famagsuta rodi famagsuta`: one word misspelt alike each time it is written, respelt everywhere
            tries += [(replace(move, words=tuple(word if w == misspelt else w for w in move.words)), misspelt)
                      for misspelt in twice if misspelt != word]
            tries += [(replace(move, words=(*move.words[:i], word, *move.words[i + 1:])), w)
                      for i, w in enumerate(move.words) if isinstance(w, str) and w != word]
            tries += [(replace(move, words=(*move.words[:i], int(word), *move.words[i + 1:])), None)
                      for i, w in enumerate(move.words) if isinstance(w, int) and word.isdigit() and w != int(word)]
            for guess, misspelt in tries:
                commands = self._reads(guess, seat, state)
                if commands:
                    return commands, (misspelt, word) if misspelt is not None and misspelt != UNKNOWN else None
        return [], None

    def _spelt_as_before(self, move: Move) -> Move | None:
        """The move with each word misspelt before as it was read then (`respellings`), noted on that first finding;
        None where it writes none of them."""
        place = (move.line, move.column)
        known = {w: k for w, k in self.respellings.items() if (k[1].line, k[1].column or 0) < place}  # after it only
        if not known:
            return None
        verb = known[move.verb][0] if move.verb in known else move.verb
        words = tuple(known[w][0] if isinstance(w, str) and w in known else w for w in move.words)
        if verb == move.verb and words == move.words:
            return None
        for misspelt in {move.verb, *move.words} & known.keys():
            first = known[misspelt][1]
            if not self.strict and move.line != first.line:
                _read_so_too(first, move.line)
        return replace(move, verb=verb, words=words)

    def _reads(self, guess: Move, seat: int, state: Any) -> list[dict[str, Any]]:
        """The commands a move stands for, when its words read (none otherwise)."""
        try:
            said = self.words.vocabulary.read(guess, seat)
            found = [*self.words.expand(state, seat, said)] if self.words.expand is not None else [said]
            return [self.game.parse_command(c).to_json() for c in found]
        except (NotationError, MalformedCommand):
            return []

    def _keep(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance, produced: Sequence[Any],
              after: Any, assumed: bool = False) -> Any:
        if chance.unknowns:
            self._note_unknowns(chance, len(self.checked), self._owners(state, seat, self._json(command), chance))
        said, self._said = self._said, None
        self.checked.append(Checked(state, seat, command, tuple(move.outcomes),
                                    Entry(self._json(command), tuple(chance.log), tuple(produced)), move.line, assumed,
                                    said, tuple(chance.written), move.column))
        return after

    def _with_possible_chance(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance,
                              facts: Mapping[str, Any] | None = None, blind: bool = False) -> Any:
        """Go on with the written move and a possible outcome where the written one was impossible: a roll written
        with dice left out (`[1 3 4]` for four dice) keeps the dice written, the others unknown (`[1 3 4 ?]`); a
        hidden one (`blind`, `_hidden_at`) narrowed as if written `[?]`."""
        bad = chance.failed_at if chance.failed_at is not None else len(chance.written)
        written = list(chance.written)
        if bad < len(written):
            values = written[bad].values
            dice = (facts or {}).get("dice")
            short = isinstance(dice, int) and values is not None and 0 < len(values) < dice and all(
                isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= int((facts or {}).get("faces", 6))
                for v in values)
            written[bad] = Written((*values, *(UNKNOWN,) * (dice - len(values))) if short and values is not None
                                   and isinstance(dice, int) else None, written[bad].line, written[bad].column)
        produced: Sequence[Any]
        try:
            if bad < len(written):
                retry = self.chance(written)
                produced, after = play(self.game, state, command, retry)
            else:  # none written where the rules ask some (`stay` with the End of Round's draws left off)
                retry, produced, after = self._unwritten_read(state, move, command, written)
                self.unwritten.add((move.line, move.column))
        except RuleViolation:
            return self._replace(state, seat, move, command.to_json(), None, "", "")
        # the impossible outcome is a finding, and also an unknown: what follows says what it must have been; the
        # outcomes nobody wrote are read as written `[?]`, the move as written (not a reading of the checker's own)
        place = (written[bad].line, written[bad].column) if bad < len(written) else None
        after = self._keep(state, seat, move, command, retry, produced, after, assumed=place is not None)
        for unknown in self.unknowns:
            if place is not None and bad < len(chance.written) and (unknown.line, unknown.column) == place:
                unknown.written, unknown.blind = chance.written[bad].values, blind
        return after

    def _split_read(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance,
                    written: Mapping[str, Any]
                    ) -> tuple[WrittenChance, Sequence[Any], Any, list[tuple[Written, list[tuple[Any, ...] | None]]]] | None:
        """Brackets holding the outcomes of several draws or rolls (`[Y3 W8 G1 O2 B1 P5]` for the six decks' new
        cards, `[O O G Y O Y O G]` for two bags, `[3 5 2 6]` for two rolls of two dice) read as that many brackets, each with as many values as its draw asks, where
        the move then reads with every outcome written: (the chance, what it produced, the state after, each bracket
        split with its parts), or None. A part one player alone sees (a card drawn face down) is read as `[?]`, which
        what follows settles, whatever was written for it: its words are never tried, so whether the bracket reads
        so tells nobody whether they named a card that was there (each at a column of its own inside the bracket)."""
        outcomes = list(chance.written)
        at = chance.failed_at
        if at is None or at >= len(outcomes) or not outcomes[at].known:
            return None
        source = list(range(len(outcomes)))  # each outcome read -> the written bracket it comes from
        taken = [0] * len(outcomes)  # each outcome read -> the values of its bracket before its own
        for _ in range(sum(len(w.values or ()) for w in outcomes[at:])):
            retry = self.chance(outcomes)
            try:
                produced, after = self._play(state, command, retry)
            except ImpossibleOutcome as exc:
                facts, k = exc.stored()["facts"], retry.failed_at
                want = facts.get("expected_count") if exc.rule == _COUNT else facts.get("dice") if exc.rule == _FACES else None
                values = outcomes[k].values or () if k is not None and k < len(outcomes) else ()
                if k is None or k < at or not isinstance(want, int) or not 0 < want < len(values):
                    return None
                line, column = outcomes[k].line, outcomes[k].column
                hidden = self._owners(state, seat, written, retry, k + 1)[k] != PUBLIC
                head = Written(None, line, column + 1 + taken[k]) if hidden else Written(values[:want], line, column)
                if hidden:
                    self.face_down[(head.line, head.column)] = tuple(values[:want])
                outcomes[k:k + 1] = [head, Written(values[want:], line, column)]
                source[k:k + 1] = [source[k], source[k]]
                taken[k:k + 1] = [taken[k], taken[k] + want]
                continue
            if retry.next < len(outcomes):
                return None
            split = [(chance.written[i], [o.values for o, s in zip(outcomes, source, strict=True) if s == i])
                     for i in sorted(set(source))]
            return retry, produced, after, [(whole, parts) for whole, parts in split if len(parts) > 1]
        return None

    def _written_aside(self, state: Any, seat: int, move: Move, command: Command, written: Mapping[str, Any]
                       ) -> Any | None:
        """The outcomes a move asks written after it in parentheses or braces, as a remark is (`Ada: stay (Y3 W8 G1
        O2 B1 P5)`, `war O (B R)`; `notation.as_typed` reads a parenthesis as a comment): each remark's words read as
        one bracket, or each word as one (six decks' six cards), where the move then reads with every outcome it
        asks. One finding at the first such line, the later ones read so with none of their own (the table's habit,
        `_read_so_too`); the state after the move, or None where the file does not read so. A part one player alone
        sees (a card drawn face down) is read as `[?]` whatever was written for it, as in `_written_late`."""
        remarks = [c for c in move.comments if c.text and c.glyph is None and not c.markup.shapes and "[" not in c.text]
        if not remarks:
            return None
        many, owners = self._asked_and_whose(state, seat, move, command, written)
        words = [[int(w) if w.isdigit() else w for w in re.split(r"[\s,]+", c.text.strip()) if w] for c in remarks]
        # the first `many` remarks, one bracket each; or the words of the first remarks, one each (a note may follow)
        ones = [(w,) for ws in words for w in ws]
        for taken, brackets in ((many, [tuple(w) for w in words[:many]]),
                                (next((k + 1 for k in range(len(words)) if sum(map(len, words[:k + 1])) == many), 0),
                                 ones[:many])):
            if not 0 < many == len(brackets) or not taken or not all(brackets):
                continue
            played = self._read_with(state, command, move, owners, [Written(v, move.line, move.column) for v in brackets])
            if played is None:
                continue
            moved, retry, produced, after = played
            read = replace(move, outcomes=moved, comments=tuple(c for c in move.comments if c not in remarks[:taken]))
            first = self.asided
            if first is not None and first.line < move.line and any(f is first for f in self.findings):
                _read_so_too(first, move.line)
                return self._keep(state, seat, read, command, retry, produced, after)
            said = " ".join(write_outcome(w.values) if w.values is not None else "[?]" for w in moved[len(move.outcomes):])
            found = self.mended_slip(
                move.line, f"line {move.line}: the {_counted(many, 'outcome') if many > 1 else 'outcome'} the rules "
                f"ask of `{_bare(move)}` {'are' if many > 1 else 'is'} written as a remark is, in parentheses or "
                f"braces; outcomes are written in brackets: read as {said}", state, seat, written=move.text,
                column=move.column, assumed=said)
            self._hide(found, move, self._owners(state, seat, written, retry), None,
                       next((k for k, o in enumerate(owners) if o != PUBLIC), None))
            self.mended.add((found.line, found.column))  # read as meant: nothing refused (no gap behind it)
            self.asided = found if not self.strict else self.asided
            return self._keep(state, seat, read, command, retry, produced, after)
        return None

    def _read_with(self, state: Any, command: Command, move: Move, owners: Sequence[Owner], taken: Sequence[Written]
                   ) -> tuple[tuple[Written, ...], WrittenChance, Sequence[Any], Any] | None:
        """The move played with `taken` (outcomes written elsewhere) after its own, a part one player alone sees read
        as `[?]` whatever was written for it (whether the file reads so tells nobody what was written): (the outcomes
        read, the chance, what it produced, the state after), or None where the rules refuse it or leave one unused."""
        own = len(move.outcomes)
        moved = (*move.outcomes, *(w if owners[own + k] == PUBLIC else Written(None, w.line, w.column)
                                   for k, w in enumerate(taken)))
        retry = self.chance(moved)
        try:
            produced, after = self._play(state, command, retry)
        except RuleViolation:
            return None
        return None if retry.next < len(moved) else (moved, retry, produced, after)

    def _written_late(self, state: Any, seat: int, move: Move, command: Command, written: Mapping[str, Any]
                      ) -> Any | None:
        """The outcomes a move asks, left off its line and written with the next move's (`Zoë: pass`, then `Anna
        Maria: attract L115 culture [golden_times] [health culture health]`; `Ada: stay`, then the End of Round's
        draws after Dario's `upgrade P B`): taken from the end (or the start) of the next brackets written
        (`_next_brackets`) where the move then reads with every outcome it asks, and the move they were written on
        with the rest; one finding, at the move that asked them, and both read as meant (the state after it, or None
        where the file does not read so). A part one player alone sees (a card drawn face down) is read as `[?]`
        whatever was written for it, as in `_split_read`: whether the file reads so tells nobody what was written."""
        spot = self._next_brackets(move, seat)
        if spot is None:
            return None
        turn, later_turn, later_seat, between, there, later = spot
        place = (move.line, move.column)
        many, owners = self._asked_and_whose(state, seat, move, command, written)
        if not 0 < many <= len(later.outcomes):
            return None
        own = len(move.outcomes)
        ends = [("end", later.outcomes[-many:], later.outcomes[:-many])]
        if many < len(later.outcomes):
            ends.append(("start", later.outcomes[:many], later.outcomes[many:]))
        for end, taken, rest in ends:
            played = self._read_with(state, command, move, owners, taken)
            if played is None:
                continue
            moved, retry, produced, after = played
            kept = replace(later, outcomes=tuple(rest))
            fork = self.fork()
            fork.guessed = any(w.values is None for w in moved[own:])  # a card its `[?]` took may be written later
            try:  # the moves up to the one they were written on read, and it with the rest of its brackets
                ahead = after
                for other in between:
                    ahead = fork.move(ahead, seat, other, turn)
                if later_turn is not turn:
                    ahead = fork.line_end(ahead, seat, turn)
                    for other in there:
                        ahead = fork.move(ahead, later_seat, other, later_turn)
                fork.move(ahead, later_seat, kept, later_turn)
            except (Refused, RuleViolation, NotationError, MalformedCommand):
                continue
            read = replace(move, outcomes=moved)
            self.late[place], self.late[(later.line, later.column)] = read, kept
            self.face_down.update({(w.line, w.column): w.values for k, w in enumerate(taken)
                                   if owners[own + k] != PUBLIC and w.values is not None})
            said = " ".join(write_outcome(w.values) if w.values is not None else "[?]" for w in moved[own:])
            whose = ("the next move" if later_turn is turn and not between else "a later move" if later_turn is turn
                     else f"{self.seats[later_seat]}'s move" if later_seat != seat else "the next line")
            found = self.finding(
                "chance", move.line, _MISSING,
                f"line {move.line}: the {'more ' if own else ''}{_counted(many, 'outcome') if many > 1 else 'outcome'} "
                f"the rules ask of `{_bare(move)}` {'is' if many == 1 else 'are'} written on line {later.line}, at the "
                f"{end} of {whose} ({said}); read as line {move.line}'s",
                state, seat, written=move.text, column=move.column, assumed=said,
                facts={"written_at": [later.line, taken[0].column]})
            self._hide(found, move, self._owners(state, seat, written, retry), None, None)
            self.mended.add((found.line, found.column))  # read as meant: nothing refused (no gap behind it)
            return self._keep(state, seat, read, command, retry, produced, after)
        return None

    def _written_early(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance,
                       produced: Sequence[Any], after: Any) -> Any | None:
        """Outcomes written at the end of a line's last move past those it meets, which a move of the next line asks
        and has not (`Anna Maria: pass [polling_the_people] [master_builder]`, then `D'Angelo: pass`): read as that
        move's where it then reads with them, this one with its own; one finding, where they are written, and both
        read as meant (the state after this move, or None where the file does not read so). One player's part (a
        card drawn face down) is read as `[?]` whatever was written for it, as in `_written_late`."""
        turns, at = self.ahead
        if at + 1 >= len(turns) or not turns[at].moves or not turns[at + 1].moves or (
                turns[at].moves[-1].line, turns[at].moves[-1].column) != (move.line, move.column):
            return None
        turn, later_turn = turns[at], turns[at + 1]
        later_seat = self.seat_of(later_turn.player)
        if later_seat is None:
            return None
        early = tuple(chance.written[chance.next:])
        moves = [m for m in later_turn.moves if m.line == later_turn.moves[0].line]
        for j, later in enumerate(moves):
            if (later.line, later.column) in self.late:
                continue
            own = len(later.outcomes)
            hook = self.words.secret_outcomes  # a title with secrets: as `[?]` first, to learn whose they are
            meant: tuple[Written, ...] = early if hook is None else tuple(Written(None, w.line, w.column) for w in early)
            whose: list[Owner] = [PUBLIC] * len(early)  # who alone may read each, as the rules ask them of that move
            for _ in range(2 if hook is not None else 1):  # (then the public ones as written)
                fork = self.fork()
                fork.guessed = any(w.values is None for w in meant)  # a `[?]` here may take what a later line writes
                try:
                    ahead = fork.line_end(after, seat, turn)
                    for other in moves[:j]:
                        ahead = fork.move(ahead, later_seat, other, later_turn)
                    fork.move(ahead, later_seat, replace(later, outcomes=(*later.outcomes, *meant)), later_turn)
                except (Refused, RuleViolation, NotationError, MalformedCommand):
                    meant = ()
                    break
                took = fork.checked[-1] if fork.checked else None
                if took is None or (took.line, took.column) != (later.line, later.column) or len(
                        took.entry.outcomes) < own + len(early):
                    meant = ()
                    break
                if hook is None:
                    break
                asked = [(o.kind, o.source) for o in took.entry.outcomes]
                owners = list(hook(took.state, took.seat, self._json(took.command), asked))
                whose = [owners[own + k] if own + k < len(owners) else PUBLIC for k in range(len(early))]
                public = tuple(w if whose[k] == PUBLIC else Written(None, w.line, w.column) for k, w in enumerate(early))
                if public == meant:
                    break
                meant = public
            if not meant:
                continue
            read = replace(later, outcomes=(*later.outcomes, *meant))
            kept = replace(move, outcomes=tuple(chance.written[: chance.next]))
            self.late[(later.line, later.column)], self.late[(move.line, move.column)] = read, kept
            self.face_down.update({(w.line, w.column): e.values for w, e in zip(meant, early, strict=True)
                                   if w.values is None and e.values is not None})
            said = " ".join(write_outcome(w.values) if w.values is not None else "[?]" for w in meant)
            found = self.finding(
                "chance", move.line, "chance/unused-outcome",
                f"line {move.line}: the {'last ' if chance.next else ''}"
                f"{_counted(len(meant), 'outcome') if len(meant) > 1 else 'outcome'} written "
                f"here ({said}) {'is the one' if len(meant) == 1 else 'are the ones'} the rules ask of "
                f"{self.seats[later_seat]}'s `{_bare(later)}` on line {later.line}; read as that line's",
                state, seat, written=move.text, column=early[0].column, assumed=said,
                facts={"read_at": [later.line, later.column]})
            self._hide(found, move, [*self._owners(state, seat, self._json(command), chance, chance.next), *whose])
            self.mended.add((found.line, found.column))  # read as meant: nothing refused (no gap behind it)
            chance.written = chance.written[: chance.next]
            return self._keep(state, seat, kept, command, chance, produced, after)
        return None

    def _next_brackets(self, move: Move, seat: int
                       ) -> tuple[Turn, Turn, int, list[Move], list[Move], Move] | None:
        """Where the brackets after a move written bare are: the first move after it on its line with brackets, or
        else the first on the next turn line (its line only): (the move's turn, that move's turn, its seat, the moves
        before it on the move's line, those before it on its own line, that move), or None."""
        turns, at = self.ahead
        if at >= len(turns):
            return None
        turn = turns[at]
        index = next((k for k, m in enumerate(turn.moves) if (m.line, m.column) == (move.line, move.column)), None)
        if index is None:
            return None
        here = turn.moves[index + 1:]
        between = list(itertools.takewhile(lambda m: not m.outcomes, here))
        spot: tuple[Turn, Turn, int, list[Move], list[Move], Move] | None = None
        if len(between) < len(here):
            spot = turn, turn, seat, between, [], here[len(between)]
        elif at + 1 < len(turns) and turns[at + 1].moves:
            later_turn = turns[at + 1]
            later_seat, following = self.seat_of(later_turn.player), later_turn.moves
            there = list(itertools.takewhile(lambda m: not m.outcomes and m.line == following[0].line, following))
            if later_seat is not None and len(there) < len(following) and following[len(there)].line == following[0].line:
                spot = turn, later_turn, later_seat, between, there, following[len(there)]
        return None if spot is None or (spot[5].line, spot[5].column) in self.late else spot

    def _asked_and_whose(self, state: Any, seat: int, move: Move, command: Command, written: Mapping[str, Any]
                         ) -> tuple[int, Sequence[Owner]]:
        """How many outcomes the rules ask of the move past those written, and who alone may read each of its outcomes
        (`_owners`); (0, ()) where it does not read so."""
        try:
            asked, _, _ = self._unwritten_read(state, move, command, move.outcomes)
        except RuleViolation:
            return 0, ()
        return len(asked.written) - len(move.outcomes), self._owners(state, seat, written, asked)

    def _asked_past(self, state: Any, move: Move, command: Command) -> int:
        """How many outcomes the rules ask of the move past those written (0 where it does not read so)."""
        try:
            retry, _, _ = self._unwritten_read(state, move, command, move.outcomes)
        except RuleViolation:
            return 0
        return len(retry.written) - len(move.outcomes)

    def _unwritten_read(self, state: Any, move: Move, command: Command, written: Sequence[Written]
                        ) -> tuple[WrittenChance, Sequence[Any], Any]:
        """The move played with its written outcomes and, for each the rules ask past them, one read as written `[?]`
        (the narrowing settles it by what follows, as a `[?]` written): each placed just past the move's words, where
        it would have been written, at a column of its own (the narrowing knows an unknown by its place). One play:
        as many as the rules could ask are offered, and those they did not take are dropped (none, where the rules
        ask nothing past what is written: the move as written)."""
        end = move.column + len(move.text)
        offered = [*written, *(Written(None, move.line, end + k) for k in range(_UNWRITTEN_AT_MOST))]
        retry = self.chance(offered)
        produced, after = self._play(state, command, retry)
        retry.written = retry.written[: max(retry.next, len(written))]
        return retry, produced, after

    def _hidden_at(self, state: Any, seat: int, command: Command, chance: WrittenChance) -> bool:
        """The outcome the rules could not take (`chance.failed_at`) is one player's secret (a blind draw), as the
        title says (`Words.secret_outcomes`).

        Such an outcome written so that the rules cannot take it (`[public_bth]`, `[hospitol]`, a card that was not
        there) is one finding at its line, and read on as if it were written `[?]`: the narrowing settles it by
        what follows, as it settles a draw nobody wrote down. Its words are not respelt against the pool
        (`_respelt`, public outcomes only) and not kept as a guess either: whether a respelling or the written card
        reads on would tell a reader of the report, while the game is in progress, whether a card was in a hidden
        pool; read as `[?]`, the report reads the same whatever the word was, a misspelling or a card not there (the
        finding itself, with the written word, is its player's alone until the game is over, `_hide`). Only where
        no outcome nobody wrote comes before it: one may have taken the written card, and the written one is then
        the likelier (kernel.narrowing); a word that names nothing of the edition (`[R11]`, `[Golden_tmes]`) no
        outcome took, and is read as `[?]` after them too (`_names_a_thing`: the edition is public, the pool is not)."""
        index = chance.failed_at
        owners = self._owners(state, seat, command.to_json(), chance)
        return index is not None and index < len(owners) and owners[index] != PUBLIC

    def mended_slip(self, line: int, message: Any, state: Any = None, seat: int | None = None, **more: Any) -> Finding:
        """A slip of the move's words that reads as one move all the same (`burn O yes`, `recruit two galley`,
        `upgrade P ?` where the rules take one move only): its finding, the move read as meant."""
        return self.finding("notation", line, "notation/move", message, state, seat, **more)

    def _replace(self, state: Any, seat: int, move: Move, written: Mapping[str, Any] | None, kind: str | None, rule: str,
                 message: Any, **more: Any) -> Any:
        """The written move cannot stand: report it with the closest legal moves, and go on from the closest
        (or from what an explanation says stands for it: `forced`, kernel.explain)."""
        found: Finding | None
        place = (move.line, move.column)
        if place in self.forced and kind is not None:
            return self._stand_in(state, seat, move, self.forced.pop(place))
        if self.strict and kind is not None:
            raise Refused(rule)
        steps, self._steps = self._steps, None
        if steps is not None and kind == "rule" and isinstance(message, str) and place == (steps.move.line, steps.move.column):
            mended = self._step_mended(steps, seat, rule, message)
            if mended is not None:  # `sail tunis algiers corfu`: one step of the move misnamed, the rest stands
                self._stood_in = True
                return mended
        options = self.alternatives(state, seat, written, 8, move.text)
        shown = [self.say(c, state) for c in options]
        waiting = bool(options) and all(c.seat != seat for c in options)  # an unreadable move out of turn
        # hidden words: the move's own, or (a move that could not be read) those of the move that stands for it
        words = self._words(written) if written is not None else self._words(self._json(options[0])) if options else None
        skippable = self.words.skip_refused and written is not None and not any(c.kind == written.get("type")
                                                                                for c in options)
        partway = self._partway if self._partway is not None and self._partway[0] == place else None
        if kind is not None and self.refused is None:
            self.refused = Refusal("move", seat, self.pending(state).seat, place, options,
                                   [self._words(self._json(c)) or t for c, t in zip(options, shown, strict=True)],
                                   skippable=skippable or waiting, earlier=self._earlier(place))
        options, shown = options[:5], shown[:5]
        if waiting or skippable:
            if kind is not None:  # nothing of its kind can be done here: nothing was done, the step stays open
                skipped = "skipped: " + ("another player is to decide" if waiting else "nothing of its kind could be done here")
                if partway is not None and not waiting:  # `recruit 3 galley 5` with 2 ducats: the 2 that stood
                    skipped = f"`{partway[3]}` read as {partway[1]} of the {partway[2]}"
                    message = f"{message}; {skipped}" if isinstance(message, str) else message
                found = self.finding(kind, move.line, rule, message, state, seat, written=move.text,
                                     alternatives=Secret(shown, seat, {"hidden": True, "count": len(shown)}),
                                     assumed=skipped, **more)
                self._hide(found, move, self._owners(state, seat, written, None, len(move.outcomes)), words)
            return state
        found = None
        if kind is not None:
            assumed = self._words(self._json(options[0])) if options else None
            found = self.finding(kind, move.line, rule, message, state, seat, written=move.text,
                                 alternatives=Secret(shown, seat, {"hidden": True, "count": len(shown)}),
                                 assumed=Secret(shown[0], seat, assumed) if assumed is not None
                                 else shown[0] if shown else "nothing: no legal move", **more)
        for option in options:
            chance = self.chance(move.outcomes)
            try:
                produced, after = play(self.game, state, option, chance)
                owners = self._owners(state, seat, self._json(option), chance, len(move.outcomes))
            except RuleViolation:
                chance = self.chance([Written(None, move.line, move.column)] * 8)
                try:
                    produced, after = play(self.game, state, option, chance)
                except RuleViolation:
                    continue
                chance.written = chance.written[: chance.next]
                chance.unknowns = []
                owners = self._owners(state, seat, None, None, len(move.outcomes))  # the written ones did not fit it
            if found is not None:
                self._hide(found, move, owners, words)
            return self._keep(state, seat, move, option, chance, produced, after, assumed=True)
        if found is not None:
            self._hide(found, move, self._owners(state, seat, written, None, len(move.outcomes)), words)
        return state

    def last_before(self, line: int, place: tuple[int, int] | None = None
                    ) -> tuple[tuple[int, int], str, list[Command], list[str], Any] | None:
        """The last move of the line read before this one, at `line` (`place` given: the move before that one on
        this line), with its other legal readings written with another count (`_recounted`), those in words, and
        the state the written move left (None: the line's end); None where its words are hidden or no other count
        was legal (`_miscounted`)."""
        moves = self.line_before if place is None else self._line_moves
        k = len(moves) - 1 if place is None else next((i - 1 for i, m in enumerate(moves) if m[0] == place), -1)
        if k < 0 or moves[k][0][0] != line:
            return None
        where, before, seat, written, text = moves[k]
        if written is None or self._words(written) is not None or "[" in text:  # (its outcomes may be hidden)
            return None
        options = [c for c in self.alternatives(before, seat, written, EARLIER_OPTIONS + 1, text)
                   if self._json(c) != dict(written)][:EARLIER_OPTIONS]
        shown = [self.public_say(c, before) for c in options]
        counted = [(c, said) for c, said in zip(options, shown, strict=True) if _recounted(text, said)]
        after = moves[k + 1][1] if k + 1 < len(moves) else None
        return (where, text, [c for c, _ in counted], [said for _, said in counted], after) if counted else None

    def waiting_for(self, state: Any, seat: int) -> str:
        """Whom the rules wait for in `state` (the seat itself, its turn not over) and why, in the table's words."""
        return self._waiting(state, seat, seat, self.pending(state).kind)

    def _earlier(self, place: tuple[int, int]) -> list[tuple[tuple[int, int], str, list[Command], list[str]]]:
        """The moves of the line before a refused one, each with the other legal moves closest to it: the slip
        may be there (`galley 9 action` for `galley 9 invest`, and the line's `recruit` then refused)."""
        out = []
        for where, state, seat, written, text in reversed(self._line_moves[-EARLIER:]):
            if where == place or where[0] != place[0]:
                continue
            options = [c for c in self.alternatives(state, seat, written, EARLIER_OPTIONS + 1, text)
                       if self._json(c) != dict(written)][:EARLIER_OPTIONS]
            once = self.game.parse_command(written) if written is not None else None
            if once is not None and _recounted(text, self.say(once, state)):  # `recruit 2 alessandria`: read once
                options = [once, *options][:EARLIER_OPTIONS]
            shown = [self._words(self._json(c)) or self.say(c, state) for c in options]
            out.append((where, text, options, shown))
        return out

    def _stand_in(self, state: Any, seat: int, move: Move, option: Command | None) -> Any:
        """A refused move read as an explanation says (`option`; None: left out), with its outcomes where they fit."""
        self._stood_in = True
        if option is None:
            return state
        chance = self.chance(move.outcomes)
        try:
            try:
                produced, after = self._play(state, option, chance)
            except ImpossibleOutcome as exc:  # the outcomes it meets past those written: read as written `[?]`
                if exc.rule != _MISSING:
                    raise
                chance, produced, after = self._unwritten_read(state, move, option, move.outcomes)
            if chance.next < len(chance.written):
                raise ImpossibleOutcome("chance/unused-outcome", "more outcomes are written than the move meets")
        except RuleViolation:
            chance = self.chance([Written(None, move.line, move.column)] * 32, {})
            try:
                produced, after = self._play(state, option, chance)
            except RuleViolation as exc:
                if self.strict:
                    raise Refused(exc.rule) from exc
                return state
            chance.written = chance.written[: chance.next]
            chance.unknowns = []
        self._said = option
        return self._keep(state, seat, move, option, chance, produced, after, assumed=True)

    def explained(self, found: Finding, explanation: Explanation, refusal: Refusal) -> None:
        """A refusal's finding says how the rest was read: what stands for the move, or the lines' reading."""
        found.explanation = explanation.to_json()
        if explanation.kind == "reworded" and explanation.option is not None:
            option = refusal.options[explanation.option]
            hidden = self._words(self._json(option))
            shown = refusal.shown[explanation.option]
            found.assumed = Secret(self.say(option), found.seat, hidden) if hidden is not None else shown
            if isinstance(found.message, str):
                found.message += alike_words(explanation)
            return
        counted = self._counted.get(refusal.place) if explanation.kind == "skipped-move" and refusal.place else None
        if counted is not None:  # the move written with a count: those before the refused one stand
            stood, written, text = counted
            explanation = replace(explanation, said=explanation.said.replace(
                "the move is left out", f"`{text}` read as {stood} of the {written}"))
            found.explanation = explanation.to_json()
        found.assumed = explanation.said
        tail = "; this move is skipped"
        if isinstance(found.message, str) and found.message.endswith(tail):
            found.message = found.message[: -len(tail)] + "; " + explanation.said + alike_words(explanation)
        elif isinstance(found.message, str):
            found.message += "; " + explanation.said + alike_words(explanation)

    # -- narrowing what nobody wrote down
    def narrow(self, budget: int, notation: Notation | None = None, check: Budget | None = None,
               as_meant: bool = False) -> Answer | None:
        """The unknown outcomes narrowed together from what the file says after them (kernel.narrowing): each
        unknown's values that let the written log go on furthest (to its end, and then to the claimed result),
        searched jointly with the other unknowns they are decided with; within `NARROWING_SECONDS` of process time,
        and what the check's budget (`check`) has left. `as_meant`: the lines this reading found refused are read as
        it went on with them (its slips, not the guesses' doing), so that what follows them judges the unknowns."""
        if not self.unknowns or notation is None:
            return None
        def cap() -> tuple[float, str | None, Callable[[], bool] | None]:
            return check.narrowing(NARROWING_SECONDS) if check is not None else (NARROWING_SECONDS, None, None)
        reading = _Reading(self, notation, as_meant)
        stops: dict[int, list[tuple[int, int]]] = {}
        main: dict[tuple[int, int], Asked] = {}
        for unknown in self.unknowns:
            key = self.written_at(unknown)
            stop = reading.stop_of.get(key)
            if stop is None:
                unknown.why = NOT_ON_ITS_LINE
                continue
            stops.setdefault(stop, []).append(key)
            main[key] = Asked(unknown.kind, tuple(unknown.pool), tuple(unknown.assumed), unknown.partial)
        order = sorted(stops.items())
        if not order:
            return None
        start = reading.before(order[0][0]) if order[0][0] >= 0 else None
        if order[0][0] >= 0 and start is None:
            for unknown in self.unknowns:
                unknown.why = "the line with the first unknown outcome was not read"
            return None
        plain = {self.written_at(u) for u in self.unknowns  # nobody wrote it, or wrote it with a `?` in it (`[Y?]`)
                 if u.written is None or UNKNOWN in u.written or u.blind} & main.keys()
        answer: Answer | None = None
        short: Answer | None = None  # that search's answer where it did not read to the end (a slip of the file's own)
        if plain and len(plain) < len(main):  # an outcome written but impossible with the first guesses: it is
            # read as written (an item not there counted, kernel.narrowing.rank), and the outcomes nobody wrote are
            # narrowed to values that let it stand (`[?]` drawn, then the next seat's written card: the `[?]` was
            # not that card); only where that reads nowhere are the written ones searched as well
            kept = [(stop, [k for k in keys if k in plain]) for stop, keys in order]
            kept = [(stop, keys) for stop, keys in kept if keys]
            first = reading.before(kept[0][0]) if kept[0][0] >= 0 else None
            if kept[0][0] < 0 or first is not None:
                answer = narrow_together(reading, first, [(stop, sorted(keys, key=lambda k: reading.rank[k]))
                                                          for stop, keys in kept], budget, CANDIDATES,
                                         {k: main[k] for k in plain}, *cap())
                if not reading.reads_to_end(first, kept[0][0], answer.best, exactly=False):
                    short, answer = answer, None
        if answer is None:
            reading.overriding = True  # the written but impossible outcomes searched too (`WrittenChance.fallback`)
            answer = narrow_together(reading, start, [(stop, sorted(keys, key=lambda k: reading.rank[k]))
                                                      for stop, keys in order], budget, CANDIDATES, main,
                                     *cap())
            if short is not None:  # what that search found for an outcome this one left without a value (its cap)
                answer.best.update({k: v for k, v in short.best.items() if k not in answer.best})
        _keep_guesses(reading, answer, self.unknowns)
        self.apply(answer)
        return answer

    def apply(self, answer: Answer) -> None:
        """What the joint search said, on each unknown of this reading (found again by its place in the file)."""
        for unknown in self.unknowns:
            key = self.written_at(unknown)
            if key not in answer.consistent:
                continue
            unknown.consistent = answer.consistent[key]
            unknown.why = answer.why.get(key)
            unknown.tried = answer.tried.get(key, 0)
            unknown.together = sorted({k[0] for k in answer.together.get(key, []) if k[0] != unknown.line})
            if key in answer.alone:
                unknown.alone = answer.alone[key]
            unknown.searched = answer.searched.get(key)

    def written_at(self, unknown: Unknown) -> tuple[int, int]:
        return (unknown.line, unknown.column)


def _keep_guesses(reading: _Reading, answer: Answer, unknowns: Sequence[Unknown]) -> None:
    """The outcomes of a turn nobody wrote are read with the values the search chose for it (`explain._guess`) where
    those let more of the file stand than the joint search's (several draws from one bag at one move: judged by
    classes, it may miss the combination the lines after it need)."""
    for stop in sorted(reading.left_out):
        line = reading.notation.turns[reading.steps[stop][0]].line
        guessed = {reading.checker.written_at(u): tuple(u.assumed) for u in unknowns if u.line == line and u.column < 0}
        start = reading.before(stop)
        if start is None or all(answer.best.get(k) == v for k, v in guessed.items()):
            continue

        def judged(settled: dict[tuple[int, int], tuple[Any, ...]], at: Any = start, stop: int = stop) -> Any:
            first = reading.play(at, stop, settled)
            return rank(reading.advance(first.state, stop, None, settled)) if first.ok else rank(first)
        narrowed = {k: answer.best[k] for k in guessed if k in answer.best}
        best = max((dict(answer.best), {**answer.best, **guessed}), key=judged)  # the narrowed first on a tie
        top = judged(best)
        for k in guessed:  # then each outcome from the other, where that lets more stand
            other = guessed[k] if best.get(k) != guessed[k] else narrowed.get(k)
            if other is None or other == best.get(k):
                continue
            trial = {**best, k: other}
            if (tried := judged(trial)) > top:
                best, top = trial, tried
        answer.best.update({k: best[k] for k in guessed if k in best})


def inserted_place(index: int, outcome: int) -> int:
    """The column that stands for an outcome of a command nobody wrote (the `index`th put in before a line): below
    zero, where no written outcome is, and the same in every reading of the file."""
    return -1 - index * 32 - outcome


def _inserted_lines(explanation: Explanation) -> tuple[Any, ...]:
    """The turn nobody wrote of a left-out explanation (its lines before the written one), or nothing."""
    if explanation.kind != "left-out" or explanation.consumed != 1:
        return ()
    return tuple(line for line in explanation.lines if line.turn is None)


class _RefusedError(Exception):
    """A probe's reading met something the rules refuse: the values it was given are not the ones that happened."""


_TAKEN = "chance/draw/not-there"
_MISSING = "chance/missing-outcome"
_COUNT = "chance/draw/count"
_FACES = "chance/roll/impossible-face"  # among others, more dice written than rolled
_UNWRITTEN_AT_MOST = 64  # outcomes of one move read as nobody wrote them (Città-Stato's End of Round meets 8)
"""A written item not in what it is drawn from: after an unknown draw, most often one the guess took."""


class _Probe(_Checker):
    """A checker that stops at its first finding, and spends nothing on what a finding would show."""


    taken = 0  # written items found not there, read past with a possible one as the checker does (kernel.narrowing.rank)
    guesses_setup = False  # the values it is given are what it judges: a setup they make impossible is refused
    reads_unwritten = True  # the narrowing reads such a line again and again: one play each time, not two

    def finding(self, kind: str, line: int, rule: str, message: Any, state: Any = None, seat: int | None = None,
                **more: Any) -> Finding:
        if rule == _TAKEN:
            self.taken += 1
            return Finding(kind, line, rule, "")
        raise _RefusedError(line)

    def mended_slip(self, line: int, message: Any, state: Any = None, seat: int | None = None, **more: Any) -> Finding:
        """Read on, as the checker does: a slip of the words is the table's whatever the unknowns before it were,
        and what follows it still judges them (refused here, every value would stop at it alike)."""
        return Finding("notation", line, "notation/move", "")

    def _hide(self, found: Finding, move: Move | None, owners: Sequence[Owner], words: str | None = None,
              about: int | None = None) -> None:
        return None

    def _with_possible_chance(self, state: Any, seat: int, move: Move, command: Command, chance: WrittenChance,
                              facts: Mapping[str, Any] | None = None, blind: bool = False) -> Any:
        """Each written item found not there read as a possible one, counted (`taken`): a line of `[?]` draws
        guessed wrong for several decks meets several such items on one later line, and each guess is judged
        by how many of them it leaves."""
        written = list(chance.written)
        bad = chance.failed_at
        while bad is not None and bad < len(written):
            self._note_taken(written[bad])
            written[bad] = Written(None, written[bad].line, written[bad].column)
            retry = self.chance(written)
            try:
                produced, after = play(self.game, state, command, retry)
            except ImpossibleOutcome as exc:
                if exc.rule != _TAKEN or retry.failed_at is None or retry.failed_at <= bad:
                    raise _RefusedError(move.line) from exc
                self.taken += 1
                bad = retry.failed_at
                continue
            except RuleViolation as exc:
                raise _RefusedError(move.line) from exc
            return self._keep(state, seat, move, command, retry, produced, after, assumed=True)
        raise _RefusedError(move.line)

    def insert(self, state: Any, seat: int, command: Command, line: int,
               guessed: dict[int, tuple[Any, ...]] | None = None, index: int = 0) -> Any:
        """A command nobody wrote, refused with the values given its outcomes: those values did not happen."""
        mark = len(self.checked)
        after = super().insert(state, seat, command, line, guessed, index)
        if len(self.checked) == mark:
            raise _RefusedError(line)
        return after

    def alternatives(self, state: Any, seat: int, written: Mapping[str, Any] | None, most: int = 5,
                     text: str | None = None) -> list[Command]:
        return []

    def held(self, state: Any, seat: int) -> Any:
        return None


class _Reading:
    """The file read again from a move, with some unknown outcomes given: the joint search's reader
    (kernel.narrowing.Reader). It reads the written lines themselves, not the checker's own moves, so
    a move the first reading skipped or replaced because of a wrong guess is judged as written."""

    def __init__(self, checker: _Checker, notation: Notation, as_meant: bool = False) -> None:
        self.checker, self.notation = checker, notation
        self.steps = [(t, m) for t, turn in enumerate(notation.turns) for m in range(len(turn.moves))]
        self.first_of = [len(self.steps)] * (len(notation.turns) + 1)  # a turn -> the first step at or after it
        for k, (t, _) in reversed(list(enumerate(self.steps))):
            self.first_of[t] = k
        for t in range(len(notation.turns) - 1, -1, -1):
            self.first_of[t] = min(self.first_of[t], self.first_of[t + 1])
        self.stop_of: dict[tuple[int, int], int] = {(w.line, w.column): -1 for w in notation.setup}
        self.rank: dict[tuple[int, int], int] = {(w.line, w.column): k for k, w in enumerate(notation.setup)}
        ends: dict[tuple[int, int], tuple[int, int]] = {}  # where a move's words end -> (its step, outcomes written)
        for k, (t, m) in enumerate(self.steps):
            move = notation.turns[t].moves[m]
            move = checker.late.get((move.line, move.column), move)  # outcomes written a line late: their move's
            for i, w in enumerate(move.outcomes):
                self.stop_of[(w.line, w.column)] = k
                self.rank[(w.line, w.column)] = i
            ends[(move.line, move.column + len(move.text))] = (k, len(move.outcomes))
        for unknown in checker.unknowns:  # outcomes the rules asked past what a move wrote (`_unwritten_read`), or
            place = (unknown.line, unknown.column)  # a face-down part of a bracket holding several (`_split_read`)
            for past in range(_UNWRITTEN_AT_MOST if place not in self.stop_of and unknown.column >= 0 else 0):
                if (unknown.line, unknown.column - past) in ends:
                    step, written = ends[(unknown.line, unknown.column - past)]
                    self.stop_of[place], self.rank[place] = step, written + past
                    break
                if past and (unknown.line, unknown.column - past) in self.stop_of:
                    bracket = (unknown.line, unknown.column - past)
                    self.stop_of[place], self.rank[place] = self.stop_of[bracket], self.rank[bracket]
                    break
        self.places: dict[tuple[int, int], int] = {}
        for index, done in enumerate(checker.checked):
            self.places.setdefault((done.line, done.column), index)
        self.explained = dict(checker.explanations)  # the slips the checker explained, read as the table meant them
        self.left_out: dict[int, Sequence[Any]] = {}  # a step that opens a line after a turn left out -> that turn
        for t, explanation in self.explained.items():  # the outcomes of a turn nobody wrote: narrowed at that step
            inserted = _inserted_lines(explanation)
            stop = self.first_of[t]
            if not inserted or stop >= len(self.steps) or self.steps[stop] != (t, 0):
                continue
            self.left_out[stop] = inserted
            line = notation.turns[t].line
            count = sum(len(one.commands) for one in inserted)
            for index in range(count):
                for outcome in range(32):
                    self.stop_of[(line, inserted_place(index, outcome))] = stop
                    self.rank[(line, inserted_place(index, outcome))] = -count * 32 + index * 32 + outcome
        self.overriding = False  # a written outcome the checker found impossible is searched too (`WrittenChance.fallback`)
        # a move whose words no game makes readable (`upgarde P`) is the table's slip whatever was drawn: read as the
        # checker read it, so that what follows it still judges the unknowns before it (else every value stops there);
        # `as_meant`, so is every move the checker found refused (a Market cube bought from the wrong row: what
        # follows it, the Result too, tells a Republic deal nobody wrote apart)
        self.misread: dict[tuple[int, int], Command] = {}
        assumed = {(c.line, c.column) for c in checker.checked if c.assumed}  # where the checker went on otherwise
        for place in sorted(set(checker.unreadable) | (assumed if as_meant else set())):
            kept = [c for c in checker.checked if (c.line, c.column) == place]
            if len(kept) == 1 and kept[0].assumed:
                self.misread[place] = kept[0].command
        # a move whose words the checker read otherwise (`sail famagusta rodi famgusta`: no zone is so spelt, whatever
        # was drawn) is read as written first, and where that is refused as the checker went on with it, counted as
        # an item not there (kernel.narrowing.rank): every value would otherwise stop at it alike, and nothing after
        # it would tell them apart
        worded = {(f.line, f.column) for f in checker.findings if f.rule == "notation/move"}
        self.reworded: dict[tuple[int, int], tuple[Command, ...]] = {}  # each such move -> the commands read for it
        for c in checker.checked:
            place = (c.line, c.column)
            if place in worded and place in assumed and place not in self.misread:
                self.reworded[place] = (*self.reworded.get(place, ()), c.command)

    def _probe(self, settled: dict[tuple[int, int], tuple[Any, ...]]) -> _Probe:
        c = self.checker
        probe = _Probe(c.game, c.words, c.edition, c.seats, c.colours, c.options, settled)
        probe.overriding = self.overriding
        probe._readings, probe._parsed, probe._jsons, probe._seats = c._readings, c._parsed, c._jsons, c._seats  # noqa: SLF001
        probe._play = c._play  # noqa: SLF001  (the caches of the checker it probes for)
        probe.unwritten, probe.late = c.unwritten, c.late
        probe.setup_entry = c.setup_entry
        return probe

    def before(self, stop: int) -> Any:
        if stop < 0 or stop >= len(self.steps):
            return None
        t, m = self.steps[stop]
        move = self.notation.turns[t].moves[m]
        index = self.places.get((move.line, move.column))
        if stop in self.left_out:  # the state before the turn nobody wrote (its commands are kept at column 0)
            index = self.places.get((move.line, 0))
        return self.checker.checked[index].state if index is not None else None

    @staticmethod
    def _asked(probe: _Probe) -> dict[tuple[int, int], Asked]:
        return {(u.line, u.column): Asked(u.kind, tuple(u.pool), tuple(u.assumed), u.partial) for u in probe.unknowns}

    def play(self, state: Any, stop: int, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        probe = self._probe(settled)
        if stop < 0:
            try:
                after = probe.setup(self.notation.setup, self.notation.setup_line or 1)
            except _RefusedError:
                after = None
            ok = after is not None
            return Step(ok, -1, after, self._asked(probe), 1, taken=probe.taken, took=probe.took)
        try:
            if stop in self.left_out:  # the turn nobody wrote first, with the outcomes `settled` gives it
                state = read_explained(probe, state, self.left_out[stop])
            after = self._move(probe, state, stop)
        except _RefusedError:
            return Step(False, stop, None, self._asked(probe), 1, taken=probe.taken, took=probe.took)
        return Step(True, stop + 1, after, self._asked(probe), 1, taken=probe.taken, took=probe.took)

    def _move(self, probe: _Probe, state: Any, k: int) -> Any:
        t, m = self.steps[k]
        turn = self.notation.turns[t]
        seat = probe.seat_of(turn.player)
        if seat is None:
            raise _RefusedError(turn.line)
        pending = probe.pending(state)
        if pending.over:
            raise _RefusedError(turn.line)
        move = turn.moves[m]
        meant = self.misread.get((move.line, move.column))
        if meant is None:
            reworded = self.reworded.get((move.line, move.column))
            if reworded is None:
                return probe.move(state, seat, move, turn, pending)
            written = self._as_written(probe, lambda: probe.move(state, seat, move, turn, pending))
            if written is not None:
                return written
            quiet = Move(move.verb, move.words, (), move.comments, move.line, move.column, move.text)
            for command in reworded[:-1]:  # the steps the move as read leaves out first, then the move
                state = self._stand(probe, state, seat, quiet, command, turn.line)
            return self._stand(probe, state, seat, move, reworded[-1], turn.line)
        if pending.seat != seat:
            raise _RefusedError(turn.line)
        return self._stand(probe, state, seat, move, meant, turn.line)

    @staticmethod
    def _as_written(probe: _Probe, read: Callable[[], Any]) -> Any:
        """What `read` (the lines as written) gives, or None where these values refuse it: what it noted undone, and
        counted as an item not there (kernel.narrowing.rank), for the caller to read as the checker went on."""
        marks = (len(probe.checked), len(probe.unknowns))
        try:
            return read()
        except _RefusedError:
            del probe.checked[marks[0]:], probe.unknowns[marks[1]:]
            probe.taken += 1
            return None

    @staticmethod
    def _stand(probe: _Probe, state: Any, seat: int, move: Move, command: Command, line: int) -> Any:
        """`command` standing for the written move, as the checker went on with it; refused where not legal."""
        mark = len(probe.checked)
        after = probe._stand_in(state, seat, move, command)  # noqa: SLF001  (as the checker went on with it)
        if len(probe.checked) == mark:
            raise _RefusedError(line)  # what stood for it is not legal with these values
        return after

    def reads_to_end(self, state: Any, stop: int, settled: dict[tuple[int, int], tuple[Any, ...]],
                     exactly: bool = True) -> bool:
        """Whether the file reads to its end from the move at `stop` (-1: the setup) with the values `settled`
        (`exactly`: with no written item found not there)."""
        first = self.play(state, stop, settled)
        if not first.ok:
            return False
        went = self.advance(first.state, stop, None, settled)
        return went.ok and went.depth >= len(self.steps) and (not exactly or first.taken + went.taken == 0)

    def _explained(self, probe: _Probe, state: Any, k: int, upto: int, explanation: Explanation) -> Any:
        """The lines of a slip the checker explained (steps `k` to `upto`), read as written where they stand with
        these values, else as the explanation reads them, counted as an item not there (kernel.narrowing.rank): the
        checker explained them reading with its own guesses, and a refusal may be a guess's doing (a port guessed
        closed that a galley claims later: the value with which the claim stands is the likelier)."""
        def lines() -> Any:
            written = state
            for step in range(k, upto):
                written = self._step(probe, written, step)
            return written
        written = self._as_written(probe, lines)
        return written if written is not None else read_explained(probe, state, explanation.lines)

    def _step(self, probe: _Probe, state: Any, k: int) -> Any:
        """The move at step `k` as written, and its line's end after its last move."""
        state = self._move(probe, state, k)
        t, m = self.steps[k]
        turn = self.notation.turns[t]
        if m == len(turn.moves) - 1:
            state = probe.line_end(state, probe.seat_of(turn.player) or 0, turn)
        return state

    def advance(self, state: Any, stop: int, until: int | None, settled: dict[tuple[int, int], tuple[Any, ...]]) -> Step:
        probe = self._probe(settled)
        end = len(self.steps) if until is None else until
        k = stop + 1
        explained = self.explained
        try:
            if stop >= 0:
                t, m = self.steps[stop]
                turn = self.notation.turns[t]
                if m == len(turn.moves) - 1:
                    state = probe.line_end(state, probe.seat_of(turn.player) or 0, turn)
            while k < end:
                t, m = self.steps[k]
                if m == 0 and t in explained:  # a slip the checker explained: read as the table meant it
                    explanation = explained[t]
                    upto = self.first_of[min(t + explanation.consumed, len(self.first_of) - 1)]
                    state = self._explained(probe, state, k, upto, explanation)
                    k = upto
                    continue
                state = self._step(probe, state, k)
                k += 1
        except _RefusedError:
            return Step(False, k, None, {}, max(1, k - stop), taken=probe.taken, took=probe.took)
        depth = k
        claimed = self.checker.claimed
        miss: tuple[int, int] | None = None
        if until is None and claimed and self.checker.game.pending(state).over:
            totals = {s["seat"]: s["total"] for s in self.checker.game.scores(state).get("seats", [])}
            off = [abs(totals[seat] - total) if isinstance(totals.get(seat), int) else None
                   for seat, total in claimed.items()]
            miss = (sum(1 for o in off if o != 0), sum(o for o in off if o is not None))
            if miss[0] == 0:
                depth += 1  # it also gives the result the table wrote down
        return Step(True, depth, state, {}, max(1, k - stop), miss, probe.taken, probe.took)


OPEN_FACTS = frozenset({"source", "kind", "expected_count"})
"""Facts of a finding about a hidden outcome that every reader may still read: where it comes from, how many."""


def _bare(move: Move) -> str:
    """A move's words as written, without the outcomes written after them on its line."""
    first = next((w.column for w in move.outcomes if w.line == move.line and w.column > move.column), None)
    return move.text if first is None else move.text[: first - move.column].rstrip()


def _public_text(move: Move, owners: Sequence[Owner], words: str | None) -> str:
    """What a move says as every reader may read it: each hidden outcome `[?]`, hidden words as `words` gives them.
    The move's text ends with the outcomes written on its line (those on a later `= [..]` line are not in it)."""
    parts = [write_outcome(w.values) if w.values is not None else "[?]" for w in move.outcomes]
    text, k = move.text, len(parts)
    while k and not text.endswith(" " + " ".join(parts[:k])):
        k -= 1
    head = text[: len(text) - len(" ".join(parts[:k])) - 1] if k else text
    shown = [p if i < len(owners) and owners[i] == PUBLIC else "[?]" for i, p in enumerate(parts[:k])]
    return " ".join([head if words is None else words, *shown])


def _recounted(written: str, other: str) -> bool:
    """`other` is `written` with another count: the same words but for one number standing alone, changed, added or
    left out, at the end or after the verb (`starve L124 1`, `starve L124 2`, `starve L124`; `recruit 2 alessandria`,
    `recruit alessandria`); a place (`L104`) is no count."""
    a, b = written.split(), other.split()
    if len(a) == len(b):
        apart = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
        return len(apart) == 1 and apart[0][0].isdigit() and apart[0][1].isdigit()
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return len(longer) == len(shorter) + 1 and any(longer[k].isdigit() and longer[:k] + longer[k + 1:] == shorter
                                                   for k in (1, len(longer) - 1))


def _names_a_thing(edition: Edition, values: Sequence[Any] | None) -> bool:
    """Every word of a written outcome names something the edition holds (a card id, a card's name): only such a word
    can be a card an outcome nobody wrote took before it. Asked of the edition, which every reader has, never of what
    a hidden pool held: the answer tells nobody anything of the pool."""
    return values is not None and all(not isinstance(v, str) or v.casefold() in _edition_words(edition) for v in values)


_EDITION_WORDS: Bounded[str, tuple[frozenset[str], frozenset[str]]] = Bounded("edition-words", 32)  # files come and go


def _edition_words(edition: Edition) -> frozenset[str]:
    """Every word of an edition's data, its keys and its values, folded (kept by the edition's hash)."""
    return _edition_vocabulary(edition)[1]


def _edition_spellings(edition: Edition) -> frozenset[str]:
    """Every word of an edition's data as the data writes it (`VEN`, `master_builder`)."""
    return _edition_vocabulary(edition)[0]


def _edition_vocabulary(edition: Edition) -> tuple[frozenset[str], frozenset[str]]:
    known = _EDITION_WORDS.get(edition.content_hash)
    if known is not None:
        return known
    found: set[str] = set()
    todo: list[Any] = [edition.data]
    while todo:
        item = todo.pop()
        if isinstance(item, Mapping):
            found.update(str(k) for k in item)
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, str):
            found.add(item)
    known = (frozenset(found), frozenset(w.casefold() for w in found))
    _EDITION_WORDS.put(edition.content_hash, known)
    return known


def _begun(player: str, seats: Sequence[str]) -> tuple[list[int], bool]:
    """The seats whose names begin with the words of a player written shortened (`Anna`), else whose names' words begin
    with its letters, one each (`AM`); and whether it was read as initials."""
    words = fold_name(player).split()
    if not words:
        return [], False
    found = [i for i, name in enumerate(seats) if len(named := fold_name(name).split()) > len(words)
             and named[: len(words)] == words]
    if found or len(words) > 1 or len(words[0]) < 2 or not words[0].isalpha():
        return found, False
    return [i for i, name in enumerate(seats) if "".join(w[0] for w in fold_name(name).split()) == words[0]], True


def _crossed(checker: _Checker, player: str) -> bool:
    """`x Maria Grazia`: a seat's name behind an `x`, as a pencil crosses a line out (the notation cannot tell it from
    a name: it is said so, not read as nothing)."""
    mark, _, rest = player.partition(" ")
    return mark in ("x", "X") and checker.seat_of(rest.strip()) is not None


def _fills(pattern: Sequence[str], said: Sequence[str]) -> bool:
    """The words `said` are those of `pattern`, where a `?` stands for one word or none."""
    if not pattern:
        return not said
    if pattern[0] == UNKNOWN:
        return _fills(pattern[1:], said) or (bool(said) and _fills(pattern[1:], said[1:]))
    return bool(said) and said[0] == pattern[0] and _fills(pattern[1:], said[1:])


def _numbers_as_words(move: Move) -> tuple[Move, list[str]] | None:
    """The move with each number written as a word (`recruit two galley 1`, `load Three from 4`) written as the number,
    and those words; None where it has none."""
    words = [NUMBER_WORDS.get(w.lower(), w) if isinstance(w, str) else w for w in move.words]
    spelt = [w for w in move.words if isinstance(w, str) and w.lower() in NUMBER_WORDS]
    if not spelt:
        return None
    text = re.sub(r"(?<![\w'’])(" + "|".join(map(re.escape, {w.lower() for w in spelt})) + r")(?![\w'’])",
                  lambda m: str(NUMBER_WORDS[m.group(1).lower()]), move.text, flags=re.IGNORECASE)
    return Move(move.verb, tuple(words), move.outcomes, move.comments, move.line, move.column, text, move.glyph), spelt


def _doubled(move: Move) -> tuple[Move, str] | None:
    """The move with a word written twice in a row read once (`unload to to 12`, `sail sail corfu`), and the word."""
    words = [move.verb, *move.words]
    for k in range(len(words) - 1):
        if isinstance(words[k], str) and words[k] == words[k + 1]:
            once = [*words[:k], *words[k + 1:]]
            return (Move(once[0], tuple(once[1:]), move.outcomes, move.comments, move.line, move.column, move.text),
                    words[k])
    return None


def _counted(n: int, one: str, more: str | None = None) -> str:
    """`no outcome`, `1 outcome`, `3 outcomes` (`1 more is`, `2 more are`): a count as a sentence says it."""
    if n == 0 and more is None:
        return f"no {one}"
    return f"{n} {one if n == 1 else more or one + 's'}"


def _at(line: int, message: Any) -> Any:
    """A rule's sentence, placed at its line."""
    if isinstance(message, dict):
        return {"$secret": {**message["$secret"], "value": f"line {line}: {message['$secret']['value']}",
                            "shown": f"line {line}: {message['$secret']['shown']}"}}
    return f"line {line}: {message}"


def _header(notation: Notation, game: Game | None, title: str | None, findings: list[Finding]) -> tuple[list[str], list[str | None], dict[str, Any], dict[str, int] | None]:
    def tag_line(name: str) -> int:
        found = notation.tags.get(name)
        return found.line if found is not None else 1

    seats_text = notation.tag("Seats")
    seats: list[str] = []
    colours: list[str | None] = []
    if not seats_text:
        findings.append(Finding("header", 1, "notation/seats", 'the header names no seats: add [Seats "Ada, Bruno, …"] in seat order'))
    else:
        read = read_seats(seats_text)
        seats, colours = [n for n, _ in read], [c for _, c in read]
        twice = [n for n, k in Counter(fold_name(n) for n in seats).items() if k > 1]
        if twice:
            findings.append(Finding("header", tag_line("Seats"), "notation/seats", f"line {tag_line('Seats')}: {twice[0]!r} names two seats"))
        uncarried = next(((k, problem) for k, name in enumerate(seats) if (problem := seat_name_problem(name))), None)
        if uncarried is not None:
            findings.append(Finding("header", tag_line("Seats"), "notation/seats",
                                    f"line {tag_line('Seats')}: the name in place {uncarried[0] + 1} of the Seats: {uncarried[1]}"))
    options: dict[str, Any] = {}
    if notation.tag("Options"):
        try:
            options = read_options(notation.tag("Options") or "")
        except ValueError as exc:
            findings.append(Finding("header", tag_line("Options"), "notation/options", f"line {tag_line('Options')}: {exc}"))
    options.setdefault("players", len(seats))
    if game is not None and seats:
        low, high = game.seats
        if options.get("players") != len(seats):
            findings.append(Finding("header", tag_line("Seats"), "notation/seats",
                                    f"line {tag_line('Seats')}: the header names {len(seats)} seats for a "
                                    f"{options.get('players')}-player game"))
        elif not low <= len(seats) <= high:
            findings.append(Finding("header", tag_line("Seats"), "notation/seats",
                                    f"line {tag_line('Seats')}: {title} is played by {low} to {high}, not {len(seats)}"))
    claimed = None
    if (notation.tag("Result") or "").strip() not in _NO_RESULT:  # (`[Result "*"]`: PGN's game not ended)
        try:
            claimed = read_result(notation.tag("Result") or "")
        except ValueError as exc:
            findings.append(Finding("header", tag_line("Result"), "notation/result", f"line {tag_line('Result')}: {exc}"))
    return seats, colours, options, claimed


_NO_RESULT = frozenset({"", "*", "?", "-", "\u2013", "?-?"})
"""A Result tag that claims no result, as PGN writes a game not ended (`*`), or a table that left it open."""


def _title_as_printed(notation: Notation, titles: Sequence[str]) -> None:
    """A Title written as the box prints it (`La Città`, `Città-Stato`, `SERENISSIMA`) is the title whose id it
    spells, accents, case and the spaces or hyphens between words aside; the tag then holds that id."""
    written = notation.tags.get("Title")
    if written is None or written.value in titles or not re.fullmatch(r"[\w\s'\u2019-]+", written.value):
        return  # a word and its spaces or hyphens only: `citta\-stato` stays a finding (its escape is a slip)
    found = find_seat(written.value, titles)  # a title is spelled as a seat's name is: `loose_name`
    if found is not None:
        notation.tags["Title"] = replace(written, value=titles[found])


def header_findings(notation: Notation, game_for: Callable[[str], tuple[Game, Words]],
                    titles: Sequence[str] = ()) -> list[Finding]:
    """The header's findings alone (title, seats, options, result), without reading the moves."""
    findings: list[Finding] = []
    _title_as_printed(notation, titles)
    title = notation.tag("Title")
    game: Game | None = None
    if not title:
        example = titles[0] if titles else "<title>"  # the first catalogued title, as a model line to copy
        findings.append(Finding("header", 1, "notation/title", f'the header names no game: add [Title "{example}"] '
                                f"(one of {', '.join(titles)})"))
    else:
        try:
            game, _ = game_for(title)
        except KeyError:
            near = difflib.get_close_matches(title, list(titles), n=2, cutoff=0.4)
            line = notation.tags["Title"].line
            findings.append(Finding("header", line, "notation/title", f"line {line}: {title!r} is not a game this service knows"
                                    + (f"; did you mean {' or '.join(near)}?" if near else f" ({', '.join(titles)})"),
                                    did_you_mean=near))
    _header(notation, game, title, findings)
    return findings


def check(
    text: str,
    game_for: Callable[[str], tuple[Game, Words]],
    edition_for: Callable[[Game, str | None], Edition],
    budget: int = NARROWING_BUDGET,
    titles: Sequence[str] = (),
) -> DisputeReport:
    """A notation file's dispute report: every finding at its own line."""
    findings: list[Finding] = []
    try:
        notation = parse(text)
    except NotationError as exc:
        return DisputeReport(None, [], {}, [Finding("notation", exc.line, "notation/unreadable", exc.message)], [], None, None, False, None)
    header = header_findings(notation, game_for, titles)  # the Title as printed is read as its id first
    title = notation.tag("Title")
    game: Game | None = None
    words: Words | None = None
    if title and not any(f.rule == "notation/title" for f in header):
        game, words = game_for(title)
    seats, colours, options, claimed = _header(notation, game, title, [])
    run_on = _comments_run_on(notation, text, seats) if words is not None else {}
    if run_on:  # a `{` left open swallowed turns of the game: read closed at its line's end, said at that line
        lines = text.split("\n")
        for line in run_on:
            lines[line - 1] = lines[line - 1].rstrip("\r") + "}"
        text = "\n".join(lines)
        notation = parse(text)
    if words is not None:
        _outcomes_below(notation, text, seats)
    mended = _colons_forgotten(notation, text, seats, words) if words is not None else {}
    mended_notes = _comments_misplaced(notation, text, set(mended)) if words is not None else {}
    mended_notes.update(_turns_joined(notation, text, seats, {*mended, *mended_notes}) if words is not None else {})
    mended_notes.update(_left_open(notation, text, {*mended, *mended_notes}) if words is not None else {})
    for error in notation.errors:
        message = error.message if error.line not in mended else (
            f"line {error.line}: the colon after the player's name is missing; read as `{mended[error.line]}`")
        message = mended_notes.get(error.line, message)
        findings.append(Finding("notation", error.line, "notation/syntax", message, column=error.column,
                                expected=error.expected, did_you_mean=error.did_you_mean))
    for line, (column, end) in run_on.items():
        findings.append(Finding("notation", line, "notation/syntax",
                                f"line {line}: a `{{` comment is not closed on its line: the lines after it, turns of the "
                                f"game, would be its words up to line {end}; read as closed at the end of line {line}",
                                column=column))
    findings += header
    if game is None or words is None or any(f.kind == "header" for f in findings):
        return DisputeReport(title, seats, options, findings, [], None, claimed, False, None, moves=0)
    try:
        edition = edition_for(game, notation.tag("Edition"))
    except EditionError as exc:
        line = notation.tags["Edition"].line if "Edition" in notation.tags else 1
        findings.append(Finding("header", line, "notation/edition", f"line {line}: {exc}"))
        return DisputeReport(title, seats, options, findings, [], None, claimed, False, None)
    explaining = Budget()  # the check's one budget (kernel.explain): every search, narrowing and reading below
    checker = _read_all(notation, game, words, edition, seats, colours, options, findings, explaining, claimed, budget)
    if checker.state is None:
        return DisputeReport(title, seats, options, checker.findings, checker.unknowns, None, claimed, False, None,
                             secrets=_holds_secrets(words, checker.findings))
    checker = _other_readings(checker, explaining, notation, lambda: _read_all(
        notation, game, words, edition, seats, colours, options, findings, explaining, claimed, budget // 4))
    state = checker.state
    finished = game.pending(state).over
    scores = game.scores(state)
    entries: list[Any] = [checker.setup_entry, *(c.entry for c in checker.checked)]  # the setup's is set by now
    return DisputeReport(title, seats, options, checker.findings, checker.unknowns, scores, claimed, finished, entries,
                         lines=len(text.splitlines()), moves=len(checker.checked),
                         places=[(notation.setup_line or 1, 0), *((c.line, c.column) for c in checker.checked)],
                         words=words,
                         explaining=explaining.to_json() if explaining.searches or explaining.exhausted else None,
                         readings={notation.turns[at].line: [[c.to_json() for c in reading] for reading in explanation.readings]
                                   for at, explanation in checker.explanations.items() if explanation.readings},
                         secrets=_holds_secrets(words, checker.findings, game, state, len(seats)))


_ORDINAL = re.compile(r"[ \t]*(?:\d+\.[ \t]*)?")


def _colons_forgotten(notation: Notation, text: str, seats: Sequence[str], words: Words) -> dict[int, str]:
    """Lines that did not parse for the colon after the player's name (`Carla galley 2 invest`): each read as its
    turn, the space after the name standing for the colon (the columns stay the file's), and put among the turns
    in its place, where its first word after the name is a move of the game (not `Ada went out for pizza`); the
    line -> the line as read. The syntax finding stays: the slip is named once, at its line."""
    lines = text.splitlines()
    mended: dict[int, str] = {}
    for error in notation.errors:
        written = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
        ordinal = _ORDINAL.match(written)
        start = ordinal.end() if ordinal else 0
        head = re.split(r"[\[{:]", written[start:], maxsplit=1)[0]
        tokens = [(m.group(), start + m.end()) for m in re.finditer(r"\S+", head)]
        for k in range(len(tokens) - 1, 0, -1):  # the longest run of words that names a seat, a word after it
            seat = find_seat(" ".join(w for w, _ in tokens[:k]), seats)  # as a turn line's player is matched
            if seat is None:
                continue
            name = seats[seat]
            at = tokens[k - 1][1]
            meant = written[:at] + ":" + written[at + 1:]
            try:
                read = parse("\n" * (error.line - 1) + meant + "\n")
            except NotationError:
                break
            if not read.errors and len(read.turns) == 1 and read.turns[0].moves[0].verb.lower() in (
                    words.vocabulary.by_verb):
                notation.turns.append(read.turns[0])
                mended[error.line] = f"{name}: {meant[at + 1:].strip()}"
            break
    if mended:
        notation.turns.sort(key=lambda turn: (turn.line, turn.column))
    return mended


_COMMENT = re.compile(r"\{[^{}\\]*\}")  # a comment on one line, no brace or backslash inside


def _top_commas(line: str) -> list[int]:
    """Where the commas between moves stand: none inside brackets, braces or quotes."""
    found, depth, quoted = [], 0, False
    for at, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "[{":
            depth += 1
        elif not quoted and char in "]}":
            depth -= 1
        elif not quoted and depth == 0 and char in ",;":
            found.append(at)
    return found


def _comments_misplaced(notation: Notation, text: str, done: set[int]) -> dict[int, str]:
    """Lines that did not parse for a `{comment}` written where no move has ended: after a comma, before the move
    it opens (`politics B, {paid black} scheme 3`), or between a move's words (`bread L80 {hospital} health`). Each is
    read with its comment moved to the end of the move before it (the columns of the other moves stay the file's)
    and put among the turns in its place; the line -> what the finding says. The syntax finding stays: the slip is
    named once, at its line, and the game read as the table meant it."""
    lines = text.splitlines()
    said: dict[int, str] = {}
    for error in notation.errors:
        if error.line in done or error.line in said or not 0 < error.line <= len(lines):
            continue
        written = lines[error.line - 1]
        comments = list(_COMMENT.finditer(written))
        if len(comments) != 1 or ":" not in written[:comments[0].start()]:
            continue
        comment = comments[0]
        colon = written.index(":")
        commas = _top_commas(written)
        opened = max([colon, *(at for at in commas if at < comment.start())])  # where the move it touches began
        after = written[comment.end():].lstrip(" \t")
        if opened != colon and not written[opened + 1:comment.start()].strip():  # `move, {c} move`: after the comma
            start = max([colon, *(at for at in commas if at < opened)])
            move = written[start + 1:opened]
            meant = f"{written[:opened]} {comment.group()}, {after}"
            how = "a comment after the comma, where the next move begins"
        else:  # `verb word {c} word`: inside a move, which ends at the next comma or at the line's end
            end = min([len(written.rstrip()), *(at for at in commas if at > comment.end())])
            move = written[opened + 1:comment.start()] + " " + written[comment.end():end]
            meant = f"{written[:comment.start()].rstrip()} {written[comment.end():end].strip()} {comment.group()}" \
                    f"{written[end:]}"
            how = "a comment inside a move"
        move = " ".join(move.split())
        try:
            read = parse("\n" * (error.line - 1) + meant + "\n")
        except NotationError:
            continue
        if read.errors or len(read.turns) != 1:
            continue
        notation.turns.append(read.turns[0])
        said[error.line] = f"line {error.line}: {how}; read as a note on `{move}`"
    if said:
        notation.turns.sort(key=lambda turn: (turn.line, turn.column))
    return said


def _comments_run_on(notation: Notation, text: str, seats: Sequence[str]) -> dict[int, tuple[int, int]]:
    """Comments that run over lines holding turns of the game (`{great move` left open, a `}` some lines down): a
    comment may go on over lines, but not over `Bruno: farm L13 L1`. The line of each such `{` -> (its column, the line
    where the comment ends)."""
    lines = text.split("\n")
    found: dict[int, tuple[int, int]] = {}
    comments = [*notation.comments, *(c for turn in notation.turns for m in turn.moves for c in m.comments)]
    for comment in comments:
        words = getattr(comment, "note", "") or getattr(comment, "text", "")
        line = getattr(comment, "line", 0)
        if "\n" not in words or not 0 < line <= len(lines) or "{" not in lines[line - 1]:
            continue
        inside = words.split("\n")[1:]
        if any(":" in row and find_seat(row[(m.end() if (m := _ORDINAL.match(row)) else 0):].split(":", 1)[0].strip(),
                                        seats) is not None for row in inside):
            found[line] = (lines[line - 1].rindex("{") + 1, line + len(inside))
    return found


def _left_open(notation: Notation, text: str, done: set[int]) -> dict[int, str]:
    """Lines that did not parse for a `{comment` or an outcome's `[` left open (`school L66 L73 {great move`,
    `starve L73 [culture`): each read closed at the line's end, where it then reads as one turn, and put among the
    turns in its place; the line -> what the finding says. Named once, at its line; the move is not lost."""
    lines = text.splitlines()
    said: dict[int, str] = {}
    for error in notation.errors:
        if error.line in done or not 0 < error.line <= len(lines):
            continue
        written = lines[error.line - 1].rstrip()
        closing = "".join(close for open_, close in (("[", "]"), ("{", "}"))
                          if written.count(open_) == written.count(close) + 1)
        if len(closing) != 1 or ":" not in written:
            continue
        try:
            read = parse("\n" * (error.line - 1) + written + closing + "\n")
        except NotationError:
            continue
        if read.errors or len(read.turns) != 1:
            continue
        notation.turns.append(read.turns[0])
        what = "a `{` comment" if closing == "}" else "a `[` outcome"
        said[error.line] = f"line {error.line}: {what} is not closed; read as closed at the end of the line (`{closing}`)"
    if said:
        notation.turns.sort(key=lambda turn: (turn.line, turn.column))
    return said


_BELOW = re.compile(r"[ \t]*(?:(?P<label>[^\[\]{}:\r]+):)?[ \t]*(?P<brackets>\[[^\[\]{}]*\](?:[ \t]*(?:\[[^\[\]{}]*\]"
                    r"|\{[^{}]*\}))*)[ \t\r]*")


def _outcomes_below(notation: Notation, text: str, seats: Sequence[str]) -> set[int]:
    """Lines of brackets alone (`[Y3] [W8] ... [O G G O]`, or under a label that names no player, `End of round:
    [Y3] ...`) written just below a turn line, or below the Setup line: the outcomes of that line's last move (the
    Setup's), as a table that writes the End of Round's draws on a line of their own means them, or that runs the
    Setup over two lines. Each such turn is read with them, the outcomes keeping the file's places, and no finding
    is made: nothing is missing or in doubt. The lines so read."""
    lines = text.split("\n")
    by_line = {turn.line: k for k, turn in enumerate(notation.turns)}
    runs: dict[int, list[tuple[int, int]]] = {}  # a turn's (the Setup's) line -> its lines of brackets below: (line, start)
    last: dict[int, int] = {}  # a line of brackets -> the line it runs on from
    for error in sorted(notation.errors, key=lambda e: e.line):
        below = error.line
        found = _BELOW.fullmatch(lines[below - 1]) if 1 < below <= len(lines) else None
        if found is None or (found["label"] and find_seat(found["label"].strip(), seats) is not None):
            continue
        head = last.get(below - 1, below - 1)
        turn = notation.turns[by_line[head]] if head in by_line else None
        if head != notation.setup_line and (turn is None or not turn.moves or any(m.line != head for m in turn.moves)):
            continue
        runs.setdefault(head, []).append((below, found.start("brackets")))
        last[below] = head
    read: set[int] = set()
    for head, run in runs.items():
        joined = lines[head - 1].rstrip("\r")
        places: list[tuple[int, int, int]] = []  # (first column of the joined line, its line, the shift to its column)
        for below, start in run:
            brackets = _BELOW.fullmatch(lines[below - 1])
            assert brackets is not None
            places.append((len(joined) + 2, below, start - len(joined) - 1))
            joined += " " + brackets["brackets"]
        try:
            again = parse("\n" * (head - 1) + joined + "\n")
        except NotationError:
            continue
        turn = notation.turns[by_line[head]] if head in by_line else None
        if again.errors or len(again.turns) != (turn is not None) or (
                turn is not None and len(again.turns[0].moves) != len(turn.moves)):
            continue
        if turn is None:
            notation.setup = _placed(again.setup, places)
        else:
            moves = again.turns[0].moves
            notation.turns[by_line[head]] = replace(again.turns[0], moves=(
                *moves[:-1], replace(moves[-1], outcomes=_placed(moves[-1].outcomes, places))))
        read.update(below for below, _ in run)
    notation.errors[:] = [error for error in notation.errors if error.line not in read]
    return read


def _read_so_too(first: Finding, line: int) -> None:
    """A slip the table made again (a word misspelt alike, a bracket holding several draws) is named once: its first
    finding says the later lines read so, and they have none of their own."""
    also = first.facts.setdefault("read_so_too_at", [])
    if line not in also:
        also.append(line)
        if isinstance(first.message, str):
            first.message = (first.message.split("; read so too at line")[0] + "; read so too at line"
                             + ("s " if len(also) > 1 else " ") + ", ".join(map(str, also)))


def _placed(outcomes: Sequence[Written], places: Sequence[tuple[int, int, int]]) -> tuple[Written, ...]:
    """Outcomes read from a line joined with the lines of brackets below it, each put back at its own line and column
    (`places`: the first column of each joined part, its line, the shift to its columns)."""
    out = []
    for w in outcomes:
        at = [(line, shift) for first, line, shift in places if w.column >= first]
        out.append(Written(w.values, at[-1][0], w.column + at[-1][1]) if at else w)
    return tuple(out)


_NEXT_PLAYER = re.compile(r"[ \t]+")  # where a second turn may begin on a line


def _on_line(turn: Turn, line: int) -> Turn:
    """A turn read from the line after its own (`_turns_joined`) put back on its line, outcomes and notes too."""
    def moved(move: Move) -> Move:
        return replace(move, line=line, outcomes=tuple(replace(o, line=line) for o in move.outcomes),
                       comments=tuple(replace(c, line=line) if hasattr(c, "line") else c for c in move.comments))
    return replace(turn, line=line, moves=tuple(map(moved, turn.moves)))


def _turns_joined(notation: Notation, text: str, seats: Sequence[str], done: set[int]) -> dict[int, str]:
    """Lines that did not parse for holding two turns (`Ada: found L13 L26   Bruno: found L111 L78`, a line break
    forgotten): each read as the two turns it holds, at their columns, where what follows a space opens with a seat's
    name and its colon and both halves read; the line -> what the finding says. Named once, at its line."""
    lines = text.splitlines()
    said: dict[int, str] = {}
    for error in notation.errors:
        if error.line in done or not 0 < error.line <= len(lines):
            continue
        written = lines[error.line - 1]
        for gap in _NEXT_PLAYER.finditer(written):
            first, second = written[:gap.start()], written[gap.end():]
            name = second.split(":", 1)[0] if ":" in second else ""
            if ":" not in first or not name.strip() or find_seat(name.strip().strip('"'), seats) is None:
                continue
            try:
                read = parse("\n" * (error.line - 1) + first + "\n" + " " * gap.end() + second + "\n")
            except NotationError:
                continue
            if read.errors or len(read.turns) != 2:
                continue
            one, two = read.turns
            notation.turns += [one, _on_line(two, error.line)]
            said[error.line] = (f"line {error.line}: two turns written on one line ({one.player}'s and "
                                f"{two.player}'s); read as two lines")
            break
    if said:
        notation.turns.sort(key=lambda turn: (turn.line, turn.column))
    return said


def _read_all(notation: Notation, game: Game, words: Words, edition: Edition, seats: list[str],
              colours: list[str | None], options: dict[str, Any], findings: list[Finding], explaining: Budget,
              claimed: dict[str, int] | None, budget: int) -> _Checker:
    """The file read through the rules, its unknowns narrowed and it read again with them, the result compared:
    the checker of the last reading (`state` None: the setup failed). Every reading, search and narrowing here
    spends the check's one budget (`explaining`)."""
    settled: dict[tuple[int, int], tuple[Any, ...]] = {}

    def run(hold: bool | str = True) -> _Checker:
        started, work, searched = time.process_time(), explaining.work, (explaining.elapsed, explaining.used)
        done = _run(notation, game, words, edition, seats, colours, options, list(findings), settled, explaining,
                    hold=hold, claimed=claimed)
        # a reading's own cost, its searches aside (each is searched once; they have their own caps)
        explaining.timed(time.process_time() - started - (explaining.elapsed - searched[0]),
                         explaining.work - work - (explaining.used - searched[1]))
        return done

    checker = run()
    if checker.state is None:
        return checker
    if claimed:
        checker.claimed = {seat: total for name, total in claimed.items() if (seat := checker.seat_of(name)) is not None}
    answer = checker.narrow(budget, notation, explaining)
    if answer is not None and any(answer.best.get(checker.written_at(u)) not in (None, u.assumed) for u in checker.unknowns):
        # the first guesses are not what the rest of the file says: read it again with values that stand together
        settled.update(answer.best)
        again = run()
        if again.state is not None:
            again.claimed = checker.claimed
            again.apply(answer)
            checker = again
    unsure = [u.line for u in checker.unknowns if _unsure(u, checker.unknowns)]  # what is refused after them may be their guesses' doing
    # an outcome left open only after the first refusal held back cannot have made that one refused: the reading past
    # it (a slip read as written, cards drawn then written as the table saw them) may be what made it impossible;
    # the slips are then read as meant, kept when fewer findings follow
    later = bool(unsure) and checker.held_at is not None and min(unsure) > checker.held_at
    if checker.held_back and (not unsure or later):  # refusals after unknowns, read as written for the narrowing: now explained
        again = run(hold=False)
        if again.state is not None and (not later or len(again.findings) < len(checker.findings)):
            again.claimed = checker.claimed
            if answer is not None:
                again.apply(answer)
            checker = again
            if checker.explanations:  # the unknowns narrowed again, past the slips read as meant
                meant = checker.narrow(budget, notation, explaining)
                if meant is not None and any(meant.best.get(checker.written_at(u)) not in (None, u.assumed)
                                             for u in checker.unknowns):
                    settled.update(meant.best)
                    last = run(hold=False)
                    if last.state is not None:
                        last.claimed = checker.claimed
                        last.apply(meant)
                        checker = last
    elif checker.held_back and _misnamed(checker, len(findings)):  # a line under a seat the rules do not wait for
        again = run(hold=NAMES_ONLY)
        if again.state is not None:
            again.claimed = checker.claimed
            if answer is not None:
                again.apply(answer)
            checker = again
    def narrowed() -> _Checker:
        """The file read again, its unknowns narrowed with that reading (a tie's other reading changes what they
        must have been: the Republic deal nobody wrote and the step left out are judged by the Result together)."""
        other = run(hold=False)
        if other.state is None or not other.unknowns:
            return other
        other.claimed = checker.claimed
        found = other.narrow(budget, notation, explaining)
        if found is None or all(found.best.get(other.written_at(u)) in (None, u.assumed) for u in other.unknowns):
            return other
        last = read_with(found)
        return other if last is None else last

    def read_with(found: Answer) -> _Checker | None:
        """The file read again with the values `found` settled, `settled` as it was afterwards (None: the setup failed)."""
        kept = dict(settled)
        settled.update(found.best)
        try:
            last = run(hold=False)
        finally:
            settled.clear()
            settled.update(kept)
        if last.state is None:
            return None
        last.claimed = checker.claimed
        last.apply(found)
        return last

    def past_the_slips() -> _Checker:
        """The unknowns narrowed again with the lines this reading refused read as it went on with them: a slip
        after a deal nobody wrote down (a Market cube bought from the wrong row) stops every value of the deal at
        it alike, and the Result, which tells them apart, is never reached. Kept when it gives the Result to more
        seats and finds no more than the reading before it: a refusal may also be the guesses' doing."""
        if not checker.unknowns or not any(c.assumed for c in checker.checked) or checker.state is None \
                or checker.agreement(checker.state) == len(checker.claimed) or explaining.spent() \
                or not explaining.read_again("the file read again past its slips, for the Result written down"):
            return checker
        other = run(hold=False)  # narrowed on a reading of its own: the one kept is untouched when this is not
        if other.state is None:
            return checker
        found = other.narrow(budget, notation, explaining, as_meant=True)
        if found is None or all(found.best.get(other.written_at(u)) in (None, u.assumed) for u in other.unknowns):
            return checker
        last = read_with(found)
        if last is None or last.agreement(last.state) <= checker.agreement(checker.state) \
                or len(last.findings) > len(checker.findings):
            return checker
        settled.update(found.best)  # the values the reading kept was made with, for the readings after it
        return last

    if checker.claimed:
        checker = past_the_slips()
    checker = _judged_by_result(checker, narrowed, explaining)
    _doubted(checker, len(findings), _written_again(notation.turns))
    _taken_by_a_guess(checker, len(findings))
    if claimed is not None:
        state = checker.state
        _compare_result(checker, claimed, game.scores(state), game.pending(state).over, notation, game, state)
    return checker


OTHER_READINGS = 3  # other readings of a turn left out that fit alike, each read through the whole check, at most


def _other_readings(checker: _Checker, explaining: Budget, notation: Notation,
                    read_all: Callable[[], _Checker]) -> _Checker:
    """A turn left out that several readings fit alike as far as the search read (their outcomes guessed): the whole
    check is made with each (`OTHER_READINGS` at most), its outcomes narrowed with the rest of the file, and the one
    with the fewest findings after it is kept (the one that makes the most of the file legal); the first on a tie.
    Each only while the check's budget has room for a whole reading more (`Budget.read_again`)."""
    for key, chosen in list(explaining.found.items()):
        if chosen is None or not chosen.alike or key[0] not in checker.explanations \
                or checker.explanations[key[0]] is not chosen or chosen.reads < len(notation.turns) - key[0]:
            continue  # (readings told apart before the end of the file: their outcomes do not make them alike)
        line = notation.turns[key[0]].line
        best, fewest = chosen, sum(1 for f in checker.findings if f.line > line or f.kind == "result")
        for other in chosen.alike[:OTHER_READINGS]:
            if fewest == 0 or not explaining.read_again(f"the other readings of the turn left out before line {line}"):
                break
            explaining.found[key] = other
            explaining.pinned.add(key)
            again = read_all()
            after = sum(1 for f in again.findings if f.line > line or f.kind == "result")
            if again.state is not None and after < fewest:
                best, fewest, checker = other, after, again
        explaining.found[key] = best
    return checker


_WHATEVER_WAS_DRAWN = frozenset({"chance/draw/count"})
"""A refusal of what is written that a guess rarely causes: more or fewer cards than a draw takes. It stays a
finding after an undetermined unknown (a die count, an outcome left over can follow a guess: not among them)."""


NOT_ON_ITS_LINE = "it is not among the outcomes written on its line as read"


def _unsure(unknown: Unknown, unknowns: Sequence[Unknown]) -> bool:
    """An outcome nobody wrote that the search left open (its budget spent, or narrowed alone): a line refused after
    it may be its guess's doing, not the table's. Not one an explanation put in (a turn left out: its outcomes are
    chosen with the lines after it) unless the narrowing's budget ran out before it was settled, nor one that is not
    among its line's outcomes as the file was read, nor one narrowed alone to a single value (`_settled_alone`)."""
    if unknown.move < 0:
        return False
    if unknown.column < 0:  # (no `why`: the search never came to it, the check's budget spent before)
        return unknown.consistent is None and (unknown.why is None or _ran_out(unknown.why))
    if unknown.alone is not None:
        return not _settled_alone(unknown, unknowns)
    return unknown.consistent is None and unknown.why != NOT_ON_ITS_LINE


def _settled_alone(unknown: Unknown, unknowns: Sequence[Unknown]) -> bool:
    """Narrowed alone to one value: each of its other values, the other outcomes as read, was read to the file's end
    and refused sooner, so no value of it reads past a line refused later (a line of six `[?]` cards, one of each
    colour: the narrowing's passes settle them one by one, a change of two is a change of each). Not where another
    outcome nobody wrote comes from the same deck or bag: the two may have been swapped, which no reading of one
    at a time tries."""
    return (unknown.consistent is not None and len(unknown.consistent) == 1
            and not any(other is not unknown and other.source == unknown.source for other in unknowns))


def _ran_out(why: str | None) -> bool:
    """The narrowing stopped at a budget (its own, or the check's), not at what the file says."""
    return why is not None and ("ran out" in why or why.startswith(CHECK_CAP))


def _judged_by_result(checker: _Checker, again: Callable[[], _Checker], budget: Budget) -> _Checker:
    """A step or turn nobody wrote chosen among readings that read as far as each other (up to a later slip, past
    which no reading was judged), and the Result written down not given: the file read again with each of the
    others (`TIES` at most, for the first `TIES` such slips), and the one that gives the Result to the most seats
    kept, with no more findings. The Result is the table's word on the whole game."""
    if not checker.claimed or checker.state is None or budget.exhausted:
        return checker  # (outcomes nobody wrote are narrowed again with each reading: `again`)
    tied = [(key, found) for key, found in budget.found.items() if found is not None and found.ties][:TIES]
    best = (checker.agreement(checker.state), -len(checker.findings)) if tied else (0, 0)
    if not tied or best[0] == len(checker.claimed):
        return checker
    for key, chosen in tied:
        for tie in chosen.ties:
            if not budget.left() or not budget.read_again("the file read again with the other readings of what nobody "
                                                          "wrote, for the Result written down"):
                break
            budget.found[key] = tie
            other = again()
            if other.state is None:
                continue
            other.claimed = checker.claimed
            judged = (other.agreement(other.state), -len(other.findings))
            if judged > best:
                best, checker, chosen = judged, other, tie
        budget.found[key] = chosen
    for key, first in tied:
        kept = budget.found[key]
        if kept is not None and kept is not first:  # say so where it is named: the finding reads its explanation
            kept.runner_up = first
            kept.said += (f"; of the readings that read as far ({first.reading or first.said} too), the one with "
                          "which the Result written down stands")
            _said_again(checker, key, kept)
    return checker


def _said_again(checker: _Checker, key: tuple[int, str], chosen: Explanation) -> None:
    """The finding of the explained line says the explanation as it was chosen at last."""
    turn = key[0]
    if checker.explanations.get(turn) is not chosen:
        return
    for found in checker.findings:
        if isinstance(found.explanation, dict) and found.explanation.get("kind") == chosen.kind and \
                found.assumed == chosen.said.split("; of the readings")[0]:
            found.explanation = chosen.to_json()
            found.assumed = chosen.said
            if isinstance(found.message, str):
                found.message = found.message.replace(chosen.said.split("; of the readings")[0], chosen.said, 1)


NAMES_ONLY = "names"  # `_run`'s hold: after an unknown, only the first line out of turn is explained (`_misnamed`)
NAMED = ("other-player", "swapped", "left-out")
"""Explanations of a line under a seat the rules did not wait for that no guess of an outcome makes: the line is
the table's slip even after an unknown the search left open, when the rest of the lookahead reads with it (a turn
left out before it, too: the lines after it read only with that turn put in)."""


def _misnamed(checker: _Checker, header: int) -> bool:
    """A line refused, after an unknown left open, because another seat was to play (it may be the table's slip)."""
    return any(f.kind == "order" for f in checker.findings[header:])


def _named_slip(checker: _Checker, found: Finding) -> bool:
    """The finding is a line under the wrong name, explained so that the whole lookahead reads after it."""
    said = found.explanation if isinstance(found.explanation, dict) else None
    if found.kind != "order" or said is None or said.get("kind") not in NAMED:
        return False
    said = {k: v for k, v in said.items() if k != "doubts"}  # (the lines refused after a turn left out, said on it)
    explanation = next((e for e in checker.explanations.values() if e.to_json() == said), None)
    # it read all it was judged on (the lookahead, at least), or up to a line refused for what was drawn (the guess of
    # an open unknown's doing)
    return explanation is not None and (explanation.resume is not None or explanation.reads >= explanation.consumed
                                        + LOOKAHEAD or (explanation.stopped or "").startswith("chance/"))


FAR = 10**6  # a column past every move of a line


def _written_again(turns: Sequence[Turn]) -> set[int]:
    """The lines that repeat the line above them word for word, under the same name: a line copied twice is the
    table's slip whatever an outcome nobody wrote was."""
    return {b.line for a, b in itertools.pairwise(turns)
            if a.player == b.player and b.moves and [m.text for m in a.moves] == [m.text for m in b.moves]}


def _doubted(checker: _Checker, header: int, again: set[int] | frozenset[int] = frozenset()) -> None:
    """A line refused only because of a value the checker guessed is not a finding: after an unknown the search
    left undetermined, what the rules refused is said on that unknown instead (the guess, not the table, is in doubt).
    Not a line written twice (`again`), nor a hidden outcome written with a word of no card (`misspelt`): those are
    the table's slips whatever was drawn."""
    unsure = [u for u in checker.unknowns if _unsure(u, checker.unknowns)]
    if not unsure:
        return
    first = min(unsure, key=lambda u: (u.line, u.column))
    since = (first.line, first.column if first.column >= 0 else FAR)  # a turn left out: from the lines after it
    kept: list[Finding] = []
    for k, found in enumerate(checker.findings):
        if found.line in again and not any(f.line == found.line for f in kept):
            kept.append(found)
            continue
        if (k >= header and found.kind in ("rule", "chance", "order") and found.rule not in _WHATEVER_WAS_DRAWN
                and (found.line, found.column or 0) > since and not _named_slip(checker, found)
                and (found.line, found.column) not in checker.misspelt):
            first.doubts.append(f"line {found.line} ({found.rule})")
            continue
        kept.append(found)
    checker.findings[:] = kept


def _taken_by_a_guess(checker: _Checker, header: int) -> None:
    """A card written drawn and found not there, where an earlier draw from the same deck that nobody wrote was read
    with a guess holding that card, and the search did not settle that draw on values that all hold it: the guess may
    have taken the card, so the refusal is said on that unknown (its doubts), not named as the table's slip. Only
    for outcomes every reader may read, the guess's (a face-up display, a colour's cards) and the card written: whether
    a hidden guess held a card, or a hidden card written was one a guess held, is not for the report to tell."""
    kept: list[Finding] = []
    for k, found in enumerate(checker.findings):
        not_there = found.facts.get("not_there")
        if k < header or found.rule != _TAKEN or not isinstance(not_there, list) or not not_there \
                or isinstance(found.message, Secret):  # (a face-down card written: its seat's to read)
            kept.append(found)
            continue
        items = {str(v) for v in not_there}
        guess = next((u for u in checker.unknowns
                      if u.kind == "draw" and u.source == found.facts.get("source") and u.owner == PUBLIC
                      and (u.line, u.column) < (found.line, found.column or 0)
                      and items & {str(v) for v in u.assumed}
                      and (u.consistent is None or any(not items & {str(v) for v in value} for value in u.consistent))),
                     None)
        if guess is None:
            kept.append(found)
        else:
            guess.doubts.append(f"line {found.line} ({found.rule})")
    checker.findings[:] = kept


def _too_many(checker: _Checker, line: int) -> bool:
    """Past `MAX_FINDINGS` findings the rest of the file is not read (a file of junk, or of another game): the report
    says so at the line it stopped, with the bound, and stays as long and as quick to make as that many findings."""
    if len(checker.findings) < MAX_FINDINGS:
        return False
    checker.finding("notation", line, "notation/too-many-findings",
                    f"line {line}: {len(checker.findings)} findings already, the most one check gives (a file past "
                    f"{MAX_FINDINGS} is not read further): this and every later line are not checked")
    checker.over_reported = True
    return True


def _as_spelled(values: Sequence[Any], spelled: frozenset[str]) -> list[Any] | None:
    """A written outcome with each word close to one the file spells so elsewhere (`spelled`) read as that word
    (`[hospitol]`: hospital); None where no word changes."""
    meant = list(values)
    folded = {w.casefold(): w for w in spelled}  # (`[Candya]` from a keyboard that capitalizes: candia)
    for k, value in enumerate(values):
        if isinstance(value, str) and len(value) > 3 and value not in spelled:
            near = difflib.get_close_matches(value.casefold(), list(folded), n=1, cutoff=0.8)
            if near and folded[near[0]] != value:
                meant[k] = folded[near[0]]
    return None if meant == list(values) else meant


def _spelled(notation: Notation) -> frozenset[str]:
    """The words the file's outcomes write twice or more: a table's own spelling of its cards and tiles."""
    counted = Counter(v for w in itertools.chain(notation.setup, (o for t in notation.turns for m in t.moves
                                                                  for o in m.outcomes))
                      for v in (w.values or ()) if isinstance(v, str) and v != UNKNOWN)
    return frozenset(v for v, n in counted.items() if n > 1)


def _run(notation: Notation, game: Game, words: Words, edition: Edition, seats: list[str], colours: list[str | None],
         options: dict[str, Any], findings: list[Finding], settled: dict[tuple[int, int], tuple[Any, ...]],
         explaining: Budget | None = None, hold: bool | str = True, claimed: Mapping[str, int] | None = None
         ) -> _Checker:
    """One reading of the file through the rules; `checker.state` is where it ends (None: the setup failed).

    A line that cannot stand is named once, at its line, and read as the explanation that lets the most of
    what follows stand says (kernel.explain): two lines in the other order, a turn left out, the move with
    other words, ...; past the search's budget, as it always was (the closest legal move, or skipped). With `hold`,
    a refusal after an outcome nobody wrote is read as it always was (`checker.held_back`): the
    unknown's first guess may be what is refused, and the narrowing judges by the lines as written."""
    checker = _Checker(game, words, edition, seats, colours, options, settled)
    checker.findings = findings
    checker.spelled = _spelled(notation)
    budget = explaining if explaining is not None else Budget()
    checker.charging(budget)
    if claimed:  # the result the table wrote down tells apart readings that all read to the end (kernel.explain)
        checker.claimed = {seat: total for name, total in claimed.items() if (seat := checker.seat_of(name)) is not None}
    state = checker.setup(notation.setup, notation.setup_line or 1)
    checker.state = state
    if state is None:
        return checker
    turns = notation.turns
    at = 0
    starts: dict[int, tuple[tuple[int, int, int], Any]] = {}  # a turn -> the checker's marks and state before it
    header = len(checker.findings)  # a gap behind a refused line is looked for while the file has read clean (`_gap`)
    named = False  # `NAMES_ONLY`: the first line out of turn after an unknown explained, the rest held
    shortened: set[str] = set()  # the players written shortened (`_Checker.short`) already named
    while at < len(turns):
        turn = turns[at]
        if _too_many(checker, turn.line):
            break
        seat = checker.seat_of(turn.player)
        marks = (len(checker.checked), len(checker.findings), len(checker.unknowns))
        starts[at] = (marks, state)
        if seat is not None and checker.short.get(turn.player) == seat and turn.player not in shortened:
            shortened.add(turn.player)  # named once, where it is first written: the lines after it read alike
            checker.finding("notation", turn.line, "notation/player",
                            f"line {turn.line}: {turn.player!r} is none of the seats ({', '.join(seats)}); did you "
                            f"mean {seats[seat]}?; read as {seats[seat]}'s, the only seat whose "
                            f"{'initials these are' if turn.player in checker.initials else 'name begins so'}, as is "
                            f"every line that writes {turn.player}",
                            column=turn.column, did_you_mean=[seats[seat]], assumed=f"{seats[seat]}'s")
            checker.mended.add((turn.line, turn.column))  # read as meant: nothing refused (no gap looked for behind it)
        both, could_be = checker.shortening_of(turn.player) if seat is None else ([], "")
        waiting = None if seat is not None or checker.pending(state).over else checker.pending(state).seat
        if both and waiting is not None and seats[waiting] in both:  # `Anna:` where two Annas sit: the one the
            seat = waiting  # rules wait for, named at each line that writes it (no search: the rules say whose turn)
            checker.finding("notation", turn.line, "notation/player",
                            f"line {turn.line}: {could_be}; read as {seats[seat]}'s, who was to play",
                            column=turn.column, did_you_mean=both, assumed=f"{seats[seat]}'s")
            checker.mended.add((turn.line, turn.column))
        if seat is None:
            near = _near_seats(checker, turn.player)
            waiting = None if checker.pending(state).over else checker.pending(state).seat
            misspelt = Refusal("player", None, waiting, near=[s for n in near if (s := checker.seat_of(n)) is not None])
            explanation = explain(checker, state, turns, at, misspelt, budget) if not checker.over_reported else None
            said = explanation.said if explanation is not None else "the line is skipped"
            found = checker.finding("notation", turn.line, "notation/player",
                                    f"line {turn.line}: {could_be}; {said}" if both else
                                    f"line {turn.line}: {turn.player!r} is none of the seats ({', '.join(seats)})"
                                    + (f"; did you mean {' or '.join(near)}?" if near else "")
                                    + ("; a line crossed out with an x? (a line struck through, `~~...~~`, is read as "
                                       "nothing)" if _crossed(checker, turn.player) else "") + f"; {said}",
                                    column=turn.column, did_you_mean=near,
                                    assumed="skipped" if explanation is None or explanation.kind == "twice" else said)
            if explanation is None:
                at += 1
                continue
            found.explanation = explanation.to_json()
            checker.explanations[at] = explanation
            state = read_explained(checker, state, explanation.lines)
            at += explanation.consumed
            continue
        checker.refused = None
        rounds = (turn.ordinal, checker.round_of(state)) if turn.ordinal is not None else None
        checker.ahead = (turns, at)
        after = checker.read_line(state, seat, turn)
        new = checker.findings[marks[1]:]
        refusal = checker.refused
        first = next((f for f in new if (f.kind in ("rule", "notation", "order") and f.rule != "notation/after-the-end")
                      or (refusal is not None and refusal.kind == "step" and f.rule == "chance/unused-outcome")), None)
        if (first is None or refusal is None) and not (hold and checker.unknowns) and any(
                f.kind in _REFUSED and (f.line, f.column) not in checker.mended for f in new):
            # refused for what it met (a count of draws): a turn left out before?
            back = _gap(checker, turns, at, starts, budget, header)
            if back is not None:
                state, at = back
                continue
        if first is None or refusal is None:
            if rounds is not None and rounds[1] is not None and rounds[0] != rounds[1]:
                written_at = turn.ordinal_line or turn.line  # (a heading above the line: `Round 4`)
                checker.findings.insert(marks[1], Finding(
                    "notation", written_at, "notation/round",
                    f"line {written_at}: {words.round_word} {rounds[0]} is written here, but the rules are in "
                    f"{words.round_word} {rounds[1]}: read as {words.round_word} {rounds[1]} (the line itself stands)",
                    round=rounds[1], seat=seat, player=seats[seat], assumed=f"{words.round_word} {rounds[1]}"))
            state = after
            at += 1
            continue
        if hold and checker.unknowns and not (  # (a turn left out: its outcomes too, narrowed at the line after it)
                hold == NAMES_ONLY and refusal.kind == "order" and not named):
            checker.held_back = True
            if checker.held_at is None:
                checker.held_at = turn.line
            state = after
            at += 1
            continue
        named = named or hold == NAMES_ONLY
        before = _search_again(budget, (at, refusal.kind), turn.line, settled)
        explanation = _as_before(budget, (at, refusal.kind), explain(checker, state, turns, at, refusal, budget), before)
        if refusal.kind in ("order", "step"):
            back = _miscounted(checker, turns, at, starts, budget, refusal, explanation)
            if back is not None:
                state, at = back
                continue
        if explanation is None or _as_it_was(explanation, refusal):
            if explanation is not None:  # what the checker did anyway: said so, and kept as it was
                first.explanation = explanation.to_json()
                if isinstance(first.message, str):
                    first.message += alike_words(explanation)
            state = after
            at += 1
            continue
        del checker.checked[marks[0]:], checker.unknowns[marks[2]:], checker.findings[marks[1]:]
        checker.findings.append(first)
        checker.explained(first, explanation, refusal)
        checker.explanations[at] = explanation
        # the line reads cleanly as explained: what the first reading met before the refusal came of the slip too
        state = read_explained(checker, state, explanation.lines)
        at += explanation.consumed
    _after_open_turn(checker, turns, header)
    checker.state = state
    return checker


def _reads_on(explanation: Explanation, at: int, turns: Sequence[Turn]) -> bool:
    """The explanation of the line at `at` reads all the lines it was judged on (or to the end of the file)."""
    return explanation.reads >= min(len(turns) - at, explanation.consumed + LOOKAHEAD)


def _after_open_turn(checker: _Checker, turns: Sequence[Turn], header: int) -> None:
    """A turn left out that the file does not determine (several readings fit as far as they read, none to the end):
    the checker went on with one of them, and a line refused after them that no explanation reads on from (the
    lookahead refused again soon) is more likely that guess's doing than the table's. Such lines are said on the turn
    left out (`doubts` in its explanation), not as findings of their own; a line explained so that the lookahead
    reads after it (lines swapped) stays a finding, and so does a line whose words cannot be read (a word or a name
    misspelt: no reading of the turn before it makes them readable)."""
    opened = next(((k, e) for k, e in sorted(checker.explanations.items()) if e.kind == "left-out"
                   and e.reads < len(turns) - k and (e.fits > 1 or e.reads <= CASCADE_LINES)), None)
    if opened is None:
        return
    start, turn = opened
    line = turns[start].line
    named = next((f for f in checker.findings[header:] if f.line == line and isinstance(f.explanation, dict)
                  and f.explanation.get("kind") == "left-out"), None)
    if named is None:
        return
    stands = {turns[k].line for k, e in checker.explanations.items() if k > start and _reads_on(e, k, turns)}
    reach = turn.reads_to_line or line
    refused = {k for k, found in enumerate(checker.findings)
               if k >= header and (found.kind in _STATE_REFUSED or (found.rule == "notation/move" and (
                   found.line, found.column or 0) not in checker.unreadable)) and found.line > reach
               and found.line not in stands}
    near = sorted({f.line for f in checker.findings[header:] if f.kind in _REFUSED and f.line > reach})
    ours = _its_doing({checker.findings[k].line for k in refused}, near, reach, turn.fits, turn.reads)
    lines = sorted(ours)  # (`_its_doing` gives refused lines only)
    if not lines:
        return
    checker.findings[:] = [found for k, found in enumerate(checker.findings) if k not in refused or found.line not in ours]
    named.explanation = {**named.explanation, "doubts": lines}
    if isinstance(named.message, str):
        shown = ", ".join(map(str, lines[:6])) + (" …" if len(lines) > 6 else "")
        named.message += (f"; {len(lines)} later line(s) the rules refuse as read (line{'s' if len(lines) > 1 else ''} "
                          f"{shown}) may be that turn's doing: not reported apart")


CASCADE_LINES = 2 * LOOKAHEAD  # refusals this close on each other after a turn left out read one way are its doing


def _its_doing(lines: set[int], near: Sequence[int], reach: int, fits: int, reads: int) -> set[int]:
    """Of the lines refused after a turn left out (`lines`, past `reach`, the last line its readings read), those that
    may be the doing of the reading gone on with. A game read on from a turn that was not the one played is refused
    again and again, each refusal close on the one before (`CASCADE_LINES`; `near`: every line refused after `reach`,
    in order, whatever the rules said there):
    - one reading fitted (and read no further than `CASCADE_LINES`): the refusals so chained from `reach` on, up to
      the first far from the one before (that one, and every one after it, the table's own slips);
    - several fitted alike, and read far before they were refused: the refusals with another close by; one alone (the
      readings all stopped at it, and the file read on from it) is the table's slip, not a guess's doing;
    - several fitted, and read little: every one (the file does not say which was played)."""
    if fits <= 1:
        chained: set[int] = set()
        last = reach
        for one in near:
            if one > last + CASCADE_LINES:
                break
            chained.add(one)
            last = one
        return chained & lines
    if reads > CASCADE_LINES:
        return {one for k, one in enumerate(near) if one in lines and (
            (k > 0 and one - near[k - 1] <= CASCADE_LINES) or (k + 1 < len(near) and near[k + 1] - one <= CASCADE_LINES))}
    return set(lines)


_REFUSED = ("rule", "notation", "order", "chance")  # findings of a line the rules refuse (not the result's)
_STATE_REFUSED = ("rule", "order", "chance")  # of those, the ones a wrong guess of what came before can cause (and a
# move's words read but refused for what the game holds: `galley 11 is not under the black token`)
BACK = 3  # lines the rules took before a refused one, each looked at for a turn left out before it


def _gap(checker: _Checker, turns: Sequence[Turn], at: int, starts: Mapping[int, tuple[tuple[int, int, int], Any]],
         budget: Budget, header: int) -> tuple[Any, int] | None:
    """A line refused for what it met (a count of draws), which no explanation at it is searched for, after lines the
    rules took: a turn left out a line or two before may be what was missed (a player's second line of a round, the
    next one read as the first). Each of the `BACK` lines before is tried as the line after the gap; where a turn
    nobody wrote before it reads past the refused one, the reading is taken back to there, the gap named once at that
    line, and read on as explained: (state, next turn). Only while the file has read clean (no finding after the
    `header`'s) and half the search's budget is left."""
    marks = starts[at][0]
    if marks[1] != header or budget.used * 2 > budget.moves:  # a slip already named: what is refused after it is
        return None  # more likely its doing (and the search's budget is better spent on it than on gaps behind it)
    for back in range(1, BACK + 1):
        b = at - back
        if b not in starts or starts[b][0][1] != marks[1] or any(k >= b for k in checker.explanations):
            return None  # (only over lines read clean, with nothing explained)
        seat = checker.seat_of(turns[b].player)
        if seat is None or checker.over_reported:
            return None
        (checked, found, unknowns), state = starts[b]
        gap = explain(checker, state, turns, b, Refusal("gap", seat, None), budget)
        if gap is None or gap.kind != "left-out" or gap.reads <= back + 1:
            continue
        del checker.checked[checked:], checker.findings[found:], checker.unknowns[unknowns:]
        line = turns[b].line
        said = checker.finding("order", line, "notation/left-out", f"line {line}: the rules take this line, but line "
                               f"{turns[at].line} cannot stand after it; {gap.said}", seat=seat,
                               player=checker.seats[seat], assumed=gap.said)
        said.explanation = gap.to_json()
        checker.explanations[b] = gap
        return read_explained(checker, state, gap.lines), b + gap.consumed
    return None


def _miscounted(checker: _Checker, turns: Sequence[Turn], at: int,
                starts: Mapping[int, tuple[tuple[int, int, int], Any]], budget: Budget, refusal: Refusal,
                explanation: Explanation | None) -> tuple[Any, int] | None:
    """A count written short: the rules take the move, and wait for the same player to go on, so what is written
    next is refused: the next player's line out of turn (`starve L124 1` where two went hungry, at the end of a
    line), or the outcomes at the line's end met by no move (`starve L73 2, starve L73 [culture]` where three went
    hungry). The move before the refusal (the line before's last, or the one before it on its line), read clean,
    may be the slip, written with another count or word: its other readings, closest to what was written first,
    are tried as the explanation of its line; where one reads on as far as the explanation found where the refusal
    came, if that one puts in what nobody wrote (a turn, a step: another `starve`), or further otherwise, the slip
    is named at its own line with the rule the count written breaks (the meant move played after the
    written one: `send away 1 citizen from L124, not 2`), and read on as explained: (state, next turn). Hidden
    words are not tried (their other readings would say them)."""
    b = at - 1 if refusal.kind == "order" else at
    if b not in starts or b in checker.explanations or starts[b][0][1] != starts[at][0][1] or checker.over_reported:
        return None
    seat = checker.seat_of(turns[b].player)
    if refusal.kind == "order":
        last = checker.last_before(turns[b].line) if seat == refusal.waiting else None
    else:
        last = checker.last_before(turns[b].line, refusal.place) if refusal.place is not None else None
    if seat is None or last is None:
        return None
    place, text, options, shown, _ = last
    (checked, found, unknowns), start = starts[b]
    tried = explain(checker, start, turns, b, Refusal("before", seat, seat, place, options, shown), budget)
    if tried is None or tried.kind != "reworded" or tried.option is None:
        return None
    far = tried.reads - (at - b)  # the lines it reads from the refused one on
    if far < min(2, len(turns) - at) or (explanation is not None and far < min(explanation.reads, LOOKAHEAD) + (
            explanation.kind not in UNWRITTEN)):  # (as far as what nobody wrote: the table wrote what it played)
        return None
    if explanation is not None and explanation.kind in UNWRITTEN and min(far, explanation.reads) >= min(
            LOOKAHEAD, len(turns) - at):  # both read the lookahead: what follows further tells them apart
        far = judged_further(checker, starts[b][1], turns, b, tried, budget) - (at - b)
        if judged_further(checker, starts[at][1], turns, at, explanation, budget) > far:
            return None  # (a step nobody wrote, read on further: `starve L90, starve L132` where a third was left out)
    meant, said = options[tried.option], shown[tried.option]
    left = starts[at][1] if refusal.kind == "order" else refusal.after  # where what was written left the game
    rule, why = checker.broken(left, meant)
    del checker.checked[checked:], checker.findings[found:], checker.unknowns[unknowns:]
    line = turns[b].line
    then = (f"line {turns[at].line} is {turns[at].player}'s" if refusal.kind == "order" else
            "the outcomes written after it are met by no move")
    found_here = checker.finding("rule" if rule != "notation/out-of-turn" else "order", line, rule,
                                 f"line {line}: `{text}` leaves {checker.waiting_for(left, seat)}, and {then}; read as "
                                 f"`{said}`, with which the lines after it stand", start, seat, written=text,
                                 column=place[1], assumed=said, did_you_mean=[said],
                                 facts={"written": text, "meant": said, **({"rules_after_it": why} if why else {})})
    found_here.explanation = tried.to_json()
    checker.explanations[b] = tried
    return read_explained(checker, start, tried.lines), b + tried.consumed


def _search_again(budget: Budget, key: tuple[int, str], line: int,
                  settled: Mapping[tuple[int, int], Any]) -> Explanation | None:
    """A turn left out was chosen with its outcomes guessed: once the narrowing has settled them (places below
    zero on its line), the search is made again with them (they may tell apart readings the guesses made alike).
    The explanation searched again, if it is."""
    knew = frozenset((k, v) for k, v in settled.items() if k[0] == line and k[1] < 0)
    found = budget.found.get(key)
    budget.knew[key], knew = knew, budget.knew.get(key, knew)
    if budget.knew[key] != knew and found is not None and found.kind == "left-out" and key not in budget.pinned:
        del budget.found[key]
        return found
    return None


def _as_before(budget: Budget, key: tuple[int, str], found: Explanation | None,
               before: Explanation | None) -> Explanation | None:
    """The search made again keeps the turn it chose before where that still fits as well as any (the values settled
    are that turn's: another reading that ties with them is no likelier)."""
    if found is None or before is None or found is before:
        return found
    commands = [c for line in before.lines if line.turn is None for c in line.commands]
    for alike in (found, *found.alike):
        if [c for line in alike.lines if line.turn is None for c in line.commands] == commands:
            budget.found[key] = alike
            return alike
    return found


def alike_words(explanation: Explanation, most: int = 3) -> str:
    """The readings the whole file reads as well with, in words (none: nothing): the table settles it. A turn left
    out that several readings fit has said so in its own words (`explain._undetermined`)."""
    if not explanation.alike or explanation.fits > 1:
        return ""
    named = [c.reading or c.said for c in explanation.alike[:most]]
    more = len(explanation.alike) - len(named)
    others = " or ".join(named) if not more else f"{', '.join(named)} or {more} more"
    return (f"; the whole file reads as well with {others}: nothing written says which "
            f"({len(explanation.alike) + 1} readings fit it)")


def written_apart(written: Any, other: Any) -> tuple[int, int]:
    """How far a value the rules accept is from the one written, as a pen slips: the characters to change
    (a digit changed, two swapped, one more or less), then, for two numbers, how far apart they are (`L104`
    is closer to a written `L105` than `L15`). Values of other shapes are compared as they print."""
    a, b = str(written), str(other)
    if len(a) > 24 or len(b) > 24:  # a long value (a payment's list): differ or not
        return (0 if a == b else 1, 0)
    numbers = isinstance(written, int) and isinstance(other, int) and not isinstance(written, bool) \
        and not isinstance(other, bool)
    if numbers:
        return (_slips(a, b), abs(written - other))
    ends, other_ends = _NUMBERED.fullmatch(a), _NUMBERED.fullmatch(b)  # `Y9` is nearer `Y8` than `Y5`: a card's number
    if ends is not None and other_ends is not None and ends.group(1) == other_ends.group(1):
        return (_slips(a, b), abs(int(ends.group(2)) - int(other_ends.group(2))))
    return (_slips(a, b), 0)


_NUMBERED = re.compile(r"(\D*)(\d{1,6})")


@functools.lru_cache(maxsize=1 << 16)
def _slips(a: str, b: str) -> int:
    """Characters changed, added, left out or two swapped to write `b` for `a` (the optimal string alignment
    distance; words here are a few characters long). Kept: each reading of a file asks again for the same moves."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _near_seats(checker: _Checker, player: str) -> list[str]:
    """The seats' names (or colours) nearest a name that is none of them."""
    names = [*checker.seats, *(c for c in checker.colours if c), *checker.words.colours[: len(checker.seats)]]
    unique = list({n.lower(): n for n in reversed(names)}.values())[::-1]  # a seat's name before a colour alike
    return difflib.get_close_matches(player, unique, n=2, cutoff=0.5)


def _as_it_was(explanation: Explanation, refusal: Refusal) -> bool:
    """The explanation is what the checker does anyway: the closest legal move, or the move left out where
    nothing of its kind could be done (the reading already made stands)."""
    if refusal.kind != "move":
        return False
    if refusal.skippable:
        return explanation.kind == "skipped-move"
    return explanation.kind == "reworded" and explanation.option == 0


def _compare_result(checker: _Checker, claimed: dict[str, int], scores: Mapping[str, Any], finished: bool,
                    notation: Notation, game: Game, state: Any) -> None:
    line = notation.tags["Result"].line
    unsure = sorted((u for u in checker.unknowns if _unsure(u, checker.unknowns) or (u.move < 0 and (u.consistent is None or u.alone))),
                    key=lambda u: (u.line, u.column))
    if not finished and unsure:  # the reading stopped short on values the checker guessed: not a finding
        unsure[0].doubts.append("the Result (the game as read stops before its end)")
        return
    if not finished:
        pending = game.pending(state)
        waiting = checker.seats[pending.seat] if pending.seat is not None else "nobody"
        checker.finding("result", line, "notation/result-unfinished",
                        f"line {line}: a result is claimed, but the log stops before the end, with {waiting} to decide "
                        f"({pending.kind}); the game was cut off")
        return
    totals = {s["seat"]: s for s in scores.get("seats", [])}
    for name, total in claimed.items():
        seat = checker.seat_of(name)
        if seat is None:
            checker.finding("result", line, "notation/result", f"line {line}: the Result names {name!r}, who is none of the seats")
            continue
        computed = totals.get(seat, {})
        if computed.get("total") != total and unsure:  # the count rests on values the checker guessed: not a finding
            unsure[0].doubts.append(f"the Result gives {name} {total}")
            continue
        if computed.get("total") != total:
            breakdown = computed.get("breakdown", {})
            said = _breakdown(checker.words, breakdown, checker.seats) if isinstance(breakdown, Mapping) and breakdown else ""
            checker.finding("result", line, "notation/result",
                            f"line {line}: {checker.seats[seat]} is given {total}, the rules count {computed.get('total')}"
                            + (f": {said}" if said else "")
                            + ("; no possible value of the outcomes nobody wrote down gives that" if checker.unknowns else ""),
                            seat=seat, facts={"claimed": total, "computed": computed.get("total"), "breakdown": breakdown})
    missing = [checker.seats[s] for s in totals if checker.seats[s] not in claimed and not any(
        checker.seat_of(n) == s for n in claimed)]
    if missing:
        checker.finding("result", line, "notation/result", f"line {line}: the Result gives no score for {', '.join(missing)}")


def _breakdown(words: Words, breakdown: Mapping[str, Any], seats: Sequence[str]) -> str:
    """A score's breakdown in the title's words (`Words.breakdown_words`), else each part named plainly."""
    if words.breakdown_words is not None:
        try:
            return words.breakdown_words(breakdown)
        except (KeyError, TypeError, ValueError):
            pass
    return breakdown_default(breakdown, words.terms, seats)


# ---- two transcripts of one game ------------------------------------------------------------------


def _turn_key(turn: Turn, seat_of: Callable[[str], int | None]) -> tuple[Any, ...]:
    return (seat_of(turn.player), tuple((m.verb.lower(), m.words, tuple(w.values for w in m.outcomes)) for m in turn.moves))


def _turn_text(turn: Turn | None) -> str | None:
    if turn is None:
        return None
    return f"{turn.player}: " + ", ".join(m.text for m in turn.moves)


def reconcile(
    first: str,
    second: str,
    game_for: Callable[[str], tuple[Game, Words]],
    edition_for: Callable[[Game, str | None], Edition],
    budget: int = NARROWING_BUDGET,
    titles: Sequence[str] = (),
) -> dict[str, Any]:
    """Two transcripts of one game: aligned turn by turn, every disagreement, the first divergence,
    and which version the rules accept there."""
    a, b = parse(first), parse(second)
    report_a = check(first, game_for, edition_for, budget, titles)
    report_b = check(second, game_for, edition_for, budget, titles)
    seats_a = [fold_name(n) for n, _ in read_seats(a.tag("Seats") or "")]
    colours_a = [fold_name(c or "") for _, c in read_seats(a.tag("Seats") or "")]
    seats_b = [fold_name(n) for n, _ in read_seats(b.tag("Seats") or "")]
    colours_b = [fold_name(c or "") for _, c in read_seats(b.tag("Seats") or "")]

    def seat_in(names: list[str], colours: list[str]) -> Callable[[str], int | None]:
        def find(player: str) -> int | None:
            p = fold_name(player)
            return names.index(p) if p in names else colours.index(p) if p and p in colours else find_seat(player, names)
        return find

    keys_a = [_turn_key(t, seat_in(seats_a, colours_a)) for t in a.turns]
    keys_b = [_turn_key(t, seat_in(seats_b, colours_b)) for t in b.turns]
    matcher = difflib.SequenceMatcher(a=keys_a, b=keys_b, autojunk=False)
    disagreements: list[dict[str, Any]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            ta = a.turns[i1 + k] if i1 + k < i2 else None
            tb = b.turns[j1 + k] if j1 + k < j2 else None
            disagreements.append({
                "turn": (i1 + k + 1) if ta is not None else (j1 + k + 1),
                "first": {"line": ta.line, "text": _turn_text(ta)} if ta else None,
                "second": {"line": tb.line, "text": _turn_text(tb)} if tb else None,
                "what": _what_differs(ta, tb),
            })
    header = [{"tag": name, "first": a.tag(name), "second": b.tag(name)}
              for name in sorted(set(a.tags) | set(b.tags)) if a.tag(name) != b.tag(name) and name not in ("Transcriber", "Annotator")]
    first_divergence = disagreements[0] if disagreements else None
    verdict = None
    if first_divergence is not None:
        verdict = _which_is_legal(first_divergence, report_a, report_b)
    return {
        "agree": not disagreements and not header,
        "turns": {"first": len(a.turns), "second": len(b.turns)},
        "header": header,
        "disagreements": disagreements,
        "first_divergence": first_divergence,
        "rules_accept": verdict,
        "first": {"findings": len(report_a.findings), "summary": summary(report_a)},
        "second": {"findings": len(report_b.findings), "summary": summary(report_b)},
        "reports": {"first": report_a.to_json(), "second": report_b.to_json()},
    }


def _what_differs(ta: Turn | None, tb: Turn | None) -> str:
    if ta is None:
        return "only the second transcript has this turn"
    if tb is None:
        return "only the first transcript has this turn"
    if fold_name(ta.player) != fold_name(tb.player):
        return f"the player: {ta.player} in the first, {tb.player} in the second"
    for k in range(max(len(ta.moves), len(tb.moves))):
        ma = ta.moves[k] if k < len(ta.moves) else None
        mb = tb.moves[k] if k < len(tb.moves) else None
        if ma is None or mb is None:
            return f"move {k + 1}: {'only the second has ' + mb.text if mb else 'only the first has ' + (ma.text if ma else '')}"
        if (ma.verb.lower(), ma.words) != (mb.verb.lower(), mb.words):
            return f"move {k + 1}: {ma.text!r} in the first, {mb.text!r} in the second"
        for o, (wa, wb) in enumerate(itertools.zip_longest(ma.outcomes, mb.outcomes)):
            if (wa.values if wa else None) != (wb.values if wb else None):
                va = write_outcome(wa.values) if wa and wa.values is not None else "[?]"
                vb = write_outcome(wb.values) if wb and wb.values is not None else "[?]"
                return f"move {k + 1} ({ma.verb}), outcome {o + 1}: {va} in the first, {vb} in the second"
    return "the comments"


def _which_is_legal(divergence: dict[str, Any], a: DisputeReport, b: DisputeReport) -> dict[str, Any]:
    """At the first divergence: does each version's line stand with the rules?"""
    def standing(report: DisputeReport, side: str) -> dict[str, Any]:
        place = divergence[side]
        if place is None:
            return {"accepted": None, "why": "this transcript has no such turn"}
        at = [f for f in report.findings if f.line == place["line"]]
        if not at:
            return {"accepted": True, "line": place["line"]}
        first = at[0]
        message = first.message["$secret"]["value"] if isinstance(first.message, dict) else first.message
        return {"accepted": False, "line": place["line"], "rule": first.rule, "why": message}

    found_a, found_b = standing(a, "first"), standing(b, "second")
    if found_a["accepted"] and not found_b["accepted"]:
        said = "the rules accept the first transcript's version, not the second's"
    elif found_b["accepted"] and not found_a["accepted"]:
        said = "the rules accept the second transcript's version, not the first's"
    elif found_a["accepted"] and found_b["accepted"]:
        said = "the rules accept both versions: the table must say which happened"
    else:
        said = "the rules accept neither version"
    return {"first": found_a, "second": found_b, "verdict": said}
