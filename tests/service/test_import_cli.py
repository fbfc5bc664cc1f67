"""`cronaca import` on the embedded default (SQLite, no Redis): many files saved as uploads are, then judged
here 20 a job by the workers' own batch job; one JSON line a file. (With Redis and a real worker:
tests/service/test_workers.py.)"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from click.testing import CliRunner

from api.cli import cronaca
from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.imports import Imports
from domain.records.settings import Settings
from domain.transcripts import render_log


def _notation(seed: str, title: str = "citta-stato", players: int = 2) -> str:
    game = catalog.game(title)
    played = play_random(game, game.default_edition(), {"players": players}, seed)
    return render_log(title, game.default_edition(), played.entries, ["Ada", "Bruno", "Chiara"][:players],
                      {"players": players}, played.scores)


def _environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **more: str) -> dict[str, str]:
    """The command's store (a fresh SQLite file) and whatever else, in the environment it reads; no Redis unless given."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "records.sqlite3"), **more}
    monkeypatch.delenv("REDIS_URL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def _written(tmp_path: Path, texts: list[str]) -> list[Path]:
    paths = [tmp_path / f"game-{k}.txt" for k in range(len(texts))]
    for path, text in zip(paths, texts, strict=True):
        path.write_text(text)
    return paths


def test_many_files_are_imported_here_in_batches_each_with_its_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _environment(tmp_path, monkeypatch)
    good = [_notation("cli-1"), _notation("cli-2", "la-citta", 3), _notation("cli-3", "serenissima")]
    paths = _written(tmp_path, good)
    records = Records(Settings.from_env(env).store)
    try:
        document = records.reading.export(UUID(records.imports.validate(records.imports.submit_notation(good[0])[0]).record_id)).to_json()
    finally:
        records.close()
    (tmp_path / "export.json").write_text(json.dumps(document))
    paths.append(tmp_path / "export.json")
    (tmp_path / "claims.txt").write_text(good[1].replace("[Result ", '[Result "Ada 999, Bruno 0, Chiara 1"]\n[Was ', 1))
    paths.append(tmp_path / "claims.txt")  # read at once, refused by the rules in the job: rejected
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01 not a text")
    paths.append(tmp_path / "binary.txt")  # refused at its name, nothing stored
    batches: list[int] = []
    judge = Imports.judge_many

    def counted(self: Imports, ids: list[UUID]) -> Any:
        batches.append(len(ids))
        return judge(self, ids)

    monkeypatch.setattr(Imports, "judge_many", counted)
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "3"])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths))
    assert [line.get("status") for line in lines] == ["accepted"] * 4 + ["rejected", None]
    assert lines[4]["rule"] == "notation/result"
    assert "NUL" in lines[5]["error"] and not lines[5].get("import_id")
    assert batches == [3, 2]  # five saved files, judged three and two a job
    records = Records(Settings.from_env(env).store)
    try:
        for line in lines[:4]:
            assert records.reading.summary(UUID(line["record_id"])).finished
            assert len(line["seats"]) == len(records.reading.summary(UUID(line["record_id"])).seats)
    finally:
        records.close()


@pytest.mark.redis
def test_each_batch_is_queued_as_soon_as_it_is_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With REDIS_URL (the real server), a batch is queued right after its files are saved: saved all first, the
    relay would take each import older than its grace for one it must queue itself, one job each (found by hand:
    248 of 400 imports queued twice)."""
    import redis
    from rq import Queue

    import workers.dispatch

    queue = f"cronaca-test-{uuid.uuid4().hex[:10]}"
    env = _environment(tmp_path, monkeypatch, REDIS_URL="redis://127.0.0.1:6379/0", CRONACA_QUEUE=queue)
    paths = _written(tmp_path, [_notation(f"queued-{k}") for k in range(5)])
    said: list[str] = []
    submit, hand_over_many = Imports.submit_notation, workers.dispatch.hand_over_many

    def saved(self: Imports, *args: Any, **kwargs: Any) -> Any:
        said.append("saved")
        return submit(self, *args, **kwargs)

    def queued(*args: Any, **kwargs: Any) -> int:
        said.append(f"queued {len(args[2])}")
        return hand_over_many(*args, **kwargs)

    monkeypatch.setattr(Imports, "submit_notation", saved)
    monkeypatch.setattr(workers.dispatch, "hand_over_many", queued)
    try:
        result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "2"])
        assert result.exit_code == 0, result.output
        assert said == ["saved", "saved", "queued 2", "saved", "saved", "queued 2", "saved", "queued 1"]
        assert [json.loads(line)["status"] for line in result.stdout.splitlines()] == ["queued"] * 5
        assert Queue(queue, connection=redis.Redis.from_url(env["REDIS_URL"])).count == 3
    finally:
        for name in (queue, f"{queue}-retries"):
            Queue(name, connection=redis.Redis.from_url(env["REDIS_URL"])).delete(delete_jobs=True)


def _failing_at_third_file(monkeypatch: pytest.MonkeyPatch, fail: Callable[[], None]) -> list[int]:
    """`Imports.submit_notation` calling `fail` when the third file is submitted (the others saved as ever);
    the calls so far, to be cleared for another run."""
    submit = Imports.submit_notation
    seen: list[int] = []

    def submitting(self: Imports, *args: Any, **kwargs: Any) -> Any:
        seen.append(1)
        if len(seen) == 3:
            fail()
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(Imports, "submit_notation", submitting)
    return seen


def test_a_run_that_stops_still_prints_the_lines_of_the_files_it_saved(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat tokens and keys are shown once, here: a run cut short (a failure, Ctrl-C) still prints the line, tokens
    included, of every file it saved, with its status as it stands."""
    _environment(tmp_path, monkeypatch)
    paths = _written(tmp_path, [_notation(f"stops-{k}") for k in range(4)])
    def disk_full() -> None:
        raise RuntimeError("the disk is full")

    seen = _failing_at_third_file(monkeypatch, disk_full)
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "2"])
    assert isinstance(result.exception, RuntimeError)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths[:2]))
    assert [line["status"] for line in lines] == ["accepted", "accepted"]  # the first batch, judged before the failure
    # and a failure in the middle of a batch: the files of that batch saved before it keep their lines too
    seen.clear()
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "4"])
    assert isinstance(result.exception, RuntimeError)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths[:2]))
    assert [line["status"] for line in lines] == ["submitted", "submitted"]  # saved, not yet judged
    assert all(len(line["seats"]) == 2 and line["annotator_key"] and line["arbiter_key"] and line["table_key"] for line in lines)


