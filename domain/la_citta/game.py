"""The La Città Game: setup, the contract's queries, the seat views and the scores."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import marshmallow
from marshmallow import fields

from domain.kernel import Chance, Command, Edition, Event, Pending, RuleViolation, load_options
from domain.la_citta import edition as ed
from domain.la_citta import events as ev
from domain.la_citta import rules
from domain.la_citta.commands import parse
from domain.la_citta.edition import SERVICES
from domain.la_citta.state import City, State, begin, cap, evolve, evolve_all, has_all_services, points


class OptionsSchema(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    players = fields.Integer(strict=True, load_default=4)
    setup = fields.String(load_default="beginner")
    start = fields.Integer(strict=True, load_default=0)


_OPTIONS = OptionsSchema()  # built once: a marshmallow schema costs more to build than to load with
# Options that are a plain dict of known keys with values of exactly their field's JSON type load
# to themselves plus the defaults: they need no trip through marshmallow (every replay starts here).
_OPTION_TYPES = {"players": int, "setup": str, "start": int}
_OPTION_DEFAULTS = {"players": 4, "setup": "beginner", "start": 0}


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    if type(options) is dict and all(_OPTION_TYPES.get(k) is type(v) for k, v in options.items()):
        return {**_OPTION_DEFAULTS, **options}
    return load_options("la-citta", _OPTIONS, options)


class LaCitta:
    title = "la-citta"
    seats = (2, 5)

    def default_edition(self) -> Edition:
        return ed.default_edition()

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return ed.load_edition(raw, source)

    def begin(self, edition: Edition) -> State:
        return begin(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Chance) -> list[Event]:
        """Options: players (2-5), setup ("beginner" or "experienced"), start (the first starting player)."""
        opts = _options(options)
        players, kind, start = opts["players"], opts["setup"], opts["start"]
        if not self.seats[0] <= players <= self.seats[1]:
            raise RuleViolation("la-citta/setup/players", f"La Città is for 2 to 5 players, not {players}", players=players)
        if kind not in ("beginner", "experienced"):
            raise RuleViolation("la-citta/setup/kind", f"unknown setup {kind!r}", setup=kind)
        if not 0 <= start < players:
            raise RuleViolation("la-citta/setup/start", f"no seat {start} among {players}", start=start)
        d = edition.data
        out: list[Event] = [ev.GameStarted(edition.ref, players, kind, start)]
        if kind == "beginner":
            out.append(ev.TilesPlaced(dict(d["beginner"]["tiles"])))
        else:
            tiles = sorted(code for code, n in d["tiles"].items() for _ in range(int(n)))
            slots = sorted(d["board"]["slots"])
            if len(tiles) != len(slots):
                raise RuleViolation("la-citta/setup/tiles", "the edition has not one tile per slot", tiles=len(tiles), slots=len(slots))
            out.append(ev.TilesPlaced(dict(zip(slots, chance.shuffle("tiles", tiles), strict=True))))
        state = evolve_all(begin(edition), out)
        if kind == "beginner":
            letters = d["beginner"]["seats"][str(players)]
            for seat, letter in enumerate(letters):
                for h in d["beginner"]["castles"][letter]:
                    out.append(ev.CastlePlaced(seat, int(h), int(d["start"]["citizens_per_castle"]), state.land.food[int(h)]))
        out.extend(ev.GoldGained(seat, int(d["start"]["gold"]), "start") for seat in range(players))
        state = evolve_all(state, out[2:])
        dealt = rules._deal(state, chance, int(d["start"]["face_up_politics"]))
        more, _ = rules.advance(evolve_all(state, dealt), chance)
        return out + dealt + more

    # The calls a replay makes for every command and event go straight to the rules' functions
    # (no method in between): parse_command(payload), play(state, command, chance), evolve(state, event).
    parse_command: Callable[[Mapping[str, Any]], Command] = staticmethod(parse)
    play: Callable[[State, Command, Chance], tuple[list[Event], State]] = staticmethod(rules.play)
    evolve: Callable[[State, Event], State] = staticmethod(evolve)

    def decide(self, state: State, command: Command, chance: Chance) -> list[Event]:
        return rules.decide(state, command, chance)

    def pending(self, state: State) -> Pending:
        return rules.pending_of(state)

    def legal(self, state: State) -> Sequence[Command]:
        return rules.legal(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The table as a reviewer reads it: hexes by their L-name, cities by their castle's hex, counts
        rather than flags; bookkeeping that only drives the rules (links, placing order, turn pointers)
        stays out. `round` is the year, which the service uses for its turns index.

        A face-down voice card shows only in the view of a seat that polled it (not even in the review
        view: nobody else has seen it); a blind draw shows in no view until it reaches the face-up
        discard pile at the end of the year."""
        s = state
        if s.voice:
            down: list[str | None] = list(s.voice_down)
        else:
            down = [card if card and seat in s.voice_seen[i] else None for i, card in enumerate(s.voice_down)]
        return {
            "round": s.year,
            "year": s.year,
            "years": int(s.t.data["year"]["years"]),
            "phase": s.phase,
            "political_round": s.round if s.phase == "politics" else None,
            "players": s.players,
            "setup": s.setup or None,
            "start": s.start,
            "turn_order": list(s.seating),
            "pending": rules.pending_of(s).to_json(),
            "tiles": {slot: _terrain(s, code) for slot, code in sorted(s.land.tiles.items())} if s.land else {},
            "cities": [_city(s, c) for _, c in sorted(s.cities.items())],
            "seats": [_seat(s, i) for i in range(s.players)],
            "figures": {
                "bread_and_games": [
                    {"seat": a, "hex": _hex(h), "service": sv, "figures": n} for a, h, sv, n in s.bread
                ],
                "rich_harvest": [{"seat": a, "farm_house": _hex(h)} for a, h in s.harvest],
            },
            "voice": {"face_up": s.voice_up or None, "face_down": down, "services": list(s.voice), "deck": sum(s.voice_deck)},
            "politics": {"display": list(s.display), "deck": len(s.deck), "discard": list(s.discard)},
            "stock": dict(zip(s.t.pools, s.stock, strict=True)) if s.stock else {},
            "supply": s.supply,
        }

    def scores(self, state: State) -> dict[str, Any]:
        s = state
        sc = s.t.data["scoring"]
        seats = []
        for i in range(s.players):
            own = [c for c in s.cities.values() if c.owner == i]
            citizens = sum(c.citizens for c in own) * int(sc["per_citizen"])
            bonus = sum(1 for c in own if has_all_services(s, c)) * int(sc["per_city_all_services"])
            hunger = int(sc["starved_last_year"]) if s.starved_last_year[i] else 0
            seats.append(
                {
                    "seat": i,
                    "total": citizens + bonus + hunger,
                    "breakdown": {"citizens": citizens, "all_services": bonus, "starved": hunger, "gold": s.gold[i]},
                }
            )
        ranking = sorted(range(s.players), key=lambda i: (-seats[i]["total"], -s.gold[i], i))
        best = ranking[0] if ranking else None
        winners = [i for i in ranking if best is not None and (seats[i]["total"], s.gold[i]) == (seats[best]["total"], s.gold[best])]
        return {"finished": s.phase == "over", "ranking": ranking, "winners": winners, "seats": seats}


