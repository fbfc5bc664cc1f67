"""A finding names the person a rule protects or pays, and the rule that moved a turn, as a table reads it (issue 30):
who was owed the ducats, whose last port or galleys stand in the way, which rule took a hungry player's first turn
of the year, and in each title's out-of-turn sentence the rule of the turn order in words (no step ids)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from domain.kernel import ObservedChance, RuleViolation
from domain.kernel.contract import fold
from domain.kernel.report_words import addressed, plain, verbs_of
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME as LA_CITTA
from domain.la_citta import commands as lc
from domain.la_citta.notation import WORDS as LA_CITTA_WORDS
from domain.la_citta.report import terms as la_citta_terms
from domain.la_citta.rules import who as la_citta_who
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.report import terms
from domain.serenissima.state import replace
from domain.transcripts import check_text
from tests.serenissima.board import BLACK, BLUE, RED, activate, galley, money, port, table

HERE = Path(__file__).parent
NAMES = ["Anna Maria", "Sean O'Brien", "Zoë", "Dario"]  # seat 0 is blue, 1 red, 2 orange, 3 black


def _said(s: object, command: cm.Command, rule: str, seat: int = BLUE) -> str:
    """The refusal's sentence as a dispute report prints it for a finding of `seat`'s line."""
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, command, ObservedChance([]))
    assert refused.value.rule == rule
    message = refused.value.message
    assert isinstance(message, str)
    return plain(message, NAMES, None, terms, True, seat)


def test_a_cube_that_cannot_be_paid_names_who_was_owed_the_ducats() -> None:
    s = table()
    s = port(s, "valencia", RED, 2)
    s = galley(s, 4, BLUE, "balearic", 2)
    s = money(activate(s, 4, "action"), blue=0)
    said = _said(s, cm.BuyGood(BLUE), "serenissima/loading/cannot-pay")
    assert said == "the wood cube costs 1 ducat, owed to Sean O'Brien, the owner of València"


def test_a_cube_of_a_neutral_port_is_owed_to_the_bank() -> None:
    s = table()
    s = galley(s, 4, BLUE, "balearic", 2)
    s = money(activate(s, 4, "action"), blue=0)
    assert _said(s, cm.BuyGood(BLUE), "serenissima/loading/cannot-pay").endswith("owed to the bank")


def _attacking(ports_of_red: int) -> object:
    s = table()
    s = port(s, "algiers", RED, 2)
    if ports_of_red > 1:
        s = port(s, "tunis", RED, 1)
    s = galley(s, 4, BLUE, "algerian", 4)
    s = galley(s, 15, BLACK, "cilician", 1)
    s = activate(s, 4, "action")
    return replace(s, act=replace(s.act, stage="trade"))


def test_the_last_port_rule_names_whom_it_protects() -> None:
    said = _said(_attacking(1), cm.AttackPort(BLUE), "serenissima/battle/last-port")
    assert said == "a player's last port cannot be attacked: Algiers is Sean O'Brien's last"


def test_the_guards_to_sink_first_are_named_with_their_owner() -> None:
    s = galley(_attacking(2), 7, RED, "algerian", 1)
    said = _said(s, cm.AttackPort(BLUE), "serenissima/battle/galleys-first")
    assert said == "the port owner's galleys in the zone must be sunk first: Sean O'Brien's galley 7"


@pytest.mark.parametrize(("sentence", "said"), [
    ("all your action cards are used this year", "all Pier Paolo's action cards are used this year"),
    ("this costs 3 gold and you hold 1", "this costs 3 gold and Pier Paolo holds 1"),
    ("you have already founded a city this year", "Pier Paolo has already founded a city this year"),
    ("you still hold an unused action card", "Pier Paolo still holds an unused action card"),
    ("galley 2 is not yours in this zone", "galley 2 is not Pier Paolo's in this zone"),
])
def test_a_rule_said_to_the_sender_is_said_of_the_player(sentence: str, said: str) -> None:
    assert addressed(sentence, "Pier Paolo") == said


def test_a_hungry_players_lost_first_turn_is_named_as_the_rule_that_moved_the_turn() -> None:
    """Pier Paolo's citizens went hungry in year 1: the rules turn down his first action card of year 2 for nothing,
    so Nicolò opens the year. The table wrote Pier Paolo's line first."""
    text = (HERE / "la_citta_hungry_first_turn.txt").read_text(encoding="utf-8")
    report = check_text(text)
    assert [(f.line, f.rule) for f in report.findings] == [(25, "notation/out-of-turn")]
    message = report.findings[0].message
    assert isinstance(message, str)
    assert "rules wait for Nicolò to take a political turn: Pier Paolo's turn was lost to hunger" in message
    assert "went hungry at the last feeding" in message


@pytest.mark.parametrize("name", ["citta_stato_maria_grazia", "la_citta_pier_paolo", "serenissima_cut_piece",
                                  "citta_stato_left_out"])
def test_out_of_turn_sentences_say_the_step_in_words(name: str) -> None:
    report = check_text((HERE / f"{name}.txt").read_text(encoding="utf-8"))
    said = [str(f.message) for f in report.findings if f.rule == "notation/out-of-turn"]
    for message in said:
        waited = message.split("the rules wait for ", 1)[1]
        assert "(turn)" not in waited and "political-turn" not in waited and "(plan)" not in waited, message
        assert "-" not in waited.split(":")[0], message  # no step id (`war-pay`, `send-away`)


def _la_citta_at(step: str) -> tuple[object, int]:
    """A state of a played 2-player La Città game where the rules wait for `step`, and the seat they wait for."""
    edition = LA_CITTA.default_edition()
    done = play_random(LA_CITTA, edition, {"players": 2}, "steps-in-words")
    state = LA_CITTA.begin(edition)
    for entry in done.entries:
        state = fold(LA_CITTA, state, entry.events)
        seat, kind = la_citta_who(state)
        if kind == step and seat is not None:
            return state, seat
    raise AssertionError(f"the game never waits for {step}")


@pytest.mark.parametrize("step, move, said", [
    ("political-turn", lambda seat: lc.Attract(seat, 1, "health"), "`attract` is not a move for a political turn"),
    ("attract", lambda seat: lc.SendAway(seat, 1, 1), "is not a move for attracting citizens"),
    ("political-turn", lambda seat: lc.Demolish(seat, 1), "`demolish` is not a move for a political turn")])
def test_a_move_for_another_step_of_la_citta_says_the_step_in_words(step: str, move: Any, said: str) -> None:
    """A La Città line whose move answers another step than the one the rules are at: the verb the line writes and
    the step as the rulebook says it, with no article doubled ("a a political turn") or wrong ("a attract")."""
    state, seat = _la_citta_at(step)
    with pytest.raises(RuleViolation) as refused:
        LA_CITTA.decide(state, move(seat), ObservedChance([]))
    assert refused.value.rule == "la-citta/not-now"
    sentence = plain(str(refused.value.message), NAMES, verbs_of(LA_CITTA_WORDS.vocabulary.by_kind), la_citta_terms, True, seat)
    assert said in sentence and "a a " not in sentence and "a attract" not in sentence, sentence
