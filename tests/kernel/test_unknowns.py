"""Unknown outcomes narrowed together (issue 30, Deliver 2): rendered games of every title with outcomes
replaced by `[?]` as a table writes them, checked as a whole."""

from __future__ import annotations

import itertools
import re
from functools import cache
from typing import Any

import pytest

from domain import catalog
from domain.kernel import dispute
from domain.kernel.dispute import Unknown
from domain.kernel.selfplay import play_random
from domain.kernel.violations import ALL, reveal
from domain.serenissima.edition import tables
from domain.transcripts import check_text, render_log

NAMES = ["Ada", "Bruno", "Carla", "Dario"]


@cache
def rendered(title: str, players: int, seed: str) -> str:
    game = catalog.game(title)
    edition = game.default_edition()
    options = {"players": players}
    played = play_random(game, edition, options, seed)
    return render_log(title, edition, played.entries, NAMES[:players], options, played.scores)


def blank(text: str, line_text: str, written: str, by: str = "[?]") -> str:
    """`written` (an outcome as rendered) replaced by `by` on the one line that reads `line_text`."""
    lines = text.splitlines()
    (k,) = [k for k, line in enumerate(lines) if line.strip() == line_text.strip()]
    assert written in lines[k]
    lines[k] = lines[k].replace(written, by, 1)
    return "\n".join(lines) + "\n"


def skulls_of(faces: tuple[int, ...]) -> int:
    skull_faces = tables(catalog.game("serenissima").default_edition()).skulls
    return sum(1 for f in faces if f in skull_faces)


def a_battle_of_two_rounds() -> tuple[str, str, tuple[int, ...], tuple[int, ...]]:
    """A rendered 4-player Serenissima game with a battle fought again after its first round, where the first
    round's dice hit: (the text, the line, the attacker's and the defender's first rolls)."""
    pattern = re.compile(r"attack (\w+) \[([\d ]+)\] \[([\d ]+)\], again")
    for seed in (f"s{k}" for k in range(1, 30)):
        text = rendered("serenissima", 4, seed)
        for line in text.splitlines():
            found = pattern.search(line)
            if found is None:
                continue
            attacker = tuple(map(int, found.group(2).split()))
            defender = tuple(map(int, found.group(3).split()))
            if skulls_of(attacker) + skulls_of(defender) > 0:
                return text, line, attacker, defender
    raise AssertionError("no two-round battle with a hit in the first round among the seeds")


def test_a_battle_written_with_both_first_rolls_unknown_is_narrowed_jointly() -> None:
    """`attack 3 [?] [?], again [6] [2]`: the second round's dice say how many sailors each side lost, so each
    roll is every roll of its dice with exactly the skulls it had, and nothing later is accused."""
    text, line, attacker, defender = a_battle_of_two_rounds()
    first = f"[{' '.join(map(str, attacker))}] [{' '.join(map(str, defender))}]"
    report = check_text(blank(text, line, first, "[?] [?]"))
    assert report.ok, [f.to_json()["message"] for f in report.findings][:3]
    by_source = {u.source: u for u in report.unknowns}
    assert set(by_source) == {"dice:attacker", "dice:defender"}
    for source, roll in (("dice:attacker", attacker), ("dice:defender", defender)):
        unknown = by_source[source]
        everything = set(itertools.product(range(1, 7), repeat=len(roll)))
        assert unknown.consistent is not None and roll in unknown.consistent
        assert set(unknown.consistent) == {r for r in everything if skulls_of(r) == skulls_of(roll)}
    assert by_source["dice:attacker"].together == [by_source["dice:defender"].line] or \
        by_source["dice:attacker"].line == by_source["dice:defender"].line


def test_one_unknown_roll_alone_narrows_to_exactly_its_possibilities() -> None:
    text, line, attacker, defender = a_battle_of_two_rounds()
    written = f"[{' '.join(map(str, attacker))}] [{' '.join(map(str, defender))}]"
    report = check_text(blank(text, line, written, f"[?] [{' '.join(map(str, defender))}]"))
    assert report.ok
    (unknown,) = report.unknowns
    everything = set(itertools.product(range(1, 7), repeat=len(attacker)))
    assert unknown.consistent is not None
    assert set(unknown.consistent) == {r for r in everything if skulls_of(r) == skulls_of(attacker)}
    assert f"{len(unknown.consistent)} possibilities" in unknown.to_json()["message"] or len(unknown.consistent) == 1


