"""Unknown outcomes narrowed together: a search over what nobody wrote down, judged by what follows.

Several `?` are often decided together (a battle's rounds, a card drawn then played, hidden cards
that make the written result right), so they are searched jointly, stop by stop along the file:
at each move with unknown outcomes, every possible value (or combination of values) is played
through that move alone, and the states it leads to are merged when equal; only distinct states
read on to the next such move. What the rules do next depends on the state alone, so two values
that leave the same state cannot be told apart by anything later, and are never read twice: a
roll of three dice is 216 values but four states (how many skulls), and an unknown later in the
file is searched once per distinct state, not once per combination of the values before it.

A path that the rules refuse is a leaf at the move where it stopped; the values on the paths that
read furthest (to the end, and then those that also give the claimed result) are the consistent
ones. Each unknown's possibilities are the values on those paths (a marginal of the joint answer);
`best` is one whole path, a set of values that stand together, which the checker then reads with.

The search is bounded: moves read in all (`budget`), values of one unknown (`limit`), distinct
states carried at once (`WIDTH`). Beyond a bound the unknowns of the group it touched are
undetermined, and `why` says which bound and how many combinations it met. Pure: the checker
lends the reading (`Reader`), and nothing here knows a title.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

UNKNOWN = "?"
WIDTH = 32  # distinct states carried from one move with unknowns to the next
PRODUCT = 2_048  # combinations of several unknowns of one move played as they are; beyond, by classes
PASSES = 5  # passes of the one-at-a-time search, each with the others as the pass before chose them
DICE = 216  # the same for rolls alone: dice are independent, so their classes are exact (a battle's rounds)

Key = tuple[int, int]  # (line, column) of a written outcome
Values = tuple[Any, ...]


@dataclass
class Asked:
    """An unknown outcome as the rules asked for it on one reading: its kind, what it came from, the guess."""

    kind: str
    pool: tuple[Any, ...]
    assumed: Values
    partial: Values | None


@dataclass
class Step:
    """What reading one stretch of the file gave: where it stopped, the state there, what it asked, what it cost."""

    ok: bool
    depth: int  # how far the reading got: moves of the file read without a refusal (+1: the result agrees)
    state: Any
    asked: dict[Key, Asked]
    cost: int
    miss: tuple[int, int] | None = None  # at the end: seats whose total is not the claimed one, and by how much in all
    taken: int = 0  # written items the reading found not there (a guess before may have taken them), read past
    took: tuple[str, ...] = ()  # those items, as written (a guess that holds one is the first to change)


class Reader(Protocol):
    def play(self, state: Any, stop: int, settled: dict[Key, Values]) -> Step:
        """The move at `stop` alone (-1: the setup), with the unknowns in `settled` fixed."""

    def advance(self, state: Any, stop: int, until: int | None, settled: dict[Key, Values]) -> Step:
        """The moves after `stop` up to `until` (excluded; None: to the end, with the claimed result)."""

    def before(self, stop: int) -> Any:
        """The state before the move at `stop` as the checker's own reading found it (None: not read)."""


Rank = tuple[int, int, int, int]  # how far a reading got, written items found not there, how near the claimed totals


def rank(step: Step) -> Rank:
    """A reading's place among others: further first; then fewer written items found not there (a card written
    drawn later that a guess had already drawn: the guess, not the line, is likely wrong, and a line of several
    `[?]` draws has each guess judged by them); at the end, nearer the claimed result first (when the Result is
    wrong for one seat, the values that make the others' right are the ones to read with)."""
    miss = step.miss or (0, 0)
    return (step.depth, -step.taken, -miss[0], -miss[1])


@dataclass(eq=False)
class _Node:
    """A distinct state at a move with unknowns (`keys`: the unknowns written there), and the ways it was reached:
    each way a node of the move before and the values its unknowns took."""

    state: Any
    keys: Sequence[Key] = ()
    edges: list[tuple[_Node, tuple[list[Values], ...]]] = field(default_factory=list)


@dataclass
class Answer:
    """The joint answer: each unknown's consistent values (None: undetermined), one path of values that
    stand together, why a group is undetermined, and which unknowns were decided together."""

    consistent: dict[Key, list[Values] | None]
    best: dict[Key, Values]
    why: dict[Key, str]
    together: dict[Key, list[Key]]
    tried: dict[Key, int]
    spent: int = 0
    alone: dict[Key, str] = field(default_factory=dict)  # narrowed one at a time, the others as read, and why
    depth: int = -1
    searched: dict[Key, str] = field(default_factory=dict)  # found by a search for the claimed result: not proven the only


