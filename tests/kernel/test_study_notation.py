"""Notes, glyphs and variations in the table notation (issue 14): the grammar, and a study written out and
read back (domain/records/studynotation.py) for every title, the checker still reading the main line only."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from domain import catalog, transcripts
from domain.kernel import Entry
from domain.kernel.bots import GreedyBot, play_bot
from domain.kernel.contract import fold, play
from domain.kernel.notation import (
    Shape,
    _parse_whole,
    parse,
    read_comment,
    render,
    write_comment,
    write_markup,
)
from domain.records import studynotation
from domain.records.errors import Invalid
from domain.records.recordfile import live_chance
from tests.kernel.test_notation import checked, rendered
from tests.kernel.test_notation_fast import said

TITLES = ["citta-stato", "la-citta", "serenissima"]
PACKAGES = {"citta-stato": "citta_stato", "la-citta": "la_citta", "serenissima": "serenissima"}
SEATS = ["Ada", "Bruno"]
KEPT = ("line", "step", "text", "glyph", "author", "audience", "by", "shapes")


# ---- the grammar ---------------------------------------------------------------------------------


def test_a_glyph_follows_a_move_and_binds_to_the_comment_after_it() -> None:
    found = parse('[Title "toy"]\nSetup [a] ?! {the deal}\n1. Ada: take 1 [x]? {why [%csl a]}, take ?, take ? ?! {no}, '
                  'pass!!\nBruno: take 2? , pass ?? {x} ?\n')
    assert not found.errors
    first, second = found.turns
    take, unknown, glyphed, passed = first.moves
    assert take.words == (1,) and take.glyph == "?" and [(c.note, c.glyph) for c in take.comments] == [("why", "?")]
    assert unknown.words == ("?",) and unknown.glyph is None and not unknown.comments  # a `?` standing apart is a word
    assert glyphed.words == ("?",) and glyphed.glyph == "?!" and glyphed.comments[0].note == "no"
    assert passed.glyph == "!!" and [(c.note, c.glyph) for c in passed.comments] == [("", "!!")]  # a glyph alone
    assert second.moves[0].words == (2,) and second.moves[0].glyph == "?"
    assert [(c.note, c.glyph) for c in second.moves[1].comments] == [("x", "??"), ("", "?")]
    assert [(c.note, c.glyph) for c in found.comments] == [("the deal", "?!")]


def test_variations_are_nested_lines_kept_apart_from_the_main_line() -> None:
    text = ('[Title "toy"]\nSetup [a]\n1. Ada: take 1 [x]\n( {what if [%by "Prof. Rossi"] [%step 2]}\n  Ada: take 2\n'
            '  {a note of its own}\n  (\n    Bruno: pass\n  )\n  Bruno: take 3\n) {[%step 9]}\nBruno: pass\n')
    found = parse(text)
    assert not found.errors
    assert [t.player for t in found.turns] == ["Ada", "Bruno"] and [t.line for t in found.turns] == [3, 12]
    (outer,) = found.variations
    assert (outer.line, outer.end, outer.head.note, outer.head.markup.author, outer.head.markup.step) == (
        4, 11, "what if", "Prof. Rossi", 2)
    assert [t.line for t in outer.turns] == [5, 10] and [c.note for c in outer.comments] == ["a note of its own"]
    assert outer.tail is not None and outer.tail.markup.step == 9
    (inner,) = outer.variations
    assert inner.head is None and [t.player for t in inner.turns] == ["Bruno"] and inner.end == 9
    assert said(parse(text)) == said(_parse_whole(text))


@pytest.mark.parametrize(("text", "line", "says"), [
    ('[Title "toy"]\nSetup\nAda: pass\n(\nBruno: pass\n', 4, "never closed"),
    ('[Title "toy"]\nSetup\nAda: pass\n)\n', 4, "closes no variation"),
    ('[Title "toy"]\nSetup\nAda: pass\n(\nSetup\n)\n', 5, "no Setup line"),
    ('[Title "toy"]\nSetup\nAda: !! pass\n', 3, "cannot stand here"),  # a glyph follows its move
    ('[Title "toy"]\nSetup\nAda: take [a !]\n', 3, "cannot stand here"),  # never inside an outcome
])
def test_a_variation_or_glyph_out_of_place_is_an_error_at_its_line(text: str, line: int, says: str) -> None:
    errors = parse(text).errors
    assert errors and errors[0].line == line and says in errors[0].message, [e.to_json() for e in errors]


def test_glyph_lines_read_the_same_line_by_line_as_whole() -> None:
    """The fast reading sends every line with a glyph to lark: a glued `?` must never be read as a word."""
    text = ('[Title "toy"]\nSetup [a]?\n1. Ada: take 1?\n   Bruno: take 2 [x]?\n   Ada: take ? ?!\n'
            '   Bruno: take "why?"\n   Ada: take [??]\n')
    assert said(parse(text)) == said(_parse_whole(text))
    turns = parse(text).turns
    assert turns[0].moves[0].glyph == "?" and turns[0].moves[0].words == (1,)
    assert turns[3].moves[0].words == ("why?",) and turns[3].moves[0].glyph is None


@pytest.mark.parametrize("text", [
    "**Why** not {war}?\n- one\n- two", "  spaces at both ends\t\n", "a \\ backslash, \\n written, [%csl x] [not markup]",
    "}{", "", "\r\n", "unicode: città · ☃",
])
def test_a_comment_holds_any_text_exactly(text: str) -> None:
    shapes = [Shape("arrow", "venezia", "ragusa", brush="red"), Shape("highlight", "L41"), Shape("highlight", "L42"),
              Shape("label", "scheme:2", text='A "}] b', brush="blue")]
    written = write_comment(text, write_markup(shapes, "Gian Maria", True, "Prof. {Rossi}", 12))
    assert "\n" not in written
    comment = read_comment(written, 1)
    assert comment.note == text and comment.markup.shapes == tuple(shapes)
    assert (comment.markup.audience, comment.markup.seat, comment.markup.author, comment.markup.step) == (
        "Gian Maria", True, "Prof. {Rossi}", 12)
    line = f'[Title "toy"]\nSetup\nAda: take 1 ?! {written}, pass\n'
    assert parse(line).turns[0].moves[0].comments[0] == read_comment(written, 3, "?!")


def test_pgn_markup_reads_as_before() -> None:
    comment = read_comment("{a comment [%cal venezia-ragusa, a - b] [%csl ragusa,L41] [%clk 0:01]}", 1)
    assert comment.markup.arrows == (("venezia", "ragusa"), ("a", "b")) and comment.markup.highlights == ("ragusa", "L41")
    assert comment.text == "a comment [%clk 0:01]"  # markup this reader does not know stays text
    assert read_comment("{[%csl red]}", 1).markup.highlights == ("red",)  # a place named like a brush
    assert read_comment("{[%csl red a]}", 1).markup.shapes == (Shape("highlight", "a", brush="red"),)
    assert read_comment("{ plain  text }", 1).text == "plain  text"


def test_a_commented_game_checks_as_the_plain_one() -> None:
    text, played = rendered("study-toy")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Setup")) + 1
    lines[at] += " ?! {a note [%csl a]}"
    lines.insert(at + 1, "( {what if}\n  Ada: roll [6]\n  Ada: roll [6]\n)")
    studied = "\n".join(lines) + "\n"
    plain, annotated = checked(text), checked(studied)
    assert annotated.ok == plain.ok and [f.to_json() for f in annotated.findings] == [f.to_json() for f in plain.findings]
    assert [e.command for e in annotated.entries] == [e.command for e in played.entries]


# ---- a study of a real game, for every title ------------------------------------------------------------


def _branch(game: Any, state: Any, n: int, seed: str) -> list[Entry]:
    """n legal commands from `state`, chance drawn from a seed (as a variation with no outcomes given)."""
    out = []
    for k in range(n):
        if game.pending(state).over:
            break
        legal = list(game.legal(state))
        command = legal[(k * 7 + 3) % len(legal)]
        chance = live_chance(seed, k)
        events, state = play(game, state, command, chance)
        out.append(Entry(command.to_json(), tuple(chance.log), tuple(events)))
    return out


def _ends(entries: list[Entry], start: int = 0) -> list[int]:
    out = []
    for entry in entries:
        start += len(entry.events)
        out.append(start)
    return out


def _note(line: str | None, step: int, text: str = "", **more: Any) -> dict[str, Any]:
    return {"line": line, "step": step, "text": text, "glyph": None, "author": "annotator", "audience": None,
            "by": "annotator", "shapes": [], **more}


_studies: dict[str, dict[str, Any]] = {}


def study(title: str) -> dict[str, Any]:
    """A finished game with notes of every kind on its main line, a variation (with notes, two nested
    variations, one leaving at its start, one in the middle of a turn line) and the study's text."""
    if title in _studies:
        return _studies[title]
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_bot(game, edition, {"players": 2}, f"study-{title}", bot=GreedyBot(turns=1, steps=8, width=4))
    entries = list(played.entries)
    ends = _ends(entries)
    places = importlib.import_module(f"domain.{PACKAGES[title]}.notation").places(edition)
    long = next(k for k in range(1, len(entries)) if len(entries[k].events) > 1)
    notes = [
        _note(None, ends[3], "**Why** not {war}?\n- a\n- b", glyph="?!", author="Prof. Rossi"),
        _note(None, ends[4], shapes=[{"kind": "arrow", "from": places[0], "to": places[1], "brush": "red"},
                                     {"kind": "highlight", "at": places[2], "brush": "green"},
                                     {"kind": "label", "at": places[3], "text": "A]}", "brush": "blue"}]),
        _note(None, ends[5], "only Bruno", author="Bruno", audience=1, by="seat:1"),
        _note(None, ends[6], glyph="?"),
        _note(None, ends[6], "after a lone ?"),
        _note(None, ends[7], glyph="!!"),
        _note(None, 0, "before the deal"),
        _note(None, ends[long - 1] + 1, "in the middle of an entry", glyph="!", audience=0),
        _note(None, ends[-1], "the end", author="Prof. Rossi"),
    ]
    mid = len(entries) // 2
    state = fold(game, game.begin(edition), [e for entry in entries[:mid] for e in entry.events])
    what_if = _branch(game, state, 6, f"{title}-what-if")
    own = _ends(what_if, ends[mid - 1])
    deeper = _branch(game, fold(game, state, [e for entry in what_if[:2] for e in entry.events]), 3, f"{title}-deeper")
    variations = [
        {"id": "V1", "parent": None, "from_step": ends[mid - 1], "title": "What if {peace}", "author": "Prof. Rossi",
         "entries": [e.to_json() for e in what_if]},
        {"id": "V2", "parent": "V1", "from_step": own[1], "title": "deeper", "author": "",
         "entries": [e.to_json() for e in deeper]},
        {"id": "V3", "parent": "V1", "from_step": ends[mid - 1], "title": "", "author": "Ben", "entries": []},
    ]
    notes += [
        _note("V1", own[2], "and now?", glyph="!", shapes=[{"kind": "highlight", "at": places[0], "brush": "yellow"}]),
        _note("V1", ends[mid - 1], "where it leaves", glyph="?"),
        _note("V2", _ends(deeper, own[1])[-1], "deeper still", audience=1),
    ]
    scores = dict(played.scores)
    text = studynotation.study_text(title, edition, entries, SEATS, {"players": 2}, scores, notes, variations,
                                    {"Mode": "transcribed"})
    plain = transcripts.render_log(title, edition, entries, SEATS, {"players": 2}, scores, {"Mode": "transcribed"})
    _studies[title] = {"entries": entries, "notes": notes, "variations": variations, "text": text, "plain": plain,
                       "extras": studynotation.extras(text, entries, title), "game": game, "edition": edition}
    return _studies[title]


