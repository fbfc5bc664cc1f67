"""Each Città-Stato event in words, for the move list: one small function per event type (SAYS).

Names come from the event, the state before it and the edition (cities, cards, schemes); the
colour words and the names of the standards are the rulebook's. What `view` hides from other
seats while the game is in progress is wrapped in `hidden(...)` for the one seat that may read
it: a War disc's value until the war is revealed, a seat's Republic card (dealt, drawn, kept,
returned to the face-down pool), and the Ghost's bag.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain.kernel import Event
from domain.kernel.describe import Part, Sentence, hidden, name_of, sentence
from domain.kernel.events import every_event

from . import events as ev
from .edition import BI, CI, COLOURS, TITLE
from .edition import COLOUR_NAMES as COLOUR
from .fold import place_in_market, renewed
from .rules import vp_amount
from .state import GHOST, State

# The six standards of the City actions, by the colour they are paid with (notation.CITY_ACTIONS).
STANDARD = {"Y": "Merchant Fleet", "W": "City", "G": "City Guilds", "O": "War", "B": "Republic", "P": "Politics"}
# The three forms of government on the Form of Republic track (components §Form of Republic).
FORM = {"PLU": "Plutocracy", "OLI": "Oligarchy", "DOG": "Doge's Magistrature"}
TOWARD = {"left": "toward Plutocracy", "right": "toward the Doge"}

# The steps a seat can skip, decline or accept, as a person says them (the keys are rules.OPTIONS,
# rules.AUTO and rules.GHOST_AUTO task kinds).
STEP = {
    "fleet": "buying Market cubes",
    "banner_any": "a banner of their choice",
    "trade": "the Republic action's banner trade",
    "scheme": "a Political Scheme",
    "personal_scheme": "their own Political Scheme",
    "shift_all": "moving every Form of Republic marker",
    "move_own": "moving their Form of Republic marker",
    "war_shift": "the Form of Republic move of a city not at war",
    "war_disc": "placing a War disc",
    "amalfi_draw": "Amalfi's draw",
    "ancona": "Ancona's alliance",
    "return": "returning cubes to the bag",
    "take_present": "Venezia's Present card",
    "take_card": "taking a card",
    "second": "using a card again in the Second scoring",
    "gaeta": "Gaeta's banner exchange",
    "noli": "Noli's burn",
    "noli_card": "the card Noli burns",
    "burn_self": "burning Freedom of Thought",
    "market_swap": "the Market swap",
    "market_place": "placing cubes on the Market",
    "discard_banners": "discarding banners for VP",
    "draw_colour_choice": "drawing every cube of one colour",
    "keep_republic": "the Republic card exchange",
    "remove_cubes": "removing cubes for VP",
    "recover_disc": "recovering a War disc",
    "retire_disc": "removing a War disc from the game",
    "decree": "the Decree's upgrade",
    "plot": "the Political Plot",
    "concordat": "the Papal Concordat",
    "goodwill": "the Populace's Goodwill",
    "betrayal": "stealing a crown",
    "vp": "the VP on offer",
    "war_pay": "paying for the war",
    "track_back": "moving a track back",
    "cube_to_bag": "returning a cube to the bag",
    "draw": "drawing cubes (the bag is empty)",
    "draw_keep": "drawing cubes (the bag is empty)",
    "draw_colours": "drawing cubes of the named colours (none in the bag)",
    "round_draw": "the round's draw",
    "republic_swap": "the Republic card swap (the pool is empty)",
    "war_reveal": "the war",
    "war_outcome": "the war",
    "war_end": "the war",
    "ghost_turn": "an action",
    "market_clear_row": "clearing a Market row (it is empty)",
    "human_form": "moving the Form of Republic marker",
    "ghost_disc": "placing a War disc",
    "remove_schemes": "turning Political Schemes face down (none is left face up)",
}
# A skipped step, said of its seat, where a plainer clause than "nothing to do for ..." exists.
SKIPPED = {
    "draw": "has no cube in the bag to draw",
    "draw_keep": "has no cube in the bag to draw",
    "draw_colours": "has no cube of the named colours in the bag to draw",
    "fleet": "can buy no cube on the Market",
    "take_card": "has no card to take",
    "recover_disc": "has no War disc out of the game to recover",
    "remove_cubes": "has no cube of that colour to remove",
    "discard_banners": "has no banner of that colour to discard",
    "war_shift": "cannot move their Form of Republic marker",
}
# The steps the Ghost runs itself (rules.GHOST_AUTO); any other step queued for it is skipped unsaid.
_GHOST_STEPS = {"ghost_turn", "market_clear_row", "human_form", "ghost_disc", "remove_schemes"}
# Skipped steps that carry nothing a person needs: the war outcome and end after "nobody is at war",
# an offer of no VP at all, and a colour of the Second scoring with no card of it in the seat's supply.
_SILENT = {"war_outcome", "war_end", "vp", "second"}


def _who(names: Sequence[str], seat: int) -> str:
    return name_of(names, seat)


def _list(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def cubes(colours: Sequence[str]) -> str:
    """'2 orange and 1 black': cubes counted by colour, in the board's colour order."""
    counts = [(sum(1 for c in colours if c == k), k) for k in COLOURS]
    return _list([f"{n} {COLOUR[k]}" for n, k in counts if n])


