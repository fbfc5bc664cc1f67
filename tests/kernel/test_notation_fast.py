"""Reading a clean file a line at a time (issue 12, performance) must say exactly what lark's whole-file
reading says: the same tags, setup, turns, comments and errors, for rendered games and hand-written files."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from domain import catalog
from domain.kernel import notation
from domain.kernel.contract import fold
from domain.kernel.notation import Notation, parse
from domain.kernel.selfplay import play_random
from domain.transcripts import check_text, render_log

NAMES = ["Ada", "Bruno", "Chiara", "Dario", "Elena"]


def said(found: Notation) -> tuple[Any, ...]:
    """Everything a parse gives, errors by their contents (exceptions compare by identity)."""
    return (found.tags, found.setup, found.setup_line, found.turns, found.comments,
            [e.to_json() for e in found.errors])


def rendered(title: str, players: int, seed: str) -> tuple[str, Any]:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": players}, seed)
    return render_log(title, edition, played.entries, NAMES[:players], {"players": players}, played.scores), played


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
@pytest.mark.parametrize("players", [2, 4])
def test_a_rendered_game_reads_the_same_line_by_line(title: str, players: int) -> None:
    text, _ = rendered(title, players, f"fast-{players}")
    assert said(parse(text)) == said(notation._parse_whole(text))
    assert parse(text).turns  # the game has lines, and they were read


HAND_WRITTEN = [
    # quoted names, a colon after Setup, `?` values, a number written with a leading zero, a repeated line
    '[Title "toy"]\n[Seats "\\"Gian Maria\\", Bruno"]\n\nSetup: [? 3] [?]\n1. "Gian Maria": take 007 [x ?]\n'
    '   Bruno: pass\n   Bruno: pass\n2. Bruno: pass, take 2 [y]; pass\n',
    # comments with markup on a line, a note line, an `=` line, a `%` remark, an option with `=`
    '[Title "toy"]\n[Options "players=2"]\n% typed in by Chiara\nSetup [a]\n1. Ada: take 1 {good [%cal a-b]}\n'
    '{a note [%csl a]}\n= [3 4]\nBruno: pass % at the end\n',
    # a comment over two lines
    '[Title "toy"]\n\nSetup\nAda: take 1 {long\ncomment}, pass\nBruno: pass\n',
    # Windows line ends, tabs, form feeds, blank lines with spaces, no newline at the end
    '[Title "toy"]\r\n\r\nSetup [a]\r\n1.\tAda:\ttake  1\f[b]\r\n   \r\n   Bruno: pass',
    # words beyond ASCII, names and values that look like the keyword
    '[Title "toy"]\nSetup\nÉlodie: prendre Città [Setupx]\nAda: Setup\n',
    # errors: a bad character, a tag after the lines, a line cut off, a keyword run into a word, a stray CR
    '[Title "toy"]\nSetup\nAda: take @ 1\n[Late "tag"]\nBruno: take [1\nSetupper: pass\nAda: pa\rss\n',
    # an empty file, only a header, only blank lines
    "", '[Title "toy"]\n', "\n\n  \n",
]


@pytest.mark.parametrize("text", HAND_WRITTEN)
def test_a_hand_written_file_reads_the_same_line_by_line(text: str) -> None:
    assert said(parse(text)) == said(notation._parse_whole(text))


def test_a_clean_game_is_read_without_lark_once_its_line_shapes_are_known(monkeypatch: pytest.MonkeyPatch) -> None:
    text, played = rendered("citta-stato", 3, "fast-shapes")
    parse(text)  # the line shapes of this game, learnt once
    calls: list[str] = []
    for parser in (notation._PARSER, notation._BODY, notation._SHAPES):
        monkeypatch.setattr(parser, "parse", lambda *a, **k: calls.append("lark") or [])
    found = parse(text)
    assert calls == []
    assert sum(len(t.moves) for t in found.turns) >= len(played.entries) - 1 - text.count("\n")


def test_a_file_lark_refuses_is_read_whole_and_every_error_is_found() -> None:
    text, _ = rendered("la-citta", 2, "fast-errors")
    lines = text.split("\n")
    body = [k for k, line in enumerate(lines) if line.strip() and not line.startswith(("[", "Setup"))]
    for k in (body[3], body[10]):
        lines[k] = lines[k].replace(":", " @", 1)
    found = parse("\n".join(lines))
    assert [e.line for e in found.errors] == [body[3] + 1, body[10] + 1]
    assert len(found.turns) == len(body) - 2


def test_trying_the_forms_of_a_verb_computes_no_did_you_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    """Città-Stato's `use` has a form a colour and one for a card taken: only a move no form fits is explained."""
    from domain.citta_stato import notation as words

    asked: list[Any] = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda *a, **k: asked.append(a) or real(*a, **k))
    move = parse("1. Ada: use Y3 future\n").turns[0].moves[0]
    assert words.VOCABULARY.read(move, 0)["type"] == "citta-stato/take-card"
    assert asked == []
    wrong = parse("1. Ada: use Y33 future\n").turns[0].moves[0]
    with pytest.raises(notation.NotationError) as refused:
        words.VOCABULARY.read(wrong, 0)
    assert asked and "Y33" in refused.value.message


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
def test_whose_is_the_pending_seat_and_kind_at_every_step(title: str) -> None:
    """The checker asks the title's `whose` before every move in place of `pending`: they must agree
    after every event (mid-command states included), over every player count."""
    game = catalog.game(title)
    words = catalog.words(title)
    edition = game.default_edition()
    assert words.whose is not None
    low, high = game.seats
    steps = 0
    for players in range(low, high + 1):
        played = play_random(game, edition, {"players": players}, f"fast-whose-{players}")
        state = game.begin(edition)
        for entry in played.entries:
            for event in entry.events:
                state = fold(game, state, [event])
                pending = game.pending(state)
                assert words.whose(state) == (pending.seat, pending.kind)
                steps += 1
    assert steps > 100


def test_moves_read_once_still_give_each_entry_its_own_command() -> None:
    """A move written again is read once; the log's entries must not share a command object."""
    text, played = rendered("citta-stato", 2, "fast-entries")
    report = check_text(text)
    assert report.ok and report.entries is not None
    assert [e.command for e in report.entries] == [e.command for e in played.entries]
    commands = [e.command for e in report.entries[1:]]
    assert len({id(c) for c in commands}) == len(commands)
    first, twin = next((a, b) for k, a in enumerate(commands) for b in commands[k + 1:] if a == b)
    first["seat"] = -1  # a change to one entry's command leaves the other's alone
    assert twin["seat"] != -1
