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


# The longest tests first, longest first (9-70 s each on a quiet two-core machine, session 22's run): xdist hands
# tests out in collection order, and one of these met at the end kept a worker busy while the other had nothing
# left. The `alone` tests stay where they are (first, they would wait for the other worker's long test).
LONGEST = (
    "tests/faults/test_jobs.py::test_redis_down_for_a_minute",
    "tests/faults/test_jobs.py::test_workers_killed_mid_job",
    "tests/faults/test_fuzz.py::test_mutated_files_through_http",
    "tests/service/test_table_page.py::test_a_game_at_the_table_is_entered_to_its_end",
    "tests/service/test_table_page.py::test_a_live_game_is_played_to_its_end_by_tapping",
    "tests/service/test_operations.py::test_the_procfile_under_honcho",
    "tests/service/test_analysis_page.py::",
    "tests/la_citta/test_random_play.py::",
    "tests/faults/test_fuzz.py::test_schemathesis",
    "tests/service/test_secrets_in_progress.py::test_a_secret_in_the_last_command",
    "tests/service/test_schema.py::test_four_worker_gunicorn",
    "tests/service/test_teaching_flow.py::test_a_lesson_built_in_the_browser",
    "tests/service/test_lesson_page.py::test_a_class_follows_a_lesson",
    "tests/service/test_quickstart.py::",
    "tests/service/test_viewer_access.py::test_a_teacher_presents",
    "tests/citta_stato/test_random_play.py::",
    "tests/serenissima/test_selfplay.py::",
    "tests/service/test_share_page.py::test_a_step_is_copied_as_a_picture",
    "tests/service/test_poison_imports.py::test_mutated_exports",
    "tests/disputes/test_every_door.py::test_each_bad_file",
    "tests/service/test_seat_names.py::test_any_accepted_names_round_trip",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The LONGEST tests first, in its order; every other test after them in the order collected."""
    def rank(item: pytest.Item) -> int:
        return next((k for k, start in enumerate(LONGEST) if item.nodeid.startswith(start)), len(LONGEST))

    items.sort(key=rank)


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
