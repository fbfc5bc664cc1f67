"""Hash chains (issue 15): their cost on the write path, chain on and off side by side, and `/verify` on 5,000 events.

    .venv/bin/python -m benchmarks.chain [--rounds 5] [--games 6] [--files 12] [--store sqlite|postgres]

Two `Records` applications in the same process, each on a store of its own (SQLite files in a
temporary directory, or two fresh PostgreSQL schemas in database `test`, dropped after): one
with chains (the default), one with `chain = False` (CRONACA_CHAIN=off, the benchmark's switch).
Each round runs the same work through both, game by game and file by file, which side goes first
alternating, so drift and other load fall on both alike (a first round warms both up, uncounted):

- commands: self-played games of the three titles (seeded, random legal play) replayed as
  transcribed records through `Records.play.start` + `Records.play.command`, one command (its outcomes as the
  table gave them) at a time: commands per second;
- imports: the same games as record files, `Records.imports.submit` (not timed) then `validate_import`
  (timed): the rules' check and the record's creation, imports per second.

The figure is the CPU time of this process (the target is per core; SQLite runs in-process),
with the wall clock beside it. Target: chain on costs <= 10% more than off on both paths.

Then `/verify` on a finished record of 5,000+ game events (the toy title of the tests with a far
target: one small event per command) and on the longest real-title game: the chain part (read
the stored rows, rebuild every item, recompute and compare every link), the whole `verify`
(with the rules' replay), and the offline check of the exported file (`chain_of(record_items)`).
Target: verifying a 5,000-event record <= 100 ms.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

from domain import catalog
from domain.kernel import Entry
from domain.kernel.selfplay import play_random
from domain.records import Records, recordfile
from domain.records import chain as chains
from domain.records.readmodels_verification import ChainVerdict
from domain.records.settings import Settings
from domain.records.timeline import FINISHED, HAPPENED, STARTED, decode_rows, paused_collector, select_stream

NAMES = ["Ada", "Bruno", "Chiara", "Dario"]
GAMES = [("citta-stato", {"players": 4}), ("la-citta", {"players": 3}), ("serenissima", {"players": 4}),
         ("citta-stato", {"players": 2}), ("la-citta", {"players": 2}), ("serenissima", {"players": 3})]
LONG_TOY = "id: toy-long\ntitle: toy\ndata:\n  target: {target}\n  bag: [1, 2, 3]\nprovenance:\n  target: \"assumed: a long game\"\n"


def played(games: int, seed: str) -> list[tuple[str, dict[str, Any], list[Entry]]]:
    """`games` finished games (title, options, log), cycling through the titles."""
    out = []
    for k in range(games):
        title, options = GAMES[k % len(GAMES)]
        game = catalog.game(title)
        out.append((title, options, list(play_random(game, game.default_edition(), options, f"{seed}-{k}").entries)))
    return out


def as_file(title: str, options: dict[str, Any], entries: list[Entry]) -> dict[str, Any]:
    return {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title,
            "edition": catalog.game(title).default_edition().ref, "seats": [{"name": n} for n in NAMES[: options["players"]]],
            "options": options, "mode": "transcribed", "chance": {}, "entries": [e.to_json() for e in entries]}


def play_through(records: Records, title: str, options: dict[str, Any], entries: list[Entry]) -> int:
    """A game's log replayed command by command through `Records.play.command`; returns the commands played."""
    game = catalog.game(title)
    record_id, tokens = records.play.start(title, NAMES[: options["players"]], options, mode="transcribed",
                                      setup_outcomes=[o.to_json() for o in entries[0].outcomes])
    for entry in entries[1:]:
        seat = game.parse_command(entry.command or {}).seat
        records.play.command(record_id, dict(entry.command or {}), tokens[seat], outcomes=[o.to_json() for o in entry.outcomes])
    return len(entries) - 1


