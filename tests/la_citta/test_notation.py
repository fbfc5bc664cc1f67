"""La Città's table notation: self-played games round trip, the rulebook's examples written by
hand as a table would, and planted faults found at their own lines (docs/notation/la-citta.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from domain.kernel.contract import fold
from domain.kernel.dispute import DisputeReport, Finding
from domain.kernel.notation import Move, NotationError, parse, render, write_options, write_result
from domain.kernel.selfplay import play_random
from domain.kernel.violations import reveal
from domain.la_citta import GAME
from domain.la_citta.commands import BOOK
from domain.la_citta.notation import COLOURS, WORDS
from domain.transcripts import check_text

ED = GAME.default_edition()
NAMES = ("Ada", "Bruno", "Chiara", "Dario", "Elena")
SETUPS = ("beginner", "experienced")
GAMES = 300


def checked(text: str) -> DisputeReport:
    """The service's own check (domain.transcripts): this title's words from the catalog, its default edition."""
    return check_text(text)


def options_for(k: int) -> dict[str, Any]:
    """Game k of the round trip: every player count, both setups, every starting player in turn."""
    players = 2 + k % 4
    return {"players": players, "setup": SETUPS[(k // 4) % 2], "start": (k // 8) % players}


def rendered(options: dict[str, Any], seed: str, **tags: str) -> tuple[str, Any]:
    played = play_random(GAME, ED, options, seed)
    names = list(NAMES[: options["players"]])
    text = render(GAME, WORDS, ED, played.entries, names,
                  {"Title": "la-citta", "Edition": ED.id, "Options": write_options(options), **tags},
                  colours=list(COLOURS[: len(names)]))
    return text, played


def views(report: DisputeReport) -> list[dict[str, Any]]:
    """The review view after each checked entry (the setup first)."""
    state = GAME.begin(ED)
    out = []
    for entry in report.entries or []:
        state = fold(GAME, state, entry.events)
        out.append(GAME.view(state, None))
    return out


def city(view: dict[str, Any], castle: str) -> dict[str, Any]:
    return next(c for c in view["cities"] if c["castle"] == castle)


def at(report: DisputeReport, line: int) -> Finding:
    found = [f for f in report.findings if f.line == line]
    assert found, (line, [f.to_json() for f in report.findings])
    return found[0]


def line_of(text: str, piece: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if piece in line)


# ---- round trip ---------------------------------------------------------------------------------


def test_the_round_trip_covers_every_player_count_setup_and_starting_player() -> None:
    seen = {(o["players"], o["setup"], o["start"]) for o in map(options_for, range(GAMES))}
    every = {(p, s, start) for p in range(2, 6) for s in SETUPS for start in range(p)}
    assert seen == every


@pytest.mark.parametrize("k", range(GAMES))
def test_a_rendered_game_checks_clean_and_gives_back_every_command_and_outcome(k: int) -> None:
    text, played = rendered(options_for(k), f"notation-{k}")
    report = checked(text)
    assert report.ok, [f.to_json() for f in report.findings][:3]
    assert report.entries is not None
    assert [e.command for e in report.entries] == [e.command for e in played.entries]
    assert [e.outcomes for e in report.entries] == [e.outcomes for e in played.entries]
    assert report.finished and report.scores == played.scores and not report.unknowns


@pytest.mark.parametrize("seed", ["lines-0", "lines-1", "lines-2"])
def test_one_line_per_turn_numbered_by_year(seed: str) -> None:
    """A political turn or a castle placement opens a line; the end-of-year choices one player makes
    in a row share one; each line is numbered by its year where a new year begins."""
    text, played = rendered({"players": 4, "setup": "experienced"}, seed)
    state = fold(GAME, GAME.begin(ED), played.entries[0].events)
    expected: list[tuple[int, int]] = []  # (seat, year) of each line
    previous = None
    for entry in played.entries[1:]:
        seat = entry.command["seat"]
        if seat != previous or GAME.pending(state).kind in ("political-turn", "place-castle"):
            expected.append((seat, GAME.view(state, None)["year"]))
        previous = seat
        state = fold(GAME, state, entry.events)
    turns = parse(text).turns
    assert [NAMES.index(t.player) for t in turns] == [seat for seat, _ in expected]
    years = [year for _, year in expected]
    assert [t.ordinal for t in turns if t.ordinal is not None] == sorted(set(years)) == [0, 1, 2, 3, 4, 5, 6]
    assert [t.ordinal for t in turns] == [y if k == 0 or years[k - 1] != y else None for k, y in enumerate(years)]
    political = sum(1 for e in played.entries[1:] if e.command["type"] not in END_OF_YEAR)
    assert sum(1 for t in turns if t.moves[0].verb not in ("attract", "demolish", "starve")) == political


END_OF_YEAR = ("la-citta/attract", "la-citta/demolish", "la-citta/send-away")


def test_every_command_kind_has_a_verb_that_reads_back() -> None:
    """Each form writes a command of its kind and reads it back to the same command."""
    samples: dict[str, Any] = {"hex": 41, "city": 68, "source": 68, "service": "health", "figures": 2, "citizens": 3,
                               "slots": [0, 2], "building": "public_bath"}
    kinds = set()
    for form in WORDS.vocabulary.forms:
        command = {"type": form.kind, "seat": 1, **form.fixed, **{a.field: samples[a.field] for a in form.args}}
        text = WORDS.vocabulary.write(command)
        assert text.split()[0] == form.verb
        move = parse(f'[Title "la-citta"]\nSetup\nAda: {text}\n').turns[0].moves[0]
        assert WORDS.vocabulary.read(move, 1) == command
        assert GAME.parse_command(command).to_json() == command
        kinds.add(form.kind)
    assert kinds == set(BOOK.kinds)


@pytest.mark.parametrize(("command", "text"), [
    ({"type": "la-citta/place-castle", "hex": 8}, "castle L8"),
    ({"type": "la-citta/take-gold"}, "gold"),
    ({"type": "la-citta/found-city", "hex": 60, "source": 68}, "found L60 L68"),
    ({"type": "la-citta/build", "card": "action", "building": "market_place", "city": 68, "hex": 61}, "market L61 L68"),
    ({"type": "la-citta/build", "card": "public_bath", "building": "public_bath", "city": 68, "hex": 98}, "bath L98 L68"),
    ({"type": "la-citta/build", "card": "master_builder", "building": "farm_house", "city": 73, "hex": 66},
     "master farm L66 L73"),
    ({"type": "la-citta/bread-and-games", "hex": 59, "service": "health", "figures": 1}, "bread L59 health"),
    ({"type": "la-citta/bread-and-games", "hex": 59, "service": "health", "figures": 3}, "bread L59 health 3"),
    ({"type": "la-citta/golden-times", "city": 73, "citizens": 1}, "golden L73"),
    ({"type": "la-citta/rich-harvest", "hex": 66}, "harvest L66"),
    ({"type": "la-citta/poll", "slots": [0, 2]}, "poll 1 3"),
    ({"type": "la-citta/blind-draw"}, "pass"),
    ({"type": "la-citta/attract", "city": 68, "service": "culture"}, "attract L68 culture"),
    ({"type": "la-citta/demolish", "hex": 81}, "demolish L81"),
    ({"type": "la-citta/send-away", "city": 78, "citizens": 3}, "starve L78 3"),
])
def test_the_documented_words(command: dict[str, Any], text: str) -> None:
    assert WORDS.vocabulary.write({**command, "seat": 0}) == text


def test_the_game_in_the_documentation_checks_clean_with_its_result() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "notation" / "la-citta.md").read_text(encoding="utf-8")
    game = next(block for block in page.split("```")[1::2] if block.lstrip().startswith('[Title "la-citta"]'))
    report = checked(game.lstrip())
    assert report.ok and report.finished, [f.to_json() for f in report.findings]
    assert report.scores is not None
    assert report.claimed == {report.seats[s["seat"]]: s["total"] for s in report.scores["seats"]}


# ---- the rulebook's worked examples, written by hand ---------------------------------------------

CITY_DEVELOPMENT = """[Title "la-citta"]
[Seats "Ada (blue), Bruno (yellow)"]
[Options "players=2"]

