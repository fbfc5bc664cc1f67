"""evolve: one small function per event type (HANDLERS). Pure and total.

Each handler writes the fields its event changes onto a Draft, the state's fields as a mutable object
(state.Draft): `evolve` thaws a State, folds one event and freezes it again, and `rules.settle` folds a
whole command (its events and every automatic step after it) onto one Draft, so a decision's five or six
events make one new State, not one each.

The queue of steps (`State.tasks`) is derived here: an event that settles a step (`pops`)
removes the head first, and an event that starts effects (an action, a card taken, a scheme
chosen) queues them in front, so the order of effects is exactly the order on the card.
"""

from __future__ import annotations

import operator
from bisect import insort
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from domain.kernel import Event
from domain.kernel.events import every_event

from . import events as ev
from .edition import BI, CI, COLOURS, TITLE
from .state import (
    GHOST,
    ZERO6,
    Draft,
    Now,
    Seat,
    SoloGame,
    State,
    Task,
    freeze,
    new_seat,
    order_from,
    setter,
    thaw,
)


# --- small pure helpers ------------------------------------------------------------------
def add(counts: tuple[int, ...], i: int, k: int = 1) -> tuple[int, ...]:
    out = list(counts)
    out[i] += k
    return tuple(out)


def add_cubes(counts: tuple[int, ...], cubes: tuple[str, ...], sign: int = 1) -> tuple[int, ...]:
    out = list(counts)
    for c in cubes:
        out[CI[c]] += sign
    return tuple(out)


