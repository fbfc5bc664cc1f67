"""The eventsourcing library's own test cases run against our store (domain/records/store) and rows.py.

Each library case (`eventsourcing.tests.persistence`) meets our recorders as `Records` makes them: through our
factory (`store.construct_factory`), with the settings a deployment has (`settings.store_env`), in a fresh
SQLite file or a fresh schema of the real PostgreSQL (made by `cronaca db upgrade`, dropped afterwards). Where a
library test does not hold for a deliberate difference of ours, that one method is overridden, saying why.
`RowRecorderCase` is the same kind of case for our own interface: its fast reads give what the library's reads give.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any
from unittest import TestCase
from uuid import uuid4

import pytest
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    JSONTranscoder,
    ProcessRecorder,
    StoredEvent,
    TrackingRecorder,
    Transcoder,
    UUIDAsHex,
)
from eventsourcing.postgres import PostgresProcessRecorder, PostgresTrackingRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteProcessRecorder, SQLiteTrackingRecorder
from eventsourcing.tests import persistence as library
from eventsourcing.utils import Environment, get_topic

from domain.records import Records
from domain.records.rows import RecordMapper, RecordTranscoder
from domain.records.settings import store_env
from domain.records.store import OURS, RowRecorder, construct_factory
from domain.records.store.postgres import PostgresRows, PostgresSnapshots, PostgresStore
from domain.records.store.sqlite import SQLiteRows, SQLiteStore
from tests.service.conftest import postgres_env

# ---- where each case's store is --------------------------------------------------------------------------


class OnSQLite:
    """A fresh SQLite file for each test, with the settings a deployment has."""

    env: Environment

    @pytest.fixture(autouse=True)
    def _sqlite_file(self, tmp_path: Path) -> None:
        self.env = Environment(Records.name, store_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                                        "SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}))


class OnPostgres:
    """A fresh schema of the real PostgreSQL for each test, its tables made by `cronaca db upgrade` (as a
    deployment makes them: processes never create tables there), dropped afterwards."""

    env: Environment

    @pytest.fixture(autouse=True)
    def _postgres_schema(self, postgres_schema: str) -> None:
        self.env = Environment(Records.name, store_env(postgres_env(postgres_schema)))


class Made(TestCase):
    """Recorders made by our factory for the case's store, closed after the test. (The cases below are mixins,
    not collected alone: each test class names its store and the library's case.)"""

    __test__ = False
    env: Environment

    def factory(self) -> InfrastructureFactory[Any]:
        factory = construct_factory(self.env)
        self.addCleanup(factory.close)
        before = set(threading.enumerate())
        self.addCleanup(self._join_threads_left_running, before)  # cleanups run last-in first: before the close
        return factory

    @staticmethod
    def _join_threads_left_running(before: set[threading.Thread]) -> None:
        """The library's `test_concurrent_no_conflicts` sets its readers' stop flag but does not join them: closing
        the datastore under a reader still in `select_notifications` crashed the interpreter inside sqlite3
        (a segfault, 2 runs in 12 on a loaded machine). Its threads end within a read; wait for them first."""
        for thread in set(threading.enumerate()) - before:
            if thread.daemon:  # a connection pool's workers: they end with the close
                continue
            thread.join(timeout=30)


# ---- the library's recorder cases --------------------------------------------------------------------------


class SnapshotsCase(Made):
    """The snapshots' recorder."""

    def create_recorder(self) -> AggregateRecorder:
        return self.factory().aggregate_recorder(purpose="snapshots")


class EventsCase(Made):
    """The records' and imports' recorder: our `RowRecorder`."""

    def create_recorder(self) -> ApplicationRecorder:
        recorder = self.factory().application_recorder()
        assert isinstance(recorder, RowRecorder)
        return recorder


class TestSQLiteSnapshots(OnSQLite, SnapshotsCase, library.AggregateRecorderTestCase):
    __test__ = True


@pytest.mark.postgres
class TestPostgresSnapshots(OnPostgres, SnapshotsCase, library.AggregateRecorderTestCase):
    __test__ = True

    def test_made_by_our_factory(self) -> None:
        """Snapshots are written by our bounded recorder, their rows copied in."""
        assert type(self.create_recorder()) is PostgresSnapshots


class TestSQLiteEvents(OnSQLite, EventsCase, library.ApplicationRecorderTestCase[ApplicationRecorder]):
    __test__ = True


@pytest.mark.postgres
class TestPostgresEvents(OnPostgres, EventsCase, library.ApplicationRecorderTestCase[ApplicationRecorder]):
    __test__ = True

    def test_insert_subscribe(self) -> None:
        """The library's subscription (LISTEN/NOTIFY) still works on our recorder: its appends notify as the library's."""
        self.optional_test_insert_subscribe()


# ---- the library's factory case ---------------------------------------------------------------------------


