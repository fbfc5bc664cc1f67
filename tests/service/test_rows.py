"""A record's game events stored from the bytes the chain hashed (domain/records/rows.py).

The short way must write rows the library reads back as it wrote them itself: the same fields, the
timestamp and entry in the transcoder's own form, and the game event byte for byte what the chain hashed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from eventsourcing.persistence import Cipher, Mapper

from domain import catalog
from domain.kernel.cache import every_cache
from domain.records import Records
from domain.records import chain as chains
from domain.records.aggregates import Record
from domain.records.rows import Encoded, RecordMapper
from domain.records.settings import Settings
from domain.records.timeline import HAPPENED, Timelines, select_stream
from tests.service.helpers import import_finished, play_out, record_file


def a_record(chain: str | None = "f" * 64) -> Record:
    return Record(id=uuid4(), title="toy", edition={"id": "e", "content_hash": "h"}, edition_file=None, seats=["Ada", "Ben"],
                  token_hashes=["a", "b"], options={}, mode="transcribed", commitment=None, seed=None, origin=None, chain=chain)


def recorded(record: Record) -> list[Any]:
    """Two log entries: a setup of two events with outcomes, a command with one event and a seat."""
    record.record({"outcomes": [{"kind": "roll", "values": [3], "by": "table"}], "setup": {"players": 2},
                   "events": [{"type": "toy/set", "data": {"z": [1, {"b": "è", "a": None}], "a": 1.5}},
                              {"type": "toy/dealt", "data": {"cards": ["x", "y"]}}]}, seat=None)
    record.record({"outcomes": [], "command": {"type": "toy/move", "seat": 1},
                   "events": [{"type": "toy/moved", "data": {"seat": 1, "to": "\u2028\""}}]}, seat=1)
    return record.collect_events()


def mappers(records: Records) -> tuple[RecordMapper, Mapper]:  # type: ignore[type-arg]
    ours = records.mapper
    assert isinstance(ours, RecordMapper)
    return ours, Mapper(transcoder=ours.transcoder, compressor=ours.compressor, cipher=ours.cipher)


def test_a_row_is_the_librarys_row_with_the_event_as_the_chain_hashed_it(tmp_path: Path) -> None:
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    ours, theirs = mappers(records)
    for chain in ("f" * 64, None):
        events = recorded(a_record(chain))
        happened = [e for e in events if type(e) is Record.Happened]
        assert len(happened) == 3 and all(type(e.event) is Encoded for e in happened)
        for e in happened:
            mine, library = ours.to_stored_event(e), theirs.to_stored_event(e)
            assert (mine.originator_id, mine.originator_version, mine.topic) == (
                library.originator_id, library.originator_version, library.topic)
            decoded = ours.transcoder.decode(mine.state)
            assert decoded == ours.transcoder.decode(library.state)  # the same fields and values
            assert list(decoded) == list(ours.transcoder.decode(library.state))  # in the same order
            assert json.dumps(decoded["event"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() \
                in mine.state  # the event as the chain's canonical form, spliced in
            assert e.event.canonical == chains.canonical(dict(e.event))
            if e.entry is not None and chain is not None:  # a head the chain hashed as it is: spliced in as hashed
                assert type(e.entry) is Encoded and e.entry.canonical == chains.head_bytes(dict(e.entry), "transcribed")
                assert b'"entry":' + e.entry.canonical + b',"seat":' in mine.state
            elif e.entry is not None:  # no chain, nothing hashed: the transcoder's bytes
                assert type(e.entry) is dict
            # byte for byte the library's row once the event's (and the hashed head's) own keys are in that order
            sorted_event = json.loads(e.event.canonical)
            sorted_entry = json.loads(e.entry.canonical) if type(e.entry) is Encoded else e.entry
            assert mine.state == theirs.to_stored_event(_with_event(e, sorted_event, sorted_entry)).state
            # and the library reads it back into the same event object
            back = ours.to_domain_event(mine)
            assert (back.event, back.entry, back.seat, back.chain, back.timestamp) == (
                dict(e.event), e.entry, e.seat, e.chain, e.timestamp)
    records.close()


def test_events_carried_by_their_bytes_make_the_rows_and_links_their_objects_make(tmp_path: Path) -> None:
    """An import gives `Record.record` its events as `CanonicalEvent`s (chain.event_bytes of the rules' objects):
    the same links and, row for row, the same stored bytes as the same entries given as JSON objects; such an
    event still reads as the object its bytes are."""
    from domain.records.rows import CanonicalEvent

    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    ours, _ = mappers(records)
    entries = [({"outcomes": [{"kind": "roll", "values": [3], "by": "table"}], "setup": {"players": 2}},
                [{"type": "toy/set", "data": {"z": [1, {"b": "è", "a": None}], "a": 1.5}},
                 {"type": "toy/dealt", "data": {"cards": ["x", "y"]}}], None),
               ({"outcomes": [{"kind": "roll", "values": [2]}], "command": {"type": "toy/move", "seat": 1}},
                [{"type": "toy/moved", "data": {"seat": 1, "to": "\u2028\""}}], 1)]
    given, carried = a_record(), a_record()
    stamp = Record.Happened.create_timestamp()
    for head, events, seat in entries:
        given.record({**head, "events": events}, seat=seat, stamp=stamp)
        carried.record({**head, "events": [CanonicalEvent(chains.canonical(e)) for e in events]}, seat=seat, stamp=stamp)
    theirs = [e for e in given.collect_events() if type(e) is Record.Happened]
    mine = [e for e in carried.collect_events() if type(e) is Record.Happened]
    assert all(type(e.event) is CanonicalEvent for e in mine) and len(mine) == len(theirs) == 3
    assert [e.chain for e in mine] == [e.chain for e in theirs] and None not in [e.chain for e in mine]
    assert [r.state for r in ours.to_stored_events(mine)] == [r.state for r in ours.to_stored_events(theirs)]
    assert [dict(e.event) for e in mine] == [e for _, events, _ in entries for e in events]
    assert mine[2].event["data"]["to"] == "\u2028\"" and len(mine[0].event) == 2 and list(mine[1].event) == ["data", "type"]
    records.close()


def test_a_head_the_chain_marks_before_hashing_is_stored_as_given(tmp_path: Path) -> None:
    """An outcome without its `by` is hashed marked (chain.entry_head) but stored as the entry gave it: that
    head goes the transcoder's way, and the record still verifies."""
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    ours, _ = mappers(records)
    record = a_record()
    given = {"outcomes": [{"kind": "roll", "values": [3]}], "command": {"type": "toy/move", "seat": 1}}
    record.record({**given, "events": [{"type": "toy/moved", "data": {"seat": 1}}]}, seat=1)
    happened = [e for e in record.collect_events() if type(e) is Record.Happened]
    assert type(happened[0].entry) is dict and happened[0].entry == given
    state = ours.to_stored_event(happened[0]).state
    assert b'"entry":{"outcomes":[{"kind":"roll","values":[3]}],"command":{"type":"toy/move","seat":1}}' in state
    marked = chains.head_bytes(given, "transcribed")
    assert b'"by"' in marked and happened[0].chain == chains.links_of("f" * 64, 1, [happened[0].event.canonical], marked)[0]
    records.close()


def test_an_export_shows_each_command_type_first(tmp_path: Path) -> None:
    """Heads stored canonical (keys sorted) read back with each command's `type` first, as an event's."""
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="rows")
    play_out(records, record_id, tokens)
    commands = [e["command"] for e in records.reading.export(record_id).entries if "command" in e]
    assert commands and all(next(iter(c)) == "type" for c in commands)
    records.close()


