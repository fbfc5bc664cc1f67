"""Table notation for every installed title: render a log, check a file, reconcile two.

The kernel's notation and checker know no title; this module binds them to the catalog
(each title's `Game` and its `notation.WORDS`) and to its editions. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from domain import catalog
from domain.kernel import Edition, EditionError, Entry, Game
from domain.kernel.dispute import NARROWING_BUDGET, DisputeReport, Finding, check, header_findings, reconcile
from domain.kernel.notation import (
    Notation,
    NotationError,
    Words,
    parse,
    read_seats,
    render,
    write_options,
    write_result,
    write_seats,
)
from domain.kernel.report_words import counted

MEDIA_TYPE = "text/x-cronaca-notation"


def titles() -> list[str]:
    """Titles with both an engine and notation words."""
    found = []
    for title in catalog.TITLES:
        try:
            catalog.game(title)
            catalog.words(title)
        except Exception:  # noqa: BLE001  (a title still being written is simply not offered)
            continue
        found.append(title)
    return found


def game_for(title: str) -> tuple[Game, Words]:
    if title not in catalog.TITLES:
        raise KeyError(title)
    return catalog.game(title), catalog.words(title)


_DEFAULTS: dict[str, tuple[Game, Edition]] = {}  # title -> its game and default edition, read once


def default_edition(game: Game, edition_id: str | None) -> Edition:
    """The title's own edition; a file naming another must come with it (not taken by text import yet).

    Kept per game: building it costs a check of a whole game's time for some titles (schema, tables).
    """
    known = _DEFAULTS.get(game.title)
    if known is None or known[0] is not game:
        known = _DEFAULTS[game.title] = (game, game.default_edition())
    found = known[1]
    if edition_id not in (None, found.id):
        raise EditionError(f"the header names edition {edition_id!r}; this service knows {found.id!r} for "
                           f"{game.title} (a file played with another printing needs its edition file)")
    return found


def check_text(text: str, budget: int = NARROWING_BUDGET, edition_for: Any = None) -> DisputeReport:
    return check(text, game_for, edition_for or default_edition, budget, titles())


def precheck(text: str) -> tuple[Notation | None, list[Finding]]:
    """What can be said of a file before the rules read it: its syntax and its header (title,
    seats, options, result). Cheap enough for the moment of upload."""
    try:
        notation = parse(text)
    except NotationError as exc:
        return None, [Finding("notation", exc.line, "notation/unreadable", exc.message)]
    findings = [Finding("notation", e.line, "notation/syntax", e.message, column=e.column, expected=e.expected)
                for e in notation.errors]
    findings += header_findings(notation, game_for, titles())
    return notation, findings


_TAG_LINE = re.compile(r"""[ \t\f]*\[[ \t\f]*[^\W\d][\w'./+-]*[ \t\f]*"(\\.|[^"\\\n])*"[ \t\f]*\][ \t\f]*\r?""")  # a whole tag
_OUTCOME = re.compile(r"\[[^\]\n\"]*\]")  # an outcome in brackets, no quoted word inside: a `?` in it is a value


def without_study(text: str) -> bool:
    """True when a notation file surely has no notes and no variations (nothing a study adds:
    domain.records.studynotation), told from its characters alone, without parsing it again.

    In kernel.notation.GRAMMAR a comment needs a `{`, a variation a `(`, a glyph a `!` or a `?`
    outside an outcome's brackets (`war O [B R] ?` is a glyph, `war ?` a word: either way, "maybe").
    The header's tags may hold any of them in their quoted values (`[Seats "Ada (red), Bruno"]`),
    so the leading lines that are whole tags are left out. False means only "maybe": the caller
    reads the file properly."""
    rows = text.split("\n")
    start = 0
    while start < len(rows) and (not rows[start].strip() or _TAG_LINE.fullmatch(rows[start])):
        start += 1
    body = "\n".join(rows[start:]) if start else text
    if "{" in body or "(" in body or "!" in body or '"' in body:
        return False
    return "?" not in body or "?" not in _OUTCOME.sub("", body)


def seat_names(notation: Notation) -> list[str]:
    return [name for name, _ in read_seats(notation.tag("Seats") or "")]


def rejected_at_upload(findings: list[Finding]) -> dict[str, Any]:
    """The report of a file refused before its moves were read."""
    return {"ok": False, "notation": True, "findings": [f.to_json() for f in findings], "moves": 0,
            "summary": counted(f"{len(findings)} finding(s) in the header or the syntax; the moves were not read"),
            "file_says_finished": False}


class UnreadableTranscriptError(ValueError):
    """One of two transcripts is not text the notation can read at all (a NUL byte): which one, where, why."""

    def __init__(self, side: str, cause: NotationError) -> None:
        super().__init__(f"the {side} transcript cannot be read: {cause.message} (line {cause.line})")
        self.side = side
        self.line = cause.line
        self.column = cause.column


def reconcile_texts(first: str, second: str, budget: int = NARROWING_BUDGET) -> dict[str, Any]:
    try:
        return reconcile(first, second, game_for, default_edition, budget, titles())
    except NotationError as exc:
        try:
            parse(first)
        except NotationError as in_first:
            raise UnreadableTranscriptError("first", in_first) from in_first
        raise UnreadableTranscriptError("second", exc) from exc


def render_log(title: str, edition: Edition, entries: Sequence[Entry], seats: Sequence[str], options: Mapping[str, Any],
               scores: Mapping[str, Any] | None = None, tags: Mapping[str, str] | None = None, **study: Any) -> str:
    """A record's log in its title's notation, with the header a table would write (`study`: the
    kernel render's `marks` and `after`, for notes and variations: domain/records/studynotation.py)."""
    game, words = game_for(title)
    header: dict[str, str] = {"Title": title, "Edition": edition.id}
    if edition.content_hash != game.default_edition().content_hash:
        header["EditionHash"] = edition.content_hash
    header["Seats"] = write_seats(list(seats))
    header["Options"] = write_options(options)
    if scores and scores.get("finished"):
        totals = {s["seat"]: s["total"] for s in scores.get("seats", [])}
        header["Result"] = write_result(list(seats), [totals.get(i, 0) for i in range(len(seats))])
    header.update(tags or {})
    return render(game, words, edition, entries, seats, header, **study)


def render_record_file(document: Mapping[str, Any], edition: Edition | None = None) -> str:
    """A record file (docs/formats/record-json.md) in its title's notation."""
    title = str(document["title"])
    game = catalog.game(title)
    edition = edition or game.default_edition()
    entries = [Entry.from_json(e) for e in document["entries"]]
    seats = [s["name"] for s in document["seats"]]
    return render_log(title, edition, entries, seats, document.get("options") or {}, document.get("scores"))
