"""Bad input and names of any shape through every door a table uses (issue 30): `cronaca check`, `cronaca reconcile`,
`cronaca import`, and the real Flask app's `POST /api/check`, `POST /api/imports` and `POST /api/reconcile`.

Each bad file (dozens of slips, every outcome unknown, junk lines between moves, a game cut mid-turn, a file of one
line written hundreds of times, a 5 MB file, binary junk) gives a report, or a 4xx naming why, never a 500 or a
traceback; a report stays bounded (`kernel.dispute.MAX_FINDINGS`: past it the file is not read further, and the report
says so with the bound at the line it stopped). Asserted on results, never on the machine's speed.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from api.app import create_app
from api.cli import cronaca
from domain.kernel.dispute import MAX_FINDINGS
from domain.records.settings import Settings
from domain.transcripts import MEDIA_TYPE, check_text

HERE = Path(__file__).parent
BAD = sorted(HERE.glob("bad_*.txt"))
NAMES = sorted(HERE.glob("*_names_of_every_shape.txt"))
AT_MOST = MAX_FINDINGS + 3  # the bound's own finding, and a result's at the end

_HEAD = ('[Title "citta-stato"]\n[Edition "reference-1"]\n[Seats "Maria Grazia, Gianmaria D\'Angelo, Zoë"]\n'
         '[Options "players=3"]\n\nSetup [ANC AMA PIS] [S2] [S6 S3 S5 S4] [R6 R8 R4] [Y6 Y2] [W8 W2] [G1 G2] [O7 O8] '
         '[B6 B1] [P3 P4] ["Maria Grazia"]\n1. Maria Grazia: upgrade P\n')


def _again_and_again() -> str:
    """The same line copied down the page, 600 times: every copy after the first is out of turn."""
    return _HEAD + "   Maria Grazia: upgrade P\n" * 600


def _five_megabytes() -> str:
    """A game's opening, then lines of junk and moves mixed, to 5 MB (a file pasted into itself, a log appended)."""
    rng = random.Random(5)
    junk = ["asdf ;lkj [[ 12", "}{ ) (", "7. 7. 7.", "Zoë: ", "[?] [?] [?]", "☃ ünïcödé ’’", "{ an open note",
            "   Gianmaria D'Angelo: war, disc", "1. 2. 3.", "   Zoë: fleet, no, no, no", "   Maria Grazia: pass"]
    lines = [_HEAD]
    size = len(_HEAD)
    while size < 5_000_000:
        lines.append(rng.choice(junk) * rng.randint(1, 30) + "\n")
        size += len(lines[-1])
    return "".join(lines)


def _texts() -> dict[str, str]:
    texts = {p.stem: p.read_text(encoding="utf-8") for p in BAD}
    texts["again_and_again"] = _again_and_again()
    return texts


def _bounded(report: dict[str, Any]) -> None:
    assert report["findings"], "bad input passed as clean"
    assert len(report["findings"]) <= AT_MOST
    assert all(isinstance(f["line"], int) and f["line"] >= 1 for f in report["findings"])
    assert len(json.dumps(report)) < 2_000_000


