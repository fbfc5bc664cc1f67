"""Hash-chained streams (issue 15): every stored event carries its link, `/verify` recomputes them from the stored rows.

The tamper tests edit ONE stored row with SQL, as someone with the database would: on SQLite (sqlite3 on the
file) and on PostgreSQL (psycopg in the test's schema), and expect `/verify` to name the step.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from domain.records import Records
from domain.records import chain as chains
from domain.records.aggregates import Import
from domain.records.settings import Settings
from domain.records.timeline import FINISHED, HAPPENED, decode_rows, select_stream
from domain.records.verification import Verification
from tests.service.helpers import auth, import_finished, play_out, record_file

Change = Callable[[dict[str, Any]], dict[str, Any]]


# ---- the chain itself (pure) ------------------------------------------------------------------------------------


def test_link_is_sha256_of_previous_and_canonical_item() -> None:
    import hashlib

    item = {"b": [1, "è"], "a": None}
    assert chains.canonical(item) == '{"a":null,"b":[1,"è"]}'.encode()
    assert chains.link(chains.GENESIS, item) == hashlib.sha256(chains.GENESIS.encode() + b"\n" + chains.canonical(item)).hexdigest()
    assert chains.link(chains.GENESIS, item) != chains.link(chains.GENESIS, {**item, "a": 0})


def test_canonical_is_the_contracts_json_dumps_on_real_records() -> None:
    """The fast encoder gives byte for byte what the contract writes (json.dumps, sorted keys, no spaces, UTF-8)."""
    document = record_file("serenissima", "canonical")
    values: list[Any] = [document, *chains.record_items(document), {"è": [1.5, -0.0, 1e16, 2**70, None, True, "\u2028\""]}]
    for value in values:
        assert chains.canonical(value) == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    with pytest.raises(TypeError):
        chains.canonical({"a": object()})
    previous = chains.GENESIS
    for item in chains.record_items(document)[1:-1]:  # the write path's hand-built item bytes: the same links
        assert chains.event_link(previous, item["step"], item["event"], item["entry"]) == chains.link(previous, item)
        previous = chains.link(previous, item)


def test_an_events_bytes_made_from_the_object_are_its_canonical_json() -> None:
    """chain.event_bytes (an import's record stores the rules' own events that way): byte for byte
    canonical(event.to_json()) for every event of a played game of each title, and for values a field's
    declaration does not promise (a bool or float where an int is declared, None or a number where a string is,
    strings JSON escapes, nested objects)."""
    import dataclasses

    from api.service_cli import bot_game
    from domain.kernel.events import event_from_json

    seen: dict[type, Any] = {}
    for title, players in (("citta-stato", 3), ("la-citta", 4), ("serenissima", 3)):
        for entry in bot_game(title, {"players": players}, f"bytes-{title}"):
            for obj in entry["events"]:
                event = event_from_json(obj)
                assert chains.event_bytes(event) == chains.canonical(event.to_json())
                seen.setdefault(type(event), event)
    assert len(seen) > 30
    odd = ["\u2028\"\\\n è", True, 1.5, -0.0, 2**70, None, [1, {"b": None, "a": "x"}], {"z": [True], "a": 1e-7}]
    changed = 0
    for cls, event in seen.items():
        for field in dataclasses.fields(cls):
            for value in odd:
                made = cls(**{**{f.name: getattr(event, f.name) for f in dataclasses.fields(cls)}, field.name: value})
                assert chains.event_bytes(made) == chains.canonical(made.to_json()), (cls, field.name, value)
                changed += 1
    assert changed > 500


def test_the_write_and_verify_paths_shortcuts_give_the_contracts_links() -> None:
    """event_links (one entry at a time), head_bytes (no copy when the head is its own) and event_item_bytes
    (what verify hashes) give exactly chain_of(record_items(file)), with outcomes marked or not, contributions,
    and a collector paused by someone else left paused."""
    import gc

    from domain.records.timeline import paused_collector

    for title in ("citta-stato", "la-citta"):
        document = record_file(title, "shortcuts")
        links = chains.chain_of(chains.record_items(document))
        previous, step, mine = links[0], 1, [links[0]]
        bodies: list[Any] = [chains.record_items(document)[0]]
        for entry in document["entries"]:
            head = {k: v for k, v in entry.items() if k != "events"}
            for variant in (head, {**head, "contribution": "ab" * 32},
                            {**head, "outcomes": [{**o, "by": "service"} for o in head["outcomes"]]}):
                assert chains.head_bytes(variant, "live") == chains.canonical(chains.entry_head(variant, "live"))
            got = chains.links_of(previous, step, chains.canonical_events(entry["events"]), chains.head_bytes(head, document["mode"]))
            for k, event in enumerate(entry["events"]):
                bodies.append(chains.event_item_bytes(step + k, event,
                                                      b"null" if k else chains.head_bytes(head, document["mode"])))
            mine += got
            previous, step = got[-1], step + len(entry["events"])
        assert mine == links  # the start's link, then every game event's (a file that does not say it ended has no end)
        assert chains.verify_links(bodies, links[: len(bodies)]) == []
        bodies[5] = bodies[5].replace(b'"step":', b'"step":1')
        assert [p["index"] for p in chains.verify_links(bodies, links[: len(bodies)])] == [5]
    gc.disable()
    try:
        with paused_collector():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
    with paused_collector():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_verify_links_names_only_the_changed_item() -> None:
    items = [{"started": {}}, *({"step": n, "event": {"n": n}, "entry": None} for n in range(1, 6))]
    links = chains.chain_of(items)
    assert chains.verify_links(items, links) == []
    changed = [*items[:3], {**items[3], "event": {"n": 99}}, *items[4:]]
    found = chains.verify_links(changed, links)
    assert [(p["index"], p["step"]) for p in found] == [(3, 3)]
    assert found[0]["found"] == links[3] and found[0]["expected"] != links[3]
    # a link recomputed to fit its changed item shows at the next one, whose link no longer follows
    relinked = list(links)
    relinked[3] = chains.link(links[2], changed[3])
    assert [p["index"] for p in chains.verify_links(changed, relinked)] == [4]
    # missing and extra links
    assert [p["index"] for p in chains.verify_links(items, links[:-1])] == [5]
    assert chains.verify_links(items[:-1], links) == [{"index": 5, "expected": None, "found": links[5]}]


# ---- stores and tampering --------------------------------------------------------------------------------------


def rows_of(records: Records, stream_id: UUID) -> list[tuple[int, str, dict[str, Any]]]:
    return decode_rows(records.mapper, select_stream(records.recorder, stream_id))


def tamper(records: Records, env: dict[str, str], stream_id: UUID, version: int, change: Change | None) -> None:
    """Edit (or, with no change, delete) one stored row with SQL, re-encoding its JSON as the mapper stored it."""
    table = records.recorder.events_table_name
    assert records.mapper.compressor is None and records.mapper.cipher is None  # the rows are plain JSON
    if env["PERSISTENCE_MODULE"].endswith("sqlite"):
        with sqlite3.connect(env["SQLITE_DBNAME"]) as db:
            key = (stream_id.hex, version)
            if change is None:
                assert db.execute(f"DELETE FROM {table} WHERE originator_id=? AND originator_version=?", key).rowcount == 1
            else:
                (state,) = db.execute(f"SELECT state FROM {table} WHERE originator_id=? AND originator_version=?", key).fetchone()
                new = json.dumps(change(json.loads(state)), separators=(",", ":")).encode()
                db.execute(f"UPDATE {table} SET state=? WHERE originator_id=? AND originator_version=?", (new, *key))
        return
    import psycopg

    with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=test", autocommit=True) as db:
        qualified = f'"{env["POSTGRES_SCHEMA"]}".{table}'
        key2 = (stream_id, version)
        if change is None:
            assert db.execute(f"DELETE FROM {qualified} WHERE originator_id=%s AND originator_version=%s", key2).rowcount == 1
        else:
            row = db.execute(f"SELECT state FROM {qualified} WHERE originator_id=%s AND originator_version=%s", key2).fetchone()
            assert row is not None
            new = json.dumps(change(json.loads(bytes(row[0]))), separators=(",", ":")).encode()
            db.execute(f"UPDATE {qualified} SET state=%s WHERE originator_id=%s AND originator_version=%s", (new, *key2))


def fresh(env: dict[str, str]) -> Records:
    """Another process's view of the same store: nothing cached from before the tampering."""
    return Records(Settings.from_env(env).store)


