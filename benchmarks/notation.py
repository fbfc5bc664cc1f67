"""Parse + check throughput of the table notation, beside JSON validation and python-chess.

    .venv/bin/python -m benchmarks.notation citta-stato --players 4 --games 20 [--repeat 3]

Plays `--games` seeded random games and renders each in the title's notation, then times,
in CPU seconds of this one process (each the best of `--repeat` rounds, taken in turn):
* json: validating the game's record file as an import does today (json.loads, the
  kernel's Entry.from_json, `replay` re-deciding every command and comparing events);
* notation: `domain.transcripts.check_text` on the rendered file (parse, the title's
  words to commands, re-deciding every move, the result compared), and the parse alone
  (`domain.kernel.notation.parse`: lines read one at a time by the plan of their token
  kinds, lark parsing each new kind of line once; see the notation module);
* python-chess: `chess.pgn.read_game` on seeded random games with as many plies as the
  title's games have moves (a ply is one decision, a move of the notation is one too).
Targets (issue 12): notation <= 1.5x json; one full game <= 50 ms per core.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from benchmarks.engine import measure_chess
from domain import catalog
from domain.kernel import Entry, replay
from domain.kernel.notation import parse
from domain.kernel.selfplay import play_random
from domain.transcripts import check_text, render_log


def measure(title: str, options: dict[str, Any], games: int, seed: str, repeat: int) -> dict[str, float]:
    game = catalog.game(title)
    edition = game.default_edition()
    played = [play_random(game, edition, options, f"{seed}-{k}") for k in range(games)]
    names = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
    files = [json.dumps({"entries": [e.to_json() for e in p.entries]}) for p in played]
    texts = [render_log(title, edition, p.entries, names[: len(p.scores["seats"])], options, p.scores) for p in played]
    moves = sum(len(p.entries) - 1 for p in played)

    def timed(run: Any) -> float:
        cpu = time.process_time()
        run()
        return time.process_time() - cpu

    def validate_json() -> None:
        for raw in files:
            entries = [Entry.from_json(e) for e in json.loads(raw)["entries"]]
            report, _ = replay(game, edition, entries)
            assert report.ok

    def check_notation() -> None:
        for text in texts:
            report = check_text(text)
            assert report.ok, report.findings[:1]

    def parse_notation() -> None:
        for text in texts:
            assert not parse(text).errors

    # the three in turn, `repeat` times, best of each: a load that comes and goes weighs on all three alike
    runs = [(timed(validate_json), timed(check_notation), timed(parse_notation)) for _ in range(repeat)]
    json_s, notation_s, parse_s = (min(run[k] for run in runs) for k in range(3))
    return {"games": games, "moves": moves, "lines": sum(t.count("\n") for t in texts), "json_s": json_s,
            "notation_s": notation_s, "parse_s": parse_s, "chars": sum(len(t) for t in texts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("title", choices=sorted(catalog.TITLES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = measure(args.title, {"players": args.players}, args.games, args.seed, args.repeat)
    anchor = measure_chess(int(result["moves"]), args.seed, args.repeat)
    per_game = result["notation_s"] / result["games"] * 1000
    print(
        f"{args.title} players={args.players} games={args.games} moves={result['moves']:.0f} "
        f"lines={result['lines']:.0f} chars={result['chars']:.0f}\n"
        f"  json validation:  {result['json_s'] / result['games'] * 1000:8.2f} ms/game\n"
        f"  notation check:   {per_game:8.2f} ms/game  ({result['notation_s'] / result['json_s']:.2f}x json; target <= 1.5x,"
        f" <= 50 ms/game)\n"
        f"    of which parse: {result['parse_s'] / result['games'] * 1000:8.2f} ms/game\n"
        f"  moves/CPU-s: notation {result['moves'] / result['notation_s']:,.0f}, python-chess read_game "
        f"{anchor['plies_per_s']:,.0f} plies/CPU-s ({result['moves'] / result['notation_s'] / anchor['plies_per_s']:.2f}x)"
    )


if __name__ == "__main__":
    main()
