"""The rules: whose decision it is, which commands are legal, and the events each one causes.

Every command is checked by a validator that never touches chance, so `legal` can list
exactly the commands `decide` accepts by running the same validators over candidates.
After a command, `_advance` plays the automatic parts of the game (the black token moving
to the next galley, the Doge card, scoring) as events of that same command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import AUTOMATIC, GAME_OVER, Chance, Command, Event, Pending, RuleViolation, Secret, load_options
from domain.kernel import pending as _pending
from domain.serenissima import commands as cm
from domain.serenissima import events as ev
from domain.serenissima.edition import SEVERAL
from domain.serenissima.fold import evolve
from domain.serenissima.scoring import galleys_of, ports_of, ranking, scoring
from domain.serenissima.state import NEUTRAL, Activation, Galley, State

# --- reading the board -------------------------------------------------------------------


def active(s: State) -> tuple[Activation, Galley]:
    act = s.act
    assert act is not None
    g = s.galleys[act.galley]
    assert g is not None
    return act, g


def current_port(s: State, act: Activation, zone: str) -> int:
    """The port this step deals with: the one named earlier in the step, else the zone's only port."""
    return act.port if act.port != NEUTRAL else s.t.zone_port[zone]


def own_galleys_in(s: State, seat: int, zone: str) -> list[int]:
    return [n for n, g in enumerate(s.galleys) if g is not None and g.owner == seat and g.zone == zone]


def sailors_afloat(s: State, seat: int, zone: str) -> int:
    return sum(g.sailors for g in s.galleys if g is not None and g.owner == seat and g.zone == zone)


def has_room(s: State, g: Galley, sailor: bool) -> bool:
    if sailor and g.sailors >= s.t.galley_max_sailors:
        return False
    return g.load < s.t.galley_spaces


def blockaders(s: State, zone: str, seat: int, sailors: int) -> tuple[int, ...]:
    """Players who may blockade, in the order they decide: most galley sailors first, then lowest galley number."""
    afloat: dict[int, int] = {}
    lowest: dict[int, int] = {}
    for n, g in enumerate(s.galleys):  # one pass, by galley number: the first galley met is the lowest
        if g is not None and g.zone == zone and g.owner != seat:
            afloat[g.owner] = afloat.get(g.owner, 0) + g.sailors
            lowest.setdefault(g.owner, n)
    found = sorted((-total, lowest[other], other) for other, total in afloat.items() if total > sailors)
    return tuple(x[2] for x in found)


def combat_value(act: Activation, g: Galley) -> int:
    """Sailors minus zones moved at the first battle; afterwards never above that first value."""
    if act.value < 0:
        return max(0, g.sailors - act.moves_made)
    return min(g.sailors, act.value)


def blocker_present(s: State, act: Activation, zone: str) -> bool:
    return act.blocker != NEUTRAL and any(g is not None and g.owner == act.blocker and g.zone == zone for g in s.galleys)


def wine_side(s: State, i: int) -> bool:
    return s.t.port_good[i] == s.t.wine or s.t.wine in s.ports[i].warehouse


def port_has(s: State, i: int, good: str) -> bool:
    return s.t.port_good[i] == good or good in s.ports[i].warehouse


# --- whose decision ------------------------------------------------------------------------

_SETTLING = frozenset({"opening", "ending"})

STAGE_KIND = {
    "plan": "plan",
    "loading": "loading",
    "movement": "movement",
    "blockade": "blockade",
    "trade": "sale-or-battle",
    "battle": "battle",
    "capture": "capture",
    "unload": "unload",
    "investment": "investment",
}


def who(s: State) -> tuple[int | None, str]:
    """(seat, kind) of the pending decision: cheap, used by every command.

    Between the events of one command nobody is asked: no one queued, no galley active,
    a battle opened but not yet rolled, an activation ending, or the active galley sunk
    (only its wreck's capture is still a decision).
    """
    if s.phase == "over":
        return None, GAME_OVER
    if s.phase == "setup":
        if not s.queue:
            return None, AUTOMATIC
        seat = s.queue[0]
        return seat, "choose-galley" if ports_of(s, seat) else "choose-start"
    if s.phase == "special":
        return (s.queue[0], "special-investment") if s.queue else (None, AUTOMATIC)
    act = s.act
    if act is None or act.stage in _SETTLING:
        return None, AUTOMATIC
    if act.stage == "capture":
        g = s.galleys[act.capturer]
        assert g is not None
        return g.owner, "capture"
    if s.galleys[act.galley] is None:
        return None, AUTOMATIC
    if act.stage == "blockade":
        return act.asked[0], "blockade"
    return act.seat, STAGE_KIND[act.stage]


KIND_COMMANDS: dict[str, tuple[type[Command], ...]] = {
    "choose-start": (cm.ChooseStart,),
    "choose-galley": (cm.ChooseGalley,),
    "plan": (cm.ChoosePlan,),
    "loading": (cm.MoveSailor, cm.BuyGood, cm.ShiftGood, cm.TossGood, cm.EndLoading),
    "movement": (cm.Sail, cm.EndMovement),
    "blockade": (cm.Blockade,),
    "sale-or-battle": (cm.Sell, cm.AttackGalley, cm.AttackPort, cm.ClaimPort, cm.EndActivation),
    "battle": (cm.ContinueBattle,),
    "capture": (cm.Capture, cm.TossGood, cm.EndCapture),
    "unload": (cm.Unload,),
    "investment": (cm.RecruitPort, cm.RecruitGalley, cm.BuyGalley, cm.BuildFort, cm.BuildBasilica, cm.EndInvestment),
    "special-investment": (cm.RecruitPort, cm.RecruitGalley, cm.BuyGalley, cm.EndInvestment),
}


