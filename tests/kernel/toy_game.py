"""A tiny dice-and-bag game that exercises every part of the kernel contract.

Two to three seats each own a bag of three cubes; on your turn you either draw a cube
from your bag (score its value) or roll a die (score it, bust on 1). First to 10 wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import marshmallow
from marshmallow import fields

from domain.kernel import (
    Command,
    CommandBook,
    Edition,
    Event,
    Pending,
    RuleViolation,
    command,
    event,
    parse_edition,
    pending,
)
from domain.kernel.notation import Form, Vocabulary, Words

EDITION_YAML = b"""
id: toy-1
title: toy
data:
  target: 10
  bag: [1, 2, 3]
provenance:
  target: "assumed: a short game"
"""


class ToyEditionSchema(marshmallow.Schema):
    target = fields.Integer(required=True)
    bag = fields.List(fields.Integer(), required=True)


@event("toy/started")
class Started(Event):
    edition: Mapping[str, str]
    seats: int


@event("toy/drawn")
class Drawn(Event):
    seat: int
    cube: int


@event("toy/rolled")
class Rolled(Event):
    seat: int
    face: int


@command("toy/draw")
class Draw(Command):
    pass


@command("toy/roll")
class Roll(Command):
    pass


class SeatOnly(marshmallow.Schema):
    class Meta:
        unknown = marshmallow.RAISE

    seat = fields.Integer(required=True, strict=True)


BOOK = CommandBook()
BOOK.add(Draw, SeatOnly())
BOOK.add(Roll, SeatOnly())


@dataclass(frozen=True)
class State:
    edition: Edition
    seats: int = 0
    turn: int = 0
    points: tuple[int, ...] = ()
    bags: tuple[tuple[int, ...], ...] = ()


class Toy:
    title = "toy"
    name = "Toy"
    seats = (2, 3)

    def default_edition(self) -> Edition:
        return self.load_edition(EDITION_YAML)

    def load_edition(self, raw: bytes, source: str = "<edition>") -> Edition:
        return parse_edition(raw, "toy", ToyEditionSchema(), source)

    def begin(self, edition: Edition) -> State:
        return State(edition)

    def setup(self, edition: Edition, options: Mapping[str, Any], chance: Any) -> list[Event]:
        return [Started(edition.ref, int(options["players"]))]

    def parse_command(self, payload: Mapping[str, Any]) -> Command:
        return BOOK.parse(payload)

    def decide(self, state: State, cmd: Command, chance: Any) -> list[Event]:
        if self.pending(state).over:
            raise RuleViolation("toy/over", "the game is over")
        if cmd.seat != state.turn:
            raise RuleViolation("toy/turn", f"it is seat {state.turn}'s turn", seat=cmd.seat, turn=state.turn)
        if isinstance(cmd, Draw):
            bag = state.bags[cmd.seat]
            if not bag:
                raise RuleViolation("toy/empty-bag", "your bag is empty", seat=cmd.seat)
            (cube,) = chance.draw(f"bag:{cmd.seat}", bag, 1)
            return [Drawn(cmd.seat, cube)]
        (face,) = chance.roll("die", 1)
        return [Rolled(cmd.seat, face)]

    def evolve(self, state: State, e: Event) -> State:
        if isinstance(e, Started):
            bag = tuple(state.edition.data["bag"])
            return replace(state, seats=e.seats, points=(0,) * e.seats, bags=(bag,) * e.seats)
        if isinstance(e, Drawn):
            bag = list(state.bags[e.seat])
            bag.remove(e.cube)
            bags = state.bags[: e.seat] + (tuple(bag),) + state.bags[e.seat + 1 :]
            return self._score(replace(state, bags=bags), e.seat, e.cube)
        if isinstance(e, Rolled):
            return self._score(state, e.seat, 0 if e.face == 1 else e.face)
        return state

    def _score(self, state: State, seat: int, gain: int) -> State:
        points = state.points[:seat] + (state.points[seat] + gain,) + state.points[seat + 1 :]
        return replace(state, points=points, turn=(seat + 1) % state.seats)

    def pending(self, state: State) -> Pending:
        if state.points and max(state.points) >= state.edition.data["target"]:
            return pending(None, "game-over")
        return pending(state.turn, "turn")

    def legal(self, state: State) -> list[Command]:
        if self.pending(state).over:
            return []
        moves: list[Command] = [Roll(state.turn)]
        if state.bags[state.turn]:
            moves.append(Draw(state.turn))
        return moves

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"points": list(state.points), "turn": state.turn}
        out["bags"] = [sorted(b) if seat in (None, i) else len(b) for i, b in enumerate(state.bags)]
        return out

    def scores(self, state: State) -> dict[str, Any]:
        ranking = sorted(range(state.seats), key=lambda s: -state.points[s])
        return {
            "finished": self.pending(state).over,
            "ranking": ranking,
            "seats": [{"seat": s, "total": p, "breakdown": {"points": p}} for s, p in enumerate(state.points)],
        }


GAME = Toy()


def _toy_words() -> object:
    return Words(Vocabulary([Form("draw", "toy/draw", says="draw a cube from your bag"),
                             Form("roll", "toy/roll", says="roll the die")]), colours=("red", "blue", "green"),
                 open_pool=lambda source, seat: source == f"bag:{seat}")  # as `view`: a bag is its own seat's


WORDS = _toy_words()
