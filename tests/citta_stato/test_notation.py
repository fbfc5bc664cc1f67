"""Città-Stato in the table notation: self-played games round-trip, the rulebook's examples written by hand,
planted faults found at their own lines (docs/notation/citta-stato.md)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import pytest

from domain.citta_stato.commands import BOOK
from domain.citta_stato.edition import BANNERS, CI, COLOURS
from domain.citta_stato.notation import CARDS, SEAT_COLOURS, TRADES, WORDS, markup_problems
from domain.citta_stato.state import State
from domain.kernel.contract import fold
from domain.kernel.dispute import DisputeReport
from domain.kernel.notation import NotationError, parse, render, write_options, write_result
from domain.kernel.selfplay import PlayedGame, play_random
from domain.transcripts import check_text

from .helpers import EDITION, GAME

# ---- the corpus: every player count, with and without the expansion, every solo scenario and game -----

MULTI = [{"players": n, "expansion": x} for n in (2, 3, 4) for x in (False, True)] + [{"players": 5}]
SOLO = [{"players": 2, "solo": {"scenario": s, "game": g, "carried_crowns": (s + g) % 3}}
        for s in (1, 2, 3, 4) for g in (1, 2, 3)]
CORPUS = [(o, f"notation-{i}-{k}") for i, o in enumerate(MULTI) for k in range(20)]
CORPUS += [(o, f"notation-solo-{i}-{k}") for i, o in enumerate(SOLO) for k in range(14)]
PEOPLE = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]
ACTIONS = {"citta-stato/" + k for k in ("city-action", "use-card", "burn-card", "upgrade", "pass")}


def checked(text: str) -> DisputeReport:
    """The service's own check (domain.transcripts): this title's words from the catalog, its default edition."""
    return check_text(text)


@cache
def played(index: int) -> PlayedGame:
    options, seed = CORPUS[index]
    return play_random(GAME, EDITION, options, seed)


def seats_for(options: dict[str, Any], style: int) -> tuple[list[str], list[str] | None]:
    """Names in seat order, and their colours for the header: people, colours as names, or people with colours."""
    n = options["players"]
    if "solo" in options:
        return ["Ada", "Ghost"], None
    colours = [*SEAT_COLOURS, None][:n]
    if style == 0:
        return [c or PEOPLE[i] for i, c in enumerate(colours)], None
    if style == 1:
        return PEOPLE[:n], colours  # type: ignore[return-value]
    return PEOPLE[:n], None


def rendered(index: int, result: bool = True) -> str:
    options, _ = CORPUS[index]
    game = played(index)
    names, colours = seats_for(options, index % 3)
    tags = {"Title": "citta-stato", "Edition": EDITION.id, "Options": write_options(options)}
    if result:
        tags["Result"] = write_result(names, [s["total"] for s in game.scores["seats"]])
    text = render(GAME, WORDS, EDITION, game.entries, names, tags, colours)
    if colours:  # this table wrote its lines by colour, not by name
        for name, colour in zip(names, colours, strict=True):
            if colour:
                text = re.sub(rf"(?m)^(\d+\. |\s+){name}:", rf"\g<1>{colour}:", text)
    return text


@pytest.mark.parametrize("index", range(len(CORPUS)), ids=[f"{o['players']}p-{s}" for o, s in CORPUS])
def test_a_self_played_game_round_trips(index: int) -> None:
    game = played(index)
    text = rendered(index)
    report = checked(text)
    assert report.ok, [f.to_json() for f in report.findings][:3]
    assert report.entries is not None
    assert [e.command for e in report.entries] == [e.command for e in game.entries]
    assert [e.outcomes for e in report.entries] == [e.outcomes for e in game.entries]
    assert report.finished and report.scores == game.scores and not report.unknowns
    # about one line a turn: no line holds two actions, and the Ghost never writes a line
    moves = iter(report.entries[1:])
    for turn in parse(text).turns:
        kinds = [next(moves).command["type"] for _ in turn.moves]
        assert sum(k in ACTIONS for k in kinds) <= 1, (turn.line, kinds)
        assert turn.player != "Ghost"


def test_the_corpus_says_every_command_kind_of_the_title() -> None:
    said = {e.command["type"] for i in range(len(CORPUS)) for e in played(i).entries[1:]}
    assert said == set(BOOK.kinds)
    assert len(CORPUS) >= 300


# ---- the vocabulary alone -------------------------------------------------------------------------------


def every_command() -> list[dict[str, Any]]:
    """Each command kind with every value its words can say."""
    k = "citta-stato/"
    out: list[dict[str, Any]] = [{"type": k + "pass"}, {"type": k + "accept"}, {"type": k + "decline"}]
    for c in COLOURS:
        jokers = range(4) if c not in ("W", "B") else range(1)
        out += [{"type": k + kind, "colour": c, "jokers": j} for kind in ("city-action", "use-card", "burn-card")
                for j in jokers]
        out += [{"type": k + "upgrade", "colour": c, "jokers": j} for j in jokers if c in BANNERS]
        out += [{"type": k + "pick-colour", "colour": c}]
        out += [{"type": k + "market-cube", "colour": c, "cost": cost} for cost in (1, 2, 3)]
    out += [{"type": k + "take-card", "card": card, "source": source, "mode": mode}
            for card in CARDS for source in ("present", "future", "supply") for mode in ("use", "burn")]
    out += [{"type": k + "shift", "direction": d, "spaces": n} for d in ("left", "right") for n in range(1, 8)]
    out += [{"type": k + "shift", "direction": "none", "spaces": 0}]
    out += [{"type": k + "pick-number", "value": v} for v in range(10)]
    out += [{"type": k + "keep-republic", "keep": keep} for keep in ("old", "new")]
    out += [{"type": k + "trade-banners", "trade": trade} for trade in TRADES]
    out += [{"type": k + "use-scheme", "slot": slot} for slot in range(5)]
    out += [{"type": k + "war-disc", "value": v} for v in range(6)]
    return [{**c, "seat": 2} for c in out]


def test_every_command_is_written_and_read_back_the_same() -> None:
    commands = every_command()
    assert {c["type"] for c in commands} == set(BOOK.kinds)
    for command in commands:
        written = WORDS.vocabulary.write(command)
        line = parse(f'[Title "citta-stato"]\nSetup\nAda: {written}\n').turns[0]
        (move,) = line.moves
        assert WORDS.vocabulary.read(move, 2) == command, written
        assert GAME.parse_command(command).to_json() == command
    assert WORDS.vocabulary.write({"type": "citta-stato/city-action", "seat": 0, "colour": "O", "jokers": 2}) == "war BB"
    assert WORDS.vocabulary.write({"type": "citta-stato/take-card", "seat": 0, "card": "W5", "source": "future",
                                   "mode": "burn"}) == "burn W5 future"


def read(text: str) -> dict[str, Any]:
    (move,) = parse(f'[Title "citta-stato"]\nSetup\nAda: {text}\n').turns[0].moves
    return WORDS.vocabulary.read(move, 0)


def test_a_wrong_word_is_named_with_the_words_it_could_be() -> None:
    with pytest.raises(NotationError, match="only black cubes can") as wrong_joker:
        read("war W")
    assert wrong_joker.value.expected == ["B", "BB", "BBB"]
    with pytest.raises(NotationError, match="no cube can stand in for white"):
        read("city B")
    with pytest.raises(NotationError) as card:
        read("burn W55 future")
    assert card.value.did_you_mean[0] == "W5"
    with pytest.raises(NotationError) as source:
        read("use W5 futur")
    assert source.value.did_you_mean == ["future"]
    with pytest.raises(NotationError) as verb:
        read("guild")
    assert verb.value.did_you_mean[0] == "guilds"
    with pytest.raises(NotationError, match="own, a number"):
        read("scheme")
    assert read("scheme own")["slot"] == 0 and read("scheme 3")["slot"] == 3
    assert read("LEFT 2") == {"type": "citta-stato/shift", "seat": 0, "direction": "left", "spaces": 2}


def test_held_is_what_the_seat_view_shows_and_round_of_is_the_round() -> None:
    game = played(0)
    state = fold(GAME, GAME.begin(EDITION), [e for entry in game.entries[:40] for e in entry.events])
    seat = GAME.pending(state).seat or 0
    held = WORDS.held(state, seat)
    mine = GAME.view(state, seat)["seats"][seat]
    assert held["supply"] == mine["supply"] and held["bag"] == mine["bag"] and held["war_discs"] == mine["war_discs"]
    assert WORDS.round_of(state) == GAME.view(state, None)["round"]


# ---- the rulebook's examples, as a table would write them ------------------------------------------------

# A 4-player first round with a War (rule 000: "First action", "War action", "War Resolution" and the FAQ on
# buying back the yellow cube). The players are the rulebook's own colours; Blue is first player. The other
# seats' Republic cards are secret to the transcriber: [?]. Nobody noted Red's end-of-round draw: [?].
WAR = """[Title "citta-stato"]
[Seats "Yellow (yellow), Blue (blue), Green (green), Red (red)"]
[Options "players=4"]

