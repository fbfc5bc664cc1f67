"""Record files through real `cronaca worker` processes on PostgreSQL (issue 16): files/s at 1, 2, 4 workers.

    .venv/bin/python -m benchmarks.deployment_imports --files 10000 --workers 1,2,4 [--batch 20] [--profile 200]

The files: JSON exports of finished games of the three titles at 2-5 players (greedy-bot games, as the
demo records, imported once into a scratch SQLite store and exported with `Records.reading.export`; made once
and cached under var/bench/), each file given its own seat names so every one is an import of its own.

For each worker count: a PostgreSQL schema of its own in database `test` (127.0.0.1:5432, tables made as
`cronaca db upgrade` makes them, dropped after) and queue names of its own on the shared Redis (deleted
after). `--files` files are submitted with `Records.imports.submit`, as `POST /api/imports` does (its time is
printed: the API's share), and queued with `workers.dispatch.hand_over_many`, as `cronaca import` does
(`--batch` imports a job, `workers.dispatch.BATCH` (20) as there; 1 is one job an upload, as the API queues them). Then the workers start, each the Procfile's `worker` line with
`--burst` (`cronaca worker --burst`: it stops when the queues are empty) in a process group of its own,
and the wall clock runs from their start until every import has its verdict. Printed per worker count:
files/s and seconds; the workers' CPU per file (their rusage, with one idle worker's start-up measured and
taken out); PostgreSQL's CPU per file (/proc of the backends whose application_name is this run's); Redis
commands and server time per file (INFO commandstats before and after: the server is shared, so other
clients' commands in those seconds count too). Each worker count is bounded by `--timeout`.

`--profile N` then runs N more files through one RQ worker inside this process (rq.SimpleWorker, the same
job) with the time spent in database round trips (psycopg execute/commit) and Redis round trips (redis-py
commands and pipelines) measured around the calls, and the appends among the former (the event table's
exclusive lock is held through each): what is left is the worker's own CPU.
Target (issue 16): 10,000 files through 2 workers in <= 60 s.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import json
import os
import pstats
import resource
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.deployment_commands import (
    REDIS_URL,
    ROOT,
    BackendCPU,
    clean_env,
    fresh_store,
    procfile_command,
)

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
GAMES = [("citta-stato", 2), ("citta-stato", 3), ("citta-stato", 4), ("citta-stato", 5), ("la-citta", 2),
         ("la-citta", 3), ("la-citta", 4), ("la-citta", 5), ("serenissima", 2), ("serenissima", 3), ("serenissima", 4)]


def exports(seed: str) -> list[dict[str, Any]]:
    """One JSON export per game of GAMES: greedy-bot games imported into a scratch store, then exported; cached."""
    cache = ROOT / "var" / "bench" / f"exports-{seed}.json"
    if cache.exists():
        return list(json.loads(cache.read_text()))
    from api.service_cli import bot_game
    from domain import catalog
    from domain.records import Records, recordfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        records = Records({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{tmp}/exports.sqlite3"})
        for k, (title, players) in enumerate(GAMES):
            document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title,
                        "edition": catalog.game(title).default_edition().ref, "seats": [{"name": n} for n in NAMES[:players]],
                        "options": {"players": players}, "mode": "transcribed", "chance": {},
                        "entries": bot_game(title, {"players": players}, f"{seed}-{k}")}
            import_id, _ = records.imports.submit(document)
            report = records.imports.validate(import_id)
            assert report.ok, report
            out.append(records.reading.export(uuid.UUID(report.record_id)))
        records.close()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out))
    return out


def files(count: int, base: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`count` record files: the exports in turn, each with seat names of its own (its chain claim dropped: the
    names are in the chain's first link, and the service recomputes the chain of what it stores anyway)."""
    out = []
    for i in range(count):
        document = {k: v for k, v in base[i % len(base)].items() if k != "chain"}
        document["seats"] = [{**seat, "name": f"{seat['name']} {i}"} for seat in document["seats"]]
        out.append(document)
    return out


def redis_stats(connection: Any) -> tuple[int, float, float]:
    """(commands, server µs spent in them, server CPU seconds) so far, from INFO: the whole server's."""
    stats = connection.info("commandstats")
    cpu = connection.info("cpu")
    calls = sum(int(v["calls"]) for v in stats.values())
    usec = sum(float(v["usec"]) for v in stats.values())
    return calls, usec, float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def worker_command() -> list[str]:
    return ["/bin/sh", "-c", f"exec {procfile_command('worker')} --burst"]


def queues_env(tag: str) -> dict[str, str]:
    return {"REDIS_URL": REDIS_URL, "CRONACA_QUEUE": f"{tag}-imports", "CRONACA_CHECKS_QUEUE": f"{tag}-checks",
            "CRONACA_RENDERS_QUEUE": f"{tag}-renders",
            "CRONACA_ANALYSES_QUEUE": f"{tag}-analyses"}


def delete_queues(connection: Any, tag: str) -> None:
    from rq import Queue

    for role in ("imports", "checks", "renders"):
        Queue(f"{tag}-{role}", connection=connection).delete(delete_jobs=True)


