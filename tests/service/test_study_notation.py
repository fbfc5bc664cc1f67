"""A record's notation with its notes and variations through the API (issue 14, spec section 6): what each
reader may see, and an import of that text giving back the same notes on the same steps and the same
variations on a new record."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.records.teaching import Teaching
from domain.transcripts import MEDIA_TYPE
from tests.service.helpers import as_json, auth, import_finished_http, record_file, same_notes, studied

TITLES = ["citta-stato", "la-citta", "serenissima"]


def record_document(title: str) -> dict[str, Any]:
    """A finished greedy-bot game of `title` as a record file (a fresh copy of one game per title)."""
    return record_file(title, f"studynotation-{title}", greedy=True)


def imported(client: Any, body: Any, **more: Any) -> tuple[UUID, str, list[str], dict[str, Any]]:
    """An accepted import over HTTP: (record id, annotator key, seat tokens, verdict)."""
    record_id, key, tokens, verdict = import_finished_http(client, body, timeout=60, **more)
    return UUID(record_id), key, tokens, verdict


def study(teaching: Teaching, record_id: UUID, title: str, key: str) -> dict[str, Any]:
    """Notes of every kind on the main line, a variation with a note and a nested variation that leaves
    in the middle of it."""
    made = studied(teaching, record_id, title, key, "**Why** not {war}?\n- one\n- two", moves=3)
    starts, _ = teaching.variations.decision_steps(record_id, None)
    long = next(k for k in range(1, len(starts)) if starts[k] - starts[k - 1] > 1)  # an entry of several events
    teaching.notes.add(record_id, key, {"step": starts[3], "glyph": "?"})
    teaching.notes.add(record_id, key, {"step": starts[long - 1] + 1, "text": "in the middle of an entry"})
    vid, branch_at = made["variation"], made["from_step"]
    inner_starts, _ = teaching.variations.decision_steps(record_id, str(vid))
    child = teaching.variations.branch(record_id, key, inner_starts[1], str(vid), "deeper", "").to_json()
    legal = teaching.variations.legal(UUID(child["id"])).to_json()["commands"]
    teaching.variations.play(UUID(child["id"]), key, legal[-1]["command"])
    return {"variation": str(vid), "child": child["id"], "from_step": branch_at}


@pytest.mark.parametrize("title", TITLES)
def test_a_study_notation_imported_gives_back_the_same_notes_and_variations(client: Any, title: str) -> None:
    record_id, key, tokens, _ = imported(client, record_document(title))
    teaching = client.application.extensions["cronaca"].teaching
    bare = client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    assert bare == teaching.records.reading.notation(record_id, all_seeing=True)  # nothing to add: the plain notation
    made = study(teaching, record_id, title, key)

    full = client.get(f"/api/records/{record_id}/notation", headers=auth(key))
    assert full.status_code == 200 and full.mimetype == MEDIA_TYPE, full.get_data(as_text=True)
    text = full.get_data(as_text=True)
    assert "only Ben reads this" in text and "( {what if" in text and "( {deeper" in text and " ?! {" in text

    # the checker reads the main line only: as clean as the plain notation, with the same moves and scores
    plain = teaching.records.reading.notation(record_id, all_seeing=True)
    studied = client.post("/api/check", data=text.encode(), content_type=MEDIA_TYPE).get_json()
    alone = client.post("/api/check", data=plain.encode(), content_type=MEDIA_TYPE).get_json()
    assert studied["ok"] and alone["ok"], studied["findings"]
    assert (studied["findings"], studied["moves"], studied["scores"]) == (alone["findings"], alone["moves"], alone["scores"])

    copy_id, _, _, verdict = imported(client, text.encode(), content_type=MEDIA_TYPE)
    assert "extras" not in verdict["report"], verdict["report"]
    assert client.get(f"/api/records/{copy_id}/events").get_json() == client.get(f"/api/records/{record_id}/events").get_json()
    lines = {line["title"]: line for line in as_json(teaching.variations.of_record(copy_id))}
    assert set(lines) == {"what if", "deeper"} and lines["deeper"]["parent"] == lines["what if"]["id"]
    assert lines["what if"]["from_step"] == made["from_step"] and lines["what if"]["author"] == "Prof. Rossi"
    for old, new in ((made["variation"], lines["what if"]["id"]), (made["child"], lines["deeper"]["id"])):
        assert [e["command"] for e in teaching.variations.entries(UUID(new))] == [
            e["command"] for e in teaching.variations.entries(UUID(old))]
    same_notes(teaching.notes.all_notes(record_id), teaching.notes.all_notes(copy_id),
               {None: None, made["variation"]: lines["what if"]["id"], made["child"]: lines["deeper"]["id"]})


def test_each_reader_sees_in_the_notation_only_the_notes_it_may_read(client: Any) -> None:
    record_id, key, tokens, _ = imported(client, record_document("citta-stato"))
    teaching = client.application.extensions["cronaca"].teaching
    notes = teaching.notes
    starts, last = teaching.variations.decision_steps(record_id, None)
    notes.add(record_id, key, {"step": starts[1], "text": "for everyone"})
    notes.add(record_id, key, {"step": starts[2], "text": "for Ada alone", "audience": 0})
    notes.add(record_id, tokens[1], {"step": last, "text": "Ben's own"})

    def read(headers: dict[str, str]) -> str:
        answer = client.get(f"/api/records/{record_id}/notation", headers=headers)
        assert answer.status_code == 200, answer.get_json()
        return answer.get_data(as_text=True)

    public, ada, ben, annotator = read({}), read(auth(tokens[0])), read(auth(tokens[1])), read(auth(key))
    assert "for everyone" in public and "for Ada alone" not in public and "Ben's own" not in public
    assert "for Ada alone [%for Ada]" in ada and "Ben's own" not in ada
    assert "Ben's own [%for Ben] [%seat]" in ben and "for Ada alone" not in ben
    assert all(t in annotator for t in ("for everyone", "for Ada alone", "Ben's own"))
    assert client.get(f"/api/records/{record_id}/notation", headers=auth("not-a-key")).status_code == 403


def test_an_unfinished_record_has_no_study_notation(client: Any) -> None:
    answer = client.post("/api/records", json={"title": "toy", "seats": ["Ada", "Ben"]})
    started = answer.get_json()
    found = client.get(f"/api/records/{started['id']}/notation", headers=auth(started["annotator_key"]))
    assert found.status_code == 403 and "over" in found.get_json()["detail"]


def test_a_variation_the_rules_refuse_is_named_at_its_line_and_nothing_is_attached(client: Any) -> None:
    record_id, key, _, _ = imported(client, record_document("la-citta"))
    teaching = client.application.extensions["cronaca"].teaching
    study(teaching, record_id, "la-citta", key)
    lines = client.get(f"/api/records/{record_id}/notation", headers=auth(key)).get_data(as_text=True).split("\n")
    opened = next(i for i, line in enumerate(lines) if line.startswith("( {what if"))
    turn = next(i for i in range(opened + 1, len(lines)) if ": " in lines[i] and lines[i].lstrip()[:1] not in "({")
    lines.insert(turn + 1, lines[turn])  # a turn written twice in the variation: the rules refuse it
    copy_id, _, _, verdict = imported(client, "\n".join(lines).encode(), content_type=MEDIA_TYPE)
    extras = verdict["report"]["extras"]
    assert extras["ok"] is False and extras["facts"]["line"] == turn + 2 and f"line {turn + 2}" in extras["message"]
    assert as_json(teaching.variations.of_record(copy_id)) == [] and teaching.notes.all_notes(copy_id) == []
