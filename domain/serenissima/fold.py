"""`evolve(state, event)`: one small function per event type, dispatched by type (FOLD).

Every fold function that removes sailors from a galley takes it off the board (and the
wheel) at once when its last sailor leaves, so no state ever holds an empty galley.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.kernel import Event
from domain.kernel.events import every_event
from domain.serenissima import events as ev
from domain.serenissima.edition import TITLE
from domain.serenissima.state import _FRESH, NEUTRAL, Port, State, _activation, _galley, _port, _state

# --- small helpers -----------------------------------------------------------------------


def _set(items: tuple, i: int, value: Any) -> tuple:
    return items[:i] + (value,) + items[i + 1 :]


def _add(items: tuple[int, ...], i: int, delta: int) -> tuple[int, ...]:
    return items[:i] + (items[i] + delta,) + items[i + 1 :]


def _with_good(goods: tuple[str, ...], good: str) -> tuple[str, ...]:
    return tuple(sorted(goods + (good,)))


def _without_good(goods: tuple[str, ...], good: str) -> tuple[str, ...]:
    i = goods.index(good)
    return goods[:i] + goods[i + 1 :]


def _return_goods(s: State, goods: tuple[str, ...]) -> tuple[int, ...]:
    supply = list(s.goods)
    for g in goods:
        supply[s.t.good_index[g]] += 1
    return tuple(supply)


def crew(s: State, number: int, delta: int, keep_goods: bool = False) -> State:
    """Change a galley's sailors; at 0 it sinks, and its goods go back unless kept as loot."""
    g = s.galleys[number]
    assert g is not None
    sailors = g.sailors + delta
    if sailors > 0:
        return _state(s, galleys=_set(s.galleys, number, _galley(g.owner, g.zone, sailors, g.goods)))
    goods = s.goods if keep_goods else _return_goods(s, g.goods)
    return _state(s, galleys=_set(s.galleys, number, None), goods=goods)


# --- fold functions ------------------------------------------------------------------------


def _game_started(s: State, e: ev.GameStarted) -> State:
    t = s.t
    row = t.per_players[e.players]
    return _state(
        s,
        players=e.players,
        hidden_money=e.hidden_money,
        money=(t.start_ducats,) * e.players,
        announced=(t.start_ducats,) * e.players,
        supply=(row["sailors"],) * e.players,
        boxed=(t.colour_sailors - row["sailors"],) * e.players,
        goods=tuple(t.good_cubes[g] for g in t.goods),
        galleys=(None,) * (row["galleys_in_play"] + 1),
        ports=(Port(),) * len(t.ports),
        track=row["track_start"],
        phase="setup",
    )


def _first_player(s: State, e: ev.FirstPlayerChosen) -> State:
    return _state(s, first=e.seat)


def _ports_closed(s: State, e: ev.PortsClosed) -> State:
    ports = list(s.ports)
    for pid in e.ports:
        i = s.t.port_index[pid]
        ports[i] = _port(ports[i], closed=True)
    return _state(s, ports=tuple(ports))


def _deck_shuffled(s: State, e: ev.DogeDeckShuffled | ev.DogeDeckReshuffled) -> State:
    return _state(s, discard=())


def _setup_done(s: State, e: ev.DogeDeckShuffled) -> State:
    """The shuffle is the last setup event: only now is anyone asked to choose a start.

    Filling the choosing order here (not at the first-player draw) keeps the states in
    between recognisably automatic.
    """
    n = s.players
    clockwise = tuple((s.first + k) % n for k in range(n))
    order: tuple[int, ...] = ()
    for r in range(s.t.per_players[n]["starting_galleys"]):
        order += clockwise if r % 2 == 0 else tuple(reversed(clockwise))
    return _state(s, discard=(), queue=order)


def _start_chosen(s: State, e: ev.StartChosen) -> State:
    t = s.t
    i = t.port_index[e.port]
    galley = _galley(e.seat, t.port_zone[i], t.start_galley_sailors, ())
    return _state(
        s,
        ports=_set(s.ports, i, _port(s.ports[i], owner=e.seat, sailors=t.start_port_sailors)),
        galleys=_set(s.galleys, e.galley, galley),
        supply=_add(s.supply, e.seat, -(t.start_port_sailors + t.start_galley_sailors)),
        queue=s.queue[1:],
    )


