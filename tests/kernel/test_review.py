"""The planner judges from the deciding seat's view (domain/kernel/review.py and each title's `bot_determinize`).

For every catalogued title, on random games of the tables where its secrets are in play (the contract
suite's LEAK tables): a determinization keeps all the seat sees and re-deals what it does not; and the
planner's answers are the same for two states the seat cannot tell apart, though the all-seeing answer
tells them apart (so the secrets did matter).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from domain import catalog
from domain.kernel import SeededChance, fold, play
from domain.kernel.contract import Game
from domain.kernel.review import (
    SUGGEST,
    Budget,
    Estimate,
    Planner,
    calibrated,
    calibration_sentence,
    determinize,
    random_policy,
    reviewer,
    shrink_at,
    suggest_budget,
)
from domain.kernel.selfplay import play_random
from tests.contract.test_game_contract import hooks

TITLES = catalog.available()
EVERY = 7  # states sampled: every seventh command of a game
TABLES = 2  # the first LEAK tables of a title


def states(game: Game, options: dict[str, Any], seed: str) -> list[Any]:
    edition = game.default_edition()
    played = play_random(game, edition, options, seed)
    out, state = [], game.begin(edition)
    for entry in played.entries:
        state = fold(game, state, entry.events)
        out.append(state)
    return out[1::EVERY]


def secret_states(title: str) -> list[tuple[Any, int]]:
    """(state, seat) pairs of the title's LEAK games where the pending seat has something it cannot see."""
    game = catalog.game(title)
    found = []
    for options in hooks(title).LEAK[:TABLES]:
        for state in states(game, options, "review-secrets"):
            seat = game.pending(state).seat
            if seat is not None and determinize(game, state, seat, SeededChance("probe")) != state:
                found.append((state, seat))
    return found


@pytest.mark.parametrize("title", TITLES)
def test_a_determinization_keeps_the_seats_view_and_redeals_the_rest(title: str) -> None:
    """Every seat, at every sampled state: the re-dealt state shows it the very same view, and some re-deals
    differ from the real state and from each other (the secrets were dealt again, not copied)."""
    game = catalog.game(title)
    redealt = 0
    for options in hooks(title).LEAK[:TABLES]:
        for state in states(game, options, "review-views"):
            for seat in range(int(options["players"])):
                deals = [determinize(game, state, seat, SeededChance(f"deal-{k}")) for k in range(3)]
                for dealt in deals:
                    assert game.view(dealt, seat) == game.view(state, seat)
                redealt += len({repr(d) for d in deals}) > 1
    assert redealt > 0, "no secret was ever re-dealt"


