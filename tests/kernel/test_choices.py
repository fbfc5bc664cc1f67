"""The decision panel's choices (kernel.choices, each title's `notation.choices`): every legal command of a played
game in words a person reads (no two alike), split into the parts picked one after another, grouped, and a board
place where it names one."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain import catalog
from domain.kernel import SeededChance, play
from domain.kernel.choices import Choice, choice_of, plain

NAMES = ["Anna Maria", "D'Arcy", "Zoë"]
TITLES = ("citta-stato", "la-citta", "serenissima")


def offered_in_a_game(title: str, seed: str, decisions: int) -> list[tuple[str, list[dict[str, Any]], list[Choice]]]:
    """(decision kind, legal commands, their choices) at each of the first decisions of a random 3-player game."""
    game = catalog.game(title)
    edition = game.default_edition()
    state = game.begin(edition)
    for event in game.setup(edition, {"players": 3}, SeededChance(seed)):
        state = game.evolve(state, event)
    pick, seen = random.Random(seed), []
    for k in range(decisions):
        pending = game.pending(state)
        if pending.over:
            break
        legal = game.legal(state)
        commands = [c.to_json() for c in legal]
        seen.append((pending.kind, commands, catalog.choices(title)(state, commands, NAMES)))
        _, state = play(game, state, legal[pick.randrange(len(legal))], SeededChance(f"{seed}/{k}"))
    return seen


@pytest.mark.parametrize("title", TITLES)
def test_every_legal_command_is_offered_in_words_split_into_its_parts(title: str) -> None:
    seen = offered_in_a_game(title, "table", 150)
    assert len(seen) >= 40
    places = set(catalog.places(title, catalog.game(title).default_edition()) or ())
    groups: set[str] = set()
    for kind, commands, choices in seen:
        assert len(choices) == len(commands), kind
        words = [c.words for c in choices]
        assert len(set(words)) == len(words), f"{title} {kind}: two choices read alike: {words}"
        for choice, command in zip(choices, commands, strict=True):
            assert choice.words.strip() and " ".join(choice.parts) == choice.words, (kind, choice)
            assert all(p.strip() for p in choice.parts)
            assert not any(t in choice.words for t in (title + "/", "{", "_")), f"an engine id in the words: {choice.words}"
            assert choice.place is None or choice.place in places, (kind, choice, command)
            groups.add(choice.group)
    assert len(groups) >= 3, f"{title}: every choice in {groups}"


def test_a_title_s_choices_name_its_board_places() -> None:
    """La Città: a hex is tappable by its lane's id; Serenissima: a sail by its sea zone."""
    found = {title: [c for _, _, choices in offered_in_a_game(title, "places", 80) for c in choices if c.place]
             for title in ("la-citta", "serenissima")}
    assert any(c.place.startswith("L") and c.place in c.words for c in found["la-citta"])
    sails = [c for c in found["serenissima"] if c.parts[0] == "sail"]
    assert sails and all(c.group == "places" for c in sails)


def test_colours_and_prices_are_said_as_the_rulebook_says_them() -> None:
    words = catalog.words("citta-stato")
    bought = choice_of(words, None, {"type": "citta-stato/market-cube", "seat": 0, "colour": "O", "cost": 2}, NAMES,
                       labels={"cost": "for"})
    assert bought.parts == ("buy", "orange", "for 2") and bought.words == "buy orange for 2"


def test_a_title_without_choices_of_its_own_offers_its_notation_s_words() -> None:
    from tests.kernel import toy_game

    offered = plain(toy_game.WORDS)(None, [{"type": "toy/roll", "seat": 0}, {"type": "toy/draw", "seat": 0}], NAMES)
    assert [(c.words, c.group, c.parts, c.place) for c in offered] == [
        ("roll", "actions", ("roll",), None), ("draw", "actions", ("draw",), None)]
