"""La Città's table notation: the words a player writes for each move (docs/notation/la-citta.md).

A line of a year reads as the table speaks: `Ada: market L61 L68` (a market place on L61 for
the city whose castle stands on L68), `Bruno: palace L41 L54 [cathedral]` (the palace card,
and the card that refilled the display), `Chiara: poll 1 3 [?]`, `Ada: attract L68 health`.
Places are the board's lane hexes by their L-name, as the view shows them; a city is named by
its castle's hex. Verbs are the building, the card or the action, never the engine's ids.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from domain.kernel import GAME_OVER
from domain.kernel.choices import ACTIONS, CARDS, PASS, PLACES, Choice, choice_of
from domain.kernel.editions import Edition
from domain.kernel.notation import PUBLIC, Arg, Form, Move, NotationError, Owner, Vocabulary, Words, nearest
from domain.la_citta.edition import slot_places, tables, terrain_words
from domain.la_citta.game import GAME
from domain.la_citta.report import breakdown_words, held_words, terms, waiting
from domain.la_citta.rules import pending_of, settled
from domain.la_citta.state import State, order

SERVICE = {"culture": "culture", "education": "education", "health": "health"}

# Buildings by the word a table writes; the first word of each building is the one written,
# the engine's own names are read too (a `master` move names the building it builds).
BUILDING = {
    "farm": "farm_house", "quarry": "quarry", "market": "market_place", "school": "school", "statue": "statue",
    "fountain": "fountain", "palace": "palace", "hospital": "hospital", "bath": "public_bath",
    "cathedral": "cathedral", "university": "university",
    "farm_house": "farm_house", "market_place": "market_place", "public_bath": "public_bath",
}

# The small buildings an action card builds, and the politics cards that build one building:
# each is its own verb (the card is implied by the verb).
ACTION_BUILDS = ("farm", "quarry", "market", "school", "statue", "fountain")
CARD_BUILDS = ("palace", "hospital", "bath", "cathedral", "university")

# Seat colours in seat order: the reference edition's castles A-E (la-citta-components.md 3.2).
COLOURS = ("blue", "red", "yellow", "green", "purple")

_HEX = re.compile(r"[Ll](\d+)")


@cache
def hex_names() -> tuple[str, ...]:
    """Every lane hex of the reference board by its L-name (for did-you-mean)."""
    return tuple(f"L{h}" for h in tables(GAME.default_edition()).hexes)


def places(edition: Edition) -> tuple[str, ...]:
    """Every place an annotation's shape may name, as `[%csl]`/`[%cal]` markup writes it (docs/notation/la-citta.md):
    the edition's lane hexes by L-name, then its printed edge areas `E01`-`E12`."""
    found = _PLACES.get(edition.content_hash)
    if found is None:
        t = tables(edition)
        found = _PLACES.setdefault(edition.content_hash, (*(f"L{h}" for h in t.hexes), *sorted(t.data["board"]["edges"])))
    return found


_PLACES: dict[str, tuple[str, ...]] = {}


class Place(Arg):
    """A lane hex by its L-name (`L41`; a bare 41 is read too). Any number is read: whether the
    hex is on the board, in play and free is for the rules to say, with their own message."""

    def read(self, word: Any) -> Any:
        if isinstance(word, int) and not isinstance(word, bool):
            return word
        found = _HEX.fullmatch(word) if isinstance(word, str) else None
        if found is None:
            raise ValueError(f"{word!r} is not a hex of the board (a hex is written L1 to L{len(hex_names())})")
        return int(found.group(1))

    def write(self, value: Any) -> str:
        return f"L{value}"

    def choices(self) -> list[str]:
        return list(hex_names())


@cache
def face_down() -> int:
    """How many voice cards lie face down each year (the reference edition's number)."""
    return int(GAME.default_edition().data["voice"]["face_down"])


class Position(Arg):
    """A face-down voice card by its position, counted from 1 as it lies on the board (the engine counts from 0)."""

    def read(self, word: Any) -> Any:
        if isinstance(word, int) and not isinstance(word, bool) and word >= 1:
            return word - 1
        raise ValueError(f"{word!r} is not the position of a face-down card (1 to {face_down()})")

    def write(self, value: Any) -> str:
        return str(int(value) + 1)

    def choices(self) -> list[str]:
        return [str(k) for k in range(1, face_down() + 1)]


