"""What public answers may not give away (issue 28, part 5): the face-down outcomes and hidden words in an
unfinished notation game's report, and what /verify says of a record's private notes.

Each title's game is played by seeded random moves, rendered in its notation, cut short (no result, so
the game is unfinished) and changed at one line that involves a secret: a blind draw written with two
cards, a War disc its seat does not hold, a Republic card drawn twice, a misspelt move in a game with
hidden money. The report, the replay of the game as checked and its story are read without a token and
with each seat's token, and the serialized answers are searched for the secret's written form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from api.app import create_app
from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records
from domain.records.annotations import notes_id
from domain.records.settings import Settings
from domain.transcripts import MEDIA_TYPE, render_log
from tests.service.conftest import close_app
from tests.service.helpers import auth, play_out_http
from tests.service.test_api import wait_for_verdict
from tests.service.test_chain import rows_of, tamper

NAMES = ["Ada", "Bruno", "Chiara"]


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[tuple[Any, Records]]:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "counts.sqlite3")}
    app = create_app(Settings.from_env(env))
    app.config["TESTING"] = True
    yield app.test_client(), app.extensions["cronaca"].records
    close_app(app)


def written(title: str, options: dict[str, Any], seed: str = "counts-1") -> list[str]:
    game = catalog.game(title)
    edition = game.default_edition()
    played = play_random(game, edition, options, seed)
    return render_log(title, edition, played.entries, NAMES, options).splitlines()


def changed(lines: list[str], line: re.Pattern[str], change: Callable[[re.Match[str]], str], after: int = 2
            ) -> tuple[str, int, re.Match[str]]:
    """The file cut `after` lines past the first line `line` matches, that line changed: (text, its number, match)."""
    k, found = next((k, m) for k, x in enumerate(lines) if (m := line.match(x)) and not lines[k].startswith("Setup"))
    cut = [*lines[:k], change(found), *lines[k + 1 : k + 1 + after]]
    return "\n".join(cut) + "\n", k + 1, found


def owner_of(found: re.Match[str]) -> int:
    return NAMES.index(found.group("player"))


# (title, options, the line, how it is changed, the secrets' written forms as patterns, the rule at that line)
BLIND = re.compile(r"^\s*(?:\d+\. )?(?P<player>\w+): pass \[(?P<card>public_bath|master_builder|bread_and_games|"
                   r"golden_times|rich_harvest|polling_the_people)\]$")
DISC = re.compile(r"^(?P<head>\s*(?:\d+\. )?(?P<player>\w+): .*\bdisc )(?P<value>\d)(?P<tail>.*)$")
SWAP = re.compile(r"^(?P<head>\s*(?:\d+\. )?(?P<player>\w+): .*burn B\d+ \w+ \[B\d+\] )\[(?P<card>R\d+)\](?P<tail>.*)$")
GALLEY = re.compile(r"^(?P<head>\s*(?:\d+\. )?(?P<player>\w+): )galley (?P<tail>\d+ action.*)$")

CASES = {
    "la-citta blind draw": ("la-citta", {"players": 3}, BLIND,
                            lambda m: m.group(0).replace(f"[{m.group('card')}]", f"[{m.group('card')} {m.group('card')}]"),
                            lambda m: [re.escape(m.group("card"))], "chance/draw/count"),
    "citta-stato war disc": ("citta-stato", {"players": 3}, DISC,
                             lambda m: f"{m.group('head')}9{m.group('tail')}",
                             lambda m: [r"(?<!War )disc \d"], "citta-stato/war-disc/not-offered"),
    "citta-stato republic swap": ("citta-stato", {"players": 3}, SWAP,
                                  lambda m: f"{m.group('head')}[{m.group('card')} {m.group('card')}]{m.group('tail')}",
                                  lambda m: [re.escape(m.group("card")) + r"\b"], "chance/draw/count"),
}


def answers(client: Any, import_id: str, token: str | None) -> str:
    """Every answer about the import a reader gets, serialized as it travels."""
    headers = auth(token) if token else {}
    got = [client.get(f"/api/imports/{import_id}{tail}", headers=headers) for tail in ("", "/replay", "/replay/story")]
    assert all(r.status_code == 200 for r in got), [r.get_json() for r in got]
    return "\n".join(r.get_data(as_text=True) for r in got)


def submit(client: Any, text: str) -> tuple[str, list[str], dict[str, Any]]:
    answer = client.post("/api/imports", data=text.encode(), content_type=MEDIA_TYPE)
    assert answer.status_code == 202, answer.get_json()
    body = answer.get_json()
    return body["id"], [s["token"] for s in body["seats"]], wait_for_verdict(client, body["id"])


@pytest.mark.parametrize("case", list(CASES))
def test_an_unfinished_files_face_down_outcomes_are_their_seats_alone(app_client: tuple[Any, Records], case: str) -> None:
    client, _ = app_client
    title, options, line, change, secrets_of, rule = CASES[case]
    text, number, found = changed(written(title, options), line, change)
    owner = owner_of(found)
    import_id, tokens, verdict = submit(client, text)
    assert verdict["status"] == "rejected" and verdict["report"]["finished"] is False
    at = [f for f in verdict["report"]["findings"] if f["line"] == number]
    assert [f["rule"] for f in at] == [rule] and at[0]["seat"] == owner, verdict["report"]["findings"]
    secrets = [re.compile(p) for p in secrets_of(found)]

    public = answers(client, import_id, None)
    assert not [s.pattern for s in secrets if s.search(public)], public
    mine = answers(client, import_id, tokens[owner])
    assert all(s.search(mine) for s in secrets)  # its seat reads what it wrote, and the facts of it
    mine_report = client.get(f"/api/imports/{import_id}", headers=auth(tokens[owner])).get_json()["report"]
    own = next(f for f in mine_report["findings"] if f["line"] == number)["written"]
    assert own in change(found)  # its seat reads its move as written
    assert at[0]["written"] != own and ("[?]" in at[0]["written"] or "disc ?" in at[0]["written"])  # the public: hidden
    for seat, token in enumerate(tokens):
        if seat != owner:
            seen = answers(client, import_id, token)
            assert not [s.pattern for s in secrets if s.search(seen)], (seat, seen)


def test_a_blind_draw_nobody_wrote_down_keeps_its_candidates_to_its_seat(app_client: tuple[Any, Records]) -> None:
    """`[?]` for a face-down card: the report narrows it from what follows, and only its seat reads what it could be."""
    client, _ = app_client
    text, number, found = changed(written("la-citta", {"players": 3}), BLIND,
                                  lambda m: m.group(0).replace(f"[{m.group('card')}]", "[?]"))
    owner = owner_of(found)
    import_id, tokens, verdict = submit(client, text)
    unknown = next(u for u in verdict["report"]["unknowns"] if u["line"] == number)
    assert unknown["source"] == "politics" and unknown["consistent"] == {"hidden": True} and unknown["assumed"] == "[?]"
    mine = client.get(f"/api/imports/{import_id}", headers=auth(tokens[owner])).get_json()["report"]
    own = next(u for u in mine["unknowns"] if u["line"] == number)
    assert isinstance(own["consistent"], list) and own["assumed"] != "[?]"
    other = client.get(f"/api/imports/{import_id}", headers=auth(tokens[(owner + 1) % 3])).get_json()["report"]
    assert next(u for u in other["unknowns"] if u["line"] == number) == unknown


def test_hidden_money_stays_with_its_seat_in_a_finding(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    options = {"players": 3, "money": "hidden"}
    text, number, found = changed(written("serenissima", options), GALLEY, lambda m: f"{m.group('head')}galey {m.group('tail')}")
    owner = owner_of(found)
    import_id, tokens, verdict = submit(client, text)
    finding = next(f for f in verdict["report"]["findings"] if f["line"] == number)
    assert finding["rule"] == "notation/move" and finding["held"] == {"hidden": True}
    mine = client.get(f"/api/imports/{import_id}", headers=auth(tokens[owner])).get_json()["report"]
    ducats = next(f for f in mine["findings"] if f["line"] == number)["held"]["ducats"]
    assert isinstance(ducats, int)
    pattern = re.compile(rf'"ducats": ?{ducats}\b')
    assert pattern.search(json.dumps(mine))
    assert not pattern.search(answers(client, import_id, None))
    for seat, token in enumerate(tokens):
        if seat != owner:
            theirs = client.get(f"/api/imports/{import_id}", headers=auth(token)).get_json()["report"]
            assert next(f for f in theirs["findings"] if f["line"] == number)["held"] == {"hidden": True}


# ---- /verify of a game in progress: nothing of a private note --------------------------------------------------

KEY = "annotator-key-of-the-counts-test"


def with_notes(client: Any, records: Records, private: bool) -> tuple[str, list[str]]:
    """A Città-Stato record in progress, two moves in, with one note for everyone; with `private`, also a note of
    seat 0's own, one the annotator wrote for seat 1, and a private note edited, and one deleted."""
    record_id, tokens = records.play.start("citta-stato", NAMES, seed="counts-verify", annotator_key=KEY)
    assert play_out_http(client, str(record_id), tokens, limit=2, must_finish=False) == 2
    notes = f"/api/records/{record_id}/annotations"
    assert client.post(notes, json={"step": 1, "text": "for everyone"}, headers=auth(KEY)).status_code == 201
    if private:
        mine = client.post(notes, json={"step": 2, "text": "Bruno bluffs", "audience": 0}, headers=auth(tokens[0]))
        assert mine.status_code == 201, mine.get_json()
        assert client.post(notes, json={"step": 2, "text": "for Bruno", "audience": 1}, headers=auth(KEY)).status_code == 201
        gone = client.post(notes, json={"step": 1, "text": "oops", "audience": 0}, headers=auth(tokens[0])).get_json()
        assert client.patch(f"{notes}/{mine.get_json()['id']}", json={"text": "Bruno bluffs twice"},
                            headers=auth(tokens[0])).status_code == 200
        assert client.delete(f"{notes}/{gone['id']}", headers=auth(tokens[0])).status_code == 204
    return str(record_id), tokens


