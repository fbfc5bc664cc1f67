"""What the Game contract suite (tests/contract/test_game_contract.py) needs to know of La Città:
its tables, the commands worth trying beside `legal`, a log to tamper with, and its secrets."""

from __future__ import annotations

from typing import Any

from domain.kernel import Command, Edition, Entry, Game
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta.state import State


def options(players: int, k: int) -> dict[str, Any]:
    return {"players": players, "setup": "experienced" if k % 2 else "beginner", "start": k % players}


TABLES = [options(p, k) for p in (2, 3, 4, 5) for k in (0, 1)]

# legal is exact: six games per player count, every fifth command's state against commands near the legal ones
LEGAL = [(options(p, k), f"legal-{p}-{k}") for p in (2, 3, 4, 5) for k in range(6)]
LEGAL_EVERY = 5
LEGAL_SLOW = True
PROBES_COVER_LEGAL = False

LEAK = [options(p, k) for p in (2, 3, 4, 5) for k in (0, 1)]


def probes(s: State, legal: list[Command]) -> list[Command]:
    """Commands close to the legal ones: other hexes, cities, options."""
    seat = rules.pending_of(s).seat
    hexes = (1, 7, 41, 68, 75, 86, 98, 132, 158, 174)
    out: list[Command] = [cm.TakeGold(seat), cm.BlindDraw(seat)]
    for c in legal[:40]:
        if isinstance(c, cm.Build):
            out += [cm.Build(seat, c.card, c.building, c.city, h) for h in hexes]
            out += [cm.Build(seat, c.card, b, c.city, c.hex) for b in ("fountain", "market_place", "palace", "cathedral")]
        elif isinstance(c, cm.FoundCity):
            out += [cm.FoundCity(seat, h, c.source) for h in hexes]
        elif isinstance(c, cm.Demolish):
            out += [cm.Demolish(seat, h) for h in hexes]
        elif isinstance(c, cm.SendAway):
            out += [cm.SendAway(seat, c.city, c.citizens + 1)]
        elif isinstance(c, cm.Attract):
            out += [cm.Attract(seat, c.city, sv) for sv in ("culture", "education", "health")]
        elif isinstance(c, cm.PlaceCastle):
            out += [cm.PlaceCastle(seat, h) for h in hexes]
        elif isinstance(c, cm.GoldenTimes):
            out += [cm.GoldenTimes(seat, c.city, n) for n in (1, 2, 3)]
        elif isinstance(c, cm.BreadAndGames):
            out += [cm.BreadAndGames(seat, c.hex, sv, n) for sv in ("culture", "health") for n in (1, 3)]
    return out


def snapshot(state: State) -> Any:
    """What deciding must leave as it was: the cities and links (plain dicts in the state) and the table."""
    return dict(state.cities), dict(state.links), GAME.view(state, None)


def tamper(game: Game, edition: Edition) -> tuple[list[Entry], str, int | None]:
    """A log whose first building stands on a hex far from any city: refused by the rules, at that entry."""
    played = play_random(game, edition, {"players": 3}, "tamper")
    entries = list(played.entries)
    for i, entry in enumerate(entries):
        if entry.command and entry.command["type"] == "la-citta/build":
            command = dict(entry.command)
            command["hex"] = 1
            entries[i] = Entry(command, entry.outcomes, entry.events)
            return entries, "la-citta/", i
    raise AssertionError("nothing was built in the game")


def hidden(state: State, view: dict[str, Any], me: int) -> int:
    """Asserts that `view` (seat `me`'s) shows no face-down voice card `me` has not polled, and only the sizes of
    the decks; returns how many such cards it checked."""
    assert isinstance(view["politics"]["deck"], int) and isinstance(view["voice"]["deck"], int)
    if state.voice:  # revealed at the tally: every seat sees them
        return 0
    seen = 0
    for i, card in enumerate(state.voice_down):
        if card and me not in state.voice_seen[i]:
            assert view["voice"]["face_down"][i] is None, (i, me)
            seen += 1
    return seen