class LaCittaVocabulary(Vocabulary):
    """The kernel's vocabulary, with did-you-mean taken from the word at the refused argument's
    own place (the kernel's takes the first word this argument does not know, which for
    `bread L41 cultur` is `L41`, not `cultur`)."""

    @staticmethod
    def _bad(move: Move, form: Form, arg: Arg, exc: ValueError) -> NotationError:
        k = next(i for i, a in enumerate(form.args) if a is arg)
        words = list(move.words[k:]) if arg.many else list(move.words[k : k + 1])
        bad = next((w for w in words if not _reads(arg, w)), words[0] if words else None)
        choices = arg.choices()
        near = nearest(str(bad), choices) if bad is not None and choices else []
        return NotationError(f"line {move.line}: in {form.verb!r}, {exc}" + (f"; did you mean {' or '.join(near)}?" if near else ""),
                             move.line, move.column, choices[:12], near)


def _reads(arg: Arg, word: Any) -> bool:
    try:
        arg.read(word)
    except ValueError:
        return False
    return True


def _forms() -> list[Form]:
    build = "la-citta/build"
    where = (Place("hex"), Place("city"))
    forms = [
        Form("castle", "la-citta/place-castle", (Place("hex"),), says="place a castle (experienced setup)"),
        Form("gold", "la-citta/take-gold", says="action card: take 2 gold"),
        Form("found", "la-citta/found-city", (Place("hex"), Place("source")),
             says="action card: a new city on the hex, its first citizen from the castle named"),
    ]
    forms += [Form(word, build, where, fixed={"card": "action", "building": BUILDING[word]},
                   says=f"action card: build a {BUILDING[word].replace('_', ' ')} on the hex, for the city named")
              for word in ACTION_BUILDS]
    forms += [Form(word, build, where, fixed={"card": BUILDING[word], "building": BUILDING[word]},
                   says=f"the {BUILDING[word].replace('_', ' ')} card: build one on the hex, for the city named")
              for word in CARD_BUILDS]
    forms += [
        Form("master", build, (Arg("building", BUILDING), *where), fixed={"card": "master_builder"},
             says="the master builder card: any building, paid by its size"),
        Form("bread", "la-citta/bread-and-games", (Place("hex"), Arg("service", SERVICE), Arg("figures", default=1)),
             says="bread and games: coloured figures (1 to 3) on one arch of the building on the hex"),
        Form("golden", "la-citta/golden-times", (Place("city"), Arg("citizens", default=1)),
             says="golden times: citizens (1 to 3) into the city named"),
        Form("harvest", "la-citta/rich-harvest", (Place("hex"),), says="rich harvest on the farm house on the hex"),
        Form("poll", "la-citta/poll", (Position("slots", many=True),),
             says="polling the people: look at 2 (or 3) face-down voice cards, by position 1-3"),
        Form("pass", "la-citta/blind-draw", says="no action card left: the top politics card, face down"),
        Form("attract", "la-citta/attract", (Place("city"), Arg("service", SERVICE)),
             says="relocation: the city named draws citizens by the service"),
        Form("demolish", "la-citta/demolish", (Place("hex"),), says="an unsupported building on the hex goes"),
        Form("starve", "la-citta/send-away", (Place("city"), Arg("citizens", default=1)),
             says="feeding: citizens (1 by default) leave the city named"),
    ]
    return forms


def held(state: State, seat: int) -> dict[str, Any]:
    """What the seat held, as its own view shows it: gold, food, cards, figures, its cities
    (citizens, limit, buildings), the voice cards it has seen, and the face-up politics display."""
    view = GAME.view(state, seat)
    seats = view.get("seats") or []
    mine: dict[str, Any] = dict(seats[seat]) if seat < len(seats) else {"seat": seat}
    mine["cities"] = {
        c["castle"]: {"citizens": c["citizens"], "limit": c["limit"], "buildings": {b["hex"]: b["building"] for b in c["buildings"]}}
        for c in view.get("cities", []) if c["owner"] == seat
    }
    voice = view.get("voice") or {}
    mine["voice"] = {"face_up": voice.get("face_up"), "face_down": voice.get("face_down")}
    mine["display"] = (view.get("politics") or {}).get("display")
    return mine


def round_of(state: State) -> int | None:
    """The year a line is in (0 while castles are placed in the experienced setup). Read from the
    state, not the view: render asks at every turn and the view builds the whole board."""
    year = getattr(state, "year", None)
    return year if isinstance(year, int) else None