def counted(counts: Sequence[int]) -> str:
    return _list([f"{n} {COLOUR[k]}" for n, k in zip(counts, COLOURS, strict=True) if n])


def card(s: State, key: str) -> str:
    """'Marseilles (Y3)': the printed name, then the id the notation writes."""
    name = s.edition.data["cards"].get(key, {}).get("name")
    return f"{name} ({key})" if name else key


def scheme(s: State, key: str) -> str:
    name = s.edition.data["schemes"].get(key, {}).get("name")
    return f"{name} ({key})" if name else key


def city(s: State, key: str) -> str:
    return s.edition.data["cities"].get(key, {}).get("name", key)


def republic(s: State, key: str) -> str:
    """'R4 (Plutocracy)', 'R2 (Oligarchy, with crowns)': the card's id, its form and its crowns."""
    form = FORM.get(s.t.republic_form.get(key, ""), "")
    crowned = ", with crowns" if s.t.republic_crowns.get(key) else ""
    return f"{key} ({form}{crowned})" if form else key


def a(word: str) -> str:
    """'a yellow', 'an orange'."""
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _head(s: State) -> tuple[Any, ...]:
    return s.tasks[0] if s.tasks else ()


# --- setup -------------------------------------------------------------------------------
def _game_started(e: ev.GameStarted, s: State, names: Sequence[str]) -> Sentence:
    box = "with the expansion" if e.expansion else "base game"
    return sentence(f"A game of Città-Stato begins, edition {e.edition.get('id', '?')}: {e.players} players, {box}.")


def _solo_started(e: ev.SoloStarted, s: State, names: Sequence[str]) -> Sentence:
    solo = s.t.solo
    title = solo.scenarios[e.scenario].name if solo and e.scenario in solo.scenarios else ""
    carried = f", carrying {_plural(e.carried_crowns, 'crown')} in" if e.carried_crowns else ""
    return sentence(f"Solo scenario {e.scenario} ({title}), game {e.game}: {_who(names, 0)} plays against the Ghost{carried}.")


def _cities_dealt(e: ev.CitiesDealt, s: State, names: Sequence[str]) -> Sentence:
    dealt = [f"{_who(names, i)} {city(s, c)}" for i, c in enumerate(e.cities) if c]
    return sentence(f"Cities dealt: {_list(dealt)}.")


def _personal_scheme(e: ev.PersonalSchemeDealt, s: State, names: Sequence[str]) -> Sentence:
    home = city(s, s.seats[e.seat].city)
    return sentence(f"{_who(names, e.seat)} ({home}) receives the personal Political Scheme {scheme(s, e.scheme)}.")