class FactoryCase(library.InfrastructureFactoryTestCase[Any]):  # abstract: collected only through the two below
    """Our factory, chosen by the library's own `PERSISTENCE_MODULE` (what `construct_factory` names for the
    library's module), its mapper our `RecordMapper` (the library's MAPPER_TOPIC), so the library's mapper tests
    (compressor, cipher, a wrong key) run through ours."""

    env: Environment
    library_module: str

    def setUp(self) -> None:
        self.env[InfrastructureFactory.PERSISTENCE_MODULE] = OURS[self.library_module]
        self.env[InfrastructureFactory.MAPPER_TOPIC] = get_topic(RecordMapper)
        self.env["CREATE_TABLE"] = "true"  # the tracking and process recorders' tables: none made by the upgrade
        super().setUp()

    def test_mapper(self) -> None:
        """The library's, and the mapper it makes is ours."""
        super().test_mapper()
        assert type(self.factory.mapper(transcoder=self.transcoder)) is RecordMapper


class TestSQLiteFactory(OnSQLite, FactoryCase):
    library_module = "eventsourcing.sqlite"

    def expected_factory_class(self) -> type[SQLiteStore]:
        return SQLiteStore

    def expected_aggregate_recorder_class(self) -> type[AggregateRecorder]:
        return SQLiteAggregateRecorder

    def expected_application_recorder_class(self) -> type[ApplicationRecorder]:
        return SQLiteRows

    def expected_tracking_recorder_class(self) -> type[TrackingRecorder]:
        return SQLiteTrackingRecorder

    def tracking_recorder_subclass(self) -> type[TrackingRecorder]:
        return type("SQLiteTrackingRecorderSubclass", (SQLiteTrackingRecorder,), {})

    def expected_process_recorder_class(self) -> type[ProcessRecorder]:
        return SQLiteProcessRecorder


@pytest.mark.postgres
class TestPostgresFactory(OnPostgres, FactoryCase):
    library_module = "eventsourcing.postgres"

    def expected_factory_class(self) -> type[PostgresStore]:
        return PostgresStore

    def expected_aggregate_recorder_class(self) -> type[AggregateRecorder]:
        return PostgresSnapshots

    def expected_application_recorder_class(self) -> type[ApplicationRecorder]:
        return PostgresRows

    def expected_tracking_recorder_class(self) -> type[TrackingRecorder]:
        return PostgresTrackingRecorder

    def tracking_recorder_subclass(self) -> type[TrackingRecorder]:
        return type("PostgresTrackingRecorderSubclass", (PostgresTrackingRecorder,), {})

    def expected_process_recorder_class(self) -> type[ProcessRecorder]:
        return PostgresProcessRecorder


def test_the_records_application_uses_our_store_for_the_librarys_modules(tmp_path: Path) -> None:
    """`Records.construct_factory` (the library's extension point) makes ours for `eventsourcing.sqlite`, as given or by
    `settings.store_env`; the in-memory store stays the library's, read the library's way."""
    for env in ({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "a.sqlite3")},
                store_env({"SQLITE_DBNAME": str(tmp_path / "b.sqlite3")})):
        records = Records(env)
        try:
            assert type(records.factory) is SQLiteStore and type(records.recorder) is SQLiteRows
        finally:
            records.close()
    records = Records({"PERSISTENCE_MODULE": "eventsourcing.popo"})
    try:
        assert not isinstance(records.recorder, RowRecorder)
    finally:
        records.close()


# ---- the library's transcoder case ------------------------------------------------------------------------


