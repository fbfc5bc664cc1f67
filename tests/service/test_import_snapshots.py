"""An imported record is stored in one save, its snapshots taken from the aggregate in memory:
they must be the very snapshots the library would take by reading the record back (issue 12,
imports through RQ workers), on SQLite and on PostgreSQL (rows sent in binary)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from domain import catalog
from domain.kernel import Entry
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.aggregates import Record
from domain.transcripts import render_log
from tests.service.helpers import record_stored_then_killed


def _imported(records: Records, seed: str) -> tuple[UUID, Any]:
    game = catalog.game("citta-stato")
    edition = game.default_edition()
    played = play_random(game, edition, {"players": 4}, seed)
    text = render_log("citta-stato", edition, played.entries, ["Ada", "Bruno", "Chiara", "Dario"], {"players": 4},
                      played.scores)
    import_id, _ = records.imports.submit_notation(text)
    report = records.imports.validate(import_id)
    assert report.ok, report.stored.get("summary")
    return UUID(report.record_id), played


def test_snapshots_taken_in_memory_are_the_librarys(records: Records) -> None:
    record_id, _ = _imported(records, "snapshots-1")
    stored = list(records.events.get(record_id))
    interval = records.snapshotting_intervals[Record]
    assert len(stored) > 2 * interval  # a game long enough for two snapshots or more
    assert records.snapshots is not None
    snapshots = list(records.snapshots.get(record_id))
    assert [s.originator_version for s in snapshots] == list(range(interval, len(stored) + 1, interval))
    for snapshot in snapshots:
        # What Application.take_snapshot would put: the record folded from its stored events alone.
        folded = None
        for event in stored[: snapshot.originator_version]:
            folded = event.mutate(folded)
        expected = Record.Snapshot.take(folded)
        assert snapshot.topic == expected.topic
        assert snapshot.state == expected.state
    # and the repository, starting from the last snapshot, gives the record as its events do
    assert vars(records.repository.get(record_id)) == vars(folded_all(stored))


def folded_all(stored: list[Any]) -> Any:
    folded = None
    for event in stored:
        folded = event.mutate(folded)
    return folded


def test_imported_record_ends_where_its_log_ends(records: Records) -> None:
    """The record's end (finished, scores) comes from the checker's last state, not from a second
    fold: it must be what folding the stored log gives."""
    record_id, played = _imported(records, "snapshots-2")
    record = records.repository.get(record_id)
    game = catalog.game("citta-stato")
    state = game.begin(game.default_edition())
    for entry in records.reading.export(record_id).entries:
        for event in Entry.from_json(entry).events:
            state = game.evolve(state, event)
    assert record.finished == game.pending(state).over
    assert record.scores == game.scores(state)
    assert record.steps == sum(len(e.events) for e in played.entries)


def test_a_record_and_its_verdict_are_stored_in_one_save(records: Records) -> None:
    """A file that is a game alone: the import marked validating (one append), then its record and its verdict
    together (one more): never a record stored without its verdict, one lock of the event table fewer."""
    game = catalog.game("la-citta")
    played = play_random(game, game.default_edition(), {"players": 3}, "one-save")
    text = render_log("la-citta", game.default_edition(), played.entries, ["Ada", "Bruno", "Chiara"], {"players": 3},
                      played.scores)
    import_id, _ = records.imports.submit_notation(text)
    appends: list[set[UUID]] = []
    insert = records.recorder.insert_events

    def counted(stored_events: list[Any], **kwargs: Any) -> Any:
        appends.append({e.originator_id for e in stored_events})
        return insert(stored_events, **kwargs)

    records.recorder.insert_events = counted  # type: ignore[method-assign]
    try:
        report = records.imports.validate(import_id)
    finally:
        del records.recorder.insert_events
    assert report.ok
    assert appends == [{import_id}, {import_id, UUID(report.record_id)}]
    assert records.imports.get(import_id).report == report.stored


def test_an_import_whose_worker_died_after_storing_its_record_is_concluded_by_the_next_attempt(records: Records) -> None:
    """A worker of the version before (the record saved first, the verdict after) killed between the two: the
    next attempt finds the record there (its one-save conflicts), stores nothing twice, and concludes."""
    game = catalog.game("serenissima")
    played = play_random(game, game.default_edition(), {"players": 2}, "died-between")
    text = render_log("serenissima", game.default_edition(), played.entries, ["Ada", "Bruno"], {"players": 2},
                      played.scores)
    import_id, _ = records.imports.submit_notation(text)
    record_stored_then_killed(records, import_id)
    left = records.imports.get(import_id)
    assert left.report is None and left.status == "validating"
    record_id = UUID(str(_record_id_of(import_id)))
    stored = len(list(records.events.get(record_id)))
    report = records.imports.validate(import_id)
    assert report.ok and report.record_id == str(record_id)
    assert records.imports.get(import_id).report == report.stored
    assert len(list(records.events.get(record_id))) == stored  # nothing stored twice
    assert records.verification.verify(record_id).ok


def _record_id_of(import_id: UUID) -> UUID:
    from uuid import NAMESPACE_URL, uuid5

    return uuid5(NAMESPACE_URL, f"cronaca:import:{import_id}")
