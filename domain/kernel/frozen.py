"""Deep-frozen JSON values, so events and editions can never be changed after the fact."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any


class FrozenDict(Mapping[str, Any]):
    """A read-only, hashable mapping with string keys."""

    __slots__ = ("_items", "_hash")

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items: dict[str, Any] = dict(items or {})
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(sorted(self._items.items())))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenDict({self._items!r})"


_SCALARS = frozenset({str, int, float, bool, type(None)})


def freeze(value: Any) -> Any:
    """Lists become tuples and dicts become FrozenDicts, all the way down."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if (kind is tuple or kind is list) and _SCALARS.issuperset(map(type, value)):
        return value if kind is tuple else tuple(value)  # flat: nothing inside to freeze (most event fields)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({str(k): freeze(v) for k, v in value.items()})
    raise TypeError(f"not a JSON value: {value!r} ({type(value).__name__})")


def frozen_init(cls: type, freeze_fields: Collection[str], freeze_any: bool) -> Callable[..., None] | None:
    """A faster `__init__` for a frozen, slotted dataclass whose own `__post_init__` only freezes.

    The dataclass's `__init__` sets each field through `object.__setattr__` and then calls
    `__post_init__`; events and commands are built for every step of every replay, so this one
    sets each slot through its descriptor and freezes in line: `freeze_fields` always, or, with
    `freeze_any`, any field holding a list or dict (the `Command.__post_init__` rule). None when
    a field has a default factory, is keyword-only or not in `__init__`: the dataclass's stays.
    """
    fields = dataclasses.fields(cls)
    if any(f.default_factory is not dataclasses.MISSING or f.kw_only or not f.init for f in fields):
        return None
    ns: dict[str, Any] = {"_freeze": freeze, "_isinstance": isinstance, "_list_dict": (list, dict)}
    params, body = [], []
    for i, f in enumerate(fields):
        slot: Any = getattr(cls, f.name, None)
        if type(slot).__name__ != "member_descriptor":
            return None
        ns[f"_set{i}"] = slot.__set__
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            ns[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        if f.name in freeze_fields:
            value = f"_freeze({f.name})"
        elif freeze_any:
            value = f"_freeze({f.name}) if _isinstance({f.name}, _list_dict) else {f.name}"
        else:
            value = f.name
        body.append(f"    _set{i}(self, {value})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    exec(source, ns)  # noqa: S102 - generated from the dataclass's own field names, as dataclasses does
    init: Callable[..., None] = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def thaw(value: Any) -> Any:
    """The inverse of freeze: plain lists and dicts, ready for json.dumps."""
    if isinstance(value, tuple):
        return [thaw(v) for v in value]
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    return value
