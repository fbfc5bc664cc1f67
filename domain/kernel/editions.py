"""Editions: every printed number lives in a data file, identified by id and content hash.

An edition file is YAML with four top-level keys:

    id: reference-1            # the edition's name
    title: citta-stato         # which game it is for
    data: {...}                # the numbers; validated by the title's marshmallow schema
    provenance:                # where each number comes from, by dotted path into data
      tracks.yellow.values: "rule 000 'instead of 2' (space 2); others assumed, linear"

Every provenance note starts with its tag: rule, inferred, assumed or public. A record pins
the id and the SHA-256 of the file's bytes in its first event, so an old record always
replays with the numbers it was played with.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import marshmallow
import yaml

from domain.kernel.frozen import FrozenDict, freeze

TAGS = ("rule", "inferred", "assumed", "public")

T = TypeVar("T")
_DERIVED: dict[tuple[Callable[[Any], Any], str], Any] = {}


class EditionError(ValueError):
    """An edition file that cannot be used, with the place that is wrong."""


@dataclass(frozen=True, slots=True)
class Edition:
    id: str
    title: str
    content_hash: str
    data: FrozenDict
    provenance: FrozenDict

    @property
    def ref(self) -> dict[str, str]:
        """What a record pins: enough to find this exact file again."""
        return {"id": self.id, "content_hash": self.content_hash}

    def tagged(self, tag: str) -> list[tuple[str, str]]:
        """The (path, note) pairs with this tag, e.g. every [assumed] value for the docs."""
        return [(path, note) for path, note in self.provenance.items() if note.split()[0].strip("[]:") == tag]


def content_hash(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _resolve(data: Any, path: str) -> bool:
    node = data
    for part in path.split("."):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, Mapping) and part.isdigit() and int(part) in node or isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 10x the pure-Python loader
_PARSED: dict[tuple[str, str, str], Edition] = {}  # (title, content hash, source) -> the validated edition
_PARSED_MAX = 64
_DERIVED_MAX = 256  # a few builds (tables, a board) for each of the editions parsed


def _plain_yaml(raw: bytes) -> Any:
    """YAML without anchors and aliases: an edition file is written by hand and needs none, and a
    few nested aliases in an uploaded file would expand to gigabytes (the "billion laughs")."""
    for token in yaml.scan(raw, Loader=_LOADER):
        if isinstance(token, yaml.AliasToken | yaml.AnchorToken):
            raise yaml.YAMLError(f"line {token.start_mark.line + 1}: anchors and aliases (&name, *name) are not "
                                 "allowed in an edition file")
    return yaml.load(raw, Loader=_LOADER)  # noqa: S506  (a safe loader; aliases refused above)


def parse_edition(raw: bytes, title: str, schema: marshmallow.Schema, source: str = "<edition>") -> Edition:
    """Validate an edition file's bytes for `title`; EditionError says where it is wrong.

    An edition is immutable, so the same bytes give the same object: parsed once per process
    (a title's default edition is asked for at every setup and every check)."""
    key = (title, content_hash(raw), source)
    found = _PARSED.get(key)
    if found is not None:
        return found
    edition = _parse(raw, title, schema, source)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.pop(next(iter(_PARSED)))
    _PARSED[key] = edition
    return edition


def _parse(raw: bytes, title: str, schema: marshmallow.Schema, source: str) -> Edition:
    try:
        doc = _plain_yaml(raw)
    except yaml.YAMLError as exc:
        raise EditionError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(doc, Mapping):
        raise EditionError(f"{source}: an edition file must be a mapping with id, title, data, provenance")
    missing = [k for k in ("id", "title", "data", "provenance") if k not in doc]
    if missing:
        raise EditionError(f"{source}: missing top-level keys {missing}")
    if doc["title"] != title:
        raise EditionError(f"{source}: this edition is for {doc['title']!r}, not {title!r}")
    try:
        data = schema.load(doc["data"])
    except marshmallow.ValidationError as exc:
        raise EditionError(f"{source}: data does not fit the {title} edition schema: {exc.messages}") from exc
    provenance = doc["provenance"] or {}
    for path, note in provenance.items():
        if not isinstance(note, str) or note.split()[0].strip("[]:") not in TAGS:
            raise EditionError(f"{source}: provenance of {path!r} must start with one of {TAGS}, got {note!r}")
        if not _resolve(doc["data"], str(path)):
            raise EditionError(f"{source}: provenance names {path!r}, which is not in data")
    return Edition(
        id=str(doc["id"]),
        title=title,
        content_hash=content_hash(raw),
        data=freeze(_string_keys(data)),
        provenance=freeze({str(k): v for k, v in provenance.items()}),
    )


def _string_keys(value: Any) -> Any:
    """YAML gives int keys for {2: 3}; JSON cannot keep them, so editions use strings."""
    if isinstance(value, Mapping):
        return {str(k): _string_keys(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_string_keys(v) for v in value]
    return value


def load_edition_file(path: Path, title: str, schema: marshmallow.Schema) -> Edition:
    return parse_edition(path.read_bytes(), title, schema, source=str(path))


def derived(edition: Edition, build: Callable[[Edition], T]) -> T:
    """What a title works out from an edition (lookup tables, a board), built once per content hash.

    Every state of every record played with that file shares the one copy, and an edited
    file (a new hash) gets its own.
    """
    key = (build, edition.content_hash)
    found = _DERIVED.get(key)
    if found is None:
        while len(_DERIVED) >= _DERIVED_MAX:  # a table's own edition files come and go: the oldest built goes first
            _DERIVED.pop(next(iter(_DERIVED)))
        found = _DERIVED[key] = build(edition)
    return found
