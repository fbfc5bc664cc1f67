"""Solo mode: each scenario's setup, each Ghost action, the Ghost's turn order and war, bad input,
the end-of-game report (won and lost) and a three-game campaign carrying crowns.

Expected values here are read from the rulebook's Solo Game section, not from the edition file,
so a wrong edition value fails a test.
"""

from __future__ import annotations

from importlib import resources

import pytest

from domain.citta_stato import commands as cmd
from domain.citta_stato import events as ev
from domain.citta_stato.edition import BI, CI, COLOURS
from domain.citta_stato.fold import used_schemes
from domain.citta_stato.solo import next_game, report
from domain.citta_stato.state import GHOST, State
from domain.kernel import MalformedCommand, ObservedChance, Outcome, RuleViolation, SeededChance
from domain.kernel.selfplay import play_random

from .helpers import EDITION, GAME, act, board, c6, kinds, market, play, seat, total_cubes

# (city, Republic card (form, crowned), schemes by slot, swap pool, cubes the Ghost adds, draws a round, required by game)
SCENARIOS = {
    1: ("AMA", ("OLI", True), ("Turning Point", "Decree", "Republican Fate", "Ideology"), {("PLU", True), ("DOG", True)}, c6(G=2, W=1, Y=2, O=2, B=1, P=2), 2, (18, 19, 20)),
    2: ("VEN", ("OLI", False), ("Ideology", "Credit Policy", "Decree", "Republican Fate"), {("DOG", True)}, c6(G=2, Y=2, O=2, P=2), 3, (21, 23, 25)),
    3: ("ANC", ("OLI", False), ("Credit Policy", "Diplomacy", "Turning Point", "Republican Fate"), {("PLU", True)}, c6(G=1, Y=2, O=2, P=1), 4, (24, 27, 30)),
    4: ("RAG", ("PLU", False), ("Diplomacy", "Decree", "Republican Fate", "Credit Policy"), {("PLU", True), ("OLI", False)}, c6(G=1, Y=1, O=1, P=1), 5, (27, 31, 35)),
}


def solo_game(scenario: int, game: int = 1, carried: int = 0, seed: str = "solo") -> State:
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 2, "solo": {"scenario": scenario, "game": game, "carried_crowns": carried}}, SeededChance(seed)):
        s = GAME.evolve(s, e)
    return s


def card_kind(state: State, card: str) -> tuple[str, bool]:
    return state.t.republic_form[card], state.t.republic_crowns[card] > 0


