"""Submitting an import: a record file or a notation file saved as an import (the outbox) after its shape is
checked, with its seats' tokens; the rules judge it later, in a job (judge.py). `import_checked` judges at once."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from eventsourcing.persistence import IntegrityError

from domain import transcripts
from domain.kernel.report_words import counted
from domain.kernel.violations import ALL, reveal
from domain.records import chain as chains
from domain.records import recordfile
from domain.records.access import new_tokens, token_hash
from domain.records.aggregates import NOTATION, Import, RequestKey
from domain.records.errors import AlreadySubmitted, Invalid, TooLarge
from domain.records.imports.judge import Judging, imported_record_id
from domain.records.settings import Limits


def table_of(table_key: str | None) -> str | None:
    """The Import's table key hash, when one is handed out (an import saved before them has none)."""
    return token_hash(table_key) if table_key else None


class Submitting(Judging):
    """New imports, one at a time; batches.py submits many together."""

    def submit(self, document: Any, annotator_key: str | None = None, arbiter_key: str | None = None,
               idempotency_key: str | None = None, table_key: str | None = None) -> tuple[UUID, list[str]]:
        """Save an import (the outbox) after shape checks; the rules judge it in a job.

        With an `idempotency_key`, a retry of a submission that was saved raises `AlreadySubmitted` with the
        import it made (one import, hence one record, whatever the retries); another body under the same key
        is refused (422 idempotency/reused). `table_key` (made by the caller, handed out once) goes to the record
        if the file's game is still in progress (`table_hash`)."""
        header, _, stored = self._checked_file(document)
        keyed = self.records.idempotency.import_key(idempotency_key, stored)
        if keyed is not None and (before := self.records.idempotency.submitted_before(*keyed)) is not None:
            raise AlreadySubmitted(before)
        found, tokens = self._new_import(header, stored, annotator_key, arbiter_key, table_key)
        saved = self._save_import(found, keyed)
        if saved != found.id:
            raise AlreadySubmitted(saved)
        return found.id, tokens

    def _checked_file(self, document: Any) -> tuple[recordfile.Header, list[dict[str, Any]], str]:
        """A record file's header, its raw entries and the compact JSON an import stores, or the refusal `submit`
        answers."""
        try:
            header, raw = recordfile.parse(document, Limits.from_env(self.records.env))
        except recordfile.BadRecordFile as exc:
            refused = TooLarge if isinstance(exc, recordfile.FileTooLarge) else Invalid
            raise refused(exc.message, rule=exc.rule, **exc.facts) from exc
        return header, raw, header.compact or json.dumps(document, separators=(",", ":"))  # as parse measured it

    def _new_import(self, header: recordfile.Header, stored: str, annotator_key: str | None,
                    arbiter_key: str | None, table_key: str | None = None) -> tuple[Import, list[str]]:
        """A new import of a checked file, not saved, and its seats' tokens (shown once, by the caller)."""
        tokens = new_tokens(len(header.seats))
        return Import(document=stored, token_hashes=[token_hash(t) for t in tokens],
                      annotator_hash=token_hash(annotator_key) if annotator_key else None,
                      arbiter_hash=token_hash(arbiter_key) if arbiter_key else None,
                      chain=None if self.records.chain else chains.OFF, depth=header.depth,
                      table_hash=table_of(table_key)), tokens

    def _save_import(self, found: Import, keyed: tuple[UUID, str] | None) -> UUID:
        """Save a new import, with its RequestKey in the same transaction when keyed; returns the import that
        holds the key: this one, or the one a concurrent attempt with the same key saved a moment before."""
        if keyed is None:
            self.records.save(found)
            return found.id
        try:
            self.records.save(found, RequestKey(id=keyed[0], body=keyed[1], answer={"import": str(found.id)}))
        except IntegrityError:
            before = self.records.idempotency.submitted_before(*keyed)
            if before is None:
                raise
            return before
        return found.id

    def submit_notation(self, text: str, annotator_key: str | None = None, arbiter_key: str | None = None,
                        idempotency_key: str | None = None, table_key: str | None = None) -> tuple[UUID, list[str]]:
        """Save a notation file as an import. Its syntax and header are read at once: a file that
        fails there is stored as a rejected import with its report and refused (422, the report in
        the answer); the rules read the moves in the job, as for a record file. An `idempotency_key`
        as for `submit` (a retried refused file is refused again, naming the same import)."""
        limits = Limits.from_env(self.records.env)
        too_large = limits.notation_size(text)
        if too_large is not None:
            raise TooLarge(too_large, rule="file/limit", limit="CRONACA_MAX_NOTATION_BYTES")
        notation, findings = transcripts.precheck(text)
        seats = len(transcripts.seat_names(notation)) if notation is not None else 0
        if seats > limits.max_seats:
            raise Invalid(f"the file names {seats} seats; this service takes at most {limits.max_seats} (CRONACA_MAX_SEATS)",
                          rule="file/limit", limit="CRONACA_MAX_SEATS", value=seats)
        stored = json.dumps({"format": NOTATION, "text": text}, separators=(",", ":"))
        keyed = self.records.idempotency.import_key(idempotency_key, stored)
        before = self.records.idempotency.submitted_before(*keyed) if keyed is not None else None
        tokens = new_tokens(seats)
        found = Import(document=stored,
                       token_hashes=[token_hash(t) for t in tokens],
                       annotator_hash=token_hash(annotator_key) if annotator_key else None,
                       arbiter_hash=token_hash(arbiter_key) if arbiter_key else None,
                       chain=None if self.records.chain else chains.OFF, table_hash=table_of(table_key))
        if findings:
            report = transcripts.rejected_at_upload(findings)
            if before is None:
                found.reject(report=report)
                before = self._save_import(found, keyed)
            first = findings[0]
            raise Invalid(counted(f"{len(findings)} finding(s) before the moves were read; ") + f"the first: {first.message}",
                          rule=first.rule, import_id=str(before), report=reveal(report, ALL))
        if before is not None:
            raise AlreadySubmitted(before)
        saved = self._save_import(found, keyed)
        if saved != found.id:
            raise AlreadySubmitted(saved)
        return found.id, tokens

    def import_checked(self, document: Any, annotator_key: str | None = None, arbiter_key: str | None = None) -> UUID:
        """Check a record file now, by the same rules as an import's job, and create its record: a lesson
        file's records (lessonfile.import_lesson) are answered at once, a bad one a 422 naming its entry.
        The file's notes and variations are the caller's to attach. Its seats get no tokens (nobody would
        receive them): the annotator key reads every note."""
        header, raw, stored = self._checked_file(document)
        verdict = recordfile.check(header, raw, lambda t, ref, f: self.records.edition(t, ref, f))
        if not verdict.ok or verdict.entries is None:
            shown = reveal(verdict.report, ALL if verdict.report.get("file_says_finished") else None)
            raise Invalid(str(shown.get("message")), rule=shown.get("rule"), entry=shown.get("entry_index"),
                          event=shown.get("event_index"), **{"facts": shown.get("facts") or {}})
        found, _ = self._new_import(header, stored, annotator_key, arbiter_key)  # its seats' tokens handed to nobody
        record_id = imported_record_id(found.id)
        self._create_imported(record_id, header, verdict.entries, found.token_hashes, found.id, verdict.end, found.annotator_hash,
                              found.arbiter_hash, history=verdict.history)
        found.accept(record_id=str(record_id), report={**verdict.report, "record_id": str(record_id)})
        self.records.save(found)
        return record_id
