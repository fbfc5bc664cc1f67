"""Random legal play: 200 complete games per player count, with the invariants after every event.

Checked after every event: cubes conserved (88, or 110 with the expansion) across bags,
supplies, Market, box and reserve; no negative count; at most one war disc per player on the
track; the event round-trips through JSON; a second fold of the stored stream (each event read
back from JSON) is identical to the game's state. After every game the whole stream is also
re-folded from its JSON text. Plus: `legal` is exact (every listed command is
accepted and every other well-formed command refused), and re-deciding a log with observed
chance validates it.
"""

from __future__ import annotations

import json

import pytest

from domain.citta_stato import commands as cmd
from domain.citta_stato.edition import BANNERS, COLOURS
from domain.citta_stato.state import State
from domain.kernel import Event, ObservedChance, RuleViolation, SeededChance, event_from_json, replay, round_trips
from domain.kernel.events import dumps, loads
from domain.kernel.selfplay import play_random

from .helpers import EDITION, GAME, total_cubes

GAMES = 200


def check(state: State, e: Event) -> None:
    assert round_trips(e), e
    if state.phase == "setup":
        return
    assert total_cubes(state) == (110 if state.expansion else 88), e
    for counts in (state.reserve, state.box):
        assert min(counts) >= 0, e
    for x in state.seats:
        assert min(x.bag) >= 0 and min(x.supply) >= 0 and min(x.banners) >= 0 and x.crowns >= 0, (e, x)
        assert x.actions >= 0 and max(x.burned) <= state.t.burn_limit, e
        assert 1 <= x.form <= state.t.rep_spaces, e
        assert all(1 <= t <= len(v) for t, v in zip(x.tracks, state.t.track_values, strict=True)), e
    on_track = [i for i, _ in state.warfare]
    assert len(on_track) == len(set(on_track)) <= state.t.warfare_spaces, e
    assert state.upgrade >= 0, e


class Refold:
    """Folds each event again, as read back from its JSON, beside the game: both states must stay identical."""

    def __init__(self) -> None:
        self.state = GAME.begin(EDITION)

    def __call__(self, state: State, e: Event) -> None:
        check(state, e)
        stored = event_from_json(json.loads(json.dumps(e.to_json())))
        self.state = GAME.evolve(self.state, stored)
        assert self.state == state, e


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_keep_the_invariants(players: int) -> None:
    winners = set()
    for k in range(GAMES):
        played = play_random(GAME, EDITION, {"players": players}, f"random-{players}-{k}", Refold())
        state = played.state
        assert GAME.pending(state).over and state.round == state.t.rounds + 1
        stream = loads(dumps([e for entry in played.entries for e in entry.events]))
        refolded = GAME.begin(EDITION)
        for e in stream:
            refolded = GAME.evolve(refolded, e)
        assert refolded == state
        scores = played.scores
        assert scores["finished"] and sorted(scores["ranking"]) == list(range(players))
        assert [s["total"] for s in scores["seats"]] == list(state.finals)
        winners.add(scores["ranking"][0])
        for who in (None, *range(players)):
            json.dumps(GAME.view(state, who))
        json.dumps(GAME.pending(state).to_json())
    assert len(winners) > 1  # random play is not rigged toward one seat


@pytest.mark.parametrize("players", [2, 5])
def test_recorded_logs_validate_with_observed_chance(players: int) -> None:
    for k in range(5):
        played = play_random(GAME, EDITION, {"players": players}, f"log-{players}-{k}")
        entries = [type(en).from_json(json.loads(json.dumps(en.to_json()))) for en in played.entries]
        report, state = replay(GAME, EDITION, entries)
        assert report.ok, report
        assert state == played.state


@pytest.mark.parametrize(
    "options",
    [{"players": 2}, {"players": 4}, {"players": 5}, *({"players": 2, "solo": {"scenario": n, "game": 3}} for n in (1, 2, 3, 4))],
    ids=["2", "4", "5", "solo-1", "solo-2", "solo-3", "solo-4"],
)
def test_play_gives_the_fold_of_its_own_events(options: dict) -> None:
    """`play` settles steps on its own working state (some of it in batches); after every command that
    state must equal the events it returned, folded one by one from the state before."""
    for k in range(3):
        played = play_random(GAME, EDITION, options, f"fold-{k}")
        state = GAME.begin(EDITION)
        for e in played.entries[0].events:
            state = GAME.evolve(state, e)
        for entry in played.entries[1:]:
            events, after = GAME.play(state, GAME.parse_command(entry.command), ObservedChance(entry.outcomes))
            assert tuple(events) == entry.events
            folded = state
            for e in events:
                folded = GAME.evolve(folded, e)
            assert folded == after, entry.command
            state = after