def _check_turn(s: State, c: Command) -> str:
    seat, kind = who(s)
    if kind == GAME_OVER:
        raise RuleViolation("serenissima/game-over", "the game is over")
    if isinstance(c, cm.Blockade) and (kind != "blockade" or seat != c.seat):
        act = s.act
        if act is not None and act.stage in ("movement", "trade", "blockade") and 0 <= c.seat < s.players and c.seat != act.seat:
            g = s.galleys[act.galley]
            afloat = sailors_afloat(s, c.seat, g.zone) if g else 0
            if g is None or afloat <= g.sailors:
                raise RuleViolation(
                    "serenissima/blockade/not-enough-sailors",
                    "only a player with more sailors on galleys in the zone than the active galley carries may blockade",
                    seat=c.seat,
                    sailors_on_galleys=afloat,
                    active_galley_sailors=g.sailors if g else 0,
                )
        raise RuleViolation("serenissima/blockade/not-asked", "no blockade decision is asked of this seat now", seat=c.seat, pending=kind)
    if c.seat != seat:
        raise RuleViolation("serenissima/turn/not-your-decision", f"seat {seat} must decide ({kind})", seat=c.seat, pending_seat=seat, pending=kind)
    if type(c) not in KIND_COMMANDS.get(kind, ()):
        raise RuleViolation("serenissima/turn/wrong-step", f"{c.kind} is not a choice during {kind}", command=c.kind, pending=kind)
    return kind


# --- validators: raise RuleViolation, never touch chance ---------------------------------------


def _no(rule: str, message: str, **facts: Any) -> RuleViolation:
    return RuleViolation("serenissima/" + rule, message, **facts)


def _ducats(s: State, seat: int) -> Any:
    """A seat's ducats as a violation's fact: with hidden money, only that seat reads them (as in its view)."""
    return Secret(s.money[seat], seat) if s.hidden_money and s.phase != "over" else s.money[seat]


def step_port(s: State, act: Activation, zone: str, named: str, area: str) -> int:
    """The port a command goes through (ambiguity 30).

    Where the zone has one port (or none) the command may leave it unnamed, as on the
    reference map. Where it has several the player names one, and the whole step keeps
    to the port named first.
    """
    t = s.t
    only = t.zone_port[zone]
    if not named and only != SEVERAL:
        return only
    here = t.zone_ports[zone]
    if not named:
        raise _no(f"{area}/name-the-port", "this zone has several ports: name the one this step deals with", zone=zone, ports=[t.ports[k] for k in here])
    i = t.port_index.get(named, NEUTRAL)
    if i not in here:
        raise _no(f"{area}/port-not-in-zone", f"{named} is not a port of this zone", port=named, zone=zone, ports=[t.ports[k] for k in here])
    if act.port != NEUTRAL and i != act.port:
        raise _no(f"{area}/one-port-per-step", "a step deals with one port only", port=named, step_port=t.ports[act.port])
    return i


def _naming(s: State, act: Activation, zone: str, port: int) -> list[Event]:
    """The port-named event, once per step and only where the zone has several ports."""
    if act.port == NEUTRAL and s.t.zone_port[zone] == SEVERAL:
        return [ev.PortNamed(act.galley, s.t.ports[port])]
    return []


def _v_choose_start(s: State, c: cm.ChooseStart) -> None:
    i = s.t.port_index.get(c.port)
    if i is None or not s.t.port_starting[i] or s.ports[i].owner != NEUTRAL:
        raise _no("setup/starting-port", f"{c.port} is not a free starting port", port=c.port)
    _v_free_number(s, c.galley, "setup/galley-taken")


def _v_free_number(s: State, n: int, rule: str) -> None:
    if not 1 <= n <= s.galleys_in_play or s.galleys[n] is not None:
        raise _no(rule, f"galley {n} is not free", galley=n, in_play=[k for k, g in enumerate(s.galleys) if g is not None])


def _v_choose_galley(s: State, c: cm.ChooseGalley) -> None:
    _v_free_number(s, c.galley, "setup/galley-taken")


def _v_plan(s: State, c: cm.ChoosePlan) -> None:
    if c.plan not in ("action", "investment"):
        raise _no("turn/plan", "choose action or investment", plan=c.plan)


def _v_move_sailor(s: State, c: cm.MoveSailor) -> None:
    act, g = active(s)
    if (c.source == act.galley) == (c.target == act.galley):
        raise _no("loading/active-galley", "every sailor transfer has the active galley at one end", source=c.source, target=c.target)
    other = c.target if c.source == act.galley else c.source
    port = NEUTRAL
    if other == 0:
        port = step_port(s, act, g.zone, c.port, "loading")
        if port == NEUTRAL or s.ports[port].owner != act.seat:
            raise _no("loading/not-your-port", "sailors go to or from a port only where you hold it", zone=g.zone)
    else:
        if c.port:
            raise _no("loading/no-port-in-transfer", "a transfer between galleys goes through no port", port=c.port)
        o = s.galleys[other] if 0 < other < len(s.galleys) else None
        if o is None or o.owner != act.seat or o.zone != g.zone:
            raise _no("loading/not-your-galley", f"galley {other} is not yours in this zone", galley=other)
    if c.source == 0 and s.ports[port].sailors <= 1:
        raise _no("loading/port-must-keep-sailor", "a port must keep at least 1 sailor", port=s.t.ports[port], sailors=s.ports[port].sailors)
    if c.target == 0:
        if s.ports[port].sailors >= s.t.port_size[port]:
            raise _no("loading/port-full", "a port holds no more sailors than its warehouse has spaces", port=s.t.ports[port], capacity=s.t.port_size[port])
    else:
        t = s.galleys[c.target]
        assert t is not None
        if not has_room(s, t, sailor=True):
            raise _no("loading/galley-full", "a galley holds at most 5 pieces and 5 sailors", galley=c.target, sailors=t.sailors, goods=list(t.goods))


def _cube_price(s: State, act: Activation, port: int) -> tuple[int, int]:
    """(price, payee): the first cube in your own port is free, else 1 to the bank or to the port's owner."""
    owner = s.ports[port].owner
    if owner == act.seat:
        return (0 if act.free_cubes < s.t.free_cubes else s.t.cube_price), NEUTRAL
    return s.t.cube_price, owner


