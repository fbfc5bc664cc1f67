"""Files that keep everything (issue 14): a record file with its notes and variations, and the lesson file.

A record file (docs/formats/record-json.md) may carry `"annotations"` and `"variations"`; a lesson file
(docs/formats/lesson-json.md) carries a lesson's title, introduction and chapters and, whole, every record
file they point at. Importing either gives back the same notes on the same steps and the same what-if lines
on new ids, re-decided by the rules.

Nothing is half-written: before the real store sees anything, the whole import is rehearsed on a scratch
copy of the service in memory (the same code, the same rules, the same checks), so the first refusal is
found before the first save and reported naming where (record ref, variation ref, entry, note).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain.kernel import Entry
from domain.records import recordfile, studynotation
from domain.records.access import SEAT, new_tokens
from domain.records.errors import Forbidden, Invalid, RecordsError, TooLarge
from domain.records.lessons import MAX_CHAPTERS, MAX_RECORDS
from domain.records.readmodels import RecordFile
from domain.records.readmodels_teaching import FileChapter, LessonFile, LessonImported
from domain.records.rulings import rulings_of
from domain.records.settings import Limits
from domain.records.teaching import Teaching
from domain.transcripts import without_study

if TYPE_CHECKING:
    from domain.records.application import Records

FORMAT = "cronaca-lesson"
VERSION = 1
NOTATION = "cronaca-notation"  # an import's stored notation document: {"format": NOTATION, "text": ...}
SCRATCH = {"PERSISTENCE_MODULE": "eventsourcing.popo"}


# ---- record files ---------------------------------------------------------------------------------


def record_extras(teaching: Teaching, record_id: UUID, token: str | None) -> dict[str, Any]:
    """A record's notes as `token` may read them (the annotator key: all) and its variations (public:
    a finished record's lines show nothing its seats could not see), in the record file's shapes.

    A variation's `ref` is its id, so a note's `line` names it as it is."""
    notes = [note.to_json() for note in teaching.notes.list(record_id, token).notes]
    variations = []
    for summary in teaching.variations.of_record(record_id):
        exported = teaching.variations.exported(UUID(summary.id))
        variations.append({"ref": summary.id, "parent": summary.parent, "from_step": exported["from_step"],
                           "title": exported["title"], "author": exported["author"], "seed": exported["seed"],
                           "entries": exported["entries"]})
    return {"annotations": notes, "variations": variations}


def record_file(teaching: Teaching, record_id: UUID, token: str | None) -> RecordFile:
    """The record file with its notes and variations. The annotator key reads the record as the public
    does (the game is over) and every note; a seat token as that seat; another token is refused."""
    reader = teaching.records.access.who(record_id, token)
    document = teaching.records.reading.export(record_id, token if reader.kind == SEAT else None)
    extras = record_extras(teaching, record_id, token)
    return replace(document, annotations=extras["annotations"], variations=extras["variations"],
                   rulings=rulings_of(teaching.records, record_id))


def game_alone(document: Any) -> bool:
    """The file holds a game and nothing to attach to its record: a JSON file without "annotations" or
    "variations" (the common import), a notation file without comments or variations."""
    if isinstance(document, Mapping) and document.get("format") != NOTATION:
        return not (document.get("annotations") or document.get("variations"))
    return isinstance(document, Mapping) and without_study(str(document.get("text", "")))


def attach_extras(records: Records, record_id: UUID, document: Any) -> None:
    """Recreate a file's notes and variations on the record its import made: all of them or, when one
    is refused, none (rehearsed first on a scratch copy); the refusal names the variation, entry or note.

    JSON files carry them under "annotations" and "variations"; a notation file in its comments and
    nested lines (domain.records.studynotation.extras, when this service has it). Attaching twice (a
    job run again after a crash) adds nothing: a record that has notes or variations already is left."""
    if game_alone(document):
        return
    extras = _extras_of(records, record_id, document)
    if not extras["annotations"] and not extras["variations"]:
        return
    teaching = Teaching(records)
    if teaching.variations.of_record(record_id) or teaching.notes.all_notes(record_id):
        return
    with _scratch(records) as scratch:
        copy = scratch.records.imports.import_checked(_file_of(records, record_id))
        _restore(scratch, copy, extras)
    _restore(teaching, record_id, extras)


def _file_of(records: Records, record_id: UUID) -> dict[str, Any]:
    """The record as a plain file (finished or not), for its scratch copy."""
    with records.access.reading(record_id) as timeline:
        meta = timeline.meta
        assert meta is not None
        return recordfile.export(meta, timeline.entries)


def _extras_of(records: Records, record_id: UUID, document: Any) -> dict[str, list[dict[str, Any]]]:
    """The notes and variations a stored import document carries, in the record file's shapes."""
    if isinstance(document, Mapping) and document.get("format") == NOTATION:
        return _notation_extras(records, record_id, str(document.get("text", "")))
    if not isinstance(document, Mapping):
        return {"annotations": [], "variations": []}
    try:
        header, _ = recordfile.parse(document, Limits.from_env(records.env))
    except recordfile.BadRecordFile as exc:  # the import's own checks let it through: not expected
        raise Invalid(exc.message, rule=exc.rule, **exc.facts) from exc
    return {"annotations": header.annotations, "variations": header.variations}