def test_a_tiny_budget_leaves_the_battle_undetermined_and_accuses_nobody() -> None:
    """Beyond the budget the report says undetermined and why; the lines the guess could not read are not findings."""
    text, line, attacker, defender = a_battle_of_two_rounds()
    first = f"[{' '.join(map(str, attacker))}] [{' '.join(map(str, defender))}]"
    report = check_text(blank(text, line, first, "[?] [?]"), budget=10)
    assert not [f for f in report.findings if f.kind in ("rule", "chance", "order", "result")], \
        [f.to_json()["message"] for f in report.findings][:3]
    undetermined = [u for u in report.unknowns if u.consistent is None]
    assert undetermined
    said = undetermined[0].to_json()
    assert said["consistent"] == "undetermined" and "budget of 10 moves" in said["message"]


def draws_of(text: str, verb: str) -> list[tuple[str, str]]:
    """(line, bracket) of each La Città line by one player that draws a politics card after `verb`."""
    out = []
    for line in text.splitlines():
        found = re.match(rf"\s*(?:\d+\. )?(\w+): {verb} .*?(\[[a-z_]+\])$", line)
        if found:
            out.append((line, found.group(2)))
    return out


def test_two_hidden_draws_of_la_citta_are_never_assumed_into_a_finding() -> None:
    """Bruno's two blind draws written `[?]`: the later plays of what he drew stand, and each draw's
    possibilities hold what he drew."""
    text = rendered("la-citta", 3, "s1")
    line35 = "   Bruno: bread L91 education [rich_harvest]"
    line54 = "   Bruno: harvest L91 [bread_and_games] [health health education]"
    blanked = blank(blank(text, line35, "[rich_harvest]"), line54, "[bread_and_games]")
    report = check_text(blanked)
    assert report.ok, [f.to_json()["message"] for f in report.findings][:3]
    first, second = sorted(report.unknowns, key=lambda u: u.line)
    assert first.consistent is not None and ("rich_harvest",) in first.consistent
    assert second.consistent is not None and ("bread_and_games",) in second.consistent
    assert second.line in first.together and first.line in second.together


def test_every_blind_draw_of_a_game_unknown_reads_without_findings() -> None:
    """Every `pass [card]` draw of a 3-player game written `[?]`: bounded, and nothing accused."""
    text = rendered("la-citta", 3, "s2")
    blanked = re.sub(r"(: pass) \[[a-z_]+\]", r"\1 [?]", text)
    assert blanked != text
    report = check_text(blanked)
    assert not [f for f in report.findings if f.kind in ("rule", "chance", "order", "result")], \
        [f.to_json()["message"] for f in report.findings][:3]
    assert report.unknowns


def test_republic_cards_written_unknown_are_narrowed_by_the_claimed_result() -> None:
    """Città-Stato's Republic cards `[?]` in the setup, as the notation page suggests: the claimed result says
    which deals make the written score right; it is never accused by a guessed deal."""
    text = rendered("citta-stato", 2, "s3")
    deal = re.search(r"Setup .*?(\[R\d+ R\d+\])", text)
    assert deal is not None
    truth = tuple(deal.group(1)[1:-1].split())
    report = check_text(text.replace(deal.group(1), "[?]", 1))
    assert report.ok, [f.to_json()["message"] for f in report.findings][:3]
    (republic,) = [u for u in report.unknowns if u.source == "deck:republic"]
    assert republic.consistent is not None
    assert truth in republic.consistent or tuple(sorted(truth)) in republic.consistent


