"""What the Game contract suite (tests/contract/test_game_contract.py) needs to know of Città-Stato:
its tables, the commands worth trying beside `legal`, a log to tamper with, and its secrets."""

from __future__ import annotations

import json
from typing import Any

from domain.citta_stato import commands as cmd
from domain.citta_stato.edition import BANNERS, COLOURS
from domain.citta_stato.state import State
from domain.kernel import Command, Edition, Entry, Game, RuleViolation, SeededChance
from domain.kernel.selfplay import play_random

from .helpers import GAME

SOLO = [{"players": 2, "solo": {"scenario": n, "game": 3}} for n in (1, 2, 3, 4)]
TABLES: list[dict[str, Any]] = [{"players": p} for p in (2, 3, 4, 5)] + SOLO + [{"players": 2, "solo": {"scenario": 3, "game": 2}}]

# legal is exact: one game per player count, every fourth command's state against every well-formed command
LEGAL = [({"players": p}, f"exact-{p}") for p in (2, 3, 4, 5)]
LEGAL_EVERY = 4
LEGAL_SLOW = False
PROBES_COVER_LEGAL = True  # the universe holds every command `legal` may list: the two sets are equal

LEAK = [{"players": 3}, {"players": 5}]


def universe(state: State) -> list[Command]:
    """Every well-formed command worth trying at this point, legal or not."""
    seats = range(state.players)
    cards = {c for c in state.present + state.future if c} | {c for x in state.seats for c in x.cards} | {"Y1", "P10"}
    out: list[Command] = []
    for s in seats:
        out += [cmd.Pass(s), cmd.Accept(s), cmd.Decline(s), cmd.KeepRepublic(s, "old"), cmd.KeepRepublic(s, "new")]
        out += [cmd.TradeBanners(s, t) for t in ("purple", "mixed")]
        out += [cmd.UseScheme(s, k) for k in range(5)] + [cmd.WarDisc(s, v) for v in range(6)]
        out += [cmd.PickNumber(s, v) for v in range(8)] + [cmd.PickColour(s, c) for c in COLOURS]
        out += [cmd.Shift(s, d, k) for d in ("left", "right", "none") for k in range(8)]
        out += [cmd.MarketCube(s, c, k) for c in COLOURS for k in (1, 2, 3)]
        out += [cmd.TakeCard(s, c, src, m) for c in cards for src in ("present", "future", "supply") for m in ("use", "burn")]
        for j in range(state.seats[s].actions + 3):
            out += [k(s, c, j) for k in (cmd.CityAction, cmd.UseCard, cmd.BurnCard) for c in COLOURS]
            out += [cmd.Upgrade(s, c, j) for c in BANNERS]
    return out


def probes(state: State, legal: list[Command]) -> list[Command]:
    return universe(state)


def snapshot(state: State) -> Any:
    """What deciding must leave as it was."""
    return GAME.view(state, None)


def assert_legal_is_exact(state: State) -> list[Command]:
    """Every command `legal` lists is accepted and every other well-formed one refused; returns `legal`
    (the solo tests check the Ghost's turns with it too)."""
    legal = GAME.legal(state)
    accepted = []
    for c in universe(state):
        try:
            GAME.decide(state, c, SeededChance("probe"))
        except RuleViolation:
            continue
        accepted.append(c)
    assert set(accepted) == set(legal), (GAME.pending(state), set(legal) ^ set(accepted))
    return legal


def tamper(game: Game, edition: Edition) -> tuple[list[Entry], str, int | None]:
    """A log that claims a cube that was never in the bag: refused by chance (any `chance/` rule)."""
    played = play_random(game, edition, {"players": 3}, "tamper")
    entries = list(played.entries)
    for k, entry in enumerate(entries[1:], start=1):
        draws = [o for o in entry.outcomes if o.source.startswith("bag:") and len(o.values) > 0]
        if draws:
            o = draws[0]
            bad = type(o)(o.kind, o.source, ("B",) * len(o.values))
            entries[k] = type(entry)(entry.command, tuple(bad if x is o else x for x in entry.outcomes), entry.events)
            return entries, "chance/", None
    raise AssertionError("no bag draw in the game")


def hidden(state: State, view: dict[str, Any], me: int) -> int:
    """Asserts that `view` (seat `me`'s) shows no other seat's Republic card, bag or war discs, no face-down
    war disc and no Republic pool; returns how many hidden war discs it checked."""
    if state.phase != "turns":
        return 0
    seen = 0
    for i, x in enumerate(view["seats"]):
        if i != me:
            assert x["republic"] is None and isinstance(x["bag"], int) and isinstance(x["war_discs"], int)
    for d in view["warfare"]:
        if d["seat"] != me and not state.revealed:
            assert d["value"] is None
            seen += 1
    assert isinstance(view["republic_pool"], int)
    json.dumps(view)
    return seen