@contextmanager
def stores(kind: str) -> Iterator[tuple[dict[str, str], dict[str, str]]]:
    """Two fresh, empty stores: (chain on, chain off)."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield ({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "on.sqlite3")},
                   {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "off.sqlite3")})
        return
    import psycopg

    dsn = "host=127.0.0.1 port=5432 user=postgres dbname=test"
    schemas = [f"cronaca_bench_chain_{uuid.uuid4().hex[:10]}" for _ in range(2)]
    with psycopg.connect(dsn, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        from api.schema import upgrade

        envs = tuple({"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": "test",
                      "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": "5432", "POSTGRES_USER": "postgres",
                      "POSTGRES_PASSWORD": "", "POSTGRES_SCHEMA": schema} for schema in schemas)
        for env in envs:
            upgrade(env)  # as `cronaca db upgrade`: PostgreSQL processes never make their tables themselves
        yield envs  # type: ignore[misc]
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for schema in schemas:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def timed(work: Callable[[], int]) -> tuple[int, float, float]:
    """(units of work, CPU seconds of this process, wall seconds). Each unit starts from a collected heap
    (untimed): otherwise a full collection of the whole process (both applications' caches), due every so
    often, lands on whichever side happens to allocate then, ±50 ms on a 30 ms import, and the totals
    measure where those fell rather than the chain."""
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    units = work()
    return units, time.process_time() - cpu, time.perf_counter() - wall


def chain_part(records: Records, record_id: UUID) -> ChainVerdict:
    """What `verify` does for the chain alone: read the stored rows, rebuild the items, recompute the links."""
    with paused_collector():  # as `verify` runs it
        rows = decode_rows(records.mapper, select_stream(records.recorder, record_id))
        return records.verification._verify_chain(rows, STARTED, HAPPENED, FINISHED)


def best_ms(work: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """(median, best) of `repeat` runs, in milliseconds of this process's CPU."""
    samples = []
    for _ in range(repeat):
        cpu = time.process_time()
        work()
        samples.append((time.process_time() - cpu) * 1000)
    return statistics.median(samples), min(samples)


def long_toy(records: Records, events: int) -> UUID:
    """A finished toy record of at least `events` game events, imported as a record file."""
    catalog.TITLES.setdefault("toy", "tests.kernel.toy_game")
    game = catalog.game("toy")
    target = events * 7 // 4
    while True:
        text = LONG_TOY.format(target=target)
        edition = game.load_edition(text.encode(), "<long toy>")
        log = play_random(game, edition, {"players": 2}, "chain-bench-long").entries
        if sum(len(e.events) for e in log) >= events:
            break
        target = target * 5 // 4
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": "toy",
                "edition": {**edition.ref, "file": text}, "seats": [{"name": "Ada"}, {"name": "Bruno"}],
                "options": {"players": 2}, "mode": "transcribed", "chance": {}, "entries": [e.to_json() for e in log]}
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    return UUID(report.record_id)


