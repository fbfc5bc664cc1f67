"""The Città-Stato Game: setup steps, the contract's queries, and what each seat may see."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import marshmallow
from marshmallow import fields, validate

from domain.kernel import (
    AUTOMATIC,
    GAME_OVER,
    Chance,
    Command,
    Edition,
    Event,
    Pending,
    RuleViolation,
    load_options,
    pending,
)

from . import edition as ed
from . import events as ev
from . import solo
from .commands import BOOK
from .edition import BANNERS, COLOURS, tables
from .fold import evolve
from .rules import bag_list, decide, options, play, settle, unsettled
from .scoring import final_scores, ranking
from .state import GHOST, State, order_from
from .view import view


class SoloOptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    scenario = fields.Integer(required=True, strict=True)
    game = fields.Integer(required=True, strict=True)
    carried_crowns = fields.Integer(load_default=0, strict=True, validate=validate.Range(min=0))


class OptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    players = fields.Integer(required=True, strict=True, validate=validate.Range(min=2, max=5))
    expansion = fields.Boolean(load_default=None)
    solo = fields.Nested(SoloOptionsSchema, load_default=None)

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


# --- setup steps (each a small function; SOLO_SETUP_STEPS swaps the random deals) ---------
def _deal_cities(s: State, chance: Chance) -> list[Event]:
    cities = sorted(k for k, v in s.t.cities.items() if s.expansion or not v["expansion"])
    return [ev.CitiesDealt(tuple(chance.draw("deck:cities", cities, s.players)))]


def _deal_personal_schemes(s: State, chance: Chance) -> list[Event]:
    out: list[Event] = []
    for i, seat in enumerate(s.seats):
        seal = s.t.cities[seat.city].get("seal")
        if seal:
            sealed = [k for k in s.scheme_pool if s.t.schemes[k]["seal"] == seal]
            (scheme,) = chance.draw(f"schemes:{seal}", sealed, 1)
            out.append(ev.PersonalSchemeDealt(i, scheme))
            s = evolve(s, out[-1])
    return out


def _place_schemes(s: State, chance: Chance) -> list[Event]:
    return [ev.SchemesPlaced(tuple(chance.draw("schemes", s.scheme_pool, s.t.scheme_slots)))]


def _deal_republic_cards(s: State, chance: Chance) -> list[Event]:
    deck: list[str] = []
    for form, count in s.t.deal[s.players].items():
        plain = sorted(k for k, f in s.t.republic_form.items() if f == form and not s.t.republic_crowns[k])
        deck += plain[:count]
    return [ev.RepublicCardsDealt(tuple(chance.draw("deck:republic", sorted(deck), s.players)))]


def _reveal_cards(s: State, chance: Chance) -> list[Event]:
    out: list[Event] = []
    for i, c in enumerate(COLOURS):
        drawn = chance.draw(f"deck:{c}", s.decks[i], 2) + ("", "")
        out.append(ev.CardsRevealed(c, drawn[0], drawn[1]))
    return out


def _choose_first_player(s: State, chance: Chance) -> list[Event]:
    (first,) = chance.draw("first-player", list(range(s.players)), 1)
    return [ev.FirstPlayerChosen(first)]


def _place_city_cubes(s: State, chance: Chance) -> list[Event]:
    return [ev.CityCubesPlaced(i) for i in order_from(s, s.first)] + [ev.SetupCompleted()]


SETUP_STEPS = (
    _deal_cities,
    _deal_personal_schemes,
    _place_schemes,
    _deal_republic_cards,
    _reveal_cards,
    _choose_first_player,
    _place_city_cubes,
)


# --- solo setup: the scenario's fixed choices replace the random deals -------------------
def _scenario_city(s: State, chance: Chance) -> list[Event]:
    return [ev.CitiesDealt((solo.scenario(s).city, ""))]


def _scenario_schemes(s: State, chance: Chance) -> list[Event]:
    return [ev.SchemesPlaced(solo.scenario(s).schemes)]


def _scenario_republic(s: State, chance: Chance) -> list[Event]:
    return [ev.RepublicCardsDealt((solo.scenario(s).republic, ""))]


def _human_first(s: State, chance: Chance) -> list[Event]:
    return [ev.FirstPlayerChosen(0)]


def _place_solo_cubes(s: State, chance: Chance) -> list[Event]:
    ghost_bag = tuple(bag_list(s.t.solo.ghost_bag))  # type: ignore[union-attr]
    return [ev.CityCubesPlaced(0), ev.GhostSetUp(ghost_bag, solo.scenario(s).market_add), ev.SetupCompleted()]


SOLO_SETUP_STEPS = (
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


class CittaStato:
    title = ed.TITLE
    seats = (2, 5)

    def default_edition(self) -> Edition:
        return ed.default()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return ed.load(raw, source)

    def begin(self, edition: Edition) -> State:
        return State(edition=edition, t=tables(edition))

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        opts = load_options(ed.TITLE, OptionsSchema(), options)
        state = self.begin(edition)
        events: list[Event] = [ev.GameStarted(edition.ref, opts["players"], opts["expansion"])]
        steps = SETUP_STEPS
        if opts["solo"] is not None:
            bad = _solo_violation(edition, opts["solo"])
            if bad is not None:
                raise bad
            o = opts["solo"]
            events.append(ev.SoloStarted(o["scenario"], o["game"], o["carried_crowns"]))
            steps = SOLO_SETUP_STEPS
        for e in events:
            state = evolve(state, e)
        for step in steps:
            more = step(state, chance)
            for e in more:
                state = evolve(state, e)
            events += more
        return events + settle(state, [], chance)[1]

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        return BOOK.parse(payload)

    def decide(self, state: State, command: Command, chance: Chance) -> list[Event]:
        return decide(state, command, chance)

    def play(self, state: State, command: Command, chance: Chance) -> tuple[list[Event], State]:
        return play(state, command, chance)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def pending(self, state: State) -> Pending:
        if state.phase == "over":
            return pending(None, GAME_OVER)
        if unsettled(state):
            return pending(None, AUTOMATIC)
        if state.tasks:
            task = state.tasks[0]
            params = [] if task[0] == "keep_republic" else list(task[2:])  # the drawn card is secret; see view()
            return pending(task[1], task[0].replace("_", "-"), params=params)
        return pending(state.current, "turn", round=state.round, action=state.seats[state.current].actions + 1)

    def legal(self, state: State) -> list[Command]:
        return options(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def scores(self, state: State) -> dict[str, Any]:
        over = state.phase == "over"
        rows = final_scores(state) if state.seats else []
        totals = list(state.finals) if over else [s.vp for s in state.seats]
        seats = []
        for i, s in enumerate(state.seats):
            breakdown = dict(rows[i])
            breakdown.update(crowns=s.crowns, banners=dict(zip(BANNERS, s.banners, strict=True)), form=s.form, supply_cubes=sum(s.supply))
            seats.append({"seat": i, "total": totals[i], "breakdown": breakdown})
        if state.solo is not None:  # the human wins by the scenario's terms, not by out-scoring the Ghost
            report = solo.report(state)
            order = [0, GHOST] if report["won"] or not over else [GHOST, 0]
            return {"finished": over, "ranking": order, "seats": seats, "solo": report}
        return {"finished": over, "ranking": ranking(state, totals) if state.seats else [], "seats": seats}


GAME = CittaStato()
