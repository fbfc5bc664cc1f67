"""Every test: the dispute checker's searches end at a move budget or a time cap, whichever comes first. These tests assert what
the search finds within its move budgets, so a loaded CI machine (two cores, other suites running) must not cut a
search short by the time caps: here the caps' clock runs `SLOWER` times slower than the process's CPU time."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from domain.kernel import dispute, explain, narrowing, toward_result

SLOWER = 10.0


@pytest.fixture(autouse=True)
def _unhurried_time_caps(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    clock = SimpleNamespace(process_time=lambda: time.process_time() / SLOWER)
    for module in (dispute, explain, narrowing, toward_result):
        monkeypatch.setattr(module, "time", clock)
    yield
