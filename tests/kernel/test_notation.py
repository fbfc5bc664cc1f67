"""The kernel's notation and dispute checker, on the toy game: round trip, every finding at its line."""

from __future__ import annotations

from typing import Any

import pytest

from domain.kernel import EditionError
from domain.kernel.dispute import check, reconcile
from domain.kernel.notation import as_typed, parse, read_result, render
from domain.kernel.selfplay import play_random
from tests.kernel.toy_game import GAME, WORDS


def game_for(title: str) -> tuple[Any, Any]:
    if title != "toy":
        raise KeyError(title)
    return GAME, WORDS


def edition_for(game: Any, edition: str | None) -> Any:
    found = game.default_edition()
    if edition not in (None, found.id):
        raise EditionError(f"unknown edition {edition!r}; this service has {found.id}")
    return found


def checked(text: str) -> Any:
    return check(text, game_for, edition_for, titles=["toy"])


def rendered(seed: str, players: int = 2, **tags: str) -> tuple[str, Any]:
    played = play_random(GAME, GAME.default_edition(), {"players": players}, seed)
    names = ["Ada", "Bruno", "Chiara"][:players]
    text = render(GAME, WORDS, GAME.default_edition(), played.entries, names,
                  {"Title": "toy", "Edition": "toy-1", "Options": f"players={players}", **tags})
    return text, played


@pytest.mark.parametrize("seed", [f"round-trip-{k}" for k in range(30)])
def test_render_then_check_gives_back_every_command_and_outcome(seed: str) -> None:
    text, played = rendered(seed, players=2 + len(seed) % 2)
    report = checked(text)
    assert report.ok, [f.to_json() for f in report.findings]
    assert [e.command for e in report.entries] == [e.command for e in played.entries]
    assert [e.outcomes for e in report.entries] == [e.outcomes for e in played.entries]
    assert report.finished and report.scores == played.scores


def test_a_clean_result_and_one_line_per_turn() -> None:
    text, played = rendered("result")
    totals = [s["total"] for s in played.scores["seats"]]
    text = text.replace('[Options', f'[Result "Ada {totals[0]}, Bruno {totals[1]}"]\n[Options')
    report = checked(text)
    assert report.ok, [f.to_json() for f in report.findings]
    turns = parse(text).turns
    assert len(turns) == len(played.entries) - 1  # every toy turn is one command


def lines_of(text: str) -> list[str]:
    return text.splitlines()


def planted(seed: str) -> tuple[list[str], int, int, int] | None:
    text, _ = rendered(seed)
    lines = lines_of(text)
    body = [i for i, line in enumerate(lines) if ": " in line and not line.startswith("[")]
    draws = [i for i in body if "draw [" in lines[i]]
    rolls = [i for i in body if "roll [" in lines[i]]
    if not draws:
        return None
    draw_at = draws[0]
    roll_at = next((i for i in rolls if i > draw_at + 1), None)
    if roll_at is None:
        return None
    twice = next((i for i in body if i > roll_at + 1), None)
    return (lines, draw_at, roll_at, twice) if twice is not None else None


def test_planted_faults_are_each_found_at_their_own_line() -> None:
    lines, draw_at, roll_at, twice = next(p for p in (planted(f"faults-{k}") for k in range(200)) if p is not None)
    # 1. a draw that could not happen (a cube the bag never held)
    lines[draw_at] = lines[draw_at].split("draw [")[0] + "draw [9]"
    # 2. a word that is not a move
    lines[roll_at] = lines[roll_at].replace("roll", "rol", 1)
    # 3. a turn written twice
    lines.insert(twice + 1, lines[twice])
    report = checked("\n".join(lines) + "\n")
    by_line = {f.line: f for f in report.findings}
    assert by_line[draw_at + 1].rule == "chance/draw/not-there"
    assert by_line[roll_at + 1].rule == "notation/move" and by_line[roll_at + 1].did_you_mean == ["roll"]
    assert by_line[twice + 2].rule == "notation/out-of-turn"
    assert len(report.findings) == 3, [f.to_json() for f in report.findings]
    # the bad move names the closest legal moves and what the player held
    rendered_finding = by_line[roll_at + 1].to_json()
    assert rendered_finding["alternatives"]["$secret"]["value"][0] in ("roll", "draw")
    assert by_line[draw_at + 1].assumed


