"""Imports through RQ workers, the cuts of issue 12's last figure: several imports a job (each with its
own status, report and record), a plain notation file's extras read without reading the record back,
and tag values that used to stop the parser with a traceback."""

from __future__ import annotations

import json
import random
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import pytest

from domain import catalog, transcripts
from domain.kernel.notation import parse
from domain.kernel.selfplay import play_random
from domain.records import Records, lessonfile
from domain.records.errors import Invalid, NotFound
from domain.records.readmodels_imports import ImportReport
from domain.records.teaching import Teaching
from domain.transcripts import render_log, without_study
from tests.service.helpers import record_stored_then_killed
from workers.dispatch import hand_over_many
from workers.jobs import run_validations

SEATS = ["Ada", "Bruno", "Chiara", "Dario"]


def _text(seed: str, players: int = 2, title: str = "citta-stato") -> str:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": players}, seed)
    return render_log(title, edition, played.entries, SEATS[:players], {"players": players}, played.scores)


@pytest.fixture(scope="module")
def plain() -> list[str]:
    return [_text("batch-1"), _text("batch-2", 3, "la-citta"), _text("batch-3", 2, "serenissima")]


def _has_study(text: str) -> bool:
    found = parse(text)
    return bool(found.variations or found.comments or any(m.comments for t in found.turns for m in t.moves))


# ---- a plain file needs no second reading --------------------------------------------------------


def test_a_rendered_game_is_told_plain_and_a_study_is_not(plain: list[str]) -> None:
    for text in plain:
        assert without_study(text) and not _has_study(text)
        coloured = text.replace('[Seats "Ada, Bruno', '[Seats "Ada (red) {x}, Bruno', 1)  # header values hold anything
        assert coloured != text and without_study(coloured)
    text = plain[0]
    lines = text.split("\n")
    turn = next(k for k, line in enumerate(lines) if line[:1].isdigit())
    studies = [
        text.replace(lines[turn], lines[turn] + " {a note}", 1),
        text.replace(lines[turn], lines[turn] + " !?", 1),
        text.replace(lines[turn], lines[turn] + "!", 1),
        text.replace(lines[turn], lines[turn] + "\n(\n" + lines[turn] + "\n)", 1),
        text.replace(lines[turn], "{a note on a line of its own}\n" + lines[turn], 1),
    ]
    for study in studies:
        assert _has_study(study), study
        assert not without_study(study)


def test_plain_is_never_said_of_a_file_with_notes_or_variations(plain: list[str]) -> None:
    """The shortcut may say "maybe" of a plain file, never "plain" of a study: random edits of real files."""
    rng = random.Random(12)
    bits = ["{x}", "!", "?", " ?", "?!", " !!", "(", ")", "\n(\n", "\n)\n", '"', "[", "]", " [?] ", "{", "}", "%", "\n", "\\"]
    said_plain = 0
    for _ in range(600):
        text = rng.choice(plain)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text))
            text = text[:at] + rng.choice(bits) + text[at:]
        if without_study(text):
            said_plain += 1
            assert not _has_study(text), text
    assert said_plain > 50  # the test must be able to fail: plenty of edited files are still plain


