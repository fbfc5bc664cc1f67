"""Commands: a seat's choice, parsed by schema before the rules ever see it.

Each title declares its commands as frozen dataclasses with `@command("title/kind")` and
one marshmallow schema per command. `parse_command` rejects a malformed payload (missing
or mistyped field, unknown field, unknown kind) with `MalformedCommand`, so `decide` only
ever meets well-formed commands and can speak purely of rules.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform

import marshmallow
from marshmallow import fields

from domain.kernel.frozen import freeze, frozen_init, thaw
from domain.kernel.violations import MalformedCommand, RuleViolation

C = TypeVar("C", bound="Command")


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


@dataclass_transform(frozen_default=True)
def command(kind: str) -> Callable[[type[C]], type[C]]:
    """Declare a command class under its public kind name (e.g. "citta-stato/use-card").

    Declared a dataclass transform so a type checker knows each command's fields and frozenness."""

    def register(declared: type[C]) -> type[C]:
        cls = dataclasses.dataclass(frozen=True, slots=True)(declared)
        cls.kind = kind
        if cls.__post_init__ is Command.__post_init__:
            init = frozen_init(cls, (), freeze_any=True)  # the same freezing, without the call
            if init is not None:
                cls.__init__ = init  # type: ignore[method-assign]
        return cls

    return register


# A field the fast path can check by itself: (name, exact JSON type, allowed values or None,
# lowest and highest allowed integer or None, the value when absent or REQUIRED).
Simple = tuple[str, type, frozenset[Any] | None, int | None, int | None, Any]
REQUIRED = object()

_PLAIN_TYPES: dict[type, type] = {fields.Integer: int, fields.String: str, fields.Boolean: bool}


def _simple_fields(schema: marshmallow.Schema) -> tuple[Simple, ...] | None:
    """The schema's fields when every one is an int, str or bool, required or with a plain default.

    For such a schema, a payload with only those keys, holding values of exactly those
    JSON types (bool is not int) inside their OneOf choices and integer Ranges, loads to
    itself plus the defaults, so it needs no trip through marshmallow. Anything with
    hooks, renames, callable defaults or other validators keeps the full schema.
    """
    if any(schema._hooks.values()):  # noqa: SLF001 - marshmallow keeps declared hooks here
        return None
    found: list[Simple] = []
    for name, f in schema.fields.items():
        kind = _PLAIN_TYPES.get(type(f))
        if kind is None or f.data_key not in (None, name) or f.attribute not in (None, name):
            return None
        if f.required:
            default = REQUIRED
        elif type(f.load_default) is kind and not f.allow_none:
            default = f.load_default
        else:
            return None
        choices: frozenset[Any] | None = None
        low: int | None = None
        high: int | None = None
        for v in f.validators:
            if isinstance(v, marshmallow.validate.OneOf) and choices is None:
                choices = frozenset(v.choices)
            elif isinstance(v, marshmallow.validate.Range) and kind is int and low is None and high is None:
                if v.min is not None:
                    low = int(v.min) + (0 if v.min_inclusive else 1)
                if v.max is not None:
                    high = int(v.max) - (0 if v.max_inclusive else 1)
            else:
                return None
        found.append((name, kind, choices, low, high, default))
    return tuple(found)


def _fast_parser(cls: type[Command], simple: tuple[Simple, ...]) -> Callable[[dict[str, Any]], Command | None]:
    """A parser generated for one command kind: each field's checks written out in line.

    The same checks as a loop over `simple` would make, without the loop: commands are parsed
    once per entry of every replay. It returns None wherever the full schema must decide (a
    missing or mistyped field, an unknown key), so every refusal keeps marshmallow's words.
    """
    order = _names(cls)
    by_name = {f[0]: i for i, f in enumerate(simple)}
    ns: dict[str, Any] = {"_cls": cls, "_missing": REQUIRED, "_len": len}
    lines = ["def parse(p):", "    given = 1"]
    for i, (name, kind, choices, low, high, default) in enumerate(simple):
        ns[f"_k{i}"] = kind
        lines.append(f"    x{i} = p.get({name!r}, _missing)")
        if default is REQUIRED:
            lines.append(f"    if x{i} is _missing: return None")
            check = [f"type(x{i}) is not _k{i}"]
        else:
            ns[f"_d{i}"] = default
            lines.append(f"    if x{i} is _missing: x{i} = _d{i}")
            lines.append("    else:")
            lines.append("        given += 1")
            check = [f"type(x{i}) is not _k{i}"]
        if choices is not None:
            ns[f"_c{i}"] = choices
            check.append(f"x{i} not in _c{i}")
        if low is not None:
            check.append(f"x{i} < {int(low)}")
        if high is not None:
            check.append(f"x{i} > {int(high)}")
        indent = "        " if default is not REQUIRED else "    "
        lines.append(f"{indent}if {' or '.join(check)}: return None")
        if default is REQUIRED:
            lines.append("    given += 1")
    lines.append("    if given != _len(p): return None")
    if set(order) == set(by_name):
        lines.append(f"    return _cls({', '.join(f'x{by_name[n]}' for n in order)})")
    else:
        lines.append(f"    return _cls({', '.join(f'{f[0]}=x{i}' for i, f in enumerate(simple))})")
    exec("\n".join(lines), ns)  # noqa: S102 - generated from the schema's own field names
    return ns["parse"]


