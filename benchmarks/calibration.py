"""How well the reviewer's win chances at mid-game match who went on to win (issue 33, part 4).

    .venv/bin/python -m benchmarks.calibration --games 1000 [--titles citta-stato la-citta serenissima]
        [--players 4] [--estimators random:8 greedy-lite:4] [--self-play greedy] [--jobs 2] [--seed calibration]

Game k of a title is a self-play game seeded `{seed}-{k}`: the greedy bot of domain.kernel.bots at
every seat (`--self-play random`: uniformly random legal play), so the games are reproduced exactly.
At its middle command (the first decision from half its length on) each estimator (`rollout:playouts`,
a `Budget` for domain.kernel.review.reviewer) is asked for every seat's chance to win, from the
deciding seat's view; the outcome is each seat's final win share (ties shared). Printed per title and
estimator: the reliability table (predictions binned by tenths: how many, the mean prediction, the
observed win rate), the Brier score, and the Brier score of the baseline "the current leader wins"
(the running totals' leader gets 1, shared among ties). `--json` prints the figures a title's bot.py
keeps as CALIBRATION (the sentence the analysis page shows, domain.kernel.review.calibration_sentence).
Each estimate is also shown shrunk toward the fair share (1/players) by the factor that fits the games
best, and scored with each half of the games shrunk by the factor fitted on the other half (held out):
a correction measured at mid-game only, so the planner does not apply it (late estimates need none).
`--save FILE` keeps every game's predictions as it ends; `--load FILE` reports on them again without playing.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from domain import catalog
from domain.kernel.bots import play_bot
from domain.kernel.contract import fold
from domain.kernel.review import Budget, final_standing, reviewer
from domain.kernel.selfplay import play_random

BINS = 10
FAVOURITE = 0.6  # a seat given this chance or more at mid-game is counted among the favourites (the page's sentence)


def budgets(names: Sequence[str]) -> dict[str, Budget]:
    out = {}
    for name in names:
        rollout, _, playouts = name.partition(":")
        out[name] = Budget(playouts=int(playouts or 8), rollout=rollout)
    return out


def one_game(title: str, players: int, seed: str, self_play: str, names: Sequence[str]) -> dict[str, Any]:
    """One self-play game: the outcome, the leader baseline and each estimator's predictions at its middle."""
    game = catalog.game(title)
    edition = game.default_edition()
    options = {"players": players}
    played = (play_bot if self_play == "greedy" else play_random)(game, edition, options, seed)
    state = game.begin(edition)
    states = []
    for entry in played.entries:
        state = fold(game, state, entry.events)
        states.append(state)
    middle = next(s for s in states[len(states) // 2:] if game.pending(s).seat is not None)
    seat = game.pending(middle).seat
    win, _, _ = final_standing(game, played.state)
    totals = {int(r["seat"]): float(r["total"]) for r in game.scores(middle)["seats"]}
    leaders = [s for s, t in totals.items() if t == max(totals.values())]
    out: dict[str, Any] = {"win": win, "leader": {s: (1 / len(leaders) if s in leaders else 0.0) for s in totals}}
    for name, budget in budgets(names).items():
        started = time.process_time()
        estimate = reviewer(budget).estimate(game, middle, seat, f"{seed}/calibration")
        out[name] = {"p": dict(estimate.win), "cpu": time.process_time() - started}
    return out


def brier(pairs: Sequence[tuple[float, float]]) -> float:
    return sum((p - o) ** 2 for p, o in pairs) / len(pairs)


def shrink(pairs: Sequence[tuple[float, float]], fair: float) -> float:
    """The factor s (0-1) for which fair + s * (p - fair) best predicts the outcomes (least squares)."""
    num = sum((p - fair) * (o - fair) for p, o in pairs)
    den = sum((p - fair) ** 2 for p, _ in pairs)
    return max(0.0, min(1.0, num / den)) if den else 1.0


def shrunk(pairs: Sequence[tuple[float, float]], fair: float, s: float) -> list[tuple[float, float]]:
    return [(fair + s * (p - fair), o) for p, o in pairs]


def held_out(per_game: Sequence[Sequence[tuple[float, float]]], fair: float) -> float:
    """The Brier score of shrunk predictions, each half of the games shrunk by the factor fitted on the other half."""
    halves = [[p for g in per_game[k::2] for p in g] for k in (0, 1)]
    out = [q for k in (0, 1) for q in shrunk(halves[k], fair, shrink(halves[1 - k], fair))]
    return brier(out)


def table(pairs: Sequence[tuple[float, float]]) -> list[dict[str, Any]]:
    """The reliability table: per tenth of predicted chance, how many, the mean prediction, the observed rate."""
    rows = []
    for b in range(BINS):
        inside = [(p, o) for p, o in pairs if min(BINS - 1, int(p * BINS)) == b]
        if inside:
            rows.append({"bin": f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}", "n": len(inside),
                         "predicted": sum(p for p, _ in inside) / len(inside),
                         "observed": sum(o for _, o in inside) / len(inside)})
    return rows


def report(title: str, rows: Sequence[dict[str, Any]], names: Sequence[str], as_json: bool) -> None:
    seats = sorted(rows[0]["win"])
    baseline = brier([(r["leader"][s], r["win"][s]) for r in rows for s in seats])
    fair = 1 / len(seats)
    for name in names:
        per_game = [[(r[name]["p"][s], r["win"][s]) for s in seats] for r in rows]
        pairs = [p for g in per_game for p in g]
        score = brier(pairs)
        factor = shrink(pairs, fair)
        cpu = 1000 * sum(r[name]["cpu"] for r in rows) / len(rows)
        print(f"\n{title}, {len(rows)} games, estimator {name} ({cpu:.0f} ms CPU an estimate): "
              f"Brier {score:.4f}, shrunk toward {fair:.2f} (x{factor:.2f}; held out {held_out(per_game, fair):.4f}), "
              f"leader baseline {baseline:.4f}, fair share everywhere {brier([(fair, o) for _, o in pairs]):.4f}")
        print(f"  {'bin':<8} {'n':>5} {'predicted':>9} {'observed':>8}   shrunk: {'n':>5} {'predicted':>9} {'observed':>8}")
        bins = table(pairs)
        after = {b["bin"]: b for b in table(shrunk(pairs, fair, factor))}
        for b in bins:
            a = after.get(b["bin"])
            tail = f"{a['n']:>5} {a['predicted']:>9.3f} {a['observed']:>8.3f}" if a else ""
            print(f"  {b['bin']:<8} {b['n']:>5} {b['predicted']:>9.3f} {b['observed']:>8.3f}           {tail}")
        for b in after.values():
            if b["bin"] not in {x["bin"] for x in bins}:
                print(f"  {b['bin']:<8} {'':>5} {'':>9} {'':>8}           {b['n']:>5} {b['predicted']:>9.3f} {b['observed']:>8.3f}")
        if as_json:
            high = [b for b in bins if b["predicted"] >= FAVOURITE]
            n = sum(b["n"] for b in high)
            print(json.dumps({"games": len(rows), "estimator": name, "brier": round(score, 4),
                              "leader_brier": round(baseline, 4), "fair_brier": round(brier([(fair, o) for _, o in pairs]), 4),
                              "shrink": round(factor, 3), "shrunk_brier": round(held_out(per_game, fair), 4),
                              "favourite_at": FAVOURITE, "favourites": n,
                              "favourites_predicted": round(sum(b["predicted"] * b["n"] for b in high) / n, 3) if n else None,
                              "favourites_won": round(sum(b["observed"] * b["n"] for b in high) / n, 3) if n else None}))

def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--titles", nargs="+", default=sorted(catalog.TITLES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--estimators", nargs="+", default=["random:8", "greedy-lite:4"])
    parser.add_argument("--self-play", default="greedy", choices=["greedy", "random"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", default="calibration")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--save", metavar="FILE", help="also write each game's predictions and outcome (JSON lines)")
    parser.add_argument("--load", metavar="FILE", help="report on the games a --save wrote instead of playing")
    args = parser.parse_args(argv)
    if args.load:
        with Path(args.load).open(encoding="utf-8") as f:
            saved = [json.loads(line) for line in f]
        for title in args.titles:
            rows = [_seats_as_ints(r) for r in saved if r["title"] == title]
            if rows:
                report(title, rows, args.estimators, args.json)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for title in args.titles:
            futures = [pool.submit(one_game, title, args.players, f"{args.seed}-{k}", args.self_play, args.estimators)
                       for k in range(args.games)]
            rows = []
            for done in as_completed(futures):  # saved as each game ends: a run stopped early still counts
                rows.append(done.result())
                if args.save:
                    with Path(args.save).open("a", encoding="utf-8") as f:
                        f.write(json.dumps({"title": title, **rows[-1]}) + "\n")
            report(title, rows, args.estimators, args.json)


def _seats_as_ints(row: dict[str, Any]) -> dict[str, Any]:
    """A saved row with its seats as numbers again (JSON keys are strings)."""
    def ints(d: dict[str, Any]) -> dict[int, Any]:
        return {int(k): v for k, v in d.items()}
    out = {k: v for k, v in row.items() if k != "title"}
    out["win"], out["leader"] = ints(row["win"]), ints(row["leader"])
    for k, v in row.items():
        if isinstance(v, dict) and "p" in v:
            out[k] = {**v, "p": ints(v["p"])}
    return out


if __name__ == "__main__":
    main()
