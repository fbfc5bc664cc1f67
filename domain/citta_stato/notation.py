"""Città-Stato in the table notation: the words a player writes for each command (docs/notation/citta-stato.md).

A turn line is one action and the choices it asks for, e.g. ``Ada: fleet, buy G 2, buy O 1``.
The six City actions are named by their standard (fleet, city, guilds, war, republic, politics);
the other actions and most choices by a short verb and a colour letter (Y W G O B P) or a
card id (Y3, W5 ... as in the edition). A W or B cube standing in for the action's colour is
written after it, one letter a cube: ``war B`` is the War action with one black cube in place
of an orange one. Bare colour letters answer a colour question (a banner, a cube to pay, a
colour to draw).

One verb may say two commands, told apart by the word that follows: ``use Y`` is the
Use-a-Card action on the yellow Present card, ``use Y3 future`` is using the card Y3 taken
as a choice (after a war, from Venezia, at the Second scoring). The kernel's Vocabulary wants
one form a verb, so `TableVocabulary` keeps the extra forms beside it and tries them in turn.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.citta_stato.rules import pending_step, unsettled
from domain.kernel.choices import ACTIONS, PASS, Choice, choice_of
from domain.kernel.editions import Edition
from domain.kernel.notation import PUBLIC, Arg, Form, Move, Notation, NotationError, Owner, Unfit, Vocabulary, Words

from .edition import BANNERS, COLOUR_NAMES, COLOURS, default
from .report import breakdown_words, held_words, terms, waiting
from .state import State
from .view import view

K = "citta-stato/"
_DATA = default().data
CARDS: dict[str, str] = {card: card for card in _DATA["cards"]}  # Y1 ... P10: the edition's card ids
TRADES: dict[str, str] = {name: name for name in _DATA["republic_trades"]}  # purple, mixed
JOKER: dict[str, str] = dict(_DATA["jokers"])  # the cube that may stand in for a colour: Y/G -> W, O/P -> B
NAMES = COLOUR_NAMES  # a colour letter as the rulebook says it

# The players' colours as the rulebook's examples name them (seat order is the table's own choice;
# the Seats tag may give each seat its colour). The expansion's fifth colour is not named anywhere.
SEAT_COLOURS = ("red", "yellow", "blue", "green")

CITY_ACTIONS = {  # the six standards on the board: verb -> colour
    "fleet": "Y",  # Merchant Fleet: coins to buy Market cubes
    "city": "W",  # the City card's ability, then a banner
    "guilds": "G",  # City Guilds: draw cubes from the bag
    "war": "O",  # War: VP from the orange track; a War disc on the Warfare track the first time (one per player)
    "republic": "B",  # Republic: banners traded for crowns
    "politics": "P",  # Politics: a Political Scheme
}


@dataclass(frozen=True)
class Jokers(Arg):
    """How many W/B cubes stand in for the action's colour, written as those cubes: `W`, `WW`, `B` ...

    Absent when none do. Colours with no stand-in (W, B) refuse any.
    """

    colour: str = ""

    def read(self, word: Any) -> Any:
        joker = JOKER.get(self.colour, "")
        if not joker:
            raise ValueError(f"no cube can stand in for {NAMES[self.colour]} ({self.colour}); {word!r} cannot be paid")
        if isinstance(word, str) and word and set(word.upper()) == {joker}:
            return len(word)
        raise ValueError(f"{word!r} cannot stand in for {NAMES[self.colour]}: only {NAMES[joker]} cubes can, "
                         f"one letter a cube ({joker}, {joker * 2}, ...)")

    def write(self, value: Any) -> str:
        return JOKER.get(self.colour, "") * int(value)

    def choices(self) -> list[str]:
        joker = JOKER.get(self.colour, "")
        return [joker * k for k in range(1, 4)] if joker else []


def _colour_arg(colour: str) -> Arg:
    return Arg("colour", {colour: colour})


def _paid(verb: str, kind: str, colours: Iterable[str], says: str) -> list[Form]:
    """One form a colour for an action paid in cubes: `verb C [jokers]`."""
    return [Form(verb, K + kind, (_colour_arg(c), Jokers("jokers", default=0, colour=c)), {"colour": c},
                 f"{says} {NAMES[c]}") for c in colours]


def _forms() -> list[Form]:
    number = Arg("value")
    forms: list[Form] = [
        *(Form(verb, K + "city-action", (Jokers("jokers", default=0, colour=c),), {"colour": c},
               f"the {NAMES[c]} City action ({verb})") for verb, c in CITY_ACTIONS.items()),
        *_paid("use", "use-card", COLOURS, "Use a Card: the Present card of"),
        Form("use", K + "take-card", (Arg("card", CARDS), Arg("source", {s: s for s in ("present", "future", "supply")},
                                                                "present")),
             {"mode": "use"}, "use the card taken as a choice (from the Present row unless future or supply is said)"),
        *_paid("burn", "burn-card", COLOURS, "Burn a Card: the Present card of"),
        Form("burn", K + "take-card", (Arg("card", CARDS), Arg("source", {s: s for s in ("present", "future", "supply")},
                                                                 "present")),
             {"mode": "burn"}, "burn the card taken as a choice"),
        *_paid("upgrade", "upgrade", BANNERS, "Upgrade the track of"),
        Form("pass", K + "pass", says="pass for the rest of the round"),
        Form("buy", K + "market-cube", (Arg("colour", {c: c for c in COLOURS}), Arg("cost")),
             says="take the Market cube of a colour from the row of that cost (3 top, 1 bottom)"),
        Form("yes", K + "accept", says="take what is offered (VP, Amalfi's draw)"),
        Form("no", K + "decline", says="refuse an optional step (stop buying, no card, no VP)"),
        Form("left", K + "shift", (Arg("spaces", default=1),), {"direction": "left"},
             "Form of Republic marker(s) left (toward Plutocracy), 1 space unless a number follows"),
        Form("right", K + "shift", (Arg("spaces", default=1),), {"direction": "right"},
             "Form of Republic marker(s) right (toward the Doge)"),
        Form("stay", K + "shift", fixed={"direction": "none", "spaces": 0},
             says="leave the Form of Republic marker where it is (a player not at war)"),
        *(Form(c, K + "pick-colour", fixed={"colour": c}, says=f"answer a colour question with {NAMES[c]}")
          for c in COLOURS),
        Form("pick", K + "pick-number", (number,), says="answer a number question (a disc, a count, a seat)"),
        Form("keep", K + "keep-republic", (Arg("keep", {"old": "old", "new": "new"}),),
             says="keep the old or the newly drawn Republic card"),
        Form("trade", K + "trade-banners", (Arg("trade", TRADES),), says="the Republic action's banner trade"),
        Form("scheme", K + "use-scheme", (Arg("slot", {"own": 0}),), {"slot": 0},
             says="use your own (Pisa/Genova) Political Scheme"),
        Form("scheme", K + "use-scheme", (Arg("slot"),), says="use the Political Scheme at that level (1-4)"),
        Form("disc", K + "war-disc", (Arg("value"),), says="the War disc placed on the Warfare track"),
    ]
    return forms


class _Reader(Vocabulary):
    """The kernel's reading, with one more hint: a stand-in of the wrong colour is told the right one (`war W` -> `B`)."""

    @staticmethod
    def _bad(move: Move, form: Form, arg: Arg, exc: ValueError) -> NotationError:
        found = Vocabulary._bad(move, form, arg, exc)  # noqa: SLF001  (the base class's own helper)
        joker = JOKER.get(arg.colour, "") if isinstance(arg, Jokers) else ""
        at = form.args.index(arg)
        word = move.words[at] if at < len(move.words) else None
        if joker and not found.did_you_mean and isinstance(word, str) and word.isalpha() and len(set(word)) == 1:
            near = [joker * len(word)]
            return NotationError(f"{found.message}; did you mean {near[0]}?", found.line, found.column,
                                 found.expected, near)
        return found


