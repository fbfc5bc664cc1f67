"""Every test: the dispute checker's searches end at a move budget or a time cap, whichever comes first. These tests assert what
the search finds within its move budgets, so a loaded CI machine (two cores, other suites running) must not cut a
search short by the time caps: here the caps' clock runs `SLOWER` times slower than the process's CPU time.

Tests marked `alone` measure response times (a p99 under 200 ms while crowds hold a server): on two cores, a
test on the other xdist worker starting a cluster or a browser stalls such a server for seconds, and the
measure would say more of the neighbour than of the server. The machine is shared through two `flock`s on
files of the run: every test holds the room shared; an `alone` test holds it exclusively, and first takes the
turnstile every test passes through, so no new test starts beside it while it waits for the room to empty.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import IO

import pytest

from domain.kernel import dispute, explain, narrowing, toward_result

SLOWER = 10.0


@pytest.fixture(autouse=True)
def _unhurried_time_caps(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    clock = SimpleNamespace(process_time=lambda: time.process_time() / SLOWER)
    for module in (dispute, explain, narrowing, toward_result):
        monkeypatch.setattr(module, "time", clock)
    yield


class MachineLock:
    """The turnstile and the room of one test run (the module docstring), both files named by xdist's run id."""

    def __init__(self, run: str, folder: Path | None = None) -> None:
        folder = folder or Path(tempfile.gettempdir())
        self.turnstile: IO[bytes] = (folder / f"cronaca-tests-{run}.turnstile").open("ab")
        self.room: IO[bytes] = (folder / f"cronaca-tests-{run}.room").open("ab")

    def enter(self, alone: bool) -> None:
        fcntl.flock(self.turnstile, fcntl.LOCK_EX)
        fcntl.flock(self.room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(self.turnstile, fcntl.LOCK_UN)

    def leave(self) -> None:
        fcntl.flock(self.room, fcntl.LOCK_UN)
        fcntl.flock(self.turnstile, fcntl.LOCK_UN)  # held only by an `alone` test; a no-op else


_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")  # set in xdist's workers only: one process needs no lock
_MACHINE = MachineLock(_RUN) if _RUN else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The `alone` tests first, then the fault suite's, then the rest (each group in its order). An `alone` test
    waits for the room to empty: at the start the other workers are on short tests, later one may be on one of the fault
    suite's minute-long ones, a core idle all that time; and the longest tests begun first leave no long tail to
    one worker at the end. Every worker sorts alike (xdist needs one order)."""
    def group(item: pytest.Item) -> int:
        return 0 if item.get_closest_marker("alone") else 1 if item.get_closest_marker("faults") else 2

    items.sort(key=group)  # stable: the order within a group is the collection's


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Setup, call and teardown of each test (its fixtures' too) inside the machine lock."""
    if _MACHINE is None:
        return (yield)
    _MACHINE.enter(alone=item.get_closest_marker("alone") is not None)
    try:
        return (yield)
    finally:
        _MACHINE.leave()
