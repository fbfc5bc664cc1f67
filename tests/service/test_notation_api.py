"""Table notation through the API: a record's notation, checked and reconciled on the spot."""

from __future__ import annotations

from typing import Any

from domain.transcripts import MEDIA_TYPE
from tests.service.helpers import auth, play_out_http


def finished(client: Any) -> tuple[str, list[str]]:
    answer = client.post("/api/records", json={"title": "toy", "seats": ["Ada", "Bruno"]})
    record_id = answer.get_json()["id"]
    tokens = [s["token"] for s in answer.get_json()["seats"]]
    play_out_http(client, record_id, tokens)
    return record_id, tokens


def test_a_finished_record_renders_and_checks_clean(client: Any) -> None:
    record_id, tokens = finished(client)
    answer = client.get(f"/api/records/{record_id}/notation")
    assert answer.status_code == 200 and answer.mimetype == MEDIA_TYPE
    text = answer.get_data(as_text=True)
    assert '[Title "toy"]' in text and '[Seats "Ada, Bruno"]' in text and "[Result " in text
    report = client.post("/api/check", data=text.encode(), content_type=MEDIA_TYPE).get_json()
    assert report["ok"], report["findings"]
    summary = client.get(f"/api/records/{record_id}").get_json()
    assert report["moves"] == len(client.get(f"/api/records/{record_id}/turns").get_json()) - 1
    assert [s["total"] for s in report["scores"]["seats"]] == [s["total"] for s in summary["scores"]["seats"]]
    assert client.get(f"/api/records/{record_id}/notation", headers=auth("nobody")).status_code == 403


def test_an_unfinished_record_has_no_notation_yet(client: Any) -> None:
    answer = client.post("/api/records", json={"title": "toy", "seats": ["Ada", "Bruno"]})
    record_id = answer.get_json()["id"]
    refused = client.get(f"/api/records/{record_id}/notation")
    assert refused.status_code == 403 and "over" in refused.get_json()["detail"]


def test_two_transcripts_reconciled_through_the_api(client: Any) -> None:
    record_id, _ = finished(client)
    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "Bruno:" in line and "[" in line)
    other = list(lines)
    other[at] = other[at].replace("Bruno:", "Ada:", 1)
    found = client.post("/api/reconcile", json={"first": text, "second": "\n".join(other) + "\n"}).get_json()
    assert not found["agree"] and found["first_divergence"]["first"]["line"] == at + 1
    assert "the player" in found["first_divergence"]["what"]
    assert found["rules_accept"]["first"]["accepted"] is True and found["rules_accept"]["second"]["accepted"] is False


def test_a_transcript_that_is_not_text_is_named_not_a_500(client: Any) -> None:
    record_id, _ = finished(client)
    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    lines = text.splitlines()
    lines[-1] += "\x00"
    answer = client.post("/api/reconcile", json={"first": text, "second": "\n".join(lines) + "\n"})
    assert answer.status_code == 422 and answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["field"] == "second" and body["rule"] == "notation/unreadable" and "NUL" in body["detail"]
    assert client.post("/api/reconcile", json={"first": "\x00", "second": text}).get_json()["field"] == "first"


def test_check_says_where_a_file_is_wrong(client: Any) -> None:
    report = client.post("/api/check", json={"text": '[Title "toy"]\n[Seats "Ada, Bruno"]\nSetup\n1. Ada: rol [3]\n'}).get_json()
    assert not report["ok"]
    (finding,) = report["findings"]
    assert finding["line"] == 4 and finding["did_you_mean"] == ["roll"]
    bad = client.post("/api/check", data=b"\x00\x01", content_type=MEDIA_TYPE)
    assert bad.status_code == 400