Setup [public_bath palace palace hospital cathedral university university] [culture]
1. Ada: farm L75 L68   {4 more food: F3 and F1 beside L75}
   Bruno: farm L131 L132
   Ada: quarry L86 L68 {[%csl L86] by the mountain S14}
   Bruno: gold
   Ada: market L61 L68 {its citizen from the supply}
   Bruno: gold
   Ada: bath L98 L68 [cathedral] {1 gold; next to a lake}
   Bruno: pass [?]
   Ada: pass [?] {no action card, no gold, no spare citizen}
   Bruno: pass [?]
 = [? ? ?] {the voice of the people}
 = [?] {year 2: the face-up voice card}
"""


def test_001_city_development_example() -> None:
    """001 page 7: castle with 4 food, farm house for 4 more, quarry, market from the supply, public
    bath for 1 gold, blind draws; the quarry pays 1 gold the next year and the city grows past 8."""
    report = checked(CITY_DEVELOPMENT)
    assert report.ok, [f.to_json() for f in report.findings]
    shown = views(report)
    first = shown[0]
    assert first["seats"][0]["food"] == 6 and city(first, "L68")["citizens"] == 4 and first["seats"][0]["gold"] == 1
    assert shown[1]["seats"][0]["food"] == 10, "the farm house on L75 feeds 4 more"
    assert city(shown[5], "L68")["citizens"] == 5 and city(shown[5], "L68")["limit"] == 8, "the market's citizen from the supply"
    assert city(shown[7], "L68")["limit"] is None and shown[7]["seats"][0]["gold"] == 0, "market + bath, 1 gold paid"
    assert shown[7]["politics"]["display"].count("cathedral") == 2, "the display refilled at once"
    assert shown[9]["seats"][0]["played"][-1] == "face-down"
    last = shown[-1]
    assert last["year"] == 2 and last["phase"] == "politics"
    assert last["seats"][0]["gold"] == 1, "the quarry pays 1 gold in year 2"
    assert city(last, "L68")["citizens"] == 6, "growth with no limit any more"
    # the blind draws and the voice were not written down: each is one of its possible values
    assert [u.line for u in report.unknowns] == [13, 14, 15, 16, 17]
    assert all(u.consistent for u in report.unknowns)


VOICE_TIE = """[Title "la-citta"]
[Seats "Anna (blue), Bob (red)"]
[Options "players=2, setup=experienced, start=1"]

