"""A served app and a real Chromium for the page tests: one place for the server and browser plumbing.

The pages need a real HTTP server (a browser cannot talk to Flask's test client, and the live lesson
stream needs a thread per follower), so `serving` runs werkzeug threaded on a free port. `chromium`
launches Debian's /usr/bin/chromium through Playwright. The `browser`, `page` and `context` fixtures
wrap them; a test module takes the ones it uses by assignment (pytest finds fixtures by module attribute,
and an assignment, unlike an import, is not "unused" to ruff when a test names it as an argument):

    from tests.service import browsing
    browser, page = browsing.browser, browsing.page  # fixtures, used by name
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect, sync_playwright
from werkzeug.serving import make_server

from api.app import create_app
from domain.records.settings import Settings

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1400, "height": 1000}  # wide enough for the board and the story side by side
# How long an `expect` waits for the page to reach what it asserts (Playwright's default is 5 s). The
# assertions are the same; only the wait grows: on a host-starved VM (2026-11-24: pauses of up to a second,
# 20-30 in every 5 s) a record's first load alone took over 5 s and the page tests failed by the clock.
EXPECT_TIMEOUT_MS = 20_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)
ROOT = Path(__file__).resolve().parents[2]
# Where the page tests leave their screenshots, to be looked at: var/screenshots (not tracked), so a test run
# leaves the checkout as it was. `CRONACA_PAGE_SHOTS=docs/screenshots ./dev test tests/service -k page` refreshes
# the pictures the README shows.
SHOTS = Path(os.environ.get("CRONACA_PAGE_SHOTS") or ROOT / "var" / "screenshots")
SHOTS.mkdir(parents=True, exist_ok=True)


class _InFlight:
    """The requests a threaded server is still answering: a request's thread is counted from the moment the server
    hands it the connection until it has answered."""

    def __init__(self, server: Any) -> None:
        self.count = 0
        self.changed = threading.Condition()
        handed, answer = server.process_request, server.process_request_thread

        def process_request(request: Any, address: Any) -> None:  # the serving thread, before the request's starts
            with self.changed:
                self.count += 1
            handed(request, address)

        def process_request_thread(request: Any, address: Any) -> None:
            try:
                answer(request, address)
            finally:
                with self.changed:
                    self.count -= 1
                    self.changed.notify_all()

        server.process_request, server.process_request_thread = process_request, process_request_thread

    def wait(self, seconds: float) -> bool:
        """Whether every request has been answered within `seconds`."""
        with self.changed:
            return self.changed.wait_for(lambda: self.count == 0, timeout=seconds)


QUIET_SECONDS = 10.0  # how long a server that stops waits for the requests it is answering (a page polling)
STREAMS_END_SECONDS = 0.5  # ...before it ends the live streams still open


@contextmanager
def _served(app: Flask) -> Iterator[tuple[int, _InFlight]]:
    """Serve `app`; when it stops, wait (at most `QUIET_SECONDS`) for the requests it is still answering."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    in_flight = _InFlight(server)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port, in_flight
    finally:
        server.shutdown()
        server.server_close()
        if not in_flight.wait(STREAMS_END_SECONDS):
            # a live stream a page left open (the browser is closed after the server) would be answered until
            # `QUIET_SECONDS`: the app's live channel is closed, which ends every stream it feeds (10 s a module)
            cronaca = app.extensions.get("cronaca")  # (a bare Flask app serves no streams)
            if cronaca is not None:
                cronaca.hub.close()
            in_flight.wait(QUIET_SECONDS)


@contextmanager
def serving(app: Flask) -> Iterator[int]:
    """Serve `app` on 127.0.0.1 (threaded: a thread per request, so live streams do not block) and yield its port.

    When it stops it waits for the requests still being answered (a page left open polls), so that the caller may
    close the app's records after it: closing a store whose SQLite connection another thread is using crashes the
    process (the library's pool closes the connections in use; seen as a segfault at a test's end)."""
    with _served(app) as (port, _):
        yield port


@contextmanager
def served_app(folder: Path, **config: Any) -> Iterator[tuple[str, Flask]]:
    """A fresh app on its own SQLite file in `folder`, served: (base URL, app). Its records are closed afterwards,
    once no request is being answered; a request still answered after `QUIET_SECONDS` (a live stream a page still
    follows) leaves them open, closed with the app when the last thread lets it go.

    `config` goes to `create_app` (e.g. CRONACA_SSE_PING=0.2 for a quick heartbeat).
    """
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(folder / "records.sqlite3")}), **config)
    in_flight: _InFlight | None = None
    try:
        with _served(app) as (port, in_flight):
            yield f"http://127.0.0.1:{port}", app
    finally:
        if in_flight is None or in_flight.count == 0:
            app.extensions["cronaca"].records.close()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright (the browser is the slow part: share it per module)."""
    with sync_playwright() as p:
        found = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield found
        finally:
            found.close()


@contextmanager
def opened(browser: Any, errors: list[str] | None = None, viewport: dict[str, int] | None = None,
           **options: Any) -> Iterator[Any]:
    """A page in a browser context of its own (its own cookies and storage: another person at another computer).

    With `errors`, every uncaught exception the page throws is appended there; `options` go to the context
    (`bypass_csp=True` lets `axe_violations` inject axe-core into a page whose CSP refuses inline scripts).
    """
    context = browser.new_context(viewport=viewport or VIEWPORT, **options)
    try:
        page = context.new_page()
        if errors is not None:
            page.on("pageerror", lambda exc: errors.append(str(exc)))
        yield page
    finally:
        context.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for the module."""
    with chromium() as found:
        yield found


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page in a context of its own, per test."""
    with opened(browser) as made:
        yield made


@pytest.fixture
def context(browser: Any) -> Iterator[Callable[..., Any]]:
    """Opens a page per call (`viewport=` and the context's options optional), each in a context of its own (each a
    different person).

    The contexts close after the test, and the test fails if any of its pages threw.
    """
    errors: list[str] = []
    with ExitStack() as stack:
        yield lambda viewport=None, **options: stack.enter_context(opened(browser, errors, viewport, **options))
    assert not errors, f"the page threw: {errors}"


AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"  # pinned in package.json


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of the page as it stands."""
    page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter((v) => v.impact === 'serious' || v.impact === 'critical')"
        ".map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' '))}))")
    return found
