"""Transcripts as people type them (issue 30, the people's round): what the yaml cases beside them cannot say.

The untidy files are checked from their bytes, as `cronaca check` reads them (Windows line ends, tabs, trailing
spaces, tag names in small letters), and must be clean; a comment written where no move has ended is one finding
and the line read with the note on the move it follows, as the same line with the comment in its place reads; a
move the rules do not offer is named as written; a public outcome misspelt is read as the file spells it elsewhere,
a hidden one is not (no guess of a secret pool is tried: it is read as `[?]`); a drawn player's accents are written
as they are; a place written with a look-alike offers first the reading it reads; a number written as a word and a
hunger counted short are said so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from api import cli
from domain import catalog
from domain.kernel import ALL, reveal
from domain.kernel.dispute import written_apart
from domain.kernel.notation import NUMBER_WORDS, as_typed, parse, read_result
from domain.kernel.selfplay import play_random
from domain.transcripts import check_text, render_log

HERE = Path(__file__).parent
UNTIDY = sorted(HERE.glob("*_untidy_but_clean.txt"))


def test_each_title_has_an_untidy_file() -> None:
    shipped = {title for title, package in catalog.TITLES.items() if package.startswith("domain.")}  # not a test's toy
    assert {p.name.split("_untidy")[0].replace("_", "-") for p in UNTIDY} == shipped


@pytest.mark.parametrize("path", UNTIDY, ids=lambda p: p.stem)
def test_an_untidy_file_from_its_bytes_checks_clean(path: Path) -> None:
    raw = path.read_bytes()
    assert b"\r\n" in raw and b"\n\t" in raw and b"   \r\n" in raw and re.search(rb"^\[title ", raw, re.M), \
        "the file lost its untidiness (a checkout normalised it?)"
    result = CliRunner().invoke(cli.cronaca, ["check", "--json", str(path)])
    assert result.exit_code == 0, result.output[-600:]
    assert json.loads(result.output)["findings"] == []


_MOVED = [("citta_stato_card_misnamed_comment_mid_line", 50, "politics B, {paid with the black} scheme 3",
           "politics B {paid with the black}, scheme 3", "after the comma", "politics B"),
          ("la_citta_swapped_and_comment_mid_line", 20, "bread L80 {the hospital} health [polling_the_people]",
           "bread L80 health [polling_the_people] {the hospital}", "inside a move",
           "bread L80 health [polling_the_people]"),
          ("serenissima_sailors_miscounted_and_comment_mid_line", 49, "sail famagusta rodi, {nobody there} claim rodi",
           "sail famagusta rodi {nobody there}, claim rodi", "after the comma", "sail famagusta rodi")]


@pytest.mark.parametrize(("stem", "line", "written", "placed", "where", "on"), _MOVED, ids=lambda v: str(v)[:20])
def test_a_comment_where_no_move_ended_is_one_finding_and_reads_as_the_comment_in_its_place(
        stem: str, line: int, written: str, placed: str, where: str, on: str) -> None:
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    assert written in text.splitlines()[line - 1]
    report = check_text(text)
    (found,) = [f for f in report.findings if f.line == line]
    assert found.rule == "notation/syntax" and where in str(found.message) and f"a note on `{on}`" in str(found.message)
    tidy = check_text(text.replace(written, placed, 1))
    assert not [f for f in tidy.findings if f.line == line]
    assert [e.events for e in report.entries or []] == [e.events for e in tidy.entries or []]


def test_a_move_not_offered_is_named_as_written() -> None:
    report = check_text((HERE / "citta_stato_card_misnamed_comment_mid_line.txt").read_text(encoding="utf-8"))
    (found,) = [f for f in report.findings if f.line == 22]
    assert str(found.message) == "line 22: `use W9 future` is not one of the choices for taking a card"


def test_a_public_outcome_misspelt_is_read_as_the_file_spells_it_a_hidden_one_is_not() -> None:
    text = (HERE / "la_citta_verb_typo_and_card_misnamed.txt").read_text(encoding="utf-8")
    report = check_text(text)
    (found,) = [f for f in report.findings if f.line == 47]
    assert "read as [hospital], as the file spells it elsewhere" in str(found.message)
    assert found.assumed == "[hospital]" and found.did_you_mean == ["hospital"]
    lines = text.splitlines()
    assert lines[25].endswith("pass [public_bath]")  # a blind draw: only MacKenzie saw it
    lines[25] = lines[25].replace("[public_bath]", "[public_bth]")
    blind = [f for f in check_text("\n".join(lines) + "\n").findings if f.line == 26]
    assert len(blind) == 1 and "spells it" not in str(blind[0].message) and blind[0].assumed != "[public_bath]"


def test_a_drawn_player_is_written_with_the_accents_of_the_name() -> None:
    game = catalog.game("serenissima")
    edition = game.default_edition()
    done = play_random(game, edition, {"players": 2}, "people-serenissima-3")
    text = render_log("serenissima", edition, done.entries, ["José Luis", "MacKenzie"], {"players": 2}, done.scores)
    setup = next(line for line in text.splitlines() if line.startswith("Setup"))
    assert setup.startswith('Setup ["José Luis"]') and "\\u" not in text
    assert check_text(text).findings == []


def test_a_move_written_with_a_count_one_too_many_says_how_many_stand() -> None:
    """`load 3 from 4` where the galley takes 2 more: the two stand (the game read as played, the yaml case), and the
    finding says so, not that the move is left out."""
    report = check_text((HERE / "serenissima_sailors_miscounted_and_comment_mid_line.txt").read_text(encoding="utf-8"))
    (found,) = [f for f in report.findings if f.line == 22]
    assert "`load 3 from 4` read as 2 of the 3" in str(found.message) and "the move is left out" not in str(found.message)


def test_a_word_after_a_verb_and_a_verb_misspelt_are_said_in_the_games_words() -> None:
    """`upgrade W` (white has no track) says what may follow the verb; `wra` is war, not the colour letter `w` that a
    one-letter answer also writes, nor trade, a verb near it that is no move there (only the words that read are
    offered)."""
    upgrade = check_text((HERE / "citta_stato_illegal_upgrade_and_double_entry.txt").read_text(encoding="utf-8"))
    (found,) = [f for f in upgrade.findings if f.line == 9]
    assert str(found.message) == "line 9: `upgrade W`: after upgrade comes Y, G, O, P, not W"
    typo = check_text((HERE / "citta_stato_verb_typo_and_result_miscounted.txt").read_text(encoding="utf-8"))
    (found,) = [f for f in typo.findings if f.line == 13]
    assert found.did_you_mean == ["war"] and "did you mean war?" in str(found.message)


def test_a_comma_forgotten_before_a_face_down_disc_keeps_the_disc_from_the_others_while_the_game_is_on() -> None:
    """`war, yes disc 5`: the two moves read, the finding at its line; its words, the disc placed face down, are
    D'Angelo's alone to read until the game is over (the file stops there: the game is in progress)."""
    lines = (HERE / "citta_stato_verb_typo_and_result_miscounted.txt").read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if line.endswith("war, yes, disc 5"))
    lines[at] = lines[at].replace("war, yes, disc 5", "war, yes disc 5")
    report = check_text("\n".join(lines[: at + 1]) + "\n")
    (found,) = [f for f in report.findings if f.line == at + 1]
    public, own = reveal(found.to_json(), None), reveal(found.to_json(), found.seat)
    assert own["message"] == f"line {at + 1}: a comma is missing in `yes disc 5`; read as `yes, disc 5`"
    assert "5" not in json.dumps({k: public.get(k) for k in ("message", "assumed", "written")}).replace(
        f"line {at + 1}", "")


def test_a_face_down_disc_not_offered_is_named_as_written_to_its_player_alone_while_the_game_is_on() -> None:
    lines = (HERE / "citta_stato_swapped_and_coin_miscounted.txt").read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if line.endswith("war, disc 3"))
    lines[at] = lines[at].replace("war, disc 3", "war, disc 6")  # the discs go 0 to 5
    (found,) = [f for f in check_text("\n".join(lines[: at + 1]) + "\n").findings if f.line == at + 1]
    public, own = reveal(found.to_json(), None), reveal(found.to_json(), found.seat)
    assert own["message"] == f"line {at + 1}: `disc 6` is not one of the choices for placing a War disc"
    assert "6" not in json.dumps({k: public.get(k) for k in ("message", "assumed", "written")}).replace(
        f"line {at + 1}", "")


@pytest.mark.parametrize("written", ["Ll3", "LI3"])
def test_a_place_written_with_a_look_alike_offers_first_the_reading_it_reads_anyway(written: str) -> None:
    """`Ll3` (an ell for a one) reads as L13; the did-you-mean names L13 first, not L3 (one letter fewer) or L93."""
    text = (HERE / "la_citta_pier_paolo.txt").read_text(encoding="utf-8")
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if ln.endswith("Ettore: statue L13 L12"))
    typed = text.replace("Ettore: statue L13 L12", f"Ettore: statue {written} L12", 1)
    (found,) = [f for f in check_text(typed).findings if f.line == line]
    assert found.did_you_mean[0] == "L13" and "did you mean L13 or" in str(found.message)
    assert found.assumed == "statue L13 L12"


def test_a_hidden_draw_misspelt_is_one_finding_read_as_a_draw_nobody_wrote_down() -> None:
    """`pass [Golden_tmes]`, a blind draw only Gigi D'Alessio saw: one finding at its line (the yaml case), the draw
    read as `[?]` and settled by what follows (it was read as the first card left, and the card drawn in its place
    was missing later: more findings). Once the game is over the report says what it must have been; while the game
    is on, the others' report is the same whatever word was written (a misspelling of a card, or a word of no card):
    nothing in it lets them confirm a guess of the card."""
    text = (HERE / "la_citta_blind_draw_misspelt.txt").read_text(encoding="utf-8")
    (unknown,) = reveal(check_text(text).to_json(), ALL)["unknowns"]
    assert (unknown["line"], unknown["written"], unknown["consistent"]) == (36, "[Golden_tmes]", ["[golden_times]"])
    assert "must have been [golden_times]" in unknown["message"]
    cut = "\n".join(text.splitlines()[:40]) + "\n"
    public = []
    for word in ("[Golden_tmes]", "[bread_and_circuses]"):
        shown = reveal(check_text(cut.replace("[Golden_tmes]", word, 1)).to_json(), None)
        shown.pop("explaining", None)
        public.append(json.dumps(shown, sort_keys=True))
        assert "olden_t" not in public[-1].lower() and word not in public[-1]
    assert public[0] == public[1]


@pytest.mark.parametrize("stem", ["citta_stato_number_as_word", "la_citta_number_as_word", "serenissima_number_as_word"])
def test_a_number_written_as_a_word_is_said_so_and_read_as_the_number(stem: str) -> None:
    """`buy P one`, `starve L26 three`, `recruit two galley 1`: the finding names the word and reads the number (the
    yaml case: one finding, the game recovered), not a move refused and the closest legal one taken."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    case = yaml.safe_load((HERE / f"{stem}.yaml").read_text(encoding="utf-8"))
    (slip,) = case["slips"]
    (found,) = check_text(text).findings
    word = next(w for w in slip["written"].replace(",", " ").split() if w.lower() in NUMBER_WORDS)
    meant = slip["meant"].split(": ", 1)[1].split(", ")
    assert f"`{word}` is a number written as a word" in str(found.message)
    assert found.assumed in meant and found.did_you_mean == [found.assumed]