def candidates(asked: Asked, limit: int) -> tuple[list[Values], bool]:
    """Every possible value of an unknown outcome, in the order the rules take them (a draw's
    items in the order drawn: a deal in seat order gives each seat its own), up to `limit`;
    and whether that was all of them (a draw of too many orderings: its sets, all of them only
    where the order is shown not to matter, `orders_alike`)."""
    found, whole, _ = candidates_of(asked, limit)
    return found, whole


def candidates_of(asked: Asked, limit: int) -> tuple[list[Values], bool, bool]:
    """`candidates`, and whether the values are sets of items standing for all their orders (a draw of more
    orderings than `limit`): complete only if the order the items came in does not change the game."""
    if asked.kind == "roll":
        dice, faces = asked.pool
        fixed = list(asked.partial or (UNKNOWN,) * dice)[:dice]
        fixed += [UNKNOWN] * (dice - len(fixed))
        choices = [range(1, faces + 1) if v == UNKNOWN else (v,) for v in fixed]
        rolls = list(itertools.islice(itertools.product(*choices), limit + 1))
        return [tuple(r) for r in rolls[:limit]], len(rolls) <= limit, False
    if asked.kind == "shuffle":
        return [asked.assumed], len(asked.assumed) <= 1, False  # an order of a whole deck is not searched
    n = len(asked.assumed)
    sets, complete, by_text = draw_sets(asked.pool, n, asked.partial, limit)
    sets = sets[:limit]
    orders = sum(_orderings(c) for c in sets)
    if complete and orders <= limit and n > 1:  # few enough to try in the order drawn (a deal, seat by seat)
        ordered = [tuple(by_text[v] for v in p) for c in sets for p in _distinct_orders(c)]
        return ordered, True, False
    return [tuple(by_text[v] for v in c) for c in sets], complete, n > 1 and orders > len(sets)


def draw_sets(pool: Sequence[Any], n: int, partial: Sequence[Any] | None, limit: int
              ) -> tuple[list[list[str]], bool, dict[str, Any]]:
    """Every multiset of `n` items the pool could give that agrees with what was written (`partial`), each sorted
    by text, up to `limit`; whether that was all of them; and each item by its text."""
    by_text = {str(c): c for c in pool}
    held = Counter(str(c) for c in pool)
    known = Counter(str(v) for v in (partial or ()) if v != UNKNOWN)
    if known - held or sum(known.values()) > n:  # written values this pool could not give (`[Y?]` for a card of
        known = Counter()  # deck Y): the reading went on as if nothing was written there, and so does the search
    counts = held - known
    names = sorted(counts)
    sets: list[list[str]] = []

    def grow(i: int, left: int, chosen: list[str]) -> bool:
        if left == 0:
            sets.append(sorted([*known.elements(), *chosen]))
            return len(sets) <= limit
        if i >= len(names):
            return True
        for take in range(min(left, counts[names[i]]), -1, -1):
            if not grow(i + 1, left - take, chosen + [names[i]] * take):
                return False
        return True

    complete = grow(0, n - sum(known.values()), [])
    return sets, complete, by_text


def orders_alike(reader: Reader, state: Any, stop: int, key: Key, sets: Sequence[Values],
                 spend: Callable[[int], None]) -> bool:
    """Whether each set stands for all its orders: the move read with its items in two other orders (reversed,
    turned by one) leaves the same state. A deal gives item i to seat i, and the order shows at once."""
    for items in sets:
        if len(set(map(str, items))) < 2:
            continue
        seen: list[Any] = []
        for order in (tuple(items), tuple(reversed(items)), (*items[1:], items[0])):
            step = reader.play(state, stop, {key: order})
            spend(step.cost)
            seen.append((True, step.state) if step.ok else (False, step.depth))
        if any(other != seen[0] for other in seen[1:]):
            return False
    return True


def _orderings(items: Sequence[str]) -> int:
    out = math.factorial(len(items))
    for k in Counter(items).values():
        out //= math.factorial(k)
    return out


def _distinct_orders(items: Sequence[str]) -> Iterable[tuple[str, ...]]:
    return dict.fromkeys(itertools.permutations(items)).keys()


