"""The greedy bot: its games are legal for every title, it outplays random play, it cannot see the
table's chance, it never loops, and a solo report is read by the scenario's terms."""

from __future__ import annotations

from statistics import mean

import pytest

from domain import catalog
from domain.kernel import SeededChance, play, replay
from domain.kernel.bots import GreedyBot, play_bot, progress, solo_value
from domain.kernel.selfplay import PlayedGame, play_random

from .toy_game import GAME as TOY
from .toy_game import Draw, Roll

TITLES = sorted(catalog.TITLES)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("title", TITLES)
def test_bot_games_replay_as_legal(title: str, players: int) -> None:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_bot(game, edition, {"players": players}, f"bot-legal-{title}-{players}")
    assert game.pending(played.state).over and played.scores["finished"]
    report, state = replay(game, edition, played.entries)  # every choice re-decided, every outcome checked
    assert report.ok, report
    assert report.entries == len(played.entries) and report.events == played.event_count
    assert game.scores(state) == played.scores


def winner_score(p: PlayedGame) -> float:
    totals = {row["seat"]: row["total"] for row in p.scores["seats"]}
    return totals[p.scores["ranking"][0]]


def seat_score(p: PlayedGame, seat: int) -> float:
    return next(row["total"] for row in p.scores["seats"] if row["seat"] == seat)


@pytest.mark.parametrize("title", TITLES)
def test_the_bot_outscores_random_play(title: str) -> None:
    """The same seeds, played by the bot at every seat and at random: the bot's winners score more,
    and a bot seated against a random player scores more than it does."""
    game = catalog.game(title)
    edition = game.default_edition()
    seeds = [f"bot-vs-random-{title}-{k}" for k in range(3)]
    bots = [play_bot(game, edition, {"players": 2}, s) for s in seeds]
    randoms = [play_random(game, edition, {"players": 2}, s) for s in seeds]
    assert mean(map(winner_score, bots)) > mean(map(winner_score, randoms)) + 2
    mixed = [play_bot(game, edition, {"players": 2}, s, seats=[k % 2]) for k, s in enumerate(seeds)]
    bot_seats = [seat_score(p, k % 2) for k, p in enumerate(mixed)]
    random_seats = [seat_score(p, 1 - k % 2) for k, p in enumerate(mixed)]
    assert mean(bot_seats) > mean(random_seats)


def test_games_vary_with_the_seed_and_repeat_with_it() -> None:
    game = catalog.game("citta-stato")
    edition = game.default_edition()
    a, b = (play_bot(game, edition, {"players": 2}, s) for s in ("bot-same", "bot-other"))
    again = play_bot(game, edition, {"players": 2}, "bot-same")
    assert [e.command for e in again.entries] == [e.command for e in a.entries]
    assert [e.command for e in a.entries] != [e.command for e in b.entries]


def test_the_bot_cannot_see_the_tables_dice() -> None:
    """With a draw (1 to 3 points) on offer, a bot that saw the table's die would never roll a 1 (0 points)."""
    edition = TOY.default_edition()
    busts = rolls = 0
    for k in range(40):
        played = play_bot(TOY, edition, {"players": 2}, f"toy-peek-{k}", seats=[0])
        state = TOY.begin(edition)
        for e in played.entries[0].events:
            state = TOY.evolve(state, e)
        for entry in played.entries[1:]:
            if entry.command["seat"] == 0 and len(TOY.legal(state)) == 2 and entry.command["type"] == "toy/roll":
                rolls += 1
                busts += entry.outcomes[0].values == (1,)
            for e in entry.events:
                state = TOY.evolve(state, e)
    assert rolls > 10 and busts > 0


def test_a_command_back_to_a_recent_state_is_avoided() -> None:
    """The bot prefers the better command, unless it leads back to a state the game has just been in."""
    edition = TOY.default_edition()
    state = TOY.begin(edition)
    for e in TOY.setup(edition, {"players": 2}, SeededChance("toy")):
        state = TOY.evolve(state, e)
    # a thinking key under which the imagined die shows 1: rolling looks worse than drawing
    think = next(t for t in (f"think-{k}" for k in range(100)) if SeededChance(t).roll("die", 1) == (1,))
    bot = GreedyBot()
    assert bot.choose(TOY, state, SeededChance("ties"), think) == Draw(0)
    _, after_draw = play(TOY, state, Draw(0), SeededChance(think))
    assert bot.choose(TOY, state, SeededChance("ties"), think, recent=[after_draw]) == Roll(0)
    _, after_roll = play(TOY, state, Roll(0), SeededChance(think))
    assert bot.choose(TOY, state, SeededChance("ties"), think, recent=[after_draw, after_roll]) == Draw(0)


def test_progress_is_read_from_an_objectives_value_and_target() -> None:
    assert progress({"B": 1, "W": 0}, {"B": 1, "W": 1}) == 0.5
    assert progress({"B": 3, "W": 2}, {"B": 1, "W": 1}) == 1.0  # more than asked counts as asked
    assert progress({"Y": 1, "W": 0, "G": 2}, ["Y", "W", "G"]) == pytest.approx(2 / 3)
    assert progress(3, 5) == 0.6 and progress(9, 5) == 1.0
    assert progress("OLI", "DOG") == 0.0


def test_a_solo_report_puts_winning_before_objectives_before_points() -> None:
    def report(score: int, met: list[bool], won: bool = False, finished: bool = False) -> dict:
        objectives = [{"objective": "x", "target": 1, "value": int(m), "met": m} for m in met]
        return {"required_score": 20, "score": score, "objectives": objectives, "won": won, "finished": finished}

    won = solo_value(report(20, [True, True], won=True, finished=True), 0)
    lost_high = solo_value(report(40, [True, False], finished=True), 0)
    assert won > lost_high
    assert solo_value(report(0, [True, False]), 5) > solo_value(report(0, [False, False]), 20)  # an objective beats points
    assert solo_value(report(0, [True]), 19) > solo_value(report(0, [True]), 12)  # mid-game: the seat's points count
    assert solo_value(report(0, [True]), 30) - solo_value(report(0, [True]), 20) < 10 - 1  # past the target, less
