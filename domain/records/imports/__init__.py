"""Imports: a file submitted (submit.py), judged by the rules in a job (judge.py), in batches (batches.py), and
its status (statuses.py). Each step extends the one before; `Imports` is all of them, as `Records.imports`."""

from domain.records.imports.batches import Batches
from domain.records.imports.judge import imported_record_id


class Imports(Batches):
    """Every import of one records application, from its submission to its verdict."""


__all__ = ["Imports", "imported_record_id"]
