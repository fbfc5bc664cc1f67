"""How well the reviewer's win chances match who went on to win, at a quarter, half and three quarters of a game (issue 33, part 4).

    .venv/bin/python -m benchmarks.calibration --games 1000 [--titles citta-stato la-citta serenissima]
        [--players 4] [--estimators random:12] [--phases 0.25 0.5 0.75] [--self-play greedy] [--jobs 2]
        [--seed calibration] [--json] [--save FILE | --load FILE] [--first K]

Game k of a title is a self-play game seeded `{seed}-{k}`: the greedy bot of domain.kernel.bots at
every seat (`--self-play random`: uniformly random legal play), so the games are reproduced exactly.
At each phase (the first decision from that fraction of its commands on) each estimator
(`rollout:playouts`, a `Budget` for domain.kernel.review.reviewer; by default the analysis's own,
`random:` and ANALYSIS_BUDGET's playouts) is asked for every seat's chance to win, from the deciding
seat's view; the outcome is each seat's final win share (ties shared).

Printed per title, estimator and phase: the Brier score, the factor by which shrinking every estimate
toward the fair share (1/players) fits the games best, the Brier score held out (each half of the games
shrunk by the factor fitted on the other half), and the baselines "the current leader wins" (the running
totals' leader gets 1, shared among ties) and the even split; at mid-game also the reliability table
(predictions binned by tenths: how many, the mean prediction, the observed win rate) raw and held out.
The analysis shows its win chances shrunk by the factors fitted here (domain.kernel.review.calibrated,
between the phases by straight lines, to none at the end), so `--json` prints what a title's bot.py keeps
as CALIBRATION: the factors by phase and the held-out figures at mid-game of the chances as shown (the
sentence the analysis page shows, domain.kernel.review.calibration_sentence).
`--save FILE` keeps every game's predictions as it ends; `--load FILE` reports on them again without playing
(several runs' files joined: `--first K` starts a run at game K, to play a long series in parts).
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
from domain.records.review_walk import ANALYSIS_BUDGET

BINS = 10
FAVOURITES = 0.1  # the share of the predictions, the highest, counted as the favourites (the page's sentence)
MIDDLE = 0.5  # the phase the page's sentence and the reliability table speak of


def budgets(names: Sequence[str]) -> dict[str, Budget]:
    out = {}
    for name in names:
        rollout, _, playouts = name.partition(":")
        out[name] = Budget(playouts=int(playouts or 8), rollout=rollout)
    return out


def one_game(title: str, players: int, seed: str, self_play: str, names: Sequence[str],
             phases: Sequence[float] = (MIDDLE,)) -> dict[str, Any]:
    """One self-play game: the outcome, and at each phase the leader baseline and each estimator's predictions
    (keys `leader@PHASE` and `NAME@PHASE`)."""
    game = catalog.game(title)
    edition = game.default_edition()
    options = {"players": players}
    played = (play_bot if self_play == "greedy" else play_random)(game, edition, options, seed)
    state = game.begin(edition)
    states = []
    for entry in played.entries:
        state = fold(game, state, entry.events)
        states.append(state)
    win, _, _ = final_standing(game, played.state)
    out: dict[str, Any] = {"win": win, "commands": len(states)}
    for phase in phases:
        at = next(s for s in states[int(len(states) * phase):] if game.pending(s).seat is not None)
        seat = game.pending(at).seat
        totals = {int(r["seat"]): float(r["total"]) for r in game.scores(at)["seats"]}
        leaders = [s for s, t in totals.items() if t == max(totals.values())]
        out[f"leader@{phase}"] = {s: (1 / len(leaders) if s in leaders else 0.0) for s in totals}
        for name, budget in budgets(names).items():
            started = time.process_time()
            estimate = reviewer(budget).estimate(game, at, seat, f"{seed}/calibration/{phase}")
            out[f"{name}@{phase}"] = {"p": dict(estimate.win), "cpu": time.process_time() - started}
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


def held_out_pairs(per_game: Sequence[Sequence[tuple[float, float]]], fair: float) -> list[tuple[float, float]]:
    """Every prediction shrunk by the factor fitted on the other half of the games (what a page shows, scored on
    games its factor did not see)."""
    halves = [[p for g in per_game[k::2] for p in g] for k in (0, 1)]
    return [q for k in (0, 1) for q in shrunk(halves[k], fair, shrink(halves[1 - k], fair))]


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


def favourites(pairs: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """The seats given the highest chances (the top FAVOURITES of the predictions): their mean chance and how often
    they won, the page's sentence (a well-calibrated estimate's favourites win as often as it says)."""
    high = sorted(pairs, key=lambda q: -q[0])[:max(1, round(len(pairs) * FAVOURITES))]
    n = len(high)
    return {"favourite_share": FAVOURITES, "favourites": n,
            "favourites_predicted": round(sum(p for p, _ in high) / n, 3),
            "favourites_won": round(sum(o for _, o in high) / n, 3)}


def report(title: str, rows: Sequence[dict[str, Any]], names: Sequence[str], phases: Sequence[float],
           as_json: bool) -> None:
    seats = sorted(rows[0]["win"])
    fair = 1 / len(seats)
    for name in names:
        cpu = 1000 * sum(r[f"{name}@{ph}"]["cpu"] for r in rows for ph in phases) / (len(rows) * len(phases))
        print(f"\n{title}, {len(rows)} games, estimator {name} ({cpu:.0f} ms CPU an estimate)")
        print(f"  {'phase':>5} {'Brier':>7} {'factor':>6} {'held out':>8} {'leader':>7} {'even':>7}")
        factors: dict[str, float] = {}
        figures: dict[str, Any] = {}
        for ph in phases:
            per_game = [[(r[f"{name}@{ph}"]["p"][s], r["win"][s]) for s in seats] for r in rows]
            pairs = [q for g in per_game for q in g]
            factor = shrink(pairs, fair)
            factors[str(ph)] = round(factor, 3)
            shown = held_out_pairs(per_game, fair)
            leader = brier([(r[f"leader@{ph}"][s], r["win"][s]) for r in rows for s in seats])
            even = brier([(fair, o) for _, o in pairs])
            print(f"  {ph:>5} {brier(pairs):>7.4f} {factor:>6.2f} {brier(shown):>8.4f} {leader:>7.4f} {even:>7.4f}")
            if ph == MIDDLE:
                figures = {"brier": round(brier(shown), 4), "raw_brier": round(brier(pairs), 4),
                           "leader_brier": round(leader, 4), "fair_brier": round(even, 4), **favourites(shown)}
                print("  at mid-game, raw and as shown (each half shrunk by the other half's factor):")
                print(f"  {'bin':<8} {'n':>5} {'predicted':>9} {'observed':>8}   shown: {'n':>5} {'predicted':>9} {'observed':>8}")
                raw = {b["bin"]: b for b in table(pairs)}
                after = {b["bin"]: b for b in table(shown)}
                for key in sorted(set(raw) | set(after)):
                    a, b = raw.get(key), after.get(key)
                    left = f"{a['n']:>5} {a['predicted']:>9.3f} {a['observed']:>8.3f}" if a else f"{'':>5} {'':>9} {'':>8}"
                    right = f"{b['n']:>5} {b['predicted']:>9.3f} {b['observed']:>8.3f}" if b else ""
                    print(f"  {key:<8} {left}          {right}")
        if as_json:
            print(json.dumps({"games": len(rows), "estimator": name, **figures, "shrink_by_progress": factors}))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--titles", nargs="+", default=sorted(catalog.TITLES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0, help="the first game's number (to run a long series in parts)")
    parser.add_argument("--estimators", nargs="+", default=[f"random:{ANALYSIS_BUDGET.playouts}"])
    parser.add_argument("--phases", nargs="+", type=float, default=[0.25, MIDDLE, 0.75])
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
                report(title, rows, args.estimators, args.phases, args.json)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for title in args.titles:
            futures = [pool.submit(one_game, title, args.players, f"{args.seed}-{k}", args.self_play, args.estimators,
                                   args.phases) for k in range(args.first, args.first + args.games)]
            rows = []
            for done in as_completed(futures):  # saved as each game ends: a run stopped early still counts
                rows.append(done.result())
                if args.save:
                    with Path(args.save).open("a", encoding="utf-8") as f:
                        f.write(json.dumps({"title": title, **rows[-1]}) + "\n")
            report(title, rows, args.estimators, args.phases, args.json)


def _seats_as_ints(row: dict[str, Any]) -> dict[str, Any]:
    """A saved row with its seats as numbers again (JSON keys are strings)."""
    def ints(d: dict[str, Any]) -> dict[int, Any]:
        return {int(k): v for k, v in d.items()}
    out = {k: v for k, v in row.items() if k != "title"}
    out["win"] = ints(row["win"])
    for k, v in row.items():
        if k.startswith("leader"):
            out[k] = ints(v)
        elif isinstance(v, dict) and "p" in v:
            out[k] = {**v, "p": ints(v["p"])}
    return out


if __name__ == "__main__":
    main()
