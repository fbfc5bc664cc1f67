"""`cronaca status | recheck | render --all`: what the queues hold, and bulk work handed to them.

- `status` (`--json` too): per queue (imports, checks, renders, analyses) the jobs waiting, running, waiting out a
  retry's backoff and failed (the last failures with their error's last line); the live workers with their
  last heartbeat (a worker silent for longer than `Settings.dead_after` is shown dead: its jobs are taken up
  again); and the outbox from the records themselves: imports without a verdict by status and the oldest's
  age. Exit 1 when Redis cannot be reached (the outbox is still shown), so a script can alert on it.
- `recheck`: every record's (or the named ones') chain and replay verified again (`Records.verification.verify`), as jobs
  on the checks queue when REDIS_URL is set (`--wait` for their results), else here.
- `render --all --out DIR`: every finished record's notation and evidence bundle written into DIR, as jobs
  on the renders queue when REDIS_URL is set, else here. (`render RECORD` prints one record, as before.)

click for the commands (the project's command-line library), rich for the tables.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import click
import redis
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rq import Queue, Worker
from rq.job import Job
from rq.registry import FailedJobRegistry, ScheduledJobRegistry, StartedJobRegistry
from rq.utils import now

from api import terminal
from domain.records import Records
from domain.records.aggregates import QUEUED, SUBMITTED, VALIDATING
from domain.records.settings import Settings
from workers import bulk

FAILED_SHOWN = 5  # failed jobs listed per queue


def _age(stamp: datetime | None) -> float | None:
    return None if stamp is None else round((now() - stamp).total_seconds(), 1)


def queues_status(settings: Settings) -> dict[str, Any]:
    """Queues and workers as RQ keeps them in Redis (read only: no registry is cleaned by looking)."""
    assert settings.redis_url
    connection = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=2, socket_timeout=5)
    connection.ping()
    queues = {}
    for role, name in settings.queues.items():
        queue = Queue(name, connection=connection)
        failed_registry = FailedJobRegistry(name, connection=connection)
        failed_ids = failed_registry.get_job_ids(cleanup=False, desc=True)
        last_failed = []
        for job in Job.fetch_many(failed_ids[:FAILED_SHOWN], connection=connection):
            if job is None:
                continue
            result = job.latest_result()
            error = (getattr(result, "exc_string", None) or "").strip().splitlines()
            last_failed.append({"id": job.id, "ended": job.ended_at.isoformat() if job.ended_at else None,
                                "error": error[-1] if error else None})
        queues[role] = {
            "name": name, "queued": queue.count,
            "started": StartedJobRegistry(name, connection=connection).get_job_count(cleanup=False),
            "scheduled": ScheduledJobRegistry(name, connection=connection).get_job_count(cleanup=False),
            "failed": len(failed_ids), "last_failed": last_failed}
    workers = []
    serving = {w.name: w for name in settings.queues.values()  # this deployment's workers only (Redis may be shared)
               for w in Worker.all(queue=Queue(name, connection=connection))}
    for worker in sorted(serving.values(), key=lambda w: w.name):
        age = _age(worker.last_heartbeat)
        workers.append({"name": worker.name, "hostname": worker.hostname, "pid": worker.pid,
                        "queues": worker.queue_names(), "state": str(worker.get_state()),
                        "last_heartbeat": worker.last_heartbeat.isoformat() if worker.last_heartbeat else None,
                        "heartbeat_age": age, "alive": age is not None and age < settings.dead_after,
                        "job": worker.get_current_job_id()})
    return {"queues": queues, "workers": workers}


def outbox_status(settings: Settings) -> dict[str, Any]:
    """Imports saved but without a verdict, from the records directory (the event store, not Redis)."""
    records = Records(settings.store)
    try:
        records.directory.catch_up()
        waiting = [s for s in records.directory.imports.values() if s.status in (SUBMITTED, QUEUED, VALIDATING)]
    finally:
        records.close()
    oldest = min((datetime.fromisoformat(s.submitted).timestamp() for s in waiting), default=None)
    return {"submitted": sum(s.status == SUBMITTED for s in waiting), "queued": sum(s.status == QUEUED for s in waiting),
            "validating": sum(s.status == VALIDATING for s in waiting), "without_verdict": len(waiting),
            "oldest_age": None if oldest is None else round(time.time() - oldest, 1)}


def status_report(settings: Settings) -> dict[str, Any]:
    report: dict[str, Any] = {"redis": {"configured": bool(settings.redis_url), "reachable": None}}
    if settings.redis_url:
        try:
            report.update(queues_status(settings))
            report["redis"]["reachable"] = True
        except redis.RedisError as exc:
            report["redis"].update(reachable=False, error=str(exc))
    report["outbox"] = outbox_status(settings)
    return report


def _print_status(report: dict[str, Any], console: Console) -> None:
    redis_state = report["redis"]
    if not redis_state["configured"]:
        console.print("jobs run in-process (no REDIS_URL): no queues to show")
    elif not redis_state["reachable"]:
        console.print(f"[red]Redis unreachable[/red]: {escape(redis_state.get('error', ''))}")
    if report.get("queues"):
        table = Table(title="queues")
        for column in ("role", "queue", "queued", "started", "retrying", "failed"):
            table.add_column(column, justify="right" if column not in ("role", "queue") else "left")
        for role, q in report["queues"].items():
            table.add_row(role, escape(q["name"]), str(q["queued"]), str(q["started"]), str(q["scheduled"]),
                          f"[red]{q['failed']}[/red]" if q["failed"] else "0")
        console.print(table)
        for role, q in report["queues"].items():
            for job in q["last_failed"]:
                console.print(f"  failed on {role}: {escape(job['id'])} ({job['ended']}): {escape(job['error'] or '?')}")
    if redis_state["reachable"]:
        table = Table(title="workers")
        for column in ("worker", "host", "pid", "queues", "state", "last heartbeat", "job"):
            table.add_column(column)
        for w in report["workers"]:
            beat = "never" if w["heartbeat_age"] is None else f"{w['heartbeat_age']} s ago"
            table.add_row(escape(w["name"]), escape(w["hostname"] or "?"), str(w["pid"]), escape(",".join(w["queues"])),
                          w["state"], beat if w["alive"] else f"[red]{beat} (dead)[/red]", escape(w["job"] or "-"))
        console.print(table if report["workers"] else "[yellow]no worker is running[/yellow]")
    out = report["outbox"]
    age = "" if out["oldest_age"] is None else f", the oldest submitted {out['oldest_age']} s ago"
    console.print(f"outbox: {out['without_verdict']} import(s) without a verdict ({out['submitted']} submitted, "
                  f"{out['queued']} queued, {out['validating']} validating){age}")


def _all_record_ids(settings: Settings, finished_only: bool) -> list[str]:
    records = Records(settings.store)
    try:
        records.directory.catch_up()
        return [str(s.id) for s in records.directory.records.values() if s.finished or not finished_only]
    finally:
        records.close()


def _bulk(settings: Settings, role: str, ids: list[str], wait: float | None, here: Any, job: str, batch: int,
          *args: Any) -> tuple[dict[str, Any], list[str], list[str]]:
    """(merged results, job ids, jobs failed or unfinished): on the role's queue with Redis, else `here(ids)`."""
    if not settings.redis_url:
        return here(ids), [], []
    job_ids = bulk.enqueue(settings, settings.queues[role], job, bulk.batches(ids, batch), *args)
    if wait is None:
        return {}, job_ids, []
    results, unfinished = bulk.wait_for(settings, job_ids, wait)
    return bulk.merged(results), job_ids, unfinished


