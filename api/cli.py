"""`cronaca`: the command line. Each subcommand is a thin edge over domain, api or workers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from domain import catalog
from domain.kernel import MalformedCommand, RuleViolation
from domain.kernel.selfplay import play_random


def _selfplay(args: argparse.Namespace) -> int:
    game = catalog.game(args.title)
    edition = game.default_edition()
    options: dict[str, object] = {"players": args.players}
    if args.solo is not None:
        options = {"players": 2, "solo": {"scenario": args.solo, "game": args.solo_game, "carried_crowns": args.carried_crowns}}
    if args.option:
        for item in args.option:
            key, _, value = item.partition("=")
            options[key] = value if not value.lstrip("-").isdigit() else int(value)
    for k in range(args.games):
        seed = f"{args.seed}-{k}"
        played = play_random(game, edition, options, seed)
        scores = played.scores
        totals = {s["seat"]: s["total"] for s in scores["seats"]}
        winner = scores["ranking"][0] if scores["ranking"] else None
        ranked = " ".join(f"{seat}:{totals[seat]}" for seat in scores["ranking"])
        print(f"game {k + 1} seed={seed} winner=seat {winner} scores=[{ranked}] events={played.event_count}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cronaca", description="Game records and replays.")
    sub = parser.add_subparsers(dest="command", required=True)

    sp = sub.add_parser("selfplay", help="play random legal games and print one summary line each")
    sp.add_argument("title", choices=sorted(catalog.TITLES))
    sp.add_argument("--players", type=int, default=2)
    sp.add_argument("--games", type=int, default=1)
    sp.add_argument("--seed", default="cronaca")
    sp.add_argument("--solo", type=int, default=None, help="Città-Stato solo scenario (1-4)")
    sp.add_argument("--solo-game", type=int, default=1, help="game of the solo campaign (1-3)")
    sp.add_argument("--carried-crowns", type=int, default=0, help="crowns carried into this solo game from the previous one")
    sp.add_argument("--option", action="append", help="extra game option KEY=VALUE")
    sp.set_defaults(run=_selfplay)

    try:
        from api import service_cli
    except ImportError:
        pass
    else:
        service_cli.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except RuleViolation as exc:
        parser.exit(2, f"cronaca: {exc.rule}: {exc.message}\n")
    except MalformedCommand as exc:
        parser.exit(2, f"cronaca: {exc.message}\n")


if __name__ == "__main__":
    sys.exit(main())