def _with_event(e: Any, event: dict[str, Any], entry: Any = ...) -> Any:
    return type(e)(originator_id=e.originator_id, originator_version=e.originator_version, timestamp=e.timestamp,
                   event=event, entry=e.entry if entry is ... else entry, seat=e.seat, chain=e.chain)


def test_other_events_and_plain_happened_go_the_librarys_way(tmp_path: Path) -> None:
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    ours, theirs = mappers(records)
    events = recorded(a_record())
    started = events[0]
    assert ours.to_stored_event(started).state == theirs.to_stored_event(started).state
    plain = _with_event(events[1], {"type": "toy/set", "data": {"z": 1, "a": 2}})  # a dict, not Encoded
    assert ours.to_stored_event(plain).state == theirs.to_stored_event(plain).state
    assert b'"data":{"z":1,"a":2}' in ours.to_stored_event(plain).state  # the library's order: not the short way
    records.close()


def test_a_saves_rows_made_in_one_loop_are_those_made_one_at_a_time(tmp_path: Path) -> None:
    """RecordMapper.to_stored_events (what RecordEventStore.put stores): for game events with their bytes, others,
    a plain Happened and a head the chain marked, row for row what to_stored_event makes."""
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    ours, _ = mappers(records)
    record = a_record()
    events = list(recorded(record))
    record.record({"outcomes": [{"kind": "roll", "values": [2]}], "command": {"type": "toy/move", "seat": 0},
                   "events": [{"type": "toy/moved", "data": {"seat": 0}}]}, seat=0)
    events += record.collect_events()
    events.append(_with_event(events[1], {"type": "toy/set", "data": {"z": 1, "a": 2}}))
    assert {type(e.event) for e in events if type(e) is Record.Happened} == {Encoded, dict}
    assert any(type(e) is not Record.Happened for e in events)
    one_by_one = [ours.to_stored_event(e) for e in events]
    assert ours.to_stored_events(events) == one_by_one
    assert [bytes(r.state) for r in ours.to_stored_events(events)] == [bytes(r.state) for r in one_by_one]
    records.close()


