"""A replay may stop at any step: view, pending and scores answer at every prefix of random games,
name a seat exactly at the ends of log entries, and still keep each seat's secrets."""

from __future__ import annotations

import json

import pytest

from domain.kernel import AUTOMATIC, GAME_OVER, ObservedChance, RuleViolation
from domain.kernel.selfplay import play_random
from domain.la_citta import GAME, rules
from tests.la_citta.helpers import ED

GAMES = 2  # per player count and setup kind


def _check_secrets(state, views: list[dict]) -> None:
    """A face-down voice card shows only to a seat that polled it and in the review view (until the tally reveals all);
    a blind draw stays face-down in every view, the review view included."""
    for seat, view in enumerate(views, start=-1):
        who = None if seat < 0 else seat
        for i, shown in enumerate(view["voice"]["face_down"]):
            if who is None and not state.voice:  # the review view hides nothing: every polled card, the rest undrawn
                assert shown == (state.voice_down[i] or "undrawn"), i
            elif shown is not None and not state.voice:
                assert who in state.voice_seen[i] and shown == state.voice_down[i], (who, i)
        for p, pile in enumerate(state.played):
            rendered = view["seats"][p]["played"]
            assert len(rendered) == len(pile)
            for (card, blind), out in zip(pile, rendered, strict=True):
                assert out == (("face-down" if card else "none: deck empty") if blind else card)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("setup", ["beginner", "experienced"])
def test_every_prefix_answers(players, setup):
    for k in range(GAMES):
        played = play_random(GAME, ED, {"players": players, "setup": setup, "start": k % players}, f"pfx-{setup}-{players}-{k}")
        ends = set()
        step = 0
        for entry in played.entries:
            step += len(entry.events)
            ends.add(step)
        events = [e for entry in played.entries for e in entry.events]
        assert step == len(events) and played.scores["finished"]
        next_command = {}  # a step inside an entry -> that entry's command, which must wait for the entry's end
        step = len(played.entries[0].events)
        for entry in played.entries[1:]:
            for i in range(step + 1, step + len(entry.events)):
                next_command[i] = entry.command
            step += len(entry.events)

        state = GAME.begin(ED)
        automatic = 0
        for i in range(len(events) + 1):
            views = [GAME.view(state, None)] + [GAME.view(state, seat) for seat in range(state.players)]
            pend = GAME.pending(state)
            scores = GAME.scores(state)
            for out in (*views, pend.to_json(), scores):
                assert json.loads(json.dumps(out)) == out, "JSON-serialisable and plain"
            assert all(v["round"] == state.year and type(v["round"]) is int for v in views)
            assert all(v["pending"] == pend.to_json() for v in views)
            assert scores["finished"] == (i == len(events))
            assert len(scores["seats"]) == state.players
            _check_secrets(state, views)
            if i not in ends:
                automatic += 1
                assert pend.seat is None and pend.kind == AUTOMATIC, (i, pend)
                assert GAME.legal(state) == []
                if i in next_command:
                    with pytest.raises(RuleViolation) as refused:
                        GAME.decide(state, GAME.parse_command(next_command[i]), ObservedChance([]))
                    assert refused.value.rule == "la-citta/automatic"
            elif i == len(events):
                assert pend.kind == GAME_OVER and pend.seat is None
            else:
                assert pend.seat is not None and 0 <= pend.seat < players and pend.kind not in (AUTOMATIC, GAME_OVER), (i, pend)
                assert pend.seat == rules.who(state)[0]
            if i < len(events):
                state = GAME.evolve(state, events[i])
        assert automatic > len(played.entries), "mid-command steps were met"
