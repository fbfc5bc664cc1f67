"""Playing records to the end through the application or the HTTP API, and finished games imported as record files."""

from __future__ import annotations

import copy
import http.client
import importlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar
from uuid import UUID

from domain import catalog
from domain.kernel import SeededChance
from domain.kernel.bots import GreedyBot, play_bot
from domain.kernel.selfplay import PlayedGame, play_random
from domain.records import Records, recordfile

NAMES = ["Ada", "Ben"]
TOY = "tests.kernel.toy_game"  # the kernel's toy title, a catalogue entry the service tests add (tests/service/conftest.py)


@contextmanager
def toy_registered() -> Iterator[None]:
    """The toy title in the catalog while a module's app lives (the autouse `toy_title` fixture is one test's), and
    the catalog as it was afterwards: a later test in the process counting the titles finds only the real ones."""
    before = catalog.TITLES.get("toy")
    catalog.TITLES["toy"] = TOY
    try:
        yield
    finally:
        if before is None:
            catalog.TITLES.pop("toy", None)
        else:
            catalog.TITLES["toy"] = before
T = TypeVar("T")
R = TypeVar("R")


def play_out(records: Records, record_id: UUID, tokens: list[str], seed: str = "players", limit: int = 10_000) -> int:
    """Random legal commands until the game ends; returns how many were played."""
    players = SeededChance(seed)
    for played in range(limit):
        timeline = records.timeline(record_id)
        game = timeline.game
        if game.pending(timeline.head).over:
            return played
        choices = game.legal(timeline.head)
        cmd = choices[players.below(len(choices))]
        records.play.command(record_id, cmd.to_json(), tokens[cmd.seat])
    raise AssertionError("the game did not end")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_out_http(client: Any, record_id: str, tokens: list[str], seed: str = "players", limit: int = 10_000,
                  must_finish: bool = True) -> int:
    """Random legal commands over HTTP, each seat with its own token; returns how many were played."""
    players = SeededChance(seed)
    for played in range(limit):
        summary = client.get(f"/api/records/{record_id}").get_json()
        if summary["finished"]:
            return played
        pending = client.get(f"/api/records/{record_id}/legal").get_json()["pending"]
        legal = client.get(f"/api/records/{record_id}/legal", headers=auth(tokens[pending["seat"]])).get_json()
        cmd = legal["commands"][players.below(len(legal["commands"]))]
        answer = client.post(f"/api/records/{record_id}/commands", json={"command": cmd, "version": legal["version"]},
                             headers=auth(tokens[pending["seat"]]))
        assert answer.status_code == 200, answer.get_json()
    if must_finish:
        raise AssertionError("the game did not end")
    return limit


# ---- finished games of the real titles, imported as a table's transcriber sends them ------------------------

_played: dict[tuple[str, str, bool, str], PlayedGame] = {}


def played_game(title: str, seed: str, options: Mapping[str, Any] | None = None, greedy: bool = False) -> PlayedGame:
    """A finished 2-player game of `title` from `seed` (played once per test run: games are the slow part).

    Random legal play by default (milliseconds); `greedy` has a shallow greedy bot play every seat, for
    games that read like real ones (scores that differ, turns that build) in about half the default bot's time.
    """
    options = {"players": 2, **(options or {})}
    key = (title, seed, greedy, json.dumps(options, sort_keys=True))
    if key not in _played:
        game = catalog.game(title)
        edition = game.default_edition()
        _played[key] = (play_bot(game, edition, options, seed, bot=GreedyBot(turns=1, steps=8, width=4)) if greedy
                        else play_random(game, edition, options, seed))
    return _played[key]


