"""The records application on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import hashlib
import sys
import threading
from uuid import UUID

import pytest

from domain import catalog
from domain.kernel import ObservedChance, SeededChance, fold
from domain.kernel.chance import commitment
from domain.records import Conflict, Forbidden, Invalid, Records, Refused
from domain.records.application import titles
from domain.records.recordfile import live_chance
from domain.records.timeline import EVERY, decode_rows, select_stream
from domain.records.views import HIDDEN, common
from tests.service.conftest import LONG_TOY
from tests.service.helpers import play_out


def stored_versions(records: Records, record_id: UUID) -> list[int]:
    return [row.originator_version for row in records.recorder.select_events(record_id)]


def test_live_record_reveals_a_seed_that_rederives_every_outcome(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    opening = records.reading.summary(record_id).chance
    assert opening["seed"] is None and len(opening["commitment"]) == 64
    played = play_out(records, record_id, tokens)
    summary = records.reading.summary(record_id)
    assert summary.finished and summary.steps == 1 + played  # the toy's setup and each command: one game event
    assert summary.version == 1 + summary.steps + 1  # Started, one stored event per game event, Finished
    seed = summary.chance["seed"]
    assert hashlib.sha256(seed.encode()).hexdigest() == opening["commitment"] == commitment(seed)
    timeline = records.timeline(record_id)
    game = timeline.game
    state = game.begin(records.edition("toy"))
    for k, entry in enumerate(timeline.entries):
        chance = live_chance(seed, k)
        if k == 0:
            produced = game.setup(records.edition("toy"), entry["setup"], chance)
        else:
            produced = game.decide(state, game.parse_command(entry["command"]), chance)
        assert [o.to_json() for o in chance.log] == entry["outcomes"]
        assert [e.to_json() for e in produced] == entry["events"]
        state = fold(game, state, produced)
    assert game.scores(state) == summary.scores


def test_state_at_every_step_equals_a_fold_from_zero(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob", "cy"], edition_file=LONG_TOY.format(target=100))
    play_out(records, record_id, tokens, seed="long")
    timeline = records.timeline(record_id)
    game = timeline.game
    edition = records.edition("toy", timeline.meta.edition, timeline.meta.edition_file)
    assert len(timeline.events) > 4 * EVERY
    state = game.begin(edition)
    for n in range(len(timeline.events) + 1):
        assert timeline.state_at(n) == state, n
        if n < len(timeline.events):
            state = game.evolve(state, timeline.events[n])
    # a fresh application (another process) reads the same from storage
    again = Records(records.env)
    assert [e.to_json() for e in again.timeline(record_id).events] == [e.to_json() for e in timeline.events]
    assert again.timeline(record_id).state_at(len(timeline.events) // 2) == timeline.state_at(len(timeline.events) // 2)
    again.close()


def test_snapshots_keep_commands_working_on_long_records(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"], edition_file=LONG_TOY.format(target=200))
    played = play_out(records, record_id, tokens, seed="snap")
    assert played > 100
    assert records.snapshots is not None
    assert list(records.snapshots.get(record_id)), "a snapshot was taken after 100 versions"
    record = records.repository.get(record_id)
    assert record.version == records.reading.summary(record_id).version and record.finished


def test_a_violation_appends_nothing_and_names_its_rule(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    before = stored_versions(records, record_id)
    with pytest.raises(Refused) as caught:
        records.play.command(record_id, {"type": "toy/roll", "seat": 1}, tokens[1])
    assert caught.value.rule == "toy/turn" and caught.value.facts["turn"] == 0
    assert stored_versions(records, record_id) == before
    with pytest.raises(Forbidden):
        records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[1])
    with pytest.raises(Invalid) as malformed:
        records.play.command(record_id, {"type": "toy/roll", "seat": "zero"}, tokens[0])
    assert malformed.value.facts["rule"] == "command/malformed"
    assert stored_versions(records, record_id) == before


def test_a_command_decided_against_an_old_version_conflicts(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    assert stored_versions(records, record_id) == [1, 2]  # Started, the setup's one game event
    records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0], expected_version=2)
    with pytest.raises(Conflict) as caught:
        records.play.command(record_id, {"type": "toy/roll", "seat": 1}, tokens[1], expected_version=2)
    assert caught.value.facts == {"version": 3, "expected_version": 2}
    assert stored_versions(records, record_id) == [1, 2, 3]


def race(records: Records, record_id: UUID, payload: dict, token: str, version: int) -> list[str]:
    """The same command at the same version from this app and from a second one (another process's view
    of the same store), released together; what each got back, sorted."""
    other = Records(records.env)
    results: list[str] = []
    barrier = threading.Barrier(2)

    def attempt(app: Records) -> None:
        barrier.wait()
        try:
            app.play.command(record_id, payload, token, expected_version=version)
            results.append("ok")
        except Conflict:
            results.append("conflict")

    threads = [threading.Thread(target=attempt, args=(app,)) for app in (records, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    return sorted(results)


def test_concurrent_commands_one_wins_and_the_stream_has_no_gap(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    assert race(records, record_id, {"type": "toy/roll", "seat": 0}, tokens[0], version=2) == ["conflict", "ok"]
    assert stored_versions(records, record_id) == [1, 2, 3]
    assert records.reading.summary(record_id).steps == 2


def test_transcribed_outcomes_are_checked_for_possibility(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"], mode="transcribed")
    assert records.reading.summary(record_id).chance["commitment"] is None
    with pytest.raises(Invalid):
        records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0])  # no outcomes given
    with pytest.raises(Refused) as caught:
        records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0],
                     outcomes=[{"kind": "roll", "source": "die", "values": [7]}])
    assert caught.value.rule == "chance/roll/impossible-face"
    with pytest.raises(Refused) as drawn:
        records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0],
                     outcomes=[{"kind": "draw", "source": "bag:0", "values": [4]}])
    assert drawn.value.rule == "chance/draw/not-there"
    with pytest.raises(Invalid) as unused:
        records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0],
                     outcomes=[{"kind": "roll", "source": "die", "values": [3]}, {"kind": "roll", "source": "die", "values": [3]}])
    assert unused.value.facts["rule"] == "chance/unused-outcome"
    played = records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0],
                          outcomes=[{"kind": "draw", "source": "bag:0", "values": [2]}])
    assert [e.to_json() for e in played.events] == [{"type": "toy/drawn", "data": {"seat": 0, "cube": 2}}]
    assert stored_versions(records, record_id) == [1, 2, 3]


def test_views_hide_what_any_seat_does_not_see(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    records.play.command(record_id, {"type": "toy/draw", "seat": 0}, tokens[0])
    bag0 = list(records.timeline(record_id).head.bags[0])
    public = records.reading.step(record_id, 2, None)
    mine = records.reading.step(record_id, 2, tokens[0])
    theirs = records.reading.step(record_id, 2, tokens[1])
    assert public.view_of == "public" and public.view["bags"] == [HIDDEN, HIDDEN]
    assert mine.view["bags"] == [sorted(bag0), 3] and theirs.view["bags"] == [2, [1, 2, 3]]
    assert public.scores is None
    events = records.reading.event_range(record_id, 0, None)
    assert events.redacted and all("data" not in e for e in events.events)
    with pytest.raises(Forbidden):
        records.reading.export(record_id)
    with pytest.raises(Forbidden):
        records.reading.step(record_id, 2, "not-a-token")


def test_common_view_keeps_only_agreement() -> None:
    assert common([{"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}]) == {"a": 1, "b": [1, HIDDEN]}
    assert common([{"a": 1, "mine": 2}, {"a": 1}]) == {"a": 1}
    assert common([[1, 2], [1]]) == HIDDEN


def test_turns_cover_every_step_once(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"], edition_file=LONG_TOY.format(target=30))
    play_out(records, record_id, tokens, seed="turns")
    turns = records.reading.turns(record_id)
    assert turns[0].turn == 0 and turns[0].start == 0
    for before, after in zip(turns, turns[1:], strict=False):
        assert before.stop == after.start and after.seat != before.seat
        assert after.round in (before.round, before.round + 1)
    assert turns[-1].stop == records.reading.summary(record_id).steps
    assert [t.player for t in turns[1:3]] == ["ann", "bob"]


def test_a_turn_s_round_is_worked_out_once_until_a_take_back(records: Records) -> None:
    """The rounds of the turns are read from the states where the turns start: each once, not again at every new
    version (a live page reads the turns after every move); a take-back makes those steps new states."""
    record_id, tokens = records.play.start("toy", ["ann", "bob"], edition_file=LONG_TOY.format(target=30))
    timeline = records.timeline(record_id)
    made: list[int] = []
    assert timeline.of_step("round", 3, lambda: made.append(3) or 1) == 1
    play_out(records, record_id, tokens, seed="turns")  # versions pass
    assert timeline.of_step("round", 3, lambda: made.append(3) or 2) == 1 and made == [3]
    assert timeline.meta is not None
    timeline.meta.withdrawn_steps += 2  # as a take-back does
    assert timeline.of_step("round", 3, lambda: made.append(3) or 2) == 2 and made == [3, 3]


def test_list_filters_by_title_player_and_status(records: Records) -> None:
    done, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, done, tokens)
    going, _ = records.play.start("toy", ["cy", "Ann"])
    assert [r.id for r in records.reading.find()] == [str(going), str(done)]
    assert [r.id for r in records.reading.find(player="ann")] == [str(going), str(done)]
    assert [r.id for r in records.reading.find(player="bob")] == [str(done)]
    assert [r.id for r in records.reading.find(status="finished")] == [str(done)]
    assert [r.id for r in records.reading.find(status="in-progress", title="toy")] == [str(going)]
    assert records.reading.find(title="citta-stato") == []


def test_export_then_import_gives_the_same_record_event_for_event(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob", "cy"])
    play_out(records, record_id, tokens, seed="roundtrip")
    document = records.reading.export(record_id).to_json()
    import_id, new_tokens = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert report.ok, report
    copy = UUID(report.record_id)
    assert [e.to_json() for e in records.timeline(copy).events] == [e.to_json() for e in records.timeline(record_id).events]
    again = records.reading.export(copy).to_json()
    assert again == document
    assert records.imports.validate(import_id) == report  # a second run of the job changes nothing
    assert len(new_tokens) == 3 and records.access.seat_of(records.timeline(copy).meta, new_tokens[2]) == 2


def test_a_tampered_file_is_rejected_with_the_entry_and_rule(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"], mode="transcribed")
    die = SeededChance("dice")
    for _ in range(200):
        timeline = records.timeline(record_id)
        if timeline.game.pending(timeline.head).over:
            break
        seat = timeline.game.pending(timeline.head).seat
        records.play.command(record_id, {"type": "toy/roll", "seat": seat}, tokens[seat],
                     outcomes=[{"kind": "roll", "source": "die", "values": [die.roll('die', 1)[0]]}])
    document = records.reading.export(record_id).to_json()
    document["entries"][3]["outcomes"][0]["values"] = [9]
    import_id, _ = records.imports.submit(document)
    report = records.imports.validate(import_id)
    assert not report.ok and report.stored["entry_index"] == 3 and report.rule == "chance/roll/impossible-face"
    assert records.imports.get(import_id).status == "rejected"

    live_id, live_tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, live_id, live_tokens)
    forged = records.reading.export(live_id).to_json()
    forged["chance"]["seed"] = "guess"
    rejected = records.imports.validate(records.imports.submit(forged)[0])
    assert rejected.rule == "chance/commitment"
    bent = records.reading.export(live_id).to_json()
    first = bent["entries"][1]
    if first["command"]["type"] == "toy/roll":
        first["outcomes"][0]["values"] = [1 + first["outcomes"][0]["values"][0] % 6]
        first["events"][0]["data"]["face"] = first["outcomes"][0]["values"][0]
        bent_report = records.imports.validate(records.imports.submit(bent)[0])
        assert not bent_report.ok and bent_report.rule in ("chance/not-from-seed", "log/event-mismatch")


def test_observed_chance_replays_what_live_play_recorded(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    play_out(records, record_id, tokens)
    timeline = records.timeline(record_id)
    game = timeline.game
    state = game.begin(records.edition("toy"))
    state = fold(game, state, game.setup(records.edition("toy"), timeline.entries[0]["setup"],
                                         ObservedChance(timeline.entries[0]["outcomes"])))
    for entry in timeline.entries[1:]:
        state = fold(game, state, game.decide(state, game.parse_command(entry["command"]), ObservedChance(entry["outcomes"])))
    assert state == timeline.head


def test_a_file_without_events_gets_them_from_the_rules(records: Records) -> None:
    record_id, tokens = records.play.start("toy", ["ann", "bob"], mode="transcribed")
    die = SeededChance("bare")
    while not records.reading.summary(record_id).finished:
        seat = records.timeline(record_id).game.pending(records.timeline(record_id).head).seat
        records.play.command(record_id, {"type": "toy/roll", "seat": seat}, tokens[seat],
                     outcomes=[{"kind": "roll", "source": "die", "values": [die.roll("die", 1)[0]]}])
    document = records.reading.export(record_id).to_json()
    for entry in document["entries"]:
        entry["events"] = []
    report = records.imports.validate(records.imports.submit(document)[0])
    assert report.ok, report
    copy = UUID(report.record_id)
    assert records.reading.export(copy).entries == records.reading.export(record_id).entries


def stored_rows(records: Records, record_id: UUID) -> list[tuple[int, str, dict]]:
    return [(version, topic.rsplit(".", 1)[-1], payload)
            for version, topic, payload in decode_rows(records.mapper, [
                (row.originator_version, row.topic, row.state) for row in records.recorder.select_events(record_id)])]


def test_one_stored_event_per_game_event_and_a_command_saved_whole(records: Records) -> None:
    """A real title, whose commands cause several game events: two processes decide the same one
    against the same version; one saves all its events, the other nothing."""
    title = "citta-stato"
    if title not in titles():
        pytest.fail(f"{title} is not installed: this test needs a title whose commands cause several events")
    low, _ = catalog.game(title).seats
    record_id, tokens = records.play.start(title, [f"p{k}" for k in range(low)])
    players = SeededChance("rows")
    for _ in range(500):
        timeline = records.timeline(record_id)
        game, meta = timeline.game, timeline.meta
        assert meta is not None and not game.pending(timeline.head).over
        choices = game.legal(timeline.head)
        cmd = choices[players.below(len(choices))]
        chance = live_chance(meta.seed, len(timeline.entries))  # what the service will draw for it
        produced = game.decide(timeline.head, cmd, chance)
        if len(produced) > 1:
            break
        records.play.command(record_id, cmd.to_json(), tokens[cmd.seat])
    else:
        pytest.fail("no command with several game events in 500")
    version, steps = meta.version, len(timeline.events)
    assert race(records, record_id, cmd.to_json(), tokens[cmd.seat], version) == ["conflict", "ok"]
    rows = stored_rows(records, record_id)
    assert [v for v, _, _ in rows] == list(range(1, version + len(produced) + 1))  # no gap, no duplicate
    assert rows[0][1] == "Started" and all(kind == "Happened" for _, kind, _ in rows[1:])
    timeline = records.timeline(record_id)
    assert len(timeline.events) == steps + len(produced) == len(rows) - 1
    # step n is stream version n + 1, and carries exactly game event n
    assert [row[2]["event"] for row in rows[1:]] == [e.to_json() for e in timeline.events]
    last = rows[-len(produced):]
    assert last[0][2]["entry"] == {"command": cmd.to_json(), "outcomes": [o.to_json() for o in chance.log]}
    assert last[0][2]["seat"] == cmd.seat and all(row[2]["entry"] is None for row in last[1:])
    assert [row[2]["event"] for row in last] == [e.to_json() for e in produced]
    heads = [row[2]["entry"] for row in rows[1:] if row[2]["entry"] is not None]
    assert "setup" in heads[0] and len(heads) == len(timeline.entries)
    assert sum(len(entry["events"]) for entry in timeline.entries) == len(timeline.events)

    # our own read of the stream gives what the library's recorder gives, from any version on
    for gt in (None, 0, version, len(rows) - 1):
        assert [(v, t, bytes(b)) for v, t, b in select_stream(records.recorder, record_id, gt=gt)] == [
            (row.originator_version, row.topic, bytes(row.state)) for row in records.recorder.select_events(record_id, gt=gt)]


def test_a_command_that_causes_no_game_event_is_refused_and_stores_nothing(
        records: Records, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record stores a command on its first game event: a command without any has nowhere to go."""
    record_id, tokens = records.play.start("toy", ["ann", "bob"])
    records.play.command(record_id, {"type": "toy/roll", "seat": 0}, tokens[0])
    before = stored_versions(records, record_id)
    game = catalog.game("toy")
    real = game.decide
    monkeypatch.setattr(game, "decide", lambda state, cmd, chance: [] if cmd.to_json()["type"] == "toy/roll" else real(state, cmd, chance))
    with pytest.raises(Invalid) as caught:
        records.play.command(record_id, {"type": "toy/roll", "seat": 1}, tokens[1])
    assert caught.value.facts["rule"] == "command/no-events"
    assert stored_versions(records, record_id) == before
    document = {"format": "cronaca-record", "version": 1, "title": "toy", "edition": records.reading.summary(record_id).edition,
                "seats": [{"name": "ann"}, {"name": "bob"}], "options": {"players": 2}, "mode": "transcribed",
                "chance": {}, "entries": [{"setup": {"players": 2}, "outcomes": [], "events": []},
                                          {"command": {"type": "toy/roll", "seat": 0}, "outcomes": [], "events": []}]}
    report = records.imports.validate(records.imports.submit(document)[0])
    assert not report.ok and report.rule == "log/no-events" and report.stored["entry_index"] == 1


