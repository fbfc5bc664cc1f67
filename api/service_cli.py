"""`cronaca serve | worker | relay | demo`: the service's processes (added to api/cli.py)."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import UUID

import click
from werkzeug.serving import make_server

from api import import_cli, logs, status_cli
from api.app import create_app
from api.keep import keep as keep_running
from api.schema import Gate, wait_for_schema
from api.schema import command as schema_command
from domain import catalog
from domain.kernel import SeededChance, bots
from domain.records import Records, recordfile
from domain.records.access import new_tokens
from domain.records.annotations import places_of
from domain.records.reading import titles
from domain.records.settings import (
    Settings,
    log_format,
    log_level,
    worker_metrics_addr,
    worker_metrics_port,
)
from domain.records.teaching import Teaching
from workers import metrics, relay
from workers.dispatch import RQDispatcher
from workers.worker import resolve_queues
from workers.worker import run as run_worker

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio"]
LISTEN_BACKLOG = 1024  # connections waiting to be accepted (werkzeug: 128); the kernel caps it at somaxconn


def demo_plan(installed: list[str], games: int = 3) -> list[tuple[str, list[str], dict[str, Any], str]]:
    """(title, seat names, options, seed) of each demo game: the first `games` of each title's own demo
    tables (`catalog.demo_tables`), a few player counts of every real title."""
    plan = []
    for title in installed:
        for k, table in enumerate(catalog.demo_tables(title)[: max(0, games)]):
            names = list(table.names) or NAMES[: int(table.options["players"])]
            plan.append((title, names, dict(table.options), f"demo-{title}-{k}"))
    return plan


def bot_game(title: str, options: dict[str, Any], seed: str) -> list[dict[str, Any]]:
    """One game played to its end by the greedy bot at every seat: the log entries of a record file."""

    game = catalog.game(title)
    return [e.to_json() for e in bots.play_bot(game, game.default_edition(), options, seed).entries]


def _bot_games(plan: list[tuple[str, list[str], dict[str, Any], str]]) -> list[list[dict[str, Any]]]:
    """Every planned game's entries, played side by side on the machine's cores (a bot game takes a second
    or two; the demo must not hold up `./dev serve` for long)."""
    workers = min(len(plan), os.cpu_count() or 1)
    if workers > 1:

        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
                return list(pool.map(bot_game, *zip(*[(t, o, s) for t, _, o, s in plan], strict=True)))
        except (OSError, RuntimeError) as exc:  # no processes to be had here: play them one by one
            print(f"demo games in one process ({exc})", file=sys.stderr)
    return [bot_game(title, options, seed) for title, _, options, seed in plan]


def demo_records(records: Any, games: int = 3, keys: dict[str, tuple[str, str]] | None = None) -> int:
    """Finished records of every installed real title, a few player counts each, played by the greedy
    bot (`domain.kernel.bots`) so that they end with scores like real games', and imported through the
    same checks as any uploaded file. Returns how many were created. (Random play is for the soak tests.)
    `keys`, when given, receives each record's (title, annotator key) by record id."""

    plan = demo_plan([t for t in titles() if catalog.demo_tables(t)], games)
    created = 0
    for (title, names, options, _), entries in zip(plan, _bot_games(plan), strict=True):
        document = {
            "format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title,
            "edition": catalog.game(title).default_edition().ref, "seats": [{"name": n} for n in names],
            "options": options, "mode": "transcribed", "chance": {}, "entries": entries,
        }
        annotator = new_tokens(1)[0]
        import_id, _ = records.imports.submit(document, annotator)
        report = records.imports.validate(import_id)
        if report.ok and report.record_id is not None:
            created += 1
            if keys is not None:
                keys[report.record_id] = (title, annotator)
        else:
            print(f"demo record for {title} was rejected: {report.rule}: {report.message}", file=sys.stderr)
    return created


