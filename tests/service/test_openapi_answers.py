"""The OpenAPI document is true of real answers (issue 29): every documented operation asked with a valid request
(and a few refused ones), each answer checked against /api/openapi.json: its status is one the operation names, its
media type one documented for that status (an answer with a body must have one), its body valid against that status's schema (schemathesis' validator, as
the fault suite's fuzzing pass uses, tests/faults/test_fuzz.py). A schema that drifts from the answers fails here,
in the ordinary suite. The live streams (endless server-sent events) are the one thing left out: the fault suite and
tests/service/test_live.py ask them.
"""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis

from domain.records.review_walk import AnalysisBudget
from domain.transcripts import MEDIA_TYPE
from tests.service.conftest import close_app
from tests.service.helpers import auth
from tests.service.test_api import wait_for_verdict
from tests.service.test_dice import commit, part, play_to_end
from tests.service.test_import_replay import planted, text_of, written_game
from tests.service.test_operations import make_app
from tests.service.test_poison_imports import transcribed_export
from tests.service.test_rulings import roll

METHODS = ("get", "post", "put", "patch", "delete")
LEFT_OUT = {("get", "/api/records/{record_id}/live"), ("get", "/api/lessons/{lesson_id}/live")}


@dataclass
class Checked:
    """Asks the app and checks each answer against the document; remembers which operations it asked."""

    client: Any
    document: dict[str, Any]
    schema: Any
    asked: set[tuple[str, str]] = field(default_factory=set)
    wrong: list[str] = field(default_factory=list)

    def __call__(self, method: str, template: str, status: int, token: str | None = None,
                 headers: dict[str, str] | None = None, **params: Any) -> Any:
        """`method` on `template` (`{name}` filled from `params`; `json`, `data`, `content_type`, `query_string` go
        to the client); the answer must have `status`."""
        sent = {k: params.pop(k) for k in ("json", "data", "content_type", "query_string") if k in params}
        path = template.format(**params)
        answer = self.client.open(path, method=method.upper(), headers={**(auth(token) if token else {}),
                                                                         **(headers or {})}, **sent)
        assert answer.status_code == status, (method, path, answer.status_code, answer.get_data(as_text=True)[:500])
        self.asked.add((method, template))
        self.wrong += [f"{method.upper()} {template} {status}: {why}" for why in self.against_document(method, template, answer)]
        return answer

    def against_document(self, method: str, template: str, answer: Any) -> Iterator[str]:
        operation = self.document["paths"][template][method]
        documented = operation["responses"].get(str(answer.status_code))
        if documented is None:
            yield f"not a status the document names ({', '.join(operation['responses'])})"
            return
        if "$ref" in documented:
            documented = self.document["components"]["responses"][documented["$ref"].rsplit("/", 1)[1]]
        types = list(documented.get("content") or {})
        if answer.data and answer.mimetype not in types:
            yield f"answered {answer.mimetype}, the document says {types or 'no body'}"
        try:
            self.schema[template][method.upper()].validate_response(answer)
        except AssertionError as exc:  # schemathesis' failures are AssertionErrors (one or a group)
            yield str(exc)[:1500]
        except BaseExceptionGroup as group:
            yield from (str(exc)[:1500] for exc in group.exceptions)


@pytest.fixture
def checked(tmp_path: Path) -> Iterator[Checked]:
    app = make_app(tmp_path)
    client = app.test_client()
    document = client.get("/api/openapi.json").get_json()
    yield Checked(client, document, schemathesis.openapi.from_dict(document))
    close_app(app)


def played(checked: Checked, record_id: str, tokens: list[str]) -> dict[str, Any]:
    """One legal command by the seat whose turn it is; returns the play's answer."""
    pending = checked("get", "/api/records/{record_id}/legal", 200, record_id=record_id).get_json()["pending"]
    token = tokens[pending["seat"]]
    legal = checked("get", "/api/records/{record_id}/legal", 200, token, record_id=record_id).get_json()
    return checked("post", "/api/records/{record_id}/commands", 200, token, record_id=record_id,  # type: ignore[no-any-return]
                   json={"command": legal["commands"][0], "version": legal["version"]}).get_json()