def _galley_chosen(s: State, e: ev.GalleyChosen) -> State:
    home = next(i for i, p in enumerate(s.ports) if p.owner == e.seat)
    galley = _galley(e.seat, s.t.port_zone[home], s.t.start_galley_sailors, ())
    return _state(
        s,
        galleys=_set(s.galleys, e.galley, galley),
        supply=_add(s.supply, e.seat, -s.t.start_galley_sailors),
        queue=s.queue[1:],
    )


def _turn_started(s: State, e: ev.TurnStarted) -> State:
    return _state(s, phase="turn", turn=e.turn, wheel=0, queue=(), act=None)


def _activated(s: State, e: ev.GalleyActivated) -> State:
    g = s.galleys[e.galley]
    assert g is not None
    return _state(s, wheel=e.galley, act=_activation(_FRESH, galley=e.galley, seat=g.owner, start_zone=g.zone))


def _plan_chosen(s: State, e: ev.PlanChosen) -> State:
    assert s.act is not None
    return _state(s, act=_activation(s.act, stage="loading" if e.plan == "action" else "investment"))


def _activation_ended(s: State, e: ev.ActivationEnded) -> State:
    return _state(s, act=None)


def _port_named(s: State, e: ev.PortNamed) -> State:
    assert s.act is not None
    return _state(s, act=_activation(s.act, port=s.t.port_index[e.port]))


def _sailor_moved(s: State, e: ev.SailorMoved) -> State:
    act = s.act
    assert act is not None
    port = act.port if act.port != NEUTRAL else s.t.zone_port[act.start_zone]
    galleys, ports, goods = s.galleys, s.ports, s.goods
    if e.target == 0:
        p = ports[port]
        ports = _set(ports, port, _port(p, sailors=p.sailors + 1))
    else:
        g = galleys[e.target]
        assert g is not None
        galleys = _set(galleys, e.target, _galley(g.owner, g.zone, g.sailors + 1, g.goods))
    if e.source == 0:
        p = ports[port]
        ports = _set(ports, port, _port(p, sailors=p.sailors - 1))
    else:
        g = galleys[e.source]
        assert g is not None
        if g.sailors > 1:
            galleys = _set(galleys, e.source, _galley(g.owner, g.zone, g.sailors - 1, g.goods))
        else:  # its last sailor left: it sinks (as in `crew`)
            galleys, goods = _set(galleys, e.source, None), _return_goods(s, g.goods)
    return _state(s, galleys=galleys, ports=ports, goods=goods)


def _good_bought(s: State, e: ev.GoodBought) -> State:
    g = s.galleys[e.galley]
    act = s.act
    assert g is not None and act is not None
    money = _add(s.money, act.seat, -e.price)
    bank = s.bank
    if e.paid_to == NEUTRAL:
        bank -= e.price
    else:
        money = _add(money, e.paid_to, e.price)
    return _state(
        s,
        galleys=_set(s.galleys, e.galley, _galley(g.owner, g.zone, g.sailors, _with_good(g.goods, e.good))),
        goods=_add(s.goods, s.t.good_index[e.good], -1),
        money=money,
        bank=bank,
        act=_activation(act, free_cubes=act.free_cubes + 1) if e.price == 0 else act,
    )


def _good_shifted(s: State, e: ev.GoodShifted) -> State:
    a, b = s.galleys[e.source], s.galleys[e.target]
    assert a is not None and b is not None
    galleys = _set(s.galleys, e.source, _galley(a.owner, a.zone, a.sailors, _without_good(a.goods, e.good)))
    galleys = _set(galleys, e.target, _galley(b.owner, b.zone, b.sailors, _with_good(b.goods, e.good)))
    return _state(s, galleys=galleys)


def _good_tossed(s: State, e: ev.GoodTossed) -> State:
    g = s.galleys[e.galley]
    assert g is not None
    return _state(
        s,
        galleys=_set(s.galleys, e.galley, _galley(g.owner, g.zone, g.sailors, _without_good(g.goods, e.good))),
        goods=_add(s.goods, s.t.good_index[e.good], 1),
    )


