"""`cronaca serve | worker | relay | demo`: the service's processes (added to api/cli.py)."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from domain.records.settings import Settings


def demo_records(records: Any, games: int = 2) -> int:
    """Finished records of every installed real title, played by `play_random` and imported
    through the same checks as any uploaded file. Returns how many were created."""
    from domain import catalog
    from domain.kernel.selfplay import play_random
    from domain.records import recordfile
    from domain.records.application import titles

    created = 0
    for title in titles():
        if title not in ("citta-stato", "la-citta", "serenissima"):
            continue
        game = catalog.game(title)
        edition = game.default_edition()
        low, high = game.seats
        for k in range(games):
            players = min(high, max(low, 3 + k))
            names = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"][:players]
            played = play_random(game, edition, {"players": players}, f"demo-{title}-{k}")
            document = {
                "format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title,
                "edition": edition.ref, "seats": [{"name": n} for n in names], "options": {"players": players},
                "mode": "transcribed", "chance": {}, "entries": [e.to_json() for e in played.entries],
            }
            import_id, _ = records.submit(document)
            report = records.validate_import(import_id)
            if report.get("ok"):
                created += 1
            else:
                print(f"demo record for {title} was rejected: {report}", file=sys.stderr)
    return created


def demo_live(records: Any, commands: int = 40) -> tuple[str, list[str]] | None:
    """One live record left in progress, so per-seat views can be tried: returns (id, seat tokens)."""
    from domain.kernel import SeededChance
    from domain.records.application import titles

    real = [t for t in titles() if t in ("citta-stato", "la-citta", "serenissima")]
    if not real:
        return None
    record_id, tokens = records.start(real[0], ["Ada", "Bruno", "Chiara"])
    players = SeededChance("demo-live")
    for _ in range(commands):
        timeline = records.timeline(record_id)
        game = timeline.game
        if game.pending(timeline.head).over:
            break
        choices = game.legal(timeline.head)
        cmd = choices[players.below(len(choices))]
        records.play(record_id, cmd.to_json(), tokens[cmd.seat])
    return str(record_id), tokens


def _serve(args: Any) -> int:
    from werkzeug.serving import make_server

    from api.app import create_app
    from workers import relay

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = Settings.from_env()
    app = create_app(settings)
    service = app.extensions["cronaca"]
    if args.demo:
        service.records.directory.catch_up()
        if not service.records.directory.records:
            made = demo_records(service.records)
            print(f"loaded {made} demo records" if made else "no real title is installed yet: no demo records")
            live = demo_live(service.records)
            if live is not None:
                record_id, tokens = live
                print(f"a live game in progress: http://{args.host}:{args.port}/records/{record_id}")
                # Seat tokens never go to standard output, which so often ends in a log: they are
                # written to a file only its owner reads, and the console names the file.
                seats_file = Path(os.environ.get("CRONACA_DEMO_SEATS", "var/demo-seats.txt"))
                seats_file.parent.mkdir(parents=True, exist_ok=True)
                seats_file.touch(mode=0o600)
                seats_file.chmod(0o600)
                seats_file.write_text("".join(f"seat {seat}: http://{args.host}:{args.port}/records/{record_id}#token={token}\n"
                                              for seat, token in enumerate(tokens)))
                print(f"  its seat links (with their tokens) are in {seats_file} (readable by you only)")
    relay.start_thread(service.records, service.dispatcher, settings.requeue_after, settings.relay_interval)
    server = make_server(args.host, args.port, app, threaded=True)  # listening before the URL is printed
    where = settings.store.get("SQLITE_DBNAME") or settings.store.get("POSTGRES_DBNAME")
    jobs = f"Redis {settings.redis_url}" if settings.redis_url else "in-process"
    print(f"Cronaca is running at http://{args.host}:{args.port}/  (store: {where}; jobs: {jobs}; API: /api/docs)",
          flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _worker(args: Any) -> int:
    settings = Settings.from_env()
    if not settings.redis_url:
        print("cronaca worker needs REDIS_URL (without it, `cronaca serve` runs jobs in-process)", file=sys.stderr)
        return 2
    import redis
    from rq import Queue, SimpleWorker

    connection = redis.Redis.from_url(settings.redis_url)
    worker = SimpleWorker([Queue(settings.queue, connection=connection)], connection=connection)
    worker.work(burst=args.burst, with_scheduler=False)
    return 0


def _relay(args: Any) -> int:
    from domain.records import Records
    from workers import relay
    from workers.dispatch import RQDispatcher

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = Settings.from_env()
    if not settings.redis_url:
        print("cronaca relay needs REDIS_URL (without it, `cronaca serve` relays in-process)", file=sys.stderr)
        return 2
    records = Records(settings.store)
    dispatcher = RQDispatcher(settings.redis_url, settings.queue)
    if args.once:
        print(f"queued {relay.relay_once(records, dispatcher, settings.requeue_after, grace=0)}")
        return 0
    relay.run(records, dispatcher, settings.requeue_after, settings.relay_interval)
    return 0


def _demo(args: Any) -> int:
    from domain.records import Records

    print(f"created {demo_records(Records(Settings.from_env().store), args.games)} demo records")
    return 0


def add_commands(group: Any) -> None:
    """The service's processes as `cronaca` commands (click)."""
    import click

    def run(fn: Any, **given: Any) -> None:
        code = fn(SimpleNamespace(**given))
        if code:
            raise click.exceptions.Exit(code)

    @group.command(help="Run the HTTP service and viewer (SQLite and in-process jobs by default).")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", type=int, default=8000, show_default=True)
    @click.option("--demo", is_flag=True, help="load demo records (self-play) into an empty store")
    def serve(host: str, port: int, demo: bool) -> None:
        run(_serve, host=host, port=port, demo=demo)

    @group.command(help="Run an RQ worker for import jobs (needs REDIS_URL).")
    @click.option("--burst", is_flag=True, help="stop when the queue is empty")
    def worker(burst: bool) -> None:
        run(_worker, burst=burst)

    @group.command(help="Queue imports that are saved but not queued (needs REDIS_URL).")
    @click.option("--once", is_flag=True, help="one pass, then exit")
    def relay(once: bool) -> None:
        run(_relay, once=once)

    @group.command(help="Add self-played demo records of every installed title.")
    @click.option("--games", type=int, default=2, show_default=True)
    def demo(games: int) -> None:
        run(_demo, games=games)
