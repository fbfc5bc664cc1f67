"""What each seat may see."""

from __future__ import annotations

import json

from domain.citta_stato import commands as cmd

from .helpers import GAME, board, c6, new_game, play, seat, turn_state


def test_view_hides_other_seats_secrets() -> None:
    s = new_game(3, "view")
    s = board(s, warfare=((1, 4),))
    s = seat(s, 1, bag=c6(Y=2, P=1), discs=(1, 2, 3, 5))
    mine = GAME.view(s, 1)
    theirs = GAME.view(s, 0)
    review = GAME.view(s, None)
    json.dumps(mine)
    assert mine["seats"][1]["bag"] == {"Y": 2, "W": 0, "G": 0, "O": 0, "B": 0, "P": 1}
    assert theirs["seats"][1]["bag"] == 3  # only the size
    assert theirs["seats"][1]["republic"] is None and mine["seats"][1]["republic"] == s.seats[1].republic
    assert theirs["warfare"] == [{"seat": 1, "value": None}] and mine["warfare"][0]["value"] == 4
    assert review["warfare"][0]["value"] == 4
    assert theirs["seats"][1]["war_discs"] == 4 and mine["seats"][1]["war_discs"] == [1, 2, 3, 5]
    assert theirs["republic_pool"] == 3 and sorted(review["republic_pool"]) == ["R1", "R2", "R3"]
    assert "decks" not in theirs and theirs["deck_sizes"]["Y"] == len(s.decks[0])


def test_drawn_republic_card_is_hidden_from_others() -> None:
    from domain.citta_stato.edition import CI
    from domain.citta_stato.fold import put

    s = turn_state(burned=c6(B=0))
    s = board(s, present=put(s.present, CI["B"], "B1"))
    s, _ = play(s, cmd.BurnCard(0, "B"))
    assert GAME.pending(s).kind == "keep-republic"
    assert GAME.view(s, 1)["pending"]["params"] == [None]
    assert GAME.view(s, 0)["pending"]["params"][0] in ("R1", "R2", "R3")
    assert list(GAME.pending(s).detail["params"]) == []  # pending() is for everyone: no secret in it


def test_war_values_are_public_once_revealed() -> None:
    s = board(new_game(3, "rev"), warfare=((1, 4),), revealed=True)
    assert GAME.view(s, 0)["warfare"][0]["value"] == 4


def test_the_public_sees_what_every_seat_sees_including_bag_sizes_and_disc_counts() -> None:
    """The intersection of the seats' views would hide a bag's size (its owner sees it by colour);
    every seat knows it, so the public view keeps the count, and nothing only one seat knows."""
    from domain.records.views import HIDDEN, common

    s = new_game(3, "public")
    s = board(s, warfare=((1, 4),))
    s = seat(s, 1, bag=c6(Y=2, P=1), discs=(1, 2, 3, 5))
    public = GAME.public_view(s)
    views = [GAME.view(s, k) for k in range(3)]
    agreed = common(views)
    for i, shown in enumerate(public["seats"]):
        assert agreed["seats"][i]["bag"] == HIDDEN and shown["bag"] == sum(s.seats[i].bag)
        assert shown["war_discs"] == len(s.seats[i].discs) and shown["republic"] is None
        others = [views[k]["seats"][i] for k in range(3) if k != i]
        assert all(o["bag"] == shown["bag"] and o["war_discs"] == shown["war_discs"] for o in others)
    assert public["warfare"] == [{"seat": 1, "value": None}] and public["republic_pool"] == len(s.pool)
    for key, value in agreed.items():  # everything else is exactly what all seats agree on
        if key not in ("seats", "warfare"):  # a disc's value: None here, {"hidden": true} there
            assert public[key] == value, key