def test_every_documented_operation_answers_as_the_document_says(checked: Checked) -> None:
    ask = checked
    # records: started, listed, played, read every way
    started = ask("post", "/api/records", 201, json={"title": "citta-stato", "seats": ["Ada", "Ben"]}).get_json()
    live, live_tokens = started["id"], [s["token"] for s in started["seats"]]
    ask("get", "/api/titles", 200)
    ask("post", "/api/qr", 200, json={"text": "http://127.0.0.1/records/0#table=a secret"})
    ask("post", "/api/qr", 422, json={"text": ""})
    ask("get", "/api/records", 200)
    ask("get", "/api/records", 200, query_string={"title": "citta-stato", "status": "in-progress", "per_page": 5})
    for _ in range(3):
        played(ask, live, live_tokens)
    version = ask("get", "/api/records/{record_id}", 200, record_id=live).get_json()["version"]
    ask("get", "/api/records/{record_id}", 304, headers={"If-None-Match": f'"v{version}"'}, record_id=live)
    ask("post", "/api/records/{record_id}/commands", 409, live_tokens[0], record_id=live,
        json={"command": {"type": "citta-stato/pass", "seat": 0}, "version": 1})
    ask("post", "/api/records/{record_id}/commands", 401, record_id=live, json={"command": {"type": "x"}})
    for reader in (None, live_tokens[0]):
        ask("get", "/api/records/{record_id}/steps/{n}", 200, reader, record_id=live, n=2)
        ask("get", "/api/records/{record_id}/steps/{n}/board", 200, reader, record_id=live, n=2)
        ask("get", "/api/records/{record_id}/story", 200, reader, record_id=live)
        ask("get", "/api/records/{record_id}/scores", 200, reader, record_id=live)
        ask("get", "/api/records/{record_id}/turns", 200, reader, record_id=live)
        ask("get", "/api/records/{record_id}/events", 200, reader, record_id=live)
    ask("get", "/api/records/{record_id}/steps/{n}", 404, record_id=live, n=999)
    ask("get", "/api/records/{record_id}/export", 403, record_id=live)
    ask("get", "/api/records/{record_id}/evidence", 403, record_id=live)

    # shared dice: joined, played to the end, revealed
    shared = ask("post", "/api/records", 201, json={"title": "toy", "seats": ["Ada", "Ben"], "dice": "shared"}).get_json()
    dice_id, dice_tokens = shared["id"], [s["token"] for s in shared["seats"]]
    kept = [secrets.token_hex(16) for _ in dice_tokens]
    ask("post", "/api/records/{record_id}/seats/{n}/join", 200, dice_tokens[0], record_id=dice_id, n=0,
        json={"commitment": commit(kept[0]), "contribution": part(kept[0], 0)})
    ask("post", "/api/records/{record_id}/seats/{n}/join", 200, dice_tokens[1], record_id=dice_id, n=1,
        json={"commitment": commit(kept[1]), "contribution": part(kept[1], 0)})
    play_to_end(ask.client, dice_id, dice_tokens, kept)
    ask("post", "/api/records/{record_id}/seats/{n}/reveal", 200, dice_tokens[0], record_id=dice_id, n=0,
        json={"secret": kept[0]})
    ask("post", "/api/records/{record_id}/seats/{n}/reveal", 409, dice_tokens[0], record_id=dice_id, n=0,
        json={"secret": kept[0]})

    # a game at the table: its table key, the setup's outcomes asked for one at a time and entered, a choice
    table = ask("post", "/api/records", 201, json={"title": "citta-stato", "seats": ["Ada", "Ben"],
                                                    "mode": "transcribed"}).get_json()
    table_id, key = table["id"], table["table_key"]
    outcomes: list[dict[str, Any]] = []
    while (wanted := ask("post", "/api/records/{record_id}/asks", 200, key, record_id=table_id,
                         json={"command": None, "outcomes": outcomes}).get_json()["ask"]) is not None:
        pool = [p["value"] for p in wanted["possible"] for _ in range(p["count"])]
        outcomes.append({"kind": wanted["kind"], "source": wanted["source"],
                         "values": pool if wanted["kind"] == "shuffle" else pool[:wanted["n"]]})
    ask("post", "/api/records/{record_id}/setup", 422, key, record_id=table_id, json={"outcomes": outcomes[:-1]})
    ask("post", "/api/records/{record_id}/setup", 200, key, record_id=table_id, json={"outcomes": outcomes})
    ask("post", "/api/records/{record_id}/setup", 409, key, record_id=table_id, json={"outcomes": outcomes})
    choice = ask("get", "/api/records/{record_id}/legal", 200, key, record_id=table_id).get_json()["choices"][0]
    ask("post", "/api/records/{record_id}/asks", 200, key, record_id=table_id,
        json={"command": choice["command"], "outcomes": []})
    ask("post", "/api/records/{record_id}/asks", 409, live_tokens[0], record_id=live,
        json={"command": None, "outcomes": []})
    needed: list[dict[str, Any]] = []
    while (wanted := ask.client.post(f"/api/records/{table_id}/asks", headers=auth(key),
                                     json={"command": choice["command"], "outcomes": needed}).get_json()["ask"]):
        pool = [p["value"] for p in wanted["possible"] for _ in range(p["count"])]
        needed.append({"kind": wanted["kind"], "source": wanted["source"],
                       "values": pool if wanted["kind"] == "shuffle" else pool[:wanted["n"]]})
    stored = ask("post", "/api/records/{record_id}/commands", 200, key, record_id=table_id,
                 json={"command": choice["command"], "outcomes": needed}).get_json()
    ask("post", "/api/records/{record_id}/withdrawals", 409, key, record_id=table_id, json={"version": 1})
    ask("post", "/api/records/{record_id}/withdrawals", 200, key, record_id=table_id, json={"version": stored["version"]})
    ask("post", "/api/records/{record_id}/withdrawals/{n}/consent", 409, live_tokens[1], record_id=live, n=7,
        json={})

    # an import, accepted: a finished record of a real title, read every way
    submitted = ask("post", "/api/imports", 202, json=transcribed_export("citta-stato", 2)).get_json()
    import_id = submitted["id"]
    record_id = wait_for_verdict(ask.client, import_id)["record_id"]
    annotator, arbiter = submitted["annotator_key"], submitted["arbiter_key"]
    ask("get", "/api/imports/{import_id}", 200, import_id=import_id)
    ask("get", "/api/imports/{import_id}/replay", 409, import_id=import_id)  # accepted: its record is the game
    # a notation file the rules reject: its game as checked, replayed
    lines, _ = planted(written_game())
    refused = ask("post", "/api/imports", 202, data=text_of(lines), content_type=MEDIA_TYPE).get_json()["id"]
    assert wait_for_verdict(ask.client, refused)["status"] == "rejected"
    ask("get", "/api/imports/{import_id}", 200, import_id=refused)
    ask("get", "/api/imports/{import_id}/replay", 200, import_id=refused)
    ask("get", "/api/imports/{import_id}/replay/steps/{n}", 200, import_id=refused, n=3)
    ask("get", "/api/imports/{import_id}/replay/steps/{n}/board", 200, import_id=refused, n=3)
    ask("get", "/api/imports/{import_id}/replay/story", 200, import_id=refused)
    steps = ask("get", "/api/records/{record_id}", 200, record_id=record_id).get_json()["steps"]
    ask("get", "/api/records/{record_id}/steps/{n}", 200, record_id=record_id, n=steps)
    board = ask("get", "/api/records/{record_id}/steps/{n}/board", 200, record_id=record_id, n=3)
    ask("get", "/api/records/{record_id}/steps/{n}/board", 304, headers={"If-None-Match": board.headers["ETag"]},
        record_id=record_id, n=3)
    picture = ask("get", "/api/records/{record_id}/steps/{n}/board.png", 200, record_id=record_id, n=3)
    ask("get", "/api/records/{record_id}/steps/{n}/board.png", 304, headers={"If-None-Match": picture.headers["ETag"]},
        record_id=record_id, n=3)
    for operation in ("story", "scores", "turns", "legal", "verify", "export", "notation", "evidence", "events", "places"):
        ask("get", f"/api/records/{{record_id}}/{operation}", 200, record_id=record_id)
    notation = ask.client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    ask("post", "/api/check", 200, data=notation, content_type="text/x-cronaca-notation")
    ask("post", "/api/check", 200, json={"text": notation})
    ask("post", "/api/reconcile", 200, json={"first": notation, "second": notation})

    # rulings, one with a correction (on a toy record: its entries are easy to write)
    ruling = ask("post", "/api/records/{record_id}/rulings", 201, arbiter, record_id=record_id,
                 json={"step": 1, "decision": "noted", "reason": "a conformance check"}).get_json()
    ask("get", "/api/records/{record_id}/rulings", 200, record_id=record_id)
    ask("get", "/api/records/{record_id}/rulings/{ruling_id}", 200, record_id=record_id, ruling_id=ruling["id"])
    ask("get", "/api/records/{record_id}/ruled", 200, record_id=record_id)
    ask("get", "/api/records/{record_id}/ruled/steps/{n}", 200, record_id=record_id, n=3)
    ask("get", "/api/records/{record_id}/ruled/steps/{n}/board", 200, record_id=record_id, n=3)
    ask("get", "/api/records/{record_id}/ruled/story", 200, record_id=record_id)
    toy = ask("post", "/api/records", 201, json={"title": "toy", "seats": ["Ada", "Ben"]}).get_json()
    toy_id, toy_tokens = toy["id"], [s["token"] for s in toy["seats"]]
    while not played(ask, toy_id, toy_tokens)["finished"]:
        pass
    seat = ask("get", "/api/records/{record_id}/steps/{n}", 200, record_id=toy_id, n=3).get_json()["pending"]["seat"]
    ask("post", "/api/records/{record_id}/rulings", 201, toy["arbiter_key"], record_id=toy_id,
        json={"decision": "replayed", "reason": "a cocked die",
              "correction": {"from_step": 3, "entries": [roll(seat, 2)]}})
    ask("get", "/api/records/{record_id}/ruled", 200, record_id=toy_id)
    ask("get", "/api/records/{record_id}/ruled/steps/{n}", 200, record_id=toy_id, n=4)
    ask("get", "/api/records/{record_id}/ruled/story", 200, record_id=toy_id)

    # the analysis of a finished record (a tiny budget: the answers' shapes are what is checked here)
    ask.client.application.extensions["cronaca"].records.analyses.budget = AnalysisBudget(1, None, 1, 1)
    ask("post", "/api/records/{record_id}/analysis", 409, record_id=live, json={})
    ask("get", "/api/records/{record_id}/analysis", 404, record_id=toy_id)
    ask("post", "/api/records/{record_id}/analysis", 202, record_id=toy_id, json={})
    ask("post", "/api/records/{record_id}/analysis", 403, "not-a-token", record_id=toy_id, json={})
    for _ in range(400):
        if ask("get", "/api/records/{record_id}/analysis", 200, record_id=toy_id).get_json()["status"] == "done":
            break
        time.sleep(0.05)
    ask("post", "/api/records/{record_id}/analysis", 200, record_id=toy_id, json={})

    # annotations
    note = ask("post", "/api/records/{record_id}/annotations", 201, annotator, record_id=record_id,
               json={"step": 2, "text": "why *this*?", "glyph": "?!"}).get_json()
    ask("get", "/api/records/{record_id}/annotations", 200, annotator, record_id=record_id)
    ask("patch", "/api/records/{record_id}/annotations/{note_id}", 200, annotator, record_id=record_id,
        note_id=note["id"], json={"text": "why **this**?"})
    spare = ask("post", "/api/records/{record_id}/annotations", 201, annotator, record_id=record_id,
                json={"step": 3, "text": "spare"}).get_json()
    ask("delete", "/api/records/{record_id}/annotations/{note_id}", 204, annotator, record_id=record_id,
        note_id=spare["id"])

    # variations
    tried = ask.client.post(f"/api/records/{record_id}/variations", json={"from_step": 2}, headers=auth(annotator))
    first = tried.get_json()["facts"]["nearest"][0] if tried.status_code == 422 else 2
    variation = ask("post", "/api/records/{record_id}/variations", 201, annotator, record_id=record_id,
                    json={"from_step": first, "title": "what if"}).get_json()
    ask("get", "/api/records/{record_id}/variations", 200, record_id=record_id)
    vid = variation["id"]
    legal = ask("get", "/api/variations/{variation_id}/legal", 200, variation_id=vid).get_json()
    ask("post", "/api/variations/{variation_id}/commands", 200, annotator, variation_id=vid,
        json={"command": legal["commands"][0]["command"]})
    ask("get", "/api/variations/{variation_id}", 200, variation_id=vid)
    ask("get", "/api/variations/{variation_id}/steps/{n}", 200, variation_id=vid, n=first + 1)
    ask("get", "/api/variations/{variation_id}/steps/{n}/board", 200, variation_id=vid, n=first + 1)
    ask("get", "/api/variations/{variation_id}/story", 200, variation_id=vid)

    # a lesson: built, presented, paused, answered, exported and imported again
    made = ask("post", "/api/lessons", 201, json={"title": "Openings", "introduction": "the first moves"}).get_json()
    lesson_id, teacher = made["lesson"]["id"], made["teacher_key"]
    chapter = {"title": "All", "record_id": record_id, "from_step": 0, "to_step": steps}
    one = ask("post", "/api/lessons/{lesson_id}/chapters", 201, teacher, lesson_id=lesson_id, json=chapter).get_json()
    two = ask("post", "/api/lessons/{lesson_id}/chapters", 201, teacher, lesson_id=lesson_id,
              json={**chapter, "title": "Again"}).get_json()
    three = ask("post", "/api/lessons/{lesson_id}/chapters", 201, teacher, lesson_id=lesson_id,
                json={**chapter, "title": "Spare"}).get_json()
    ask("patch", "/api/lessons/{lesson_id}/chapters/{chapter_id}", 200, teacher, lesson_id=lesson_id,
        chapter_id=two["id"], json={"title": "Once more"})
    ask("delete", "/api/lessons/{lesson_id}/chapters/{chapter_id}", 204, teacher, lesson_id=lesson_id,
        chapter_id=three["id"])
    ask("put", "/api/lessons/{lesson_id}/order", 200, teacher, lesson_id=lesson_id,
        json={"chapters": [two["id"], one["id"]]})
    ask("post", "/api/lessons/{lesson_id}/present", 200, teacher, lesson_id=lesson_id,
        json={"chapter": one["id"], "step": first, "shapes": []})
    deciding = ask.client.get(f"/api/records/{record_id}/steps/{first}").get_json()["pending"]["seat"]
    pause = ask("post", "/api/lessons/{lesson_id}/pauses", 201, teacher, lesson_id=lesson_id,
                json={"seat": deciding, "question": "and now?"}).get_json()
    for reader in (None, teacher):
        ask("get", "/api/lessons/{lesson_id}", 200, reader, lesson_id=lesson_id)
        ask("get", "/api/lessons/{lesson_id}/pauses/{pause_id}", 200, reader, lesson_id=lesson_id, pause_id=pause["id"])
    ask("get", "/api/lessons/{lesson_id}/pauses/{pause_id}/board", 200, lesson_id=lesson_id, pause_id=pause["id"])
    ask("post", "/api/lessons/{lesson_id}/pauses/{pause_id}/answers", 201, lesson_id=lesson_id, pause_id=pause["id"],
        json={"student": "Carla", "command": pause["choices"][0]["command"]})
    ask("post", "/api/lessons/{lesson_id}/pauses/{pause_id}/reveal", 200, teacher, lesson_id=lesson_id,
        pause_id=pause["id"], json={})
    ask("post", "/api/lessons/{lesson_id}/pauses/{pause_id}/reveal", 409, teacher, lesson_id=lesson_id,
        pause_id=pause["id"], json={})
    ask("post", "/api/lessons/{lesson_id}/pauses/{pause_id}/answers", 409, lesson_id=lesson_id, pause_id=pause["id"],
        json={"student": "Late", "command": pause["choices"][0]["command"]})
    exported = ask("get", "/api/lessons/{lesson_id}/export", 200, annotator, lesson_id=lesson_id).get_json()
    ask("post", "/api/lessons/import", 201, json=exported)

    # refusals: problem+json as documented
    ask("get", "/api/records/{record_id}", 404, record_id=uuid.uuid4())
    ask("get", "/api/imports/{import_id}", 404, import_id=uuid.uuid4())
    ask("post", "/api/records", 422, json={"title": "citta-stato"})
    ask("post", "/api/records", 415, data="x", content_type="text/plain")
    ask("post", "/api/imports", 400, data="{", content_type="application/json")

    documented = {(method, path) for path, ops in ask.document["paths"].items() for method in ops if method in METHODS}
    assert documented - LEFT_OUT - ask.asked == set(), "operations this test does not ask yet"
    assert not ask.wrong, "\n".join(ask.wrong)


def test_a_pending_import_answers_as_documented(checked: Checked) -> None:
    """An import's status while it is queued and judged (no record yet, no report) answers as documented too."""
    submitted = checked("post", "/api/imports", 202, json=transcribed_export("la-citta", 2)).get_json()
    for _ in range(200):
        status = checked("get", "/api/imports/{import_id}", 200, import_id=submitted["id"]).get_json()["status"]
        if status in ("accepted", "rejected"):
            break
        time.sleep(0.05)
    assert not checked.wrong, "\n".join(checked.wrong)
