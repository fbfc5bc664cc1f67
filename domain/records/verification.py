"""Verifying a record: its stored rows against their hash chain (chain.py), its log re-decided by the rules,
its notes' and rulings' streams; and the parts of a finished record's evidence bundle (evidence.py).

Everything here is read from the STORED rows, never from a cache: that is what a check is for.
"""

from __future__ import annotations

import copy
from importlib import import_module, resources
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any
from uuid import NAMESPACE_URL, UUID, uuid5

from domain import catalog
from domain.kernel.editions import content_hash
from domain.kernel.violations import ALL, reveal
from domain.records import chain as chains
from domain.records import evidence, recordfile
from domain.records.access import seat_in
from domain.records.aggregates import LIVE
from domain.records.errors import Conflict, Forbidden, NotFound
from domain.records.readmodels import RecordFile
from domain.records.readmodels_verification import ChainVerdict, NotesVerdict, RecordVerdict, ReplayVerdict
from domain.records.rulings import rulings_of
from domain.records.timeline import (
    FINISHED,
    HAPPENED,
    STARTED,
    WITHDRAWAL_ASKED,
    WITHDRAWAL_CONSENTED,
    WITHDRAWN,
    Timeline,
    decode_rows,
    paused_collector,
    select_stream,
)

TAKE_BACKS = (WITHDRAWN, WITHDRAWAL_ASKED, WITHDRAWAL_CONSENTED)  # rows between game events that are no game event

if TYPE_CHECKING:
    from domain.records.application import Records

NOTE_EVENTS = ("Annotated", "Edited", "Deleted")


def notes_as_read(rows: list[tuple[int, str, dict[str, Any]]], whole: ChainVerdict | None, seat: int | None
                  ) -> NotesVerdict | None:
    """What `/verify` says of a record's notes stream to a reader of the game in progress (no token: the public;
    a seat's token: that seat): its verdict on the events of the notes this reader may read (for everyone, or
    for its seat, by each note's last audience), never the stream's head, length or versions, which count and
    place every private note. A row of a note it may not read that does not fit its link is said once, without
    where: an honest stream has none, so two records that differ only by private notes answer alike. None when
    there is nothing this reader may read and nothing wrong (a stream of private notes alone, or none).
    `whole`: `stream_verdict(rows)`."""
    audience: dict[str, Any] = {}  # note id -> its last audience
    about: dict[int, str] = {}  # version -> the note its event is about
    for version, topic, payload in rows:
        name = topic.rsplit(".", 1)[-1]
        if name == "Annotated" and isinstance(payload.get("note"), dict):
            note_id = str(payload["note"].get("id"))
            audience[note_id] = payload["note"].get("audience")
        elif name in NOTE_EVENTS:
            note_id = str(payload.get("note_id"))
            changes = payload.get("changes")
            if isinstance(changes, dict) and "audience" in changes:
                audience[note_id] = changes["audience"]
        else:
            continue
        about[version] = note_id
    readable = {v for v, note_id in about.items() if audience.get(note_id) is None or (seat is not None and audience[note_id] == seat)}
    if whole is None or (not readable and whole.ok is not False):
        return None
    view_of = "public" if seat is None else f"seat:{seat}"
    if whole.ok is None:
        return NotesVerdict(None, view_of, len(readable), [], whole.note)
    problems = [{"event": p["event"], "what": str(p["what"]).replace(f" (version {p['version']})", "")}
                for p in whole.problems if p["version"] in readable]
    if any(p["version"] not in readable for p in whole.problems):
        problems.append({"event": None, "what": "a stored row this reader may not read (a private note, the stream's "
                                                "opening) is missing or does not match its link"})
    return NotesVerdict(not problems, view_of, len(readable), problems)



