"""Reading records: any step, the events, the turns, the summary, the list, the export and the notation.

Every answer is as its reader may read it: the public, one seat (by its token), or everyone once the game is
over. A finished record's steps never change, so their answers are kept (`steps`).
"""

from __future__ import annotations

import bisect
import copy
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from uuid import UUID

from domain import catalog, transcripts
from domain.kernel import Entry
from domain.kernel.cache import Bounded
from domain.records import chain as chains
from domain.records import dice, recordfile
from domain.records.aggregates import LIVE, SETUP_WAITING, waiting_message
from domain.records.errors import Forbidden, NotFound
from domain.records.readmodels import EventPage, Legal, Listing, RecordFile, RecordRow, Step, Summary, Turn, as_bytes
from domain.records.timeline import Meta, Timeline
from domain.records.turns import round_in_view, turn_ranges
from domain.records.views import pending_as_seen, visible

if TYPE_CHECKING:
    from domain.records.application import Records

STEP_CACHE = 20_000  # answers of finished records' steps kept per process (a few KB each)


def titles() -> list[str]:
    """Titles whose engine is installed and complete (a package without `GAME` is still being written)."""
    found = []
    for title in catalog.TITLES:
        try:
            catalog.game(title)
        except Exception:  # noqa: BLE001  (one title's broken package never takes the service down)
            continue
        found.append(title)
    return found


def by_at(timeline: Timeline, step: int) -> str | None:
    """Who gave the chance outcomes of the entry that caused game event `step` (1-based): "service" or
    "transcriber"; None when that entry met no chance. Entries stored before `by` existed: from the mode."""
    meta = timeline.meta
    assert meta is not None
    index = bisect.bisect_right(meta.entry_starts, step - 1) - 1
    if not 0 <= index < len(timeline.entries):
        return None
    outcomes = timeline.entries[index].get("outcomes") or []
    if not outcomes:
        return None
    return str(outcomes[0].get("by") or dice.by_of(meta.mode))



