"""Imports through RQ workers, the cuts of issue 12's last figure: several imports a job (each with its
own status, report and record), a plain notation file's extras read without reading the record back,
and tag values that used to stop the parser with a traceback."""

from __future__ import annotations

import random
from typing import Any
from uuid import UUID

import pytest

from domain import catalog, transcripts
from domain.kernel.notation import parse
from domain.kernel.selfplay import play_random
from domain.records import Records, lessonfile
from domain.records.application import Invalid
from domain.transcripts import render_log, without_study
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
    import_id, _ = records.submit_notation(plain[0])

    def no_reading(*_: Any) -> Any:
        raise AssertionError("a plain file's extras read the record back")

    monkeypatch.setattr(lessonfile, "_notation_extras", no_reading)
    report = records.validate_import(import_id)
    assert report["ok"] and "extras" not in report


# ---- several imports a job -------------------------------------------------------------------------


def test_a_batch_job_gives_each_import_its_own_verdict_and_record(records: Records, plain: list[str]) -> None:
    broken = plain[0].replace("[Result ", '[Result "Ada 999, Bruno 0"]\n[Was ', 1)
    texts = [plain[0].replace("[Title ", '[Date "2026.11.23"]\n[Title ', 1), broken, plain[1]]
    ids = [records.submit_notation(text)[0] for text in texts]
    answer = run_validations(records, ids)
    assert answer == {"imports": {str(ids[0]): True, str(ids[1]): False, str(ids[2]): True}}
    found = [records.import_status(i) for i in ids]
    assert [f["status"] for f in found] == ["accepted", "rejected", "accepted"]
    assert found[0]["record_id"] != found[2]["record_id"] and found[1]["record_id"] is None
    assert any(f["rule"] == "notation/result" for f in found[1]["report"]["findings"])
    for f in (found[0], found[2]):
        assert records.summary(UUID(f["record_id"]))["id"] == f["record_id"]
    assert run_validations(records, ids) == answer  # again (a job run twice): nothing changes
    assert [records.import_status(i)["record_id"] for i in ids] == [f["record_id"] for f in found]


def test_a_batch_job_goes_on_past_a_failing_import_and_then_fails(records: Records, plain: list[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [records.submit_notation(text)[0] for text in plain[:3]]
    real = records.judge_import

    def flaky(import_id: UUID) -> tuple[dict[str, Any], bool]:
        if import_id == ids[1]:
            raise OSError("the store went away")
        return real(import_id)

    monkeypatch.setattr(records, "judge_import", flaky)
    with pytest.raises(OSError):
        run_validations(records, ids)
    assert [records.import_status(i)["status"] for i in ids] == ["accepted", "submitted", "accepted"]


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
    ids = [records.submit_notation(plain[k % 3])[0] for k in range(5)]
    dispatcher = Batches()
    assert hand_over_many(records, dispatcher, ids, 1, batch=2) == 5
    assert dispatcher.jobs == [ids[:2], ids[2:4], ids[4:]]
    records.directory.catch_up()
    summaries = [records.directory.imports[i] for i in ids]
    assert [s.job_id for s in summaries] == ["batch-1-1", "batch-1-1", "batch-2-1", "batch-2-1", "batch-3-1"]
    assert {records.get_import(i).status for i in ids} == {"queued"}

    later = [records.submit_notation(plain[k % 3])[0] for k in range(4)]
    down = Batches(refuse_from=1)
    assert hand_over_many(records, down, later, 1, batch=2) == 2  # the rest waits for the relay
    assert [records.get_import(i).status for i in later] == ["queued", "queued", "submitted", "submitted"]


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
        records.submit_notation('[Title "citta\\-stato"]\n[Seats "Ada, Bruno"]\n1. Ada: pass\n')
    assert refused.value.facts["rule"] == "notation/title"


def test_a_verdict_is_counted_once_by_the_run_that_gave_it(records: Records) -> None:
    """`cronaca_imports_total`: every run an attempt; accepted (or rejected) only for the run that stored the
    verdict, read from that run's own outcome (`Records.judge_import`), not from a second read of the import."""
    from workers import metrics
    from workers.jobs import run_validation

    def count(outcome: str) -> float:
        return metrics.IMPORTS.labels(outcome=outcome)._value.get()

    from tests.service.helpers import play_out

    before = {o: count(o) for o in ("attempts", "accepted", "rejected")}
    record_id, tokens = records.start("toy", ["Ada", "Ben"], seed="counted")
    play_out(records, record_id, tokens)
    good = records.export(record_id)
    accepted, _ = records.submit(good)
    refused, _ = records.submit({**good, "entries": good["entries"][:-1]})  # still claims the final scores
    for import_id in (accepted, refused, accepted, refused):  # each run twice: the second finds its verdict
        run_validation(records, import_id)
    assert records.get_import(accepted).report["ok"] and not records.get_import(refused).report["ok"]
    assert {o: count(o) - before[o] for o in before} == {"attempts": 4, "accepted": 1, "rejected": 1}
