"""Chance: every die, draw and shuffle goes through one of these, never through `random`.

Two implementations answer the same three questions:

* `SeededChance` — the service plays a live game. Outcomes come from a counter-mode
  SHA-256 stream keyed by a secret seed. The seed's SHA-256 commitment is public from the
  start and the seed is revealed at the end, so anyone can re-derive every outcome. The
  algorithm is spelled out here (not borrowed from `random`) so it can never drift
  between Python versions: block i is sha256(seed || ":" || i); 8 bytes at a time are read
  as a big-endian integer x, and `below(n)` rejects x >= n * floor(2**64 / n).
* `ObservedChance` — a log written at a real table. Each outcome is given from outside and
  checked for possibility before it is accepted: the cubes were in that bag, the cards in
  that deck, the dice show faces they have.

Hidden order is not state. A bag or a face-down deck is a multiset: revealing a card is a
`draw` from it, so a log written at the table (which never knows a deck's order) can be
checked card by card. `shuffle` is for the rare order that is set once and then seen.

Both keep `log`, the outcomes given so far, which the record service stores beside the
events of each command so a record can be re-decided and checked.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from domain.kernel.violations import ImpossibleOutcome, secret_size

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What chance answered: kind is "draw", "shuffle" or "roll"; source names the bag, deck or dice."""

    kind: str
    source: str
    values: tuple[Any, ...]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "values": list(self.values)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Outcome:
        """An outcome from a log. Its values are words or whole numbers, never `true` or `1.0`: JSON's
        true equals 1 in Python, and would pass for the cube or die face 1 and then live on in events."""
        values = tuple(obj["values"])
        if any(type(v) not in (str, int) for v in values):
            raise ValueError(f"the values of an outcome are words or whole numbers, not {list(values)!r}")
        return cls(str(obj["kind"]), str(obj["source"]), values)


class Chance(Protocol):
    log: list[Outcome]

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        """Draw min(n, len(contents)) items without replacement, in the order drawn."""

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        """A permutation of items."""

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        """`dice` values, each from 1 to faces."""


def commitment(seed: str) -> str:
    """The public SHA-256 commitment of a secret seed."""
    return hashlib.sha256(seed.encode()).hexdigest()