@pytest.mark.parametrize("game", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_scenario_setup(n: int, game: int) -> None:
    city, republic, schemes, pool, added, draws, required = SCENARIOS[n]
    outcomes = [Outcome("draw", f"deck:{c}", (f"{c}1", f"{c}2")) for c in COLOURS]
    chance = ObservedChance(outcomes)  # only the six decks are shuffled: every other setup choice is the scenario's
    s = GAME.begin(EDITION)
    for e in GAME.setup(EDITION, {"players": 2, "solo": {"scenario": n, "game": game, "carried_crowns": 3}}, chance):
        s = GAME.evolve(s, e)
    assert not chance.unused
    human, ghost = s.seats
    assert s.phase == "turns" and s.first == 0 and s.current == 0 and GAME.pending(s).seat == 0
    assert human.city == city and card_kind(s, human.republic) == republic
    assert tuple(s.t.schemes[k]["name"] for k in s.schemes) == schemes and all(s.schemes_up)
    assert {card_kind(s, k) for k in s.pool} == pool and len(s.pool) == len(pool)
    assert s.upgrade == game
    assert human.crowns == 3 and human.discs == (1, 2, 3, 4, 5)
    assert ghost.bag == c6(Y=1, W=1, G=1, O=1, B=1, P=1) and ghost.discs == (0, 1, 2, 3, 4, 5)
    assert ghost.vp == required[game - 1] and ghost.city == "" and ghost.supply == c6()
    city_market = s.t.cities[city]["cubes"][6:]
    for c in COLOURS:
        assert sum(s.market[CI[c]]) == added[CI[c]] + city_market.count(c), c
    assert total_cubes(s) == 88
    assert GAME.view(s, 0)["solo"]["required_score"] == required[game - 1]


def ready(n: int, **human: object) -> State:
    """Round 1 of game 3 (3 upgrades), the human to act with tracks on space 3, a full Market and a roomy supply."""
    s = solo_game(n, 3)
    s = board(s, market=market(**{c: "xxx" for c in COLOURS}))
    base = {"supply": c6(Y=3, W=2, G=3, O=3, B=2, P=3), "tracks": (3, 3, 3, 3), "form": 5}
    base.update(human)
    return seat(s, 0, **base)


def ghost_draws(state: State, cube: str, *more: Outcome) -> tuple[State, list]:
    """The human upgrades yellow (no chance, no choice); the Ghost then draws `cube`."""
    return play(state, cmd.Upgrade(0, "Y"), [Outcome("draw", "bag:ghost", (cube,)), *more])


# What each Ghost cube does, by scenario (rulebook): (effect, detail)
GHOST_ACTIONS = {
    (1, "Y"): ("clear-row", 1), (1, "W"): ("form", 3), (1, "G"): ("track-back", 1), (1, "O"): ("disc", "random"), (1, "B"): ("form", 7), (1, "P"): ("schemes", (1,)),
    (2, "Y"): ("clear-row", 1), (2, "W"): ("schemes", (1,)), (2, "G"): ("track-back", 1), (2, "O"): ("disc", "random"), (2, "B"): ("form", 4), (2, "P"): ("schemes", (2,)),
    (3, "Y"): ("clear-row", 2), (3, "W"): ("cube-to-bag", 1), (3, "G"): ("track-back", 1), (3, "O"): ("disc", 5), (3, "B"): ("form", 6), (3, "P"): ("schemes", (1, 3)),
    (4, "Y"): ("clear-row", 1), (4, "W"): ("clear-row", 2), (4, "G"): ("track-back", 2), (4, "O"): ("disc", 0), (4, "B"): ("form", 7), (4, "P"): ("schemes", (1, 4)),
}


@pytest.mark.parametrize(("n", "cube"), sorted(GHOST_ACTIONS))
def test_each_ghost_action(n: int, cube: str) -> None:
    effect, detail = GHOST_ACTIONS[(n, cube)]
    s = ready(n)
    present = s.present[CI[cube]]
    extra = [Outcome("draw", "ghost-discs", (3,))] if detail == "random" else []
    after, events = ghost_draws(s, cube, *extra)
    assert ev.GhostDrew(cube, present) in events
    assert after.present[CI[cube]] == "" and present in after.discards[CI[cube]]  # the Present card of that colour is discarded
    assert after.seats[GHOST].bag[CI[cube]] == 0 and after.seats[GHOST].actions == 1
    human = after.seats[0]
    if effect == "clear-row":
        r = s.t.row_costs.index(detail)
        assert all(not col[r] for col in after.market) and all(col[k] for col in after.market for k in range(3) if k != r)
        assert sum(after.box) - sum(s.box) == 4 and sum(after.reserve) - sum(s.reserve) == 2  # W and B back to the supply
    elif effect == "form":
        assert human.form == detail
    elif effect == "schemes":
        assert [k + 1 for k, up in enumerate(after.schemes_up) if not up] == list(detail)
        assert after.removed == detail
    elif effect == "disc":
        value = 3 if detail == "random" else detail
        assert after.warfare == ((GHOST, value),) and value not in after.seats[GHOST].discs
    elif effect == "track-back":
        p = GAME.pending(after)
        assert (p.seat, p.kind) == (0, "track-back")
        assert set(GAME.legal(after)) == {cmd.PickColour(0, c) for c in "YGOP"}
        after, _ = play(after, cmd.PickColour(0, "O"))
        if detail == 2:  # two steps: the same marker twice, or two markers once each
            assert GAME.pending(after).kind == "track-back"
            after, _ = play(after, cmd.PickColour(0, "G"))
        assert after.seats[0].tracks[BI["O"]] == 2
        assert after.seats[0].tracks[BI["G"]] == (2 if detail == 2 else 3)
    elif effect == "cube-to-bag":
        p = GAME.pending(after)
        assert (p.seat, p.kind) == (0, "cube-to-bag")
        before = after.seats[0]
        after, _ = play(after, cmd.PickColour(0, "P"))
        assert after.seats[0].supply[CI["P"]] == before.supply[CI["P"]] - 1 and after.seats[0].bag[CI["P"]] == before.bag[CI["P"]] + 1
    assert GAME.pending(after).seat == 0 and GAME.pending(after).kind == "turn"
    assert total_cubes(after) == total_cubes(s)


def test_removed_schemes_are_not_offered_and_do_not_count_as_used_for_amalfi() -> None:
    s = ready(1, tracks=(3, 3, 3, 4))  # Politics level 4: every slot within reach
    s, _ = ghost_draws(s, "P")  # scenario 1, purple: slot 1 is removed for the round
    assert used_schemes(s) == 0
    s, _ = play(s, cmd.CityAction(0, "P"))
    assert (GAME.pending(s).kind, set(GAME.legal(s))) == ("scheme", {cmd.UseScheme(0, k) for k in (2, 3, 4)})
    s, _ = play(s, cmd.UseScheme(0, 2))
    assert used_schemes(s) == 1


def test_the_track_back_is_skipped_when_no_marker_can_move() -> None:
    s = ready(1, tracks=(1, 1, 1, 1), actions=1)
    s = seat(s, GHOST, bag=c6(G=1), supply=c6(Y=1, W=1, O=1, B=1, P=1), actions=1)  # its last draw is sure
    green = s.present[CI["G"]]
    s, events = play(s, cmd.Pass(0))
    assert events[:3] == [ev.Passed(0), ev.GhostDrew("G", green), ev.StepSkipped(0, "track_back")]


def test_the_ghost_acts_after_each_turn_until_its_count_then_the_human_goes_on() -> None:
    s = ready(1, supply=c6(Y=9, W=9, G=9, O=9, B=9, P=9))  # two Ghost actions a round
    drawn = []
    for colour in "YGO":
        s, events = act(s, cmd.Upgrade(0, colour))
        drawn.append(sum(isinstance(e, ev.GhostDrew) for e in events))
        assert s.round == 1 and s.current == 0
    assert drawn == [1, 1, 0]
    assert s.seats[GHOST].actions == 2


def test_when_the_human_passes_the_ghost_finishes_its_actions() -> None:
    s = ready(4, supply=c6(Y=9, W=9, G=9, O=9, B=9, P=9))  # five Ghost actions a round
    s, events = act(s, cmd.Upgrade(0, "Y"))
    assert kinds(events).count("GhostDrew") == 1
    s, events = act(s, cmd.Pass(0))
    assert kinds(events).count("GhostDrew") == 4
    i = kinds(events).index("RoundReset")
    assert kinds(events)[:i].count("GhostDrew") == 4  # before the End of Round
    assert s.round == 2 and s.first == 0 and s.current == 0 and s.upgrade == 3
    assert s.seats[GHOST].bag == c6(Y=1, W=1, G=1, O=1, B=1, P=1) and s.seats[GHOST].actions == 0  # all six cubes back


def test_the_ghost_marker_counts_for_the_fewest_vp_bonus_draw() -> None:
    """The human below the Ghost's marker (the required score) is the fewest VP: green value + 2 cubes."""
    for vp, bonus in ((5, 2), (30, 0)):
        s = ready(1, actions=1, vp=vp, bag=c6(Y=5, G=5, O=5, P=5), tracks=(3, 3, 3, 3))
        s = seat(s, GHOST, bag=c6(), supply=c6(Y=1, W=1, G=1, O=1, B=1, P=1), actions=2)
        s, events = act(s, cmd.Pass(0), seed=f"fewest-{vp}")
        drawn = [e for e in events if isinstance(e, ev.CubesDrawn) and e.seat == 0]
        assert len(drawn) == 1 and len(drawn[0].cubes) == s.t.track_values[BI["G"]][2] + bonus


def test_a_ghost_war_costs_it_nothing_and_a_defeated_human_may_take_a_present_card() -> None:
    s = ready(3, actions=1, supply=c6(Y=5))
    s = board(s, warfare=((GHOST, 4), (0, 2)))
    s = seat(s, 0, discs=(1, 3, 4, 5))
    s = seat(s, GHOST, discs=(0, 1, 2, 3, 5), actions=4, bag=c6(Y=1, W=1), supply=c6(G=1, O=1, B=1, P=1))
    s, events = play(s, cmd.Pass(0))
    assert "GhostDrew" not in kinds(events)
    assert ev.WarRevealed(((GHOST, 4), (0, 2))) in events
    for _ in range(2):
        assert (GAME.pending(s).seat, GAME.pending(s).kind) == (0, "war-pay")
        s, events = play(s, cmd.PickColour(0, "Y"))
    assert ev.WarWon(GHOST, (0,)) in events
    assert s.seats[GHOST].supply == c6(G=1, O=1, B=1, P=1)  # nothing paid
    p = GAME.pending(s)
    assert (p.seat, p.kind) == (0, "take-card")
    legal = GAME.legal(s)
    assert cmd.Decline(0) in legal and all(o.source == "present" for o in legal if isinstance(o, cmd.TakeCard))
    s, _ = play(s, cmd.Decline(0))
    assert 4 in s.seats[GHOST].retired and s.warfare == ()


# --- bad input ---------------------------------------------------------------------------
def refused(state: State, command: cmd.Command, rule: str) -> RuleViolation:
    before, legal = GAME.view(state, None), GAME.legal(state)
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, command, SeededChance("bad"))
    assert err.value.rule == rule, err.value
    assert GAME.view(state, None) == before and GAME.legal(state) == legal
    return err.value


