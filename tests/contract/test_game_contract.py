"""The Game contract, one suite for every catalogued title (domain/kernel/contract.py).

Each title passes the same checks: `legal` is exact, a replay is the fold of its events, events
and logs survive JSON, a tampered log is refused, one seed gives one game, and a seat's view never
shows another seat's secrets. What only the title knows (its tables, the commands worth trying
beside `legal`, how to tamper with one of its logs, what its secrets are) comes from its test
folder's `contract.py` (tests/<package>/contract.py), found through the catalog like everything
else about a title: a new title is held to the contract as soon as it is catalogued.
"""

from __future__ import annotations

import importlib
import json
from types import ModuleType
from typing import Any

import pytest

from domain import catalog
from domain.kernel import Entry, ObservedChance, RuleViolation, SeededChance, fold, play, replay, round_trips
from domain.kernel.events import dumps, event_from_json, loads
from domain.kernel.selfplay import play_random

TITLES = catalog.available()
GAMES = 4  # random games per table for the replay and fold checks


def hooks(title: str) -> ModuleType:
    """The title's own answers to what the suite asks (tests/<package>/contract.py)."""
    return importlib.import_module(f"tests.{catalog.package(title)}.contract")


def tables(title: str) -> list[dict[str, Any]]:
    return list(hooks(title).TABLES)


