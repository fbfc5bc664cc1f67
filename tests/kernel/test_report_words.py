"""A finding's sentence in the table's words (domain/kernel/report_words.py)."""

from __future__ import annotations

from collections.abc import Sequence

from domain.kernel.report_words import plain, plain_any
from domain.kernel.violations import Secret

SEATS = ["Maria Grazia", "Gianmaria D'Angelo", "Zoë"]
COLOURS = {"Y": "yellow", "B": "black", "G": "green"}


def terms(token: str, names: Sequence[str]) -> str | None:
    if token.startswith("bag:") and token[4:].isdigit():
        return f"{names[int(token[4:])]}'s bag"
    return COLOURS.get(token)


def test_seats_are_named() -> None:
    assert plain("it is seat 2's turn, not seat 0's", SEATS) == "it is Zoë's turn, not Maria Grazia's"
    assert plain("seat 1 must decide (plan)", SEATS) == "Gianmaria D'Angelo must decide (plan)"
    assert plain("seat 7 must decide", SEATS) == "seat 7 must decide"  # no such seat: left as it is


def test_python_lists_sets_and_dicts_are_words() -> None:
    assert plain("['G'] could not be drawn from bag:0", SEATS, terms=terms, things=True) == (
        "green could not be drawn from Maria Grazia's bag")
    assert plain("banners {'Y': 4, 'B': 1}, in_form True", SEATS, terms=terms, things=True) == (
        "banners yellow 4, black 1, in_form True")
    assert plain("offered ['B', 'B', 'Y'] of {'G'}", SEATS) == "offered B, B and Y of G"
    assert plain("no choices: []", SEATS) == "no choices: none"


def test_what_was_written_stays_as_written() -> None:
    # a table's outcome is notation, and a quoted word is what the line said: neither is rewritten
    assert plain("'war B [B R]' meets [3] and [B R]", SEATS, terms=terms, things=True) == "'war B [B R]' meets [3] and [B R]"
    # a finding about what was written keeps the notation's words (no terms)
    assert plain("in 'upgrade', 'G7' is none of Y, G; did you mean G?", SEATS, terms=terms) == (
        "in 'upgrade', 'G7' is none of Y, G; did you mean G?")


def test_command_ids_are_verbs() -> None:
    verbs = {"citta-stato/market-cube": "buy"}
    assert plain("citta-stato/market-cube is not one of the choices", SEATS, verbs) == "`buy` is not one of the choices"
    assert plain("citta-stato/other is refused", SEATS, verbs) == "citta-stato/other is refused"


def test_a_secret_is_said_on_both_sides() -> None:
    said = plain_any(Secret("seat 0 holds ['B']", 0, "seat 0's hand is hidden"), lambda t: plain(t, SEATS))
    assert isinstance(said, Secret) and said.seat == 0
    assert (said.value, said.shown) == ("Maria Grazia holds B", "Maria Grazia's hand is hidden")
    stored = plain_any({"$secret": {"seat": 1, "value": "seat 1", "shown": {"hidden": True}}}, lambda t: plain(t, SEATS))
    assert stored == {"$secret": {"seat": 1, "value": "Gianmaria D'Angelo", "shown": {"hidden": True}}}