def test_a_plain_notation_import_reads_nothing_back(records: Records, plain: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14's extras cost a plain file a read of the whole record and a second parse: no more."""
    import_id, _ = records.imports.submit_notation(plain[0])

    def no_reading(*_: Any) -> Any:
        raise AssertionError("a plain file's extras read the record back")

    monkeypatch.setattr(lessonfile, "_notation_extras", no_reading)
    report = records.imports.validate(import_id)
    assert report.ok and "extras" not in report.stored


# ---- several imports a job -------------------------------------------------------------------------


def test_a_batch_job_gives_each_import_its_own_verdict_and_record(records: Records, plain: list[str]) -> None:
    broken = plain[0].replace("[Result ", '[Result "Ada 999, Bruno 0"]\n[Was ', 1)
    texts = [plain[0].replace("[Title ", '[Date "2026.11.23"]\n[Title ', 1), broken, plain[1]]
    ids = [records.imports.submit_notation(text)[0] for text in texts]
    answer = run_validations(records, ids)
    assert answer == {"imports": {str(ids[0]): True, str(ids[1]): False, str(ids[2]): True}}
    found = [records.imports.status(i).to_json() for i in ids]
    assert [f["status"] for f in found] == ["accepted", "rejected", "accepted"]
    assert found[0]["record_id"] != found[2]["record_id"] and found[1]["record_id"] is None
    assert any(f["rule"] == "notation/result" for f in found[1]["report"]["findings"])
    for f in (found[0], found[2]):
        assert records.reading.summary(UUID(f["record_id"])).id == f["record_id"]
    assert run_validations(records, ids) == answer  # again (a job run twice): nothing changes
    assert [records.imports.status(i).record_id for i in ids] == [f["record_id"] for f in found]


def test_a_batch_job_goes_on_past_a_failing_import_and_then_fails(records: Records, plain: list[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [records.imports.submit_notation(text)[0] for text in plain[:3]]
    real, real_many = records.imports.get, records.imports.get_many

    def flaky(import_id: UUID) -> Any:  # the batch's reads fail with it, then each alone is tried
        if import_id == ids[1]:
            raise OSError("the store went away")
        return real(import_id)

    def flaky_many(import_ids: list[UUID]) -> Any:
        if ids[1] in import_ids:
            raise OSError("the store went away")
        return real_many(import_ids)

    monkeypatch.setattr(records.imports, "get", flaky)
    monkeypatch.setattr(records.imports, "get_many", flaky_many)
    with pytest.raises(OSError):
        run_validations(records, ids)
    monkeypatch.setattr(records.imports, "get", real)
    monkeypatch.setattr(records.imports, "get_many", real_many)
    assert [records.imports.status(i).status for i in ids] == ["accepted", "submitted", "accepted"]


def _appends(records: Records, monkeypatch: pytest.MonkeyPatch) -> list[set[UUID]]:
    """The streams of each append to the event store from now on (on PostgreSQL each one locks the table)."""
    appends: list[set[UUID]] = []
    insert = records.recorder.insert_events

    def counted(stored_events: list[Any], **kwargs: Any) -> Any:
        appends.append({e.originator_id for e in stored_events})
        return insert(stored_events, **kwargs)

    monkeypatch.setattr(records.recorder, "insert_events", counted)
    return appends


def _without_id(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k != "record_id"}


def test_a_batch_is_stored_in_two_appends_with_the_verdicts_each_alone_gives(
        records: Records, plain: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every import of a batch marked validating in one append, then every verdict, with each accepted game's
    record, in one more: two locks of the event table a batch, not two a file."""
    broken = plain[0].replace("[Result ", '[Result "Ada 999, Bruno 0"]\n[Was ', 1)
    texts = [plain[0], broken, plain[1], plain[2]]
    ids = [records.imports.submit_notation(text)[0] for text in texts]
    appends = _appends(records, monkeypatch)
    answer = run_validations(records, ids)
    together = list(appends)
    assert answer == {"imports": {str(ids[0]): True, str(ids[1]): False, str(ids[2]): True, str(ids[3]): True}}
    found = [records.imports.status(i).to_json() for i in ids]
    made = {UUID(f["record_id"]) for f in found if f["record_id"]}
    assert len(made) == 3
    assert together == [set(ids), set(ids) | made]
    for text, batched in zip(texts, found, strict=True):  # what the same file imported alone is told and given
        alone = records.imports.validate(records.imports.submit_notation(text)[0])
        assert _without_id(batched["report"]) == _without_id(alone.stored)
        if alone.ok:
            mine, theirs = records.reading.summary(UUID(batched["record_id"])), records.reading.summary(UUID(alone.record_id))
            assert (mine.steps, mine.finished, mine.scores) == (theirs.steps, theirs.finished, theirs.scores)


def test_a_batch_whose_save_conflicts_stores_nothing_and_goes_each_its_own_way(
        records: Records, plain: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An earlier attempt at one import (a worker of the version before, killed between its record and its
    verdict) left that record stored: the batch's one save conflicts and stores nothing, then each import is
    judged alone; nothing is stored twice."""
    ids = [records.imports.submit_notation(text)[0] for text in plain]
    record_stored_then_killed(records, ids[1])
    left = UUID(records.reading.summary(uuid5(NAMESPACE_URL, f"cronaca:import:{ids[1]}")).id)
    stored = len(list(records.events.get(left)))
    alone: list[UUID] = []
    judge = records.imports.judge

    def spied(import_id: UUID) -> tuple[ImportReport, bool]:
        alone.append(import_id)
        return judge(import_id)

    monkeypatch.setattr(records.imports, "judge", spied)
    assert run_validations(records, ids) == {"imports": {str(i): True for i in ids}}
    assert alone == ids  # the conflict sent every one its own way
    found = [records.imports.status(i).to_json() for i in ids]
    assert [f["status"] for f in found] == ["accepted"] * 3
    assert found[1]["record_id"] == str(left) and len(list(records.events.get(left))) == stored


def test_a_batch_sends_a_file_with_notes_and_a_failing_one_their_own_way(
        records: Records, plain: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A file with notes (attached after its record exists) and one whose record cannot be built (a bug: an
    internal-error verdict) are judged alone; the rest of the batch is stored together."""
    lines = plain[1].split("\n")
    turn = next(k for k, line in enumerate(lines) if line[:1].isdigit())
    noted = plain[1].replace(lines[turn], lines[turn] + " {a note}", 1)
    ids = [records.imports.submit_notation(text)[0] for text in (plain[0], noted, plain[2])]
    build = records.imports._build_imported

    def broken(record_id: UUID, *args: Any, **kwargs: Any) -> Any:
        if record_id == uuid5(NAMESPACE_URL, f"cronaca:import:{ids[2]}"):
            raise RuntimeError("a bug met by one file")
        return build(record_id, *args, **kwargs)

    monkeypatch.setattr(records.imports, "_build_imported", broken)
    alone: list[UUID] = []
    judge = records.imports.judge
    monkeypatch.setattr(records.imports, "judge", lambda i: alone.append(i) or judge(i))
    appends = _appends(records, monkeypatch)
    assert run_validations(records, ids) == {"imports": {str(ids[0]): True, str(ids[1]): True, str(ids[2]): False}}
    assert alone == ids[1:]
    found = [records.imports.status(i).to_json() for i in ids]
    assert appends[:2] == [set(ids), {ids[0], UUID(found[0]["record_id"])}]
    assert "extras" not in found[1]["report"]
    notes = Teaching(records).notes.all_notes(UUID(found[1]["record_id"]))
    assert [n["text"] for n in notes] == ["a note"]
    assert found[2]["report"]["rule"] == "import/internal-error" and found[2]["record_id"] is None


def test_an_import_is_read_without_asking_the_snapshots(records: Records, plain: list[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Imports are never snapshotted: reading one is one query of its events, not a snapshot query first; an id
    that is not an import's is no import."""
    import_id, _ = records.imports.submit_notation(plain[0])
    report = records.imports.validate(import_id)
    assert records.snapshots is not None

    def no_snapshots(*_: Any, **__: Any) -> Any:
        raise AssertionError("an import read asked the snapshot table")

    monkeypatch.setattr(records.snapshots, "get", no_snapshots)
    found = records.imports.get(import_id)
    assert found.status == "accepted" and found.report == report.stored
    with pytest.raises(NotFound):
        records.imports.get(UUID(report.record_id))
    with pytest.raises(NotFound):
        records.imports.get(uuid5(NAMESPACE_URL, "no such import"))


class Batches:
    """A dispatcher that takes batches, and refuses from the `refuse_from`-th job on (the queue went down)."""

    def __init__(self, refuse_from: int | None = None) -> None:
        self.jobs: list[list[UUID]] = []
        self.refuse_from = refuse_from

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        return self.enqueue_many([import_id], attempt)

    def enqueue_many(self, import_ids: list[UUID], attempt: int) -> str:
        if self.refuse_from is not None and len(self.jobs) >= self.refuse_from:
            raise ConnectionError("redis is down")
        self.jobs.append(list(import_ids))
        return f"batch-{len(self.jobs)}-{attempt}"

    def lost(self, job_id: str) -> bool:
        return False


def test_hand_over_many_queues_batches_and_marks_each_import(records: Records, plain: list[str]) -> None:
    ids = [records.imports.submit_notation(plain[k % 3])[0] for k in range(5)]
    dispatcher = Batches()
    assert hand_over_many(records, dispatcher, ids, 1, batch=2) == 5
    assert dispatcher.jobs == [ids[:2], ids[2:4], ids[4:]]
    records.directory.catch_up()
    summaries = [records.directory.imports[i] for i in ids]
    assert [s.job_id for s in summaries] == ["batch-1-1", "batch-1-1", "batch-2-1", "batch-2-1", "batch-3-1"]
    assert {records.imports.get(i).status for i in ids} == {"queued"}

    later = [records.imports.submit_notation(plain[k % 3])[0] for k in range(4)]
    down = Batches(refuse_from=1)
    assert hand_over_many(records, down, later, 1, batch=2) == 2  # the rest waits for the relay
    assert [records.imports.get(i).status for i in later] == ["queued", "queued", "submitted", "submitted"]


def test_a_batch_is_marked_queued_in_one_append_and_a_taken_import_goes_its_own_way(
        records: Records, plain: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`hand_over_many` marks a batch's imports queued in one append (one lock of the event table a batch, not one
    an import); when a worker took the job first and appended to one of them, that save stores nothing and each is
    marked on its own: every import queued exactly once, the taken one still validating."""
    ids = [records.imports.submit_notation(plain[k % 3])[0] for k in range(4)]
    appends = _appends(records, monkeypatch)
    assert hand_over_many(records, Batches(), ids, 1, batch=4) == 4
    assert appends == [set(ids)]
    assert [(records.imports.get(i).status, records.imports.get(i).attempts) for i in ids] == [("queued", 1)] * 4

    later = [records.imports.submit_notation(plain[k % 3])[0] for k in range(3)]
    read = records.imports.get_many

    def worker_takes_one_first(import_ids: list[UUID]) -> dict[UUID, Any]:
        found = read(import_ids)
        records.imports.mark_validating(import_ids[1])  # the job was on the queue already: a worker took it meanwhile
        return found

    monkeypatch.setattr(records.imports, "get_many", worker_takes_one_first)
    appends.clear()
    assert hand_over_many(records, Batches(), later, 1, batch=3) == 3
    monkeypatch.setattr(records.imports, "get_many", read)
    # the worker's validating, the batch's append (refused whole), then each import alone
    assert appends == [{later[1]}, set(later), {later[0]}, {later[1]}, {later[2]}]
    queued = [[e for e in records.events.get(i) if type(e).__name__ == "Queued"] for i in later]
    assert [len(q) for q in queued] == [1, 1, 1]
    assert [records.imports.get(i).status for i in later] == ["queued", "validating", "queued"]


def test_record_files_submitted_together_take_one_append_and_a_refused_one_none(
        records: Records, monkeypatch: pytest.MonkeyPatch) -> None:
    """`Records.imports.submit_many`: the files `submit` takes are saved in one append, each its own import with its own
    tokens and keys; a file `submit` refuses is answered with the same refusal and stores nothing."""
    from tests.service.helpers import record_file

    good = [record_file("citta-stato", "many-1"), record_file("serenissima", "many-2")]
    bad = {**record_file("la-citta", "many-3"), "mode": "sideways"}
    appends = _appends(records, monkeypatch)
    answers = records.imports.submit_many([(good[0], "a1", "r1"), (bad, None, None), (good[1], None, "r2")])
    assert isinstance(answers[1], Invalid) and answers[1].facts["rule"] == "file/mode"
    with pytest.raises(Invalid) as alone:
        records.imports.submit(bad)
    assert alone.value.message == answers[1].message
    made = [answer for answer in answers if not isinstance(answer, Invalid)]
    assert len(made) == 2 and appends == [{import_id for import_id, _ in made}]
    for (import_id, tokens), document in zip(made, good, strict=True):
        found = records.imports.get(import_id)
        assert found.document == json.dumps(document, separators=(",", ":")) and len(tokens) == len(document["seats"])
        assert records.imports.status(import_id, tokens[0]).status == "submitted"
    assert records.imports.get(made[0][0]).annotator_hash and not records.imports.get(made[1][0]).annotator_hash


# ---- tag values the parser used to choke on ---------------------------------------------------------


@pytest.mark.parametrize("value", ['C:\\\\giochi\\\\partita', "a\\qb", "x\\u12", "tab\there"])
def test_a_tag_with_any_backslash_or_tab_is_read_not_a_traceback(value: str, plain: list[str]) -> None:
    text = plain[0].replace("[Title ", f'[Place "{value}"]\n[Title ', 1)
    notation, findings = transcripts.precheck(text)
    assert notation is not None and not findings
    place = notation.tag("Place")
    assert place is not None and place.replace("\\", "").replace("\t", "") != ""
    assert transcripts.check_text(text).ok


def test_a_bad_escape_in_a_header_is_a_finding_with_its_line(records: Records) -> None:
    with pytest.raises(Invalid) as refused:
        records.imports.submit_notation('[Title "citta\\-stato"]\n[Seats "Ada, Bruno"]\n1. Ada: pass\n')
    assert refused.value.facts["rule"] == "notation/title"


def test_a_verdict_is_counted_once_by_the_run_that_gave_it(records: Records) -> None:
    """`cronaca_imports_total`: every run an attempt; accepted (or rejected) only for the run that stored the
    verdict, read from that run's own outcome (`Records.imports.judge`), not from a second read of the import."""
    from workers import metrics
    from workers.jobs import run_validation

    def count(outcome: str) -> float:
        return metrics.IMPORTS.labels(outcome=outcome)._value.get()

    from tests.service.helpers import play_out

    before = {o: count(o) for o in ("attempts", "accepted", "rejected")}
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="counted")
    play_out(records, record_id, tokens)
    good = records.reading.export(record_id).to_json()
    accepted, _ = records.imports.submit(good)
    refused, _ = records.imports.submit({**good, "entries": good["entries"][:-1]})  # still claims the final scores
    for import_id in (accepted, refused, accepted, refused):  # each run twice: the second finds its verdict
        run_validation(records, import_id)
    assert records.imports.get(accepted).report["ok"] and not records.imports.get(refused).report["ok"]
    assert {o: count(o) - before[o] for o in before} == {"attempts": 4, "accepted": 1, "rejected": 1}
