"""`cronaca selfplay`: one summary line per game for every title, same seed same games, clear errors."""

from __future__ import annotations

import re
from typing import Any

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


# ---- table notation ---------------------------------------------------------------------------


def _written_game(tmp_path: Any, title: str = "la-citta", players: int = 3) -> tuple[Any, Any]:
    from domain.kernel.selfplay import play_random
    from domain.records import recordfile
    from domain.transcripts import render_log

    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": players}, "cli-notation")
    names = ["Ada", "Bruno", "Chiara", "Dario"][:players]
    text = render_log(title, edition, played.entries, names, {"players": players}, played.scores)
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    document = {"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title, "edition": edition.ref,
                "seats": [{"name": n} for n in names], "options": {"players": players}, "mode": "transcribed",
                "chance": {}, "entries": [e.to_json() for e in played.entries], "finished": True, "scores": played.scores}
    return path, document


def test_check_render_and_reconcile_from_the_command_line(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    path, document = _written_game(tmp_path)
    assert cli.main(["check", str(path)]) == 0
    assert "clean" in capsys.readouterr().out
    record = tmp_path / "record.json"
    record.write_text(json.dumps(document), encoding="utf-8")
    assert cli.main(["render", str(record)]) == 0
    assert capsys.readouterr().out == path.read_text(encoding="utf-8")

    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if ": " in line and not line.startswith("[") and i > 12)
    player, moves = lines[at].split(": ", 1)
    lines[at] = f"{player}: bogus {moves}"
    faulty = tmp_path / "faulty.txt"
    faulty.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli.main(["check", str(faulty), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and any(f["line"] == at + 1 and f["rule"] == "notation/move" for f in report["findings"])
    assert cli.main(["check", str(path), str(faulty)]) == 1
    out = capsys.readouterr().out
    assert f"line {at + 1}" in out and "clean" in out

    assert cli.main(["reconcile", str(path), str(faulty)]) == 1
    out = capsys.readouterr().out
    assert "first divergence" in out and "the rules accept the first transcript's version" in out
    assert cli.main(["reconcile", str(path), str(path)]) == 0


@pytest.mark.parametrize("content", [b"\x00\x01binary", b"\xff\xfe\xfa not utf-8"])
def test_unreadable_input_exits_2_without_a_traceback(tmp_path: Any, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    with pytest.raises(SystemExit) as done:
        cli.main(["check", str(bad)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "bad.txt" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as missing:
        cli.main(["check", str(tmp_path / "nowhere.txt")])
    assert missing.value.code == 2


def test_selfplay_with_the_greedy_bot(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["selfplay", "citta-stato", "--players", "3", "--games", "1", "--seed", "bot", "--bot", "greedy"]) == 0
    greedy = capsys.readouterr().out
    assert cli.main(["selfplay", "citta-stato", "--players", "3", "--games", "1", "--seed", "bot"]) == 0
    random_line = capsys.readouterr().out
    assert re.fullmatch(r"game 1 seed=bot-0 winner=seat \d scores=\[.*\] events=\d+\n", greedy) and greedy != random_line


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["recheck", "not-a-uuid"], "'not-a-uuid' is not a valid UUID"),
        (["render", "--all", "--out", "/proc/no-such-folder/out"], "cannot make the folder"),
    ],
)
def test_bulk_commands_refuse_bad_input_naming_it(args: list[str], says: str, tmp_path: Any,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "records.sqlite3"))
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit) as done:
        cli.main(args)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
