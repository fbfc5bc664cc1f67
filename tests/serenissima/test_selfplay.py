"""Random legal play: complete games with invariants after every event, replay and round trips."""

from __future__ import annotations

import json
import time

import pytest

from domain.kernel import ObservedChance, RuleViolation, SeededChance, event_from_json, fold, replay, round_trips
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from tests.serenissima.invariants import Ledger

EDITION = GAME.default_edition()
GAMES_PER_COUNT = 200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant(players: int) -> None:
    start = time.perf_counter()
    lengths = []
    for k in range(GAMES_PER_COUNT):
        options = {"players": players, "money": "hidden" if k % 2 else "visible"}
        played = play_random(GAME, EDITION, options, f"inv-{players}-{k}", check=Ledger())
        events = [e for entry in played.entries for e in entry.events]
        stored = json.loads(json.dumps([e.to_json() for e in events]))
        assert fold(GAME, GAME.begin(EDITION), [event_from_json(obj) for obj in stored]) == played.state
        scores = played.scores
        assert scores["finished"]
        assert played.state.scorings == EDITION.data["scoring"]["scorings_to_end"]
        assert sorted(scores["ranking"]) == list(range(players))
        totals = [scores["seats"][s]["total"] for s in scores["ranking"]]
        assert totals == sorted(totals, reverse=True)
        lengths.append(played.state.turn)
    elapsed = time.perf_counter() - start
    print(f"{players} players: {GAMES_PER_COUNT} games in {elapsed:.1f}s, turns {min(lengths)}-{max(lengths)}")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_logs_replay_and_round_trip(players: int) -> None:
    for k in range(5):
        played = play_random(GAME, EDITION, {"players": players}, f"rt-{players}-{k}")
        report, state = replay(GAME, EDITION, played.entries)
        assert report.ok, report
        assert state == played.state
        events = [e for entry in played.entries for e in entry.events]
        assert all(round_trips(e) for e in events)
        text = json.dumps([e.to_json() for e in events])
        again = [event_from_json(obj) for obj in json.loads(text)]
        assert fold(GAME, GAME.begin(EDITION), again) == played.state
        json.dumps(GAME.view(state, 0))
        json.dumps(GAME.view(state, None))
        json.dumps(GAME.scores(state))


def test_a_tampered_roll_is_refused() -> None:
    found = None
    for k in range(50):
        played = play_random(GAME, EDITION, {"players": 4}, f"tamper-{k}")
        found = next(((i, e) for i, e in enumerate(played.entries) if any(o.kind == "roll" for o in e.outcomes)), None)
        if found:
            break
    assert found is not None, "no battle in 50 random games"
    index, entry = found
    rolls = [o for o in entry.outcomes if o.kind == "roll"]
    entries = list(played.entries)
    bad = [type(o)(o.kind, o.source, (7,) * len(o.values)) if o is rolls[0] else o for o in entry.outcomes]
    entries[index] = type(entry)(entry.command, tuple(bad), entry.events)
    report, _ = replay(GAME, EDITION, entries)
    assert not report.ok and report.rule == "chance/roll/impossible-face"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_legal_is_exact_on_random_states(players: int, seed: str) -> None:
    """Every listed command is accepted, and sampled unlisted ones are refused, with state unchanged."""
    played = play_random(GAME, EDITION, {"players": players}, f"exact-{players}-{seed}")
    state = GAME.begin(EDITION)
    entries = played.entries
    state = fold(GAME, state, entries[0].events)
    for entry in entries[1:]:
        legal = GAME.legal(state)
        listed = {json.dumps(c.to_json(), sort_keys=True) for c in legal}
        for c in legal:
            try:
                GAME.decide(state, c, SeededChance("probe"))
            except RuleViolation as exc:  # pragma: no cover - a failure
                raise AssertionError(f"legal command refused: {c} {exc}") from exc
        seat = GAME.pending(state).seat
        for c in _probes(seat if seat is not None else 0, players):
            if json.dumps(c.to_json(), sort_keys=True) in listed:
                continue
            with pytest.raises(RuleViolation):
                GAME.decide(state, c, ObservedChance([]))
        state = fold(GAME, state, entry.events)


def _probes(seat: int, players: int) -> list:
    from domain.serenissima import commands as cm

    other = (seat + 1) % players
    return [
        cm.EndLoading(seat), cm.EndMovement(seat), cm.EndActivation(seat), cm.EndInvestment(seat),
        cm.BuyGood(seat), cm.Sail(seat, "marmara"), cm.Sail(seat, "balearic"), cm.Sell(seat, "wood"), cm.Sell(seat, "spice"),
        cm.AttackPort(seat), cm.ClaimPort(seat), cm.Unload(seat, 1), cm.Unload(seat, 6), cm.Blockade(other, True),
        cm.RecruitPort(seat, "valencia"), cm.BuyGalley(seat, 1, "valencia"), cm.BuildFort(seat, "venezia"),
        cm.MoveSailor(seat, 0, 1), cm.MoveSailor(other, 1, 0), cm.ChoosePlan(other, "action"), cm.ContinueBattle(seat, True),
    ]
