"""What `Records.verification` answers: a record's verification and a stream's chain, typed (readmodels.py's kin).

Each verdict's `to_json()` is the API's answer (`GET /api/records/{id}/verify`), key for key and in the same
order; the problems are plain JSON objects whose keys say where (`step`, `version`, `entry`, `index`) and
what (`what`, `rule`, `facts`), as docs/trust.md lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NO_CHAIN = "no chain (stored before chains)"


@dataclass(frozen=True, slots=True)
class ChainVerdict:
    """A stream's hash chain recomputed from its stored rows: `ok` None for a stream stored before chains
    (then `note` says so), else whether every stored link fits; `head` and `length` as recomputed."""

    ok: bool | None
    head: str | None
    length: int
    problems: list[dict[str, Any]]
    note: str | None = None

    @classmethod
    def absent(cls) -> ChainVerdict:
        return cls(None, None, 0, [], NO_CHAIN)

    def to_json(self) -> dict[str, Any]:
        """As `verify_stream` answers, and each of a record's other streams in `Verification.streams`."""
        out: dict[str, Any] = {"ok": self.ok, "head": self.head, "length": self.length, "problems": self.problems}
        if self.ok is None:
            out["note"] = self.note
        return out

    def as_part(self) -> dict[str, Any]:
        """The game stream's chain inside a record's verification: its head and length are the answer's own."""
        out: dict[str, Any] = {"ok": self.ok, "problems": self.problems}
        if self.ok is None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class NotesVerdict:
    """A record's notes stream as one reader of the game in progress may learn of it: the verdict on the events
    of the notes it may read, never the stream's head, length or versions (verification.notes_as_read)."""

    ok: bool | None
    view_of: str  # "public" or "seat:<n>"
    events: int
    problems: list[dict[str, Any]]  # {"event", "what"}
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "view_of": self.view_of, "events": self.events, "problems": self.problems}
        if self.ok is None:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class ReplayVerdict:
    """The stored log re-decided by the rules, as an import is: its first finding at its step; once it holds,
    how many entries and game events the rules gave."""

    ok: bool
    problems: list[dict[str, Any]]  # {"step", "rule", "what"}, with "entry" and (finished) "facts" from the checker
    entries: int | None = None
    events: int | None = None

    def to_json(self) -> dict[str, Any]:
        if not self.ok:
            return {"ok": False, "problems": self.problems}
        return {"ok": True, "problems": self.problems, "entries": self.entries, "events": self.events}


@dataclass(frozen=True, slots=True)
class RecordVerdict:
    """A record verified from its stored rows: its chain, its log re-decided, and its other streams' chains
    (notes and rulings; in progress, the notes as the reader may learn of them)."""

    ok: bool
    chain: ChainVerdict
    replay: ReplayVerdict
    streams: dict[str, ChainVerdict | NotesVerdict]  # "notes", "rulings": only those the record has

    @property
    def problems(self) -> list[str]:
        """Every problem in words, the chain's first, then the replay's, then each stream's (named)."""
        said = [str(p.get("what", "")) for p in self.chain.problems]
        said += [str(p.get("what", "")) for p in self.replay.problems]
        said += [f"{name}: {p.get('what', '')}" for name, stream in self.streams.items() for p in stream.problems]
        return said

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "head": self.chain.head, "length": self.chain.length, "chain": self.chain.as_part(),
                "replay": self.replay.to_json(), "streams": {name: s.to_json() for name, s in self.streams.items()}}