def put(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    out = list(items)
    out[i] = value
    return tuple(out)


def without(items: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    i = items.index(value)
    return items[:i] + items[i + 1 :]


def with_sorted(items: tuple[Any, ...], value: Any) -> tuple[Any, ...]:
    return tuple(sorted(items + (value,)))


def inserted(items: tuple[str, ...], card: str) -> tuple[str, ...]:
    """A discard pile (always kept sorted) with one more card: `with_sorted` without sorting the whole pile."""
    out = list(items)
    insort(out, card)
    return tuple(out)


# Positional copies of a Seat for the hottest handlers (state.setter): half the cost of new_seat.
_seat_supply = setter(Seat, "supply")
_seat_banners = setter(Seat, "banners")
_seat_vp = setter(Seat, "vp")
_seat_form = setter(Seat, "form")
_seat_discs = setter(Seat, "discs")
_seat_passed = setter(Seat, "passed")
_seat_bag_supply = setter(Seat, "bag", "supply")
_seat_bag_supply_actions = setter(Seat, "bag", "supply", "actions")
_seat_after_use = setter(Seat, "bag", "supply", "actions", "cards")
_seat_after_burn = setter(Seat, "bag", "supply", "actions", "burned", "burned_cards")
_seat_after_upgrade = setter(Seat, "bag", "supply", "actions", "tracks")
_seat_round_reset = setter(Seat, "actions", "passed", "scheme_used")
_seat_retired = setter(Seat, "retired")
_seat_city = setter(Seat, "city")
_seat_republic = setter(Seat, "republic")
_seat_ghost_reset = setter(Seat, "bag", "supply", "passed")
_is_passed = attrgetter("passed")


def place_in_market(market: tuple[tuple[bool, ...], ...], colour: str) -> tuple[tuple[tuple[bool, ...], ...], bool]:
    """First free space of the cube's own column, from the top; False when the column is full."""
    i = CI[colour]
    col = market[i]
    for r, filled in enumerate(col):
        if not filled:
            return put(market, i, put(col, r, True)), True
    return market, False


def take_from_market(state: Now, colour: str, cost: int) -> tuple[tuple[bool, ...], ...]:
    i = CI[colour]
    r = state.t.row_costs.index(cost)
    return put(state.market, i, put(state.market[i], r, False))


def effect_tasks(state: Now, seat: int, effects: tuple[tuple[Any, ...], ...], card: str = "") -> tuple[Task, ...]:
    """Turn an edition effect list into queued steps for `seat` (all-player effects fan out here).

    The steps depend on the list, the seat, the card, the number of players and the seat's city, no
    more, and every action and card asks: worked out once for each (the list, from the edition's
    tables, named by identity)."""
    if not effects:
        return ()
    key = (id(effects), seat, card, state.players, state.seats[seat].city)
    found = _EFFECT_TASKS.get(key)
    if found is None or found[0] is not effects:
        if len(_EFFECT_TASKS) >= 4096:
            _EFFECT_TASKS.clear()
        found = _EFFECT_TASKS[key] = (effects, _effect_tasks(state, seat, effects, card))
    return found[1]


_EFFECT_TASKS: dict[tuple[int, int, str, int, str], tuple[tuple[tuple[Any, ...], ...], tuple[Task, ...]]] = {}


def _effect_tasks(state: Now, seat: int, effects: tuple[tuple[Any, ...], ...], card: str) -> tuple[Task, ...]:
    out: list[Task] = []
    for eff in effects:
        k = eff[0]
        if k == "port":
            if state.seats[seat].city == eff[1]:
                out.append(("banner_any", seat, "", 0))
        elif k == "all_vp_per_cube":
            out.extend(("vp", s, "per_cube", eff[1], eff[2]) for s in order_from(state, seat))
        elif k == "diplomacy":
            out.extend(("vp", s, "diplomacy", eff[1]) for s in order_from(state, seat))
        elif k == "banner_distinct":
            out.append(("banner_any", seat, "", eff[1] - 1))
        elif k == "banner_any":
            out.append(("banner_any", seat, "", 0))
        elif k == "vp":
            out.append(("vp", seat, "fixed", eff[1]))
        elif k.startswith("vp_"):
            out.append(("vp", seat, k[3:], *eff[1:]))
        elif k == "burn_self":
            out.append(("burn_self", seat, card))
        elif k == "market_swap":
            out.append(("market_swap", seat, eff[1], 0))
        else:
            out.append((k, seat, *eff[1:]))
    return tuple(out)


def end_of_round_tasks(state: Now) -> tuple[Task, ...]:
    at_war = {s for s, _ in state.warfare}
    shifts = tuple(("war_shift", s) for s in order_from(state, state.first) if s not in at_war)
    return shifts + _END_OF_ROUND


_END_OF_ROUND: tuple[Task, ...] = (
    (("war_reveal", -1), ("war_outcome", -1), ("war_end", -1)) + tuple(("renew", -1, c) for c in COLOURS) + (("reset", -1),)
)


# --- setup -------------------------------------------------------------------------------
def _game_started(d: Draft, e: ev.GameStarted, popped: Task | None) -> None:
    t = d.t
    n = e.players
    d.players = n
    d.expansion = e.expansion
    d.upgrade = t.upgrade_start[n]
    d.reserve = tuple(b + (x if e.expansion else 0) for b, x in zip(t.cubes_base, t.cubes_expansion, strict=True))
    discs = tuple(v for v in t.disc_values if v not in t.discs_removed.get(n, ()))
    d.seats = (Seat(form=t.rep_start, discs=discs),) * n
    d.decks = t.decks[e.expansion]
    d.scheme_pool = t.scheme_pool[e.expansion]
    d.pool = tuple(sorted(t.swap_pool))
    d.market = ((False,) * len(t.row_costs),) * 6


def _cities_dealt(d: Draft, e: ev.CitiesDealt, popped: Task | None) -> None:
    d.seats = tuple(_seat_city(seat, c) for seat, c in zip(d.seats, e.cities, strict=True))


def _personal_scheme(d: Draft, e: ev.PersonalSchemeDealt, popped: Task | None) -> None:
    d.seats = put(d.seats, e.seat, new_seat(d.seats[e.seat], scheme=e.scheme))
    d.scheme_pool = without(d.scheme_pool, e.scheme)


def _schemes_placed(d: Draft, e: ev.SchemesPlaced, popped: Task | None) -> None:
    pool = d.scheme_pool
    for k in e.slots:
        pool = without(pool, k)
    d.schemes, d.schemes_up, d.scheme_pool = e.slots, (True,) * len(e.slots), pool


def _republic_dealt(d: Draft, e: ev.RepublicCardsDealt, popped: Task | None) -> None:
    d.seats = tuple(_seat_republic(seat, c) for seat, c in zip(d.seats, e.cards, strict=True))


def _cards_revealed(d: Draft, e: ev.CardsRevealed, popped: Task | None) -> None:
    i = CI[e.colour]
    deck = d.decks[i]
    for card in (e.present, e.future):
        if card:
            deck = without(deck, card)
    d.present, d.future, d.decks = put(d.present, i, e.present), put(d.future, i, e.future), put(d.decks, i, deck)


def _first_player(d: Draft, e: ev.FirstPlayerChosen, popped: Task | None) -> None:
    d.first = d.current = e.seat


def _city_cubes(d: Draft, e: ev.CityCubesPlaced, popped: Task | None) -> None:
    t = d.t
    seat = d.seats[e.seat]
    to_supply, to_market, taken = t.city_cubes[seat.city]  # the bag's cubes and the card's 8 leave the reserve
    bag = t.bag_start
    market = d.market
    for c in to_market:
        market, placed = place_in_market(market, c)
        if not placed:
            bag = add(bag, CI[c])
    seat = _seat_bag_supply(seat, bag, tuple(map(operator.add, seat.supply, to_supply)))
    d.seats = put(d.seats, e.seat, seat)
    d.reserve = tuple(map(operator.sub, d.reserve, taken))
    d.market = market


def _setup_completed(d: Draft, e: ev.SetupCompleted, popped: Task | None) -> None:
    keep = tuple(r if c in ("W", "B") else 0 for r, c in zip(d.reserve, COLOURS, strict=True))  # W/B stay in the reserve
    d.box = tuple(b + r - k for b, r, k in zip(d.box, d.reserve, keep, strict=True))
    d.reserve = keep
    d.phase = "turns"
    d.current = d.first


# --- turns -------------------------------------------------------------------------------
def _action_taken(d: Draft, e: ev.ActionTaken, popped: Task | None) -> None:
    t = d.t
    i = e.seat
    seat = d.seats[i]
    n = seat.actions + 1
    paid = e.paid
    supply = add_cubes(seat.supply, paid, -1)
    bag = seat.bag
    if n == 1:
        d.market, placed = place_in_market(d.market, paid[0])
        if not placed:
            bag = add_cubes(bag, paid)
    else:
        bag = add_cubes(bag, paid)
    action = e.action
    new: tuple[Task, ...]
    if action == "city":
        seat = _seat_bag_supply_actions(seat, bag, supply, n)
        new = _city_action_tasks(d, seat, i, e.colour)
    elif action == "use":
        d.present = put(d.present, CI[e.colour], "")
        seat = _seat_after_use(seat, bag, supply, n, seat.cards + (e.card,))
        new = effect_tasks(d, i, t.card_effects[e.card], e.card)
    elif action == "burn":
        ci = CI[e.colour]
        d.present = put(d.present, ci, "")
        count = seat.burned[ci] + 1
        seat = _seat_after_burn(seat, bag, supply, n, add(seat.burned, ci), seat.burned_cards + (e.card,))
        new = effect_tasks(d, i, t.burn_bonus[ci][count])
    else:  # upgrade
        ti = BI[e.colour]
        space = seat.tracks[ti] + 1
        seat = _seat_after_upgrade(seat, bag, supply, n, put(seat.tracks, ti, space))
        d.upgrade -= 1
        new = effect_tasks(d, i, t.track_rewards[ti].get(space, ()))
    d.seats = put(d.seats, i, seat)
    d.tasks = new + (_SOLO_TURN_END[i] if d.solo else _TURN_END[i]) + d.tasks


# The steps that close a turn, by seat: the Ghost acts after each of the human's turns in a solo game.
_TURN_END: tuple[tuple[Task, ...], ...] = tuple((("end_turn", i),) for i in range(8))
_SOLO_TURN_END: tuple[tuple[Task, ...], ...] = tuple((("ghost_turn", GHOST), ("end_turn", i)) for i in range(8))


def _city_action_tasks(s: Now, seat: Seat, i: int, colour: str) -> tuple[Task, ...]:
    t = s.t
    if colour == "Y":
        return (("fleet", i, t.track_values[0][seat.tracks[0] - 1]),)
    if colour == "W":
        return effect_tasks(s, i, t.city_ability[seat.city]) + (("banner_any", i, "", t.city_banner - 1),)
    if colour == "G":
        return (("draw", i, t.track_values[1][seat.tracks[1] - 1]),)
    if colour == "O":  # VP by the orange track, then a disc unless this seat's disc is already on the track
        vp: Task = ("vp", i, "fixed", t.track_values[2][seat.tracks[2] - 1])
        return (vp,) if any(w[0] == i for w in s.warfare) else (vp, ("war_disc", i))
    if colour == "B":
        return (("trade", i),)
    return (("scheme", i),)


def _passed(d: Draft, e: ev.Passed, popped: Task | None) -> None:
    seats = put(d.seats, e.seat, _seat_passed(d.seats[e.seat], True))
    if all(map(_is_passed, seats)):  # (ghost_rest and end_of_round_tasks read nothing this event changes)
        d.tasks = ghost_rest(d) + end_of_round_tasks(d) + d.tasks
    else:
        d.tasks = (("end_turn", e.seat),) + d.tasks
    if d.next_first < 0 and e.seat != d.first:
        d.next_first = e.seat
    d.seats = seats


def _future_revealed(d: Draft, e: ev.FutureRevealed, popped: Task | None) -> None:
    i = CI[e.colour]
    d.future, d.decks = put(d.future, i, e.card), put(d.decks, i, without(d.decks[i], e.card))


def _turn_ended(d: Draft, e: ev.TurnEnded, popped: Task | None) -> None:
    d.current = e.next


def _after_stop(d: Draft, popped: Task | None) -> None:
    if popped is not None and popped[0] == "market_swap" and popped[3] > 0:
        d.tasks = (("market_place", popped[1], popped[3]),) + d.tasks


def _skipped(d: Draft, e: ev.StepSkipped, popped: Task | None) -> None:
    _after_stop(d, popped)


def _declined(d: Draft, e: ev.Declined, popped: Task | None) -> None:
    _after_stop(d, popped)


def used_schemes(s: Now) -> int:
    """Board schemes used this round; those the Ghost turned down were removed, not used."""
    return sum(1 for up in s.schemes_up if not up) - len(s.removed)


def _accepted(d: Draft, e: ev.Accepted, popped: Task | None) -> None:
    assert popped is not None and popped[0] == "amalfi_draw"
    d.tasks = (("draw", e.seat, popped[2] * used_schemes(d)),) + d.tasks


def _cube_bought(d: Draft, e: ev.CubeBought, popped: Task | None) -> None:
    assert popped is not None
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_supply(seat, add(seat.supply, CI[e.colour])))
    d.market = take_from_market(d, e.colour, e.cost)
    left = popped[2] - e.cost
    if left > 0:
        d.tasks = (("fleet", e.seat, left),) + d.tasks


def _banner_gained(d: Draft, e: ev.BannerGained, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_banners(seat, add(seat.banners, BI[e.colour])))
    if popped is not None and popped[0] == "banner_any" and popped[3] > 0:
        d.tasks = (("banner_any", e.seat, popped[2] + e.colour, popped[3] - 1),) + d.tasks


def _banner_returned(d: Draft, e: ev.BannerReturned, popped: Task | None) -> None:
    assert popped is not None
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, banners=add(seat.banners, BI[e.colour], -1)))
    if popped[0] == "gaeta":
        d.tasks = (("banner_any", e.seat, "", 0),) + d.tasks
    else:  # goodwill: the Future card of the banner's colour
        d.tasks = (("take_card", e.seat, "future", e.colour, 0),) + d.tasks