def test_a_wrong_result_with_unknown_republic_cards_is_a_finding_only_when_no_deal_gives_it() -> None:
    text = rendered("citta-stato", 2, "s3")
    deal = re.search(r"Setup .*?(\[R\d+ R\d+\])", text)
    result = re.search(r'\[Result "Ada (-?\d+), Bruno (-?\d+)"\]', text)
    assert deal is not None and result is not None
    wrong = text.replace(deal.group(1), "[?]", 1).replace(
        result.group(0), f'[Result "Ada {int(result.group(1)) + 40}, Bruno {result.group(2)}"]')
    report = check_text(wrong)
    (finding,) = [f for f in report.findings if f.kind == "result"]
    assert finding.player == "Ada" and "no possible value of the outcomes nobody wrote down" in finding.message
    undetermined = check_text(wrong, budget=10)
    assert not [f for f in undetermined.findings if f.kind == "result"], "a guessed deal accuses nobody"


NAMES_OF_FIVE = ["Ada", "Bruno", "Carla", "Dario", "Elena"]


@cache
def republic_game(players: int, seed: str) -> tuple[str, str, tuple[str, ...], list[int]]:
    """A rendered Città-Stato game (the title as the catalog names it) with its Republic cards written `[?]`:
    (the text as played, as the table wrote it, the deal in seat order, the played totals)."""
    (title,) = [t for t in catalog.available() if t.replace("-", "").replace("_", "") == "cittastato"]
    game = catalog.game(title)
    edition = game.default_edition()
    options = {"players": players}
    played = play_random(game, edition, options, seed)
    text = render_log(title, edition, played.entries, NAMES_OF_FIVE[:players], options, played.scores)
    deal = re.search(r"Setup .*?(\[R\d+(?: R\d+)+\])", text)
    assert deal is not None
    truth = tuple(deal.group(1)[1:-1].split())
    assert len(truth) == players
    blanked = text.replace(deal.group(1), "[?]", 1)
    return text, blanked, truth, [s["total"] for s in played.scores["seats"]]


def with_result(text: str, totals: list[int], players: int) -> str:
    said = ", ".join(f"{name} {total}" for name, total in zip(NAMES_OF_FIVE[:players], totals, strict=True))
    return re.sub(r'\[Result "[^"]*"\]', f'[Result "{said}"]', text, count=1)


def deal_of(report: Any) -> Any:
    (republic,) = [u for u in report.unknowns if u.source == "deck:republic"]
    return republic


@pytest.mark.parametrize(("players", "seed"), [(4, "s1"), (4, "s7"), (5, "s2"), (5, "s5")])
def test_republic_cards_unknown_read_clean_with_the_result_kept(players: int, seed: str) -> None:
    """4 and 5 seats: a deal has 24 or 120 orders, each read to the end. The claimed result is kept, the game
    read is the game played, and every deal the report gives, written in, reads clean with that Result."""
    text, blanked, truth, totals = republic_game(players, seed)
    report = check_text(blanked)
    assert report.ok, [f.to_json()["message"] for f in report.findings][:3]
    assert report.scores is not None and [s["total"] for s in report.scores["seats"]] == totals
    republic = deal_of(report)
    assert republic.consistent, republic.to_json()
    for deal in republic.consistent[:3]:
        written = text.replace(f"[{' '.join(truth)}]", f"[{' '.join(map(str, deal))}]", 1)
        again = check_text(written)
        assert again.ok, (deal, [f.to_json()["message"] for f in again.findings][:2])
    if republic.searched is not None:  # found by a search, not every deal: said so, never "must have been"
        said = republic.to_json()["message"]
        assert "not proven the only one" in said["$secret"]["value"] and "must have been" not in said["$secret"]["value"]


@pytest.mark.parametrize("seed", ["s1", "s4"])
def test_a_deal_of_more_orders_than_the_narrowing_reads_is_found_by_the_result(seed: str) -> None:
    """5 seats with a budget that reads a few of the 120 deals: the deal is searched for the claimed result,
    found, and said to be found, not proven; written in, it reads clean with that Result."""
    text, blanked, truth, totals = republic_game(5, seed)
    report = check_text(blanked, budget=4000)
    assert report.ok, [f.to_json()["message"] for f in report.findings][:3]
    assert report.scores is not None and [s["total"] for s in report.scores["seats"]] == totals
    republic = deal_of(report)
    assert republic.searched is not None and republic.consistent
    for deal in republic.consistent:
        assert sorted(map(str, deal)) == sorted(truth)
        again = check_text(text.replace(f"[{' '.join(truth)}]", f"[{' '.join(map(str, deal))}]", 1))
        assert again.ok, (deal, [f.to_json()["message"] for f in again.findings][:2])


