"""The Procfile's `api` line (gunicorn, api/gunicorn_conf.py) as a real process on 127.0.0.1 keeps answering while
200 live streams are open and 50 slowloris clients trickle headers and bodies (issue 28): /healthz and commands
p99 <= 200 ms, every stream hears the command, the caps answer 429 with Retry-After, and slow clients are cut."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
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


def test_the_api_line_serves_while_200_streams_are_open_and_50_clients_trickle(tmp_path: Path) -> None:
    port = free_port()
    argv = [a.replace("$PORT", str(port)) for a in api_line()]
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "db.sqlite"), "CRONACA_API_WORKERS": "1",
                          "CRONACA_LIVE_STREAMS_PER_CLIENT": str(PER_CLIENT), "CRONACA_HEADER_TIMEOUT": "2",
                          "CRONACA_BODY_TIMEOUT": "3", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")})
    log = (tmp_path / "api.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", *argv], env=env, cwd=ROOT, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        probe = Timings()
        deadline = time.monotonic() + 30
        while timed(port, "GET", "/healthz", probe, timeout=1) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        made = timed(port, "POST", "/api/records", Timings(), {"title": "toy", "seats": ["ann", "bob"],
                                                               "edition_file": LONG_TOY.format(target=60)})
        record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
        hold_under_attack(port, record_id, tokens, STREAMS, PER_CLIENT, 50)
    except BaseException:
        log.flush()  # what the server said, for the failure's report
        print(*(tmp_path / "api.log").read_text(errors="replace").splitlines()[-40:], sep="\n")
        raise
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()
