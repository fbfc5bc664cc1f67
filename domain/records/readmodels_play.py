"""What live play answers (play.py): a command played, a seat joining shared dice, a seat revealing its secret;
typed (readmodels.py's kin). Each `to_json()` is the API's answer to `POST .../commands`, `.../seats/{n}/join` and
`.../seats/{n}/reveal`, key for key and in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class CommandPlayed:
    """A command's events (payloads only once it ended the game: else each step's type, redacted) and the seat's
    view and pending decision right after it, as they were then (a retry gets the same answer)."""

    version: int
    first_step: int  # the step of its first event
    last_step: int  # the step after its last event
    events: list[dict[str, Any]]  # {"step", ...the event's JSON} or {"step", "type", "redacted": true}
    finished: bool
    view: Any
    pending: dict[str, Any]  # in full for the seat that decides next (or once finished), else its seat and kind

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "steps": [self.first_step, self.last_step], "events": self.events,
                "finished": self.finished, "view": self.view, "pending": self.pending}


@dataclass(frozen=True, slots=True)
class Joined:
    """A seat's commitment taken (shared dice); `started` when it was the last to join and the setup was drawn."""

    seat: int
    commitment: str
    waiting: list[int]  # the seats that have not joined yet
    started: bool
    version: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "commitment": self.commitment, "waiting": self.waiting, "started": self.started,
                "version": self.version}


@dataclass(frozen=True, slots=True)
class SecretRevealed:
    """A seat's secret taken once the game is over; `problems` names each contribution that does not match it."""

    seat: int
    problems: list[dict[str, Any]]
    waiting: list[int]  # the seats that have not revealed yet
    version: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "revealed": True, "problems": self.problems, "waiting": self.waiting,
                "version": self.version}
