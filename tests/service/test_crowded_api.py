"""The Procfile's `api` line (gunicorn, api/gunicorn_conf.py) as a real process on 127.0.0.1 keeps answering while
200 live streams are open and 50 slowloris clients trickle headers and bodies (issue 28): /healthz and commands
p99 <= 200 ms, every stream hears the command, the caps answer 429 with Retry-After, and slow clients are cut."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.crowds import Timings, hold_under_attack, timed
from tests.service.conftest import LONG_TOY, free_port, subprocess_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.alone  # a latency measure: no test beside it (tests/conftest.py)
STREAMS, PER_CLIENT = 200, 10


def api_line() -> list[str]:
    line = next(x for x in (ROOT / "Procfile").read_text().splitlines() if x.startswith("api:"))
    command = line.split("--", 1)[1]  # what `cronaca keep --` runs
    return shlex.split(command.replace("${CRONACA_BIND:-127.0.0.1}", "127.0.0.1"))


@contextmanager
def api_process(tmp_path: Path, header_timeout: str = "2") -> Iterator[int]:
    """The Procfile's `api` line with one worker on a free port, answering /healthz: its port. What it logged is
    printed when the test fails."""
    port = free_port()
    argv = [a.replace("$PORT", str(port)) for a in api_line()]
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "db.sqlite"), "CRONACA_API_WORKERS": "1",
                          "CRONACA_LIVE_STREAMS_PER_CLIENT": str(PER_CLIENT), "CRONACA_HEADER_TIMEOUT": header_timeout,
                          "CRONACA_BODY_TIMEOUT": "3", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")})
    log = (tmp_path / "api.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", *argv], env=env, cwd=ROOT, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while timed(port, "GET", "/healthz", Timings(), timeout=1) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        yield port
    except BaseException:
        log.flush()  # what the server said, for the failure's report
        print(*(tmp_path / "api.log").read_text(errors="replace").splitlines()[-40:], sep="\n")
        raise
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()


def test_slow_clients_cut_at_once_do_not_hold_up_the_next_connection(tmp_path: Path) -> None:
    """Ten clients trickle a header a byte every 0.2 s and never read: each is cut at the header deadline (1 s), and
    the server's lingering close of each (draining what they still send, up to 2 s) must not hold up the others.
    gunicorn's gthread lingers on its main thread, the one that accepts: ten cut at once stalled every new
    connection for seconds (CI, session 29: a /healthz unanswered for 8 s beside 50 slowloris clients)."""
    stop = threading.Event()

    def trickle() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            while not stop.wait(0.2):
                try:
                    sock.sendall(b"X")
                except OSError:
                    return

    with api_process(tmp_path, header_timeout="1") as port:
        clients = [threading.Thread(target=trickle, daemon=True) for _ in range(10)]
        try:
            for client in clients:
                client.start()
            time.sleep(1.6)  # each cut by now, its lingering close begun
            asked = Timings()
            for _ in range(5):
                timed(port, "GET", "/healthz", asked, timeout=4)
                time.sleep(0.1)
            assert set(asked.statuses) == {200} and max(asked.took) < 1.0, (asked.took, asked.errors)
        finally:
            stop.set()
            for client in clients:
                client.join(timeout=5)


def test_the_api_line_serves_while_200_streams_are_open_and_50_clients_trickle(tmp_path: Path) -> None:
    with api_process(tmp_path) as port:
        made = timed(port, "POST", "/api/records", Timings(), {"title": "toy", "seats": ["ann", "bob"],
                                                               "edition_file": LONG_TOY.format(target=60)})
        record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
        hold_under_attack(port, record_id, tokens, STREAMS, PER_CLIENT, 50)
