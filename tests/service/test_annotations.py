"""Annotations (issue 14, spec section 2): notes on the steps of real finished games, who may write and
read them, the board's places, safe Markdown, bad input refused with nothing stored, and the stream's
history keeping every version. Each test runs on SQLite and on the real PostgreSQL (`records`).

The games are random self-played 2-player games of each title (`domain.kernel.selfplay`), played once
per module and imported as record files with an annotator key, as a table's transcriber would.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from domain import catalog
from domain.kernel.notation import parse
from domain.records import Records
from domain.records.annotations import ALL, MAX_SHAPES, MAX_TEXT, Annotations, notes_id, render
from domain.records.errors import Conflict, Forbidden, Invalid, NotFound, RecordsError, TooLarge, Unauthorized, WrongKey
from domain.records.variations import Variations
from tests.service.helpers import at_once, import_finished, places, record_file

TITLES = ["citta-stato", "la-citta", "serenissima"]
KEY = "annotator-key-for-the-tests"


def finished(records: Records, title: str = "serenissima", key: str = KEY) -> tuple[UUID, list[str]]:
    """A finished random game of `title` imported with an annotator key: its id and its seats' tokens."""
    record_id, tokens = import_finished(records, record_file(title, f"notes-{title}"), key)
    assert records.reading.summary(record_id).finished
    return record_id, tokens


def steps(records: Records, record_id: UUID) -> int:
    return int(records.reading.summary(record_id).steps)


def stream(records: Records, record_id: UUID) -> list[Any]:
    """The notes stream's stored events, oldest first, as the library reads them back."""
    return list(records.repository.event_store.get(notes_id(record_id)))


def refused(call: Any, kind: type[RecordsError]) -> RecordsError:
    with pytest.raises(kind) as caught:
        call()
    assert type(caught.value) is kind, caught.value
    return caught.value


@pytest.fixture
def notes(records: Records) -> Annotations:
    return Annotations(records, Variations(records))


# ---- places of each title's board ----------------------------------------------------------------


@pytest.mark.parametrize("title", TITLES)
def test_every_title_names_its_places_and_its_markup_checker_accepts_them(title: str) -> None:
    found = places(title)
    assert found and len(set(found)) == len(found)
    assert all(isinstance(p, str) and p and " " not in p and "," not in p and "-" not in p for p in found)
    if title == "la-citta":  # no markup checker yet: the names docs/notation/la-citta.md gives
        from domain.la_citta.notation import hex_names

        assert found == (*hex_names(), *(f"E{k:02}" for k in range(1, 13)))
        return
    import importlib

    markup_problems = importlib.import_module(catalog.TITLES[title] + ".notation").markup_problems
    text = f'[Title "{title}"]\n{{[%csl {",".join(found)}] [%cal {found[0]}-{found[-1]}]}}\n'
    assert markup_problems(parse(text)) == []
    wrong = f'[Title "{title}"]\n{{[%csl {found[0]}x]}}\n'  # the checker can refuse: a misspelt place is found
    assert [p["place"] for p in markup_problems(parse(wrong))] == [f"{found[0]}x"]


# ---- writing and reading --------------------------------------------------------------------------


@pytest.mark.parametrize("title", TITLES)
def test_the_annotator_writes_a_note_with_shapes_and_everyone_reads_it(records: Records, notes: Annotations,
                                                                       title: str) -> None:
    record_id, _ = finished(records, title)
    board = places(title)
    last = steps(records, record_id)
    body = {"step": last, "text": "**Why** not war?", "glyph": "?!", "author": "Prof. Rossi",
            "shapes": [{"kind": "arrow", "from": board[0].upper(), "to": board[-1].lower(), "brush": "red"},
                       {"kind": "highlight", "at": board[1]},
                       {"kind": "label", "at": board[2], "text": "A", "brush": "blue"}]}
    note = notes.add(record_id, KEY, body).to_json()
    assert note["id"].startswith("n-") and len(note["id"]) == 14
    assert (note["line"], note["step"], note["audience"], note["by"], note["author"]) == (None, last, None, "annotator",
                                                                                          "Prof. Rossi")
    assert note["html"] == "<p><strong>Why</strong> not war?</p>"
    assert note["shapes"] == [{"kind": "arrow", "from": board[0], "to": board[-1], "brush": "red"},
                              {"kind": "highlight", "at": board[1], "brush": "green"},
                              {"kind": "label", "at": board[2], "text": "A", "brush": "blue"}]
    assert note["glyph"] == "?!" and note["edited"] is None and note["created"].endswith("+00:00")
    public = notes.list(record_id, None).to_json()
    assert public == {"notes": [note], "reader": "public", "can_annotate": False}
    assert notes.list(record_id, KEY).to_json()["can_annotate"] is True
    assert notes.all_notes(record_id) == [note]


