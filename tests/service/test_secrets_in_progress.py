"""Secrets of a record in progress, probed as a player holding one seat token or a spectator holding none: a guess of
another seat's secret must get the same answer whether it is right or wrong (issue: nothing public confirms a guess
before the game is over). Each probe plays two tables that differ only in a secret."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from api import cli
from domain import catalog
from domain.kernel import Entry, MalformedCommand, Outcome, RuleViolation, SeededChance, play
from domain.kernel.review import determinize
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.settings import Settings
from tests.service import test_probes_beyond
from tests.service.helpers import auth
from tests.service.test_api import wait_for_verdict
from tests.service.test_probes_beyond import every_read

SEATS = ["Ada", "Bruno", "Chiara"]


app_client = test_probes_beyond.app_client  # the fixture, used by name: an app on a fresh SQLite store, its records


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


def every_public_path(client: Any, record_id: str, headers: dict[str, str], since: int) -> dict[str, Any]:
    """Beyond `test_probes_beyond.every_read`: the board as a picture at every step from `since` (bytes, length, ETag),
    the record and embed pages, the live stream's first message, what a record in progress refuses (its notation,
    export, evidence bundle and analysis), and a step asked with a query that names another view; each with its
    status and bytes (the record's id taken out)."""
    def got(method: str, path: str) -> tuple[int, bytes, str | None, str | None]:
        answer = client.open(path, method=method, headers=headers, **({"json": {}} if method == "POST" else {}))
        raw = answer.get_data()
        tag = answer.headers.get("ETag")
        if tag == f'"{hashlib.sha1(raw, usedforsecurity=False).hexdigest()}"':
            tag = "<the digest of these bytes>"  # a page naming its record (a link preview): compared as its bytes are
        return answer.status_code, raw.replace(record_id.encode(), b"<id>"), tag, answer.headers.get("Content-Length")

    steps = client.get(f"/api/records/{record_id}", headers=headers).get_json()["steps"]
    paths = [f"/api/records/{record_id}/steps/{n}/board.png" for n in range(since, steps + 1)]
    paths += [f"/records/{record_id}", f"/embed/records/{record_id}", *(f"/api/records/{record_id}/{end}" for end in
                                                                      ("notation", "export", "evidence", "analysis"))]
    paths += [f"/api/records/{record_id}/steps/{steps}?{query}" for query in ("seat=1", "view=all", "view_of=all")]
    reads: dict[str, Any] = {path.replace(record_id, "<id>"): got("GET", path) for path in paths}
    reads["POST analysis"] = got("POST", f"/api/records/{record_id}/analysis")
    stream = client.get(f"/api/records/{record_id}/live", headers=headers, buffered=False)
    reads["live"] = (stream.status_code, next(iter(stream.response)))
    stream.close()
    return reads


def war_disc() -> tuple[str, Any, int, Entry, Entry, int]:
    """Città-Stato: seat 1 places a War disc face down, the value in its command itself; or another value it holds."""
    game = catalog.game("citta-stato")
    played = play_random(game, game.default_edition(), {"players": 3}, "diff")
    k = next(k for k, e in enumerate(played.entries) if (e.command or {}).get("type") == "citta-stato/war-disc")
    war = played.entries[k]
    assert war.command is not None and war.command["value"] != 2
    return "citta-stato", played, k, war, Entry({**war.command, "value": 2}, (), ()), war.command["seat"]


def voice_poll() -> tuple[str, Any, int, Entry, Entry, int]:
    """La Città: seat 2 polls two face-down voice-of-the-people cards (only it sees them); or the same two the other
    way round."""
    game = catalog.game("la-citta")
    played = play_random(game, game.default_edition(), {"players": 3}, "p2")
    k = next(k for k, e in enumerate(played.entries) if (e.command or {}).get("type") == "la-citta/poll")
    poll = played.entries[k]
    seen, *rest = poll.outcomes
    assert poll.command is not None and seen.source == "voice" and len(set(seen.values)) == 2
    swapped = Outcome(seen.kind, seen.source, tuple(reversed(seen.values)))
    return "la-citta", played, k, poll, Entry(poll.command, (swapped, *rest), ()), poll.command["seat"]


@pytest.mark.parametrize("twins", [war_disc, voice_poll], ids=["citta-stato war disc", "la-citta voice poll"])
def test_a_secret_in_the_last_command_changes_no_byte_nor_log_of_what_others_read(
        app_client: tuple[Any, Records], caplog: pytest.LogCaptureFixture, twins: Any) -> None:
    """Two tables whose last command differs only in a secret of its seat (a War disc's value, which voice cards a
    poll saw): the public and every other seat must read the same bytes, lengths and entity tags on every path
    (test_probes_beyond's reads, the board pictures, the pages, the live stream, the refusals of what waits for the
    end, a step asked as another view), and the service must log the same lines at both; the seat itself reads its
    secret (the comparison can tell)."""
    client, records = app_client
    title, played, k, last, other, owner = twins()
    setup = [o.to_json() for o in played.entries[0].outcomes]
    caplog.set_level(logging.DEBUG)
    tables = []
    for final in (last, other):
        record_id, tokens = records.play.start(title, SEATS, {"players": 3}, mode="transcribed", setup_outcomes=setup)
        before = records.reading.summary(record_id).steps
        for entry in played.entries[1:k]:
            records.play.command(record_id, dict(entry.command), tokens[entry.command["seat"]],
                                 outcomes=[o.to_json() for o in entry.outcomes])
        since = records.reading.summary(record_id).steps
        assert since > before
        caplog.clear()
        sent = client.post(f"/api/records/{record_id}/commands", headers=auth(tokens[owner]),
                           json={"command": dict(final.command), "outcomes": [o.to_json() for o in final.outcomes]})
        assert sent.status_code == 200, sent.get_json()
        readers = [("public", {}), *((f"seat {i}", auth(t)) for i, t in enumerate(tokens))]
        reads = {reader: (every_read(client, record_id, headers), every_public_path(client, str(record_id), headers, since))
                 for reader, headers in readers}
        logged = [r.getMessage().replace(str(record_id), "<id>") for r in caplog.records]
        tables.append((reads, logged))
        assert str(record_id) not in client.get("/metrics").get_data(as_text=True)  # no record is a label
    (first, logged), (second, logged_2) = tables
    for reader in first:
        if reader != f"seat {owner}":
            for part in (0, 1):
                differs = [path for path in first[reader][part] if first[reader][part][path] != second[reader][part][path]]
                assert differs == [], (reader, differs)
    assert first[f"seat {owner}"][0] != second[f"seat {owner}"][0]  # its own secret: the reads can tell them apart
    assert logged == logged_2
    public = first["public"][1]
    assert public["live"][0] == 200 and b'"finished":false' in public["live"][1]
    assert {public[f"/api/records/<id>/{end}"][0] for end in ("notation", "export", "evidence")} == {403}
    assert public["POST analysis"][0] == 409


def test_the_command_lines_render_of_a_record_in_progress_asks_for_in_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`cronaca render RECORD_ID` printed a record in progress whole (every Republic card, every draw) to whoever ran
    it, as the API's `/notation` refuses to: now it refuses the same way, unless `--in-progress` says the operator
    means it (a finished record's notation is public, as `/notation` serves it)."""
    store = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "cli.sqlite3")}
    for name, value in store.items():
        monkeypatch.setenv(name, value)
    records = Records(Settings.from_env(store).store)
    try:
        game = catalog.game("citta-stato")
        played = play_random(game, game.default_edition(), {"players": 3}, "diff")
        setup = [o.to_json() for o in played.entries[0].outcomes]
        record_id, tokens = records.play.start("citta-stato", SEATS, {"players": 3}, mode="transcribed",
                                               setup_outcomes=setup)
        for entry in played.entries[1:6]:
            assert entry.command is not None
            records.play.command(record_id, dict(entry.command), tokens[entry.command["seat"]],
                                 outcomes=[o.to_json() for o in entry.outcomes])
    finally:
        records.close()
    with pytest.raises(SystemExit) as refused:
        cli.main(["render", str(record_id)])
    said = capsys.readouterr()
    assert refused.value.code == 2 and "--in-progress" in said.err and "R8" not in said.out + said.err
    assert cli.main(["render", str(record_id), "--in-progress"]) == 0
    assert "R8" in capsys.readouterr().out  # seat 0's Republic card: the operator asked for it