def record_file(title: str, seed: str, options: Mapping[str, Any] | None = None, greedy: bool = False) -> dict[str, Any]:
    """That game as a transcribed record file of Ada and Ben: a fresh copy each call, free to spoil."""
    played = played_game(title, seed, options, greedy)
    return copy.deepcopy({"format": recordfile.FORMAT, "version": recordfile.VERSION, "title": title,
                          "edition": catalog.game(title).default_edition().ref, "seats": [{"name": n} for n in NAMES],
                          "options": {"players": 2, **(options or {})}, "mode": "transcribed", "chance": {},
                          "entries": [e.to_json() for e in played.entries]})


def import_finished(records: Records, document: Mapping[str, Any], annotator_key: str | None = None) -> tuple[UUID, list[str]]:
    """Submit a record file and judge it at once (no worker): (record id, seat tokens). It must be accepted."""
    import_id, tokens = records.imports.submit(document, annotator_key)
    report = records.imports.validate(import_id)
    assert report.ok, report
    return UUID(report.record_id), tokens


class Accepted(NamedTuple):
    """An import over HTTP that the rules accepted."""

    record_id: str
    annotator_key: str
    tokens: list[str]  # the seats' tokens, in seat order
    verdict: dict[str, Any]


def import_finished_http(client: Any, document: Any, timeout: float = 20, **more: Any) -> Accepted:
    """`POST /api/imports` (a 202: it is judged in a job), then wait for the verdict, which must be accepted.

    `more` goes to the post (e.g. `content_type=` for a notation file sent as `data`); without it the document goes as JSON.
    """
    from tests.service.test_api import wait_for_verdict  # test_api imports this module: import it when called

    answer = client.post("/api/imports", **({"data": document, **more} if more else {"json": document}))
    assert answer.status_code == 202, answer.get_json()
    sent = answer.get_json()
    verdict = wait_for_verdict(client, sent["id"], timeout=timeout)
    assert verdict["status"] == "accepted", verdict
    return Accepted(verdict["record_id"], sent["annotator_key"], [s["token"] for s in sent["seats"]], verdict)


# What a note keeps through an export and an import (its id and line are new on the new record).
KEPT = ("step", "audience", "author", "by", "text", "html", "shapes", "glyph")


def same_notes(before: list[dict[str, Any]], after: list[dict[str, Any]], lines: dict[str | None, str | None]) -> None:
    """The same notes on the same steps and lines (`lines` renames the old lines' ids to the new ones), with the same
    text, shapes, glyph and audience."""
    def key(note: dict[str, Any]) -> tuple[Any, ...]:
        return (str(note["line"]), note["step"], note["text"], str(note["glyph"]))

    assert len(before) == len(after) and before
    olds = sorted(before, key=lambda n: key({**n, "line": lines[n["line"]]}))
    for old, new in zip(olds, sorted(after, key=key), strict=True):
        assert new["line"] == lines[old["line"]]
        assert {k: new.get(k) for k in KEPT} == {k: old.get(k) for k in KEPT}


def at_once(call: Callable[[T], R], args: Sequence[T]) -> list[R]:
    """`call(a)` for each of `args`, each in a thread of its own, all let go together (a barrier) so that their
    reads and saves interleave: what each returned, in the order of `args`. Any failure fails the test, naming all."""
    gate = threading.Barrier(len(args))
    results: dict[int, R] = {}
    failures: list[BaseException] = []

    def run(k: int) -> None:
        try:
            gate.wait()
            results[k] = call(args[k])
        except BaseException as exc:  # noqa: BLE001  (reported below, in the test's thread)
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(args))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    return [results[k] for k in range(len(args))]


def as_json(models: Iterable[Any]) -> list[Any]:
    """Read models as the API answers them (a list's items, e.g. a record's variations)."""
    return [model.to_json() for model in models]


def places(title: str) -> tuple[str, ...]:
    """Every place of `title`'s board a note's shape may name, as its notation spells it (default edition)."""
    notation = importlib.import_module(catalog.TITLES[title] + ".notation")
    return tuple(notation.places(catalog.game(title).default_edition()))