def _loading_ended(s: State, e: ev.LoadingEnded) -> State:
    assert s.act is not None
    g = s.galleys[e.galley]
    assert g is not None
    return _state(s, act=_activation(s.act, stage="movement", moves_left=g.sailors, port=NEUTRAL))


def _sailed(s: State, e: ev.Sailed) -> State:
    g = s.galleys[e.galley]
    act = s.act
    assert g is not None and act is not None
    if e.blockaders:
        act = _activation(act, moves_left=act.moves_left - 1, moves_made=act.moves_made + 1, stage="blockade", intent="move", asked=e.blockaders)
    else:
        act = _activation(act, moves_left=act.moves_left - 1, moves_made=act.moves_made + 1)
    return _state(s, galleys=_set(s.galleys, e.galley, _galley(g.owner, e.zone, g.sailors, g.goods)), act=act)


def _movement_ended(s: State, e: ev.MovementEnded) -> State:
    assert s.act is not None
    return _state(s, act=_activation(s.act, stage="trade", port=NEUTRAL))


def _blockade_declared(s: State, e: ev.BlockadeDeclared) -> State:
    act = s.act
    assert act is not None
    if act.intent == "move":
        return _state(s, act=_activation(act, stage="trade", asked=(), intent="", moves_left=0))
    return _state(s, act=_activation(act, stage="trade", asked=(), intent="", mode="battle", blocker=e.seat, pending_good=""))


_AFTER_WAIVERS = {"move": "movement", "sale": "trade", "claim": "unload"}


def _blockade_waived(s: State, e: ev.BlockadeWaived) -> State:
    act = s.act
    assert act is not None
    asked = act.asked[1:]
    if asked:
        return _state(s, act=_activation(act, asked=asked))
    unload_min = 1 if act.intent == "claim" else act.unload_min
    return _state(s, act=_activation(act, asked=(), stage=_AFTER_WAIVERS[act.intent], intent="", unload_min=unload_min))


def _sale_announced(s: State, e: ev.SaleAnnounced) -> State:
    assert s.act is not None
    return _state(s, act=_activation(s.act, stage="blockade", intent="sale", asked=e.blockaders, pending_good=e.good))


def _good_sold(s: State, e: ev.GoodSold) -> State:
    g = s.galleys[e.galley]
    act = s.act
    assert g is not None and act is not None
    i = s.t.port_index[e.port]
    p = s.ports[i]
    return _state(
        s,
        galleys=_set(s.galleys, e.galley, _galley(g.owner, g.zone, g.sailors, _without_good(g.goods, e.good))),
        ports=_set(s.ports, i, _port(p, warehouse=p.warehouse + (e.good,))),
        money=_add(s.money, act.seat, e.income),
        bank=s.bank + e.income,
        act=_activation(act, mode="sale", pending_good=""),
    )


def _claim_announced(s: State, e: ev.ClaimAnnounced) -> State:
    assert s.act is not None
    if e.blockaders:
        return _state(s, act=_activation(s.act, mode="battle", stage="blockade", intent="claim", asked=e.blockaders))
    return _state(s, act=_activation(s.act, mode="battle", stage="unload", unload_min=1))


def _battle_started(s: State, e: ev.BattleStarted) -> State:
    assert s.act is not None
    foe_port = s.t.port_index[e.port] if e.port else NEUTRAL
    # "opening" until the first round (or the fort) is folded: the same command rolls it.
    return _state(s, act=_activation(s.act, stage="opening", mode="battle", value=e.value, foe_galley=e.galley, foe_port=foe_port))


def _fort_fired(s: State, e: ev.FortFired) -> State:
    """The fort fires before the port battle begins: the attack on the port is under way ("opening")."""
    act = s.act
    assert act is not None
    g = s.galleys[act.galley]
    assert g is not None
    kills = min(e.kills, g.sailors)
    opening = _activation(act, stage="opening", mode="battle", foe_galley=0, foe_port=s.t.port_index[e.port])
    if kills:
        s = crew(s, act.galley, -kills)
        return _state(s, supply=_add(s.supply, act.seat, kills), act=opening)
    return _state(s, act=opening)


