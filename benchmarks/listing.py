"""`GET /api/records` over 100,000 records (issue 16): p99 per filter, and which index serves it.

    .venv/bin/python -m benchmarks.listing [--records 100000] [--store postgres|sqlite] [--requests 400]

Builds `--records` records in a store of its own (PostgreSQL: a schema of its own in database `test`,
dropped after), through the application's own aggregate and save: each is a `Record` made by its
constructor as `Records.play.start` makes it (its `Started` event with its first chain link), saved 1,000 at a
time with `Records.save`; `--finished` of them (default 80%) also get their `Finished` event with the
scores of a real finished game of that title and player count. What is left out is each record's game
events (the setup and the moves: hundreds of rows a record, which the listing never reads), so 100,000
records are built in about a minute instead of hours. Player names come from a pool of 2,000 drawn with a
long tail (a few names in thousands of records, most in a few dozen), the three titles and 2-5 seats evenly.

The directory's catch-up from empty is timed in this process twice: in bulk (what a new process does now,
domain/records/directory.py) and the library's way (every notification decoded whole, what it did before,
`--no-compare` to skip it), each in ms a record. Then one API process from the Procfile's `api` line
(gunicorn, one worker) serves the store: it warms its directory in the background, and the time until its
`/readyz` answers 200 is reported (what a new API process takes before a load balancer sends it traffic),
then its first `GET /api/records`.
Each query below is asked `--requests` times over one keep-alive connection, pages 1-5 in turn, and its
p50/p99/max printed with the structure of `domain/records/directory.py` that answered it (`Directory.plan`)
and how many records match. The same queries are timed in this process on `Directory.page` alone (the index,
without HTTP and without the catch-up query, which is timed on its own), beside the former scan of every
record (what `Directory.page` did before its indexes; its answers are checked equal). Target: p99 <= 20 ms
for every filter.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from benchmarks.deployment_commands import (
    clean_env,
    free_port,
    fresh_store,
    percentile,
    start_process,
    stop_group,
    wait_ready,
)

TITLES = {"citta-stato": (2, 5), "la-citta": (2, 5), "serenissima": (2, 4)}
FIRST = ["Ada", "Bruno", "Chiara", "Dario", "Elena", "Fabio", "Giulia", "Hugo", "Irene", "Luca", "Marta", "Nico",
         "Olga", "Paolo", "Rita", "Sara", "Tano", "Ugo", "Vera", "Zeno"]


def player_pool(size: int, rng: random.Random) -> tuple[list[str], list[float]]:
    """`size` distinct names and a long-tailed weight each (Zipf-like: the first names are the regulars)."""
    names = [f"{FIRST[k % len(FIRST)]} {k // len(FIRST) + 1:03d}" for k in range(size)]
    rng.shuffle(names)
    return names, [1.0 / (k + 1) ** 0.5 for k in range(size)]


def final_scores(title: str, players: int, seed: str) -> dict[str, Any]:
    """The scores of a real finished game of this title and player count (random legal play)."""
    from domain import catalog
    from domain.kernel.selfplay import play_random

    game = catalog.game(title)
    return dict(play_random(game, game.default_edition(), {"players": players}, seed).scores)


def build(records: Any, count: int, finished: float, seed: str, batch: int = 1000) -> tuple[float, dict[str, int]]:
    """`count` records saved through `records.save`, `batch` at a time; returns (seconds, how many per player)."""
    from domain import catalog
    from domain.records.access import new_tokens, token_hash
    from domain.records.aggregates import LIVE, TRANSCRIBED, Record

    rng = random.Random(seed)
    names, weights = player_pool(2000, rng)
    scores = {(t, n): final_scores(t, n, f"{seed}-{t}-{n}") for t, (lo, hi) in TITLES.items() for n in range(lo, hi + 1)}
    editions = {t: catalog.game(t).default_edition().ref for t in TITLES}
    token = token_hash(new_tokens(1)[0])  # every seat's hash alike: nothing reads them here
    played: dict[str, int] = {}
    started = time.perf_counter()
    pending: list[Any] = []
    for k in range(count):
        title = list(TITLES)[k % len(TITLES)]
        low, high = TITLES[title]
        players = low + rng.randrange(high - low + 1)
        seats: list[str] = []
        while len(seats) < players:
            name = rng.choices(names, weights)[0]
            if name not in seats:
                seats.append(name)
        for name in seats:
            played[name] = played.get(name, 0) + 1
        mode = LIVE if k % 2 else TRANSCRIBED
        options = {"players": players}
        record = Record(id=uuid.uuid4(), title=title, edition=editions[title], edition_file=None, seats=seats,
                        token_hashes=[token] * players, options=options, mode=mode, commitment=None, seed=None,
                        origin=None, chain=Record.started_link(title, editions[title], None, seats, options, mode, None))
        if rng.random() < finished:
            record.finish(seed=None, scores=scores[(title, players)])
        pending.append(record)
        if len(pending) >= batch:
            records.save(*pending)
            pending = []
    if pending:
        records.save(*pending)
    return time.perf_counter() - started, played


def queries(played: dict[str, int]) -> list[tuple[str, dict[str, str]]]:
    ranked = sorted(played, key=lambda n: -played[n])
    common, middling, rare = ranked[0], ranked[len(ranked) // 2], ranked[-1]
    return [
        ("no filter", {}),
        ("title", {"title": "la-citta"}),
        ("status finished", {"status": "finished"}),
        ("status in-progress", {"status": "in-progress"}),
        ("title + status", {"title": "serenissima", "status": "in-progress"}),
        (f"player, the most common ({played[common]} records)", {"player": common.upper()}),
        (f"player, median ({played[middling]} records)", {"player": middling}),
        (f"player, rarest ({played[rare]} records)", {"player": rare}),
        ("player + title + status", {"player": common, "title": "citta-stato", "status": "finished"}),
        ("no filter, page 200 of 200-item pages", {"per_page": "200", "page": "200"}),
    ]


def former_scan(directory: Any, title: str | None, player: str | None, status: str | None, offset: int,
                limit: int) -> tuple[int, list[Any]]:
    """What `Directory.page` did before its indexes (issue 16): every summary newest first, each filter checked."""
    wanted = player.casefold() if player else None
    total, out = 0, []
    for summary in reversed(list(directory.records.values())):
        if (title and summary.title != title) or (status and summary.status != status) or (
                wanted is not None and wanted not in summary.folded):
            continue
        if offset <= total < offset + limit:
            out.append(summary)
        total += 1
    return total, out


def wait_warm(port: int, began: float, timeout: float = 600) -> tuple[float, str]:
    """Seconds from `began` until /readyz answers 200, and what its last 503 said of the directory."""
    said = ""
    while time.perf_counter() - began < timeout:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", "/readyz")
            answer = conn.getresponse()
            body = json.loads(answer.read() or b"{}")
            if answer.status == 200:
                return time.perf_counter() - began, said
            said = str(body.get("checks", {}).get("directory", body))
        except (OSError, http.client.HTTPException, ValueError):
            pass
        finally:
            conn.close()
        time.sleep(0.1)
    raise RuntimeError(f"the API process was not ready within {timeout:.0f} s")


def plan_of(directory: Any, query: dict[str, str]) -> str:
    planner = getattr(directory, "plan", None)
    if planner is None:
        return "scan of every record"
    return str(planner(query.get("title"), query.get("player"), query.get("status")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--store", choices=["postgres", "sqlite"], default="postgres")
    parser.add_argument("--requests", type=int, default=400, help="requests per query")
    parser.add_argument("--finished", type=float, default=0.8, help="share of the records that are finished")
    parser.add_argument("--seed", default="listing-bench")
    parser.add_argument("--no-compare", action="store_true", help="skip the former catch-up (slow: ~0.1 ms a record)")
    args = parser.parse_args()

    from domain.records import Records
    from domain.records.settings import Settings

    with tempfile.TemporaryDirectory() as tmp, fresh_store(args.store, Path(tmp), "listing") as store:
        records = Records(Settings.from_env(dict(store)).store)
        took, played = build(records, args.records, args.finished, args.seed)
        print(f"{args.records:,} records built in {took:.1f} s ({args.records / took:,.0f} a second; {args.store}, "
              f"Started + Finished events through Records.save, 1,000 a save)")
        asked = queries(played)

        t0 = time.perf_counter()
        records.directory.catch_up()
        took = time.perf_counter() - t0
        print(f"the directory's catch-up from empty in this process, in bulk: {took:.2f} s "
              f"({len(records.directory.records):,} records, {took * 1000 / max(args.records, 1):.4f} ms a record)")
        if not args.no_compare:
            from domain.records.directory import Directory

            former = Directory(records.recorder, records.mapper)
            former._log = None  # the library's notifications, every state decoded whole: what it did before
            t0 = time.perf_counter()
            former.catch_up()
            took_before = time.perf_counter() - t0
            print(f"  the library's way (before): {took_before:.2f} s ({took_before * 1000 / max(args.records, 1):.4f} "
                  f"ms a record): {took_before / took:.1f}x the bulk catch-up")
            del former
        directory = records.directory
        catchups = []
        for _ in range(args.requests):  # what each request pays before the index: one query that finds nothing new
            t0 = time.perf_counter()
            directory.catch_up()
            catchups.append((time.perf_counter() - t0) * 1000)
        print(f"the catch-up query when nothing is new (every listing asks it first): p50 {percentile(catchups, 0.5):.3f} ms, "
              f"p99 {percentile(catchups, 0.99):.3f} ms")
        directory.catch_up = lambda: None  # type: ignore[method-assign]  (below: the index alone, as the scan is timed)
        local: list[tuple[float, float, float]] = []
        for _, query in asked:
            per_page = int(query.get("per_page", 20))
            samples, scans = [], []
            for k in range(args.requests):
                page = int(query.get("page", 1 + k % 5))
                where = (query.get("title"), query.get("player"), query.get("status"), (page - 1) * per_page, per_page)
                t0 = time.perf_counter()
                total, found = records.directory.page(*where)
                samples.append((time.perf_counter() - t0) * 1000)
                if k < 20:  # the former scan, a few times: it is what the index replaced, and slow
                    t0 = time.perf_counter()
                    assert former_scan(records.directory, *where) == (total, found), query
                    scans.append((time.perf_counter() - t0) * 1000)
            local.append((percentile(samples, 0.5), percentile(samples, 0.99), percentile(scans, 0.5)))
        del directory.catch_up

        log = Path(tmp) / "api.log"
        port = free_port()
        began = time.perf_counter()
        api = start_process("api", clean_env(**store, CRONACA_API_WORKERS="1", CRONACA_API_THREADS="1"), log, port)
        try:
            wait_ready(port, api, log)
            alive = time.perf_counter() - began
            warm, said = wait_warm(port, began)
            print(f"a new API process: /healthz after {alive:.2f} s, /readyz 200 after {warm:.2f} s "
                  f"(its directory warmed in the background; the last 503 said {said!r})")
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            t0 = time.perf_counter()
            conn.request("GET", "/api/records")
            first = conn.getresponse()
            first.read()
            print(f"its first GET /api/records (once ready): "
                  f"{(time.perf_counter() - t0) * 1000:,.0f} ms, status {first.status}")
            print(f"\n{'query':<48} {'matching':>8} {'p50':>7} {'p99':>7} {'max':>7}  {'index p50/p99':>18}  "
                  f"{'former scan p50':>15}  index")
            worst = 0.0
            for (label, query), (lp50, lp99, scan) in zip(asked, local, strict=True):
                samples, total = [], None
                for k in range(args.requests):
                    shown = {"page": str(1 + k % 5), **query}
                    t0 = time.perf_counter()
                    conn.request("GET", f"/api/records?{urlencode(shown)}")
                    answer = conn.getresponse()
                    body = answer.read()
                    samples.append((time.perf_counter() - t0) * 1000)
                    if answer.status != 200:
                        raise RuntimeError(f"{label}: {answer.status} {body[:300]!r}")
                    total = json.loads(body)["total"]
                p99 = percentile(samples, 0.99)
                worst = max(worst, p99)
                print(f"{label:<48} {total:>8,} {percentile(samples, 0.5):>5.2f}ms {p99:>5.2f}ms {max(samples):>5.1f}ms"
                      f"  {lp50:>7.3f}/{lp99:.3f} ms  {scan:>12.2f} ms  {plan_of(records.directory, query)}")
            conn.close()
            print(f"\nworst p99 {worst:.2f} ms (target <= 20 ms: {'met' if worst <= 20 else 'NOT met'}); "
                  f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        finally:
            stop_group(api)
            records.close()


if __name__ == "__main__":
    main()
