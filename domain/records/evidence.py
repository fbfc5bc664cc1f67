"""The evidence bundle (issue 15): one zip a third party checks offline, with the package alone.

A dispute is settled by evidence both sides accept. The bundle carries everything needed to redo the
service's work without the service: the record file, its notation, the edition it was played with, the
hash chain of its stream, the commitments and revealed secrets, the rulings and the dispute report, and a
manifest of their hashes (docs/formats/evidence.md). `verify` re-derives each part from the others and
from the rules, and says part by part what holds and what does not, and where.

Pure: bytes in, bytes or a report out. No store, no clock, no network.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain import catalog, transcripts
from domain.kernel import (
    ALL,
    Edition,
    EditionError,
    Entry,
    Game,
    MalformedCommand,
    ObservedChance,
    RuleViolation,
    SeededChance,
    commitment,
    play,
    replay,
    reveal,
)
from domain.kernel.editions import content_hash
from domain.records import chain, dice, recordfile
from domain.records.settings import Limits

FORMAT = "cronaca-evidence"
VERSION = 1
MANIFEST = "manifest.json"
RECORD = "record.json"
NOTATION = "notation.txt"
EDITION = "edition.yaml"
CHAIN = "chain.json"
COMMITMENTS = "commitments.json"
RULINGS = "rulings.json"
REPORT = "report.json"
PARTS = (MANIFEST, RECORD, NOTATION, EDITION, CHAIN, COMMITMENTS, RULINGS, REPORT)  # the order the report reads in
MEDIA_TYPE = "application/zip"
MAX_PART = 64 * 1024 * 1024  # bytes of one file once unpacked: a bundle is read whole, so a zip bomb is refused first
MAX_TOTAL = 256 * 1024 * 1024
# A bundle's record file is the service's own export, bounded by MAX_PART: not an upload's limits (a long record
# with its notes may pass 4 MB or 20,000 entries), only a nesting bound that keeps the checks' recursion shallow.
READING = Limits(max_bytes=MAX_PART, max_seats=1_000, max_entries=2**31, max_depth=64)
_STAMP = (1980, 1, 1, 0, 0, 0)  # every member's time: the same record gives the same bytes


class NotABundle(ValueError):  # noqa: N818  (named for what the bytes are not)
    """Bytes that are no evidence bundle at all (not a zip, or a zip holding none of its files): exit 2."""


def sha256(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _json_bytes(obj: Any) -> bytes:
    """A part as people read it: sorted keys, indented, UTF-8 (its hash is over these bytes)."""
    return (json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


# ---- building -------------------------------------------------------------------------------------


@dataclass
class Parts:
    """What a bundle is made of, as the service holds it (Records.evidence_parts)."""

    record_id: str
    record: dict[str, Any]  # the record file as exported (docs/formats/record-json.md)
    notation: str  # the record in its title's notation
    edition: bytes  # the edition file's bytes
    links: list[str]  # the record stream's stored chain links, one per chained item
    rulings: list[dict[str, Any]] | None = None  # None: the record file's own "rulings"
    rulings_links: list[str] = field(default_factory=list)  # the rulings stream's stored links (rulings.py)
    rulings_key: str | None = None  # the rulings stream's chain key, revealed with the record's (None: stored before keys)
    report: dict[str, Any] | None = None  # None: worked out here from the notation


def commitments_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """commitments.json: the service's commitment and revealed seed, each seat's commitment and secret.

    A transcribed record has none: its outcomes are the table's word (`"by": "transcriber"`)."""
    chance = record.get("chance") or {}
    if record.get("mode") != "live":
        return {"mode": record.get("mode"), "service": None, "dice": None, "seats": []}
    seats = [{"seat": s.get("seat"), "commitment": s.get("commitment"), "secret": s.get("secret")}
             for s in chance.get("seats") or [] if isinstance(s, Mapping)]
    return {"mode": "live", "service": {"commitment": chance.get("commitment"), "seed": chance.get("seed")},
            "dice": chance.get("dice") or dice.SERVICE, "seats": seats}


def rulings_items(record_id: str, rulings: Sequence[Mapping[str, Any]], key: str | None = None) -> list[dict[str, Any]]:
    """The chained items of a record's rulings stream (domain/records/rulings.py): its opening (with the commitment
    to its chain key, when it has one), then one per ruling."""
    opened = {"record_id": record_id, **({"chain_key": key} if key is not None else {})}
    return [chain.stream_item("Opened", 1, opened),
            *(chain.stream_item("Ruled", k + 2, {"ruling": ruling}) for k, ruling in enumerate(rulings))]


