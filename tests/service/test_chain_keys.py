"""Issue 28, part 1: the public chain head must not be a dictionary attack on a game's secrets.

For every title, live and transcribed, an attacker without a token reads everything public while the record is
in progress (the header with its chain head and commitments, /events, /verify, their ETags) and tries every guess
of every hidden value (each integer and each drawn value of each new game event and of its entry: a War disc, a
Republic card, a cube, a card) against the published links. The attacker's dictionary even holds the truth, so
"nothing matches" means no dictionary can confirm a guess. The same attack against a record stored the old way
(no chain key: unsalted links, which must still verify) recovers exactly the true value of every such field.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets as real_secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import UUID, uuid4

import pytest

from api.app import create_app
from domain import catalog
from domain.kernel import SeededChance
from domain.records import Records, evidence, recordfile
from domain.records import chain as chains
from domain.records import play as play_module
from domain.records.annotations import Notes
from domain.records.imports import judge as judge_module
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import import_finished, play_out, record_file

TITLES = sorted(catalog.TITLES)
PROBED = 14  # commands per live game whose links are attacked (the rest are played to the end unprobed)
DOMAIN = range(0, 11)  # the integer guesses: disc values, card numbers, counts


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[tuple[Any, Records]]:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "keys.sqlite3")}
    app = create_app(Settings.from_env(env))
    app.config["TESTING"] = True
    yield app.test_client(), app.extensions["cronaca"].records
    close_app(app)


@pytest.fixture
def legacy(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Records started while this is on are stored as before chain keys (no key: unsalted links)."""
    def token_hex(n: int | None = None) -> Any:
        return None if n == 32 else real_secrets.token_hex(n)

    def on() -> None:
        for module in (play_module, judge_module):  # where a record's chain key is drawn: started, or imported
            monkeypatch.setattr(module, "secrets", SimpleNamespace(token_hex=token_hex, token_urlsafe=real_secrets.token_urlsafe))

    return SimpleNamespace(on=on, off=monkeypatch.undo)


def truth(records: Records, record_id: UUID) -> dict[str, Any]:
    """The record file as the service alone holds it in progress (every secret in it): the attacker's best guess."""
    timeline = records.timeline(record_id)
    return copy.deepcopy(recordfile.export(timeline.meta, timeline.entries))


def public(client: Any, record_id: UUID) -> tuple[dict[str, Any], set[str]]:
    """What anyone reads without a token: the header, and every hex string any public answer or ETag shows."""
    seen: set[str] = set()
    answers = [client.get(f"/api/records/{record_id}"), client.get(f"/api/records/{record_id}/events"),
               client.get(f"/api/records/{record_id}/verify")]
    for answer in answers:
        assert answer.status_code == 200, answer.get_data(as_text=True)
        text = answer.get_data(as_text=True)
        seen.update(w for w in _words(text) if len(w) == 64)
        if answer.headers.get("ETag"):
            seen.add(answer.headers["ETag"].strip('W/"'))
    header = answers[0].get_json()
    assert header["status"] == "in-progress"
    assert answers[2].get_json()["head"] == header["chain"]["head"]  # /verify says no more than the header
    return header, seen


def _words(text: str) -> list[str]:
    return "".join(c if c in "0123456789abcdef" else " " for c in text).split()


def guesses(items: list[dict[str, Any]], vocabulary: set[str]) -> Iterator[tuple[str, Any, Any, list[dict[str, Any]]]]:
    """(where, guessed, true value, the items with that guess) for every hidden-value guess in these game items:
    each integer of each event's data and of its entry head (the command, the outcomes' values), and each drawn
    string value, tried over its whole small domain. The items are guessed in place (the true value put back after
    its domain): use each before asking for the next."""
    for k, item in enumerate(items):
        if "step" not in item:
            continue
        places: list[tuple[Any, Any]] = []
        data = item["event"].get("data") or {}
        places += [(data, key) for key in data]
        entry = item.get("entry") or {}
        command = entry.get("command") or {}
        places += [(command, key) for key in command if key != "type"]
        for outcome in entry.get("outcomes") or []:
            values = outcome.get("values")
            if isinstance(values, list):
                places += [(values, i) for i in range(len(values))]
        for place, (container, key) in enumerate(places):
            true = container[key]
            if type(true) is int:
                domain: list[Any] = sorted(set(DOMAIN) | {true})
            elif type(true) is str and container is not data and container is not command:
                domain = sorted(vocabulary | {true})
            else:
                continue
            for guess in domain:
                container[key] = guess
                yield f"item {k} place {place} ({key})", guess, true, items
            container[key] = true