class TableVocabulary(_Reader):
    """The kernel's Vocabulary, where one verb may say several commands told apart by their words.

    Writing is the kernel's (by command kind, most specific form first). Reading tries the
    forms of a verb in order and takes the first that reads; when none does, the error is
    the one of the form whose first word fitted, else one naming every first word the verb takes.
    """

    def __init__(self, forms: Iterable[Form]) -> None:
        every = list(forms)
        first: dict[str, Form] = {}
        for form in every:
            first.setdefault(form.verb.lower(), form)
        super().__init__(first.values())
        self.forms = every
        self.by_kind = {}
        for form in sorted(every, key=lambda f: -len(f.fixed)):
            self.by_kind.setdefault(form.kind, []).append(form)
        self.sharing: dict[str, list[Form]] = {}
        for form in every:
            self.sharing.setdefault(form.verb.lower(), []).append(form)
        self._alone = {id(form): _Reader([form]) for form in every}

    def read(self, move: Move, seat: int) -> dict[str, Any]:
        forms = self.sharing.get(move.verb.lower())
        if forms is None:
            return super().read(move, seat)  # not a verb: the kernel's did-you-mean
        if len(forms) == 1:
            return self._alone[id(forms[0])].read(move, seat)
        for form in forms:  # the first form that fits; what is wrong is worked out only when none does
            try:
                return self._alone[id(form)]._command(form, move, seat, explain=False)  # noqa: SLF001  (a Vocabulary of its own)
            except Unfit:
                continue
        fitting: NotationError | None = None
        for form in forms:
            try:
                return self._alone[id(form)].read(move, seat)
            except NotationError as exc:
                if fitting is None and _first_fits(form, move.words):
                    fitting = exc
        if fitting is not None:
            raise fitting
        firsts = [c for form in forms if form.args for c in (form.args[0].choices() or ["a number"])]
        bad = move.words[0] if move.words else None
        near = _near(bad, firsts) if isinstance(bad, str) else []
        if bad is None:
            message = f"line {move.line}: {move.verb} needs a word after it: {_sample(firsts)}"
        else:
            message = f"line {move.line}: `{move.verb} {bad}`: after {move.verb} comes {_sample(firsts)}, not {bad}"
        raise NotationError(message + (f"; did you mean {' or '.join(near)}?" if near else ""),
                            move.line, move.column, firsts[:12], near)


