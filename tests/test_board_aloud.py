"""Each title's board read aloud (`aloud.board`, issue 32): sentences of the game's words, from the reader's view.

A screen reader hears the board as these sentences, so they must name every player and every city, galley or
card row the picture shows, and say no more than the reader's view: in the public view of a game in progress a
seat's bag, Republic card and another seat's hidden ducats are "hidden", never their contents.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest

from domain import catalog
from domain.kernel import thaw
from domain.kernel.selfplay import play_random
from domain.records.views import public_view

NAMES = ["Ada O'Brien", "Ben"]


@cache
def states(title: str, options: str = "{}") -> tuple[Any, ...]:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, {"players": 2, **json.loads(options)}, f"aloud-{title}")
    out = [game.begin(edition)]
    for entry in played.entries:
        for e in entry.events:
            out.append(game.evolve(out[-1], e))
    return tuple(out)


def read(title: str, view: Any) -> list[str]:
    return catalog.read_aloud(title, thaw(view), catalog.game(title).default_edition(), NAMES)


@pytest.mark.parametrize("title", ["citta-stato", "la-citta", "serenissima"])
def test_every_player_and_piece_is_a_sentence_in_the_games_words(title: str) -> None:
    game = catalog.game(title)
    run = states(title)
    for state in (run[len(run) // 2], run[-1]):
        view = thaw(game.view(state, None))
        said = read(title, view)
        assert all(s.endswith(".") and s[0].isupper() for s in said), said
        assert not any(re.search(r"\b(None|True|False)\b|[{}\[\]_]", s) for s in said), said
        for name in NAMES:  # each player has a sentence of their own, starting with their name
            assert sum(s.startswith(f"{name}:") or s.startswith(f"{name} (") for s in said) == 1, (name, said)
        if title == "la-citta":  # a city each, as the picture draws them
            cities = view["cities"]
            assert [s for s in said if "'s city at L" in s] == [s for s in said if re.match(r".+'s city at L\d+: castle with", s)]
            assert len([s for s in said if "'s city at L" in s]) == len(cities)
            assert all(f"city at {c['castle']}: castle with {c['citizens']} citizen" in " ".join(said) for c in cities)
        if title == "serenissima":
            assert len([s for s in said if re.match(r".+'s galley \d+ in the ", s)]) == len(view["galleys"])
        if title == "citta-stato":
            seat = view["seats"][0]
            assert f"{NAMES[0]} ({seat['city'].partition(' ')[2]}): {seat['vp']} VP" in said[1]


def test_the_public_view_of_a_game_in_progress_says_secrets_are_hidden() -> None:
    game = catalog.game("citta-stato")
    state = states("citta-stato")[len(states("citta-stato")) // 2]
    public = read("citta-stato", public_view(game, state, 2))
    for seat in thaw(game.view(state, None))["seats"]:
        line = next(s for s in public if s.startswith(NAMES[seat["seat"]]))
        assert "colours hidden" in line and "Republic card hidden" in line, line
        assert f"Republic card {seat['republic']}" not in line
    mine = read("citta-stato", game.view(state, 0))  # Ada reads her own bag and card, not Ben's
    assert "Republic card hidden" not in mine[1] and "colours hidden" not in mine[1], mine[1]
    assert "Republic card hidden" in mine[2], mine[2]


def test_hidden_money_is_hidden_to_every_other_reader() -> None:
    game = catalog.game("serenissima")
    run = states("serenissima", json.dumps({"money": "hidden"}))
    state = run[len(run) // 2]
    ben = read("serenissima", game.view(state, 1))
    assert "ducats hidden" in next(s for s in ben if s.startswith(f"{NAMES[0]}:"))
    assert re.search(r"^Ben: \d+ ducats?,", next(s for s in ben if s.startswith("Ben:")))
