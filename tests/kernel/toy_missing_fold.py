"""The toy's fold as a table of one function per event type that forgets `toy/rolled`: importing this module fails."""

from __future__ import annotations

from typing import Any

from domain.kernel.events import every_event
from tests.kernel.toy_game import GAME, Drawn, Started

FOLD: dict[type, Any] = every_event("toy", {Started: GAME.evolve, Drawn: GAME.evolve}, "fold")