def test_a_hunger_counted_short_is_named_at_its_line_with_the_count_the_rules_wanted() -> None:
    """`starve L4 3` where four went hungry: the rules take it and wait for one more, so the next player's line is
    out of turn; the finding is at the count written (the yaml case: the rule `la-citta/feed/count`), saying what
    would have stood, not a turn left out at the line after it."""
    text = (HERE / "la_citta_hunger_one_short.txt").read_text(encoding="utf-8")
    (found,) = check_text(text).findings
    assert found.assumed == "starve L4 4" and found.did_you_mean == ["starve L4 4"]
    assert "`starve L4 3` leaves Gigi D'Alessio to send hungry citizens away" in str(found.message)
    assert "read as `starve L4 4`" in str(found.message)


def test_an_annotation_typed_apart_from_its_move_is_said_so() -> None:
    """`fleet, no ?`: the `?` is the table's annotation typed with a space (glued, `no?`, `politics!!`, it is
    notation: the file's other annotations give no finding), not a value nobody wrote; the move read as `no`."""
    (found,) = check_text((HERE / "citta_stato_annotated_moves.txt").read_text(encoding="utf-8")).findings
    assert "a `?` typed apart after `no`" in str(found.message) and found.assumed == "no"


def test_a_face_down_disc_written_as_a_word_keeps_the_disc_from_the_others_while_the_game_is_on() -> None:
    """`war, yes, disc one`: read as `disc 1`, said to Anna Maria; the others learn nothing of the disc."""
    lines = (HERE / "citta_stato_typed_on_a_phone.txt").read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if line.endswith("war, yes, disc 1"))
    lines[at] = lines[at].replace("disc 1", "disc one")
    (found,) = [f for f in check_text("\n".join(lines[: at + 1]) + "\n").findings if f.line == at + 1]
    public, own = reveal(found.to_json(), None), reveal(found.to_json(), found.seat)
    assert own["message"] == f"line {at + 1}: `one` is a number written as a word in `disc one`; read as `disc 1`"
    assert not re.search(r"\b(1|one)\b", json.dumps({k: public.get(k) for k in (
        "message", "assumed", "written", "did_you_mean")}).replace(f"line {at + 1}", ""))


