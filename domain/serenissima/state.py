"""The state of a Serenissima game: frozen records for galleys, ports, the active galley and the table, and `begin`.

State is small and immutable: tuples of frozen slotted records, and an event replaces
only the records it touches (the fold, `fold.py`, uses the fast replacers made here).
A galley with no sailor left has sunk, so no state ever holds an empty galley.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from domain.kernel import Edition
from domain.serenissima.edition import Tables, tables

NEUTRAL = -1


@dataclass(frozen=True, slots=True)
class Galley:
    owner: int
    zone: str
    sailors: int
    goods: tuple[str, ...]  # sorted; several cubes of one good allowed

    @property
    def load(self) -> int:
        return self.sailors + len(self.goods)


@dataclass(frozen=True, slots=True)
class Port:
    owner: int = NEUTRAL
    sailors: int = 0
    warehouse: tuple[str, ...] = ()  # in fill order: cube k sits on space k
    fort: bool = False
    basilica: bool = False
    closed: bool = False


@dataclass(frozen=True, slots=True)
class Activation:
    """One galley's activation, with the sub-step waiting for a decision."""

    galley: int
    seat: int
    stage: str  # plan, loading, movement, blockade, trade, battle, capture, unload, investment;
    # opening and ending only between the events of one command
    start_zone: str
    moves_left: int = 0
    moves_made: int = 0
    free_cubes: int = 0
    bought_galley: bool = False
    value: int = -1  # the attacker's first combat value, -1 before the first battle
    mode: str = ""  # "" until the player sells ("sale") or fights or claims ("battle")
    intent: str = ""  # what a blockade round interrupts: move, sale, claim
    asked: tuple[int, ...] = ()  # seats still to decide on a blockade, in order
    blocker: int = NEUTRAL
    pending_good: str = ""
    foe_galley: int = 0
    foe_port: int = NEUTRAL
    loot: tuple[str, ...] = ()
    capturer: int = 0
    unload_min: int = 0
    port: int = NEUTRAL  # the port named for this step where the zone has several (ambiguity 30)


@dataclass(frozen=True, slots=True)
class State:
    edition: Edition
    t: Tables
    players: int = 0
    hidden_money: bool = False
    first: int = 0
    money: tuple[int, ...] = ()
    announced: tuple[int, ...] = ()  # what others know of a seat's ducats with hidden money
    supply: tuple[int, ...] = ()  # sailors each seat may still recruit (killed ones come back here)
    boxed: tuple[int, ...] = ()  # sailors of the colour left in the box at this player count
    goods: tuple[int, ...] = ()  # cubes in the supply, by good index
    galleys: tuple[Galley | None, ...] = ()  # by wheel number; index 0 unused
    ports: tuple[Port, ...] = ()  # by port index (sorted ids)
    discard: tuple[str, ...] = ()  # Doge cards face up; the deck is the rest of the multiset
    track: int = 0
    scorings: int = 0
    turn: int = 0
    wheel: int = 0  # 0 is the Doge space
    phase: str = "setup"  # setup, turn, special, over
    queue: tuple[int, ...] = ()  # seats still to choose (setup) or to invest (special)
    act: Activation | None = None
    bank: int = 0  # ducats the bank has paid out, net
    ranking: tuple[int, ...] = ()

    @property
    def galleys_in_play(self) -> int:
        return len(self.galleys) - 1


_UNCHANGED: Any = object()


def _builder(cls: type[Any]) -> type:
    """A plain slotted twin of a frozen record class: same slots, no frozen `__setattr__`.

    A new record is filled in as its twin with plain attribute stores (the interpreter's
    fast path for slots), then given its real class: the layouts are identical, so the
    `__class__` assignment is allowed and the record is as frozen as any other from then on.
    """
    twin = type(f"_{cls.__name__}Builder", (), {"__slots__": cls.__slots__})
    probe: Any = object.__new__(twin)
    probe.__class__ = cls  # fails at import, not in a fold, should the layouts ever differ
    return twin


def _replacer(cls: type) -> Callable[..., Any]:
    """A fast `dataclasses.replace` for one frozen slotted class.

    The fold replaces a record for nearly every event; the generic `replace` re-runs the
    frozen `__init__` field by field (one `object.__setattr__` each) and costs several
    times more. This copies the slots through the builder twin (`_builder`).
    """
    names = [f.name for f in fields(cls)]
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_twin": _builder(cls), "_same": _UNCHANGED}
    lines = [f"def _replace(_old, *, {', '.join(f'{n}=_same' for n in names)}):", "    _obj = _new(_twin)"]
    lines += [f"    _obj.{n} = _old.{n} if {n} is _same else {n}" for n in names]
    lines += ["    _obj.__class__ = _cls", "    return _obj"]
    exec("\n".join(lines), scope)  # noqa: S102 - generated from the class's own field names
    return scope["_replace"]


def _maker(cls: type) -> Callable[..., Any]:
    """A fast positional constructor for a frozen slotted class whose fields all have to be given."""
    names = [f.name for f in fields(cls)]
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_twin": _builder(cls)}
    lines = [f"def _make({', '.join(names)}):", "    _obj = _new(_twin)"]
    lines += [f"    _obj.{n} = {n}" for n in names]
    lines += ["    _obj.__class__ = _cls", "    return _obj"]
    exec("\n".join(lines), scope)  # noqa: S102 - generated from the class's own field names
    return scope["_make"]


_REPLACERS = {cls: _replacer(cls) for cls in (State, Activation, Port)}
_state = _REPLACERS[State]  # the fold's own calls skip the lookup by type
_activation = _REPLACERS[Activation]
_port = _REPLACERS[Port]
_galley: Callable[[int, str, int, tuple[str, ...]], Galley] = _maker(Galley)
# An activation as the black token makes it: each activation is this one with its galley, seat and zone.
_FRESH = Activation(0, NEUTRAL, "plan", "")


def replace(obj: Any, **changes: Any) -> Any:
    return _REPLACERS[type(obj)](obj, **changes)


def begin(edition: Edition) -> State:
    return State(edition, tables(edition))
