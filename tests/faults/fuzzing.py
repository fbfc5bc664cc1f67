"""What the fuzzing pass (test_fuzz.py) needs besides its tests: a notation-file mutator, an API host's
CPU time and logged faults, and a view of every stream in the event store.

The record-file mutator is tests/service/test_poison_imports.py's (`mutate`), imported, not copied;
the API host is the suite's (tests/faults/harness.py: the Procfile's `api` line).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

# ---- notation files ------------------------------------------------------------------------

# What a hand-edited or damaged notation file holds in place of a word: nothing, a stray bracket or
# quote, a number out of range, a word of another title, control characters, a very long word.
ODD_TOKENS = ("", "x", "99", "-1", "0.", "[", "]", '"', "[]", "[?]", ":", ",", "pass", "roll", "draw", "\t", "\x00",
              "ß", "🂡", "L999", "Z9", "[Result", '"]', "1.", "...", "x" * 300)


def mutate_notation(text: str, rng: random.Random) -> tuple[str, list[str]]:
    """One or two damages to a notation file: a line dropped, duplicated or swapped with the next, a
    word replaced, reversed or doubled, a byte's bit flipped (the file stays text: an invalid byte
    is decoded as U+FFFD, as an upload decoder would), or the file cut short."""
    lines = text.split("\n")
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 2))):
        kind = rng.randrange(7)
        at = rng.randrange(len(lines))
        if not any(lines):  # cut to nothing by the first damage: that is the file
            break
        if kind == 0 and len(lines) > 1:
            del lines[at]
            done.append(f"line {at} dropped")
        elif kind == 1 and len(lines) > 1:
            at = min(at, len(lines) - 2)
            lines[at], lines[at + 1] = lines[at + 1], lines[at]
            done.append(f"lines {at} and {at + 1} swapped")
        elif kind == 2:
            lines.insert(at, lines[rng.randrange(len(lines))])
            done.append(f"a line repeated at {at}")
        elif kind in (3, 4):
            words = lines[at].split(" ")
            k = rng.randrange(len(words))
            word = words[k]
            words[k] = rng.choice((*ODD_TOKENS, word[::-1], word + word, word.upper(), str(rng.randrange(-5, 500))))
            lines[at] = " ".join(words)
            done.append(f"line {at} word {k}: {word!r} -> {words[k][:20]!r}")
        elif kind == 5:
            raw = bytearray("\n".join(lines).encode("utf-8"))
            k = rng.randrange(len(raw))
            raw[k] ^= 1 << rng.randrange(8)
            lines = raw.decode("utf-8", "replace").split("\n")
            done.append(f"byte {k} flipped")
        else:
            joined = "\n".join(lines)
            cut = rng.randrange(len(joined))
            lines = joined[:cut].split("\n")
            done.append(f"cut at {cut}")
    return "\n".join(lines), done


# ---- the API host's own account -----------------------------------------------------------------


def group_cpu_seconds(group: int) -> float:
    """CPU time used so far by a process group's processes (a Procfile line: gunicorn's master and workers),
    from /proc: what a pass costs, whatever else the machine is doing."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # ended meanwhile
        if int(fields[2]) == group:
            total += sum(int(v) for v in fields[11:15])  # utime, stime, and those of its reaped children
    return total / os.sysconf("SC_CLK_TCK")


def log_errors(log: Path) -> list[str]:
    """The lines of a process's log that tell of an unhandled exception: a 500's trace, or a job's
    internal error (each logged with its traceback)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return [line for line in text.splitlines() if "Traceback" in line or "Exception on" in line]


# ---- the store's streams ----------------------------------------------------------------------


@dataclass(frozen=True)
class Stream:
    version: int  # the last event's
    kind: str  # the aggregate's class, from its first event's topic: Record, Import, ...


def streams(dsn: str) -> dict[UUID, Stream]:
    """Every stream of the records application's event table: id, last version, what aggregate it is."""
    import psycopg

    with psycopg.connect(dsn, connect_timeout=5) as conn:
        rows = conn.execute(
            "SELECT e.originator_id, max(e.originator_version), "
            "min(e.topic) FILTER (WHERE e.originator_version = 1) FROM records_events e GROUP BY e.originator_id"
        ).fetchall()
    return {UUID(str(stream_id)): Stream(int(version), _kind(topic)) for stream_id, version, topic in rows}


def _kind(topic: Any) -> str:
    """'domain.records.aggregates:Record.Created' -> 'Record'."""
    return str(topic or "?").rpartition(":")[2].partition(".")[0]


def elapsed(since: float) -> float:
    return round(time.monotonic() - since, 1)
