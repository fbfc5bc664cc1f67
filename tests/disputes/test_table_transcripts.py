"""Transcripts written as tables write them (issue 30), each edited by hand from a played game, checked as a table reads
the report: one finding per slip, at its line, with the rule that names it, nothing else; and the rest of the file read
as the table meant it, so the game recovered is the game that was played.

Each `<name>.txt` has a `<name>.yaml` beside it: the slips' lines (a swap: either line), the rule expected at each, what
was written and what the table meant, and the played game (title, players, seed of `play_random`) with what of it the
report must give back: its final state, or only its scores where an outcome may stay open (a Republic card, dice).
The `bad_*.txt` files (dozens of slips, every outcome unknown, junk lines, a game cut mid-turn) must give a report,
never an exception.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from api import cli
from domain import catalog
from domain.kernel import ALL, dispute, reveal
from domain.kernel.contract import fold
from domain.kernel.dispute import DisputeReport
from domain.kernel.explain import Budget
from domain.kernel.selfplay import play_random
from domain.transcripts import check_text

HERE = Path(__file__).parent
TABLES = sorted(HERE.glob("*.yaml"))
BAD = sorted(HERE.glob("bad_*.txt"))


def _case(path: Path) -> tuple[str, dict[str, Any]]:
    return path.with_suffix(".txt").read_text(encoding="utf-8"), yaml.safe_load(path.read_text(encoding="utf-8"))


def _rules(slip: dict[str, Any]) -> list[str]:
    rule = slip["rule"]
    return rule if isinstance(rule, list) else [rule]


def test_the_corpus_is_there() -> None:
    assert len(TABLES) >= 6 and len(BAD) >= 4
    assert {yaml.safe_load(p.read_text(encoding="utf-8"))["played"]["title"] for p in TABLES} == set(catalog.TITLES)


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.stem)
def test_each_slip_is_one_finding_at_its_line_and_nothing_else(path: Path) -> None:
    text, case = _case(path)
    report = check_text(text)
    found = [(f.line, f.rule, str(f.message)) for f in sorted(report.findings, key=lambda f: (f.line, f.column or 0))]
    for slip in case["slips"]:
        here = [f for f in found if f[0] in slip["lines"] and f[1] in _rules(slip)]
        assert len(here) == 1, f"{slip['written']!r} (meant {slip['meant']!r}): {len(here)} finding(s) at lines " \
                               f"{slip['lines']} with {_rules(slip)}; all findings: {found[:8]}"
    assert len(found) == len(case["slips"]), f"{len(found)} findings for {len(case['slips'])} slip(s): {found[:8]}"


def _played(case: dict[str, Any]) -> Any:
    played = case["played"]
    game = catalog.game(played["title"])
    edition = game.default_edition()
    options = {"players": played["players"], **({"setup": played["setup"]} if "setup" in played else {})}
    return game, edition, play_random(game, edition, options, played["seed"])


@pytest.mark.parametrize("path", [p for p in TABLES if yaml.safe_load(p.read_text(encoding="utf-8"))["played"]["compare"]
                                  != "none"], ids=lambda p: p.stem)
def test_the_played_game_is_recovered(path: Path) -> None:
    text, case = _case(path)
    game, edition, played = _played(case)
    report = check_text(text)
    assert report.entries is not None and report.scores is not None
    totals = [s["total"] for s in report.scores["seats"]]
    assert totals == [s["total"] for s in played.scores["seats"]], f"read as scores {totals}"
    if case["played"]["compare"] == "state":
        state = game.begin(edition)
        for entry in report.entries:
            state = fold(game, state, entry.events)
        assert state == played.state, "the report's reading folds to another game than the one played"


def _sound(report: DisputeReport, text: str) -> None:
    out = report.to_json()
    json.dumps(out)  # a report a page or a file can hold
    assert out["findings"], "bad input passed as clean"
    lines = len(text.splitlines()) + 1
    assert all(1 <= f["line"] <= lines for f in out["findings"]), "a finding points outside the file"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_input_gives_a_report_never_an_exception(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _sound(check_text(text), text)
    result = CliRunner().invoke(cli.cronaca, ["check", "--json", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1, result.output[-400:]
    assert json.loads(result.output)["findings"]


def test_one_budget_bounds_the_whole_check_of_a_bad_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The searches, the narrowing of unknowns and every reading of the file again spend one budget per file
    (kernel.explain.Budget, in commands the rules decide and in CPU time): past its cap nothing more is started, only
    the reading the report needs is made, and the report names the cap and what was not done."""
    made: list[Budget] = []

    def small() -> Budget:
        made.append(Budget(whole_work=1_500))
        return made[-1]
    monkeypatch.setattr(dispute, "Budget", small)
    report = check_text((HERE / "bad_dozens_of_slips.txt").read_text(encoding="utf-8"))
    (budget,) = made
    assert report.findings and budget.work > budget.whole_work  # the file wants more than the cap
    assert budget.work <= budget.whole_work + 3 * budget.reading[1] + budget.per_search, (budget.work, budget.reading)
    said = reveal(report.to_json(), ALL)["explaining"]
    assert said["whole_work"] == 1_500 and said["work_used"] == budget.work and said["refusals_past_budget"] > 0
    assert "1500 commands decided by the rules" in said["said"] and "the budget was spent" in said["said"]