@pytest.mark.parametrize("title", TITLES)
def test_every_note_comes_back_on_its_step(title: str) -> None:
    found = study(title)
    got = found["extras"]
    refs = {v["title"]: v["ref"] for v in got["variations"]}
    names = {"V1": refs["What if {peace}"], "V2": refs["deeper"], "V3": refs[""], None: None}

    def key(note: dict[str, Any]) -> tuple[Any, ...]:
        return (str(note["line"]), note["step"], note["text"], str(note["glyph"]))

    want = sorted(({**n, "line": names[n["line"]]} for n in found["notes"]), key=key)
    have = sorted(got["annotations"], key=key)
    assert [{k: n[k] for k in KEPT} for n in have] == [{k: n[k] for k in KEPT} for n in want]
    assert len({n["id"] for n in have}) == len(have) and all(n["id"].startswith("n-") for n in have)


@pytest.mark.parametrize("title", TITLES)
def test_every_variation_comes_back_with_the_same_commands(title: str) -> None:
    found = study(title)
    got = {v["title"]: v for v in found["extras"]["variations"]}
    refs = {"V1": got["What if {peace}"]["ref"], None: None}
    for made in found["variations"]:
        back = got[made["title"]]
        assert (back["parent"], back["from_step"], back["author"]) == (refs[made["parent"]], made["from_step"],
                                                                        made["author"])
        assert [e["command"] for e in back["entries"]] == [e["command"] for e in made["entries"]]
        assert [e["outcomes"] for e in back["entries"]] == [e["outcomes"] for e in made["entries"]]
        assert all(e["chance"] == "author" for e in back["entries"])


