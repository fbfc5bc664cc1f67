"""La Città's events in words: every event type reads as a sentence, names come from the table,
and the two facts the view hides while the game is in progress stay hidden in the sentences too:
the voice cards a seat looks at when polling (only that seat reads them) and a politics card
drawn blind (nobody reads it until the year ends)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.kernel import Event
from domain.kernel.bots import play_bot
from domain.kernel.describe import say
from domain.kernel.events import event_types
from domain.kernel.selfplay import play_random
from domain.kernel.violations import ALL, Secret
from domain.la_citta import GAME
from domain.la_citta import events as ev
from domain.la_citta.state import State
from tests.la_citta.helpers import ED, position

NAMES = ("Ada", "Bruno", "Chiara", "Dario", "Elena")

GAMES = [
    *[("random", {"players": n, "setup": setup, "start": k % n}, f"say-{n}-{setup}-{k}")
      for n in range(2, 6) for setup in ("beginner", "experienced") for k in range(3)],
    ("bot", {"players": 2}, "say-bot-2"),
]


def _played(kind: str, options: dict[str, Any], seed: str) -> list[tuple[Event, State]]:
    """Every event of one game with the state it folds onto."""
    game = (play_bot if kind == "bot" else play_random)(GAME, ED, options, seed)
    s = GAME.begin(ED)
    out = []
    for entry in game.entries:
        for e in entry.events:
            out.append((e, s))
            s = GAME.evolve(s, e)
    return out


@pytest.fixture(scope="module")
def corpus() -> list[tuple[Event, State]]:
    return [pair for spec in GAMES for pair in _played(*spec)]


def _text(e: Event, before: State, reader: Any) -> str:
    return say(GAME.describe(e, before, NAMES), reader) or ""


def test_every_event_type_gets_a_readable_sentence(corpus: list[tuple[Event, State]]) -> None:
    ids = set(event_types())
    said: set[str] = set()
    for e, before in corpus:
        words = GAME.describe(e, before, NAMES)
        assert words is not None, e
        assert all(isinstance(part, (str, Secret)) for part in words), words
        for reader in (None, 0, ALL):
            text = say(words, reader) or ""
            assert (text[:1].isupper() or text[:1].isdigit()) and text.endswith("."), (e, text)
            assert not any(i in text for i in ids), text
            for bad in ("None", "{", "}", "[", "]", "()", "('", "')", "_", "=", "<", "seat ", "  ", " ."):
                assert bad not in text, (bad, text)
        said.add(e.type)
    mine = {t for t in ids if t.startswith("la-citta/")}
    assert said == mine, sorted(mine - said)


def test_sentences_name_the_seat_the_hexes_and_the_cards(corpus: list[tuple[Event, State]]) -> None:
    """The seat by its name, places by their L-name, buildings and cards by the edition's words."""
    for e, before in corpus:
        text = _text(e, before, ALL)
        seat = getattr(e, "seat", None)
        if isinstance(seat, int):
            assert NAMES[seat] in text, text
        for field in ("hex", "city", "source"):
            h = getattr(e, field, None)
            if isinstance(h, int):
                assert f"L{h} " in text or f"L{h}," in text or f"L{h}:" in text or f"L{h}." in text, (field, text)
        for field in ("building", "card"):
            name = getattr(e, field, "")
            if name:
                assert name.replace("_", " ") in text, (field, text)
        for h in getattr(e, "losers", ()):
            owner = NAMES[before.cities[h].owner]
            assert f"{owner}'s city at L{h}" in text, text


def test_the_cards_a_seat_polls_read_only_to_that_seat(corpus: list[tuple[Event, State]]) -> None:
    polls = [(e, s) for e, s in corpus if isinstance(e, ev.VoicePolled)]
    assert polls
    for e, before in polls:
        after = GAME.evolve(before, e)
        shown = GAME.view(after, e.seat)["voice"]["face_down"]
        assert all(shown[slot] == card for slot, card in zip(e.slots, e.cards, strict=True))  # the seat may see them
        other = ev.VoicePolled(e.seat, e.slots, tuple("health" if c != "health" else "culture" for c in e.cards))
        for reader in (None, *[x for x in range(before.players) if x != e.seat]):
            text = _text(e, before, reader)
            assert not any(card in text for card in e.cards), (reader, text)
            assert text == _text(other, before, reader)  # the same words whatever the cards are
        for reader in (e.seat, ALL):
            text = _text(e, before, reader)
            assert all(card in text for card in e.cards), (reader, text)


