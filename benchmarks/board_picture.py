"""`GET /api/records/{id}/steps/{n}/board.png` over HTTP: a board sent to a chat as a picture.

    .venv/bin/python -m benchmarks.board_picture [--steps 12] [--rounds 5]

Serves the app on 127.0.0.1 (werkzeug, threaded, a fresh SQLite file) and imports one finished
greedy-bot game of each title. For `--steps` steps spread over each game it asks for the picture
once (cold: the board drawn and rasterised) and then `--rounds` times more (warm: as a second
reader of a finished record asks, the picture kept). A sample is the wall-clock time from sending
the request to the last byte read, on a kept-alive connection. Prints each title's cold and warm
median and the warm p95 and maximum in milliseconds (target: warm <= 150 ms).
"""

from __future__ import annotations

import argparse
import http.client
import logging
import statistics
import tempfile
import time
from pathlib import Path

from tests.service.browsing import served_app
from tests.service.helpers import import_finished_http, record_file

TITLES = ("citta-stato", "la-citta", "serenissima")


def timed(connection: http.client.HTTPConnection, path: str) -> float:
    """Milliseconds from sending the request to its last byte; the answer must be a PNG."""
    start = time.perf_counter()
    connection.request("GET", path)
    answer = connection.getresponse()
    body = answer.read()
    took = (time.perf_counter() - start) * 1000
    assert answer.status == 200 and body.startswith(b"\x89PNG"), (answer.status, body[:80])
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    with tempfile.TemporaryDirectory() as folder, served_app(Path(folder)) as (base, app):
        client = app.test_client()
        port = int(base.rsplit(":", 1)[1])
        for title in TITLES:
            record_id = import_finished_http(client, record_file(title, f"picture-{title}", greedy=True)).record_id
            steps = client.get(f"/api/records/{record_id}").get_json()["steps"]
            chosen = sorted({round(i * steps / max(1, args.steps - 1)) for i in range(args.steps)})
            connection = http.client.HTTPConnection("127.0.0.1", port)
            cold = [timed(connection, f"/api/records/{record_id}/steps/{n}/board.png") for n in chosen]
            warm = [timed(connection, f"/api/records/{record_id}/steps/{n}/board.png")
                    for _ in range(args.rounds) for n in chosen]
            connection.close()
            warm.sort()
            print(f"{title:12} steps {len(chosen):3}  cold median {statistics.median(cold):6.1f} ms  "
                  f"warm median {statistics.median(warm):5.1f} ms  p95 {warm[int(0.95 * (len(warm) - 1))]:5.1f} ms  "
                  f"max {warm[-1]:5.1f} ms  (n={len(warm)})")


if __name__ == "__main__":
    main()
