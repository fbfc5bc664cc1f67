"""Teaching on finished records: annotations, what-if variations and lessons (issue 14).

Each of them is event-sourced beside the game's stream, never in it: one `Notes` stream per
record (annotations.py), one stream per variation (variations.py), one per lesson
(lessons.py), all saved through the same `Records` application, so they live in the same
store (SQLite or PostgreSQL). This module wires the three services together and says who is
asking: the record's annotator key (made with the record, handed out once, stored hashed),
a seat's token (for that seat's own private notes), or nobody (the public).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

if TYPE_CHECKING:
    from domain.records.application import Records

ANNOTATOR = "annotator"
SEAT = "seat"
PUBLIC = "public"

Publish = Callable[[str, dict[str, Any]], None]
"""(lesson id, message) -> None: how a lesson's live changes reach its students (api/live.py)."""


@dataclass(frozen=True)
class Who:
    """Who is asking about a record: its annotator, one of its seats, or the public."""

    kind: str
    seat: int | None = None

    @property
    def annotator(self) -> bool:
        return self.kind == ANNOTATOR


def who(records: Records, record_id: UUID, token: str | None) -> Who:
    """The reader a token makes of a record; a token that is neither its key nor a seat's is refused (403)."""
    with records.reading(record_id) as timeline:
        meta = timeline.meta
        assert meta is not None
        if token is None:
            return Who(PUBLIC)
        if records.is_annotator(meta, token):
            return Who(ANNOTATOR)
        return Who(SEAT, records.seat_of(meta, token))


class Teaching:
    """The three teaching services over one records application."""

    def __init__(self, records: Records, publish: Publish | None = None) -> None:
        from domain.records.annotations import Annotations
        from domain.records.lessons import Lessons
        from domain.records.variations import Variations

        self.records = records
        self.variations = Variations(records)
        self.notes = Annotations(records, self.variations)
        self.lessons = Lessons(records, self.variations, self.notes, publish)
