"""What-if variations (issue 14, spec section 3): branch from a finished record of every title, play on
through the same rules, chance drawn or chosen by the author, nested lines, import, and a game stream
that is never touched. Each test runs on SQLite and on the real PostgreSQL (the `records` fixture).

The finished games are random legal play (`domain.kernel.selfplay.play_random`, a few milliseconds
each), played once per module and imported as a table would send them.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from domain import catalog
from domain.kernel import Entry, ObservedChance, Outcome, RuleViolation, fold, play
from domain.kernel.selfplay import PlayedGame
from domain.records import Records, recordfile
from domain.records.errors import Conflict, Forbidden, Invalid, NotFound, Refused, Unauthorized
from domain.records.variations import AUTHOR, DRAWN, Variations, command_words
from tests.service.helpers import NAMES, as_json, at_once, import_finished, played_game, record_file

TITLES = ["citta-stato", "la-citta", "serenissima"]
KEY = "annotator-key-for-tests"


def played(title: str) -> PlayedGame:
    """The module's finished random game of `title` (played once)."""
    return played_game(title, f"variations-{title}")


def finished(records: Records, title: str) -> tuple[UUID, list[str]]:
    """That game, imported with the annotator key: (record id, seat tokens)."""
    return import_finished(records, record_file(title, f"variations-{title}"), KEY)


def entry_steps(title: str) -> list[int]:
    """The step at which each command entry of the module's game starts (its decision points)."""
    out, step = [], 0
    for entry in played(title).entries:
        out.append(step)
        step += len(entry.events)
    return out[1:]


def state_before(title: str, k: int) -> Any:
    """The engine's own state before command entry k (1-based, as in the log), folded here independently."""
    game = catalog.game(title)
    state = game.begin(game.default_edition())
    for entry in played(title).entries[:k]:
        state = fold(game, state, entry.events)
    return state


def version(records: Records, record_id: UUID) -> tuple[int, int]:
    summary = records.reading.summary(record_id)
    return summary.version, summary.steps