def _v_buy_good(s: State, c: cm.BuyGood) -> None:
    act, g = active(s)
    port = step_port(s, act, g.zone, c.port, "loading")
    if port == NEUTRAL:
        raise _no("loading/no-port", "there is no port in this zone", zone=g.zone)
    if s.ports[port].closed:
        raise _no("loading/port-closed", "no commerce takes place in a closed port", port=s.t.ports[port])
    good = s.t.port_good[port]
    if s.goods[s.t.good_index[good]] <= 0:
        raise _no("loading/supply-empty", f"no {good} cube is left in the supply", good=good)
    if not has_room(s, g, sailor=False):
        raise _no("loading/galley-full", "a galley holds at most 5 pieces", galley=act.galley, sailors=g.sailors, goods=list(g.goods))
    price, payee = _cube_price(s, act, port)
    if s.money[act.seat] < price:
        owed = "the bank" if payee == NEUTRAL else f"seat {payee}, the owner of {s.t.ports[port]}"
        raise _no("loading/cannot-pay", f"the {good} cube costs {price} ducat{'s' if price != 1 else ''}, owed to {owed}",
                  price=price, ducats=_ducats(s, act.seat), payee=None if payee == NEUTRAL else payee)


def _v_shift_good(s: State, c: cm.ShiftGood) -> None:
    act, g = active(s)
    if (c.source == act.galley) == (c.target == act.galley):
        raise _no("loading/active-galley", "every goods transfer has the active galley at one end", source=c.source, target=c.target)
    other = c.target if c.source == act.galley else c.source
    o = s.galleys[other] if 0 < other < len(s.galleys) else None
    if o is None or o.owner != act.seat or o.zone != g.zone:
        raise _no("loading/not-your-galley", f"galley {other} is not yours in this zone", galley=other)
    src, dst = (g, o) if c.source == act.galley else (o, g)
    if c.good not in src.goods:
        raise _no("loading/no-such-good", f"no {c.good} aboard galley {c.source}", good=c.good, goods=list(src.goods))
    if not has_room(s, dst, sailor=False):
        raise _no("loading/galley-full", "a galley holds at most 5 pieces", galley=c.target, goods=list(dst.goods))


def _v_toss(s: State, c: cm.TossGood) -> None:
    act = s.act
    assert act is not None
    if act.stage == "capture" and not act.loot:
        raise _no("capture/nothing-to-capture", "goods are thrown overboard here only to make room for the wreck's goods")
    g = s.galleys[act.capturer if act.stage == "capture" else act.galley]
    assert g is not None
    if c.good not in g.goods:
        raise _no("loading/no-such-good", f"no {c.good} aboard", good=c.good, goods=list(g.goods))


def _v_sail(s: State, c: cm.Sail) -> None:
    act, g = active(s)
    if act.moves_left <= 0:
        raise _no("movement/no-moves-left", "a galley moves one zone per sailor aboard", moves_made=act.moves_made, sailors=g.sailors)
    if c.zone not in s.t.neighbours[g.zone]:
        raise _no("movement/not-adjacent", f"{c.zone} is not next to {g.zone}", zone=c.zone, neighbours=list(s.t.neighbours[g.zone]))


def _v_true(s: State, c: Command) -> None:
    return None


def _trade_port(s: State, act: Activation, g: Galley, named: str, area: str) -> int:
    port = step_port(s, act, g.zone, named, area)
    if port == NEUTRAL:
        raise _no(f"{area}/no-port", "there is no port in this zone", zone=g.zone)
    if s.ports[port].closed:
        raise _no(f"{area}/port-closed", "no commerce or conquest in a closed port", port=s.t.ports[port])
    return port


def _v_sell(s: State, c: cm.Sell) -> None:
    act, g = active(s)
    if act.mode == "battle":
        raise _no("sale/after-battle", "step 3 is a sale or a battle, not both; a blockaded sale is never resumed")
    port = _trade_port(s, act, g, c.port, "sale")
    if c.good not in g.goods:
        raise _no("sale/not-aboard", f"no {c.good} aboard", good=c.good, goods=list(g.goods))
    if c.good == s.t.port_good[port]:
        raise _no("sale/produced-here", f"{s.t.ports[port]} produces {c.good}", good=c.good, port=s.t.ports[port])
    p = s.ports[port]
    if c.good in p.warehouse:
        raise _no("sale/already-held", f"{s.t.ports[port]} already holds {c.good}", good=c.good, warehouse=list(p.warehouse))
    if len(p.warehouse) >= s.t.port_size[port]:
        raise _no("sale/warehouse-full", "the warehouse has no free space", warehouse=list(p.warehouse))


def _v_fight(s: State, act: Activation, g: Galley) -> None:
    if act.mode == "sale":
        raise _no("battle/after-sale", "step 3 is a sale or a battle, not both")
    if combat_value(act, g) < 1:
        raise _no("battle/no-combat-value", "an attack needs a combat value of at least 1", sailors=g.sailors, moves_made=act.moves_made, first_value=act.value)


def _v_attack_galley(s: State, c: cm.AttackGalley) -> None:
    act, g = active(s)
    if act.mode == "sale":
        raise _no("battle/after-sale", "step 3 is a sale or a battle, not both")
    foe = s.galleys[c.galley] if 0 < c.galley < len(s.galleys) else None
    if foe is None or foe.zone != g.zone or foe.owner == act.seat:
        raise _no("battle/no-such-target", f"galley {c.galley} is not another player's galley in this zone", galley=c.galley)
    if blocker_present(s, act, g.zone) and foe.owner != act.blocker:
        raise _no("blockade/fight-the-blockader", f"after a blockade only the blockader's galleys may be fought: seat {act.blocker}'s, "
                  f"not seat {foe.owner}'s", blocker=act.blocker, target_owner=foe.owner)
    _v_fight(s, act, g)


