"""Seat names as people write them, in the notation's header and on its turn lines (docs/notation/: "Names")."""

from __future__ import annotations

import pytest

from domain.kernel.notation import (
    _parse_whole,
    find_seat,
    fold_name,
    parse,
    read_result,
    read_seats,
    seat_name_problem,
    seat_names_problem,
    write_player,
    write_result,
    write_seats,
    write_tag,
)

TRICKY = ["Ada", "Maria Grazia", "Gianmaria D'Angelo", "Rossi, Mario", "Bea (red)", 'Say "hi"', "back\\slash",
          "[Ada]", "{Ada}", " Ada ", "Ada 2", "2Pac", "Setup", "pass", "🎲 Ada", "Zoë", "Ada: 3", "%", "(", '"']


def test_old_seat_lists_read_as_before() -> None:
    assert read_seats('Ada (red), Bruno, "Gian Maria" (blue)') == [("Ada", "red"), ("Bruno", None), ("Gian Maria", "blue")]
    assert read_seats("Ada, Ghost") == [("Ada", None), ("Ghost", None)]
    assert read_seats("Yellow (yellow), Blue (blue)") == [("Yellow", "yellow"), ("Blue", "blue")]
    assert read_result("Ada 31, Bruno 27") == {"Ada": 31, "Bruno": 27}
    assert read_result('"Gian Maria" 40, Ada 2 -3') == {"Gian Maria": 40, "Ada 2": -3}
    assert write_seats(["Ada", "Bruno"], ["red", None]) == "Ada (red), Bruno"
    assert write_result(["Ada", "Bruno"], [31, 27]) == "Ada 31, Bruno 27"


@pytest.mark.parametrize("name", TRICKY)
def test_every_name_comes_back_from_the_seats_and_result_lists(name: str) -> None:
    names = [name, "Bruno", "Chiara (blu)"]
    written = write_seats(names, [None, "red", None])
    assert [n for n, _ in read_seats(written)] == names
    assert [c for _, c in read_seats(written)] == [None, "red", None]
    # through the tag as the file holds it (the list inside a quoted tag value, each level escaped)
    tag = parse(write_tag("Seats", written) + "\n" + write_tag("Result", write_result(names, [3, -1, 0])) + "\n")
    assert not tag.errors
    assert [n for n, _ in read_seats(tag.tag("Seats") or "")] == names
    assert read_result(tag.tag("Result") or "") == dict(zip(names, [3, -1, 0], strict=True))


def test_names_holding_the_lists_characters_are_quoted_and_no_others() -> None:
    assert write_seats(["Maria Grazia", "Gianmaria D'Angelo", "Zoë"]) == "Maria Grazia, Gianmaria D'Angelo, Zoë"
    assert write_seats(["Rossi, Mario", "Bea (red)"]) == '"Rossi, Mario", "Bea (red)"'
    assert write_seats(['Say "hi"']) == '"Say \\"hi\\""'
    assert write_tag("Seats", write_seats(["Rossi, Mario", "Bea"])) == '[Seats "\\"Rossi, Mario\\", Bea"]'


@pytest.mark.parametrize("name", ["Ada", "Maria Grazia", "Gianmaria D'Angelo", "Gianmaria D’Angelo", "Zoë Ødegård",
                                  "Ada 2", "J.R.R. Tolkien", "Jean-Luc", "Zoe\u0308", "Niccolo\u0300 Rossi",
                                  "A. Rossi", "Gianmaria D\u2018Angelo", "Anne-Marie O\u02bcNeil"])
def test_a_name_of_words_stands_bare_on_its_lines(name: str) -> None:
    assert write_player(name) == name
    text = f"Setup\n1. {name}: roll [3]\n   {name}: pass\n"
    for read in (parse(text), _parse_whole(text)):  # the fast reading and lark's agree
        assert not read.errors
        assert [t.player for t in read.turns] == [name, name]
        assert [t.column for t in read.turns] == [4, 4]


@pytest.mark.parametrize("name", ["Setup", "Setup Rossi", "Bea (red)", "Rossi, Mario", "2Pac", "🎲 Ada", "Ada!", "Ada?",
                                  "Maria  Grazia", " Ada", 'Say "hi"', "Ada: 3", "%", "{Ada}", "[Ada]"])
