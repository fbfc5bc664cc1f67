"""The event-sourced records application: game records and imports (see application.py)."""

from domain.records.application import Records
from domain.records.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    RecordsError,
    Refused,
    Unauthorized,
    WrongKey,
)

__all__ = ["Conflict", "Forbidden", "Invalid", "NotFound", "Records", "RecordsError", "Refused", "Unauthorized", "WrongKey"]
