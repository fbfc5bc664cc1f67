"""Each Serenissima event in words, for the move list: one small function per event type (SAY).

Names come from the event, the state before it and the edition: ports and sea zones by their
printed names, goods by their ids (wood, stone, marble, wine, gold, spice), galleys by their
wheel number and owner, Doge cards by what the edition says they do. Every event is public
(`docs/rules/serenissima.md`, ambiguity 7); the one secret is a seat's purse with hidden money,
so a sentence that names a seat's ducats after a payment wraps them for that seat alone. The
game-ended event counts every purse out, as the view does once the game is over.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from domain.kernel import Event
from domain.kernel.describe import Part, Sentence, hidden, name_of, sentence
from domain.kernel.events import every_event
from domain.serenissima import events as ev
from domain.serenissima.edition import TITLE
from domain.serenissima.rules import current_port
from domain.serenissima.scoring import ports_of
from domain.serenissima.state import NEUTRAL, State

Say = Callable[[Any, State, Sequence[str]], Sentence]


# --- words -----------------------------------------------------------------------------------


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _ducats(n: int) -> str:
    return _count(n, "ducat")


def _sailors(n: int) -> str:
    return _count(n, "sailor")


def _and(items: Iterable[str]) -> str:
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _goods(goods: Iterable[str]) -> str:
    """Cubes as a table counts them: '2 wine and 1 gold'."""
    counted = Counter(goods)
    return _and(f"{n} {good}" for good, n in sorted(counted.items())) or "no goods"


def _port(s: State, pid: str) -> str:
    return s.t.port_name[s.t.port_index[pid]]


def _zone(s: State, zone: str) -> str:
    return s.t.zone_name[zone]


def _galley(s: State, number: int, names: Sequence[str]) -> str:
    """'Ada's galley 4' while it floats; a bare 'galley 4' once sunk."""
    g = s.galleys[number] if 0 < number < len(s.galleys) else None
    return f"{name_of(names, g.owner)}'s galley {number}" if g is not None else f"galley {number}"


def _purse(s: State, seat: int, ducats: int, words: str) -> Part:
    """A seat's ducats after the event, `words` around them: with hidden money, only that seat reads them."""
    text = words.format(_ducats(ducats))
    return hidden(text, seat, "") if s.hidden_money else text


def _dice(s: State, rolls: Sequence[int]) -> str:
    faces = ", ".join(str(f) for f in rolls)
    skulls = s.t.skull_count(tuple(rolls))
    return f"{_count(len(rolls), 'die', 'dice')} ({faces}: {_count(skulls, 'skull')})" if rolls else "no dice"


def _doge_card(s: State, card: str) -> str:
    """A Doge card by what the edition says it does (the edition gives cards no printed names)."""
    advance, effect = s.t.doge_advance[card], s.t.doge_effect[card]
    if effect == "pay_wine":
        return "the Wine card"
    if effect == "reshuffle_all":
        return f"a {advance}-hourglass card that reshuffles the Doge deck"
    return f"a {advance}-hourglass card"


def _owner(names: Sequence[str], seat: int) -> str:
    return "the bank" if seat == NEUTRAL else name_of(names, seat)


# --- setup -----------------------------------------------------------------------------------


def _game_started(e: ev.GameStarted, s: State, names: Sequence[str]) -> Sentence:
    money = "hidden" if e.hidden_money else "visible"
    return sentence(f"A game of Serenissima for {e.players} players begins, with {money} money.")


def _first_player(e: ev.FirstPlayerChosen, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} is drawn to play first.")


def _ports_closed(e: ev.PortsClosed, s: State, names: Sequence[str]) -> Sentence:
    ports = _and(f"{_port(s, pid)} ({s.t.port_good[s.t.port_index[pid]]})" for pid in e.ports)
    return sentence(f"{ports} {'is' if len(e.ports) == 1 else 'are'} closed for the game.")


def _deck_shuffled(e: ev.DogeDeckShuffled, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"The {len(e.cards)} Doge cards are shuffled face down.")