def test_a_store_that_fails_stops_the_run_with_a_line_for_every_file(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The store away past its own retries while saving the third of five files: no traceback; the run stops
    there, the two saved keep their lines and tokens (their status unread, the store not answering), the third
    says the store failed while saving it, the last two that they were not submitted; exit 1."""
    from eventsourcing.persistence import OperationalError

    _environment(tmp_path, monkeypatch)
    paths = _written(tmp_path, [_notation(f"away-{k}") for k in range(5)])
    def away(*_: Any, **__: Any) -> Any:
        raise OperationalError("connection failed: Connection refused")

    def store_goes() -> None:
        monkeypatch.setattr(Imports, "statuses", away)
        away()

    _failing_at_third_file(monkeypatch, store_goes)
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "2"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths))
    assert [line["status"] for line in lines[:2]] == ["saved", "saved"] and all("store" in line["status_unread"] for line in lines[:2])
    assert all(len(line["seats"]) == 2 and line["annotator_key"] for line in lines[:2])
    assert [line.get("rule") for line in lines[2:]] == ["store/unavailable"] * 3
    assert "failed while saving this file" in lines[2]["error"] and "Connection refused" in lines[2]["error"]
    assert all(line["error"] == f"not submitted: the store failed at {paths[2]}" for line in lines[3:])
    said = " ".join(result.stderr.split())
    assert "5 files: 3 not saved, 2 saved" in said and "2 files after it not submitted" in said


def _record_files(tmp_path: Path, count: int) -> list[Path]:
    from tests.service.helpers import record_file

    paths = []
    for k in range(count):
        paths.append(tmp_path / f"record-{k}.json")
        paths[-1].write_text(json.dumps(record_file("la-citta", f"cli-json-{k % 2}")))
    return paths


def test_record_files_in_a_row_are_saved_together_in_file_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Record files one after another are saved in one append (`Imports.submit_many`), a notation file or an
    unreadable file between them alone, and every line stays in the files' order, with its own tokens."""
    env = _environment(tmp_path, monkeypatch)
    records = _record_files(tmp_path, 4)
    notation = _written(tmp_path, [_notation("cli-between")])[0]
    unreadable = tmp_path / "broken.json"
    unreadable.write_text('{"format": ')
    paths = [records[0], records[1], notation, records[2], unreadable, records[3]]
    saves: list[int] = []
    many = Imports.submit_many

    def counted(self: Imports, files: Any) -> Any:
        saves.append(len(files))
        return many(self, files)

    monkeypatch.setattr(Imports, "submit_many", counted)
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "20"])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 1  # the unreadable file is refused
    assert [line["file"] for line in lines] == list(map(str, paths))
    assert saves == [2, 1, 1]  # two in a row, then one after the notation file, one after the unreadable file
    assert [line.get("status") for line in lines] == ["accepted", "accepted", "accepted", "accepted", None, "accepted"]
    assert lines[4]["rule"] == "file/read" and "JSON" in lines[4]["error"]
    tokens = [seat["token"] for line in lines if "seats" in line for seat in line["seats"]]
    assert len(tokens) == len(set(tokens)) == 2 * 5
    store = Records(Settings.from_env(env).store)
    try:
        for line in lines:
            if "import_id" in line:
                assert store.imports.status(UUID(line["import_id"]), line["seats"][0]["token"]).status == "accepted"
    finally:
        store.close()


def test_a_store_failing_while_record_files_are_saved_together_names_each_of_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store away while a chunk of record files is saved together: none of them saved, each one's line says
    the store failed while saving it, the files after them that they were not submitted; the chunk before keeps
    its lines and tokens; exit 1, no traceback."""
    from eventsourcing.persistence import OperationalError

    _environment(tmp_path, monkeypatch)
    paths = _record_files(tmp_path, 5)
    many = Imports.submit_many
    calls: list[int] = []

    def failing_second(self: Imports, files: Any) -> Any:
        calls.append(len(files))
        if len(calls) == 2:
            raise OperationalError("connection failed: Connection refused")
        return many(self, files)

    monkeypatch.setattr(Imports, "submit_many", failing_second)
    result = CliRunner().invoke(cronaca, ["import", *map(str, paths), "--batch", "2"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths))
    assert calls == [2, 2]
    assert [line["status"] for line in lines[:2]] == ["accepted", "accepted"] and all(line["seats"] for line in lines[:2])
    assert all("store failed while saving this file" in line["error"] for line in lines[2:4])
    assert all("not submitted" in line["error"] for line in lines[4:])