def _cube_gained(d: Draft, e: ev.CubeGained, popped: Task | None) -> None:
    if not e.got:
        return
    i = CI[e.colour]
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_supply(seat, add(seat.supply, i)))
    d.reserve = add(d.reserve, i, -1)


def _crowns_gained(d: Draft, e: ev.CrownsGained, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, crowns=seat.crowns + e.crowns))


def _cubes_drawn(d: Draft, e: ev.CubesDrawn, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_bag_supply(seat, add_cubes(seat.bag, e.cubes, -1), add_cubes(seat.supply, e.cubes)))
    if 0 <= e.keep < len(e.cubes):
        held = add_cubes((0,) * 6, e.cubes)
        d.tasks = (("return", e.seat, len(e.cubes) - e.keep, held),) + d.tasks


def _cube_returned(d: Draft, e: ev.CubeReturned, popped: Task | None) -> None:
    assert popped is not None
    i = CI[e.colour]
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_bag_supply(seat, add(seat.bag, i), add(seat.supply, i, -1)))
    if popped[2] > 1:
        d.tasks = (("return", e.seat, popped[2] - 1, add(popped[3], i, -1)),) + d.tasks


def _vp_scored(d: Draft, e: ev.VpScored, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    seat = _seat_vp(seat, seat.vp + e.vp) if e.score == "first" else new_seat(seat, second=seat.second + e.vp)
    d.seats = put(d.seats, e.seat, seat)


_SIGN = {"left": -1, "right": 1, "none": 0}


def _form_shifted(d: Draft, e: ev.FormShifted, popped: Task | None) -> None:
    step = _SIGN[e.direction] * e.spaces
    if not step:
        return
    seats = list(d.seats)
    top = d.t.rep_spaces
    for i in e.seats:
        seats[i] = _seat_form(seats[i], max(1, min(top, seats[i].form + step)))  # clamped to the track
    d.seats = tuple(seats)


def _disc_placed(d: Draft, e: ev.WarDiscPlaced, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, _seat_discs(seat, without(seat.discs, e.value)))
    d.warfare = d.warfare + ((e.seat, e.value),)


def _scheme_chosen(d: Draft, e: ev.SchemeChosen, popped: Task | None) -> None:
    t = d.t
    new = effect_tasks(d, e.seat, t.scheme_effects[e.scheme])
    if e.slot == 0:
        d.seats = put(d.seats, e.seat, new_seat(d.seats[e.seat], scheme_used=True))
    else:
        if e.slot >= t.shift_from:
            new = new + (("shift_all", e.seat, t.scheme_shift[e.scheme]),)
        d.schemes_up = put(d.schemes_up, e.slot - 1, False)
    d.tasks = new + d.tasks


def _banners_traded(d: Draft, e: ev.BannersTraded, popped: Task | None) -> None:
    need, crowns = d.t.trades[e.trade]
    seat = d.seats[e.seat]
    seat = new_seat(seat, banners=tuple(b - k for b, k in zip(seat.banners, need, strict=True)), crowns=seat.crowns + crowns)
    d.seats = put(d.seats, e.seat, seat)


def _retire(seat: Seat, value: int) -> Seat:
    return new_seat(seat, discs=without(seat.discs, value), retired=with_sorted(seat.retired, value))


def _alliance(d: Draft, e: ev.AllianceDiscRemoved, popped: Task | None) -> None:
    seats = d.seats
    for i in (e.seat, *e.others):
        seats = put(seats, i, _retire(seats[i], e.value))
    d.seats = seats
    d.tasks = (("draw", e.seat, e.value),) + d.tasks


def _card_taken(d: Draft, e: ev.CardTaken, popped: Task | None) -> None:
    t = d.t
    ci = CI[e.card[0]]
    seat = d.seats[e.seat]
    if e.mode == "use":
        if e.source != "supply":
            seat = new_seat(seat, cards=seat.cards + (e.card,))
        new = effect_tasks(d, e.seat, t.card_effects[e.card], e.card)
    else:
        cards = without(seat.cards, e.card) if e.source == "supply" else seat.cards
        count = seat.burned[ci] + 1
        seat = new_seat(seat, cards=cards, burned=add(seat.burned, ci), burned_cards=seat.burned_cards + (e.card,))
        new = effect_tasks(d, e.seat, t.burn_bonus[ci][count])
    d.seats = put(d.seats, e.seat, seat)
    if e.source == "present":
        d.present = put(d.present, ci, "")
    elif e.source == "future":
        d.future = put(d.future, ci, "")
    d.tasks = new + d.tasks


def _burned_under(d: Draft, e: ev.CardBurnedUnder, popped: Task | None) -> None:
    pi = CI[e.position]
    seat = d.seats[e.seat]
    count = seat.burned[pi] + 1
    seat = new_seat(seat, cards=without(seat.cards, e.card), burned=add(seat.burned, pi), burned_cards=seat.burned_cards + (e.card,))
    new = effect_tasks(d, e.seat, d.t.burn_bonus[pi][count])
    d.seats = put(d.seats, e.seat, seat)
    d.tasks = new + d.tasks


def _market_taken(d: Draft, e: ev.MarketCubeTaken, popped: Task | None) -> None:
    assert popped is not None
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, supply=add(seat.supply, CI[e.colour])))
    d.market = take_from_market(d, e.colour, e.cost)
    taken = popped[3] + 1
    if taken < popped[2]:
        d.tasks = (("market_swap", e.seat, popped[2], taken),) + d.tasks
    else:
        d.tasks = (("market_place", e.seat, taken),) + d.tasks


