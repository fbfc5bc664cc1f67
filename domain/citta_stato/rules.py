"""setup, decide, legal and pending: what each pending step offers, and the events a choice causes.

A turn's action queues its steps (fold.py); decide then settles every automatic step
at once, so the pending decision is always a real choice by one seat. Each choice kind
has one `options` function (the exact legal commands) and one resolver; decide accepts
a follow-up command only if `options` lists it, so `legal` and `decide` cannot disagree.
Setup (the options a table chooses, then the deals as events) is the first decision of
chance, so it lives here too, at the end with `pending_step`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import fields
from operator import attrgetter
from typing import Any

import marshmallow
from marshmallow import fields as mf
from marshmallow import validate

from domain.kernel import (
    AUTOMATIC,
    GAME_OVER,
    Chance,
    Command,
    Edition,
    Event,
    ImpossibleOutcome,
    Pending,
    RuleViolation,
    Secret,
    load_options,
    pending,
)

from . import commands as cmd
from . import events as ev
from . import solo
from .edition import BANNERS, BI, CI, COLOURS, TITLE, tables
from .fold import cards_renewed_all, evolve, fold_into, remember_setup, used_schemes
from .scoring import final_scores
from .state import GHOST, Now, State, Task, begin, freeze, order_from, thaw

R = "citta-stato/"
Option = tuple  # (command class, seat, *fields): a legal command, built only when `legal` is asked


def key_of(c: Command) -> Option:
    return (type(c), *_FIELDS[type(c)](c))


def _values_of(names: tuple[str, ...]) -> Callable[[Command], tuple[Any, ...]]:
    """A command's field values in declared order, always as a tuple."""
    if len(names) == 1:
        (name,) = names
        return lambda c: (getattr(c, name),)
    return attrgetter(*names)


_FIELDS = {
    cls: _values_of(tuple(f.name for f in fields(cls)))
    for cls in vars(cmd).values()
    if isinstance(cls, type) and issubclass(cls, Command) and cls is not Command
}


def bag_list(counts: tuple[int, ...]) -> tuple[str, ...]:
    """A bag's contents in canonical order, so seeded draws are deterministic.

    Every draw asks for it and the same few hundred bags recur, so each is spelt out once.
    """
    found = _BAGS.get(counts)
    if found is None:
        if len(_BAGS) >= 4096:
            _BAGS.clear()
        found = _BAGS[counts] = tuple(c for c, k in zip(COLOURS, counts, strict=True) for _ in range(k))
    return found


_BAGS: dict[tuple[int, ...], tuple[str, ...]] = {}
_VP = attrgetter("vp")
_BAG_SOURCE = tuple(f"bag:{seat}" for seat in range(8))
_DECK_SOURCE = {c: f"deck:{c}" for c in COLOURS}


def drawn_number(source: str, value: Any) -> int:
    """A number drawn from chance (the first player, a Ghost disc) is an int and nothing else.

    The kernel's possibility check compares values, and Python takes `true` for 1 and `1.0`
    for 1; a log that writes either is refused here, so no such value ever reaches an event
    (events are shared values, see kernel.events.interner).
    """
    if type(value) is not int:
        raise ImpossibleOutcome(
            "chance/draw/not-there", f"{value!r} could not be drawn from {source}: it holds whole numbers only", source=source, drawn=[value]
        )
    return value


def supply_of(state: Now, seat: int, colour: str) -> int:
    return state.seats[seat].supply[CI[colour]]


# --- the turn ----------------------------------------------------------------------------
def payment(state: Now, seat: int, colour: str, jokers: int, what: str) -> tuple[str, ...]:
    """The cubes an action costs: n cubes of its colour, W/B standing in where the rules allow."""
    s = state.seats[seat]
    n = s.actions + 1
    joker = state.t.jokers.get(colour, "")
    if jokers and not joker:
        raise RuleViolation(R + f"{what}/colour", f"no cube can stand in for {colour}", colour=colour, jokers=jokers)
    if jokers > n:
        raise RuleViolation(R + f"{what}/cost", f"this action costs {n} cubes, not {jokers}", cost=n, jokers=jokers)
    need = (colour,) * (n - jokers) + (joker,) * jokers
    for c, count in ((colour, n - jokers), (joker, jokers)):  # the action's colour first, then the stand-in
        if count and s.supply[CI[c]] < count:
            raise RuleViolation(
                R + f"{what}/cubes",
                (f"action {n} of the round costs {n} cube{'s' if n != 1 else ''}: {n - jokers} {colour} and {jokers} {joker} "
                 f"standing in; seat {seat} holds {s.supply[CI[c]]} {c}") if jokers else
                f"action {n} of the round costs {n} {colour} cube{'s' if n != 1 else ''}; seat {seat} holds {s.supply[CI[c]]} {c}",
                offered=list(need),
                held={k: s.supply[CI[k]] for k in COLOURS},
            )
    return need


def at_war(state: Now, seat: int) -> bool:
    """The seat's disc is on the Warfare track (rule 000: "there can only be one War disc per player")."""
    return any(i == seat for i, _ in state.warfare)


def war_blocked(state: Now, seat: int) -> str:
    """Why the War action is refused ('' when it may be taken).

    Rule 000: "As long as the player has War discs in their supply, they can perform this
    Action. However, there can only be one War disc per player." Rule 003: "possibile fare
    più volte azione ma SOLO 1 token per giocatore da posizionare". So a seat whose disc is
    already on the track may take the action again (VP again, no second disc), but only
    while it still has discs in its supply; a full track only stops a seat that would place one.
    """
    if not state.seats[seat].discs:
        return "no-disc"
    if len(state.warfare) >= state.t.warfare_spaces and not at_war(state, seat):
        return "track-full"
    return ""


def trades_open(state: Now, seat: int) -> list[str]:
    banners = state.seats[seat].banners
    return [name for name, (need, _) in state.t.trades.items() if all(b >= k for b, k in zip(banners, need, strict=True))]


def schemes_open(state: Now, seat: int) -> list[int]:
    level = state.t.track_values[BI["P"]][state.seats[seat].tracks[BI["P"]] - 1]
    return [slot for slot in range(1, len(state.schemes) + 1) if state.schemes_up[slot - 1] and slot <= level]


