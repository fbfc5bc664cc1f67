"""Sustained commands through two API processes (issue 16): PostgreSQL against SQLite, p50/p99 latency.

    .venv/bin/python -m benchmarks.deployment_commands [--stores postgres,sqlite] [--apis 2] [--records 8]
                                                       [--commands 4000] [--seconds 60] [--mode live|transcribed]

For each store: a fresh store (PostgreSQL: a schema of its own in database `test` on 127.0.0.1:5432,
dropped after; SQLite: a file in a temporary directory), its tables made once before any process starts
(`api.schema.upgrade` when present, as `cronaca db upgrade` does), then `--apis` API processes started
from the Procfile's own `api` line (parsed with honcho's parser: gunicorn with api/gunicorn_conf.py, one
gthread worker each, `CRONACA_API_WORKERS=1`, each in a process group of its own, as on separate hosts),
Redis configured as in the deployment (the shared 127.0.0.1:6379, a queue name of its own).

`--records` client threads (one keep-alive connection per API process each) each play one record at a
time to its end, then start another, until `--commands` commands were accepted or `--seconds` passed:

- `--mode live` (default): `POST /api/records` (the service draws chance), then per command
  `GET /legal` with the deciding seat's token (the only way a seat learns its choices: a seat's token
  never shows the hidden state a bot would need), a seeded random pick of the legal commands, and
  `POST /commands` with the record's version;
- `--mode transcribed`: games played once beforehand by the greedy bot (domain.kernel.bots, as the
  demo records), each `POST /commands` carrying the table's outcomes: one request per command, and
  games that read like real ones.

Requests alternate between the API processes (`--balance request`, a load balancer without sticky
sessions: every command lands on a process whose cached timeline is one command old) or a record sticks
to one (`--balance record`). Reported per store: commands/s over the run after a 2 s warm-up, p50/p99/max
of `POST /commands` (and of `GET /legal`), the API processes' CPU per command (their own rusage) and, on
PostgreSQL, its backends' CPU per command (/proc of the backends whose application_name is this run's).
Every request goes to 127.0.0.1; every loop is bounded by count and time.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"
REDIS_URL = "redis://127.0.0.1:6379/0"
NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
TABLES = [("citta-stato", 3), ("la-citta", 4), ("serenissima", 2), ("citta-stato", 4), ("la-citta", 2),
          ("serenissima", 4), ("citta-stato", 2), ("la-citta", 3), ("serenissima", 3)]


# ---- shared by the deployment benchmarks (deployment_imports, listing) ------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without any store, Redis or Cronaca setting, then `extra` (what a host is given)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("POSTGRES_", "SQLITE_", "PERSISTENCE_", "REDIS_", "CRONACA_", "PGAPPNAME"))}
    env["PATH"] = f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


@contextlib.contextmanager
def fresh_store(kind: str, tmp: Path, tag: str) -> Iterator[dict[str, str]]:
    """A store of this run's own, its tables made (as `cronaca db upgrade`), dropped after."""
    if kind == "sqlite":
        store = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp / f"{tag}.sqlite3")}
        create_tables(store)
        yield store
        return
    import psycopg

    schema = f"cronaca_bench_{tag}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(DSN, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        store = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "test", "POSTGRES_HOST": "127.0.0.1",
                 "POSTGRES_PORT": "5432", "POSTGRES_USER": "postgres", "POSTGRES_PASSWORD": "", "POSTGRES_SCHEMA": schema}
        create_tables(store)
        yield store
    finally:
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def create_tables(store: dict[str, str]) -> None:
    """The schema before any process starts: `api.schema.upgrade` (issue 16) once it exists, else the library's own."""
    from domain.records import Records
    from domain.records.settings import Settings

    try:
        from api.schema import upgrade
    except ImportError:
        upgrade = None
    if upgrade is not None:
        try:
            upgrade(store)
            return
        except Exception as exc:  # noqa: BLE001  (said, then the library's own tables: the benchmark still runs)
            print(f"api.schema.upgrade failed ({type(exc).__name__}: {exc}); the library's own CREATE TABLE instead",
                  file=sys.stderr)
    Records({**Settings.from_env(dict(store)).store, "CREATE_TABLE": "true"}).close()