Setup [AMA ANC RAG VEN] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] [Blue]
1. blue: war {first action: the orange cube goes under Venezia's [%csl market:O2]}, disc 2
   green: war {and the next one beneath it [%csl market:O1]}, disc 2
   red: fleet {the yellow cube lands in the 1-coin row}, buy Y 1 {and is bought back}
   yellow: war, disc 4
   blue: pass
   green: pass
   red: pass
   yellow: pass
   red: stay {Red is not at war}
   blue: P, P
   green: G, G
   yellow: Y, Y, G, O, burn W2 future [W3] {the winner takes the white Future card [%cal war:3-future:W]}
   blue: use G1, yes {tied at 2 with Green, Blue placed first and chooses first}
   green: use O1, pick 1, yes [Y3] [W4] [G3] [O3] [B3] [P3] [G Y P] [?] [Y Y O G P]
"""

# A 2-player game's first three rounds (rule 000: "Use Orange cards", "Upgrade a Track", "City Action" for
# Venezia, "Use Yellow cards" for Alexandria, and Merchant Fleet Example I: a coin nothing costs is lost).
VENEZIA = """[Title "citta-stato"]
[Seats "Ada (red), Bruno (blue)"]
[Options "players=2"]

Setup [VEN AMA] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] [Ada]
1. Ada: upgrade Y
   Bruno: guilds [Y O P]
   Ada: pass
   Bruno: use O {second action: 2 orange cubes}, pick 2 {yellow cubes to the box}, yes
   Bruno: pass
   Ada: stay
   Bruno: stay [Y7] [W3] [G3] [O3] [B3] [P3]
