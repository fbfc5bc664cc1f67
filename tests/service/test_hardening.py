"""Issue 10 at the HTTP edge: protective headers (10), malformed JSON (12), Allow, problem+json in the
OpenAPI document and body types against cross-site posts (13). Each test reproduces a probe."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from importlib import resources
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect, sync_playwright
from werkzeug.serving import make_server

from api import security
from api.app import create_app
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import auth, play_out_http

PROBLEM = "application/problem+json"
PROTECTIVE = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}


def build(tmp_path: Path, **config: Any) -> Flask:
    app = create_app(Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                                        "SQLITE_DBNAME": str(tmp_path / "hardening.sqlite3")}), **config)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    built = build(tmp_path)
    yield built
    close_app(built)


@pytest.fixture
def client(app: Flask) -> Any:
    return app.test_client()


def start(client: Any, seats: list[str] | None = None) -> tuple[str, list[str]]:
    answer = client.post("/api/records", json={"title": "toy", "seats": seats or ["ann", "bob"]})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["id"], [s["token"] for s in answer.get_json()["seats"]]


def assert_protected(answer: Any, page: bool = False) -> None:
    for name, value in PROTECTIVE.items():
        assert answer.headers.get(name) == value, (name, answer.headers)
    csp = answer.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    if page:
        assert "script-src 'self'" in csp and "style-src 'self'" in csp


def assert_problem(answer: Any, status: int) -> dict[str, Any]:
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True)[:300])
    assert answer.content_type == PROBLEM
    body = answer.get_json()
    assert body["status"] == status and body["detail"]
    text = answer.get_data(as_text=True)
    assert "Traceback" not in text and 'File "' not in text
    assert_protected(answer)
    return body  # type: ignore[no-any-return]


# ---- 10. protective headers ---------------------------------------------------------------------


def test_every_kind_of_answer_carries_the_protective_headers(app: Flask, client: Any) -> None:
    record_id, tokens = start(client)
    api_answers = [client.get("/api/records"), client.get(f"/api/records/{record_id}"),
                   client.get("/api/openapi.json"), client.get("/viewer/viewer.js"), client.get("/viewer/viewer.css"),
                   client.post("/api/records", json={"title": "toy", "seats": ["cy", "dee"]})]
    for answer in api_answers:
        assert answer.status_code in (200, 201)
        assert_protected(answer)
    for path in ("/", f"/records/{record_id}", "/api/docs", "/import", "/reconcile"):
        page = client.get(path)
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert_protected(page, page=True)
    assert_problem(client.get("/nowhere"), 404)
    assert_problem(client.delete("/api/records"), 405)
    assert_problem(client.get(f"/api/records/{record_id}/legal", headers={"Authorization": "Basic x"}), 401)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.view_functions["records.turns"] = lambda record_id: 1 / 0
    failed = assert_problem(client.get(f"/api/records/{record_id}/turns"), 500)
    assert "try again" in failed["detail"] and "ZeroDivision" not in json.dumps(failed)


def test_the_fast_step_path_carries_them_too(app: Flask, client: Any) -> None:
    """GET /steps/{n} is answered under Flask (api.fastpath): Flask's own view must not be what answers."""
    record_id, tokens = start(client)
    client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/draw", "seat": 0}},
                headers=auth(tokens[0]))

    def flask_view(record_id: Any, n: int) -> Any:
        raise AssertionError("the fast path should have answered")

    app.view_functions["records.step"] = flask_view
    for headers in ({}, auth(tokens[0])):
        answer = client.get(f"/api/records/{record_id}/steps/1", headers=headers)
        assert answer.status_code == 200 and answer.get_json()["step"] == 1
        assert_protected(answer)