def _v_attack_port(s: State, c: cm.AttackPort) -> None:
    act, g = active(s)
    if act.mode == "sale":
        raise _no("battle/after-sale", "step 3 is a sale or a battle, not both")
    port = _trade_port(s, act, g, c.port, "battle")
    owner = s.ports[port].owner
    if owner == NEUTRAL or owner == act.seat:
        raise _no("battle/not-an-enemy-port", "only another player's port is attacked; a neutral port is claimed", port=s.t.ports[port], owner=owner)
    if blocker_present(s, act, g.zone):
        raise _no("blockade/fight-the-blockader", f"after a blockade only the blockader's galleys may be fought: seat {act.blocker}'s",
                  blocker=act.blocker)
    if ports_of(s, owner) <= 1:
        raise _no("battle/last-port", f"a player's last port cannot be attacked: {s.t.ports[port]} is seat {owner}'s last",
                  port=s.t.ports[port], owner=owner)
    guards = own_galleys_in(s, owner, g.zone)
    if guards:
        raise _no("battle/galleys-first", f"the port owner's galleys in the zone must be sunk first: seat {owner}'s galley"
                  f"{'s' if len(guards) != 1 else ''} {' and '.join(map(str, guards))}", galleys=guards, owner=owner)
    _v_fight(s, act, g)


def _v_claim(s: State, c: cm.ClaimPort) -> None:
    act, g = active(s)
    if act.mode == "sale":
        raise _no("conquest/after-sale", "step 3 is a sale or a battle, not both")
    port = _trade_port(s, act, g, c.port, "conquest")
    if s.ports[port].owner != NEUTRAL:
        raise _no("conquest/not-neutral", "only a neutral port is claimed by unloading", port=s.t.ports[port], owner=s.ports[port].owner)
    if blocker_present(s, act, g.zone):
        raise _no("blockade/fight-the-blockader", f"the blockader's galleys must be fought first: seat {act.blocker}'s", blocker=act.blocker)


def _v_capture(s: State, c: cm.Capture) -> None:
    act = s.act
    assert act is not None
    cap = s.galleys[act.capturer]
    assert cap is not None
    if c.good not in act.loot:
        raise _no("capture/not-in-wreck", f"no {c.good} in the sunk galley", good=c.good, wreck=list(act.loot))
    if not has_room(s, cap, sailor=False):
        raise _no("capture/no-room", "goods are claimed only into free space", goods=list(cap.goods), sailors=cap.sailors)


def unload_range(s: State) -> tuple[int, int]:
    act, g = active(s)
    port = current_port(s, act, g.zone)
    return act.unload_min, min(g.sailors, s.t.port_size[port])


def _v_unload(s: State, c: cm.Unload) -> None:
    low, high = unload_range(s)
    if not low <= c.sailors <= high:
        raise _no("conquest/unload-count", f"unload between {low} and {high} sailors", sailors=c.sailors, low=low, high=high)


def _pay(s: State, seat: int, price: int) -> None:
    if s.money[seat] < price:
        raise _no("investment/cannot-pay", f"that costs {price} ducat{'s' if price != 1 else ''}, owed to the bank", price=price,
                  ducats=_ducats(s, seat))


def _v_sailor_left(s: State, seat: int) -> None:
    if s.supply[seat] <= 0:
        raise _no("investment/no-sailors-left", "no sailor of your colour is left to recruit", seat=seat)


def _own_port(s: State, seat: int, pid: str) -> int:
    i = s.t.port_index.get(pid)
    if i is None or s.ports[i].owner != seat:
        raise _no("investment/not-your-port", f"{pid} is not your port", port=pid)
    return i


def _v_recruit_port(s: State, c: cm.RecruitPort) -> None:
    i = _own_port(s, c.seat, c.port)
    if s.ports[i].sailors >= s.t.port_size[i]:
        raise _no("investment/port-full", f"{c.port} holds at most {s.t.port_size[i]} sailors", port=c.port, capacity=s.t.port_size[i])
    _v_sailor_left(s, c.seat)
    _pay(s, c.seat, s.t.sailor_price)


def _v_recruit_galley(s: State, c: cm.RecruitGalley) -> None:
    g = s.galleys[c.galley] if 0 < c.galley < len(s.galleys) else None
    if g is None or g.owner != c.seat:
        raise _no("investment/not-your-galley", f"galley {c.galley} is not yours", galley=c.galley)
    if not any(s.ports[i].owner == c.seat for i in s.t.zone_ports[g.zone]):
        raise _no("investment/galley-not-in-your-port", "recruits board only galleys stationed in your own ports", galley=c.galley, zone=g.zone)
    if not has_room(s, g, sailor=True):
        raise _no("investment/galley-full", "a galley holds at most 5 pieces and 5 sailors", galley=c.galley, sailors=g.sailors, goods=list(g.goods))
    _v_sailor_left(s, c.seat)
    _pay(s, c.seat, s.t.sailor_price)


def galley_price(s: State, seat: int) -> int:
    """The galley (1 per galley owned) plus the sailor it must carry from the start."""
    return s.t.galley_price * galleys_of(s, seat) + s.t.sailor_price


def _v_buy_galley(s: State, c: cm.BuyGalley) -> None:
    owned = galleys_of(s, c.seat)
    if s.phase == "special":
        if owned >= s.t.special_galleys:
            raise _no("investment/enough-galleys", f"the special investment only tops a fleet up to {s.t.special_galleys} galleys", galleys=owned)
    elif s.act is not None and s.act.bought_galley:
        raise _no("investment/one-galley", "only one galley may be bought per investment")
    if owned >= s.t.max_galleys:
        raise _no("investment/galley-limit", f"a player has at most {s.t.max_galleys} galleys", galleys=owned)
    _v_free_number(s, c.galley, "investment/galley-number")
    _own_port(s, c.seat, c.port)
    _v_sailor_left(s, c.seat)
    _pay(s, c.seat, galley_price(s, c.seat))