def _notation_extras(records: Records, record_id: UUID, text: str) -> dict[str, list[dict[str, Any]]]:
    """A notation file's comments and nested lines, read by the notation's own reader (studynotation.py)."""
    with records.access.reading(record_id) as timeline:
        meta = timeline.meta
        assert meta is not None
        entries = [Entry.from_json(e) for e in timeline.entries]
        title = meta.title
    found = studynotation.extras(text, entries, title)
    try:  # the same shapes and limits as a JSON file's
        variations = recordfile.read_variations(found.get("variations") or [], Limits.from_env(records.env))
        annotations = recordfile.read_annotations(found.get("annotations") or [], {v["ref"] for v in variations})
    except recordfile.BadRecordFile as exc:
        raise Invalid(exc.message, rule=exc.rule, **exc.facts) from exc
    return {"annotations": annotations, "variations": variations}


def _restore(teaching: Teaching, record_id: UUID, extras: Mapping[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Variations (parents before children), then the notes in one save with their lines renamed (the
    notes service names a refused note by its index); returns the lines' map (file ref -> new id)."""
    lines: dict[str, str] = {}
    for variation in _parents_first(extras["variations"]):
        parent = lines[variation["parent"]] if variation.get("parent") is not None else None
        with _naming(f"variation {variation['ref']}", variation=variation["ref"]):
            lines[variation["ref"]] = str(teaching.variations.restore(record_id, variation, parent))
    if extras["annotations"]:
        teaching.notes.restore(record_id, [_with_id(note) for note in extras["annotations"]], lines)
    return lines


def _with_id(note: Mapping[str, Any]) -> dict[str, Any]:
    """A note as restored: its id kept, or one made for a note written without (by hand, or in a notation file)."""
    if note.get("id") is not None:
        return dict(note)
    return {**note, "id": f"n-{secrets.token_hex(6)}"}


def _parents_first(variations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The file's variations ordered so that each comes after its parent (parse has refused cycles)."""
    placed: set[str | None] = {None}
    ordered: list[dict[str, Any]] = []
    waiting = list(variations)
    while waiting:
        ready = [v for v in waiting if v.get("parent") in placed]
        if not ready:
            raise Invalid("the variations' parents go round in a circle", rule="file/variations")
        for v in ready:
            ordered.append(v)
            placed.add(v["ref"])
        waiting = [v for v in waiting if v["ref"] not in placed]
    return ordered


@contextmanager
def _naming(where: str, **facts: Any) -> Iterator[None]:
    """A refusal from the services, its message prefixed with where in the file it happened."""
    try:
        yield
    except RecordsError as exc:
        exc.message = f"{where}: {exc.message}"
        exc.args = (exc.message,)
        exc.facts.update({k: v for k, v in facts.items() if v is not None})
        raise


@contextmanager
def _scratch(records: Records) -> Iterator[Teaching]:
    """A throwaway copy of the service in memory, with the real one's limits, for a rehearsal."""
    env = {k: v for k, v in dict(records.env).items() if k.startswith("CRONACA_")}
    scratch = type(records)({**env, **SCRATCH})
    try:
        yield Teaching(scratch)
    finally:
        scratch.close()


# ---- lesson files ---------------------------------------------------------------------------------


def export_lesson(teaching: Teaching, lesson_id: UUID, token: str | None) -> LessonFile:
    """A lesson and, whole, every record its chapters use (with their notes and variations).

    The lesson itself is no secret (its link is the invitation). Each record's notes are those `token`
    may read there: a record's annotator key reads them all, a seat token its seat's, any other token
    (a teacher key, say) or none the public's."""
    structure = teaching.lessons.structure(lesson_id)
    refs: dict[str, str] = {}
    records = []
    for chapter in structure.chapters:
        record_id = str(chapter.record_id)
        if record_id in refs:
            continue
        refs[record_id] = f"r{len(refs) + 1}"
        reader = token if _opens(teaching, UUID(record_id), token) else None
        records.append((refs[record_id], record_file(teaching, UUID(record_id), reader)))
    chapters = tuple(FileChapter(c.title, c.introduction, refs[str(c.record_id)], c.line, c.from_step, c.to_step)
                     for c in structure.chapters)
    return LessonFile(FORMAT, VERSION, structure.title, structure.introduction, tuple(records), chapters)


def _opens(teaching: Teaching, record_id: UUID, token: str | None) -> bool:
    """Whether a token is this record's annotator key or one of its seats' (not a lesson's teacher key)."""
    if token is None:
        return False
    try:
        teaching.records.access.who(record_id, token)
    except Forbidden:
        return False
    return True


def import_lesson(teaching: Teaching, document: Any) -> LessonImported:
    """A lesson file as a new lesson on new records (new ids, new keys): rehearsed whole in memory first,
    so a bad record, a refused variation or a note on a step that does not exist is a 422 naming where
    and nothing is stored. Returns the lesson, its teacher key, and each file ref's new record id and key."""
    records, chapters = _parse_lesson(document, Limits.from_env(teaching.records.env))
    with _scratch(teaching.records) as scratch:
        _build(scratch, document, records, chapters)
    return _build(teaching, document, records, chapters)


def _build(teaching: Teaching, document: Mapping[str, Any], records: list[tuple[str, dict[str, Any], recordfile.Header]],
           chapters: list[dict[str, Any]]) -> LessonImported:
    """The lesson's records, their variations and notes, then the lesson; chapters name a record by its ref
    and a variation as "<record ref>/<variation ref>" (two files may use the same variation refs)."""
    record_map: dict[str, str] = {}
    keys: dict[str, str] = {}
    line_map: dict[str, str] = {}
    for ref, file, header in records:
        key = new_tokens(1)[0]
        with _naming(f"record {ref}", record=ref):
            record_id = teaching.records.imports.import_checked(_without_extras(file), key)
            lines = _restore(teaching, record_id, {"annotations": header.annotations, "variations": header.variations})
        record_map[ref] = str(record_id)
        keys[ref] = key
        line_map.update({f"{ref}/{old}": new for old, new in lines.items()})
    structure = {"title": document.get("title", ""), "introduction": document.get("introduction") or "",
                 "chapters": [{"title": c.get("title") or "", "introduction": c.get("introduction") or "",
                               "record_id": c["record"], "line": f"{c['record']}/{c['line']}" if c.get("line") is not None else None,
                               "from_step": c["from_step"], "to_step": c["to_step"]} for c in chapters]}
    with _naming("the lesson"):
        lesson, teacher_key = teaching.lessons.rebuild(structure, record_map, line_map)
    return LessonImported(lesson, teacher_key, record_map, keys)


def _without_extras(file: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in file.items() if k not in ("annotations", "variations")}


def _parse_lesson(document: Any, limits: Limits) -> tuple[list[tuple[str, dict[str, Any], recordfile.Header]], list[dict[str, Any]]]:
    """Shapes and references of a lesson file, and each record file's own (recordfile.parse), before any rule runs."""
    def bad(message: str, rule: str = "lesson-file/shape", **facts: Any) -> Invalid:
        return Invalid(message, rule=rule, **facts)

    if not isinstance(document, Mapping):
        raise bad("a lesson file is a JSON object")
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise bad(f'expected "format": "{FORMAT}" and "version": {VERSION}', rule="lesson-file/format",
                  format=document.get("format"), version=document.get("version"))
    title = document.get("title")
    if not isinstance(title, str) or not title.strip() or len(title) > 200:
        raise bad("the lesson's title is a non-empty string of at most 200 characters", field="title")
    if not isinstance(document.get("introduction", ""), str | None):
        raise bad("the lesson's introduction is a string", field="introduction")
    raw_records, raw_chapters = document.get("records"), document.get("chapters")
    if not isinstance(raw_records, list) or not raw_records or len(raw_records) > MAX_RECORDS:
        raise bad(f"records is a list of 1 to {MAX_RECORDS} {{\"ref\", \"file\"}} objects", field="records")
    if not isinstance(raw_chapters, list) or len(raw_chapters) > MAX_CHAPTERS:
        raise bad(f"chapters is a list of at most {MAX_CHAPTERS} objects", field="chapters")
    records: list[tuple[str, dict[str, Any], recordfile.Header]] = []
    seen: set[str] = set()
    for k, item in enumerate(raw_records):
        ref = item.get("ref") if isinstance(item, Mapping) else None
        if not isinstance(ref, str) or not ref or ref in seen or not isinstance(item.get("file"), Mapping):
            raise bad(f"record {k}: each record is {{\"ref\": a name of its own, \"file\": a record file}}", record=k)
        seen.add(ref)
        try:
            header, _ = recordfile.parse(item["file"], limits)
        except recordfile.BadRecordFile as exc:
            refused = TooLarge if isinstance(exc, recordfile.FileTooLarge) else Invalid
            raise refused(f"record {ref}: {exc.message}", rule=exc.rule, record=ref, **exc.facts) from exc
        records.append((ref, dict(item["file"]), header))
    lines = {ref: {v["ref"] for v in header.variations} for ref, _, header in records}
    chapters: list[dict[str, Any]] = []
    for k, chapter in enumerate(raw_chapters):
        if not isinstance(chapter, Mapping):
            raise bad(f"chapter {k} must be an object", chapter=k)
        ref, line = chapter.get("record"), chapter.get("line")
        if ref not in lines:
            raise bad(f"chapter {k}: `record` {ref!r} is none of the file's records ({sorted(lines)})", chapter=k,
                      field="record")
        if line is not None and line not in lines[ref]:
            raise bad(f"chapter {k}: `line` {line!r} is no variation of record {ref} (null is its main line)",
                      chapter=k, field="line")
        for key in ("from_step", "to_step"):
            value = chapter.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise bad(f"chapter {k}: `{key}` is a step number", chapter=k, field=key)
        for key in ("title", "introduction"):
            if not isinstance(chapter.get(key, ""), str | None):
                raise bad(f"chapter {k}: `{key}` is a string", chapter=k, field=key)
        chapters.append(dict(chapter))
    return records, chapters


