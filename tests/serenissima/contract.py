"""What the Game contract suite (tests/contract/test_game_contract.py) needs to know of Serenissima:
its tables, the commands worth trying beside `legal`, a log to tamper with, and its secrets."""

from __future__ import annotations

from typing import Any

from domain.kernel import Command, Edition, Entry, Game
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima.state import State

TABLES: list[dict[str, Any]] = [{"players": p} for p in (2, 3, 4)] + [{"players": p, "money": "hidden"} for p in (2, 3, 4)]

# legal is exact: three games per player count, every command's state against a fixed set of probes
LEGAL = [({"players": p}, f"exact-{p}-{seed}") for p in (2, 3, 4) for seed in ("a", "b", "c")]
LEGAL_EVERY = 1
LEGAL_SLOW = False
PROBES_COVER_LEGAL = False

LEAK = [{"players": p, "money": "hidden"} for p in (2, 3, 4)]


def probes(state: State, legal: list[Command]) -> list[Command]:
    seat = GAME.pending(state).seat
    seat = seat if seat is not None else 0
    other = (seat + 1) % state.players
    return [
        cm.EndLoading(seat), cm.EndMovement(seat), cm.EndActivation(seat), cm.EndInvestment(seat),
        cm.BuyGood(seat), cm.Sail(seat, "marmara"), cm.Sail(seat, "balearic"), cm.Sell(seat, "wood"), cm.Sell(seat, "spice"),
        cm.AttackPort(seat), cm.ClaimPort(seat), cm.Unload(seat, 1), cm.Unload(seat, 6), cm.Blockade(other, True),
        cm.RecruitPort(seat, "valencia"), cm.BuyGalley(seat, 1, "valencia"), cm.BuildFort(seat, "venezia"),
        cm.MoveSailor(seat, 0, 1), cm.MoveSailor(other, 1, 0), cm.ChoosePlan(other, "action"), cm.ContinueBattle(seat, True),
    ]


def snapshot(state: State) -> Any:
    """What deciding must leave as it was."""
    return state, GAME.view(state, None)


def tamper(game: Game, edition: Edition) -> tuple[list[Entry], str, int | None]:
    """A log whose first battle roll shows a 7: refused as a face the die does not have."""
    for k in range(50):
        played = play_random(game, edition, {"players": 4}, f"tamper-{k}")
        found = next(((i, e) for i, e in enumerate(played.entries) if any(o.kind == "roll" for o in e.outcomes)), None)
        if found:
            index, entry = found
            rolls = [o for o in entry.outcomes if o.kind == "roll"]
            entries = list(played.entries)
            bad = [type(o)(o.kind, o.source, (7,) * len(o.values)) if o is rolls[0] else o for o in entry.outcomes]
            entries[index] = type(entry)(entry.command, tuple(bad), entry.events)
            return entries, "chance/roll/impossible-face", None
    raise AssertionError("no battle in 50 random games")


def hidden(state: State, view: dict[str, Any], me: int) -> int:
    """With hidden money and the game on, asserts that `view` (seat `me`'s) shows no other seat's ducats, and only
    the size of the Doge deck; returns how many hidden purses it checked."""
    assert isinstance(view["doge"]["face_down"], int)
    if not state.hidden_money or state.phase == "over":
        return 0
    seen = 0
    for i in range(state.players):
        if i != me:
            assert view["ducats"][i] is None and view["seats"][i]["ducats"] is None, (i, me)
            seen += 1
    return seen