def studied(teaching: Any, record_id: UUID, title: str, key: str, why: str, moves: int) -> dict[str, Any]:
    """What a teacher adds to a finished record before sharing it: notes on the main line (a question `why` with a
    glyph, a step of shapes, a last step only seat 1 reads) and a what-if line from the middle, of up to `moves`
    first-legal moves, with a note at its end. {variation (its id), from_step, last_step (the line's), steps}."""
    starts, last = teaching.variations.decision_steps(record_id, None)
    spots = places(title)
    notes = teaching.notes
    notes.add(record_id, key, {"step": starts[1], "text": why, "glyph": "?!", "author": "Prof. Rossi"})
    notes.add(record_id, key, {"step": starts[2], "text": "", "shapes": [
        {"kind": "arrow", "from": spots[0], "to": spots[1], "brush": "red"},
        {"kind": "highlight", "at": spots[2]},
        {"kind": "label", "at": spots[3], "text": "A", "brush": "blue"}]})
    notes.add(record_id, key, {"step": last, "text": "only Ben reads this", "audience": 1})
    branch_at = starts[len(starts) // 2]
    variation = teaching.variations.branch(record_id, key, branch_at, None, "what if", "Prof. Rossi").to_json()
    vid = UUID(variation["id"])
    for _ in range(moves):
        legal = teaching.variations.legal(vid).to_json()["commands"]
        if not legal:
            break
        teaching.variations.play(vid, key, legal[0]["command"])
    line = teaching.variations.line(record_id, str(vid))
    notes.add(record_id, key, {"line": str(vid), "step": line.last_step, "text": "and now?", "glyph": "!",
                               "shapes": [{"kind": "highlight", "at": spots[0], "brush": "yellow"}]})
    return {"variation": vid, "from_step": branch_at, "last_step": line.last_step, "steps": last}


class EventStream:
    """A browser's EventSource reduced to a plain HTTP client: reads the stream line by line, keeps every byte."""

    def __init__(self, address: str, path: str, last_event_id: int | None = None) -> None:
        host, port = address.split(":")
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        self.connection = http.client.HTTPConnection(host, int(port), timeout=10)
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()
        self.raw = ""

    def next_event(self, skip_comments: bool = True, seconds: float = 5) -> dict[str, Any]:
        """The next event: {"event", "id", "data"} (a comment gives {"comment"}; `retry` rides on the first).
        Fails after `seconds` (heartbeats keep the socket busy, so its own timeout would not)."""
        found: dict[str, Any] = {}
        deadline = time.monotonic() + seconds
        for _ in range(10_000):
            if time.monotonic() > deadline:
                raise AssertionError(f"no event within {seconds} s; heard {self.raw[-300:]!r}")
            line = self.response.readline().decode()
            self.raw += line
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line == "":
                if "comment" in found and "event" not in found and skip_comments:
                    found = {}
                    continue
                if found:
                    return found
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "":
                found["comment"] = value
            elif field == "data":
                found["data"] = json.loads(value)
            elif field in ("event", "id", "retry"):
                found[field] = value
        raise AssertionError("no event in 10,000 lines")

    def rest(self) -> str:
        """Everything until the server ends the stream (bounded by the connection's timeout)."""
        text = self.response.read().decode()
        self.raw += text
        return text

    def close(self) -> None:
        self.response.close()
        self.connection.close()


class Killed(BaseException):
    """A worker's death: nothing of the job's own handling runs after it."""


def record_stored_then_killed(records: Any, import_id: UUID) -> None:
    """An import's job as a worker of the version before ran it (the record saved, then the verdict), killed
    between the two: the record is stored, the import left validating without a verdict."""
    save = records.save

    def record_then_die(*aggregates: Any, **kwargs: Any) -> Any:
        if len(aggregates) == 2:
            save(aggregates[0])
            raise Killed
        return save(*aggregates, **kwargs)

    records.save = record_then_die
    try:
        records.imports.validate(import_id)
    except Killed:
        pass
    finally:
        del records.save
