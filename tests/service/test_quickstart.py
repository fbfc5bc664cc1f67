"""`cronaca serve --demo` (what `./dev serve` runs): starts, prints its URL, serves demo records."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from api.service_cli import demo_plan
from domain.records.application import titles
from tests.service.conftest import ROOT, free_port, subprocess_env


def test_serve_demo_prints_its_url_and_serves_demo_records(tmp_path: Path) -> None:
    port = free_port()
    seats_file = tmp_path / "demo-seats.txt"
    env = subprocess_env({"SQLITE_DBNAME": str(tmp_path / "demo.sqlite3"), "CRONACA_DEMO_SEATS": str(seats_file)})
    env.pop("CRONACA_EXTRA_TITLES")  # the demo is made of the real titles only
    server = subprocess.Popen([str(Path(sys.executable).parent / "cronaca"), "serve", "--demo", "--port", str(port)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        deadline = time.time() + 120
        assert server.stdout is not None
        while time.time() < deadline:
            line = server.stdout.readline()
            assert line, "serve exited: " + "".join(lines)
            lines.append(line)
            if "Cronaca is running at" in line:
                break
        assert f"http://127.0.0.1:{port}/" in lines[-1]
        real = [t for t in titles() if t in ("citta-stato", "la-citta", "serenissima")]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/records?per_page=100", timeout=10) as answer:
            listing = json.load(answer)
        assert {r["title"] for r in listing["items"]} == set(real)
        assert sum(r["finished"] for r in listing["items"]) == len(demo_plan(real))
        in_progress = [r for r in listing["items"] if not r["finished"]]
        assert len(in_progress) == (1 if real else 0)
        assert not any("#token=" in line or "#key=" in line for line in lines), "a token or key reached standard output"
        if real:
            assert any(str(seats_file) in line for line in lines)
            links = seats_file.read_text().splitlines()
            seat_links = [line for line in links if line.startswith("seat ")]
            assert len(seat_links) >= 2 and all(f"/records/{in_progress[0]['id']}#token=" in line for line in seat_links)
            assert seats_file.stat().st_mode & 0o077 == 0  # its owner's only
            # The demo lesson: a chapter per title's first game and one per what-if line, notes on its games.
            lesson_line = next(line for line in lines if "/lessons/" in line)
            lesson_id = lesson_line.strip().rsplit("/", 1)[1]
            assert any(f"/lessons/{lesson_id}#key=" in line for line in links)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/lessons/{lesson_id}", timeout=10) as answer:
                lesson = json.load(answer)
            assert len(lesson["chapters"]) == 2 * len(real)
            first = lesson["chapters"][0]["record_id"]
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/records/{first}/annotations", timeout=10) as answer:
                notes = json.load(answer)["notes"]
            assert len(notes) == 3 and all(n["glyph"] and n["shapes"] for n in notes)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert b"Cronaca" in page.read()
    finally:
        server.terminate()
        server.wait(10)
