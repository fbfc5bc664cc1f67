"""Every sentence a dispute report gives, printed to be read as a table reads it (issue 30).

    .venv/bin/python -m benchmarks.report_sentences [--titles T ...] [--games 1] [--seed words]

Plants each slip kind of benchmarks/dispute_slips.py (its own planting) in played games of every title, at the
fewest and the most players, checks each file and prints, per finding, its sentence as the file's sender reads it
(`ALL`) and, where it differs, as a reader without tokens reads it (`PUB`), what the player held (`HELD`), what the
checker went on with (`READ`), and every unknown's sentence. tests/disputes/test_report_words_audit.py asserts what
no sentence may say; this is for reading the rest.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from typing import Any

from benchmarks.dispute_slips import PLANTERS, _turns, plant, play
from domain import catalog
from domain.kernel import ALL, reveal
from domain.transcripts import check_text


def sentences(titles: Sequence[str], games: int, seed: str) -> list[str]:
    out: list[str] = []
    rng = random.Random(seed)
    for title in titles:
        low, high = catalog.game(title).seats
        for players in sorted({low, high}):
            for k in range(games):
                lines = play(title, players, f"{seed}-{title}-{players}-{k}").text.split("\n")
                for kind in PLANTERS:
                    planted = plant(kind, lines, rng, _turns(lines))
                    if planted is not None:
                        out += _read(f"{title} {players}p {kind}", check_text("\n".join(planted.lines)).to_json())
    return out


def _read(case: str, report: dict[str, Any]) -> list[str]:
    whole, public = reveal(report, ALL), reveal(report, None)
    out = []
    for found, seen in zip(whole["findings"], public["findings"], strict=True):
        out += [f"## {case}, line {found['line']}, {found['rule']}", f"  ALL: {found['message']}"]
        if seen["message"] != found["message"]:
            out.append(f"  PUB: {seen['message']}")
        if found.get("holding"):
            out.append(f"  HELD: {found['holding']}")
        if found.get("assumed"):
            out.append(f"  READ: {found['assumed']}")
    out += [f"## {case}, unknown: {u.get('message')}" for u in whole["unknowns"]]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--titles", nargs="*", default=list(catalog.TITLES))
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--seed", default="words")
    args = parser.parse_args()
    print("\n".join(sentences(args.titles, args.games, args.seed)))


if __name__ == "__main__":
    main()