def test_any_other_name_is_quoted_on_its_lines_and_reads_back(name: str) -> None:
    written = write_player(name)
    assert written.startswith('"') and written != name
    text = f"Setup\n1. {written}: roll [3]\n   {written}: pass {{a note}}\n"
    for read in (parse(text), _parse_whole(text)):
        assert not read.errors, read.errors
        assert [t.player for t in read.turns] == [name, name]


def test_a_name_that_is_a_word_of_the_game_is_still_a_player_before_its_colon() -> None:
    read = parse("Setup\n1. pass: roll [3]\n   war: pass\n   Setup Rossi: pass\n")
    assert [t.player for t in read.turns[:2]] == ["pass", "war"]
    assert read.errors and read.errors[0].line == 4  # `Setup` opens the setup line: such a name is quoted


def test_lines_match_seats_by_the_folded_name() -> None:
    assert fold_name("  Maria   GRAZIA ") == fold_name("maria grazia")
    assert fold_name("Zoe\u0308") == fold_name("Zoë")  # the two Unicode spellings of one accent
    assert fold_name("Zoe") != fold_name("Zoë")
    assert fold_name("STRASSE") == fold_name("straße")
    assert fold_name("Gianmaria D’Angelo") == fold_name("gianmaria d'angelo") == fold_name("Gianmaria D`Angelo")


@pytest.mark.parametrize(("written", "seat"), [
    ("Niccolo", 0), ("NICCOLO", 0), ("Nicco\u0300lo", 0), ("A.Rossi", 1), ("a rossi", 1), ("Anne Marie", 2),
    ("AnneMarie", 2), ("Gianmaria DAngelo", 3), ("Zoe", 5), ("Zoë", 4), ("Zoe\u0308", 4), ("Rossi", None),
])
def test_a_name_written_without_its_accents_or_signs_is_the_one_seat_so_spelled(written: str, seat: int | None) -> None:
    names = ["Niccolò", "A. Rossi", "Anne-Marie", "Gianmaria D’Angelo", "Zoë", "Zoe"]
    # `Zoe` is a seat of its own: the loose spelling names a seat only where one seat alone is spelled so
    assert find_seat(written, names) == seat


def test_a_loose_spelling_two_seats_share_names_neither() -> None:
    assert find_seat("Zoe", ["Zoë", "Ada"]) == 0
    assert find_seat("Zoe", ["Zoë", "Zoè"]) is None
    assert find_seat("Zoë", ["Zoë", "Zoè"]) == 0
    assert find_seat("!!", ["Ada", "Bruno"]) is None  # nothing left to compare is no name


@pytest.mark.parametrize(("name", "says"), [
    ("Ada\nBruno", "U+000A"), ("Ada\tB", "U+0009"), ("Ada\x00", "U+0000"), ("Ada\u2028B", "line separator"),
    ("Ada\ud800", "surrogate"), ("", "empty"), ("   ", "only spaces"), ("\x7f", "control"),
])
def test_names_the_notation_cannot_carry_are_named_with_why(name: str, says: str) -> None:
    problem = seat_name_problem(name)
    assert problem is not None and says in problem


def test_names_the_notation_carries() -> None:
    for name in [*TRICKY, "👩\u200d👩\u200d👧 family", "Zoe\u0308", "\u00a0Ada", "ﬁ"]:
        assert seat_name_problem(name) is None, name


def test_two_seats_the_notation_cannot_tell_apart() -> None:
    assert seat_names_problem(["Ada", "Bruno"]) is None
    assert seat_names_problem(["Zoë", "Zoe", "Ada", "Ada Rossi"]) is None  # accents and longer names tell them apart
    for pair in (["Ada", "Ada"], ["Ada", "ADA"], ["Zoë", "Zoe\u0308"], ["Maria Grazia", "Maria  Grazia"]):
        found = seat_names_problem(pair)
        assert found is not None and found[0] == 1 and "seat 0" in found[1], pair
    assert seat_names_problem(["Ada", "Bruno\n"]) == (1, seat_name_problem("Bruno\n"))