def _schemes_placed(e: ev.SchemesPlaced, s: State, names: Sequence[str]) -> Sentence:
    return sentence("Political Schemes placed: " + _list([f"level {k} {scheme(s, x)}" for k, x in enumerate(e.slots, 1)]) + ".")


def _republic_dealt(e: ev.RepublicCardsDealt, s: State, names: Sequence[str]) -> Sentence:
    parts: list[Part] = ["Republic cards dealt face down: "]
    dealt = [(i, c) for i, c in enumerate(e.cards) if c]
    for k, (i, c) in enumerate(dealt):
        parts += [f"{_who(names, i)} ", hidden(republic(s, c), i, "a card")]
        parts.append("." if k == len(dealt) - 1 else ", ")
    return sentence(*parts)


def _present_future(s: State, present: str, future: str) -> str:
    return f"Present {card(s, present) if present else 'none'}, Future {card(s, future) if future else 'none'}"


def _cards_revealed(e: ev.CardsRevealed, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"The {COLOUR[e.colour]} cards: {_present_future(s, e.present, e.future)}.")


def _first_player(e: ev.FirstPlayerChosen, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} plays first.")


def _city_cubes(e: ev.CityCubesPlaced, s: State, names: Sequence[str]) -> Sentence:
    home = s.seats[e.seat].city
    to_supply, to_market, _ = s.t.city_cubes[home]
    market, placed, bagged = s.market, list[str](), list[str]()
    for c in to_market:
        market, ok = place_in_market(market, c)
        (placed if ok else bagged).append(c)
    parts: list[Part] = [f"{_who(names, e.seat)} sets out the cubes of {city(s, home)}: {counted(to_supply)} to the supply, {cubes(placed)} to the Market"]
    if bagged:  # a full column sends the cube to the bag, whose contents only its owner sees
        parts += [", ", hidden(f"{cubes(bagged)} to the bag", e.seat, f"{_plural(len(bagged), 'cube')} to the bag (its column is full)")]
    return sentence(*parts, ".")


def _setup_completed(e: ev.SetupCompleted, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"Setup is complete: round {s.round} begins with {_who(names, s.first)}.")


def _ghost_set_up(e: ev.GhostSetUp, s: State, names: Sequence[str]) -> Sentence:
    market, placed, boxed = s.market, list[str](), list[str]()
    for c in e.market:
        market, ok = place_in_market(market, c)
        (placed if ok else boxed).append(c)
    extra = f"; {cubes(boxed)} to the box (the column is full)" if boxed else ""
    bag = hidden(cubes(e.bag), GHOST, _plural(len(e.bag), "cube"))
    return sentence("The Ghost's bag is filled with ", bag, f"; the Ghost adds {cubes(placed)} to the Market{extra}.")


# --- turns -------------------------------------------------------------------------------
def _action_taken(e: ev.ActionTaken, s: State, names: Sequence[str]) -> Sentence:
    who = _who(names, e.seat)
    seat = s.seats[e.seat]
    first = seat.actions == 0
    to = "the bag"
    if first and place_in_market(s.market, e.paid[0])[1]:
        to = "the Market"
    paid = f"pays {cubes(e.paid)} to {to}"
    if e.action == "city":
        what = f"takes the {STANDARD[e.colour]} action"
        if e.colour == "W":
            what += f" ({city(s, seat.city)}'s ability)"
    elif e.action == "use":
        what = f"uses the {COLOUR[e.colour]} Present card {card(s, e.card)}"
    elif e.action == "burn":
        what = f"burns the {COLOUR[e.colour]} Present card {card(s, e.card)} (their {_ordinal(seat.burned[CI[e.colour]] + 1)} {COLOUR[e.colour]} burned)"
    else:
        what = f"upgrades the {COLOUR[e.colour]} track to space {seat.tracks[BI[e.colour]] + 1}"
    return sentence(f"{who} {paid} and {what} (action {seat.actions + 1}).")


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _passed(e: ev.Passed, s: State, names: Sequence[str]) -> Sentence:
    last = all(x.passed for i, x in enumerate(s.seats) if i != e.seat)
    end = f": round {s.round} ends" if last else ""
    return sentence(f"{_who(names, e.seat)} passes{end}.")


