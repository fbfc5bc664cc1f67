"""`Idempotency-Key` on commands and imports (docs/api.md), on SQLite and on the real PostgreSQL.

A client whose connection was cut cannot tell whether its command was stored; with a key it sends the same
request again and gets the first answer, never a 409 for its own move. The key is kept in the store with the
command (domain.records.aggregates.RequestKey, same transaction), so any process answers the retry."""

from __future__ import annotations

import json
import threading
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.utils import get_topic

from domain.kernel import SeededChance
from domain.records.aggregates import Import
from domain.transcripts import MEDIA_TYPE
from tests.service.helpers import auth, play_out_http
from tests.service.test_api import start, wait_for_verdict

COMMANDS = "/api/records/{}/commands"


def rows_of(client: Any, stream: str) -> int:
    """How many events the stream has in the store (read from the rows, never a cache)."""
    records = client.application.extensions["cronaca"].records
    return len(records.recorder.select_events(UUID(stream)))


def submissions(client: Any) -> int:
    """How many imports were ever submitted to this store."""
    records = client.application.extensions["cronaca"].records
    return len(records.recorder.select_notifications(0, limit=10_000, topics=[get_topic(Import.Submitted)]))


def keyed(token: str, key: str) -> dict[str, str]:
    return {**auth(token), "Idempotency-Key": key}


def test_every_command_of_a_game_retried_answers_its_first_answer_and_is_stored_once(client: Any) -> None:
    record_id, tokens = start(client)
    players = SeededChance("idempotency")
    first: list[tuple[dict[str, Any], str, int, dict[str, Any]]] = []  # (body, key, seat, first answer)
    for _ in range(200):
        if client.get(f"/api/records/{record_id}").get_json()["finished"]:
            break
        seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        body = {"command": legal["commands"][players.below(len(legal["commands"]))], "version": legal["version"]}
        key = str(uuid4())
        answer = client.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[seat], key))
        assert answer.status_code == 200 and "Idempotent-Replayed" not in answer.headers, answer.get_json()
        again = client.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[seat], key))  # at once
        assert again.status_code == 200 and again.get_json() == answer.get_json()
        first.append((body, key, seat, answer.get_json()))
    assert first[-1][3]["finished"], "the game ended within the bound"
    stored = rows_of(client, record_id)
    # Later, the record moved on (finished): each retry still answers what its first attempt answered.
    for body, key, seat, answer in first:
        again = client.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[seat], key))
        assert again.status_code == 200, again.get_json()
        assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == answer
    assert rows_of(client, record_id) == stored
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert summary["version"] == first[-1][3]["version"] == stored
    verified = client.get(f"/api/records/{record_id}/verify").get_json()
    assert verified["ok"] is True and verified["chain"]["problems"] == [], verified
    # without the header nothing changes: the same stale command is a 409, as it always was
    body, _, seat, _ = first[0]
    plain = client.post(COMMANDS.format(record_id), json=body, headers=auth(tokens[seat]))
    assert plain.status_code == 409 and rows_of(client, record_id) == stored


def test_the_same_key_with_another_body_is_422_and_stores_nothing(client: Any) -> None:
    record_id, tokens = start(client)
    body = {"command": {"type": "toy/roll", "seat": 0}, "version": 2}
    assert client.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[0], "k-1")).status_code == 200
    stored = rows_of(client, record_id)
    for other in ({**body, "version": 3}, {"command": {"type": "toy/draw", "seat": 0}, "version": 2}):
        refused = client.post(COMMANDS.format(record_id), json=other, headers=keyed(tokens[0], "k-1"))
        assert refused.status_code == 422 and refused.mimetype == "application/problem+json"
        assert refused.get_json()["rule"] == "idempotency/reused" and "k-1" not in refused.get_data(as_text=True)
    assert rows_of(client, record_id) == stored
    for bad in ("", "x" * 256, "naïve", "two words"):
        malformed = client.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[0], bad))
        assert malformed.status_code == 400 and malformed.get_json()["rule"] == "idempotency/key", bad
    assert rows_of(client, record_id) == stored


def test_two_seats_may_use_the_same_key_string(client: Any) -> None:
    record_id, tokens = start(client)
    ann = client.post(COMMANDS.format(record_id), json={"command": {"type": "toy/roll", "seat": 0}}, headers=keyed(tokens[0], "turn"))
    bob = client.post(COMMANDS.format(record_id), json={"command": {"type": "toy/roll", "seat": 1}}, headers=keyed(tokens[1], "turn"))
    assert ann.status_code == bob.status_code == 200, (ann.get_json(), bob.get_json())
    assert "Idempotent-Replayed" not in bob.headers and bob.get_json()["version"] > ann.get_json()["version"]
    assert bob.get_json()["steps"][0] == ann.get_json()["steps"][1] + 1
    # and another record's seat 0 may use it too
    other_id, other_tokens = start(client)
    other = client.post(COMMANDS.format(other_id), json={"command": {"type": "toy/roll", "seat": 0}},
                        headers=keyed(other_tokens[0], "turn"))
    assert other.status_code == 200 and "Idempotent-Replayed" not in other.headers