def _hex(h: int) -> str:
    return f"L{h}"


def _terrain(s: State, code: str) -> str:
    land = s.t.data["terrain"][code]
    wheat = int(land["wheat"])
    return f"{land['kind']} ({wheat} wheat)" if wheat else str(land["kind"])


def _city(s: State, c: City) -> dict[str, Any]:
    return {
        "castle": _hex(c.castle),
        "owner": c.owner,
        "citizens": c.citizens,
        "limit": cap(s, c),
        "services": {sv: points(s, c, sv) for sv in SERVICES},
        "buildings": [{"hex": _hex(h), "building": k} for h, k in c.buildings],
    }


def _seat(s: State, i: int) -> dict[str, Any]:
    own = [c for c in s.cities.values() if c.owner == i]
    return {
        "seat": i,
        "gold": s.gold[i],
        "food": s.food[i],
        "cities": len(own),
        "citizens": sum(c.citizens for c in own),
        "action_cards": s.actions[i],
        "castles_left": s.castles_left[i],
        "figures_left": int(s.t.data["year"]["coloured_figures"]) - s.figures[i],
        "played": [("face-down" if card else "none: deck empty") if blind else card for card, blind in s.played[i]],
        "loses_first_turn": s.penalty[i],
        "hungry": s.hungry[i],
    }


GAME = LaCitta()
