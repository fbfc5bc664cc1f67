"""Seat names as people write them, end to end: every name the API accepts comes back through the notation
(`GET /api/records/{id}/notation`, `cronaca render`), its check (`POST /api/check`, `cronaca check`), its import
(`POST /api/imports`) and the evidence bundle (`cronaca verify`); the names it cannot carry are refused at the
start with a 422 that names the seat and why (docs/notation/: "Names")."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from api import cli
from api.app import create_app
from domain import catalog, transcripts
from domain.kernel.notation import fold_name, seat_name_problem, seat_names_problem
from domain.records import evidence
from domain.records.settings import Settings
from tests.citta_stato.test_notation import VENEZIA
from tests.service.conftest import close_app
from tests.service.helpers import as_json, auth, import_finished_http, played_game, record_file, same_notes, studied

ROOT = Path(__file__).resolve().parents[2]
TITLES = ("citta-stato", "la-citta", "serenissima")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path_factory.mktemp("names") / "records.sqlite3")}))
    app.config["TESTING"] = True
    yield app
    close_app(app)


@pytest.fixture(scope="module")
def client(service: Any) -> Any:
    return service.test_client()


# ---- files as a person types them ------------------------------------------------------------------------

# Città-Stato's rulebook opening (tests/citta_stato/test_notation.py VENEZIA) as a table of two Italians writes
# it: names of two words, an apostrophe, the first player bare in its brackets, a careless capital and spacing.
VENEZIA_TYPED = """[Title "citta-stato"]
[Seats "Maria Grazia (red), Gianmaria D'Angelo (blue)"]
[Options "players=2"]

Setup [VEN AMA] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] [Maria Grazia]
1. Maria Grazia: upgrade Y
   Gianmaria D'Angelo: guilds [Y O P]
   maria grazia: pass
   Gianmaria  D'Angelo: use O {second action: 2 orange cubes}, pick 2 {yellow cubes to the box}, yes
   Gianmaria D'Angelo: pass
   Maria Grazia: stay
   Gianmaria D'Angelo: stay [Y7] [W3] [G3] [O3] [B3] [P3]
2. Gianmaria D'Angelo: upgrade P
   Maria Grazia: upgrade Y {2nd to 3rd space: a white cube [%csl track:Y3]}
   Gianmaria D'Angelo: pass
   MARIA GRAZIA: pass
   Gianmaria D'Angelo: stay
   Maria Grazia: stay [Y3] [W4] [G4] [O4] [B4] [P4]
3. Maria Grazia: city, use Y7, buy P 1 {the other coin finds nothing at 1}, P
"""

# The same with names the lists' characters and the notation's own words: quoted where they must be.
VENEZIA_QUOTED = """[Title "citta-stato"]
[Seats "\\"Rossi, Mario\\" (red), \\"Bea (la rossa)\\" (blue)"]
[Options "players=2"]

Setup [VEN AMA] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] ["Rossi, Mario"]
1. "Rossi, Mario": upgrade Y
   "Bea (la rossa)": guilds [Y O P]
   "rossi, mario": pass
   "Bea (la rossa)": use O, pick 2, yes
   blue: pass
   red: stay
   "Bea (la rossa)": stay [Y7] [W3] [G3] [O3] [B3] [P3]
"""

KEYWORDS = """[Title "citta-stato"]
[Seats "Setup, pass"]
[Options "players=2"]

Setup [VEN AMA] [S1 S2 S3 S4] [?] [Y1 Y2] [W1 W2] [G1 G2] [O1 O2] [B1 B2] [P1 P2] ["Setup"]
1. "Setup": upgrade Y
   pass: guilds [Y O P]
   "Setup": pass