def _v_build(s: State, seat: int, pid: str, what: str) -> int:
    i = _own_port(s, seat, pid)
    t = s.t
    built = [p.fort if what == "fort" else p.basilica for p in s.ports]
    if built[i]:
        raise _no(f"investment/one-{what}", f"a port holds only one {what}", port=pid)
    if sum(built) >= (t.fort_tokens if what == "fort" else t.basilica_tokens):
        raise _no(f"investment/no-{what}-tokens", f"every {what} token is on the board")
    needs = t.fort_requires if what == "fort" else t.basilica_requires
    missing = [g for g in needs if not port_has(s, i, g)]
    if missing:
        raise _no(
            f"investment/{what}-needs-goods",
            f"a {what} needs {' and '.join(needs)} produced in or delivered to the port",
            port=pid,
            missing=missing,
            produces=t.port_good[i],
            warehouse=list(s.ports[i].warehouse),
        )
    _pay(s, seat, t.fort_price if what == "fort" else t.basilica_price)
    return i


def _v_fort(s: State, c: cm.BuildFort) -> None:
    _v_build(s, c.seat, c.port, "fort")


def _v_basilica(s: State, c: cm.BuildBasilica) -> None:
    _v_build(s, c.seat, c.port, "basilica")


VALIDATORS: dict[type[Command], Callable[[State, Any], None]] = {
    cm.ChooseStart: _v_choose_start,
    cm.ChooseGalley: _v_choose_galley,
    cm.ChoosePlan: _v_plan,
    cm.MoveSailor: _v_move_sailor,
    cm.BuyGood: _v_buy_good,
    cm.ShiftGood: _v_shift_good,
    cm.TossGood: _v_toss,
    cm.EndLoading: _v_true,
    cm.Sail: _v_sail,
    cm.EndMovement: _v_true,
    cm.Blockade: _v_true,
    cm.Sell: _v_sell,
    cm.AttackGalley: _v_attack_galley,
    cm.AttackPort: _v_attack_port,
    cm.ClaimPort: _v_claim,
    cm.ContinueBattle: _v_true,
    cm.Capture: _v_capture,
    cm.EndCapture: _v_true,
    cm.Unload: _v_unload,
    cm.EndActivation: _v_true,
    cm.RecruitPort: _v_recruit_port,
    cm.RecruitGalley: _v_recruit_galley,
    cm.BuyGalley: _v_buy_galley,
    cm.BuildFort: _v_fort,
    cm.BuildBasilica: _v_basilica,
    cm.EndInvestment: _v_true,
}


# --- producers: the events a valid command causes --------------------------------------------


def _p_choose_start(s: State, c: cm.ChooseStart, chance: Chance) -> list[Event]:
    return [ev.StartChosen(c.seat, c.port, c.galley)]


def _p_choose_galley(s: State, c: cm.ChooseGalley, chance: Chance) -> list[Event]:
    return [ev.GalleyChosen(c.seat, c.galley)]


def _p_plan(s: State, c: cm.ChoosePlan, chance: Chance) -> list[Event]:
    act, _ = active(s)
    return [ev.PlanChosen(act.galley, c.plan)]


def _end(s: State) -> list[Event]:
    act = s.act
    assert act is not None
    return [ev.ActivationEnded(act.galley)]


def _p_move_sailor(s: State, c: cm.MoveSailor, chance: Chance) -> list[Event]:
    act, g = active(s)
    out: list[Event] = []
    if c.source == 0 or c.target == 0:
        out += _naming(s, act, g.zone, step_port(s, act, g.zone, c.port, "loading"))
    out.append(ev.SailorMoved(c.source, c.target))
    if c.source == act.galley and g.sailors == 1:
        out += _end(s)  # the active galley sank by its owner's choice
    return out


def _p_buy_good(s: State, c: cm.BuyGood, chance: Chance) -> list[Event]:
    act, g = active(s)
    port = step_port(s, act, g.zone, c.port, "loading")
    price, payee = _cube_price(s, act, port)
    return [*_naming(s, act, g.zone, port), ev.GoodBought(act.galley, s.t.port_good[port], price, payee)]


def _p_shift_good(s: State, c: cm.ShiftGood, chance: Chance) -> list[Event]:
    return [ev.GoodShifted(c.good, c.source, c.target)]


def _p_toss(s: State, c: cm.TossGood, chance: Chance) -> list[Event]:
    act = s.act
    assert act is not None
    return [ev.GoodTossed(act.capturer if act.stage == "capture" else act.galley, c.good)]


def _p_end_loading(s: State, c: cm.EndLoading, chance: Chance) -> list[Event]:
    act, _ = active(s)
    return [ev.LoadingEnded(act.galley)]


def _p_sail(s: State, c: cm.Sail, chance: Chance) -> list[Event]:
    act, g = active(s)
    asked = () if c.zone == act.start_zone else blockaders(s, c.zone, act.seat, g.sailors)
    return [ev.Sailed(act.galley, c.zone, asked)]


def _p_end_movement(s: State, c: cm.EndMovement, chance: Chance) -> list[Event]:
    act, _ = active(s)
    return [ev.MovementEnded(act.galley)]


def _p_blockade(s: State, c: cm.Blockade, chance: Chance) -> list[Event]:
    act = s.act
    assert act is not None
    if c.declare:
        return [ev.BlockadeDeclared(c.seat)]
    out: list[Event] = [ev.BlockadeWaived(c.seat)]
    if len(act.asked) == 1 and act.intent == "sale":
        _, g = active(s)
        out.append(_sale(s, act.pending_good, current_port(s, act, g.zone)))
    return out


def _sale(s: State, good: str, port: int) -> ev.GoodSold:
    act, _ = active(s)
    p = s.ports[port]
    value = s.t.port_values[port][len(p.warehouse)]
    income = (0 if p.owner == act.seat else value) + s.t.sale_bonus[good]
    return ev.GoodSold(act.galley, s.t.ports[port], good, value, income)


