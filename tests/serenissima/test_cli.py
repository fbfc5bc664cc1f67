"""`cronaca selfplay serenissima`: one line per game, same seed same games, hidden money as an option."""

from __future__ import annotations

import re

import pytest

from api import cli


@pytest.mark.parametrize("players", [2, 3, 4])
def test_selfplay_lines_are_reproducible(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "serenissima", "--players", str(players), "--games", "2", "--seed", "cli"]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    assert cli.main(args) == 0
    assert capsys.readouterr().out == first
    lines = first.strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        m = re.match(r"game \d+ seed=cli-\d winner=seat (\d) scores=\[(.*)\] events=(\d+)", line)
        assert m, line
        assert len(m.group(2).split()) == players and int(m.group(3)) > 100


def test_selfplay_with_hidden_money(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "serenissima", "--players", "3", "--games", "1", "--seed", "h", "--option", "money=hidden"]) == 0
    assert "winner=seat" in capsys.readouterr().out