@pytest.mark.parametrize("title", TITLES)
def test_branch_and_play_legal_commands_in_every_title(records: Records, title: str) -> None:
    record_id, _ = finished(records, title)
    variations = Variations(records)
    game = catalog.game(title)
    before = version(records, record_id)
    k = 4
    start = entry_steps(title)[k - 1]
    summary = variations.branch(record_id, KEY, start, title="what if", author="Prof. Rossi").to_json()
    vid = UUID(summary["id"])
    assert summary["from_step"] == start and summary["last_step"] == start and summary["moves"] == 0
    assert summary["parent"] is None and summary["record_id"] == str(record_id) and summary["title"] == "what if"
    assert variations.state_at(vid, start) == state_before(title, k)

    # play the last legal command each time (the main line played something else, most of the time)
    state = state_before(title, k)
    expected_step = start
    for _ in range(6):
        legal = variations.legal(vid).to_json()
        assert legal["step"] == expected_step
        assert [c["command"] for c in legal["commands"]] == [c.to_json() for c in game.legal(state)]
        assert all(isinstance(c["said"], str) and c["said"] for c in legal["commands"])
        choice = legal["commands"][-1]["command"]
        answer = variations.play(vid, KEY, choice).to_json()
        assert answer["chance"] == DRAWN and answer["id"] == str(vid)
        first, last = answer["steps"]
        assert first == expected_step + 1 and last >= first
        assert [e["step"] for e in answer["events"]] == list(range(first, last + 1))
        assert answer["said"], "the move list says something of every command"
        # the stored entry, decided again by the engine with its own outcomes, gives the same events
        entry = Entry.from_json(variations.entries(vid)[-1])
        produced, state = play(game, state, game.parse_command(choice), ObservedChance.of(entry.outcomes))
        assert [e.to_json() for e in produced] == [{k: v for k, v in e.items() if k != "step"} for e in answer["events"]]
        assert variations.state_at(vid, last) == state
        assert answer["pending"] == game.pending(state).to_json()
        expected_step = last
        if answer["finished"]:
            break

    line = variations.line(record_id, str(vid))
    assert (line.first_step, line.last_step, line.title, line.seats) == (start, expected_step, title, NAMES)
    main = variations.line(record_id, None)
    assert (main.first_step, main.finished, main.line) == (0, True, None)
    assert variations.line(record_id, "main") == main
    assert main.last_step == played(title).event_count

    # a step before the branch is the parent's; a step of the variation is the variation's
    step = variations.step(vid, start + 1).to_json()
    assert step["line"] == str(vid) and step["view_of"] == "all" and step["steps"] == expected_step
    assert step["view"] == game.view(variations.state_at(vid, start + 1), None)
    assert step["event"] == variations.entries(vid)[0]["events"][0]["type"]
    assert "scores" in step
    with records.access.reading(record_id) as timeline:
        assert variations.state_at(vid, start - 1) == timeline.state_at(start - 1)
        assert variations.step(vid, start).to_json()["event"] == timeline.events[start - 1].type
    with pytest.raises(NotFound):
        variations.step(vid, expected_step + 1)

    told = variations.story(vid).to_json()
    assert told["steps"] == expected_step and told["view_of"] == "all"
    assert told["lines"] and all(start < line["step"] <= expected_step for line in told["lines"])
    assert {line["player"] for line in told["lines"]} <= set(NAMES)
    marked_as_met(variations, vid, told)

    drawn: list[tuple[Any, Any]] = []

    def draw(title_: str, view: Any, previous: Any, edition: Any, names: list[str]) -> str:
        drawn.append((view, previous))
        assert title_ == title and names == NAMES
        return f"<svg data-round='{view.get('round')}'/>"

    svg = variations.board(vid, start + 1, draw)
    assert svg.startswith(b"<svg")
    assert drawn == [(step["view"], game.view(state_before(title, k), None))]

    # the game's stream is untouched
    assert version(records, record_id) == before
    assert [s["id"] for s in as_json(variations.of_record(record_id))] == [str(vid)]


def test_board_draws_with_the_viewer(records: Records) -> None:
    """The real drawing of the viewer, as the API serves a variation's board."""
    from replay_viewer.boards import draw

    record_id, _ = finished(records, "citta-stato")
    variations = Variations(records)
    vid = UUID(variations.branch(record_id, KEY, entry_steps("citta-stato")[2]).id)
    variations.play(vid, KEY, variations.legal(vid).to_json()["commands"][0]["command"])
    last = variations.summary(vid).last_step
    svg = variations.board(vid, last, draw)
    assert svg.lstrip().startswith(b"<svg") and b"</svg>" in svg
    assert variations.board(vid, last, draw) is svg  # kept: a step's board never changes


def marked_as_met(variations: Variations, vid: UUID, told: dict[str, Any]) -> None:
    """Each story line of an entry that met chance says where it came from: the variation's seed ("service",
    recomputable) or its author's choice ("transcriber", a person's word); a line of an entry without chance, nothing."""
    spans, at = [], variations.summary(vid).from_step
    for entry in variations.entries(vid):
        spans.append((at, at + len(entry["events"]), entry))
        at += len(entry["events"])
    for line in told["lines"]:
        entry = next(e for a, b, e in spans if a < line["step"] <= b)
        expected = ("service" if entry["chance"] == DRAWN else "transcriber") if entry["outcomes"] else None
        assert line.get("by") == expected, (line, entry["chance"])


def chance_point(title: str) -> tuple[int, dict[str, Any], list[Outcome]]:
    """A command entry of the module's game that met chance: (its 1-based index, command, outcomes)."""
    for k, entry in enumerate(played(title).entries[1:], start=1):
        if entry.outcomes:
            assert entry.command is not None
            return k, dict(entry.command), list(entry.outcomes)
    pytest.skip(f"the module's {title} game met no chance after its setup")


