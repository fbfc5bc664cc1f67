"""Commands: a seat's choice, parsed by schema before the rules ever see it.

Each title declares its commands as frozen dataclasses with `@command("title/kind")` and
one marshmallow schema per command. `parse_command` rejects a malformed payload (missing
or mistyped field, unknown field, unknown kind) with `MalformedCommand`, so `decide` only
ever meets well-formed commands and can speak purely of rules.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import marshmallow

from domain.kernel.frozen import freeze, thaw
from domain.kernel.violations import MalformedCommand

C = TypeVar("C", bound="type[Command]")


@dataclasses.dataclass(frozen=True, slots=True)
class Command:
    """Base of every command. `seat` is who chooses (0-based)."""

    kind: ClassVar[str] = ""
    seat: int

    def __post_init__(self) -> None:
        for name in _names(type(self)):
            value = getattr(self, name)
            if isinstance(value, (list, dict)):
                object.__setattr__(self, name, freeze(value))

    def to_json(self) -> dict[str, Any]:
        body = {name: thaw(getattr(self, name)) for name in _names(type(self))}
        return {"type": self.kind, **body}


_NAMES: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    """Field names per command class, looked up once: commands are parsed on the validation hot path."""
    found = _NAMES.get(cls)
    if found is None:
        found = _NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return found


def command(kind: str) -> Callable[[C], C]:
    """Declare a command class under its public kind name (e.g. "citta-stato/use-card")."""

    def register(cls: C) -> C:
        cls = dataclasses.dataclass(frozen=True, slots=True)(cls)  # type: ignore[assignment]
        cls.kind = kind
        return cls

    return register


class CommandBook:
    """The commands one title understands: kind -> (class, schema)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[type[Command], marshmallow.Schema]] = {}

    def add(self, cls: type[Command], schema: marshmallow.Schema) -> None:
        if schema.unknown != marshmallow.RAISE:
            raise ValueError(f"schema for {cls.kind} must reject unknown fields")
        self._entries[cls.kind] = (cls, schema)

    @property
    def kinds(self) -> list[str]:
        return sorted(self._entries)

    def parse(self, payload: Mapping[str, Any]) -> Command:
        if not isinstance(payload, Mapping):
            raise MalformedCommand("a command must be a JSON object", {"_schema": ["not an object"]})
        kind = payload.get("type")
        if kind not in self._entries:
            raise MalformedCommand(
                f"unknown command type {kind!r}; expected one of {self.kinds}", {"type": [f"unknown: {kind!r}"]}
            )
        cls, schema = self._entries[kind]
        body = {k: v for k, v in payload.items() if k != "type"}
        try:
            loaded = schema.load(body)
        except marshmallow.ValidationError as exc:
            raise MalformedCommand(f"malformed {kind} command: {exc.messages}", exc.messages_dict) from exc
        return cls(**loaded)