def attack(previous: str, items: list[dict[str, Any]], published: set[str], vocabulary: set[str]) -> dict[str, set[Any]]:
    """Every guess whose chain, recomputed from the published link before them, gives a published hex string:
    {where: the values that matched}. Without the chain key the unsalted link is all anyone can compute."""
    confirmed: dict[str, set[Any]] = {}
    tried = 0
    for where, guess, _, guessed in guesses(items, vocabulary):
        tried += 1
        if chains.chain_of(guessed, previous)[-1] in published:
            confirmed.setdefault(where, set()).add(guess)
    assert tried, "no hidden value was guessed at"
    return confirmed


def true_values(items: list[dict[str, Any]], vocabulary: set[str]) -> dict[str, Any]:
    return {where: true for where, _, true, _ in guesses(items, vocabulary)}


def vocabulary_of(document: dict[str, Any]) -> set[str]:
    return {v for e in document["entries"] for o in e.get("outcomes") or [] for v in o.get("values") or [] if type(v) is str}


def legacy_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same items as a record stored before chain keys chains them (no commitment, no revealed key)."""
    out = copy.deepcopy(items)
    for item in out:
        (item.get("started") or {}).pop("chain_commitment", None)
        (item.get("finished") or {}).pop("chain_key", None)
    return out


def probe_live(client: Any, records: Records, title: str) -> tuple[UUID, list[str], dict[str, set[Any]], int]:
    """A live game of `title`: before and after each of its first PROBED commands, the attack on the new links."""
    record_id, tokens = records.play.start(title, ["Ada", "Ben", "Cy"][: max(2, catalog.game(title).seats[0])])
    players = SeededChance(f"keys-{title}")
    confirmed: dict[str, set[Any]] = {}
    attacked = 0
    for _ in range(PROBED):
        before, _seen = public(client, record_id)
        timeline = records.timeline(record_id)
        if timeline.game.pending(timeline.head).over:
            break
        choices = timeline.game.legal(timeline.head)
        command = choices[players.below(len(choices))]
        records.play.command(record_id, command.to_json(), tokens[command.seat])
        after, seen = public(client, record_id)
        document = truth(records, record_id)
        items = chains.record_items(document)[before["chain"]["length"]: after["chain"]["length"]]
        key = records.timeline(record_id).meta.chain_key
        if key is not None:
            assert key not in json.dumps(after) and key not in seen  # the key never leaves while in progress
            assert after["chance"]["chain_key"] is None
        for where, values in attack(before["chain"]["head"], items, seen, vocabulary_of(document)).items():
            confirmed.setdefault(f"{attacked}:{where}", set()).update(values)
        attacked += 1
    return record_id, tokens, confirmed, attacked


@pytest.mark.parametrize("title", TITLES)
def test_a_live_games_links_confirm_no_guess_and_the_old_ones_did(app_client: tuple[Any, Records], title: str,
                                                                  legacy: Any, tmp_path: Path) -> None:
    client, records = app_client
    record_id, tokens, confirmed, attacked = probe_live(client, records, title)
    assert attacked and confirmed == {}, f"guesses confirmed from public links: {confirmed}"
    committed = client.get(f"/api/records/{record_id}").get_json()["chance"]["chain_commitment"]

    legacy.on()  # the same attack on a record stored the old way: every guessed field's true value, and it alone
    old_id, old_tokens = records.play.start(title, ["Ada", "Ben", "Cy"][: max(2, catalog.game(title).seats[0])])
    legacy.off()
    assert records.timeline(old_id).meta.chain_key is None
    before, _ = public(client, old_id)
    timeline = records.timeline(old_id)
    command = timeline.game.legal(timeline.head)[0]
    records.play.command(old_id, command.to_json(), old_tokens[command.seat])
    after, seen = public(client, old_id)
    document = truth(records, old_id)
    items = chains.record_items(document)[before["chain"]["length"]: after["chain"]["length"]]
    found = attack(before["chain"]["head"], items, seen, vocabulary_of(document))
    assert found and found == {where: {true} for where, true in true_values(items, vocabulary_of(document)).items()}

    # the old record still verifies, on its legacy (unsalted) links
    play_out(records, old_id, old_tokens, seed="old")
    answer = client.get(f"/api/records/{old_id}/verify").get_json()
    assert answer["ok"] and answer["chain"]["ok"], answer
    exported = records.reading.export(old_id).to_json()
    assert chains.record_key(exported) is None and chains.chain_of(chains.record_items(exported))[-1] == answer["head"]
    assert evidence.verify(client.get(f"/api/records/{old_id}/evidence").data).ok

    # the keyed record, finished: the key revealed, the one committed to; /verify, the bundle and cronaca verify hold
    play_out(records, record_id, tokens, seed="end")
    summary = client.get(f"/api/records/{record_id}").get_json()
    key = summary["chance"]["chain_key"]
    assert chains.is_key(key) and hashlib.sha256(key.encode()).hexdigest() == committed == summary["chance"]["chain_commitment"]
    finished_and_checked(client, record_id, summary, tmp_path)


def finished_and_checked(client: Any, record_id: UUID, summary: dict[str, Any], tmp_path: Path) -> None:
    """A finished keyed record verifies through /verify and offline; a bundle with a changed hidden value is refused."""
    answer = client.get(f"/api/records/{record_id}/verify").get_json()
    assert answer["ok"] and answer["chain"]["ok"] and answer["head"] == summary["chain"]["head"], answer
    exported = client.get(f"/api/records/{record_id}/export").get_json()
    key = chains.record_key(exported)
    assert key == summary["chance"]["chain_key"]
    assert chains.chain_of(chains.record_items(exported), key=key)[-1] == summary["chain"]["head"]
    assert chains.chain_of(chains.record_items(exported))[-1] != summary["chain"]["head"]  # the key is needed
    raw = client.get(f"/api/records/{record_id}/evidence").data
    report = evidence.verify(raw)
    assert report.ok, report.failing
    good = tmp_path / f"{record_id}.zip"
    good.write_bytes(raw)
    assert cli_verify(good).returncode == 0

    files = evidence.unpack(raw)  # a drawn value changed in record.json, the manifest made to fit: refused
    record = json.loads(files["record.json"])
    entry = next(e for e in record["entries"][1:] if any(o.get("values") for o in e.get("outcomes") or []))
    outcome = next(o for o in entry["outcomes"] if o.get("values"))
    value = outcome["values"][0]
    outcome["values"][0] = value + 1 if type(value) is int else f"{value}x"
    files["record.json"] = json.dumps(record).encode()
    manifest = json.loads(files["manifest.json"])
    manifest["files"]["record.json"] = hashlib.sha256(files["record.json"]).hexdigest()
    files["manifest.json"] = json.dumps(manifest).encode()
    assert not evidence.verify(evidence.pack(files)).line("chain.json").ok
    bad = tmp_path / f"{record_id}-tampered.zip"
    bad.write_bytes(evidence.pack(files))
    assert cli_verify(bad).returncode != 0

    files = evidence.unpack(raw)  # another key revealed than the one committed to: refused
    record = json.loads(files["record.json"])
    record["chance"]["chain_key"] = real_secrets.token_hex(32)
    files["record.json"] = json.dumps(record).encode()
    manifest["files"]["record.json"] = hashlib.sha256(files["record.json"]).hexdigest()
    files["manifest.json"] = json.dumps(manifest).encode()
    assert not evidence.verify(evidence.pack(files)).line("chain.json").ok


def cli_verify(path: Path) -> subprocess.CompletedProcess[str]:
    """`cronaca verify BUNDLE.zip`, this worktree's code (no service, no store)."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], cwd=root, capture_output=True,
                          text=True, timeout=120, check=False, env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("title", TITLES)
