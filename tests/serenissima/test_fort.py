"""The fort fires before the combat against its port begins, so its victims lower the attacker's value.

S002: "Before the beginning of the combat against the port, the owner of the Fort rolls two
dice"; the attacker's value is "the number of sailors present on the galley minus the number of
spaces crossed", determined when the combat begins. The galleys here really sail (the spaces
crossed are counted by the rules, not set by hand) before attacking Red's fortified Algiers.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources

import pytest

from domain.kernel import ObservedChance, Outcome, RuleViolation, replay
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima import events as ev
from domain.serenissima.state import State
from tests.serenissima.board import BLACK, BLUE, RED, activate, galley, play, port, rolls, table, types
from tests.serenissima.invariants import Ledger


def fort(*faces: int) -> list[Outcome]:
    return [Outcome("roll", "dice:fort", faces)]


def at_algiers(sailors: int, route: tuple[str, ...], goods: tuple[str, ...] = (), guard: int = 0) -> State:
    """Blue's galley 4 leaves València, sails `route` to the Algerian Sea and stops; Red holds Algiers with a fort.

    With no route the galley starts in the Algerian Sea and does not move.
    """
    s = table()
    s = port(s, "valencia", BLUE, 3)
    s = port(s, "algiers", RED, 2, fort=True)
    s = port(s, "tunis", RED, 1)  # Algiers is not Red's last port
    s = galley(s, 4, BLUE, "balearic" if route else "algerian", sailors, goods)
    if guard:
        s = galley(s, 7, RED, "algerian", guard)
    s = galley(s, 15, BLACK, "cilician", 1)  # acts later, so the turn goes on
    s = activate(s, 4, "action")
    s, _ = play(s, cm.EndLoading(BLUE))
    for zone in route:
        s, _ = play(s, cm.Sail(BLUE, zone))
    s, _ = play(s, cm.EndMovement(BLUE))
    assert s.act.moves_made == len(route) and s.galleys[4].zone == "algerian"
    return s


@pytest.mark.parametrize(("faces", "kills"), [((1, 2), 0), ((6, 1), 1), ((5, 6), 2)])
def test_the_forts_victims_lower_the_attack_value_by_as_many(faces: tuple[int, int], kills: int) -> None:
    s = at_algiers(5, ("sardinian", "algerian"))  # 5 sailors, 2 spaces crossed: 3 without the fort
    dice = 5 - kills - 2
    s, events = play(s, cm.AttackPort(BLUE), fort(*faces) + rolls([1] * dice, [1, 1]))
    assert types(events) == ["fort-fired", "battle-started", "battle-round"]
    fired, started, first = events
    assert fired == ev.FortFired("algiers", faces, kills)
    assert started == ev.BattleStarted(0, "algiers", 3 - kills)
    assert len(first.attacker_rolls) == 3 - kills and len(first.defender_rolls) == 2
    assert s.galleys[4].sailors == 5 - kills and s.act.value == 3 - kills
    assert GAME.pending(s).kind == "battle"
    # later rounds keep to that value: 3 - kills dice again while the sailors last
    s, events = play(s, cm.ContinueBattle(BLUE, True), rolls([1] * dice, [1, 1]))
    assert len(events[0].attacker_rolls) == 3 - kills


def test_the_value_before_the_fort_would_be_refused_as_an_outcome() -> None:
    """Three attacker dice after a fort that killed one (the value fixed before it fired) are impossible."""
    s = at_algiers(5, ("sardinian", "algerian"))
    with pytest.raises(RuleViolation) as refused:
        play(s, cm.AttackPort(BLUE), fort(6, 1) + rolls([1, 1, 1], [1, 1]))
    assert refused.value.rule == "chance/roll/impossible-face"


def test_a_fort_that_kills_every_sailor_sinks_the_galley_before_any_combat() -> None:
    s = at_algiers(2, ("algerian",), goods=("wood",))
    supply, wood = s.supply[BLUE], s.goods[s.t.good_index["wood"]]
    s, events = play(s, cm.AttackPort(BLUE), fort(6, 6))
    assert types(events)[:2] == ["fort-fired", "activation-ended"]
    assert "battle-started" not in types(events) and "battle-round" not in types(events)
    assert events[0] == ev.FortFired("algiers", (6, 6), 2)
    assert s.galleys[4] is None and s.supply[BLUE] == supply + 2
    assert s.goods[s.t.good_index["wood"]] == wood + 1  # the sunk galley's cube goes back
    algiers = s.ports[s.t.port_index["algiers"]]
    assert algiers.owner == RED and algiers.sailors == 2 and algiers.fort
    assert s.act.galley == 15  # the wheel moved on to the next galley


def test_a_fort_that_kills_more_than_are_aboard_kills_only_those() -> None:
    s = at_algiers(1, ())  # 1 sailor, did not move: value 1 before the fort
    s, events = play(s, cm.AttackPort(BLUE), fort(4, 5))
    assert events[0] == ev.FortFired("algiers", (4, 5), 1) and s.galleys[4] is None


def test_a_fort_can_leave_the_attacker_a_value_of_zero() -> None:
    """3 sailors, 1 space crossed, 2 killed: 1 sailor minus 1 space. The first round is rolled with no attacker die."""
    s = at_algiers(3, ("algerian",))
    s, events = play(s, cm.AttackPort(BLUE), fort(6, 6) + rolls([], [1, 1]))
    assert types(events) == ["fort-fired", "battle-started", "battle-round"]
    assert events[1].value == 0 and events[2].attacker_rolls == () and events[2].defender_losses == 0
    assert s.galleys[4].sailors == 1 and GAME.pending(s).kind == "battle"
    s, events = play(s, cm.ContinueBattle(BLUE, False))
    assert types(events)[:2] == ["battle-stopped", "activation-ended"]


def test_after_a_galley_battle_the_first_value_still_caps_the_port_battle() -> None:
    """Ambiguity 10: the value set at the activation's first battle caps later ones (S002's example: "now 1").

    The guard is fought with 5 - 2 = 3; the fort then kills one of 5 sailors: 4 aboard, still 3 dice
    (not 4 - 2); only when the sailors fall below 3 do the dice follow them.
    """
    s = at_algiers(5, ("sardinian", "algerian"), guard=1)
    s, events = play(s, cm.AttackGalley(BLUE, 7), rolls([4, 1, 1], [1]))
    assert events[0].value == 3 and s.galleys[7] is None and s.galleys[4].sailors == 5
    s, events = play(s, cm.AttackPort(BLUE), fort(6, 1) + rolls([1, 1, 1], [1, 1]))
    assert types(events) == ["fort-fired", "battle-started", "battle-round"]
    assert events[1].value == 3 and len(events[2].attacker_rolls) == 3 and s.galleys[4].sailors == 4
    s, events = play(s, cm.ContinueBattle(BLUE, True), rolls([1, 1, 1], [6, 6]))
    assert s.galleys[4].sailors == 2
    s, events = play(s, cm.ContinueBattle(BLUE, True), rolls([1, 1], [1, 1]))  # now min(2 sailors, 3)
    assert len(events[0].attacker_rolls) == 2


def test_the_view_between_the_fort_and_the_battle_asks_nobody() -> None:
    s = at_algiers(5, ("sardinian", "algerian"))
    events = GAME.decide(s, cm.AttackPort(BLUE), ObservedChance(fort(6, 1) + rolls([1, 1], [1, 1])))
    s2 = GAME.evolve(s, events[0])
    assert GAME.pending(s2).seat is None and GAME.legal(s2) == []
    view = GAME.view(s2, None)["active_galley"]
    assert view["step"] == "battle opening" and view["fighting"] == "Algiers" and "first_combat_value" not in view


# --- random play with forts everywhere ----------------------------------------------------------

_RAW = resources.files("domain.serenissima").joinpath("edition.yaml").read_bytes()
_FORT = b"fort: {price: 2, requires: [wood, stone], tokens: 5, dice: 2}"
assert _RAW.count(_FORT) == 1
# Forts for nothing, on any port, one per port: random investments build them, random attacks meet them.
FORTRESSES = GAME.load_edition(_RAW.replace(_FORT, b"fort: {price: 0, requires: [], tokens: 19, dice: 2}"), "fortresses.yaml")
GAMES_PER_COUNT = 20


def test_random_games_with_forts_keep_every_invariant() -> None:
    seen: Counter[str] = Counter()
    for players in (2, 3, 4):
        for k in range(GAMES_PER_COUNT):
            played = play_random(GAME, FORTRESSES, {"players": players}, f"fort-{players}-{k}", check=Ledger())
            events = [e for entry in played.entries for e in entry.events]
            s = GAME.begin(FORTRESSES)
            for i, e in enumerate(events):
                if isinstance(e, ev.FortFired):
                    g = s.galleys[s.act.galley]
                    sailors = {"before": g.sailors, "moved": s.act.moves_made, "first": s.act.value}
                    seen["fired"] += 1
                    if e.kills:
                        seen["killed"] += 1
                    nxt = events[i + 1]
                    if isinstance(nxt, ev.BattleStarted):
                        left = sailors["before"] - e.kills
                        want = max(0, left - sailors["moved"]) if sailors["first"] < 0 else sailors["first"]
                        assert nxt.value == want, (players, k, i)
                        seen["value-zero" if want == 0 else "battle"] += 1
                    else:
                        assert e.kills == sailors["before"] and isinstance(nxt, ev.ActivationEnded)
                        seen["sunk-before-combat"] += 1
                s = GAME.evolve(s, e)
            if k % 10 == 0:
                report, state = replay(GAME, FORTRESSES, played.entries)
                assert report.ok and state == played.state, report
    # the seeds are fixed: every case of the fort was met
    print(dict(seen))
    assert seen["killed"] and seen["battle"] and seen["value-zero"] and seen["sunk-before-combat"], seen
