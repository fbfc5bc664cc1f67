"""The La Città Game: setup, the contract's queries, the seat views and the scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel import Chance, Command, Edition, Event, Pending, RuleViolation
from domain.la_citta import edition as ed
from domain.la_citta import events as ev
from domain.la_citta import rules
from domain.la_citta.commands import parse
from domain.la_citta.state import State, begin, evolve, has_all_services


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
        players = int(options.get("players", 4))
        kind = str(options.get("setup", "beginner"))
        start = int(options.get("start", 0))
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
        state = begin(edition)
        for e in out:
            state = evolve(state, e)
        if kind == "beginner":
            letters = d["beginner"]["seats"][str(players)]
            for seat, letter in enumerate(letters):
                for h in d["beginner"]["castles"][letter]:
                    out.append(ev.CastlePlaced(seat, int(h), int(d["start"]["citizens_per_castle"]), state.land.food[int(h)]))
        out.extend(ev.GoldGained(seat, int(d["start"]["gold"]), "start") for seat in range(players))
        for e in out[2:]:
            state = evolve(state, e)
        dealt = rules._deal(state, chance, int(d["start"]["face_up_politics"]))
        for e in dealt:
            state = evolve(state, e)
        more, _ = rules.advance(state, chance)
        return out + dealt + more

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        return parse(payload)

    def decide(self, state: State, command: Command, chance: Chance) -> list[Event]:
        return rules.decide(state, command, chance)

    def play(self, state: State, command: Command, chance: Chance) -> tuple[list[Event], State]:
        return rules.play(state, command, chance)

    def evolve(self, state: State, event: Event) -> State:
        return evolve(state, event)

    def pending(self, state: State) -> Pending:
        return rules.pending_of(state)

    def legal(self, state: State) -> Sequence[Command]:
        return rules.legal(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """Everything on the table. A face-down voice card shows only in the view of a seat that polled
        it (not even in the review view: nobody else has seen it); a blind draw shows in no view until
        it reaches the face-up discard pile at the end of the year."""
        s = state
        if s.voice:
            down: list[str | None] = list(s.voice_down)
        else:
            down = [card if card and seat in s.voice_seen[i] else None for i, card in enumerate(s.voice_down)]
        return {
            "year": s.year,
            "phase": s.phase,
            "start": s.start,
            "players": s.players,
            "pending": rules.pending_of(s).to_json(),
            "tiles": dict(s.land.tiles) if s.land else {},
            "cities": [
                {
                    "owner": c.owner,
                    "castle": c.castle,
                    "citizens": c.citizens,
                    "buildings": [{"hex": h, "building": k} for h, k in c.buildings],
                }
                for _, c in sorted(s.cities.items())
            ],
            "seats": [
                {
                    "seat": i,
                    "gold": s.gold[i],
                    "food": s.food[i],
                    "actions": s.actions[i],
                    "castles_left": s.castles_left[i],
                    "figures_used": s.figures[i],
                    "played": ["face-down" if blind else card for card, blind in s.played[i]],
                    "penalty": s.penalty[i],
                }
                for i in range(s.players)
            ],
            "figures": [{"seat": a, "hex": h, "service": sv, "figures": n} for a, h, sv, n in s.bread]
            + [{"seat": a, "hex": h, "harvest": True} for a, h in s.harvest],
            "voice": {"face_up": s.voice_up or None, "face_down": down, "services": list(s.voice), "deck": sum(s.voice_deck)},
            "politics": {"display": list(s.display), "deck": len(s.deck), "discard": list(s.discard)},
            "stock": dict(zip(s.t.pools, s.stock, strict=True)),
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


GAME = LaCitta()
