"""`cronaca serve` (werkzeug, a thread per connection) holds 200 live streams and keeps answering (issue 28); the
process's cap (CRONACA_LIVE_STREAMS) answers 503 with Retry-After beyond."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.crowds import Timings, followers, open_stream, read_until, source, timed
from tests.service.conftest import LONG_TOY, free_port, subprocess_env

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.alone  # a latency measure: no test beside it (tests/conftest.py)


def test_cronaca_serve_holds_200_streams_and_refuses_the_201st(tmp_path: Path) -> None:
    port = free_port()
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "db.sqlite"), "CRONACA_LIVE_STREAMS": "200",
                          "CRONACA_LIVE_STREAMS_PER_CLIENT": "20"})
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1",
                               "--port", str(port)], env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while timed(port, "GET", "/healthz", Timings(), timeout=1) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        made = timed(port, "POST", "/api/records", Timings(), {"title": "toy", "seats": ["ann", "bob"],
                                                               "edition_file": LONG_TOY.format(target=60)})
        record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
        path = f"/api/records/{record_id}/live"
        with followers(port, [path] * 200, 20) as streams:
            assert [s.status for s in streams] == [200] * 200
            full = open_stream(port, path, source(30))
            assert full.status == 503 and full.headers["retry-after"].isdigit(), full.text
            full.sock.close()
            probe = Timings()
            for _ in range(30):
                timed(port, "GET", "/healthz", probe)
            assert set(probe.statuses) == {200} and probe.p99() <= 0.2, sorted(probe.took)[-5:]
            seat_of = timed(port, "GET", f"/api/records/{record_id}/legal", Timings())["pending"]["seat"]
            auth = {"Authorization": f"Bearer {tokens[seat_of]}"}
            mine = timed(port, "GET", f"/api/records/{record_id}/legal", Timings(), headers=auth)
            played = timed(port, "POST", f"/api/records/{record_id}/commands", Timings(),
                           {"command": mine["commands"][0], "version": mine["version"]}, headers=auth)
            late = read_until(streams, lambda s: played["version"] in s.ids(), timeout=10)
            assert not late, f"{len(late)} of 200 streams did not hear the command"
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()