def test_a_question_mark_for_a_word_of_a_move_says_what_the_rules_take_there() -> None:
    """`upgrade O ?`: the `?` is the word nobody wrote down (how many black cubes stood in), not a cube: the finding
    says so and what the rules take there (only `upgrade O`: read so); with two legal, both are said and the one the
    rest of the game stands with is read (the yaml case)."""
    report = check_text((HERE / "citta_stato_upgrade_with_a_question_mark.txt").read_text(encoding="utf-8"))
    one, two = sorted(report.findings, key=lambda f: f.line)
    assert str(one.message) == ("line 13: a `?` in `upgrade O ?` stands for a word nobody wrote down (an annotation "
                                "is written on the move, with no space: `upgrade O?`); the rules take only `upgrade O` "
                                "here: read so")
    assert "cannot stand in" not in str(two.message) and "the rules take `upgrade P` or `upgrade P B` here" in str(
        two.message)
    assert reveal(two.to_json(), ALL)["assumed"] == "upgrade P B"


def test_a_face_down_disc_written_as_a_question_mark_keeps_the_discs_left_from_the_others() -> None:
    """`war, disc ?` (nobody saw the disc): the discs the rules take there are the player's alone while the game is
    on (which ones are left says which were played face down)."""
    lines = (HERE / "citta_stato_maria_grazia.txt").read_text(encoding="utf-8").splitlines()
    at = next(k for k, line in enumerate(lines) if line.endswith("Zoë: war, disc 3"))
    lines[at] = lines[at].replace("disc 3", "disc ?")
    (found,) = [f for f in check_text("\n".join(lines[: at + 2]) + "\n").findings if f.line == at + 1]
    own, public = reveal(found.to_json(), found.seat), reveal(found.to_json(), None)
    assert "the rules take `disc 1`, `disc 2`" in own["message"]
    assert not re.search(r"disc \d", json.dumps({k: public.get(k) for k in (
        "message", "assumed", "written", "did_you_mean", "alternatives")}))