def test_a_command_for_the_ghost_seat_is_refused() -> None:
    s = ready(1)
    refused(s, cmd.Pass(GHOST), "citta-stato/solo/ghost-seat")
    refused(s, cmd.Upgrade(GHOST, "Y"), "citta-stato/solo/ghost-seat")
    s, _ = ghost_draws(s, "G")
    assert GAME.pending(s).kind == "track-back"
    refused(s, cmd.PickColour(GHOST, "Y"), "citta-stato/solo/ghost-seat")


def test_a_ghost_action_cannot_be_submitted_as_a_command() -> None:
    with pytest.raises(MalformedCommand):
        GAME.parse_command({"type": "citta-stato/ghost-drew", "seat": 0, "cube": "Y", "discarded": ""})


@pytest.mark.parametrize(
    ("solo", "rule", "field"),
    [
        ({"scenario": 5, "game": 1}, "citta-stato/solo/scenario", "solo.scenario"),
        ({"scenario": 0, "game": 1}, "citta-stato/solo/scenario", "solo.scenario"),
        ({"scenario": 2, "game": 4}, "citta-stato/solo/game", "solo.game"),
    ],
)
def test_unknown_scenario_or_game_names_the_field(solo: dict, rule: str, field: str) -> None:
    chance = SeededChance("bad")
    with pytest.raises(RuleViolation) as err:
        GAME.setup(EDITION, {"players": 2, "solo": solo}, chance)
    assert err.value.rule == rule and err.value.facts["field"] == field
    assert field.split(".")[1] in str(err.value) and not chance.log  # nothing dealt


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"players": 3, "solo": {"scenario": 1, "game": 1}}, "players"),
        ({"players": 2, "expansion": True, "solo": {"scenario": 1, "game": 1}}, "expansion"),
        ({"players": 2, "solo": {"scenario": 1, "game": 1, "carried_crowns": -1}}, "carried_crowns"),
        ({"players": 2, "solo": {"scenario": "1", "game": 1}}, "scenario"),
        ({"players": 2, "solo": {"scenario": 1, "game": 1, "ghost": 2}}, "ghost"),
    ],
)
def test_bad_solo_options(options: dict, field: str) -> None:
    with pytest.raises(RuleViolation) as err:
        GAME.setup(EDITION, options, SeededChance("bad"))
    assert err.value.rule == "citta-stato/setup/options" and field in str(err.value.facts["errors"])