def check_notation(notation: str, edition: Edition | None = None) -> Any:
    """The dispute checker's reading of a notation file (transcripts.check_text), with the record's own edition
    when it is not the title's default: the checker takes the default alone, and the bundle carries the file."""
    def edition_for(game: Game, edition_id: str | None) -> Edition:
        if edition is not None and edition.title == game.title and edition_id == edition.id:
            return edition
        return transcripts.default_edition(game, edition_id)

    return transcripts.check_text(notation, edition_for=edition_for)


def dispute_report(notation: str, edition: Edition | None = None) -> dict[str, Any]:
    """report.json: the dispute checker's report of the notation, every secret shown (the game is over)."""
    return reveal(check_notation(notation, edition).to_json(), ALL)


def build(parts: Parts) -> bytes:
    """The bundle's bytes: a zip of the parts and a manifest of their SHA-256 hashes, always the same
    bytes for the same parts (fixed member times, fixed order)."""
    rulings = parts.rulings if parts.rulings is not None else list(parts.record.get("rulings") or [])
    report = parts.report
    if report is None:
        edition = catalog.game(str(parts.record.get("title"))).load_edition(parts.edition, EDITION)
        report = dispute_report(parts.notation, edition)
    files: dict[str, bytes] = {
        RECORD: _json_bytes(parts.record),
        NOTATION: parts.notation.encode(),
        EDITION: parts.edition,
        CHAIN: _json_bytes({"links": list(parts.links)}),
        COMMITMENTS: _json_bytes(commitments_of(parts.record)),
        RULINGS: _json_bytes({"rulings": rulings, "links": list(parts.rulings_links),
                              **({"key": parts.rulings_key} if parts.rulings_key is not None else {})}),
        REPORT: _json_bytes(report),
    }
    manifest = {"format": FORMAT, "version": VERSION, "record_id": parts.record_id,
                "files": {name: sha256(raw) for name, raw in files.items()},
                "chain_head": parts.links[-1] if parts.links else None,
                "rulings_head": parts.rulings_links[-1] if parts.rulings_links else None}
    return pack({MANIFEST: _json_bytes(manifest), **files})


def pack(files: Mapping[str, bytes]) -> bytes:
    """Zip these files as a bundle is zipped (also what a test uses to put a tampered bundle back together)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, raw in files.items():
            info = zipfile.ZipInfo(name, date_time=_STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, raw)
    return out.getvalue()


def unpack(bundle: bytes) -> dict[str, bytes]:
    """A bundle's files by name (the first of a name stored twice); NotABundle when it is no zip."""
    return _open(bundle)[0]


# ---- verifying ------------------------------------------------------------------------------------


@dataclass
class Line:
    """What holds and what does not of one part: `checked` says what was re-derived, `problems` where it fails."""

    part: str
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def holds(self, what: str) -> None:
        self.checked.append(what)

    def fails(self, what: str) -> None:
        self.problems.append(what)

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "ok": self.ok, "checked": self.checked, "problems": self.problems}


@dataclass
class Report:
    """One line per part of the bundle (and one per file that has no business in it)."""

    record_id: str | None
    chain_head: str | None
    lines: list[Line]
    rulings_head: str | None = None

    @property
    def ok(self) -> bool:
        return all(line.ok for line in self.lines)

    def line(self, part: str) -> Line:
        return next(line for line in self.lines if line.part == part)

    @property
    def failing(self) -> list[str]:
        return [line.part for line in self.lines if not line.ok]

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "record_id": self.record_id, "chain_head": self.chain_head, "rulings_head": self.rulings_head,
                "parts": [line.to_json() for line in self.lines]}