def test_notes_sit_on_steps_zero_to_the_last_and_are_listed_in_step_order(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "citta-stato")
    last = steps(records, record_id)
    late = notes.add(record_id, KEY, {"step": last, "text": "the end"}).to_json()
    early = notes.add(record_id, KEY, {"step": 0, "glyph": "!"}).to_json()  # a glyph alone is a note
    middle = notes.add(record_id, KEY, {"step": 5, "shapes": [{"kind": "highlight", "at": "war:1"}]}).to_json()
    assert early["text"] == "" and early["html"] == ""
    assert [n["id"] for n in notes.list(record_id, None, "main").to_json()["notes"]] == [early["id"], middle["id"], late["id"]]
    assert notes.list(record_id, None, None).to_json()["notes"] == notes.list(record_id, None, ALL).to_json()["notes"]


def test_a_seat_only_note_is_invisible_to_other_seats_and_the_public(records: Records, notes: Annotations) -> None:
    record_id, (ada, ben) = finished(records)
    everyone = notes.add(record_id, KEY, {"step": 3, "text": "for the class"}).to_json()
    for_ben = notes.add(record_id, KEY, {"step": 4, "text": "Ben: watch the wine", "audience": 1}).to_json()
    adas = notes.add(record_id, ada, {"step": 5, "text": "my plan: Ragusa"}).to_json()
    assert (adas["by"], adas["audience"], adas["author"]) == ("seat:0", 0, "Ada")

    def ids(token: str | None) -> list[str]:
        return [n["id"] for n in notes.list(record_id, token).to_json()["notes"]]

    assert ids(None) == [everyone["id"]]
    assert ids(ada) == [everyone["id"], adas["id"]]
    assert ids(ben) == [everyone["id"], for_ben["id"]]
    assert ids(KEY) == [everyone["id"], for_ben["id"], adas["id"]]
    assert notes.list(record_id, ada).to_json()["reader"] == "seat:0" and notes.list(record_id, ben).to_json()["can_annotate"] is True
    # a note Ben may not see is no note to him: he learns nothing of it, not even that it exists
    assert refused(lambda: notes.edit(record_id, adas["id"], ben, {"text": "x"}).to_json(), NotFound).status == 404
    assert refused(lambda: notes.delete(record_id, adas["id"], ben), NotFound).status == 404


def test_who_may_write_what(records: Records, notes: Annotations) -> None:
    record_id, (ada, ben) = finished(records)
    other_id, (other_ada, _) = finished(records, key="the other record's key")
    public = notes.add(record_id, KEY, {"step": 2, "text": "everyone"}).to_json()
    adas = notes.add(record_id, ada, {"step": 2, "text": "mine", "audience": 0}).to_json()
    bad = [
        (lambda: notes.add(record_id, None, {"step": 1, "text": "x"}).to_json(), Unauthorized),
        (lambda: notes.add(record_id, "the other record's key", {"step": 1, "text": "x"}).to_json(), WrongKey),  # counted by the throttle (api/throttle.py)
        (lambda: notes.add(record_id, other_ada, {"step": 1, "text": "x"}).to_json(), WrongKey),  # counted by the throttle (api/throttle.py)
        (lambda: notes.add(record_id, ada, {"step": 1, "text": "for Ben", "audience": 1}).to_json(), Forbidden),
        (lambda: notes.edit(record_id, public["id"], ada, {"text": "x"}).to_json(), Forbidden),
        (lambda: notes.edit(record_id, adas["id"], ada, {"audience": 1}).to_json(), Forbidden),
        (lambda: notes.edit(record_id, adas["id"], None, {"text": "x"}).to_json(), Unauthorized),
        (lambda: notes.delete(record_id, public["id"], ben), Forbidden),
        (lambda: notes.delete(record_id, adas["id"], "the other record's key"), WrongKey),  # counted by the throttle (api/throttle.py)
        (lambda: notes.add(uuid4(), KEY, {"step": 1, "text": "x"}).to_json(), NotFound),
    ]
    before = stream(records, record_id)
    for call, kind in bad:
        error = refused(call, kind)
        assert error.status in (401, 403, 404) and error.message
    assert len(stream(records, record_id)) == len(before), "a refused write stored nothing"
    assert notes.list(other_id, "the other record's key").to_json()["notes"] == []
    # what each may do
    edited = notes.edit(record_id, adas["id"], ada, {"text": "mine, again", "audience": None}).to_json()
    assert (edited["text"], edited["audience"]) == ("mine, again", 0), "a seat's note stays its seat's"
    assert notes.edit(record_id, adas["id"], KEY, {"glyph": "!!"}).to_json()["glyph"] == "!!"
    notes.delete(record_id, adas["id"], ada)
    notes.delete(record_id, public["id"], KEY)
    assert notes.list(record_id, KEY).to_json()["notes"] == []