def _future_revealed(e: ev.FutureRevealed, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"A new {COLOUR[e.colour]} Future card is turned up: {card(s, e.card)}.")


def _turn_ended(e: ev.TurnEnded, s: State, names: Sequence[str]) -> Sentence:
    if e.next == e.seat:
        return sentence(f"{_who(names, e.seat)} plays on: everyone else has passed.")
    return sentence(f"{_who(names, e.next)} is next.")


def _skipped(e: ev.StepSkipped, s: State, names: Sequence[str]) -> Sentence | None:
    if e.step in _SILENT:  # nothing happened that a person needs to read (see _SILENT)
        return None
    if e.step == "war_reveal":
        return sentence("Nobody is at war this round.")
    if e.seat == GHOST and s.solo is not None:
        if e.step not in _GHOST_STEPS:  # a step queued for the Ghost that it never runs (it owns only its bag and discs)
            return None
        return sentence(f"The Ghost: nothing to do for {_step(e.step)}.")
    who = _who(names, e.seat)
    if e.step in SKIPPED:
        return sentence(f"{who} {SKIPPED[e.step]}.")
    return sentence(f"{who}: nothing to do for {_step(e.step)}.")


def _step(kind: str) -> str:
    return STEP.get(kind, kind.replace("_", " "))


def _declined(e: ev.Declined, s: State, names: Sequence[str]) -> Sentence:
    who = _who(names, e.seat)
    if e.step == "fleet":
        return sentence(f"{who} stops buying Market cubes.")
    head = _head(s)
    if e.step == "vp" and head[:1] == ("vp",):
        return sentence(f"{who} declines {vp_amount(s, head)} VP.")
    return sentence(f"{who} declines {_step(e.step)}.")


def _accepted(e: ev.Accepted, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} accepts {_step(e.step)}.")


def _cube_bought(e: ev.CubeBought, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} buys {a(COLOUR[e.colour])} cube from the Market for {e.cost}.")


def _banner_gained(e: ev.BannerGained, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} gains {a(COLOUR[e.colour])} banner.")


def _banner_returned(e: ev.BannerReturned, s: State, names: Sequence[str]) -> Sentence:
    why = "for a banner of another colour (Gaeta)" if _head(s)[:1] == ("gaeta",) else f"to take the {COLOUR[e.colour]} Future card (Populace's Goodwill)"
    return sentence(f"{_who(names, e.seat)} returns {a(COLOUR[e.colour])} banner {why}.")


def _cube_gained(e: ev.CubeGained, s: State, names: Sequence[str]) -> Sentence:
    if e.got:
        return sentence(f"{_who(names, e.seat)} gains {a(COLOUR[e.colour])} cube from the reserve.")
    return sentence(f"{_who(names, e.seat)} would gain {a(COLOUR[e.colour])} cube, but the reserve has none left.")


def _crowns_gained(e: ev.CrownsGained, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} gains {_plural(e.crowns, 'crown')}.")


def _cubes_drawn(e: ev.CubesDrawn, s: State, names: Sequence[str]) -> Sentence:
    back = ""
    if 0 <= e.keep < len(e.cubes):
        back = f", keeps {e.keep} and must return {len(e.cubes) - e.keep} to the bag"
    return sentence(f"{_who(names, e.seat)} draws {cubes(e.cubes)} from the bag{back}.")


def _cube_returned(e: ev.CubeReturned, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} returns {a(COLOUR[e.colour])} cube to the bag.")


