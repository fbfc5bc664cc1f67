"""`cronaca selfplay serenissima` with hidden money (the generic selfplay checks are in tests/test_cli.py)."""

from __future__ import annotations

import pytest

from api import cli


def test_selfplay_with_hidden_money(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "serenissima", "--players", "3", "--games", "1", "--seed", "h", "--option", "money=hidden"]) == 0
    assert "winner=seat" in capsys.readouterr().out
