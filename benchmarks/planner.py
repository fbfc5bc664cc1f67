"""How often the planner (domain.kernel.review.Planner) wins at one seat against the greedy bot at the others.

    .venv/bin/python -m benchmarks.planner --games 200 [--titles citta-stato la-citta serenissima]
        [--players 4] [--per-candidate N] [--candidates N] [--rollout greedy-lite|random] [--jobs 2] [--seed planner]

Game k of a title is seeded `{seed}-{k}` and seats the planner at seat k mod players (each seat in
turn, so the seat order's edge cancels out); every other seat is the greedy bot of domain.kernel.bots
with its defaults, and the table's chance is `SeededChance(seed)` as in `play_bot`, so a line is
reproduced exactly. The planner is asked `suggest` at each of its decisions with more than one legal
command, judging from its own seat's view (determinized playouts), at the budget the analysis suggests with
(the title's `bot_suggest`, domain.kernel.review.suggest_budget) unless the options say otherwise. A win is shared among tied seats,
so the fair share is 1/players. Printed per title: games, the planner's win share with a 95% interval
(normal approximation), its mean rank, CPU seconds per game and per planner decision. A line is printed
per game as it ends (the titles interleaved), so `--summarize LOG` gives the same table for a run
stopped early or for several runs' logs together (`--first` starts a run at a later game number).
"""

from __future__ import annotations

import argparse
import math
import re
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from domain import catalog
from domain.kernel.bots import GreedyBot
from domain.kernel.chance import SeededChance
from domain.kernel.commands import Command
from domain.kernel.review import POLICIES, Budget, Planner, final_standing, suggest_budget
from domain.kernel.selfplay import play_out


def one_game(title: str, players: int, seed: str, seat: int, budget: Budget) -> dict[str, Any]:
    """One seeded game, the planner at `seat`: its win share and rank, the CPU it spent and on how many decisions."""
    game = catalog.game(title)
    edition = game.default_edition()
    planner = Planner(budget, POLICIES[budget.rollout])
    greedy = GreedyBot()
    rng = SeededChance(seed + "/bot")
    recent: deque[Any] = deque(maxlen=32)
    spent = [0.0, 0]

    def choose(state: Any, n: int, players_rng: SeededChance) -> Command:
        if game.pending(state).seat == seat and len(game.legal(state)) > 1:
            started = time.process_time()
            command, _ = planner.suggest(game, state, f"{seed}/plan/{n}", recent)
            spent[0] += time.process_time() - started
            spent[1] += 1
            return command
        return greedy.choose(game, state, rng, f"{seed}/bot-think/{n}", recent)

    started = time.process_time()
    played = play_out(game, edition, {"players": players}, seed, choose, after=recent.append)
    win, rank, _ = final_standing(game, played.state)
    return {"win": win[seat], "rank": rank[seat], "cpu": time.process_time() - started,
            "planner_cpu": spent[0], "decisions": spent[1]}


def interval(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--titles", nargs="+", default=sorted(catalog.TITLES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--first", type=int, default=0, help="the first game's number (to run a long series in parts)")
    parser.add_argument("--per-candidate", type=int, help="default: the title's own suggest budget")
    parser.add_argument("--candidates", type=int, help="default: the title's own suggest budget")
    parser.add_argument("--rollout", choices=["greedy-lite", "random"], help="default: the title's own suggest budget")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", default="planner")
    parser.add_argument("--summarize", metavar="LOG", help="only summarize the game lines of an earlier run's output")
    args = parser.parse_args(argv)
    if args.summarize:
        summarize(args.summarize, args.players)
        return
    asked = {k: v for k, v in {"per_candidate": args.per_candidate, "candidates": args.candidates,
                               "rollout": args.rollout}.items() if v is not None}
    budgets = {title: replace(suggest_budget(catalog.game(title)), **asked) for title in args.titles}
    for title, budget in budgets.items():
        print(f"budget {title}: {budget}")
    games: dict[str, list[dict[str, Any]]] = {title: [] for title in args.titles}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # the titles interleaved, a line a game as it ends: a run stopped early still says something of each title
        jobs = {pool.submit(one_game, title, args.players, f"{args.seed}-{k}", k % args.players, budgets[title]): (title, k)
                for k in range(args.first, args.first + args.games) for title in args.titles}
        for done in as_completed(jobs):
            title, k = jobs[done]
            row = done.result()
            games[title].append(row)
            print(f"game {title} {k} seat {k % args.players}: win {row['win']:.3f} rank {row['rank']:.1f} "
                  f"cpu {row['cpu']:.1f}s planner {row['planner_cpu']:.1f}s/{row['decisions']}", flush=True)
    print(f"{'title':<12} {'games':>5} {'win share':>16} {'fair':>5} {'rank':>5} {'s/game':>7} {'ms/decision':>11}")
    for title, rows in games.items():
        summary(title, rows, args.players)


def summary(title: str, rows: Sequence[dict[str, Any]], players: int) -> None:
    win, half = interval([r["win"] for r in rows])
    rank = sum(r["rank"] for r in rows) / len(rows)
    cpu = sum(r["cpu"] for r in rows) / len(rows)
    per = 1000 * sum(r["planner_cpu"] for r in rows) / max(1, sum(r["decisions"] for r in rows))
    print(f"{title:<12} {len(rows):>5} {win:>8.3f} ± {half:.3f} {1 / players:>5.2f} {rank:>5.2f} {cpu:>7.1f} {per:>11.0f}")


GAME_LINE = re.compile(r"game (\S+) (\d+) seat \d+: win ([\d.]+) rank ([\d.]+) cpu ([\d.]+)s planner ([\d.]+)s/(\d+)")


def summarize(path: str, players: int) -> None:
    """The summary of a run's game lines (a run stopped early, or several runs' logs joined)."""
    games: dict[str, dict[int, dict[str, Any]]] = {}
    with Path(path).open(encoding="utf-8") as f:
        for line in f:
            m = GAME_LINE.match(line)
            if m:
                title, k, win, rank, cpu, planner, decisions = m.groups()
                games.setdefault(title, {})[int(k)] = {"win": float(win), "rank": float(rank), "cpu": float(cpu),
                                                       "planner_cpu": float(planner), "decisions": int(decisions)}
    print(f"{'title':<12} {'games':>5} {'win share':>16} {'fair':>5} {'rank':>5} {'s/game':>7} {'ms/decision':>11}")
    for title, rows in sorted(games.items()):
        summary(title, list(rows.values()), players)


if __name__ == "__main__":
    main()