@pytest.mark.parametrize("options", [{"players": 2}, {"players": 5}, {"players": 2, "solo": {"scenario": 3, "game": 2}}], ids=["2", "5", "solo"])
def test_a_setup_folds_again_to_the_state_its_events_read_back_from_json_give(options: dict) -> None:
    """The kernel folds a setup's events right after `setup` returns them, and `evolve` then reuses the states
    `setup` built (fold.remember_setup); that must be the state a fold of the stored events gives."""
    for k in range(3):
        events = GAME.setup(EDITION, options, SeededChance(f"refold-{k}"))
        again = GAME.begin(EDITION)
        for e in events:
            again = GAME.evolve(again, e)
        stored = GAME.begin(EDITION)
        for e in loads(dumps(events)):
            stored = GAME.evolve(stored, e)
        assert again == stored and again.phase == "turns"


def test_a_tampered_log_is_refused() -> None:
    played = play_random(GAME, EDITION, {"players": 3}, "tamper")
    entries = list(played.entries)
    for k, entry in enumerate(entries[1:], start=1):  # claim a cube that was never in the bag
        draws = [o for o in entry.outcomes if o.source.startswith("bag:") and len(o.values) > 0]
        if draws:
            o = draws[0]
            bad = type(o)(o.kind, o.source, ("B",) * len(o.values))
            entries[k] = type(entry)(entry.command, tuple(bad if x is o else x for x in entry.outcomes), entry.events)
            break
    report, _ = replay(GAME, EDITION, entries)
    assert not report.ok and report.rule.startswith("chance/")


def assert_legal_is_exact(state: State) -> list:
    """Every command `legal` lists is accepted and every other well-formed one refused; returns `legal`."""
    legal = GAME.legal(state)
    accepted = []
    for c in universe(state):
        try:
            GAME.decide(state, c, SeededChance("probe"))
        except RuleViolation:
            continue
        accepted.append(c)
    assert set(accepted) == set(legal), (GAME.pending(state), set(legal) ^ set(accepted))
    return legal


def universe(state: State) -> list:
    """Every well-formed command worth trying at this point, legal or not."""
    seats = range(state.players)
    cards = {c for c in state.present + state.future if c} | {c for x in state.seats for c in x.cards} | {"Y1", "P10"}
    out: list = []
    for s in seats:
        out += [cmd.Pass(s), cmd.Accept(s), cmd.Decline(s), cmd.KeepRepublic(s, "old"), cmd.KeepRepublic(s, "new")]
        out += [cmd.TradeBanners(s, t) for t in ("purple", "mixed")]
        out += [cmd.UseScheme(s, k) for k in range(5)] + [cmd.WarDisc(s, v) for v in range(6)]
        out += [cmd.PickNumber(s, v) for v in range(8)] + [cmd.PickColour(s, c) for c in COLOURS]
        out += [cmd.Shift(s, d, k) for d in ("left", "right", "none") for k in range(8)]
        out += [cmd.MarketCube(s, c, k) for c in COLOURS for k in (1, 2, 3)]
        out += [cmd.TakeCard(s, c, src, m) for c in cards for src in ("present", "future", "supply") for m in ("use", "burn")]
        for j in range(state.seats[s].actions + 3):
            out += [k(s, c, j) for k in (cmd.CityAction, cmd.UseCard, cmd.BurnCard) for c in COLOURS]
            out += [cmd.Upgrade(s, c, j) for c in BANNERS]
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_legal_is_exact(players: int) -> None:
    played = play_random(GAME, EDITION, {"players": players}, f"exact-{players}")
    state = GAME.begin(EDITION)
    checked = 0
    for index, entry in enumerate(played.entries):
        if index > 0 and index % 4 == 0:
            legal = assert_legal_is_exact(state)
            assert len(legal) == len(set(legal))
            checked += 1
        for e in entry.events:
            state = GAME.evolve(state, e)
    assert checked > 20


def test_same_seed_same_game() -> None:
    a = play_random(GAME, EDITION, {"players": 4}, "same")
    b = play_random(GAME, EDITION, {"players": 4}, "same")
    assert [en.to_json() for en in a.entries] == [en.to_json() for en in b.entries]
    c = play_random(GAME, EDITION, {"players": 4}, "other")
    assert [en.to_json() for en in a.entries] != [en.to_json() for en in c.entries]


def test_view_never_leaks_secrets_during_play() -> None:
    seen_hidden_disc = 0
    for players in (3, 5):
        played = play_random(GAME, EDITION, {"players": players}, f"leak-{players}")
        state = GAME.begin(EDITION)
        for entry in played.entries:
            for e in entry.events:
                state = GAME.evolve(state, e)
            if state.phase != "turns":
                continue
            for me in range(players):
                v = GAME.view(state, me)
                for i, x in enumerate(v["seats"]):
                    if i != me:
                        assert x["republic"] is None and isinstance(x["bag"], int) and isinstance(x["war_discs"], int)
                for d in v["warfare"]:
                    if d["seat"] != me and not state.revealed:
                        assert d["value"] is None
                        seen_hidden_disc += 1
                assert isinstance(v["republic_pool"], int)
    assert seen_hidden_disc > 0
