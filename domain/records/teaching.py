"""Teaching on finished records: annotations, what-if variations and lessons (issue 14).

Each of them is event-sourced beside the game's stream, never in it: one `Notes` stream per
record (annotations.py), one stream per variation (variations.py), one per lesson
(lessons.py), all saved through the same `Records` application, so they live in the same
store (SQLite or PostgreSQL). This module wires the three services together; who is asking
(the annotator key, a seat's token, the public) is `Records.access.who` (access.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.records.annotations import Annotations
from domain.records.lessons import Lessons, Publish
from domain.records.variations import Variations

if TYPE_CHECKING:
    from domain.records.application import Records


class Teaching:
    """The three teaching services over one records application."""

    def __init__(self, records: Records, publish: Publish | None = None) -> None:
        self.records = records
        self.variations = Variations(records)
        self.notes = Annotations(records, self.variations)
        self.lessons = Lessons(records, self.variations, self.notes, publish)
