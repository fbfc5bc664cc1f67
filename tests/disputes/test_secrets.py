"""A report read without the submitter's tokens lets nobody confirm a guess of a hidden card before the game is over
(issue 30): two files of one game that differ only in what is face down read the same to everyone else, however the
checker explained their slips, narrowed their unknowns or spent its budget; the explanations, the readings chosen,
the narrowing and the score of an unfinished game are kept for a reader of every secret (`kernel.dispute._searched`),
as an import report keeps a seat's holding (`{"hidden": true}`)."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from benchmarks.dispute_slips import _turns, plant, play
from domain import catalog
from domain.kernel import ALL, reveal
from domain.kernel.dispute import HIDDEN_READING, Finding, Unknown, _searched, _taken_by_a_guess
from domain.kernel.selfplay import play_random
from domain.kernel.violations import MARK, Secret
from domain.transcripts import check_text, render_log

_DEAL = re.compile(r"\[(R\d+) (R\d+) (R\d+)\]")  # the setup's Republic cards, one face down to each of 3 seats


def _unfinished(title: str, players: int, seed: str) -> list[str]:
    """The first half of a played game, as a table that stopped there wrote it (no Result: still in progress)."""
    lines = [line for line in play(title, players, seed).text.split("\n") if not line.startswith("[Result ")]
    return lines[: len(lines) // 2]


def _public(report: dict[str, Any]) -> str:
    return json.dumps(reveal(report, None), sort_keys=True)


@pytest.mark.parametrize("kind", ["left-out", "swapped", "unknown"])
def test_files_that_differ_only_in_a_face_down_card_read_the_same_to_everyone_else(kind: str) -> None:
    lines = _unfinished("citta-stato", 3, "secret-1")
    planted = plant(kind, lines, random.Random(kind), _turns(lines))
    assert planted is not None
    text = "\n".join(planted.lines) + "\n"
    deal = _DEAL.search(text)
    assert deal is not None
    reports = [check_text(text.replace(deal.group(0), "[" + " ".join(deal.groups()[k] for k in order) + "]", 1)).to_json()
               for order in itertools.permutations(range(3))]
    assert len({json.dumps(reveal(r, ALL)["scores"], sort_keys=True) for r in reports}) > 1, \
        "the deal should change the score the rules count (else this test proves nothing)"
    assert len({_public(r) for r in reports}) == 1, "a reader without tokens tells the deals apart"


def test_what_the_search_made_of_a_file_with_secrets_is_kept_for_a_reader_of_every_secret() -> None:
    lines = _unfinished("citta-stato", 3, "secret-2")
    planted = plant("left-out", lines, random.Random(2), _turns(lines))
    assert planted is not None
    report = check_text("\n".join(planted.lines) + "\n").to_json()
    explained = [f for f in reveal(report, ALL)["findings"] if f.get("explanation")]
    assert explained, "the slip should have been explained"
    public = reveal(report, None)
    for found in public["findings"]:
        assert found.get("explanation") in (None, {"hidden": True})
        assert "readings" not in str(found["message"]) and "read as" not in str(found["message"])
        assert not isinstance(found.get("alternatives"), dict) or "count" not in found["alternatives"]
    assert public["scores"] == {"hidden": True}
    if "explaining" in public:
        assert all(public["explaining"][k] == {"hidden": True} for k in ("moves_used", "searches", "seconds_used"))
        assert "spent" not in public["explaining"]["said"]
    whole = reveal(report, ALL)  # the file's own sender (`/api/check`), or everyone once the game is over
    assert whole["findings"][0]["explanation"]["said"] in whole["findings"][0]["message"]
    assert MARK not in json.dumps(whole)


def test_a_seat_reads_what_was_assumed_for_its_own_line_only() -> None:
    lines = _unfinished("citta-stato", 3, "secret-2")
    planted = plant("left-out", lines, random.Random(2), _turns(lines))
    assert planted is not None
    report = check_text("\n".join(planted.lines) + "\n").to_json()
    found = reveal(report, ALL)["findings"][0]
    seat = found["seat"]
    assert reveal(report, seat)["findings"][0]["assumed"] == found["assumed"]
    other = (seat + 1) % 3
    assert reveal(report, other)["findings"][0]["assumed"] == HIDDEN_READING


def test_a_finished_game_or_a_title_without_secrets_shows_everything() -> None:
    text = play("serenissima", 2, "secret-3").text  # no hidden money by default: nothing is face down
    lines = text.split("\n")
    planted = plant("swapped", lines, random.Random(3), _turns(lines))
    assert planted is not None
    report = check_text("\n".join(planted.lines)).to_json()
    assert MARK not in json.dumps({k: v for k, v in report.items() if k != "findings"})
    assert all(isinstance(f.get("explanation", {}), dict) and MARK not in f.get("explanation", {})
               for f in report["findings"])


def test_hidden_money_keeps_the_search_for_a_reader_of_every_secret() -> None:
    """Serenissima with `money=hidden` has no face-down card, but each seat's purse is its own: what the search made
    of an unfinished file is kept as for a title with cards face down."""
    game = catalog.game("serenissima")
    edition = game.default_edition()
    options = {"players": 3, "money": "hidden"}
    done = play_random(game, edition, options, "secret-purse")
    text = render_log("serenissima", edition, done.entries, ["Ada", "Bruno", "Carla"], options, done.scores)
    lines = [line for line in text.split("\n") if not line.startswith("[Result ")]
    lines = lines[: len(lines) // 2]
    planted = plant("left-out", lines, random.Random(4), _turns(lines))
    assert planted is not None
    report = check_text("\n".join(planted.lines) + "\n").to_json()
    assert any(f.get("explanation") for f in reveal(report, ALL)["findings"])
    assert all(f.get("explanation") in (None, {"hidden": True}) for f in reveal(report, None)["findings"])


def test_the_lines_doubted_after_a_turn_left_out_are_hidden_with_its_reading() -> None:
    """Which later lines the rules refuse after the reading chosen for a turn left out rests on that reading (and so on
    the hidden outcomes it was chosen with): in a file with secrets, every other reader gets the finding's own sentence."""
    said = "Bruno's turn missing before line 23: read as `Bruno: galley 7 action`"
    doubts = "; 3 later line(s) the rules refuse as read (lines 30, 36, 37) may be that turn's doing: not reported apart"
    head = "line 23: Ada moves here, but the rules wait for Bruno"
    out = {"findings": [{"line": 23, "message": f"{head}; {said}{doubts}",
                         "explanation": {"kind": "left-out", "said": said, "doubts": [30, 36, 37]}}], "unknowns": []}
    searched = _searched(out, False)
    assert reveal(searched, None)["findings"][0]["message"] == head
    assert reveal(searched, ALL)["findings"][0]["message"] == f"{head}; {said}{doubts}"