# ---- the command line ----------------------------------------------------------------------------------------------


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cronaca, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("name", sorted(_texts()), ids=str)
def test_cronaca_check_gives_a_bounded_report_of_each_bad_file(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.txt"
    path.write_text(_texts()[name], encoding="utf-8")
    result = _cli("check", "--json", str(path))
    assert result.exit_code == 1, result.output[-400:]
    _bounded(json.loads(result.output))


def test_a_file_past_the_bound_says_where_it_stopped_and_why() -> None:
    report = check_text(_again_and_again()).to_json()
    stopped = [f for f in report["findings"] if f["rule"] == "notation/too-many-findings"]
    assert len(stopped) == 1 and f"past {MAX_FINDINGS}" in stopped[0]["message"]
    assert stopped[0]["line"] < 8 + 600 and all(f["line"] <= stopped[0]["line"] for f in report["findings"])


def test_cronaca_check_reads_a_five_megabyte_file_to_a_bounded_report(tmp_path: Path) -> None:
    path = tmp_path / "pasted.txt"
    path.write_text(_five_megabytes(), encoding="utf-8")
    assert path.stat().st_size > 5_000_000
    result = _cli("check", "--json", str(path))
    assert result.exit_code == 1
    _bounded(json.loads(result.output))


@pytest.mark.parametrize(("raw", "why"), [(b"\x00\x01\x02\x03 a photo, perhaps", "NUL"),
                                          (bytes(range(128, 256)) * 40, "UTF-8")])
def test_binary_junk_is_named_not_checked(raw: bytes, why: str, tmp_path: Path) -> None:
    path = tmp_path / "scan.txt"
    path.write_bytes(raw)
    for args in (["check", str(path)], ["reconcile", str(path), str(HERE / "bad_cut_mid_turn.txt")]):
        result = _cli(*args)
        assert result.exit_code == 2 and why in result.output and str(path) in result.output


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_cronaca_reconcile_compares_a_bad_file_with_a_copy_slipped_once_more(path: Path, tmp_path: Path) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    at = max(k for k, line in enumerate(lines) if ": " in line and not line.startswith("["))
    lines[at] = lines[at].rsplit(" ", 1)[0] + " junk"
    other = tmp_path / "other.txt"
    other.write_text("\n".join(lines), encoding="utf-8")
    result = _cli("reconcile", "--json", str(path), str(other))
    assert result.exit_code == 1, result.output[-400:]
    found = json.loads(result.output)
    assert not found["agree"] and found["disagreements"]


def _import_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "records.sqlite3"))


def test_cronaca_import_rejects_each_bad_file_with_its_report_and_refuses_junk_at_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _import_environment(tmp_path, monkeypatch)
    paths = []
    for name, text in _texts().items():
        paths.append(tmp_path / f"{name}.txt")
        paths[-1].write_text(text, encoding="utf-8")
    (tmp_path / "scan.txt").write_bytes(b"\x00\x01 a photo")
    (tmp_path / "pasted.txt").write_text(_five_megabytes(), encoding="utf-8")
    paths += [tmp_path / "scan.txt", tmp_path / "pasted.txt"]
    result = _cli("import", *map(str, paths))
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == list(map(str, paths))
    judged, refused = lines[:-2], lines[-2:]
    # each is rejected with its rule: judged by the rules, or refused at once for its header or syntax (a 422 upload)
    assert all(line.get("rule") and (line.get("status") == "rejected" or line.get("error")) for line in judged), judged
    assert any(line.get("status") == "rejected" for line in judged)
    assert "NUL" in refused[0]["error"] and "CRONACA_MAX_NOTATION_BYTES" in refused[1]["error"]
    assert not any(line.get("import_id") for line in refused)


@pytest.mark.parametrize("path", NAMES, ids=lambda p: p.stem)
def test_names_of_any_shape_through_the_command_line(path: Path) -> None:
    case = yaml.safe_load(path.with_suffix(".yaml").read_text(encoding="utf-8"))
    result = _cli("check", "--json", str(path))
    report = json.loads(result.output)
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(s["lines"][0], s["rule"]) for s in case["slips"]]
    (finding,) = report["findings"]
    meant = case["slips"][0]["meant"].split(":")[0]
    assert f"did you mean {meant}?" in finding["message"] and f"read as {meant}'s" in finding["message"]
    assert report["seats"] == [n.strip() for n in path.read_text(encoding="utf-8").split('"')[5].split(",")]


# ---- the API -------------------------------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    """The real app on a fresh SQLite store, its jobs in this process (no Redis)."""
    app = create_app(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                        "SQLITE_DBNAME": str(tmp_path / "records.sqlite3")}))
    app.config["TESTING"] = True
    yield app.test_client()
    service = app.extensions["cronaca"]
    pool = getattr(service.dispatcher, "pool", None)
    if pool is not None:
        pool.shutdown(wait=True)
    service.records.close()