def _market_placed(d: Draft, e: ev.MarketCubePlaced, popped: Task | None) -> None:
    assert popped is not None
    i = CI[e.colour]
    seat = d.seats[e.seat]
    d.market, placed = place_in_market(d.market, e.colour)
    d.seats = put(d.seats, e.seat, new_seat(seat, supply=add(seat.supply, i, -1), bag=seat.bag if placed else add(seat.bag, i)))
    if popped[2] > 1:
        d.tasks = (("market_place", e.seat, popped[2] - 1),) + d.tasks


def _banners_discarded(d: Draft, e: ev.BannersDiscarded, popped: Task | None) -> None:
    assert popped is not None
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, banners=add(seat.banners, BI[e.colour], -e.count)))
    d.tasks = (("vp", e.seat, "fixed", e.count * popped[3]),) + d.tasks


def _colour_chosen(d: Draft, e: ev.ColourChosen, popped: Task | None) -> None:
    assert popped is not None
    kind = popped[0]
    if kind == "draw_colour_choice":
        new: tuple[Task, ...] = (("draw_colours", e.seat, e.colour),)
    elif kind == "plot":
        new = tuple(("vp", i, "per_cube", e.colour, popped[2]) for i in order_from(d, e.seat))
    else:  # noli: the position is chosen, now the card
        new = (("noli_card", e.seat, e.colour),)
    d.tasks = new + d.tasks