def check_turn(state: Now, c: Command) -> tuple[str, str, tuple[str, ...], str]:
    """Validate a turn command; returns (action, colour, paid, card)."""
    t = state.t
    seat = c.seat
    s = state.seats[seat]
    if isinstance(c, cmd.CityAction):
        paid = payment(state, seat, c.colour, c.jokers, "city-action")
        if c.colour == "O":
            why = war_blocked(state, seat)
            if why:
                raise RuleViolation(R + f"war/{why}", "no War action possible: " + why.replace("-", " "), seat=seat, on_track=Secret([list(d) for d in state.warfare if d[0] == seat], seat), discs=len(s.discs))
        elif c.colour == "B" and not trades_open(state, seat):
            raise RuleViolation(R + "republic/no-trade", "no Banner trade is possible", banners=dict(zip(BANNERS, s.banners, strict=True)))
        elif c.colour == "P" and not schemes_open(state, seat):
            raise RuleViolation(R + "politics/no-scheme", "no face-up Political Scheme at or below your Politics level", level=s.tracks[BI["P"]], face_up=list(state.schemes_up))
        return "city", c.colour, paid, ""
    if isinstance(c, (cmd.UseCard, cmd.BurnCard)):
        what = "use-card" if isinstance(c, cmd.UseCard) else "burn-card"
        card = state.present[CI[c.colour]]
        if not card:
            raise RuleViolation(R + f"{what}/not-on-display", f"there is no {c.colour} Present card", colour=c.colour, display=list(state.present))
        if what == "burn-card" and s.burned[CI[c.colour]] >= t.burn_limit:
            raise RuleViolation(R + "burn-card/limit", f"{t.burn_limit} {c.colour} cards are already burned", colour=c.colour, burned=s.burned[CI[c.colour]])
        paid = payment(state, seat, c.colour, c.jokers, what)
        return ("use" if what == "use-card" else "burn"), c.colour, paid, card
    if isinstance(c, cmd.Upgrade):
        if state.upgrade <= 0:
            raise RuleViolation(R + "upgrade/counter-zero", "the Upgrade track is at 0 this round", counter=state.upgrade)
        ti = BI[c.colour]
        if s.tracks[ti] >= len(t.track_values[ti]):
            raise RuleViolation(R + "upgrade/track-end", f"the {c.colour} track is already at its last space", space=s.tracks[ti])
        paid = payment(state, seat, c.colour, c.jokers, "upgrade")
        return "upgrade", c.colour, paid, ""
    raise RuleViolation(R + "turn/not-an-action", f"{c.kind} is not a turn action", command=c.kind)


def turn_options(state: Now) -> list[Option]:
    """Each affordable action, once per way of paying (how many W/B cubes stand in), then Pass."""
    out = list(_turn_actions(state))
    if may_pass(state, bool(out)):
        out.append((cmd.Pass, state.current))
    return out


def may_pass(state: Now, can_act: bool | None = None) -> bool:
    """No pass before the round's first action, unless no action can be paid (edition flag `first_action_required`)."""
    if state.seats[state.current].actions or not state.t.first_action_required:
        return True
    if can_act is None:
        can_act = next(_turn_actions(state), None) is not None
    return not can_act


def _turn_actions(state: Now) -> Iterator[Option]:
    seat = state.current
    s = state.seats[seat]
    n = s.actions + 1
    t = state.t
    for colour in COLOURS:
        ci = CI[colour]
        joker = t.jokers.get(colour, "")
        have = s.supply[ci]
        wild = s.supply[CI[joker]] if joker else 0
        js = [j for j in range(0, (n if joker else 0) + 1) if n - j <= have and j <= wild]
        if not js:
            continue
        city_ok = not (
            (colour == "O" and war_blocked(state, seat))
            or (colour == "B" and not trades_open(state, seat))
            or (colour == "P" and not schemes_open(state, seat))
        )
        upgrade = colour in BI and state.upgrade > 0 and s.tracks[BI[colour]] < len(t.track_values[BI[colour]])
        for j in js:
            if city_ok:
                yield (cmd.CityAction, seat, colour, j)
            if state.present[ci]:
                yield (cmd.UseCard, seat, colour, j)
                if s.burned[ci] < t.burn_limit:
                    yield (cmd.BurnCard, seat, colour, j)
            if upgrade:
                yield (cmd.Upgrade, seat, colour, j)


# --- follow-up choices -------------------------------------------------------------------
def vp_amount(state: Now, task: Task) -> int:
    seat = state.seats[task[1]]
    f, p = task[2], task[3:]
    if f == "fixed":
        return int(p[0])
    if f == "per_cube":
        return seat.supply[CI[p[0]]] * p[1]
    if f == "per_burned":
        return seat.burned[CI[p[0]]] * p[1]
    if f == "per_banner":
        return p[0] * sum(seat.banners[BI[c]] for c in p[1:])
    if f == "per_cubes":
        return sum(seat.supply) // p[0]
    if f == "per_track_space":
        return seat.tracks[BI[p[0]]]
    if f == "per_burned_any":
        return p[0] * sum(seat.burned)
    if f == "per_used_card":
        return p[0] * max(0, len(seat.cards) - 1)  # the card being used does not count itself
    if f == "diplomacy":
        moved = seat.tracks[BI["P"]] - 1
        at_war = any(i == task[1] for i, _ in state.warfare)
        return p[0] * moved * (1 if at_war else 2)
    raise ValueError(f"unknown VP formula {f!r}")


def _card_choices(state: Now, seat: int, cards: list[tuple[str, str]]) -> list[Option]:
    burned = state.seats[seat].burned
    out: list[Option] = []
    for card, source in cards:
        out.append((cmd.TakeCard, seat, card, source, "use"))
        if burned[CI[card[0]]] < state.t.burn_limit:
            out.append((cmd.TakeCard, seat, card, source, "burn"))
    return out


def _opt_fleet(state: Now, task: Task) -> list[Option]:
    seat, coins = task[1], task[2]
    out: list[Option] = [
        (cmd.MarketCube, seat, c, cost)
        for ci, c in enumerate(COLOURS)
        for r, cost in enumerate(state.t.row_costs)
        if state.market[ci][r] and cost <= coins
    ]
    return out + [(cmd.Decline, seat)] if out else out


