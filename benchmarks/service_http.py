"""`GET /api/records/{id}/steps/{n}` under load: gunicorn on 127.0.0.1, a bounded client.

    .venv/bin/python -m benchmarks.service_http [--workers 2] [--connections 8] [--seconds 10]

Builds one long Città-Stato record in a fresh SQLite file (as benchmarks.service_steps
does), starts `gunicorn api.wsgi:app` (`--workers` processes of `--threads` threads, gthread), warms every step
once, then drives uniformly random steps with `wrk` (Debian package `wrk`: one thread,
`--connections` open at a time, so the load is bounded) and prints requests/s and the
latency percentiles wrk measures. The client shares the machine's cores with the server.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchmarks.service_steps import long_record
from domain.records import Records

LUA = """
math.randomseed(7)
request = function()
  return wrk.format("GET", string.format("/api/records/%s/steps/%d", "{record}", math.random({low}, {high})))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title", default="citta-stato")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--worker-class", default="gthread", help="gunicorn worker class (gthread keeps connections alive)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("this benchmark drives load with wrk: apt-get install wrk")
    with tempfile.TemporaryDirectory() as tmp:
        env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "b.sqlite3")}
        records = Records(env)
        record_id = long_record(records, args.title, args.players, 3)
        steps = records.reading.summary(record_id).steps
        low = records.reading.turns(record_id)[0].stop
        records.close()
        port = free_port()
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "--workers", str(args.workers), "--worker-class",
             args.worker_class, "--threads", str(args.threads), "--keep-alive", "5", "--bind",
             f"127.0.0.1:{port}", "--log-level", "warning", "api.wsgi:app"],
            env={**os.environ, **env}, cwd=Path(__file__).resolve().parents[1],
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{base}/api/records/{record_id}", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            for _ in range(args.workers * 2):  # every worker process loads the record once
                for n in range(low, steps + 1):
                    urllib.request.urlopen(f"{base}/api/records/{record_id}/steps/{n}").read()
            script = Path(tmp) / "steps.lua"
            script.write_text(LUA.format(record=record_id, low=low, high=steps))
            out = subprocess.run(
                ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "--latency", "-s", str(script), base],
                capture_output=True, text=True, check=True,
            ).stdout
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(10)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    latency = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", out, re.M))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    print(f"{args.title}: GET /steps/{{n}}, n uniform in [{low}, {steps}]; gunicorn --workers {args.workers} "
          f"--worker-class {args.worker_class} --threads {args.threads}; "
          f"wrk -t1 -c{args.connections} -d{args.seconds}s on {os.cpu_count()} cores")
    print(f"  {rate:,.0f} requests/s   p50 {latency.get('50')}   p90 {latency.get('90')}   p99 {latency.get('99')}"
          f"   non-2xx: {errors.group(1) if errors else 0}")


if __name__ == "__main__":
    main()