def _start_chosen(e: ev.StartChosen, s: State, names: Sequence[str]) -> Sentence:
    t = s.t
    return sentence(
        f"{name_of(names, e.seat)} takes {_port(s, e.port)} as a starting port with {_sailors(t.start_port_sailors)}, "
        f"and galley {e.galley} there with {_sailors(t.start_galley_sailors)}."
    )


def _galley_chosen(e: ev.GalleyChosen, s: State, names: Sequence[str]) -> Sentence:
    home = next((s.t.port_name[i] for i, p in enumerate(s.ports) if p.owner == e.seat), "the home port")
    return sentence(f"{name_of(names, e.seat)} takes galley {e.galley} at {home} with {_sailors(s.t.start_galley_sailors)}.")


# --- the wheel -------------------------------------------------------------------------------


def _turn_started(e: ev.TurnStarted, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"Turn {e.turn} begins, the Doge on space {s.track} of {s.t.track_last}.")


def _activated(e: ev.GalleyActivated, s: State, names: Sequence[str]) -> Sentence:
    g = s.galleys[e.galley]
    where = f" in the {_zone(s, g.zone)}" if g is not None else ""
    return sentence(f"The black token moves to {_galley(s, e.galley, names)}{where}.")


def _plan_chosen(e: ev.PlanChosen, s: State, names: Sequence[str]) -> Sentence:
    who = _galley(s, e.galley, names)
    if e.plan == "investment":
        return sentence(f"{who} stays in port: its owner invests.")
    return sentence(f"{who} takes an action: load, sail, then sell or fight.")


def _activation_ended(e: ev.ActivationEnded, s: State, names: Sequence[str]) -> Sentence:
    if s.galleys[e.galley] is None:
        return sentence(f"Galley {e.galley} is sunk: its activation ends.")
    return sentence(f"{_galley(s, e.galley, names)} ends its activation.")


def _port_named(e: ev.PortNamed, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_galley(s, e.galley, names)} deals with {_port(s, e.port)} in this step.")


# --- loading ---------------------------------------------------------------------------------