def dispatcher_for(settings: Any) -> Any:
    from workers.dispatch import RQDispatcher

    build = getattr(RQDispatcher, "from_settings", None)
    return build(settings) if build is not None else RQDispatcher(settings.redis_url, settings.queue)


def submit_all(records: Any, documents: list[dict[str, Any]], settings: Any, batch: int) -> tuple[list[uuid.UUID], float]:
    from workers.dispatch import hand_over_many

    t0 = time.perf_counter()
    ids = [records.imports.submit(document)[0] for document in documents]
    took = time.perf_counter() - t0
    queued = hand_over_many(records, dispatcher_for(settings), ids, 1, batch)
    assert queued == len(ids), f"only {queued} of {len(ids)} imports were queued"
    return ids, took


def verdicts(records: Any, ids: list[uuid.UUID]) -> dict[str, int]:
    out: dict[str, int] = {}
    for import_id in ids:
        status = records.imports.get(import_id).status
        out[status] = out.get(status, 0) + 1
    return out


def startup_cpu(env: dict[str, str]) -> float:
    """CPU of one `cronaca worker --burst` that finds its queues empty: its imports and start, taken out per worker."""
    before = children_cpu()
    subprocess.run(worker_command(), env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120, check=False)
    return children_cpu() - before


def run_count(workers: int, args: argparse.Namespace, base: list[dict[str, Any]], tmp: Path) -> dict[str, Any]:
    import redis

    from domain.records import Records
    from domain.records.settings import Settings

    tag = f"cronaca-bench-{uuid.uuid4().hex[:8]}"
    connection = redis.Redis.from_url(REDIS_URL)
    with fresh_store("postgres", tmp, "imports") as store:
        env = clean_env(**store, **queues_env(tag), PGAPPNAME=tag)
        settings = Settings.from_env(env)
        records = Records(settings.store)
        try:
            idle = startup_cpu(env)  # before anything is queued: it must find its queues empty
            ids, submit_seconds = submit_all(records, files(args.files, base), settings, args.batch)
            backends = BackendCPU(tag)
            r0 = redis_stats(connection)
            cpu0 = children_cpu()
            started = time.perf_counter()
            procs = [subprocess.Popen(worker_command(), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                      stderr=(tmp / f"worker-{k}.log").open("wb"), start_new_session=True)
                     for k in range(workers)]
            try:
                while time.perf_counter() - started < args.timeout:
                    if all(p.poll() is not None for p in procs):
                        break
                    backends.sample()
                    time.sleep(0.5)
                elapsed = time.perf_counter() - started
            finally:
                from benchmarks.deployment_commands import stop_group

                for p in procs:
                    stop_group(p)
            cpu = children_cpu() - cpu0 - idle * workers
            r1 = redis_stats(connection)
            found = verdicts(records, ids)
        finally:
            records.close()
            delete_queues(connection, tag)
    done = found.get("accepted", 0) + found.get("rejected", 0)
    return {"workers": workers, "files": len(ids), "done": done, "seconds": elapsed, "rate": done / elapsed,
            "verdicts": found, "submit_ms": submit_seconds / len(ids) * 1000, "cpu_ms": cpu / max(done, 1) * 1000,
            "startup_s": idle, "db_ms": backends.seconds / max(done, 1) * 1000,
            "redis_calls": (r1[0] - r0[0]) / max(done, 1), "redis_ms": (r1[1] - r0[1]) / 1000 / max(done, 1),
            "redis_cpu_ms": (r1[2] - r0[2]) * 1000 / max(done, 1)}


class GCTime:
    """Time in Python's cyclic garbage collector (a `gc.callbacks` entry): collections per generation, seconds."""

    def __init__(self) -> None:
        self.runs = {0: 0, 1: 0, 2: 0}
        self.seconds = 0.0
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.runs[info["generation"]] += 1
            self.seconds += time.perf_counter() - self._start


