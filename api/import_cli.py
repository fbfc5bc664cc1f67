"""`cronaca import FILE...`: many record and notation files at once (a tournament's, a club's archive).

Each file is saved as `POST /api/imports` saves it (the same checks and limits: a bad file is refused at its
name, with the rule, and the others go on), then judged 20 a job: with REDIS_URL queued for the workers
(`workers.dispatch.hand_over_many`; `--wait` for the verdicts), else here, in this process. A batch of 20 is
stored in two saves, not two each (`Records.imports.judge_many`), which is what lets two workers on two cores take
10,000 files in 60-70 s (docs/benchmarks.md, issue 16's sessions); an upload through the API is a job of its own.
When the store fails past its own retries the run stops at that file: every file gets its line (those not
tried say so), and what was saved is queued by the relay once the store is back.

What each file got is printed as one JSON line (`--out FILE` writes them there instead): its import id,
status, record id once judged, and the seat tokens and the annotator and arbiter keys of the record it makes.
Those are shown here only, once, as the API shows them: keep the output as the secret it is. A file's
refusal says why in the same line; the exit status is 1 when a file was refused or rejected.

click for the command (the project's command-line library), rich for the progress on standard error.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any
from uuid import UUID

import click
from eventsourcing.persistence import PersistenceError
from rich.progress import Progress

from api import terminal
from api.security import BadBody, load_json
from api.transcripts import bounded, notation_text
from domain.records import Records
from domain.records.access import new_tokens
from domain.records.aggregates import ACCEPTED, REJECTED
from domain.records.errors import RecordsError, TooLarge, first_line
from domain.records.settings import Settings
from workers import dispatch
from workers.dispatch import BATCH, RQDispatcher
from workers.jobs import run_validations

STORE_AWAY = "store/unavailable"  # a line's rule when the store failed at or before its file


def read_file(path: Path, settings: Settings) -> tuple[str, Any]:
    """("json", the parsed record file) or ("notation", its text), bounded as the API bounds an upload."""
    raw = path.read_bytes()
    if path.suffix.lower() == ".json" or raw.lstrip()[:1] == b"{":  # a notation file opens with a "[Tag"
        if len(raw) > settings.max_upload:
            raise TooLarge(f"the file is {len(raw)} bytes, more than this service takes ({settings.max_upload}, "
                           "CRONACA_MAX_UPLOAD_BYTES)", rule="file/limit", limit="CRONACA_MAX_UPLOAD_BYTES")
        try:
            return "json", load_json(raw)
        except BadBody as exc:
            raise click.ClickException(exc.detail.replace("the body", "the file", 1)) from exc
    try:
        text = notation_text(raw)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    return "notation", bounded(text)


def submit_files(records: Any, paths: Sequence[Path], settings: Settings, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Save each file as an import: a line per file, {file, import_id, seats, annotator_key, arbiter_key, table_key}, or
    {file, error, rule} when it is refused (nothing of it stored, unless a notation file's refusal, which is
    kept as a rejected import, as the API keeps it). Record files in a row are saved together, in one append
    (`Records.imports.submit_many`), a notation file alone. Each line goes into `lines` as soon as its file is saved,
    so that a failure later in the batch loses no file's tokens; the batch's lines are returned."""
    start = len(lines)
    waiting: list[tuple[dict[str, Any], Any, str, str, str]] = []  # record files read, to be saved together

    def save_waiting() -> bool:
        """The record files read so far, saved in one append; False when the store failed (their lines say so)."""
        if not waiting:
            return True
        try:
            answers = records.imports.submit_many([(body, annotator, arbiter, table)
                                                   for _, body, annotator, arbiter, table in waiting])
        except PersistenceError as exc:  # the store away past its own retries: none of them saved
            for line, *_ in waiting:
                lines.append(_store_away(line, exc))
            return False
        for (line, _, annotator, arbiter, table), answer in zip(waiting, answers, strict=True):
            if isinstance(answer, RecordsError):
                line.update(error=answer.message, rule=answer.facts.get("rule"), import_id=answer.facts.get("import_id"))
            else:
                import_id, tokens = answer
                _saved(line, import_id, tokens, annotator, arbiter, table)
            lines.append(line)
        waiting.clear()
        return True

    for path in paths:
        line: dict[str, Any] = {"file": str(path)}
        annotator, arbiter, table = new_tokens(3)  # the table's: an unfinished game goes on at the table
        try:
            kind, body = read_file(path, settings)
        except (click.ClickException, OSError, RecordsError) as exc:
            if not save_waiting():
                break
            line.update(error=exc.message if isinstance(exc, click.ClickException | RecordsError) else str(exc),
                        rule=exc.facts.get("rule") if isinstance(exc, RecordsError) else "file/read")
            lines.append(line)
            continue
        if kind != "notation":
            waiting.append((line, body, annotator, arbiter, table))
            continue
        if not save_waiting():
            break
        try:
            import_id, tokens = records.imports.submit_notation(body, annotator, arbiter, table_key=table)
        except PersistenceError as exc:
            lines.append(_store_away(line, exc))
            break
        except RecordsError as exc:
            line.update(error=exc.message, rule=exc.facts.get("rule"), import_id=exc.facts.get("import_id"))
        else:
            _saved(line, import_id, tokens, annotator, arbiter, table)
        lines.append(line)
    else:
        save_waiting()
    return lines[start:]