def _battle_round(s: State, e: ev.BattleRound) -> State:
    act = s.act
    assert act is not None
    attacker = s.galleys[act.galley]
    assert attacker is not None
    supply = _add(s.supply, act.seat, e.attacker_losses)
    salvage_from = 0
    if act.foe_galley:
        foe = s.galleys[act.foe_galley]
        assert foe is not None
        supply = _add(supply, foe.owner, e.defender_losses)
        foe_sinks = foe.sailors == e.defender_losses
        attacker_sinks = attacker.sailors == e.attacker_losses
        if e.salvage_by:
            salvage_from = act.foe_galley if foe_sinks else act.galley
        loot = s.galleys[salvage_from].goods if salvage_from else ()  # type: ignore[union-attr]
        s = crew(s, act.foe_galley, -e.defender_losses, keep_goods=salvage_from == act.foe_galley)
        s = crew(s, act.galley, -e.attacker_losses, keep_goods=salvage_from == act.galley)
        if salvage_from:
            act = _activation(act, stage="capture", loot=loot, capturer=e.salvage_by, foe_galley=0)
        elif foe_sinks and not attacker_sinks:
            act = _activation(act, stage="trade", foe_galley=0)
        else:
            act = _activation(act, stage="battle")
        return _state(s, supply=supply, act=act)
    p = s.ports[act.foe_port]
    supply = _add(supply, p.owner, e.defender_losses)
    garrison = p.sailors - e.defender_losses
    ports = _set(s.ports, act.foe_port, _port(p, sailors=garrison, owner=p.owner if garrison else NEUTRAL))
    s = crew(_state(s, ports=ports), act.galley, -e.attacker_losses)
    stage = "unload" if garrison == 0 and attacker.sailors > e.attacker_losses else "battle"
    return _state(s, supply=supply, act=_activation(act, stage=stage, unload_min=0))


def _ending(s: State) -> State:
    """The activation's last step was taken; the end follows in the same command."""
    assert s.act is not None
    return _state(s, act=_activation(s.act, stage="ending"))


def _battle_stopped(s: State, e: ev.BattleStopped) -> State:
    return _ending(s)


def _good_captured(s: State, e: ev.GoodCaptured) -> State:
    g = s.galleys[e.galley]
    act = s.act
    assert g is not None and act is not None
    return _state(
        s,
        galleys=_set(s.galleys, e.galley, _galley(g.owner, g.zone, g.sailors, _with_good(g.goods, e.good))),
        act=_activation(act, loot=_without_good(act.loot, e.good)),
    )


def _capture_ended(s: State, e: ev.CaptureEnded) -> State:
    act = s.act
    assert act is not None
    return _state(s, goods=_return_goods(s, e.returned), act=_activation(act, loot=(), capturer=0, stage="trade"))


def _port_taken(s: State, e: ev.PortTaken) -> State:
    act = s.act
    assert act is not None
    i = s.t.port_index[e.port]
    s = _state(s, ports=_set(s.ports, i, _port(s.ports[i], owner=e.seat, sailors=e.sailors)))
    return _ending(crew(s, act.galley, -e.sailors))


def _port_left_neutral(s: State, e: ev.PortLeftNeutral) -> State:
    return _ending(s)


def _pay_bank(s: State, seat: int, price: int) -> State:
    return _state(s, money=_add(s.money, seat, -price), bank=s.bank - price)


def _recruited(s: State, e: ev.SailorRecruited) -> State:
    s = _pay_bank(s, e.seat, e.price)
    s = _state(s, supply=_add(s.supply, e.seat, -1))
    if e.port:
        i = s.t.port_index[e.port]
        return _state(s, ports=_set(s.ports, i, _port(s.ports[i], sailors=s.ports[i].sailors + 1)))
    return crew(s, e.galley, +1)


def _galley_bought(s: State, e: ev.GalleyBought) -> State:
    s = _pay_bank(s, e.seat, e.price)
    zone = s.t.port_zone[s.t.port_index[e.port]]
    s = _state(s, supply=_add(s.supply, e.seat, -1), galleys=_set(s.galleys, e.galley, _galley(e.seat, zone, 1, ())))
    if s.act is not None and s.phase == "turn":
        s = _state(s, act=_activation(s.act, bought_galley=True))
    return s


