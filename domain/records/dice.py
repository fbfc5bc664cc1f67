"""Shared dice: chance that no single party controls (issue 15; the protocol is docs/trust.md).

A live record started with `"dice": "shared"` draws every outcome from the service's seed
*and* the seats' secrets together. Each seat commits to a secret of its own when it joins
(`seat_commitment(secret)`), and hands the service, for every log entry k it takes part in,
`contribution(secret, k)`: an HMAC the service cannot compute ahead of time (it never sees the
secret until the end) and the seat cannot choose (it is fixed by the committed secret). Entry
k's outcomes come from `SeededChance(entry_seed(service_seed, k, contributions))`, so before
the reveals nobody, the service included, can predict a draw, and after them anyone can
recompute every one of them.

Pure: no I/O, no clock. The record file's `"chance"` object (recordfile.export) is what these
functions read: `{"commitment", "seed", "dice": "shared", "seats": [{"seat", "commitment",
"secret"?, "contributions": {"<k>": hex}}]}`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

SHARED = "shared"  # the record's `dice` option: every seat contributes
SERVICE = "service"  # an outcome's `by`: drawn by the service from committed seeds (provable)
TRANSCRIBER = "transcriber"  # an outcome's `by`: asserted by a table's transcript (its word)

HEX64 = re.compile(r"[0-9a-f]{64}")
DERIVATION = ("entry k: SeededChance(sha256(canonical JSON {seed, entry: k, seats: the contributions of entry k in seat "
              "order})); contribution = HMAC-SHA256(seat secret, 'cronaca/entry/' + k) (docs/trust.md)")


def canonical(obj: Any) -> bytes:
    """The one JSON encoding hashed anywhere in issue 15 (the same as chain.canonical)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def seat_commitment(secret: str) -> str:
    """What a seat publishes when it joins: the SHA-256 of its secret (UTF-8), in lower-case hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def contribution(secret: str, k: int) -> str:
    """A seat's part of log entry k's chance: HMAC-SHA256, key = the secret, message = "cronaca/entry/<k>"."""
    return hmac.new(secret.encode(), f"cronaca/entry/{k}".encode(), hashlib.sha256).hexdigest()


def entry_seed(service_seed: str, k: int, contributions: Sequence[str]) -> str:
    """The seed of log entry k's SeededChance on a shared-dice record: the SHA-256 (hex) of the canonical JSON
    {"entry": k, "seats": [...], "seed": service_seed} — the contributions of the seats that took part in k,
    in seat order (the setup: every seat; a command: the acting seat only)."""
    return hashlib.sha256(canonical({"seed": service_seed, "entry": k, "seats": list(contributions)})).hexdigest()


def is_hex64(value: Any) -> bool:
    """A commitment or a contribution as the protocol writes it: 64 lower-case hex digits."""
    return isinstance(value, str) and HEX64.fullmatch(value) is not None


def contributions_of(seats: Sequence[Mapping[str, Any]], k: int) -> list[str]:
    """The contributions recorded for entry k, in seat order (`chance.seats` of a record file)."""
    ordered = sorted(seats, key=lambda s: int(s.get("seat", 0)))
    return [str(s["contributions"][str(k)]) for s in ordered if str(k) in (s.get("contributions") or {})]


def seeds(chance: Mapping[str, Any]) -> Callable[[int], str]:
    """k -> entry k's SeededChance seed, for a record file's `chance` (shared dice or not; the seed revealed)."""
    seed = str(chance.get("seed"))
    if chance.get("dice") != SHARED:
        return lambda k: f"{seed}/{k}"  # the service alone (recordfile.entry_seed)
    seats = list(chance.get("seats") or [])
    return lambda k: entry_seed(seed, k, contributions_of(seats, k))


def check_reveals(chance: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every seat's revealed secret against its commitment, and every contribution against the secret.

    One finding per problem: {"seat", "entry" (None for the seat as a whole), "rule", "what"}. A seat
    that has not revealed is a finding too (`dice/unrevealed`): the entries it took part in cannot be
    recomputed. No findings: every outcome can be recomputed from the file alone."""
    if chance.get("dice") != SHARED:
        return []
    found: list[dict[str, Any]] = []

    def finding(seat: Any, entry: int | None, rule: str, what: str) -> None:
        found.append({"seat": seat, "entry": entry, "rule": rule, "what": what})

    seats = chance.get("seats")
    if not isinstance(seats, list) or not seats:
        finding(None, None, "dice/seats", "a shared-dice record names its seats' commitments under chance.seats; there are none")
        return found
    for place, seat in enumerate(seats):
        if not isinstance(seat, Mapping):
            finding(place, None, "dice/seats", f"chance.seats.{place} is not an object")
            continue
        number = seat.get("seat", place)
        promised, secret = seat.get("commitment"), seat.get("secret")
        contributions = seat.get("contributions") or {}
        if not is_hex64(promised):
            finding(number, None, "dice/commitment", f"seat {number}'s commitment is not 64 lower-case hex digits")
            continue
        if secret is None:
            finding(number, None, "dice/unrevealed", f"seat {number} has not revealed its secret: the entries it took part in "
                    f"({', '.join(sorted(contributions, key=_as_int)) or 'none'}) cannot be recomputed")
            continue
        if not isinstance(secret, str) or seat_commitment(secret) != promised:
            finding(number, None, "dice/secret", f"seat {number}'s revealed secret does not match its commitment "
                    f"(sha256 of the secret is {seat_commitment(str(secret))}, the commitment {promised})")
            continue
        if not isinstance(contributions, Mapping):
            finding(number, None, "dice/contributions", f"seat {number}'s contributions are not an object")
            continue
        for key in sorted(contributions, key=_as_int):
            k = _as_int(key)
            if k < 0:
                finding(number, None, "dice/contributions", f"seat {number}: {key!r} is not an entry number")
                continue
            if contributions[key] != contribution(secret, k):
                finding(number, k, "dice/contribution",
                        f"entry {k}: seat {number}'s contribution is not HMAC-SHA256(its secret, 'cronaca/entry/{k}')")
    return found


def _as_int(key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        return -1


def by_of(mode: str) -> str:
    """Who an outcome of a record of this mode comes from (for stored entries written before `by` existed)."""
    return SERVICE if mode == "live" else TRANSCRIBER


def mark_outcomes(entries: Sequence[Mapping[str, Any]], mode: str) -> list[dict[str, Any]]:
    """Entries with every outcome carrying its `by` (kept where it already says; else derived from the mode)."""
    default = by_of(mode)
    marked = []
    for entry in entries:
        outcomes = entry.get("outcomes")
        if isinstance(outcomes, list):
            entry = {**entry, "outcomes": [{**o, "by": o.get("by") or default} if isinstance(o, Mapping) else o
                                           for o in outcomes]}
        marked.append(dict(entry))
    return marked


def seats_status(seats: Sequence[Mapping[str, Any]], finished_at: str | None, deadline_at: str | None,
                 now: str | None) -> list[dict[str, Any]]:
    """Each seat's place in the protocol: "waiting" (not joined), "joined", "revealed", or "unverifiable" (the game
    ended, the reveal deadline passed, and it has not revealed). Times are ISO 8601 UTC strings (compared as text)."""
    out = []
    for seat in seats:
        if seat.get("commitment") is None:
            status = "waiting"
        elif seat.get("secret") is not None:
            status = "revealed"
        elif finished_at is not None and deadline_at is not None and now is not None and now > deadline_at:
            status = "unverifiable"
        else:
            status = "joined"
        out.append({"seat": seat.get("seat"), "status": status})
    return out