def finished_toy(records: Records) -> UUID:
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="chained")
    play_out(records, record_id, tokens)
    return record_id


# ---- written, exported, summarised ------------------------------------------------------------------------------


def test_links_are_stored_shown_and_recomputed_from_the_export(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="chained")
    early = records.reading.summary(record_id).chain
    assert early["length"] == 1 + records.reading.summary(record_id).steps and len(early["head"]) == 64
    play_out(records, record_id, tokens)
    summary = records.reading.summary(record_id)
    rows = rows_of(records, record_id)
    stored = [p["chain"] for _, topic, p in rows]
    assert summary.chain == {"head": stored[-1], "length": len(stored)} and summary.chain["head"] != early["head"]
    assert summary.chain["length"] == summary.steps + 2  # the start, each game event, the end
    document = records.reading.export(record_id).to_json()
    assert document["chain"] == summary.chain
    assert chains.chain_of(chains.record_items(document), key=chains.record_key(document)) == stored  # the file alone gives every stored link
    answer = records.verification.verify(record_id).to_json()
    assert answer["ok"] and answer["chain"] == {"ok": True, "problems": []} and answer["replay"]["ok"]
    assert (answer["head"], answer["length"]) == (stored[-1], len(stored))


def test_an_imported_record_is_chained_like_a_played_one(records: Records) -> None:
    """A real title: entries of several events (the entry head rides on the first only), an import's own stream chained."""
    document = record_file("citta-stato", "chain-1")
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    record_id = UUID(report.record_id)
    exported = records.reading.export(record_id).to_json()
    stored = [p["chain"] for _, _, p in rows_of(records, record_id)]
    assert chains.chain_of(chains.record_items(exported), key=chains.record_key(exported)) == stored
    assert any(item.get("entry") is None for item in chains.record_items(exported)[1:-1])
    assert records.verification.verify(record_id).ok
    flow = records.verification.verify_stream(import_id).to_json()
    assert flow["ok"] and flow["length"] == len(rows_of(records, import_id)) >= 3  # submitted, validating, accepted
    assert records.imports.get(import_id).chain_head == flow["head"]