def _open(bundle: bytes) -> tuple[dict[str, bytes], list[str]]:
    """The zip's files, and the names stored more than once; sizes bounded before anything is unpacked."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(bundle))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise NotABundle(f"not a zip file ({exc}); an evidence bundle is a zip") from exc
    with archive:
        infos = archive.infolist()
        if not any(info.filename in PARTS for info in infos):
            raise NotABundle(f"a zip holding none of an evidence bundle's files ({', '.join(PARTS)})")
        if sum(info.file_size for info in infos) > MAX_TOTAL:
            raise NotABundle(f"the zip unpacks to more than {MAX_TOTAL:,} bytes; no evidence bundle is that large")
        files: dict[str, bytes] = {}
        twice: list[str] = []
        for info in infos:
            if info.filename in files:
                twice.append(info.filename)
                continue
            if info.file_size > MAX_PART:
                raise NotABundle(f"{info.filename} unpacks to {info.file_size:,} bytes; a part holds at most {MAX_PART:,}")
            try:
                with archive.open(info) as member:
                    raw = member.read(MAX_PART + 1)
            except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, EOFError) as exc:
                raise NotABundle(f"{info.filename} cannot be unpacked: {exc}") from exc
            if len(raw) > MAX_PART:
                raise NotABundle(f"{info.filename} unpacks to more than {MAX_PART:,} bytes")
            files[info.filename] = raw
        return files, twice


def verify(bundle: bytes) -> Report:
    """Check every part of a bundle against the others and the rules; never raises for a bad part
    (that is a line of the report), only NotABundle for bytes that are no bundle at all."""
    files, twice = _open(bundle)
    return _Verifier(files, twice).run()


class _Verifier:
    def __init__(self, files: dict[str, bytes], twice: list[str]) -> None:
        self.files = files
        self.twice = twice
        self.lines = {part: Line(part) for part in PARTS}
        self.manifest: dict[str, Any] | None = None
        self.record: dict[str, Any] | None = None
        self.header: recordfile.Header | None = None
        self.game: Game | None = None
        self.edition: Edition | None = None
        self.entries: list[dict[str, Any]] | None = None

    def run(self) -> Report:
        for part in PARTS:
            if part not in self.files:
                self.lines[part].fails("missing from the bundle")
        extra = [Line(name, problems=[f"not a part of an evidence bundle (a bundle holds {', '.join(PARTS)} and nothing else)"])
                 for name in self.files if name not in PARTS]
        for name in self.twice:
            line = self.lines.get(name) or next(x for x in extra if x.part == name)
            line.fails("stored twice in the zip: which copy is the evidence?")
        for part, check in ((MANIFEST, self._manifest), (RECORD, self._record), (EDITION, self._edition),
                            (CHAIN, self._chain), (COMMITMENTS, self._commitments), (NOTATION, self._notation),
                            (RULINGS, self._rulings)):
            try:
                check()
            except Exception as exc:  # noqa: BLE001  (a part shaped as no check foresaw: said on its line, never a crash)
                self.lines[part].fails(f"cannot be checked: {type(exc).__name__}: {exc}")
        manifest = self.manifest or {}
        head, rulings_head, record_id = manifest.get("chain_head"), manifest.get("rulings_head"), manifest.get("record_id")
        return Report(str(record_id) if record_id is not None else None, head if isinstance(head, str) else None,
                      [self.lines[p] for p in PARTS] + extra, rulings_head if isinstance(rulings_head, str) else None)

    def _json(self, part: str) -> Any:
        """A JSON part (every one is an object), or None: missing (said already) or not an object (said here)."""
        raw = self.files.get(part)
        if raw is None:
            return None
        try:
            found = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self.lines[part].fails(f"not JSON: {exc}")
            return None
        if not isinstance(found, dict):
            self.lines[part].fails(f"must be a JSON object, not {recordfile.json_type(found)}")
            return None
        return found

    # ---- manifest.json: the hashes of every other part ----

    def _manifest(self) -> None:
        line = self.lines[MANIFEST]
        found = self._json(MANIFEST)
        if found is None:
            return
        if not isinstance(found, Mapping) or found.get("format") != FORMAT or found.get("version") != VERSION:
            line.fails(f'not a manifest: expected "format": "{FORMAT}" and "version": {VERSION}')
            return
        self.manifest = dict(found)
        listed = found.get("files")
        if not isinstance(listed, Mapping):
            line.fails('"files" must be an object: file name -> SHA-256 hex')
            return
        for name in PARTS[1:]:
            if name not in listed:
                line.fails(f"lists no hash for {name}")
        for name, digest in listed.items():
            if name not in PARTS[1:]:
                line.fails(f"lists {name}, which is no part of an evidence bundle")
            elif name in self.files and digest != sha256(self.files[name]):
                line.fails(f"the SHA-256 of {name} is {sha256(self.files[name])}, the manifest says {digest}")
        hashed = sum(1 for name in PARTS[1:] if name in self.files and listed.get(name) == sha256(self.files[name]))
        if not isinstance(found.get("record_id"), str):
            line.fails('"record_id" must be the record\'s id')
        if line.ok:
            line.holds(f"the SHA-256 of each of the {hashed} other parts is the manifest's")

    # ---- record.json: the log, re-decided by the rules ----

    def _edition_for(self, title: str, ref: Mapping[str, str], file: str | None) -> Edition:
        """The edition the record names: edition.yaml when its hash is the record's, else the file the record
        carries, else the package's own; always the one whose content hash the record pins."""
        game = catalog.game(title)
        candidates: list[tuple[str, Callable[[], Edition]]] = []
        raw = self.files.get(EDITION)
        if raw is not None and content_hash(raw) == ref.get("content_hash"):
            candidates.append((EDITION, lambda: game.load_edition(raw, EDITION)))
        if file is not None:
            candidates.append(("the record's edition.file", lambda: game.load_edition(file.encode(), "edition.file")))
        candidates.append(("the package's own edition", game.default_edition))
        for _, load in candidates:
            edition = load()
            if edition.content_hash == ref.get("content_hash") and edition.id == ref.get("id"):
                return edition
        raise EditionError(f"no edition with content hash {ref.get('content_hash')} is in the bundle or the package")

    def _record(self) -> None:
        line = self.lines[RECORD]
        document = self._json(RECORD)
        if document is None:
            return
        try:
            header, raw_entries = recordfile.parse(document, READING)
        except recordfile.BadRecordFile as exc:
            line.fails(f"not a record file: {exc.rule}: {exc.message}")
            return
        self.record, self.header, self.entries = dict(document), header, raw_entries
        try:
            self.game = catalog.game(header.title)
        except (KeyError, ImportError, AttributeError):
            line.fails(f"this package has no rules for {header.title!r}: the log cannot be re-decided")
            return
        try:
            self.edition = self._edition_for(header.title, header.edition, header.edition_file)
        except EditionError as exc:
            line.fails(f"cannot be re-decided: {exc}")
            return
        verdict = recordfile.check(header, raw_entries, self._edition_for)
        if not verdict.ok:
            report = verdict.report
            where = f"entry {report.get('entry_index')}" if report.get("entry_index") is not None else "the file"
            if report.get("event_index") is not None:
                where += f" (step {int(report['event_index']) + 1})"
            line.fails(f"{where}: {report.get('rule')}: {reveal(report.get('message'), ALL)}")
        else:
            line.holds(f"the rules re-decide all {len(raw_entries)} entries to the same events"
                       + (" and the same final scores" if header.claims.get("scores") else ""))
        if header.mode == "live":
            self._redraw(line, header, raw_entries)

    def _redraw(self, line: Line, header: recordfile.Header, raw_entries: list[dict[str, Any]]) -> None:
        """A live record: every outcome drawn again from the revealed seed (and the seats' contributions)."""
        chance = (self.record or {}).get("chance") or {}
        if header.seed is None:
            line.fails("a live record whose seed is not revealed: its outcomes cannot be drawn again")
            return
        assert self.game is not None and self.edition is not None
        try:
            entries = recordfile.read_entries(raw_entries)
        except recordfile.BadRecordFile as exc:
            line.fails(f"{exc.rule}: {exc.message}")
            return
        seed_of = dice.seeds(chance)
        try:
            report, _ = replay(self.game, self.edition, entries, seeded=lambda k: SeededChance(seed_of(k)))
        except (KeyError, ValueError, TypeError) as exc:  # a contribution the file lacks, a malformed seat
            line.fails(f"the outcomes cannot be drawn again from the seeds: {exc!r}")
            return
        if not report.ok:
            assert report.event_index is not None  # a failed replay names the event it failed at
            problem = f"entry {report.entry_index} (step {report.event_index + 1}): {report.rule}: {reveal(report.message, ALL)}"
            if problem not in line.problems:  # the rules' own re-decision drew from the same seeds and said it already
                line.fails(problem)
        else:
            drawn = sum(len(e.outcomes) for e in entries)
            line.holds(f"all {drawn} outcomes are the draws of the revealed seed"
                       + (" and the seats' contributions" if chance.get("dice") == dice.SHARED else ""))

    # ---- edition.yaml: the printing the game was played with ----

    def _edition(self) -> None:
        line = self.lines[EDITION]
        raw = self.files.get(EDITION)
        if raw is None or self.header is None:
            if raw is not None:
                line.fails("cannot be checked: record.json, which names the edition, is unreadable")
            return
        ref = self.header.edition
        found = content_hash(raw)
        if found != ref.get("content_hash"):
            line.fails(f"its content hash is {found}; the record was played with {ref.get('content_hash')}")
            return
        if self.header.edition_file is not None and self.header.edition_file.encode() != raw:
            line.fails("differs from the edition file record.json carries (edition.file)")
        if self.game is not None:
            try:
                loaded = self.game.load_edition(raw, EDITION)
            except EditionError as exc:
                line.fails(f"not an edition of {self.header.title}: {exc}")
                return
            if loaded.id != ref.get("id"):
                line.fails(f"is edition {loaded.id!r}; the record names {ref.get('id')!r}")
        if line.ok:
            line.holds(f"edition {ref.get('id')}, content hash {found}: the record's")

    # ---- chain.json: the record stream's hash chain ----

    def _chain(self) -> None:
        line = self.lines[CHAIN]
        found = self._json(CHAIN)
        if found is None:
            return
        links = found.get("links") if isinstance(found, Mapping) else None
        if not isinstance(links, list) or not all(isinstance(x, str) for x in links):
            line.fails('expected {"links": [hex, ...]}, one link per chained item of the record stream')
            return
        head = self.manifest.get("chain_head") if self.manifest is not None else None
        if self.manifest is not None and head != (links[-1] if links else None):
            line.fails(f"its last link is {links[-1] if links else None}; the manifest's chain_head is {head}")
        if self.record is None:
            line.fails("cannot be recomputed: record.json is unreadable")
            return
        try:
            items = chain.record_items(self.record)
            key = chain.record_key(self.record)
        except (KeyError, ValueError, TypeError) as exc:
            line.fails(f"cannot be recomputed from record.json: {exc!r}")
            return
        computed = chain.chain_of(items, key=key)
        for wrong in chain.verify_links(items, links, key=key)[:5]:
            where = f"item {wrong.get('index')}" + (f" (step {wrong['step']})" if wrong.get("step") is not None else "")
            line.fails(f"{where}: record.json gives the link {wrong.get('expected')}, chain.json has {wrong.get('found')}")
        if len(links) != len(computed):
            line.fails(f"holds {len(links)} links; record.json makes {len(computed)} chained items")
        said = self.record.get("chain")
        if isinstance(said, Mapping) and computed and (said.get("head") != computed[-1] or said.get("length") != len(computed)):
            line.fails(f"record.json says its chain is {said.get('head')} ({said.get('length')} items); "
                       f"its items give {computed[-1]} ({len(computed)})")
        if line.ok:
            line.holds(f"all {len(links)} links recomputed from record.json; head {computed[-1] if computed else None}")

    # ---- commitments.json: the seeds, committed at the start and revealed at the end ----

    def _commitments(self) -> None:
        line = self.lines[COMMITMENTS]
        found = self._json(COMMITMENTS)
        if found is None:
            return
        if not isinstance(found, Mapping):
            line.fails("must be an object")
            return
        service = found.get("service")
        if isinstance(service, Mapping) and service.get("seed") is not None \
                and commitment(str(service.get("seed"))) != service.get("commitment"):
            line.fails(f"the revealed seed's SHA-256 is {commitment(str(service.get('seed')))}, "
                       f"not the commitment published at the start ({service.get('commitment')})")
        seats = found.get("seats") or []
        if not isinstance(seats, list):
            line.fails("seats must be a list")
            seats = []
        for k, seat in enumerate(seats):
            if not isinstance(seat, Mapping):
                line.fails(f"seats.{k} must be an object")
            elif seat.get("secret") is not None and dice.seat_commitment(str(seat["secret"])) != seat.get("commitment"):
                line.fails(f"seat {seat.get('seat', k)}: the revealed secret does not match its commitment")
        if self.record is None:
            line.fails("cannot be compared: record.json is unreadable")
            return
        expected = commitments_of(self.record)
        for key in sorted(set(expected) | set(found)):
            if found.get(key) != expected.get(key):
                line.fails(f"{key!r} is {json.dumps(found.get(key))}; record.json's chance says {json.dumps(expected.get(key))}")
        for problem in dice.check_reveals(self.record.get("chance") or {}):
            where = f"seat {problem.get('seat')}" + (f", entry {problem['entry']}" if problem.get("entry") is not None else "")
            line.fails(f"{where}: {problem.get('rule')}: {problem.get('what')}")
        if line.ok:
            if expected["mode"] != "live":
                line.holds("a transcribed record: no seed, every outcome asserted by the transcriber")
            else:
                line.holds("the revealed seed matches its commitment"
                           + (f"; {len(expected['seats'])} seat secrets match theirs" if expected["seats"] else ""))

    # ---- notation.txt and report.json: the table's file, checked by the dispute checker ----

    def _notation(self) -> None:
        line, report_line = self.lines[NOTATION], self.lines[REPORT]
        raw = self.files.get(NOTATION)
        if raw is None:
            if REPORT in self.files:
                report_line.fails("cannot be recomputed: notation.txt is missing")
            return
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line.fails(f"not UTF-8 text (byte {exc.start})")
            report_line.fails("cannot be recomputed: notation.txt is unreadable")
            return
        checked = check_notation(text, self.edition)
        computed = reveal(checked.to_json(), ALL)
        if not checked.ok:
            for finding in computed["findings"][:5]:
                line.fails(f"line {finding.get('line')}: {finding.get('rule')}: {finding.get('message')}")
        if self.entries is not None and self.header is not None:
            self._same_log(line, checked.entries, checked.places)
            if checked.seats != self.header.seats or checked.title != self.header.title:
                line.fails(f"its header names {checked.title} with seats {checked.seats}; record.json "
                           f"{self.header.title} with {self.header.seats}")
        elif self.entries is None:
            line.fails("cannot be compared: record.json is unreadable")
        if line.ok:
            line.holds(f"{checked.moves} moves checked clean; the same log as record.json, entry for entry")
        stated = self._json(REPORT)
        if stated is None:
            return
        if stated != computed:
            keys = sorted(k for k in set(computed) | set(stated if isinstance(stated, Mapping) else {})
                          if not isinstance(stated, Mapping) or stated.get(k) != computed.get(k))
            report_line.fails(f"not the dispute checker's report of notation.txt (differs in {', '.join(keys) or 'shape'})")
        else:
            report_line.holds(f"the dispute checker's report of notation.txt: {computed.get('summary')}")

    def _same_log(self, line: Line, entries: Sequence[Entry] | None, places: Sequence[tuple[int, int]] | None) -> None:
        """notation.txt read by the checker gives record.json's log: commands, outcomes and events."""
        assert self.entries is not None
        if entries is None:
            line.fails("the checker could not read a log from it")
            return
        mine = [_plain(e.to_json()) for e in entries]
        theirs = [_plain(e) for e in self.entries]
        for k, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a != b:
                at = f" (line {places[k][0]})" if places and k < len(places) else ""
                what = next(key for key in ("setup", "command", "outcomes", "events") if a.get(key) != b.get(key))
                line.fails(f"entry {k}{at}: its {what} {'differ' if what in ('outcomes', 'events') else 'differs'} "
                           f"from record.json's entry {k}")
                return
        if len(mine) != len(theirs):
            line.fails(f"gives {len(mine)} log entries; record.json holds {len(theirs)}")

    # ---- rulings.json: what the arbiter decided, corrections re-decided by the rules ----

    def _rulings(self) -> None:
        line = self.lines[RULINGS]
        found = self._json(RULINGS)
        if found is None:
            return
        rulings = found.get("rulings") if isinstance(found, Mapping) else None
        if not isinstance(rulings, list) or not all(isinstance(r, Mapping) for r in rulings):
            line.fails('expected {"rulings": [ruling, ...]}')
            return
        if self.record is None:
            line.fails("cannot be compared: record.json is unreadable")
            return
        carried = self.record.get("rulings") or []
        if carried != rulings:
            ids = [r.get("id") for r in rulings if r not in carried] + [r.get("id") for r in carried if r not in rulings]
            line.fails(f"not the rulings record.json carries (they differ in {', '.join(map(str, ids)) or 'their order'})")
        self._rulings_chain(line, found, rulings)
        if self.game is not None and self.edition is not None and self.entries is not None:
            for ruling in rulings:
                problem = correction_problem(self.game, self.edition, self.entries, ruling)
                if problem is not None:
                    line.fails(f"ruling {ruling.get('id')}: {problem}")
        if line.ok:
            corrections = sum(1 for r in rulings if r.get("correction"))
            links = found.get("links") or []
            if not rulings:
                line.holds("no rulings, as record.json says")
            else:
                line.holds(f"{len(rulings)} ruling(s), the record's, chained to head {links[-1]}; "
                           f"{corrections} correction(s) re-decided by the rules")


    def _rulings_chain(self, line: Line, found: Mapping[str, Any], rulings: list[Any]) -> None:
        """The rulings stream's links recomputed from the rulings: a ruling added, changed or removed afterwards
        breaks them (or, recomputed by a forger, gives another head than the one the service published)."""
        links = found.get("links", [])
        if not isinstance(links, list) or not all(isinstance(x, str) for x in links):
            line.fails('"links" must be the rulings stream\'s chain: a list of hex links')
            return
        head = self.manifest.get("rulings_head") if self.manifest is not None else None
        if self.manifest is not None and head != (links[-1] if links else None):
            line.fails(f"its last link is {links[-1] if links else None}; the manifest's rulings_head is {head}")
        if not links:
            if rulings:
                line.fails(f"{len(rulings)} ruling(s) but no chain: the rulings stream always has one")
            return
        record_id = self.manifest.get("record_id") if self.manifest is not None else None
        key = found.get("key")
        if key is not None and not chain.is_key(key):
            line.fails('"key" must be the rulings stream\'s chain key: 64 lower-case hex digits')
            return
        items = rulings_items(str(record_id), rulings, key)
        for wrong in chain.verify_links(items, links, key=key)[:5]:
            index = int(wrong["index"])
            named = f"ruling {rulings[index - 1].get('id')}" if 1 <= index <= len(rulings) else f"link {index}"
            if index == 0:
                named = "the opening of the rulings stream (its record id)"
            line.fails(f"{named}: the rulings give the link {wrong.get('expected')}, the stream's is {wrong.get('found')}")