def table_id(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


CASES = [pytest.param(title, options, id=f"{title}-{table_id(options)}") for title in TITLES for options in tables(title)]


@pytest.mark.parametrize(("title", "options"), CASES)
def test_a_replay_is_the_fold_of_its_events_and_survives_json(title: str, options: dict[str, Any]) -> None:
    """A log read back from JSON text re-decides to the very state it was played to, and folding its events
    alone (read back from JSON too) gives that state; every event round-trips; the queries answer in JSON."""
    game = catalog.game(title)
    edition = game.default_edition()
    for k in range(GAMES):
        played = play_random(game, edition, options, f"replay-{k}")
        events = [e for entry in played.entries for e in entry.events]
        assert all(round_trips(e) for e in events)
        entries = [Entry.from_json(obj) for obj in json.loads(json.dumps([entry.to_json() for entry in played.entries]))]
        report, state = replay(game, edition, entries)
        assert report.ok, report
        assert report.entries == len(played.entries) and report.events == len(events)
        assert state == played.state, "re-deciding the log gives the identical state"
        stored = [event_from_json(obj) for obj in json.loads(json.dumps([e.to_json() for e in events]))]
        assert fold(game, game.begin(edition), stored) == played.state
        assert game.scores(state) == played.scores
        for seat in (None, *range(int(options["players"]))):
            json.dumps(game.view(state, seat))
        json.dumps(game.scores(state))
        json.dumps(game.pending(state).to_json())


@pytest.mark.parametrize(("title", "options"), CASES)
def test_play_gives_the_events_of_decide_and_the_state_of_their_fold(title: str, options: dict[str, Any]) -> None:
    """A title's own `play` settles steps on a working state; after every command that state must be the fold of
    the events it returned, and those events what `decide` says and what the log holds."""
    game = catalog.game(title)
    edition = game.default_edition()
    for k in range(3):
        played = play_random(game, edition, options, f"fold-{k}")
        state = fold(game, game.begin(edition), played.entries[0].events)
        for entry in played.entries[1:]:
            command = game.parse_command(entry.command)
            events, after = play(game, state, command, ObservedChance(entry.outcomes))
            assert tuple(events) == entry.events, entry.command
            assert list(game.decide(state, command, ObservedChance(entry.outcomes))) == list(events), entry.command
            assert fold(game, state, events) == after, entry.command
            state = after
        assert state == played.state


@pytest.mark.parametrize(("title", "options"), CASES)
def test_a_setup_folds_to_the_state_its_events_read_back_from_json_give(title: str, options: dict[str, Any]) -> None:
    """The kernel folds a setup's events right after `setup` returns them, and a title may reuse the states it
    built on the way (Città-Stato's fold.remember_setup): that must be what a fold of the stored events gives."""
    game = catalog.game(title)
    edition = game.default_edition()
    for k in range(3):
        events = game.setup(edition, options, SeededChance(f"refold-{k}"))
        again = fold(game, game.begin(edition), events)
        stored = fold(game, game.begin(edition), loads(dumps(events)))
        assert again == stored
        assert game.pending(again).seat is not None, "after the setup a seat decides"


LEGAL_CASES = [pytest.param(title, options, seed, id=f"{title}-{seed}", marks=[pytest.mark.slow] if hooks(title).LEGAL_SLOW else [])
               for title in TITLES for options, seed in hooks(title).LEGAL]


@pytest.mark.parametrize(("title", "options", "seed"), LEGAL_CASES)
def test_legal_is_exact(title: str, options: dict[str, Any], seed: str) -> None:
    """On sampled states of a random game: every listed command is accepted, each probe (a well-formed command
    the title thinks worth trying) is accepted only when it is listed, nothing is listed twice, and deciding
    changes nothing of the state it reads. Each distinct command is decided once."""
    game, own = catalog.game(title), hooks(title)
    edition = game.default_edition()
    played = play_random(game, edition, options, seed)
    state = game.begin(edition)
    checked = 0
    for index, entry in enumerate(played.entries):
        if index > 0 and index % own.LEGAL_EVERY == 0:
            legal = list(game.legal(state))
            listed = set(legal)
            assert len(listed) == len(legal), "a command listed twice"
            probes = own.probes(state, legal)
            before = own.snapshot(state)
            accepted = set()
            for c in dict.fromkeys([*legal, *probes]):
                try:
                    game.decide(state, c, SeededChance(f"try-{index}"))
                except RuleViolation:
                    continue
                accepted.add(c)
            assert listed <= accepted, f"listed but refused: {listed - accepted}"
            assert accepted <= listed, f"accepted but not listed: {accepted - listed}"
            if own.PROBES_COVER_LEGAL:
                assert listed <= set(probes), f"listed but never probed: {listed - set(probes)}"
            assert own.snapshot(state) == before, "decide never mutates"
            checked += 1
        state = fold(game, state, entry.events)
    assert checked > 0


@pytest.mark.parametrize("title", TITLES)
def test_a_tampered_log_is_refused(title: str) -> None:
    game = catalog.game(title)
    edition = game.default_edition()
    entries, rule, index = hooks(title).tamper(game, edition)
    report, _ = replay(game, edition, entries)
    assert not report.ok, report
    assert report.rule.startswith(rule) if rule.endswith("/") else report.rule == rule, report
    if index is not None:
        assert report.entry_index == index, report


@pytest.mark.parametrize("title", TITLES)
def test_one_seed_one_game(title: str) -> None:
    game = catalog.game(title)
    edition = game.default_edition()
    options = tables(title)[0]
    a, b = (play_random(game, edition, options, "same") for _ in range(2))
    assert [en.to_json() for en in a.entries] == [en.to_json() for en in b.entries]
    c = play_random(game, edition, options, "other")
    assert [en.to_json() for en in a.entries] != [en.to_json() for en in c.entries]


@pytest.mark.parametrize("title", TITLES)
def test_a_view_never_leaks_another_seats_secrets(title: str) -> None:
    """After every event of random games, each seat's view is checked by the title's `hidden` (what it must not
    show); the games must meet some secret, or the check proved nothing."""
    game, own = catalog.game(title), hooks(title)
    edition = game.default_edition()
    met = 0
    for options in own.LEAK:
        players = int(options["players"])
        played = play_random(game, edition, options, f"leak-{players}")
        state = game.begin(edition)
        for entry in played.entries:
            state = fold(game, state, entry.events)
            for me in range(players):
                met += own.hidden(state, game.view(state, me), me)
    assert met > 0, "no secret was ever in play"
