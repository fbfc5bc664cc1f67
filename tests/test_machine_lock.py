"""The suite's machine lock (tests/conftest.py): an `alone` test runs with no other test beside it, and a test
that waits for the room does not let newer tests in ahead of it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.conftest import MachineLock


def test_an_alone_test_waits_for_the_room_to_empty_and_then_holds_it(tmp_path: Path) -> None:
    neighbour, measurer, latecomer = (MachineLock("run", tmp_path) for _ in range(3))
    seen: list[str] = []
    neighbour.enter(alone=False)

    def measure() -> None:
        measurer.enter(alone=True)
        seen.append("alone in")
        time.sleep(0.3)
        seen.append("alone out")
        measurer.leave()

    def arrive_late() -> None:
        latecomer.enter(alone=False)
        seen.append("latecomer in")
        latecomer.leave()

    alone = threading.Thread(target=measure)
    alone.start()
    time.sleep(0.2)
    assert seen == [], "the alone test started beside a running test"
    late = threading.Thread(target=arrive_late)
    late.start()  # arrives while the alone test waits: it must not pass it
    time.sleep(0.2)
    assert seen == []
    seen.append("neighbour out")
    neighbour.leave()
    alone.join(timeout=5)
    late.join(timeout=5)
    assert seen == ["neighbour out", "alone in", "alone out", "latecomer in"]


def test_ordinary_tests_share_the_room(tmp_path: Path) -> None:
    first, second = MachineLock("run", tmp_path), MachineLock("run", tmp_path)
    first.enter(alone=False)
    entered = threading.Event()

    def enter() -> None:
        second.enter(alone=False)
        entered.set()
        second.leave()

    thread = threading.Thread(target=enter)
    thread.start()
    assert entered.wait(timeout=2), "two ordinary tests could not run side by side"
    thread.join()
    first.leave()
