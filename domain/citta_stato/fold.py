"""evolve: one small function per event type (HANDLERS). Pure and total.

The queue of steps (`State.tasks`) is derived here: an event that settles a step (`pops`)
removes the head first, and an event that starts effects (an action, a card taken, a scheme
chosen) queues them in front, so the order of effects is exactly the order on the card.
"""

from __future__ import annotations

import operator
from bisect import insort
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from domain.kernel import Event
from domain.kernel.events import every_event

from . import events as ev
from .edition import BI, CI, COLOURS, TITLE
from .state import (
    GHOST,
    ZERO6,
    Seat,
    SoloGame,
    State,
    Task,
    new_seat,
    new_state,
    order_from,
    setter,
    with_seat,
    with_tasks,
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


def set_seat(state: State, i: int, seat: Seat) -> tuple[Seat, ...]:
    return put(state.seats, i, seat)


# Positional copies for the hottest handlers (state.setter): half the cost of new_state / new_seat.
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
_state_seats = setter(State, "seats")
_state_first_current = setter(State, "first", "current")
_state_round_reset = setter(State, "round", "first", "current", "next_first", "upgrade", "schemes_up", "removed", "seats", "tasks")
_seat_ghost_reset = setter(Seat, "bag", "supply", "passed")
_is_passed = attrgetter("passed")
_state_current_tasks = setter(State, "current", "tasks")
_state_seats_tasks = setter(State, "seats", "tasks")
_state_after_action = setter(State, "seats", "market", "present", "upgrade", "tasks")
_state_after_pass = setter(State, "seats", "next_first", "tasks")
_state_seats_market_tasks = setter(State, "seats", "market", "tasks")
_state_seats_reserve_tasks = setter(State, "seats", "reserve", "tasks")
_state_seats_warfare_tasks = setter(State, "seats", "warfare", "tasks")
_state_seats_present_tasks = setter(State, "seats", "present", "tasks")
_state_seats_future_tasks = setter(State, "seats", "future", "tasks")
_state_seats_present_discards_tasks = setter(State, "seats", "present", "discards", "tasks")
_state_cards = setter(State, "present", "future", "decks", "discards", "tasks")
_state_schemes_up_tasks = setter(State, "schemes_up", "tasks")
_state_market_box_reserve_tasks = setter(State, "market", "box", "reserve", "tasks")


def place_in_market(market: tuple[tuple[bool, ...], ...], colour: str) -> tuple[tuple[tuple[bool, ...], ...], bool]:
    """First free space of the cube's own column, from the top; False when the column is full."""
    i = CI[colour]
    col = market[i]
    for r, filled in enumerate(col):
        if not filled:
            return put(market, i, put(col, r, True)), True
    return market, False


def take_from_market(state: State, colour: str, cost: int) -> tuple[tuple[bool, ...], ...]:
    i = CI[colour]
    r = state.t.row_costs.index(cost)
    return put(state.market, i, put(state.market[i], r, False))


def effect_tasks(state: State, seat: int, effects: tuple[tuple[Any, ...], ...], card: str = "") -> tuple[Task, ...]:
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


def _effect_tasks(state: State, seat: int, effects: tuple[tuple[Any, ...], ...], card: str) -> tuple[Task, ...]:
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


def end_of_round_tasks(state: State) -> tuple[Task, ...]:
    at_war = {s for s, _ in state.warfare}
    shifts = tuple(("war_shift", s) for s in order_from(state, state.first) if s not in at_war)
    return shifts + _END_OF_ROUND


_END_OF_ROUND: tuple[Task, ...] = (
    (("war_reveal", -1), ("war_outcome", -1), ("war_end", -1)) + tuple(("renew", -1, c) for c in COLOURS) + (("reset", -1),)
)


def _push(tasks: tuple[Task, ...], *new: Task) -> tuple[Task, ...]:
    return new + tasks


# --- setup -------------------------------------------------------------------------------
def _game_started(s: State, e: ev.GameStarted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    t = s.t
    n = e.players
    reserve = tuple(b + (x if e.expansion else 0) for b, x in zip(t.cubes_base, t.cubes_expansion, strict=True))
    discs = tuple(v for v in t.disc_values if v not in t.discs_removed.get(n, ()))
    seat = Seat(form=t.rep_start, discs=discs)
    return new_state(
        s,
        players=n,
        expansion=e.expansion,
        upgrade=t.upgrade_start[n],
        reserve=reserve,
        seats=(seat,) * n,
        decks=t.decks[e.expansion],
        scheme_pool=t.scheme_pool[e.expansion],
        pool=tuple(sorted(t.swap_pool)),
        market=((False,) * len(t.row_costs),) * 6,
        tasks=tasks,
    )


def _cities_dealt(s: State, e: ev.CitiesDealt, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _state_seats(s, tuple(_seat_city(seat, c) for seat, c in zip(s.seats, e.cities, strict=True)))


def _personal_scheme(s: State, e: ev.PersonalSchemeDealt, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = new_seat(s.seats[e.seat], scheme=e.scheme)
    return new_state(s, seats=set_seat(s, e.seat, seat), scheme_pool=without(s.scheme_pool, e.scheme))


def _schemes_placed(s: State, e: ev.SchemesPlaced, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    pool = s.scheme_pool
    for k in e.slots:
        pool = without(pool, k)
    return new_state(s, schemes=e.slots, schemes_up=(True,) * len(e.slots), scheme_pool=pool)


def _republic_dealt(s: State, e: ev.RepublicCardsDealt, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _state_seats(s, tuple(_seat_republic(seat, c) for seat, c in zip(s.seats, e.cards, strict=True)))


def _cards_revealed(s: State, e: ev.CardsRevealed, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    i = CI[e.colour]
    deck = s.decks[i]
    for card in (e.present, e.future):
        if card:
            deck = without(deck, card)
    return _state_cards(s, put(s.present, i, e.present), put(s.future, i, e.future), put(s.decks, i, deck), s.discards, tasks)


def _first_player(s: State, e: ev.FirstPlayerChosen, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _state_first_current(s, e.seat, e.seat)


def _city_cubes(s: State, e: ev.CityCubesPlaced, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    t = s.t
    seat = s.seats[e.seat]
    to_supply, to_market, taken = t.city_cubes[seat.city]  # the bag's cubes and the card's 8 leave the reserve
    bag = t.bag_start
    market = s.market
    for c in to_market:
        market, placed = place_in_market(market, c)
        if not placed:
            bag = add(bag, CI[c])
    seat = _seat_bag_supply(seat, bag, tuple(map(operator.add, seat.supply, to_supply)))
    return new_state(s, seats=set_seat(s, e.seat, seat), reserve=tuple(map(operator.sub, s.reserve, taken)), market=market)


def _setup_completed(s: State, e: ev.SetupCompleted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    keep = tuple(r if c in ("W", "B") else 0 for r, c in zip(s.reserve, COLOURS, strict=True))  # W/B stay in the reserve
    box = tuple(b + r - k for b, r, k in zip(s.box, s.reserve, keep, strict=True))
    return new_state(s, reserve=keep, box=box, phase="turns", current=s.first)


# --- turns -------------------------------------------------------------------------------
def _action_taken(s: State, e: ev.ActionTaken, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    t = s.t
    i = e.seat
    seat = s.seats[i]
    n = seat.actions + 1
    paid = e.paid
    supply = add_cubes(seat.supply, paid, -1)
    bag = seat.bag
    market = s.market
    if n == 1:
        market, placed = place_in_market(market, paid[0])
        if not placed:
            bag = add_cubes(bag, paid)
    else:
        bag = add_cubes(bag, paid)
    action = e.action
    present = s.present
    upgrade = s.upgrade
    new: tuple[Task, ...]
    if action == "city":
        seat = _seat_bag_supply_actions(seat, bag, supply, n)
        new = _city_action_tasks(s, seat, i, e.colour)
    elif action == "use":
        present = put(present, CI[e.colour], "")
        seat = _seat_after_use(seat, bag, supply, n, seat.cards + (e.card,))
        new = effect_tasks(s, i, t.card_effects[e.card], e.card)
    elif action == "burn":
        ci = CI[e.colour]
        present = put(present, ci, "")
        count = seat.burned[ci] + 1
        seat = _seat_after_burn(seat, bag, supply, n, add(seat.burned, ci), seat.burned_cards + (e.card,))
        new = effect_tasks(s, i, t.burn_bonus[ci][count])
    else:  # upgrade
        ti = BI[e.colour]
        space = seat.tracks[ti] + 1
        seat = _seat_after_upgrade(seat, bag, supply, n, put(seat.tracks, ti, space))
        upgrade -= 1
        new = effect_tasks(s, i, t.track_rewards[ti].get(space, ()))
    end = _SOLO_TURN_END[i] if s.solo else _TURN_END[i]
    return _state_after_action(s, set_seat(s, i, seat), market, present, upgrade, new + end + tasks)


# The steps that close a turn, by seat: the Ghost acts after each of the human's turns in a solo game.
_TURN_END: tuple[tuple[Task, ...], ...] = tuple((("end_turn", i),) for i in range(8))
_SOLO_TURN_END: tuple[tuple[Task, ...], ...] = tuple((("ghost_turn", GHOST), ("end_turn", i)) for i in range(8))


def _city_action_tasks(s: State, seat: Seat, i: int, colour: str) -> tuple[Task, ...]:
    t = s.t
    if colour == "Y":
        return (("fleet", i, t.track_values[0][seat.tracks[0] - 1]),)
    if colour == "W":
        return effect_tasks(s, i, t.city_ability[seat.city]) + (("banner_any", i, "", t.city_banner - 1),)
    if colour == "G":
        return (("draw", i, t.track_values[1][seat.tracks[1] - 1]),)
    if colour == "O":  # VP by the orange track, then a disc unless this seat's disc is already on the track
        vp: Task = ("vp", i, "fixed", t.track_values[2][seat.tracks[2] - 1])
        return (vp,) if any(d[0] == i for d in s.warfare) else (vp, ("war_disc", i))
    if colour == "B":
        return (("trade", i),)
    return (("scheme", i),)


def _passed(s: State, e: ev.Passed, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = set_seat(s, e.seat, _seat_passed(s.seats[e.seat], True))
    next_first = s.next_first
    if next_first < 0 and e.seat != s.first:
        next_first = e.seat
    if all(map(_is_passed, seats)):  # (ghost_rest and end_of_round_tasks read nothing this event changes)
        tasks = ghost_rest(s) + end_of_round_tasks(s) + tasks
    else:
        tasks = (("end_turn", e.seat),) + tasks
    return _state_after_pass(s, seats, next_first, tasks)


def _future_revealed(s: State, e: ev.FutureRevealed, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    i = CI[e.colour]
    return new_state(s, future=put(s.future, i, e.card), decks=put(s.decks, i, without(s.decks[i], e.card)), tasks=tasks)


def _turn_ended(s: State, e: ev.TurnEnded, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _state_current_tasks(s, e.next, tasks)


def _after_stop(s: State, popped: Task | None, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
    if popped is not None and popped[0] == "market_swap" and popped[3] > 0:
        return _push(tasks, ("market_place", popped[1], popped[3]))
    return tasks


def _skipped(s: State, e: ev.StepSkipped, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return with_tasks(s, _after_stop(s, popped, tasks))


def _declined(s: State, e: ev.Declined, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return with_tasks(s, _after_stop(s, popped, tasks))


def used_schemes(s: State) -> int:
    """Board schemes used this round; those the Ghost turned down were removed, not used."""
    return sum(1 for up in s.schemes_up if not up) - len(s.removed)


def _accepted(s: State, e: ev.Accepted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None and popped[0] == "amalfi_draw"
    return with_tasks(s, _push(tasks, ("draw", e.seat, popped[2] * used_schemes(s))))


def _cube_bought(s: State, e: ev.CubeBought, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    seat = s.seats[e.seat]
    seat = _seat_supply(seat, add(seat.supply, CI[e.colour]))
    left = popped[2] - e.cost
    if left > 0:
        tasks = _push(tasks, ("fleet", e.seat, left))
    return _state_seats_market_tasks(s, set_seat(s, e.seat, seat), take_from_market(s, e.colour, e.cost), tasks)


def _banner_gained(s: State, e: ev.BannerGained, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    seat = _seat_banners(seat, add(seat.banners, BI[e.colour]))
    if popped is not None and popped[0] == "banner_any" and popped[3] > 0:
        tasks = _push(tasks, ("banner_any", e.seat, popped[2] + e.colour, popped[3] - 1))
    return with_seat(s, e.seat, seat, tasks)


def _banner_returned(s: State, e: ev.BannerReturned, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    seat = s.seats[e.seat]
    seat = new_seat(seat, banners=add(seat.banners, BI[e.colour], -1))
    if popped[0] == "gaeta":
        tasks = _push(tasks, ("banner_any", e.seat, "", 0))
    else:  # goodwill: the Future card of the banner's colour
        tasks = _push(tasks, ("take_card", e.seat, "future", e.colour, 0))
    return with_seat(s, e.seat, seat, tasks)


def _cube_gained(s: State, e: ev.CubeGained, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    if not e.got:
        return with_tasks(s, tasks)
    i = CI[e.colour]
    seat = s.seats[e.seat]
    seat = _seat_supply(seat, add(seat.supply, i))
    return _state_seats_reserve_tasks(s, set_seat(s, e.seat, seat), add(s.reserve, i, -1), tasks)


def _crowns_gained(s: State, e: ev.CrownsGained, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    return new_state(s, seats=set_seat(s, e.seat, new_seat(seat, crowns=seat.crowns + e.crowns)), tasks=tasks)


def _cubes_drawn(s: State, e: ev.CubesDrawn, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    seat = _seat_bag_supply(seat, add_cubes(seat.bag, e.cubes, -1), add_cubes(seat.supply, e.cubes))
    if 0 <= e.keep < len(e.cubes):
        held = add_cubes((0,) * 6, e.cubes)
        tasks = _push(tasks, ("return", e.seat, len(e.cubes) - e.keep, held))
    return with_seat(s, e.seat, seat, tasks)


def _cube_returned(s: State, e: ev.CubeReturned, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    i = CI[e.colour]
    seat = s.seats[e.seat]
    seat = _seat_bag_supply(seat, add(seat.bag, i), add(seat.supply, i, -1))
    if popped[2] > 1:
        tasks = _push(tasks, ("return", e.seat, popped[2] - 1, add(popped[3], i, -1)))
    return with_seat(s, e.seat, seat, tasks)


def _vp_scored(s: State, e: ev.VpScored, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    seat = _seat_vp(seat, seat.vp + e.vp) if e.score == "first" else new_seat(seat, second=seat.second + e.vp)
    return with_seat(s, e.seat, seat, tasks)


_SIGN = {"left": -1, "right": 1, "none": 0}


def _form_shifted(s: State, e: ev.FormShifted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    step = _SIGN[e.direction] * e.spaces
    if not step:
        return with_tasks(s, tasks)
    seats = list(s.seats)
    top = s.t.rep_spaces
    for i in e.seats:
        seats[i] = _seat_form(seats[i], max(1, min(top, seats[i].form + step)))  # clamped to the track
    return _state_seats_tasks(s, tuple(seats), tasks)


def _disc_placed(s: State, e: ev.WarDiscPlaced, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    seat = _seat_discs(seat, without(seat.discs, e.value))
    return _state_seats_warfare_tasks(s, set_seat(s, e.seat, seat), s.warfare + ((e.seat, e.value),), tasks)


def _scheme_chosen(s: State, e: ev.SchemeChosen, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    t = s.t
    new = effect_tasks(s, e.seat, t.scheme_effects[e.scheme])
    if e.slot == 0:
        seat = new_seat(s.seats[e.seat], scheme_used=True)
        return with_seat(s, e.seat, seat, new + tasks)
    if e.slot >= t.shift_from:
        new = new + (("shift_all", e.seat, t.scheme_shift[e.scheme]),)
    return _state_schemes_up_tasks(s, put(s.schemes_up, e.slot - 1, False), new + tasks)


def _banners_traded(s: State, e: ev.BannersTraded, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    need, crowns = s.t.trades[e.trade]
    seat = s.seats[e.seat]
    seat = new_seat(seat, banners=tuple(b - k for b, k in zip(seat.banners, need, strict=True)), crowns=seat.crowns + crowns)
    return with_seat(s, e.seat, seat, tasks)


def _retire(seat: Seat, value: int) -> Seat:
    return new_seat(seat, discs=without(seat.discs, value), retired=with_sorted(seat.retired, value))


def _alliance(s: State, e: ev.AllianceDiscRemoved, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = s.seats
    for i in (e.seat, *e.others):
        seats = put(seats, i, _retire(seats[i], e.value))
    return new_state(s, seats=seats, tasks=_push(tasks, ("draw", e.seat, e.value)))


def _card_taken(s: State, e: ev.CardTaken, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    t = s.t
    ci = CI[e.card[0]]
    seat = s.seats[e.seat]
    if e.mode == "use":
        if e.source != "supply":
            seat = new_seat(seat, cards=seat.cards + (e.card,))
        new = effect_tasks(s, e.seat, t.card_effects[e.card], e.card)
    else:
        cards = without(seat.cards, e.card) if e.source == "supply" else seat.cards
        count = seat.burned[ci] + 1
        seat = new_seat(seat, cards=cards, burned=add(seat.burned, ci), burned_cards=seat.burned_cards + (e.card,))
        new = effect_tasks(s, e.seat, t.burn_bonus[ci][count])
    if e.source == "present":
        return _state_seats_present_tasks(s, set_seat(s, e.seat, seat), put(s.present, ci, ""), new + tasks)
    if e.source == "future":
        return _state_seats_future_tasks(s, set_seat(s, e.seat, seat), put(s.future, ci, ""), new + tasks)
    return with_seat(s, e.seat, seat, new + tasks)


def _burned_under(s: State, e: ev.CardBurnedUnder, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    pi = CI[e.position]
    seat = s.seats[e.seat]
    count = seat.burned[pi] + 1
    seat = new_seat(seat, cards=without(seat.cards, e.card), burned=add(seat.burned, pi), burned_cards=seat.burned_cards + (e.card,))
    new = effect_tasks(s, e.seat, s.t.burn_bonus[pi][count])
    return with_seat(s, e.seat, seat, new + tasks)


def _market_taken(s: State, e: ev.MarketCubeTaken, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    seat = s.seats[e.seat]
    seat = new_seat(seat, supply=add(seat.supply, CI[e.colour]))
    taken = popped[3] + 1
    if taken < popped[2]:
        tasks = _push(tasks, ("market_swap", e.seat, popped[2], taken))
    else:
        tasks = _push(tasks, ("market_place", e.seat, taken))
    return _state_seats_market_tasks(s, set_seat(s, e.seat, seat), take_from_market(s, e.colour, e.cost), tasks)


def _market_placed(s: State, e: ev.MarketCubePlaced, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    i = CI[e.colour]
    seat = s.seats[e.seat]
    market, placed = place_in_market(s.market, e.colour)
    seat = new_seat(seat, supply=add(seat.supply, i, -1), bag=seat.bag if placed else add(seat.bag, i))
    if popped[2] > 1:
        tasks = _push(tasks, ("market_place", e.seat, popped[2] - 1))
    return new_state(s, seats=set_seat(s, e.seat, seat), market=market, tasks=tasks)


def _banners_discarded(s: State, e: ev.BannersDiscarded, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    seat = s.seats[e.seat]
    seat = new_seat(seat, banners=add(seat.banners, BI[e.colour], -e.count))
    return new_state(s, seats=set_seat(s, e.seat, seat), tasks=_push(tasks, ("vp", e.seat, "fixed", e.count * popped[3])))


def _colour_chosen(s: State, e: ev.ColourChosen, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    kind = popped[0]
    if kind == "draw_colour_choice":
        new: tuple[Task, ...] = (("draw_colours", e.seat, e.colour),)
    elif kind == "plot":
        new = tuple(("vp", i, "per_cube", e.colour, popped[2]) for i in order_from(s, e.seat))
    else:  # noli: the position is chosen, now the card
        new = (("noli_card", e.seat, e.colour),)
    return with_tasks(s, new + tasks)


def _republic_drawn(s: State, e: ev.RepublicDrawn, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return new_state(s, pool=without(s.pool, e.card), tasks=_push(tasks, ("keep_republic", e.seat, e.card)))


def _republic_kept(s: State, e: ev.RepublicKept, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = new_seat(s.seats[e.seat], republic=e.kept)
    return new_state(s, seats=set_seat(s, e.seat, seat), pool=with_sorted(s.pool, e.returned), tasks=tasks)


def _cubes_removed(s: State, e: ev.CubesRemoved, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    i = CI[e.colour]
    seat = s.seats[e.seat]
    seat = new_seat(seat, supply=add(seat.supply, i, -e.count))
    tasks = _push(tasks, ("vp", e.seat, "fixed", e.count * popped[3]))
    return new_state(s, seats=set_seat(s, e.seat, seat), box=add(s.box, i, e.count), tasks=tasks)


def _disc_recovered(s: State, e: ev.WarDiscRecovered, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    seat = new_seat(seat, retired=without(seat.retired, e.value), discs=with_sorted(seat.discs, e.value))
    return new_state(s, seats=set_seat(s, e.seat, seat), tasks=_push(tasks, ("vp", e.seat, "fixed", e.value)))


def _disc_retired(s: State, e: ev.WarDiscRetired, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = _retire(s.seats[e.seat], e.value)
    return new_state(s, seats=set_seat(s, e.seat, seat), tasks=_push(tasks, ("vp", e.seat, "fixed", e.value)))


def _decree(s: State, e: ev.DecreeUpgrade, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    ti = BI[e.colour]
    seat = s.seats[e.seat]
    space = seat.tracks[ti] + 1
    seat = new_seat(seat, banners=add(seat.banners, ti, -1), tracks=put(seat.tracks, ti, space))
    new = effect_tasks(s, e.seat, s.t.track_rewards[ti].get(space, ()))
    return with_seat(s, e.seat, seat, new + tasks)


def _crowns_removed(s: State, e: ev.CrownsRemoved, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    seat = s.seats[e.seat]
    seat = new_seat(seat, crowns=seat.crowns - e.count)
    return new_state(s, seats=set_seat(s, e.seat, seat), tasks=_push(tasks, ("vp", e.seat, "fixed", e.count * popped[2])))


def _crown_stolen(s: State, e: ev.CrownStolen, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = put(s.seats, e.victim, new_seat(s.seats[e.victim], crowns=s.seats[e.victim].crowns - 1))
    seats = put(seats, e.seat, new_seat(seats[e.seat], crowns=seats[e.seat].crowns + 1))
    return new_state(s, seats=seats, tasks=tasks)


# --- end of round ------------------------------------------------------------------------
def _war_revealed(s: State, e: ev.WarRevealed, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    pay = tuple(("war_pay", seat, value) for seat, value in e.discs if value > 0)
    return new_state(s, revealed=True, tasks=pay + tasks)


def _cube_to_bag(s: State, seat_index: int, colour: str, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    """One cube from a seat's supply to its bag; the step comes back while cubes are still owed."""
    assert popped is not None
    i = CI[colour]
    seat = s.seats[seat_index]
    seat = _seat_bag_supply(seat, add(seat.bag, i), add(seat.supply, i, -1))
    if popped[2] > 1:
        tasks = _push(tasks, (popped[0], seat_index, popped[2] - 1))
    return with_seat(s, seat_index, seat, tasks)


def _war_paid(s: State, e: ev.WarPaid, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _cube_to_bag(s, e.seat, e.colour, popped, tasks)


def _war_forfeited(s: State, e: ev.WarForfeited, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seat = s.seats[e.seat]
    value = next(v for i, v in s.warfare if i == e.seat)
    seat = new_seat(
        seat,
        supply=add_cubes(seat.supply, e.paid, -1),
        bag=add_cubes(seat.bag, e.paid),
        retired=with_sorted(seat.retired, value),
    )
    warfare = tuple(d for d in s.warfare if d[0] != e.seat)
    return new_state(s, seats=set_seat(s, e.seat, seat), warfare=warfare, tasks=tasks)


def _war_won(s: State, e: ev.WarWon, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    new = (("take_card", e.seat, "present+future", "", 0),) + tuple(("take_card", i, "present", "", 1) for i in e.losers)
    return with_tasks(s, new + tasks)


def _war_ended(s: State, e: ev.WarEnded, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = list(s.seats)
    for i, value in s.warfare:
        seats[i] = _seat_retired(seats[i], with_sorted(seats[i].retired, value))
    return new_state(s, seats=tuple(seats), warfare=(), revealed=False, tasks=tasks)


def renewed(s: State, i: int, drawn: tuple[str, ...], rebuilt_after: int) -> tuple[str, str, tuple[str, ...], tuple[str, ...]]:
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


def _cards_renewed(s: State, e: ev.CardsRenewed, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    i = CI[e.colour]
    present, future, deck, discards = renewed(s, i, e.drawn, e.rebuilt_after)
    return _state_cards(s, put(s.present, i, present), put(s.future, i, future), put(s.decks, i, deck), put(s.discards, i, discards), tasks)


def cards_renewed_all(s: State, events: list[ev.CardsRenewed]) -> State:
    """The End of Round's New Cards (one CardsRenewed per colour, each settling the renew step at the
    head of the queue) folded in one copy of the state.

    Each colour's renewal reads and writes only that colour, so this is exactly the state that
    folding the events one by one gives (tests/contract/test_game_contract.py checks it).
    """
    present, future, decks, discards = list(s.present), list(s.future), list(s.decks), list(s.discards)
    for e in events:
        i = CI[e.colour]
        present[i], future[i], decks[i], discards[i] = renewed(s, i, e.drawn, e.rebuilt_after)
    return _state_cards(s, tuple(present), tuple(future), tuple(decks), tuple(discards), s.tasks[len(events) :])


def _round_reset(s: State, e: ev.RoundReset, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = tuple(_seat_round_reset(x, 0, False, False) for x in s.seats)
    upgrade = s.t.upgrade_start[s.players]
    if s.solo:  # the Ghost's drawn cubes go back to its bag; it never takes a turn of its own
        g = s.seats[GHOST]
        seats = put(seats, GHOST, _seat_ghost_reset(seats[GHOST], tuple(map(operator.add, g.bag, g.supply)), ZERO6, True))
        upgrade = s.t.solo.upgrade[s.solo.game]  # type: ignore[union-attr]
    new = _ROUND_DRAWS.get((s.players, e.first)) or round_draws(s.players, e.first)
    if e.round > s.t.rounds:
        new = new + (("final", -1),)
    return _state_round_reset(s, e.round, e.first, e.first, -1, upgrade, (True,) * len(s.schemes), (), seats, new + tasks)


def round_draws(players: int, first: int) -> tuple[Task, ...]:
    """Each seat's draw of the new round, in turn order from the first player."""
    return tuple(("round_draw", (first + k) % players) for k in range(players))


_ROUND_DRAWS = {(n, first): round_draws(n, first) for n in range(1, 9) for first in range(n)}


def _second_started(s: State, e: ev.SecondScoringStarted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    new = tuple(("second", i, c) for c in s.t.second_order for i in order_from(s, s.first))
    return with_tasks(s, new + (("form_crowns", -1), ("game_end", -1)) + tasks)


def _form_crowns(s: State, e: ev.FormCrownsTaken, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    seats = tuple(new_seat(x, crowns=x.crowns + k) for x, k in zip(s.seats, e.crowns, strict=True))
    return new_state(s, seats=seats, tasks=tasks)


def _game_ended(s: State, e: ev.GameEnded, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return new_state(s, phase="over", finals=e.finals, tasks=tasks)


# --- solo: the Ghost ---------------------------------------------------------------------
def ghost_rest(s: State) -> tuple[Task, ...]:
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


def _solo_started(s: State, e: ev.SoloStarted, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    solo = s.t.solo
    assert solo is not None
    sc = solo.scenarios[e.scenario]
    human = new_seat(s.seats[0], crowns=s.seats[0].crowns + e.carried_crowns)
    ghost = new_seat(s.seats[GHOST], discs=solo.ghost_discs, vp=sc.required[e.game], passed=True)
    return new_state(
        s,
        solo=SoloGame(e.scenario, e.game, e.carried_crowns),
        upgrade=solo.upgrade[e.game],
        pool=sc.pool,
        seats=(human, ghost),
        tasks=tasks,
    )


def _ghost_set_up(s: State, e: ev.GhostSetUp, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    reserve = add_cubes(add_cubes(s.reserve, e.bag, -1), e.market, -1)
    box = s.box
    market = s.market
    for c in e.market:
        market, placed = place_in_market(market, c)
        if not placed:
            box = add(box, CI[c])
    ghost = new_seat(s.seats[GHOST], bag=add_cubes(s.seats[GHOST].bag, e.bag))
    return new_state(s, seats=set_seat(s, GHOST, ghost), reserve=reserve, box=box, market=market, tasks=tasks)


def _ghost_drew(s: State, e: ev.GhostDrew, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    i = CI[e.cube]
    g = s.seats[GHOST]
    g = _seat_bag_supply_actions(g, add(g.bag, i, -1), add(g.supply, i), g.actions + 1)
    present, discards = s.present, s.discards
    if e.discarded:
        present, discards = put(present, i, ""), put(discards, i, inserted(discards[i], e.discarded))
    new = ghost_tasks(s.t.solo.scenarios[s.solo.scenario].actions.get(e.cube, ()))  # type: ignore[union-attr]
    return _state_seats_present_discards_tasks(s, set_seat(s, GHOST, g), present, discards, new + tasks)


def _market_row_cleared(s: State, e: ev.MarketRowCleared, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    r = s.t.row_costs.index(e.cost)
    market, box, reserve = list(s.market), list(s.box), list(s.reserve)
    to = s.t.solo.removed_to  # type: ignore[union-attr]
    for c in e.cubes:
        i = CI[c]
        market[i] = put(market[i], r, False)
        if to.get(c, "box") == "reserve":
            reserve[i] += 1
        else:
            box[i] += 1
    return _state_market_box_reserve_tasks(s, tuple(market), tuple(box), tuple(reserve), tasks)


def _schemes_removed(s: State, e: ev.SchemesRemoved, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    up = s.schemes_up
    for slot in e.slots:
        up = put(up, slot - 1, False)
    return new_state(s, schemes_up=up, removed=s.removed + e.slots, tasks=tasks)


def _track_moved_back(s: State, e: ev.TrackMovedBack, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    assert popped is not None
    ti = BI[e.colour]
    seat = s.seats[e.seat]
    seat = new_seat(seat, tracks=put(seat.tracks, ti, seat.tracks[ti] - 1))
    if popped[2] > 1:
        tasks = _push(tasks, ("track_back", e.seat, popped[2] - 1))
    return with_seat(s, e.seat, seat, tasks)


def _cube_bagged(s: State, e: ev.CubeBagged, popped: Task | None, tasks: tuple[Task, ...]) -> State:
    return _cube_to_bag(s, e.seat, e.colour, popped, tasks)


Handler = Callable[[State, Any, Task | None, tuple[Task, ...]], State]

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


def evolve(state: State, e: Event) -> State:
    hit = _SETUP_FOLD.get(id(e))
    if hit is not None and hit[1] is e and hit[0] is state:
        return hit[2]
    cls = type(e)
    tasks = state.tasks
    popped: Task | None = None
    if cls.pops:  # type: ignore[attr-defined]
        popped, tasks = tasks[0], tasks[1:]
    return HANDLERS[cls](state, e, popped, tasks)