def _plain(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as the log compares: its command or setup, its outcomes' values (not who drew them), its events."""
    out: dict[str, Any] = {"events": [dict(e) for e in entry.get("events") or []],
                           "outcomes": [{k: o.get(k) for k in ("kind", "source", "values")} for o in entry.get("outcomes") or []
                                        if isinstance(o, Mapping)]}
    for key in ("setup", "command"):
        if entry.get(key) is not None:
            out[key] = entry[key]
    return json.loads(json.dumps(out))


def correction_problem(game: Game, edition: Edition, raw_entries: Sequence[Mapping[str, Any]],
                       ruling: Mapping[str, Any]) -> str | None:
    """A ruling's correction re-decided: the main line up to `from_step` (a decision point, between two
    entries), then the correction's entries with their own outcomes. None when the rules accept it."""
    correction = ruling.get("correction")
    if correction is None:
        return None
    if not isinstance(correction, Mapping) or not isinstance(correction.get("entries"), list):
        return 'its correction must be {"from_step": n, "entries": [...]}'
    from_step = correction.get("from_step")
    if not isinstance(from_step, int) or isinstance(from_step, bool) or from_step < 0:
        return f"its correction's from_step must be a step number, not {recordfile.json_type(from_step)}"
    try:
        main = recordfile.read_entries(list(raw_entries))
    except recordfile.BadRecordFile as exc:
        return f"the main line cannot be read: {exc.message}"
    state, steps, k = game.begin(edition), 0, 0
    while k < len(main) and steps < from_step:
        for event in main[k].events:
            state = game.evolve(state, event)
        steps += len(main[k].events)
        k += 1
    if steps != from_step:
        return f"its correction starts at step {from_step}, which is no decision point of the main line"
    for index, raw in enumerate(correction["entries"]):
        try:
            entry = Entry.from_json(raw)
            if entry.command is None:
                return f"correction entry {index} has no command"
            chance = ObservedChance.of(entry.outcomes)
            command = game.parse_command(entry.command)
            own_play = getattr(game, "play", None)
            produced, state = own_play(state, command, chance) if own_play is not None else play(game, state, command, chance)
            if chance.has_unused:
                return f"correction entry {index}: chance/unused-outcome: outcomes the rules never asked for"
            if entry.events and tuple(produced) != entry.events:
                return f"correction entry {index}: its events are not those the rules give"
        except MalformedCommand as exc:
            return f"correction entry {index}: log/malformed-command: {exc.message}"
        except RuleViolation as exc:
            return f"correction entry {index} (after step {from_step}): {exc.rule}: {exc.message}"
        except (ValueError, KeyError, TypeError) as exc:
            return f"correction entry {index} cannot be read: {exc}"
    return None