def _republic_drawn(d: Draft, e: ev.RepublicDrawn, popped: Task | None) -> None:
    d.pool = without(d.pool, e.card)
    d.tasks = (("keep_republic", e.seat, e.card),) + d.tasks


def _republic_kept(d: Draft, e: ev.RepublicKept, popped: Task | None) -> None:
    d.seats = put(d.seats, e.seat, new_seat(d.seats[e.seat], republic=e.kept))
    d.pool = with_sorted(d.pool, e.returned)


def _cubes_removed(d: Draft, e: ev.CubesRemoved, popped: Task | None) -> None:
    assert popped is not None
    i = CI[e.colour]
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, supply=add(seat.supply, i, -e.count)))
    d.box = add(d.box, i, e.count)
    d.tasks = (("vp", e.seat, "fixed", e.count * popped[3]),) + d.tasks


def _disc_recovered(d: Draft, e: ev.WarDiscRecovered, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, retired=without(seat.retired, e.value), discs=with_sorted(seat.discs, e.value)))
    d.tasks = (("vp", e.seat, "fixed", e.value),) + d.tasks


def _disc_retired(d: Draft, e: ev.WarDiscRetired, popped: Task | None) -> None:
    d.seats = put(d.seats, e.seat, _retire(d.seats[e.seat], e.value))
    d.tasks = (("vp", e.seat, "fixed", e.value),) + d.tasks


def _decree(d: Draft, e: ev.DecreeUpgrade, popped: Task | None) -> None:
    ti = BI[e.colour]
    seat = d.seats[e.seat]
    space = seat.tracks[ti] + 1
    seat = new_seat(seat, banners=add(seat.banners, ti, -1), tracks=put(seat.tracks, ti, space))
    new = effect_tasks(d, e.seat, d.t.track_rewards[ti].get(space, ()))
    d.seats = put(d.seats, e.seat, seat)
    d.tasks = new + d.tasks


def _crowns_removed(d: Draft, e: ev.CrownsRemoved, popped: Task | None) -> None:
    assert popped is not None
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, crowns=seat.crowns - e.count))
    d.tasks = (("vp", e.seat, "fixed", e.count * popped[2]),) + d.tasks


def _crown_stolen(d: Draft, e: ev.CrownStolen, popped: Task | None) -> None:
    seats = put(d.seats, e.victim, new_seat(d.seats[e.victim], crowns=d.seats[e.victim].crowns - 1))
    d.seats = put(seats, e.seat, new_seat(seats[e.seat], crowns=seats[e.seat].crowns + 1))


# --- end of round ------------------------------------------------------------------------
def _war_revealed(d: Draft, e: ev.WarRevealed, popped: Task | None) -> None:
    d.revealed = True
    d.tasks = tuple(("war_pay", seat, value) for seat, value in e.discs if value > 0) + d.tasks


def _cube_to_bag(d: Draft, seat_index: int, colour: str, popped: Task | None) -> None:
    """One cube from a seat's supply to its bag; the step comes back while cubes are still owed."""
    assert popped is not None
    i = CI[colour]
    seat = d.seats[seat_index]
    d.seats = put(d.seats, seat_index, _seat_bag_supply(seat, add(seat.bag, i), add(seat.supply, i, -1)))
    if popped[2] > 1:
        d.tasks = ((popped[0], seat_index, popped[2] - 1),) + d.tasks