class Timed:
    """Wall time and calls inside some library functions, measured around them (this process only)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._undo: list[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, what: str) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[what] = self.seconds.get(what, 0.0) + time.perf_counter() - t0
                self.calls[what] = self.calls.get(what, 0) + 1

        setattr(owner, name, timed)
        self._undo.append(lambda: setattr(owner, name, original))

    def undo(self) -> None:
        for step in reversed(self._undo):
            step()


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def profile(count: int, args: argparse.Namespace, base: list[dict[str, Any]], tmp: Path) -> None:
    """One RQ worker in this process over `count` files: database and Redis round trips timed, the rest is CPU."""
    import psycopg
    import redis
    from redis.client import Pipeline
    from rq import Queue, SimpleWorker

    from domain.records import Records
    from domain.records.settings import Settings

    tag = f"cronaca-bench-{uuid.uuid4().hex[:8]}"
    connection = redis.Redis.from_url(REDIS_URL)
    with fresh_store("postgres", tmp, "profile") as store:
        env = clean_env(**store, **queues_env(tag))
        settings = Settings.from_env(env)
        records = Records(settings.store)
        try:
            ids, _ = submit_all(records, files(count, base), settings, args.batch)
            with environment(env):
                import workers.jobs as jobs

                jobs._records = None  # the job builds its application from this environment, as a worker does
                app = jobs.records()
                timed = Timed()
                timed.wrap(type(app.recorder), "insert_events", "appends")  # inside: the database's share below
                timed.wrap(psycopg.Cursor, "execute", "database")
                timed.wrap(psycopg.Cursor, "executemany", "database")
                timed.wrap(psycopg.Connection, "commit", "database")
                timed.wrap(redis.Redis, "execute_command", "redis")
                timed.wrap(Pipeline, "execute", "redis")
                profiler = cProfile.Profile() if args.cprofile else None
                worker = SimpleWorker([Queue(settings.queue, connection=connection)], connection=connection)
                collecting = GCTime()
                t0, c0 = time.perf_counter(), time.process_time()
                try:
                    gc.callbacks.append(collecting)
                    if profiler is not None:
                        profiler.enable()
                    worker.work(burst=True, with_scheduler=False, logging_level="WARNING")
                finally:
                    if profiler is not None:
                        profiler.disable()
                    gc.callbacks.remove(collecting)
                    timed.undo()
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                jobs._records = None
            found = verdicts(records, ids)
        finally:
            records.close()
            delete_queues(connection, tag)
    done = max(found.get("accepted", 0) + found.get("rejected", 0), 1)
    db, rd = timed.seconds.get("database", 0.0), timed.seconds.get("redis", 0.0)
    print(f"\none worker in this process, {done} files ({found}), batch {args.batch}: {wall / done * 1000:.1f} ms a file "
          f"on the wall clock, {cpu / done * 1000:.1f} ms of this process's CPU")
    print(f"  database round trips: {timed.calls.get('database', 0) / done:.1f} a file, {db / done * 1000:.1f} ms a file "
          f"(wall, waiting on PostgreSQL and psycopg's own encoding)")
    appends = timed.seconds.get("appends", 0.0)
    print(f"  of which appends (insert_events: LOCK TABLE ... IN EXCLUSIVE MODE, the rows, COMMIT; every writer of the "
          f"store waits for this lock): {timed.calls.get('appends', 0) / done:.1f} a file, {appends / done * 1000:.1f} ms a file")
    print(f"  Redis round trips:    {timed.calls.get('redis', 0) / done:.1f} a file, {rd / done * 1000:.1f} ms a file")
    print(f"  the rest (the rules' check, building and hashing the events, RQ; and waiting for a core when the machine is "
          f"busy): {(wall - db - rd) / done * 1000:.1f} ms a file")
    print(f"  of all that, Python's garbage collector: {sum(collecting.runs.values()) / done:.1f} collections a file "
          f"(generations 0/1/2: {collecting.runs[0]}/{collecting.runs[1]}/{collecting.runs[2]} in all), "
          f"{collecting.seconds / done * 1000:.2f} ms a file")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.cprofile)


def main() -> None:
    from workers.dispatch import BATCH

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000, help="files per worker count")
    parser.add_argument("--workers", default="1,2,4", help="comma-separated worker counts, each run on its own")
    parser.add_argument("--batch", type=int, default=BATCH, help="imports a job (1: one job an upload, as the API)")
    parser.add_argument("--timeout", type=float, default=300, help="stop the workers of one count after this long")
    parser.add_argument("--profile", type=int, default=0, help="then this many files through one in-process worker")
    parser.add_argument("--cprofile", type=int, default=0, help="with --profile: print the top N functions (cProfile)")
    parser.add_argument("--sort", default="tottime", help="with --cprofile: pstats' order (tottime, cumulative, ...)")
    parser.add_argument("--seed", default="deploy-imports")
    args = parser.parse_args()
    base = exports(args.seed)
    sizes = sorted(len(json.dumps(d)) for d in base)
    print(f"{len(base)} exported games ({', '.join(f'{t} {p}p' for t, p in GAMES)}), {sizes[0] // 1000}-{sizes[-1] // 1000} KB "
          f"a file; {args.files:,} files per worker count, {args.batch} a job")
    with tempfile.TemporaryDirectory() as tmp:
        for workers in [int(w) for w in args.workers.split(",") if w.strip()]:
            found = run_count(workers, args, base, Path(tmp))
            print(f"{workers} worker(s): {found['done']:,} of {found['files']:,} files concluded in {found['seconds']:.1f} s: "
                  f"{found['rate']:.1f} files/s {found['verdicts']}", flush=True)
            print(f"    per file: workers' CPU {found['cpu_ms']:.1f} ms (start-up {found['startup_s']:.1f} s a worker taken "
                  f"out), PostgreSQL backends' CPU {found['db_ms']:.1f} ms, Redis {found['redis_calls']:.1f} commands "
                  f"and {found['redis_ms']:.2f} ms of server time ({found['redis_cpu_ms']:.2f} ms server CPU); "
                  f"submitting it (Records.submit, the API's share) {found['submit_ms']:.1f} ms", flush=True)
        if args.profile:
            profile(args.profile, args, base, Path(tmp))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; target: 10,000 files through 2 workers "
          f"in <= 60 s ({10_000 / 60:.0f} files/s)")


if __name__ == "__main__":
    main()
