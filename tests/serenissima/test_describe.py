"""Serenissima's events in words: every event type says something readable, and a purse hidden by the view stays hidden.

With hidden money the view hides one fact while the game is in progress: each seat's ducats
(everything else on the table, and every event, is public). A sentence that names a seat's
purse after a payment or an income must read the same to every other reader whatever that
purse holds, and show it to its seat and to the all-seeing reader.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from importlib import resources
from typing import Any

import pytest

from domain.kernel import Event, ObservedChance, Outcome
from domain.kernel.bots import play_bot
from domain.kernel.describe import Sentence, say
from domain.kernel.events import event_types
from domain.kernel.selfplay import play_random
from domain.kernel.violations import ALL, Secret
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima import events as ev
from domain.serenissima.state import State, replace
from tests.serenissima.board import BLUE, RED, activate, galley, port, rolls, table

NAMES = ("Ada", "Bea", "Cy", "Dora")
REFERENCE = GAME.default_edition()

_RAW = resources.files("domain.serenissima").joinpath("edition.yaml").read_bytes()
_CHANGES = (
    # free forts and basilicas anywhere, so random investments build them and random attacks meet them
    (b"fort: {price: 2, requires: [wood, stone], tokens: 5, dice: 2}", b"fort: {price: 0, requires: [], tokens: 19, dice: 2}"),
    (b"basilica: {price: 2, requires: [gold, marble], tokens: 5}", b"basilica: {price: 0, requires: [], tokens: 19}"),
    # Tripoli moved beside Algiers: two ports in one zone, so the port is named (ambiguity 30)
    (b"zone: sidra,            produces: marble", b"zone: algerian,         produces: marble"),
)
for old, _new in _CHANGES:
    assert _RAW.count(old) == 1, old
BUSY = GAME.load_edition(_RAW.replace(*_CHANGES[0]).replace(*_CHANGES[1]).replace(*_CHANGES[2]), "busy-seas.yaml")

GAMES = [
    *[("bot", REFERENCE, {"players": n, "money": money}, f"say-bot-{n}-{money}") for n, money in ((2, "visible"), (3, "hidden"), (4, "visible"))],
    *[("random", REFERENCE, {"players": n, "money": money}, f"say-{n}-{money}") for n in (2, 3, 4) for money in ("visible", "hidden")],
    ("random", REFERENCE, {"players": 3, "closed_ports": ["corfu", "candia", "palermo", "atene"]}, "say-closed"),
    *[("random", BUSY, {"players": n, "money": "hidden" if n == 3 else "visible"}, f"say-busy-{n}-{k}") for n in (2, 3, 4) for k in range(3)],
]


def _played(kind: str, edition: Any, options: dict[str, Any], seed: str) -> list[tuple[Event, State]]:
    """Every event of one game with the state it folds onto."""
    play = play_bot if kind == "bot" else play_random
    game = play(GAME, edition, options, seed)
    s = GAME.begin(edition)
    out = []
    for entry in game.entries:
        for e in entry.events:
            out.append((e, s))
            s = GAME.evolve(s, e)
    return out


@pytest.fixture(scope="module")
def corpus() -> list[tuple[Event, State]]:
    return [pair for spec in GAMES for pair in _played(*spec)]


def test_every_event_type_gets_a_readable_sentence(corpus: list[tuple[Event, State]]) -> None:
    said: dict[str, list[str]] = defaultdict(list)
    ids = set(event_types())
    for e, before in corpus:
        words = GAME.describe(e, before, NAMES)
        assert words is not None, e
        assert all(isinstance(part, (str, Secret)) for part in words)
        for reader in (None, 0, ALL):
            text = say(words, reader)
            assert text and text[0].isupper() and text.endswith("."), (e, text)
            assert not any(i in text for i in ids), text
            for bad in ("None", "{", "}", "[", "]", "()", "=", "<", "'s galley 0", "galley 0 ", "seat "):
                assert bad not in text, (bad, text)
        said[e.type].append(say(words, ALL) or "")
    mine = {t for t in ids if t.startswith("serenissima/")}
    assert set(said) == mine, sorted(mine - set(said))


def test_sentences_name_the_seats_and_the_map(corpus: list[tuple[Event, State]]) -> None:
    """Names come from the names given and from the edition, never ids or seat numbers."""
    for e, before in corpus:
        text = say(GAME.describe(e, before, NAMES), ALL) or ""
        seat = getattr(e, "seat", None)
        if isinstance(seat, int):
            assert NAMES[seat] in text, text
        for field in ("port", "zone"):
            value = getattr(e, field, "")
            if value:
                t = before.t
                name = t.port_name[t.port_index[value]] if field == "port" else t.zone_name[value]
                assert name in text and (value == name or f" {value} " not in text), text


def _purses_apart(s: State, reader: int | None) -> State:
    """The same table with every purse the reader may not see changed."""
    return replace(s, money=tuple(m if seat == reader else m + 1000 for seat, m in enumerate(s.money)))


def test_a_hidden_purse_reads_the_same_to_everyone_else_and_shows_to_its_seat(corpus: list[tuple[Event, State]]) -> None:
    shown = 0
    for e, before in corpus:
        if not before.hidden_money or isinstance(e, ev.GameEnded):  # the end counts every purse out
            continue
        words = GAME.describe(e, before, NAMES)
        for reader in (None, *range(before.players)):
            other = GAME.describe(e, _purses_apart(before, reader), NAMES)
            assert say(other, reader) == say(words, reader), (e, reader)
        after = GAME.evolve(before, e)
        for part in words or ():
            if isinstance(part, Secret):
                seat = part.seat
                assert seat is not None
                purse = f"{after.money[seat]} ducat"
                assert purse in say(words, seat) and purse in say(words, ALL)  # type: ignore[operator]
                assert say(GAME.describe(e, _purses_apart(before, None), NAMES), seat) != say(words, seat)
                shown += 1
    assert shown > 20, shown


def test_with_visible_money_every_reader_reads_the_purse(corpus: list[tuple[Event, State]]) -> None:
    seen = 0
    for e, before in corpus:
        if before.hidden_money or not isinstance(e, ev.GoodSold):
            continue
        words = GAME.describe(e, before, NAMES)
        purse = f"now {GAME.evolve(before, e).money[before.act.seat]} ducat"  # type: ignore[union-attr]
        assert purse in say(words, None) and purse in say(words, 1)  # type: ignore[operator]
        seen += 1
    assert seen


# --- exact sentences for hand-built moves ---------------------------------------------------------


def told(s: State, command: cm.Command, outcomes: Sequence[Outcome] = (), reader: Any = ALL) -> tuple[State, list[str]]:
    """Play one command; each of its events in words as `reader` reads them."""
    out = []
    for e in GAME.decide(s, command, ObservedChance(outcomes)):
        out.append(say(GAME.describe(e, s, NAMES), reader) or "")
        s = GAME.evolve(s, e)
    return s, out


def trading(s: State, number: int) -> State:
    s = activate(s, number, "action")
    s, _ = told(s, cm.EndLoading(s.act.seat))  # type: ignore[union-attr]
    s, _ = told(s, cm.EndMovement(s.act.seat))  # type: ignore[union-attr]
    return s


def test_a_sale_in_words() -> None:
    s = port(table(), "valencia", RED, 2)
    s = trading(galley(s, 4, BLUE, "balearic", 3, ("spice",)), 4)
    _, said = told(s, cm.Sell(BLUE, "spice"), reader=None)
    assert said[0] == "Ada sells a spice cube to València on a space worth 2 ducats and a spice bonus of 2 ducats: +4 ducats (now 9 ducats)."


def test_a_purchase_with_hidden_money_in_words() -> None:
    s = port(table(hidden=True), "valencia", RED, 2)
    s = activate(galley(s, 4, BLUE, "balearic", 3), 4, "action")
    public = "Ada buys a wood cube at València onto galley 4 for 1 ducat, paid to Bea."
    assert told(s, cm.BuyGood(BLUE), reader=None)[1] == [public]
    assert told(s, cm.BuyGood(BLUE), reader=RED)[1] == [public]
    assert told(s, cm.BuyGood(BLUE), reader=BLUE)[1] == [public[:-1] + " (4 ducats left)."]


def test_a_fort_and_a_port_battle_in_words() -> None:
    s = port(port(table(), "algiers", RED, 2, fort=True), "tunis", RED, 1)
    s = trading(galley(s, 4, BLUE, "algerian", 5), 4)
    fort = [Outcome("roll", "dice:fort", (6, 1))]
    _, said = told(s, cm.AttackPort(BLUE), fort + rolls([1, 2, 4, 6], [5, 5]))
    assert said == [
        "The fort of Algiers fires 2 dice (6, 1: 1 skull): Ada's galley 4 loses 1 sailor.",
        "Ada's galley 4 attacks Bea's port of Algiers (2 sailors) with a combat value of 4.",
        "Ada rolls 4 dice (1, 2, 4, 6: 2 skulls), Bea rolls 2 dice (5, 5: 2 skulls): galley 4 loses 2 sailors, Algiers loses 2 sailors."
        " Algiers has no sailor left and turns neutral.",
    ]


def test_the_doge_and_a_scoring_in_words() -> None:
    s = table(players=2)
    drawn = ev.DogeCardDrawn("hour2s", 4, 6)
    assert say(GAME.describe(drawn, s, NAMES), None) == "The Doge card turned is a 2-hourglass card that reshuffles the Doge deck: the Doge moves from space 4 to 6."
    scored: Sentence | None = GAME.describe(ev.Scored(1, (13, 0), (8, 0), (5, 0)), s, NAMES)
    assert say(scored, None) == (
        "Scoring 1 of 3: Ada announces 13 ducats (8 for warehouses and 5 for basilicas, now 18 ducats); Bea announces 0 ducats (0 for warehouses, now 5 ducats)."
    )