def test_concurrent_attempts_with_one_key_store_it_once_and_all_get_its_answer(client: Any) -> None:
    """The fault found under load: a retry racing its own first attempt got 409 for its own move."""
    record_id, tokens = start(client)
    body = {"command": {"type": "toy/roll", "seat": 0}, "version": 2}
    answers: list[tuple[int, Any]] = []
    barrier = threading.Barrier(4)

    def send() -> None:
        barrier.wait(10)
        with client.application.test_client() as own:
            answer = own.post(COMMANDS.format(record_id), json=body, headers=keyed(tokens[0], "race"))
            answers.append((answer.status_code, answer.get_json()))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [status for status, _ in answers] == [200] * 4, answers
    assert all(answer == answers[0][1] for _, answer in answers)
    assert rows_of(client, record_id) == answers[0][1]["version"] == 3


def test_a_retried_import_yields_one_import_and_one_record(client: Any) -> None:
    record_id, tokens = start(client)
    play_out_http(client, record_id, tokens)
    exported = client.get(f"/api/records/{record_id}/export").data
    before = client.get("/api/records").get_json()["total"]
    headers = {"Idempotency-Key": "upload-1"}
    first = client.post("/api/imports", data=exported, content_type="application/json", headers=headers)
    assert first.status_code == 202 and first.get_json()["annotator_key"] and first.get_json()["seats"][0]["token"]
    again = client.post("/api/imports", data=exported, content_type="application/json", headers=headers)
    assert again.status_code == 202 and again.headers["Idempotent-Replayed"] == "true"
    shown = again.get_json()
    assert shown["id"] == first.get_json()["id"] and again.headers["Location"] == first.headers["Location"]
    assert "annotator_key" not in shown and "arbiter_key" not in shown and "seats" not in shown  # shown once only
    verdict = wait_for_verdict(client, shown["id"])
    assert verdict["status"] == "accepted", verdict
    late = client.post("/api/imports", data=exported, content_type="application/json", headers=headers).get_json()
    assert late["id"] == shown["id"] and late["status"] == "accepted" and late["record_id"] == verdict["record_id"]
    changed = json.loads(exported)
    changed["seats"][0]["name"] = "amy"
    other = client.post("/api/imports", json=changed, headers=headers)
    assert other.status_code == 422 and other.get_json()["rule"] == "idempotency/reused"
    assert submissions(client) == 1
    assert client.get("/api/records").get_json()["total"] == before + 1
    plain = client.post("/api/imports", data=exported, content_type="application/json")  # no key: a new import
    assert plain.status_code == 202 and plain.get_json()["id"] != shown["id"] and submissions(client) == 2


def test_a_retried_notation_import_refused_at_upload_names_the_same_import(client: Any) -> None:
    text = b'[Title "toy"]\n[Seats "Ada, Bruno"]\nSetup\n1. Ada roll [3]\n'
    headers = {"Idempotency-Key": "notation-1"}
    first = client.post("/api/imports", data=text, content_type=MEDIA_TYPE, headers=headers)
    assert first.status_code == 422, first.get_json()
    again = client.post("/api/imports", data=text, content_type=MEDIA_TYPE, headers=headers)
    assert again.status_code == 422 and again.get_json() == first.get_json()
    assert submissions(client) == 1
    other = client.post("/api/imports", data=text + b"\n", content_type=MEDIA_TYPE, headers=headers)
    assert other.status_code == 422 and other.get_json()["rule"] == "idempotency/reused" and submissions(client) == 1