def _vp_scored(e: ev.VpScored, s: State, names: Sequence[str]) -> Sentence:
    track = " on the Second scoring" if e.score == "second" else ""
    if e.vp < 0:
        return sentence(f"{_who(names, e.seat)} loses {-e.vp} VP{track}.")
    return sentence(f"{_who(names, e.seat)} scores {e.vp} VP{track}.")


def _form_shifted(e: ev.FormShifted, s: State, names: Sequence[str]) -> Sentence:
    if e.direction == "none" or not e.spaces:
        return sentence(f"{_who(names, e.seats[0])} leaves their Form of Republic marker where it is.")
    move = f"{_plural(e.spaces, 'space')} {e.direction} ({TOWARD[e.direction]})"
    if len(e.seats) == 1:
        return sentence(f"{_who(names, e.seats[0])}'s Form of Republic marker moves {move}.")
    return sentence(f"{_who(names, e.seats[0])} moves every Form of Republic marker {move}.")


def _disc_placed(e: ev.WarDiscPlaced, s: State, names: Sequence[str]) -> Sentence:
    who = "The Ghost" if e.seat == GHOST and s.solo is not None else _who(names, e.seat)
    return sentence(f"{who} places ", hidden(f"War disc {e.value}", e.seat, "a War disc"), " face down on the Warfare track.")


def _scheme_chosen(e: ev.SchemeChosen, s: State, names: Sequence[str]) -> Sentence:
    which = "their personal Political Scheme" if e.slot == 0 else f"the level {e.slot} Political Scheme"
    return sentence(f"{_who(names, e.seat)} uses {which} {scheme(s, e.scheme)}.")


def _banners_traded(e: ev.BannersTraded, s: State, names: Sequence[str]) -> Sentence:
    need, crowns = s.t.trades[e.trade]
    paid = _list([f"{n} {COLOUR[c]}" for n, c in zip(need, ("Y", "G", "O", "P"), strict=True) if n])
    return sentence(f"{_who(names, e.seat)} trades banners ({paid}) for {_plural(crowns, 'crown')}.")


def _alliance(e: ev.AllianceDiscRemoved, s: State, names: Sequence[str]) -> Sentence:
    also = f"; so do {_list([_who(names, i) for i in e.others])}" if e.others else ""
    return sentence(f"{_who(names, e.seat)} removes War disc {e.value} from the game (Ancona's alliance){also}.")


def _card_taken(e: ev.CardTaken, s: State, names: Sequence[str]) -> Sentence:
    who = _who(names, e.seat)
    colour = COLOUR[e.card[0]] if e.card[:1] in CI else ""
    verb = "uses" if e.mode == "use" else "burns"
    if e.source == "supply":
        return sentence(f"{who} {verb} {card(s, e.card)} from their supply.")
    return sentence(f"{who} takes the {colour} {e.source.capitalize()} card {card(s, e.card)} and {verb} it.")


def _burned_under(e: ev.CardBurnedUnder, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} burns {card(s, e.card)} in the {COLOUR[e.position]} position.")


def _market_taken(e: ev.MarketCubeTaken, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} takes {a(COLOUR[e.colour])} cube from the Market row of {e.cost}.")


def _market_placed(e: ev.MarketCubePlaced, s: State, names: Sequence[str]) -> Sentence:
    if place_in_market(s.market, e.colour)[1]:
        return sentence(f"{_who(names, e.seat)} puts {a(COLOUR[e.colour])} cube on the Market.")
    return sentence(f"{_who(names, e.seat)} puts {a(COLOUR[e.colour])} cube in the bag (its Market column is full).")


def _banners_discarded(e: ev.BannersDiscarded, s: State, names: Sequence[str]) -> Sentence:
    if not e.count:
        return sentence(f"{_who(names, e.seat)} discards no {COLOUR[e.colour]} banner.")
    return sentence(f"{_who(names, e.seat)} discards {_plural(e.count, COLOUR[e.colour] + ' banner')}.")


