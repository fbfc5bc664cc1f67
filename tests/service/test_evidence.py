"""The evidence bundle (issue 15): served for finished records, verified offline, every tampering named.

One service for the module (SQLite), three finished records: a live game with two rulings (its outcomes drawn
from the committed seed), a live game with shared dice (every seat's secret committed, then revealed) and an
imported notation game (the table's outcomes). Each bundle verifies; then each part of each is tampered with
in turn, the manifest's hashes recomputed as a careful forger would (the part's own check must name it), and,
on the first, with the manifest left as served (its hash names the part too). `cronaca verify` runs as a
separate process that can import the installed package and nothing else, with a store setting that points
where no file may appear.
"""
from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from api.app import create_app
from domain import catalog, transcripts
from domain.kernel import SeededChance
from domain.kernel.selfplay import play_random
from domain.records import chain, dice, evidence
from domain.records.access import new_tokens
from domain.records.settings import Settings
from tests.service.conftest import LONG_TOY, subprocess_env
from tests.service.helpers import auth, play_out, play_out_http
from tests.service.test_api import wait_for_verdict

NAMES = ["Ada", "Ben"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("evidence")
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp / "records.sqlite3")}))
    app.config["TESTING"] = True
    yield app
    found = app.extensions["cronaca"]
    pool = getattr(found.dispatcher, "pool", None)
    if pool is not None:
        pool.shutdown(wait=True)
    found.records.close()


@pytest.fixture(scope="module")
def client(service: Any) -> Any:
    return service.test_client()


@pytest.fixture(scope="module")
def live(service: Any, client: Any) -> tuple[str, bytes]:
    """A live La Città game played to its end, then two rulings on it: (record id, its bundle from the API)."""
    records = service.extensions["cronaca"].records
    (arbiter,) = new_tokens(1)
    record_id, tokens = records.play.start("la-citta", NAMES, {}, "live", seed="evidence-live", arbiter_key=arbiter)
    answer = client.get(f"/api/records/{record_id}/evidence")
    assert answer.status_code == 403, "a game in progress has no evidence: its log holds every secret"
    play_out(records, record_id, tokens, seed="evidence")
    # two rulings: one that lets a move stand, one that replays a turn (the same move again: the rules accept it)
    entries = client.get(f"/api/records/{record_id}/export").get_json()["entries"]
    at = sum(len(e["events"]) for e in entries[:4])
    replayed = {"command": entries[4]["command"],
                "outcomes": [{k: o[k] for k in ("kind", "source", "values")} for o in entries[4]["outcomes"]]}
    for body in ({"step": 3, "decision": "the move stands", "reason": "the rules allow it"},
                 {"decision": "replay from here", "reason": "the table misread a card",
                  "correction": {"from_step": at, "entries": [replayed]}}):
        answer = client.post(f"/api/records/{record_id}/rulings", json=body, headers=auth(arbiter))
        assert answer.status_code in (200, 201), answer.get_json()
    answer = client.get(f"/api/records/{record_id}/evidence")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:400]
    assert answer.mimetype == "application/zip"
    assert answer.headers["Content-Disposition"] == f'attachment; filename="evidence-{record_id}.zip"'
    return str(record_id), answer.get_data()