def test_a_notepad_file_with_a_byte_order_mark_tabs_and_crlf_checks_clean_from_its_bytes() -> None:
    """Saved by Notepad: a byte-order mark, CRLF line ends, tabs and spaces left at line ends, `VP` after each score of
    the Result, round 2's number written twice: `cronaca check` reads the bytes as meant (the yaml case: no slip)."""
    path = HERE / "serenissima_bom_tabs_crlf_and_points.txt"
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf[Title") and b"\r\n\t" in raw and b"   \r\n" in raw and b" VP, " in raw
    result = CliRunner().invoke(cli.cronaca, ["check", "--json", str(path)])
    assert result.exit_code == 0, result.output[-600:]
    assert json.loads(result.output)["findings"] == []


def test_a_result_written_with_its_units_is_still_compared() -> None:
    """`Pietro 9 points` is Pietro's 9: written 10 points, the Result is one finding at its line, as `10` would be."""
    text = (HERE / "la_citta_result_in_points_and_a_turn_under_the_wrong_name.txt").read_text(encoding="utf-8")
    assert "Pietro 9 points" in text
    report = check_text(text.replace("Pietro 9 points", "Pietro 10 points", 1))
    (found,) = [f for f in report.findings if f.line == 5]
    assert found.rule == "notation/result" and "Pietro is given 10, the rules count 9" in str(found.message)


def test_initials_two_seats_share_are_named_with_both_at_each_line_and_read_as_the_turn_says() -> None:
    """`AL` where Anna Lisa and Alberto Lama sit: each line that writes it is one finding naming both, read as the one
    whose turn it was, and the game is read as played (no line skipped, nothing after it refused)."""
    text = (HERE / "la_citta_initials_and_a_shared_first_name.txt").read_text(encoding="utf-8")
    report = check_text(text.replace("Tommaso", "Alberto Lama"))
    lines = [k for k, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith("AL:")]
    said = {f.line: str(f.message) for f in report.findings}
    assert len(lines) == 6 and set(said) == {*lines, 30}
    assert all(said[k] == f"line {k}: 'AL' could be Anna Lisa or Alberto Lama: these are the initials of both; "
                          f"read as Anna Lisa's, who was to play" for k in lines)
    assert [s["total"] for s in (report.scores or {})["seats"]] == [1, 4, 27]


def test_a_question_mark_for_a_count_is_read_as_the_count_the_lines_after_it_stand_with() -> None:
    """`starve L4 ?` (how many went hungry, nobody noted): one finding naming the counts the rules take, and read as
    the one the next lines stand with (4), not as another move of the line reworded so that a count of 1 reads."""
    text = (HERE / "la_citta_hunger_one_short.txt").read_text(encoding="utf-8")
    (found,) = check_text(text.replace("starve L4 3", "starve L4 ?", 1)).findings
    assert found.rule == "notation/move" and "the rules take `starve L4`, `starve L4 2`" in str(found.message)
    assert found.assumed == "starve L4 4"


_DEALT = re.compile(r"^(Setup .*?)\[R\d+(?: R\d+)+\]", re.M)  # the setup's Republic cards, one to each seat


@pytest.mark.parametrize("stem", ["citta_stato_maria_grazia", "citta_stato_comma_forgotten",
                                  "citta_stato_upgrade_with_a_question_mark",
                                  "citta_stato_shift_forgotten_the_result_says",
                                  "citta_stato_swapped_and_coin_miscounted",
                                  "citta_stato_lines_swapped_after_unknown_draws"])
def test_a_republic_deal_nobody_wrote_down_reads_as_the_deal_written(stem: str) -> None:
    """The Republic cards written `[?]` (people rarely note who was dealt which): the file reads as the one with the
    deal written, the same findings and the same scores, the seat order settled by the lines after it and the Result
    (a misspelt verb, a comma forgotten, a `?` word read as meant on the way, not a stop where every order ties; a
    step left out that two readings fit alike chosen with the order, by the Result, the unknowns narrowed with each;
    a Market cube bought from the wrong row read as meant, so that the Result after it still tells the deals apart)."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    written = check_text(text)
    unknown = check_text(_DEALT.sub(r"\1[?]", text, count=1))
    assert unknown.unknowns and not [f for f in unknown.findings if f.rule == "notation/result"]
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]
    assert [s["total"] for s in (unknown.scores or {})["seats"]] == [s["total"] for s in (written.scores or {})["seats"]]


def test_cities_nobody_wrote_down_before_a_scheme_written_read_as_the_file_with_them() -> None:
    """The cities in play written `[?]`, the scheme card drawn after them written: the first guess of the cities made
    that card impossible, and the setup's finding ended the whole check there (the file's two slips unreported). The
    setup is made again with other cities until what is written stands; the file reads with its two slips."""
    text = (HERE / "citta_stato_maria_grazia.txt").read_text(encoding="utf-8")
    written = check_text(text)
    unknown = check_text(text.replace("[ANC PIS AMA]", "[?]", 1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings] == [
        (27, "notation/move"), (49, "notation/out-of-turn")]
    assert [u.line for u in unknown.unknowns] == [10]  # the cities: an unknown the report names, not a finding


_FIRST_BRACKET = re.compile(r"^(Setup )\[[^\]]*\]", re.M)  # the setup's first draw: a display, the cities


@pytest.mark.parametrize("stem", ["la_citta_untidy_but_clean", "la_citta_colon_forgotten",
                                  "la_citta_two_turns_on_one_line", "la_citta_verb_typo_and_card_misnamed",
                                  "la_citta_hungry_first_turn", "la_citta_pier_paolo"])
def test_a_display_nobody_wrote_down_reads_as_the_file_with_it(stem: str) -> None:
    """La Città's seven politics cards face up at the start written `[?]`: the first guess held cards that later
    lines write drawn from the deck (`pass [bread_and_games]`), and those lines were reported as draws of cards not
    there, or the guess stopped the reading at the first card played from the display. The display is searched for
    one the lines after it stand with: the file reads as with the display written, the same findings and scores. A
    slip of the table's early in the file (a player out of turn at line 25) that every display stops at alike no
    longer spends the check's budget on a search that cannot pass it: the reading after it, the slip explained,
    settles the display."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    written = check_text(text)
    unknown = check_text(_FIRST_BRACKET.sub(r"\1[?]", text, count=1))
    assert [u.line for u in unknown.unknowns if u.move < 0]  # the display: an unknown the report names
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]
    assert [s["total"] for s in (unknown.scores or {})["seats"]] == [s["total"] for s in (written.scores or {})["seats"]]