def _p_sell(s: State, c: cm.Sell, chance: Chance) -> list[Event]:
    act, g = active(s)
    port = step_port(s, act, g.zone, c.port, "sale")
    named = _naming(s, act, g.zone, port)
    # Every sale may be blockaded, also after an earlier good of the step was let through (S002: the
    # blockade rules "apply to sales"); nothing says a player who waived once has waived for the step.
    asked = blockaders(s, g.zone, act.seat, g.sailors)
    if asked:
        return [*named, ev.SaleAnnounced(c.good, asked)]
    return [*named, _sale(s, c.good, port)]


def _p_claim(s: State, c: cm.ClaimPort, chance: Chance) -> list[Event]:
    act, g = active(s)
    port = step_port(s, act, g.zone, c.port, "conquest")
    return [*_naming(s, act, g.zone, port), ev.ClaimAnnounced(s.t.ports[port], blockaders(s, g.zone, act.seat, g.sailors))]


def _round(s: State, chance: Chance) -> list[Event]:
    """One round of simultaneous dice; sinkings, the wreck's goods and the end of the activation follow."""
    act, g = active(s)
    t = s.t
    value = combat_value(act, g)
    if act.foe_galley:
        foe = s.galleys[act.foe_galley]
        assert foe is not None
        defence = foe.sailors
    else:
        defence = s.ports[act.foe_port].sailors
    a_rolls = chance.roll("dice:attacker", value, t.dice_faces)
    d_rolls = chance.roll("dice:defender", defence, t.dice_faces)
    a_loss = min(g.sailors, t.skull_count(d_rolls))
    d_loss = min(defence, t.skull_count(a_rolls))
    a_sinks, d_sinks = a_loss == g.sailors, d_loss == defence
    salvage = 0
    if act.foe_galley and a_sinks != d_sinks:
        assert foe is not None  # the galley met above
        wreck, survivor = (g, foe) if a_sinks else (foe, g)
        if wreck.goods and survivor.sailors - (a_loss if survivor is g else d_loss) < t.galley_spaces:
            salvage = act.foe_galley if a_sinks else act.galley
    out: list[Event] = [ev.BattleRound(a_rolls, d_rolls, a_loss, d_loss, salvage)]
    if a_sinks and not salvage:
        out += _end(s)
    return out


def _begin_battle(s: State, galley: int, port: str, chance: Chance) -> list[Event]:
    """A port's fort fires first; the attacker's value is then set from the sailors it left.

    S002: the fort fires "before the beginning of the combat against the port", and the
    attacker's value is "determined" when the combat begins: the fort's victims lower it.
    A fort that kills every sailor sinks the galley before any combat begins.
    """
    act, g = active(s)
    out: list[Event] = []
    if port:
        i = s.t.port_index[port]
        if s.ports[i].fort:
            rolls = chance.roll("dice:fort", s.t.fort_dice, s.t.dice_faces)
            kills = min(g.sailors, s.t.skull_count(rolls))
            fired = ev.FortFired(port, rolls, kills)
            out.append(fired)
            if kills == g.sailors:
                return out + _end(s)
            s = evolve(s, fired)
            act, g = active(s)
    started = ev.BattleStarted(galley, port, act.value if act.value >= 0 else combat_value(act, g))
    out.append(started)
    return out + _round(evolve(s, started), chance)


def _p_attack_galley(s: State, c: cm.AttackGalley, chance: Chance) -> list[Event]:
    return _begin_battle(s, c.galley, "", chance)


def _p_attack_port(s: State, c: cm.AttackPort, chance: Chance) -> list[Event]:
    act, g = active(s)
    port = step_port(s, act, g.zone, c.port, "battle")
    return [*_naming(s, act, g.zone, port), *_begin_battle(s, 0, s.t.ports[port], chance)]


def _p_continue(s: State, c: cm.ContinueBattle, chance: Chance) -> list[Event]:
    act, _ = active(s)
    if not c.go:
        return [ev.BattleStopped(act.galley), *_end(s)]
    return _round(s, chance)


def _p_capture(s: State, c: cm.Capture, chance: Chance) -> list[Event]:
    act = s.act
    assert act is not None
    return [ev.GoodCaptured(act.capturer, c.good)]


def _p_end_capture(s: State, c: cm.EndCapture, chance: Chance) -> list[Event]:
    act = s.act
    assert act is not None
    out: list[Event] = [ev.CaptureEnded(act.loot)]
    if s.galleys[act.galley] is None:
        out += _end(s)
    return out


def _p_unload(s: State, c: cm.Unload, chance: Chance) -> list[Event]:
    act, g = active(s)
    port = s.t.ports[current_port(s, act, g.zone)]
    first: Event = ev.PortTaken(port, act.seat, c.sailors) if c.sailors else ev.PortLeftNeutral(port)
    return [first, *_end(s)]


def _p_end_activation(s: State, c: cm.EndActivation, chance: Chance) -> list[Event]:
    return _end(s)


def _p_recruit_port(s: State, c: cm.RecruitPort, chance: Chance) -> list[Event]:
    return [ev.SailorRecruited(c.seat, c.port, 0, s.t.sailor_price)]


def _p_recruit_galley(s: State, c: cm.RecruitGalley, chance: Chance) -> list[Event]:
    return [ev.SailorRecruited(c.seat, "", c.galley, s.t.sailor_price)]


def _p_buy_galley(s: State, c: cm.BuyGalley, chance: Chance) -> list[Event]:
    return [ev.GalleyBought(c.seat, c.galley, c.port, galley_price(s, c.seat))]


def _p_fort(s: State, c: cm.BuildFort, chance: Chance) -> list[Event]:
    return [ev.FortBuilt(c.seat, c.port, s.t.fort_price)]


def _p_basilica(s: State, c: cm.BuildBasilica, chance: Chance) -> list[Event]:
    return [ev.BasilicaBuilt(c.seat, c.port, s.t.basilica_price)]


def _p_end_investment(s: State, c: cm.EndInvestment, chance: Chance) -> list[Event]:
    out: list[Event] = [ev.InvestmentEnded(c.seat)]
    if s.phase == "turn":
        out += _end(s)
    return out


