"""`cronaca selfplay`: one summary line per game for every title, same seed same games, clear errors."""

from __future__ import annotations

import re

import pytest

from api import cli
from domain import catalog

COUNTS = [(title, n) for title in sorted(catalog.TITLES) for n in range(catalog.game(title).seats[0], catalog.game(title).seats[1] + 1)]


@pytest.mark.parametrize(("title", "players"), COUNTS)
def test_selfplay_lines_are_reproducible(title: str, players: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", title, "--players", str(players), "--games", "2", "--seed", "cli"]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    assert cli.main(args) == 0
    assert capsys.readouterr().out == first
    lines = first.strip().splitlines()
    assert len(lines) == 2 and lines[0] != lines[1]
    for line in lines:
        m = re.fullmatch(r"game \d+ seed=cli-\d winner=seat (\d) scores=\[(.*)\] events=(\d+)", line)
        assert m, line
        seats = [item.split(":")[0] for item in m.group(2).split()]
        assert sorted(seats) == [str(s) for s in range(players)] and seats[0] == m.group(1)
        assert int(m.group(3)) > 100


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["selfplay", "la-citta", "--players", "7"], "la-citta/setup/players"),
        (["selfplay", "serenissima", "--option", "money=glass"], "serenissima/setup/options"),
        (["selfplay", "la-citta", "--option", "colour=red"], "la-citta/setup/options"),
        (["selfplay", "citta-stato", "--players", "6"], "citta-stato/setup/options"),
    ],
)
def test_bad_options_exit_2_with_the_rule_and_no_traceback(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(args)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