def test_bad_input_is_a_clear_error_and_nothing_is_stored(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "serenissima")
    last = steps(records, record_id)
    arrow = {"kind": "arrow", "from": "venezia", "to": "ragusa"}
    cases: list[tuple[dict[str, Any], type[RecordsError], str]] = [
        ({"step": last + 1, "text": "after the end"}, Invalid, "annotation/step"),
        ({"step": -1, "text": "before the start"}, Invalid, "annotation/step"),
        ({"step": "3", "text": "a word"}, Invalid, "annotation/step"),
        ({"text": "no step"}, Invalid, "annotation/step"),
        ({"step": 1, "shapes": [{"kind": "arrow", "from": "venezai", "to": "ragusa"}]}, Invalid, "annotation/place"),
        ({"step": 1, "shapes": [{"kind": "highlight", "at": "L41"}]}, Invalid, "annotation/place"),
        ({"step": 1, "text": "x" * (1 << 20)}, TooLarge, "annotation/too-long"),
        ({"step": 1, "text": "x" * (MAX_TEXT + 1)}, TooLarge, "annotation/too-long"),
        ({"step": 1, "text": "t", "glyph": "?!?"}, Invalid, "annotation/glyph"),
        ({"step": 1, "shapes": [arrow] * (MAX_SHAPES + 1)}, Invalid, "annotation/shapes"),
        ({"step": 1, "shapes": [{**arrow, "brush": "purple"}]}, Invalid, "annotation/brush"),
        ({"step": 1, "shapes": [{"kind": "circle", "at": "venezia"}]}, Invalid, "annotation/shape"),
        ({"step": 1, "shapes": [{"kind": "label", "at": "venezia", "text": "x" * 25}]}, Invalid, "annotation/label"),
        ({"step": 1, "shapes": [{**arrow, "at": "corfu"}]}, Invalid, "annotation/shape"),
        ({"step": 1}, Invalid, "annotation/empty"),
        ({"step": 1, "text": "", "shapes": [], "glyph": None}, Invalid, "annotation/empty"),
        ({"step": 1, "text": "t", "audience": 2}, Invalid, "annotation/audience"),
        ({"step": 1, "text": "t", "author": "x" * 81}, Invalid, "annotation/author"),
        ({"step": 1, "text": "t", "colour": "red"}, Invalid, "annotation/field"),
        ({"step": 1, "text": 42}, Invalid, "annotation/text"),
        ({"line": str(uuid4()), "step": 1, "text": "t"}, NotFound, ""),
        ({"line": "no-such-line", "step": 1, "text": "t"}, NotFound, ""),
    ]
    for body, kind, rule in cases:
        error = refused(lambda body=body: notes.add(record_id, KEY, body).to_json(), kind)  # type: ignore[misc]
        assert error.facts.get("rule", "") == rule, (body, error.message)
        assert error.message
    misspelt = refused(lambda: notes.add(record_id, KEY, {"step": 1, "shapes": [{"kind": "arrow", "from": "venezai",
                                                                                 "to": "ragusa"}]}).to_json(), Invalid)
    assert misspelt.facts["did_you_mean"][0] == "venezia" and "did you mean venezia" in misspelt.message
    assert "shape 0" in misspelt.message
    assert "of the Serenissima board" in misspelt.message, "the title as people write it, not its id"
    after = refused(lambda: notes.add(record_id, KEY, {"step": last + 1, "text": "x"}).to_json(), Invalid)
    assert f"0 to {last}" in after.message and after.facts["last"] == last
    assert stream(records, record_id) == [], "nothing was stored, not even the stream's opening"
    # the same checks hold for an edit: a bad change leaves the note as it was
    note = notes.add(record_id, KEY, {"step": 1, "text": "fine"}).to_json()
    for changes, kind in [({"step": last + 1}, Invalid), ({"glyph": "!!!"}, Invalid), ({"text": "y" * (1 << 20)}, TooLarge),
                          ({"text": "", "shapes": []}, Invalid), ({"by": "seat:0"}, Invalid)]:
        refused(lambda changes=changes: notes.edit(record_id, note["id"], KEY, changes).to_json(), kind)  # type: ignore[misc]
    assert notes.list(record_id, KEY).to_json()["notes"] == [note]
    assert len(stream(records, record_id)) == 2  # Opened, Annotated
    refused(lambda: notes.edit(record_id, "n-000000000000", KEY, {"text": "x"}).to_json(), NotFound)