"""


def documented(title: str) -> str:
    page = (ROOT / "docs" / "notation" / f"{title}.md").read_text(encoding="utf-8")
    return next(block for block in page.split("```")[1::2] if block.lstrip().startswith(f'[Title "{title}"]')).lstrip()


def retyped(text: str, names: dict[str, str], seats: str, result: str) -> str:
    """A documented game with its players renamed as a person types the new names on each line."""
    lines = []
    for line in text.splitlines():
        if line.startswith("[Seats "):
            line = f"[Seats {json.dumps(seats, ensure_ascii=False)}]"
        elif line.startswith("[Result "):
            line = f"[Result {json.dumps(result, ensure_ascii=False)}]"
        else:
            line = re.sub(r"^(\s*(?:\d+\.\s+)?)(Ada|Bruno):", lambda m: m.group(1) + names[m.group(2)] + ":", line)
            line = re.sub(r"\[(Ada|Bruno)\]", lambda m: "[" + names[m.group(1)] + "]", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def commands(report: Any) -> list[Any]:
    assert report.entries is not None
    return [(e.command, [o.to_json() for o in e.outcomes]) for e in report.entries]


@pytest.mark.parametrize(("typed", "seats"), [
    (VENEZIA_TYPED, ["Maria Grazia", "Gianmaria D'Angelo"]),
    (VENEZIA_QUOTED, ["Rossi, Mario", "Bea (la rossa)"]),
    (KEYWORDS, ["Setup", "pass"]),
])
def test_citta_stato_typed_by_hand_checks_as_the_rulebook_game(typed: str, seats: list[str], tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    report = transcripts.check_text(typed)
    assert report.ok, [f.to_json() for f in report.findings]
    assert report.seats == seats
    original = transcripts.check_text(VENEZIA)
    assert commands(report) == commands(original)[: len(commands(report))] and len(commands(report)) > 3
    path = tmp_path / "typed.txt"
    path.write_text(typed, encoding="utf-8")
    assert cli.main(["check", str(path)]) == 0 and "clean" in capsys.readouterr().out


@pytest.mark.parametrize(("title", "names", "seats", "result"), [
    ("la-citta", {"Ada": '"Rossi, Mario"', "Bruno": "Bea D’Angelo"}, '"Rossi, Mario" (blue), Bea D’Angelo (yellow)',
     '"Rossi, Mario" 11, Bea D’Angelo 7'),
    ("la-citta", {"Ada": "Ada", "Bruno": "Ada Rossi"}, "Ada (blue), Ada Rossi (yellow)", "Ada 11, Ada Rossi 7"),
    ("serenissima", {"Ada": "Ada Rossi", "Bruno": "Ada"}, "Ada Rossi (blue), Ada (red)", "Ada Rossi 3, Ada 9"),
    ("serenissima", {"Ada": "Zoë", "Bruno": '"Bea (la rossa)"'}, 'Zoë (blue), "Bea (la rossa)" (red)',
     'Zoë 3, "Bea (la rossa)" 9'),
])
def test_the_documented_games_typed_with_other_names(title: str, names: dict[str, str], seats: str, result: str) -> None:
    original = transcripts.check_text(documented(title))
    typed = retyped(documented(title), names, seats, result)
    report = transcripts.check_text(typed)
    assert report.ok and report.finished, [f.to_json() for f in report.findings]
    assert commands(report) == commands(original)
    assert report.claimed == {report.seats[s["seat"]]: s["total"] for s in report.scores["seats"]}  # type: ignore[index]
    claimed = f"[Result {json.dumps(result, ensure_ascii=False)}]"
    miscounted = result.rsplit(" ", 1)[0] + " 99"  # the last seat's score miscounted: found, by its name
    wrong = typed.replace(claimed, f"[Result {json.dumps(miscounted, ensure_ascii=False)}]")
    assert wrong != typed
    found = transcripts.check_text(wrong)
    assert [f.rule for f in found.findings] == ["notation/result"] and found.findings[0].player == report.seats[1]


def test_a_player_who_is_none_of_the_seats_is_named_with_the_nearest() -> None:
    typed = VENEZIA_TYPED.replace("   Gianmaria D'Angelo: guilds", "   Gianmaria DAngleo: guilds")
    (finding,) = transcripts.check_text(typed).findings  # named once, and the line read as that player's
    assert finding.rule == "notation/player" and finding.line == 7 and finding.did_you_mean == ["Gianmaria D'Angelo"]
    assert "read as Gianmaria D'Angelo's" in finding.message
    # a sign left out is no slip: the one seat so spelled without it
    assert transcripts.check_text(VENEZIA_TYPED.replace("   Gianmaria D'Angelo: guilds", "   Gianmaria DAngelo: guilds")).ok


# ---- names the API refuses, and why ------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "at", "says"), [
    (["Ada", "Bruno\nRossi"], 1, "U+000A"),
    (["Ada\t", "Bruno"], 0, "U+0009"),
    (["Ada", "Bruno\u2028"], 1, "line separator"),
    (["   ", "Bruno"], 0, "only spaces"),
    (["Ada", "Ada"], 1, "seat 0"),
    (["Ada", "ADA"], 1, "seat 0"),
    (["Zoë", "Zoe\u0308"], 1, "seat 0"),
])
def test_a_name_the_notation_cannot_carry_is_refused_at_the_start(client: Any, seats: list[str], at: int, says: str) -> None:
    before = client.get("/api/records").get_json()["total"]
    answer = client.post("/api/records", json={"title": "citta-stato", "seats": seats})
    assert answer.status_code == 422, answer.get_json()
    body = answer.get_json()
    assert body["rule"] == "setup/seats" and body["facts"]["field"] == f"seats[{at}]"
    assert f"seats[{at}]" in body["detail"] and says in body["detail"]
    # the same names in a record file sent to /api/imports: refused at the upload, no record made
    document = record_file("citta-stato", "names")
    document["seats"] = [{"name": n} for n in seats]
    answer = client.post("/api/imports", json=document)
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["rule"] == "file/seats" and answer.get_json()["facts"]["field"] == f"seats[{at}].name"
    assert f"seats[{at}].name" in answer.get_json()["detail"] and says in answer.get_json()["detail"]
    # and in a notation file's header (a quoted name may spell a line break as \n)
    text = transcripts.render_log("citta-stato", *_played("citta-stato"), ["Ada", "Bruno"], {"players": 2})
    header = f'[Seats {json.dumps(", ".join(json.dumps(n) for n in seats))}]'
    answer = client.post("/api/imports", data=re.sub(r"\[Seats .*\]", lambda _: header, text).encode(),
                         content_type=transcripts.MEDIA_TYPE)
    assert answer.status_code == 422 and any(f["rule"] == "notation/seats" for f in answer.get_json()["facts"]["report"]["findings"])
    assert client.get("/api/records").get_json()["total"] == before


def _played(title: str) -> tuple[Any, list[Any]]:
    return catalog.game(title).default_edition(), played_game(title, "names").entries


# ---- any name the API accepts comes back: a property over arbitrary names, for every title --------------------

# letters of many scripts, marks, digits, spaces, the punctuation the notation itself uses, emoji
SPECIAL = list(" ,;:\"'’()[]{}<>\\/%=?!.-+#&*@|~`^$") + ["🎲", "👩", "\u200d", "é", "\u0301", "ß", "Æ", "ø", "ı", "Σ"]
NAME = st.text(st.one_of(st.characters(categories=["L", "M", "N", "P", "S", "Zs"]), st.sampled_from(SPECIAL)),
               min_size=1, max_size=24).filter(lambda n: seat_name_problem(n) is None)
SEATS = st.lists(NAME, min_size=2, max_size=2, unique_by=fold_name)


def _round_trip(client: Any, title: str, seats: list[str]) -> None:
    """The record made with these names, its notation, its check, its import and its evidence bundle."""
    assert seat_names_problem(seats) is None
    answer = client.post("/api/records", json={"title": title, "seats": seats})  # a live record: the API takes them
    assert answer.status_code == 201, answer.get_json()
    assert [s["name"] for s in answer.get_json()["seats"]] == seats
    document = record_file(title, "names")  # a self-played game, with these names
    document["seats"] = [{"name": n} for n in seats]
    made = import_finished_http(client, document).record_id
    text = client.get(f"/api/records/{made}/notation").get_data(as_text=True)
    report = client.post("/api/check", data=text.encode(), content_type=transcripts.MEDIA_TYPE).get_json()
    assert report["ok"] and not report["findings"], (text[:600], report["findings"][:3])
    assert report["seats"] == seats and report["claimed"] == {
        seats[s["seat"]]: s["total"] for s in client.get(f"/api/records/{made}").get_json()["scores"]["seats"]}
    copy = import_finished_http(client, text.encode(), content_type=transcripts.MEDIA_TYPE).record_id
    assert [s["name"] for s in client.get(f"/api/records/{copy}").get_json()["seats"]] == seats
    assert (client.get(f"/api/records/{copy}/events").get_json()["events"]
            == client.get(f"/api/records/{made}/events").get_json()["events"])
    for record in (made, copy):
        raw = client.get(f"/api/records/{record}/evidence").get_data()
        verified = evidence.verify(raw)
        assert verified.ok, verified.to_json()
        assert json.loads(evidence.unpack(raw)["record.json"])["seats"] == [{"name": n} for n in seats]


@pytest.mark.parametrize("title", TITLES)
@settings(max_examples=6, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seats=SEATS)
@example(seats=["Rossi, Mario", "Bea (red)"])
@example(seats=["Maria Grazia", "Gianmaria D'Angelo"])
@example(seats=["Ada", "Ada Rossi"])
@example(seats=['Say "hi" \\o/', "[%for x] {y}"])
@example(seats=["Setup", "🎲 Zoë"])
@example(seats=[" Ada ", "Ada: 3, Bruno 2"])
def test_any_accepted_names_round_trip(client: Any, title: str, seats: list[str]) -> None:
    _round_trip(client, title, seats)


def test_the_command_line_renders_checks_and_verifies_such_names(client: Any, capsys: pytest.CaptureFixture[str]) -> None:
    seats = ["Rossi, Mario", 'Bea "la rossa" (red)']
    document = record_file("serenissima", "names")
    document["seats"] = [{"name": n} for n in seats]
    made = import_finished_http(client, document).record_id
    with tempfile.TemporaryDirectory() as tmp:
        record, notation, bundle = Path(tmp) / "record.json", Path(tmp) / "game.txt", Path(tmp) / "evidence.zip"
        record.write_text(json.dumps(document), encoding="utf-8")
        assert cli.main(["render", str(record)]) == 0
        notation.write_text(capsys.readouterr().out, encoding="utf-8")
        assert '[Seats "\\"Rossi, Mario\\", \\"Bea \\\\\\"la rossa\\\\\\" (red)\\""]' in notation.read_text(encoding="utf-8")
        assert cli.main(["check", str(notation)]) == 0 and "clean" in capsys.readouterr().out
        bundle.write_bytes(client.get(f"/api/records/{made}/evidence").get_data())
        assert cli.main(["verify", str(bundle)]) == 0, capsys.readouterr()


@pytest.mark.parametrize(("title", "seats"), [
    ("citta-stato", ["Rossi, Mario", 'Bea "la rossa" (red)']),
    ("la-citta", ["Maria Grazia", "[%for x] {y}"]),
    ("serenissima", ["Ada", "Ada Rossi"]),
])
def test_notes_for_and_by_such_seats_come_back_through_a_study_import(service: Any, client: Any, title: str,
                                                                      seats: list[str]) -> None:
    """The notes' `[%for seat]` and a seat's own note (its author its name) with these names, written and read back."""
    document = record_file(title, "names")
    document["seats"] = [{"name": n} for n in seats]
    made = import_finished_http(client, document)
    record_id = UUID(made.record_id)
    teaching = service.extensions["cronaca"].teaching
    studied(teaching, record_id, title, made.annotator_key, "why?", moves=2)  # a note for seat 1, a variation
    starts, _ = teaching.variations.decision_steps(record_id, None)
    teaching.notes.add(record_id, made.tokens[1], {"step": starts[2], "text": "my own", "audience": 1})
    text = client.get(f"/api/records/{record_id}/notation", headers=auth(made.annotator_key)).get_data(as_text=True)
    assert "my own" in text and "only Ben reads this" in text
    copy = import_finished_http(client, text.encode(), content_type=transcripts.MEDIA_TYPE)
    assert "extras" not in copy.verdict["report"], copy.verdict["report"]
    lines = {line["title"]: line["id"] for line in as_json(teaching.variations.of_record(UUID(copy.record_id)))}
    old = {line["title"]: line["id"] for line in as_json(teaching.variations.of_record(record_id))}
    same_notes(teaching.notes.all_notes(record_id), teaching.notes.all_notes(UUID(copy.record_id)),
               {None: None, old["what if"]: lines["what if"]})
    own = [n for n in teaching.notes.all_notes(UUID(copy.record_id)) if n["text"] == "my own"]
    assert [(n["author"], n["by"], n["audience"]) for n in own] == [(seats[1], "seat:1", 1)]