# ---- tampering with one row: each is caught at its step ------------------------------------------------------------


def happened(records: Records, record_id: UUID) -> list[tuple[int, dict[str, Any]]]:
    return [(v, p) for v, topic, p in rows_of(records, record_id) if topic.endswith(HAPPENED)]


def test_an_untouched_record_verifies(records: Records, store_env: dict[str, str]) -> None:
    record_id = finished_toy(records)
    other = fresh(store_env)
    try:
        answer = other.verification.verify(record_id).to_json()
    finally:
        other.close()
    assert answer["ok"] and not answer["chain"]["problems"] and not answer["replay"]["problems"]


def test_a_changed_game_event_is_named_at_its_step(records: Records, store_env: dict[str, str]) -> None:
    record_id = finished_toy(records)
    version, payload = happened(records, record_id)[3]  # game event 4
    step = version - 1
    field, value = next(iter(payload["event"]["data"].items() - {("seat", 0), ("seat", 1)}))

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["event"]["data"][field] = value + 1
        return state

    tamper(records, store_env, record_id, version, change)
    answer = verify_fresh(store_env, record_id)
    assert not answer["ok"]
    assert [p["step"] for p in answer["chain"]["problems"]] == [step]
    assert f"game event {step}" in answer["chain"]["problems"][0]["what"]
    assert [p["step"] for p in answer["replay"]["problems"]] == [step]  # the rules give another event there
    assert answer["replay"]["problems"][0]["rule"]