class CommandBook:
    """The commands one title understands: kind -> (class, schema)."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[type[Command], marshmallow.Schema]] = {}
        self._fast: dict[str, Callable[[dict[str, Any]], Command | None]] = {}

    def add(self, cls: type[Command], schema: marshmallow.Schema) -> None:
        if schema.unknown != marshmallow.RAISE:
            raise ValueError(f"schema for {cls.kind} must reject unknown fields")
        self._entries[cls.kind] = (cls, schema)
        simple = _simple_fields(schema)
        if simple is not None:
            self._fast[cls.kind] = _fast_parser(cls, simple)

    @property
    def kinds(self) -> list[str]:
        return sorted(self._entries)

    def parse(self, payload: Mapping[str, Any]) -> Command:
        if type(payload) is dict:
            kind = payload.get("type")
            fast = self._fast.get(kind) if type(kind) is str else None
            if fast is not None:
                made = fast(payload)
                if made is not None:
                    return made
        return self._parse_with_schema(payload)

    def _parse_with_schema(self, payload: Mapping[str, Any]) -> Command:
        if not isinstance(payload, Mapping):
            raise MalformedCommand("a command must be a JSON object", {"_schema": ["not an object"]})
        kind = payload.get("type")
        if not isinstance(kind, str) or kind not in self._entries:
            wrong = (f"unknown command type “{kind}”" if isinstance(kind, str) else "a command needs a type" if kind is None
                     else f"a command's type is a word, not {json.dumps(kind, default=str)}")
            raise MalformedCommand(f"{wrong}; the commands are {', '.join(self.kinds)}", {"type": [f"unknown: {kind!r}"]})
        cls, schema = self._entries[kind]
        body = {k: v for k, v in payload.items() if k != "type"}
        try:
            loaded = schema.load(body)
        except marshmallow.ValidationError as exc:
            raise MalformedCommand(f"malformed {kind} command: {said(exc.messages_dict)}", exc.messages_dict) from exc
        return cls(**loaded)


def said(messages: Mapping[str, Any], within: str = "") -> str:
    """marshmallow's field messages as a sentence a person reads ("seat: not a valid integer; cost: missing"), not
    as a Python dict; nested fields by their dotted place (`outcomes.0.values`)."""
    parts: list[str] = []
    for field, found in messages.items():
        place = f"{within}.{field}" if within else str(field)
        if isinstance(found, Mapping):
            parts.append(said(found, place))
            continue
        for message in found if isinstance(found, list | tuple) else [found]:
            if isinstance(message, Mapping):  # a list's items, by index
                parts.append(said(message, place))
                continue
            text = str(message).rstrip(".")
            text = "missing" if text == "Missing data for required field" else text[:1].lower() + text[1:]
            parts.append(text if place == "_schema" else f"{place}: {text}")
    return "; ".join(parts)


def load_options(title: str, schema: marshmallow.Schema, options: Mapping[str, Any]) -> dict[str, Any]:
    """Setup options through the title's schema, before anything is dealt.

    A misspelt key or a value of the wrong kind is refused by name (rule
    `<title>/setup/options`, with marshmallow's messages as the facts) instead of being
    quietly ignored, so a game never starts under options nobody asked for.
    """
    if schema.unknown != marshmallow.RAISE:
        raise ValueError(f"the options schema of {title} must reject unknown keys")
    try:
        return schema.load(dict(options))
    except marshmallow.ValidationError as exc:
        raise RuleViolation(f"{title}/setup/options", f"bad setup options: {exc.messages}", errors=exc.messages) from exc