@pytest.mark.parametrize("title", TITLES)
def test_the_checker_reads_a_study_as_the_plain_notation(title: str) -> None:
    found = study(title)
    text = found["text"]
    assert "(" in text and "?!" in text and "[%lbl blue" in text and "[%for Bruno] [%seat]" in text
    studied, plain = transcripts.check_text(text), transcripts.check_text(found["plain"])
    assert studied.ok and plain.ok, [f.to_json() for f in studied.findings]
    assert [f.to_json() for f in studied.findings] == [f.to_json() for f in plain.findings]
    assert studied.finished == plain.finished and studied.scores == plain.scores
    assert [e.to_json() for e in studied.entries] == [e.to_json() for e in found["entries"]]


def test_a_variation_the_rules_refuse_is_named_at_its_own_line() -> None:
    found = study("citta-stato")
    lines = found["text"].split("\n")
    opened = next(i for i, line in enumerate(lines) if line.startswith("( {What if"))
    turn = next(i for i in range(opened + 1, len(lines)) if ": " in lines[i] and not lines[i].lstrip().startswith(("(", "{")))
    lines.insert(turn + 1, lines[turn])  # the same turn written twice: the rules wait for someone else, or refuse it
    with pytest.raises(Invalid) as caught:
        studynotation.extras("\n".join(lines), found["entries"], "citta-stato")
    assert caught.value.facts["line"] == turn + 2, caught.value.message
    assert caught.value.facts["variation"] == "v1" and f"line {turn + 2}" in caught.value.message
    assert caught.value.facts["rule"].startswith(("notation/", "citta-stato/"))
    # the main line alone is untouched: the plain check of that text is as clean as before
    assert transcripts.check_text("\n".join(lines)).ok


