"""Random legal play: 200 complete games per player count with the invariants after every event,
`legal` checked to be exact on sampled states, and logs that survive JSON and replay."""

from __future__ import annotations

import json
import os

import pytest

from domain.kernel import Entry, RuleViolation, SeededChance, replay, round_trips
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from tests.la_citta.helpers import ED, fold
from tests.la_citta.invariants import check

GAMES = int(os.environ.get("LA_CITTA_GAMES", "200"))


def options(players: int, k: int) -> dict[str, object]:
    return {"players": players, "setup": "experienced" if k % 2 else "beginner", "start": k % players}


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_every_invariant(players):
    kinds: set[str] = set()
    for k in range(GAMES):
        played = play_random(GAME, ED, options(players, k), f"inv-{players}-{k}", check=check)
        assert played.scores["finished"] and played.state.year == 6 and played.state.phase == "over"
        assert len(played.scores["ranking"]) == players
        kinds.update(e.command["type"] for e in played.entries[1:])
    assert {"la-citta/build", "la-citta/found-city", "la-citta/attract", "la-citta/blind-draw"} <= kinds


def _mutations(s, legal):
    """Commands close to the legal ones: other hexes, cities, options. decide must refuse exactly those not listed."""
    seat = rules.pending_of(s).seat
    hexes = (1, 7, 41, 68, 75, 86, 98, 132, 158, 174)
    out = [cm.TakeGold(seat), cm.BlindDraw(seat)]
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


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_legal_is_exact_on_random_states(players):
    """Every listed command is accepted; every nearby command that is refused is not listed."""
    for k in range(6):
        played = play_random(GAME, ED, options(players, k), f"legal-{players}-{k}")
        state = GAME.begin(ED)
        for i, entry in enumerate(played.entries):
            if i and i % 5 == 0:
                legal = list(GAME.legal(state))
                listed = set(legal)
                before = (dict(state.cities), {k: c for k, c in state.links.items()}, GAME.view(state, None))
                for c in legal:
                    GAME.decide(state, c, SeededChance(f"ok-{i}"))
                for c in _mutations(state, legal):
                    try:
                        GAME.decide(state, c, SeededChance(f"try-{i}"))
                    except RuleViolation:
                        assert c not in listed, c
                    else:
                        assert c in listed, f"accepted but not listed: {c}"
                assert (dict(state.cities), dict(state.links), GAME.view(state, None)) == before, "decide never mutates"
            state = fold(state, entry.events)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_logs_survive_json_and_replay_to_the_same_state(players):
    for k in range(4):
        played = play_random(GAME, ED, options(players, k), f"json-{players}-{k}")
        events = [e for entry in played.entries for e in entry.events]
        assert all(round_trips(e) for e in events)
        text = json.dumps([entry.to_json() for entry in played.entries])
        entries = [Entry.from_json(obj) for obj in json.loads(text)]
        report, state = replay(GAME, ED, entries)
        assert report.ok, report
        assert report.events == len(events)
        assert state == played.state, "re-deciding the log gives the identical state"
        assert fold(GAME.begin(ED), [e for entry in entries for e in entry.events]) == played.state
        assert GAME.scores(state) == played.scores


def test_a_tampered_log_is_caught():
    played = play_random(GAME, ED, {"players": 3}, "tamper")
    entries = list(played.entries)
    for i, entry in enumerate(entries):
        if entry.command and entry.command["type"] == "la-citta/build":
            cmd = dict(entry.command)
            cmd["hex"] = 1  # a hex far from any city
            entries[i] = Entry(cmd, entry.outcomes, entry.events)
            break
    report, _ = replay(GAME, ED, entries)
    assert not report.ok and report.rule.startswith("la-citta/") and report.entry_index == i