def _saved(line: dict[str, Any], import_id: Any, tokens: list[str], annotator: str, arbiter: str, table: str) -> None:
    line.update(import_id=str(import_id), seats=[{"seat": k, "token": t} for k, t in enumerate(tokens)],
                annotator_key=annotator, arbiter_key=arbiter, table_key=table)


def _store_away(line: dict[str, Any], exc: Exception) -> dict[str, Any]:
    line.update(error=f"the store failed while saving this file ({first_line(exc)}); it may not be saved: import it "
                      "again once the store is back", rule=STORE_AWAY)
    return line


def judge_here(records: Any, ids: list[UUID], batch: int) -> None:
    """The embedded default (no REDIS_URL): the workers' own job, a batch at a time, in this process."""
    for start in range(0, len(ids), batch):
        if ids[start:start + batch]:
            run_validations(records, ids[start:start + batch])


def wait_for_verdicts(records: Any, ids: list[UUID], seconds: float, progress: Any = None) -> None:
    """Wait until each import has its verdict or `seconds` have passed: the directory, caught up from the store's
    notification log, says each import's status (one read a look, not one an import, while workers write)."""
    left = set(ids)
    deadline = time.monotonic() + seconds
    while left and time.monotonic() < deadline:
        records.directory.catch_up()
        known = records.directory.imports
        done = {i for i in left if i in known and known[i].status in (ACCEPTED, REJECTED)}
        left -= done
        if progress is not None and done:
            progress(len(done))
        if left:
            time.sleep(0.5)


@contextmanager
def _output(out: str | None) -> Iterator[IO[str]]:
    if out is None:
        yield sys.stdout
        return
    with open(out, "w", encoding="utf-8") as stream:  # noqa: PTH123  (click's path, a plain file)
        os.chmod(out, 0o600)  # seat tokens and keys: the operator's to hand out, nobody else's to read
        yield stream


def _write(records: Any, lines: list[dict[str, Any]], out: str | None) -> bool:
    """Each file's line with its import's status as it stands, and a count on standard error; True when a file
    was refused or rejected."""
    refused = False
    unread = {"status": "saved", "status_unread": "the store did not answer; GET /api/imports/<id> tells"}
    ids = [UUID(line["import_id"]) for line in lines if "error" not in line]
    statuses: dict[UUID, dict[str, Any]] = {}
    for start in range(0, len(ids), 100):  # a query for 100 imports, not one an import
        try:
            statuses.update({k: found.to_json() for k, found in records.imports.statuses(ids[start:start + 100]).items()})
        except PersistenceError:  # the store away: the lines (their tokens shown only here) are written all the same
            continue
    with _output(out) as stream:
        for line in lines:
            if "error" not in line:
                status = statuses.get(UUID(line["import_id"]), unread)
                line.update(status=status["status"], record_id=status.get("record_id"), status_unread=status.get("status_unread"))
                if status["status"] == "rejected":
                    report = status.get("report") or {}
                    findings = report.get("findings") or [{}]
                    line.update(rule=report.get("rule") or findings[0].get("rule"))
            refused = refused or "error" in line or line.get("status") == "rejected"
            stream.write(json.dumps({k: v for k, v in line.items() if v is not None}) + "\n")
    counts: dict[str, int] = {}
    for line in lines:
        said = ("not saved" if line.get("rule") == STORE_AWAY else "refused") if "error" in line else line["status"]
        counts[said] = counts.get(said, 0) + 1
    terminal.console(stderr=True).print(terminal.line(f"{len(lines)} files: " + ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))))
    return refused