def test_a_hidden_card_misspelt_after_unknown_draws_is_one_finding_and_reads_alike_to_the_others() -> None:
    """`burn B [R11]` after an End of Round nobody wrote down (`[?]`): a word of no card, which no earlier draw can
    have taken, is one finding at its line (kept, not doubted on the unknowns), read as `[?]`; while the game is on
    the others' report is the same whatever was written there, a word of no card or another one (`[Rx1]`)."""
    path = Path(__file__).parent / "citta_stato_republic_card_misspelt_after_unknown_draws.txt"
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if not line.startswith("[Result ")]
    at = next(k for k, line in enumerate(lines) if "burn B [R11]" in line)
    cut = "\n".join(lines[: at + 6]) + "\n"
    public = []
    for word in ("[R11]", "[Rx1]"):
        report = check_text(cut.replace("[R11]", word, 1))
        (found,) = [f for f in report.findings if f.line == at + 1]
        assert found.rule == "chance/draw/not-there" and found.assumed == "[?]"
        assert len(report.findings) == 1, [(f.line, f.rule) for f in report.findings]
        shown = reveal(report.to_json(), None)
        shown.pop("explaining", None)
        public.append(json.dumps(shown, sort_keys=True))
        assert word.strip("[]") not in public[-1]
    assert public[0] == public[1]