def test_what_a_turn_left_out_leaves_open_is_said_on_it_not_as_findings() -> None:
    """A galley's long turn not written (longer than the search reads in): several shorter turns fit the next lines,
    the checker goes on with one, and the lines the rules refuse after it for what the game holds are said on the
    turn left out (its `doubts`), not each as a finding; the word misspelt further on is still a finding."""
    report = check_text((HERE / "serenissima_galley_turn_left_out.txt").read_text(encoding="utf-8"))
    first = min((f for f in report.findings if f.kind != "result"), key=lambda f: f.line)
    assert (first.line, first.explanation["kind"]) == (17, "left-out")
    (opened,) = [f for f in report.findings if f.explanation and f.explanation.get("doubts")]
    doubts = opened.explanation["doubts"]
    assert opened.explanation["kind"] == "left-out" and "may be that turn's doing" in opened.message
    assert len(doubts) >= 10 and not any(f.line in doubts for f in report.findings)
    assert any(f.line == 57 and f.rule == "notation/move" and "galley" in str(f.did_you_mean) for f in report.findings)
    assert len(report.findings) <= 6


def test_a_battle_turn_left_out_that_one_reading_fits_leaves_its_cascade_on_it() -> None:
    """Anna Maria's turn opening round 5 not written (`galley 3 action, load atene, toss wood, sail costantinopoli
    atene, attack 14 [2] [2 6 6 6]`): one short reading fits the next lines (the battle is beyond the search), and
    the game read on from it is refused again and again a few lines later, each refusal close on the one before.
    Those refusals are said on the turn left out, not as findings of their own (the file gave 26 findings)."""
    report = check_text((HERE / "serenissima_a_battle_turn_left_out.txt").read_text(encoding="utf-8"))
    moves = [f for f in report.findings if f.kind != "result"]
    assert [(f.line, f.explanation["kind"]) for f in moves] == [(55, "left-out")], [(f.line, f.rule) for f in moves]
    (named,) = moves
    assert "Anna Maria's turn missing before line 55" in named.message and "may be that turn's doing" in named.message
    assert len(named.explanation["doubts"]) >= 10 and min(named.explanation["doubts"]) > 55
    assert len(report.findings) <= 2  # and the Result's: the game as read stops before its end