def _colour_chosen(e: ev.ColourChosen, s: State, names: Sequence[str]) -> Sentence:
    who, colour, kind = _who(names, e.seat), COLOUR[e.colour], _head(s)[:1]
    if kind == ("draw_colour_choice",):
        return sentence(f"{who} names {colour}: every {colour} cube in the bag is drawn.")
    if kind == ("plot",):
        return sentence(f"{who} names {colour} for the Political Plot: everyone scores for their {colour} cubes.")
    if kind == ("noli",):
        return sentence(f"{who} chooses the {colour} position for Noli's burn.")
    return sentence(f"{who} chooses {colour}.")


def _republic_drawn(e: ev.RepublicDrawn, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} draws ", hidden(republic(s, e.card), e.seat, "a card"), " from the Republic pool.")


def _republic_kept(e: ev.RepublicKept, s: State, names: Sequence[str]) -> Sentence:
    choice = hidden(f"keeps {e.kept} and returns {e.returned}", e.seat, "keeps one Republic card and returns the other")
    return sentence(f"{_who(names, e.seat)} ", choice, " face down.")


def _cubes_removed(e: ev.CubesRemoved, s: State, names: Sequence[str]) -> Sentence:
    if not e.count:
        return sentence(f"{_who(names, e.seat)} removes no {COLOUR[e.colour]} cube.")
    return sentence(f"{_who(names, e.seat)} removes {_plural(e.count, COLOUR[e.colour] + ' cube')} from the supply to the box.")


def _disc_recovered(e: ev.WarDiscRecovered, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} recovers War disc {e.value}.")


def _disc_retired(e: ev.WarDiscRetired, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} removes War disc {e.value} from the game.")


def _decree(e: ev.DecreeUpgrade, s: State, names: Sequence[str]) -> Sentence:
    space = s.seats[e.seat].tracks[BI[e.colour]] + 1
    return sentence(f"{_who(names, e.seat)} spends {a(COLOUR[e.colour])} banner to upgrade the {COLOUR[e.colour]} track to space {space} (Decree).")


def _crowns_removed(e: ev.CrownsRemoved, s: State, names: Sequence[str]) -> Sentence:
    if not e.count:
        return sentence(f"{_who(names, e.seat)} gives up no crown (Papal Concordat).")
    return sentence(f"{_who(names, e.seat)} gives up {_plural(e.count, 'crown')} (Papal Concordat).")


def _crown_stolen(e: ev.CrownStolen, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} steals a crown from {_who(names, e.victim)} (Betrayal).")


# --- end of round ------------------------------------------------------------------------
def _war_revealed(e: ev.WarRevealed, s: State, names: Sequence[str]) -> Sentence:
    shown = _list([f"{'the Ghost' if i == GHOST and s.solo is not None else _who(names, i)} {v}" for i, v in e.discs])
    return sentence(f"The War discs are revealed: {shown}.")


def _war_paid(e: ev.WarPaid, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} pays {a(COLOUR[e.colour])} cube to the bag for the war.")


def _war_forfeited(e: ev.WarForfeited, s: State, names: Sequence[str]) -> Sentence:
    value = next((v for i, v in s.warfare if i == e.seat), None)
    paid = f"pays {cubes(e.paid)} to the bag and " if e.paid else ""
    disc = f"War disc {value}" if value is not None else "the War disc"
    return sentence(f"{_who(names, e.seat)} cannot pay for {disc}: {paid}withdraws it from the war.")


def _war_won(e: ev.WarWon, s: State, names: Sequence[str]) -> Sentence:
    each = " each" if len(e.losers) > 1 else ""
    losers = f"; {_list([_who(names, i) for i in e.losers])} may{each} take a Present card" if e.losers else ""
    return sentence(f"{_who(names, e.seat)} wins the war and takes a Present or Future card{losers}.")