def demo_lesson(teaching: Teaching, keys: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """A lesson on the demo games, so the teaching side can be tried at once: on the first game of each
    title, notes on three of its turns (the move list's own sentence, a glyph, a highlighted place) and a
    what-if line of two moves from its middle; one chapter per game and one for the what-if.
    Returns (lesson id, teacher key)."""


    firsts: dict[str, tuple[UUID, str]] = {}
    for kept_id, (title, key) in keys.items():
        firsts.setdefault(title, (UUID(kept_id), key))
    if not firsts:
        return None
    records = teaching.records
    lesson, teacher = teaching.lessons.create(
        "Three games, move by move",
        "Demo lesson: one game of each title played by the greedy bot, with notes on a few turns and a what-if line.")
    for title, (record_id, key) in firsts.items():
        with records.access.reading(record_id) as timeline:
            assert timeline.meta is not None
            edition = records.edition(timeline.meta.title, timeline.meta.edition, timeline.meta.edition_file)
            starts, last = list(timeline.meta.entry_starts[1:]), len(timeline.events)
        places = sorted(set(places_of(title, edition).values()))
        said = {line.step: line.text for line in records.presenting.story(record_id).lines}
        picks = [starts[len(starts) * k // 4] for k in (1, 2, 3)]
        for n, (step, glyph) in enumerate(zip(picks, ("!", "?!", "!?"), strict=True)):
            sentence = said.get(step + 1) or said.get(step) or "this turn"
            teaching.notes.add(record_id, key, {
                "step": step + 1, "author": "Cronaca demo", "glyph": glyph,
                "text": f"**{sentence}** — was it the best choice here? Try a what-if from the step before.",
                "shapes": [{"kind": "highlight", "at": places[(7 * n + 3) % len(places)], "brush": "green"}]})
        branch = teaching.variations.branch(record_id, key, picks[1], title="What if the other choice?", author="Cronaca demo")
        for _ in range(2):
            legal = teaching.variations.legal(UUID(branch.id)).commands
            if not legal:
                break
            teaching.variations.play(UUID(branch.id), key, legal[-1].command)
        lesson_id = UUID(lesson.id)
        name = catalog.game(title).name  # the title as people write it ("La Città"), not its id
        teaching.lessons.add_chapter(lesson_id, teacher, {"title": f"A game of {name}", "record_id": str(record_id),
                                                          "line": None, "from_step": 0, "to_step": last})
        summary = teaching.variations.summary(UUID(branch.id))
        teaching.lessons.add_chapter(lesson_id, teacher, {"title": f"{name}: what if the other choice?", "record_id": str(record_id),
                                                          "line": branch.id, "from_step": summary.from_step,
                                                          "to_step": summary.last_step})
    return lesson.id, teacher


def demo_live(records: Any, commands: int = 40) -> tuple[str, list[str]] | None:
    """One live record left in progress, so per-seat views can be tried: returns (id, seat tokens).
    The greedy bot makes its moves, as in the finished demo records."""

    real = [t for t in titles() if catalog.demo_tables(t)]
    if not real:
        return None
    record_id, tokens = records.play.start(real[0], ["Ada", "Bruno", "Chiara"])
    bot, rng = bots.GreedyBot(), SeededChance("demo-live/bot")
    for n in range(commands):
        timeline = records.timeline(record_id)
        game = timeline.game
        if game.pending(timeline.head).over:
            break
        cmd = bot.choose(game, timeline.head, rng, f"demo-live/bot-think/{n}")
        records.play.command(record_id, cmd.to_json(), tokens[cmd.seat])
    return str(record_id), tokens


def configure_logging(default_format: str, default_level: str) -> None:
    """One handler for every logger of this process: JSON or text lines with the request id (api/logs.py)."""

    logs.configure(log_format(os.environ, default_format), log_level(os.environ, default_level))


def _serve(args: Any) -> int:


    configure_logging("text", "WARNING")  # a person's console by default (CRONACA_LOG_FORMAT, CRONACA_LOG_LEVEL)
    try:
        settings = Settings.from_env()
    except ValueError as exc:  # a weak CRONACA_OPERATOR_KEY, a limit that is not a number: said, not a traceback
        print(f"cronaca serve: {exc}", file=sys.stderr)
        return 2
    app = create_app(settings)
    service = app.extensions["cronaca"]

    no_schema = Gate(service.records).why_not()  # PostgreSQL before `cronaca db upgrade`: served as 503 until then
    if no_schema:
        print(no_schema, file=sys.stderr)
    if args.demo and not no_schema:
        service.records.directory.catch_up()
        if not service.records.directory.records:
            keys: dict[str, tuple[str, str]] = {}
            made = demo_records(service.records, keys=keys)
            print(f"loaded {made} demo records" if made else "no real title is installed yet: no demo records")
            links: list[str] = []
            lesson = demo_lesson(service.teaching, keys)
            if lesson is not None:
                lesson_id, teacher = lesson
                print(f"a demo lesson for a class: http://{args.host}:{args.port}/lessons/{lesson_id}")
                links.append(f"lesson (teacher): http://{args.host}:{args.port}/lessons/{lesson_id}#key={teacher}\n")
            links += [f"annotator of {title}: http://{args.host}:{args.port}/records/{rid}#key={key}\n"
                      for rid, (title, key) in keys.items()]
            live = demo_live(service.records)
            if live is not None:
                record_id, tokens = live
                print(f"a live game in progress: http://{args.host}:{args.port}/records/{record_id}")
                links += [f"seat {seat}: http://{args.host}:{args.port}/records/{record_id}#token={token}\n"
                          for seat, token in enumerate(tokens)]
            if links:
                # Keys and seat tokens never go to standard output, which so often ends in a log: they are
                # written to a file only its owner reads, and the console names the file.
                seats_file = Path(os.environ.get("CRONACA_DEMO_SEATS", "var/demo-seats.txt"))
                seats_file.parent.mkdir(parents=True, exist_ok=True)
                seats_file.touch(mode=0o600)
                seats_file.chmod(0o600)
                seats_file.write_text("".join(links))
                print(f"  the teacher's, annotators' and seats' links (with their keys) are in {seats_file} "
                      "(readable by you only)")
    if no_schema:  # the relay reads the store: it starts once `cronaca db upgrade` has run


        threading.Thread(target=lambda: wait_for_schema(service.records, lambda why: None) and relay.start_thread(
            service.records, service.dispatcher, settings.requeue_after, settings.relay_interval), daemon=True).start()
    else:
        relay.start_thread(service.records, service.dispatcher, settings.requeue_after, settings.relay_interval)
    server = make_server(args.host, args.port, app, threaded=True)  # listening before the URL is printed
    # werkzeug listens with a backlog of 128: viewers of a live game who open their streams at once (a class, a
    # reload of many tabs) overflow it and wait out SYN retries (1, 3, 7 s). Listening again widens the queue.
    server.socket.listen(LISTEN_BACKLOG)
    where = settings.store.get("SQLITE_DBNAME") or settings.store.get("POSTGRES_DBNAME")
    jobs = f"Redis {settings.redis_url}" if settings.redis_url else "in-process"
    print(f"Cronaca is running at http://{args.host}:{args.port}/  (store: {where}; jobs: {jobs}; API: /api/docs)",
          flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


def _worker(args: Any) -> int:
    configure_logging("json", "INFO")
    settings = Settings.from_env()
    if not settings.redis_url:
        print("cronaca worker needs REDIS_URL (without it, `cronaca serve` runs jobs in-process)", file=sys.stderr)
        return 2

    try:
        queues = resolve_queues(settings, args.queues)
    except ValueError as exc:
        print(f"cronaca worker: {exc}", file=sys.stderr)
        return 2

    metrics.serve(worker_metrics_port(os.environ), worker_metrics_addr(os.environ))
    metrics.CACHES.start()  # under PROMETHEUS_MULTIPROC_DIR: the worker's caches in the API's /metrics
    return run_worker(settings, queues, burst=args.burst)  # outlives Redis outages (workers/worker.py)


def _relay(args: Any) -> int:

    configure_logging("json", "INFO")
    settings = Settings.from_env()
    if not settings.redis_url:
        print("cronaca relay needs REDIS_URL (without it, `cronaca serve` relays in-process)", file=sys.stderr)
        return 2
    records = Records(settings.store)


    wait_for_schema(records, logging.getLogger("cronaca.relay").warning)  # no schema yet: wait, never a traceback
    dispatcher = RQDispatcher.from_settings(settings)
    if args.once:
        print(f"queued {relay.relay_once(records, dispatcher, settings.requeue_after, grace=0)}")
        return 0
    relay.run(records, dispatcher, settings.requeue_after, settings.relay_interval)
    return 0


def _demo(args: Any) -> int:

    print(f"created {demo_records(Records(Settings.from_env().store), args.games)} demo records")
    return 0


def add_commands(group: Any) -> None:
    """The service's processes as `cronaca` commands (click)."""

    def run(fn: Any, **given: Any) -> None:
        code = fn(SimpleNamespace(**given))
        if code:
            raise click.exceptions.Exit(code)

    @group.command(help="Run the HTTP service and viewer (SQLite and in-process jobs by default).")
    @click.option("--host", default="127.0.0.1", show_default=True)
    @click.option("--port", type=int, default=8000, show_default=True)
    @click.option("--demo", is_flag=True, help="load demo records (greedy-bot games) into an empty store")
    def serve(host: str, port: int, demo: bool) -> None:
        run(_serve, host=host, port=port, demo=demo)

    @group.command(help="Run an RQ worker for imports, checks and renders (needs REDIS_URL).")
    @click.option("--burst", is_flag=True, help="stop when the queues are empty")
    @click.option("--queues", default=None, help="comma-separated roles (retries, imports, checks, renders) or queue "
                                                 "names, served in this order; imports brings retries with it, first  "
                                                 "[default: retries,imports,checks,renders]")
    def worker(burst: bool, queues: str | None) -> None:
        run(_worker, burst=burst, queues=queues)

    @group.command(help="Queue imports that are saved but not queued (needs REDIS_URL).")
    @click.option("--once", is_flag=True, help="one pass, then exit")
    def relay(once: bool) -> None:
        run(_relay, once=once)


    status_cli.add_commands(group)  # cronaca status, recheck, render --all (queues and workers)
    import_cli.add_commands(group)  # cronaca import: many files, judged 20 a job

    @group.command(help="Add demo records of every installed title, played by the greedy bot.")
    @click.option("--games", type=int, default=3, show_default=True, help="games (player counts) per title")
    def demo(games: int) -> None:
        run(_demo, games=games)

    @group.command(help="Run COMMAND and start it again whenever it dies, with backoff (the Procfile's lines).",
                   context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
    @click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
    def keep(command: tuple[str, ...]) -> None:

        configure_logging("json", "INFO")
        code = keep_running(list(command))
        if code:
            raise click.exceptions.Exit(code)

    @group.group(help="The store's schema (api/schema.py, docs/deployment.md).")
    def db() -> None:
        pass

    @db.command(help="Create or upgrade the store's schema; run it before the processes start. Safe to repeat, "
                     "and to run from several hosts at once.")
    def upgrade() -> None:
        run(schema_command)
