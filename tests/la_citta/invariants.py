"""Invariants checked after every event of random play.

The cities' own invariants depend on the cities, the board and the phase only, and most events change none of them
(a turn ended, gold paid, a poll drawn): those checks are skipped when every input is the very object checked last
(states are immutable), so 200 games a player count cost a fraction of what they did.
"""

from __future__ import annotations

from typing import Any

from domain.la_citta.rules import bits, connected
from domain.la_citta.state import State, food_of


def check(s: State, e: Any = None) -> None:
    if s.players == 0:
        return
    d = s.edition.data
    on_board = sum(c.citizens for c in s.cities.values())
    assert s.supply + on_board == int(d["start"]["citizen_supply"]), ("citizens", e)
    used = [0] * len(s.t.pools)
    for c in s.cities.values():
        for _, kind in c.buildings:
            used[s.t.pool_of[kind]] += 1
    for p, size in enumerate(s.t.pool_size):
        assert s.stock[p] >= 0 and s.stock[p] + used[p] == size, ("twin stack", s.t.pools[p], e)
    for seat in range(s.players):
        owned = sum(1 for c in s.cities.values() if c.owner == seat)
        assert s.castles_left[seat] + owned == int(d["start"]["castles_per_player"]), ("castles", seat, e)
        if s.land is not None:
            assert s.food[seat] == food_of(s, seat), ("food tokens", seat, s.food[seat], food_of(s, seat), e)
        assert s.gold[seat] >= 0, ("gold", seat)
        assert 0 <= s.figures[seat] <= int(d["year"]["coloured_figures"]), ("figures", seat)
    global _CHECKED
    inputs = (s.cities, s.occupied, s.zone, s.phase, s.t)
    if _CHECKED is not None and all(a is b for a, b in zip(inputs, _CHECKED, strict=True)):
        return
    _cities(s, e)
    _CHECKED = inputs


_CHECKED: tuple[Any, ...] | None = None  # the inputs of the cities' checks last passed


def _cities(s: State, e: Any) -> None:
    occupied = 0
    for k, c in s.cities.items():
        seen = _CITY_CHECKED.get(k)
        if seen is None or not all(a is b for a, b in zip(seen, (c, s.zone, s.phase, s.t), strict=True)):
            _city(s, k, c, e)  # a city unchanged since it passed, on the same zone in the same phase, passes again
            _CITY_CHECKED[k] = (c, s.zone, s.phase, s.t)
        assert c.mask & occupied == 0  # no two cities share a hex (so the city found on each of a city's hexes is it)
        occupied |= c.mask
    assert occupied == s.occupied
    for k, c in s.cities.items():
        near = 0
        for h in bits(c.mask):
            near |= s.t.adj_mask[h]
        assert not near & (occupied & ~c.mask), ("cities separated by an empty lane hex", k, e)


_CITY_CHECKED: dict[int, tuple[Any, ...]] = {}  # each castle's city as last checked, with the zone, phase and tables


def _city(s: State, k: int, c: Any, e: Any) -> None:
    """What one city keeps by itself: its hexes, its mask, connected, inside the zone, every building occupied."""
    assert c.castle == k
    assert c.citizens >= 0
    hexes = {c.castle} | {h for h, _ in c.buildings}
    assert len(hexes) == 1 + len(c.buildings)
    assert c.mask == sum(1 << h for h in hexes)
    assert connected(s, c.mask, c.castle), ("city connected", k, e)
    assert c.mask & s.t.allowed[s.zone] == c.mask, ("zone", k)
    if s.phase in ("castles", "politics", "tally", "over"):
        assert c.citizens >= 1 + len(c.buildings), ("every building occupied", k, s.phase, e)
    assert sum(1 for _, kind in c.buildings if kind == "market_place") <= 1