@pytest.mark.parametrize("title", TITLES)
def test_chance_drawn_or_chosen_by_the_author(records: Records, title: str) -> None:
    record_id, _ = finished(records, title)
    variations = Variations(records)
    game = catalog.game(title)
    k, command, outcomes = chance_point(title)
    start = entry_steps(title)[k - 1]

    # the author gives the outcomes the table met: the variation repeats the main line's entry
    chosen = UUID(variations.branch(record_id, KEY, start).id)
    answer = variations.play(chosen, KEY, command, outcomes=[o.to_json() for o in outcomes]).to_json()
    assert answer["chance"] == AUTHOR
    assert [{k: v for k, v in e.items() if k != "step"} for e in answer["events"]] == \
        [e.to_json() for e in played(title).entries[k].events]
    assert variations.entries(chosen)[0]["outcomes"] == [o.to_json() for o in outcomes]
    assert variations.summary(chosen).chance == [AUTHOR]

    # without outcomes, chance is drawn from the variation's own seed, entry by entry
    drawn = UUID(variations.branch(record_id, KEY, start).id)
    answer = variations.play(drawn, KEY, command).to_json()
    assert answer["chance"] == DRAWN
    seed = variations.exported(drawn)["seed"]
    assert isinstance(seed, str) and len(seed) == 32
    seeded = recordfile.live_chance(seed, 0)
    produced, _ = play(game, state_before(title, k), game.parse_command(command), seeded)
    assert variations.entries(drawn)[0]["outcomes"] == [o.to_json() for o in seeded.log]
    assert [e.to_json() for e in produced] == [{k: v for k, v in e.items() if k != "step"} for e in answer["events"]]
    assert variations.summary(drawn).chance == [DRAWN]
    other = UUID(variations.branch(record_id, KEY, start).id)
    assert variations.exported(other)["seed"] != seed  # a fresh seed for every variation

    # an outcome the rules cannot have met: 422 naming the chance rule, nothing stored
    impossible = [{**outcomes[0].to_json(), "values": ["no-such-thing"] * max(1, len(outcomes[0].values))},
                  *[o.to_json() for o in outcomes[1:]]]
    with pytest.raises(Invalid) as caught:
        variations.play(other, KEY, command, outcomes=impossible)
    assert caught.value.status == 422 and str(caught.value.facts["rule"]).startswith("chance/")
    too_many = [*[o.to_json() for o in outcomes], outcomes[0].to_json()]
    with pytest.raises(Invalid) as caught:
        variations.play(other, KEY, command, outcomes=too_many)
    assert caught.value.facts["rule"] == "chance/unused-outcome"
    with pytest.raises(Invalid) as caught:
        variations.play(other, KEY, command, outcomes=[{"kind": "draw"}])
    assert caught.value.facts["rule"] == "command/outcomes"
    assert variations.summary(other).moves == 0 and variations.entries(other) == []