# --- end of game -------------------------------------------------------------------------
def finished(n: int, game: int, seed: str = "end") -> State:
    played = play_random(GAME, EDITION, {"players": 2, "solo": {"scenario": n, "game": game}}, seed)
    assert played.state.phase == "over"
    return played.state


def test_a_won_game_reports_each_objective_and_the_crowns_carried() -> None:
    s = finished(1, 3)
    s = seat(s, 0, crowns=6, tracks=(1, 1, 1, 4), supply=c6(W=1, B=2))
    s = board(s, finals=(25, 20))
    r = GAME.scores(s)["solo"]
    assert r["required_score"] == 20 and r["score"] == 25 and r["score_met"]
    assert [(o["objective"], o["met"], o["value"]) for o in r["objectives"]] == [
        ("own_crowns_at_least", True, 6),
        ("track_at_least", True, {"P": 4}),
        ("own_cubes", True, {"B": 2, "W": 1}),
    ]
    assert r["won"] and r["crowns_carried_out"] == 2  # the rulebook's example: 25 against 20 gives 2 crowns
    assert GAME.scores(s)["ranking"] == [0, GHOST]
    assert next_game(s)["campaign"] == "won"  # the third game was the last


def test_a_lost_game_reports_which_objectives_failed() -> None:
    s = finished(1, 3)
    s = seat(s, 0, crowns=4, tracks=(1, 1, 1, 3), supply=c6(W=1, B=2))
    s = board(s, finals=(23, 20))
    r = report(s)
    assert [(o["met"], o["value"], o["target"]) for o in r["objectives"]] == [
        (False, 4, 5),
        (False, {"P": 3}, {"P": 4}),
        (True, {"B": 2, "W": 1}, {"B": 1, "W": 1}),
    ]
    assert r["score_met"] and not r["won"] and r["crowns_carried_out"] == 0
    assert GAME.scores(s)["ranking"] == [GHOST, 0]
    assert next_game(s) == {"campaign": "lost", "next": None, "report": r}