def test_a_changed_outcome_is_named_at_its_entry(records: Records, store_env: dict[str, str]) -> None:
    record_id = finished_toy(records)
    version, payload = next((v, p) for v, p in happened(records, record_id)[2:] if p["entry"] and p["entry"]["outcomes"])
    step = version - 1

    def change(state: dict[str, Any]) -> dict[str, Any]:
        outcome = state["entry"]["outcomes"][0]
        outcome["values"] = [v + 1 if isinstance(v, int) else v for v in outcome["values"]]
        return state

    tamper(records, store_env, record_id, version, change)
    answer = verify_fresh(store_env, record_id)
    assert not answer["ok"]
    assert [p["step"] for p in answer["chain"]["problems"]] == [step]
    assert answer["replay"]["problems"][0]["step"] == step  # the committed seed does not draw that


def test_a_deleted_row_is_named_where_it_was(records: Records, store_env: dict[str, str]) -> None:
    record_id = finished_toy(records)
    version, _ = happened(records, record_id)[2]  # game event 3
    step = version - 1
    tamper(records, store_env, record_id, version, None)
    answer = verify_fresh(store_env, record_id)
    assert not answer["ok"]
    problems = answer["chain"]["problems"]
    assert problems[0]["step"] == step and "missing" in problems[0]["what"]
    assert all(p["step"] in (step, step + 1) for p in problems)  # the next link no longer follows: nothing else
    assert not answer["replay"]["ok"]


def test_changed_final_scores_are_named_at_the_end(records: Records, store_env: dict[str, str]) -> None:
    record_id = finished_toy(records)
    rows = rows_of(records, record_id)
    version = next(v for v, topic, _ in rows if topic.endswith(FINISHED))
    steps = records.reading.summary(record_id).steps

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["scores"]["seats"][1]["total"] += 10
        return state

    tamper(records, store_env, record_id, version, change)
    answer = verify_fresh(store_env, record_id)
    assert not answer["ok"]
    assert [p["step"] for p in answer["chain"]["problems"]] == [steps]
    assert "the end" in answer["chain"]["problems"][0]["what"]
    replay = answer["replay"]["problems"]
    assert replay[0]["rule"] == "file/claims" and replay[0]["step"] == steps and "seat 1" in replay[0]["what"]


def test_a_deleted_event_inside_an_entry_of_a_real_title(records: Records, store_env: dict[str, str]) -> None:
    record_id, _ = import_finished(records, record_file("citta-stato", "chain-2"))
    rows = happened(records, record_id)
    version = next(v for v, p in rows[5:] if p["entry"] is None)  # not an entry's first event
    tamper(records, store_env, record_id, version, None)
    answer = verify_fresh(store_env, record_id)
    problems = answer["chain"]["problems"]
    assert problems[0]["step"] == version - 1 and "missing" in problems[0]["what"]
    assert {p["step"] for p in problems} <= {version - 1, version}
    assert not answer["replay"]["ok"]


def test_a_changed_import_row_is_named(records: Records, store_env: dict[str, str]) -> None:
    import_id, _ = records.imports.submit(toy_file(records))
    records.imports.validate(import_id)

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["report"]["ok"] = not state["report"]["ok"]
        return state

    last = rows_of(records, import_id)[-1][0]
    tamper(records, store_env, import_id, last, change)
    other = fresh(store_env)
    try:
        found = other.verification.verify_stream(import_id).to_json()
    finally:
        other.close()
    assert not found["ok"] and [p["version"] for p in found["problems"]] == [last]


def toy_file(records: Records) -> dict[str, Any]:
    record_id = finished_toy(records)
    document = records.reading.export(record_id).to_json()
    document.pop("chain")
    return document


def verify_fresh(env: dict[str, str], record_id: UUID) -> dict[str, Any]:
    other = fresh(env)
    try:
        return other.verification.verify(record_id).to_json()
    finally:
        other.close()


# ---- records stored before chains ------------------------------------------------------------------------------------


def unchain(records: Records, env: dict[str, str], record_id: UUID) -> None:
    """Take `chain` out of every stored row: the record as it was stored before chains existed."""
    for version, _, _ in rows_of(records, record_id):
        tamper(records, env, record_id, version, lambda state: {k: v for k, v in state.items() if k != "chain"})