def collapse(kind: str, values: Iterable[Values], tried: Iterable[Values]) -> list[Values]:
    """What to say a draw could have been: a set of items once (sorted) when every order of it that was
    tried stands, each order apart when only some do (a deal in seat order)."""
    tried = list(tried)
    place = {v: k for k, v in enumerate(tried)}
    kept = sorted(dict.fromkeys(values), key=lambda v: place.get(v, len(place)))
    if kind != "draw":
        return kept
    orders: dict[tuple[str, ...], list[Values]] = {}
    for v in tried:
        orders.setdefault(tuple(sorted(map(str, v))), []).append(v)
    out: list[Values] = []
    seen: set[tuple[str, ...]] = set()
    for v in kept:
        key = tuple(sorted(map(str, v)))
        if key in seen:
            continue
        every = orders.get(key, [v])
        if all(o in kept for o in every):
            seen.add(key)
            out.append(tuple(sorted(v, key=str)))
        else:
            out.append(v)
    return out


def _fingerprint(state: Any) -> Hashable:
    """A hash of what can be hashed in a state, to find equal states quickly (equality decides)."""
    try:
        return hash(state)
    except TypeError:
        pass
    parts = state if isinstance(state, tuple) else [getattr(state, f, None) for f in getattr(state, "__slots__", ())]
    out = []
    for part in parts:
        try:
            out.append(hash(part))
        except TypeError:
            out.append(0)
    return tuple(out)


class _States:
    """Distinct states, each once: equal states are one node."""

    def __init__(self) -> None:
        self.buckets: dict[Hashable, list[_Node]] = {}
        self.nodes: list[_Node] = []

    def node(self, state: Any) -> _Node:
        bucket = self.buckets.setdefault(_fingerprint(state), [])
        for node in bucket:
            if node.state is state or node.state == state:
                return node
        node = _Node(state)
        bucket.append(node)
        self.nodes.append(node)
        return node


class Deadline:
    """A cap on the process time one narrowing spends (joint, one at a time, and the search for the result)."""

    def __init__(self, seconds: float, why: str | None = None, stop: Callable[[], bool] | None = None) -> None:
        self.seconds = seconds
        self.ends = time.process_time() + seconds
        self.own = f"the narrowing's time cap of {seconds:g} s ran out"
        self.why, self.because, self.stop = self.own, why, stop  # `stop`: a cap it shares (the check's), `because` it

    def over(self) -> bool:
        if self.stop is not None and self.stop():
            self.why = self.because or self.why
            return True
        return time.process_time() > self.ends


class _OverBudgetError(Exception):
    def __init__(self, why: str) -> None:
        self.why = why