def _war_ended(e: ev.WarEnded, s: State, names: Sequence[str]) -> Sentence:
    return sentence("The war is over: its War discs leave the game.")


def _cards_renewed(e: ev.CardsRenewed, s: State, names: Sequence[str]) -> Sentence:
    i = CI[e.colour]
    present, future, _, _ = renewed(s, i, e.drawn, e.rebuilt_after)
    old = f"{card(s, s.present[i])} is discarded; " if s.present[i] else ""
    shuffled = " (the discards are shuffled into a new deck)" if e.rebuilt_after >= 0 else ""
    return sentence(f"New {COLOUR[e.colour]} cards: {old}{_present_future(s, present, future)}{shuffled}.")


def _round_reset(e: ev.RoundReset, s: State, names: Sequence[str]) -> Sentence:
    if e.round > s.t.rounds:
        return sentence(f"The {s.t.rounds} rounds are over; each city draws for the Second scoring, {_who(names, e.first)} first.")
    return sentence(f"Round {e.round} begins; each city draws cubes, and {_who(names, e.first)} plays first.")


def _second_started(e: ev.SecondScoringStarted, s: State, names: Sequence[str]) -> Sentence:
    return sentence("The Second scoring begins: each card in the supply may be used again, colour by colour.")


def _form_crowns(e: ev.FormCrownsTaken, s: State, names: Sequence[str]) -> Sentence:
    got = _list([f"{_who(names, i)} {k}" for i, k in enumerate(e.crowns) if not (i == GHOST and s.solo is not None)])
    return sentence(f"Crowns from the Form of Republic track: {got}.")


def _game_ended(e: ev.GameEnded, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"The game ends. Final scores: {_list([f'{_who(names, i)} {v}' for i, v in enumerate(e.finals)])}.")


# --- solo: the Ghost ---------------------------------------------------------------------
def _ghost_drew(e: ev.GhostDrew, s: State, names: Sequence[str]) -> Sentence:
    gone = f" and discards the {COLOUR[e.cube]} Present card {card(s, e.discarded)}" if e.discarded else ""
    return sentence(f"The Ghost draws {a(COLOUR[e.cube])} cube{gone}.")


def _market_row_cleared(e: ev.MarketRowCleared, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"The Ghost clears the Market row of {e.cost}: {cubes(e.cubes)}.")


def _schemes_removed(e: ev.SchemesRemoved, s: State, names: Sequence[str]) -> Sentence:
    levels = _list([f"{k} {scheme(s, s.schemes[k - 1])}" for k in e.slots])
    return sentence(f"The Ghost turns the Political Schemes face down for the round: level {levels}.")


def _track_moved_back(e: ev.TrackMovedBack, s: State, names: Sequence[str]) -> Sentence:
    space = s.seats[e.seat].tracks[BI[e.colour]] - 1
    return sentence(f"{_who(names, e.seat)} moves the {COLOUR[e.colour]} track back to space {space}.")


def _cube_bagged(e: ev.CubeBagged, s: State, names: Sequence[str]) -> Sentence:
    return sentence(f"{_who(names, e.seat)} returns {a(COLOUR[e.colour])} cube from the supply to the bag.")


Say = Callable[[Any, State, Sequence[str]], Sentence | None]