def _opt_market_swap(state: Now, task: Task) -> list[Option]:
    seat = task[1]
    out: list[Option] = [
        (cmd.MarketCube, seat, c, cost) for ci, c in enumerate(COLOURS) for r, cost in enumerate(state.t.row_costs) if state.market[ci][r]
    ]
    if out and task[2] > 1:
        out.append((cmd.Decline, seat))
    return out


def _colours(seat: int, colours: Any) -> list[Option]:
    return [(cmd.PickColour, seat, c) for c in colours]


def _numbers(seat: int, values: Any) -> list[Option]:
    return [(cmd.PickNumber, seat, v) for v in values]


def _opt_take_card(state: Now, task: Task) -> list[Option]:
    seat, sources, colour, optional = task[1], task[2], task[3], task[4]
    cards: list[tuple[str, str]] = []
    for ci, c in enumerate(COLOURS):
        if colour and c != colour:
            continue
        if "present" in sources and state.present[ci]:
            cards.append((state.present[ci], "present"))
        if "future" in sources and state.future[ci]:
            cards.append((state.future[ci], "future"))
    out = _card_choices(state, seat, cards)
    if out and optional:
        out.append((cmd.Decline, seat))
    return out


def _opt_second(state: Now, task: Task) -> list[Option]:
    seat, colour = task[1], task[2]
    cards = sorted({card for card in state.seats[seat].cards if card[0] == colour})
    out = _card_choices(state, seat, [(card, "supply") for card in cards])
    return out + [(cmd.Decline, seat)] if out else out


def _opt_move_own(state: Now, task: Task) -> list[Option]:
    seat, lo, hi, dirs = task[1], task[2], task[3], task[4]
    form = state.seats[seat].form
    out: list[Option] = []
    for d in ("left", "right") if dirs == "both" else (dirs,):
        for k in range(lo, hi + 1):
            if 1 <= form + (k if d == "right" else -k) <= state.t.rep_spaces:
                out.append((cmd.Shift, seat, d, k))
    return out


def _opt_war_shift(state: Now, task: Task) -> list[Option]:
    seat = task[1]
    form = state.seats[seat].form
    out: list[Option] = [(cmd.Shift, seat, "none", 0)]
    if form > 1:
        out.append((cmd.Shift, seat, "left", 1))
    if form < state.t.rep_spaces:
        out.append((cmd.Shift, seat, "right", 1))
    return out


def _opt_vp(state: Now, task: Task) -> list[Option]:
    return [(cmd.Accept, task[1]), (cmd.Decline, task[1])] if vp_amount(state, task) > 0 else []


