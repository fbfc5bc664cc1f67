"""The errors every service of the records application raises, each with the status the HTTP edge maps.

A module of their own so that no service imports another (or the application) for them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from domain import catalog
from domain.kernel import Reader, RuleViolation
from domain.kernel.report_words import plain, verbs_of


def first_line(exc: BaseException) -> str:
    """An exception's first line (its type's name when it says nothing): what a one-line log or message
    quotes of a store's fault, whose text may run to a query and its context."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class RecordsError(Exception):
    """Base of what the service refuses, each with a status the HTTP edge maps directly."""

    status = 400
    title: str | None = None  # the problem's title at the HTTP edge; None: the status's own
    said: str | None = None  # the message in the table's words (players by name), where it differs

    def __init__(self, message: str, **facts: Any) -> None:
        super().__init__(message)
        self.message = message
        self.facts = facts


class NotFound(RecordsError):
    status = 404


class Conflict(RecordsError):
    status = 409


class Forbidden(RecordsError):
    status = 403


class Unauthorized(RecordsError):
    status = 401


class WrongKey(Forbidden):
    """A credential that opens nothing here: no seat's token, not the annotator's, arbiter's or teacher's key.
    The HTTP edge counts each against the asker's budget of failures (api/throttle.py); a valid token asking
    for what it may not do (another seat's command) stays a plain Forbidden and is never counted."""


class Invalid(RecordsError):
    status = 422


class TooLarge(RecordsError):
    """A record file beyond the service's size limit (CRONACA_MAX_UPLOAD_BYTES)."""

    status = 413
    title = "Content Too Large"


class AlreadySubmitted(Exception):
    """A submission retried with its Idempotency-Key: the import it made the first time (docs/api.md)."""

    def __init__(self, import_id: UUID) -> None:
        super().__init__(f"submitted before as import {import_id}")
        self.import_id = import_id


class Refused(Invalid):
    """The rules refuse a command: the violation as its reader may read it (kernel.violations).

    The rules write for whoever sent the command ("seat 1 decides now (political-turn), not seat 0"); a
    table reads names and the game's words. Given the record's title and seats, `said` is the same sentence
    as a dispute report words it (kernel.report_words.plain), made from what the reader may read only."""

    title = "Rule violation"

    def __init__(self, violation: RuleViolation, reader: Reader, title: str | None = None,
                 seats: Sequence[str] = (), seat: int | None = None) -> None:
        shown = violation.to_json(reader)
        super().__init__(shown["message"], **{**shown["facts"], "rule": violation.rule})
        self.rule = violation.rule
        if title is not None and seats and isinstance(shown["message"], str):
            words = catalog.words(title)
            said = plain(shown["message"], seats, verbs_of(words.vocabulary.by_kind), words.terms, True, seat)
            self.said = said if said != shown["message"] else None

