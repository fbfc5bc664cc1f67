"""`cronaca db upgrade` (api/schema.py): the schema made once, by a command, before the processes start.

The fault it fixes: four gunicorn workers each creating the tables at start on a fresh PostgreSQL schema
crashed 3 times in 20. Here: 8 upgrades at once on a fresh schema all succeed and apply the step once;
4-worker gunicorn started 10 times, each on a fresh upgraded schema, never loses a worker; a process on a
database nobody upgraded answers 503 naming the command, and serves once the upgrade has run.
Real processes on the shared server 127.0.0.1:5432 (database `test`), each test in schemas of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from api.app import create_app
from api.schema import CURRENT, NO_SCHEMA, VERSION_TABLE, upgrade
from domain.records import Records
from domain.records.settings import Settings
from tests.service.conftest import ROOT, free_port, postgres_env, subprocess_env

pytestmark = pytest.mark.postgres

DSN = "host=127.0.0.1 port=5432 user=postgres dbname=test"
TABLES = {"records_events", "records_snapshots", VERSION_TABLE}
SQLITE_TABLES = {"stored_events", "stored_snapshots", VERSION_TABLE}  # the library's SQLite names


@pytest.fixture
def fresh_schemas() -> Iterator[Any]:
    """Makes empty schemas of this test's own on demand; drops them all afterwards."""
    made: list[str] = []

    def make() -> str:
        schema = f"cronaca_test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(DSN, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        made.append(schema)
        return schema

    yield make
    with psycopg.connect(DSN, autocommit=True) as conn:
        for schema in made:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def tables_in(schema: str) -> list[str]:
    with psycopg.connect(DSN) as conn:
        return [row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1", (schema,))]


# One interpreter imports the CLI once, then forks 8 processes (each its own connections) that wait for the same
# moment and run `cronaca db upgrade`, so their upgrades really overlap; it reports each one's exit code and output.
UPGRADES = r"""
import json, os, sys, tempfile
import api.cli

outputs, children, go = [], [], os.pipe()
for k in range(8):
    out = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.close(go[1])
        os.read(go[0], 1)  # wait for the start
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        try:
            code = api.cli.main(["db", "upgrade"])
        except BaseException as exc:
            print(repr(exc))
            code = 99
        sys.stdout.flush()
        os._exit(code or 0)
    children.append((pid, out))
os.write(go[1], b"x" * 8)
for pid, out in children:
    _, status = os.waitpid(pid, 0)
    out.seek(0)
    outputs.append({"code": os.waitstatus_to_exitcode(status), "output": out.read().decode()})
print(json.dumps(outputs))
"""


def test_eight_concurrent_upgrades_on_a_fresh_schema_all_succeed_and_apply_each_step_once(fresh_schemas: Any) -> None:
    schema = fresh_schemas()
    env = subprocess_env(postgres_env(schema))
    done = subprocess.run([sys.executable, "-c", UPGRADES], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = [(run["code"], run["output"], run["output"]) for run in json.loads(done.stdout.splitlines()[-1])]
    assert [code for code, _, _ in outputs] == [0] * 8, outputs
    assert all("Traceback" not in err for _, _, err in outputs), outputs
    applied = [out for _, out, _ in outputs if "applied 1:" in out]
    assert len(applied) == 1, outputs  # one applied the step; the seven others found it done
    assert sum("up to date" in out for _, out, _ in outputs) == 7, outputs
    assert set(tables_in(schema)) >= TABLES
    with psycopg.connect(DSN) as conn:
        versions = conn.execute(f'SELECT version FROM "{schema}".{VERSION_TABLE}').fetchall()
        functions = conn.execute("SELECT count(*) FROM information_schema.routines WHERE routine_schema = %s",
                                 (schema,)).fetchone()
    assert versions == [(CURRENT,)] and functions == (1,)
    assert upgrade(postgres_env(schema)) == []  # and once more, in-process: nothing to do


# A launcher that imports and warms the app once, then forks gunicorn masters from itself, one per fresh schema:
# each master forks 4 workers that build the app (and open the store) at the same moment, as on a host, at a
# fraction of the CPU of 10 cold starts. It reports, per run, how many workers finished loading the app.
GUNICORN_RUNS = r"""
import json, os, select, signal, sys, time, urllib.request
import api.app
import domain.records.store.postgres, psycopg_pool  # what a worker's store needs, imported before the forks
from domain.records.settings import Settings

api.app.create_app(Settings.from_env({"SQLITE_DBNAME": ":memory:"}))  # every module imported before the forks
from gunicorn.app.wsgiapp import WSGIApplication


def run(schema, port, log):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.setpgid(0, 0)
        os.environ["POSTGRES_SCHEMA"] = schema
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(out, 2)

        class Launched(WSGIApplication):
            def load_config(self):
                super().load_config()
                self.cfg.set("post_worker_init", lambda worker: os.write(write, b"%d\n" % os.getpid()))

        sys.argv = ["gunicorn", "-c", "python:api.gunicorn_conf", "-w", "4", "--bind", f"127.0.0.1:{port}", "api.wsgi:app"]
        try:
            Launched("%(prog)s [OPTIONS] [APP_MODULE]").run()
        finally:
            os._exit(70)
    os.close(write)
    loaded, buffer, ended = [], b"", None
    began = time.monotonic()
    deadline = began + 40

    def drain(wait):
        nonlocal buffer
        if select.select([read], [], [], wait)[0]:
            buffer += os.read(read, 4096)
            *lines, buffer = buffer.split(b"\n")
            loaded.extend(int(line) for line in lines if line)

    while len(loaded) < 4 and time.monotonic() < deadline and ended is None:
        drain(0.1)
        done, status = os.waitpid(pid, os.WNOHANG)
        ended = status if done else None
    answers = {}
    took = {"loaded": round(time.monotonic() - began, 2)}
    if ended is None:
        for path, body in (("/readyz", None),):
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST" if body else "GET",
                                             data=json.dumps(body).encode() if body else None,
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    answers[path] = answer.status
            except Exception as exc:
                answers[path] = repr(exc)
        drain(0.5)  # a worker that died after loading would be replaced, and load again
        done, status = os.waitpid(pid, os.WNOHANG)
        ended = status if done else None
    took["answered"] = round(time.monotonic() - began, 2)
    if ended is None:
        os.killpg(pid, signal.SIGTERM)
        for _ in range(150):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    os.close(read)
    took["stopped"] = round(time.monotonic() - began, 2)
    return {"schema": schema, "loaded": len(loaded), "workers": len(set(loaded)), "ended": ended, "answers": answers,
            "seconds": took}


for arg in sys.argv[1:]:
    schema, port, log = arg.split(",")
    print(json.dumps(run(schema, int(port), log)), flush=True)
"""


def test_four_worker_gunicorn_started_ten_times_on_fresh_upgraded_schemas_never_crashes(fresh_schemas: Any,
                                                                                        tmp_path: Path) -> None:
    runs = []
    for k in range(10):
        schema = fresh_schemas()
        upgrade(postgres_env(schema))
        runs.append(f"{schema},{free_port()},{tmp_path / f'gunicorn-{k}.log'}")
    env = subprocess_env({**postgres_env("public"), "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
                          "CRONACA_LOG_LEVEL": "WARNING"})
    done = subprocess.run([sys.executable, "-c", GUNICORN_RUNS, *runs], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(reports) == 10, done.stdout + done.stderr[-3000:]
    for k, report in enumerate(reports):
        log = (tmp_path / f"gunicorn-{k}.log").read_text()
        assert report["ended"] is None and report["loaded"] == report["workers"] == 4, (report, log[-3000:])
        assert report["answers"] == {"/readyz": 200}, (report, log[-3000:])  # the store read, no table missing
        # a worker that died at boot is replaced, and its replacement loads: the log is what tells (as in the fault)
        assert "Exception in worker process" not in log and "Traceback" not in log, log[-3000:]


def test_a_process_on_a_database_nobody_upgraded_answers_503_naming_the_command_then_serves(fresh_schemas: Any) -> None:
    schema = fresh_schemas()
    env = postgres_env(schema)
    app = create_app(Settings.from_env(env))
    client = app.test_client()
    try:
        assert client.get("/healthz").status_code == 200  # the process is up: nothing to restart
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.get_json()["checks"]["database"] == NO_SCHEMA
        for answer in (client.get("/api/records"), client.post("/api/records", json={"title": "toy", "seats": ["a", "b"]}),
                       client.get(f"/api/records/{uuid.uuid4()}/steps/0")):
            assert answer.status_code == 503 and answer.mimetype == "application/problem+json", answer.get_data()
            assert answer.get_json()["detail"] == NO_SCHEMA and "cronaca db upgrade" in NO_SCHEMA
            assert answer.headers["Retry-After"]
        assert tables_in(schema) == []  # the process made no table
        assert upgrade(env) and set(tables_in(schema)) == TABLES
        deadline = time.monotonic() + 5
        while client.get("/readyz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        started = client.post("/api/records", json={"title": "toy", "seats": ["a", "b"]})
        assert started.status_code == 201, started.get_json()  # the same process writes, without a restart
        assert client.get(f"/api/records/{started.get_json()['id']}").get_json()["version"] == 2
    finally:
        app.extensions["cronaca"].records.close()


def test_sqlite_makes_its_tables_on_open_and_upgrade_works_on_it_too(tmp_path: Path) -> None:
    quick = Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "quick.sqlite3")}).store
    records = Records(quick)  # the quick start: no upgrade, the library makes the tables as the file opens
    try:
        assert records.play.start("toy", ["a", "b"])[0]
    finally:
        records.close()
    assert [s.split(":")[0] for s in upgrade(quick)] == [str(CURRENT)]  # the store mapping itself is accepted
    assert upgrade({"SQLITE_DBNAME": str(tmp_path / "quick.sqlite3")}) == []  # and a process environment
    fresh = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "fresh.sqlite3")}
    assert len(upgrade(fresh)) == 1 and upgrade(fresh) == []
    import sqlite3

    with sqlite3.connect(tmp_path / "fresh.sqlite3") as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert names >= SQLITE_TABLES and conn.execute(f"SELECT version FROM {VERSION_TABLE}").fetchall() == [(CURRENT,)]


def test_postgresql_processes_never_create_tables_unless_told() -> None:
    assert Settings.from_env(postgres_env("x")).store["CREATE_TABLE"] == "false"
    assert Settings.from_env({**postgres_env("x"), "CREATE_TABLE": "true"}).store["CREATE_TABLE"] == "true"
    assert "CREATE_TABLE" not in Settings.from_env({"SQLITE_DBNAME": ":memory:"}).store