def test_refused_and_malformed_commands_store_nothing(records: Records) -> None:
    title = "citta-stato"
    record_id, tokens = finished(records, title)
    variations = Variations(records)
    game = catalog.game(title)
    k = 3
    vid = UUID(variations.branch(record_id, KEY, entry_steps(title)[k - 1]).id)
    state = state_before(title, k)
    legal = game.legal(state)[0].to_json()
    wrong_seat = {**legal, "seat": 1 - legal["seat"]}
    with pytest.raises(RuleViolation) as engine:
        play(game, state, game.parse_command(wrong_seat), ObservedChance([]))
    before = version(records, record_id)

    with pytest.raises(Refused) as caught:
        variations.play(vid, KEY, wrong_seat)
    assert caught.value.status == 422
    assert caught.value.rule == engine.value.rule and caught.value.facts["rule"] == engine.value.rule
    # the rules write "seat 1"; a teacher reads the players' names, the sentence otherwise the same
    assert "seat " in caught.value.message
    said = caught.value.said
    assert said is not None and "seat " not in said, said
    assert any(name in said for name in NAMES), said
    with pytest.raises(Invalid) as malformed:
        variations.play(vid, KEY, {"type": "citta-stato/no-such-command", "seat": 0})
    assert malformed.value.facts["rule"] == "command/malformed"
    with pytest.raises(Invalid) as malformed:
        variations.play(vid, KEY, {"seat": 0})
    assert malformed.value.facts["rule"] == "command/malformed"

    # who may play: the annotator key only
    with pytest.raises(Unauthorized):
        variations.play(vid, None, legal)
    with pytest.raises(Forbidden):
        variations.play(vid, tokens[legal["seat"]], legal)
    with pytest.raises(Forbidden):
        variations.play(vid, "not-the-key", legal)
    assert variations.summary(vid).moves == 0 and variations.summary(vid).last_step == entry_steps(title)[k - 1]
    assert variations.entries(vid) == []
    assert version(records, record_id) == before
    variations.play(vid, KEY, legal)  # and the right command with the key is taken
    assert variations.summary(vid).moves == 1


def test_who_may_branch_and_from_where(records: Records) -> None:
    title = "la-citta"
    record_id, tokens = finished(records, title)
    variations = Variations(records)
    steps = entry_steps(title)
    with pytest.raises(Unauthorized):
        variations.branch(record_id, None, steps[0])
    with pytest.raises(Forbidden):
        variations.branch(record_id, tokens[0], steps[0])
    with pytest.raises(Forbidden):
        variations.branch(record_id, "someone-else", steps[0])
    with pytest.raises(NotFound):
        variations.branch(uuid4(), KEY, steps[0])

    # a step inside an entry of several events is no decision point: the nearest ones are named
    sizes = [len(e.events) for e in played(title).entries[1:]]
    k = next(i for i, size in enumerate(sizes) if size > 1 and i > 0)
    inside = steps[k] + 1
    with pytest.raises(Invalid) as caught:
        variations.branch(record_id, KEY, inside)
    assert caught.value.facts["rule"] == "variation/step"
    assert caught.value.facts["nearest"] == [steps[k], steps[k + 1]]
    assert str(steps[k]) in caught.value.message and str(steps[k + 1]) in caught.value.message
    for bad in (0, -1, played(title).event_count + 5, "7"):
        with pytest.raises(Invalid):
            variations.branch(record_id, KEY, bad)  # type: ignore[arg-type]
    with pytest.raises(Invalid):
        variations.branch(record_id, KEY, steps[0], title="x" * 500)
    with pytest.raises(NotFound):
        variations.branch(record_id, KEY, steps[0], parent=str(uuid4()))
    assert as_json(variations.of_record(record_id)) == []

    # the last step is a decision point of a line; there, a finished game takes no more commands
    last = variations.branch(record_id, KEY, played(title).event_count).to_json()
    assert last["finished"] is True and last["pending"]["kind"] == "game-over"
    assert variations.legal(UUID(last["id"])).to_json()["commands"] == []
    with pytest.raises(Conflict):
        variations.play(UUID(last["id"]), KEY, played(title).entries[1].command or {})
    assert variations.line(record_id, last["id"]).finished is True


def test_a_record_in_progress_gets_no_variations(records: Records) -> None:
    record_id, tokens = records.play.start("citta-stato", NAMES, annotator_key=KEY)
    variations = Variations(records)
    steps = records.reading.summary(record_id).steps
    with pytest.raises(Conflict) as caught:
        variations.branch(record_id, KEY, steps)
    assert "in progress" in caught.value.message
    with pytest.raises(Conflict):
        variations.restore(record_id, {"from_step": steps, "entries": []}, None)
    line = variations.line(record_id, None)  # a line still: notes may be written on a game in progress
    assert line.finished is False and line.last_step == steps
    assert as_json(variations.of_record(record_id)) == []