def search(reader: Reader, start: Any, stops: Sequence[tuple[int, Sequence[Key]]], budget: int, limit: int,
           main: dict[Key, Asked], width: int = WIDTH, product: int = PRODUCT, named: int | None = None,
           deadline: Deadline | None = None) -> Answer:
    """The unknowns at `stops` (a move's place in the file, -1 the setup; the written outcomes there), narrowed
    together from `start`, the state before the first of them. `main`: each unknown as the checker's first
    reading met it (its pool when a reading here does not reach it). A move whose combinations (or classes of
    values) clearly need more readings than the budget has left is not begun: the group is over the bound at once,
    and the rest of the budget is the one-at-a-time search's."""
    answer = Answer({}, {}, {}, {}, {})
    spent = 0
    group: list[Key] = []
    tried: dict[Key, list[Values]] = {}
    leaves: list[tuple[Rank, _Node, tuple[list[Values], ...]]] = []  # a refused path: how far it read, from where, with what

    def spend(cost: int) -> None:
        nonlocal spent
        spent += cost
        if spent > budget:
            raise _OverBudgetError(f"the narrowing budget of {named or budget} moves read ran out")
        if deadline is not None and deadline.over():
            raise _OverBudgetError(deadline.why)

    def room() -> int:
        return budget - spent

    def close(through: _Node | None, why: str | None) -> None:
        """The group of unknowns so far is over: their values from the ways into `through` (every way in
        reads on alike), else from the refused paths that read furthest."""
        nonlocal leaves
        if not group:
            leaves = []
            return
        marked: dict[Key, list[Values]] = {k: [] for k in group}
        path: dict[Key, Values] = {}
        if through is not None:
            ends = [(parent, combo) for parent, combo in through.edges]
        else:
            best = max((d for d, *_ in leaves), default=(-1, 0, 0, 0))
            answer.depth = max(answer.depth, best[0])
            ends = [(parent, combo) for d, parent, combo in leaves if d == best]
        seen: set[int] = set()
        for parent, combo in ends:
            _mark(parent, combo, marked, seen)
        if ends:
            _path(*ends[0], path)
        for k in group:
            answer.together[k] = [o for o in group if o != k]
            answer.tried[k] = len(tried.get(k, []))
            if k in path:
                answer.best[k] = path[k]
            if why is not None:
                answer.consistent[k] = None
                answer.why[k] = why
            else:
                answer.consistent[k] = collapse(main[k].kind if k in main else "", marked[k], tried.get(k, []))
        group.clear()
        leaves = []

    frontier = [_Node(start, stops[0][1] if stops else ())]
    try:
        for i, (stop, keys) in enumerate(stops):
            group.extend(k for k in keys if k not in group)
            nxt = stops[i + 1][0] if i + 1 < len(stops) else None
            children = _States()
            for node in frontier:
                node.keys = list(keys)
                first = reader.play(node.state, stop, {})
                spend(first.cost)
                asked = {k: first.asked.get(k) or main.get(k) for k in keys}
                known = [k for k in keys if asked[k] is not None]
                lists: list[list[Values]] = []
                for k in known:
                    a = asked[k]
                    assert a is not None
                    found, whole, as_sets = candidates_of(a, limit)
                    if as_sets and whole and not orders_alike(reader, node.state, stop, k, found, spend):
                        raise _OverBudgetError(f"the {a.kind} at line {k[0]} has more than {limit} orders, and the "
                                               "order changes the game")
                    if not whole and a.kind != "shuffle":
                        raise _OverBudgetError(f"the {a.kind} at line {k[0]} has more than {limit} possible values")
                    lists.append(found)
                    tried.setdefault(k, [])
                    tried[k].extend(v for v in found if v not in tried[k])
                node.keys = known
                rolls = all(a.kind == "roll" for k in known if (a := asked[k]) is not None)
                played = list(_played(reader, node.state, stop, known, lists, min(product, DICE) if rolls
                                      else product, spend, room))
                # values with which the move's own written items are there go on; those that took one (a card
                # written drawn on the move after a turn nobody wrote) stop here when others did not
                least = min((after.taken for _, after in played if after.ok), default=0)
                for combo, after in played:
                    if after.ok and after.taken <= least:
                        children.node(after.state).edges.append((node, combo))
                    else:
                        leaves.append((rank(after), node, combo))
            # each distinct state after this move reads on to the next move with unknowns (or to the end)
            ahead = _States()
            for child in children.nodes:
                went = reader.advance(child.state, stop, nxt, {})
                spend(went.cost)
                if not went.ok or nxt is None:
                    leaves.extend((rank(went), parent, combo) for parent, combo in child.edges)
                    continue
                ahead.node(went.state).edges.extend(child.edges)
            frontier = ahead.nodes
            if nxt is None:
                break
            if len(frontier) == 1:  # every way through meets at one state: the group is decided; a new one begins
                close(frontier[0], None)
                frontier = [_Node(frontier[0].state)]
            elif not frontier:  # nothing reads as far as the next unknown: what read furthest stands, and the
                close(None, None)  # next group begins where the checker's own reading found it
                restart = reader.before(stops[i + 1][0])
                if restart is None:
                    raise _OverBudgetError("no reading came as far as this line")
                frontier = [_Node(restart)]
            elif len(frontier) > width:
                raise _OverBudgetError(f"more than {width} different games follow from the unknowns before line "
                                  f"{stops[i + 1][1][0][0] if stops[i + 1][1] else '?'}")
        close(None, None)
    except _OverBudgetError as over:
        combos = 1
        for k in group:
            combos *= max(1, len(tried.get(k, [])))
        if group:
            close(None, f"{over.why} ({combos} combination(s) of {len(group)} unknown(s) tried)")
        for _, keys in stops:  # the unknowns after where the search stopped are not reached
            for k in keys:
                if k not in answer.consistent:
                    answer.consistent[k] = None
                    answer.why.setdefault(k, f"{over.why}: the search stopped before this line")
    answer.spent = spent
    return answer