def test_readers_never_see_a_timeline_half_caught_up(records: Records) -> None:
    """While one thread catches a record's timeline up with new rows, others read turns and steps.

    The timeline's lists grow together (events, entries, checkpoints); a reader must never see
    one ahead of another (that used to surface as a zip length error in `turns`).
    """
    record_id, tokens = records.play.start("toy", ["ann", "bob"], edition_file=LONG_TOY.format(target=150))
    writer = Records(records.env)  # appends through its own view of the store, as another process would
    done = threading.Event()
    failures: list[BaseException] = []

    def read() -> None:
        while not done.is_set():
            try:
                turns = records.reading.turns(record_id)
                last = turns[-1].stop
                assert [t.start for t in turns[1:]] == [t.stop for t in turns[:-1]]
                records.reading.step(record_id, last, None)
                records.reading.step(record_id, last // 2, None)
            except BaseException as exc:  # noqa: BLE001 - collected and reported below
                failures.append(exc)
                return

    readers = [threading.Thread(target=read) for _ in range(2)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can, to open every window
    for t in readers:
        t.start()
    try:
        played = play_out(writer, record_id, tokens, seed="race")
    finally:
        done.set()
        for t in readers:
            t.join()
        sys.setswitchinterval(switch)
        writer.close()
    assert played > 40
    assert not failures, repr(failures[0])
    assert records.reading.turns(record_id)[-1].stop == records.reading.summary(record_id).steps
