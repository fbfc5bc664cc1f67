"""Città-Stato's events in words: every event type says something readable, and what the view hides stays hidden.

While a game is in progress the view hides a War disc's value until the war is revealed, each
seat's Republic card (dealt, drawn from the pool, kept or returned), and every bag's contents
(only the Ghost's bag is ever named in an event). A sentence naming one of those must read the
fact to its seat and to the all-seeing reader only.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from domain.citta_stato import GAME, rules
from domain.citta_stato import commands as cmd
from domain.citta_stato import events as ev
from domain.citta_stato.describe import STEP
from domain.citta_stato.state import GHOST, State
from domain.kernel import Command, Event, SeededChance
from domain.kernel.bots import GreedyBot, play_bot
from domain.kernel.describe import Sentence, say
from domain.kernel.events import event_types
from domain.kernel.selfplay import play_out, play_random, random_choice
from domain.kernel.violations import ALL, Secret
from tests.citta_stato.helpers import market, seat, turn_state

NAMES = ("Ada", "Bea", "Cy", "Dora", "Eli")
EDITION = GAME.default_edition()

OPTIONS: list[dict[str, Any]] = [
    {"players": 2},
    {"players": 3},
    {"players": 4},
    {"players": 5},
    {"players": 3, "expansion": True},
    {"players": 4, "expansion": True},
    *({"players": 2, "solo": {"scenario": n, "game": g}} for n in (1, 2, 3, 4) for g in (1, 3)),
]


def _eager(state: State, n: int, players: SeededChance) -> Command:
    """Random play that leans to the rare offers (Amalfi's draw, a banner trade, Ancona, a scheme) half the time."""
    legal = GAME.legal(state)
    keen = [c for c in legal if isinstance(c, cmd.Accept | cmd.TradeBanners | cmd.UseScheme)
            or (isinstance(c, cmd.CityAction) and c.colour in "WBP")]
    if keen and (players.below(2) or isinstance(keen[0], cmd.Accept)):
        return keen[players.below(len(keen))]
    return random_choice(GAME, state, players)


def _told(played: Any) -> list[tuple[Event, State, Sentence | None]]:
    """Every event of one game with the state it folds onto and its sentence."""
    s = GAME.begin(EDITION)
    out = []
    for entry in played.entries:
        for e in entry.events:
            out.append((e, s, GAME.describe(e, s, NAMES)))
            s = GAME.evolve(s, e)
    return out


@cache
def corpus() -> tuple[tuple[Event, State, Sentence | None], ...]:
    out: list[tuple[Event, State, Sentence | None]] = []
    for k, options in enumerate(OPTIONS):
        out += _told(play_random(GAME, EDITION, options, f"say-{k}"))
        out += _told(play_random(GAME, EDITION, options, f"say-{k}-again"))
    for k, options in enumerate(({"players": 2}, {"players": 4}, {"players": 3, "expansion": True})):
        out += _told(play_bot(GAME, EDITION, options, f"say-bot-{k}"))
    quick = GreedyBot(turns=1, steps=8, breadth=12)  # a shallower search: the solo Ghost makes the full one slow
    out += _told(play_bot(GAME, EDITION, {"players": 2, "solo": {"scenario": 2, "game": 1}}, "say-bot-solo", bot=quick))
    for k in range(40):
        out += _told(play_out(GAME, EDITION, {"players": 2 + k % 4, "expansion": k % 2 > 0}, f"say-eager-{k}", _eager))
    return tuple(out)


def _readers(s: State) -> list[Any]:
    return [None, ALL, *range(s.players)]


def test_every_event_type_gets_a_sentence() -> None:
    titled = {cls for kind, cls in event_types().items() if kind.startswith("citta-stato/")}
    said = {type(e) for e, _, words in corpus() if words is not None}
    assert titled - said == set(), sorted(cls.__name__ for cls in titled - said)


def test_no_sentence_shows_an_id_or_a_python_value() -> None:
    kinds = set(event_types())
    for e, s, words in corpus():
        if words is None:
            continue
        for reader in _readers(s):
            text = say(words, reader)
            assert text and text[0].isupper() and text.endswith("."), (e, text)
            assert "None" not in text and "{" not in text and "}" not in text, (e, text)
            assert "[" not in text and "('" not in text and "Secret(" not in text and "<" not in text, (e, text)
            assert "_" not in text and "citta-stato/" not in text, (e, text)  # no task kind, no event type id
            assert not any(kind in text for kind in kinds), (e, text)


def test_skipped_declined_and_accepted_steps_are_named_in_words() -> None:
    steps = {e.step for e, _, _ in corpus() if isinstance(e, ev.StepSkipped | ev.Declined | ev.Accepted)}
    assert steps <= set(STEP), sorted(steps - set(STEP))
    choices = set(rules.OPTIONS) | set(rules.GHOST_AUTO)  # every choice can be skipped or declined, every Ghost step skipped
    assert choices <= set(STEP), sorted(choices - set(STEP))


def _secrets(words: Sentence) -> list[Secret]:
    return [p for p in words if isinstance(p, Secret)]


def test_hidden_words_read_only_by_their_seat_and_the_all_seeing() -> None:
    checked = 0
    for e, s, words in corpus():
        if words is None or s.phase == "over":
            continue
        for secret in _secrets(words):
            checked += 1
            assert secret.value not in secret.shown and secret.shown, secret
            assert str(secret.value) in say(words, ALL)  # type: ignore[operator]
            assert str(secret.value) not in say(words, None)  # type: ignore[operator]
            for reader in range(s.players):
                text = say(words, reader)
                assert (str(secret.value) in text) == (reader == secret.seat), (reader, e, text)  # type: ignore[operator]
    assert checked > 100


def _hides(words: Sentence, s: State, owner: int, facts: Sequence[str]) -> None:
    """Each fact is read by `owner` and the all-seeing reader, by nobody else (public included)."""
    for fact in facts:
        assert fact in say(words, ALL), (fact, words)  # type: ignore[operator]
        assert fact in say(words, owner), (fact, words)  # type: ignore[operator]
        assert fact not in say(words, None), (fact, words)  # type: ignore[operator]
        for other in range(s.players):
            if other != owner:
                assert fact not in say(words, other), (fact, other, words)  # type: ignore[operator]


def test_the_facts_the_view_hides_are_hidden_in_the_sentences() -> None:
    """Checked against the events' own secret fields, not against what describe chose to wrap."""
    seen: set[type[Event]] = set()
    for e, s, words in corpus():
        if s.phase == "over" or words is None:
            continue
        if isinstance(e, ev.WarDiscPlaced):
            _hides(words, s, e.seat, [f"disc {e.value}"])
        elif isinstance(e, ev.RepublicCardsDealt):
            for i, card in enumerate(e.cards):
                if card:
                    _hides(words, s, i, [card])
        elif isinstance(e, ev.RepublicDrawn):
            _hides(words, s, e.seat, [e.card])
        elif isinstance(e, ev.RepublicKept):
            _hides(words, s, e.seat, [e.kept, e.returned])
        elif isinstance(e, ev.GhostSetUp):
            assert say(words, 0) == say(words, None) and say(words, GHOST) == say(words, ALL) != say(words, None)
        else:
            continue
        seen.add(type(e))
    assert seen == {ev.WarDiscPlaced, ev.RepublicCardsDealt, ev.RepublicDrawn, ev.RepublicKept, ev.GhostSetUp}


def test_a_war_disc_reads_the_same_to_others_whatever_its_value() -> None:
    s = turn_state(players=3)
    others = {say(GAME.describe(ev.WarDiscPlaced(0, v), s, NAMES), r) for v in (1, 3, 5) for r in (None, 1, 2)}
    own = {say(GAME.describe(ev.WarDiscPlaced(0, v), s, NAMES), 0) for v in (1, 3, 5)}
    assert len(others) == 1 and len(own) == 3


# --- exact sentences, so a wording change is deliberate -----------------------------------
def _said(e: Event, s: State, reader: Any = None) -> str | None:
    return say(GAME.describe(e, s, NAMES), reader)


def test_exact_sentences_for_a_turn() -> None:
    s = turn_state(players=3)
    s = seat(s, 0, actions=1)
    assert _said(ev.ActionTaken(0, "city", "O", ("O", "B")), s) == "Ada pays 1 orange and 1 black to the bag and takes the War action (action 2)."
    assert _said(ev.WarDiscPlaced(0, 3), s) == "Ada places a War disc face down on the Warfare track."
    assert _said(ev.WarDiscPlaced(0, 3), s, 0) == "Ada places War disc 3 face down on the Warfare track."
    assert _said(ev.VpScored(0, 3, "first"), s) == "Ada scores 3 VP."
    assert _said(ev.CubeBought(1, "O", 2), s) == "Bea buys an orange cube from the Market for 2."
    assert _said(ev.CubesDrawn(2, ("G", "Y", "G")), s) == "Cy draws 1 yellow and 2 green from the bag."
    assert _said(ev.FormShifted((1, 2, 0), "left", 1), s) == "Bea moves every Form of Republic marker 1 space left (toward Plutocracy)."


def test_exact_sentences_for_the_first_action_and_the_cards() -> None:
    s = turn_state(players=3)
    s = seat(s, 0, actions=0)
    s = s._replace(market=market(Y="...", O="xxx"), present=("Y3",) + s.present[1:])
    assert _said(ev.ActionTaken(0, "use", "Y", ("Y",), "Y3"), s) == "Ada pays 1 yellow to the Market and uses the yellow Present card Marseilles (Y3) (action 1)."
    assert _said(ev.ActionTaken(0, "city", "O", ("O",)), s) == "Ada pays 1 orange to the bag and takes the War action (action 1)."  # the column is full
    assert _said(ev.CardTaken(1, "Y7", "future", "burn"), s) == "Bea takes the yellow Future card Alexandria (Y7) and burns it."


def test_exact_sentences_for_the_republic_cards() -> None:
    s = turn_state(players=2)
    dealt = ev.RepublicCardsDealt(("R4", "R8"))
    assert _said(dealt, s) == "Republic cards dealt face down: Ada a card, Bea a card."
    assert _said(dealt, s, 1) == "Republic cards dealt face down: Ada a card, Bea R8 (Doge's Magistrature)."
    assert _said(ev.RepublicDrawn(0, "R2"), s, ALL) == "Ada draws R2 (Oligarchy, with crowns) from the Republic pool."
    assert _said(ev.RepublicKept(0, "R2", "R5"), s, 1) == "Ada keeps one Republic card and returns the other face down."


def test_exact_sentences_for_the_end_of_round() -> None:
    s = turn_state(players=3)
    s = s._replace(warfare=((0, 3), (2, 5)), present=("Y3", "", "", "", "", ""), future=("Y7", "", "", "", "", ""))
    assert _said(ev.WarRevealed(((0, 3), (2, 5))), s) == "The War discs are revealed: Ada 3 and Cy 5."
    assert _said(ev.WarWon(2, (0,)), s) == "Cy wins the war and takes a Present or Future card; Ada may take a Present card."
    deck = s.decks[0]
    assert _said(ev.CardsRenewed("Y", (deck[0],)), s) == f"New yellow cards: Marseilles (Y3) is discarded; Present Alexandria (Y7), Future {EDITION.data['cards'][deck[0]]['name']} ({deck[0]})."
    assert _said(ev.GameEnded((40, 38, 12)), s) == "The game ends. Final scores: Ada 40, Bea 38 and Cy 12."