2. Bruno: upgrade P
   Ada: upgrade Y {2nd to 3rd space: a white cube [%csl track:Y3]}
   Bruno: pass
   Ada: pass
   Bruno: stay
   Ada: stay [Y3] [W4] [G4] [O4] [B4] [P4]
3. Ada: city, use Y7, buy P 1 {the other coin finds nothing at 1}, P
"""


def moves_of(text: str) -> list[str]:
    return [f"{turn.player}: {m.text}" for turn in parse(text).turns for m in turn.moves]


def states_of(report: DisputeReport) -> list[State]:
    """The state before each checked move, then the last one."""
    assert report.entries is not None
    state = fold(GAME, GAME.begin(EDITION), report.entries[0].events)
    out = [state]
    for entry in report.entries[1:]:
        state = fold(GAME, state, entry.events)
        out.append(state)
    return out


def test_the_war_round_as_the_rulebook_tells_it() -> None:
    report = checked(WAR)
    assert report.ok, [f.to_json() for f in report.findings]
    moves = moves_of(WAR)
    states = states_of(report)

    def before(move: str) -> State:
        return states[moves.index(move)]

    def after(move: str) -> State:
        return states[moves.index(move) + 1]

    yellow, blue, green, red = 0, 1, 2, 3
    o = CI["O"]
    # First action: each first cube fills the first free space of its column from the top.
    assert before("blue: war").market[o] == (True, False, False)  # Venezia's orange cube
    assert after("blue: war").market[o] == (True, True, False)
    assert after("green: war").market[o] == (True, True, True)
    # War action: the first space of the orange track loses 1 VP; the disc lies face down.
    assert after("blue: war").seats[blue].vp == -1
    placed = after("blue: disc 2")
    assert GAME.view(placed, green)["warfare"] == [{"seat": blue, "value": None}]
    # FAQ: the yellow cube just spent can be bought back.
    assert after("red: fleet").market[CI["Y"]][2] and not after("red: buy Y 1").market[CI["Y"]][2]
    assert after("red: buy Y 1").seats[red].supply == before("red: fleet").seats[red].supply
    # War Resolution: the players not at war may move; each pays its disc's power into its bag.
    assert GAME.pending(before("red: stay")).kind == "war-shift"
    paid = after("green: G")
    assert sum(paid.seats[blue].bag) == sum(before("blue: P").seats[blue].bag) + 2
    # Yellow's 4 wins and may take a Future card; Blue (2, placed first) chooses before Green (2).
    choosing = before("yellow: burn W2 future [W3]")
    assert GAME.pending(choosing).seat == yellow
    assert {(c.card, c.source) for c in GAME.legal(choosing) if hasattr(c, "card")} >= {("W2", "future")}
    blue_choice = before("blue: use G1")
    assert GAME.pending(blue_choice).seat == blue
    blue_cards = {c.card for c in GAME.legal(blue_choice) if hasattr(c, "card")}
    assert all(c.source == "present" for c in GAME.legal(blue_choice) if hasattr(c, "source"))
    green_choice = before("green: use O1")
    green_cards = {c.card for c in GAME.legal(green_choice) if hasattr(c, "card")}
    assert green_cards == blue_cards - {"G1"} and "O1" in green_cards
    # Every disc on the track leaves the game; the round ends and Green, first to pass after Blue, leads.
    end = states[-1]
    assert end.warfare == () and end.round == 2 and GAME.pending(end).seat == green
    assert 4 in end.seats[yellow].retired and 2 in end.seats[blue].retired and 2 in end.seats[green].retired
    # The unwritten draw: what Red's bag held, every possibility kept (nothing later tells them apart).
    (republic, red_draw) = report.unknowns
    assert republic.source == "deck:republic" and red_draw.source == f"bag:{red}"
    assert red_draw.consistent is not None and len(red_draw.consistent) == 4
    assert not markup_problems(parse(WAR))


def test_venezia_upgrade_and_the_use_card_examples() -> None:
    report = checked(VENEZIA)
    assert report.ok, [f.to_json() for f in report.findings]
    moves = moves_of(VENEZIA)
    states = states_of(report)
    ada, bruno = 0, 1

    def before(move: str) -> State:
        return states[moves.index(move)]

    def after(move: str) -> State:
        return states[moves.index(move) + 1]

    # Use Orange (Holy Land's Port), second action: 2 orange cubes paid, 2 yellow cubes removed for 4 VP.
    start, done = before("Bruno: use O"), after("Bruno: yes")
    assert done.seats[bruno].vp == start.seats[bruno].vp + 4
    assert done.seats[bruno].supply[CI["Y"]] == start.seats[bruno].supply[CI["Y"]] - 2
    assert done.seats[bruno].supply[CI["O"]] == start.seats[bruno].supply[CI["O"]] - 2
    assert done.box[CI["Y"]] == start.box[CI["Y"]] + 2
    # Upgrade: the yellow track from its 2nd to its 3rd space gains a white cube; 3 coins now.
    second = moves.index("Ada: upgrade Y", moves.index("Ada: upgrade Y") + 1)  # round 2's
    up, upped = states[second], states[second + 1]
    assert (up.seats[ada].tracks[0], upped.seats[ada].tracks[0]) == (2, 3)
    assert upped.seats[ada].supply[CI["W"]] == up.seats[ada].supply[CI["W"]] + 1
    assert upped.t.track_values[0][2] == 3 and upped.upgrade == up.upgrade - 1
    # Venezia's City action: any Present card, used at once: Alexandria gives a green banner and 2 coins.
    venezia = after("Ada: city")
    assert {c.card for c in GAME.legal(venezia)} == {card for card in venezia.present if card}
    alexandria = after("Ada: use Y7")
    assert "Y7" in alexandria.seats[ada].cards
    assert alexandria.seats[ada].banners[0 + BANNERS.index("G")] == venezia.seats[ada].banners[BANNERS.index("G")] + 1
    # Merchant Fleet Example I: one cube at 1 coin, nothing else at 1: the last coin is lost, the action goes on.
    assert GAME.pending(after("Ada: buy P 1")).kind == "banner-any"
    assert states[-1].seats[ada].banners[BANNERS.index("P")] == 1


# ---- planted faults ---------------------------------------------------------------------------------------


def planted(text: str, *changes: tuple[str, str]) -> tuple[str, dict[str, int]]:
    """The text with each `old` line replaced by `new`; and the line number of each change."""
    lines = text.splitlines()
    where: dict[str, int] = {}
    for old, new in changes:
        at = lines.index(old)
        lines[at] = new
        where[new] = at + 1
    return "\n".join(lines) + "\n", where


def test_planted_faults_are_each_found_at_their_own_line() -> None:
    text, at = planted(
        VENEZIA,
        ("   Bruno: guilds [Y O P]", "   Bruno: guilds [Y O B]"),  # a cube the bag never held
        ("2. Bruno: upgrade P", "2. Bruno: upgrade P B"),  # a black cube Bruno does not have
        ("   Ada: upgrade Y {2nd to 3rd space: a white cube [%csl track:Y3]}", "   Ada: upgrde Y"),  # a misspelt verb
        ("3. Ada: city, use Y7, buy P 1 {the other coin finds nothing at 1}, P", "3. Ada: city, use Y77, buy P 1, P"),
    )
    report = checked(text)
    found = {f.line: f.to_json() for f in report.findings}
    assert len(report.findings) == 4, [f.to_json() for f in report.findings]

    draw = found[at["   Bruno: guilds [Y O B]"]]
    assert draw["rule"] == "chance/draw/not-there" and draw["facts"]["not_there"] == ["B"]

    payment = found[at["2. Bruno: upgrade P B"]]
    assert payment["rule"] == "citta-stato/upgrade/cubes" and payment["player"] == "Bruno"
    assert payment["held"]["$secret"]["value"]["supply"]["B"] == 0
    alternatives = payment["alternatives"]["$secret"]["value"]
    assert alternatives[0] == "upgrade P" and payment["assumed"] == "upgrade P"
    assert all(a.startswith("upgrade") for a in alternatives[:4])

    verb = found[at["   Ada: upgrde Y"]]
    assert verb["rule"] == "notation/move" and verb["did_you_mean"][0] == "upgrade"
    assert verb["assumed"] == "upgrade Y"  # read as meant, so the lines after it stand

    card = found[at["3. Ada: city, use Y77, buy P 1, P"]]
    assert card["did_you_mean"][0] == "Y7" and card["assumed"] == "use Y7"
    assert report.finished is False and report.moves == len(moves_of(text))


def test_a_war_paid_with_the_wrong_stand_in_and_an_unknown_player() -> None:
    text, at = planted(WAR, ("1. blue: war {first action: the orange cube goes under Venezia's [%csl market:O2]}, "
                             "disc 2", "1. blue: war W, disc 2"),
                       ("   yellow: war, disc 4", "   yelow: war, disc 4"))
    report = checked(text)
    found = {f.line: f for f in report.findings}
    joker = found[at["1. blue: war W, disc 2"]]
    assert joker.rule == "notation/move" and "cannot stand in for orange: only black cubes can" in joker.message
    assert joker.assumed == "war"
    player = found[at["   yelow: war, disc 4"]]
    assert player.rule == "notation/player" and {n.lower() for n in player.did_you_mean} == {"yellow"}


def test_a_first_player_who_is_no_seat_and_a_card_no_deck_holds() -> None:
    text, at = planted(WAR, ("Setup [AMA ANC RAG VEN] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] "
                             "[Blue]", "Setup [AMA ANC RAG VEN] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] "
                             "[B1 B2] [P1 P2] [Purple]"))
    report = checked(text)
    assert [f.rule for f in report.findings] == ["chance/draw/not-there"]
    by_number = checked(text.replace("[Purple]", "[1]"))  # a seat's number reads too
    assert by_number.ok
    late = WAR.replace("[Y3] [W4]", "[Y1] [W4]")  # Y1 lay in the Present row all round: the deck cannot hold it
    report = checked(late)
    assert [(f.rule, f.facts.get("not_there")) for f in report.findings] == [("chance/draw/not-there", ["Y1"])]


def test_a_miscounted_result_is_found_seat_by_seat() -> None:
    for index in (CORPUS.index(next(c for c in CORPUS if c[0]["players"] == 4)),
                  CORPUS.index(next(c for c in CORPUS if "solo" in c[0]))):
        text = rendered(index)
        totals = [s["total"] for s in played(index).scores["seats"]]
        report = checked(text)
        assert report.ok and report.claimed is not None and len(report.claimed) == len(totals)
        tag = re.search(r'\[Result "([^"]*)"\]', text)
        assert tag is not None
        wrong_total = totals[0] + 3
        first = tag.group(1).split(",")[0]
        wrong = text.replace(tag.group(1), tag.group(1).replace(first, f"{first.rsplit(' ', 1)[0]} {wrong_total}", 1))
        report = checked(wrong)
        assert [f.rule for f in report.findings] == ["notation/result"]
        (finding,) = report.findings
        assert finding.seat == 0 and finding.facts["claimed"] == wrong_total and finding.facts["computed"] == totals[0]
        assert str(totals[0]) in finding.message


def blanked(index: int, source: str) -> list[tuple[str, tuple[Any, ...], int]]:
    """The first outcome from `source` in game `index`: (the text with only that outcome written [?], its values, line)."""
    text = rendered(index, result=False)
    game = played(index)
    moves = [m for turn in parse(text).turns for m in turn.moves]
    lines = text.splitlines()
    for entry, move in zip(game.entries[1:], moves, strict=True):
        for outcome, written in zip(entry.outcomes, move.outcomes, strict=True):
            if outcome.source == source:
                line = lines[written.line - 1]
                start = written.column - 1
                end = line.index("]", start) + 1
                lines[written.line - 1] = line[:start] + "[?]" + line[end:]
                return [("\n".join(lines) + "\n", tuple(outcome.values), written.line)]
    return []


def test_an_unwritten_bag_draw_is_narrowed_from_what_follows() -> None:
    exact = 0
    for index in range(0, 60, 7):
        for seat in range(CORPUS[index][0]["players"]):
            for text, values, line in blanked(index, f"bag:{seat}"):
                report = checked(text)
                assert report.ok, [f.to_json() for f in report.findings][:2]
                (unknown,) = report.unknowns
                assert unknown.line == line and unknown.consistent is not None
                assert tuple(sorted(values)) in unknown.consistent
                exact += len(unknown.consistent) == 1
    assert exact >= 3  # the rest of the log often says exactly what was drawn


def test_an_unwritten_ghost_draw_is_narrowed_from_what_the_human_does_next() -> None:
    solo = [i for i, (o, _) in enumerate(CORPUS) if "solo" in o][:6]
    narrowed = 0
    for index in solo:
        for text, values, line in blanked(index, "bag:ghost"):
            report = checked(text)
            assert report.ok
            (unknown,) = report.unknowns
            assert unknown.consistent is not None and values in unknown.consistent
            narrowed += len(unknown.consistent) == 1
            assert unknown.to_json()["message"].startswith(f"line {line}:")
    assert narrowed >= 1


def test_markup_names_places_of_the_board() -> None:
    notation = parse('[Title "citta-stato"]\nSetup\nAda: war {[%csl war:1,market:O3] [%cal futur:W-war:6]}\n')
    problems = {p["place"]: p for p in markup_problems(notation)}
    assert set(problems) == {"futur:W", "war:6"}
    assert problems["futur:W"]["did_you_mean"][0] == "future:W"
    assert problems["war:6"]["line"] == 3


def test_ghost_lines_are_refused_and_a_solo_game_starts_with_the_human() -> None:
    index = next(i for i, (o, _) in enumerate(CORPUS) if "solo" in o)
    text = rendered(index, result=False)
    first = next(line for line in text.splitlines() if line.startswith("1. "))
    assert first.startswith("1. Ada:")
    ghostly = text.replace(first, first.replace("1. Ada:", "1. Ghost:", 1), 1)
    report = checked(ghostly)
    assert report.findings[0].rule == "notation/out-of-turn" and report.findings[0].line == text.splitlines().index(first) + 1
    assert "Ghost moves here, but the rules wait for Ada" in report.findings[0].message


def test_a_seat_drawn_at_setup_is_written_by_name() -> None:
    index = next(i for i, (o, _) in enumerate(CORPUS) if o["players"] == 3 and i % 3 == 2)
    setup = next(line for line in rendered(index).splitlines() if line.startswith("Setup"))
    first = played(index).entries[0].outcomes[-1]
    assert first.source == "first-player" and setup.endswith(f"[{PEOPLE[first.values[0]]}]")


def test_the_documented_game_checks_clean_and_is_what_render_writes() -> None:
    from pathlib import Path

    page = (Path(__file__).parents[2] / "docs" / "notation" / "citta-stato.md").read_text(encoding="utf-8")
    example = page.split("## A complete game", 1)[1].split("```", 2)[1].lstrip("\n")
    report = checked(example)
    assert report.ok and report.finished, [f.to_json() for f in report.findings][:3]
    game = play_random(GAME, EDITION, {"players": 2}, "doc-1")
    names = ["Ada", "Bruno"]
    tags = {"Title": "citta-stato", "Edition": EDITION.id, "Date": "2026-11-20", "Place": "Circolo, Bologna",
            "Options": "players=2", "Result": write_result(names, [s["total"] for s in game.scores["seats"]]),
            "Transcriber": "Chiara"}
    assert render(GAME, WORDS, EDITION, game.entries, names, tags, ["red", "blue"]) == example


# VENEZIA as a table with longer names wrote it: a name of two words, an apostrophe typed both ways, a line in
# lowercase, spaces doubled, a name run together, the first player drawn by name in brackets, quotes in the Result.
NAMED = """[Title "citta-stato"]
[Seats "Maria Grazia (red), Gianmaria D'Angelo (blue)"]
[Options "players=2"]

