"""Domain events: immutable values with a stable type name and a JSON payload.

Events are stored forever, so the type name is part of the public format and a payload
must come back from JSON exactly as it went in. Each title declares its events as frozen
dataclasses with `@event("title/name")`; fields hold only JSON values (str, int, bool,
None, tuples and FrozenDicts of those), which `__post_init__` enforces by freezing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

from domain.kernel.frozen import freeze, frozen_init, thaw

_REGISTRY: dict[str, type[Event]] = {}

E = TypeVar("E", bound="Event")
T = TypeVar("T", bound=Mapping[type, Any])


class UnknownEventType(ValueError):  # noqa: N818  (named for what happened)
    """A stored or imported event names a type no title declares."""


class MissingHandler(TypeError):  # noqa: N818  (named for what is missing)
    """A title's table of one function per event type (its fold, its describe) leaves an event type out."""


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """Base of every domain event. Subclasses are frozen dataclasses made with @event."""

    type: ClassVar[str] = ""
    of: ClassVar[Any]  # `cls(*fields)`, one shared value per distinct fields (`interner`), set by @event

    def __post_init__(self) -> None:
        for name in _layout(type(self))[1]:
            object.__setattr__(self, name, freeze(getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        names, containers = _layout(type(self))
        data = {name: getattr(self, name) for name in names}
        for name in containers:
            data[name] = thaw(data[name])
        return {"type": self.type, "data": data}


_SCALAR_TYPES = frozenset({"int", "str", "bool", "float", "None", "int | None", "str | None", "bool | None"})
_LAYOUT: dict[type, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _layout(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(all field names, fields that may hold containers), worked out once per class.

    Replaying a log builds and serialises every event, so only fields not declared as
    plain scalars are frozen and thawed.
    """
    found = _LAYOUT.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        containers = tuple(f.name for f in fields if _declared(f) not in _SCALAR_TYPES)
        found = _LAYOUT[cls] = (names, containers)
    return found


def event_layout(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(field names, each field's declared type as written, "int" or "str | None"): what code generated
    from an event class needs (records.chain's encoder of an event's canonical JSON)."""
    fields = dataclasses.fields(cls)
    return tuple(f.name for f in fields), tuple(map(_declared, fields))


def _declared(field: dataclasses.Field[Any]) -> str:
    """A field's type as its class declares it ("int", "str | None"): annotations are strings here."""
    return str(getattr(field.type, "__name__", field.type))


class _Tables(dict[type, dict[tuple[Any, ...], Any]]):
    """Every event class's table of shared values; `clear` empties each table (as a fresh process has them)."""

    def clear(self) -> None:
        for values in self.values():
            values.clear()


INTERNED = _Tables()
INTERNED_KEPT = 1 << 13  # per event class; a full table starts again empty


def interner(cls: type[E]) -> Callable[..., E]:
    """`cls.of(*fields)`: `cls(*fields)`, built once per distinct value.

    Events are immutable values, and the rules produce the same few thousand again and again (a turn
    ends, a step is skipped, a building is built on a hex), so `decide` reuses them instead of paying the
    construction and freezing each time, and a replay compares what the rules gave with what the log
    holds by identity first. The key compares by value, and `True == 1 == 1.0` in Python, so only values
    whose type is guaranteed may be interned: the engine's own numbers, parsed commands (a command book
    refuses a bool for an int), drawn strings, drawn numbers checked to be ints. So a `true` in one
    imported log can never come back as the value of another record's event. Fields are passed as
    hashable values (tuples, not lists).

    One table per class, looked up by the fields' tuple the call already packs (a closure, not a
    classmethod: no key tuple with the class in it, no bound method per call; a third of the cost).
    """
    values = INTERNED.setdefault(cls, {})

    def of(*fields: Any) -> E:
        found = values.get(fields)
        if found is None:
            if len(values) >= INTERNED_KEPT:
                values.clear()
            found = values[fields] = cls(*fields)
        return found

    return of


@dataclass_transform(frozen_default=True)
def event(type_name: str) -> Callable[[type[E]], type[E]]:
    """Register an event class under its stored type name (e.g. "citta-stato/cubes-drawn").

    Declared a dataclass transform so a type checker knows each event's fields and frozenness."""

    def register(declared: type[E]) -> type[E]:
        if type_name in _REGISTRY and _REGISTRY[type_name].__qualname__ != declared.__qualname__:
            raise ValueError(f"event type {type_name!r} is declared twice")
        cls = dataclasses.dataclass(frozen=True, slots=True)(declared)
        cls.type = type_name
        cls.of = staticmethod(interner(cls))
        if cls.__post_init__ is Event.__post_init__:
            init = frozen_init(cls, _layout(cls)[1], freeze_any=False)  # the same freezing, without the call
            if init is not None:
                cls.__init__ = init  # type: ignore[method-assign]
        _REGISTRY[type_name] = cls
        return cls

    return register


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def event_from_json(obj: dict[str, Any]) -> Event:
    """Rebuild an event from its stored form; the inverse of Event.to_json. (Every replay of a stored or
    imported log reads each of its events here: the field names are a set made once per class, and a
    known event's keys are tested against it without building a set of their own.)"""
    try:
        cls = _REGISTRY[obj["type"]]
    except KeyError as exc:
        raise UnknownEventType(f"unknown event type {obj.get('type')!r}") from exc
    data = obj.get("data", {})
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(_layout(cls)[0])
    if not data.keys() <= names:
        raise ValueError(f"event {obj['type']!r} has unknown fields {sorted(set(data) - names)}")
    return cls(**data)


def event_types() -> dict[str, type[Event]]:
    return dict(_REGISTRY)


def every_event(title: str, table: T, what: str) -> T:
    """`table` itself, once it holds a handler for every event type registered under `title/`.

    A title builds its fold and its describe as one function per event type; this is called as
    the table is built, so a missing handler stops the title's import with the event types' names
    instead of answering a replay later with a KeyError or a silent None.
    """
    missing = sorted(name for name, cls in _REGISTRY.items() if name.startswith(f"{title}/") and cls not in table)
    if missing:
        raise MissingHandler(f"{title}'s {what} has no handler for {', '.join(missing)}")
    return table


def dumps(events: Iterable[Event]) -> str:
    return json.dumps([e.to_json() for e in events], separators=(",", ":"), sort_keys=True)


def loads(text: str) -> list[Event]:
    return [event_from_json(obj) for obj in json.loads(text)]


def round_trips(e: Event) -> bool:
    """True when the event survives JSON text exactly (the test invariant for every event)."""
    return event_from_json(json.loads(json.dumps(e.to_json()))) == e
