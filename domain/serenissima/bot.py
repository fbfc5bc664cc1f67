"""What the greedy bot (domain.kernel.bots) needs of Serenissima: the running scores alone, and the demo's tables."""

from __future__ import annotations

from domain.kernel.bots import Table

DEMO_TABLES = (Table({"players": 3}), Table({"players": 4}), Table({"players": 2}))
