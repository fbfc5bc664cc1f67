"""An unknown outcome the claimed result asks for, found by a local search where every value cannot be tried.

A deal of hidden cards written `[?]` has as many values as orderings of the cards (120 for five seats), and each
is judged only by reading the whole game to its end; beyond the narrowing's budget the exhaustive search
(kernel.narrowing) leaves it undetermined. The written Result still says much: each seat's total mostly follows
from its own cards. So the search climbs: from the value the checker read with, it tries neighbours (two items
swapped; one item replaced by one the pool still held; one die turned to another face), each read to the end,
and moves to the first that reads further, takes fewer items a later line writes drawn (a display guessed with the
card a later line draws: the guess, not the line, is wrong; such an item is given up first), or brings the
computed totals nearer the claimed ones (fewer seats off, then fewer points off), in the order of
`kernel.narrowing.rank`. A first value the lines after it refuse climbs too, toward one that reads to the end. At a
value no neighbour improves, it starts again from a value drawn by a seeded generator, while the budget (moves
read) and a time cap last; a game with no Result written at its end is not searched.

A value that gives the whole Result is *found*, not proven the only one: the answer says so (`Answer.searched`),
and every value met on the way that also gives it is kept. When none is found the unknown stays undetermined and
`why` says how many values were read: a Result is then never accused on a guessed value. Pure: the reading is
the checker's (kernel.narrowing.Reader); nothing here knows a title.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from domain.kernel.narrowing import UNKNOWN, Answer, Asked, Deadline, Key, Reader, Values
from domain.kernel.narrowing import narrow as narrow_together

SECONDS = 3.6  # the time cap of one file's search for the claimed result (process time; a guard: kernel.explain)
NARROWING_SECONDS = 4.8  # the time cap of one whole narrowing: joint, one at a time, then for the result (process time; a guard)
PLATEAU = 256  # values judged in a row without a better one before the climb stops (a slip of the file's own that
# no value reads past: the check's budget is kept for the readings after it, which read the slip as explained)
NOWHERE = 10**6  # seats off when the reading did not reach a claimed result
Score = tuple[int, int, int, int]  # (depth read, -written items found not there, -seats off the claimed totals,
# -points off them): higher is nearer, in the order of kernel.narrowing.rank


def neighbours(asked: Asked, value: Values, took: Sequence[str] = ()) -> Iterator[Values]:
    """The values one step from `value`: two items swapped, then one replaced by another the pool held (a draw);
    one die turned to another face (a roll). Items written on the line stay (a partial draw keeps them). `took`:
    items a later line wrote drawn and found not there; a draw holding one first gives it up (the guess took it)."""
    if asked.kind == "roll":
        _, faces = asked.pool
        fixed = list(asked.partial or ())
        for i, face in enumerate(value):
            if i < len(fixed) and fixed[i] != UNKNOWN:
                continue
            for other in range(1, faces + 1):
                if other != face:
                    yield (*value[:i], other, *value[i + 1:])
        return
    if asked.kind != "draw":
        return
    texts = [str(v) for v in value]
    known = Counter(str(v) for v in (asked.partial or ()) if v != UNKNOWN)
    dealt = Counter(texts)
    left = Counter(str(c) for c in asked.pool) - dealt
    by_text = {str(c): c for c in asked.pool}
    for i, item in enumerate(texts):
        if item in took and dealt[item] > known[item]:
            for instead in sorted(left):
                if instead not in took:
                    yield (*value[:i], by_text[instead], *value[i + 1:])
    for i in range(len(value)):
        for j in range(i + 1, len(value)):
            if texts[i] != texts[j]:
                swapped = list(value)
                swapped[i], swapped[j] = swapped[j], swapped[i]
                yield tuple(swapped)
    for i, item in enumerate(texts):
        if dealt[item] - 1 < known[item]:
            continue  # written on the line: it stays
        for instead in sorted(left):
            yield (*value[:i], by_text[instead], *value[i + 1:])


def _random_value(asked: Asked, value: Values, rng: random.Random) -> Values:
    """Another value of the same kind, drawn by `rng`: the written items kept, the rest drawn from the pool."""
    if asked.kind == "roll":
        _, faces = asked.pool
        fixed = list(asked.partial or ())
        return tuple(fixed[i] if i < len(fixed) and fixed[i] != UNKNOWN else rng.randint(1, faces)
                     for i in range(len(value)))
    known = Counter(str(v) for v in (asked.partial or ()) if v != UNKNOWN)
    by_text = {str(c): c for c in asked.pool}
    rest = list((Counter(str(c) for c in asked.pool) - known).elements())
    rng.shuffle(rest)
    items = [*known.elements(), *rest[: len(value) - sum(known.values())]]
    rng.shuffle(items)
    return tuple(by_text[t] for t in items)


def narrow(reader: Reader, start: Any, stops: Sequence[tuple[int, Sequence[Key]]], budget: int, limit: int,
           main: dict[Key, Asked], seconds: float = NARROWING_SECONDS, why: str | None = None,
           stop: Callable[[], bool] | None = None) -> Answer:
    """The unknowns narrowed together (kernel.narrowing) within three quarters of the budget; what that left
    undetermined then searched for the claimed result with the rest (and at least a quarter). The whole of it
    within `seconds` of process time: the search for the result has what the others left of them; and until `stop`
    says a cap it shares is reached (`why`: that cap in words)."""
    deadline = Deadline(seconds, why, stop)
    answer = narrow_together(reader, start, stops, budget * 3 // 4, limit, main, named=budget, deadline=deadline)
    if any(v is None for v in answer.consistent.values()) and not deadline.over():
        left = max(deadline.ends - time.process_time(), 0.0)
        answer.spent += toward_result(reader, start, stops, answer, main, max(budget - answer.spent, budget // 4),
                                      min(SECONDS, left), stop)
    return answer


def toward_result(reader: Reader, start: Any, stops: Sequence[tuple[int, Sequence[Key]]], answer: Answer,
                  main: dict[Key, Asked], budget: int, seconds: float = SECONDS,
                  until: Callable[[], bool] | None = None) -> int:
    """Each undetermined draw or roll searched for a value that gives the claimed result, the others at their
    best values; `answer` says what was found (`until`: a cap it shares says stop). Returns the moves read."""
    climb = _Climb(reader, budget, seconds, until)
    for stop, keys in stops:
        for key in keys:
            asked = main.get(key)
            if answer.consistent.get(key) is not None or asked is None or asked.kind not in ("draw", "roll"):
                continue
            state = start if stop < 0 else reader.before(stop)
            if (stop >= 0 and state is None) or not climb.left():
                continue
            climb.search(state, stop, key, asked, answer)
    return climb.spent


class _Climb:
    """The search's budget (moves read, process time), and one unknown's climb at a time."""

    def __init__(self, reader: Reader, budget: int, seconds: float, stop: Callable[[], bool] | None = None) -> None:
        self.reader, self.budget, self.seconds, self.stop = reader, budget, seconds, stop
        self.spent = 0
        self.started = time.process_time()
        self.took: dict[Values, tuple[str, ...]] = {}  # each value judged -> the written items its reading found not there
        self.ended = False  # a value read to the end of the game without a claimed result there to steer by

    def left(self) -> bool:
        return self.spent <= self.budget and time.process_time() - self.started < self.seconds and not (
            self.stop is not None and self.stop())

    def judge(self, state: Any, stop: int, settled: dict[Key, Values], value: Values) -> Score:
        """One value read to the end: how far, what it took, and how near the claimed totals."""
        first = self.reader.play(state, stop, settled)
        self.spent += first.cost
        if not first.ok:
            self.took[value] = first.took
            return (first.depth, -first.taken, -NOWHERE, 0)
        went = self.reader.advance(first.state, stop, None, settled)
        self.spent += went.cost
        self.took[value] = (*first.took, *went.took)
        self.ended = self.ended or (went.ok and went.miss is None)
        miss = went.miss if went.miss is not None else (NOWHERE, 0)
        return (went.depth, -first.taken - went.taken, -miss[0], -miss[1])

    def search(self, state: Any, stop: int, key: Key, asked: Asked, answer: Answer) -> None:
        others = {k: v for k, v in answer.best.items() if k != key}
        judged: dict[Values, Score] = {}

        def judge(value: Values) -> Score:
            if value not in judged:
                judged[value] = self.judge(state, stop, {**others, key: value}, value)
            return judged[value]

        first = answer.best.get(key) or asked.assumed
        best, score = first, judge(first)
        if self.ended:
            return  # no claimed result at the end of the game to steer by (a value read short climbs to read further)
        rng = random.Random(f"{key[0]}:{key[1]}")
        here, mine = best, score
        bettered = 1  # values judged when the best last improved: a long plateau is a slip every value stops at

        def room() -> bool:
            return self.left() and len(judged) - bettered <= PLATEAU

        while (mine[1] < 0 or mine[2] < 0) and not self.ended and room():  # an item a guess took, or no Result yet
            for other in neighbours(asked, here, self.took.get(here, ())):
                if not room():
                    break
                theirs = judge(other)
                if theirs > mine:
                    here, mine = other, theirs
                    break
            else:  # no neighbour is nearer: start again elsewhere
                here = _random_value(asked, here, rng)
                mine = judge(here)
            if mine > score:
                best, score, bettered = here, mine, len(judged)
        found = [v for v, s in judged.items() if s == score and s[2] == 0]
        answer.tried[key] = max(answer.tried.get(key, 0), len(judged))
        if found:
            answer.consistent[key] = found
            answer.best[key] = found[0]
            answer.why.pop(key, None)
            answer.alone.pop(key, None)
            answer.searched[key] = (f"found by a search of {len(judged)} value(s) for the claimed result, "
                                    "from the one first read; not proven the only one")
            return
        if score > judged[first]:
            answer.best[key] = best  # the nearest the search came: the reading goes on with it, as a guess
        answer.why[key] = (f"{answer.why.get(key, 'undetermined')}; a search of {len(judged)} value(s) "
                           "for the claimed result found none that gives it")