TITLES = [("citta-stato", {"players": 3}), ("la-citta", {"players": 3}), ("serenissima", {"players": 3, "money": "hidden"})]


def judged(game: Any, state: Any, command: Any, k: int) -> str:
    """How the rules answer a command, as its own seat reads the answer: accepted, or the refusal's rule, words and
    facts (the chance the same for every state compared)."""
    try:
        play(game, state, command, SeededChance(f"judged/{k}"))
    except RuleViolation as exc:
        return json.dumps(exc.to_json(command.seat), sort_keys=True)
    return "accepted"


def near(command: dict[str, Any]) -> list[dict[str, Any]]:
    """A command and the ones a number away from it: guesses a seat may send that the rules may refuse."""
    return [command, *({**command, k: v + d} for k, v in command.items()
                       if isinstance(v, int) and not isinstance(v, bool) and k != "seat" for d in (-1, 1))]


@pytest.mark.parametrize(("title", "options"), TITLES, ids=[t for t, _ in TITLES])
def test_a_seats_commands_are_judged_alike_in_every_state_it_cannot_tell_apart(title: str, options: dict[str, Any]) -> None:
    """The deciding seat's commands (each legal one and its near misses) are accepted or refused with the same rule,
    words and facts in the game as it is and in the same game with every secret the seat cannot see dealt again
    (the title's `determinize`: other seats' bags, discs, Republic cards, face-down cards, hidden purses); its legal
    commands and their words are the same too. Otherwise a command would be a way to confirm a guess. The planner's
    deals make the twins: a title whose deals changed nothing would test nothing, so some must differ."""
    game = catalog.game(title)
    played = play_random(game, game.default_edition(), options, "twins")
    state = game.begin(game.default_edition())
    dealt = 0
    for k, entry in enumerate(played.entries):
        deciding = game.pending(state).seat
        if k and k % 3 == 0 and deciding is not None:
            twin = determinize(game, state, deciding, SeededChance(f"twin/{k}"))
            assert game.view(twin, deciding) == game.view(state, deciding)
            dealt += twin != state
            legal = [c.to_json() for c in game.legal(state)]
            assert [c.to_json() for c in game.legal(twin)] == legal, k
            words = catalog.choices(title)
            assert ([o.to_json(c) for o, c in zip(words(twin, legal, SEATS), legal, strict=True)]
                    == [o.to_json(c) for o, c in zip(words(state, legal, SEATS), legal, strict=True)]), k
            for sent in {json.dumps(m, sort_keys=True): m for c in legal[:12] for m in near(c)}.values():
                try:
                    command = game.parse_command(sent)
                except MalformedCommand:
                    continue
                assert judged(game, state, command, k) == judged(game, twin, command, k), (k, sent)
        for event in entry.events:
            state = game.evolve(state, event)
    assert dealt, "the deals changed no state: nothing was compared"


