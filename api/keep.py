"""`cronaca keep -- COMMAND...`: run a command and start it again whenever it dies, with backoff.

honcho (the Procfile's runner) stops every process as soon as one exits and never restarts anything, so each
Procfile line runs under this: a gunicorn master, a worker or the relay that dies (a crash, an OOM kill, a
SIGKILL) is started again after 1 s, then 2, 4... up to CRONACA_KEEP_MAX_BACKOFF seconds (default 30) while it
keeps dying young; a run that lasted CRONACA_KEEP_RESET seconds (default 60) starts the backoff over.

A stop is told from a death by who received the signal: after SIGTERM, SIGINT or SIGHUP to `keep`, nothing is
started again, and `keep` exits with the command's code once it has stopped. The command stays in keep's process
group, so a signal to the group (honcho's way, a test harness's, `kill -- -PGID`) reaches it directly, SIGSTOP and
SIGKILL included; `keep` does not pass that signal on at once, since an RQ worker takes a second SIGTERM as "stop
now, abandon the job". Only if the command is still running FORWARD_AFTER seconds later (the signal was sent to
`keep` alone) does `keep` pass it on; CRONACA_KEEP_STOP_WAIT seconds (default 10) after that, SIGKILL. On Linux
the command also has a parent-death signal: if `keep` alone is SIGKILLed, the command is killed too, never left
running unsupervised. Each start and each death is one log line (api/logs.py), with the command's name only.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from types import FrameType

from domain.records.settings import keep_timings

log = logging.getLogger("cronaca.keep")

STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
FORWARD_AFTER = 2.0  # seconds a command has to stop on a group signal before keep sends it the signal itself


class Keeper:
    """Runs `argv` until told to stop; `sleep` and `clock` are injectable so the backoff can be tested quickly."""

    def __init__(self, argv: Sequence[str], max_backoff: float = 30.0, reset_after: float = 60.0,
                 stop_wait: float = 10.0, max_starts: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not argv:
            raise ValueError("cronaca keep needs a command after --, e.g. cronaca keep -- cronaca worker")
        self.argv = list(argv)
        self.max_backoff = max_backoff
        self.reset_after = reset_after
        self.stop_wait = stop_wait
        self.max_starts = max_starts
        self.clock = clock
        self.stopping = threading.Event()
        self.stop_signal = signal.SIGTERM
        self.child: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def stop(self, signum: int = signal.SIGTERM) -> None:
        """Stop for good: no restart; the command is waited for (and signalled if it does not stop, `_wait`)."""
        self.stop_signal = signal.Signals(signum)
        self.stopping.set()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop(signum)

    def install_signals(self) -> None:
        for signum in STOPS:
            signal.signal(signum, self._on_signal)

    def backoff(self, delay: float, ran: float) -> float:
        """The wait before the next start: back to 1 s after a long run, doubled after a short one."""
        if ran >= self.reset_after:
            return 1.0
        return min(self.max_backoff, max(1.0, delay * 2))

    def run(self) -> int:
        delay = 0.5  # doubled to 1 s at the first death
        code = 0
        name = os.path.basename(self.argv[0])
        while not self.stopping.is_set():
            started = self.clock()
            self.starts += 1
            self.child = subprocess.Popen(self.argv, preexec_fn=_die_with_parent(os.getpid()))
            log.info("keep: started %s (pid %s, start %d)", name, self.child.pid, self.starts)
            code = self._wait()
            if self.stopping.is_set():
                log.info("keep: %s stopped (exit %s)", name, code)
                return code
            ran = self.clock() - started
            delay = self.backoff(delay, ran)
            log.warning("keep: %s died (exit %s) after %.1f s; starting it again in %.0f s", name, code, ran, delay)
            if self.max_starts is not None and self.starts >= self.max_starts:
                return code
            self.stopping.wait(delay)
        return code

    def _wait(self) -> int:
        """The command's exit code (128 + the signal's number when a signal ended it)."""
        assert self.child is not None
        while True:
            try:
                return _code(self.child.wait(timeout=0.2))
            except subprocess.TimeoutExpired:
                if self.stopping.is_set():
                    return self._stop_child()

    def _stop_child(self) -> int:
        """A group signal has reached the command too: give it FORWARD_AFTER s; then the signal; then SIGKILL."""
        assert self.child is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            return _code(self.child.wait(timeout=min(FORWARD_AFTER, self.stop_wait)))
        with contextlib.suppress(ProcessLookupError):
            self.child.send_signal(self.stop_signal)
        with contextlib.suppress(subprocess.TimeoutExpired):
            return _code(self.child.wait(timeout=self.stop_wait))
        log.warning("keep: %s did not stop within %.0f s; killing it", self.argv[0], self.stop_wait)
        self.child.kill()
        return _code(self.child.wait())


def _code(returncode: int) -> int:
    return returncode if returncode >= 0 else 128 - returncode


def _die_with_parent(parent: int) -> Callable[[], None] | None:
    """Linux: the command gets SIGKILL when `keep` dies, whatever kills it (prctl PR_SET_PDEATHSIG)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def arm() -> None:  # in the child, between fork and exec
        prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # keep died before the signal was armed
            os._exit(1)

    return arm


def keep(argv: Sequence[str], env: dict[str, str] | None = None) -> int:
    """The `cronaca keep` command: configured by CRONACA_KEEP_* (domain/records/settings.py, keep_timings)."""
    max_backoff, reset_after, stop_wait = keep_timings(os.environ if env is None else env)
    keeper = Keeper(argv, max_backoff=max_backoff, reset_after=reset_after, stop_wait=stop_wait)
    keeper.install_signals()
    return keeper.run()