def _sailor_moved(e: ev.SailorMoved, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    port = s.t.port_name[current_port(s, act, act.start_zone)] if 0 in (e.source, e.target) else ""

    def place(n: int) -> str:
        return port if n == 0 else f"galley {n}"

    who = name_of(names, act.seat)
    source = s.galleys[e.source] if e.source else None
    sinks = " It is left without sailors and sinks." if source is not None and source.sailors == 1 else ""
    return sentence(f"{who} moves a sailor from {place(e.source)} to {place(e.target)}.{sinks}")


def _good_bought(e: ev.GoodBought, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    g = s.galleys[e.galley]
    assert g is not None
    port = s.t.port_name[current_port(s, act, g.zone)]
    who = name_of(names, act.seat)
    if e.price == 0:
        return sentence(f"{who} loads a {e.good} cube at {port} onto galley {e.galley}, free in {who}'s own port.")
    return sentence(
        f"{who} buys a {e.good} cube at {port} onto galley {e.galley} for {_ducats(e.price)}, paid to {_owner(names, e.paid_to)}",
        _purse(s, act.seat, s.money[act.seat] - e.price, " ({} left)"),
        ".",
    )


def _good_shifted(e: ev.GoodShifted, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    who = name_of(names, act.seat) if act is not None else "The owner"
    return sentence(f"{who} shifts a {e.good} cube from galley {e.source} to galley {e.target}.")


def _good_tossed(e: ev.GoodTossed, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_galley(s, e.galley, names)} throws a {e.good} cube overboard.")


def _loading_ended(e: ev.LoadingEnded, s: State, names: Sequence[str]) -> Sentence:
    g = s.galleys[e.galley]
    assert g is not None
    return sentence(
        f"{_galley(s, e.galley, names)} ends loading with {_sailors(g.sailors)} and {_goods(g.goods)} aboard: "
        f"it may sail {_count(g.sailors, 'zone')}."
    )


# --- movement and blockades ------------------------------------------------------------------


def _may_blockade(seats: Sequence[int], names: Sequence[str]) -> str:
    return f" {_and(name_of(names, x) for x in seats)} may blockade." if seats else ""


def _sailed(e: ev.Sailed, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_galley(s, e.galley, names)} sails to the {_zone(s, e.zone)}.{_may_blockade(e.blockaders, names)}")


def _movement_ended(e: ev.MovementEnded, s: State, names: Sequence[str]) -> Sentence:
    g = s.galleys[e.galley]
    assert g is not None and s.act is not None
    if not s.act.moves_made:
        return sentence(f"{_galley(s, e.galley, names)} does not sail: it stays in the {_zone(s, g.zone)}.")
    return sentence(f"{_galley(s, e.galley, names)} stops in the {_zone(s, g.zone)} after {_count(s.act.moves_made, 'move')}.")


def _what_is_blockaded(s: State, names: Sequence[str]) -> str:
    act = s.act
    assert act is not None
    if act.intent == "sale":
        return f"the sale of {act.pending_good} by {_galley(s, act.galley, names)}"
    if act.intent == "claim":
        g = s.galleys[act.galley]
        port = s.t.port_name[current_port(s, act, g.zone)] if g is not None else "the port"
        return f"the claim of {_galley(s, act.galley, names)} on {port}"
    return _galley(s, act.galley, names)


def _blockade_declared(e: ev.BlockadeDeclared, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    then = " It stops here." if act.intent == "move" else f" Only {name_of(names, e.seat)}'s galleys may be fought now."
    return sentence(f"{name_of(names, e.seat)} blockades {_what_is_blockaded(s, names)}.{then}")


def _blockade_waived(e: ev.BlockadeWaived, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} lets {_what_is_blockaded(s, names)} pass.")


# --- sale ------------------------------------------------------------------------------------


def _sale_announced(e: ev.SaleAnnounced, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    g = s.galleys[act.galley]
    assert g is not None
    port = s.t.port_name[current_port(s, act, g.zone)]
    return sentence(f"{_galley(s, act.galley, names)} offers a {e.good} cube for sale at {port}.{_may_blockade(e.blockaders, names)}")


def _good_sold(e: ev.GoodSold, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    i = s.t.port_index[e.port]
    who = name_of(names, act.seat)
    if s.ports[i].owner == act.seat:
        what = f"{who} delivers a {e.good} cube to {who}'s own port of {s.t.port_name[i]}, its space unpaid"
    else:
        what = f"{who} sells a {e.good} cube to {s.t.port_name[i]} on a space worth {_ducats(e.space_value)}"
    bonus = s.t.sale_bonus[e.good]
    extra = f" and a {e.good} bonus of {_ducats(bonus)}" if bonus else ""
    return sentence(
        f"{what}{extra}: +{_ducats(e.income)}",
        _purse(s, act.seat, s.money[act.seat] + e.income, " (now {})"),
        ".",
    )


# --- battle and conquest ---------------------------------------------------------------------


def _claim_announced(e: ev.ClaimAnnounced, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    return sentence(f"{_galley(s, act.galley, names)} claims the neutral port of {_port(s, e.port)}.{_may_blockade(e.blockaders, names)}")


def _battle_started(e: ev.BattleStarted, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    if e.galley:
        target = _galley(s, e.galley, names)
    else:
        p = s.ports[s.t.port_index[e.port]]
        target = f"{_owner(names, p.owner)}'s port of {_port(s, e.port)} ({_sailors(p.sailors)})"
    return sentence(f"{_galley(s, act.galley, names)} attacks {target} with a combat value of {e.value}.")


def _fort_fired(e: ev.FortFired, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    g = s.galleys[act.galley]
    sunk = g is not None and e.kills >= g.sailors
    hit = f"{_galley(s, act.galley, names)} loses {_sailors(e.kills)}" + (" and sinks" if sunk else "")
    return sentence(f"The fort of {_port(s, e.port)} fires {_dice(s, e.rolls)}: {hit}.")


def _battle_round(e: ev.BattleRound, s: State, names: Sequence[str]) -> Sentence:
    act = s.act
    assert act is not None
    attacker = s.galleys[act.galley]
    assert attacker is not None
    me = name_of(names, act.seat)
    if act.foe_galley:
        foe = s.galleys[act.foe_galley]
        assert foe is not None
        them, defenders, defence = name_of(names, foe.owner), foe.sailors, f"galley {act.foe_galley}"
    else:
        p = s.ports[act.foe_port]
        them, defenders, defence = _owner(names, p.owner), p.sailors, s.t.port_name[act.foe_port]
    out = [f"{me} rolls {_dice(s, e.attacker_rolls)}, {them} rolls {_dice(s, e.defender_rolls)}:"]
    out.append(f" galley {act.galley} loses {_sailors(e.attacker_losses)}, {defence} loses {_sailors(e.defender_losses)}.")
    if e.attacker_losses >= attacker.sailors:
        out.append(f" Galley {act.galley} sinks.")
    if e.defender_losses >= defenders:
        out.append(f" Galley {act.foe_galley} sinks." if act.foe_galley else f" {defence} has no sailor left and turns neutral.")
    if e.salvage_by:
        out.append(f" Galley {e.salvage_by} may take goods from the wreck.")
    return sentence("".join(out))


def _battle_stopped(e: ev.BattleStopped, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_galley(s, e.galley, names)} breaks off the battle.")


def _good_captured(e: ev.GoodCaptured, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_galley(s, e.galley, names)} takes a {e.good} cube from the wreck.")


def _capture_ended(e: ev.CaptureEnded, s: State, names: Sequence[str]) -> Sentence:
    if not e.returned:
        return sentence("Nothing is left of the wreck.")
    return sentence(f"The wreck's last goods go back to the supply: {_goods(e.returned)}.")


def _port_taken(e: ev.PortTaken, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{name_of(names, e.seat)} takes {_port(s, e.port)}, unloading {_sailors(e.sailors)} into it.")


def _port_left_neutral(e: ev.PortLeftNeutral, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"No sailor is unloaded: {_port(s, e.port)} stays neutral.")


# --- investment ------------------------------------------------------------------------------


def _recruited(e: ev.SailorRecruited, s: State, names: Sequence[str]) -> Sentence:
    where = f"into {_port(s, e.port)}" if e.port else f"onto galley {e.galley}"
    return sentence(
        f"{name_of(names, e.seat)} recruits a sailor {where} for {_ducats(e.price)}",
        _purse(s, e.seat, s.money[e.seat] - e.price, " ({} left)"),
        ".",
    )


def _galley_bought(e: ev.GalleyBought, s: State, names: Sequence[str]) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} buys galley {e.galley} at {_port(s, e.port)}, with its first sailor, for {_ducats(e.price)}",
        _purse(s, e.seat, s.money[e.seat] - e.price, " ({} left)"),
        ".",
    )


def _fort_built(e: ev.FortBuilt, s: State, names: Sequence[str]) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} builds a fort in {_port(s, e.port)} for {_ducats(e.price)}",
        _purse(s, e.seat, s.money[e.seat] - e.price, " ({} left)"),
        ".",
    )


def _basilica_built(e: ev.BasilicaBuilt, s: State, names: Sequence[str]) -> Sentence:
    return sentence(
        f"{name_of(names, e.seat)} builds a basilica in {_port(s, e.port)} for {_ducats(e.price)}",
        _purse(s, e.seat, s.money[e.seat] - e.price, " ({} left)"),
        ".",
    )


def _investment_ended(e: ev.InvestmentEnded, s: State, names: Sequence[str]) -> Sentence:
    what = "special investment" if s.phase == "special" else "investment"
    return sentence(f"{name_of(names, e.seat)} ends the {what}.")


# --- end of turn -----------------------------------------------------------------------------


def _doge_drawn(e: ev.DogeCardDrawn, s: State, names: Sequence[str]) -> Sentence:
    moves = f"the Doge moves from space {e.track_from} to {e.track_to}" if e.track_to != e.track_from else f"the Doge stays on space {e.track_from}"
    return sentence(f"The Doge card turned is {_doge_card(s, e.card)}: {moves}.")


def _payouts(s: State, amounts: Sequence[int], names: Sequence[str]) -> list[Part]:
    """'Ada +6 (now 17 ducats), Bea +3': each seat's share, its purse for its own eyes with hidden money."""
    parts: list[Part] = []
    for seat, amount in enumerate(amounts):
        if amount:
            parts += [", " if parts else "", f"{name_of(names, seat)} +{amount}", _purse(s, seat, s.money[seat] + amount, " (now {})")]
    return parts


def _wine_paid(e: ev.WinePaid, s: State, names: Sequence[str]) -> Sentence:
    head = f"The Wine card pays {_ducats(s.t.wine_payout)} for each port producing or holding {s.t.wine}"
    if not any(e.amounts):
        return sentence(head, ": nobody owns such a port.")
    return sentence(head, ": ", *_payouts(s, e.amounts, names), ".")


def _scored(e: ev.Scored, s: State, names: Sequence[str]) -> Sentence:
    parts: list[Part] = [f"Scoring {e.number} of {s.t.scorings_to_end}: "]
    for seat, amount in enumerate(e.amounts):
        basilicas = f" and {e.basilicas[seat]} for basilicas" if e.basilicas[seat] else ""
        parts += [
            "; " if seat else "",
            f"{name_of(names, seat)} announces {_ducats(amount)} ({e.warehouses[seat]} for warehouses{basilicas}",
            _purse(s, seat, s.money[seat] + amount, ", now {}"),
            ")",
        ]
    return sentence(*parts, ".")


def _deck_reshuffled(e: ev.DogeDeckReshuffled, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"All {len(e.cards)} Doge cards are reshuffled into the deck.")


def _special_opened(e: ev.SpecialInvestmentOpened, s: State, names: Sequence[str]) -> Sentence:
    who = _and(name_of(names, x) for x in e.seats)
    return sentence(f"Special investment: {who}, with fewer than {s.t.special_galleys} galleys, may recruit and buy galleys.")


def _game_ended(e: ev.GameEnded, s: State, names: Sequence[str]) -> Sentence:
    """The end counts every purse out (hidden money included), as the view does once the game is over."""

    def line(seat: int) -> str:
        return f"{_ducats(s.money[seat])} and {_count(ports_of(s, seat), 'port')}"

    first, *rest = e.ranking
    others = f"; then {', '.join(f'{name_of(names, x)} {line(x)}' for x in rest)}" if rest else ""
    return sentence(f"The game ends. {name_of(names, first)} wins with {line(first)}{others}.")


SAY: dict[type[Event], Say] = every_event(TITLE, {
    ev.GameStarted: _game_started,
    ev.FirstPlayerChosen: _first_player,
    ev.PortsClosed: _ports_closed,
    ev.DogeDeckShuffled: _deck_shuffled,
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
    ev.DogeDeckReshuffled: _deck_reshuffled,
    ev.SpecialInvestmentOpened: _special_opened,
    ev.GameEnded: _game_ended,
}, "describe")


def describe(event: Event, before: State, names: Sequence[str]) -> Sentence | None:
    """The event in words; every Serenissima event says something, so never None."""
    return SAY[type(event)](event, before, names)


ROUND = "round"


def final_said(name: str, total: int, breakdown: dict[str, Any]) -> str:
    """A seat's final score in one sentence, from its breakdown (scoring.scores): ducats, then the tie-break."""
    ducats = "hidden ducats" if breakdown.get("ducats") == "hidden" else f"{breakdown.get('ducats', total)} ducats"
    ports = breakdown.get("port_cards", 0)
    galleys = breakdown.get("galleys", 0)
    return (f"{name}: {ducats}, with {ports} Port card{'' if ports == 1 else 's'} (the most Port cards breaks a tie) "
            f"and {galleys} galle{'y' if galleys == 1 else 'ys'} at sea.")
