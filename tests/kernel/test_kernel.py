"""The kernel contract, exercised through a toy game: events, chance, commands, editions, logs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from domain.kernel import (
    ALL,
    Entry,
    FrozenDict,
    MalformedCommand,
    ObservedChance,
    Outcome,
    RuleViolation,
    SeededChance,
    commitment,
    event_from_json,
    fold,
    replay,
    reveal,
    round_trips,
)
from domain.kernel.editions import EditionError
from domain.kernel.selfplay import play_random
from tests.kernel.toy_game import EDITION_YAML, GAME, Draw, Drawn, Roll, Started


def test_event_freezes_payload_and_round_trips_through_json() -> None:
    e = Started({"id": "toy-1", "content_hash": "sha256:x"}, 2)
    assert isinstance(e.edition, FrozenDict)
    assert round_trips(e)
    assert event_from_json(json.loads(json.dumps(e.to_json()))) == e
    with pytest.raises(AttributeError):
        e.seats = 3  # type: ignore[misc]


def test_unknown_event_type_and_field_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown event type"):
        event_from_json({"type": "toy/nope", "data": {}})
    with pytest.raises(ValueError, match="unknown fields"):
        event_from_json({"type": "toy/drawn", "data": {"seat": 0, "cube": 1, "extra": 1}})


def test_seeded_chance_is_deterministic_and_committed() -> None:
    a, b = SeededChance("s1"), SeededChance("s1")
    assert a.commitment == commitment("s1") != commitment("s2")
    assert [a.draw("bag", "ABCDEFG", 3), a.shuffle("deck", range(10)), a.roll("dice", 5)] == [
        b.draw("bag", "ABCDEFG", 3),
        b.shuffle("deck", range(10)),
        b.roll("dice", 5),
    ]
    assert SeededChance("s2").shuffle("deck", range(10)) != SeededChance("s1").shuffle("deck", range(10))
    assert [o.kind for o in a.log] == ["draw", "shuffle", "roll"]


def test_seeded_draw_takes_all_when_asking_for_more_than_there_is() -> None:
    assert sorted(SeededChance("x").draw("bag", ["Y", "G"], 5)) == ["G", "Y"]


def test_seeded_below_is_roughly_uniform() -> None:
    c = SeededChance("uniform")
    counts = [0] * 6
    for _ in range(6000):
        counts[c.below(6)] += 1
    assert all(850 < n < 1150 for n in counts), counts


def test_observed_chance_checks_possibility() -> None:
    ok = ObservedChance([Outcome("draw", "bag:0", ("Y", "Y"))])
    assert ok.draw("bag:0", ["Y", "G", "Y"], 2) == ("Y", "Y")
    with pytest.raises(RuleViolation) as info:
        ObservedChance([Outcome("draw", "bag:0", ("B",))]).draw("bag:0", ["Y", "G"], 1)
    assert info.value.rule == "chance/draw/not-there"
    shown = info.value.to_json()["facts"]  # the public reader: the bag's size, never its contents
    assert shown["held"] == {"hidden": True, "count": 2} and shown["not_there"] == ["B"]
    assert info.value.to_json(ALL)["facts"]["held"] == ["G", "Y"]
    with pytest.raises(RuleViolation, match="chance/roll/impossible-face"):
        ObservedChance([{"kind": "roll", "source": "d", "values": [7]}]).roll("d", 1)
    with pytest.raises(RuleViolation, match="chance/missing-outcome"):
        ObservedChance([]).roll("d", 1)
    with pytest.raises(RuleViolation, match="chance/unexpected-outcome"):
        ObservedChance([Outcome("roll", "d", (3,))]).draw("bag:0", ["Y"], 1)
    with pytest.raises(RuleViolation, match="not-a-permutation"):
        ObservedChance([Outcome("shuffle", "deck", (1, 1))]).shuffle("deck", [1, 2])


def test_command_schema_rejects_malformed_payloads() -> None:
    assert GAME.parse_command({"type": "toy/draw", "seat": 1}) == Draw(1)
    for bad in ({"type": "toy/draw"}, {"type": "toy/draw", "seat": "1"}, {"type": "toy/draw", "seat": 0, "x": 1}, {"type": "toy/fly", "seat": 0}, []):
        with pytest.raises(MalformedCommand):
            GAME.parse_command(bad)  # type: ignore[arg-type]


def test_edition_is_hashed_and_provenance_checked() -> None:
    ed = GAME.default_edition()
    assert ed.content_hash.startswith("sha256:") and ed.ref["id"] == "toy-1"
    assert ed.tagged("assumed") == [("target", "assumed: a short game")]
    with pytest.raises(EditionError, match="not in data"):
        GAME.load_edition(EDITION_YAML.replace(b"target: \"", b"nowhere: \""))
    with pytest.raises(EditionError, match="must start with"):
        GAME.load_edition(EDITION_YAML.replace(b"assumed:", b"guessed:"))
    with pytest.raises(EditionError, match="schema"):
        GAME.load_edition(EDITION_YAML.replace(b"target: 10", b"target: ten"))


def test_selfplay_is_reproducible_and_replays_clean() -> None:
    ed = GAME.default_edition()
    one = play_random(GAME, ed, {"players": 2}, "seed-7")
    two = play_random(GAME, ed, {"players": 2}, "seed-7")
    assert [e.to_json() for e in one.entries] == [e.to_json() for e in two.entries]
    assert one.scores["finished"]
    report, state = replay(GAME, ed, one.entries)
    assert report.ok and report.events == one.event_count
    assert state == one.state
    # The stored form survives JSON and re-folds to the same state.
    entries = [Entry.from_json(json.loads(json.dumps(e.to_json()))) for e in one.entries]
    events = [ev for entry in entries for ev in entry.events]
    assert fold(GAME, GAME.begin(ed), events) == one.state


def test_an_entry_whose_shapes_were_checked_reads_as_one_checked_here() -> None:
    """`Entry.from_json(checked=True)` (entries recordfile.parse has shaped) skips the shape checks, not the reading:
    the same entry as the checking way, and an unknown event type or field still refused."""
    ed = GAME.default_edition()
    game = play_random(GAME, ed, {"players": 2}, "seed-8")
    for entry in game.entries:
        written = json.loads(json.dumps(entry.to_json()))
        assert Entry.from_json(written, checked=True) == Entry.from_json(written) == entry
    unknown = {"outcomes": [], "command": {"type": "toy/draw", "seat": 0}, "events": [{"type": "toy/nope", "data": {}}]}
    extra = {**unknown, "events": [{"type": "toy/drawn", "data": {"seat": 0, "cube": 1, "extra": 1}}]}
    for bad in (unknown, extra):
        with pytest.raises(ValueError):
            Entry.from_json(bad, checked=True)


def test_replay_names_the_first_impossible_outcome_and_illegal_command() -> None:
    ed = GAME.default_edition()
    setup = Entry(None, (), (Started(ed.ref, 2),), options={"players": 2})
    forged = Entry(Draw(0).to_json(), (Outcome("draw", "bag:0", (9,)),), (Drawn(0, 9),))
    report, _ = replay(GAME, ed, [setup, forged])
    assert not report.ok and report.entry_index == 1 and report.rule == "chance/draw/not-there"
    out_of_turn = Entry(Roll(1).to_json(), (Outcome("roll", "die", (4,)),), ())
    report, _ = replay(GAME, ed, [setup, out_of_turn])
    assert report.rule == "toy/turn" and report.facts == {"seat": 1, "turn": 0}
    lying = Entry(Draw(0).to_json(), (Outcome("draw", "bag:0", (2,)),), (Drawn(0, 3),))
    report, _ = replay(GAME, ed, [setup, lying])
    assert report.rule == "log/event-mismatch"
    extra = Entry(Draw(0).to_json(), (Outcome("draw", "bag:0", (2,)), Outcome("roll", "die", (1,))), ())
    assert replay(GAME, ed, [setup, extra])[0].rule == "chance/unused-outcome"


def test_a_mismatch_names_the_field_and_both_values_for_the_all_seeing_reader_only() -> None:
    ed = GAME.default_edition()
    setup = Entry(None, (), (Started(ed.ref, 2),), options={"players": 2})
    lying = Entry(Draw(0).to_json(), (Outcome("draw", "bag:0", (2,)),), (Drawn(0, 3),))
    report, _ = replay(GAME, ed, [setup, lying])
    public = reveal(report.to_json(), None)
    full = reveal(report.to_json(), ALL)
    assert public["facts"]["field"] == full["facts"]["field"] != "type"
    field = full["facts"]["field"]
    assert f"`{field}`" in public["message"] and "3" not in public["message"]
    assert full["message"].count("2") >= 1 and "3" in full["message"]
    assert full["facts"]["expected"] == 2 and full["facts"]["given"] == 3
    assert public["facts"]["expected"] == {"hidden": True}
    rules_side, log_side = full["message"].split("the rules give")[1], full["message"].split("the rules give")[0]
    assert rules_side.strip() != log_side.split("is")[-1].strip()


def test_a_seeded_replay_reports_a_changed_outcome_at_its_own_entry() -> None:
    ed = GAME.default_edition()
    played = play_random(GAME, ed, {"players": 2}, "seeded")
    seed = "the-seed"
    # re-play the same commands with per-entry seeds, as a live record does
    entries = []
    state = GAME.begin(ed)
    for k, entry in enumerate(played.entries):
        chance = SeededChance(f"{seed}/{k}")
        if k == 0:
            produced = GAME.setup(ed, entry.options, chance)
        else:
            try:
                produced = GAME.decide(state, GAME.parse_command(entry.command), chance)
            except RuleViolation:
                break
        for e in produced:
            state = GAME.evolve(state, e)
        entries.append(Entry(entry.command, tuple(chance.log), tuple(produced), entry.options))
    report, _ = replay(GAME, ed, entries, seeded=lambda k: SeededChance(f"{seed}/{k}"))
    assert report.ok
    drawn = [k for k, e in enumerate(entries) if e.outcomes and k > 0]
    k = drawn[len(drawn) // 2]
    o = entries[k].outcomes[0]
    changed = Outcome(o.kind, o.source, tuple(reversed(o.values)) if len(set(o.values)) > 1 else (o.values[0] + 1,) if isinstance(o.values[0], int) else o.values)
    assert changed != o
    forged = [*entries[:k], Entry(entries[k].command, (changed, *entries[k].outcomes[1:]), ()), *entries[k + 1 :]]
    report, _ = replay(GAME, ed, forged, seeded=lambda k: SeededChance(f"{seed}/{k}"))
    assert not report.ok and report.rule == "chance/not-from-seed" and report.entry_index == k
    assert "changed" in reveal(report.message, None)


def test_an_edition_file_with_yaml_aliases_is_refused_before_it_expands() -> None:
    bomb = b'id: &a "toy-1"\ntitle: toy\ndata: {target: 10, bag: [1, 2, 3]}\nprovenance: {target: *a}\n'
    with pytest.raises(EditionError, match="aliases"):
        GAME.load_edition(bomb)
    laughs = b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    with pytest.raises(EditionError, match="aliases"):
        GAME.load_edition(laughs)


@pytest.mark.parametrize("values", [[True], [1.0], [None], [[1]], [{"a": 1}]])
def test_an_outcome_value_that_is_not_a_word_or_a_whole_number_is_refused(values: list[Any]) -> None:
    with pytest.raises(ValueError, match="words or whole numbers"):
        Outcome.from_json({"kind": "draw", "source": "bag:0", "values": values})
