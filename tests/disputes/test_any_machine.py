"""A file reads alike on a slow machine as on a quick one: the checker's searches and narrowings end at their caps in
commands decided, and their caps in process time are guards (kernel.explain). Caps of 0.3-0.8 s of CPU read these
hand-typed files otherwise on a machine twice as slow: a search cut short by the clock read a slip as dozens of
findings, and an unknown the commands would have settled stayed open."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from domain.kernel import dispute, explain, narrowing, toward_result
from domain.transcripts import check_text

HERE = Path(__file__).parent


def _read(stem: str) -> dict[str, Any]:
    said = check_text((HERE / f"{stem}.txt").read_text(encoding="utf-8")).to_json()
    said.pop("explaining", None)  # what the check spent: its seconds differ from run to run
    return said


@pytest.mark.parametrize("stem", ["serenissima_galley_turn_left_out", "la_citta_blind_draws"])
def test_a_machine_twice_as_slow_reads_a_file_as_the_tests_do(stem: str, monkeypatch: pytest.MonkeyPatch) -> None:
    unhurried = _read(stem)  # the tests' clock: ten times slower than the CPU (tests/conftest.py)
    slow = SimpleNamespace(process_time=lambda: time.process_time() * 2)  # each second of CPU counted twice
    for module in (dispute, explain, narrowing, toward_result):
        monkeypatch.setattr(module, "time", slow)
    assert _read(stem) == unhurried
