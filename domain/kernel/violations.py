"""Why a choice was refused: a stable rule id, plain words, and the facts behind it.

A violation's facts reach whoever sent the command or imported the log, so they pass
through what that reader may see, as the title's `view` does: a fact that shows hidden
state (a bag's contents, a deck's cards, a seat's hidden money or war discs) is wrapped in
`Secret` by whoever raises the violation, and `to_json(reader)` shows it only to the seat
it belongs to, or to the all-seeing reader of a finished game; everyone else reads what
`Secret.shown` says (a count, say). Stored reports keep the wrapping as JSON
(`{"$secret": {...}}`) so they can be shown to each reader as that reader may see them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from domain.kernel.frozen import freeze, thaw

ALL: Literal["all"] = "all"
Reader = int | None | Literal["all"]
"""Who reads a violation: a seat number, None for the public, ALL for the all-seeing reader
(a finished game's review, a table checking its own file offline)."""

HIDDEN_FACT = {"hidden": True}
MARK = "$secret"


@dataclass(frozen=True)
class Secret:
    """A fact only `seat` may read (None: no seat while the game is in progress).

    `shown` is what every other reader gets instead: by default `{"hidden": true}`; a bag
    or a deck gives its size.
    """

    value: Any
    seat: int | None = None
    shown: Any = field(default_factory=lambda: dict(HIDDEN_FACT))

    def to_json(self) -> dict[str, Any]:
        return {MARK: {"seat": self.seat, "value": _stored(self.value), "shown": _stored(self.shown)}}


def secret_size(value: Any, seat: int | None = None, **more: Any) -> Secret:
    """A collection only `seat` may read; others learn how many items it holds."""
    return Secret(value, seat, {"hidden": True, "count": len(value), **more})


def _stored(value: Any) -> Any:
    """Facts in their stored JSON form: Secrets become `{"$secret": ...}` markers."""
    if isinstance(value, Secret):
        return value.to_json()
    if isinstance(value, Mapping):
        return {str(k): _stored(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_stored(v) for v in value]
    return value


def reveal(value: Any, reader: Reader) -> Any:
    """A stored fact (or a whole report) as `reader` may read it."""
    if isinstance(value, Secret):
        value = value.to_json()
    if isinstance(value, Mapping):
        marked = value.get(MARK)
        if len(value) == 1 and isinstance(marked, Mapping):
            seat = marked.get("seat")
            allowed = reader == ALL or (reader is not None and seat is not None and reader == seat)
            return reveal(marked.get("value") if allowed else marked.get("shown"), reader)
        return {k: reveal(v, reader) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [reveal(v, reader) for v in value]
    return value


class RuleViolation(Exception):  # noqa: N818  (named for what happened)
    """A command breaks a rule of the game. Raised by decide(); the state is untouched.

    `rule` is stable and public (e.g. "citta-stato/use-card/colour"): tools, the API and
    imported-log reports name it, so never rename one once released. `message` is read by
    every reader, so it never states a secret; a message that must (a changed event's
    hidden value) is given as a `Secret` whose `shown` is the public sentence.
    """

    def __init__(self, rule: str, message: str | Secret, **facts: Any) -> None:
        public = message.shown if isinstance(message, Secret) else message
        super().__init__(f"{rule}: {public}")
        self.rule = rule
        self.message: str = str(public)
        self._message: str | Secret = message
        self._facts: dict[str, Any] = facts
        self._frozen: Mapping[str, Any] | None = None

    @property
    def facts(self) -> Mapping[str, Any]:
        """The facts, frozen in their stored form when first read: a title's `legal` tries every candidate and
        drops the refused ones unread (Serenissima's refusals cost a fifth of its random play when frozen at once)."""
        if self._frozen is None:
            self._frozen = freeze(_stored(self._facts))
        return self._frozen

    def stored(self) -> dict[str, Any]:
        """Rule, message and facts with every secret still wrapped: for reports kept on file."""
        return {"rule": self.rule, "message": _stored(self._message), "facts": thaw(self.facts)}

    def to_json(self, reader: Reader = None) -> dict[str, Any]:
        """What `reader` may read; the public by default, so a forgotten reader leaks nothing."""
        return reveal(self.stored(), reader)


class MalformedCommand(ValueError):  # noqa: N818  (named for what happened)
    """A command that does not even have the right shape: rejected before the rules see it."""

    def __init__(self, message: str, errors: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = dict(errors or {})

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "errors": self.errors}


class ImpossibleOutcome(RuleViolation):
    """An observed chance outcome that could not have happened (the cube was not in the bag)."""