@pytest.mark.parametrize("title", TITLES)
def test_the_planners_answers_do_not_change_with_a_secret_the_seat_cannot_see(title: str) -> None:
    """Two states the deciding seat cannot tell apart (the real one, and one with the others' secrets dealt
    again) get the same estimate and the same suggestion; the all-seeing estimate tells them apart."""
    game = catalog.game(title)
    planner = Planner(Budget(playouts=3, per_candidate=2, candidates=3), random_policy)
    told_apart = 0
    cases = secret_states(title)
    assert cases, "no state with a secret"
    for k, (state, seat) in enumerate(cases[:: max(1, len(cases) // 3)][:3]):
        twin = determinize(game, state, seat, SeededChance(f"twin-{k}"))
        assert twin != state and game.view(twin, seat) == game.view(state, seat)
        assert planner.estimate(game, state, seat, "t") == planner.estimate(game, twin, seat, "t")
        assert planner.suggest(game, state, "t") == planner.suggest(game, twin, "t")
        told_apart += planner.estimate(game, state, None, "t") != planner.estimate(game, twin, None, "t")
    assert told_apart > 0, "the secrets never changed even the all-seeing estimate: the check proved nothing"


@pytest.mark.parametrize("title", TITLES)
def test_the_reviewer_suggests_a_legal_command_and_estimates_a_whole_table(title: str) -> None:
    """The analysis's reviewer (greedy-lite playouts): a legal suggestion; win chances summing to 1, ranks
    within the table, as many playouts as the budget."""
    game = catalog.game(title)
    state, seat = secret_states(title)[0]
    judge = reviewer(Budget(playouts=2, per_candidate=1, candidates=2, rollout="greedy-lite"))
    command, after = judge.suggest(game, state, "legal")
    assert command in game.legal(state)
    estimate = judge.estimate(game, state, seat, "whole")
    players = len(estimate.win)
    assert estimate.playouts == 2 and abs(sum(estimate.win.values()) - 1) < 1e-9
    assert all(1 <= r <= players for r in estimate.rank.values()) and set(after.win) == set(estimate.win)


def test_the_calibration_sentence_says_the_titles_measured_figures() -> None:
    """The page's sentence reads the figures a title keeps (benchmarks/calibration.py); a title without says so."""
    measured = SimpleNamespace(bot_calibration={"games": 1000, "brier": 0.1523, "leader_brier": 0.2871, "fair_brier": 0.1875,
                                                "favourite_share": 0.1, "favourites": 400, "favourites_predicted": 0.712,
                                                "favourites_won": 0.675})
    said = calibration_sentence(measured)
    assert "1,000 self-play games" in said and "top 10%" in said and "71%" in said and "68%" in said
    assert "0.152" in said and "0.287" in said and "0.188" in said
    assert "not been checked" in calibration_sentence(object())  # type: ignore[arg-type]


def test_the_shown_chances_are_shrunk_by_the_factor_measured_that_far_into_a_game() -> None:
    """Between the phases the calibration measured, the factor runs on a straight line; before the first it is the
    first's, and it reaches 1 (the chances as played out) at the end; the chances still add up to 1 and the seats
    keep their order, and the expected ranks and scores are left as they were."""
    game = SimpleNamespace(bot_calibration={"shrink_by_progress": {"0.25": 0.2, "0.5": 0.4, "0.75": 0.8}})
    assert shrink_at(game, 0.0) == pytest.approx(0.2) and shrink_at(game, 0.25) == pytest.approx(0.2)  # type: ignore[arg-type]
    assert shrink_at(game, 0.375) == pytest.approx(0.3) and shrink_at(game, 0.875) == pytest.approx(0.9)  # type: ignore[arg-type]
    assert shrink_at(game, 1.0) == pytest.approx(1.0) and shrink_at(object(), 0.5) == 1.0  # type: ignore[arg-type]
    raw = Estimate(win={0: 0.7, 1: 0.2, 2: 0.1, 3: 0.0}, rank={0: 1.2, 1: 2.4, 2: 3.0, 3: 3.4},
                   score={0: 40.0, 1: 31.0, 2: 28.0, 3: 20.0}, playouts=12)
    shown = calibrated(game, raw, 0.5)  # type: ignore[arg-type]
    assert shown.win == pytest.approx({0: 0.25 + 0.4 * 0.45, 1: 0.25 - 0.4 * 0.05, 2: 0.25 - 0.4 * 0.15, 3: 0.25 - 0.4 * 0.25})
    assert sum(shown.win.values()) == pytest.approx(1.0)
    assert sorted(shown.win, key=shown.win.__getitem__) == sorted(raw.win, key=raw.win.__getitem__)
    assert shown.rank == raw.rank and shown.score == raw.score and shown.playouts == raw.playouts
    assert calibrated(game, raw, 1.0) == raw  # type: ignore[arg-type]


@pytest.mark.parametrize("title", TITLES)
def test_each_title_names_the_budget_its_suggestions_are_measured_at(title: str) -> None:
    """The analysis suggests with the budget the title keeps in its bot.py (the one benchmarks/planner.py runs
    against the greedy bot), a few candidates on a few deals each; a game naming none gets the kernel's."""
    game = catalog.game(title)
    budget = suggest_budget(game)
    assert budget is game.bot_suggest  # type: ignore[attr-defined]
    assert budget.rollout in {"random", "greedy-lite"} and 2 <= budget.candidates <= 8 and budget.per_candidate >= 2
    assert suggest_budget(object()) is SUGGEST  # type: ignore[arg-type]


@pytest.mark.parametrize("title", TITLES)
def test_a_seat_at_the_table_is_not_sent_back_to_a_recent_state(title: str) -> None:
    """A command whose result the seat has just left is not suggested while another command leads elsewhere."""
    game = catalog.game(title)
    planner = Planner(Budget(playouts=1, per_candidate=1, candidates=2), random_policy)
    state = next(s for s, _ in secret_states(title) if len(game.legal(s)) > 1)
    first, _ = planner.suggest(game, state, "loop")
    _, back = play(game, state, first, SeededChance("loop"))
    again, _ = planner.suggest(game, state, "loop", [back])
    assert again != first
