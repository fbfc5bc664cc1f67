"""Città-Stato's words for a dispute report (domain/kernel/report_words.py): cube colours, bags and decks,
the steps of a round, what a player held and how a final score is made, as the rulebook says them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.kernel.report_words import listed

from .describe import FORM, STEP
from .edition import COLOUR_NAMES, COLOURS, default
from .state import GHOST, State
from .view import view

_DATA = default().data
_CITIES = {key: city["name"] for key, city in _DATA["cities"].items()}
# steps whose key is also an everyday word ("draw", "return", "second") stay as they are written
_STEPS = {k: v for k, v in STEP.items() if "_" in k or k in ("ancona", "gaeta", "noli", "concordat", "goodwill",
                                                                "betrayal", "decree", "plot", "fleet", "scheme", "vp")}
_SOURCES = {"deck:cities": "the city cards", "deck:republic": "the Republic cards", "republic-pool":
            "the face-down Republic cards", "ghost-discs": "the Ghost's War discs", "bag:ghost": "the Ghost's bag",
            "first-player": "the players (who plays first)", "deck:schemes": "the Political Schemes"}
_KINDS = {"citta-stato/pick-colour": "a colour", "citta-stato/accept": "`yes`", "citta-stato/decline": "`no`"}


def terms(token: str, names: Sequence[str]) -> str | None:
    """A token of the rules in the rulebook's words: `Y` yellow, `bag:1` Bruno's bag, `deck:O` the orange deck,
    `war_pay` paying for the war, `DOG` Doge's Magistrature, `AMA` Amalfi; None for any other word."""
    if token in COLOUR_NAMES:
        return COLOUR_NAMES[token]
    if token in _SOURCES:
        return _SOURCES[token]
    if token in _KINDS:
        return _KINDS[token]
    kind, _, which = token.partition(":")
    if kind == "bag" and which.isdigit():
        k = int(which)
        return f"{names[k]}'s bag" if k < len(names) else None
    if kind == "deck" and which in COLOUR_NAMES:
        return f"the {COLOUR_NAMES[which]} deck"
    return _STEPS.get(token) or _STEPS.get(token.replace("-", "_")) or FORM.get(token) or _CITIES.get(token)


def waiting(state: State, since: Sequence[Any], moved: int, kind: str, names: Sequence[str]) -> str | None:
    """Why the rules wait for another player (rulebook: in a round the players take one action each in turn,
    clockwise from the first player, a player who has passed being passed over); a step of an action or of the
    round's end by its name. A line written for the solo Ghost says where its turn is written instead."""
    said = _waiting(state, kind, names)
    if state.solo is not None and moved == GHOST:
        human = names[0] if names else "the player"
        return (f"{said or ''}: the Ghost never has a line of its own (its cube drawn after each of {human}'s turns is "
                f"written in brackets at the end of {human}'s line, `[G]`)").lstrip(": ")
    return said


def _waiting(state: State, kind: str, names: Sequence[str]) -> str | None:
    """The step, or the turn's place in the round (the solo Ghost, who takes no action of its own, is never said to
    have passed)."""
    if kind != "turn":
        step = STEP.get(kind.replace("-", "_"))
        return f"({step})" if step else None
    first = names[state.first] if 0 <= state.first < len(names) else None
    passed = [names[i] for i, seat in enumerate(state.seats[: len(names)])
              if seat.passed and not (state.solo is not None and i == GHOST)]
    said = f"to take an action (round {state.round}: clockwise from the first player" + (f", {first}" if first else "")
    if passed:
        said += f"; {listed(passed)} {'has' if len(passed) == 1 else 'have'} passed"
    return said + ")"


def _cubes(counts: Mapping[str, int]) -> str:
    return listed([f"{n} {COLOUR_NAMES[c]}" for c in COLOURS if (n := counts.get(c, 0))]) if any(counts.values()) else "none"


def held_words(state: State, seat: int, names: Sequence[str]) -> str:
    """What the seat held, as its own view shows it, in one sentence: cubes in supply and in the bag, banners,
    crowns, War discs, cards, tracks, the Form of Republic marker, VP and the actions taken this round."""
    mine = view(state, seat)["seats"][seat]
    parts = [f"cubes {_cubes(mine['supply'])}"]
    if isinstance(mine["bag"], Mapping):
        parts.append(f"in the bag {_cubes(mine['bag'])}")
    banners = {k: v for k, v in mine["banners"].items() if v}
    parts.append(f"banners {_cubes(banners)}" if banners else "no banner")
    parts.append(f"{mine['crowns']} crown{'s' if mine['crowns'] != 1 else ''}")
    discs = mine["war_discs"]
    if isinstance(discs, list):
        parts.append(f"War discs {listed([str(d) for d in discs])}" if discs else "no War disc")
    if mine["cards"]:
        parts.append(f"cards {listed(mine['cards'])}")
    parts.append("tracks " + ", ".join(f"{COLOUR_NAMES[c]} {v}" for c, v in mine["tracks"].items()))
    form = mine["form"]
    parts.append(f"the Form of Republic marker on space {form['space']}"
                 + (f" ({FORM.get(form['name'], form['name'])})" if form.get("name") else ""))
    parts.append(f"{mine['vp']} VP")
    actions = mine["actions"]
    parts.append(f"{actions} action{'s' if actions != 1 else ''} taken this round")
    return f"{names[seat] if seat < len(names) else 'this player'} held " + "; ".join(parts)


def breakdown_words(breakdown: Mapping[str, Any]) -> str:
    """How the final score is made (rulebook, Final Scoring): the First and Second Scores, and the higher of the two
    only for a city in form with its Republic card that holds the crowns the gap between them asks for."""
    first, second = breakdown["first"], breakdown["second"]
    said = f"First Score {first}, Second Score {second}"
    if first == second:
        return f"{said}: the same"
    crowns, bonus, needed = breakdown["crowns_held"], breakdown["republic_bonus_crowns"], breakdown["crowns_required"]
    held = f"{crowns} crown{'s' if crowns != 1 else ''}" + (f" and {bonus} from the Republic card" if bonus else "")
    if breakdown["paid"]:
        return f"{said}; in form with the Republic card, {held} for the {needed} needed: the higher counts"
    if not breakdown["in_form"]:
        return f"{said}; the Form of Republic marker is outside the Republic card's range: the lower counts"
    return f"{said}; in form, but {held} for the {needed} needed: the lower counts"
