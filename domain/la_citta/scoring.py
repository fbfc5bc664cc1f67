"""`scores(state)`: victory points per seat with their breakdown, and the ranking with its tie-break.

A citizen is worth `per_citizen`, a city with an arch of every service `per_city_all_services`,
starving in the last year `starved_last_year` (all from the edition); gold breaks a tie.
"""

from __future__ import annotations

from typing import Any

from domain.la_citta.edition import SERVICES
from domain.la_citta.state import City, State


def has_all_services(s: State, city: City) -> bool:
    """A printed arch of each of the three services (bread-and-games figures do not count)."""
    printed = {sv for _, k in city.buildings for sv, n in s.t.arches[k].items() if n > 0}
    return printed >= set(SERVICES)


def scores(state: State) -> dict[str, Any]:
    s = state
    sc = s.t.data["scoring"]
    seats: list[dict[str, Any]] = []
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
