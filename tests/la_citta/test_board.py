"""The board generated from the edition: counts, ids, zones and distances of the reference."""

from __future__ import annotations

from collections import Counter

from domain.la_citta.edition import build_tables, tables, terrain
from domain.la_citta.rules import bits
from tests.la_citta.helpers import BEGINNER_TILES, ED


def test_counts_of_the_reference_board():
    t = tables(ED)
    assert len(t.hexes) == 174
    assert t.junctions == (1, 6, 11, 36, 41, 46, 51, 80, 85, 90, 95, 124, 129, 134, 139, 164, 169, 174)
    assert Counter(t.zone.values()) == {2: 86, 3: 44, 4: 44}
    assert Counter(t.zone[j] for j in t.junctions) == {2: 10, 3: 4, 4: 4}
    assert {lv: bin(m).count("1") for lv, m in t.allowed.items()} == {2: 86, 3: 130, 4: 174}
    touching = Counter(len(t.touches[h]) for h in t.hexes)
    assert touching == {2: 156, 0: 18}, "segment hexes touch two areas, junctions none"
    assert all(not t.touches[j] for j in t.junctions)


def test_hex_ids_and_segments_match_the_reference_table():
    t = tables(ED)
    assert t.cube[68] == (-3, 5, -2) and t.cube[73] == (-9, 10, -1) and t.cube[162] == (0, -9, 9)
    assert all(t.touches[h] == ("E02", "S04") for h in (7, 8, 9, 10))  # G02
    assert all(t.touches[h] == ("S07", "S08") for h in (75, 68, 61, 54))  # G14
    assert all(t.touches[h] == ("E06", "S22") for h in (163, 157, 151, 145))  # G37
    assert [t.zone[h] for h in (2, 37, 123, 51, 139)] == [3, 2, 4, 3, 4]


def test_each_playable_zone_set_is_connected():
    t = tables(ED)
    for mask in t.allowed.values():
        start = next(bits(mask))
        seen = 1 << start
        frontier = seen
        while frontier:
            grow = 0
            for h in bits(frontier):
                grow |= t.adj_mask[h]
            frontier = grow & mask & ~seen
            seen |= frontier
        assert seen == mask


def test_corner_cutting_around_a_junction():
    """The six ring hexes of a junction are adjacent in sequence (ambiguity 3)."""
    t = tables(ED)
    ring = t.adj[41]
    assert len(ring) == 6
    assert sum(1 for a in ring for b in ring if a < b and b in t.adj[a]) == 6
    assert 55 in t.adj[54], "L54 (G14) and L55 (G15) touch across the corner"


def test_distances_are_precomputed_once():
    """(How long building takes is the rules benchmark's to say, not a timed test's: benchmarks/.)"""
    fresh = build_tables(ED.data)
    assert tables(ED) is tables(ED), "cached per edition content hash"
    # founding: a castle needs distance >= 4; neighbours: 1-2 empty hexes between, i.e. distance 2-3
    n4 = fresh.near[4]
    steps = _bfs(fresh, 68, fresh.allowed[4])
    for h in fresh.hexes:
        assert bool(n4[68] >> h & 1) == (steps.get(h, 99) <= 3)
        assert bool(fresh.neighbour[4][68] >> h & 1) == (steps.get(h, 99) <= 3)


def _bfs(t, start, allowed):
    dist = {start: 0}
    queue = [start]
    for h in queue:
        for n in t.adj[h]:
            if allowed >> n & 1 and n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


def test_zones_restrict_paths_for_fewer_players():
    """With 2 players the lane graph has only zone-2 hexes, so paths cannot cut through zone 3."""
    t = tables(ED)
    for h in (37, 55, 86):
        d2 = _bfs(t, h, t.allowed[2])
        d4 = _bfs(t, h, t.allowed[4])
        assert all(d2[x] >= d4[x] for x in d2)
        assert bin(t.near[2][h]).count("1") <= bin(t.near[4][h]).count("1")


def test_beginner_terrain_and_food():
    t = tables(ED)
    land = terrain(ED, t, BEGINNER_TILES)
    castles = ED.data["beginner"]["castles"]
    for letter, hexes in castles.items():
        assert sum(land.food[h] for h in hexes) == 6, letter
    assert land.food[68] == 4 and land.food[73] == 2 and land.lake[73]
    assert Counter(BEGINNER_TILES.values()) == {"F1": 4, "F2": 6, "F3": 4, "M": 3, "L": 5}