def without_heads(answer: Any) -> Any:
    """A /verify answer without the record chain's head: a keyed hash, different at every record."""
    if isinstance(answer, dict):
        return {k: without_heads(v) for k, v in answer.items() if k != "head"}
    if isinstance(answer, list):
        return [without_heads(v) for v in answer]
    return answer


def test_verify_in_progress_tells_the_public_nothing_of_private_notes(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    plain, plain_tokens = with_notes(client, records, private=False)
    noted, tokens = with_notes(client, records, private=True)
    public = [client.get(f"/api/records/{r}/verify") for r in (plain, noted)]
    assert all(r.status_code == 200 for r in public)
    # the same length, and the same bytes but for the game chain's head (each record draws its own chain key)
    assert len(public[0].get_data()) == len(public[1].get_data())
    assert without_heads(public[0].get_json()) == without_heads(public[1].get_json())
    answer = public[0].get_json()
    assert answer["ok"] and answer["streams"]["notes"] == {"ok": True, "view_of": "public", "events": 1, "problems": []}
    assert "length" not in answer["streams"]["notes"] and "head" not in answer["streams"]["notes"]

    own = client.get(f"/api/records/{noted}/verify", headers=auth(tokens[0])).get_json()["streams"]["notes"]
    assert own == {"ok": True, "view_of": "seat:0", "events": 1 + 4, "problems": []}  # its own notes' events, verified
    other = client.get(f"/api/records/{noted}/verify", headers=auth(tokens[1])).get_json()["streams"]["notes"]
    assert other["events"] == 2  # the public note and the one written for seat 1, none of seat 0's
    assert client.get(f"/api/records/{plain}/verify", headers=auth(plain_tokens[0])).get_json()["streams"]["notes"][
        "events"] == 1


def test_verify_in_progress_without_a_public_note_shows_no_notes_stream(app_client: tuple[Any, Records]) -> None:
    client, records = app_client
    record_id, tokens = records.play.start("citta-stato", NAMES, seed="counts-verify-2", annotator_key=KEY)
    before = client.get(f"/api/records/{record_id}/verify").get_data()
    made = client.post(f"/api/records/{record_id}/annotations", json={"step": 1, "text": "mine", "audience": 2},
                       headers=auth(tokens[2]))
    assert made.status_code == 201, made.get_json()
    assert client.get(f"/api/records/{record_id}/verify").get_data() == before
    assert "notes" not in client.get(f"/api/records/{record_id}/verify").get_json()["streams"]
    assert client.get(f"/api/records/{record_id}/verify", headers=auth(tokens[2])).get_json()["streams"]["notes"][
        "events"] == 1


def test_a_changed_private_note_is_said_to_the_public_without_where(app_client: tuple[Any, Records], tmp_path: Path) -> None:
    """Tampering is no seat's secret: the public verdict fails, but names no version, event or count."""
    client, records = app_client
    record_id, tokens = with_notes(client, records, private=True)
    stream = notes_id(UUID(record_id))
    version = next(v for v, topic, p in rows_of(records, stream)
                   if topic.endswith("Annotated") and p["note"]["audience"] == 0)

    def change(state: dict[str, Any]) -> dict[str, Any]:
        state["note"]["text"] = "Bruno never bluffs"
        return state

    tamper(records, {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "counts.sqlite3")},
           stream, version, change)
    public = client.get(f"/api/records/{record_id}/verify").get_json()
    assert public["ok"] is False and public["streams"]["notes"]["events"] == 1
    (problem,) = public["streams"]["notes"]["problems"]
    assert problem["event"] is None and not re.search(r"\d", problem["what"])
    own = client.get(f"/api/records/{record_id}/verify", headers=auth(tokens[0])).get_json()["streams"]["notes"]
    assert [p["event"] for p in own["problems"]] == ["Annotated"] and own["ok"] is False
