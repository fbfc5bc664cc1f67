"""Building La Città positions for tests: fold trusted events, then play commands through decide."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.kernel import Command, Event, SeededChance
from domain.kernel.chance import Outcome
from domain.la_citta import GAME
from domain.la_citta import events as ev
from domain.la_citta.edition import terrain
from domain.la_citta.state import State

ED = GAME.default_edition()
BEGINNER_TILES = dict(ED.data["beginner"]["tiles"])


class ScriptedChance:
    """Chance that answers from a script per source, else takes the first items in canonical order."""

    def __init__(self, **scripts: Sequence[Sequence[Any]]) -> None:
        self.scripts = {source.replace("_", ":"): [tuple(x) for x in seq] for source, seq in scripts.items()}
        self.log: list[Outcome] = []

    def draw(self, source: str, contents: Sequence[Any], n: int) -> tuple[Any, ...]:
        queue = self.scripts.get(source)
        if queue:
            values = queue.pop(0)
            left = list(contents)
            for v in values:
                left.remove(v)  # a scripted card must really be there
        else:
            values = tuple(contents[: min(n, len(contents))])
        self.log.append(Outcome("draw", source, tuple(values)))
        return tuple(values)

    def shuffle(self, source: str, items: Sequence[Any]) -> tuple[Any, ...]:
        self.log.append(Outcome("shuffle", source, tuple(items)))
        return tuple(items)

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        raise AssertionError("La Città rolls no dice")


def fold(state: State, events: Iterable[Event]) -> State:
    for e in events:
        state = GAME.evolve(state, e)
    return state


def position(
    players: int = 2,
    cities: Sequence[tuple[int, int, int]] = (),
    buildings: Sequence[tuple[int, int, int, str]] = (),
    gold: Sequence[int] = (),
    display: Sequence[str] = (),
    voice_up: str = "culture",
    year: int = 1,
    start: int = 0,
) -> State:
    """A political-round position: cities are (seat, castle hex, citizens), buildings (seat, city, hex, kind)."""
    s = GAME.begin(ED)
    s = fold(s, [ev.GameStarted(ED.ref, players, "beginner", start), ev.TilesPlaced(BEGINNER_TILES)])
    land = terrain(ED, s.t, BEGINNER_TILES)
    out: list[Event] = [ev.CastlePlaced(seat, h, n, land.food[h]) for seat, h, n in cities]
    for seat, city, h, kind in buildings:
        food = land.food[h] if kind == "farm_house" else 0
        out.append(ev.BuildingBuilt(seat, city, h, kind, "castle", food))
    out += [ev.GoldGained(seat, g, "test") for seat, g in enumerate(gold) if g]
    if display:
        out.append(ev.PoliticsDealt(tuple(display)))
    out += [ev.YearBegan(year, start), ev.VoiceLaidOut(voice_up), ev.PopulationGrew(()), ev.PhaseBegan("politics")]
    return fold(s, out)


def to_tally(s: State, face_down: Sequence[str]) -> State:
    """End the political rounds with these face-down voice cards already fixed."""
    s = s._replace(voice_down=tuple(face_down), voice_seen=((),) * len(face_down))
    return fold(s, [ev.TurnEnded(seat) for _ in range(5) for seat in s.seating])


def play(s: State, cmd: Command, chance: Any = None) -> tuple[State, list[Event]]:
    events = GAME.decide(s, cmd, chance if chance is not None else SeededChance("test"))
    return fold(s, events), events


def advance(s: State, chance: Any = None) -> tuple[State, list[Event]]:
    from domain.la_citta.rules import advance as run

    events, after = run(s, chance if chance is not None else SeededChance("test"))
    return after, events


def types(events: Iterable[Event]) -> list[str]:
    return [type(e).__name__ for e in events]
