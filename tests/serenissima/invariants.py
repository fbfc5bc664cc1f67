"""Invariants checked after every event of random play, computed independently of the fold where possible."""

from __future__ import annotations

from collections import Counter

from domain.kernel import Event
from domain.serenissima import events as ev
from domain.serenissima.state import NEUTRAL, State


class Ledger:
    """Ducats per seat, re-derived from the events alone; compared with the folded state."""

    def __init__(self) -> None:
        self.money: list[int] = []
        self.bank = 0

    def __call__(self, s: State, e: Event) -> None:
        if isinstance(e, ev.GameStarted):
            self.money = [s.t.start_ducats] * e.players
        elif isinstance(e, ev.GoodBought):
            g = s.galleys[e.galley]
            assert g is not None
            self.money[g.owner] -= e.price
            if e.paid_to == NEUTRAL:
                self.bank += e.price
            else:
                self.money[e.paid_to] += e.price
        elif isinstance(e, ev.GoodSold):
            self.money[s.act.seat] += e.income  # type: ignore[union-attr]
            self.bank -= e.income
        elif isinstance(e, (ev.SailorRecruited, ev.GalleyBought, ev.FortBuilt, ev.BasilicaBuilt)):
            self.money[e.seat] -= e.price
            self.bank += e.price
        elif isinstance(e, (ev.WinePaid, ev.Scored)):
            for seat, a in enumerate(e.amounts):
                self.money[seat] += a
                self.bank -= a
        check(s)
        assert list(s.money) == self.money, (e, s.money, self.money)
        assert sum(s.money) + self.bank == s.t.start_ducats * s.players


def check(s: State, keep_port: bool = True) -> None:
    t = s.t
    if not s.players:
        return
    # sailors: box + recruitable supply + ports + galleys, per colour
    for seat in range(s.players):
        on_ports = sum(p.sailors for p in s.ports if p.owner == seat)
        afloat = sum(g.sailors for g in s.galleys if g is not None and g.owner == seat)
        assert s.boxed[seat] + s.supply[seat] + on_ports + afloat == t.colour_sailors, ("sailors", seat)
        assert s.supply[seat] >= 0
        assert s.money[seat] >= 0
        if keep_port and s.phase != "setup":
            assert any(p.owner == seat for p in s.ports), ("a player always keeps a port", seat)
    # goods cubes
    counted = Counter([c for g in s.galleys if g is not None for c in g.goods] + [c for p in s.ports for c in p.warehouse]
                      + list(s.act.loot if s.act is not None else ()))
    for i, g in enumerate(t.goods):
        counted[g] += s.goods[i]
    assert dict(counted) == {g: t.good_cubes[g] for g in t.goods if counted[g] or t.good_cubes[g]}, counted
    assert all(n >= 0 for n in s.goods)
    # galleys
    for g in s.galleys:
        if g is not None:
            assert 1 <= g.sailors <= t.galley_max_sailors, g
            assert g.load <= t.galley_spaces, g
    per_owner = Counter(g.owner for g in s.galleys if g is not None)
    assert all(n <= t.max_galleys for n in per_owner.values())
    # ports and warehouses
    for i, p in enumerate(s.ports):
        assert len(set(p.warehouse)) == len(p.warehouse), p
        assert t.port_good[i] not in p.warehouse, p
        assert len(p.warehouse) <= t.port_size[i]
        assert 0 <= p.sailors <= t.port_size[i]
        assert (p.owner == NEUTRAL) == (p.sailors == 0), p
        if p.closed:
            assert p.owner == NEUTRAL and not p.warehouse
    assert sum(p.fort for p in s.ports) <= t.fort_tokens
    assert sum(p.basilica for p in s.ports) <= t.basilica_tokens