# Decisions that are a turn of their own: a political turn, a castle placed. Relocation, demolition
# and feeding choices of one player stay on one line (`Ada: attract L68 culture, attract L73 health`).
OWN_LINE = frozenset({"political-turn", "place-castle"})


def turn_starts(state: State) -> bool:
    """Does the decision taken in `state` open a new line? A political turn or a castle placement
    does, so a player who moves twice in a row (the other's turn lost to hunger) or who ends a
    year and opens the next gets one line per turn, each under its own year."""
    return GAME.pending(state).kind in OWN_LINE


def whose(state: State) -> tuple[int | None, str]:
    """`rules.pending_of`'s seat and kind, without the details it freezes (the checker asks before every
    move): its common branches in its own order, the others asked of it."""
    phase = state.phase
    if phase == "over":
        return None, GAME_OVER
    if phase == "politics" and settled(state):
        return order(state)[state.turn], "political-turn"
    found = pending_of(state)
    return found.seat, found.kind


_FACE_DOWN = {"la-citta/blind-draw": "politics", "la-citta/poll": "voice"}


def secret_outcomes(state: State, seat: int | None, command: Mapping[str, Any] | None,
                    asked: Sequence[tuple[str, str]]) -> list[Owner]:
    """A blind draw's card is its taker's, and so are the voice cards a poll turns up (the others learn them at
    the tally): each is the command's first outcome. Every other outcome is laid face up (the display's refills,
    the cards turned at the tally, the year's voice card)."""
    hidden = _FACE_DOWN.get(str((command or {}).get("type")))
    return [seat if k == 0 and source == hidden else PUBLIC for k, (_, source) in enumerate(asked)]


def open_pool(source: str, seat: int) -> bool:
    """Which pools a seat's view shows (`view`): the land tiles the setup lays face up. The politics deck and the voice
    of the people show only how many cards they hold."""
    return source == "tiles"


def where(edition: Edition, source: str) -> tuple[tuple[str, str], ...]:
    """The tiles' order is asked slot by slot: each position is the slot the experienced setup lays that tile over."""
    return slot_places(edition) if source == "tiles" else ()


def value_words(edition: Edition, source: str, value: Any) -> str | None:
    """A tile by its terrain, as the view says it ("farmland (2 wheat)", "lake"): the code (F2, L) is the notation's."""
    if source != "tiles" or not isinstance(value, str) or value not in edition.data["terrain"]:
        return None
    return terrain_words(edition.data, value)


WORDS = Words(LaCittaVocabulary(_forms()), colours=COLOURS, held=held, round_of=round_of, turn_starts=turn_starts,
              whose=whose, secret_outcomes=secret_outcomes, open_pool=open_pool, where=where, value_words=value_words, terms=terms, waiting=waiting,
              round_word="year",
              held_words=held_words,
              breakdown_words=breakdown_words)


# The decision panel's groups (kernel.choices): an action card's moves, a politics card's, the year-end choices
# made on a city or a hex, and the blind draw of a player with no action card left.
_ACTION_MOVES = frozenset({"la-citta/take-gold", "la-citta/found-city"})
_CARD_MOVES = frozenset({"la-citta/bread-and-games", "la-citta/golden-times", "la-citta/rich-harvest", "la-citta/poll"})
_LABELS = {"hex": "on", "city": "city", "source": "from", "citizens": "citizens", "figures": "figures", "slots": "cards"}


def _group(command: Mapping[str, Any]) -> str:
    kind = str(command.get("type"))
    if kind in _ACTION_MOVES or (kind == "la-citta/build" and command.get("card") == "action"):
        return ACTIONS
    if kind in _CARD_MOVES or kind == "la-citta/build":
        return CARDS
    return PASS if kind == "la-citta/blind-draw" else PLACES


def _place(command: Mapping[str, Any]) -> str | None:
    """The lane hex a choice names, by the id the board drawing gives it (`L41`): a tap there picks it."""
    for field in ("hex", "city"):
        h = command.get(field)
        if isinstance(h, int) and not isinstance(h, bool):
            return f"L{h}"
    return None


def choices(state: State, commands: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[Choice]:
    """The legal commands as the decision panel offers them (kernel.choices): the notation's moves, each hex a
    place on the board."""
    return [choice_of(WORDS, state, c, names, _group(c), _place(c), _LABELS) for c in commands]
