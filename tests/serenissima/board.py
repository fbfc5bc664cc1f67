"""Hand-built positions for scenario tests: place galleys and ports, then play commands through decide."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.kernel import Command, Event, ObservedChance, Outcome, fold
from domain.serenissima import GAME
from domain.serenissima import events as ev
from domain.serenissima.state import NEUTRAL, Galley, Port, State, replace
from tests.serenissima.invariants import check

EDITION = GAME.default_edition()
BLUE, RED, ORANGE, BLACK = 0, 1, 2, 3


def table(players: int = 4, hidden: bool = False) -> State:
    """A game past setup with an empty board: no galley, no owned port, turn 1 under way."""
    s = GAME.begin(EDITION)
    s = fold(GAME, s, [ev.GameStarted(EDITION.ref, players, hidden), ev.FirstPlayerChosen(0), ev.DogeDeckShuffled(s.t.doge_deck)])
    return replace(s, queue=(), phase="turn", turn=1)


def _resupply(s: State) -> State:
    """Recompute each colour's recruitable sailors so the sailor count stays conserved."""
    row = s.t.per_players[s.players]["sailors"]
    supply = []
    for seat in range(s.players):
        used = sum(p.sailors for p in s.ports if p.owner == seat) + sum(g.sailors for g in s.galleys if g is not None and g.owner == seat)
        supply.append(row - used)
    return replace(s, supply=tuple(supply))


def galley(s: State, number: int, owner: int, zone: str, sailors: int, goods: Sequence[str] = ()) -> State:
    goods_supply = list(s.goods)
    old = s.galleys[number]
    if old is not None:
        for g in old.goods:
            goods_supply[s.t.good_index[g]] += 1
    for g in goods:
        goods_supply[s.t.good_index[g]] -= 1
    galleys = list(s.galleys)
    galleys[number] = Galley(owner, zone, sailors, tuple(sorted(goods)))
    return _resupply(replace(s, galleys=tuple(galleys), goods=tuple(goods_supply)))


def port(s: State, pid: str, owner: int = NEUTRAL, sailors: int = 0, warehouse: Sequence[str] = (), fort: bool = False, basilica: bool = False) -> State:
    i = s.t.port_index[pid]
    goods_supply = list(s.goods)
    for g in s.ports[i].warehouse:
        goods_supply[s.t.good_index[g]] += 1
    for g in warehouse:
        goods_supply[s.t.good_index[g]] -= 1
    ports = list(s.ports)
    ports[i] = Port(owner, sailors, tuple(warehouse), fort, basilica, s.ports[i].closed)
    return _resupply(replace(s, ports=tuple(ports), goods=tuple(goods_supply)))


def money(s: State, **by_seat: int) -> State:
    names = {"blue": BLUE, "red": RED, "orange": ORANGE, "black": BLACK}
    m = list(s.money)
    for name, amount in by_seat.items():
        m[names[name]] = amount
    return replace(s, money=tuple(m))


def activate(s: State, number: int, plan: str | None = None) -> State:
    s = GAME.evolve(replace(s, wheel=number - 1), ev.GalleyActivated(number))
    if plan:
        s = GAME.evolve(s, ev.PlanChosen(number, plan))
    return s


def rolls(*values: Sequence[int], sources: Sequence[str] | None = None) -> list[Outcome]:
    """Dice outcomes in the order the rules ask: attacker then defender for each round (fort first if any)."""
    names = list(sources) if sources else [("dice:attacker" if k % 2 == 0 else "dice:defender") for k in range(len(values))]
    return [Outcome("roll", src, tuple(v)) for src, v in zip(names, values, strict=True)]


def play(s: State, command: Command, outcomes: Sequence[Outcome | dict[str, Any]] = ()) -> tuple[State, list[Event]]:
    """Decide and fold one command, checking that every given outcome was used and the invariants hold."""
    chance = ObservedChance(outcomes)
    events = GAME.decide(s, command, chance)
    assert not chance.unused, chance.unused
    for e in events:
        s = GAME.evolve(s, e)
        check(s, keep_port=False)
    return s, events


def types(events: Sequence[Event]) -> list[str]:
    return [e.type.split("/", 1)[1] for e in events]


def refuse(s: State, command: Command, rule: str) -> None:
    """The command is refused under `rule`, is not offered by legal(), and leaves the state as it was."""
    import pytest

    from domain.kernel import RuleViolation

    before = s
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, command, ObservedChance([]))
    assert refused.value.rule == rule, refused.value
    assert command not in GAME.legal(s)
    assert s == before


def doge(card: str) -> list[Outcome]:
    return [Outcome("draw", "deck:doge", (card,))]