def test_a_record_stored_before_chains_still_reads_and_says_so(records: Records, store_env: dict[str, str]) -> None:
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="old")
    records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0])
    unchain(records, store_env, record_id)
    old = fresh(store_env)
    try:
        assert old.reading.summary(record_id).chain == {"head": None, "length": 0}
        play_out(old, record_id, tokens)  # an old record in progress goes on, unchained
        assert all("chain" not in p or p["chain"] is None for _, _, p in rows_of(old, record_id))
        assert old.reading.step(record_id, 2, None).step == 2
        assert old.reading.export(record_id).chain == {"head": None, "length": 0}
        answer = old.verification.verify(record_id).to_json()
    finally:
        old.close()
    assert answer["chain"]["ok"] is None and answer["chain"]["note"] == "no chain (stored before chains)"
    assert answer["replay"]["ok"] and answer["ok"]


def test_chains_switched_off_for_the_benchmark(store_env: dict[str, str]) -> None:
    off = Records({**Settings.from_env(store_env).store, "CRONACA_CHAIN": "off"})
    try:
        assert off.chain is False
        record_id = finished_toy(off)
        assert all(p.get("chain") is None for _, _, p in rows_of(off, record_id))
        import_id, _ = off.imports.submit(toy_file(off))
        off.imports.validate(import_id)
        assert all(p.get("chain") is None for _, _, p in rows_of(off, import_id))
        assert off.verification.verify(record_id).chain.ok is None
    finally:
        off.close()


def test_an_import_aggregate_chains_its_own_events() -> None:
    found = Import(document="{}", token_hashes=[])
    found.queue(job_id="j")
    found.validating()
    found.reject(report={"ok": False})
    events = found.collect_events()
    items = [chains.stream_item(type(e).__name__, e.originator_version, e.__dict__) for e in events]
    links = [e.chain for e in events]
    assert chains.verify_links(items, links, key=found.chain_key) == [] and found.chain_head == links[-1]


# ---- the API ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_verify_over_http(client: Any) -> None:
    started = client.post("/api/records", json={"title": "toy", "seats": ["Ada", "Ben"]}).get_json()
    record_id = started["id"]
    assert started["record"]["chain"]["length"] >= 2
    answer = client.get(f"/api/records/{record_id}/verify")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["ok"] and body["head"] == client.get(f"/api/records/{record_id}").get_json()["chain"]["head"]
    assert set(body) >= {"ok", "head", "length", "chain", "replay"}
    assert client.get(f"/api/records/{record_id}/verify", headers=auth("forged")).status_code == 403
    assert client.get("/api/records/00000000-0000-0000-0000-000000000000/verify").status_code == 404


# ---- the notes stream: its own chain, checked by /verify ------------------------------------------------------------


def test_notes_are_chained_and_a_changed_note_is_named(records: Records, store_env: dict[str, str]) -> None:
    from domain.records.annotations import Annotations, notes_id
    from domain.records.variations import Variations

    key = "annotator-key-of-the-chain-test"
    record_id, _ = import_finished(records, record_file("citta-stato", "chain-3"), annotator_key=key)
    notes = Annotations(records, Variations(records))
    first = notes.add(record_id, key, {"step": 3, "text": "a careful move"}).to_json()
    notes.add(record_id, key, {"step": 5, "text": "a bold one"})
    notes.edit(record_id, first["id"], key, {"text": "a careless move"})
    answer = records.verification.verify(record_id).to_json()
    assert answer["ok"] and answer["streams"]["notes"]["ok"] and answer["streams"]["notes"]["length"] == 4
    rows = rows_of(records, notes_id(record_id))
    assert all(len(p["chain"]) == 64 for _, _, p in rows)
    version = next(v for v, topic, p in rows if topic.endswith("Annotated") and p["note"]["step"] == 5)

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["note"]["text"] = "a timid one"
        return state

    tamper(records, store_env, notes_id(record_id), version, change)
    answer = verify_fresh(store_env, record_id)
    assert not answer["ok"] and answer["chain"]["ok"] and answer["replay"]["ok"]  # the game is untouched
    assert [(p["version"], p["event"]) for p in answer["streams"]["notes"]["problems"]] == [(version, "Annotated")]