def test_a_view_can_take_its_own_framing_policy(tmp_path: Path) -> None:
    """The later embeddable route: one decorator, the rest of the policy unchanged."""
    app = build(tmp_path)
    try:
        @app.route("/embed")
        @security.header_policy(security.HeaderPolicy(frame_ancestors="https://club.example"))
        def embed() -> Any:
            return "<!doctype html><p>board</p>"

        client = app.test_client()
        framed = client.get("/embed")
        assert "frame-ancestors https://club.example" in framed.headers["Content-Security-Policy"]
        assert "X-Frame-Options" not in framed.headers
        assert framed.headers["Referrer-Policy"] == "no-referrer"
        assert_protected(client.get("/"), page=True)  # everyone else is still unframeable
    finally:
        app.extensions["cronaca"].records.close()


def test_the_viewer_serves_its_pages_scripts_and_styles_only(client: Any) -> None:
    assert client.get("/viewer/apidocs.css").mimetype == "text/css"
    assert_problem(client.get("/viewer/__init__.py"), 404)
    assert_problem(client.get("/viewer/..%2F..%2Fapi%2Fapp.py"), 404)


def test_the_viewer_pages_need_no_inline_script_or_style() -> None:
    """So the CSP can refuse inline script and style outright (an injected <script> would not run)."""
    for name in ("index.html", "record.html", "apidocs.html"):
        html = (resources.files("replay_viewer") / name).read_text()
        for script in re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S):
            assert script.strip() == "", (name, script)
        assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html)), name
        assert "<style" not in html and not re.search(r"\sstyle=", html), name
        assert not re.search(r"\son[a-z]+=", html), name


# ---- 12. malformed JSON -------------------------------------------------------------------------


DEEP_ARRAY = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 5000 + "1" + "}" * 5000


def bodies(client: Any) -> dict[str, tuple[str, dict[str, str]]]:
    """The three JSON endpoints, each with a token that may use it."""
    record_id, tokens = start(client)
    return {"/api/records": ("/api/records", {}),
            "commands": (f"/api/records/{record_id}/commands", auth(tokens[0])),
            "/api/imports": ("/api/imports", {})}


@pytest.mark.parametrize("endpoint", ["/api/records", "commands", "/api/imports"])
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_a_body_nested_five_thousand_deep_is_a_400(client: Any, endpoint: str, body: str) -> None:
    path, headers = bodies(client)[endpoint]
    found = assert_problem(client.post(path, data=body, content_type="application/json", headers=headers), 400)
    assert "deeper than" in found["detail"]
    assert found["field"] == ("[0][0][0][0]" if body == DEEP_ARRAY else "a.a.a.a")


def test_nesting_the_parser_takes_but_the_service_does_not_need_is_refused_by_field(client: Any) -> None:
    """900 levels parse, but used to recurse to a 500 further in; the bound is MAX_DEPTH."""
    deep: Any = 1
    for _ in range(900):
        deep = [deep]
    found = assert_problem(client.post("/api/records", json={"title": "toy", "seats": ["a", "b"], "options": {"x": deep}}),
                           400)
    assert found["field"] == "options.x[0][0]" and str(security.MAX_DEPTH) in found["detail"]
    fine: Any = {"k": 1}
    for _ in range(security.MAX_DEPTH - 3):
        fine = {"k": fine}
    within = client.post("/api/records", json={"title": "toy", "seats": ["a", "b"], "options": {"x": fine}})
    assert within.status_code == 201, within.get_json()  # MAX_DEPTH levels in all: taken


def test_a_deep_record_file_meets_the_file_limit_first(client: Any) -> None:
    """Between CRONACA_MAX_DEPTH (32) and the parser's bound (64) an import is the file check's to refuse."""
    deep: Any = "bottom"
    for _ in range(40):
        deep = {"deeper": deep}
    found = assert_problem(client.post("/api/imports", json={"format": "cronaca-record", "version": 1, "title": "toy",
                                                             "notes": deep}), 422)
    assert found["rule"] == "file/limit" and found["facts"]["limit"] == "CRONACA_MAX_DEPTH"


