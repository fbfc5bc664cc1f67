"""Every installed title through the same service path: self-played, imported, exported, compared."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain import catalog
from domain.kernel.selfplay import play_random
from domain.records import Records, dice, recordfile
from domain.records.application import titles

REAL = ["citta-stato", "la-citta", "serenissima"]


@pytest.mark.parametrize("title", REAL)
def test_a_self_played_game_imports_and_exports_unchanged(title: str, tmp_path: Path) -> None:
    assert title in titles(), f"{title} is not importable with a GAME: the service cannot offer it"
    game = catalog.game(title)
    edition = game.default_edition()
    players = game.seats[0] + 1 if game.seats[0] < game.seats[1] else game.seats[0]
    played = play_random(game, edition, {"players": players}, f"service-{title}")
    document = {
        "format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title, "edition": edition.ref,
        "seats": [{"name": f"player {k}"} for k in range(players)], "options": {"players": players},
        "mode": "transcribed", "chance": {}, "entries": [e.to_json() for e in played.entries],
    }
    records = Records({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "t.sqlite3")})
    try:
        report = records.imports.validate(records.imports.submit(document)[0])
        assert report.ok, report
        record_id = UUID(report.record_id)
        exported = records.reading.export(record_id).to_json()
        assert exported["entries"] == dice.mark_outcomes(document["entries"], "transcribed")  # each outcome says who gave it
        assert exported["scores"] == played.scores
        again = records.imports.validate(records.imports.submit(exported)[0])
        assert again.ok and records.reading.export(UUID(again.record_id)).entries == exported["entries"]
        summary = records.reading.summary(record_id)
        assert summary.finished and summary.steps == played.event_count
        ends = [turn.stop for turn in records.reading.turns(record_id)]  # after whole commands: always showable
        assert ends[-1] == summary.steps
        for n in ends[:: max(1, len(ends) // 40)] + ends[-1:]:
            assert records.reading.step(record_id, n, None).view_of == "all"
    finally:
        records.close()


@pytest.mark.parametrize("title", REAL)
def test_the_check_says_where_the_game_ends_as_a_fold_of_its_log_does(title: str) -> None:
    """An import builds its record from `Verdict.end` and `Verdict.seats` without folding the log or parsing its
    commands again: they must be what the fold and the parse give, for a finished game and for one cut in the middle."""
    game = catalog.game(title)
    edition = game.default_edition()
    players = game.seats[0] + 1 if game.seats[0] < game.seats[1] else game.seats[0]
    played = play_random(game, edition, {"players": players}, f"end-{title}")
    for entries in (played.entries, played.entries[: len(played.entries) // 2]):
        document = {
            "format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title, "edition": edition.ref,
            "seats": [{"name": f"player {k}"} for k in range(players)], "options": {"players": players},
            "mode": "transcribed", "chance": {}, "entries": [e.to_json() for e in entries],
        }
        header, raw = recordfile.parse(document)
        verdict = recordfile.check(header, raw, lambda t, ref, f: edition)
        assert verdict.ok and verdict.entries is not None, verdict.report
        state = game.begin(edition)
        for entry in verdict.entries:
            for event in entry.events:
                state = game.evolve(state, event)
        assert verdict.end == (game.pending(state).over, game.scores(state))
        assert verdict.end[0] is (entries is played.entries)
        # and each entry's deciding seat as the replay parsed it: what the record stores, parsed nowhere else
        assert verdict.seats == [None] + [game.parse_command(e.command or {}).seat for e in verdict.entries[1:]]
        assert len(set(verdict.seats[1:])) == players


def test_the_titles_endpoint_names_every_title_from_its_package(client: Any) -> None:
    """GET /api/titles: id, display name and seat range of each title, in the catalog's order (the tests' toy,
    catalogued by conftest, comes last), all read from the title's own package."""
    answer = client.get("/api/titles")
    assert answer.status_code == 200 and answer.mimetype == "application/json"
    listed = answer.get_json()["titles"]
    assert [{k: t[k] for k in ("id", "name", "seats")} for t in listed] == [
        {"id": "citta-stato", "name": "Città-Stato", "seats": {"min": 2, "max": 5}},
        {"id": "la-citta", "name": "La Città", "seats": {"min": 2, "max": 5}},
        {"id": "serenissima", "name": "Serenissima", "seats": {"min": 2, "max": 4}},
        {"id": "toy", "name": "Toy", "seats": {"min": 2, "max": 3}},
    ]
    options = {t["id"]: {o["name"]: o for o in t["options"]} for t in listed}
    for title in catalog.TITLES:  # every option of the title's schema is offered (the seats are the players)
        schema = catalog.options_schema(title)
        assert set(options[title]) == set(schema.fields if schema is not None else ()) - {"players"}, title
    assert options["citta-stato"]["expansion"] == {"name": "expansion", "kind": "choice", "choices": [False, True],
                                                   "default": None}
    solo = options["citta-stato"]["solo"]
    assert solo["kind"] == "group" and solo["description"]
    assert [(o["name"], o["kind"], o["required"]) for o in solo["options"]] == [
        ("scenario", "number", True), ("game", "number", True), ("carried_crowns", "number", False)]
    assert options["la-citta"]["setup"] == {"name": "setup", "kind": "choice", "choices": ["beginner", "experienced"],
                                            "default": "beginner"}
    assert options["la-citta"]["start"]["kind"] == "number" and options["la-citta"]["start"]["default"] == 0
    assert options["serenissima"]["money"]["choices"] == ["visible", "hidden"]
    closed = options["serenissima"]["closed_ports"]
    assert closed["kind"] == "list" and closed["default"] is None and "port" in closed["description"]
    assert [t["id"] for t in answer.get_json()["titles"]] == list(catalog.TITLES)


def test_the_titles_endpoint_is_documented_with_its_schema(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    ok = spec["paths"]["/api/titles"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    schemas = spec["components"]["schemas"]
    listed = schemas[ok["$ref"].rsplit("/", 1)[1]]
    title = schemas[listed["properties"]["titles"]["items"]["$ref"].rsplit("/", 1)[1]]
    assert list(title["properties"]) == ["id", "name", "seats", "options"]
