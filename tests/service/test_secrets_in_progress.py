"""Secrets of a record in progress, probed as a player holding one seat token or a spectator holding none: a guess of
another seat's secret must get the same answer whether it is right or wrong (issue: nothing public confirms a guess
before the game is over). Each probe plays two tables that differ only in a secret."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from domain import catalog
from domain.kernel import Entry, Outcome
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import auth
from tests.service.test_api import wait_for_verdict

SEATS = ["Ada", "Bruno", "Chiara"]


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[tuple[Any, Records]]:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "secrets.sqlite3")}
    app = create_app(Settings.from_env(env))
    app.config["TESTING"] = True
    yield app.test_client(), app.extensions["cronaca"].records
    close_app(app)


def unfinished_file(title: str, entries: list[Entry], options: dict[str, Any]) -> dict[str, Any]:
    """A table's transcription of a game in progress, as it is imported to go on with it."""
    edition = catalog.game(title).default_edition()
    return {"format": "cronaca-record", "version": 1, "title": title, "edition": edition.ref,
            "seats": [{"name": n} for n in SEATS], "options": options, "mode": "transcribed", "chance": {},
            "entries": [e.to_json() for e in entries], "finished": False}


def imported(client: Any, document: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """`POST /api/imports`, judged: the record id and the submit answer (its seat tokens and keys)."""
    sent = client.post("/api/imports", json=document)
    assert sent.status_code == 202, sent.get_json()
    verdict = wait_for_verdict(client, sent.get_json()["id"])
    assert verdict["status"] == "accepted", verdict
    return verdict["record_id"], sent.get_json()


def answer_of(response: Any, record_id: str) -> tuple[int, str]:
    return response.status_code, response.get_data(as_text=True).replace(record_id, "<id>")


def test_a_seat_entering_its_own_draw_cannot_test_a_guess_of_a_blind_card(app_client: tuple[Any, Records]) -> None:
    """La Città, a game in progress imported to go on with it: seat 0 drew a politics card blind (nobody sees it until
    the year's end). Seat 1, with its own token, enters its next draw from the same deck as the one card of its kind
    left before the blind draw (a palace). Were the outcome checked against the deck, a 422 "not there" would confirm
    that the blind card is the palace and a 200 that it is not. The answer must be the same at a table where the blind
    card was the palace and at one where it was the cathedral; the table's device (the import's table key) enters it."""
    client, _ = app_client
    game = catalog.game("la-citta")
    played = play_random(game, game.default_edition(), {"players": 3}, "diff")
    k = next(k for k, e in enumerate(played.entries)
             if (e.command or {}).get("type") == "la-citta/blind-draw" and len(e.outcomes) == 1)
    blind, after = played.entries[k], played.entries[k + 1]
    assert after.command is not None and blind.command is not None
    assert [o.source for o in after.outcomes] == ["politics"] and after.command["seat"] != blind.command["seat"]
    answers, keys = [], []
    for card in ("palace", "cathedral"):  # each the only one of its kind left in the deck before the blind draw
        drawn = Entry(blind.command, (Outcome("draw", "politics", (card,)),), ())
        record_id, sent = imported(client, unfinished_file("la-citta", [*played.entries[:k], drawn], {"players": 3}))
        guess = {"command": dict(after.command), "outcomes": [{"kind": "draw", "source": "politics", "values": ["palace"]}]}
        token = sent["seats"][after.command["seat"]]["token"]
        answers.append(answer_of(client.post(f"/api/records/{record_id}/commands", json=guess, headers=auth(token)),
                                 record_id))
        keys.append((record_id, sent.get("table_key"), guess))
    assert answers[0] == answers[1], answers
    assert answers[0][0] == 403 and '"chance/hidden-pool"' in answers[0][1]  # refused before it is compared
    record_id, table_key, guess = keys[1]
    assert table_key, "an unfinished file's import hands out a table key, to enter what the seats may not see"
    entered = client.post(f"/api/records/{record_id}/commands", json=guess, headers=auth(table_key))
    assert entered.status_code == 200, entered.get_json()


def test_an_ask_checks_no_outcome_from_a_pool_the_seat_may_not_see(app_client: tuple[Any, Records]) -> None:
    """`POST /asks` stores nothing, so checking a seat's outcome from a hidden pool would be a free guess at it: on a
    record without a table key (made before imports handed one out, or by `Play.start`), seat 1's guess that the one
    palace is still in the politics deck got 422 "not there" where seat 0's blind card was the palace and `{"ask":
    null}` where it was not. Both tables must answer the same, naming the pool and nothing in it."""
    client, records = app_client
    game = catalog.game("la-citta")
    played = play_random(game, game.default_edition(), {"players": 3}, "diff")
    setup = [o.to_json() for o in played.entries[0].outcomes]
    k = next(k for k, e in enumerate(played.entries)
             if (e.command or {}).get("type") == "la-citta/blind-draw" and len(e.outcomes) == 1)
    blind, after = played.entries[k], played.entries[k + 1]
    assert after.command is not None and blind.command is not None
    answers = []
    for card in ("palace", "cathedral"):
        record_id, tokens = records.play.start("la-citta", SEATS, {"players": 3}, mode="transcribed",
                                               setup_outcomes=setup)
        for entry in [*played.entries[1:k], Entry(blind.command, (Outcome("draw", "politics", (card,)),), ())]:
            assert entry.command is not None
            records.play.command(record_id, dict(entry.command), tokens[entry.command["seat"]],
                                 outcomes=[o.to_json() for o in entry.outcomes])
        guess = {"command": dict(after.command), "outcomes": [{"kind": "draw", "source": "politics", "values": ["palace"]}]}
        asked = client.post(f"/api/records/{record_id}/asks", json=guess, headers=auth(tokens[after.command["seat"]]))
        answers.append(answer_of(asked, str(record_id)))
    assert answers[0] == answers[1], answers
    assert answers[0][0] == 403 and '"chance/hidden-pool"' in answers[0][1] and "palace" not in answers[0][1]