@pytest.mark.parametrize(("endpoint", "raw", "field"), [
    ("/api/records", '{"title": "toy", "seats": ["\\ud800", "bob"]}', "seats[0]"),
    ("/api/records", '{"title": "toy", "seats": ["ann", "b\\udfffb"]}', "seats[1]"),
    ("/api/records", '{"title": "toy", "seats": ["ann", "bob"], "options": {"\\ud800": 1}}', "options"),
    ("commands", '{"command": {"type": "toy/roll", "seat": 0, "note": "\\udc00"}}', "command.note"),
    ("/api/imports", '{"format": "cronaca-record", "version": 1, "title": "toy", "seats": [{"name": "\\ud800"}]}',
     "seats[0].name"),
])
def test_a_lone_surrogate_is_refused_naming_its_field(client: Any, endpoint: str, raw: str, field: str) -> None:
    path, headers = bodies(client)[endpoint]
    found = assert_problem(client.post(path, data=raw, content_type="application/json", headers=headers), 422)
    assert found["field"] == field and field in found["detail"] and "surrogate" in found["detail"]
    assert client.get("/api/records").get_json()["total"] == 1  # nothing half-written: only the fixture's record


def test_a_surrogate_pair_is_text_and_is_taken(client: Any) -> None:
    answer = client.post("/api/records", data='{"title": "toy", "seats": ["\\ud83c\\udfb2 Ada", "bob"]}',
                         content_type="application/json")
    assert answer.status_code == 201 and answer.get_json()["seats"][0]["name"] == "\U0001f3b2 Ada"
    raw_utf8 = b'{"title": "toy", "seats": ["\xed\xa0\x80", "bob"]}'  # a surrogate encoded as bytes: not UTF-8
    assert "UTF-8" in assert_problem(client.post("/api/records", data=raw_utf8, content_type="application/json"),
                                     400)["detail"]


@pytest.mark.parametrize("kind", [[], {}, ["toy/roll"], {"toy/roll": 1}, 7, None])
def test_a_command_type_that_is_not_a_name_is_a_422_at_command_type(client: Any, kind: Any) -> None:
    path, headers = bodies(client)["commands"]
    found = assert_problem(client.post(path, json={"command": {"type": kind, "seat": 0}}, headers=headers), 422)
    assert "type" in found["errors"]["json"]["command"]


@pytest.mark.parametrize("title", [[], {}, ["toy"], {"id": "toy"}])
def test_a_title_that_is_not_a_name_is_a_422_naming_title(client: Any, title: Any) -> None:
    found = assert_problem(client.post("/api/records", json={"title": title, "seats": ["a", "b"]}), 422)
    assert "title" in found["errors"]["json"]
    imported = assert_problem(client.post("/api/imports", json={"format": "cronaca-record", "version": 1,
                                                                 "title": title}), 422)
    assert imported["rule"] == "file/title" and "title" in imported["detail"]


@pytest.mark.parametrize("raw", ['{"title": "toy", "seats": ["a", "b"], "version": NaN}',
                                 '{"title": "toy", "seats": ["a", "b"], "options": {"x": Infinity}}',
                                 '{"title": "toy", "seats": ["a", "b"], "options": {"x": 1e999}}',
                                 '{"title": "toy", "seats": ["a", "b"], "options": {"x": ' + "9" * 5000 + "}}",
                                 '{"title": "toy", "seats": ["a", "b"]',
                                 "",
                                 '{"title": "toy", "seats": ["\xff"]}'])
def test_what_is_not_json_is_a_400_saying_so(client: Any, raw: str) -> None:
    data = raw.encode("latin-1") if "\xff" in raw else raw.encode()
    found = assert_problem(client.post("/api/records", data=data, content_type="application/json"), 400)
    assert "JSON" in found["detail"] or "UTF-8" in found["detail"]


# ---- 13. Allow, body types, the OpenAPI document -------------------------------------------------


