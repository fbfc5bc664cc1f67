"""The service tests' own plumbing. The page tests' server stops only once it has answered what it was asked: a
test's records are closed after it, and a store closed under a request still reading it crashes the process
(tests/service/browsing.py). A module's toy title leaves the catalog as it found it (tests/service/helpers.py)."""

from __future__ import annotations

import threading
import time
import urllib.request

import pytest
from flask import Flask

from domain import catalog
from tests.service.browsing import serving
from tests.service.helpers import TOY, toy_registered


def test_a_server_that_stops_has_first_answered_the_request_it_was_answering() -> None:
    app = Flask(__name__)
    began, answered = threading.Event(), threading.Event()

    @app.get("/slow")
    def slow() -> str:
        began.set()
        time.sleep(0.5)  # a page's poll reading the store when the test ends
        answered.set()
        return "done"

    replies: list[bytes] = []
    with serving(app) as port:
        asker = threading.Thread(target=lambda: replies.append(
            urllib.request.urlopen(f"http://127.0.0.1:{port}/slow", timeout=10).read()))
        asker.start()
        assert began.wait(10), "the request never reached the app"
    assert answered.is_set(), "the server stopped while a request was still being answered"
    asker.join(10)
    assert replies == [b"done"]


def test_a_module_s_toy_title_is_gone_from_the_catalog_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(catalog.TITLES, "toy")  # (this package's autouse fixture adds it to every test)
    with toy_registered():
        assert catalog.TITLES["toy"] == TOY
    assert "toy" not in catalog.TITLES