def test_a_record_in_progress_verifies_and_its_tampering_is_named(records: Records, store_env: dict[str, str]) -> None:
    record_id, tokens = records.play.start("toy", ["Ada", "Ben"], seed="in-progress")
    for seat in (0, 1, 0):
        records.play.command(record_id, {"type": "toy/draw", "seat": seat}, tokens[seat])
    assert records.verification.verify(record_id).ok  # the service's own seed re-derives the draws so far
    version, _ = happened(records, record_id)[2]  # game event 3, seat 1's draw

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["entry"]["outcomes"][0]["values"] = [v % 3 + 1 for v in state["entry"]["outcomes"][0]["values"]]
        return state

    tamper(records, store_env, record_id, version, change)
    answer = verify_fresh(store_env, record_id)
    assert [p["step"] for p in answer["chain"]["problems"]] == [version - 1]
    replay = answer["replay"]["problems"]
    assert replay[0]["step"] == version - 1 and "facts" not in replay[0]  # no draw shown while the game goes on


@pytest.mark.parametrize("store_env", ["sqlite"], indirect=True)
def test_a_shared_dice_record_is_chained_from_its_file(client: Any) -> None:
    """Seats' joins and reveals sit in the record's stream between its chained events; the file's items still give
    every stored link (a contribution is kept under chance.seats, so it is no part of an entry's item)."""
    import secrets

    from tests.service.test_dice import NAMES as SEATS
    from tests.service.test_dice import join_all, play_to_end, reveal, start

    record_id, tokens = start(client, SEATS, dice="shared")
    hidden = [secrets.token_hex(16) for _ in SEATS]
    join_all(client, record_id, tokens, hidden)
    play_to_end(client, record_id, tokens, hidden)
    for seat, (token, secret) in enumerate(zip(tokens, hidden, strict=True)):
        assert reveal(client, record_id, seat, token, secret).status_code == 200
    document = client.get(f"/api/records/{record_id}/export").get_json()
    assert document["chance"]["dice"] == "shared"
    summary = client.get(f"/api/records/{record_id}").get_json()
    links = chains.chain_of(chains.record_items(document), key=chains.record_key(document))
    assert links[-1] == summary["chain"]["head"] == document["chain"]["head"] and len(links) == summary["chain"]["length"]
    answer = client.get(f"/api/records/{record_id}/verify").get_json()
    assert answer["ok"] and answer["chain"]["ok"] and answer["replay"]["ok"], answer


FRESH_VERIFY = """
import sys
from uuid import UUID
from domain.records import Records
from domain.records.settings import Settings
import os
app = Records(Settings.from_env({**os.environ, "SQLITE_DBNAME": sys.argv[1]}).store)
import json; print(json.dumps(app.verification.verify(UUID(sys.argv[2])).to_json()))
"""


def test_a_fresh_process_verifies_before_anything_loaded_the_title(tmp_path: Any) -> None:
    """A new API process or worker asked to verify first: the title's event types are loaded by the type's name."""
    import subprocess
    import sys

    from tests.service.conftest import ROOT, subprocess_env

    db = tmp_path / "records.sqlite3"
    made = Records(Settings.from_env({"SQLITE_DBNAME": str(db)}).store)
    record_id, tokens = made.play.start("toy", ["Ada", "Bo"], seed="fresh")
    play_out(made, record_id, tokens)
    made.close()
    answer = subprocess.run([sys.executable, "-c", FRESH_VERIFY, str(db), str(record_id)], cwd=ROOT, timeout=60,
                            env=subprocess_env({}), capture_output=True, text=True)
    assert answer.returncode == 0, answer.stderr[-800:]
    assert json.loads(answer.stdout)["ok"] is True, answer.stdout[-800:]


# ---- the quick paths of reading and checking (orjson) -------------------------------------------------------------


@pytest.mark.parametrize("text", [
    b'{"a":1,"a":2}', b"[12345678901234567890123]", b"[-9223372036854775809]", b"[18446744073709551616, 1]",
    b'{"h":"12345678901234567890123","n":1}', b'{"h":"x","n": 99999999999999999999999}', b"[NaN, Infinity]",
    b'{"s":"\\ud800"}', b"[1e16, 1.5, -0.0, 5e-324, 1e400]", '{"é":"ü"}'.encode(), b"12345678901234567890"])
