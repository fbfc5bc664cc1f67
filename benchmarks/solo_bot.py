"""How often the greedy bot wins each Città-Stato solo scenario on the real edition's targets.

    .venv/bin/python -m benchmarks.solo_bot --games 20 [--scenarios 1 2] [--carried 0]
    .venv/bin/python -m benchmarks.solo_bot --campaigns 3 --scenarios 1   # won campaigns' seeds

The first form plays `--games` seeded games of every scenario x game (1-3) of the campaign,
each starting with `--carried` crowns, and prints the win rate, the mean score against the
required one, how many objectives were met and the CPU seconds per game. Seeds are
`{seed}-s{scenario}-g{game}-{k}`, so a line is reproduced exactly.

The second form looks for won campaigns: for game 1 it tries seeds until the bot wins,
carries that game's crowns into game 2 through `next_game`, and so on; it prints each
campaign's seeds (what tests/citta_stato/test_solo_campaign_bot.py plays), or where it
gave up after `--tries` seeds of one game.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from domain.citta_stato import GAME
from domain.citta_stato.solo import next_game
from domain.kernel.bots import GreedyBot, play_bot
from domain.kernel.selfplay import PlayedGame

EDITION = GAME.default_edition()


def options(scenario: int, game: int, carried: int) -> dict[str, Any]:
    return {"players": 2, "solo": {"scenario": scenario, "game": game, "carried_crowns": carried}}


def seed_of(seed: str, scenario: int, game: int, k: int) -> str:
    return f"{seed}-s{scenario}-g{game}-{k}"


def play(bot: GreedyBot, scenario: int, game: int, carried: int, seed: str) -> tuple[PlayedGame, float]:
    cpu = time.process_time()
    played = play_bot(GAME, EDITION, options(scenario, game, carried), seed, bot)
    return played, time.process_time() - cpu


def rates(bot: GreedyBot, scenarios: list[int], numbers: list[int], games: int, carried: int, seed: str) -> None:
    print(f"{'scenario':>8} {'game':>4} {'won':>7} {'rate':>5} {'score':>11} {'objectives':>10} {'s/game':>6}  first won seeds")
    for n in scenarios:
        for g in numbers:
            won, scores, met, total_objectives, cpu, seeds = 0, 0, 0, 0, 0.0, []
            required = 0
            for k in range(games):
                s = seed_of(seed, n, g, k)
                played, dt = play(bot, n, g, carried, s)
                r = played.scores["solo"]
                required = r["required_score"]
                won += r["won"]
                scores += r["score"]
                met += sum(o["met"] for o in r["objectives"])
                total_objectives += len(r["objectives"])
                cpu += dt
                if r["won"] and len(seeds) < 3:
                    seeds.append(s)
            print(f"{n:>8} {g:>4} {won:>3}/{games:<3} {won / games:>5.0%} {scores / games:>6.1f}/{required:<4} "
                  f"{met:>4}/{total_objectives:<5} {cpu / games:>6.2f}  {' '.join(seeds)}", flush=True)


def campaigns(bot: GreedyBot, scenarios: list[int], count: int, tries: int, seed: str) -> None:
    for n in scenarios:
        for c in range(count):
            carried, chain, k = 0, [], 0
            for g in (1, 2, 3):
                for _ in range(tries):
                    s = f"{seed}-s{n}-c{c}-g{g}-{k}"
                    k += 1
                    played, _ = play(bot, n, g, carried, s)
                    if played.scores["solo"]["won"]:
                        break
                else:
                    print(f"scenario {n} campaign {c}: no won game {g} in {tries} seeds (carried {carried}); won so far {chain}")
                    break
                step = next_game(played.state)
                chain.append((s, played.scores["solo"]["score"], carried))
                if step["next"] is not None:
                    carried = step["next"]["solo"]["carried_crowns"]
            else:
                print(f"scenario {n} campaign {c} won: " + ", ".join(f"game {g + 1} {s} score {sc} carried in {ci}"
                                                                     for g, (s, sc, ci) in enumerate(chain)), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10, help="seeded games per scenario x game")
    ap.add_argument("--scenarios", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--game", type=int, nargs="+", default=[1, 2, 3], help="which games of each campaign")
    ap.add_argument("--carried", type=int, default=0, help="crowns carried into every game")
    ap.add_argument("--seed", default="solo-bot")
    ap.add_argument("--campaigns", type=int, default=0, help="look for this many won campaigns per scenario instead")
    ap.add_argument("--tries", type=int, default=30, help="seeds tried per game of a campaign")
    ap.add_argument("--turns", type=int, default=GreedyBot.turns, help="the bot's own turns followed after a choice")
    ap.add_argument("--steps", type=int, default=GreedyBot.steps, help="at most this many commands followed")
    ap.add_argument("--width", type=int, default=GreedyBot.width, help="commands tried at each followed step")
    a = ap.parse_args(argv)
    bot = GreedyBot(turns=a.turns, steps=a.steps, width=a.width)
    if a.campaigns:
        campaigns(bot, a.scenarios, a.campaigns, a.tries, a.seed)
    else:
        rates(bot, a.scenarios, a.game, a.games, a.carried, a.seed)


if __name__ == "__main__":
    main()
