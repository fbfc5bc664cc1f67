"""The dispute checker on Setup outcomes nobody wrote down: each bracket of the hand-typed files' Setup lines swapped
for `[?]`, one at a time, and the file checked again.

    .venv/bin/python -m benchmarks.setup_unknowns [--only STEM] [--slower 0.1] [--json FILE]

People often leave the start of a game unwritten (the display of cards, the cities, a closed port); the rest of
the file usually says what it was. For every `tests/disputes/*.txt` file and every bracket of its Setup line, the
file is checked as written and with that bracket written `[?]`, and the findings are compared by (line, rule):
"reads alike" when they are the same (the unknown settled by the lines after it, or left open without a finding
resting on its guess). Reported: how many variants read otherwise, each one listed with what it adds and loses,
and the CPU time of the slowest check. `--slower 0.1` (the default) runs the caps' clock ten times slower than
the CPU, as the tests do (tests/conftest.py), so the figures say what the checker's work caps find, the same on
any machine; `--slower 1` is production's clock. Takes about 7 minutes on this machine (376 variants).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from domain.kernel import dispute, explain, narrowing, toward_result
from domain.transcripts import check_text

HERE = Path(__file__).resolve().parent.parent / "tests" / "disputes"
BRACKET = re.compile(r"\[[^\]]*\]")


def findings(text: str) -> list[tuple[int, str]]:
    return sorted({(f.line, f.rule) for f in check_text(text).findings})


def variants(text: str) -> list[tuple[str, str]]:
    """(the bracket, the file with it written `[?]`) for each bracket of each Setup line."""
    lines = text.split("\n")
    out: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        if not line.startswith("Setup"):
            continue
        for found in BRACKET.finditer(line):
            if found.group() == "[?]":
                continue
            changed = lines[:]
            changed[i] = line[: found.start()] + "[?]" + line[found.end():]
            out.append((f"{i + 1}:{found.group()}", "\n".join(changed)))
    return out


def run(only: str = "") -> dict[str, Any]:
    result: dict[str, Any] = {}
    for path in sorted(HERE.glob("*.txt")):
        if only not in path.stem:
            continue
        text = path.read_text(encoding="utf-8")
        written = findings(text)
        for where, changed in variants(text):
            started = time.process_time()
            got = findings(changed)
            result[f"{path.stem}:{where}"] = {"written": written, "unknown": got, "alike": got == written,
                                               "cpu": round(time.process_time() - started, 2)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="only the files whose name holds this")
    parser.add_argument("--slower", type=float, default=0.1, help="count each CPU second this many times in the caps")
    parser.add_argument("--json", help="write every variant's findings to this file")
    args = parser.parse_args()
    clock = SimpleNamespace(process_time=lambda: time.process_time() * args.slower)
    for module in (dispute, explain, narrowing, toward_result):
        module.time = clock  # type: ignore[attr-defined]
    result = run(args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
    otherwise = {k: v for k, v in result.items() if not v["alike"]}
    for key, v in otherwise.items():
        written, unknown = set(map(tuple, v["written"])), set(map(tuple, v["unknown"]))
        print(f"{key[:80]}: adds {sorted(unknown - written)[:3]}, loses {sorted(written - unknown)[:3]}")
    slowest = max((v["cpu"] for v in result.values()), default=0.0)
    print(f"{len(otherwise)} of {len(result)} variants read otherwise; the slowest check {slowest} s of CPU")


if __name__ == "__main__":
    main()