def _war_paid(d: Draft, e: ev.WarPaid, popped: Task | None) -> None:
    _cube_to_bag(d, e.seat, e.colour, popped)


def _war_forfeited(d: Draft, e: ev.WarForfeited, popped: Task | None) -> None:
    seat = d.seats[e.seat]
    value = next(v for i, v in d.warfare if i == e.seat)
    seat = new_seat(
        seat,
        supply=add_cubes(seat.supply, e.paid, -1),
        bag=add_cubes(seat.bag, e.paid),
        retired=with_sorted(seat.retired, value),
    )
    d.seats = put(d.seats, e.seat, seat)
    d.warfare = tuple(w for w in d.warfare if w[0] != e.seat)


def _war_won(d: Draft, e: ev.WarWon, popped: Task | None) -> None:
    new = (("take_card", e.seat, "present+future", "", 0),) + tuple(("take_card", i, "present", "", 1) for i in e.losers)
    d.tasks = new + d.tasks


def _war_ended(d: Draft, e: ev.WarEnded, popped: Task | None) -> None:
    seats = list(d.seats)
    for i, value in d.warfare:
        seats[i] = _seat_retired(seats[i], with_sorted(seats[i].retired, value))
    d.seats, d.warfare, d.revealed = tuple(seats), (), False


def renewed(s: Now, i: int, drawn: tuple[str, ...], rebuilt_after: int) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
    """New Cards for colour i: its Present, Future, deck and discards after `drawn` (see CardsRenewed)."""
    old = s.present[i]
    if rebuilt_after < 0 and len(drawn) == 1 and s.future[i]:  # the common case: the Future moves down, one card drawn
        (card,) = drawn
        return s.future[i], card, without(s.decks[i], card), inserted(s.discards[i], old) if old else s.discards[i]
    discards = s.discards[i] + ((old,) if old else ())
    present, future = s.future[i], ""
    deck = s.decks[i]
    for k, card in enumerate(drawn):
        if k == rebuilt_after:
            deck, discards = tuple(sorted(deck + discards)), ()
        deck = without(deck, card)
        if present:
            future = card
        else:
            present = card
    if rebuilt_after == len(drawn):
        deck, discards = tuple(sorted(deck + discards)), ()
    return present, future, deck, tuple(sorted(discards))


def _cards_renewed(d: Draft, e: ev.CardsRenewed, popped: Task | None) -> None:
    i = CI[e.colour]
    present, future, deck, discards = renewed(d, i, e.drawn, e.rebuilt_after)
    d.present, d.future, d.decks, d.discards = put(d.present, i, present), put(d.future, i, future), put(d.decks, i, deck), put(d.discards, i, discards)


def cards_renewed_all(d: Draft, events: list[ev.CardsRenewed]) -> None:
    """The End of Round's New Cards (one CardsRenewed per colour, each settling the renew step at the
    head of the queue) folded with one new tuple for each of the four card rows, not four a colour.

    Each colour's renewal reads and writes only that colour, so this is exactly what folding the
    events one by one gives (tests/contract/test_game_contract.py checks it).
    """
    present, future, decks, discards = list(d.present), list(d.future), list(d.decks), list(d.discards)
    for e in events:
        i = CI[e.colour]
        present[i], future[i], decks[i], discards[i] = renewed(d, i, e.drawn, e.rebuilt_after)
    d.present, d.future, d.decks, d.discards = tuple(present), tuple(future), tuple(decks), tuple(discards)
    d.tasks = d.tasks[len(events) :]


def _round_reset(d: Draft, e: ev.RoundReset, popped: Task | None) -> None:
    seats = tuple(_seat_round_reset(x, 0, False, False) for x in d.seats)
    if d.solo:  # the Ghost's drawn cubes go back to its bag; it never takes a turn of its own
        g = d.seats[GHOST]
        seats = put(seats, GHOST, _seat_ghost_reset(seats[GHOST], tuple(map(operator.add, g.bag, g.supply)), ZERO6, True))
        d.upgrade = d.t.solo.upgrade[d.solo.game]  # type: ignore[union-attr]
    else:
        d.upgrade = d.t.upgrade_start[d.players]
    new = _ROUND_DRAWS.get((d.players, e.first)) or round_draws(d.players, e.first)
    if e.round > d.t.rounds:
        new = new + (("final", -1),)
    d.round, d.first, d.current, d.next_first = e.round, e.first, e.first, -1
    d.schemes_up, d.removed, d.seats = (True,) * len(d.schemes), (), seats
    d.tasks = new + d.tasks


def round_draws(players: int, first: int) -> tuple[Task, ...]:
    """Each seat's draw of the new round, in turn order from the first player."""
    return tuple(("round_draw", (first + k) % players) for k in range(players))


_ROUND_DRAWS = {(n, first): round_draws(n, first) for n in range(1, 9) for first in range(n)}