def _first_fits(form: Form, words: Sequence[Any]) -> bool:
    if not form.args or not words:
        return not form.args and not words
    try:
        form.args[0].read(words[0])
    except ValueError:
        return False
    return True


def _near(word: str, choices: list[str]) -> list[str]:
    by_lower = {c.lower(): c for c in choices}
    return [by_lower[c] for c in difflib.get_close_matches(word.lower(), list(by_lower), n=3, cutoff=0.5)]


def _sample(choices: list[str]) -> str:
    return ", ".join(choices[:10]) + (" ..." if len(choices) > 10 else "")


def _places(d: Any = _DATA) -> tuple[str, ...]:
    """The board's places, for `[%csl ...]` / `[%cal a-b]` markup in comments (docs/notation/citta-stato.md)."""
    out = [*d["cities"], *d["cards"], *d["republic_track"]["forms"]]
    out += [f"{row}:{c}" for row in ("present", "future", "deck") for c in COLOURS]
    out += [f"market:{c}{cost}" for c in COLOURS for cost in d["market"]["row_costs"]]
    out += [f"scheme:{k}" for k in range(1, d["scheme_slots"] + 1)]
    out += [f"war:{k}" for k in range(1, d["warfare_spaces"] + 1)]
    out += [f"form:{k}" for k in range(1, d["republic_track"]["spaces"] + 1)]
    out += [f"track:{c}{k}" for c in BANNERS for k in range(1, len(d["tracks"][c]["values"]) + 1)]
    return tuple(out)


PLACES = _places()
_PLACE_KEYS = {p.lower(): p for p in PLACES}


def places(edition: Edition) -> tuple[str, ...]:
    """Every place an annotation's shape may name, as markup writes it: the edition's own board
    (a printing with other cards or tracks names other places; the reference one is `PLACES`)."""
    found = _EDITION_PLACES.get(edition.content_hash)
    if found is None:
        found = _EDITION_PLACES.setdefault(edition.content_hash, _places(edition.data))
    return found


_EDITION_PLACES: dict[str, tuple[str, ...]] = {}


def markup_problems(notation: Notation) -> list[dict[str, Any]]:
    """Places named in comment markup that are not on the board, each with the nearest names.

    The kernel reads markup but does not judge it; a reader of a Città-Stato file can.
    """
    comments = [*notation.comments, *(c for turn in notation.turns for m in turn.moves for c in m.comments)]
    out: list[dict[str, Any]] = []
    for comment in comments:
        named = [p for pair in comment.markup.arrows for p in pair] + list(comment.markup.highlights)
        for place in named:
            if place.lower() not in _PLACE_KEYS:
                near = _near(place, list(PLACES))
                out.append({"line": comment.line, "place": place, "did_you_mean": near,
                            "message": f"line {comment.line}: {place!r} is no place of the board"
                            + (f"; did you mean {' or '.join(near)}?" if near else "")})
    return out


def held(state: State, seat: int) -> dict[str, Any]:
    """What the seat held, as its own view shows it: cubes, bag, banners, crowns, discs, VP, tracks, cards."""
    mine = view(state, seat)["seats"][seat]
    keep = ("vp", "supply", "bag", "banners", "crowns", "war_discs", "tracks", "form", "cards", "burned", "actions")
    return {k: mine[k] for k in keep}


def round_of(state: State) -> int | None:
    """The round (1-7; 8 is the Second scoring after the last round)."""
    return state.round if state.seats else None


