"""Ambiguity 30: an edition with two ports in one sea zone; the player names the port, one per step.

The test edition is the reference edition with Tripoli moved into the Algerian Sea, beside
Algiers. Every step that goes through "the port of the zone" is played once for each port.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from domain.kernel import ObservedChance, Outcome, RuleViolation, SeededChance, event_from_json, fold, replay
from domain.kernel.selfplay import play_random
from domain.serenissima import GAME
from domain.serenissima import commands as cm
from domain.serenissima import events as ev
from domain.serenissima.edition import SEVERAL
from domain.serenissima.state import NEUTRAL, State, replace
from tests.serenissima.board import BLUE, RED, activate, galley, play, port, rolls, types
from tests.serenissima.invariants import Ledger

_RAW = resources.files("domain.serenissima").joinpath("edition.yaml").read_bytes()
_MOVED = (b"zone: sidra,            produces: marble", b"zone: algerian,         produces: marble")
assert _RAW.count(_MOVED[0]) == 1
TWIN = GAME.load_edition(_RAW.replace(*_MOVED), "twin-ports.yaml")
ZONE = "algerian"
BOTH = ("algiers", "tripoli")
GOOD = {"algiers": "spice", "tripoli": "marble"}
GAMES_PER_COUNT = 100


def other(pid: str) -> str:
    return BOTH[1 - BOTH.index(pid)]


def twin_table(players: int = 4) -> State:
    """The twin edition past setup with an empty board, turn 1 under way."""
    s = GAME.begin(TWIN)
    s = fold(GAME, s, [ev.GameStarted(TWIN.ref, players, False), ev.FirstPlayerChosen(0), ev.DogeDeckShuffled(s.t.doge_deck)])
    return replace(s, queue=(), phase="turn", turn=1)


def refuse(s: State, c: cm.Command, rule: str) -> None:
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, c, ObservedChance([]))
    assert refused.value.rule == rule, refused.value
    assert c not in GAME.legal(s)


def trading(s: State, number: int) -> State:
    """Activate a galley for an action and play through loading and movement without moving."""
    s = activate(s, number, "action")
    s, _ = play(s, cm.EndLoading(s.act.seat))  # type: ignore[union-attr]
    s, _ = play(s, cm.EndMovement(s.act.seat))  # type: ignore[union-attr]
    return s


def test_the_edition_loads_with_two_ports_in_one_zone() -> None:
    t = GAME.begin(TWIN).t
    assert sorted(t.ports[i] for i in t.zone_ports[ZONE]) == sorted(BOTH)
    assert t.zone_port[ZONE] == SEVERAL
    assert t.zone_ports["sidra"] == () and t.zone_port["sidra"] == NEUTRAL
    reference = GAME.begin(GAME.default_edition()).t
    assert all(len(v) == 1 for z, v in reference.zone_ports.items() if z != "sardinian")


def test_unnamed_ports_keep_the_old_json() -> None:
    for c in (cm.BuyGood(BLUE), cm.MoveSailor(BLUE, 0, 4), cm.Sell(BLUE, "wood"), cm.AttackPort(BLUE), cm.ClaimPort(BLUE)):
        assert "port" not in c.to_json()
        assert GAME.parse_command(c.to_json()) == c
    named = cm.Sell(BLUE, "wood", "tripoli")
    assert named.to_json()["port"] == "tripoli"
    assert GAME.parse_command(named.to_json()) == named


@pytest.mark.parametrize("pid", BOTH)
def test_loading_goes_through_the_named_port(pid: str) -> None:
    s = twin_table()
    s = port(s, "algiers", BLUE, 2)
    s = port(s, "tripoli", BLUE, 2)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = activate(s, 4, "action")
    legal = GAME.legal(s)
    for p in BOTH:
        assert cm.BuyGood(BLUE, p) in legal
        assert cm.MoveSailor(BLUE, 0, 4, p) in legal and cm.MoveSailor(BLUE, 4, 0, p) in legal
    assert cm.BuyGood(BLUE) not in legal and cm.MoveSailor(BLUE, 0, 4) not in legal
    refuse(s, cm.BuyGood(BLUE), "serenissima/loading/name-the-port")
    refuse(s, cm.MoveSailor(BLUE, 0, 4), "serenissima/loading/name-the-port")
    refuse(s, cm.BuyGood(BLUE, "valencia"), "serenissima/loading/port-not-in-zone")
    s, events = play(s, cm.BuyGood(BLUE, pid))
    assert types(events) == ["port-named", "good-bought"]
    assert events[0] == ev.PortNamed(4, pid) and events[1].good == GOOD[pid] and events[1].price == 0
    s, events = play(s, cm.MoveSailor(BLUE, 0, 4, pid))
    assert types(events) == ["sailor-moved"]  # named once per step
    i, j = s.t.port_index[pid], s.t.port_index[other(pid)]
    assert (s.ports[i].sailors, s.ports[j].sailors) == (1, 2)
    assert s.galleys[4].goods == (GOOD[pid],) and s.galleys[4].sailors == 3  # type: ignore[union-attr]
    refuse(s, cm.BuyGood(BLUE, other(pid)), "serenissima/loading/one-port-per-step")
    refuse(s, cm.MoveSailor(BLUE, 4, 0, other(pid)), "serenissima/loading/one-port-per-step")
    legal = GAME.legal(s)
    assert cm.BuyGood(BLUE, pid) in legal and cm.BuyGood(BLUE, other(pid)) not in legal
    s, events = play(s, cm.MoveSailor(BLUE, 4, 0, pid))
    assert (s.ports[i].sailors, s.ports[j].sailors) == (2, 2)
    s, _ = play(s, cm.EndLoading(BLUE))
    assert s.act.port == NEUTRAL  # type: ignore[union-attr]


@pytest.mark.parametrize("pid", BOTH)
def test_buying_in_another_players_port_pays_the_named_ports_owner(pid: str) -> None:
    s = twin_table()
    s = port(s, pid, RED, 2)
    s = port(s, other(pid), BLUE, 2)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = activate(s, 4, "action")
    s, events = play(s, cm.BuyGood(BLUE, pid))
    assert events[-1] == ev.GoodBought(4, GOOD[pid], s.t.cube_price, RED)
    s = activate(replace(s, act=None), 4, "action")  # the galley's next activation
    s, events = play(s, cm.BuyGood(BLUE, other(pid)))
    assert events[-1] == ev.GoodBought(4, GOOD[other(pid)], 0, NEUTRAL)  # own port: the first cube is free


def test_a_galley_transfer_names_no_port() -> None:
    s = twin_table()
    s = port(s, "algiers", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = galley(s, 5, BLUE, ZONE, 2)
    s = activate(s, 4, "action")
    refuse(s, cm.MoveSailor(BLUE, 5, 4, "algiers"), "serenissima/loading/no-port-in-transfer")
    s, events = play(s, cm.MoveSailor(BLUE, 5, 4))
    assert types(events) == ["sailor-moved"]
    # sailors go to or from a port only where you hold it: Tripoli is neutral
    refuse(s, cm.MoveSailor(BLUE, 0, 4, "tripoli"), "serenissima/loading/not-your-port")


@pytest.mark.parametrize("pid", BOTH)
def test_selling_into_the_named_port(pid: str) -> None:
    s = twin_table()
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 2, ["wood", "wine"])
    s = trading(s, 4)
    legal = GAME.legal(s)
    assert {c for c in legal if isinstance(c, cm.Sell)} == {cm.Sell(BLUE, g, p) for g in ("wine", "wood") for p in BOTH}
    refuse(s, cm.Sell(BLUE, "wood"), "serenissima/sale/name-the-port")
    refuse(s, cm.Sell(BLUE, "wood", "valencia"), "serenissima/sale/port-not-in-zone")
    s, events = play(s, cm.Sell(BLUE, "wood", pid))
    assert types(events) == ["port-named", "good-sold"]
    assert events[1].port == pid and events[1].income == s.t.port_values[s.t.port_index[pid]][0]
    refuse(s, cm.Sell(BLUE, "wine", other(pid)), "serenissima/sale/one-port-per-step")
    s, events = play(s, cm.Sell(BLUE, "wine", pid))
    assert types(events) == ["good-sold"] and events[0].port == pid
    assert s.ports[s.t.port_index[pid]].warehouse == ("wood", "wine")
    assert s.ports[s.t.port_index[other(pid)]].warehouse == ()


@pytest.mark.parametrize("pid", BOTH)
def test_a_blockaded_sale_goes_to_the_named_port_after_the_waiver(pid: str) -> None:
    s = twin_table()
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 2, ["wood"])
    s = galley(s, 7, RED, ZONE, 3)
    s = trading(s, 4)
    s, events = play(s, cm.Sell(BLUE, "wood", pid))
    assert types(events) == ["port-named", "sale-announced"]
    s, events = play(s, cm.Blockade(RED, False))
    assert types(events) == ["blockade-waived", "good-sold"] and events[1].port == pid


@pytest.mark.parametrize("pid", BOTH)
def test_claiming_the_named_neutral_port(pid: str) -> None:
    s = twin_table()
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 4)
    s = galley(s, 9, RED, "marmara", 1)  # acts next, so the turn goes on after the claim
    s = trading(s, 4)
    legal = GAME.legal(s)
    assert cm.ClaimPort(BLUE, "algiers") in legal and cm.ClaimPort(BLUE, "tripoli") in legal
    refuse(s, cm.ClaimPort(BLUE), "serenissima/conquest/name-the-port")
    refuse(s, cm.ClaimPort(BLUE, "valencia"), "serenissima/conquest/port-not-in-zone")
    s, events = play(s, cm.ClaimPort(BLUE, pid))
    assert types(events) == ["port-named", "claim-announced"] and events[1].port == pid
    high = s.t.port_size[s.t.port_index[pid]]
    assert GAME.legal(s) == [cm.Unload(BLUE, k) for k in range(1, min(4, high) + 1)]
    s, events = play(s, cm.Unload(BLUE, 2))
    assert events[0] == ev.PortTaken(pid, BLUE, 2)
    assert s.ports[s.t.port_index[pid]].owner == BLUE and s.ports[s.t.port_index[other(pid)]].owner == NEUTRAL


@pytest.mark.parametrize("pid", BOTH)
@pytest.mark.parametrize("fort_at_target", [True, False])
def test_attacking_the_named_port_and_only_its_fort_fires(pid: str, fort_at_target: bool) -> None:
    s = twin_table()
    s = port(s, "valencia", RED, 3)
    s = port(s, pid, RED, 1, fort=fort_at_target)
    s = port(s, other(pid), RED, 1, fort=not fort_at_target)
    s = port(s, "genova", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 5)
    s = galley(s, 9, RED, "marmara", 1)  # acts next, so the turn goes on after the conquest
    s = trading(s, 4)
    legal = GAME.legal(s)
    assert cm.AttackPort(BLUE, "algiers") in legal and cm.AttackPort(BLUE, "tripoli") in legal
    refuse(s, cm.AttackPort(BLUE), "serenissima/battle/name-the-port")
    refuse(s, cm.AttackPort(BLUE, "genova"), "serenissima/battle/port-not-in-zone")
    fort = [Outcome("roll", "dice:fort", (4, 1))] if fort_at_target else []
    battle = rolls((4, 1, 1, 1), (1,)) if fort_at_target else rolls((4, 1, 1, 1, 1), (1,))  # the fort killed one
    s, events = play(s, cm.AttackPort(BLUE, pid), fort + battle)
    expected = ["port-named", *(["fort-fired"] if fort_at_target else []), "battle-started", "battle-round"]
    assert types(events) == expected
    started = events[-2]
    assert started.port == pid and started.value == (4 if fort_at_target else 5)
    if fort_at_target:
        assert events[1] == ev.FortFired(pid, (4, 1), 1)
    assert s.ports[s.t.port_index[pid]].sailors == 0 and s.ports[s.t.port_index[other(pid)]].sailors == 1
    s, events = play(s, cm.Unload(BLUE, 1))
    assert events[0] == ev.PortTaken(pid, BLUE, 1)


def test_the_named_port_holds_through_a_blockade_and_its_battle() -> None:
    s = twin_table()
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 2, ["wood"])
    s = galley(s, 7, RED, ZONE, 3)
    s = trading(s, 4)
    s, _ = play(s, cm.Sell(BLUE, "wood", "tripoli"))
    s, _ = play(s, cm.Blockade(RED, True))
    refuse(s, cm.ClaimPort(BLUE, "algiers"), "serenissima/conquest/one-port-per-step")
    refuse(s, cm.ClaimPort(BLUE, "tripoli"), "serenissima/blockade/fight-the-blockader")
    s, _ = play(s, cm.AttackGalley(BLUE, 7), rolls((4, 4), (1, 1, 1)))
    s, _ = play(s, cm.ContinueBattle(BLUE, True), rolls((4, 1), (1,)))
    assert s.galleys[7] is None and s.act.stage == "trade"  # type: ignore[union-attr]
    assert cm.ClaimPort(BLUE, "tripoli") in GAME.legal(s) and cm.ClaimPort(BLUE, "algiers") not in GAME.legal(s)
    s, events = play(s, cm.ClaimPort(BLUE, "tripoli"))
    assert types(events) == ["claim-announced"] and events[0].port == "tripoli"


@pytest.mark.parametrize("pid", BOTH)
def test_recruits_board_a_galley_in_a_zone_holding_any_port_of_the_player(pid: str) -> None:
    s = twin_table()
    s = port(s, pid, BLUE, 2)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = activate(s, 4, "investment")
    assert cm.RecruitGalley(BLUE, 4) in GAME.legal(s)
    s, events = play(s, cm.RecruitGalley(BLUE, 4))
    assert s.galleys[4].sailors == 3  # type: ignore[union-attr]
    s = port(s, pid, RED, 2)
    refuse(s, cm.RecruitGalley(BLUE, 4), "serenissima/investment/galley-not-in-your-port")


def test_the_port_of_a_step_is_shown_in_the_view() -> None:
    s = twin_table()
    s = port(s, "algiers", BLUE, 3)
    s = galley(s, 4, BLUE, ZONE, 2)
    s = activate(s, 4, "action")
    assert "port" not in GAME.view(s, None)["active_galley"]
    s, _ = play(s, cm.BuyGood(BLUE, "algiers"))
    assert GAME.view(s, None)["active_galley"]["port"] == "Algiers"


def test_naming_the_only_port_of_a_zone_changes_nothing() -> None:
    edition = GAME.default_edition()
    s = GAME.begin(edition)
    s = fold(GAME, s, [ev.GameStarted(edition.ref, 4, False), ev.FirstPlayerChosen(0), ev.DogeDeckShuffled(s.t.doge_deck)])
    s = replace(s, queue=(), phase="turn", turn=1)
    s = port(s, "valencia", BLUE, 3)
    s = galley(s, 4, BLUE, "balearic", 2)
    s = activate(s, 4, "action")
    assert GAME.decide(s, cm.BuyGood(BLUE, "valencia"), ObservedChance([])) == GAME.decide(s, cm.BuyGood(BLUE), ObservedChance([]))
    assert cm.BuyGood(BLUE, "valencia") not in GAME.legal(s) and cm.BuyGood(BLUE) in GAME.legal(s)
    with pytest.raises(RuleViolation) as refused:
        GAME.decide(s, cm.BuyGood(BLUE, "algiers"), ObservedChance([]))
    assert refused.value.rule == "serenissima/loading/port-not-in-zone"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_on_the_twin_edition_keep_every_invariant(players: int) -> None:
    named = 0
    for k in range(GAMES_PER_COUNT):
        options = {"players": players, "money": "hidden" if k % 2 else "visible"}
        played = play_random(GAME, TWIN, options, f"twin-{players}-{k}", check=Ledger())
        events = [e for entry in played.entries for e in entry.events]
        named += sum(1 for e in events if isinstance(e, ev.PortNamed))
        assert all(e.port in BOTH for e in events if isinstance(e, ev.PortNamed))
        stored = json.loads(json.dumps([e.to_json() for e in events]))
        assert fold(GAME, GAME.begin(TWIN), [event_from_json(obj) for obj in stored]) == played.state
        assert played.scores["finished"]
        if k < 5:
            report, state = replay(GAME, TWIN, played.entries)
            assert report.ok, report
            assert state == played.state
    assert named > 0, "no port was ever named in the shared zone"


def _probes(seat: int) -> list[cm.Command]:
    out: list[cm.Command] = []
    for p in ("", *BOTH):
        out += [cm.BuyGood(seat, p), cm.MoveSailor(seat, 0, 1, p), cm.MoveSailor(seat, 1, 0, p), cm.Sell(seat, "wood", p)]
        out += [cm.Sell(seat, "marble", p), cm.AttackPort(seat, p), cm.ClaimPort(seat, p)]
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_legal_is_exact_on_random_twin_states(players: int) -> None:
    """Every listed command is accepted; port-naming probes not listed are refused."""
    checked_in_zone = 0
    for seed in ("a", "b", "c", "d"):
        played = play_random(GAME, TWIN, {"players": players}, f"twin-exact-{players}-{seed}")
        state = fold(GAME, GAME.begin(TWIN), played.entries[0].events)
        for entry in played.entries[1:]:
            legal = GAME.legal(state)
            listed = {json.dumps(c.to_json(), sort_keys=True) for c in legal}
            for c in legal:
                GAME.decide(state, c, SeededChance("probe"))
            seat = GAME.pending(state).seat
            act = state.act
            if act is not None and state.galleys[act.galley] is not None and state.galleys[act.galley].zone == ZONE:  # type: ignore[union-attr]
                checked_in_zone += 1
            for c in _probes(seat if seat is not None else 0):
                if json.dumps(c.to_json(), sort_keys=True) in listed:
                    continue
                with pytest.raises(RuleViolation):
                    GAME.decide(state, c, ObservedChance([]))
            state = fold(GAME, state, entry.events)
    assert checked_in_zone > 0