class ReversingCipher(Cipher):
    """A stand-in cipher (the library's AES needs pycryptodome, which the service does not install): what matters
    here is that the short way hands its row to the store's cipher like the library's way does."""

    def __init__(self, environment: Any) -> None:
        self.key = environment.get("CIPHER_KEY")

    def encrypt(self, plaintext: bytes) -> bytes:
        return b"rev:" + plaintext[::-1]

    def decrypt(self, ciphertext: bytes) -> bytes:
        assert ciphertext.startswith(b"rev:"), ciphertext[:10]
        return ciphertext[4:][::-1]


def test_a_compressed_and_enciphered_store_reads_what_it_wrote(tmp_path: Path) -> None:
    """The short way still goes through the store's compressor and cipher, as the library's does."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "r.sqlite3"),
           "COMPRESSOR_TOPIC": "eventsourcing.compressor:ZlibCompressor",
           "CIPHER_TOPIC": "tests.service.test_rows:ReversingCipher", "CIPHER_KEY": "k"}
    records = Records(Settings.from_env(env).store)
    assert records.mapper.compressor is not None and records.mapper.cipher is not None
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="rows")
    play_out(records, record_id, tokens)
    assert records.verification.verify(record_id).ok
    stored = [bytes(s) for _, topic, s in select_stream(records.recorder, record_id) if topic.endswith(HAPPENED)]
    assert stored and not any(b'"event"' in s for s in stored)  # enciphered on disk
    again = Records(Settings.from_env(env).store)
    assert again.reading.export(record_id) == records.reading.export(record_id)
    assert again.repository.get(record_id).steps == records.reading.summary(record_id).steps
    records.close()
    again.close()


def test_an_imported_record_stores_what_its_links_hash_and_exports_type_first(records: Records) -> None:
    record_id, _ = import_finished(records, record_file("citta-stato", "rows-1"))
    rows = [(bytes(s), json.loads(bytes(s))) for _, topic, s in select_stream(records.recorder, record_id)
            if topic.endswith(HAPPENED)]
    assert len(rows) > 100
    for raw, payload in rows:
        assert b'"event":' + chains.canonical(payload["event"]) + b',"entry":' in raw
    assert len({payload["timestamp"]["_data_"] for _, payload in rows}) == 1  # one save, one time
    exported = records.reading.export(record_id).to_json()
    events = [e for entry in exported["entries"] for e in entry["events"]]
    assert events == [payload["event"] for _, payload in rows]
    assert all(list(e) == ["type", "data"] for e in events)  # as the kernel writes an event, not as it is hashed
    loaded = records.repository.get(record_id)  # the library's own way back: every row folded through `happen`
    assert (loaded.steps, loaded.entries, loaded.chain_head) == (len(rows), len(exported["entries"]), exported["chain"]["head"])


def test_a_stream_is_selected_as_the_library_selects_it(records: Records) -> None:
    """select_stream reads its three columns itself (the store's select_rows, SQLite and PostgreSQL): the same rows
    as the library's select_events, whole and after a version."""
    record_id, _ = import_finished(records, record_file("la-citta", "rows-2"))
    library = [(e.originator_version, e.topic, bytes(e.state)) for e in records.recorder.select_events(record_id)]
    assert len(library) > 100
    ours = [(version, topic, bytes(state)) for version, topic, state in select_stream(records.recorder, record_id)]
    assert ours == library
    assert [row[0] for row in select_stream(records.recorder, record_id, gt=90)] == [row[0] for row in library[90:]]


@pytest.mark.postgres
def test_rows_copied_are_stored_as_given_with_their_notification_ids(postgres_schema: str) -> None:
    """store.postgres.CopyRows: an append's rows copied in binary (COPY FROM STDIN): each row read back byte
    for byte (bytes with NUL and high bytes, a topic in any script), the notification ids returned in order,
    and a row already there refused whole, nothing of the append stored."""
    from eventsourcing.persistence import IntegrityError, StoredEvent

    from domain.records.store.postgres import CopyRows
    from tests.service.conftest import postgres_env

    records = Records(Settings.from_env(postgres_env(postgres_schema)).store)
    try:
        assert isinstance(records.recorder, CopyRows)
        stream = uuid4()
        rows = [StoredEvent(originator_id=stream, originator_version=k + 1, topic=f"città:Evento{k}",
                            state=bytes([0, 255, k % 256]) + "è\u2028".encode() * k) for k in range(300)]
        ids = records.recorder.insert_events(rows)
        assert ids is not None and len(ids) == 300 and ids == sorted(ids) and len(set(ids)) == 300
        records.recorder.insert_events([StoredEvent(originator_id=uuid4(), originator_version=1, topic="t", state=b"x")])
        log = records.recorder.select_notifications(0, limit=1_000_000)
        assert ids == [n.id for n in log if n.originator_id == stream]  # the ids COPY gave them, not a guess
        back = records.recorder.select_events(stream)
        assert [(e.originator_id, e.originator_version, e.topic, bytes(e.state)) for e in back] == [
            (e.originator_id, e.originator_version, e.topic, e.state) for e in rows]
        again = [StoredEvent(originator_id=stream, originator_version=301, topic="t", state=b"new"), rows[5]]
        with pytest.raises(IntegrityError):
            records.recorder.insert_events(again)
        assert len(records.recorder.select_events(stream)) == 300
    finally:
        records.close()


# ---- the write path's objects made at less cost, and the read path by orjson ----------------------------------


def test_a_recorded_event_is_the_one_its_dataclass_makes() -> None:
    """`Record.record` and `rows.stored_event` fill the frozen dataclasses' __dict__ themselves: each object is
    equal to the one the dataclass's own __init__ makes, its fields in the same order, and still frozen."""
    from dataclasses import FrozenInstanceError

    from eventsourcing.persistence import StoredEvent

    from domain.records.rows import stored_event

    for e in [e for e in recorded(a_record()) if type(e) is Record.Happened]:
        made = Record.Happened(originator_id=e.originator_id, originator_version=e.originator_version,
                               timestamp=e.timestamp, event=e.event, entry=e.entry, seat=e.seat, chain=e.chain)
        assert e == made and list(e.__dict__) == list(made.__dict__)
        with pytest.raises(FrozenInstanceError):
            e.seat = 0  # type: ignore[misc]
    row = stored_event(uuid4(), 7, "topic", b"state")
    library = StoredEvent(originator_id=row.originator_id, originator_version=7, topic="topic", state=b"state")
    assert row == library and list(row.__dict__) == list(library.__dict__)


def test_a_save_stores_its_events_and_makes_no_recordings(records: Records) -> None:
    """RecordEventStore.put: the rows stored as the library stores them, and no recordings made, as nothing
    here reads them: Records is no process application (its `_notify` is the library's, which does nothing)."""
    from eventsourcing.application import Application

    assert Records._notify is Application._notify
    record = a_record()
    events = recorded(record)
    record._pending_events.extend(events)  # `recorded` collected them: hand them back to be saved
    assert records.save(record) == []
    stored = records.recorder.select_events(record.id)
    assert [s.originator_version for s in stored] == [e.originator_version for e in events]
    assert [bytes(s.state) for s in stored] == [records.mapper.to_stored_event(e).state for e in events]


def test_the_transcoder_reads_what_the_librarys_reads(tmp_path: Path) -> None:
    """rows.RecordTranscoder (orjson, then the library's hook on every object, innermost first) against the
    library's JSONTranscoder: equal values of equal types, on texts orjson reads and texts only `json` reads."""
    from datetime import UTC, datetime
    from decimal import Decimal

    from eventsourcing.persistence import DatetimeAsISO, DecimalAsStr, JSONTranscoder, UUIDAsHex

    from domain.records.rows import RecordTranscoder

    ours, theirs = RecordTranscoder(), JSONTranscoder()
    for t in (ours, theirs):
        for transcoding in (UUIDAsHex(), DatetimeAsISO(), DecimalAsStr()):
            t.register(transcoding)
    when = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
    values = [
        {"timestamp": when, "document": json.dumps({"entries": [{"a": 1}] * 50}), "ids": [uuid4(), {"in": [uuid4()]}]},
        {"price": Decimal("1.10"), "nested": [[{"at": when}]], "text": "è\u2028\"\\", "none": None, "f": 0.1},
        {"big": 10 ** 30, "n": -(2 ** 63)},  # past 64 bits: `json` reads it
        {"_type_": "not registered alone", "other": 1},  # no `_data_`: not the library's marker
    ]
    for value in values:
        data = theirs.encode(value)
        got, want = ours.decode(data), theirs.decode(data)
        assert got == want and repr(got) == repr(want)
    for data in (b'{"x":NaN,"y":[Infinity]}', b'{"lone":"\\ud800"}'):  # `json` reads these, orjson does not
        assert repr(ours.decode(data)) == repr(theirs.decode(data))
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    assert type(records.mapper.transcoder) is RecordTranscoder
    records.close()


def test_a_batch_of_imports_is_read_in_one_query(records: Records, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records.get_imports: each import as get_import reads it, every one in one query (timeline.select_streams);
    an id with no stream is left out."""
    from domain.records import timeline

    ids = [records.imports.submit(record_file(title, f"many-{k}"))[0] for k, title in enumerate(("la-citta", "serenissima"))]
    records.imports.judge_many(ids[:1])  # one judged: more events in its stream
    asked: list[list[Any]] = []
    real = timeline.select_stream
    monkeypatch.setattr(timeline, "select_stream", lambda *a, **k: asked.append(list(a)) or real(*a, **k))
    missing = uuid4()
    found = records.imports.get_many([*ids, missing])
    assert asked == [] and set(found) == set(ids)
    for import_id in ids:
        alone = records.imports.get(import_id)
        assert (found[import_id].version, found[import_id].status, found[import_id].report, found[import_id].document) == (
            alone.version, alone.status, alone.report, alone.document)
    assert found[ids[0]].status == "accepted" and found[ids[1]].status == "submitted"


def test_timelines_keep_the_most_recently_read_and_count_under_their_name(tmp_path: Path) -> None:
    """timeline.Timelines in the project's bounded cache (domain/kernel/cache.py, "timelines"): at most `maxsize`
    timelines, the least recently read dropped first, a hit and a miss counted; a dropped one is read again whole."""
    records = Records(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                         "SQLITE_DBNAME": str(tmp_path / "r.sqlite3")}).store)
    try:
        first, second, third = (import_finished(records, record_file("toy", f"lru-{k}"))[0] for k in range(3))
        timelines = Timelines(records.recorder, records.mapper, catalog.game, records.edition_of, maxsize=2)
        kept = {record_id: timelines.get(record_id) for record_id in (first, second)}
        assert timelines.get(first) is kept[first]  # a hit, and now the most recently read
        assert (timelines._cache.hits, timelines._cache.misses) == (1, 2)
        timelines.get(third)  # drops `second`, the least recently read
        assert timelines._cache.keys() == [first, third]
        again, before = timelines.get(second), kept[second]
        assert again is not None and before is not None and again is not before and again.events == before.events
        assert timelines._cache.keys() == [third, second]
        assert "timelines" in {stats.name for stats in every_cache()}
    finally:
        records.close()