def test_rows_are_read_back_exactly_as_the_json_module_reads_them(text: bytes) -> None:
    from domain.records.timeline import loads

    expected = json.loads(text)
    assert repr(loads(text)) == repr(expected)  # repr: an integer read as a float would still compare equal
    assert repr(loads(text.decode("utf-8", "surrogatepass"))) == repr(expected)


def test_verify_decides_a_link_by_the_canonical_bytes_when_the_quick_ones_differ() -> None:
    """`chains.quick` (orjson) writes 1e-07 as 1e-7 and NaN as null, otherwise than the contract's json.dumps:
    a row holding them still verifies (its links were made from the canonical bytes), and a change is still named."""
    odd = [{"type": "toy/drawn", "data": {"weight": 1e-07, "seat": 0}},
           {"type": "toy/drawn", "data": {"big": 2**70, "seat": 1}},
           {"type": "toy/drawn", "data": {"cube": 3, "seat": 0}}]
    assert chains.quick(odd[0]) != chains.canonical(odd[0])
    started = {"title": "toy", "edition": {"id": "e", "content_hash": "h"}, "seats": ["Ada", "Ben"], "options": {},
               "mode": "transcribed", "commitment": None}
    link = chains.link(chains.GENESIS, chains.started_item("toy", started["edition"], None, ["Ada", "Ben"], {},
                                                           "transcribed", None))
    rows: list[tuple[int, str, dict[str, Any]]] = [(1, "Record.Started", {**started, "chain": link})]
    entry = {"command": {"type": "toy/draw", "seat": 0}, "outcomes": [{"kind": "draw", "source": "bag:0", "values": [2**70]}]}
    for step, event in enumerate(odd, start=1):
        head = entry if step == 1 else None
        link = chains.event_link(link, step, event, None if head is None else chains.entry_head(head, "transcribed"))
        rows.append((step + 1, "Record.Happened", {"event": event, "entry": head, "chain": link}))
    answer = Verification._verify_chain(rows, "Record.Started", HAPPENED, FINISHED)
    assert answer.ok and answer.length == 4 and answer.head == link
    rows[2][2]["event"]["data"]["big"] += 1  # step 2, past 64 bits either way
    answer = Verification._verify_chain(rows, "Record.Started", HAPPENED, FINISHED)
    assert not answer.ok and [p["step"] for p in answer.problems] == [2]


def test_canonical_is_the_json_modules_bytes_on_random_values() -> None:
    """`chains.canonical` is the contract's json.dumps on random values with floats, NaN, big integers, control
    and astral characters (a faster encoder must give the same bytes; orjson does not: 1e-07, NaN)."""
    import random

    rnd = random.Random(15)
    alphabet = [*"aeE.0123456789/ null", '"', "\\", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\u2028",
                "\ufeff", "\U0001f600"]

    def text() -> str:
        return "".join(rnd.choice(alphabet) if rnd.random() < 0.7 else chr(rnd.randint(0x80, 0x2fff))
                       for _ in range(rnd.randint(0, 6)))

    def value(depth: int = 0) -> Any:
        r = rnd.random()
        if depth > 3 or r < 0.5:
            return rnd.choice([lambda: rnd.randint(-(2**70), 2**70) if rnd.random() < 0.1 else rnd.randint(-1000, 10**6),
                               text, lambda: rnd.choice([True, False, None]),
                               lambda: rnd.choice([0.5, 1e-07, 1e16, float("nan"), float("inf"), 3.0, -0.0])])()
        if r < 0.75:
            return [value(depth + 1) for _ in range(rnd.randint(0, 4))]
        return {text(): value(depth + 1) for _ in range(rnd.randint(0, 4))}

    for _ in range(20_000):
        v = value()
        assert chains.canonical(v) == json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: refused as the json module's bytes refuse it
        chains.canonical({"a": "\ud800"})
    with pytest.raises(TypeError):  # not JSON: refused by both
        chains.canonical({"a": {1, 2}})