@contextmanager
def inside_chain() -> Iterator[list[float]]:
    """CPU seconds spent inside the chain's own functions while the block runs (the module's functions wrapped;
    a wrapped function called from another, as `head_bytes` calls `entry_head`, is counted once, in the outer;
    `canonical_events` is not the chain's: the row is written from those bytes with the chain off too)."""
    spent = [0.0]
    depth = [0]
    names = ("canonical", "link", "event_link", "links_of", "event_item_bytes", "head_bytes", "entry_head", "event_item",
             "finished_item", "started_item", "stream_item")
    originals = {name: getattr(chains, name) for name in names}

    def wrapped(name: str) -> Callable[..., Any]:
        original = originals[name]

        def run(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return original(*args, **kwargs)
            depth[0] += 1
            cpu = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[0] += time.process_time() - cpu
                depth[0] -= 1

        return run

    for name in names:
        setattr(chains, name, wrapped(name))
    try:
        yield spent
    finally:
        for name, original in originals.items():
            setattr(chains, name, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=6, help="games replayed through Records.play per round and side")
    parser.add_argument("--files", type=int, default=12, help="record files imported per round and side")
    parser.add_argument("--store", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()

    logs = played(max(args.games, args.files), "chain-bench")
    files = [as_file(*log) for log in logs[: args.files]]
    print(f"{len(logs)} games, {sum(len(e) - 1 for _, _, e in logs[: args.games])} commands and "
          f"{sum(sum(len(x.events) for x in e) for _, _, e in logs[: args.files])} events a round; store {args.store}")
    with stores(args.store) as (env_on, env_off):
        on = Records(Settings.from_env(env_on).store)
        off = Records(Settings.from_env(env_off).store)
        off.chain = False
        totals = {name: {"commands": [0, 0.0, 0.0], "imports": [0, 0.0, 0.0]} for name in ("on", "off")}
        pairs: dict[str, list[float]] = {"commands": [], "imports": []}  # on / off of the same game or file, side by side
        try:
            for k in range(args.rounds + 1):  # round 0 warms both up (imports, editions, caches) and is not counted
                flip = k
                for title, options, entries in logs[: args.games]:  # game by game, the side that goes first alternating
                    pair = {}
                    for name, records in ([("on", on), ("off", off)] if flip % 2 == 0 else [("off", off), ("on", on)]):
                        units, cpu, wall = timed(lambda r=records, t=title, o=options, e=entries: play_through(r, t, o, e))
                        pair[name] = cpu
                        if k:
                            for i, v in enumerate((units, cpu, wall)):
                                totals[name]["commands"][i] += v
                    if k:
                        pairs["commands"].append(pair["on"] / pair["off"])
                    flip += 1
                for document in files:  # file by file, likewise
                    pair = {}
                    for name, records in ([("on", on), ("off", off)] if flip % 2 == 0 else [("off", off), ("on", on)]):
                        import_id = records.imports.submit(document)[0]

                        def validate(r: Records = records, i: UUID = import_id) -> int:
                            assert r.imports.validate(i).ok
                            return 1

                        units, cpu, wall = timed(validate)
                        pair[name] = cpu
                        if k:
                            for i, v in enumerate((units, cpu, wall)):
                                totals[name]["imports"][i] += v
                    if k:
                        pairs["imports"].append(pair["on"] / pair["off"])
                    flip += 1
                if k:
                    print(f"after round {k}: " + ", ".join(
                        f"{path} {totals['on'][path][1] / totals['off'][path][1] - 1:+.1%}" for path in ("commands", "imports")))
            print()
            print("| path | chain on (CPU) | chain off (CPU) | cost of the chain (totals) | median of the pairs | "
                  "on / off (wall) |")
            print("|---|---|---|---|---|---|")
            for path, unit in (("commands", "commands/s"), ("imports", "imports/s")):
                n_on, cpu_on, wall_on = totals["on"][path]
                n_off, cpu_off, wall_off = totals["off"][path]
                rate_on, rate_off = n_on / cpu_on, n_off / cpu_off
                print(f"| {path} through {'Records.play' if path == 'commands' else 'validate_import'} | {rate_on:,.1f} {unit} | "
                      f"{rate_off:,.1f} {unit} | {(cpu_on / n_on) / (cpu_off / n_off) - 1:+.1%} | "
                      f"{statistics.median(pairs[path]) - 1:+.1%} of {len(pairs[path])} | "
                      f"{n_on / wall_on:,.1f} / {n_off / wall_off:,.1f} |")

            print()
            print("Directly: the CPU inside the chain's functions (chain.py), chain on, one more pass of the same work:")
            with inside_chain() as spent:
                units, cpu, _ = timed(lambda: sum(play_through(on, *log) for log in logs[: args.games]))
            print(f"- commands: {spent[0] * 1000:.0f} ms of {cpu * 1000:.0f} ms ({spent[0] / cpu:.1%}), "
                  f"{spent[0] / units * 1e6:.0f} µs a command")
            ids = [on.imports.submit(document)[0] for document in files]
            with inside_chain() as spent:
                units, cpu, _ = timed(lambda: sum(on.imports.validate(i).ok for i in ids))
            print(f"- imports: {spent[0] * 1000:.0f} ms of {cpu * 1000:.0f} ms ({spent[0] / cpu:.1%}), "
                  f"{spent[0] / units * 1000:.1f} ms an import")

            print()
            long_id = long_toy(on, args.events)
            real_id = on.imports.validate(on.imports.submit(max(files, key=lambda f: sum(len(e["events"]) for e in f["entries"])))[0])
            real_id = UUID(real_id.record_id)
            print("| record | game events | chain part of /verify (median / best, CPU) | whole verify with the replay | "
                  "offline: chain_of(record_items(export)) |")
            print("|---|---|---|---|---|")
            for label, record_id in (("toy, far target", long_id), ("longest real game", real_id)):
                answer = on.verification.verify(record_id)
                assert answer.ok, answer
                steps = on.reading.summary(record_id).steps
                document = on.reading.export(record_id).to_json()
                part = best_ms(lambda record_id=record_id: chain_part(on, record_id), 15)
                whole = best_ms(lambda record_id=record_id: on.verification.verify(record_id), 3)
                offline = best_ms(lambda document=document: chains.chain_of(chains.record_items(document)), 15)
                print(f"| {label} | {steps:,} | {part[0]:.1f} / {part[1]:.1f} ms ({part[0] / steps * 1000:.1f} µs an event) | "
                      f"{whole[0]:.0f} ms | {offline[0]:.1f} ms |")
        finally:
            on.close()
            off.close()


if __name__ == "__main__":
    main()