def _opt_noli(state: Now, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if not s.cards:
        return []
    return _colours(task[1], [c for c in COLOURS if s.burned[CI[c]] < state.t.burn_limit])


def _opt_burn_position(state: Now, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if task[2] not in s.cards:
        return []
    return _colours(task[1], [c for c in COLOURS if s.burned[CI[c]] < state.t.burn_limit])


def _banners_held(state: Now, seat: int) -> list[str]:
    return [c for c in BANNERS if state.seats[seat].banners[BI[c]] > 0]


def _opt_decree(state: Now, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    return _colours(task[1], [c for c in _banners_held(state, task[1]) if s.tracks[BI[c]] < len(state.t.track_values[BI[c]])])


def _opt_goodwill(state: Now, task: Task) -> list[Option]:
    return _colours(task[1], [c for c in _banners_held(state, task[1]) if state.future[CI[c]]])


def _opt_betrayal(state: Now, task: Task) -> list[Option]:
    out: list[Option] = _numbers(task[1], [i for i, s in enumerate(state.seats) if i != task[1] and s.crowns > 0])
    return out + [(cmd.Decline, task[1])] if out else out


def _opt_amalfi(state: Now, task: Task) -> list[Option]:
    if task[2] * used_schemes(state) <= 0 or not any(state.seats[task[1]].bag):
        return []
    return [(cmd.Accept, task[1]), (cmd.Decline, task[1])]


def _opt_personal(state: Now, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if not s.scheme or s.scheme_used:
        return []
    return [(cmd.UseScheme, task[1], 0), (cmd.Decline, task[1])]


def _opt_war_pay(state: Now, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    return _colours(task[1], [c for c in COLOURS if s.supply[CI[c]] > 0])


# One entry per choice step: the exact legal commands as option keys; an empty list means the step is skipped.
OPTIONS: dict[str, Callable[[Now, Task], list[Option]]] = {
    "fleet": _opt_fleet,
    "banner_any": lambda s, t: _colours(t[1], [c for c in BANNERS if c not in t[2]]),
    "trade": lambda s, t: [(cmd.TradeBanners, t[1], name) for name in trades_open(s, t[1])],
    "scheme": lambda s, t: [(cmd.UseScheme, t[1], slot) for slot in schemes_open(s, t[1])],
    "personal_scheme": _opt_personal,
    "shift_all": lambda s, t: [(cmd.Shift, t[1], "left", t[2]), (cmd.Shift, t[1], "right", t[2])],
    "move_own": _opt_move_own,
    "war_shift": _opt_war_shift,
    "war_disc": lambda s, t: [(cmd.WarDisc, t[1], v) for v in sorted(set(s.seats[t[1]].discs))],
    "amalfi_draw": _opt_amalfi,
    "ancona": lambda s, t: _numbers(t[1], sorted(set(s.seats[t[1]].discs))),
    "return": lambda s, t: _colours(t[1], [c for c in COLOURS if t[3][CI[c]] > 0]),
    "take_present": lambda s, t: _card_choices(s, t[1], [(card, "present") for card in s.present if card]),
    "take_card": _opt_take_card,
    "second": _opt_second,
    "gaeta": lambda s, t: _colours(t[1], _banners_held(s, t[1])),
    "noli": _opt_noli,
    "noli_card": lambda s, t: [(cmd.TakeCard, t[1], card, "supply", "burn") for card in sorted(set(s.seats[t[1]].cards))],
    "burn_self": _opt_burn_position,
    "market_swap": _opt_market_swap,
    "market_place": lambda s, t: _colours(t[1], [c for c in COLOURS if s.seats[t[1]].supply[CI[c]] > 0]),
    "discard_banners": lambda s, t: _numbers(t[1], range(s.seats[t[1]].banners[BI[t[2]]] + 1)) if s.seats[t[1]].banners[BI[t[2]]] else [],
    "draw_colour_choice": lambda s, t: _colours(t[1], COLOURS),
    "keep_republic": lambda s, t: [(cmd.KeepRepublic, t[1], "old"), (cmd.KeepRepublic, t[1], "new")],
    "remove_cubes": lambda s, t: _numbers(t[1], range(supply_of(s, t[1], t[2]) + 1)) if supply_of(s, t[1], t[2]) else [],
    "recover_disc": lambda s, t: _numbers(t[1], sorted(set(s.seats[t[1]].retired))),
    "retire_disc": lambda s, t: _numbers(t[1], sorted(set(s.seats[t[1]].discs))),
    "decree": _opt_decree,
    "plot": lambda s, t: _colours(t[1], COLOURS),
    "concordat": lambda s, t: _numbers(t[1], range(s.seats[t[1]].crowns + 1)) if s.seats[t[1]].crowns else [],
    "goodwill": _opt_goodwill,
    "betrayal": _opt_betrayal,
    "vp": _opt_vp,
    "war_pay": _opt_war_pay,
    # solo: what a Ghost action asks of the human
    "track_back": lambda s, t: _colours(t[1], [c for c in BANNERS if s.seats[t[1]].tracks[BI[c]] > 1]),
    "cube_to_bag": lambda s, t: _colours(t[1], [c for c in COLOURS if s.seats[t[1]].supply[CI[c]] > 0]),
}


def _reveal_next_future(state: Now, colour: str, chance: Chance) -> list[Event]:
    deck = state.decks[CI[colour]]
    if not deck:
        return []
    (card,) = chance.draw(_DECK_SOURCE[colour], deck, 1)
    return [ev.FutureRevealed.of(colour, card)]


def resolve(state: Now, task: Task, c: Command, chance: Chance) -> list[Event]:
    """The events one accepted follow-up choice causes (it was checked against `options`)."""
    kind, seat = task[0], task[1]
    if isinstance(c, cmd.Decline):
        return [ev.Declined.of(seat, kind)]
    if isinstance(c, cmd.Accept):
        if kind == "vp":
            return [ev.VpScored.of(seat, vp_amount(state, task), score_of(state))]
        return [ev.Accepted.of(seat, kind)]
    if isinstance(c, cmd.MarketCube):
        if kind == "fleet":
            return [ev.CubeBought.of(seat, c.colour, c.cost)]
        return [ev.MarketCubeTaken.of(seat, c.colour, c.cost)]
    if isinstance(c, cmd.TakeCard):
        if kind == "noli_card":
            return [ev.CardBurnedUnder.of(seat, c.card, task[2])]
        out: list[Event] = [ev.CardTaken.of(seat, c.card, c.source, c.mode)]
        if c.source == "future":
            out += _reveal_next_future(state, c.card[0], chance)
        return out
    if isinstance(c, cmd.Shift):
        seats = order_from(state, seat) if kind == "shift_all" else (seat,)
        return [ev.FormShifted.of(seats, c.direction, c.spaces)]
    if isinstance(c, cmd.UseScheme):
        scheme = state.seats[seat].scheme if c.slot == 0 else state.schemes[c.slot - 1]
        return [ev.SchemeChosen.of(seat, c.slot, scheme)]
    if isinstance(c, cmd.TradeBanners):
        return [ev.BannersTraded.of(seat, c.trade)]
    if isinstance(c, cmd.WarDisc):
        return [ev.WarDiscPlaced.of(seat, c.value)]
    if isinstance(c, cmd.KeepRepublic):
        old, new = state.seats[seat].republic, task[2]
        return [ev.RepublicKept.of(seat, new, old) if c.keep == "new" else ev.RepublicKept.of(seat, old, new)]
    if isinstance(c, cmd.PickColour):
        return [_PICK_COLOUR[kind](seat, c.colour, task)]
    if isinstance(c, cmd.PickNumber):
        return [_pick_number(state, kind, seat, c.value, task)]
    raise AssertionError(f"no resolver for {c.kind} at {kind}")


def score_of(state: Now) -> str:
    return "second" if state.round > state.t.rounds else "first"


_PICK_COLOUR: dict[str, Callable[[int, str, Task], Event]] = {
    "banner_any": lambda s, c, t: ev.BannerGained.of(s, c),
    "return": lambda s, c, t: ev.CubeReturned.of(s, c),
    "gaeta": lambda s, c, t: ev.BannerReturned.of(s, c),
    "goodwill": lambda s, c, t: ev.BannerReturned.of(s, c),
    "noli": lambda s, c, t: ev.ColourChosen.of(s, c),
    "draw_colour_choice": lambda s, c, t: ev.ColourChosen.of(s, c),
    "plot": lambda s, c, t: ev.ColourChosen.of(s, c),
    "burn_self": lambda s, c, t: ev.CardBurnedUnder.of(s, t[2], c),
    "market_place": lambda s, c, t: ev.MarketCubePlaced.of(s, c),
    "decree": lambda s, c, t: ev.DecreeUpgrade.of(s, c),
    "war_pay": lambda s, c, t: ev.WarPaid.of(s, c),
    "track_back": lambda s, c, t: ev.TrackMovedBack.of(s, c),
    "cube_to_bag": lambda s, c, t: ev.CubeBagged.of(s, c),
}


def _pick_number(state: Now, kind: str, seat: int, value: int, task: Task) -> Event:
    if kind == "ancona":
        others = tuple(i for i in order_from(state, seat)[1:] if value in state.seats[i].discs)
        return ev.AllianceDiscRemoved.of(seat, value, others)
    if kind == "discard_banners":
        return ev.BannersDiscarded.of(seat, task[2], value)
    if kind == "remove_cubes":
        return ev.CubesRemoved.of(seat, task[2], value)
    if kind == "recover_disc":
        return ev.WarDiscRecovered.of(seat, value)
    if kind == "retire_disc":
        return ev.WarDiscRetired.of(seat, value)
    if kind == "concordat":
        return ev.CrownsRemoved.of(seat, value)
    if kind == "betrayal":
        return ev.CrownStolen.of(seat, value)
    raise AssertionError(kind)


# --- automatic steps ---------------------------------------------------------------------
def _auto_end_turn(state: Now, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    seats = state.seats
    n = len(seats)
    for k in range(1, n + 1):  # the next seat in turn order that has not passed, this seat last
        i = (seat + k) % n
        if not seats[i].passed:
            return [ev.TurnEnded.of(seat, i)]
    return [ev.TurnEnded.of(seat, seat)]


def _auto_draw(state: Now, task: Task, chance: Chance) -> list[Event]:
    seat, n = task[1], task[2]
    bag = bag_list(state.seats[seat].bag)
    if n <= 0 or not bag:
        return [ev.StepSkipped.of(seat, "draw")]
    cubes = bag if n >= len(bag) else chance.draw(_BAG_SOURCE[seat], bag, n)
    return [ev.CubesDrawn.of(seat, tuple(cubes))]


def _auto_draw_keep(state: Now, task: Task, chance: Chance) -> list[Event]:
    seat, n, keep = task[1], task[2], task[3]
    bag = bag_list(state.seats[seat].bag)
    if not bag:
        return [ev.StepSkipped.of(seat, "draw_keep")]
    cubes = bag if n <= 0 or n >= len(bag) else chance.draw(_BAG_SOURCE[seat], bag, n)
    return [ev.CubesDrawn.of(seat, tuple(cubes), keep)]


def _auto_draw_colours(state: Now, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    bag = state.seats[seat].bag
    cubes = tuple(c for c in COLOURS if c in task[2:] for _ in range(bag[CI[c]]))
    return [ev.CubesDrawn.of(seat, cubes)] if cubes else [ev.StepSkipped.of(seat, "draw_colours")]


def _auto_round_draw(state: Now, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    s = state.seats[seat]
    n = state.t.track_values[BI["G"]][s.tracks[BI["G"]] - 1]
    if s.vp == min(map(_VP, state.seats)):
        n += state.t.fewest_bonus
    return _auto_draw(state, ("draw", seat, n), chance)


def _auto_cube(state: Now, task: Task, chance: Chance) -> list[Event]:
    return [ev.CubeGained.of(task[1], task[2], state.reserve[CI[task[2]]] > 0)]


def _auto_republic_swap(state: Now, task: Task, chance: Chance) -> list[Event]:
    if not state.pool:
        return [ev.StepSkipped.of(task[1], "republic_swap")]
    (card,) = chance.draw("republic-pool", state.pool, 1)
    return [ev.RepublicDrawn.of(task[1], card)]


def _auto_vp(state: Now, task: Task, chance: Chance) -> list[Event]:
    amount = vp_amount(state, task)
    if amount < 0:  # losses are not optional
        return [ev.VpScored.of(task[1], amount, score_of(state))]
    return [ev.StepSkipped.of(task[1], "vp")]


def _auto_war_pay(state: Now, task: Task, chance: Chance) -> list[Event]:
    supply = state.seats[task[1]].supply
    return [ev.WarForfeited.of(task[1], tuple(bag_list(supply)))]


def _auto_war_reveal(state: Now, task: Task, chance: Chance) -> list[Event]:
    if not state.warfare:
        return [ev.StepSkipped.of(-1, "war_reveal")]
    return [ev.WarRevealed.of(state.warfare)]


def _auto_war_outcome(state: Now, task: Task, chance: Chance) -> list[Event]:
    if not state.warfare:
        return [ev.StepSkipped.of(-1, "war_outcome")]
    ranked = sorted(range(len(state.warfare)), key=lambda k: (-state.warfare[k][1], k))
    seats = [state.warfare[k][0] for k in ranked]
    return [ev.WarWon.of(seats[0], tuple(seats[1:]))]


def _auto_war_end(state: Now, task: Task, chance: Chance) -> list[Event]:
    return [ev.WarEnded.of()] if state.warfare else [ev.StepSkipped.of(-1, "war_end")]


def _auto_renew(state: Now, task: Task, chance: Chance) -> list[Event]:
    colour = task[2]
    i = CI[colour]
    deck = state.decks[i]
    if state.future[i] and deck:  # the common case: the Future card moves down, one card is drawn
        return [ev.CardsRenewed.of(colour, chance.draw(_DECK_SOURCE[colour], deck, 1), -1)]
    discards = state.discards[i] + ((state.present[i],) if state.present[i] else ())
    present = state.future[i]
    left = list(deck)
    drawn: list[str] = []
    rebuilt = -1
    for _ in range(1 if present else 2):
        if not left and discards:
            left, discards, rebuilt = sorted(discards), (), len(drawn)
        if not left:
            break
        (card,) = chance.draw(_DECK_SOURCE[colour], left, 1)
        left.remove(card)
        drawn.append(card)
    return [ev.CardsRenewed.of(colour, tuple(drawn), rebuilt)]


def _renew_colours(state: Now, chance: Chance) -> list[Event]:
    """One CardsRenewed for each renew step at the head of the queue, each colour once, in queue order."""
    out: list[Event] = []
    seen: set[str] = set()
    for task in state.tasks:
        if task[0] != "renew" or task[2] in seen:
            break
        seen.add(task[2])
        out += _auto_renew(state, task, chance)  # reads only its own colour, which no earlier renewal touched
    return out


def _auto_reset(state: Now, task: Task, chance: Chance) -> list[Event]:
    if state.solo:
        first = 0  # the human always plays first
    elif state.players == 2:
        first = 1 - state.first
    else:
        first = state.next_first if state.next_first >= 0 else (state.first + 1) % state.players
    return [ev.RoundReset.of(state.round + 1, first)]


def _auto_form_crowns(state: Now, task: Task, chance: Chance) -> list[Event]:
    crowns = tuple(0 if i == GHOST and state.solo else state.t.rep_crowns[s.form - 1] for i, s in enumerate(state.seats))
    return [ev.FormCrownsTaken.of(crowns)]


def _auto_game_end(state: Now, task: Task, chance: Chance) -> list[Event]:
    return [ev.GameEnded.of(tuple(r["final"] for r in final_scores(state)))]


AUTO: dict[str, Callable[[Now, Task, Chance], list[Event]]] = {
    "end_turn": _auto_end_turn,
    "banner": lambda s, t, ch: [ev.BannerGained.of(t[1], t[2])],
    "cube": _auto_cube,
    "crowns": lambda s, t, ch: [ev.CrownsGained.of(t[1], t[2])],
    "draw": _auto_draw,
    "draw_keep": _auto_draw_keep,
    "draw_colours": _auto_draw_colours,
    "round_draw": _auto_round_draw,
    "republic_swap": _auto_republic_swap,
    "war_reveal": _auto_war_reveal,
    "war_outcome": _auto_war_outcome,
    "war_end": _auto_war_end,
    "renew": _auto_renew,
    "reset": _auto_reset,
    "final": lambda s, t, ch: [ev.SecondScoringStarted.of()],
    "form_crowns": _auto_form_crowns,
    "game_end": _auto_game_end,
}

# Choice kinds that settle themselves in some states (a loss of VP, a war disc that cannot be paid).
CONDITIONAL: dict[str, Callable[[Now, Task], bool]] = {
    "vp": lambda s, t: vp_amount(s, t) < 0,
    "war_pay": lambda s, t: sum(s.seats[t[1]].supply) < t[2],
}
AUTO_IF = {"vp": _auto_vp, "war_pay": _auto_war_pay}


# --- solo: the Ghost's steps -------------------------------------------------------------
def _ghost_turn(state: Now, task: Task, chance: Chance) -> list[Event]:
    g = state.seats[GHOST]
    bag = bag_list(g.bag)
    if not bag or g.actions >= state.t.solo.scenarios[state.solo.scenario].draws:  # type: ignore[union-attr]
        return [ev.StepSkipped.of(GHOST, "ghost_turn")]
    (cube,) = bag if len(bag) == 1 else chance.draw("bag:ghost", bag, 1)
    return [ev.GhostDrew.of(cube, state.present[CI[cube]])]


def _ghost_clear_row(state: Now, task: Task, chance: Chance) -> list[Event]:
    r = state.t.row_costs.index(task[2])
    cubes = tuple(c for ci, c in enumerate(COLOURS) if state.market[ci][r])
    return [ev.MarketRowCleared.of(task[2], cubes)] if cubes else [ev.StepSkipped.of(GHOST, "market_clear_row")]


def _ghost_disc(state: Now, task: Task, chance: Chance) -> list[Event]:
    """Random: drawn unseen from the Ghost's discs; highest / lowest: as the scenario says."""
    discs = state.seats[GHOST].discs
    if war_blocked(state, GHOST) or at_war(state, GHOST):  # one disc per player, the Ghost included
        return [ev.StepSkipped.of(GHOST, "ghost_disc")]
    mode = task[2]
    if mode == "highest":
        value = max(discs)
    elif mode == "lowest":
        value = min(discs)
    else:
        (value,) = discs if len(set(discs)) == 1 else chance.draw("ghost-discs", sorted(discs), 1)
    return [ev.WarDiscPlaced.of(GHOST, drawn_number("ghost-discs", value))]


def _ghost_remove_schemes(state: Now, task: Task, chance: Chance) -> list[Event]:
    slots = tuple(k for k in task[2:] if 1 <= k <= len(state.schemes) and state.schemes_up[k - 1])
    return [ev.SchemesRemoved.of(slots)] if slots else [ev.StepSkipped.of(GHOST, "remove_schemes")]


# Steps the Ghost runs itself. Any other step queued for the Ghost's seat (a VP gain, a war shift or
# payment, a card for winning a war, a round draw) is skipped: the Ghost owns nothing but its bag and discs.
GHOST_AUTO: dict[str, Callable[[Now, Task, Chance], list[Event]]] = {
    "ghost_turn": _ghost_turn,
    "market_clear_row": _ghost_clear_row,
    "human_form": lambda s, t, ch: [ev.FormShifted.of((0,), t[2], t[3])],
    "ghost_disc": _ghost_disc,
    "remove_schemes": _ghost_remove_schemes,
}


# The state `settle` last stopped at and the options it found there: the next command is checked
# against that very state (a replay passes it straight back), so the options are not worked out twice.
# Compared by identity, and the tuple is replaced whole, so a stale or foreign state never matches.
_SETTLED: tuple[State | None, list[Option]] = (None, [])


def offered_now(state: Now, task: Task) -> list[Option]:
    last = _SETTLED
    return last[1] if last[0] is state else OPTIONS[task[0]](state, task)


def settle(state: State, events: list[Event], chance: Chance) -> tuple[State, list[Event]]:
    """Fold `events`, then settle automatic steps until a seat must choose (or the game ends).

    Every event is folded onto one Draft of the state (fold.fold_into) and each automatic step reads
    that draft, so the command makes one new State, at the end, however many events it causes (a solo
    decision causes five or six: the Ghost's draw and steps, the End of Round's new cards and resets).
    The loop runs once per event, so the tables it consults are bound to local names.
    """
    global _SETTLED
    d = thaw(state)
    fold_into(d, events)
    auto_step, ghost_step, skipped = AUTO.get, GHOST_AUTO.get, ev.StepSkipped.of
    ghost = GHOST if d.solo is not None else None
    offered: list[Option] = []
    tasks = d.tasks
    while tasks:
        task = tasks[0]
        kind = task[0]
        if task[1] == ghost:  # the solo Ghost runs its own steps and skips every other (see GHOST_AUTO)
            auto = ghost_step(kind)
            if auto is None and kind != "market_swap":  # fold._skipped in line: a skip only drops the step
                events.append(skipped(GHOST, kind))
                tasks = d.tasks = tasks[1:]
                continue
            more = auto(d, task, chance) if auto is not None else [skipped(GHOST, kind)]
        elif kind == "renew":  # the End of Round's New Cards, every colour at once (fold.cards_renewed_all)
            more = _renew_colours(d, chance)
            cards_renewed_all(d, more)  # type: ignore[arg-type]
            events += more
            tasks = d.tasks
            continue
        else:
            auto = auto_step(kind)
            if auto is not None:
                more = auto(d, task, chance)
            elif kind in CONDITIONAL and CONDITIONAL[kind](d, task):
                more = AUTO_IF[kind](d, task, chance)
            else:
                offered = OPTIONS[kind](d, task)
                if offered:
                    break
                if kind != "market_swap":  # as for the Ghost above
                    events.append(skipped(task[1], kind))
                    tasks = d.tasks = tasks[1:]
                    continue
                more = [skipped(task[1], kind)]
        fold_into(d, more)
        events += more
        tasks = d.tasks
    after = freeze(d)
    if offered:
        _SETTLED = (after, offered)
    return after, events


def unsettled(state: State) -> bool:
    """True between the events of one command: the state `settle` (or a Future reveal) would not stop at.

    Mirrors the loop in `settle`, so a replay stopped mid-command is told that nobody is choosing.
    """
    if state.phase != "turns":
        return state.phase != "over"
    for future, deck in zip(state.future, state.decks, strict=True):
        if not future and deck:  # a Future card was just taken: its replacement is revealed next
            return True
    if not state.tasks:
        return False
    task = state.tasks[0]
    kind = task[0]
    if (task[1] == GHOST and state.solo is not None) or kind in AUTO:
        return True
    if kind in CONDITIONAL and CONDITIONAL[kind](state, task):
        return True
    return not OPTIONS[kind](state, task)


def options(state: State) -> list[Command]:
    """Every legal command for the pending decision (the head step, or the current seat's turn)."""
    made = _MADE
    out = []
    for o in option_keys(state):
        c = made.get(o)
        if c is None:
            c = made[o] = o[0](*o[1:])
        out.append(c)
    return out


# Commands are immutable and the same few hundred recur all game: build each once.
_MADE: dict[Option, Command] = {}


def option_keys(state: State) -> list[Option]:
    if state.phase != "turns":
        return []
    if state.tasks:
        return list(offered_now(state, state.tasks[0]))
    return turn_options(state)


def decide(state: State, c: Command, chance: Chance) -> list[Event]:
    return play(state, c, chance)[0]


def play(state: State, c: Command, chance: Chance) -> tuple[list[Event], State]:
    """Decide a command and settle what follows; the settled state comes back too, so nobody folds twice."""
    if state.phase != "turns":
        raise RuleViolation(R + "game/over" if state.phase == "over" else R + "game/not-started", f"the game is {state.phase}", phase=state.phase)
    if not 0 <= c.seat < state.players:
        raise RuleViolation(R + "seat/unknown", f"there is no seat {c.seat}", seat=c.seat, players=state.players)
    if c.seat == GHOST and state.solo is not None:
        raise RuleViolation(R + "solo/ghost-seat", "seat 1 is the Ghost: its draws and actions follow the human's turns, nobody submits them", seat=c.seat, command=c.kind)
    if state.tasks:
        task = state.tasks[0]
        if c.seat != task[1]:
            raise RuleViolation(R + "turn/out-of-turn", f"seat {task[1]} must decide ({task[0]}), not seat {c.seat}", seat=c.seat, waiting_for=task[1], step=task[0])
        offered = offered_now(state, task)
        if key_of(c) not in offered:
            raise RuleViolation(
                R + f"{task[0].replace('_', '-')}/not-offered",
                f"{c.kind} is not one of the choices for {task[0]}",
                offered=Secret([o[0](*o[1:]).to_json() for o in offered], task[1]),  # what legal() shows that seat only
                given=c.to_json(),
            )
        events = resolve(state, task, c, chance)
    else:
        if c.seat != state.current:
            raise RuleViolation(R + "turn/out-of-turn", f"it is seat {state.current}'s turn, not seat {c.seat}'s", seat=c.seat, turn=state.current)
        if isinstance(c, cmd.Pass):
            if not may_pass(state):
                raise RuleViolation(R + "pass/first-action-required", "every seat takes at least one action a round (one cube to the Market) before passing", seat=c.seat)
            events = [ev.Passed.of(c.seat)]
        else:
            action, colour, paid, card = check_turn(state, c)
            events = [ev.ActionTaken.of(c.seat, action, colour, paid, card)]
    after, events = settle(state, events, chance)
    return events, after


# --- pending: whose decision it is -------------------------------------------------------
def pending_step(state: State) -> Pending:
    """The contract's `pending`: the head step's seat and kind, or the current seat's turn."""
    if state.phase == "over":
        return pending(None, GAME_OVER)
    if unsettled(state):
        return pending(None, AUTOMATIC)
    if state.tasks:
        task = state.tasks[0]
        params = [] if task[0] == "keep_republic" else list(task[2:])  # the drawn card is secret; see view()
        return pending(task[1], task[0].replace("_", "-"), params=params)
    return pending(state.current, "turn", round=state.round, action=state.seats[state.current].actions + 1)


# --- setup: the options a table chooses, then the deals ----------------------------------
class SoloOptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    scenario = mf.Integer(required=True, strict=True, metadata={"description": "the solo scenario's number"})
    game = mf.Integer(required=True, strict=True, metadata={"description": "which game of the scenario's campaign"})
    carried_crowns = mf.Integer(load_default=0, strict=True, validate=validate.Range(min=0), metadata={
        "description": "crowns the campaign's game before carried into this one"})


class OptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    players = mf.Integer(required=True, strict=True, validate=validate.Range(min=2, max=5))
    expansion = mf.Boolean(load_default=None)
    solo = mf.Nested(SoloOptionsSchema, load_default=None, metadata={
        "description": "a solo game against the Ghost: two seats, the player's then the Ghost's"})

    @marshmallow.post_load
    def _expansion(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """Five seats need the expansion's board, cubes and cities, so 5 players implies it."""
        if data.get("expansion") is None:
            data["expansion"] = data["players"] == 5
        if data["players"] == 5 and not data["expansion"]:
            raise marshmallow.ValidationError("5 players need the expansion", "expansion")
        if data["solo"] is not None:  # the solo scenarios are 2-seat base games: the human and the Ghost
            if data["players"] != 2:
                raise marshmallow.ValidationError("a solo game has 2 seats: the human (0) and the Ghost (1)", "players")
            if data["expansion"]:
                raise marshmallow.ValidationError("the solo scenarios use the base game only", "expansion")
        return data


# Each setup step is a small function; SOLO_SETUP_STEPS swaps the random deals.
def _deal_cities(s: State, chance: Chance) -> list[Event]:
    cities = sorted(k for k, v in s.t.cities.items() if s.expansion or not v["expansion"])
    return [ev.CitiesDealt.of(tuple(chance.draw("deck:cities", cities, s.players)))]


def _deal_personal_schemes(s: State, chance: Chance) -> list[Event]:
    out: list[Event] = []
    for i, seat in enumerate(s.seats):
        seal = s.t.cities[seat.city].get("seal")
        if seal:
            sealed = [k for k in s.scheme_pool if s.t.schemes[k]["seal"] == seal]
            (scheme,) = chance.draw(f"schemes:{seal}", sealed, 1)
            out.append(ev.PersonalSchemeDealt.of(i, scheme))
            s = evolve(s, out[-1])
    return out


def _place_schemes(s: State, chance: Chance) -> list[Event]:
    return [ev.SchemesPlaced.of(tuple(chance.draw("schemes", s.scheme_pool, s.t.scheme_slots)))]


def republic_deck(s: State) -> list[str]:
    """The plain Republic cards dealt from at this player count (those left over stay out of the game), sorted."""
    deck: list[str] = []
    for form, count in s.t.deal[s.players].items():
        plain = sorted(k for k, f in s.t.republic_form.items() if f == form and not s.t.republic_crowns[k])
        deck += plain[:count]
    return sorted(deck)


def _deal_republic_cards(s: State, chance: Chance) -> list[Event]:
    return [ev.RepublicCardsDealt.of(tuple(chance.draw("deck:republic", republic_deck(s), s.players)))]


def _reveal_cards(s: State, chance: Chance) -> list[Event]:
    out: list[Event] = []
    for i, c in enumerate(COLOURS):
        drawn = chance.draw(f"deck:{c}", s.decks[i], 2) + ("", "")
        out.append(ev.CardsRevealed.of(c, drawn[0], drawn[1]))
    return out


def _choose_first_player(s: State, chance: Chance) -> list[Event]:
    (first,) = chance.draw("first-player", list(range(s.players)), 1)
    return [ev.FirstPlayerChosen.of(drawn_number("first-player", first))]


def _place_city_cubes(s: State, chance: Chance) -> list[Event]:
    return [ev.CityCubesPlaced.of(i) for i in order_from(s, s.first)] + [ev.SetupCompleted.of()]


SetupStep = Callable[[State, Chance], list[Event]]

SETUP_STEPS: tuple[SetupStep, ...] = (
    _deal_cities,
    _deal_personal_schemes,
    _place_schemes,
    _deal_republic_cards,
    _reveal_cards,
    _choose_first_player,
    _place_city_cubes,
)


# Solo setup: the scenario's fixed choices replace the random deals.
def _scenario_city(s: State, chance: Chance) -> list[Event]:
    return [ev.CitiesDealt.of((solo.scenario(s).city, ""))]


def _scenario_schemes(s: State, chance: Chance) -> list[Event]:
    return [ev.SchemesPlaced.of(solo.scenario(s).schemes)]


def _scenario_republic(s: State, chance: Chance) -> list[Event]:
    return [ev.RepublicCardsDealt.of((solo.scenario(s).republic, ""))]


def _human_first(s: State, chance: Chance) -> list[Event]:
    return [ev.FirstPlayerChosen.of(0)]


def _place_solo_cubes(s: State, chance: Chance) -> list[Event]:
    ghost_bag = tuple(bag_list(s.t.solo.ghost_bag))  # type: ignore[union-attr]
    return [ev.CityCubesPlaced.of(0), ev.GhostSetUp.of(ghost_bag, solo.scenario(s).market_add), ev.SetupCompleted.of()]


SOLO_SETUP_STEPS: tuple[SetupStep, ...] = (
    _scenario_city,
    _scenario_schemes,
    _scenario_republic,
    _reveal_cards,
    _human_first,
    _place_solo_cubes,
)


def _solo_violation(edition: Edition, opts: Mapping[str, Any]) -> RuleViolation | None:
    """An unknown scenario or game number, named by its field, before anything is dealt."""
    known = tables(edition).solo
    scenarios = known.scenarios if known else {}
    n, g = opts["scenario"], opts["game"]
    if n not in scenarios:
        msg = f"unknown solo scenario {n}; this edition has {sorted(scenarios) or 'none'}"
        return RuleViolation("citta-stato/solo/scenario", msg, field="solo.scenario", given=n, known=sorted(scenarios))
    games = sorted(scenarios[n].required)
    if g not in games:
        msg = f"unknown game {g} of solo scenario {n}; its campaign has games {games}"
        return RuleViolation("citta-stato/solo/game", msg, field="solo.game", given=g, known=games)
    return None


_OPTIONS = OptionsSchema()  # one instance: building a marshmallow schema deep-copies its fields
_LOADED: dict[str, dict[str, Any]] = {}


def setup_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options through the schema, remembered by their JSON text (which tells `true` from `1`).

    Every replay of a record starts by loading the same few option sets; a set the schema refuses
    raises as always and is never remembered. The result is only read, never changed.
    """
    try:
        key = json.dumps(options, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not plain JSON: the schema says what is wrong with it
        return load_options(TITLE, _OPTIONS, options)
    found = _LOADED.get(key)
    if found is None:
        found = load_options(TITLE, _OPTIONS, options)
        if len(_LOADED) >= 256:
            _LOADED.clear()
        _LOADED[key] = found
    return found


def setup(edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
    """The contract's `setup`: the options checked, every deal as an event, then the first automatic steps."""
    opts = setup_options(options)
    state = begin(edition)
    events: list[Event] = [ev.GameStarted(edition.ref, opts["players"], opts["expansion"])]
    steps = SETUP_STEPS
    if opts["solo"] is not None:
        bad = _solo_violation(edition, opts["solo"])
        if bad is not None:
            raise bad
        o = opts["solo"]
        events.append(ev.SoloStarted.of(o["scenario"], o["game"], o["carried_crowns"]))
        steps = SOLO_SETUP_STEPS
    chain: dict[int, tuple[State, Event, State]] = {}  # kept for the kernel's refold (fold.remember_setup)

    def fold_in(new: list[Event]) -> None:
        nonlocal state
        for e in new:
            draft = thaw(state)  # the draft the last deal was frozen from (state.thaw): no copy
            fold_into(draft, [e])
            after = freeze(draft)
            chain[id(e)] = (state, e, after)
            state = after

    fold_in(events)
    for step in steps:
        more = step(state, chance)
        fold_in(more)
        events += more
    remember_setup(chain)
    return events + settle(state, [], chance)[1]