SAYS: dict[type[Event], Say] = every_event(TITLE, {
    ev.GameStarted: _game_started,
    ev.CitiesDealt: _cities_dealt,
    ev.PersonalSchemeDealt: _personal_scheme,
    ev.SchemesPlaced: _schemes_placed,
    ev.RepublicCardsDealt: _republic_dealt,
    ev.CardsRevealed: _cards_revealed,
    ev.FirstPlayerChosen: _first_player,
    ev.CityCubesPlaced: _city_cubes,
    ev.SetupCompleted: _setup_completed,
    ev.ActionTaken: _action_taken,
    ev.Passed: _passed,
    ev.FutureRevealed: _future_revealed,
    ev.TurnEnded: _turn_ended,
    ev.StepSkipped: _skipped,
    ev.Declined: _declined,
    ev.Accepted: _accepted,
    ev.CubeBought: _cube_bought,
    ev.BannerGained: _banner_gained,
    ev.BannerReturned: _banner_returned,
    ev.CubeGained: _cube_gained,
    ev.CrownsGained: _crowns_gained,
    ev.CubesDrawn: _cubes_drawn,
    ev.CubeReturned: _cube_returned,
    ev.VpScored: _vp_scored,
    ev.FormShifted: _form_shifted,
    ev.WarDiscPlaced: _disc_placed,
    ev.SchemeChosen: _scheme_chosen,
    ev.BannersTraded: _banners_traded,
    ev.AllianceDiscRemoved: _alliance,
    ev.CardTaken: _card_taken,
    ev.CardBurnedUnder: _burned_under,
    ev.MarketCubeTaken: _market_taken,
    ev.MarketCubePlaced: _market_placed,
    ev.BannersDiscarded: _banners_discarded,
    ev.ColourChosen: _colour_chosen,
    ev.RepublicDrawn: _republic_drawn,
    ev.RepublicKept: _republic_kept,
    ev.CubesRemoved: _cubes_removed,
    ev.WarDiscRecovered: _disc_recovered,
    ev.WarDiscRetired: _disc_retired,
    ev.DecreeUpgrade: _decree,
    ev.CrownsRemoved: _crowns_removed,
    ev.CrownStolen: _crown_stolen,
    ev.WarRevealed: _war_revealed,
    ev.WarPaid: _war_paid,
    ev.WarForfeited: _war_forfeited,
    ev.WarWon: _war_won,
    ev.WarEnded: _war_ended,
    ev.CardsRenewed: _cards_renewed,
    ev.RoundReset: _round_reset,
    ev.SecondScoringStarted: _second_started,
    ev.FormCrownsTaken: _form_crowns,
    ev.GameEnded: _game_ended,
    ev.SoloStarted: _solo_started,
    ev.GhostSetUp: _ghost_set_up,
    ev.GhostDrew: _ghost_drew,
    ev.MarketRowCleared: _market_row_cleared,
    ev.SchemesRemoved: _schemes_removed,
    ev.TrackMovedBack: _track_moved_back,
    ev.CubeBagged: _cube_bagged,
}, "describe")


def describe(event: Event, before: State, names: Sequence[str]) -> Sentence | None:
    """The event in words, read from the state it folds onto; None for a step that says nothing new."""
    say = SAYS.get(type(event))
    return say(event, before, names) if say is not None else None


ROUND = "round"


def final_said(name: str, total: int, breakdown: dict[str, Any]) -> str:
    """A seat's final score in one sentence, from its breakdown (scoring.final_scores): the First and Second
    scores, whether the seat's Form of Republic fits its Republic card, whether its crowns paid the gap, and so
    which score counts."""
    first, second = breakdown.get("first", total), breakdown.get("second", 0)
    required, held = breakdown.get("crowns_required", 0), breakdown.get("crowns_held", 0)
    bonus = breakdown.get("republic_bonus_crowns", 0)
    crowns = f"{held} crown{'' if held == 1 else 's'}" + (f" and {bonus} from the Republic card" if bonus else "")
    if breakdown.get("paid"):
        why = f"in form, and {crowns} paid the {required} needed, so the higher score counts"
    elif not breakdown.get("in_form"):
        why = "out of the form its Republic card asks, so the lower score counts"
    else:
        why = f"in form, but {crowns} did not pay the {required} needed, so the lower score counts"
    cubes = breakdown.get("supply_cubes")
    tie = f" (a tie goes to First + Second, then cubes in supply: {cubes})" if cubes is not None else ""
    return f"{name}: First score {first}, Second score {second}; {why}: {breakdown.get('final', total)} VP{tie}."