class Reading:
    """What a record says, step by step and as a whole."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.steps: Bounded[tuple[UUID, int], bytes] = Bounded("steps", STEP_CACHE)

    def step(self, record_id: UUID, n: int, token: str | None) -> Step:
        """The state after the first n game events, as the caller may see it."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            if not 0 <= n <= len(timeline.events):
                raise NotFound(f"step {n} does not exist; this record has steps 0 to {len(timeline.events)}",
                               steps=len(timeline.events))
            state = timeline.state_at(n)
            game = timeline.game
            which, view = visible(game, state, len(meta.seats), meta.finished, seat)  # total at every step (kernel contract)
            pending = game.pending(state)
            shown = pending_as_seen(pending, meta.finished or (seat is not None and seat == pending.seat))
            return Step(n, len(timeline.events), which, view, shown,
                        event=timeline.events[n - 1].type if n > 0 else None,
                        by=by_at(timeline, n) if n > 0 else None,  # where this step's chance outcomes came from (docs/trust.md)
                        scores=game.scores(state) if meta.finished else None)

    def step_json(self, record_id: UUID, n: int, token: str | None) -> bytes:
        """`step` as the API's JSON body. A finished record's steps never change and show every seat the same
        all-seeing view, so their bodies are kept in a bounded cache (whether one may be kept is known only
        under the record's lock, hence here and not at the edge)."""
        with self.records.access.reading(record_id) as timeline:
            assert timeline.meta is not None
            if not timeline.meta.finished:
                return as_bytes(self.step(record_id, n, token))
            self.records.access.seat_of(timeline.meta, token)  # a forged token is refused even where it would change nothing
            key = (record_id, n)
            found = self.steps.get(key)
            if found is None:
                found = as_bytes(self.step(record_id, n, token))
                self.steps.put(key, found)
            return found

    def event_range(self, record_id: UUID, start: int, stop: int | None, token: str | None = None) -> EventPage:
        """Game events [start, stop); their payloads only once the game is over (they carry secrets)."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            total = len(timeline.events)
            stop = total if stop is None else min(stop, total)
            start = max(0, start)
            items = []
            for i in range(start, max(start, stop)):
                e = timeline.events[i]
                items.append({"step": i + 1, **e.to_json()} if meta.finished else {"step": i + 1, "type": e.type, "redacted": True})
            return EventPage(start, max(start, stop), total, not meta.finished, items)

    def turns(self, record_id: UUID, token: str | None = None) -> list[Turn]:
        """Step ranges of the setup and of each turn (consecutive commands by one seat).

        The round is the title's own where its all-seeing view has an integer `round` (only
        that number is read); otherwise a new round starts when a turn's seat is not after
        the previous turn's seat.
        """
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            if not meta.entry_starts:  # shared dice, waiting for its seats: no setup yet
                return [Turn(0, 0, None, None, 0, 0, 0)]
            return list(timeline.kept("turns", lambda: tuple(turn_ranges(
                meta.entry_seats, meta.entry_sizes, meta.seats,
                lambda step: timeline.of_step("round", step, lambda: round_in_view(
                    lambda: timeline.game.view(timeline.state_at(step), None)))))))

    def legal(self, record_id: UUID, token: str | None) -> Legal:
        """The pending decision; its legal commands only for the seat that must decide, or the table key (a game at
        the table: one device enters every seat's choices)."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, seat):
            if meta.waiting:  # shared dice: nothing is decided before every seat has joined
                return Legal(0, meta.version, {"seat": None, "kind": "waiting"}, [], waiting=meta.waiting,
                             note=waiting_message(meta.seats, meta.waiting))
            if meta.awaiting_setup:  # a game at the table started before its deals were entered
                return Legal(0, meta.version, {"seat": None, "kind": "setup"}, [], note=SETUP_WAITING)
            state = timeline.head
            pending = timeline.game.pending(state)
            entry = len(timeline.entries) if meta.dice else None  # shared dice: the log entry the next command becomes
            if pending.over:
                return Legal(len(timeline.events), meta.version, {"seat": pending.seat, "kind": pending.kind}, [], entry)
            if (seat is not None and seat == pending.seat) or self.records.access.is_table(meta, token):
                commands = [c.to_json() for c in timeline.game.legal(state)]
                offered = catalog.choices(meta.title)(state, commands, meta.seats)
                return Legal(len(timeline.events), meta.version, pending.to_json(), commands, entry,
                             choices=[o.to_json(c) for o, c in zip(offered, commands, strict=True)])
            return Legal(len(timeline.events), meta.version, {"seat": pending.seat, "kind": pending.kind}, None, entry,
                         note="the legal commands are shown only to the seat that must decide (send its token) "
                              "or to the table key of a game at the table")

    def summary(self, record_id: UUID, token: str | None = None) -> Summary:
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            return self._summary(record_id, timeline)

    def _summary(self, record_id: UUID, timeline: Timeline) -> Summary:
        meta = timeline.meta
        assert meta is not None
        chance: dict[str, Any] = {
            "commitment": meta.commitment, "seed": meta.revealed_seed,
            "derivation": "entry k (0 = setup): SeededChance(seed + '/' + k)" if meta.mode == LIVE else None}
        if meta.chain_key is not None:  # the chain's key: committed to from the start, revealed with the seed at the end
            chance.update(chain_commitment=chains.key_commitment(meta.chain_key), chain_key=meta.revealed_chain_key)
        if meta.dice == dice.SHARED:
            chance.update(self._shared_dice(meta))
        return copy.deepcopy(Summary(  # the cached metadata stays ours
            id=str(record_id), title=meta.title, edition=meta.edition,
            seats=[{"seat": i, "name": n} for i, n in enumerate(meta.seats)], options=meta.options, mode=meta.mode,
            status="finished" if meta.finished else "in-progress", finished=meta.finished, version=meta.version,
            steps=meta.steps, created=meta.created, chance=chance,
            chain={"head": meta.chain_head, "length": meta.chain_length},
            origin=meta.origin or None, scores=meta.scores if meta.finished else None,
            withdrawn=[{"entry": w["entry"], "seat": w["seat"], "steps": [w["first_step"], w["first_step"] + w["steps"] - 1],
                        "by": w["by"], "consents": w["consents"], "at": w["at"]} for w in timeline.withdrawn] or None,
            withdrawal=meta.withdrawal))

    def _reveal_deadline(self, meta: Meta) -> str | None:
        """When a seat that has not revealed is marked unverifiable: `reveal_hours` after the Finished event."""
        if meta.finished_at is None:
            return None
        try:
            finished = datetime.fromisoformat(meta.finished_at)
        except ValueError:
            return None
        return (finished + timedelta(hours=self.records.reveal_hours)).isoformat()

    def _shared_dice(self, meta: Meta) -> dict[str, Any]:
        """A shared-dice record's protocol state: who joined, who revealed, who is unverifiable (docs/trust.md)."""
        deadline = self._reveal_deadline(meta)
        now = datetime.now(UTC).isoformat()
        seats = [{"seat": k, "commitment": c, **({"secret": meta.secrets[k]} if meta.secrets[k] is not None else {})}
                 for k, c in enumerate(meta.seat_commitments)]
        status = dice.seats_status(seats, meta.finished_at, deadline, now)
        return {"dice": dice.SHARED, "derivation": dice.DERIVATION, "waiting": meta.waiting, "reveal_deadline": deadline,
                "seats": [{**seat, "status": st["status"]} for seat, st in zip(seats, status, strict=True)],
                "unverifiable": [st["seat"] for st in status if st["status"] == "unverifiable"]}

    def find(self, title: str | None = None, player: str | None = None, status: str | None = None) -> list[RecordRow]:
        return [RecordRow(str(s.id), s.title, s.players, s.mode, s.status, s.finished, s.created)
                for s in self.records.directory.find(title, player, status)]

    def listing(self, title: str | None = None, player: str | None = None, status: str | None = None,
                page: int = 1, per_page: int = 20) -> Listing:
        """One page of the records list, newest first; a finished record's item names its winner(s) and
        each seat's final total in ranking order (those are public once the game is over)."""
        total, found = self.records.directory.page(title, player, status, (page - 1) * per_page, per_page)
        items = []
        for s in found:
            row = RecordRow(str(s.id), s.title, s.players, s.mode, s.status, s.finished, s.created)
            if s.finished:
                named = [seat for seat in s.ranking if isinstance(seat, int) and 0 <= seat < len(s.players)]
                row = replace(row, winner=[s.players[seat] for seat in s.winners if 0 <= seat < len(s.players)],
                              scores=[{"name": s.players[seat], "total": s.totals.get(seat)} for seat in named])
            items.append(row)
        return Listing(items, total, page, per_page)

    def export(self, record_id: UUID, token: str | None = None) -> RecordFile:
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            if not meta.finished:
                raise Forbidden("a record is exported once the game is over: its log holds every secret")
            document = copy.deepcopy(recordfile.export(meta, timeline.entries, timeline.withdrawn))  # callers may change it
            if meta.dice == dice.SHARED:  # a seat past the reveal deadline is marked (docs/trust.md)
                unverifiable = set(self._shared_dice(meta)["unverifiable"])
                for seat in document["chance"]["seats"]:
                    if seat["seat"] in unverifiable:
                        seat["unverifiable"] = True
            document["chain"] = {"head": meta.chain_head, "length": meta.chain_length}  # chain.record_items recomputes it
            return RecordFile.of(document)

    def notation(self, record_id: UUID, token: str | None = None, all_seeing: bool = False) -> str:
        """The record in its title's table notation (docs/notation/). Like the export, it holds every
        outcome, so it is served once the game is over (the operator's command line sees all)."""
        with self.records.access.read_as(record_id, token) as (timeline, meta, _):
            if not meta.finished and not all_seeing:
                raise Forbidden("a record's notation is served once the game is over: it holds every draw and card")
            tags = {"Mode": meta.mode}
            if meta.origin and meta.origin.get("import"):
                tags["Import"] = str(meta.origin["import"])
            return transcripts.render_log(meta.title, self.records.edition_of(meta), [Entry.from_json(e) for e in timeline.entries],
                                          meta.seats, meta.options, meta.scores if meta.finished else None, tags)