@pytest.mark.parametrize("stem", ["citta_stato_card_misnamed_comment_mid_line",
                                  "citta_stato_turn_left_out_after_unknown_draws"])
def test_cities_dealt_seat_by_seat_nobody_wrote_down_read_as_the_file_with_them(stem: str) -> None:
    """The cities written `[?]`, then each seat's personal scheme written: which seat has which city decides the seal
    of the scheme it draws (Pisa blue, Genova red), so the setup is made again with the cities in every seat order,
    not only as sets; the file reads as with the cities written (its slips, not a count of schemes at the setup)."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    written = check_text(text)
    unknown = check_text(_FIRST_BRACKET.sub(r"\1[?]", text, count=1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]
    assert not [f for f in unknown.findings if f.rule.startswith("chance/")]


@pytest.mark.parametrize(("stem", "port"), [("serenissima_battle", "[palermo]"), ("serenissima_battle", "[napoli]"),
                                            ("serenissima_comma_forgotten_and_galley_number", "[tripoli]"),
                                            ("serenissima_swapped_and_verb_typo", "[palermo]"),
                                            ("serenissima_sailors_miscounted_and_comment_mid_line", "[napoli]")])
def test_a_closed_port_nobody_wrote_down_before_a_slip_is_told_by_the_lines_after(stem: str, port: str) -> None:
    """A port closed to a good at the setup written `[?]`, and a slip of the table's later: a zone misspelt (`sail
    famagusta rodi famgusta`), two lines swapped. Every guess of the port stopped at the slip alike, so none was told
    apart, and the first (a port a galley claims later) made that claim a refusal, explained as a line written twice,
    and a cascade after it; a narrowing then read that explanation as the table's and told the ports apart no better.
    The slip is read as the checker read it where it cannot stand as written, a line the checker explained is read as
    written where it stands with the port tried: only the file's own slips are named."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    setup = next(line for line in text.splitlines() if line.startswith("Setup "))
    written = check_text(text)
    unknown = check_text(text.replace(setup, setup.replace(port, "[?]", 1), 1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]
    (closed,) = [u for u in unknown.unknowns if u.move < 0]
    assert closed.consistent and port.strip("[]") in [str(v) for value in closed.consistent for v in value]


@pytest.mark.parametrize(("stem", "cards"), [("citta_stato_line_copied_after_unknown_draws", "[G8 G6]"),
                                             ("citta_stato_turn_left_out_after_unknown_draws", "[G4 G1]"),
                                             ("citta_stato_lines_swapped_after_unknown_draws", "[B4 B8]")])
def test_a_colour_dealt_unwritten_before_a_slip_keeps_the_cards_the_lines_before_the_slip_say(stem: str, cards: str
                                                                                             ) -> None:
    """A colour's Present and Future cards at the start written `[?]`, and a slip of the table's own later (a line
    copied, a turn left out, two lines swapped): no guess of the cards reads past the slip, so the search that reads
    the written lines found cards that stand up to it, and a wider one that the check's caps then cut settled nothing;
    the cards the first found are read with, not the first guess (which took a card a later line draws, and was
    reported as a draw not there). The file reads with its own slip alone, as with the cards written."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    setup = next(line for line in text.splitlines() if line.startswith("Setup "))
    written = check_text(text)
    unknown = check_text(text.replace(setup, setup.replace(cards, "[?]", 1), 1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]


@pytest.mark.parametrize(("stem", "cards", "drawn"), [("citta_stato_republic_unknown", "[W7 W3]", 42),
                                                     ("citta_stato_swapped_and_coin_miscounted", "[P4 P7]", 55),
                                                     ("citta_stato_white_for_purple", "[G1 G8]", 150)])
def test_a_card_drawn_later_that_a_guess_of_the_deal_took_is_a_doubt_on_the_guess(stem: str, cards: str, drawn: int
                                                                                   ) -> None:
    """A colour's two cards at the start written `[?]`, which the check could not settle within its caps (a Republic
    deal `[?]` too, five seats): its guess held a card a later line writes drawn from that deck, and that draw was
    named the table's slip (`chance/draw/not-there`). The guess, not the line, may be wrong: the refusal is said on
    the unknown (its doubts), and the file reads with the findings it has with the cards written."""
    text = (HERE / f"{stem}.txt").read_text(encoding="utf-8")
    setup = next(line for line in text.splitlines() if line.startswith("Setup "))
    written = check_text(text)
    unknown = check_text(text.replace(setup, setup.replace(cards, "[?]", 1), 1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings]
    (deal,) = [u for u in unknown.unknowns if u.move < 0 and u.source == f"deck:{cards[1]}"]
    assert f"line {drawn} (chance/draw/not-there)" in deal.doubts


def test_five_seats_dealt_unwritten_and_a_colour_slip_name_the_slip_once() -> None:
    """Five seats, the Republic deal `[?]` (120 deals: more than the check can read to the end) and a cube written
    white for purple at line 73: the slip is named once, at its line, as with the deal written, not read as written
    past it into a cascade of refusals and a bag draw made impossible; the deal is left open, the Result not accused
    on a guess."""
    text = (HERE / "citta_stato_white_for_purple.txt").read_text(encoding="utf-8")
    written = check_text(text)
    unknown = check_text(_DEALT.sub(r"\1[?]", text, count=1))
    assert [(f.line, f.rule) for f in unknown.findings] == [(f.line, f.rule) for f in written.findings] == [
        (73, "notation/move")]
    (deal,) = [u for u in unknown.unknowns if u.line == 7]
    assert deal.consistent is None or len(deal.consistent) > 1  # open: it is not said to be the one guessed


def test_a_republic_deal_nobody_wrote_down_is_kept_from_the_players_while_the_game_is_on() -> None:
    """Half a game, its deal `[?]`: what the lines after it say the deal was is a reader of every secret's alone."""
    lines = _DEALT.sub(r"\1[?]", (HERE / "citta_stato_maria_grazia.txt").read_text(encoding="utf-8"), count=1)
    half = [line for line in lines.splitlines() if not line.startswith("[Result ")][:60]
    report = check_text("\n".join(half) + "\n").to_json()
    assert "R4" in json.dumps(reveal(report, ALL))
    assert not re.search(r"\bR[4-8]\b", json.dumps(reveal(report, None)))


def test_a_question_mark_for_how_many_is_read_as_the_count_the_lines_after_it_stand_with() -> None:
    """`load ? from 11` (how many sailors, nobody said): one finding naming the counts the rules take there, and the
    move read as the count the rest of the line and the lines after it stand with, not as one sailor."""
    text = (HERE / "serenissima_load_count_unknown.txt").read_text(encoding="utf-8")
    report = check_text(text)
    said = {f.line: f for f in report.findings}
    assert str(said[25].message) == ("line 25: a `?` in `load ? from 11` stands for a count nobody wrote down; the "
                                     "rules take 1 to 2 (`load 2 from 11` at most) here: read as `load 2 from 11`, "
                                     "with which the lines after it stand")
    assert said[25].assumed == "load 2 from 11" and said[65].assumed == "load 2 valencia"
    meant = check_text(text.replace("load ? from 11", "load 2 from 11").replace("load ? valencia", "load 2 valencia"))
    assert not meant.findings
    assert [e.events for e in report.entries or []] == [e.events for e in meant.entries or []]


@pytest.mark.parametrize("title, word, wrong", [("serenissima", "alessandria", "alesandria"),
                                                ("la-citta", "quarry", "quary"),
                                                ("citta-stato", "upgrade", "upgarde")])
def test_a_word_misspelt_alike_on_every_line_is_one_finding_naming_the_lines_read_so(title: str, word: str,
                                                                                       wrong: str) -> None:
    """A transcriber who misspells a word misspells it alike each time: one slip, said where it is first written,
    with the lines after it that write it read so and named; no finding of their own."""
    game = catalog.game(title)
    edition = game.default_edition()
    names = ["Maria Grazia", "Gianmaria D'Angelo", "Zoë"]
    for k in range(12):
        done = play_random(game, edition, {"players": 3}, f"alike-{k}")
        text = render_log(title, edition, done.entries, names, {"players": 3}, done.scores)
        lines = [n for n, line in enumerate(text.splitlines(), 1) if re.search(rf"\b{word}\b", line.split(":", 1)[-1])]
        if len(lines) >= 3:
            break
    assert len(lines) >= 3, f"no game of {title} writes {word} on three lines"
    report = check_text(re.sub(rf"\b{word}\b", wrong, text))
    (finding,) = report.findings
    assert (finding.line, finding.rule) == (lines[0], "notation/move") and word in finding.did_you_mean
    assert finding.facts["read_so_too_at"] == lines[1:]
    assert f"read so too at lines {', '.join(map(str, lines[1:]))}" in str(finding.message)
    assert report.scores is not None and [s["total"] for s in report.scores["seats"]] == \
        [s["total"] for s in done.scores["seats"]]


def test_a_recruit_written_with_a_count_past_the_ducats_says_how_many_stood() -> None:
    """`recruit 4 galley 12` with a ducat for one: the finding says the one that stood, not that the move was left out."""
    report = check_text((HERE / "serenissima_recruits_past_the_ducats.txt").read_text(encoding="utf-8"))
    (found,) = report.findings
    assert "`recruit 4 galley 12` read as 1 of the 4" in str(found.message) and found.assumed == \
        "`recruit 4 galley 12` read as 1 of the 4"


def test_a_count_before_the_move_refused_is_read_once_before_any_other_move() -> None:
    """`recruit 2 alessandria, recruit galley 2` with two ducats: the slip is the count, read as the same move once."""
    report = check_text((HERE / "serenissima_recruit_counted_twice.txt").read_text(encoding="utf-8"))
    (found,) = report.findings
    assert "`recruit 2 alessandria` read as `recruit alessandria`" in str(found.message), found.message


def test_a_misspelt_verb_is_offered_only_as_the_words_that_read_there() -> None:
    """`upgarde Y`: upgrade, not trade (near in spelling, no move of the seat there)."""
    text = (HERE / "citta_stato_first_name_in_round_one.txt").read_text(encoding="utf-8")
    at = next(k for k, line in enumerate(text.split("\n")) if line.endswith("D'Annunzio: upgrade P"))
    lines = text.split("\n")
    lines[at] = lines[at].replace("upgrade P", "upgarde P")
    found = [f for f in check_text("\n".join(lines)).findings if f.line == at + 1]
    assert [f.did_you_mean for f in found] == [["upgrade"]] and "did you mean upgrade?" in str(found[0].message)


def test_a_line_written_for_the_solo_ghost_says_where_its_turn_is_written() -> None:
    """`Ghost: G` on a line of its own in a solo game: one finding that says the Ghost never has a line (its cube goes
    in brackets at the end of the player's line), never that the Ghost has passed."""
    report = check_text((HERE / "citta_stato_solo_a_line_for_the_ghost.txt").read_text(encoding="utf-8"))
    (found,) = report.findings
    assert found.line == 13 and found.rule == "notation/out-of-turn"
    assert "the Ghost never has a line of its own" in str(found.message) and "Ghost has passed" not in str(found.message)


def test_a_card_number_misread_is_read_as_the_nearest_number_of_that_colour() -> None:
    """`burn Y9 supply` (no Y9; Ada holds Y8 and Y5): read as Y8, the nearest number of the cards written so."""
    report = check_text((HERE / "citta_stato_solo_card_number_slip.txt").read_text(encoding="utf-8"))
    (found,) = report.findings
    assert found.line == 28 and reveal(found.to_json(), ALL)["assumed"] == "burn Y8 supply"
    assert written_apart("Y9", "Y8") < written_apart("Y9", "Y5") and written_apart("L105", "L104") < \
        written_apart("L105", "L15")


def test_remarks_as_people_write_them_are_comments_on_their_moves() -> None:
    """`(wanted the lake)`, `# lucky draw!`, `// Pietro arrived late` after a move are that move's comment (a record
    imported from the file shows them at their step); a remark on a line of its own, above the tags too, is read by
    nothing. A `#` in a quoted name, and a remark inside a {comment}, stay as written."""
    text = (HERE / "la_citta_remarks_in_every_style.txt").read_text(encoding="utf-8")
    notation = parse(text)
    assert notation.errors == []
    said = {t.line: [c.text for m in t.moves for c in m.comments] for t in notation.turns if any(m.comments for m in t.moves)}
    assert said == {11: ["wanted the lake"], 16: ["lucky draw!"], 21: ["Pietro arrived late"],
                    32: ["D'Angelo said he would regret it"]}
    assert as_typed('[Event "Game #3"]\n1. Ada: pass {a (b) # c}\n') == '[Event "Game #3"]\n1. Ada: pass {a (b) # c}\n'
    assert as_typed("(\n   Ada: pass\n)\n") == "(\n   Ada: pass\n)\n"  # a variation's parentheses stand alone


@pytest.mark.parametrize(("typed", "read"), [
    ("• Ada: pass\n  - Bruno: pass\n* Carla: pass\n", "  Ada: pass\n    Bruno: pass\n  Carla: pass\n"),  # a list's bullets
    ("Round 3:\n   Anno 4\nEnd of round 4.\nGame over!\n", "%ound 3:\n   %nno 4\n%nd of round 4.\n%ame over!\n"),  # headings
    ("Scores so far: Ada 12, Bruno 9\n", "%cores so far: Ada 12, Bruno 9\n"),  # the running scores: read by nothing
    ("Bruno galley 6\ngalley 6\n", "Bruno galley 6\ngalley 6\n"),  # not a heading: a move (its colon forgotten)
    ("3.\n   Ada: found L11 L26.\n", "3.\n   Ada: found L11 L26 \n"),  # a full stop ends a turn; `3.` is a number
    ("Anna Maria – pass\n2. Ada - galley 1 action, sail napoli - genova\n",
     "Anna Maria : pass\n2. Ada : galley 1 action, sail napoli - genova\n"),  # a dash for the colon, only there
    ("Ada: war O - yes\n", "Ada: war O - yes\n"),  # a line with its colon keeps its dashes
    ("Ada: galley #7 action\n", "Ada: galley  7 action\n"),  # a number sign
    ("Ada: war O [B R] \U0001f62c\n", "Ada: war O [B R]{\U0001f62c}\n"),  # an emoji at the end: a remark
])
def test_the_habits_of_a_notes_app_are_read_as_meant_column_for_column(typed: str, read: str) -> None:
    assert as_typed(typed) == read


def test_the_scores_written_on_the_last_line_are_the_result_and_are_compared() -> None:
    """A file with no Result tag whose last line gives the final scores (`Final scores - Chiara 8 D'Angelo 2 ...`) is
    checked against them as against the tag: a score the rules do not count is a finding at that line."""
    path = HERE / "la_citta_years_headed_and_scores_written_at_the_end.txt"
    text = path.read_text(encoding="utf-8")
    last = len(text.rstrip("\n").split("\n"))
    assert parse(text).tags["Result"].line == last
    listed = parse(text.replace("Final scores", "\u2022 Final scores").replace("\nYear 4\n", "\n- Year 4\n"))
    assert listed.tags["Result"].line == last and [t.ordinal for t in listed.turns if t.ordinal] == [1, 2, 3, 4, 5, 6]
    wrong = check_text(text.replace("Pietro 9\n", "Pietro 19\n"))
    said = [f for f in wrong.findings if f.kind == "result"]
    assert [(f.line, f.rule) for f in said] == [(last, "notation/result")] and "Pietro is given 19" in str(said[0].message)


@pytest.mark.parametrize(("written", "read"), [
    ("Zoë D'Angelo 2 Anna Maria 0", {"Zoë D'Angelo": 2, "Anna Maria": 0}),  # no commas
    ("Ada 12; Bruno 9", {"Ada": 12, "Bruno": 9}),
    ("Ada 12 - Bruno -3", {"Ada": 12, "Bruno": -3}),
    ("Ada 12 pts Bruno 9 pts", {"Ada": 12, "Bruno": 9}),
    ("Bruno 2 12, Ada 9", {"Bruno 2": 12, "Ada": 9}),  # a name with a number keeps it
])
def test_a_result_written_without_commas_is_read_name_by_name(written: str, read: dict[str, int]) -> None:
    assert read_result(written) == read


def test_a_heading_s_number_one_off_is_the_round_slip_at_the_heading_s_line() -> None:
    """`Year 5` written above year 4's first line is the number of that line, as `5.` before it would be: one finding,
    at the heading's line, the game read on as year 4; `End of year 3.` gives no number."""
    text = (HERE / "la_citta_years_headed_and_scores_written_at_the_end.txt").read_text(encoding="utf-8")
    lines = text.split("\n")
    at = lines.index("Year 4")
    lines[at] = "Year 5"
    found = [(f.line, f.rule) for f in check_text("\n".join(lines)).findings]
    assert found == [(35, "notation/out-of-turn"), (at + 1, "notation/round")], found