def _second_started(d: Draft, e: ev.SecondScoringStarted, popped: Task | None) -> None:
    new = tuple(("second", i, c) for c in d.t.second_order for i in order_from(d, d.first))
    d.tasks = new + (("form_crowns", -1), ("game_end", -1)) + d.tasks


def _form_crowns(d: Draft, e: ev.FormCrownsTaken, popped: Task | None) -> None:
    d.seats = tuple(new_seat(x, crowns=x.crowns + k) for x, k in zip(d.seats, e.crowns, strict=True))


def _game_ended(d: Draft, e: ev.GameEnded, popped: Task | None) -> None:
    d.phase, d.finals = "over", e.finals


# --- solo: the Ghost ---------------------------------------------------------------------
def ghost_rest(s: Now) -> tuple[Task, ...]:
    """When the human passes, the Ghost finishes the round's actions it has left."""
    if not s.solo:
        return ()
    left = s.t.solo.scenarios[s.solo.scenario].draws - s.seats[GHOST].actions  # type: ignore[union-attr]
    return (("ghost_turn", GHOST),) * max(0, left)


def ghost_tasks(effects: tuple[tuple[Any, ...], ...]) -> tuple[Task, ...]:
    """A Ghost action's steps: the human's choices are the human's (seat 0), the rest run at once (Ghost seat).

    Worked out once per effect list (a scenario has six), as the Ghost acts after every human turn.
    """
    found = _GHOST_TASKS.get(id(effects))  # by identity (the list is the edition's): hashing it costs more than the rest
    if found is None or found[0] is not effects:
        if len(_GHOST_TASKS) >= 256:
            _GHOST_TASKS.clear()
        found = _GHOST_TASKS[id(effects)] = (effects, _ghost_tasks(effects))
    return found[1]


_GHOST_TASKS: dict[int, tuple[tuple[tuple[Any, ...], ...], tuple[Task, ...]]] = {}


def _ghost_tasks(effects: tuple[tuple[Any, ...], ...]) -> tuple[Task, ...]:
    out: list[Task] = []
    for eff in effects:
        if eff[0] == "human_track_back":
            out.append(("track_back", 0, eff[1]))
        elif eff[0] == "human_cube_to_bag":
            out.append(("cube_to_bag", 0, eff[1]))
        else:
            out.append((eff[0], GHOST, *eff[1:]))
    return tuple(out)


def _solo_started(d: Draft, e: ev.SoloStarted, popped: Task | None) -> None:
    solo = d.t.solo
    assert solo is not None
    sc = solo.scenarios[e.scenario]
    human = new_seat(d.seats[0], crowns=d.seats[0].crowns + e.carried_crowns)
    ghost = new_seat(d.seats[GHOST], discs=solo.ghost_discs, vp=sc.required[e.game], passed=True)
    d.solo = SoloGame(e.scenario, e.game, e.carried_crowns)
    d.upgrade, d.pool, d.seats = solo.upgrade[e.game], sc.pool, (human, ghost)


def _ghost_set_up(d: Draft, e: ev.GhostSetUp, popped: Task | None) -> None:
    reserve = add_cubes(add_cubes(d.reserve, e.bag, -1), e.market, -1)
    box = d.box
    market = d.market
    for c in e.market:
        market, placed = place_in_market(market, c)
        if not placed:
            box = add(box, CI[c])
    ghost = new_seat(d.seats[GHOST], bag=add_cubes(d.seats[GHOST].bag, e.bag))
    d.seats, d.reserve, d.box, d.market = put(d.seats, GHOST, ghost), reserve, box, market


def _ghost_drew(d: Draft, e: ev.GhostDrew, popped: Task | None) -> None:
    i = CI[e.cube]
    g = d.seats[GHOST]
    d.seats = put(d.seats, GHOST, _seat_bag_supply_actions(g, add(g.bag, i, -1), add(g.supply, i), g.actions + 1))
    if e.discarded:
        d.present, d.discards = put(d.present, i, ""), put(d.discards, i, inserted(d.discards[i], e.discarded))
    d.tasks = ghost_tasks(d.t.solo.scenarios[d.solo.scenario].actions.get(e.cube, ())) + d.tasks  # type: ignore[union-attr]


def _market_row_cleared(d: Draft, e: ev.MarketRowCleared, popped: Task | None) -> None:
    r = d.t.row_costs.index(e.cost)
    market, box, reserve = list(d.market), list(d.box), list(d.reserve)
    to = d.t.solo.removed_to  # type: ignore[union-attr]
    for c in e.cubes:
        i = CI[c]
        market[i] = put(market[i], r, False)
        if to.get(c, "box") == "reserve":
            reserve[i] += 1
        else:
            box[i] += 1
    d.market, d.box, d.reserve = tuple(market), tuple(box), tuple(reserve)


def _schemes_removed(d: Draft, e: ev.SchemesRemoved, popped: Task | None) -> None:
    up = d.schemes_up
    for slot in e.slots:
        up = put(up, slot - 1, False)
    d.schemes_up, d.removed = up, d.removed + e.slots


def _track_moved_back(d: Draft, e: ev.TrackMovedBack, popped: Task | None) -> None:
    assert popped is not None
    ti = BI[e.colour]
    seat = d.seats[e.seat]
    d.seats = put(d.seats, e.seat, new_seat(seat, tracks=put(seat.tracks, ti, seat.tracks[ti] - 1)))
    if popped[2] > 1:
        d.tasks = (("track_back", e.seat, popped[2] - 1),) + d.tasks