def test_method_not_allowed_says_which_are(client: Any) -> None:
    record_id, _ = start(client)
    for method, path, allowed in (("delete", "/api/records", {"GET", "HEAD", "OPTIONS", "POST"}),
                                  ("get", f"/api/records/{record_id}/commands", {"OPTIONS", "POST"}),
                                  ("put", f"/api/records/{record_id}", {"GET", "HEAD", "OPTIONS"})):
        answer = getattr(client, method)(path)
        found = assert_problem(answer, 405)
        assert {m.strip() for m in answer.headers["Allow"].split(",")} == allowed
        assert all(m in found["detail"] for m in allowed)


def test_a_missing_token_says_how_to_send_one(client: Any) -> None:
    record_id, _ = start(client)
    answer = client.post(f"/api/records/{record_id}/commands", json={"command": {"type": "toy/roll", "seat": 0}})
    assert_problem(answer, 401)
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")


CROSS_SITE = [  # what a page on another site can make a browser send without asking first
    ("text/plain", lambda body: {"data": json.dumps(body), "content_type": "text/plain"}),
    ("multipart/form-data", lambda body: {"data": {"file": (BytesIO(json.dumps(body).encode()), "x.json")},
                                          "content_type": "multipart/form-data"}),
    ("application/x-www-form-urlencoded", lambda body: {"data": {"json": json.dumps(body)}}),
    ("no Content-Type", lambda body: {"data": json.dumps(body)}),
]


@pytest.mark.parametrize("endpoint", ["/api/records", "commands", "/api/imports"])
@pytest.mark.parametrize(("given", "send"), CROSS_SITE, ids=[c[0] for c in CROSS_SITE])
def test_json_endpoints_refuse_what_a_cross_site_form_can_send(client: Any, app: Flask, endpoint: str, given: str,
                                                                send: Any) -> None:
    record_id, tokens = start(client)
    paths = {"/api/records": ("/api/records", {"title": "toy", "seats": ["a", "b"]}, {}),
             "commands": (f"/api/records/{record_id}/commands", {"command": {"type": "toy/draw", "seat": 0}},
                          auth(tokens[0])),
             "/api/imports": ("/api/imports", {"format": "cronaca-record", "version": 1, "title": "toy"}, {})}
    path, body, headers = paths[endpoint]
    answer = client.post(path, headers=headers, **send(body))
    found = assert_problem(answer, 415)
    # /api/imports also takes the notation's own type, which no cross-site form can send either
    accepted = ["application/json", "text/x-cronaca-notation"] if endpoint == "/api/imports" else ["application/json"]
    assert found["accepted"] == accepted and answer.headers["Accept"] == ", ".join(accepted)
    assert "application/json" in found["detail"] and given in found["detail"]
    assert client.get("/api/records").get_json()["total"] == 1
    assert client.get(f"/api/records/{record_id}").get_json()["steps"] == 1  # no command went in


def test_accepted_body_types_are_the_documented_ones(client: Any) -> None:
    """The guard reads each operation's OpenAPI requestBody: what is documented is what is taken."""
    spec = client.get("/api/openapi.json").get_json()
    record_id, tokens = start(client)
    posts = {path: op for path, ops in spec["paths"].items() for method, op in ops.items() if method == "post"}
    assert {"/api/records", "/api/records/{record_id}/commands", "/api/imports"} <= set(posts)
    for path, op in posts.items():
        documented = list(op["requestBody"]["content"])
        # any id fits a route (a step or seat number where the route wants one): the guard runs before the view
        address = re.sub(r"\{\w+\}", record_id, path.replace("{n}", "0"))
        answer = client.post(address, data="x", content_type="text/plain",
                             headers=auth(tokens[0]))
        assert assert_problem(answer, 415)["accepted"] == documented, path
    assert posts["/api/imports"]["requestBody"]["content"].keys() == {"application/json", "text/x-cronaca-notation"}