def _as_a_notes_app_types_it(text: str) -> str:
    """A rendered game as a phone's notes app and a chatty table type it: a remark above the tags, `Round N:` headings
    for the turn numbers, a bullet before every line, a dash for some colons, full stops, remarks and an emoji after
    some moves, `Game over!`, and the Result as the last line, without commas, instead of its tag."""
    result = re.search(r'^\[Result "([^"]*)"\]\n', text, re.M)
    assert result is not None
    lines = ["# typed on Zoë's phone", *text[:result.start()].split("\n"), *text[result.end():].rstrip("\n").split("\n")]
    out: list[str] = []
    for k, line in enumerate(lines):
        numbered = re.match(r"^(\d+)\. (.*)$", line)
        if numbered:
            out.append(f"Round {numbered.group(1)}:")
            line = "   " + numbered.group(2)
        if line.startswith("   ") and line.strip():
            body = line.strip()
            if k % 7 == 3 and ": " in body:
                body = body.replace(": ", " - ", 1)
            body += ("." if k % 5 == 1 and not body.endswith("]") else " (well played)" if k % 5 == 2
                     else "  # slow" if k % 5 == 3 else " \U0001f389" if k % 11 == 4 else "")
            line = "\u2022 " + body
        out.append(line)
    return "\n".join([*out, "Game over!", "", "Final scores: " + result.group(1).replace(",", "")]) + "\n"


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
def test_a_game_typed_with_every_habit_at_once_reads_clean_and_a_slip_in_it_stays_one_finding(title: str) -> None:
    game = catalog.game(title)
    edition = game.default_edition()
    done = play_random(game, edition, {"players": 3}, f"habits-{title}")
    text = _as_a_notes_app_types_it(render_log(title, edition, done.entries, ["Zoë", "Anna Maria", "D'Angelo"],
                                               {"players": 3}, done.scores))
    report = check_text(text)
    assert report.findings == [], [(f.line, f.rule, str(f.message)[:120]) for f in report.findings[:4]]
    assert [s["total"] for s in (report.scores or {})["seats"]] == [s["total"] for s in done.scores["seats"]]
    lines = text.split("\n")  # a line under the name of the seat that played the line before it: the table's slip
    at = next(k for k in range(len(lines) // 2, len(lines)) if lines[k].startswith("\u2022 Zoë: ")
              and lines[k - 1].startswith("\u2022 Anna Maria: "))
    lines[at] = lines[at].replace("Zoë: ", "Anna Maria: ", 1)
    found = [(f.line, f.rule) for f in check_text("\n".join(lines)).findings]
    assert found == [(at + 1, "notation/out-of-turn")], found


@pytest.mark.parametrize("left", ["*", "?", ""])
def test_a_result_left_open_as_pgn_writes_a_game_not_ended_claims_nothing(left: str) -> None:
    """`[Result "*"]` (PGN's game not ended), `?` or nothing: no scores claimed, so none compared and no finding;
    the file's one slip stays one finding."""
    text = (HERE / "la_citta_result_in_points_and_a_turn_under_the_wrong_name.txt").read_text(encoding="utf-8")
    text = re.sub(r'^\[Result "[^"]*"\]', f'[Result "{left}"]', text, flags=re.M)
    assert [(f.line, f.rule) for f in check_text(text).findings] == [(33, "notation/out-of-turn")]
