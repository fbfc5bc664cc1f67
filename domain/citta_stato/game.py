"""The Città-Stato Game: setup steps, the contract's queries, and what each seat may see."""

from __future__ import annotations

import json
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
from .fold import evolve, remember_setup
from .rules import bag_list, decide, drawn_number, options, play, settle, unsettled
from .scoring import final_scores, ranking, tied
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


def _deal_republic_cards(s: State, chance: Chance) -> list[Event]:
    deck: list[str] = []
    for form, count in s.t.deal[s.players].items():
        plain = sorted(k for k, f in s.t.republic_form.items() if f == form and not s.t.republic_crowns[k])
        deck += plain[:count]
    return [ev.RepublicCardsDealt.of(tuple(chance.draw("deck:republic", sorted(deck), s.players)))]


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


_PARSED: dict[tuple[Any, ...], Command] = {}
_BEGUN: dict[str, State] = {}
_OPTIONS = OptionsSchema()  # one instance: building a marshmallow schema deep-copies its fields
_LOADED: dict[str, dict[str, Any]] = {}


def _setup_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options through the schema, remembered by their JSON text (which tells `true` from `1`).

    Every replay of a record starts by loading the same few option sets; a set the schema refuses
    raises as always and is never remembered. The result is only read, never changed.
    """
    try:
        key = json.dumps(options, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):  # not plain JSON: the schema says what is wrong with it
        return load_options(ed.TITLE, _OPTIONS, options)
    found = _LOADED.get(key)
    if found is None:
        found = load_options(ed.TITLE, _OPTIONS, options)
        if len(_LOADED) >= 256:
            _LOADED.clear()
        _LOADED[key] = found
    return found


class CittaStato:
    title = ed.TITLE
    seats = (2, 5)

    def default_edition(self) -> Edition:
        return ed.default()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return ed.load(raw, source)

    def begin(self, edition: Edition) -> State:
        """The empty state, one per edition (states are immutable; see fold.remember_setup for why it is shared)."""
        found = _BEGUN.get(edition.content_hash)
        if found is None or found.edition is not edition:
            found = _BEGUN[edition.content_hash] = State(edition=edition, t=tables(edition))
        return found

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        opts = _setup_options(options)
        state = self.begin(edition)
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
                after = evolve(state, e)
                chain[id(e)] = (state, e, after)
                state = after

        fold_in(events)
        for step in steps:
            more = step(state, chance)
            fold_in(more)
            events += more
        remember_setup(chain)
        return events + settle(state, [], chance)[1]

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        """The command book's parse, remembered per payload (keys, values and the type of each value).

        A replayed log repeats the same few hundred payloads; the types are part of the key, so
        `true` is never taken for `1`. Only payloads that parsed are kept, so every malformed one
        still reaches the book and is refused there.
        """
        try:
            key = (tuple(payload.items()), tuple(map(type, payload.values())))
            found = _PARSED.get(key)
        except (AttributeError, TypeError):  # not a mapping, or a list / object value: no key, parse as is
            return BOOK.parse(payload)
        if found is None:
            found = BOOK.parse(payload)
            if len(_PARSED) >= 4096:
                _PARSED.clear()
            _PARSED[key] = found
        return found

    # The rules' own functions, not wrappers: replay calls `play` once per command and `evolve` once per event.
    decide = staticmethod(decide)
    play = staticmethod(play)
    evolve = staticmethod(evolve)

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
        out: dict[str, Any] = {"finished": over, "ranking": ranking(state, totals) if state.seats else [], "seats": seats}
        level = tied(state, totals) if state.seats else []
        if level:  # seats the rulebook's tie-breaks do not part share their place (listed in seat order in `ranking`)
            out["tied"] = level
        return out


GAME = CittaStato()
