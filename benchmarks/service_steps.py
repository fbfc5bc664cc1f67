"""State at step N served in process, and fold from storage beside the library's default.

    .venv/bin/python -m benchmarks.service_steps [--title citta-stato] [--players 4] [--games 3] [--samples 20000]

Builds one long record (several self-played games of the title, the longest kept) in a
fresh SQLite file, then measures on this one core:
* step: `Records.reading.step(id, n)` for uniformly random n — checkpoint + fold of fewer than
  16 events + the view — p50/p99/max in microseconds of wall-clock time, and p50/p99 of
  this thread's CPU time (which other processes on a busy machine cannot inflate), for the finished record (all-seeing
  view) and for the same log imported up to half-way (in progress: public view, the
  intersection of every seat's view);
* fold from storage, in game events per second: our projector (the stream's rows, one
  per game event, selected by `timeline.select_stream` -> one JSON parse -> `evolve`,
  `domain.records.timeline`) against the library's default reconstruction
  (`event_store.get` through the mapper, then `project_aggregate`, exactly what
  `repository.get` does) followed by the same game fold, on the same stored record.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any
from uuid import UUID

from eventsourcing.application import project_aggregate

from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records, recordfile
from domain.records.timeline import Timelines, stored_event


def long_record(records: Records, title: str, players: int, games: int, cut: float | None = None) -> UUID:
    game = catalog.game(title)
    edition = game.default_edition()
    played = max((play_random(game, edition, {"players": players}, f"bench-{k}") for k in range(games)),
                 key=lambda p: p.event_count)
    entries = [e.to_json() for e in played.entries]
    if cut is not None:
        entries = entries[: int(len(entries) * cut)]
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title, "edition": edition.ref,
                "seats": [{"name": f"p{k}"} for k in range(players)], "options": {"players": players},
                "mode": "transcribed", "chance": {}, "entries": entries}
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    return UUID(report.record_id)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": ordered[len(ordered) // 2] * 1e6, "p99": ordered[int(len(ordered) * 0.99)] * 1e6,
            "max": ordered[-1] * 1e6, "mean": statistics.fmean(ordered) * 1e6}


def time_steps(records: Records, record_id: UUID, samples: int) -> dict[str, Any]:
    steps = records.reading.summary(record_id).steps
    setup = records.reading.turns(record_id)[0].stop
    pick = random.Random(7)
    records.reading.step(record_id, steps, None)  # load the timeline once, as a running service has
    taken = []
    cpu = []
    for _ in range(samples):
        n = pick.randint(setup, steps)
        start, start_cpu = time.perf_counter(), time.thread_time()
        records.reading.step(record_id, n, None)
        cpu.append(time.thread_time() - start_cpu)
        taken.append(time.perf_counter() - start)
    return {"steps": steps, **percentiles(taken), "cpu": percentiles(cpu)}


def time_folds(records: Records, record_id: UUID, repeat: int) -> dict[str, float]:
    events = len(records.timeline(record_id).events)
    game = records.timeline(record_id).game

    def ours() -> Any:
        fresh = Timelines(records.recorder, records.mapper, catalog.game, records.edition_of, maxsize=1)
        return fresh.get(record_id).head  # type: ignore[union-attr]

    def library() -> Any:
        stored = list(records.events.get(record_id))
        aggregate = project_aggregate(None, stored)
        assert aggregate is not None
        state = game.begin(records.edition_of(records.timeline(record_id).meta))  # type: ignore[arg-type]
        evolve = game.evolve
        for e in stored:
            obj = getattr(e, "event", None)  # Record.Happened: one game event
            if obj is not None:
                state = evolve(state, stored_event(obj))
        return state

    def repository_only() -> Any:
        return records.repository.get(record_id)

    assert ours() == library()
    best = {}
    for name, run in (("ours", ours), ("library", library), ("repository_get_only", repository_only)):
        times = []
        for _ in range(repeat):
            start = time.thread_time()  # CPU time: other processes on a busy machine do not count
            run()
            times.append(time.thread_time() - start)
        best[name] = events / min(times)
    return {"events": events, **best, "ratio": best["ours"] / best["library"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--title", default="citta-stato")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        records = Records({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "b.sqlite3")})
        finished = long_record(records, args.title, args.players, args.games)
        going = long_record(records, args.title, args.players, args.games, cut=0.5)
        done = time_steps(records, finished, args.samples)
        half = time_steps(records, going, args.samples)
        folds = time_folds(records, finished, args.repeat)
        records.close()
    print(f"{args.title} players={args.players}: record of {done['steps']} steps")
    for label, got in (("finished (all-seeing view)", done), ("in progress (public view)", half)):
        print(f"  step {label:28s} wall p50 {got['p50']:6.0f} µs  p99 {got['p99']:6.0f} µs  max {got['max']:6.0f} µs"
              f" | cpu p50 {got['cpu']['p50']:6.0f} µs  p99 {got['cpu']['p99']:6.0f} µs"
              f"  ({got['steps']} steps, {args.samples} samples)")
    print(f"  fold from storage: ours {folds['ours']:,.0f} events/s; library default {folds['library']:,.0f} events/s"
          f" -> {folds['ratio']:.1f}x (best of {args.repeat}, CPU time)\n"
          f"  for reference, repository.get of the record aggregate alone (from its snapshot, no game fold):"
          f" {folds['repository_get_only']:,.0f} game events/s")


if __name__ == "__main__":
    main()
