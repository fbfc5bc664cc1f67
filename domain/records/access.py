"""Who reads or acts on a record: a token opens a seat, or is the record's annotator, arbiter or table key.

The table key (a game at the table, "mode": "transcribed") is one device's key for every seat: it acts
for whichever seat must decide, and reads what the table sees (the public view: nobody's hidden hand).

Every read of a record starts the same way: its timeline held still, its metadata, and the seat the
caller's token opens (a wrong token refused, never ignored). `Access.read_as` is that preamble, once.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from domain.records.errors import WrongKey
from domain.records.timeline import Meta, Timeline

if TYPE_CHECKING:
    from domain.records.application import Records

ANNOTATOR = "annotator"
SEAT = "seat"
PUBLIC = "public"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_tokens(n: int) -> list[str]:
    return [secrets.token_urlsafe(24) for _ in range(n)]


def seat_in(token_hashes: list[str], token: str | None, of: str = "record") -> int | None:
    """The seat a token opens among these hashes (a record's or an import's), None for no token; a wrong
    token is refused, never ignored."""
    if token is None:
        return None
    digest = token_hash(token)
    for seat, known in enumerate(token_hashes):
        if secrets.compare_digest(known, digest):
            return seat
    raise WrongKey(f"this token opens no seat of this {of}")


@dataclass(frozen=True)
class Who:
    """Who is asking about a record: its annotator, one of its seats, or the public."""

    kind: str
    seat: int | None = None

    @property
    def annotator(self) -> bool:
        return self.kind == ANNOTATOR


class Access:
    """Tokens against a record's stored hashes, and its timeline held still while it is read."""

    def __init__(self, records: Records) -> None:
        self.records = records

    @contextmanager
    def reading(self, record_id: UUID) -> Iterator[Timeline]:
        """The record's timeline, held still while it is read.

        Another thread may be absorbing new rows into the same timeline (its event list,
        entries and checkpoints grow together); a reader holding the lock sees them whole.
        """
        timeline = self.records.timeline(record_id)
        with timeline.lock:
            yield timeline

    @contextmanager
    def read_as(self, record_id: UUID, token: str | None) -> Iterator[tuple[Timeline, Meta, int | None]]:
        """`reading`, with the record's metadata and the seat the token opens (None: no token; a token that
        opens no seat is refused, even where the answer would not depend on it)."""
        timeline = self.records.timeline(record_id)
        with timeline.lock:  # as `reading`, written out: every read of a step passes here
            meta = timeline.meta
            assert meta is not None
            yield timeline, meta, self.seat_of(meta, token)

    @contextmanager
    def read_meta(self, record_id: UUID) -> Iterator[tuple[Timeline, Meta]]:
        """`reading`, with the record's metadata (NotFound for no such record): `read_as` for an answer that takes
        no token (the annotator's and the arbiter's own keys are checked against `meta`)."""
        with self.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            yield timeline, meta

    def meta(self, record_id: UUID) -> Meta:
        """The record's metadata (NotFound for no such record)."""
        with self.read_meta(record_id) as (_, meta):
            return meta

    def check(self, record_id: UUID, token: str | None) -> None:
        """Refuse a token that opens no seat of the record (NotFound for no record), for an answer that
        does not depend on the seat."""
        with self.read_as(record_id, token):
            pass

    def seat_of(self, meta: Meta, token: str | None) -> int | None:
        """The seat a token opens, None for no token or the table key (it reads as the public); a wrong token is
        refused, never ignored."""
        if self.is_table(meta, token):
            return None
        return seat_in(meta.token_hashes, token)

    def is_table(self, meta: Meta, token: str | None) -> bool:
        """Whether a token is this record's table key (a game at the table: it acts for any seat)."""
        table = getattr(meta, "table_hash", None)
        if token is None or table is None:
            return False
        return secrets.compare_digest(table, token_hash(token))

    def is_annotator(self, meta: Meta, token: str | None) -> bool:
        """Whether a token is this record's annotator key (never a seat's token)."""
        if token is None or meta.annotator_hash is None:
            return False
        return secrets.compare_digest(meta.annotator_hash, token_hash(token))

    def is_arbiter(self, meta: Meta, token: str | None) -> bool:
        """Whether a token is this record's arbiter key (who may record rulings)."""
        if token is None or meta.arbiter_hash is None:
            return False
        return secrets.compare_digest(meta.arbiter_hash, token_hash(token))

    def who(self, record_id: UUID, token: str | None) -> Who:
        """The reader a token makes of a record; a token that is neither its key nor a seat's is refused (403)."""
        with self.read_meta(record_id) as (_, meta):
            if token is None or self.is_table(meta, token):  # the table key reads what the table sees
                return Who(PUBLIC)
            if self.is_annotator(meta, token):
                return Who(ANNOTATOR)
            return Who(SEAT, self.seat_of(meta, token))
