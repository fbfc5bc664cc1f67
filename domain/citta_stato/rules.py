"""decide and legal: what each pending step offers, and the events a choice causes.

A turn's action queues its steps (fold.py); decide then settles every automatic step
at once, so the pending decision is always a real choice by one seat. Each choice kind
has one `options` function (the exact legal commands) and one resolver; decide accepts
a follow-up command only if `options` lists it, so `legal` and `decide` cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from domain.kernel import Chance, Command, Event, RuleViolation

from . import commands as cmd
from . import events as ev
from .edition import BANNERS, BI, CI, COLOURS
from .fold import evolve, used_schemes
from .state import GHOST, State, Task, order_from

R = "citta-stato/"
Option = tuple  # (command class, seat, *fields): a legal command, built only when `legal` is asked


def key_of(c: Command) -> Option:
    return (type(c), *(getattr(c, name) for name in _FIELDS[type(c)]))


_FIELDS = {
    cls: tuple(f.name for f in fields(cls))
    for cls in vars(cmd).values()
    if isinstance(cls, type) and issubclass(cls, Command) and cls is not Command
}


def bag_list(counts: tuple[int, ...]) -> list[str]:
    """A bag's contents in canonical order, so seeded draws are deterministic."""
    return [c for c, k in zip(COLOURS, counts, strict=True) for _ in range(k)]


def supply_of(state: State, seat: int, colour: str) -> int:
    return state.seats[seat].supply[CI[colour]]


# --- the turn ----------------------------------------------------------------------------
def payment(state: State, seat: int, colour: str, jokers: int, what: str) -> tuple[str, ...]:
    """The cubes an action costs: n cubes of its colour, W/B standing in where the rules allow."""
    s = state.seats[seat]
    n = s.actions + 1
    joker = state.t.jokers.get(colour, "")
    if jokers and not joker:
        raise RuleViolation(R + f"{what}/colour", f"no cube can stand in for {colour}", colour=colour, jokers=jokers)
    if jokers > n:
        raise RuleViolation(R + f"{what}/cost", f"this action costs {n} cubes, not {jokers}", cost=n, jokers=jokers)
    need = (colour,) * (n - jokers) + (joker,) * jokers
    held = {c: s.supply[CI[c]] for c in set(need)}
    for c in held:
        if need.count(c) > held[c]:
            raise RuleViolation(
                R + f"{what}/cubes",
                f"action {n} of the round costs {n} {colour} cube(s); seat {seat} holds {held[c]} {c}",
                offered=list(need),
                held={k: s.supply[CI[k]] for k in COLOURS},
            )
    return need


def war_blocked(state: State, seat: int) -> str:
    s = state.seats[seat]
    if any(i == seat for i, _ in state.warfare):
        return "second-disc"
    if not s.discs:
        return "no-disc"
    if len(state.warfare) >= state.t.warfare_spaces:
        return "track-full"
    return ""


def trades_open(state: State, seat: int) -> list[str]:
    banners = state.seats[seat].banners
    return [name for name, (need, _) in state.t.trades.items() if all(b >= k for b, k in zip(banners, need, strict=True))]


def schemes_open(state: State, seat: int) -> list[int]:
    level = state.t.track_values[BI["P"]][state.seats[seat].tracks[BI["P"]] - 1]
    return [slot for slot in range(1, len(state.schemes) + 1) if state.schemes_up[slot - 1] and slot <= level]


def check_turn(state: State, c: Command) -> tuple[str, str, tuple[str, ...], str]:
    """Validate a turn command; returns (action, colour, paid, card)."""
    t = state.t
    seat = c.seat
    s = state.seats[seat]
    if isinstance(c, cmd.CityAction):
        paid = payment(state, seat, c.colour, c.jokers, "city-action")
        if c.colour == "O":
            why = war_blocked(state, seat)
            if why:
                raise RuleViolation(R + f"war/{why}", "no War action possible: " + why.replace("-", " "), seat=seat, on_track=[list(d) for d in state.warfare if d[0] == seat], discs=len(s.discs))
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


