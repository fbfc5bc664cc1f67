"""What a report says of an outcome nobody wrote, and of a word written twice, in words a table understands (issue 30):
never "after 0 possibilities", never a seat by its number, and `unload 2 to to 7` read as the table meant it."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from api import cli
from domain.kernel.dispute import DisputeReport, Unknown, WrittenChance, summary
from domain.kernel.notation import Written
from domain.kernel.violations import ALL, MARK, ImpossibleOutcome, reveal
from domain.transcripts import check_text

HERE = Path(__file__).parent
NAMES = ["Anna Maria", "Sean O'Brien", "Zoë"]


def _unknown(tried: int, owner: int | None = -1) -> Unknown:
    kept = {} if owner == -1 else {"owner": owner}
    return Unknown(80, 12, "draw", "politics", 40, 0, ("hospital",), tried=tried, **kept)  # consistent None: open


def test_an_outcome_the_budget_never_reached_is_said_in_words() -> None:
    said = _unknown(tried=0).to_json(NAMES)
    assert said["consistent"] == "undetermined"
    assert "0 possibilities" not in said["message"] and "after 0" not in said["message"]
    assert "before any value of it could be tried" in said["message"]


def test_an_outcome_narrowed_for_a_while_says_how_far() -> None:
    assert "after 1 possibility" in _unknown(tried=1).to_json(NAMES)["message"]
    assert "after 12 possibilities" in _unknown(tried=12).to_json(NAMES)["message"]


def test_a_hidden_outcome_names_the_player_who_may_read_it() -> None:
    shown = _unknown(tried=3, owner=1).to_json(NAMES)["message"][MARK]["shown"]  # what every other reader reads
    assert "Sean O'Brien's alone" in shown and "seat 1" not in shown
    assert "no player's" in _unknown(tried=3, owner=None).to_json(NAMES)["message"][MARK]["shown"]


def test_a_word_written_twice_is_read_once_and_named() -> None:
    report = check_text((HERE / "serenissima_word_written_twice.txt").read_text(encoding="utf-8"))
    (found,) = report.findings
    assert found.line == 58 and found.rule == "notation/move"
    assert str(found.message) == "line 58: 'to' is written twice in 'unload 2 to to 7'"
    assert found.explanation is not None and found.explanation["reads_to_line"] is not None


def test_a_file_whose_unknown_the_check_could_not_settle_is_not_called_clean() -> None:
    """A hand-typed La Città game with five blind draws written [?] and a fountain on the wrong hex: with a move budget
    too small to narrow the first draw, the slip that rests on its guess is not reported, and the summary says the
    file is not settled, never "clean"; with the budget the check has, the slip is the one finding."""
    text = (Path(__file__).parent / "la_citta_blind_draws.txt").read_text(encoding="utf-8")
    starved = check_text(text, budget=100).to_json()
    assert starved["ok"] and not starved["summary"].startswith("clean"), starved["summary"]
    assert "not settled" in starved["summary"] and "line 24" in starved["summary"], starved["summary"]
    full = check_text(text).to_json()
    assert [(f["line"], f["rule"]) for f in full["findings"]] == [(30, "la-citta/place/occupied")]


def test_a_file_with_no_finding_whose_unknown_was_left_between_values_a_refusal_rests_on_is_not_clean() -> None:
    """An outcome nobody wrote left between two values, the reading made with one of them, and a refusal after it
    said on that unknown (its doubts) rather than named: the file is "not settled", never "clean" (every move legal
    and every outcome possible is not what was found)."""
    unknown = Unknown(7, 7, "draw", "politics", -1, 0, ("palace",), consistent=[("palace",), ("hospital",)],
                      doubts=["line 20 (chance/draw/not-there)"])
    report = DisputeReport("la-citta", NAMES, {}, [], [unknown], None, None, True, None, moves=80)
    assert summary(report).startswith("no finding, but not settled") and "line 7" in summary(report)
    assert report.to_json()["ok"] and not report.to_json()["settled"]
    printed = CliRunner().invoke(cli.cronaca, ["check", str(HERE / "citta_stato_first_player_nobody_wrote.txt")]).output
    assert "— clean" in printed.replace("\n", " ")  # (its unknowns are settled)
    unknown.doubts = []
    assert summary(report).startswith("clean") and report.to_json()["settled"]


def test_the_command_line_never_calls_clean_a_file_it_could_not_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """`cronaca check`'s first line says "no finding, not settled" where the summary does, not "clean"."""
    open_unknown = Unknown(7, 7, "draw", "politics", -1, 0, ("palace",), consistent=None, doubts=["line 20"])
    made = DisputeReport("la-citta", NAMES, {}, [], [open_unknown], None, None, True, None, moves=80)
    monkeypatch.setattr(cli, "check_text", lambda *_, **__: made)
    printed = CliRunner().invoke(cli.cronaca, ["check", str(HERE / "citta_stato_first_player_nobody_wrote.txt")])
    assert "no finding, not settled" in printed.output.replace("\n", " ") and "— clean" not in printed.output


def test_a_first_player_nobody_wrote_down_is_said_by_name() -> None:
    """The Setup's first player written `[?]` (citta_stato_first_player_nobody_wrote.txt, a 2-player game whose Republic
    cards are `[?]` too): what follows settles it, and the report says it by the player's name (`[Ada]`, never `[0]`)
    and says the draw as a table says it (never "the draw from the draw for the first player")."""
    report = check_text((HERE / "citta_stato_first_player_nobody_wrote.txt").read_text(encoding="utf-8"))
    (said,) = [u for u in reveal(report.to_json(), ALL)["unknowns"] if u["source"] == "first-player"]
    assert said["consistent"] == ["[Ada]"] and said["assumed"] == "[Ada]"
    assert "must have been [Ada]" in said["message"] and "who plays first" in said["message"]
    assert "from the draw" not in said["message"]
    assert "[Bruno]" in _seated().to_json(["Ada", "Bruno"])["message"]


def _seated() -> Unknown:
    return Unknown(7, 90, "draw", "first-player", 0, 10, (0,), pool=(0, 1), consistent=[(0,), (1,)], seated=True)


@pytest.mark.parametrize("written, said", [
    (("F1", "F2", "M", "L"), "4 written, 5 shuffled; F3 not written"),
    (("F1", "F2", "F4", "M", "L"), "5 written, 5 shuffled; F4 written, not among them; F3 not written"),
    (("F1", "F2", "F3", "M", "L", "L"), "6 written, 5 shuffled; L written, not among them")])
def test_an_order_that_is_not_one_of_the_items_shuffled_says_what_differs(written: tuple[str, ...], said: str) -> None:
    """A shuffle written with an item left out, one too many, or one the game does not have (a landscape tile `F4`):
    the finding counts both and names what differs, as the table can mend it."""
    chance = WrittenChance([Written(written, 7, 7)])
    with pytest.raises(ImpossibleOutcome) as refused:
        chance.shuffle("tiles", ["F1", "F2", "F3", "M", "L"])
    assert str(refused.value.message).endswith(said), refused.value.message
