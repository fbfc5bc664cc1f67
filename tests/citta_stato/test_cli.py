"""`cronaca selfplay citta-stato`: one line per game, same seed same games."""

from __future__ import annotations

import re

import pytest

from api import cli


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_selfplay_lines_are_reproducible(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "citta-stato", "--players", str(players), "--games", "2", "--seed", "cli"]
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