def add_commands(group: click.Group) -> None:
    """`cronaca import` (added to api/cli.py's group)."""

    @group.command(name="import", help="Import many record files (JSON) and notation files: each saved as the API "
                                       "saves an upload, then judged 20 a job (by the workers with REDIS_URL, else "
                                       "here). One JSON line a file: import id, status, record id, seat tokens and "
                                       "keys (secrets: shown once). Exit 1 when a file was refused or rejected.")
    @click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--batch", type=click.IntRange(1, 100), default=None, help="imports a job (default 20)")
    @click.option("--wait", type=float, default=None, help="with REDIS_URL: seconds to wait for the verdicts")
    @click.option("--out", type=click.Path(dir_okay=False), default=None,
                  help="write the JSON lines to this file (made readable by you alone), not standard output")
    def import_files(files: tuple[Path, ...], batch: int | None, wait: float | None, out: str | None) -> None:
        settings = Settings.from_env()
        size = batch or BATCH
        records = Records(settings.store)
        lines: list[dict[str, Any]] = []
        try:
            with Progress(console=terminal.console(stderr=True), transient=True) as bar:
                # A batch is saved and at once queued (or judged): all saved first, the relay would queue each
                # import older than its grace on its own, one job each (seen by hand, 248 of 400 queued twice).
                dispatcher = None
                if settings.redis_url:
                    dispatcher = RQDispatcher.from_settings(settings)
                saving = bar.add_task("saving and queuing" if dispatcher else "judging", total=len(files))
                ids: list[UUID] = []
                unqueued = 0
                stopped = False
                for start in range(0, len(files), size):
                    chunk = submit_files(records, files[start:start + size], settings, lines)
                    chunk_ids = [UUID(line["import_id"]) for line in chunk if "error" not in line]
                    ids += chunk_ids
                    if chunk[-1].get("rule") == STORE_AWAY:  # the rest not tried: a line each, saying so
                        left = files[start + len(chunk):]
                        lines += [{"file": str(path), "error": f"not submitted: the store failed at {chunk[-1]['file']}",
                                   "rule": STORE_AWAY} for path in left]
                        terminal.console(stderr=True).print(terminal.line((
                            f"stopped: {chunk[-1]['file']}: {chunk[-1]['error']}; {len(left)} files after it not "
                            "submitted (their lines say so); the relay queues those saved once the store is back", "red")))
                        stopped = True
                        break
                    if dispatcher is None:
                        judge_here(records, chunk_ids, size)
                    else:  # once the queue refuses, the rest are saved only: the relay queues them when it is back
                        unqueued += len(chunk_ids) - (0 if unqueued else dispatch.hand_over_many(records, dispatcher, chunk_ids, 1, size))
                    bar.advance(saving, len(chunk))
                if unqueued:
                    terminal.console(stderr=True).print(terminal.line((f"{unqueued} imports saved but not queued: the queue is "
                                                              "down; the relay (cronaca relay) queues them when Redis is back",
                                                              "yellow")))
                if dispatcher is not None and wait and not stopped:
                    judging = bar.add_task("judging", total=len(ids))
                    try:
                        wait_for_verdicts(records, ids, wait, lambda n: bar.advance(judging, n))
                    except KeyboardInterrupt:  # stop waiting, not importing: the lines (and their tokens) still come
                        terminal.console(stderr=True).print(terminal.line(("stopped waiting: the statuses below are as they stand",
                                                                  "yellow")))
                    except PersistenceError as exc:
                        terminal.console(stderr=True).print(terminal.line((f"stopped waiting: the store failed ({exc}); the "
                                                                  "statuses below are as they stand", "yellow")))
        finally:  # whatever stops the run, the files saved so far get their lines: their tokens are shown only here
            try:
                refused = _write(records, lines, out)
            finally:
                records.close()
        if refused:
            raise click.exceptions.Exit(1)