def test_no_key_but_a_seats_own_token_opens_a_seats_view_of_a_record_in_progress(app_client: tuple[Any, Records]) -> None:
    """A forged token, another record's seat token and table key, this record's annotator, arbiter and table keys,
    and a malformed Authorization header, on the reads that answer a seat its view: none reads a seat's view of a
    record in progress (403 or 401; the table key reads the public's), and a seat's own token reads only its own."""
    client, _ = app_client
    started = []
    for _ in range(2):
        made = client.post("/api/records", json={"title": "citta-stato", "seats": SEATS, "mode": "transcribed",
                                                 "setup_outcomes": [o.to_json() for o in setup_of("citta-stato")]})
        assert made.status_code == 201, made.get_json()
        started.append(made.get_json())
    mine, other = started
    record_id = mine["id"]
    reads = [f"/api/records/{record_id}/steps/1", f"/api/records/{record_id}/steps/1/board.png",
             f"/api/records/{record_id}/legal", f"/api/records/{record_id}/story", f"/api/records/{record_id}/events"]
    public = {path: client.get(path).get_data() for path in reads}
    refused = {"forged": auth("x" * 43), "another record's seat": auth(other["seats"][0]["token"]),
               "another record's table": auth(other["table_key"]), "annotator": auth(mine["annotator_key"]),
               "arbiter": auth(mine["arbiter_key"])}
    for who, headers in [*refused.items(), ("malformed", {"Authorization": "Basic eA=="})]:
        for path in reads[:3]:  # 15 wrong credentials: within an address's budget of 20 a minute (api/throttle.py)
            answer = client.get(path, headers=headers)
            assert answer.status_code in (401, 403), (who, path, answer.status_code)
    for path in reads:  # the table key reads the public's; its /legal lists the decision too (it enters it)
        if not path.endswith("/legal"):
            assert client.get(path, headers=auth(mine["table_key"])).get_data() == public[path], path
    views = [client.get(f"/api/records/{record_id}/steps/1", headers=auth(s["token"])).get_json() for s in mine["seats"]]
    assert [v["view_of"] for v in views] == ["seat:0", "seat:1", "seat:2"]
    assert [[s["republic"] is not None for s in v["view"]["seats"]] for v in views] == [
        [True, False, False], [False, True, False], [False, False, True]]


def setup_of(title: str) -> list[Outcome]:
    game = catalog.game(title)
    return list(play_random(game, game.default_edition(), {"players": 3}, "diff").entries[0].outcomes)