Setup [VEN AMA] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] [Maria Grazia]
1. Maria Grazia: upgrade Y
   gianmaria d’angelo: guilds [Y O P]
   Maria  Grazia: pass
   Gianmaria D’Angelo: use O, pick 2, yes
   Gianmaria DAngelo: pass
   maria grazia: stay
   Gianmaria D'Angelo: stay [Y7] [W3] [G3] [O3] [B3] [P3]
2. Gianmaria D'Angelo: upgrade P
   MariaGrazia: upgrade Y
   Gianmaria D'Angelo: pass
   Maria Grazia: pass
   Gianmaria D'Angelo: stay
   Maria Grazia: stay [Y3] [W4] [G4] [O4] [B4] [P4]
3. Maria Grazia: city, use Y7, buy P 1, P
"""


def test_names_of_any_shape_are_the_players_on_every_line() -> None:
    report = checked(NAMED)
    assert report.ok, [f.to_json() for f in report.findings]
    plain = checked(VENEZIA)
    assert report.entries is not None and plain.entries is not None
    assert [e.command for e in report.entries] == [e.command for e in plain.entries]  # the same game, move for move
    assert report.seats == ["Maria Grazia", "Gianmaria D'Angelo"]


def test_a_finding_names_the_player_and_says_cubes_and_steps_in_words() -> None:
    slipped = NAMED.replace("3. Maria Grazia: city, use Y7, buy P 1, P", "3. Maria Grazia: republic")
    report = checked(slipped)
    found = next(f for f in report.findings if f.line == 19)
    message = str(found.message)
    assert message == "line 19: action 1 of the round costs 1 black cube; Maria Grazia holds 0 black"
    assert found.player == "Maria Grazia" and "seat" not in message
    assert "citta-stato/" not in message and "[" not in message and "{" not in message, message
    holding = found.holding.value
    assert found.holding.seat == 0 and holding.startswith("Maria Grazia held cubes")
    assert "yellow" in holding and "'Y'" not in holding and "{" not in holding
    assert found.to_json()["held"]["$secret"]["value"]["supply"]  # the machine's fields are still there


def test_a_result_is_given_in_words_seat_by_name() -> None:
    index = next(i for i, (o, _) in enumerate(CORPUS) if o == {"players": 3, "expansion": False})
    text = rendered(index)
    names, _ = seats_for(CORPUS[index][0], index % 3)
    line = next(row for row in text.split("\n") if row.startswith("[Result"))
    wrong = text.replace(line, '[Result "' + ", ".join(f"{n.lower()}: 99" for n in names) + '"]')
    report = checked(wrong)
    said = [str(f.message) for f in report.findings if f.rule == "notation/result"]
    assert len(said) == 3 and all(s.startswith(f"line 5: {n} is given 99, the rules count") for s, n in zip(said, names, strict=True)), said
    assert all("First Score" in s for s in said), said
    assert not any(word in s for s in said for word in ("in_form", "True", "False", "{"))
