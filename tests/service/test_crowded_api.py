"""The Procfile's `api` line (gunicorn, api/gunicorn_conf.py) as a real process on 127.0.0.1 keeps answering while
200 live streams are open and 50 slowloris clients trickle headers and bodies (issue 28): /healthz and commands
p99 <= 200 ms, every stream hears the command, the caps answer 429 with Retry-After, and slow clients are cut."""

from __future__ import annotations

import shlex
import subprocess
import time
from pathlib import Path

from tests.crowds import Slowloris, Timings, followers, open_stream, read_until, source, timed
from tests.service.conftest import LONG_TOY, free_port, subprocess_env

ROOT = Path(__file__).resolve().parents[2]
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
    server = subprocess.Popen(["/work/main/.venv/bin/python", "-m", *argv], env=env, cwd=ROOT, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        probe = Timings()
        deadline = time.monotonic() + 30
        while timed(port, "GET", "/healthz", probe, timeout=1) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        made = timed(port, "POST", "/api/records", Timings(), {"title": "toy", "seats": ["ann", "bob"],
                                                               "edition_file": LONG_TOY.format(target=60)})
        record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
        path = f"/api/records/{record_id}/live"
        with followers(port, [path] * STREAMS, PER_CLIENT) as streams, Slowloris(port, 50, every=0.5) as slow:
            assert [s.status for s in streams] == [200] * STREAMS
            over = open_stream(port, path, source(0))  # the 11th of one address
            assert over.status == 429 and over.headers["retry-after"].isdigit(), over.text
            assert over.headers["content-type"] == "application/problem+json"
            over.sock.close()
            healthz, commands = Timings(), Timings()
            for _ in range(6):
                for _ in range(5):
                    timed(port, "GET", "/healthz", healthz)
                legal = timed(port, "GET", f"/api/records/{record_id}/legal", commands)
                seat = legal["pending"]["seat"]
                mine = timed(port, "GET", f"/api/records/{record_id}/legal", commands,
                             headers={"Authorization": f"Bearer {tokens[seat]}"})
                played = timed(port, "POST", f"/api/records/{record_id}/commands", commands,
                               {"command": mine["commands"][0], "version": mine["version"]},
                               headers={"Authorization": f"Bearer {tokens[seat]}"})
                version = played["version"]
                late = read_until(streams, lambda s, v=version: v in s.ids(), timeout=10)
                assert not late, f"{len(late)} streams did not hear version {version}"
                time.sleep(0.3)
            assert set(healthz.statuses) == {200} and set(commands.statuses) == {200}, commands.statuses
            assert healthz.p99() <= 0.2, sorted(healthz.took)[-5:]
            assert commands.p99() <= 0.2, sorted(commands.took)[-5:]
            wait = time.monotonic() + 8  # heads are cut 2 s after their first byte, bodies 3 s after their headers
            while slow.held() and time.monotonic() < wait:
                time.sleep(0.2)
            assert slow.held() == 0, f"{slow.held()} slow clients still held"
            assert all(cut is not None and cut < 12 for cut in slow.cut_after), slow.cut_after
        after = Timings()
        for _ in range(20):
            timed(port, "GET", "/healthz", after)
        assert set(after.statuses) == {200} and after.p99() <= 0.2, after.took
    finally:
        server.terminate()
        server.wait(timeout=15)
        log.close()
