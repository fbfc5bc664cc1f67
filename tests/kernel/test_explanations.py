"""Explanations, not cascades (issue 30): one slip named once, at its line, and the rest read as meant.

Rendered games of every catalogued title, each edited by hand the way a table slips with a pencil."""

from __future__ import annotations

import re
from typing import Any

import pytest

from domain import catalog
from domain.kernel.selfplay import play_random
from domain.transcripts import check_text, render_log, titles

NAMES = ["Ada", "Bruno", "Carla"]
_TURN = re.compile(r"^(\s*(?:\d+\.\s*)?)([^:\[\]=]+?): (.*)$")


def game_of(title: str) -> tuple[str, Any]:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": 3}, "explanations")
    return render_log(title, edition, played.entries, NAMES, {"players": 3}, played.scores), played


def turn_lines(lines: list[str]) -> list[int]:
    """Indexes of turn lines a third of the way in, each followed by another turn line of another player."""
    found = [i for i, line in enumerate(lines) if _TURN.match(line) and not line.startswith("[")]
    body = found[len(found) // 3:]
    return [i for i in body if i + 1 in found and _TURN.match(lines[i])[2] != _TURN.match(lines[i + 1])[2]]  # type: ignore[index]


def read_as_played(report: Any, played: Any) -> bool:
    return [e.command for e in report.entries or []] == [e.command for e in played.entries]


@pytest.mark.parametrize("title", titles())
def test_two_lines_in_the_other_order_are_named_once_and_read_as_played(title: str) -> None:
    text, played = game_of(title)
    lines = text.split("\n")
    i = turn_lines(lines)[0]
    (lead_a, who_a, rest_a), (lead_b, who_b, rest_b) = _TURN.match(lines[i]).groups(), _TURN.match(lines[i + 1]).groups()  # type: ignore[union-attr]
    lines[i], lines[i + 1] = f"{lead_a}{who_b}: {rest_b}", f"{lead_b}{who_a}: {rest_a}"
    report = check_text("\n".join(lines))
    (finding,) = report.findings
    assert finding.line == i + 1 and finding.explanation["kind"] == "swapped"
    assert f"lines {i + 1} and {i + 2} read in the other order" in finding.assumed
    assert read_as_played(report, played)


@pytest.mark.parametrize("title", titles())
def test_a_turn_written_twice_is_skipped_once(title: str) -> None:
    text, played = game_of(title)
    lines = text.split("\n")
    i = turn_lines(lines)[1]
    lead, who, rest = _TURN.match(lines[i]).groups()  # type: ignore[union-attr]
    lines.insert(i + 1, " " * len(lead) + f"{who}: {rest}")
    report = check_text("\n".join(lines))
    (finding,) = report.findings
    assert (finding.line, finding.rule) == (i + 2, "notation/out-of-turn") and finding.explanation["kind"] == "twice"
    assert f"line {i + 2} is skipped" in finding.assumed
    assert read_as_played(report, played)


@pytest.mark.parametrize("title", titles())
def test_a_line_under_another_players_name_is_read_as_the_waiting_seats(title: str) -> None:
    text, played = game_of(title)
    lines = text.split("\n")
    i = turn_lines(lines)[2]
    lead, who, rest = _TURN.match(lines[i]).groups()  # type: ignore[union-attr]
    other = next(n for n in NAMES if n != who and n != _TURN.match(lines[i + 1])[2])  # type: ignore[index]
    lines[i] = f"{lead}{other}: {rest}"
    report = check_text("\n".join(lines))
    (finding,) = report.findings
    assert finding.line == i + 1 and finding.explanation["kind"] == "other-player"
    assert f"read as {who}'s, who was to play" in finding.assumed
    assert read_as_played(report, played)


@pytest.mark.parametrize("title", titles())
def test_a_misspelt_name_is_read_as_the_player_meant(title: str) -> None:
    text, played = game_of(title)
    lines = text.split("\n")
    i = next(k for k in turn_lines(lines) if _TURN.match(lines[k])[2] == "Bruno")  # type: ignore[index]
    lines[i] = lines[i].replace("Bruno:", "Brnuo:", 1)
    report = check_text("\n".join(lines))
    (finding,) = report.findings
    assert (finding.line, finding.rule) == (i + 1, "notation/player") and finding.did_you_mean == ["Bruno"]
    assert "read as Bruno's" in finding.message and finding.explanation["kind"] == "misspelt-name"
    assert read_as_played(report, played)


@pytest.mark.parametrize("title", titles())
def test_a_turn_left_out_is_named_at_the_line_after_the_gap(title: str) -> None:
    text, _ = game_of(title)
    lines = text.split("\n")
    i = next(k for k in turn_lines(lines) if not _TURN.match(lines[k])[1].strip()  # type: ignore[index]
             and _TURN.match(lines[k + 1]) and not _TURN.match(lines[k + 1])[1].strip())  # type: ignore[index]
    missing = _TURN.match(lines[i])[2]  # type: ignore[index]
    del lines[i]
    report = check_text("\n".join(lines))
    first = min(report.findings, key=lambda f: f.line)
    assert first.line == i + 1 and first.explanation["kind"] == "left-out"
    assert f"{missing}'s turn missing before line {i + 1}" in first.assumed
    assert report.to_json()["explaining"]["searches"] >= 1


@pytest.mark.parametrize("title", titles())
def test_a_wrong_round_number_is_named_and_the_line_stands(title: str) -> None:
    text, played = game_of(title)
    lines = text.split("\n")
    i = next(k for k, line in enumerate(lines) if re.match(r"^[1-9]\d*\. ", line) and k > len(lines) // 3)
    number = int(lines[i].split(".")[0])
    lines[i] = f"{number + 1}." + lines[i][len(str(number)) + 1:]
    report = check_text("\n".join(lines))
    (finding,) = report.findings
    assert (finding.line, finding.rule) == (i + 1, "notation/round") and f"round {number + 1} is written" in finding.message
    assert read_as_played(report, played)


def test_dozens_of_slips_and_junk_give_a_bounded_report_naming_the_budget() -> None:
    text, _ = game_of("la-citta")
    lines = text.split("\n")
    for k in turn_lines(lines)[::3]:
        lines[k] = lines[k].replace("Ada:", "Carla:", 1).replace("Bruno:", "Ada:", 1)
    lines[20:20] = ["@@ junk %% line", "Ada: frobnicate L999", "Zorro: pass"]
    report = check_text("\n".join(lines))
    assert report.findings and report.to_json()["explaining"]["moves"] > 0
    said = report.to_json()["explaining"]["said"]
    assert "commands" in said and " s" in said