@pytest.mark.parametrize(("players", "seed"), [(4, "s1"), (5, "s2")])
def test_a_wrong_result_is_accused_only_when_every_deal_was_tried(players: int, seed: str) -> None:
    """Ada given 40 more than any deal can give her: with 4 seats every deal was read (24), so the Result is a
    finding; with 5 the deals were not all read, so it is a doubt on the unknown deal, never an accusation."""
    _, blanked, _, totals = republic_game(players, seed)
    wrong = with_result(blanked, [totals[0] + 40, *totals[1:]], players)
    report = check_text(wrong)
    accused = [f for f in report.findings if f.kind == "result"]
    republic = deal_of(report)
    if players == 4:
        assert republic.consistent is not None and republic.searched is None
        (finding,) = accused
        assert finding.player == "Ada" and "no possible value of the outcomes nobody wrote down" in finding.message
    else:
        assert not accused, [f.message for f in accused]
        assert republic.consistent is None
        said = republic.to_json()
        assert "found none that gives it" in said["why"]["$secret"]["value"]
        assert any("the Result gives Ada" in d for d in republic.doubts)
    assert [f for f in report.findings if f.kind != "result"] == []


def test_the_deal_found_for_the_result_is_no_one_s_to_read_while_the_game_is_in_progress() -> None:
    """What the search found (the deal, how many deals it read, that it was found by search) is wrapped as a
    secret: the public report names no Republic card and no count."""
    _, blanked, truth, _ = republic_game(5, "s2")
    report = check_text(blanked)
    republic = deal_of(report)
    assert republic.searched is not None
    said = reveal(report.to_json(), None)
    (public,) = [u for u in said["unknowns"] if u["source"] == "deck:republic"]
    assert public["consistent"] == {"hidden": True} and public["assumed"] == "[?]"
    assert public["searched"] == "hidden"
    assert not any(card in str(public) for card in truth)
    assert not re.search(r"\d+ value", str(public))
    told = reveal(report.to_json(), ALL)
    (whole,) = [u for u in told["unknowns"] if u["source"] == "deck:republic"]
    assert "not proven the only one" in whole["searched"]


def test_a_clean_file_searches_nothing() -> None:
    """No `[?]`: no narrowing at all, whatever the Result says."""
    text, _, _, totals = republic_game(4, "s1")
    report = check_text(with_result(text, [totals[0] + 1, *totals[1:]], 4))
    assert report.unknowns == []
    (finding,) = [f for f in report.findings if f.kind == "result"]
    assert "nobody wrote down" not in finding.message


def _next_draws(text: str, card: str) -> list[tuple[int, str]]:
    """Lines `X: pass [A]` followed by `Y: pass [card]` (A another card): (index, A): a blind draw, then the next
    seat's."""
    lines = text.splitlines()
    out = []
    for k, (here, after) in enumerate(itertools.pairwise(lines)):
        mine, theirs = re.search(r": pass \[(\w+)\]$", here), re.search(r": pass \[(\w+)\]$", after)
        if mine and theirs and theirs.group(1) == card and mine.group(1) != card:
            out.append((k, mine.group(1)))
    return out