@pytest.fixture(scope="module")
def shared(service: Any, client: Any) -> tuple[str, bytes]:
    """A live La Città game with shared dice (every seat contributes to every draw it takes part in), played
    through the API to its end and every secret revealed: (record id, its bundle)."""
    # started as `POST /api/records` with "dice": "shared" starts it, with a fixed service seed: the same game every run
    record_id, tokens = service.extensions["cronaca"].records.play.start("la-citta", NAMES, {}, "live", seed="evidence-shared",
                                                                     dice_mode="shared")
    secrets_ = [f"secret of {name}" for name in NAMES]
    for seat, secret in enumerate(secrets_):
        answer = client.post(f"/api/records/{record_id}/seats/{seat}/join", headers=auth(tokens[seat]),
                             json={"commitment": dice.seat_commitment(secret), "contribution": dice.contribution(secret, 0)})
        assert answer.status_code == 200, answer.get_json()
    players = SeededChance("shared-evidence")
    for k in range(1, 2000):
        pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
        seat = pending["seat"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
        cmd = legal["commands"][players.below(len(legal["commands"]))]
        answer = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[seat]),
                             json={"command": cmd, "version": legal["version"], "contribution": dice.contribution(secrets_[seat], k)})
        assert answer.status_code == 200, answer.get_json()
        if answer.get_json()["finished"]:
            break
    for seat, secret in enumerate(secrets_):
        answer = client.post(f"/api/records/{record_id}/seats/{seat}/reveal", headers=auth(tokens[seat]), json={"secret": secret})
        assert answer.status_code == 200, answer.get_json()
    answer = client.get(f"/api/records/{record_id}/evidence")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:400]
    return str(record_id), answer.get_data()