def _verdict(client: Any, import_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300  # generous: a loaded machine is slow, the assertions are not about speed
    while time.monotonic() < deadline:
        status = client.get(f"/api/imports/{import_id}").get_json()
        if status["status"] in ("accepted", "rejected"):
            return status  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError(f"import {import_id} still {status['status']}")


def _no_500(answer: Any) -> None:
    assert answer.status_code < 500, answer.get_data(as_text=True)[:400]
    assert "Traceback" not in answer.get_data(as_text=True)


def test_each_bad_file_through_check_imports_and_reconcile(client: Any) -> None:
    for name, text in _texts().items():
        body = text.encode()
        checked = client.post("/api/check", data=body, content_type=MEDIA_TYPE)
        _no_500(checked)
        assert checked.status_code == 200, name
        _bounded(checked.get_json())
        also = client.post("/api/check", json={"text": text})
        assert also.status_code == 200 and also.get_json()["findings"] == checked.get_json()["findings"]
        submitted = client.post("/api/imports", data=body, content_type=MEDIA_TYPE)
        _no_500(submitted)
        if submitted.status_code == 422:  # refused at once (its header or syntax): the problem names the line
            problem = submitted.get_json()
            assert problem["detail"] and problem["facts"]["import_id"]
            stored = client.get(f"/api/imports/{problem['facts']['import_id']}").get_json()
        else:
            assert submitted.status_code == 202, (name, submitted.get_json())
            stored = _verdict(client, submitted.get_json()["id"])
        assert stored["status"] == "rejected", name
        assert stored["report"]["findings"] and len(stored["report"]["findings"]) <= AT_MOST
        reconciled = client.post("/api/reconcile", json={"first": text, "second": text.replace("\n", "\n\n", 3)})
        _no_500(reconciled)
        assert reconciled.status_code == 200, name


def test_binary_and_oversized_bodies_are_4xx_naming_why(client: Any) -> None:
    big = _five_megabytes()
    for path in ("/api/check", "/api/imports"):
        for body, status, why in ((b"\x00\x01 a photo", 400, "NUL"), (bytes(range(128, 256)) * 40, 400, "UTF-8"),
                                  (big.encode(), 413, "bytes this service"),  # past the upload's bound
                                  (big[:300_000].encode(), 413, "CRONACA_MAX_NOTATION_BYTES")):  # the notation's
            answer = client.post(path, data=body, content_type=MEDIA_TYPE)
            _no_500(answer)
            assert answer.status_code == status and why in answer.get_json()["detail"], (path, answer.get_json())
    answer = client.post("/api/reconcile", json={"first": big, "second": big})
    assert answer.status_code == 413
    answer = client.post("/api/reconcile", json={"first": "\x00", "second": _HEAD})
    assert answer.status_code == 422 and answer.get_json()["field"] == "first"


@pytest.mark.parametrize("path", NAMES, ids=lambda p: p.stem)
def test_names_of_any_shape_through_the_api(client: Any, path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    case = yaml.safe_load(path.with_suffix(".yaml").read_text(encoding="utf-8"))
    report = client.post("/api/check", data=text.encode(), content_type=MEDIA_TYPE).get_json()
    assert [(f["line"], f["rule"]) for f in report["findings"]] == [(s["lines"][0], s["rule"]) for s in case["slips"]]
    submitted = client.post("/api/imports", data=text.encode(), content_type=MEDIA_TYPE)
    assert submitted.status_code == 202
    assert len(submitted.get_json()["seats"]) == len(report["seats"]) == 4  # a token for each name, odd or not
    stored = _verdict(client, submitted.get_json()["id"])
    assert stored["status"] == "rejected"  # the misspelt name is a finding: the file is not made a record
    assert [f["line"] for f in stored["report"]["findings"]] == [case["slips"][0]["lines"][0]]
    slip = case["slips"][0]["lines"][0] - 1
    meant = case["slips"][0]["meant"].split(":")[0]
    lines = text.split("\n")
    fixed = "\n".join([*lines[:slip], lines[slip].replace(case["slips"][0]["written"].split(":")[0] + ":", meant + ":", 1),
                       *lines[slip + 1:]])
    assert client.post("/api/check", json={"text": fixed}).get_json()["ok"]
    submitted = client.post("/api/imports", data=fixed.encode(), content_type=MEDIA_TYPE)
    accepted = _verdict(client, submitted.get_json()["id"])
    assert accepted["status"] == "accepted", accepted["report"]["findings"][:3]
    summary = client.get(f"/api/records/{accepted['record_id']}").get_json()
    assert [s["name"] for s in summary["seats"]] == report["seats"]
    reconciled = client.post("/api/reconcile", json={"first": fixed, "second": text}).get_json()
    assert reconciled["first_divergence"]["first"]["line"] == slip + 1