def test_a_blind_draw_is_not_guessed_to_be_the_card_the_next_seat_writes() -> None:
    """La Città `Bruno: pass [?]` then `Carla: pass [bread_and_games]`: the first guess for Bruno's card is the
    first in the deck (bread and games), which left Carla's written card impossible. The written line is read as
    written and the `[?]` narrowed to what lets it stand: no finding, and the blind draw holds the card drawn."""
    checked = 0
    for seed in (f"s{k}" for k in range(12)):
        text = rendered("la-citta", 4, seed)
        for k, card in _next_draws(text, "bread_and_games")[:2]:
            lines = text.splitlines()
            lines[k] = lines[k].replace(f"[{card}]", "[?]")
            report = check_text("\n".join(lines) + "\n")
            assert report.ok, (seed, lines[k], [f.to_json()["message"] for f in report.findings][:2])
            (unknown,) = [u for u in report.unknowns if u.line == k + 1]
            assert unknown.consistent is not None and not unknown.doubts
            assert (card,) in unknown.consistent
            checked += 1
    assert checked >= 3


def _end_of_round_lines(text: str) -> list[str]:
    """Lines with a whole End-of-Round of draws written (six market cards and bags): 7 or more outcomes."""
    return [line for line in text.splitlines()
            if not line.startswith("Setup") and len(re.findall(r"\[[^\]]*\]", line)) >= 7]


@pytest.mark.parametrize(("players", "seed"), [(3, "slips-citta-stato-3-1"), (2, "slips-citta-stato-2-1")])
def test_a_whole_line_of_end_of_round_draws_written_unknown(players: int, seed: str) -> None:
    """Città-Stato `Ada: left [?] [?] [?] [?] [?] [?] [?] [?] [?] [?]`: every market card and bag drawn at the end
    of a round left unknown. Too many together for the joint search; one at a time, a wrong guess of one deck
    and another's leave the same later line refused, so each guess is judged by the written cards a later
    End-of-Round finds not there. Nothing is accused, and what is said of each draw holds the card drawn (where
    it was narrowed with the others; narrowed alone, with the others as read, it says so: two draws of one deck
    may then be read the other way round)."""
    text = rendered("citta-stato", players, seed)
    for line in _end_of_round_lines(text)[:2]:
        prefix = line.split("[", 1)[0]
        drawn = re.findall(r"\[([^\]]*)\]", line)
        lines = text.splitlines()
        (k,) = [k for k, here in enumerate(lines) if here == line]
        lines[k] = re.sub(r"\[[^\]]*\]", "[?]", line)
        report = check_text("\n".join(lines) + "\n")
        assert report.ok, (line, [f.to_json()["message"] for f in report.findings][:2])
        mine = sorted((u for u in report.unknowns if u.line == k + 1), key=lambda u: u.column)
        assert len(mine) == len(drawn), prefix
        assert all(u.consistent is None or u.alone is not None or u.together for u in mine)  # said how it was narrowed
        assert not any(u.doubts for u in mine)  # no later line refused because of a guess made here
        for unknown, truth in zip(mine, drawn, strict=True):
            if unknown.consistent is not None and unknown.alone is None:
                shown = {tuple(sorted(map(str, v))) for v in unknown.consistent}
                assert tuple(sorted(truth.split())) in shown, (line, unknown.source, truth, unknown.consistent)


def test_an_unknown_narrowed_alone_to_one_card_is_in_doubt_only_beside_another_from_its_deck() -> None:
    """A line refused after a `[?]` narrowed alone is said on that unknown's doubts only while a guess of it could
    have made the refusal: not when one card of its colour read furthest of all (every other refused sooner), unless
    another unknown draws from the same deck (the two may be swapped, which a reading of one at a time never tries)."""
    why = "the outcomes of one move fall into 15625 combination(s) of classes"
    yellow = Unknown(24, 23, "draw", "deck:Y", 23, 0, ("Y7",), consistent=[("Y7",)], alone=why)
    white = Unknown(24, 27, "draw", "deck:W", 23, 1, ("W7",), consistent=[("W7",)], alone=why)
    assert not dispute._unsure(yellow, [yellow, white])
    later_yellow = Unknown(41, 30, "draw", "deck:Y", 39, 0, ("Y3",), consistent=[("Y3",)], alone=why)
    assert dispute._unsure(yellow, [yellow, white, later_yellow])
    two = Unknown(24, 23, "draw", "deck:Y", 23, 0, ("Y7",), consistent=[("Y7",), ("Y8",)], alone=why)
    assert dispute._unsure(two, [two, white])