class TestRecordTranscoder(library.TranscoderTestCase):
    """rows.RecordTranscoder with the library case's own transcodings. It writes as the library's JSONTranscoder
    does, deliberately (a row's bytes are the library's, rows.py): six library tests expect a transcoder that keeps
    tuples and the subclasses of dict, list, str and int, which JSON does not (the library's own JSON transcoder
    fails the same six). Each is overridden to check that ours reads back exactly what the library's reads back."""

    def construct_transcoder(self) -> Transcoder:
        transcoder = RecordTranscoder()
        for transcoding in (library.CustomType1AsDict(), library.CustomType2AsDict(), UUIDAsHex()):
            transcoder.register(transcoding)
        return transcoder

    def as_the_librarys(self, obj: Any) -> None:
        theirs = JSONTranscoder()
        for transcoding in (library.CustomType1AsDict(), library.CustomType2AsDict(), UUIDAsHex()):
            theirs.register(transcoding)
        data = self.transcoder.encode(obj)
        assert data == theirs.encode(obj)
        ours, back = self.transcoder.decode(data), theirs.decode(data)
        assert ours == back and type(ours) is type(back)

    def test_tuple(self) -> None:
        """JSON has no tuple: written as a list, read back as one (as the library's JSON transcoder does)."""
        for obj in ((), ((),), ((1, 2),), (("a", "b"),), ((1, "a"),)):
            self.as_the_librarys(obj)
            assert self.transcoder.decode(self.transcoder.encode(obj)) == _listed(obj)

    def test_mixed(self) -> None:
        """Tuples inside lists and dicts: read back as lists (JSON has no tuple)."""
        for obj in ([(1, "a"), {"b": 2}], ([1, "a"], {"b": 2}), {"a": (1, 2), "b": [3, 4]}):
            self.as_the_librarys(obj)
            assert self.transcoder.decode(self.transcoder.encode(obj)) == _listed(obj)

    def test_dict_subclass(self) -> None:
        """A dict subclass is written as a plain object and read back as a dict (its class is not kept)."""
        self.as_the_librarys(library.Mydict({"a": 1}))
        assert self.transcoder.encode(library.Mydict({"a": 1})) == b'{"a":1}'

    def test_list_subclass(self) -> None:
        """A list subclass is read back as a list of lists."""
        self.as_the_librarys(library.MyList((("a", 1),)))
        assert self.transcoder.decode(self.transcoder.encode(library.MyList((("a", 1),)))) == [["a", 1]]

    def test_str_subclass(self) -> None:
        """A str subclass is read back as a str."""
        self.as_the_librarys(library.MyStr("a"))

    def test_int_subclass(self) -> None:
        """An int subclass is read back as an int."""
        self.as_the_librarys(library.MyInt(3))


def _listed(obj: Any) -> Any:
    if isinstance(obj, tuple | list):
        return [_listed(item) for item in obj]
    if isinstance(obj, dict):
        return {key: _listed(value) for key, value in obj.items()}
    return obj


# ---- our interface: the fast reads give what the library's reads give ---------------------------------------------


class RowRecorderCase(Made):
    """`RowRecorder` (store/__init__.py) against the library's own `select_events` and `select_notifications`."""

    def stored(self) -> tuple[RowRecorder, list[StoredEvent]]:
        recorder = self.factory().application_recorder()
        assert isinstance(recorder, RowRecorder)
        streams = [uuid4() for _ in range(3)]
        rows = [StoredEvent(originator_id=stream, originator_version=version, topic=f"topic{(k + version) % 3}",
                            state=bytes([0, 255, version]) + "è\u2028{}".encode() * (k + version))
                for k, stream in enumerate(streams) for version in range(1, 6)]
        for k in range(0, len(rows), 5):
            recorder.insert_events(rows[k:k + 5])
        return recorder, rows

    def test_select_rows(self) -> None:
        recorder, rows = self.stored()
        stream = rows[0].originator_id
        for gt in (None, 0, 2, 5):
            library_rows = [(e.originator_version, e.topic, bytes(e.state)) for e in recorder.select_events(stream, gt=gt)]
            assert [(v, t, bytes(s)) for v, t, s in recorder.select_rows(stream, gt=gt)] == library_rows
        assert recorder.select_rows(uuid4()) == []

    def test_select_many_rows(self) -> None:
        recorder, rows = self.stored()
        streams = list(dict.fromkeys(e.originator_id for e in rows))
        found = recorder.select_many_rows([streams[2], streams[0], uuid4()])
        by_stream: dict[Any, list[tuple[int, str, bytes]]] = {}
        for stream, version, topic, state in found:
            by_stream.setdefault(stream, []).append((version, topic, bytes(state)))
        assert by_stream == {s: [(e.originator_version, e.topic, bytes(e.state)) for e in recorder.select_events(s)]
                             for s in (streams[0], streams[2])}

    def test_select_notified_rows_and_states(self) -> None:
        recorder, _ = self.stored()
        log = recorder.select_notifications(start=0, limit=100)
        last = recorder.max_notification_id()
        assert last is not None
        for after, upto in ((0, last), (3, 9), (last, last)):
            got = recorder.select_notified_rows(after, upto, ["topic0", "topic2"], short=["topic2"], prefix=3,
                                                empty=["topic0"])
            assert [(i, oid, topic, bytes(state)) for i, oid, topic, state in got] == [
                (n.id, n.originator_id, n.topic, b"" if n.topic == "topic0" else bytes(n.state)[:3])
                for n in log if after < n.id <= upto and n.topic in ("topic0", "topic2")]
        whole = recorder.select_notified_rows(0, last, ["topic1"])
        assert [bytes(s) for *_, s in whole] == [bytes(n.state) for n in log if n.topic == "topic1"]
        ids = [log[1].id, log[7].id, last + 10]
        assert recorder.select_states(ids) == {n.id: bytes(n.state) for n in (log[1], log[7])}
        assert recorder.select_states([]) == {}


class TestSQLiteRowRecorder(OnSQLite, RowRecorderCase):
    __test__ = True


@pytest.mark.postgres
class TestPostgresRowRecorder(OnPostgres, RowRecorderCase):
    __test__ = True
