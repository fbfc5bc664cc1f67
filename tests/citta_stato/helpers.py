"""Test helpers: build Città-Stato states directly, play commands, settle follow-ups by a policy."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from domain.citta_stato import GAME
from domain.citta_stato import commands as cmd
from domain.citta_stato.edition import BI, CI, COLOURS
from domain.citta_stato.fold import put
from domain.citta_stato.state import State, new_seat, new_state
from domain.kernel import Command, Event, ObservedChance, Outcome, SeededChance, event_from_json

EDITION = GAME.default_edition()


def c6(**kw: int) -> tuple[int, ...]:
    """Six counts in colour order: c6(Y=1, P=2)."""
    return tuple(kw.get(c, 0) for c in COLOURS)


def new_game(players: int = 4, seed: str = "test", **options: Any) -> State:
    state = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": players, **options}, SeededChance(seed)):
        state = GAME.evolve(state, e)
    return state


def seat(state: State, i: int, **changes: Any) -> State:
    return new_state(state, seats=put(state.seats, i, new_seat(state.seats[i], **changes)))


def board(state: State, **changes: Any) -> State:
    return new_state(state, **changes)


def market(**cols: str) -> tuple[tuple[bool, ...], ...]:
    """market(Y="..x", G="xxx"): rows top to bottom, x = a cube."""
    return tuple(tuple(ch == "x" for ch in cols.get(c, "...")) for c in COLOURS)


def turn_state(players: int = 4, seed: str = "test", expansion: bool | None = None, **seat0: Any) -> State:
    """Seat 0 to act, first action of round 1, with a roomy supply; tweak seat 0 with keywords."""
    opts = {} if expansion is None else {"expansion": expansion}
    s = new_game(players, seed, **opts)
    s = board(s, first=0, current=0, market=market(Y="..x", W="..x", G="..x", O="..x", B="..x", P="..x"))
    base = dict(
        city="AMA",
        supply=c6(Y=3, W=4, G=5, O=6, B=7, P=8),
        bag=c6(Y=1, W=2, G=3, O=4, B=5, P=6),
        banners=(1, 2, 3, 4),
        crowns=1,
        vp=10,
        discs=(1, 2, 3, 4, 5),
        retired=(0,),
    )
    base.update(seat0)
    return seat(s, 0, **base)


def to_command(payload: Command | dict[str, Any]) -> Command:
    return payload if isinstance(payload, Command) else GAME.parse_command(payload)


def play(state: State, command: Command | dict[str, Any], outcomes: Sequence[Outcome] | None = None, seed: str = "play") -> tuple[State, list[Event]]:
    """decide + evolve one command; every event must round-trip through JSON."""
    chance = ObservedChance(outcomes) if outcomes is not None else SeededChance(seed)
    events = GAME.decide(state, to_command(command), chance)
    for e in events:
        assert event_from_json(json.loads(json.dumps(e.to_json()))) == e, e
        state = GAME.evolve(state, e)
    return state, events


Policy = Callable[[State, list[Command]], Command]


def default_policy(state: State, options: list[Command]) -> Command:
    """Accept VP, buy the cheapest cubes, take the largest number, otherwise the first choice."""
    for o in options:
        if isinstance(o, cmd.Accept):
            return o
    cubes = [o for o in options if isinstance(o, cmd.MarketCube)]
    if cubes:
        return min(cubes, key=lambda o: (o.cost, CI[o.colour]))
    numbers = [o for o in options if isinstance(o, cmd.PickNumber)]
    if numbers:
        return max(numbers, key=lambda o: o.value)
    return next((o for o in options if not isinstance(o, cmd.Decline)), options[0])


def settle_choices(state: State, policy: Policy = default_policy, events: list[Event] | None = None, seed: str = "settle") -> tuple[State, list[Event]]:
    """Answer follow-up decisions until a turn (or the end) is pending."""
    events = events if events is not None else []
    for _ in range(500):
        p = GAME.pending(state)
        if p.kind in ("turn", "game-over"):
            return state, events
        choice = policy(state, GAME.legal(state))
        state, more = play(state, choice, seed=seed)
        events += more
    raise AssertionError("follow-ups never ended")


def act(state: State, command: Command | dict[str, Any], policy: Policy = default_policy, seed: str = "act") -> tuple[State, list[Event]]:
    state, events = play(state, command, seed=seed)
    return settle_choices(state, policy, events, seed)


def kinds(events: Sequence[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def banner(state: State, i: int, colour: str) -> int:
    return state.seats[i].banners[BI[colour]]


def supply(state: State, i: int, colour: str) -> int:
    return state.seats[i].supply[CI[colour]]


def pick(*choices: Command) -> Policy:
    """A policy that plays the given choices first (each when offered), then the default."""
    queue = list(choices)

    def policy(state: State, options: list[Command]) -> Command:
        for k, want in enumerate(queue):
            if want in options:
                return queue.pop(k)
        return default_policy(state, options)

    return policy


def total_cubes(state: State) -> int:
    return (
        sum(sum(x.bag) + sum(x.supply) for x in state.seats)
        + sum(sum(col) for col in state.market)
        + sum(state.box)
        + sum(state.reserve)
    )