def test_script_tags_are_stored_as_written_and_rendered_inert(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "la-citta")
    text = ("<script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) "
            "[also](JaVaScRiPt:alert(4)) [data](data:text/html,<b>5</b>) [home](/api/records) "
            "[rules](https://example.org/rules?a=1&b=2) [mail](mailto:teacher@example.org) ~~old~~ `L41` *well*")
    note = notes.add(record_id, KEY, {"step": 1, "text": text}).to_json()
    (stored,) = notes.list(record_id, None).to_json()["notes"]
    assert stored["text"] == text
    html = stored["html"]
    for unsafe in ("<script", "<img", "onerror=alert(2)>", 'href="javascript', 'href="JaVa', 'href="data', 'href="/api'):
        assert unsafe not in html, (unsafe, html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert '<a href="https://example.org/rules?a=1&amp;b=2" target="_blank" rel="nofollow noopener">rules</a>' in html
    assert '<a href="mailto:teacher@example.org" target="_blank" rel="nofollow noopener">mail</a>' in html
    assert "<s>old</s>" in html and "<code>L41</code>" in html and "<em>well</em>" in html
    assert note["html"] == html


def test_the_markdown_subset_is_only_what_the_spec_names() -> None:
    assert render("- a\n- b") == "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"
    assert render("1. first") == "<ol>\n<li>first</li>\n</ol>"
    assert render("# not a heading") == "<p># not a heading</p>"  # headings, tables, images, raw HTML: off
    assert "<img" not in render("![x](https://example.org/x.png)")
    assert render('<a href="https://example.org">x</a>').startswith("<p>&lt;a href=")
    assert render("") == ""


def test_a_teachers_note_reads_as_typed() -> None:
    """What a teacher types: accents, quotes, an apostrophe, emoji, a line break, a paragraph, a bare web address
    in a sentence (a link that opens beside the lesson, the sentence's full stop left out), <b> typed as text."""
    typed = ("L'apertura è \"tranquilla\" — 🎲 ok\nsecond line\n\nSee https://lichess.org/study/abc. "
             "And (https://en.wikipedia.org/wiki/Venice_(disambiguation)), <b>bold?</b> & more")
    html = render(typed)
    assert html.startswith("<p>L'apertura è &quot;tranquilla&quot; — 🎲 ok<br>\nsecond line</p>\n<p>See ")
    assert ('<a href="https://lichess.org/study/abc" target="_blank" rel="nofollow noopener">'
            "https://lichess.org/study/abc</a>. And (") in html
    assert 'href="https://en.wikipedia.org/wiki/Venice_(disambiguation)"' in html and "</a>), " in html
    assert "&lt;b&gt;bold?&lt;/b&gt; &amp; more</p>" in html and "<b>" not in html
    for not_a_link in ("javascript://alert(1)", "xhttps://example.org", "https://", "`https://example.org`"):
        assert "<a " not in render(not_a_link), not_a_link


def test_a_note_of_spaces_and_line_breaks_only_is_empty(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "serenissima")
    for blank in (" ", "  \n\t\n "):
        assert refused(lambda blank=blank: notes.add(record_id, KEY, {"step": 2, "text": blank}).to_json(),
                       Invalid).facts["rule"] == "annotation/empty"
    kept = notes.add(record_id, KEY, {"step": 2, "text": " ", "glyph": "!"}).to_json()  # a glyph is something
    assert refused(lambda: notes.edit(record_id, kept["id"], KEY, {"glyph": None}).to_json(),
                   Invalid).facts["rule"] == "annotation/empty"


def test_editing_and_deleting_are_events_and_the_stream_keeps_every_version(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "citta-stato")
    note = notes.add(record_id, KEY, {"step": 7, "text": "first thought", "shapes": [{"kind": "highlight", "at": "VEN"}]}).to_json()
    edited = notes.edit(record_id, note["id"], KEY, {"text": "second thought", "glyph": "!?"}).to_json()
    assert edited["text"] == "second thought" and edited["glyph"] == "!?" and edited["edited"] is not None
    assert edited["created"] == note["created"] and edited["shapes"] == note["shapes"]
    moved = notes.edit(record_id, note["id"], KEY, {"step": 8, "text": "second thought"}).to_json()  # the text is unchanged
    assert moved["step"] == 8
    assert notes.edit(record_id, note["id"], KEY, {"step": 8}).to_json() == moved  # no change: no event
    notes.delete(record_id, note["id"], KEY)
    assert notes.list(record_id, KEY).to_json()["notes"] == [] and notes.all_notes(record_id) == []
    refused(lambda: notes.edit(record_id, note["id"], KEY, {"text": "x"}).to_json(), NotFound)
    refused(lambda: notes.delete(record_id, note["id"], KEY), NotFound)

    history = stream(records, record_id)
    assert [type(e).__name__ for e in history] == ["Opened", "Annotated", "Edited", "Edited", "Deleted"]
    assert history[0].record_id == str(record_id)
    assert history[1].note["text"] == "first thought" and history[1].note["step"] == 7
    assert history[2].note_id == note["id"] and history[2].changes == {"text": "second thought", "glyph": "!?"}
    assert history[3].changes == {"step": 8}
    assert history[4].note_id == note["id"] and history[4].at >= history[2].at


def test_notes_on_a_variation_follow_its_steps(records: Records, notes: Annotations) -> None:
    record_id, _ = finished(records, "citta-stato")
    variations = notes.variations
    assert variations is not None
    starts = records.timeline(record_id).meta.entry_starts  # type: ignore[union-attr]
    from_step = starts[len(starts) // 2]
    vid = variations.branch(record_id, KEY, from_step, title="what if").id
    command = variations.legal(UUID(vid)).to_json()["commands"][0]["command"]
    variations.play(UUID(vid), KEY, command)
    line = variations.line(record_id, vid)
    assert line.first_step == from_step and line.last_step > from_step
    at_branch = notes.add(record_id, KEY, {"line": vid, "step": from_step, "text": "here it leaves"}).to_json()
    at_end = notes.add(record_id, KEY, {"line": vid.upper(), "step": line.last_step, "glyph": "!!"}).to_json()
    on_main = notes.add(record_id, KEY, {"line": "main", "step": from_step, "text": "the game went on"}).to_json()
    assert at_end["line"] == vid and on_main["line"] is None
    before = refused(lambda: notes.add(record_id, KEY, {"line": vid, "step": from_step - 1, "text": "x"}).to_json(), Invalid)
    assert before.facts["rule"] == "annotation/step" and f"variation {vid}" in before.message
    assert f"{from_step} to {line.last_step}" in before.message
    refused(lambda: notes.add(record_id, KEY, {"line": vid, "step": line.last_step + 1, "text": "x"}).to_json(), Invalid)
    assert [n["id"] for n in notes.list(record_id, None, vid).to_json()["notes"]] == [at_branch["id"], at_end["id"]]
    assert [n["id"] for n in notes.list(record_id, None, "main").to_json()["notes"]] == [on_main["id"]]
    assert [n["id"] for n in notes.list(record_id, None).to_json()["notes"]] == [on_main["id"], at_branch["id"], at_end["id"]]
    moved = notes.edit(record_id, on_main["id"], KEY, {"line": vid, "step": line.last_step}).to_json()
    assert (moved["line"], moved["step"]) == (vid, line.last_step)
    # another record's variation is no line of this one
    other_id, _ = finished(records, "citta-stato")
    refused(lambda: notes.add(other_id, KEY, {"line": vid, "step": from_step, "text": "x"}).to_json(), NotFound)
    refused(lambda: notes.list(other_id, None, vid).to_json(), NotFound)


def test_restore_recreates_notes_with_their_ids_on_renamed_lines_all_or_nothing(records: Records,
                                                                                notes: Annotations) -> None:
    source_id, (ada, _) = finished(records, "serenissima")
    target_id, _ = finished(records, "serenissima")
    variations = notes.variations
    assert variations is not None
    from_step = records.timeline(source_id).meta.entry_starts[3]  # type: ignore[union-attr]
    old_line = variations.branch(source_id, KEY, from_step).id
    new_line = variations.branch(target_id, KEY, from_step).id
    notes.add(source_id, KEY, {"step": 2, "text": "*public*", "author": "Prof. Rossi",
                               "shapes": [{"kind": "arrow", "from": "venezia", "to": "adriatic_s", "brush": "yellow"}]})
    notes.add(source_id, KEY, {"step": 3, "text": "for Ben", "audience": 1})
    notes.add(source_id, ada, {"step": 4, "text": "Ada's own"})
    edited = notes.add(source_id, KEY, {"line": old_line, "step": from_step, "glyph": "?"}).to_json()
    notes.edit(source_id, edited["id"], KEY, {"glyph": "??"})
    exported = notes.all_notes(source_id)
    assert len(exported) == 4

    broken = [dict(n) for n in exported]
    broken[2]["step"] = 10**6
    error = refused(lambda: notes.restore(target_id, broken, {old_line: new_line}), Invalid)
    assert error.message.startswith(f"note 2 ({broken[2]['id']}): ") and error.facts["note"] == 2
    unmapped = refused(lambda: notes.restore(target_id, exported), NotFound)  # the old line is not the new record's
    assert unmapped.facts["note"] == 3
    assert notes.all_notes(target_id) == [] and stream(records, target_id) == []

    notes.restore(target_id, exported, {old_line: new_line})
    restored = notes.all_notes(target_id)
    assert restored == [{**n, "line": new_line if n["line"] == old_line else n["line"]} for n in exported]
    assert [type(e).__name__ for e in stream(records, target_id)] == ["Opened"] + ["Annotated"] * 4, "one save"
    assert [n["by"] for n in restored] == ["annotator", "annotator", "seat:0", "annotator"]
    assert [n["id"] for n in notes.list(target_id, None).to_json()["notes"]] == [exported[0]["id"], exported[3]["id"]]
    again = refused(lambda: notes.restore(target_id, exported, {old_line: new_line}), Conflict)
    assert again.status == 409 and notes.all_notes(target_id) == restored


def test_writers_at_the_same_time_lose_no_note(records: Records, notes: Annotations) -> None:
    record_id, tokens = finished(records, "la-citta")

    def write(token: str) -> None:
        for k in range(6):
            notes.add(record_id, token, {"step": k, "text": f"note {k}"})

    at_once(write, [KEY, *tokens])
    assert len(notes.all_notes(record_id)) == 18
    assert len(stream(records, record_id)) == 19


def test_a_writer_who_saved_first_is_kept_and_the_other_note_is_saved_after_it(records: Records, notes: Annotations,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process appends between this writer's read and its save: the save conflicts, is retried on the
    notes as they now are, and both notes stay."""
    record_id, _ = finished(records, "citta-stato")
    first = notes.add(record_id, KEY, {"step": 1, "text": "first"}).to_json()
    other = Annotations(records, notes.variations)  # another process's service over the same store
    save = records.save
    raced: list[dict[str, Any]] = []
    saves: list[int] = []

    def save_after_the_other(*args: Any, **kwargs: Any) -> Any:
        saves.append(1)
        if not raced:
            raced.append({})  # the other's own save goes straight through
            raced[0] = other.add(record_id, KEY, {"step": 2, "text": "the other's"}).to_json()
        return save(*args, **kwargs)

    monkeypatch.setattr(records, "save", save_after_the_other)
    mine = notes.add(record_id, KEY, {"step": 3, "text": "mine"}).to_json()
    assert len(saves) == 3, "the other's save, this writer's refused one, and its retry"
    assert [n["id"] for n in notes.all_notes(record_id)] == [first["id"], raced[0]["id"], mine["id"]]
    assert [type(e).__name__ for e in stream(records, record_id)] == ["Opened", "Annotated", "Annotated", "Annotated"]