def test_a_blind_card_reads_to_nobody_until_the_year_ends(corpus: list[tuple[Event, State]]) -> None:
    blind = [(e, s) for e, s in corpus if isinstance(e, ev.BlindDrawn) and e.card]
    assert blind
    cards = sorted(ED.data["politics"])
    for e, before in blind:
        after = GAME.evolve(before, e)
        assert all(GAME.view(after, seat)["seats"][e.seat]["played"][-1] == "face-down" for seat in (None, e.seat))
        other = ev.BlindDrawn(e.seat, next(c for c in cards if c != e.card))
        word = e.card.replace("_", " ")
        for reader in (None, *range(before.players)):
            text = _text(e, before, reader)
            assert word not in text, (reader, text)
            assert text == _text(other, before, reader)
        assert word in _text(e, before, ALL)


def test_the_year_end_names_the_blind_cards_as_the_discard_pile_shows_them(corpus: list[tuple[Event, State]]) -> None:
    ends = [(e, s) for e, s in corpus if isinstance(e, ev.YearEnded) and any(blind and c for p in s.played for c, blind in p)]
    assert ends
    for e, before in ends:
        discard = GAME.view(GAME.evolve(before, e), None)["politics"]["discard"]
        text = _text(e, before, None)
        for pile in before.played:
            for card, blind in pile:
                if blind and card:
                    assert card in discard and card.replace("_", " ") in text, text


def _said(e: Event, s: State, reader: Any = ALL) -> str:
    return say(GAME.describe(e, s, NAMES[: s.players]), reader) or ""


@pytest.fixture
def table() -> State:
    return position(
        players=2, cities=[(0, 68, 4), (1, 78, 3)], buildings=[(0, 68, 69, "school")], gold=[3, 2], display=["palace", "master_builder"]
    )


def test_exact_sentences_for_a_political_turn(table: State) -> None:
    s = table
    assert _said(ev.ActionCardUsed(0, "build"), s) == "Ada plays an action card to build (2 left)."
    assert _said(ev.BuildingBuilt(0, 68, 70, "farm_house", "castle", 2), s) == (
        "Ada builds a farm house on L70 for the city at L68, its citizen from the castle (+2 food)."
    )
    assert _said(ev.PoliticsCardTaken(1, "master_builder", 2), s) == "Bruno takes the master builder card for 2 gold."
    assert _said(ev.PoliticsCardTaken(0, "bread_and_games", 0), s) == "Ada takes the bread and games card at no cost."
    assert _said(ev.FiguresPlaced(0, 69, "education", 2), s) == (
        "Ada puts 2 coloured figures on the school at L69: +2 education for the city this year."
    )
    assert _said(ev.CitizensArrived(1, 78, 2, 1), s) == (
        "Golden times: 2 citizens move into Bruno's city at L78; 1 more stays in the supply at the city's limit."
    )
    assert _said(ev.TurnEnded(1), s) == "Bruno's turn ends (political round 1 of 5)."


def test_exact_sentences_with_secrets(table: State) -> None:
    s = table
    poll = ev.VoicePolled(1, (0, 2), ("culture", "health"))
    assert _said(poll, s, 1) == "Bruno looks at the face-down voice cards 1 and 3: culture and health."
    assert _said(poll, s, None) == _said(poll, s, 0) == "Bruno looks at the face-down voice cards 1 and 3, which only Bruno has seen."
    blind = ev.BlindDrawn(0, "golden_times")
    assert _said(blind, s, 0) == "Ada has no action card left and draws a politics card blind: it stays face down."
    assert _said(blind, s, ALL) == "Ada has no action card left and draws a politics card blind: the golden times card."


def test_exact_sentences_for_the_tally_and_feeding(table: State) -> None:
    s = table._replace(voice_up="culture")
    assert _said(ev.VoiceRevealed(("health", "health", "culture"), ("culture", "health")), s) == (
        "The voice of the people is revealed: health, health and culture beside culture; the people want culture and health."
    )
    assert _said(ev.CityAttracted(0, 68, "education", (78,), 1, 0), s) == (
        "Ada's city at L68 draws 1 citizen with its education, from Bruno's city at L78."
    )
    assert _said(ev.FeedingCounted((9, 5), (7, 8), (0, 3)), s) == (
        "Food counted: Ada has 9 food for 7 citizens; Bruno has 5 food for 8 citizens, 3 short."
    )
    assert _said(ev.CitizenStarved(1, 78, 2), s) == "2 hungry citizens of Bruno's city at L78 go back to the supply."
    assert _said(ev.BuildingDemolished(0, 68, 69, "school", 0), s) == (
        "Ada's city at L68 lacks citizens: its school at L69 is pulled down."
    )