def test_nested_variation_continues_its_parent(records: Records) -> None:
    title = "serenissima"
    record_id, _ = finished(records, title)
    variations = Variations(records)
    game = catalog.game(title)
    start = entry_steps(title)[5]
    parent = UUID(variations.branch(record_id, KEY, start, title="first idea").id)
    for _ in range(4):
        variations.play(parent, KEY, variations.legal(parent).to_json()["commands"][0]["command"])
    parent_line = variations.line(record_id, str(parent))
    # from the parent's second command on
    second = variations.summary(parent).from_step + len(variations.entries(parent)[0]["events"])
    child = variations.branch(record_id, KEY, second, parent=str(parent), title="second idea").to_json()
    cid = UUID(child["id"])
    assert child["parent"] == str(parent) and child["from_step"] == second
    assert variations.state_at(cid, second) == variations.state_at(parent, second)
    assert variations.state_at(cid, start) == state_before(title, 6)
    answer = variations.play(cid, KEY, variations.legal(cid).to_json()["commands"][-1]["command"]).to_json()
    assert answer["steps"][0] == second + 1
    assert variations.step(cid, second).to_json()["view"] == game.view(variations.state_at(parent, second), None)
    assert variations.line(record_id, str(cid)).first_step == second
    assert variations.line(record_id, str(parent)) == parent_line  # the parent is not changed by its child
    # from the middle of the parent's entry: no decision point
    inside = [s for s in range(start + 1, parent_line.last_step)
              if s not in variations.decision_steps(record_id, str(parent))[0]]
    if inside:
        with pytest.raises(Invalid) as caught:
            variations.branch(record_id, KEY, inside[0], parent=str(parent))
        assert caught.value.facts["rule"] == "variation/step"
    # beyond the parent's last step
    with pytest.raises(Invalid):
        variations.branch(record_id, KEY, parent_line.last_step + 1, parent=str(parent))
    assert [s["id"] for s in as_json(variations.of_record(record_id))] == [str(parent), str(cid)]

    # a line of another record is not this record's
    other_id, _ = finished(records, "citta-stato")
    with pytest.raises(NotFound):
        variations.line(other_id, str(cid))
    with pytest.raises(NotFound):
        variations.branch(other_id, KEY, entry_steps("citta-stato")[0], parent=str(cid))
    with pytest.raises(NotFound):
        variations.line(record_id, "not-a-uuid")
    with pytest.raises(NotFound):
        variations.summary(record_id)  # a record is no variation