def test_a_notation_file_imports_into_a_record_and_a_faulty_one_is_rejected_at_its_line(client: Any) -> None:
    from tests.service.test_api import wait_for_verdict

    record_id, _ = finished(client)
    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    submitted = client.post("/api/imports", data=text.encode(), content_type=MEDIA_TYPE)
    assert submitted.status_code == 202, submitted.get_json()
    verdict = wait_for_verdict(client, submitted.get_json()["id"])
    assert verdict["status"] == "accepted", verdict["report"]
    copy = verdict["record_id"]
    original = client.get(f"/api/records/{record_id}/events").get_json()["events"]
    assert client.get(f"/api/records/{copy}/events").get_json()["events"] == original
    assert client.get(f"/api/records/{copy}").get_json()["mode"] == "transcribed"
    # a fault planted at one line: the import is rejected, the report names that line
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "draw [" in line)
    lines[at] = lines[at].split("draw [")[0] + "draw [9]"
    before = client.get("/api/records").get_json()["total"]
    submitted = client.post("/api/imports", data=("\n".join(lines) + "\n").encode(), content_type=MEDIA_TYPE)
    verdict = wait_for_verdict(client, submitted.get_json()["id"])
    assert verdict["status"] == "rejected"
    assert len(verdict["report"]["findings"]) == 1, verdict["report"]["findings"]
    (finding,) = verdict["report"]["findings"]
    assert finding["line"] == at + 1 and finding["rule"] == "chance/draw/not-there"
    assert client.get("/api/records").get_json()["total"] == before


def test_bad_notation_gets_a_4xx_naming_the_line_and_only_a_rejected_import_is_stored(client: Any) -> None:
    before = client.get("/api/records").get_json()["total"]
    cases = {
        b"\x00\x01\x02binary": 400,
        b"": 422,
        b'[Title "toi"]\n[Seats "Ada, Bruno"]\n': 422,
        b'[Title "toy"]\n[Seats "Ada, Bruno, Chiara"]\n[Options "players=2"]\n': 422,
        b'[Title "toy"]\n[Seats "Ada, Bruno"]\nSetup\n1. Ada roll [3]\n': 422,
    }
    for body, status in cases.items():
        answer = client.post("/api/imports", data=body, content_type=MEDIA_TYPE)
        assert answer.status_code == status, (body, answer.get_json())
        problem = answer.get_json()
        assert problem["detail"] and "Traceback" not in answer.get_data(as_text=True)
        if status == 422:
            stored = client.get(f"/api/imports/{problem['facts']['import_id']}").get_json()
            assert stored["status"] == "rejected" and stored["report"]["findings"][0]["line"] >= 1
    huge = client.post("/api/imports", data=b"x" * (11 * 1024 * 1024), content_type=MEDIA_TYPE)
    assert huge.status_code == 413
    assert client.get("/api/records").get_json()["total"] == before


def test_a_notation_file_beyond_its_own_limit_is_refused_with_413_and_nothing_is_stored(
    client: Any, monkeypatch: Any
) -> None:
    """Notation is checked by the rules at upload and in the job: it has a bound of its own, far
    below the record file's, so that no upload holds a worker for long."""
    record_id, _ = finished(client)
    text = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    monkeypatch.setenv("CRONACA_MAX_NOTATION_BYTES", str(len(text.encode()) - 1))
    before = client.get("/api/records").get_json()["total"]
    for answer in (
        client.post("/api/imports", data=text.encode(), content_type=MEDIA_TYPE),
        client.post("/api/check", data=text.encode(), content_type=MEDIA_TYPE),
        client.post("/api/reconcile", json={"first": text, "second": text}),
    ):
        assert answer.status_code == 413, answer.get_json()
        problem = answer.get_json()
        assert "CRONACA_MAX_NOTATION_BYTES" in problem["detail"] and f"{len(text.encode()):,} bytes" in problem["detail"]
    assert client.get("/api/records").get_json()["total"] == before
    monkeypatch.setenv("CRONACA_MAX_NOTATION_BYTES", str(len(text.encode())))
    assert client.post("/api/check", data=text.encode(), content_type=MEDIA_TYPE).status_code == 200