Setup [F2 L F3 M F1 F2 F3 F1 L F2 L F1 L M F3 L F2 F3 F2 F1 M F2] [hospital palace polling_the_people master_builder golden_times bread_and_games university]
0. Bob: castle L41
   Anna: castle L75, castle L73
   Bob: castle L132 [culture]
1. Anna: hospital L68 L75 [?]
   Bob: palace L42 L41 [?]
   Anna: farm L66 L73
   Bob: farm L131 L132
   Anna: gold
   Bob: gold
   Anna: gold
   Bob: gold
   Anna: pass [?]
   Bob: pass [?]
 = [culture health health] {culture 2, health 2: both are asked for}
   Anna: attract L75 health {[%cal L41-L75] one citizen from Bob's L41}
   Bob: attract L41 culture {[%cal L75-L41] and one back: nothing changes}
 = [?]
"""


def test_001_voice_tie_example_anna_and_bob() -> None:
    """001: culture and health tie 2-2; Anna draws a citizen by health, Bob one back by culture:
    the result is null."""
    report = checked(VOICE_TIE)
    assert report.ok, [f.to_json() for f in report.findings]
    shown = views(report)
    before, after_anna, after_bob = shown[-3], shown[-2], shown[-1]
    assert before["voice"]["services"] == ["culture", "health"]
    assert (city(before, "L75")["services"]["health"], city(before, "L41")["services"]["culture"]) == (1, 2)
    start = (city(before, "L75")["citizens"], city(before, "L41")["citizens"])
    assert (city(after_anna, "L75")["citizens"], city(after_anna, "L41")["citizens"]) == (start[0] + 1, start[1] - 1)
    bob = report.entries[-1]  # Bob's attract, then the rest of the year runs on into year 2
    state = fold(GAME, GAME.begin(ED), [e for entry in report.entries[:-1] for e in entry.events])
    state = fold(GAME, state, bob.events[:1])
    relocated = GAME.view(state, None)
    assert (city(relocated, "L75")["citizens"], city(relocated, "L41")["citizens"]) == start, "the result is null"
    assert after_bob["year"] == 2 and after_bob["phase"] == "politics"


QUARRIES_3P = """[Title "la-citta"]
[Seats "Ada, Bruno, Chiara"]
[Options "players=3, setup=experienced"]

Setup [F2 L F3 M F1 F2 F3 F1 L F2 L F1 L M F3 L F2 F3 F2 F1 M F2] [palace hospital public_bath cathedral university master_builder golden_times]
0. Ada: castle L8 {between the two mountains E02 and S04}
   Chiara: castle L75
   Bruno: castle L3, castle L132
   Chiara: castle L78
   Ada: castle L37 [culture]
1. Bruno: farm L131 L132
   Chiara: farm L68 L75
   Ada: farm L38 L37
   Bruno: quarry L4 L3 {[%csl L4] across the red line at J6: wasteland and lake}
   Chiara: gold
   Ada: quarry L9 L8 {[%csl L9] two mountains}
   Bruno: gold
   Chiara: gold
   Ada: gold
   Bruno: pass [?]
   Chiara: pass [?]
   Ada: pass [?]
   Bruno: pass [?]
   Chiara: pass [?]
   Ada: pass [?]
 = [? ? ?]
 = [?] {year 2: Ada's quarry pays 2 gold, Bruno's nothing}
"""


def test_001_three_player_quarry_example() -> None:
    """001 (3 players): a quarry between the two mountains gives 2 gold; across the red line, nothing."""
    report = checked(QUARRIES_3P)
    assert report.ok, [f.to_json() for f in report.findings]
    shown = views(report)
    end_of_year, year_two = shown[-2], shown[-1]
    assert year_two["year"] == 2
    paid = [year_two["seats"][i]["gold"] - end_of_year["seats"][i]["gold"] for i in range(3)]
    assert paid == [2, 0, 0]


FARMS_4P = """[Title "la-citta"]
[Seats "Ada, Bruno, Chiara, Dario"]
[Options "players=4"]

Setup [palace hospital public_bath cathedral university master_builder golden_times] [health]
1. blue: gold
   red: gold
   yellow: gold
   green: farm L163 L162 {E06 and S22: 4 food}
   blue: gold
   red: gold
   yellow: gold
   green: farm L123 L138 {across the red line at J139: 2 food}
"""


def test_001_four_player_farm_example_with_seats_by_colour() -> None:
    """001 (4 players): a farm house on space 1 gives 4 food, across the red line only 2."""
    report = checked(FARMS_4P)
    assert report.ok, [f.to_json() for f in report.findings]
    food = [v["seats"][3]["food"] for v in views(report)]
    assert (food[0], food[4], food[8]) == (6, 10, 12)
    assert [e.command["seat"] for e in report.entries[1:]] == [0, 1, 2, 3] * 2


# ---- planted faults -------------------------------------------------------------------------------


def test_a_wrong_payment_names_the_rule_the_closest_legal_moves_and_the_gold_held() -> None:
    text = CITY_DEVELOPMENT.replace("Ada: bath L98 L68", "Ada: cathedral L98 L68")
    report = checked(text)
    (finding,) = report.findings
    assert (finding.line, finding.rule, finding.kind, finding.player, finding.round) == (
        12, "la-citta/politics/cannot-pay", "rule", "Ada", 1)
    assert "3 gold" in finding.message and "Ada holds 1" in finding.message
    assert finding.held.value["gold"] == 1 and finding.held.seat == 0
    assert "L68" in finding.held.value["cities"]
    closest = finding.alternatives.value
    assert {"bath L98 L68", "palace L98 L68", "hospital L98 L68"} <= set(closest[:3])
    assert finding.assumed == closest[0]


def test_an_illegal_building_site_lists_the_legal_sites_of_that_building() -> None:
    text = CITY_DEVELOPMENT.replace("market L61 L68", "market L62 L68")
    report = checked(text)
    (finding,) = report.findings
    assert (finding.line, finding.rule) == (10, "la-citta/build/not-adjacent")
    assert all(alt.startswith("market ") and alt.endswith(" L68") for alt in finding.alternatives.value)
    assert "market L61 L68" in finding.alternatives.value


def test_a_draw_that_could_not_happen() -> None:
    """Three cathedrals face up at the start and a fourth drawn: the deck had only three."""
    text = CITY_DEVELOPMENT.replace("[public_bath palace palace hospital cathedral", "[public_bath palace cathedral cathedral cathedral")
    report = checked(text)
    (finding,) = report.findings
    assert (finding.line, finding.rule, finding.kind) == (12, "chance/draw/not-there", "chance")
    assert finding.column == CITY_DEVELOPMENT.splitlines()[11].index("[cathedral]") + 1
    assert finding.facts["not_there"] == ["cathedral"]


def test_a_miscounted_result_is_found_seat_by_seat() -> None:
    text, played = rendered({"players": 3, "setup": "beginner"}, "result")
    totals = [s["total"] for s in played.scores["seats"]]
    good = checked(text.replace("[Options", f'[Result "{write_result(NAMES[:3], totals)}"]\n[Options'))
    assert good.ok, [f.to_json() for f in good.findings]
    wrong = [totals[0], totals[1] + 3, totals[2]]
    report = checked(text.replace("[Options", f'[Result "{write_result(NAMES[:3], wrong)}"]\n[Options'))
    (finding,) = report.findings
    assert (finding.rule, finding.player, finding.line) == ("notation/result", "Bruno", 4)
    assert finding.facts["claimed"] == totals[1] + 3 and finding.facts["computed"] == totals[1]
    assert set(finding.facts["breakdown"]) >= {"citizens", "all_services", "starved"}


POLLED = """[Title "la-citta"]
[Seats "Anna (blue), Bob (red)"]
[Options "players=2, setup=experienced, start=1"]

Setup [F2 L F3 M F1 F2 F3 F1 L F2 L F1 L M F3 L F2 F3 F2 F1 M F2] [hospital palace polling_the_people master_builder golden_times bread_and_games university]
0. Bob: castle L41
   Anna: castle L75, castle L76
   Bob: castle L132 [culture]
1. Anna: hospital L68 L75 [?]
   Bob: palace L42 L41 [?]
   Anna: fountain L69 L76
   Bob: farm L131 L132
   Anna: farm L74 L75
   Bob: gold
   Anna: poll 1 2 [?] [?] {she looks, and says nothing}
   Bob: gold
   Anna: gold
   Bob: pass [?]
 = [health] {the third face-down card}
   Anna: attract L75 health, attract L76 health
   Bob: attract L41 culture
 = [?]
"""


def test_polled_cards_nobody_wrote_down_are_narrowed_from_the_relocation() -> None:
    """Anna polls the first two face-down cards and keeps them to herself; the tally shows the third
    (health), the face-up card is culture. Both culture and health draw citizens afterwards, so the
    two she saw must have been one culture and one health (the checker's first guess, two culture,
    would make culture the only wish and refuse her `attract L75 health`)."""
    report = checked(POLLED)
    assert report.ok, [f.to_json() for f in report.findings]
    poll = line_of(POLLED, "poll 1 2")
    (polled,) = [u for u in report.unknowns if u.line == poll and u.source == "voice"]
    assert polled.consistent == [("culture", "health")]
    assert "must have been [culture health]" in reveal(polled.to_json(), 0)["message"]  # the poller's to read
    assert "culture" not in str(reveal(polled.to_json(), 1))  # the others learn them at the tally
    assert views(report)[-1]["year"] == 2
    # the same file with the tally written as a table that saw all three cards is refused there
    wrong = checked(POLLED.replace("[health] {the third face-down card}", "[health health health]"))
    assert [f.rule for f in wrong.findings][:1] == ["chance/draw/count"]


def test_misspelt_verbs_places_and_services_get_a_did_you_mean() -> None:
    text = (CITY_DEVELOPMENT.replace("Ada: market L61 L68", "Ada: markt L61 L68")
            .replace("Ada: quarry L86 L68", "Ada: quarry K86 L68"))
    report = checked(text)
    verb, place = at(report, 10), at(report, 8)
    assert verb.rule == "notation/move" and verb.did_you_mean[0] == "market"
    assert place.rule == "notation/move" and place.did_you_mean[0] == "L86"
    assert "did you mean L86" in place.message
    service = checked(VOICE_TIE.replace("attract L75 health", "attract L75 helth"))
    finding = at(service, line_of(VOICE_TIE, "attract L75 health"))
    assert finding.did_you_mean == ["health"] and "did you mean health?" in finding.message
    player = checked(FARMS_4P.replace("green: farm L163", "Dairo: farm L163"))
    assert at(player, 9).rule == "notation/player" and at(player, 9).did_you_mean == ["Dario"]


def test_a_move_that_says_too_little_or_too_much() -> None:
    with pytest.raises(NotationError, match="needs its city"):
        WORDS.vocabulary.read(Move("market", ("L61",), (), (), 3, 1, "market L61"), 0)
    with pytest.raises(NotationError, match="left over"):
        WORDS.vocabulary.read(Move("gold", ("L61",), (), (), 3, 1, "gold L61"), 0)
    with pytest.raises(NotationError, match="position of a face-down card"):
        WORDS.vocabulary.read(Move("poll", (0, 1), (), (), 3, 1, "poll 0 1"), 0)


def test_a_castle_on_a_taken_hex_in_a_rendered_game_is_found_at_its_line() -> None:
    text, _ = rendered({"players": 4, "setup": "experienced"}, "taken")
    lines = text.splitlines()
    castles = [i for i, line in enumerate(lines) if ": castle L" in line]
    first = lines[castles[0]].split("castle ")[1].split()[0].rstrip(",")
    second = lines[castles[1]]
    taken = second.split("castle ")[1].split()[0].rstrip(",")
    lines[castles[1]] = second.replace(f"castle {taken}", f"castle {first}", 1)
    report = checked("\n".join(lines) + "\n")
    finding = report.findings[0]
    assert (finding.line, finding.rule, finding.kind) == (castles[1] + 1, "la-citta/place/occupied", "rule")
    assert all(f.line >= finding.line for f in report.findings)
    assert finding.alternatives.value and all(a.startswith("castle L") for a in finding.alternatives.value)
    assert finding.round == 0 and finding.held.value["castles_left"] == 4


def test_the_catalog_finds_these_words_and_a_bare_hex_number_is_read() -> None:
    from domain.catalog import words

    assert words("la-citta") is WORDS
    move = parse('[Title "la-citta"]\nSetup\nAda: market 61 L68\n').turns[0].moves[0]
    assert WORDS.vocabulary.read(move, 0)["hex"] == 61


def test_names_of_any_shape_are_the_players_on_every_line() -> None:
    """CITY_DEVELOPMENT as a table with longer names wrote it: accents typed or left off, an apostrophe typed
    both ways, a line in lowercase with doubled spaces."""
    named = (CITY_DEVELOPMENT.replace('"Ada (blue), Bruno (yellow)"', '"Niccolò Dell’Orto (blue), Anne-Marie (yellow)"')
             .replace("1. Ada:", "1. Niccolò Dell'Orto:").replace("   Ada: quarry", "   niccolo  dell'orto: quarry")
             .replace("   Ada:", "   Niccolò Dell’Orto:").replace("   Bruno: farm", "   Anne Marie: farm")
             .replace("   Bruno:", "   Anne-Marie:"))
    assert "Ada" not in named and "Bruno" not in named
    report = checked(named)
    assert report.ok, [f.to_json() for f in report.findings]
    assert report.entries is not None
    assert [e.command for e in report.entries] == [e.command for e in (checked(CITY_DEVELOPMENT).entries or [])]
    slipped = named.replace("farm L131 L132", "farm L131 L999")
    found = next(f for f in checked(slipped).findings if f.line == 7)
    assert found.player == "Anne-Marie" and "seat" not in str(found.message)
    assert found.holding.seat == 1 and found.holding.value.startswith("Anne-Marie held ") and "{" not in found.holding.value
