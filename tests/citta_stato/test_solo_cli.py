"""`cronaca selfplay citta-stato --solo S`: solo games from the command line, same seed same games."""

from __future__ import annotations

import re

import pytest

from api import cli
from domain import catalog


@pytest.mark.parametrize("scenario", [1, 2, 3, 4])
def test_solo_selfplay_lines_are_reproducible(scenario: int, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "citta-stato", "--solo", str(scenario), "--games", "3", "--seed", "solo-cli"]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    assert cli.main(args) == 0
    assert capsys.readouterr().out == first
    lines = first.strip().splitlines()
    assert len(lines) == 3
    required = {1: 18, 2: 21, 3: 24, 4: 27}[scenario]
    for line in lines:
        m = re.match(r"game \d+ seed=solo-cli-\d winner=seat ([01]) scores=\[(.*)\] events=(\d+)", line)
        assert m, line
        totals = dict(item.split(":") for item in m.group(2).split())
        assert set(totals) == {"0", "1"} and int(totals["1"]) == required  # the Ghost's marker stays on the required score
        assert int(m.group(3)) > 100


def test_solo_game_number_and_carried_crowns(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "citta-stato", "--solo", "1", "--solo-game", "3", "--carried-crowns", "2", "--seed", "c"]) == 0
    assert "1:20" in capsys.readouterr().out  # game 3 of scenario 1 requires 20


def test_unknown_solo_scenario_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.main(["selfplay", "citta-stato", "--solo", "9"])
    assert done.value.code == 2
    assert "citta-stato/solo/scenario" in capsys.readouterr().err


def test_the_solo_options_come_from_the_title_through_the_catalog(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The command line spells no title's solo options: it asks the catalog, which reads them from the package."""
    made = catalog.solo("citta-stato")
    assert made is not None and made(3, 2, 1) == {"players": 2, "solo": {"scenario": 3, "game": 2, "carried_crowns": 1}}
    asked: list[tuple[int, int, int]] = []

    def spied(scenario: int, game: int, carried: int) -> dict[str, object]:
        asked.append((scenario, game, carried))
        return made(scenario, game, carried)

    monkeypatch.setattr(catalog, "solo", lambda title: spied if title == "citta-stato" else None)
    assert cli.main(["selfplay", "citta-stato", "--solo", "2", "--solo-game", "2", "--carried", "1", "--seed", "asked"]) == 0
    assert asked == [(2, 2, 1)] and "game 1 seed=asked-0" in capsys.readouterr().out


def test_a_title_without_a_solo_mode_says_so(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(catalog, "solo", lambda title: None)
    with pytest.raises(SystemExit) as done:
        cli.main(["selfplay", "citta-stato", "--solo", "1"])
    assert done.value.code == 2 and "citta-stato has no solo mode" in capsys.readouterr().err

