"""Why a choice was refused: a stable rule id, plain words, and the facts behind it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.kernel.frozen import freeze, thaw


class RuleViolation(Exception):
    """A command breaks a rule of the game. Raised by decide(); the state is untouched.

    `rule` is stable and public (e.g. "citta-stato/use-card/colour"): tools, the API and
    imported-log reports name it, so never rename one once released.
    """

    def __init__(self, rule: str, message: str, **facts: Any) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.facts: Mapping[str, Any] = freeze(facts)

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "message": self.message, "facts": thaw(self.facts)}


class MalformedCommand(ValueError):
    """A command that does not even have the right shape: rejected before the rules see it."""

    def __init__(self, message: str, errors: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = dict(errors or {})

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "errors": self.errors}


class ImpossibleOutcome(RuleViolation):
    """An observed chance outcome that could not have happened (the cube was not in the bag)."""