PRODUCERS: dict[type[Command], Callable[[State, Any, Chance], list[Event]]] = {
    cm.ChooseStart: _p_choose_start,
    cm.ChooseGalley: _p_choose_galley,
    cm.ChoosePlan: _p_plan,
    cm.MoveSailor: _p_move_sailor,
    cm.BuyGood: _p_buy_good,
    cm.ShiftGood: _p_shift_good,
    cm.TossGood: _p_toss,
    cm.EndLoading: _p_end_loading,
    cm.Sail: _p_sail,
    cm.EndMovement: _p_end_movement,
    cm.Blockade: _p_blockade,
    cm.Sell: _p_sell,
    cm.AttackGalley: _p_attack_galley,
    cm.AttackPort: _p_attack_port,
    cm.ClaimPort: _p_claim,
    cm.ContinueBattle: _p_continue,
    cm.Capture: _p_capture,
    cm.EndCapture: _p_end_capture,
    cm.Unload: _p_unload,
    cm.EndActivation: _p_end_activation,
    cm.RecruitPort: _p_recruit_port,
    cm.RecruitGalley: _p_recruit_galley,
    cm.BuyGalley: _p_buy_galley,
    cm.BuildFort: _p_fort,
    cm.BuildBasilica: _p_basilica,
    cm.EndInvestment: _p_end_investment,
}

# Commands after which the game may move on by itself (next galley, end of turn).
_MAY_ADVANCE = (ev.ActivationEnded, ev.InvestmentEnded, ev.StartChosen, ev.GalleyChosen)


def decide(s: State, c: Command, chance: Chance) -> list[Event]:
    _check_turn(s, c)
    VALIDATORS[type(c)](s, c)
    out = PRODUCERS[type(c)](s, c, chance)
    if isinstance(out[-1], _MAY_ADVANCE):
        after = s
        for e in out:
            after = evolve(after, e)
        out += advance(after, chance)[0]
    return out


def play(s: State, c: Command, chance: Chance) -> tuple[list[Event], State]:
    """`decide` and the state after its events: the automatic steps already fold them, so nothing is folded twice."""
    _check_turn(s, c)
    VALIDATORS[type(c)](s, c)
    out = PRODUCERS[type(c)](s, c, chance)
    for e in out:
        s = evolve(s, e)
    if isinstance(out[-1], _MAY_ADVANCE):
        more, s = advance(s, chance)
        out += more
    return out, s


# --- the automatic parts of the game ------------------------------------------------------------


def advance(s: State, chance: Chance) -> tuple[list[Event], State]:
    """Play what nobody decides (the black token to the next galley, the Doge card, scoring); the events and the state after them."""
    out: list[Event] = []

    def emit(e: Event) -> None:
        nonlocal s
        out.append(e)
        s = evolve(s, e)

    while True:
        if s.phase == "over" or s.act is not None or s.queue:
            return out, s
        if s.phase in ("setup", "special"):
            emit(ev.TurnStarted(s.turn + 1))
            continue
        nxt = next((n for n in range(s.wheel + 1, len(s.galleys)) if s.galleys[n] is not None), 0)
        if nxt:
            emit(ev.GalleyActivated(nxt))
            continue
        for e in end_of_turn(s, chance):
            emit(e)
        if s.phase == "turn":
            emit(ev.TurnStarted(s.turn + 1))


def doge_deck(s: State) -> list[str]:
    """The face-down Doge cards: the whole deck less the face-up discards (a multiset, sorted)."""
    left = list(s.t.doge_deck)
    for card in s.discard:
        left.remove(card)
    return left


def end_of_turn(s: State, chance: Chance) -> list[Event]:
    t = s.t
    out: list[Event] = []
    (card,) = chance.draw("deck:doge", doge_deck(s), 1)
    start = s.track
    end = min(start + t.doge_advance[card], t.track_last)
    out.append(ev.DogeCardDrawn(card, start, end))
    effect = t.doge_effect[card]
    if effect == "pay_wine":
        out.append(ev.WinePaid(tuple(t.wine_payout * sum(1 for i, p in enumerate(s.ports) if p.owner == seat and wine_side(s, i)) for seat in range(s.players))))
    scoring_spaces = t.per_players[s.players]["scoring_spaces"]
    scored = s.scorings
    if any(start < x <= end for x in scoring_spaces):
        warehouses, basilicas = scoring(s)
        scored += 1
        out.append(ev.Scored(scored, tuple(w + b for w, b in zip(warehouses, basilicas, strict=True)), warehouses, basilicas))
    if effect == "reshuffle_all":
        out.append(ev.DogeDeckReshuffled(t.doge_deck))
    if scored >= t.scorings_to_end:
        after = s
        for e in out:
            after = evolve(after, e)
        out.append(ev.GameEnded(ranking(after)))
        return out
    order = [(s.first + k) % s.players for k in range(s.players)]
    short = tuple(seat for seat in order if galleys_of(s, seat) < t.special_galleys)
    if short:
        out.append(ev.SpecialInvestmentOpened(short))
    return out


# --- setup --------------------------------------------------------------------------------------


class OptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    players = fields.Integer(strict=True, load_default=4)
    money = fields.String(load_default="visible", validate=validate.OneOf(["visible", "hidden"]))
    closed_ports = fields.List(fields.String(), load_default=None, metadata={
        "description": "the ports closed at the start where the edition closes some (3 players): one non-starting port "
                       "for each good it names, by the board's port ids; left out, they are drawn"})


_OPTIONS = OptionsSchema()  # built once, as the other titles do: building a marshmallow schema deep-copies its fields