def turn_starts(state: State) -> bool:
    """A new action opens a new line, and so does each card of the Second scoring: in a solo game,
    and for the last player left in a round, one seat takes many turns in a row. The choices an
    action asks for (and the End of Round it brings about) stay on its line."""
    return state.phase == "turns" and (not state.tasks or state.tasks[0][0] == "second")


def whose(state: State) -> tuple[int | None, str]:
    """`rules.pending_step`'s seat and kind, without the details it freezes (the checker asks before every
    move): a seat's own turn answered here, every other step asked of it."""
    if state.phase != "over" and not state.tasks and not unsettled(state):
        return state.current, "turn"
    found = pending_step(state)
    return found.seat, found.kind


NOBODYS = ("deck:republic", "ghost-discs")  # the Republic cards dealt one to each seat; a random Ghost War disc


def secret_outcomes(state: State, seat: int | None, command: Mapping[str, Any] | None,
                    asked: Sequence[tuple[str, str]]) -> list[Owner]:
    """A Republic card drawn from the face-down pool is its drawer's; the setup's deal of Republic cards is
    no one seat's (each holds one of them), nor is the Ghost's random disc until it is turned. Everything
    else chance decides is laid on the table (bag draws go to the supply, cards to the rows)."""
    return [None if source in NOBODYS else seat if source == "republic-pool" else PUBLIC for _, source in asked]


def secret_words(command: Mapping[str, Any]) -> str | None:
    """A War disc is placed face down: its value is its seat's until the war is resolved."""
    return "disc ?" if command.get("type") == "citta-stato/war-disc" else None


OPEN_POOLS = ("first-player", "deck:cities", "schemes")  # the setup's deals from what the edition lays out in view


def open_pool(source: str, seat: int) -> bool:
    """Which pools a seat's view shows (`view`): its own bag by colour, and the setup's public deals (the cities, the
    schemes, the first player). The colour decks, the Republic cards, the Republic pool, another seat's bag and the
    Ghost's bag and discs show only their size."""
    return source == f"bag:{seat}" or source in OPEN_POOLS or source.startswith("schemes:")


VOCABULARY = TableVocabulary(_forms())
WORDS = Words(VOCABULARY, colours=SEAT_COLOURS, held=held, round_of=round_of, turn_starts=turn_starts,
              seat_sources=("first-player",), whose=whose, secret_outcomes=secret_outcomes, secret_words=secret_words,
              open_pool=open_pool, terms=terms, waiting=waiting, held_words=held_words, breakdown_words=breakdown_words)


# The decision panel's groups (kernel.choices): the six city actions, the cards, the market, and the answers to
# the small questions a turn asks (a colour, a number, a shift); declining is passing.
_HAND = "cards"  # the decision panel's group (this module's CARDS are the cards' notation words)
_GROUPS = {
    K + "city-action": ACTIONS, K + "use-card": _HAND, K + "burn-card": _HAND, K + "upgrade": _HAND,
    K + "take-card": _HAND, K + "use-scheme": _HAND, K + "pass": PASS, K + "decline": PASS,
    K + "market-cube": "market", K + "accept": ACTIONS, K + "shift": "moves", K + "pick-colour": "colours",
    K + "pick-number": "numbers", K + "keep-republic": ACTIONS, K + "trade-banners": ACTIONS, K + "war-disc": "discs",
}
_LABELS = {"jokers": "jokers", "cost": "for", "value": "", "spaces": "spaces", "slot": "level"}


def _card(card: str) -> str:
    """A card as the table says it: `Y3` yellow 3 (any other card id as it is printed)."""
    colour, number = card[:1], card[1:]
    return f"{COLOUR_NAMES[colour]} {number}" if colour in COLOUR_NAMES and number.isdigit() else card


def _choice(state: State, command: Mapping[str, Any], names: Sequence[str]) -> Choice:
    kind, colour = command.get("type"), command.get("colour")
    if kind == K + "pick-colour" and colour in COLOUR_NAMES:  # a colour's letter as its name
        return Choice(COLOUR_NAMES[colour], "colours", (COLOUR_NAMES[colour],))
    if kind == K + "take-card":  # a card of a row: the card, then where it lies
        parts = (str(command.get("mode")), _card(str(command.get("card"))), f"from the {command.get('source')}")
        return Choice(" ".join(parts), _HAND, parts)
    return choice_of(WORDS, state, command, names, _GROUPS.get(str(kind), ACTIONS), None, _LABELS)


def choices(state: State, commands: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[Choice]:
    """The legal commands as the decision panel offers them (kernel.choices): the notation's moves, colours and
    cards said as the rulebook says them. The board drawing names no places, so no choice is taken on the board."""
    return [_choice(state, c, names) for c in commands]