@pytest.fixture(scope="module")
def imported(client: Any) -> tuple[str, bytes]:
    """A Città-Stato game written in table notation and imported: (record id, its bundle)."""
    game = catalog.game("citta-stato")
    edition = game.default_edition()
    played = play_random(game, edition, {"players": 2}, "evidence-import")
    text = transcripts.render_log("citta-stato", edition, played.entries, NAMES, {"players": 2}, played.scores)
    answer = client.post("/api/imports", data=text.encode(), content_type=transcripts.MEDIA_TYPE)
    assert answer.status_code in (200, 201, 202), answer.get_json()
    verdict = wait_for_verdict(client, answer.get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    record_id = verdict["record_id"]
    answer = client.get(f"/api/records/{record_id}/evidence")
    assert answer.status_code == 200, answer.get_data(as_text=True)[:400]
    return record_id, answer.get_data()


@pytest.fixture(scope="module", params=["live", "shared", "imported"])
def bundle(request: pytest.FixtureRequest) -> tuple[str, bytes]:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


# ---- a bundle as it is served verifies -------------------------------------------------------------


def test_a_served_bundle_verifies_part_by_part(service: Any, client: Any, bundle: tuple[str, bytes]) -> None:
    record_id, raw = bundle
    files = evidence.unpack(raw)
    assert sorted(files) == sorted(evidence.PARTS)
    report = evidence.verify(raw)
    assert report.ok, report.to_json()
    assert [line.part for line in report.lines] == list(evidence.PARTS)
    assert all(line.checked for line in report.lines), report.to_json()

    # what the bundle holds is what the service says, computed here independently of the verifier
    summary = client.get(f"/api/records/{record_id}").get_json()
    record = json.loads(files["record.json"])
    manifest = json.loads(files["manifest.json"])
    links = json.loads(files["chain.json"])["links"]
    assert manifest["record_id"] == record_id == report.record_id
    assert manifest["files"] == {name: hashlib.sha256(files[name]).hexdigest() for name in evidence.PARTS[1:]}
    assert links == chain.chain_of(chain.record_items(record), key=chain.record_key(record))
    assert manifest["chain_head"] == links[-1] == report.chain_head
    assert summary["chain"] == {"head": links[-1], "length": len(links)} == record["chain"]
    assert "sha256:" + hashlib.sha256(files["edition.yaml"]).hexdigest() == summary["edition"]["content_hash"]
    assert files["notation.txt"].decode() == service.extensions["cronaca"].records.reading.notation(UUID(record_id))
    assert record["entries"] == client.get(f"/api/records/{record_id}/export").get_json()["entries"]
    commitments = json.loads(files["commitments.json"])
    if summary["mode"] == "live":
        assert commitments["service"] == {"commitment": summary["chance"]["commitment"], "seed": summary["chance"]["seed"]}
        assert hashlib.sha256(commitments["service"]["seed"].encode()).hexdigest() == commitments["service"]["commitment"]
        if summary["chance"].get("dice") == "shared":  # every seat's secret, committed at the start, revealed at the end
            assert commitments["dice"] == "shared" and len(commitments["seats"]) == len(NAMES)
            assert all(hashlib.sha256(s["secret"].encode()).hexdigest() == s["commitment"] for s in commitments["seats"])
            assert "contributions" in report.line("record.json").checked[-1]
    else:
        assert commitments["service"] is None and commitments["seats"] == []
    assert json.loads(files["report.json"])["ok"] is True

    # the same record gives the same bytes
    assert client.get(f"/api/records/{record_id}/evidence").get_data() == raw


def test_evidence_of_no_such_record_is_404_and_the_route_is_documented(client: Any) -> None:
    answer = client.get("/api/records/00000000-0000-4000-8000-000000000000/evidence")
    assert answer.status_code == 404
    operation = client.get("/api/openapi.json").get_json()["paths"]["/api/records/{record_id}/evidence"]["get"]
    assert "application/zip" in operation["responses"]["200"]["content"]
    assert {"403", "404"} <= set(operation["responses"])


def test_evidence_on_each_store(store_env: dict[str, str]) -> None:
    """SQLite and PostgreSQL alike: the links in chain.json are the stored rows' own, and the bundle verifies; the
    record plays with an edition file of its own, which is edition.yaml byte for byte."""
    app = create_app(Settings.from_env(store_env))
    client = app.test_client()
    printing = LONG_TOY.format(target=14)
    try:
        answer = client.post("/api/records", json={"title": "toy", "seats": NAMES, "edition_file": printing})
        assert answer.status_code == 201, answer.get_json()
        record_id, tokens = answer.get_json()["id"], [s["token"] for s in answer.get_json()["seats"]]
        play_out_http(client, record_id, tokens)
        answer = client.get(f"/api/records/{record_id}/evidence")
        assert answer.status_code == 200, answer.get_data(as_text=True)[:400]
        report = evidence.verify(answer.get_data())
        assert report.ok, report.to_json()
        assert evidence.unpack(answer.get_data())["edition.yaml"] == printing.encode()
        stored = app.extensions["cronaca"].records.verification.verify(UUID(record_id)).to_json()
        assert report.chain_head == stored["head"] and stored["ok"]
    finally:
        app.extensions["cronaca"].records.close()


# ---- tampering: each part in turn -------------------------------------------------------------------


def _json(raw: bytes) -> Any:
    return json.loads(raw)


def _dump(obj: Any) -> bytes:
    return (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


def _edit(name: str, change: Callable[[Any], None]) -> Callable[[dict[str, bytes]], None]:
    def edit(files: dict[str, bytes]) -> None:
        obj = _json(files[name])
        change(obj)
        files[name] = _dump(obj)

    return edit


def _an_event(record: dict[str, Any]) -> None:
    """A game event's data changed somewhere in the middle of the log."""
    entries = record["entries"]
    for entry in entries[len(entries) // 2:]:
        for event in entry["events"]:
            for key, value in event.get("data", {}).items():
                if isinstance(value, int) and not isinstance(value, bool):
                    event["data"][key] = value + 1
                    return
    raise AssertionError("no event with a number to change")


def _an_outcome(record: dict[str, Any]) -> None:
    """A chance outcome's values changed (a die, a draw) in an entry after the setup, or the setup's own."""
    for entry in [*record["entries"][1:], record["entries"][0]]:
        for outcome in entry["outcomes"]:
            values = outcome["values"]
            if len(values) > 1 and values[0] != values[-1]:
                values[0], values[-1] = values[-1], values[0]
                return
            if values and isinstance(values[0], int):
                values[0] = values[0] % 6 + 1
                return
    raise AssertionError("no outcome to change")


def _notation(files: dict[str, bytes]) -> None:
    lines = files["notation.txt"].decode().splitlines(keepends=True)
    moves = [k for k, line in enumerate(lines) if line[:1].isdigit()]
    k = moves[len(moves) // 2]
    lines[k] = lines[k].rstrip("\n") + ", pass\n" if "pass" not in lines[k] else lines[k].replace("pass", "", 1)
    del lines[moves[-1]]  # and the last move line: the log ends elsewhere
    files["notation.txt"] = "".join(lines).encode()


def _edition(files: dict[str, bytes]) -> None:
    files["edition.yaml"] = files["edition.yaml"].replace(b"\n", b"\n# a printing of our own\n", 1)


def _link(links: dict[str, Any]) -> None:
    k = len(links["links"]) // 2
    links["links"][k] = hashlib.sha256(links["links"][k].encode()).hexdigest()


def _seed(commitments: dict[str, Any]) -> None:
    if commitments["service"] is None:  # a transcribed record: claim a seed it never had
        commitments["service"] = {"commitment": hashlib.sha256(b"x").hexdigest(), "seed": "x"}
    else:
        commitments["service"]["seed"] = commitments["service"]["seed"][::-1]


def _secret(commitments: dict[str, Any]) -> None:
    if commitments["seats"]:  # shared dice: a seat's secret replaced
        commitments["seats"][0]["secret"] = "a secret of my own"
    else:  # the service's dice alone, or a transcribed record: claim a seat secret that was never committed
        commitments["seats"].append({"seat": 0, "commitment": hashlib.sha256(b"mine").hexdigest(), "secret": "not mine"})


def _ruling(rulings: dict[str, Any]) -> None:
    rulings["rulings"].append({"id": "r-forged", "step": 3, "line": None, "decision": "the move stands",
                               "reason": "added afterwards", "correction": None, "by": "arbiter",
                               "at": "2026-11-23T16:00:00+00:00"})


def _report(report: dict[str, Any]) -> None:
    report["scores"]["seats"][0]["total"] += 10


def _manifest_hash(files: dict[str, bytes]) -> None:
    manifest = _json(files["manifest.json"])
    manifest["files"]["record.json"] = hashlib.sha256(b"another record").hexdigest()
    files["manifest.json"] = _dump(manifest)


def _missing(files: dict[str, bytes]) -> None:
    del files["rulings.json"]


def _extra(files: dict[str, bytes]) -> None:
    files["extra.txt"] = b"slipped in afterwards"


# (what is tampered, how, the part that must be named, the other parts that may fail with it because they
# are checked against the tampered one)
TAMPERS: list[tuple[str, Callable[[dict[str, bytes]], None], str, set[str]]] = [
    ("record event", _edit("record.json", _an_event), "record.json", {"chain.json", "notation.txt"}),
    ("record outcome", _edit("record.json", _an_outcome), "record.json", {"chain.json", "notation.txt"}),
    ("notation", _notation, "notation.txt", {"report.json"}),
    ("edition", _edition, "edition.yaml", set()),
    ("chain link", _edit("chain.json", _link), "chain.json", set()),
    ("seed", _edit("commitments.json", _seed), "commitments.json", set()),
    ("secret", _edit("commitments.json", _secret), "commitments.json", set()),
    ("ruling", _edit("rulings.json", _ruling), "rulings.json", set()),
    ("report", _edit("report.json", _report), "report.json", set()),
    ("manifest hash", _manifest_hash, "manifest.json", set()),
    ("missing file", _missing, "rulings.json", {"manifest.json"}),
    ("extra file", _extra, "extra.txt", set()),
]


def _rehash(files: dict[str, bytes]) -> None:
    """What a forger does after changing a part: the manifest's hashes and head made to fit again."""
    manifest = _json(files["manifest.json"])
    manifest["files"] = {name: hashlib.sha256(raw).hexdigest() for name, raw in files.items()
                         if name in evidence.PARTS[1:]}
    files["manifest.json"] = _dump(manifest)


@pytest.mark.parametrize(("what", "tamper", "part", "collateral"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_each_tampered_part_is_named(bundle: tuple[str, bytes], what: str, tamper: Callable[[dict[str, bytes]], None],
                                     part: str, collateral: set[str]) -> None:
    """The manifest recomputed to fit, as a careful forger would: the part's own check must name it."""
    _named(bundle[1], tamper, what, part, collateral, forger=True)


@pytest.mark.parametrize(("what", "tamper", "part", "collateral"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_a_tampered_part_breaks_the_manifest(live: tuple[str, bytes], what: str, tamper: Callable[[dict[str, bytes]], None],
                                             part: str, collateral: set[str]) -> None:
    """The manifest left as served: its hash of the changed part says which part changed, and the part says why."""
    _named(live[1], tamper, what, part, collateral, forger=False)


def _named(raw: bytes, tamper: Callable[[dict[str, bytes]], None], what: str, part: str, collateral: set[str],
           forger: bool) -> None:
    files = evidence.unpack(raw)
    before = dict(files)
    tamper(files)
    assert files != before, what
    if forger and part != "manifest.json":
        _rehash(files)
    report = evidence.verify(evidence.pack(files))
    assert not report.ok
    assert part in report.failing, (what, report.to_json())
    assert report.line(part).problems, report.line(part).to_json()
    rewritten = [n for n in evidence.PARTS[1:] if n in files and n in before and files[n] != before[n]]
    if rewritten and not forger:  # the manifest's hash of the changed part no longer fits, and it says which part
        assert any(part in problem for problem in report.line("manifest.json").problems), report.line("manifest.json").to_json()
    allowed = {part} | collateral | ({"manifest.json"} if rewritten and not forger else set())
    assert set(report.failing) <= allowed, (what, report.failing, report.to_json())
    untouched = [p for p in evidence.PARTS if p not in allowed]
    assert untouched and all(report.line(p).ok for p in untouched), report.to_json()


def test_rulings_are_chained_and_their_corrections_re_decided(client: Any, live: tuple[str, bytes]) -> None:
    record_id, raw = live
    files = evidence.unpack(raw)
    record = _json(files["record.json"])
    served = _json(files["rulings.json"])
    assert len(served["rulings"]) == 2 and served["rulings"] == record["rulings"]
    key = served["key"]  # the rulings stream's chain key, revealed with the record's
    assert served["links"] == chain.chain_of(evidence.rulings_items(record_id, served["rulings"], key), key=key)
    published = client.get(f"/api/records/{record_id}/rulings").get_json()
    assert published["rulings"] == served["rulings"]
    assert _json(files["manifest.json"])["rulings_head"] == served["links"][-1] == published["chain"]["head"]
    report = evidence.verify(raw)
    assert report.line("rulings.json").ok and report.rulings_head == published["chain"]["head"]

    def forge(rulings: list[dict[str, Any]], relink: bool) -> evidence.Report:
        """The rulings changed in record.json and rulings.json alike, the manifest made to fit; with `relink`,
        the rulings stream's links recomputed too (then only the rules judge the corrections)."""
        forged = dict(files)
        record["rulings"] = rulings
        forged["record.json"] = _dump(record)
        links = chain.chain_of(evidence.rulings_items(record_id, rulings, key), key=key) if relink else served["links"]
        forged["rulings.json"] = _dump({"rulings": rulings, "links": links, "key": key})
        manifest = _json(forged["manifest.json"])
        manifest["rulings_head"] = links[-1]
        forged["manifest.json"] = _dump(manifest)
        _rehash(forged)
        return evidence.verify(evidence.pack(forged))

    # a ruling's reason rewritten afterwards: its link no longer fits, and the report names the ruling
    changed = json.loads(json.dumps(served["rulings"]))
    changed[0]["reason"] = "another reason"
    report = forge(changed, relink=False)
    assert report.failing == ["rulings.json"], report.to_json()
    assert any(changed[0]["id"] in p for p in report.line("rulings.json").problems), report.line("rulings.json").problems

    # a correction the rules refuse, even with the links recomputed to fit
    entries = record["entries"]
    at = sum(len(e["events"]) for e in entries[:3])
    refused = {"id": "r-bad", "step": at, "line": None, "decision": "replayed", "reason": "a test", "by": "arbiter",
               "at": "2026-11-23T16:00:00+00:00", "correction": {"from_step": at, "entries": [
                   {"command": {"type": "la-citta/no-such-move", "seat": 0}, "outcomes": [], "events": []}]}}
    report = forge([*served["rulings"], refused], relink=True)
    assert report.failing == ["rulings.json"], report.to_json()
    assert any("r-bad" in p for p in report.line("rulings.json").problems), report.line("rulings.json").problems
    off_point = {**refused, "id": "r-off", "correction": {"from_step": at + 1 if len(entries[3]["events"]) > 1 else at,
                                                        "entries": [{k: entries[3][k] for k in ("command", "outcomes")}]}}
    assert forge([off_point], relink=True).line("rulings.json").ok is (len(entries[3]["events"]) == 1)
    assert forge(served["rulings"], relink=True).ok  # the served rulings themselves re-decide cleanly


def test_bytes_that_are_no_bundle_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(evidence.NotABundle):
        evidence.verify(b"PK\x03\x04 not really a zip")
    with pytest.raises(evidence.NotABundle):
        evidence.verify(evidence.pack({"photo.jpg": b"\xff\xd8"}))
    monkeypatch.setattr(evidence, "MAX_PART", 4096)  # the limit is 64 MiB; the check is the same at 4 KiB
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("record.json", b"0" * (evidence.MAX_PART + 1))
    with pytest.raises(evidence.NotABundle, match="unpacks to"):
        evidence.verify(bomb.getvalue())


# ---- `cronaca verify` with the package alone ---------------------------------------------------------


def _verify_cli(path: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in a fresh interpreter that sees only the installed package (-I: no PYTHONPATH, no working
    directory on the path), with settings that would make a store at `tmp/store.sqlite3` if anything opened one."""
    env = subprocess_env({"SQLITE_DBNAME": str(tmp / "store.sqlite3"), "PERSISTENCE_MODULE": "eventsourcing.sqlite"})
    env.pop("PYTHONPATH", None)
    env.pop("CRONACA_EXTRA_TITLES", None)
    return subprocess.run([sys.executable, "-I", "-m", "api.cli", "verify", *args, str(path)], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cronaca_verify_offline(live: tuple[str, bytes], tmp_path: Path) -> None:
    record_id, raw = live
    good = tmp_path / "evidence.zip"
    good.write_bytes(raw)
    done = _verify_cli(good, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "everything holds" in done.stdout and record_id in done.stdout
    for part in evidence.PARTS:
        assert part in done.stdout

    files = evidence.unpack(raw)
    _edit("chain.json", _link)(files)
    _rehash(files)
    bad = tmp_path / "tampered.zip"
    bad.write_bytes(evidence.pack(files))
    done = _verify_cli(bad, tmp_path, "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert [p["part"] for p in found["parts"] if not p["ok"]] == ["chain.json"]

    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"this is no zip")
    done = _verify_cli(junk, tmp_path)
    assert done.returncode == 2 and "not an evidence bundle" in done.stderr, done.stdout + done.stderr

    assert not (tmp_path / "store.sqlite3").exists(), "cronaca verify opened a store"
    assert not (tmp_path / "var").exists()


def test_cronaca_verify_exit_codes_in_process(live: tuple[str, bytes], tmp_path: Path) -> None:
    """The same command in this process (cheaper): every part printed, 1 for a failing part, 2 for no file."""
    from click.testing import CliRunner

    from api.cli import cronaca

    files = evidence.unpack(live[1])
    del files["notation.txt"]
    (tmp_path / "partial.zip").write_bytes(evidence.pack(files))
    result = CliRunner().invoke(cronaca, ["verify", str(tmp_path / "partial.zip")])
    assert result.exit_code == 1, result.output
    assert "FAILS notation.txt" in result.output and "missing from the bundle" in result.output
    assert "ok    edition.yaml" in result.output
    result = CliRunner().invoke(cronaca, ["verify", str(tmp_path / "absent.zip")])
    assert result.exit_code == 2 and "absent.zip" in result.output, result.output