def procfile_command(name: str) -> str:
    """The Procfile's line for a process type, read by honcho's own parser (what `honcho start` runs), without its
    supervisor (`cronaca keep --`): a benchmark wants a process that dies to be seen, not started again."""
    from honcho.environ import parse_procfile

    line = str(parse_procfile((ROOT / "Procfile").read_text()).processes[name]).strip()
    supervisor = "cronaca keep -- "
    return line[len(supervisor):] if line.startswith(supervisor) else line


def start_process(kind: str, env: dict[str, str], log: Path, port: int | None = None) -> subprocess.Popen[bytes]:
    """One Procfile process type, through a shell as honcho runs it, in a process group of its own; its output
    goes to `log` (read back when it fails to start)."""
    given = {**env, **({"PORT": str(port)} if port else {})}
    with log.open("ab") as out:
        return subprocess.Popen(["/bin/sh", "-c", f"exec {procfile_command(kind)}"], env=given, cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def stop_group(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """Stop a process this benchmark started, and its children (gunicorn's workers), by its own group id."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def wait_ready(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the API process on port {port} ended: {log.read_text(errors='replace')[-2000:]}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
        time.sleep(0.1)
    raise RuntimeError(f"the API process on port {port} did not answer /healthz within {timeout:.0f} s")


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class BackendCPU:
    """CPU used by the PostgreSQL backends serving this run's connections (`application_name`, set through
    libpq's PGAPPNAME in every process it starts), read from /proc while they live. The server is shared:
    only these backends count."""

    def __init__(self, appname: str) -> None:
        self.appname = appname
        self.seen: dict[int, float] = {}
        self.tick = os.sysconf("SC_CLK_TCK")

    def sample(self) -> None:
        import psycopg

        try:
            with psycopg.connect(DSN, autocommit=True) as conn:
                pids = [r[0] for r in conn.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                                                   (self.appname,))]
        except psycopg.Error:
            return
        for pid in pids:
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                self.seen[pid] = max(self.seen.get(pid, 0.0), (int(fields[11]) + int(fields[12])) / self.tick)

    @property
    def seconds(self) -> float:
        return sum(self.seen.values())


def group_cpu(groups: list[int]) -> float:
    """CPU seconds used so far by every live process of these process groups (an API host's gunicorn master and
    workers), read from /proc: sampled after start-up and again after the load, so imports at start are left out."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) in groups:  # pgrp
                total += (int(fields[11]) + int(fields[12])) / tick
    return total


# ---- the load ----------------------------------------------------------------------------------------------------

@dataclass
class Tally:
    """What every client thread measured (appended under the GIL: list.append is atomic)."""

    commands: list[tuple[float, float]] = field(default_factory=list)  # (when done, seconds) of each accepted POST /commands
    legal: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    games: int = 0
    errors: list[str] = field(default_factory=list)

    def command(self, title: str, status: int, played: Any, t0: float, stop: threading.Event, budget: list[int]) -> bool:
        """Count one POST /commands sent at `t0`; False when it was refused (the client stops). Spends the
        run's budget and stops every client when it is spent."""
        done = time.perf_counter()
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status != 200:
            self.errors.append(f"command on {title}: {status} {played}")
            return False
        self.commands.append((done, done - t0))
        budget[0] -= 1
        if budget[0] <= 0:
            stop.set()
        return True


class Client:
    """One keep-alive connection per API process; `call` alternates between them or sticks to one."""

    def __init__(self, ports: list[int], balance: str, first: int) -> None:
        self.conns = [http.client.HTTPConnection("127.0.0.1", p, timeout=30) for p in ports]
        self.balance = balance
        self.turn = first

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        if self.balance == "request":
            self.turn += 1
        conn = self.conns[self.turn % len(self.conns)]
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in range(2):  # a keep-alive connection the server closed meanwhile: open it again once
            try:
                conn.request(method, path, json.dumps(body) if body is not None else None, headers)
                answer = conn.getresponse()
                data = answer.read()
                return answer.status, json.loads(data) if data else None
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        for conn in self.conns:
            conn.close()


def greedy_games(count: int, seed: str) -> list[tuple[str, int, list[dict[str, Any]]]]:
    """(title, players, log entries) of `count` greedy-bot games, played once and cached under var/bench/."""
    from api.service_cli import bot_game

    cache = ROOT / "var" / "bench" / f"greedy-{seed}-{count}.json"
    if cache.exists():
        return [(t, p, e) for t, p, e in json.loads(cache.read_text())]
    games = []
    for k in range(count):
        title, players = TABLES[k % len(TABLES)]
        games.append((title, players, bot_game(title, {"players": players}, f"{seed}-{k}")))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(games))
    return games


def play_live(client: Client, k: int, tally: Tally, stop: threading.Event, budget: list[int]) -> None:
    """Live records one after another: the service draws chance; each seat asks its legal commands."""
    from domain.kernel import SeededChance

    rng = SeededChance(f"commands-bench-{k}")
    game_no = 0
    while not stop.is_set():
        title, players = TABLES[(k + game_no) % len(TABLES)]
        game_no += 1
        status, started = client.call("POST", "/api/records", {"title": title, "seats": NAMES[:players]})
        if status != 201:
            tally.errors.append(f"start {title}: {status} {started}")
            return
        rid, tokens = started["id"], [s["token"] for s in started["seats"]]
        status, legal = client.call("GET", f"/api/records/{rid}/legal")
        seat = legal["pending"]["seat"]
        for _ in range(5000):  # a game ends long before; bounded all the same
            if stop.is_set() or seat is None:
                break
            t0 = time.perf_counter()
            status, legal = client.call("GET", f"/api/records/{rid}/legal", token=tokens[seat])
            tally.legal.append(time.perf_counter() - t0)
            if status != 200 or not legal["commands"]:
                break
            command = legal["commands"][rng.below(len(legal["commands"]))]
            t0 = time.perf_counter()
            status, played = client.call("POST", f"/api/records/{rid}/commands",
                                         {"command": command, "version": legal["version"]}, tokens[seat])
            if not tally.command(title, status, played, t0, stop, budget):
                return
            if played["finished"]:
                tally.games += 1
                break
            seat = played["pending"]["seat"]


def play_transcribed(client: Client, k: int, tally: Tally, stop: threading.Event, budget: list[int],
                     games: list[tuple[str, int, list[dict[str, Any]]]]) -> None:
    """The greedy bot's games again, as a table's transcriber sends them: each command with its outcomes."""
    game_no = 0
    while not stop.is_set():
        title, players, entries = games[(k + game_no) % len(games)]
        game_no += 1
        status, started = client.call("POST", "/api/records", {"title": title, "seats": NAMES[:players],
                                                                "mode": "transcribed",
                                                                "setup_outcomes": entries[0]["outcomes"]})
        if status != 201:
            tally.errors.append(f"start {title}: {status} {started}")
            return
        rid, version = started["id"], started["record"]["version"]
        table_key = started["table_key"]  # the table's device enters what was seen (a seat may not enter a hidden draw)
        for entry in entries[1:]:
            if stop.is_set():
                break
            t0 = time.perf_counter()
            status, played = client.call("POST", f"/api/records/{rid}/commands",
                                         {"command": entry["command"], "version": version, "outcomes": entry["outcomes"]},
                                         table_key)
            if not tally.command(title, status, played, t0, stop, budget):
                return
            version = played["version"]
            if played["finished"]:
                tally.games += 1


def run_store(kind: str, args: argparse.Namespace, games: list[Any], tmp: Path) -> dict[str, Any]:
    appname = f"cronaca-bench-{uuid.uuid4().hex[:8]}"
    with fresh_store(kind, tmp, "commands") as store:
        env = clean_env(**store, REDIS_URL=REDIS_URL, CRONACA_QUEUE=f"{appname}-imports",
                        CRONACA_CHECKS_QUEUE=f"{appname}-checks", CRONACA_RENDERS_QUEUE=f"{appname}-renders",
                        CRONACA_ANALYSES_QUEUE=f"{appname}-analyses",
                        CRONACA_API_WORKERS="1", CRONACA_API_THREADS="1", PGAPPNAME=appname)
        ports = [free_port() for _ in range(args.apis)]
        logs = [tmp / f"api-{kind}-{k}.log" for k in range(args.apis)]
        apis = [start_process("api", env, log, port) for log, port in zip(logs, ports, strict=True)]
        backends = BackendCPU(appname)
        tally, stop, budget = Tally(), threading.Event(), [args.commands]
        try:
            for port, proc, log in zip(ports, apis, logs, strict=True):
                wait_ready(port, proc, log)
            clients = [Client(ports, args.balance, k) for k in range(args.records)]
            cpu_before = group_cpu([p.pid for p in apis])
            if args.mode == "live":
                threads = [threading.Thread(target=play_live, args=(c, k, tally, stop, budget), daemon=True)
                           for k, c in enumerate(clients)]
            else:
                threads = [threading.Thread(target=play_transcribed, args=(c, k, tally, stop, budget, games), daemon=True)
                           for k, c in enumerate(clients)]
            started = time.perf_counter()
            for t in threads:
                t.start()
            while time.perf_counter() - started < args.seconds and not stop.is_set():
                stop.wait(1.0)
                if kind == "postgres":
                    backends.sample()
                if all(not t.is_alive() for t in threads):
                    break
            stop.set()
            for t in threads:
                t.join(30)
            ended = time.perf_counter()
            api_cpu = group_cpu([p.pid for p in apis]) - cpu_before
            if kind == "postgres":
                backends.sample()
            for c in clients:
                c.close()
        finally:
            for proc in apis:
                stop_group(proc)
    warm = started + args.warmup
    counted = [(when, took) for when, took in tally.commands if when >= warm]
    window = max(ended - warm, 1e-9)
    latencies = [took * 1000 for _, took in counted]
    legal = [s * 1000 for s in tally.legal]
    done = len(tally.commands)
    return {"store": kind, "commands": done, "games": tally.games, "wall": ended - started,
            "rate": len(counted) / window, "p50": percentile(latencies, 0.50), "p99": percentile(latencies, 0.99),
            "max": max(latencies, default=float("nan")), "legal_p50": percentile(legal, 0.5),
            "legal_p99": percentile(legal, 0.99), "statuses": tally.statuses, "errors": tally.errors[:3],
            "api_cpu_ms": api_cpu / max(done, 1) * 1000, "db_cpu_ms": backends.seconds / max(done, 1) * 1000 if kind == "postgres" else None,
            "mean": statistics.fmean(latencies) if latencies else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stores", default="postgres,sqlite", help="comma-separated: postgres, sqlite")
    parser.add_argument("--apis", type=int, default=2, help="API processes (Procfile `api`, one gunicorn worker each)")
    parser.add_argument("--records", type=int, default=8, help="records played at once (one client thread each)")
    parser.add_argument("--commands", type=int, default=4000, help="stop after this many accepted commands per store")
    parser.add_argument("--seconds", type=float, default=60, help="stop after this long per store")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds at the start not counted in the rate and latencies")
    parser.add_argument("--mode", choices=["live", "transcribed"], default="live")
    parser.add_argument("--balance", choices=["request", "record"], default="request")
    parser.add_argument("--seed", default="commands-bench")
    args = parser.parse_args()
    games = greedy_games(len(TABLES), args.seed) if args.mode == "transcribed" else []
    print(f"{args.apis} API processes, {args.records} records at once, mode {args.mode}, balance per {args.balance}; "
          f"at most {args.commands} commands or {args.seconds:.0f} s per store")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind in [s.strip() for s in args.stores.split(",") if s.strip()]:
            found = run_store(kind, args, games, Path(tmp))
            results.append(found)
            db = f", PostgreSQL backends {found['db_cpu_ms']:.1f} ms" if found["db_cpu_ms"] is not None else ""
            print(f"{kind:>8}: {found['commands']} commands ({found['games']} games finished) in {found['wall']:.1f} s: "
                  f"{found['rate']:.0f} commands/s sustained; POST /commands p50 {found['p50']:.1f} ms, "
                  f"p99 {found['p99']:.1f} ms, max {found['max']:.1f} ms"
                  + (f"; GET /legal p50 {found['legal_p50']:.1f} ms, p99 {found['legal_p99']:.1f} ms" if args.mode == "live" else "")
                  + f"; CPU per command: API processes {found['api_cpu_ms']:.1f} ms{db}; statuses {found['statuses']}",
                  flush=True)
            for error in found["errors"]:
                print(f"          error: {error[:300]}")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