def _cube_bagged(d: Draft, e: ev.CubeBagged, popped: Task | None) -> None:
    _cube_to_bag(d, e.seat, e.colour, popped)


Handler = Callable[[Draft, Any, Task | None], None]  # (the draft, the event, the step it settled)

HANDLERS: dict[type[Event], Handler] = every_event(TITLE, {
    ev.GameStarted: _game_started,
    ev.CitiesDealt: _cities_dealt,
    ev.PersonalSchemeDealt: _personal_scheme,
    ev.SchemesPlaced: _schemes_placed,
    ev.RepublicCardsDealt: _republic_dealt,
    ev.CardsRevealed: _cards_revealed,
    ev.FirstPlayerChosen: _first_player,
    ev.CityCubesPlaced: _city_cubes,
    ev.SetupCompleted: _setup_completed,
    ev.ActionTaken: _action_taken,
    ev.Passed: _passed,
    ev.FutureRevealed: _future_revealed,
    ev.TurnEnded: _turn_ended,
    ev.StepSkipped: _skipped,
    ev.Declined: _declined,
    ev.Accepted: _accepted,
    ev.CubeBought: _cube_bought,
    ev.BannerGained: _banner_gained,
    ev.BannerReturned: _banner_returned,
    ev.CubeGained: _cube_gained,
    ev.CrownsGained: _crowns_gained,
    ev.CubesDrawn: _cubes_drawn,
    ev.CubeReturned: _cube_returned,
    ev.VpScored: _vp_scored,
    ev.FormShifted: _form_shifted,
    ev.WarDiscPlaced: _disc_placed,
    ev.SchemeChosen: _scheme_chosen,
    ev.BannersTraded: _banners_traded,
    ev.AllianceDiscRemoved: _alliance,
    ev.CardTaken: _card_taken,
    ev.CardBurnedUnder: _burned_under,
    ev.MarketCubeTaken: _market_taken,
    ev.MarketCubePlaced: _market_placed,
    ev.BannersDiscarded: _banners_discarded,
    ev.ColourChosen: _colour_chosen,
    ev.RepublicDrawn: _republic_drawn,
    ev.RepublicKept: _republic_kept,
    ev.CubesRemoved: _cubes_removed,
    ev.WarDiscRecovered: _disc_recovered,
    ev.WarDiscRetired: _disc_retired,
    ev.DecreeUpgrade: _decree,
    ev.CrownsRemoved: _crowns_removed,
    ev.CrownStolen: _crown_stolen,
    ev.WarRevealed: _war_revealed,
    ev.WarPaid: _war_paid,
    ev.WarForfeited: _war_forfeited,
    ev.WarWon: _war_won,
    ev.WarEnded: _war_ended,
    ev.CardsRenewed: _cards_renewed,
    ev.RoundReset: _round_reset,
    ev.SecondScoringStarted: _second_started,
    ev.FormCrownsTaken: _form_crowns,
    ev.GameEnded: _game_ended,
    ev.SoloStarted: _solo_started,
    ev.GhostSetUp: _ghost_set_up,
    ev.GhostDrew: _ghost_drew,
    ev.MarketRowCleared: _market_row_cleared,
    ev.SchemesRemoved: _schemes_removed,
    ev.TrackMovedBack: _track_moved_back,
    ev.CubeBagged: _cube_bagged,
}, "fold")

# The fold the last `setup` made on its way, by event id: (state before, event, state after). The kernel
# folds a setup's events again as soon as `setup` returns them (kernel.log.replay), from the same begin
# state (`CittaStato.begin` hands out one per edition) and with the very same event objects, so `evolve`
# hands back the state already worked out. Identity decides a hit, and `evolve` is pure, so a hit is
# always the state the handler would build; anything else (a stream read back from JSON) folds as usual.
_SETUP_FOLD: dict[int, tuple[State, Event, State]] = {}


def remember_setup(chain: dict[int, tuple[State, Event, State]]) -> None:
    global _SETUP_FOLD
    _SETUP_FOLD = chain


# Each event class's handler and whether its event settles the queue's head step, found with one lookup
# (`e.pops`, a class attribute read through the instance, is a slow attribute lookup in Python 3.11).
FOLD: dict[type[Event], tuple[Handler, bool]] = {cls: (handler, cls.pops) for cls, handler in HANDLERS.items()}  # type: ignore[attr-defined]


def fold_into(d: Draft, events: Sequence[Event]) -> None:
    """Fold `events` onto the draft, in order: each settling step is taken off the queue before its handler runs."""
    fold = FOLD
    for e in events:
        handler, pops = fold[type(e)]
        if pops:
            tasks = d.tasks
            d.tasks = tasks[1:]
            handler(d, e, tasks[0])
        else:
            handler(d, e, None)


def evolve(state: State, e: Event) -> State:
    hit = _SETUP_FOLD.get(id(e))
    if hit is not None and hit[1] is e and hit[0] is state:
        return hit[2]
    d = thaw(state)
    fold_into(d, (e,))
    return freeze(d)