def test_restore_gives_the_same_events(records: Records) -> None:
    title = "citta-stato"
    record_id, _ = finished(records, title)
    variations = Variations(records)
    k, command, outcomes = chance_point(title)
    start = entry_steps(title)[k - 1]
    vid = UUID(variations.branch(record_id, KEY, start, title="imported", author="Ada").id)
    variations.play(vid, KEY, command, outcomes=[o.to_json() for o in outcomes])
    for _ in range(5):
        legal = variations.legal(vid).to_json()["commands"]
        if not legal:
            break
        variations.play(vid, KEY, legal[-1]["command"])
    child = UUID(variations.branch(record_id, KEY, variations.summary(vid).to_json()["last_step"], parent=str(vid)).id)
    variations.play(child, KEY, variations.legal(child).to_json()["commands"][0]["command"])
    exported = variations.exported(vid)
    before = version(records, record_id)
    marked_as_met(variations, vid, variations.story(vid).to_json())  # the author's outcomes and the drawn ones

    # on a second copy of the same game (an import makes a new record)
    copy_id, _ = finished(records, title)
    restored = variations.restore(copy_id, exported, None)
    assert restored != vid
    assert variations.entries(restored) == variations.entries(vid)
    again = variations.summary(restored).to_json()
    assert (again["title"], again["author"], again["from_step"], again["chance"]) == ("imported", "Ada", start,
                                                                                     variations.summary(vid).chance)
    assert variations.exported(restored)["seed"] == exported["seed"]
    nested = variations.restore(copy_id, variations.exported(child), str(restored))
    assert variations.entries(nested) == variations.entries(child)
    assert variations.summary(nested).parent == str(restored)
    last = variations.summary(child).last_step
    assert variations.state_at(nested, last) == variations.state_at(child, last)
    assert [s["id"] for s in as_json(variations.of_record(copy_id))] == [str(restored), str(nested)]
    assert version(records, record_id) == before

    # a tampered entry: 422 naming it, nothing stored
    tampered = {**exported, "entries": [dict(e) for e in exported["entries"]]}
    tampered["entries"][1] = {**tampered["entries"][1], "command": {**tampered["entries"][1]["command"],
                                                                    "seat": 1 - tampered["entries"][1]["command"]["seat"]}}
    with pytest.raises(Invalid) as caught:
        variations.restore(copy_id, tampered, None)
    assert caught.value.facts["entry"] == 1
    written = {**exported, "entries": [dict(e) for e in exported["entries"]]}
    written["entries"][2] = {**written["entries"][2], "events": [*written["entries"][2]["events"],
                                                                 written["entries"][2]["events"][0]]}
    with pytest.raises(Invalid) as caught:
        variations.restore(copy_id, written, None)
    assert (caught.value.facts["entry"], caught.value.facts["rule"]) == (2, "log/event-mismatch")
    redrawn = {**exported, "entries": [dict(e) for e in exported["entries"]]}
    drawn_at = next((i for i, e in enumerate(redrawn["entries"]) if e["chance"] == AUTHOR and e["outcomes"]), None)
    if drawn_at is not None:  # the author's outcomes claimed as drawn: the seed does not give them
        redrawn["entries"][drawn_at] = {**redrawn["entries"][drawn_at], "chance": DRAWN}
        # Under another seed than the variation's own (random) one, what the rules draw for that entry is
        # fixed (same game, same step, same command), and it is not the author's outcomes: refused there.
        with pytest.raises(Invalid) as caught:
            variations.restore(copy_id, {**redrawn, "seed": "other-1"}, None)
        assert (caught.value.facts["rule"], caught.value.facts["entry"]) == ("chance/not-from-seed", drawn_at)
    with pytest.raises(Invalid):
        variations.restore(copy_id, {**exported, "entries": "nope"}, None)
    with pytest.raises(Invalid):
        variations.restore(copy_id, {**exported, "from_step": start + 1}, None)
    assert len(as_json(variations.of_record(copy_id))) == 2


def test_command_words_in_every_title() -> None:
    for title in TITLES:
        game = catalog.game(title)
        state = state_before(title, 2)
        for c in game.legal(state):
            said = command_words(title, c.to_json(), state)
            assert said and "{" not in said
        entry = played(title).entries[1]
        assert command_words(title, dict(entry.command or {})) != ""
    assert command_words("citta-stato", {"type": "citta-stato/pass", "seat": 0}) == \
        catalog.words("citta-stato").vocabulary.write({"type": "citta-stato/pass", "seat": 0})


def test_branches_at_once_are_all_listed(records: Records) -> None:
    """Branches saved side by side each find their place in the record's index (a save that lost the race retries)."""
    record_id, _ = finished(records, "citta-stato")
    variations = Variations(records)
    steps = entry_steps("citta-stato")[:6]
    made = [b["id"] for b in at_once(lambda step: variations.branch(record_id, KEY, step, title=f"from {step}").to_json(), steps)]
    listed = as_json(variations.of_record(record_id))
    assert sorted(s["id"] for s in listed) == sorted(made) and len(made) == len(steps)
    assert sorted(s["from_step"] for s in listed) == steps
