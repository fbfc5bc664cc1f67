"""The shortcuts taken for speed give exactly what the plain paths give: the same games from the
same seeds as before the speed work, the same commands and options as the schemas, the same
neighbours as the definition, and a settled-state cache that only ever remembers settled states."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from domain.kernel import MalformedCommand, RuleViolation, SeededChance
from domain.kernel.commands import load_options
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME, rules
from domain.la_citta import commands as cm
from domain.la_citta import events as ev
from domain.la_citta.rules import _OPTIONS, _options
from domain.la_citta.state import neighbours
from tests.folds import play_folds_as_evolve
from tests.la_citta.helpers import ED, fold

# sha256 of the entries' JSON (sorted keys, no spaces), entries, events: produced by the engine as it
# was before the speed work (batched fold, settled cache, fast parse, ...), with this edition file.
GOLDEN = {
    (2, "beginner"): ("f7d1e0d1a8a935910b73fa1e91c1152b825b2fd78dbc6631fb6382f2f44b2f61", 80, 281),
    (3, "experienced"): ("62d20cff2faba36057e5df6432ed61df1e09bcf322ac27e1fb401f6e0d22e573", 120, 407),
    (4, "beginner"): ("15f08e487f1a13d1ed70757bebe0b697ccf90f7a9b6f8f6f678d894d17d0dce1", 166, 539),
    (5, "experienced"): ("5d9956e9e7b047eab40589883e7d752a3bd6b0b690ff32a78112171d705e56a4", 239, 667),
}


@pytest.mark.parametrize(("players", "setup"), sorted(GOLDEN))
def test_seeded_games_are_the_games_the_engine_gave_before(players, setup):
    """Random play picks among `legal` in order, so equal games mean equal legal lists, events and chance."""
    played = play_random(GAME, ED, {"players": players, "setup": setup}, f"golden-{players}")
    text = json.dumps([e.to_json() for e in played.entries], sort_keys=True, separators=(",", ":"))
    got = (hashlib.sha256(text.encode()).hexdigest(), len(played.entries), sum(len(e.events) for e in played.entries))
    assert got == GOLDEN[(players, setup)]


def _payloads():
    good = [
        {"type": "la-citta/place-castle", "seat": 0, "hex": 68},
        {"type": "la-citta/take-gold", "seat": 1},
        {"type": "la-citta/found-city", "seat": 0, "hex": 140, "source": 68},
        {"type": "la-citta/build", "seat": 0, "card": "action", "building": "quarry", "city": 68, "hex": 75},
        {"type": "la-citta/bread-and-games", "seat": 0, "hex": 75, "service": "health", "figures": 2},
        {"type": "la-citta/golden-times", "seat": 0, "city": 68, "citizens": 3},
        {"type": "la-citta/rich-harvest", "seat": 0, "hex": 75},
        {"type": "la-citta/poll", "seat": 0, "slots": [0, 2]},
        {"type": "la-citta/blind-draw", "seat": 0},
        {"type": "la-citta/attract", "seat": 1, "city": 132, "service": "culture"},
        {"type": "la-citta/demolish", "seat": 1, "hex": 133},
        {"type": "la-citta/send-away", "seat": 1, "city": 132, "citizens": 1},
    ]
    out = list(good)
    for p in good:
        for key in p:
            if key == "type":
                continue
            out.append({k: v for k, v in p.items() if k != key})  # missing field
            for bad in (True, 1.0, "1", None, [1], {"a": 1}, -1, "museum"):
                out.append({**p, key: bad})
        out.append({**p, "extra": 1})
        out.append(dict(reversed(p.items())))  # the same keys in another order than `to_json` writes them
        out.append({**p, "type": p["type"].upper()})
    out += [{"type": "la-citta/poll", "seat": 0, "slots": [0, True]}, {"type": "la-citta/poll", "seat": 0, "slots": (0, 1)}]
    out += [{"type": ["la-citta/take-gold"], "seat": 0}, {"type": None}, {"seat": 0}, {}]
    return out


def _outcome(parse, payload):
    try:
        return ("ok", parse(payload))
    except MalformedCommand as exc:
        return ("malformed", exc.message, exc.errors)


def test_the_fast_parse_gives_what_the_schemas_give():
    payloads = _payloads()
    assert len(payloads) > 300
    accepted = 0
    for payload in payloads:
        fast, schema = _outcome(GAME.parse_command, payload), _outcome(cm.BOOK.parse, payload)
        assert fast == schema, payload
        accepted += fast[0] == "ok"
    assert 12 <= accepted < len(payloads) // 2, "both kinds of payload were exercised"


@pytest.mark.parametrize(
    "options",
    [{}, {"players": 2}, {"players": 5, "setup": "experienced", "start": 4}, {"players": True}, {"players": 2.0},
     {"setup": 3}, {"start": "0"}, {"seats": 2}, {"players": 2, "colour": "blue"}, {"players": 3, "setup": "odd"},
     {"setup": "Experienced"}],
)
def test_the_fast_options_give_what_the_schema_gives(options):
    try:
        want = ("ok", load_options("la-citta", _OPTIONS, options))
    except RuleViolation as exc:
        want = ("refused", exc.rule, exc.message)
    try:
        got = ("ok", _options(options))
    except RuleViolation as exc:
        got = ("refused", exc.rule, exc.message)
    assert got == want


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_links_are_each_citys_opposing_neighbours_and_the_cache_holds_only_settled_states(players):
    tallies = linked = 0
    for k in range(3):
        played = play_random(GAME, ED, {"players": players, "setup": "experienced" if k % 2 else "beginner"}, f"links-{k}")
        state = GAME.begin(ED)
        for entry in played.entries:
            for e in entry.events:
                state = GAME.evolve(state, e)
                if isinstance(e, ev.VoiceRevealed):
                    tallies += 1
                    want = {key: neighbours(state, c) for key, c in sorted(state.cities.items()) if neighbours(state, c)}
                    assert state.links == want
                    linked += bool(want)
            if rules.settled(state):
                # a fresh copy of the state is not the cached object: settled() is worked out from scratch
                assert rules._waits(state) and not rules._auto(state._replace(), rules._NoChance())
    assert tallies >= 18 and linked >= 3


def test_play_caches_only_states_where_a_seat_decides():
    s = GAME.begin(ED)
    chance = SeededChance("cache")
    s = fold(s, GAME.setup(ED, {"players": 2}, chance))
    for _ in range(12):
        command = GAME.legal(s)[0]
        _, s = GAME.play(s, command, chance)
        assert rules._last_settled[0] is s
        assert rules.pending_of(s).seat is not None and rules.pending_of(s.__class__(*s)).seat == rules.pending_of(s).seat


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_play_gives_the_state_its_events_fold_to_one_by_one(players):
    """`play` folds a command's events and the automatic steps after it onto one copy of the state's fields, and
    the beginner setup's opening is made once: each must be the state that `evolve` makes event by event."""
    for setup in ("beginner", "experienced"):
        played = play_random(GAME, ED, {"players": players, "setup": setup}, f"one-by-one-{players}")
        assert play_folds_as_evolve(GAME, ED, played).phase == "over"


def test_the_beginner_opening_is_made_once_and_names_the_edition_it_is_asked_for():
    first = GAME.setup(ED, {"players": 3, "start": 1}, SeededChance("opening"))
    again = GAME.setup(ED, {"players": 3, "start": 1}, SeededChance("opening"))
    assert first == again and first[0] is again[0]  # the same events, the opening's made once
    other = dataclasses.replace(ED)  # equal content, another object (an edition file loaded again)
    assert other is not ED and other.content_hash == ED.content_hash
    state = rules._beginner_opening(other, 3, 1)[1]
    assert state.edition is other and state == rules._beginner_opening(ED, 3, 1)[1]