def test_a_hand_written_variation_leaves_at_the_end_of_the_line_before_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `[%step]` a variation leaves where the line before it ends; notes on lines of their own sit on
    the step their line has reached; a note names its seat and author."""
    monkeypatch.setitem(catalog.TITLES, "toy", "tests.kernel.toy_game")
    text, played = rendered("study-hand")
    lines = text.rstrip("\n").split("\n")
    setup = next(i for i, line in enumerate(lines) if line.startswith("Setup"))
    ends = _ends(list(played.entries))
    instead = lines[setup + 2].split(": ", 1)[1]  # the second turn's own move, written as a variation of it
    player = lines[setup + 2].split(": ", 1)[0].split()[-1]
    studied = [*lines[: setup + 2], "{a note on its own line [%for Bruno]}", "( {instead}",
               '  {before anything [%by "Ada"]}', f"  {player}: {instead}", ")", *lines[setup + 2:]]
    got = studynotation.extras("\n".join(studied) + "\n", list(played.entries), "toy")
    (variation,) = got["variations"]
    assert variation["from_step"] == ends[1] and variation["title"] == "instead" and variation["parent"] is None
    assert [e["command"] for e in variation["entries"]] == [played.entries[2].command]
    notes = {n["text"]: n for n in got["annotations"]}
    assert notes["a note on its own line"]["step"] == ends[1] and notes["a note on its own line"]["audience"] == 1
    assert notes["a note on its own line"]["line"] is None and notes["a note on its own line"]["by"] == "annotator"
    assert notes["before anything"]["line"] == "v1" and notes["before anything"]["step"] == ends[1]
    assert notes["before anything"]["author"] == "Ada"


def test_render_without_hooks_is_the_plain_render() -> None:
    from tests.kernel.toy_game import GAME, WORDS

    text, played = rendered("study-plain")
    again = render(GAME, WORDS, GAME.default_edition(), played.entries, ["Ada", "Bruno"],
                   {"Title": "toy", "Edition": "toy-1", "Options": "players=2"}, marks=lambda a, b: "", after=lambda a, b: [])
    assert again == text


@pytest.mark.parametrize("title", TITLES)
def test_the_example_in_each_title_s_notation_page_reads_as_it_says(title: str) -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "notation" / f"{title}.md").read_text()
    section = page.split("## Annotations and variations", 1)[1]
    example = section.split("```", 2)[1].strip("\n")
    found = parse(f'[Title "{title}"]\n[Seats "Ada, Bruno"]\n\n{example}\n')
    assert not found.errors, [e.to_json() for e in found.errors]
    (variation,) = found.variations
    assert variation.head.note == "What if" and variation.head.markup.author == "Prof. Rossi" and variation.turns
    notes = [c for turn in found.turns for move in turn.moves for c in move.comments]
    assert [c.glyph for c in notes] == ["?!", "!", None]
    assert notes[0].note == "**Why** not war?" and [s.kind for s in notes[0].markup.shapes] == ["arrow", "highlight", "label"]
    assert notes[2].markup.audience == "Bruno" and notes[2].markup.seat
    assert variation.turns[-1].moves[-1].glyph == "?"
