"""Notation files through real RQ workers: how long 1,000 imports take from queue to verdict.

    .venv/bin/python -m benchmarks.imports_rq --files 1000 --workers 2 [--store postgres|sqlite] [--batch 10]

Renders seeded self-played games of every title in their notation (a few distinct games, each
written out again under another Date tag, so every file is its own import), stores each with
`Records.imports.submit_notation` as `POST /api/imports` does and queues them on Redis (127.0.0.1:6379,
a queue of its own) as a bulk of imports: `--batch` imports a job (workers.dispatch.hand_over_many;
each import still marked queued, judged, concluded and given its record on its own; `--batch 1`
is one job an import, exactly as the API queues one upload), then starts `--workers` `cronaca worker --burst` processes and
times, on the wall clock, from their start until every import has its verdict. The workers
stop by themselves when the queue is empty (burst), and the benchmark stops only what it
started. Target (issue 12): 1,000 files through 2 workers in <= 30 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.settings import Settings
from domain.transcripts import render_log
from workers.dispatch import BATCH, RQDispatcher, hand_over_many

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
GAMES = {"citta-stato": [{"players": 4}, {"players": 2}], "la-citta": [{"players": 3}], "serenissima": [{"players": 4}]}


def texts(files: int, seed: str) -> list[str]:
    """`files` notation files: a handful of games per title, each repeated under other Date tags."""
    base: list[str] = []
    for title, options_list in GAMES.items():
        game = catalog.game(title)
        edition = game.default_edition()
        for options in options_list:
            for k in range(3):
                played = play_random(game, edition, options, f"{seed}-{title}-{k}")
                seats = NAMES[: len(played.scores["seats"])]
                base.append(render_log(title, edition, played.entries, seats, options, played.scores))
    out = []
    for i in range(files):
        text = base[i % len(base)]
        out.append(text.replace("[Title ", f'[Date "2026.{1 + i // 28 % 12:02}.{1 + i % 28:02}"]\n[Title ', 1))
    return out


def store_env(kind: str, tmp: Path) -> tuple[dict[str, str], Any]:
    """The event store the workers share; the returned callable drops what was made."""
    if kind == "sqlite":
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp / "bench.sqlite3")}, lambda: None
    import psycopg

    schema = f"cronaca_bench_{uuid.uuid4().hex[:10]}"
    dsn = "host=127.0.0.1 port=5432 user=postgres dbname=test"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')

    def drop() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')

    env = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "test", "POSTGRES_HOST": "127.0.0.1",
           "POSTGRES_PORT": "5432", "POSTGRES_USER": "postgres", "POSTGRES_PASSWORD": "", "POSTGRES_SCHEMA": schema}
    return env, drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--store", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--batch", type=int, default=BATCH,
                        help="imports a job takes (workers.dispatch.hand_over_many); 1: one job an import, as POST /api/imports")
    parser.add_argument("--seed", default="rq-bench")
    parser.add_argument("--timeout", type=float, default=600, help="give up (and stop the workers) after this many seconds")
    args = parser.parse_args()

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        store, drop = store_env(args.store, Path(tmp))
        queue = f"cronaca-bench-{uuid.uuid4().hex[:8]}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("POSTGRES_", "SQLITE_", "PERSISTENCE_", "REDIS_", "CRONACA_"))}
        env.update(store, REDIS_URL="redis://127.0.0.1:6379/0", CRONACA_QUEUE=queue, PYTHONPATH=str(ROOT))
        try:
            made = time.perf_counter()
            # as a deployment does before its processes start (they never create tables: docs/deployment.md)
            subprocess.run([sys.executable, "-m", "api.cli", "db", "upgrade"], env=env, cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            files = texts(args.files, args.seed)
            settings = Settings.from_env(env)
            records = Records(settings.store)
            dispatcher = RQDispatcher(settings.redis_url or "", queue)
            ids = [records.imports.submit_notation(text)[0] for text in files]
            queued = hand_over_many(records, dispatcher, ids, 1, args.batch)
            assert queued == len(ids), f"only {queued} of {len(ids)} imports were queued"
            print(f"{len(ids)} notation files rendered, stored and queued ({args.batch} a job) in {time.perf_counter() - made:.1f} s "
                  f"({sum(len(t) for t in files) / len(files):,.0f} characters each on average)")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            workers = [subprocess.Popen([sys.executable, "-m", "api.cli", "worker", "--burst"], env=env, cwd=ROOT,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                       for _ in range(args.workers)]
            try:
                verdicts: dict[str, int] = {}
                while time.perf_counter() - started < args.timeout:
                    if all(w.poll() is not None for w in workers):
                        break
                    time.sleep(0.5)
                elapsed = time.perf_counter() - started
                for import_id in ids:
                    status = records.imports.get(import_id).status
                    verdicts[status] = verdicts.get(status, 0) + 1
            finally:
                for w in workers:
                    if w.poll() is None:
                        w.terminate()
                        w.wait(10)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, reaped above (not the database's)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            dispatcher.queue.delete(delete_jobs=True)
            done = verdicts.get("accepted", 0) + verdicts.get("rejected", 0)
            print(f"{args.workers} RQ workers ({args.store}): {done} of {len(ids)} imports concluded in {elapsed:.1f} s "
                  f"({done / elapsed:.0f} files/s; target 1,000 in <= 30 s) - {verdicts}")
            print(f"the workers' own CPU: {cpu:.1f} s, {cpu / max(done, 1) * 1000:.0f} ms per file "
                  f"(start-up included; the target is <= 60 ms of one core per file, the database's share too); "
                  f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        finally:
            drop()


if __name__ == "__main__":
    main()