def test_the_end_of_round_s_draws_left_out_with_their_turn_are_open_not_refusals() -> None:
    """Round 3's last turn not written, with the End of Round's nine draws on it (`Bruno: burn G8 future [G5], P,
    buy P 1 [Y8] [W2] [G6] [O7] [B8] [P10] [O G O O]`): the check's budget is spent before those draws are tried
    against the lines after them, so the lines refused later (a card taken that the guess did not deal) rest on a
    guess: they are said on those undetermined draws, and the turn left out is the one finding (the file gave 40)."""
    report = check_text((HERE / "citta_stato_the_end_of_round_turn_left_out.txt").read_text(encoding="utf-8"))
    assert [(f.line, f.rule) for f in report.findings] == [(80, "notation/out-of-turn")]
    assert "Bruno's turn missing before line 80" in report.findings[0].message
    open_draws = [u for u in report.unknowns if u.line == 80 and u.consistent is None]
    assert len(open_draws) >= 6
    doubted = [d for u in open_draws for d in u.doubts]
    assert any(d.startswith("line 105 ") for d in doubted), doubted
    assert "undetermined" in open_draws[0].to_json()["message"]


def test_a_finding_past_the_budget_puts_few_legal_moves_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the whole check's cap each finding still names the closest legal moves, but ranks only
    `READ_LEGAL_SPENT` of them by their words (not `READ_LEGAL`): a file of dozens of slips stays within its time."""
    text = (HERE / "la_citta_castle_one_hex_off.txt").read_text(encoding="utf-8")  # a castle: many legal hexes
    said: list[int] = []
    per_call: list[int] = []
    own_say, own_alternatives = dispute._Checker.say, dispute._Checker.alternatives

    def say(self: Any, command: Any, state: Any = None) -> str:
        said.append(1)
        return own_say(self, command, state)

    def alternatives(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = len(said)
        found = own_alternatives(self, *args, **kwargs)
        per_call.append(len(said) - before)
        return found
    monkeypatch.setattr(dispute._Checker, "say", say)
    monkeypatch.setattr(dispute._Checker, "alternatives", alternatives)
    check_text(text)
    within = max(per_call)
    per_call.clear()
    monkeypatch.setattr(dispute, "Budget", lambda: Budget(whole_work=1))  # spent at once
    report = check_text(text)
    assert within > dispute.READ_LEGAL_SPENT >= max(per_call) > 0, (within, per_call)
    assert any(reveal(f.to_json(), ALL).get("alternatives") for f in report.findings)


def test_a_forgotten_colon_is_mended_but_a_line_of_chat_is_not() -> None:
    """`Maria Grazia galley 7 action, ...` is her turn with its colon forgotten: one finding, which says so, and the
    game read as played (the yaml case). A line of chat under her name, `Maria Grazia went out for pizza`, has no
    move of the game after the name: it stays an unreadable line, not a move refused."""
    text, case = _case(HERE / "serenissima_colon_forgotten.yaml")
    (slip,) = case["slips"]
    (found,) = check_text(text).findings
    assert found.line == slip["lines"][0] and "the colon after the player's name is missing" in str(found.message)
    assert f"read as `{slip['meant']}`" in str(found.message)
    lines = text.splitlines()
    chat = "\n".join([*lines[:20], "   Maria Grazia went out for pizza", *lines[20:]]) + "\n"
    findings = [f for f in check_text(chat).findings if f.line == 21]
    assert [f.rule for f in findings] == ["notation/syntax"] and "colon" not in str(findings[0].message)


@pytest.mark.parametrize(("stem", "printed"), [("citta_stato_maria_grazia", "Città-Stato"),
                                               ("la_citta_pier_paolo", "La Città"),
                                               ("serenissima_battle", "SERENISSIMA")])
def test_a_title_written_as_the_box_prints_it_and_tags_in_lower_case_read_the_same(stem: str, printed: str) -> None:
    """`[title "La Città"]`: the box's name for the game, and a tag name in lower case, as a table writes them."""
    text, _ = _case(HERE / f"{stem}.yaml")
    written = text.replace(f'[Title "{text.split(chr(34))[1]}"]', f'[title "{printed}"]', 1)
    written = written.replace("[Seats ", "[seats ", 1)
    assert written != text and printed in written
    as_printed, as_catalogued = check_text(written), check_text(text)
    assert as_printed.title == as_catalogued.title in catalog.TITLES
    assert [(f.line, f.rule) for f in as_printed.findings] == [(f.line, f.rule) for f in as_catalogued.findings]
    assert [e.events for e in as_printed.entries or []] == [e.events for e in as_catalogued.entries or []]