def test_a_miscounted_result_is_found_seat_by_seat() -> None:
    text, played = rendered("miscount")
    totals = [s["total"] for s in played.scores["seats"]]
    text = text.replace('[Options', f'[Result "Ada {totals[0] + 2}, Bruno {totals[1]}"]\n[Options')
    report = checked(text)
    assert [(f.rule, f.player) for f in report.findings] == [("notation/result", "Ada")]
    assert str(totals[0]) in report.findings[0].message and str(totals[0] + 2) in report.findings[0].message


def test_an_unknown_draw_is_narrowed_from_what_follows() -> None:
    # Ada's bag holds 1, 2, 3. She draws three times; the first draw is not written: it must be
    # what the other two leave.
    text = """[Title "toy"]
[Seats "Ada, Bruno"]

Setup
1. Ada: draw [?]
   Bruno: roll [1]
2. Ada: draw [3]
   Bruno: roll [1]
3. Ada: draw [1]
"""
    report = checked(text)
    assert report.ok, [f.to_json() for f in report.findings]
    (unknown,) = report.unknowns
    assert unknown.line == 5 and unknown.consistent == [(2,)]
    assert "must have been [2]" in unknown.to_json()["message"]


def test_bad_input_is_reported_never_raised() -> None:
    assert checked("").findings[0].rule in ("notation/title", "notation/seats")
    report = checked('[Title "toi"]\n[Seats "Ada, Bruno"]\n')
    assert report.findings[0].rule == "notation/title" and report.findings[0].did_you_mean == ["toy"]
    report = checked('[Title "toy"]\n[Seats "Ada, Bruno, Chiara"]\n[Options "players=2"]\n')
    assert any(f.rule == "notation/seats" and "3 seats for a 2-player game" in f.message for f in report.findings)
    report = checked('[Title "toy"]\n[Seats "Ada, Bruno"]\nSetup\n1. Zoe: roll [3]\n')
    assert report.findings[0].rule == "notation/player"
    report = checked('[Title "toy"]\n[Seats "Ada, Bruno"]\nSetup\n1. Ada roll [3]\n2. Ada: roll [4]\n')
    assert report.findings[0].rule == "notation/syntax" and report.findings[0].line == 4
    assert report.moves == 1  # the line after the broken one is still read
    binary = checked("\x00\x01binary")
    assert binary.findings[0].rule == "notation/unreadable"
    edition = checked('[Title "toy"]\n[Edition "toy-9"]\n[Seats "Ada, Bruno"]\nSetup\n')
    assert edition.findings[0].rule == "notation/edition"


def test_a_cut_off_game_with_a_claimed_result_is_found() -> None:
    text, _ = rendered("cut")
    lines = lines_of(text)
    text = "\n".join(lines[: len(lines) - 3]).replace('[Options', '[Result "Ada 10, Bruno 4"]\n[Options') + "\n"
    report = checked(text)
    assert [f.rule for f in report.findings] == ["notation/result-unfinished"]


def test_seats_by_colour() -> None:
    text = '[Title "toy"]\n[Seats "Ada (red), Bruno (blue)"]\nSetup\n1. red: roll [3]\n   blue: draw [2]\n'
    report = checked(text)
    assert report.ok and [e.command["seat"] for e in report.entries[1:]] == [0, 1]


def test_two_transcripts_are_reconciled_at_their_first_divergence() -> None:
    def draw_after_three(seed: str) -> tuple[str, list[str], int] | None:
        text, _ = rendered(seed)
        lines = lines_of(text)
        body = [i for i, line in enumerate(lines) if ": " in line and not line.startswith("[")]
        at = next((i for i in body[3:] if "draw [" in lines[i]), None)
        return (text, lines, at) if at is not None else None

    text, lines, at = next(f for f in (draw_after_three(f"reconcile-{k}") for k in range(200)) if f is not None)
    other = list(lines)
    other[at] = other[at].split("draw [")[0] + "draw [9]"
    found = reconcile(text, "\n".join(other) + "\n", game_for, edition_for, titles=["toy"])
    assert not found["agree"] and len(found["disagreements"]) == 1
    first = found["first_divergence"]
    assert first["first"]["line"] == at + 1 and "outcome 1" in first["what"]
    assert found["rules_accept"]["verdict"] == "the rules accept the first transcript's version, not the second's"


