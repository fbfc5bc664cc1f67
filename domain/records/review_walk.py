"""The analysis of a finished record, as a walk over its log (issue 33): pure, no store, no clock but the budget's.

At each decision the deciding seat's reviewer (domain/kernel/review.py) says what every seat may expect before
and after the choice, from that seat's view then (the record is finished and its secrets public, but a decision
is judged from what its seat saw). Where the step met chance, the same command is decided again with a few
seeded chances: the average of what those outcomes would have left is what the choice itself was worth, and the
outcome that happened against that average is luck. So for every seat and every step,
after - before = (choice: the chooser's own swing) + (luck: what chance did to each seat).

What is kept of each judged entry is a `row` (plain JSON, so a job can store the rows it has and a job started
again goes on from the last): `assemble` makes the analysis from the rows and the suggestions at the top swings.
Standing is measured in win chance (ties shared); a seat with no chance left still moves in expected rank,
which breaks ties between swings.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from domain.kernel import Edition, Game, SeededChance, play
from domain.kernel.chance import Chance
from domain.kernel.choices import Chooser
from domain.kernel.contract import fold
from domain.kernel.describe import say
from domain.kernel.review import Budget, Estimate, Reviewer, calibrated, shrink_at, suggest_budget
from domain.kernel.violations import ALL
from domain.records.story import tell

Row = dict[str, Any]
Progress = Callable[[float, list[Row]], None]  # (0-1, the rows judged since the last call)


@dataclass(frozen=True)
class AnalysisBudget:
    """How hard one analysis thinks: the one default every caller shares (`ANALYSIS_BUDGET`).

    `playouts` per estimate; `seconds` for the whole analysis, shared out between its estimates (None: no clock,
    every estimate takes its playouts: tests, reproducible runs); `chances` other outcomes drawn at each step that
    met chance; `suggestions` turning points given the reviewer's own choice (the costly question: asked only
    where the swing was largest); `suggest_share` of `seconds` kept for those."""

    playouts: int = 12
    seconds: float | None = 40.0
    chances: int = 3
    suggestions: int = 6
    suggest_share: float = 0.25

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | None) -> AnalysisBudget:
        known = {k: v for k, v in (raw or {}).items() if k in cls.__dataclass_fields__}
        return cls(**known)


ANALYSIS_BUDGET = AnalysisBudget()
SAID_CHANCES = 4  # a move is told in the move list's words as far as this many different chances agree on its events
NOISE = 1.5  # standard errors a swing must pass to be a turning point (one game played out each side: none can)
ASKED = 3  # suggestions asked at most, per turning point wanted (the reviewer agreeing with the rest)
DRAWN = 8  # outcome values kept a draw (what a page finds its words by); a setup deals dozens


@dataclass(frozen=True)
class Decision:
    """One log entry to judge: the steps around it, who chose, how many choices it had, whether it met chance."""

    entry: int
    seat: int | None  # None: the setup
    before: int  # the step it was decided at
    after: int  # the step after its events
    choices: int
    chance: bool


def plan(game: Game, entries: Sequence[Mapping[str, Any]], starts: Sequence[int], state_at: Callable[[int], Any]
         ) -> list[Decision]:
    """The entries worth an estimate: every choice of two or more commands, every step that met chance (the
    setup's deals among them); a forced step that drew nothing moves nobody."""
    found: list[Decision] = []
    for k, entry in enumerate(entries):
        before, after = starts[k], starts[k] + len(entry["events"])
        met_chance = bool(entry.get("outcomes"))
        if k == 0 or "command" not in entry:
            if met_chance:
                found.append(Decision(k, None, before, after, 1, True))
            continue
        state = state_at(before)
        choices = len(game.legal(state))
        if choices > 1 or met_chance:
            found.append(Decision(k, game.pending(state).seat, before, after, choices, met_chance))
    return found


def estimates_planned(decisions: Sequence[Decision], chances: int) -> int:
    """How many estimates the walk asks for (a step's estimate from one seat's view is asked once)."""
    keys: set[tuple[int, int | None]] = set()
    count = 0
    for d in decisions:
        if d.seat is not None:
            keys.add((d.before, d.seat))
        keys.add((d.after, d.seat))
        count += chances if d.chance else 0
    return count + len(keys)


def _mean(estimates: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in ("win", "rank", "score"):
        seats = estimates[0][part].keys()
        out[part] = {s: round(sum(e[part][s] for e in estimates) / len(estimates), 4) for s in seats}
    out["playouts"] = sum(int(e["playouts"]) for e in estimates)
    return out


class Walk:
    """The walk over one record's log with one reviewer budget; `rows` judges the entries, `suggest` the top swings."""

    def __init__(self, game: Game, edition: Edition, entries: Sequence[Mapping[str, Any]], starts: Sequence[int],
                 state_at: Callable[[int], Any], make_reviewer: Callable[[Budget], Reviewer],
                 budget: AnalysisBudget = ANALYSIS_BUDGET, think: str = "analysis") -> None:
        self.game, self.edition, self.entries, self.starts, self.state_at = game, edition, entries, starts, state_at
        self.make_reviewer = make_reviewer
        self.budget = budget
        self.think = think
        self.decisions = plan(game, entries, starts, state_at)
        self._left = estimates_planned(self.decisions, budget.chances)  # estimates still to ask (the clock's share)
        self._deadline: float | None = None  # when the walk's share of the clock is spent (set as `rows` starts)
        self._known: dict[tuple[int, int | None], dict[str, Any]] = {}
        self._steps = max(1, starts[-1] + len(entries[-1]["events"])) if entries else 1  # the finished game's last step

    def _reviewer(self) -> Reviewer:
        """A reviewer for the next estimate: its playouts, cut at an even share of the walk's time left (so time
        lost anywhere, a slow playout, a busy machine, is made up by the estimates after it)."""
        seconds = None
        if self._deadline is not None:
            seconds = max(0.0, self._deadline - time.monotonic()) / max(1, self._left)
        self._left -= 1
        return self.make_reviewer(Budget(playouts=self.budget.playouts, seconds=seconds))

    def _estimate(self, step: int, seat: int | None, state: Any = None) -> dict[str, Any]:
        """Each seat's prospects at a step of the record from `seat`'s view, asked once per (step, seat)."""
        key = (step, seat)
        if key not in self._known:
            found: Estimate = self._reviewer().estimate(self.game, self.state_at(step) if state is None else state, seat,
                                                     f"{self.think}/{step}/{seat}")
            self._known[key] = self._shown(found, step)
        return self._known[key]

    def _shown(self, found: Estimate, step: int) -> dict[str, Any]:
        """An estimate as stored and shown: its win chances corrected by how far into the game the step is (the
        title's calibration, kernel.review.calibrated), so the chart, the swings and the luck speak one measure."""
        return calibrated(self.game, found, step / self._steps).to_json()

    def _redecided(self, d: Decision, chance: Chance) -> Any:
        """The state the entry would have left had chance answered otherwise (None: the rules refuse it so)."""
        entry = self.entries[d.entry]
        try:
            if d.seat is None:  # the setup, dealt again
                events = self.game.setup(self.edition, entry.get("setup") or {}, chance)
                return fold(self.game, self.state_at(d.before), events)
            command = self.game.parse_command(entry["command"])
            return play(self.game, self.state_at(d.before), command, chance)[1]
        except Exception:  # noqa: BLE001  (an outcome the rules cannot take there: that one is left out of the average)
            return None

    def judge(self, d: Decision) -> Row:
        """One entry: the estimates before it, after it, and (chance) the average over outcomes that could have been."""
        before = self._estimate(d.before, d.seat) if d.seat is not None else None
        after = self._estimate(d.after, d.seat)
        chosen = None
        if d.chance and self.budget.chances > 0:
            others = []
            for j in range(self.budget.chances):
                state = self._redecided(d, SeededChance(f"{self.think}/luck/{d.entry}/{j}"))
                if state is not None:  # played out with the same thinking as the outcome that happened (common
                    # random numbers): their difference is the outcome's, not the playouts' noise
                    others.append(self._shown(self._reviewer().estimate(self.game, state, d.seat,
                                                                      f"{self.think}/{d.after}/{d.seat}"), d.after))
            chosen = _mean(others) if others else None
        drawn = [str(v) for o in self.entries[d.entry].get("outcomes") or [] for v in o.get("values") or []][:DRAWN]
        return {"entry": d.entry, "seat": d.seat, "before_step": d.before, "after_step": d.after, "choices": d.choices,
                "chance": d.chance, "before": before, "chosen": chosen, "after": after, "drawn": drawn}

    def rows(self, done: Sequence[Row] = (), progress: Progress | None = None, every: float = 2.0) -> list[Row]:
        """Every planned entry judged, going on after `done` (rows a job stored before it stopped); `progress(p,
        new rows)` is told at most every `every` seconds and once at the end of the walk (p up to 1 - suggest_share)."""
        rows = list(done)
        judged = {int(r["entry"]) for r in rows}
        for r in rows:  # what the last stored row saw is not asked again
            self._known[(int(r["after_step"]), r["seat"])] = r["after"]
        todo = [d for d in self.decisions if d.entry not in judged]
        self._left = estimates_planned(todo, self.budget.chances)
        if self.budget.seconds is not None:  # a job started again gets the walk's whole share for what is left
            self._deadline = time.monotonic() + self.budget.seconds * (1 - self.budget.suggest_share)
        share = 1 - self.budget.suggest_share
        fresh: list[Row] = []
        said = time.monotonic()
        for d in todo:
            row = self.judge(d)
            rows.append(row)
            fresh.append(row)
            if progress is not None and time.monotonic() - said >= every:
                progress(share * len(rows) / max(1, len(self.decisions)), fresh)
                fresh, said = [], time.monotonic()
        if progress is not None:
            progress(share, fresh)
        return rows

    def noise(self, row: Row) -> float:
        """How large a swing the playouts alone may make: NOISE standard errors of the difference of the two win
        chances it is measured between, each judged on its own playouts (at most a coin's 0.5 / sqrt(n)), shrunk
        as the chances shown are (the title's calibration). A swing no larger is no turning point: with a game
        played out once, every chance is 0 or 1 and every choice "swings" the whole way."""
        worth = row["chosen"] or row["after"]
        games = [max(1, int(e.get("playouts") or self.budget.playouts)) for e in (row["before"], worth)]
        return NOISE * shrink_at(self.game, int(row["before_step"]) / self._steps) * 0.5 * math.sqrt(sum(1 / n for n in games))

    def said(self, state: Any, command: Mapping[str, Any], names: Sequence[str], words: str) -> str | None:
        """A move as the move list tells it ("Bruno names green: every green cube in the bag is drawn"), where its
        notation `words` alone ("green") leave a player asking what was chosen: of the sentences its events tell
        before chance speaks (the events it leaves the same whatever is drawn, so a move never played is never
        told with a draw of our own making), the one that names most of its words, the first on a tie ("Zoë
        builds a farm house on L135 for the city at L132" for "farm on L135 city L132", not the action card played
        before it). None: nothing of it is told before chance speaks."""
        try:
            parsed = self.game.parse_command(command)
            runs = [play(self.game, state, parsed, SeededChance(f"{self.think}/said/{j}"))[0] for j in range(SAID_CHANCES)]
        except Exception:  # noqa: BLE001  (a move the rules refuse here has no words of its own: its notation stands)
            return None
        told: list[str] = []
        before = state
        for k, event in enumerate(runs[0]):
            if any(len(run) <= k or run[k] != event for run in runs[1:]):
                break
            text = say(tell(self.game, event, before, names), ALL)
            if text:
                told.append(text.strip().rstrip("."))
            before = self.game.evolve(before, event)
        tokens = [t for t in words.casefold().split() if len(t) > 1 or t.isdigit()]
        return max(told, key=lambda text: sum(t in text.casefold() for t in tokens), default=None)

    def suggest(self, rows: Sequence[Row], names: Sequence[str], chooser: Chooser,
                progress: Callable[[float], Any] | None = None) -> list[dict[str, Any]]:
        """The turning points: the `suggestions` decisions whose own swing was largest (and larger than the
        playouts' `noise`), each with the reviewer's
        choice there, both in the title's words, and the what-if line that plays it. A decision where the reviewer
        would have played the move played is no turning point (its swing was not the choice's: the estimates'
        noise, or news the choice brought), so it is left out and the next largest swing is asked, up to
        `ASKED` times `suggestions` questions. With a clock, once the suggestions' share of it is spent, the
        rest are listed without a suggestion. The reviewer thinks with the title's own suggest budget
        (`bot_suggest`), the one benchmarks/planner.py measures against the greedy bot."""
        wanted = self.budget.suggestions
        ranked = sorted((r for r in rows if r["before"] is not None and r["choices"] > 1
                         and abs(swing(r)[0]) > self.noise(r)),
                        key=lambda r: (-abs(swing(r)[0]), -abs(swing(r)[1]), r["entry"]))[:wanted * ASKED]
        started = time.monotonic()
        allowed = None if self.budget.seconds is None else self.budget.seconds * self.budget.suggest_share
        points: list[dict[str, Any]] = []
        told = 0.0
        for n, row in enumerate(ranked):  # largest swing first
            if len(points) >= wanted:
                break
            state = self.state_at(int(row["before_step"]))
            seat = int(row["seat"])
            played = dict(self.entries[int(row["entry"])]["command"])
            win, rank = swing(row)
            point: dict[str, Any] = {
                "step": row["before_step"], "seat": seat, "player": names[seat] if 0 <= seat < len(names) else None,
                "swing": round(win, 4), "rank_swing": round(rank, 3), "played": chooser(state, [played], names)[0].words,
                "played_said": self.said(state, played, names, chooser(state, [played], names)[0].words), "suggested": None, "suggested_said": None, "same": False, "expected_before": _standing(row["before"], seat),
                "expected_played": _standing(row["chosen"] or row["after"], seat),
                "expected_suggested": None, "what_if": None}
            if allowed is None or time.monotonic() - started < allowed:
                # an even share of the suggestions' clock; the planner plays its candidates out round by round on
                # the same deals and stops between rounds, so a cut suggestion compares them on fewer deals
                seconds = None if allowed is None else allowed / max(1, wanted)
                suggester = self.make_reviewer(replace(suggest_budget(self.game), seconds=seconds))
                command, estimate = suggester.suggest(self.game, state, f"{self.think}/suggest/{row['entry']}")
                if self.game.parse_command(played) != command:
                    suggested = command.to_json()
                    point.update({
                        "suggested": chooser(state, [suggested], names)[0].words,
                        "suggested_said": self.said(state, suggested, names, chooser(state, [suggested], names)[0].words),
                        "expected_suggested": _standing(self._shown(estimate, int(row["before_step"])), seat),
                        "what_if": {"from_step": row["before_step"], "parent": None, "command": suggested}})
                    points.append(point)
            else:
                points.append(point)
            if progress is not None:  # up to 1 as the points wanted are found, or the questions allowed are asked
                told = max(told, len(points) / max(1, wanted), (n + 1) / max(1, len(ranked)))
                progress(1 - self.budget.suggest_share * (1 - min(1.0, told)))
        return points  # listed largest swing first


def _standing(estimate: Mapping[str, Any], seat: int) -> dict[str, float]:
    key = str(seat)
    return {"win": estimate["win"][key], "rank": estimate["rank"][key], "score": estimate["score"][key]}


def swing(row: Mapping[str, Any]) -> tuple[float, float]:
    """What the chooser's own choice did to its standing: (win chance, expected rank; negative is better for
    rank) from before the choice to what the choice was worth (the average over the outcomes it could meet)."""
    if row["before"] is None:
        return 0.0, 0.0
    seat = str(row["seat"])
    worth = row["chosen"] or row["after"]
    return worth["win"][seat] - row["before"]["win"][seat], worth["rank"][seat] - row["before"]["rank"][seat]


def luck(rows: Sequence[Row], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per seat: what chance did to its win chance (and expected score) over the game, each outcome against the
    average over the outcomes that could have happened, with its luckiest and unluckiest draws. Each draw says the
    steps of its entry (`from_step` to `step`), so a page can tell what was drawn from the move list's lines."""
    out = []
    for seat, name in enumerate(names):
        key = str(seat)
        draws = []
        for r in rows:
            if r["chosen"] is None:
                continue
            draws.append({"step": r["after_step"], "from_step": r["before_step"], "by": r["seat"],
                          "drawn": r.get("drawn", []),
                          "win": round(r["after"]["win"][key] - r["chosen"]["win"][key], 4),
                          "score": round(r["after"]["score"][key] - r["chosen"]["score"][key], 2)})
        best = max(draws, key=lambda d: (d["win"], d["score"]), default=None)
        worst = min(draws, key=lambda d: (d["win"], d["score"]), default=None)
        out.append({"seat": seat, "player": name, "draws": len(draws),
                    "win": round(sum(d["win"] for d in draws), 4), "score": round(sum(d["score"] for d in draws), 2),
                    "luckiest": best, "unluckiest": worst,
                    "each": draws})  # every draw, so a spoiler-free page adds up only those before its step
    return out


def expected(rows: Sequence[Row], names: Sequence[str]) -> list[dict[str, Any]]:
    """Per seat, its expected final standing after every judged entry (from the view of that entry's chooser)."""
    points: dict[int, dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: r["after_step"]):
        points[int(r["after_step"])] = r["after"]
    return [{"seat": seat, "player": name,
             "series": [{"step": step, "win": e["win"][str(seat)], "rank": e["rank"][str(seat)],
                         "score": e["score"][str(seat)]} for step, e in points.items()]}
            for seat, name in enumerate(names)]


def playouts(rows: Sequence[Row]) -> dict[str, int]:
    """How many games the reviewer actually played out for each estimate on the chart (the median, the fewest, the
    most): under a clock far fewer than the budget's `playouts` may fit, and how far a figure can be trusted
    follows from these, not from the budget."""
    counts = sorted(int(r[k]["playouts"]) for r in rows for k in ("before", "after")
                    if r.get(k) is not None and "playouts" in r[k])
    if not counts:
        return {"median": 0, "fewest": 0, "most": 0}
    return {"median": counts[len(counts) // 2], "fewest": counts[0], "most": counts[-1]}


def assemble(rows: Sequence[Row], points: list[dict[str, Any]], names: Sequence[str], budget: AnalysisBudget
             ) -> dict[str, Any]:
    """The analysis as stored and served: expected standings, turning points, luck."""
    return {"decisions": sum(1 for r in rows if r["choices"] > 1), "chance_steps": sum(1 for r in rows if r["chance"]),
            "budget": budget.to_json(), "playouts": playouts(rows), "expected": expected(rows, names),
            "turning_points": points, "luck": luck(rows, names)}