def add_commands(group: click.Group) -> None:
    """`status`, `recheck`, and `--all/--out` on the existing `render` (added to api/cli.py's group)."""

    @group.command(help="Queue depths, running and failed jobs, live workers and the imports' outbox. "
                        "Exit 1 when Redis cannot be reached.")
    @click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
    def status(as_json: bool) -> None:
        settings = Settings.from_env()
        report = status_report(settings)
        if as_json:
            click.echo(json.dumps(report, indent=2))
        else:
            _print_status(report, terminal.console())
        if settings.redis_url and not report["redis"]["reachable"]:
            raise click.exceptions.Exit(1)

    @group.command(help="Verify stored records again (hash chain and replay by the rules): all, or the ids given. "
                        "On the checks queue with REDIS_URL, else here. Exit 1 when a record fails.")
    @click.argument("record_ids", nargs=-1, type=click.UUID)
    @click.option("--all", "every", is_flag=True, help="every record in the store")
    @click.option("--wait", type=float, default=None, help="with REDIS_URL: seconds to wait for the jobs' results")
    @click.option("--json", "as_json", is_flag=True)
    def recheck(record_ids: tuple[UUID, ...], every: bool, wait: float | None, as_json: bool) -> None:
        settings = Settings.from_env()
        ids = _all_record_ids(settings, finished_only=False) if every else [str(i) for i in record_ids]
        if not ids:
            raise click.UsageError("name record ids, or --all")

        def here(chosen: list[str]) -> dict[str, Any]:
            records = Records(settings.store)
            try:
                return bulk.run_checks(records, chosen)
            finally:
                records.close()

        result, job_ids, unfinished = _bulk(settings, "checks", ids, wait, here, bulk.CHECK_JOB, bulk.CHECK_BATCH)
        _report(result, job_ids, unfinished, "checks", as_json)
        if result.get("failed") or unfinished:
            raise click.exceptions.Exit(1)

    original = group.commands.get("render")

    @group.command(name="render", help="A record in its title's notation: a record file (JSON export) or a record id "
                                       "in the store. With --all --out DIR: every finished record's notation and "
                                       "evidence bundle written into DIR (on the renders queue with REDIS_URL).")
    @click.argument("record", required=False)
    @click.option("--all", "every", is_flag=True, help="every finished record in the store (with --out)")
    @click.option("--out", type=click.Path(file_okay=False), default=None, help="the folder the files go to")
    @click.option("--wait", type=float, default=None, help="with REDIS_URL: seconds to wait for the jobs' results")
    @click.option("--json", "as_json", is_flag=True)
    @click.option("--in-progress", "in_progress", is_flag=True,
                  help="a record id whose game is in progress, every secret shown (not for a screen its players see)")
    def render(record: str | None, every: bool, out: str | None, wait: float | None, as_json: bool,
               in_progress: bool) -> None:

        if not every:
            if record is None or out is not None or original is None or original.callback is None:
                raise click.UsageError("name a record file or id, or use --all --out DIR")
            original.callback(record=record, in_progress=in_progress)
            return
        if record is not None or out is None:
            raise click.UsageError("--all takes no record, and needs --out DIR")
        settings = Settings.from_env()
        folder = str(Path(out).resolve())  # a worker's working folder is not ours
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(f"cannot make the folder {folder}: {exc.strerror}", param_hint="--out") from None
        ids = _all_record_ids(settings, finished_only=True)

        def here(chosen: list[str]) -> dict[str, Any]:
            records = Records(settings.store)
            try:
                return bulk.run_renders(records, chosen, folder)
            finally:
                records.close()

        result, job_ids, unfinished = _bulk(settings, "renders", ids, wait, here, bulk.RENDER_JOB, bulk.RENDER_BATCH,
                                            folder)
        _report(result, job_ids, unfinished, "renders", as_json)
        if unfinished:
            raise click.exceptions.Exit(1)


def _report(result: dict[str, Any], job_ids: list[str], unfinished: list[str], role: str, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps({**result, "jobs": job_ids, "unfinished": unfinished}, indent=2))
        return
    console = terminal.console()
    if job_ids and not result and not unfinished:
        console.print(f"queued {len(job_ids)} job(s) on the {role} queue: {escape(', '.join(job_ids))}")
        return
    if "checked" in result:
        console.print(f"checked {result['checked']} record(s): {result.get('ok', 0)} hold, "
                      f"{len(result.get('failed', {}))} fail, {len(result.get('missing', []))} missing")
        for record_id, problems in result.get("failed", {}).items():
            console.print(f"  [red]{escape(record_id)}[/red]: {escape('; '.join(problems))}")
    if "written" in result:
        console.print(f"wrote {len(result['written'])} record(s), skipped {len(result.get('skipped', {}))}")
    for job_id in unfinished:
        console.print(f"  [yellow]job {escape(job_id)} failed or did not finish in time[/yellow]")