def test_a_phone_s_curly_quotes_and_a_lower_case_setup_read_as_the_notation_s() -> None:
    """A phone curls the quotes of `[Seats "Ada, Bea"]` and may write `setup` in lower case: the same file, line and
    column for line and column; a {comment}'s own quotes stay as written."""
    straight = '[Title "toy"]\n[Seats "Gian Maria, Bea"]\nSetup [1]\n{Bea said "go"}\nGian Maria: draw [1]\n'
    curly = straight.replace('[Title "toy"]', "[Title \u201ctoy\u201d]").replace(
        '"Gian Maria, Bea"', "\u201cGian Maria, Bea\u201d").replace("Setup", "setup").replace(
        '"go"', "\u201cgo\u201d")
    read, wanted = parse(curly), parse(straight)
    assert read.tags == wanted.tags and read.errors == wanted.errors == []
    assert read.setup == wanted.setup and read.setup_line == wanted.setup_line
    assert [t.moves for t in read.turns] == [t.moves for t in wanted.turns]
    assert as_typed('{\u201cgo\u201d} [Title \u201ctoy\u201d]') == '{\u201cgo\u201d} [Title "toy"]'


def test_a_word_processor_s_file_reads_as_the_notation_s() -> None:
    """Notepad's byte-order mark, a non-breaking space, an invisible word break, turns numbered `1)` and outcomes
    separated by commas read as the plain file; a branch's closing `)` and a {comment}'s characters stay."""
    plain = '[Title "toy"]\n[Seats "Ada, Bea"]\nSetup [1]\n1. Ada: draw [1]\n{a note,\n1) its\u00a0second line}\n(\nBea: draw [2]\n)\n'
    typed = ("\ufeff" + plain).replace("1. Ada:", "1) Ada:\u00a0").replace("Bea: draw", "Bea\u200b: draw")
    assert as_typed(typed) == plain.replace("1. Ada:", "1. Ada: ")
    read = parse('[Title "toy"]\n[Seats "Ada, Bea"]\nSetup [1, 2]\n')
    assert read.setup == parse('[Title "toy"]\n[Seats "Ada, Bea"]\nSetup [1 2]\n').setup and not read.errors


def test_a_line_struck_through_is_a_line_taken_back() -> None:
    """`~~Ada: draw [2]~~` (Markdown's and chat apps' strike-through) reads as a blank line, its place kept; a `~~`
    inside a line or a comment is not a line struck through."""
    plain = '[Title "toy"]\n[Seats "Ada, Bea"]\nSetup [1]\n1. Ada: draw [1]\n\nBea: draw [2] {~~no~~}\n'
    struck = plain.replace("\n\nBea", "\n  ~~Bea: draw [3]~~ \nBea")
    assert as_typed(struck) == plain.replace("\n\nBea", "\n" + " " * 20 + "\nBea")
    read, wanted = parse(struck), parse(plain)
    assert read.errors == wanted.errors == [] and [t.moves for t in read.turns] == [t.moves for t in wanted.turns]
    assert [t.line for t in read.turns] == [4, 6]


@pytest.mark.parametrize("written", ["Ada 31 pts, Bea 27 VP", "Ada 31pts, Bea 27 points", "Ada: 31 punti, Bea 27vp",
                                     "Ada 31 PT, Bea 27 Points."])
def test_a_unit_after_a_result_score_is_read_as_the_score(written: str) -> None:
    assert read_result(written) == {"Ada": 31, "Bea": 27}
    with pytest.raises(ValueError, match="not a name and a score"):
        read_result("Ada 31 coins")