def turn_options(state: State) -> list[Option]:
    """Each affordable action, once per way of paying (how many W/B cubes stand in), then Pass."""
    seat = state.current
    s = state.seats[seat]
    n = s.actions + 1
    t = state.t
    out: list[Option] = []

    def pays(colour: str) -> list[int]:
        joker = t.jokers.get(colour, "")
        have = s.supply[CI[colour]]
        wild = s.supply[CI[joker]] if joker else 0
        return [j for j in range(0, (n if joker else 0) + 1) if n - j <= have and j <= wild]

    for colour in COLOURS:
        js = pays(colour)
        if not js:
            continue
        city_ok = not (
            (colour == "O" and war_blocked(state, seat))
            or (colour == "B" and not trades_open(state, seat))
            or (colour == "P" and not schemes_open(state, seat))
        )
        ci = CI[colour]
        for j in js:
            if city_ok:
                out.append((cmd.CityAction, seat, colour, j))
            if state.present[ci]:
                out.append((cmd.UseCard, seat, colour, j))
                if s.burned[ci] < t.burn_limit:
                    out.append((cmd.BurnCard, seat, colour, j))
            if colour in BI and state.upgrade > 0 and s.tracks[BI[colour]] < len(t.track_values[BI[colour]]):
                out.append((cmd.Upgrade, seat, colour, j))
    if not (out and s.actions == 0 and t.first_action_required):
        out.append((cmd.Pass, seat))
    return out


# --- follow-up choices -------------------------------------------------------------------
def vp_amount(state: State, task: Task) -> int:
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


def _card_choices(state: State, seat: int, cards: list[tuple[str, str]]) -> list[Option]:
    burned = state.seats[seat].burned
    out: list[Option] = []
    for card, source in cards:
        out.append((cmd.TakeCard, seat, card, source, "use"))
        if burned[CI[card[0]]] < state.t.burn_limit:
            out.append((cmd.TakeCard, seat, card, source, "burn"))
    return out


def _opt_fleet(state: State, task: Task) -> list[Option]:
    seat, coins = task[1], task[2]
    out: list[Option] = [
        (cmd.MarketCube, seat, c, cost)
        for ci, c in enumerate(COLOURS)
        for r, cost in enumerate(state.t.row_costs)
        if state.market[ci][r] and cost <= coins
    ]
    return out + [(cmd.Decline, seat)] if out else out


def _opt_market_swap(state: State, task: Task) -> list[Option]:
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


def _opt_take_card(state: State, task: Task) -> list[Option]:
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


def _opt_second(state: State, task: Task) -> list[Option]:
    seat, colour = task[1], task[2]
    cards = sorted({card for card in state.seats[seat].cards if card[0] == colour})
    out = _card_choices(state, seat, [(card, "supply") for card in cards])
    return out + [(cmd.Decline, seat)] if out else out


def _opt_move_own(state: State, task: Task) -> list[Option]:
    seat, lo, hi, dirs = task[1], task[2], task[3], task[4]
    form = state.seats[seat].form
    out: list[Option] = []
    for d in ("left", "right") if dirs == "both" else (dirs,):
        for k in range(lo, hi + 1):
            if 1 <= form + (k if d == "right" else -k) <= state.t.rep_spaces:
                out.append((cmd.Shift, seat, d, k))
    return out


def _opt_war_shift(state: State, task: Task) -> list[Option]:
    seat = task[1]
    form = state.seats[seat].form
    out: list[Option] = [(cmd.Shift, seat, "none", 0)]
    if form > 1:
        out.append((cmd.Shift, seat, "left", 1))
    if form < state.t.rep_spaces:
        out.append((cmd.Shift, seat, "right", 1))
    return out


def _opt_vp(state: State, task: Task) -> list[Option]:
    return [(cmd.Accept, task[1]), (cmd.Decline, task[1])] if vp_amount(state, task) > 0 else []


