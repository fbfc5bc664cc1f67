"""The event-sourced records application: game records and imports (see application.py)."""

from domain.records.application import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Records,
    RecordsError,
    Refused,
    Unauthorized,
    WrongKey,
)

__all__ = ["Conflict", "Forbidden", "Invalid", "NotFound", "Records", "RecordsError", "Refused", "Unauthorized", "WrongKey"]