def test_a_hidden_guess_that_may_have_taken_a_card_does_not_hide_the_finding() -> None:
    """A card written drawn and not there after a draw nobody wrote that the check guessed holding it: the refusal
    becomes a doubt on that guess only when the guess and the card written are every reader's (a face-up display);
    where either is a seat's hidden card, the finding stays, so that its vanishing tells nobody what was hidden."""
    def checker(owner: Any, message: Any = "not there") -> Any:
        found = Finding("chance", 20, "chance/draw/not-there", message,
                        facts={"source": "politics", "drawn": ["palace"], "not_there": ["palace"]})
        guess = Unknown(7, 7, "draw", "politics", -1, 0, ("palace", "hospital"), owner=owner)  # consistent: open
        return SimpleNamespace(findings=[found], unknowns=[guess])

    public = checker("public")
    _taken_by_a_guess(public, 0)
    assert public.findings == [] and public.unknowns[0].doubts == ["line 20 (chance/draw/not-there)"]
    hidden = checker(1)
    _taken_by_a_guess(hidden, 0)
    assert [f.line for f in hidden.findings] == [20] and hidden.unknowns[0].doubts == []
    face_down = checker("public", Secret("line 20: palace could not be drawn", 2, "line 20: does not stand"))
    _taken_by_a_guess(face_down, 0)  # the card written is a seat's face-down draw: whether a guess held it stays unsaid
    assert [f.line for f in face_down.findings] == [20] and face_down.unknowns[0].doubts == []


def test_a_face_down_card_in_one_bracket_with_a_tally_reads_the_same_whatever_card_was_written() -> None:
    """`pass [golden_times health culture health]`: the bracket is read as its two draws, the face-down card as `[?]`
    whatever it names (a card that was there, one that was not, a misspelling, a tally's word): the report a reader
    without Zoë's token reads is the same for each, so it confirms no guess of her card; the whole report, read by
    all once the game is over, says the word written."""
    path = Path(__file__).with_name("la_citta_card_and_tally_in_one_bracket.txt")
    text = "\n".join(line for line in path.read_text(encoding="utf-8").split("\n") if not line.startswith("[Result "))
    reports = {card: check_text(text.replace("[golden_times health", f"[{card} health")).to_json()
               for card in ("golden_times", "cathedral", "hospitol", "rich_harvest")}
    assert len({_public(r) for r in reports.values()}) == 1
    for card, report in reports.items():
        (found,) = reveal(report, ALL)["findings"]
        assert found["rule"] == "notation/move" and f"`[{card} health culture health]`" in found["message"]
        assert "read as [?] [health culture health]" in found["message"]



@pytest.mark.parametrize(("stem", "written", "rule", "line", "said"), [
    ("la_citta_year_end_draws_one_line_late", "culture [{card}] [health culture health]", "chance/missing-outcome", 72,
     "written on line 73, at the end of Anna Maria's move ([?] [health culture health])"),
    ("la_citta_card_one_line_early", "pass [polling_the_people] [{card}]", "chance/unused-outcome", 70,
     "([?]) is the one the rules ask of D'Angelo's `pass` on line 71"),
], ids=["late", "early"])
def test_a_face_down_card_written_a_line_off_reads_the_same_whatever_card_was_written(
        stem: str, written: str, rule: str, line: int, said: str) -> None:
    """Zoë's card and the year's tally written at the end of Anna Maria's next line; D'Angelo's card at the end of
    Anna Maria's line above his `pass`: read as the move's that asked them, the face-down card as `[?]` whatever it
    names (a card that was there, one that was not, a misspelling), so the report a reader without that player's
    token reads is the same for each; the whole report, read by all once the game is over, says the word written at
    the unknown."""
    path = Path(__file__).with_name(f"{stem}.txt")  # no Result: still in progress
    text = "\n".join("" if row.startswith("[Result ") else row for row in path.read_text(encoding="utf-8").split("\n"))
    first = "golden_times" if "late" in stem else "master_builder"
    assert text.count(written.format(card=first)) == 1
    reports = {card: check_text(text.replace(written.format(card=first), written.format(card=card))).to_json()
               for card in (first, "cathedral", "hospitol", "rich_harvest")}
    assert len({_public(r) for r in reports.values()}) == 1
    for card, report in reports.items():
        whole = reveal(report, ALL)
        (found,) = whole["findings"]
        assert found["rule"] == rule and found["line"] == line and said in found["message"], found["message"]
        assert any(u.get("written") == f"[{card}]" for u in whole["unknowns"]), whole["unknowns"]