def setup(s: State, options: Mapping[str, Any], chance: Chance) -> list[Event]:
    t = s.t
    options = load_options("serenissima", _OPTIONS, options)
    players = options["players"]
    if not t.players_min <= players <= t.players_max or players not in t.per_players:
        raise RuleViolation("serenissima/setup/players", f"Serenissima is for {t.players_min} to {t.players_max} players", players=players)
    out: list[Event] = [ev.GameStarted(s.edition.ref, players, options["money"] == "hidden")]
    (first,) = chance.draw("first-player", list(range(players)), 1)
    out.append(ev.FirstPlayerChosen(first))
    if t.per_players[players]["close_ports"]:
        out.append(ev.PortsClosed(_closed_ports(s, options, chance)))
    out.append(ev.DogeDeckShuffled(t.doge_deck))
    return out


def _closed_ports(s: State, options: Mapping[str, Any], chance: Chance) -> tuple[str, ...]:
    """One non-starting producer of each listed good, chosen at random unless the options name them."""
    t = s.t
    given = options.get("closed_ports")
    if given:
        chosen = tuple(str(p) for p in given)
        wanted = sorted(t.closed_goods)
        got = sorted(t.port_good[t.port_index[p]] for p in chosen if p in t.port_index and not t.port_starting[t.port_index[p]])
        if got != wanted or len(set(chosen)) != len(chosen):
            raise RuleViolation("serenissima/setup/closed-ports", f"close one non-starting port producing each of {wanted}", given=list(chosen))
        return chosen
    chosen_list: list[str] = []
    for good in t.closed_goods:
        candidates = sorted(p for i, p in enumerate(t.ports) if t.port_good[i] == good and not t.port_starting[i] and p not in chosen_list)
        chosen_list += chance.draw(f"closed:{good}", candidates, 1)
    return tuple(chosen_list)


# --- whose decision, and the legal choices -------------------------------------------------------


def pending(s: State) -> Pending:
    """The contract's pending decision: `who`, with the active galley named during an activation."""
    seat, kind = who(s)
    act = s.act
    if seat is not None and act is not None and kind != "special-investment":
        return _pending(seat, kind, galley=act.galley, active_seat=act.seat)
    return _pending(seat, kind)


def legal(s: State) -> list[Command]:
    """Every candidate of the pending kind that the validators `decide` runs accept."""
    seat, kind = who(s)
    if seat is None:
        return []
    out = []
    for c in _candidates(s, seat, kind):
        try:
            VALIDATORS[type(c)](s, c)
        except RuleViolation:
            continue
        out.append(c)
    return out


def _port_names(s: State, zone: str) -> list[str]:
    """What a port-naming command may say: nothing where the zone has one port, else each port (ambiguity 30)."""
    here = s.t.zone_ports[zone]
    return [s.t.ports[i] for i in here] if len(here) > 1 else [""]


def _candidates(s: State, seat: int, kind: str) -> Sequence[Command]:
    t = s.t
    free = [n for n in range(1, len(s.galleys)) if s.galleys[n] is None]
    if kind == "choose-start":
        return [cm.ChooseStart(seat, t.ports[i], n) for i in range(len(t.ports)) if t.port_starting[i] for n in free]
    if kind == "choose-galley":
        return [cm.ChooseGalley(seat, n) for n in free]
    if kind in ("investment", "special-investment"):
        owned = [t.ports[i] for i, p in enumerate(s.ports) if p.owner == seat]
        mine = [n for n, g in enumerate(s.galleys) if g is not None and g.owner == seat]
        out: list[Command] = [cm.RecruitPort(seat, p) for p in owned]
        out += [cm.RecruitGalley(seat, n) for n in mine]
        out += [cm.BuyGalley(seat, n, p) for n in free for p in owned]
        if kind == "investment":
            out += [cm.BuildFort(seat, p) for p in owned] + [cm.BuildBasilica(seat, p) for p in owned]
        return [*out, cm.EndInvestment(seat)]
    act = s.act
    assert act is not None
    if kind == "plan":
        return [cm.ChoosePlan(seat, "action"), cm.ChoosePlan(seat, "investment")]
    if kind == "blockade":
        return [cm.Blockade(seat, True), cm.Blockade(seat, False)]
    if kind == "battle":
        return [cm.ContinueBattle(seat, True), cm.ContinueBattle(seat, False)]
    if kind == "capture":
        cap = s.galleys[act.capturer]
        assert cap is not None
        return [cm.Capture(seat, g) for g in sorted(set(act.loot))] + [cm.TossGood(seat, g) for g in sorted(set(cap.goods))] + [cm.EndCapture(seat)]
    a = act.galley
    g = s.galleys[a]
    assert g is not None
    named = _port_names(s, g.zone)
    if kind == "loading":
        others = [n for n, x in enumerate(s.galleys) if x is not None and n != a and x.owner == seat and x.zone == g.zone]
        out = [c for p in named for c in (cm.MoveSailor(seat, 0, a, p), cm.MoveSailor(seat, a, 0, p))]
        for n in others:
            out += [cm.MoveSailor(seat, n, a), cm.MoveSailor(seat, a, n)]
            o = s.galleys[n]
            assert o is not None
            out += [cm.ShiftGood(seat, good, a, n) for good in sorted(set(g.goods))]
            out += [cm.ShiftGood(seat, good, n, a) for good in sorted(set(o.goods))]
        out += [cm.BuyGood(seat, p) for p in named] + [cm.TossGood(seat, good) for good in sorted(set(g.goods))]
        return [*out, cm.EndLoading(seat)]
    if kind == "movement":
        return [cm.Sail(seat, z) for z in t.neighbours[g.zone]] + [cm.EndMovement(seat)]
    if kind == "sale-or-battle":
        foes = [n for n, x in enumerate(s.galleys) if x is not None and x.owner != seat and x.zone == g.zone]
        out = [cm.Sell(seat, good, p) for good in sorted(set(g.goods)) for p in named]
        out += [cm.AttackGalley(seat, n) for n in foes]
        out += [c for p in named for c in (cm.AttackPort(seat, p), cm.ClaimPort(seat, p))]
        return [*out, cm.EndActivation(seat)]
    if kind == "unload":
        low, high = unload_range(s)
        return [cm.Unload(seat, k) for k in range(low, high + 1)]
    return []