def test_a_transcribed_records_links_confirm_no_guess_and_the_old_ones_did(app_client: tuple[Any, Records], title: str,
                                                                           legacy: Any, tmp_path: Path) -> None:
    """A transcribed game imported in progress: its observed outcomes and events are hidden; the attack over the
    whole chain from its start (the attacker knows the shape, guesses each hidden value) confirms nothing."""
    client, records = app_client
    whole = record_file(title, f"keys-{title}")
    cut = {**whole, "entries": whole["entries"][:12]}
    record_id, _ = import_finished(records, cut)
    _, seen = public(client, record_id)
    items = chains.record_items(truth(records, record_id))
    vocabulary = vocabulary_of(cut)
    assert attack(chains.GENESIS, items, seen, vocabulary) == {}

    legacy.on()
    old_id, _ = import_finished(records, copy.deepcopy(cut))
    legacy.off()
    _, seen = public(client, old_id)
    old_items = chains.record_items(truth(records, old_id))
    assert old_items == legacy_items(items)
    found = attack(chains.GENESIS, old_items, seen, vocabulary)
    assert found and found == {where: {true} for where, true in true_values(old_items, vocabulary).items()}
    answer = client.get(f"/api/records/{old_id}/verify").get_json()
    assert answer["chain"]["ok"], answer

    finished_id, _ = import_finished(records, whole)  # the whole game: finished, key revealed, checked everywhere
    summary = client.get(f"/api/records/{finished_id}").get_json()
    assert summary["finished"] and chains.is_key(summary["chance"]["chain_key"])
    finished_and_checked(client, finished_id, summary, tmp_path)