def test_the_header_is_in_the_openapi_document(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    for path in ("/api/records/{record_id}/commands", "/api/imports"):
        names = [p.get("name") for p in spec["paths"][path]["post"].get("parameters", [])]
        assert "Idempotency-Key" in names, (path, names)


# ---- an append whose commit's answer was lost (pg_terminate_backend between COMMIT and its answer) --------------


def lose_an_answer(records: Any, monkeypatch: Any, committed: bool) -> list[str]:
    """The next write's connection dies: after the server committed (its answer lost on the way back), or before.
    What psycopg then raises is what the recorder sees; the retry that follows is the store's own."""
    from contextlib import contextmanager

    from eventsourcing.persistence import OperationalError

    datastore = records.recorder.datastore
    real = datastore.get_connection
    lost: list[str] = []

    @contextmanager
    def get_connection(*args: Any, **kwargs: Any) -> Any:
        if not lost and not committed:
            lost.append("before")
            raise OperationalError("consuming input failed: server closed the connection unexpectedly")
        with real(*args, **kwargs) as conn:
            yield conn
        if not lost and committed:
            lost.append("after")
            raise OperationalError("consuming input failed: server closed the connection unexpectedly")

    monkeypatch.setattr(datastore, "get_connection", get_connection)
    return lost


@pytest.mark.postgres
def test_a_command_whose_commit_answer_was_lost_is_answered_as_stored_once(postgres_schema: str,
                                                                           monkeypatch: Any) -> None:
    """Seen by hand (pg_terminate_backend during `cronaca import`): the server committed an append, the answer
    never came back, the store's retry met its own rows ("duplicate key") and the caller was told of a conflict
    (`cronaca import` stopped with a traceback; a command without an Idempotency-Key would get 409 for its own
    move). The retry now finds its own rows, byte for byte, and the append succeeds: stored once."""
    from api.app import create_app
    from domain.records.settings import Settings
    from tests.service.conftest import postgres_env

    app = create_app(Settings.from_env(postgres_env(postgres_schema)))
    client = app.test_client()
    records = app.extensions["cronaca"].records
    try:
        record_id, tokens = start(client)
        seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        stored = rows_of(client, record_id)
        lost = lose_an_answer(records, monkeypatch, committed=True)
        answer = client.post(COMMANDS.format(record_id), json={"command": legal["commands"][0], "version": legal["version"]},
                             headers=auth(tokens[seat]))
        assert lost == ["after"] and answer.status_code == 200, answer.get_json()
        assert rows_of(client, record_id) == answer.get_json()["version"] > stored
        verified = client.get(f"/api/records/{record_id}/verify").get_json()
        assert verified["chain"] == {"ok": True, "problems": []}, verified  # (the toy title is no catalog title)
        play_out_http(client, record_id, tokens)
        exported = client.get(f"/api/records/{record_id}/export").data  # and an import's save (the outbox)
        before = submissions(client)
        lost = lose_an_answer(records, monkeypatch, committed=True)
        import_id, _ = records.imports.submit(json.loads(exported))
        assert lost == ["after"] and submissions(client) == before + 1
        assert records.imports.get(import_id).status == "submitted"
    finally:
        records.close()


@pytest.mark.postgres
def test_a_retry_that_meets_another_writers_rows_is_still_a_conflict(postgres_schema: str, monkeypatch: Any) -> None:
    """The same retry, when what it meets is not its own rows (another writer appended while the connection was
    down): a conflict, as ever, and nothing of the losing append stored. When they are its own, the append
    answers their notification ids, as the library's insert does."""
    from eventsourcing.persistence import IntegrityError, StoredEvent

    from domain.records import Records
    from domain.records.settings import Settings
    from tests.service.conftest import postgres_env

    records = Records(Settings.from_env(postgres_env(postgres_schema)).store)
    try:
        stream = uuid4()
        theirs = [StoredEvent(originator_id=stream, originator_version=1, topic="t", state=b"theirs")]
        records.recorder.insert_events(theirs)
        lost = lose_an_answer(records, monkeypatch, committed=False)
        ours = [StoredEvent(originator_id=stream, originator_version=1, topic="t", state=b"ours"),
                StoredEvent(originator_id=stream, originator_version=2, topic="t", state=b"ours too")]
        try:
            records.recorder.insert_events(ours)
        except IntegrityError:
            pass
        else:
            raise AssertionError("another writer's row was taken for this append's")
        assert lost == ["before"]
        assert [bytes(e.state) for e in records.recorder.select_events(stream)] == [b"theirs"]
        # and an append whose answer is lost after its commit answers its own rows' notification ids, in order
        lost = lose_an_answer(records, monkeypatch, committed=True)
        mine = [StoredEvent(originator_id=stream, originator_version=v, topic="t", state=b"mine %d" % v) for v in (2, 3)]
        ids = records.recorder.insert_events(mine)
        assert lost == ["after"]
        log = records.recorder.select_notifications(0, limit=1_000_000)
        assert ids == [n.id for n in log if n.originator_id == stream and n.originator_version in (2, 3)]
        assert [bytes(e.state) for e in records.recorder.select_events(stream)] == [b"theirs", b"mine 2", b"mine 3"]
    finally:
        records.close()
