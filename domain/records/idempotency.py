"""Request keys (the Idempotency-Key header, docs/api.md) shared by commands and imports.

A keyed request is saved in one transaction with a `RequestKey` aggregate whose id is made from the key's
scope and value, and which holds the hash of the request's body and what was answered. A retry through
any process finds it and is answered the same; the same key with another body is refused (422).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.application import AggregateNotFoundError

from domain.records.aggregates import RequestKey
from domain.records.errors import Invalid

if TYPE_CHECKING:
    from domain.records.application import Records


class Idempotency:
    """The request keys of one records application."""

    def __init__(self, records: Records) -> None:
        self.records = records

    @staticmethod
    def command_key(record_id: UUID, seat: int | str | None, key: str, payload: Mapping[str, Any],
                    expected_version: int | None, outcomes: Any, contribution: str | None) -> tuple[UUID, str]:
        """(the RequestKey's id, the body's hash) of a seat's keyed command: each seat has its own keys (the table key: "table")."""
        keyed = uuid5(NAMESPACE_URL, f"cronaca:idempotency:command:{record_id}:{seat}:{key}")
        body = hashlib.sha256(json.dumps({"command": payload, "version": expected_version, "outcomes": outcomes,
                                          "contribution": contribution}, sort_keys=True, separators=(",", ":"),
                                         default=str).encode()).hexdigest()
        return keyed, body

    @staticmethod
    def request_key(record_id: UUID, scope: str, key: str | None, body: Mapping[str, Any]) -> tuple[UUID, str] | None:
        """(the RequestKey's id, the body's hash) of a keyed request on a record other than a command (a table's
        setup, a withdrawal); None without a key. Each scope has its own keys."""
        if key is None:
            return None
        return (uuid5(NAMESPACE_URL, f"cronaca:idempotency:{scope}:{record_id}:{key}"),
                hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest())

    @staticmethod
    def import_key(idempotency_key: str | None, stored: str) -> tuple[UUID, str] | None:
        """(the RequestKey's id, the body's hash) of a keyed submission; imports share one scope of keys."""
        if idempotency_key is None:
            return None
        return (uuid5(NAMESPACE_URL, f"cronaca:idempotency:import:{idempotency_key}"),
                hashlib.sha256(stored.encode("utf-8", "surrogatepass")).hexdigest())

    def used(self, keyed: UUID, body: str, sent: str, made: str) -> RequestKey | None:
        """The RequestKey stored under this key's id, None if none; a retry must send the body the first did."""
        try:
            used: RequestKey = self.records.repository.get(keyed)
        except AggregateNotFoundError:
            return None
        if used.body != body:
            raise Invalid(f"this Idempotency-Key was first used with another {sent}: a retry sends the same body, "
                          f"a new {made} needs a new key", rule="idempotency/reused")
        return used

    def submitted_before(self, keyed: UUID, body: str) -> UUID | None:
        """The import a key's first submission saved, None if none; another body under that key is refused."""
        used = self.used(keyed, body, "file", "submission")
        return None if used is None else UUID(str(used.answer["import"]))