def _opt_noli(state: State, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if not s.cards:
        return []
    return _colours(task[1], [c for c in COLOURS if s.burned[CI[c]] < state.t.burn_limit])


def _opt_burn_position(state: State, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if task[2] not in s.cards:
        return []
    return _colours(task[1], [c for c in COLOURS if s.burned[CI[c]] < state.t.burn_limit])


def _banners_held(state: State, seat: int) -> list[str]:
    return [c for c in BANNERS if state.seats[seat].banners[BI[c]] > 0]


def _opt_decree(state: State, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    return _colours(task[1], [c for c in _banners_held(state, task[1]) if s.tracks[BI[c]] < len(state.t.track_values[BI[c]])])


def _opt_goodwill(state: State, task: Task) -> list[Option]:
    return _colours(task[1], [c for c in _banners_held(state, task[1]) if state.future[CI[c]]])


def _opt_betrayal(state: State, task: Task) -> list[Option]:
    out: list[Option] = _numbers(task[1], [i for i, s in enumerate(state.seats) if i != task[1] and s.crowns > 0])
    return out + [(cmd.Decline, task[1])] if out else out


def _opt_amalfi(state: State, task: Task) -> list[Option]:
    if task[2] * used_schemes(state) <= 0 or not any(state.seats[task[1]].bag):
        return []
    return [(cmd.Accept, task[1]), (cmd.Decline, task[1])]


def _opt_personal(state: State, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    if not s.scheme or s.scheme_used:
        return []
    return [(cmd.UseScheme, task[1], 0), (cmd.Decline, task[1])]


def _opt_war_pay(state: State, task: Task) -> list[Option]:
    s = state.seats[task[1]]
    return _colours(task[1], [c for c in COLOURS if s.supply[CI[c]] > 0])


# One entry per choice step: the exact legal commands as option keys; an empty list means the step is skipped.
OPTIONS: dict[str, Callable[[State, Task], list[Option]]] = {
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


def _reveal_next_future(state: State, colour: str, chance: Chance) -> list[Event]:
    deck = state.decks[CI[colour]]
    if not deck:
        return []
    (card,) = chance.draw(f"deck:{colour}", deck, 1)
    return [ev.FutureRevealed(colour, card)]


def resolve(state: State, task: Task, c: Command, chance: Chance) -> list[Event]:
    """The events one accepted follow-up choice causes (it was checked against `options`)."""
    kind, seat = task[0], task[1]
    if isinstance(c, cmd.Decline):
        return [ev.Declined(seat, kind)]
    if isinstance(c, cmd.Accept):
        if kind == "vp":
            return [ev.VpScored(seat, vp_amount(state, task), score_of(state))]
        return [ev.Accepted(seat, kind)]
    if isinstance(c, cmd.MarketCube):
        if kind == "fleet":
            return [ev.CubeBought(seat, c.colour, c.cost)]
        return [ev.MarketCubeTaken(seat, c.colour, c.cost)]
    if isinstance(c, cmd.TakeCard):
        if kind == "noli_card":
            return [ev.CardBurnedUnder(seat, c.card, task[2])]
        out: list[Event] = [ev.CardTaken(seat, c.card, c.source, c.mode)]
        if c.source == "future":
            out += _reveal_next_future(state, c.card[0], chance)
        return out
    if isinstance(c, cmd.Shift):
        seats = order_from(state, seat) if kind == "shift_all" else (seat,)
        return [ev.FormShifted(seats, c.direction, c.spaces)]
    if isinstance(c, cmd.UseScheme):
        scheme = state.seats[seat].scheme if c.slot == 0 else state.schemes[c.slot - 1]
        return [ev.SchemeChosen(seat, c.slot, scheme)]
    if isinstance(c, cmd.TradeBanners):
        return [ev.BannersTraded(seat, c.trade)]
    if isinstance(c, cmd.WarDisc):
        return [ev.WarDiscPlaced(seat, c.value)]
    if isinstance(c, cmd.KeepRepublic):
        old, new = state.seats[seat].republic, task[2]
        return [ev.RepublicKept(seat, new, old) if c.keep == "new" else ev.RepublicKept(seat, old, new)]
    if isinstance(c, cmd.PickColour):
        return [_PICK_COLOUR[kind](seat, c.colour, task)]
    if isinstance(c, cmd.PickNumber):
        return [_pick_number(state, kind, seat, c.value, task)]
    raise AssertionError(f"no resolver for {c.kind} at {kind}")


def score_of(state: State) -> str:
    return "second" if state.round > state.t.rounds else "first"


_PICK_COLOUR: dict[str, Callable[[int, str, Task], Event]] = {
    "banner_any": lambda s, c, t: ev.BannerGained(s, c),
    "return": lambda s, c, t: ev.CubeReturned(s, c),
    "gaeta": lambda s, c, t: ev.BannerReturned(s, c),
    "goodwill": lambda s, c, t: ev.BannerReturned(s, c),
    "noli": lambda s, c, t: ev.ColourChosen(s, c),
    "draw_colour_choice": lambda s, c, t: ev.ColourChosen(s, c),
    "plot": lambda s, c, t: ev.ColourChosen(s, c),
    "burn_self": lambda s, c, t: ev.CardBurnedUnder(s, t[2], c),
    "market_place": lambda s, c, t: ev.MarketCubePlaced(s, c),
    "decree": lambda s, c, t: ev.DecreeUpgrade(s, c),
    "war_pay": lambda s, c, t: ev.WarPaid(s, c),
    "track_back": lambda s, c, t: ev.TrackMovedBack(s, c),
    "cube_to_bag": lambda s, c, t: ev.CubeBagged(s, c),
}


def _pick_number(state: State, kind: str, seat: int, value: int, task: Task) -> Event:
    if kind == "ancona":
        others = tuple(i for i in order_from(state, seat)[1:] if value in state.seats[i].discs)
        return ev.AllianceDiscRemoved(seat, value, others)
    if kind == "discard_banners":
        return ev.BannersDiscarded(seat, task[2], value)
    if kind == "remove_cubes":
        return ev.CubesRemoved(seat, task[2], value)
    if kind == "recover_disc":
        return ev.WarDiscRecovered(seat, value)
    if kind == "retire_disc":
        return ev.WarDiscRetired(seat, value)
    if kind == "concordat":
        return ev.CrownsRemoved(seat, value)
    if kind == "betrayal":
        return ev.CrownStolen(seat, value)
    raise AssertionError(kind)


# --- automatic steps ---------------------------------------------------------------------
def _auto_end_turn(state: State, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    for i in order_from(state, seat)[1:] + (seat,):
        if not state.seats[i].passed:
            return [ev.TurnEnded(seat, i)]
    return [ev.TurnEnded(seat, seat)]


def _auto_draw(state: State, task: Task, chance: Chance) -> list[Event]:
    seat, n = task[1], task[2]
    bag = bag_list(state.seats[seat].bag)
    if n <= 0 or not bag:
        return [ev.StepSkipped(seat, "draw")]
    cubes = bag if n >= len(bag) else chance.draw(f"bag:{seat}", bag, n)
    return [ev.CubesDrawn(seat, tuple(cubes))]


def _auto_draw_keep(state: State, task: Task, chance: Chance) -> list[Event]:
    seat, n, keep = task[1], task[2], task[3]
    bag = bag_list(state.seats[seat].bag)
    if not bag:
        return [ev.StepSkipped(seat, "draw_keep")]
    cubes = bag if n <= 0 or n >= len(bag) else chance.draw(f"bag:{seat}", bag, n)
    return [ev.CubesDrawn(seat, tuple(cubes), keep)]


def _auto_draw_colours(state: State, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    bag = state.seats[seat].bag
    cubes = tuple(c for c in COLOURS if c in task[2:] for _ in range(bag[CI[c]]))
    return [ev.CubesDrawn(seat, cubes)] if cubes else [ev.StepSkipped(seat, "draw_colours")]


def _auto_round_draw(state: State, task: Task, chance: Chance) -> list[Event]:
    seat = task[1]
    s = state.seats[seat]
    n = state.t.track_values[BI["G"]][s.tracks[BI["G"]] - 1]
    if s.vp == min(x.vp for x in state.seats):
        n += state.t.fewest_bonus
    return _auto_draw(state, ("draw", seat, n), chance)


def _auto_cube(state: State, task: Task, chance: Chance) -> list[Event]:
    return [ev.CubeGained(task[1], task[2], state.reserve[CI[task[2]]] > 0)]


def _auto_republic_swap(state: State, task: Task, chance: Chance) -> list[Event]:
    if not state.pool:
        return [ev.StepSkipped(task[1], "republic_swap")]
    (card,) = chance.draw("republic-pool", state.pool, 1)
    return [ev.RepublicDrawn(task[1], card)]


def _auto_vp(state: State, task: Task, chance: Chance) -> list[Event]:
    amount = vp_amount(state, task)
    if amount < 0:  # losses are not optional
        return [ev.VpScored(task[1], amount, score_of(state))]
    return [ev.StepSkipped(task[1], "vp")]


def _auto_war_pay(state: State, task: Task, chance: Chance) -> list[Event]:
    supply = state.seats[task[1]].supply
    return [ev.WarForfeited(task[1], tuple(bag_list(supply)))]


def _auto_war_reveal(state: State, task: Task, chance: Chance) -> list[Event]:
    if not state.warfare:
        return [ev.StepSkipped(-1, "war_reveal")]
    return [ev.WarRevealed(state.warfare)]


def _auto_war_outcome(state: State, task: Task, chance: Chance) -> list[Event]:
    if not state.warfare:
        return [ev.StepSkipped(-1, "war_outcome")]
    ranked = sorted(range(len(state.warfare)), key=lambda k: (-state.warfare[k][1], k))
    seats = [state.warfare[k][0] for k in ranked]
    return [ev.WarWon(seats[0], tuple(seats[1:]))]


def _auto_war_end(state: State, task: Task, chance: Chance) -> list[Event]:
    return [ev.WarEnded()] if state.warfare else [ev.StepSkipped(-1, "war_end")]


def _auto_renew(state: State, task: Task, chance: Chance) -> list[Event]:
    colour = task[2]
    i = CI[colour]
    discards = state.discards[i] + ((state.present[i],) if state.present[i] else ())
    present = state.future[i]
    deck = list(state.decks[i])
    drawn: list[str] = []
    rebuilt = -1
    for _ in range(1 if present else 2):
        if not deck and discards:
            deck, discards, rebuilt = sorted(discards), (), len(drawn)
        if not deck:
            break
        (card,) = chance.draw(f"deck:{colour}", deck, 1)
        deck.remove(card)
        drawn.append(card)
    return [ev.CardsRenewed(colour, tuple(drawn), rebuilt)]


def _auto_reset(state: State, task: Task, chance: Chance) -> list[Event]:
    if state.solo:
        first = 0  # the human always plays first
    elif state.players == 2:
        first = 1 - state.first
    else:
        first = state.next_first if state.next_first >= 0 else (state.first + 1) % state.players
    return [ev.RoundReset(state.round + 1, first)]


def _auto_form_crowns(state: State, task: Task, chance: Chance) -> list[Event]:
    crowns = tuple(0 if i == GHOST and state.solo else state.t.rep_crowns[s.form - 1] for i, s in enumerate(state.seats))
    return [ev.FormCrownsTaken(crowns)]


def _auto_game_end(state: State, task: Task, chance: Chance) -> list[Event]:
    from .scoring import final_scores

    return [ev.GameEnded(tuple(r["final"] for r in final_scores(state)))]


AUTO: dict[str, Callable[[State, Task, Chance], list[Event]]] = {
    "end_turn": _auto_end_turn,
    "banner": lambda s, t, ch: [ev.BannerGained(t[1], t[2])],
    "cube": _auto_cube,
    "crowns": lambda s, t, ch: [ev.CrownsGained(t[1], t[2])],
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
    "final": lambda s, t, ch: [ev.SecondScoringStarted()],
    "form_crowns": _auto_form_crowns,
    "game_end": _auto_game_end,
}

# Choice kinds that settle themselves in some states (a loss of VP, a war disc that cannot be paid).
CONDITIONAL: dict[str, Callable[[State, Task], bool]] = {
    "vp": lambda s, t: vp_amount(s, t) < 0,
    "war_pay": lambda s, t: sum(s.seats[t[1]].supply) < t[2],
}
AUTO_IF = {"vp": _auto_vp, "war_pay": _auto_war_pay}


# --- solo: the Ghost's steps -------------------------------------------------------------
def _ghost_turn(state: State, task: Task, chance: Chance) -> list[Event]:
    g = state.seats[GHOST]
    bag = bag_list(g.bag)
    if not bag or g.actions >= state.t.solo.scenarios[state.solo.scenario].draws:  # type: ignore[union-attr]
        return [ev.StepSkipped(GHOST, "ghost_turn")]
    (cube,) = bag if len(bag) == 1 else chance.draw("bag:ghost", bag, 1)
    return [ev.GhostDrew(cube, state.present[CI[cube]])]


def _ghost_clear_row(state: State, task: Task, chance: Chance) -> list[Event]:
    r = state.t.row_costs.index(task[2])
    cubes = tuple(c for ci, c in enumerate(COLOURS) if state.market[ci][r])
    return [ev.MarketRowCleared(task[2], cubes)] if cubes else [ev.StepSkipped(GHOST, "market_clear_row")]


def _ghost_disc(state: State, task: Task, chance: Chance) -> list[Event]:
    """Random: drawn unseen from the Ghost's discs; highest / lowest: as the scenario says."""
    discs = state.seats[GHOST].discs
    if war_blocked(state, GHOST):
        return [ev.StepSkipped(GHOST, "ghost_disc")]
    mode = task[2]
    if mode == "highest":
        value = max(discs)
    elif mode == "lowest":
        value = min(discs)
    else:
        (value,) = discs if len(set(discs)) == 1 else chance.draw("ghost-discs", sorted(discs), 1)
    return [ev.WarDiscPlaced(GHOST, value)]


def _ghost_remove_schemes(state: State, task: Task, chance: Chance) -> list[Event]:
    slots = tuple(k for k in task[2:] if 1 <= k <= len(state.schemes) and state.schemes_up[k - 1])
    return [ev.SchemesRemoved(slots)] if slots else [ev.StepSkipped(GHOST, "remove_schemes")]


# Steps the Ghost runs itself. Any other step queued for the Ghost's seat (a VP gain, a war shift or
# payment, a card for winning a war, a round draw) is skipped: the Ghost owns nothing but its bag and discs.
GHOST_AUTO: dict[str, Callable[[State, Task, Chance], list[Event]]] = {
    "ghost_turn": _ghost_turn,
    "market_clear_row": _ghost_clear_row,
    "human_form": lambda s, t, ch: [ev.FormShifted((0,), t[2], t[3])],
    "ghost_disc": _ghost_disc,
    "remove_schemes": _ghost_remove_schemes,
}


def _ghost_step(state: State, task: Task, chance: Chance) -> list[Event]:
    auto = GHOST_AUTO.get(task[0])
    return auto(state, task, chance) if auto is not None else [ev.StepSkipped(GHOST, task[0])]


def settle(state: State, events: list[Event], chance: Chance) -> tuple[State, list[Event]]:
    """Fold `events`, then settle automatic steps until a seat must choose (or the game ends)."""
    for e in events:
        state = evolve(state, e)
    while state.tasks:
        task = state.tasks[0]
        kind = task[0]
        auto = AUTO.get(kind)
        if task[1] == GHOST and state.solo is not None:
            more = _ghost_step(state, task, chance)
        elif auto is not None:
            more = auto(state, task, chance)
        elif kind in CONDITIONAL and CONDITIONAL[kind](state, task):
            more = AUTO_IF[kind](state, task, chance)
        else:
            if OPTIONS[kind](state, task):
                break
            more = [ev.StepSkipped(task[1], kind)]
        for e in more:
            state = evolve(state, e)
        events.extend(more)
    return state, events


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
        return OPTIONS[state.tasks[0][0]](state, state.tasks[0])
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
        offered = OPTIONS[task[0]](state, task)
        if key_of(c) not in offered:
            raise RuleViolation(
                R + f"{task[0].replace('_', '-')}/not-offered",
                f"{c.kind} is not one of the choices for {task[0]}",
                offered=[o[0](*o[1:]).to_json() for o in offered],
                given=c.to_json(),
            )
        events = resolve(state, task, c, chance)
    else:
        if c.seat != state.current:
            raise RuleViolation(R + "turn/out-of-turn", f"it is seat {state.current}'s turn, not seat {c.seat}'s", seat=c.seat, turn=state.current)
        if isinstance(c, cmd.Pass):
            if (cmd.Pass, c.seat) not in turn_options(state):
                raise RuleViolation(R + "pass/first-action-required", "every seat takes at least one action a round (one cube to the Market) before passing", seat=c.seat)
            events = [ev.Passed(c.seat)]
        else:
            action, colour, paid, card = check_turn(state, c)
            events = [ev.ActionTaken(c.seat, action, colour, paid, card)]
    after, events = settle(state, events, chance)
    return events, after