def _played(reader: Reader, state: Any, stop: int, keys: list[Key], lists: list[list[Values]], product: int,
            spend: Callable[[int], None], room: Callable[[], int] | None = None,
            ) -> Iterable[tuple[tuple[list[Values], ...], Step]]:
    """Each combination of the values of one move's unknowns, played through that move: all of them when
    few; else by classes (the values of one unknown that leave the same state with the others at a first
    value) and one combination of class representatives, the way a die's faces count only as hits or not.
    Over the bound at once (`room`: readings left) when what is to be played clearly exceeds it: a whole line
    of draws written `[?]` is searched one at a time, not first played until the budget is gone."""
    size = 1
    for values in lists:
        size *= max(1, len(values))
    left = room() if room is not None else None
    if left is not None and (size if size <= product else sum(len(v) for v in lists)) > left:
        raise _OverBudgetError(f"the {size} combination(s) of one move's outcomes need more readings than are left")
    if not keys:
        step = reader.play(state, stop, {})
        spend(step.cost)
        yield (), step
        return
    if size <= product or len(keys) == 1:
        for combo in itertools.product(*lists):
            step = reader.play(state, stop, dict(zip(keys, combo, strict=True)))
            spend(step.cost)
            yield tuple([v] for v in combo), step
        return
    base = {k: values[0] for k, values in zip(keys, lists, strict=True)}
    classes: list[list[list[Values]]] = []
    for k, values in zip(keys, lists, strict=True):
        seen = _States()
        order: list[_Node] = []
        members: dict[int, list[Values]] = {}
        for v in values:
            step = reader.play(state, stop, {**base, k: v})
            spend(step.cost)
            node = seen.node((True, step.state) if step.ok else (False, step.depth))
            if id(node) not in members:
                members[id(node)] = []
                order.append(node)
            members[id(node)].append(v)
        classes.append([members[id(n)] for n in order])
    picks = math.prod(len(c) for c in classes)
    if picks > product or (room is not None and picks > room()):
        raise _OverBudgetError(f"the outcomes of one move fall into {picks} combination(s) of classes")
    for picked in itertools.product(*classes):
        step = reader.play(state, stop, {k: group[0] for k, group in zip(keys, picked, strict=True)})
        spend(step.cost)
        yield tuple(picked), step


def _mark(parent: _Node, combo: tuple[list[Values], ...], marked: dict[Key, list[Values]], seen: set[int]) -> None:
    """The values on every path into an end that read furthest: all of a node's ways in stand when it does."""
    todo = [(parent, combo)]
    while todo:
        node, values = todo.pop()
        for k, options in zip(node.keys, values, strict=False):
            if k in marked:
                marked[k].extend(o for o in options if o not in marked[k])
        if id(node) in seen:
            continue
        seen.add(id(node))
        todo.extend(node.edges)


def _path(parent: _Node, combo: tuple[list[Values], ...], path: dict[Key, Values]) -> None:
    """One whole path of values into an end: values that stand together, to read the file with."""
    node: _Node | None = parent
    values = combo
    while node is not None:
        for k, options in zip(node.keys, values, strict=False):
            if options:
                path.setdefault(k, options[0])
        if not node.edges:
            break
        node, values = node.edges[0]