def _fort_built(s: State, e: ev.FortBuilt) -> State:
    s = _pay_bank(s, e.seat, e.price)
    i = s.t.port_index[e.port]
    return _state(s, ports=_set(s.ports, i, _port(s.ports[i], fort=True)))


def _basilica_built(s: State, e: ev.BasilicaBuilt) -> State:
    s = _pay_bank(s, e.seat, e.price)
    i = s.t.port_index[e.port]
    return _state(s, ports=_set(s.ports, i, _port(s.ports[i], basilica=True)))


def _investment_ended(s: State, e: ev.InvestmentEnded) -> State:
    if s.phase == "special":
        return _state(s, queue=s.queue[1:])
    return _ending(s)


def _doge_drawn(s: State, e: ev.DogeCardDrawn) -> State:
    return _state(s, discard=s.discard + (e.card,), track=e.track_to, wheel=0, act=None)


def _paid(s: State, amounts: tuple[int, ...]) -> State:
    return _state(s, money=tuple(m + a for m, a in zip(s.money, amounts, strict=True)), bank=s.bank + sum(amounts))


def _wine_paid(s: State, e: ev.WinePaid) -> State:
    return _paid(s, e.amounts)


def _scored(s: State, e: ev.Scored) -> State:
    s = _paid(s, e.amounts)
    announced = tuple(m + a for m, a in zip(s.announced, e.amounts, strict=True))
    return _state(s, announced=announced, scorings=e.number)


def _special_opened(s: State, e: ev.SpecialInvestmentOpened) -> State:
    return _state(s, phase="special", queue=e.seats, act=None)


def _game_ended(s: State, e: ev.GameEnded) -> State:
    return _state(s, phase="over", ranking=e.ranking, act=None, queue=())


FOLD: dict[type[Event], Callable[[State, Any], State]] = every_event(TITLE, {
    ev.GameStarted: _game_started,
    ev.FirstPlayerChosen: _first_player,
    ev.PortsClosed: _ports_closed,
    ev.DogeDeckShuffled: _setup_done,
    ev.StartChosen: _start_chosen,
    ev.GalleyChosen: _galley_chosen,
    ev.TurnStarted: _turn_started,
    ev.GalleyActivated: _activated,
    ev.PlanChosen: _plan_chosen,
    ev.ActivationEnded: _activation_ended,
    ev.PortNamed: _port_named,
    ev.SailorMoved: _sailor_moved,
    ev.GoodBought: _good_bought,
    ev.GoodShifted: _good_shifted,
    ev.GoodTossed: _good_tossed,
    ev.LoadingEnded: _loading_ended,
    ev.Sailed: _sailed,
    ev.MovementEnded: _movement_ended,
    ev.BlockadeDeclared: _blockade_declared,
    ev.BlockadeWaived: _blockade_waived,
    ev.SaleAnnounced: _sale_announced,
    ev.GoodSold: _good_sold,
    ev.ClaimAnnounced: _claim_announced,
    ev.BattleStarted: _battle_started,
    ev.FortFired: _fort_fired,
    ev.BattleRound: _battle_round,
    ev.BattleStopped: _battle_stopped,
    ev.GoodCaptured: _good_captured,
    ev.CaptureEnded: _capture_ended,
    ev.PortTaken: _port_taken,
    ev.PortLeftNeutral: _port_left_neutral,
    ev.SailorRecruited: _recruited,
    ev.GalleyBought: _galley_bought,
    ev.FortBuilt: _fort_built,
    ev.BasilicaBuilt: _basilica_built,
    ev.InvestmentEnded: _investment_ended,
    ev.DogeCardDrawn: _doge_drawn,
    ev.WinePaid: _wine_paid,
    ev.Scored: _scored,
    ev.DogeDeckReshuffled: _deck_shuffled,
    ev.SpecialInvestmentOpened: _special_opened,
    ev.GameEnded: _game_ended,
}, "fold")


def evolve(s: State, e: Event) -> State:
    return FOLD[type(e)](s, e)