class Verification:
    """`/verify`, the chains of a record's other streams, and the evidence bundle's parts."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def verify(self, record_id: UUID, token: str | None = None) -> RecordVerdict:
        """Recompute the record's chain from its STORED rows (never from a cache) and re-decide its log by the
        rules (recordfile.check on the file those rows make), each problem at its step.

        A row changed in the database no longer matches its link (chain.verify_links: each link against the
        one before it as stored, so one changed row is named alone); a removed row leaves a gap in the stream's
        versions. A record stored before chains has no links: its chain is said to be absent, not broken."""
        # A long record: ~100,000 short-lived objects (rows, items, the replay's states), none kept: with the
        # collector paused they are freed by their counts, and no collection walks the process's whole heap.
        with paused_collector():
            return self._verify(record_id, token)

    def _verify(self, record_id: UUID, token: str | None) -> RecordVerdict:
        rows = decode_rows(self.records.mapper, select_stream(self.records.recorder, record_id))
        if not rows or not rows[0][1].endswith(STARTED):
            raise NotFound(f"no record {record_id}")
        # who may ask: a forged token is refused, as everywhere (from the rows: the cached timeline may not fold them)
        seat = seat_in(rows[0][2].get("token_hashes") or [], token)
        chain = self._verify_chain(rows, STARTED, HAPPENED, FINISHED)
        replay = self._verify_replay(record_id, rows)
        finished = any(topic.endswith(FINISHED) for _, topic, _ in rows)
        streams: dict[str, ChainVerdict | NotesVerdict] = {}  # the record's notes and rulings, each its own chain (annotations.notes_id, rulings)
        for name in ("notes", "rulings"):
            stored = decode_rows(self.records.mapper, select_stream(self.records.recorder, uuid5(NAMESPACE_URL, f"cronaca:{name}:{record_id}")))
            if name == "notes" and not finished:  # in progress: nothing of a note this reader may not read
                part = notes_as_read(stored, self._stream_verdict(stored) if stored else None, seat)
                if part is not None:
                    streams[name] = part
            elif stored:
                streams[name] = self._stream_verdict(stored)
        ok = chain.ok is not False and replay.ok and all(s.ok is not False for s in streams.values())
        return RecordVerdict(ok, chain, replay, streams)

    @staticmethod
    def _verify_chain(rows: list[tuple[int, str, dict[str, Any]]], started: str, happened: str,
                      finished: str) -> ChainVerdict:
        """The chain part of `verify`: the items the rows hold, their stored links, and where they part."""
        first = rows[0][2]
        mode = first.get("mode")
        if first.get("chain") is None:
            return ChainVerdict.absent()
        key = first.get("chain_key")  # None: stored before chain keys, its links unsalted
        promised = chains.key_commitment(key) if key is not None else None
        items: list[dict[str, Any] | bytes] = []  # a game event's item as bytes, by orjson (chains.quick)
        links: list[str | None] = []
        steps: list[int] = []  # the step each item stands at (0: the start; the last step: the end)
        stored: list[tuple[Any, Any] | None] = []  # a game event's (event, entry): its canonical bytes if asked
        problems: list[dict[str, Any]] = []
        head_bytes, quick, event_body = chains.head_bytes, chains.quick, chains.event_item_bytes
        offset: int | None = None  # game event n is stored at version offset + n (the rows before are the start's)
        last_step = 0
        previous_version = 0
        for version, topic, payload in rows:
            is_event = topic.endswith(happened)
            if is_event and offset is None:
                offset = previous_version  # the start's last row (Started, or the seats joining): step 1 follows it
            if version != previous_version + 1:  # rows removed: the versions between are missing
                in_game = offset is not None and (is_event or topic.endswith(finished))
                for missing in range(previous_version + 1, version):
                    step = missing - offset if in_game and offset is not None else None
                    problems.append({"step": step, "what": f"the stored row at version {missing}"
                                     + (f" (game event {step})" if step is not None else "") + " is missing: it was removed"})
            previous_version = version
            if is_event:  # most rows: kept short (5,000 rows a long record, no item dict built)
                assert offset is not None
                last_step = version - offset
                entry, event = payload.get("entry"), payload.get("event")
                head = b"null" if entry is None else head_bytes(entry, mode, quick) if entry.__class__ is dict else quick(entry)
                item: dict[str, Any] | bytes = event_body(last_step, event, head, quick)
                stored.append((event, entry))
                steps.append(last_step)
            elif topic.endswith(started):
                item = chains.started_item(payload["title"], payload["edition"], payload.get("edition_file"),
                                           [str(s) for s in payload["seats"]], payload["options"], payload["mode"],
                                           payload.get("commitment"), payload.get("dice"), promised)
                stored.append(None)
                steps.append(0)
            elif topic.endswith(finished):
                item = chains.finished_item(payload.get("seed"), payload.get("scores"), payload.get("chain_key"))
                stored.append(None)
                steps.append(last_step)
            else:  # the stream's other events (shared dice: joined, revealed) are checked by the dice
                if offset is not None and topic.endswith(TAKE_BACKS):  # a take-back between game events: the next
                    offset += 1 + (int(payload.get("steps", 0)) if topic.endswith(WITHDRAWN) else 0)  # event's step
                continue
            items.append(item)
            links.append(payload.get("chain"))

        def exact(index: int) -> dict[str, Any] | bytes:
            """An item in the contract's canonical bytes, where orjson's did not fit its link."""
            found = stored[index]
            if found is None:
                return items[index]
            event, entry = found
            head = b"null" if entry is None else head_bytes(entry, mode) if entry.__class__ is dict else chains.canonical(entry)
            return event_body(steps[index], event, head)

        for found in chains.verify_links(items, links, exact, key):
            index = found["index"]
            if index >= len(items):
                continue
            item, step = items[index], steps[index]
            part = f"game event {step}" if type(item) is bytes else (
                "the start (title, edition, seats, options, mode, commitment)" if "started" in item else
                "the end (revealed seed, final scores, revealed chain key)")
            if found["found"] is None:
                what = f"{part} carries no link"
            else:
                what = (f"{part} does not match its stored link: the row was changed after it was written, "
                        "or the row before it was")
            problems.append({"step": step, "index": index, "what": what})
        problems.sort(key=lambda p: (p["step"] if p["step"] is not None else -1))
        return ChainVerdict(not problems, links[-1] if links else None, len(items), problems)

    def verify_stream(self, stream_id: UUID) -> ChainVerdict:
        """Another stream's chain (notes, rulings, an import: aggregates.Chained) recomputed from its stored rows:
        {"ok", "head", "length", "problems": [{"version", "event", "what"}]}; ok None for a stream stored before chains."""
        rows = decode_rows(self.records.mapper, select_stream(self.records.recorder, stream_id))
        if not rows:
            raise NotFound(f"no stream {stream_id}")
        return self._stream_verdict(rows)

    @staticmethod
    def _stream_verdict(rows: list[tuple[int, str, dict[str, Any]]]) -> ChainVerdict:
        """`verify_stream` of a stream's stored rows (at least one)."""
        if rows[0][2].get("chain") is None:
            return ChainVerdict.absent()
        problems: list[dict[str, Any]] = []
        items, links, names = [], [], []
        key = rows[0][2].get("chain_key")  # None: stored before chain keys, its links unsalted
        previous_version = 0
        for version, topic, payload in rows:
            for missing in range(previous_version + 1, version):
                problems.append({"version": missing, "event": None, "what": f"the stored row at version {missing} is "
                                 "missing: it was removed"})
            previous_version = version
            name = topic.rsplit(".", 1)[-1]
            items.append(chains.stream_item(name, version, payload))
            links.append(payload.get("chain"))
            names.append((version, name))
        for found in chains.verify_links(items, links, key=key):
            if found["index"] < len(items):
                version, name = names[found["index"]]
                problems.append({"version": version, "event": name, "what": f"{name} (version {version}) "
                                 + ("carries no link" if found["found"] is None else "does not match its stored link: "
                                    "the row was changed after it was written, or the row before it was")})
        problems.sort(key=lambda p: p["version"])
        return ChainVerdict(not problems, links[-1], len(items), problems)

    def _verify_replay(self, record_id: UUID, rows: list[tuple[int, str, dict[str, Any]]]) -> ReplayVerdict:
        """The replay part of `verify`: the stored rows read as a record file and re-decided by the rules
        (recordfile.check, as an import is), its first finding at its step."""
        unfolded = SimpleNamespace(begin=lambda edition: None, evolve=lambda state, event: None)  # read, never fold
        timeline = Timeline(unfolded, lambda meta: None)  # type: ignore[arg-type, return-value]
        try:
            timeline.absorb(rows)
        except Exception as exc:  # noqa: BLE001  (a row changed out of shape: said, never a 500)
            return ReplayVerdict(False, [{"step": None, "rule": "store/unreadable",
                                          "what": f"the stored rows cannot be read as a record: {exc!r}"}])
        meta = timeline.meta
        assert meta is not None
        document = recordfile.export(meta, timeline.entries)
        if meta.mode == LIVE and not meta.finished and meta.seed is not None:
            document["chance"]["seed"] = meta.seed  # in progress: the service's own seed re-derives the draws so far
        try:
            header, raw = recordfile.parse(document, recordfile.STORED)  # stored, not uploaded: no limits
        except recordfile.BadRecordFile as exc:
            return ReplayVerdict(False, [{"step": None, "rule": exc.rule, "what": exc.message}])
        verdict = recordfile.check(header, raw, lambda t, ref, f: self.records.edition(t, ref, f))
        if verdict.ok:
            return ReplayVerdict(True, [], verdict.report.get("entries"), verdict.report.get("events"))
        report = reveal(verdict.report, ALL if meta.finished else None)  # in progress: no seat's secret
        entry, event = report.get("entry_index"), report.get("event_index")
        step = None
        if report.get("rule") == "file/claims":
            step = meta.steps  # what the end says against what the log gives
        elif isinstance(event, int):
            step = event + 1  # the log's event index (kernel.log.replay): game event n is step n
        elif isinstance(entry, int) and 0 <= entry < len(meta.entry_starts):
            step = meta.entry_starts[entry] + 1
        problem = {"step": step, "entry": entry, "rule": report.get("rule"), "what": str(report.get("message"))}
        if meta.finished:  # in progress, a fact may be a draw some seat may not see yet
            problem["facts"] = report.get("facts") or {}
        return ReplayVerdict(False, [problem])

    def evidence_parts(self, record_id: UUID, document: RecordFile | None = None) -> evidence.Parts:
        """What a finished record's evidence bundle is made of (domain/records/evidence.py): the record file
        (`document`, the export with its notes, variations and rulings, when the caller has it), the notation,
        the edition file's bytes and the chain links as stored (read from the rows, never recomputed here)."""
        with self.records.access.reading(record_id) as timeline:
            meta = timeline.meta
            assert meta is not None
            if not meta.finished:
                raise Forbidden("evidence is served once the game is over: its record holds every secret")
            record = copy.deepcopy(document.to_json()) if document is not None else copy.deepcopy(
                recordfile.export(meta, timeline.entries, timeline.withdrawn))
        if meta.edition_file is not None:
            edition = meta.edition_file.encode()
        else:  # the title's own edition file, as the package ships it
            module = catalog.TITLES[meta.title]
            try:
                edition = resources.files(module).joinpath("edition.yaml").read_bytes()
            except (FileNotFoundError, TypeError, NotADirectoryError):  # a one-module title keeps its YAML beside GAME
                edition = getattr(import_module(module), "EDITION_YAML", b"")
            edition = edition.encode() if isinstance(edition, str) else edition
        if content_hash(edition) != meta.edition.get("content_hash"):
            raise Conflict(f"the edition file this service has for {meta.title} is not the one the record was played "
                           f"with ({meta.edition.get('content_hash')})", edition=meta.edition)
        chained = (STARTED, HAPPENED, FINISHED)
        links = [str(payload["chain"]) for _, topic, payload in decode_rows(self.records.mapper, select_stream(self.records.recorder, record_id))
                 if topic.endswith(chained) and payload.get("chain") is not None]
        if "rulings" not in record:  # the plain export: the rulings travel with the record all the same
            record["rulings"] = rulings_of(self.records, record_id)
        rulings_rows = decode_rows(self.records.mapper, select_stream(self.records.recorder, uuid5(NAMESPACE_URL, f"cronaca:rulings:{record_id}")))
        return evidence.Parts(record_id=str(record_id), record=record, notation=self.records.reading.notation(record_id), edition=edition,
                              links=links, rulings_links=[str(p["chain"]) for _, _, p in rulings_rows if p.get("chain") is not None],
                              rulings_key=rulings_rows[0][2].get("chain_key") if rulings_rows else None)