def narrow(reader: Reader, start: Any, stops: Sequence[tuple[int, Sequence[Key]]], budget: int, limit: int,
           main: dict[Key, Asked], named: int | None = None, deadline: Deadline | None = None) -> Answer:
    """Jointly when the search fits its bounds; else each unknown alone, in file order, with the ones before
    it as they were settled and the ones after as first read (what an independent hidden draw needs). One
    unknown alone is searched as the joint search did: it is not searched again."""
    answer = search(reader, start, stops, budget // 2, limit, main, named=named or budget, deadline=deadline)
    if all(v is not None for v in answer.consistent.values()) or sum(len(keys) for _, keys in stops) < 2:
        return answer
    why = next(iter(answer.why.values()), "")
    alone = one_at_a_time(reader, start, stops, budget - answer.spent, limit, main, named=named or budget,
                          deadline=deadline)
    for _ in range(PASSES - 1):  # again, each with the others at the values the pass before chose (a line of draws)
        left = budget - answer.spent - alone.spent
        if left <= 0 or (deadline is not None and deadline.over()):
            break
        again = one_at_a_time(reader, start, stops, left, limit, main, named=named or budget, deadline=deadline,
                              given=alone.best)
        again.spent += alone.spent
        changed = again.best != alone.best
        short = [k for k, v in again.consistent.items() if v is None and alone.consistent.get(k) is not None]
        for k in short:  # the pass ran out of budget there: what the pass before said of those stands
            again.consistent[k] = alone.consistent[k]
            again.tried[k] = alone.tried.get(k, 0)
            again.why.pop(k, None)
            if k in alone.why:
                again.why[k] = alone.why[k]
            if k in alone.best:
                again.best[k] = alone.best[k]
        alone = again
        if short or not changed:
            break
    for k, values in alone.consistent.items():
        if answer.consistent.get(k) is None:
            answer.consistent[k] = values
            answer.why[k] = alone.why.get(k, why) if values is None else why
            answer.tried[k] = alone.tried.get(k, 0)
            if values is not None:
                answer.alone[k] = why
                answer.together.pop(k, None)
            if k in alone.best:
                answer.best[k] = alone.best[k]
    answer.spent += alone.spent
    return answer


def one_at_a_time(reader: Reader, start: Any, stops: Sequence[tuple[int, Sequence[Key]]], budget: int, limit: int,
                  main: dict[Key, Asked], named: int | None = None, deadline: Deadline | None = None,
                  given: dict[Key, Values] | None = None) -> Answer:
    """Each unknown's values that read as far as any (to the end, then to the claimed result), the others fixed:
    those before it as settled here, the others as `given` (a pass before this one), else as first read."""
    answer = Answer({}, {}, {}, {}, {})
    base = dict(given or {})
    spent = 0
    state = start
    for i, (stop, keys) in enumerate(stops):
        nxt = stops[i + 1][0] if i + 1 < len(stops) else None
        if state is None and stop >= 0:
            state = reader.before(stop)
        late = deadline is not None and deadline.over()
        if (state is None and stop >= 0) or spent > budget or late:
            for k in keys:
                answer.consistent[k] = None
                answer.why[k] = (f"the narrowing budget of {named or budget} moves read ran out" if spent > budget
                                 else deadline.why if late and deadline is not None else "the line with it was not read")
            state = None
            continue
        first = reader.play(state, stop, {})
        spent += first.cost
        chosen: dict[Key, Values] = {}
        for k in keys:
            a = first.asked.get(k) or main.get(k)
            if a is None:
                continue
            found, whole, as_sets = candidates_of(a, limit)
            if as_sets and whole:
                def count(cost: int) -> None:
                    nonlocal spent
                    spent += cost
                whole = orders_alike(reader, state, stop, k, found, count)
            reached: list[tuple[Rank, Values]] = []
            seen = _States()
            depth_of: dict[int, Rank] = {}
            for v in found:
                if spent > budget or (deadline is not None and deadline.over()):
                    whole = False
                    break
                step = reader.play(state, stop, {**base, **chosen, k: v})
                spent += step.cost
                if not step.ok:
                    reached.append((rank(step), v))
                    continue
                node = seen.node(step.state)
                if id(node) not in depth_of:
                    went = reader.advance(step.state, stop, None, base)
                    spent += went.cost
                    depth_of[id(node)] = rank(went)
                reached.append((depth_of[id(node)], v))
            answer.tried[k] = len(reached)
            best = max((d for d, _ in reached), default=(-1, 0, 0, 0))
            kept = [v for d, v in reached if d == best]
            answer.consistent[k] = collapse(a.kind, kept, found) if whole else None
            if not whole:
                answer.why[k] = (f"the narrowing budget of {named or budget} moves read ran out after {len(reached)} of its values"
                                 if spent > budget else f"{deadline.why} after {len(reached)} of its values"
                                 if deadline is not None and deadline.over() else f"the {a.kind} has more than {limit} possible values"
                                 + (" in the order drawn" if as_sets else ""))
            pick = next((v for v in (base.get(k), a.assumed) if v is not None and v in kept), kept[0] if kept else a.assumed)
            chosen[k] = answer.best[k] = pick
        step = reader.play(state, stop, {**base, **chosen})
        spent += step.cost
        state = None
        if step.ok:
            went = reader.advance(step.state, stop, nxt, base)
            spent += went.cost
            state = went.state if went.ok else None
    answer.spent = spent
    return answer