def test_an_app_made_after_another_serves_the_same_document_and_guards_bodies_alike(tmp_path: Path) -> None:
    """The OpenAPI document is built by a process's first app and shared by the next (api/app.py): a later app,
    on another store, serves the same document and refuses an undocumented body type as the first does."""
    answers = []
    for k in range(2):
        app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / f"records-{k}.sqlite3")}))
        client = app.test_client()
        refused = client.post("/api/imports", data="x", content_type="text/plain")
        answers.append((client.get("/api/openapi.json").data, refused.status_code, refused.get_json()["accepted"]))
        close_app(app)
    assert answers[0] == answers[1] and answers[1][1] == 415, answers[1][1:]
    assert set(answers[1][2]) == {"application/json", "text/x-cronaca-notation"}


def test_the_openapi_document_declares_problem_answers(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    shared = spec["components"]["responses"]

    def content(response: dict[str, Any]) -> dict[str, Any]:
        if "$ref" in response:
            response = shared[response["$ref"].rsplit("/", 1)[1]]
        return response["content"]  # type: ignore[no-any-return]

    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            codes = {code for code in op["responses"] if code[0] in "45" or code == "default"}
            assert "default" in codes, (method, path)
            for code in codes:
                assert list(content(op["responses"][code])) == [PROBLEM], (method, path, code)
            if "requestBody" in op:
                assert {"400", "413", "415", "422"} <= codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            if op.get("security"):
                assert {"401", "403"} <= codes, (method, path)
    assert spec["paths"]["/api/records/{record_id}/commands"]["post"]["responses"]["409"]


def test_an_upload_larger_than_allowed_is_a_413_saying_the_limit(tmp_path: Path) -> None:
    app = build(tmp_path, MAX_CONTENT_LENGTH=1000)
    try:
        found = assert_problem(app.test_client().post("/api/imports", data=b"[" + b" " * 2000 + b"]",
                                                      content_type="application/json"), 413)
        assert "1000" in found["detail"]
    finally:
        app.extensions["cronaca"].records.close()


# ---- in Chromium: the CSP holds, and the seat token goes only into Authorization -----------------

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.mark.browser
def test_the_viewer_runs_under_its_csp_and_keeps_the_token_out_of_addresses(tmp_path: Path) -> None:
    app = build(tmp_path)
    arrived: list[dict[str, str]] = []  # what reaches the server (and its access log), fast path included
    inner = app.wsgi_app

    def recorder(environ: dict[str, Any], start_response: Any) -> Any:
        arrived.append({"path": environ.get("PATH_INFO", ""), "query": environ.get("QUERY_STRING", ""),
                        "referer": environ.get("HTTP_REFERER", ""), "authorization": environ.get("HTTP_AUTHORIZATION", "")})
        return inner(environ, start_response)

    app.wsgi_app = recorder  # type: ignore[method-assign]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        client = app.test_client()
        record_id, tokens = start(client)
        play_out_http(client, record_id, tokens, must_finish=False, limit=3)
        arrived.clear()  # from here on, only what the browser sends
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page()
            violations: list[str] = []
            requests: list[Any] = []
            page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
            page.on("request", lambda r: requests.append(r))
            page.goto(f"{base}/records/{record_id}#token={tokens[0]}")
            page.wait_for_selector("body[data-loaded]")
            # not wait_for_function: Playwright polls a string predicate with eval, which this CSP refuses
            expect(page.locator("#status")).to_contain_text("seat:0")
            page.goto(base + "/")
            page.wait_for_selector("#records tbody tr")
            page.goto(base + "/api/docs")
            page.wait_for_selector("details.op")
            assert page.evaluate("getComputedStyle(document.querySelector('details.op')).borderTopStyle") == "solid"
            assert violations == [], violations  # the pages themselves need nothing the CSP refuses
            injected = page.evaluate("""() => new Promise((done) => {
                document.addEventListener('securitypolicyviolation', (e) => done(e.violatedDirective));
                setTimeout(() => done('no violation'), 3000);
                const s = document.createElement('script'); s.textContent = 'window.ran = 1'; document.body.append(s);
            })""")
            assert injected.startswith("script-src") and page.evaluate("window.ran") is None
            browser.close()
        assert requests and all(tokens[0] not in r.url.split("#", 1)[0] for r in requests)  # a fragment stays home
        with_token = [r for r in arrived if r["authorization"] == f"Bearer {tokens[0]}"]
        read = {r["path"].removeprefix(f"/api/records/{record_id}").split("/")[1:2][0] if r["path"].count("/") > 3
                else "summary" for r in with_token}
        # the record page's reads (the board is under steps/N/board), each with the header; the seat's own
        # private notes are read with it too, and the decision panel asks what the seat may choose (legal);
        # nothing else (places, variations) needs to know the reader
        assert {"summary", "turns", "steps"} <= read <= {"summary", "turns", "steps", "story", "scores", "annotations",
                                                         "legal"}, with_token
        assert all(tokens[0] not in r["path"] + r["query"] for r in arrived)
        assert [r for r in arrived if r["referer"]] == []
    finally:
        server.shutdown()
        app.extensions["cronaca"].records.close()


@pytest.mark.parametrize(("raw", "why"), [(b'[Title "la-citta"]\n\x001. A: x\n', "it holds NUL bytes"),
                                          (b'[Title "la-citta"]\n\xff\xfe1. A: x\n', "not UTF-8 text (byte 19)")])
def test_a_notation_upload_that_is_no_text_says_why(client: Any, raw: bytes, why: str) -> None:
    """A notation body that is not UTF-8 text is answered with the reason (a NUL byte, the first bad byte),
    not the generic "send a JSON object", on each address that takes notation; nothing is stored."""
    for path in ("/api/imports", "/api/check"):
        found = assert_problem(client.post(path, data=raw, content_type="text/x-cronaca-notation"), 400)
        assert why in found["detail"], (path, found)
        assert "JSON object" not in found["detail"]
    assert client.get("/api/records").get_json()["total"] == 0


def test_a_store_that_cannot_be_reached_is_a_503_with_retry_after(app: Flask, client: Any, monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    """The event store unreachable past its own retries (PostgreSQL down, every connection cut): a command and an
    upload are answered 503 with Retry-After, problem+json, the cause in one log line and not in the answer (was
    500, "the service failed"); nothing is stored; once the store answers, the same requests go through."""
    from eventsourcing.persistence import OperationalError

    records = app.extensions["cronaca"].records
    finished_id, finished_tokens = start(client)
    play_out_http(client, finished_id, finished_tokens)
    document = client.get(f"/api/records/{finished_id}/export").data
    record_id, tokens = start(client)
    seat = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]["seat"]
    legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[seat])).get_json()
    body = {"command": legal["commands"][0], "version": legal["version"]}
    imports_before = len(records.recorder.select_notifications(0, limit=1_000_000))

    def away(*_: Any, **__: Any) -> Any:
        raise OperationalError('connection failed: connection to server at "10.0.0.5", port 5432 failed: refused')

    real = records.recorder.insert_events
    records.recorder.insert_events = away
    try:
        with caplog.at_level("WARNING", logger="cronaca.api"):
            for answer in (client.post(f"/api/records/{record_id}/commands", json=body, headers=auth(tokens[seat])),
                           client.post("/api/imports", data=document, content_type="application/json")):
                found = assert_problem(answer, 503)
                assert answer.headers["Retry-After"] == "2" and "try again" in found["detail"]
                assert "10.0.0.5" not in answer.get_data(as_text=True)  # the cause is the operator's, in the log
    finally:
        records.recorder.insert_events = real
    said = [r.getMessage() for r in caplog.records if "the store did not answer" in r.getMessage()]
    assert len(said) == 2 and all("10.0.0.5" in line for line in said)
    assert len(records.recorder.select_notifications(0, limit=1_000_000)) == imports_before  # nothing stored
    assert client.post(f"/api/records/{record_id}/commands", json=body, headers=auth(tokens[seat])).status_code == 200
    assert client.post("/api/imports", data=document, content_type="application/json").status_code == 202