def test_the_required_score_alone_can_lose_the_game() -> None:
    s = finished(3, 1)
    s = seat(s, 0, tracks=(2, 2, 1, 2))
    s = board(s, finals=(23, 24))
    r = report(s)
    assert all(o["met"] for o in r["objectives"]) and not r["score_met"] and not r["won"]
    s = board(s, finals=(24, 24))
    assert report(s)["won"] and report(s)["crowns_carried_out"] == 1  # the mark at 24 itself counts
    assert next_game(s)["next"] == {"players": 2, "solo": {"scenario": 3, "game": 2, "carried_crowns": 1}}


def test_next_game_needs_a_finished_solo_game() -> None:
    with pytest.raises(ValueError):
        next_game(ready(1))


def easy_edition():
    """The reference edition with scenario 1 made winnable by random play (required 0; the later games
    need crowns, which only the carried ones make likely): an owner's file, no code changed."""
    raw = resources.files("domain.citta_stato").joinpath("edition.yaml").read_bytes()
    for old, new in (
        (b"1: {required: 18, objectives: [{own_cubes: {B: 1, W: 1}}]}", b"1: {required: 0, objectives: [{own_crowns_at_least: 0}]}"),
        (b"2: {required: 19, objectives: [{track_at_least: {P: 4}}, {own_cubes: {B: 1, W: 1}}]}", b"2: {required: 0, objectives: [{own_crowns_at_least: 1}]}"),
        (b"3: {required: 20, objectives: [{own_crowns_at_least: 5}, {track_at_least: {P: 4}}, {own_cubes: {B: 1, W: 1}}]}", b"3: {required: 0, objectives: [{own_crowns_at_least: 1}]}"),
    ):
        assert raw.count(old) == 1
        raw = raw.replace(old, new)
    return GAME.load_edition(raw, "easy-solo.yaml")


def test_a_campaign_of_three_games_carries_crowns() -> None:
    edition = easy_edition()
    options: dict = {"players": 2, "solo": {"scenario": 1, "game": 1}}
    records = []
    for game in (1, 2, 3):
        for k in range(200):  # the first seed whose game is won and (before the last) carries crowns
            played = play_random(GAME, edition, options, f"campaign-{game}-{k}")
            r = played.scores["solo"]
            if r["won"] and (game == 3 or r["crowns_carried_out"] > 0):
                break
        else:
            raise AssertionError(f"no won game {game} in 200 seeds")
        setup = played.entries[0]
        started = next(e for e in setup.events if isinstance(e, ev.SoloStarted))
        carried = options["solo"].get("carried_crowns", 0)
        assert (started.scenario, started.game, started.carried_crowns) == (1, game, carried)
        human_at_start = GAME.begin(edition)
        for e in setup.events:
            human_at_start = GAME.evolve(human_at_start, e)
        assert human_at_start.seats[0].crowns == carried
        records.append(played)
        step = next_game(played.state)
        if game < 3:
            assert step["campaign"] == "continues"
            assert step["next"]["solo"] == {"scenario": 1, "game": game + 1, "carried_crowns": r["crowns_carried_out"]}
            options = step["next"]
        else:
            assert step == {"campaign": "won", "next": None, "report": r}
    assert [rec.entries[0].options["solo"]["game"] for rec in records] == [1, 2, 3]


def test_a_lost_campaign_game_ends_the_campaign() -> None:
    for k in range(50):
        played = play_random(GAME, EDITION, {"players": 2, "solo": {"scenario": 2, "game": 1}}, f"lose-{k}")
        if not played.scores["solo"]["won"]:
            assert next_game(played.state)["campaign"] == "lost"
            return
    raise AssertionError("random play won 50 games of scenario 2")


def test_the_solo_vocabulary_is_checked_when_an_edition_loads() -> None:
    from domain.citta_stato.edition import OBJECTIVE_KINDS
    from domain.citta_stato.solo import OBJECTIVES
    from domain.kernel import EditionError

    assert set(OBJECTIVES) == set(OBJECTIVE_KINDS)
    raw = resources.files("domain.citta_stato").joinpath("edition.yaml").read_bytes()
    for old, new in (
        (b"W: [[human_form, left, 2]]", b"W: [[human_flee, left, 2]]"),
        (b"1: {required: 27, objectives: [{own_banners_total_at_least: 7}]}", b"1: {required: 27, objectives: [{own_ships: 7}]}"),
        (b"1: {required: 18,", b"1: {required: many,"),
    ):
        assert raw.count(old) == 1
        with pytest.raises(EditionError) as err:
            GAME.load_edition(raw.replace(old, new), "mine.yaml")
        assert "mine.yaml" in str(err.value) and "solo" in str(err.value)