class SeededChance:
    """Deterministic chance for live games; same seed, same outcomes, on any machine."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.commitment = commitment(seed)
        self.log: list[Outcome] = []
        self._key = seed.encode() + b":"
        self._block = 0
        self._buffer = b""

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = (1 << 64) // n * n
        while True:
            if len(self._buffer) < 8:
                self._buffer += hashlib.sha256(self._key + str(self._block).encode()).digest()
                self._block += 1
            x = int.from_bytes(self._buffer[:8], "big")
            self._buffer = self._buffer[8:]
            if x < limit:
                return x % n

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        pool = list(contents)
        take = min(n, len(pool))
        for k in range(take):
            j = k + self.below(len(pool) - k)
            pool[k], pool[j] = pool[j], pool[k]
        drawn = tuple(pool[:take])
        self.log.append(Outcome("draw", source, drawn))
        return drawn

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        pool = list(items)
        for k in range(len(pool) - 1, 0, -1):
            j = self.below(k + 1)
            pool[k], pool[j] = pool[j], pool[k]
        order = tuple(pool)
        self.log.append(Outcome("shuffle", source, order))
        return order

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        values = tuple(1 + self.below(faces) for _ in range(dice))
        self.log.append(Outcome("roll", source, values))
        return values


def _within(values: Sequence[Any], contents: Sequence[Any]) -> bool:
    """True when `values` is a sub-multiset of `contents`.

    The common, possible draw is settled here without building two Counters (replaying a
    log checks every draw); only a failing draw goes on to the Counter that names what was
    missing, so verdicts and messages are unchanged.
    """
    if len(values) == 1:
        return values[0] in contents
    left = list(contents)
    for v in values:
        if v not in left:
            return False
        left.remove(v)
    return True


class ObservedChance:
    """Outcomes supplied from outside, each checked for possibility when the rules ask for it."""

    def __init__(self, outcomes: Iterable[Outcome | Mapping[str, Any]]) -> None:
        self._pending: Sequence[Outcome] = [o if isinstance(o, Outcome) else Outcome.from_json(o) for o in outcomes]
        self._next = 0
        self.log: list[Outcome] = []

    @classmethod
    def of(cls, outcomes: tuple[Outcome, ...]) -> ObservedChance:
        """From an entry's outcomes, already `Outcome`s (Entry.from_json builds them): no copy, no checks."""
        self = cls.__new__(cls)
        self._pending = outcomes
        self._next = 0
        self.log = []
        return self

    @property
    def has_unused(self) -> bool:
        return self._next < len(self._pending)

    @property
    def unused(self) -> list[Outcome]:
        """Outcomes supplied but never asked for: a log that claims more chance than happened."""
        return list(self._pending[self._next :])

    def _take(self, kind: str, source: str) -> Outcome:
        if self._next >= len(self._pending):
            raise ImpossibleOutcome(
                "chance/missing-outcome",
                f"the rules ask for a {kind} from {source}, but the log gives no outcome for it",
                kind=kind,
                source=source,
            )
        outcome = self._pending[self._next]
        if outcome.kind != kind or outcome.source != source:
            raise ImpossibleOutcome(
                "chance/unexpected-outcome",
                f"the rules ask for a {kind} from {source}, but the log gives a {outcome.kind} from {outcome.source}",
                expected_kind=kind,
                expected_source=source,
                given_kind=outcome.kind,
                given_source=outcome.source,
            )
        self._next += 1
        self.log.append(outcome)
        return outcome

    def draw(self, source: str, contents: Sequence[T], n: int) -> tuple[T, ...]:
        outcome = self._take("draw", source)
        want = min(n, len(contents))
        if len(outcome.values) != want:
            raise ImpossibleOutcome(
                "chance/draw/count",
                f"{want} must be drawn from {source}, the log shows {len(outcome.values)}",
                source=source,
                drawn=list(outcome.values),
                expected_count=want,
            )
        values = outcome.values
        if values[0] in contents if want == 1 else _within(values, contents):  # the common draw: one item, there
            return values if type(values) is tuple else tuple(values)
        missing = Counter(values) - Counter(contents)
        if missing:
            raise ImpossibleOutcome(
                "chance/draw/not-there",
                f"{sorted(map(str, missing.elements()))} could not be drawn from {source}: it was not there",
                source=source,
                drawn=list(outcome.values),
                not_there=sorted(map(str, missing.elements())),
                held=secret_size(sorted(map(str, contents))),
            )
        return tuple(outcome.values)

    def shuffle(self, source: str, items: Sequence[T]) -> tuple[T, ...]:
        outcome = self._take("shuffle", source)
        if Counter(outcome.values) != Counter(items):
            raise ImpossibleOutcome(
                "chance/shuffle/not-a-permutation",
                f"the order given for {source} is not an ordering of what was shuffled",
                source=source,
                given=list(outcome.values),
                shuffled=secret_size(sorted(map(str, items))),
            )
        return tuple(outcome.values)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        outcome = self._take("roll", source)
        values = outcome.values
        if len(values) != dice or any(not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= faces for v in values):
            raise ImpossibleOutcome(
                "chance/roll/impossible-face",
                f"{dice} dice of {faces} faces cannot show {list(values)}",
                source=source,
                rolled=list(values),
                dice=dice,
                faces=faces,
            )
        return tuple(values)


NO_OUTCOMES = ObservedChance.of(())
"""The observer of an entry that gives no outcome, shared by every replay: any question to it raises
(`_take` finds nothing) before anything is logged, so its `log` stays empty and it holds no state."""