def test_a_notes_stream_is_keyed_and_one_stored_before_keys_still_verifies(app_client: tuple[Any, Records]) -> None:
    """A seat's private note is a secret too: its stream's links are keyed (the key never leaves), so a guessed
    note gives no published link; a stream stored before keys (no chain_key) keeps verifying on unsalted links."""


    _, records = app_client
    note = {"id": "n-1", "line": None, "step": 3, "audience": 0, "author": "Ada", "by": "seat:0",
            "text": "attack Mantova next turn", "shapes": [], "glyph": None, "created": "2026-12-01T00:00:00Z",
            "edited": None}  # a note as the service stores it (annotations.shown reads each field)
    notes = Notes(id=uuid4(), record_id="r")
    notes.annotate(note=note)
    records.save(notes)
    events = list(records.repository.event_store.get(notes.id))
    items = [chains.stream_item(type(e).__name__, e.originator_version, e.__dict__) for e in events]
    links = [e.chain for e in events]
    assert chains.is_key(notes.chain_key) and chains.verify_links(items, links, key=notes.chain_key) == []
    assert chains.chain_of(items)[-1] != links[-1]  # the true note, hashed as before, gives nothing published
    assert records.verification.verify_stream(notes.id).ok is True

    old = Notes(id=uuid4(), record_id="r", chain=chains.link(chains.GENESIS, chains.stream_item("Opened", 1, {"record_id": "r"})))
    assert getattr(old, "chain_key", None) is None
    old.annotate(note=note)
    records.save(old)
    checked = records.verification.verify_stream(old.id).to_json()
    assert checked["ok"] is True and checked["length"] == 2
    rebuilt = [chains.stream_item("Opened", 1, {"record_id": "r"}), chains.stream_item("Annotated", 2, {"note": note})]
    assert chains.chain_of(rebuilt)[-1] == checked["head"]  # unsalted: the old scheme, as stored
