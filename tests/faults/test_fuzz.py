"""The fault suite's fuzzing pass (issue 16): zero 500s, zero hangs, nothing stored by a rejected import.

Against a real API host (the Procfile's `api` line: gunicorn, two processes) on the suite's own
PostgreSQL, tables made first as `cronaca db upgrade` does:

- schemathesis (https://schemathesis.readthedocs.io) reads `/api/openapi.json` and, for every
  operation, sends a bounded number of generated requests (valid and invalid ones, deterministic:
  derandomized, no example database written), some aimed at ids and tokens that exist, so paths are
  not all 404s. Every answer must come within the time limit, be no 5xx, and every 4xx problem+json.
- 2,000 mutated record files (tests/service/test_poison_imports.py's mutator) and notation files
  (tests/faults/fuzzing.py's) through `POST /api/imports`, judged by the host's in-process jobs:
  every one ends in a verdict (refused at upload, rejected or accepted), the store holds nothing of a
  rejected one but its import stream, and exactly one record for each accepted one.

The counts are printed (run with `-s`) for docs/reliability.md.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, strategies
from schemathesis.checks import max_response_time, not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from domain import catalog
from domain.kernel import ALL, reveal
from domain.kernel.dispute import _candidates
from domain.records import Records
from domain.records.room import notes_id
from domain.records.settings import Settings
from domain.transcripts import check_text, render_record_file, without_study
from tests.faults.conftest import OwnPostgres
from tests.faults.fuzzing import elapsed, group_cpu_seconds, log_errors, mutate_notation, streams
from tests.faults.harness import Deployment, Process
from tests.service.helpers import play_out
from tests.service.test_poison_imports import mutate, transcribed_export

pytestmark = pytest.mark.faults

PROBLEM = "application/problem+json"
NOTATION = "text/x-cronaca-notation"
TIME_LIMIT = 10.0  # seconds: an answer later than this is a hang
EXAMPLES = 8  # generated requests per operation and kind of target (random ids, existing ids)
FILES = 2000
SEED = 16016
THREADS = 4  # clients submitting at once


@dataclass
class Api:
    """The API host under test: its address, and its process group's CPU time and logged faults."""

    process: Process

    @property
    def url(self) -> str:
        return self.process.url

    def cpu_seconds(self) -> float:
        return group_cpu_seconds(self.process.popen.pid)

    def errors(self) -> list[str]:
        return log_errors(self.process.log)


@pytest.fixture
def api(postgres: OwnPostgres, tmp_path: Path) -> Iterator[Api]:
    """One API host (the Procfile's `api` line: two gunicorn processes of four threads, jobs in-process) on a
    fresh database of the suite's PostgreSQL, its schema made first by `cronaca db upgrade` (harness.py)."""
    # On loopback even where the suite runs hosts in network namespaces: this pass tests inputs, not the network,
    # and the namespaces' relays to PostgreSQL doubled its time (90 s against 43 s for the 2,000 files).
    with Deployment(postgres.env(), tmp_path / "deploy", network="loopback") as deployment:
        deployment.upgrade()
        # The fuzzer sends made-up and other records' tokens by the hundred from one address: past the default budget
        # of wrong credentials (api/throttle.py) every later request would be a 429 and no id would be reached.
        yield Api(deployment.start("api", CRONACA_API_WORKERS="2", CRONACA_API_THREADS="4", CRONACA_SSE_PING="1",
                                   CRONACA_AUTH_FAILURES_PER_CLIENT="1000000", CRONACA_AUTH_FAILURES_PER_TARGET="1000000"))


def _is_problem(answer: Any) -> bool:
    """A problem+json answer (RFC 9457) whose `status` is the answer's: a requests or a schemathesis response."""
    headers = {k.lower(): v if isinstance(v, str) else v[0] for k, v in answer.headers.items()}
    if headers.get("content-type", "").partition(";")[0].strip() != PROBLEM:
        return False
    try:
        body = json.loads(answer.content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("status") == answer.status_code and isinstance(body.get("detail"), str)


def _verdict(session: requests.Session, url: str, import_id: str, deadline: float) -> dict[str, Any]:
    """Poll an import until it is accepted or rejected (bounded by `deadline`)."""
    while True:
        status = session.get(f"{url}/api/imports/{import_id}", timeout=TIME_LIMIT)
        assert status.status_code == 200, status.text[:300]
        found: dict[str, Any] = status.json()
        if found["status"] in ("accepted", "rejected") or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _rule(verdict: dict[str, Any]) -> str:
    """The rule a verdict names first: a record file's report names one, a notation file's its findings."""
    report = verdict.get("report") or {}
    if verdict["status"] == "accepted":
        return "accepted"
    findings = report.get("findings") or [{}]
    return str(report.get("rule") or findings[0].get("rule") or "?")


# ---- schemathesis -------------------------------------------------------------------------------


def _world(url: str) -> dict[str, Any]:
    """Things for paths to name: a live record with moves, an imported finished one with a note, a
    variation and a ruling on it, a rejected import, a lesson with a chapter and an open pause; and the
    tokens and keys that open them."""
    s = requests.Session()

    def post(path: str, body: Any, token: str | None = None, status: int = 201, **kw: Any) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = s.post(f"{url}{path}", json=body, headers=headers, timeout=TIME_LIMIT, **kw)
        assert answer.status_code == status, (path, answer.status_code, answer.text[:300])
        return answer.json()  # type: ignore[no-any-return]

    live = post("/api/records", {"title": "citta-stato", "seats": ["Ada", "Ben"]})
    live_tokens = [seat["token"] for seat in live["seats"]]
    for _ in range(4):
        legal = s.get(f"{url}/api/records/{live['id']}/legal", timeout=TIME_LIMIT).json()
        seat = legal["pending"]["seat"]
        mine = s.get(f"{url}/api/records/{live['id']}/legal", headers={"Authorization": f"Bearer {live_tokens[seat]}"},
                     timeout=TIME_LIMIT).json()
        post(f"/api/records/{live['id']}/commands", {"command": mine["commands"][0], "version": mine["version"]},
             live_tokens[seat], status=200)
    document = transcribed_export("citta-stato", 2)
    made = post("/api/imports", document, status=202)
    accepted = _verdict(s, url, made["id"], time.monotonic() + 20)
    assert accepted["status"] == "accepted", accepted
    record_id = accepted["record_id"]
    tokens = [seat["token"] for seat in made["seats"]]
    annotator, arbiter = made["annotator_key"], made["arbiter_key"]
    steps = s.get(f"{url}/api/records/{record_id}", timeout=TIME_LIMIT).json()["steps"]
    note = post(f"/api/records/{record_id}/annotations", {"step": 2, "text": "why *this*?"}, annotator)
    branch = s.post(f"{url}/api/records/{record_id}/variations", json={"from_step": 2},
                    headers={"Authorization": f"Bearer {annotator}"}, timeout=TIME_LIMIT)  # names the nearest steps
    first = branch.json()["facts"]["nearest"][0] if branch.status_code == 422 else 2
    variation = post(f"/api/records/{record_id}/variations", {"from_step": first, "title": "what if"}, annotator)
    ruling = post(f"/api/records/{record_id}/rulings", {"step": 1, "decision": "noted", "reason": "fuzz"}, arbiter)
    rng = random.Random(SEED)
    rejected = None
    for _ in range(50):  # a mutated file that passes the upload's checks and is rejected by the rules
        answer = s.post(f"{url}/api/imports", json=mutate(document, rng)[0], timeout=TIME_LIMIT)
        if answer.status_code == 202:
            verdict = _verdict(s, url, answer.json()["id"], time.monotonic() + 20)
            if verdict["status"] == "rejected":
                rejected = answer.json()
                break
    assert rejected is not None, "no mutated file was rejected by the rules in 50 tries"
    lesson = post("/api/lessons", {"title": "Fuzz", "introduction": "a lesson to aim at"})
    teacher = lesson["teacher_key"]
    lesson_id = lesson["lesson"]["id"]
    chapter = post(f"/api/lessons/{lesson_id}/chapters", {"title": "All", "record_id": record_id, "from_step": 0,
                                                          "to_step": steps}, teacher)
    post(f"/api/lessons/{lesson_id}/present", {"chapter": chapter["id"], "step": first, "shapes": []}, teacher,
         status=200)
    seat = s.get(f"{url}/api/records/{record_id}/steps/{first}", timeout=TIME_LIMIT).json()["pending"]["seat"]
    pause = post(f"/api/lessons/{lesson_id}/pauses", {"seat": seat, "question": "and now?"}, teacher)
    return {
        # path parameters of the live record, and of the finished one with everything on it
        "live": {"record_id": live["id"], "n": 2, "import_id": rejected["id"]},
        "finished": {"record_id": record_id, "n": 3, "import_id": made["id"], "ruling_id": ruling["id"],
                     "note_id": note["id"], "variation_id": variation["id"], "lesson_id": lesson_id,
                     "chapter_id": chapter["id"], "pause_id": pause["id"]},
        "tokens": {"live": [None, live_tokens[0], rejected["seats"][0]["token"]],
                   "finished": [None, tokens[0], annotator, arbiter, teacher]},
    }


CHECKS = (not_a_server_error, max_response_time, status_code_conformance, content_type_conformance,
          response_schema_conformance)


@dataclass
class Fuzzed:
    """What one schemathesis pass found: its failures, the answers by status, the operations it aimed at."""

    failures: list[str]
    statuses: Counter[int]
    operations: int


def fuzz_operations(url: str, world: dict[str, Any], examples: int = EXAMPLES) -> Fuzzed:
    """Every operation but the live streams, `examples` generated requests per kind of target (x2 where the path
    names ids: random ones and the world's), every answer put to CHECKS and to `_is_problem` when a 4xx."""
    schema = schemathesis.openapi.from_url(f"{url}/api/openapi.json", timeout=TIME_LIMIT)
    schema.config.checks.update(max_response_time=TIME_LIMIT)
    session = requests.Session()
    found = Fuzzed([], Counter(), 0)
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.endswith("/live"):
            continue
        found.operations += 1
        names = set(re.findall(r"{(\w+)}", operation.path))
        targets = [operation.as_strategy(mode) for mode in GenerationMode]
        for which in ("live", "finished") if names else ():
            fixed = {k: v for k, v in world[which].items() if k in names and not (k == "n" and _step_generated(operation))}
            for token in world["tokens"][which]:
                headers = {"Authorization": f"Bearer {token}"} if token else None
                targets += [operation.as_strategy(mode, path_parameters=fixed, headers=headers)
                            for mode in GenerationMode]

        @hypothesis.given(case=strategies.one_of(targets))
        @hypothesis.settings(max_examples=examples * (2 if names else 1), derandomize=True, database=None,
                             deadline=None, phases=[Phase.explicit, Phase.generate],
                             suppress_health_check=list(HealthCheck))
        def run(case: Any) -> None:
            where = f"{case.method} {case.formatted_path} {case.media_type or ''}".strip()
            try:
                answer = case.call(base_url=url, session=session, timeout=TIME_LIMIT)
            except requests.Timeout:
                found.failures.append(f"{where}: no answer within {TIME_LIMIT} s")
                return
            found.statuses[answer.status_code] += 1
            try:
                case.validate_response(answer, checks=list(CHECKS))
            except (AssertionError, BaseExceptionGroup) as exc:
                found.failures.append(f"{where}: {answer.status_code} {str(exc)[:300]} {answer.content[:300]!r}")
            if answer.status_code not in _named_statuses(case.operation):
                found.failures.append(f"{where}: {answer.status_code} is not a status the document names for it "
                                      f"({', '.join(case.operation.responses.status_codes)})")
            if 400 <= answer.status_code < 500 and not _is_problem(answer):
                found.failures.append(f"{where}: {answer.status_code} is not problem+json: "
                                      f"{answer.headers.get('content-type')} {answer.content[:200]!r}")

        run()
    return found


def test_schemathesis_finds_no_server_error_no_hang_and_only_problem_json(api: Api) -> None:
    """Every operation of the OpenAPI document, requests generated from it (valid and invalid), some at
    random ids and some at ids and tokens that exist: no 5xx, no answer later than TIME_LIMIT, every answer
    as the document says (its status, its media type and its body's schema: the document is true), every
    4xx is problem+json. The live stream (server-sent events, endless by design) is asked separately."""
    started, cpu = time.monotonic(), time.process_time()
    world = _world(api.url)
    found = fuzz_operations(api.url, world)
    failures, statuses, operations = found.failures, found.statuses, found.operations
    session = requests.Session()
    live = world["finished"]["lesson_id"]
    with session.get(f"{api.url}/api/lessons/{live}/live", stream=True, timeout=TIME_LIMIT) as follower:
        assert follower.status_code == 200 and follower.headers["Content-Type"].startswith("text/event-stream")
        assert next(follower.iter_lines(decode_unicode=True), "").startswith(("retry:", "event:", ":", "id:", "data:"))
    gone = session.get(f"{api.url}/api/lessons/{UUID(int=7)}/live", timeout=TIME_LIMIT)
    assert gone.status_code == 404 and _is_problem(gone)
    print(f"\nschemathesis: {operations} operations (+ the live stream), {sum(statuses.values())} requests in "
          f"{elapsed(started)} s; answers by status: {dict(sorted(statuses.items()))}; failures: {len(failures)}; "
          f"checks: {', '.join(check.__name__ for check in CHECKS)}; "
          f"CPU: the API host {api.cpu_seconds():.1f} s, this test {time.process_time() - cpu:.1f} s")
    assert not failures, "\n".join(failures[:30])
    assert not api.errors(), api.errors()[:10]
    assert statuses[200] + statuses[201] + statuses[202] + statuses[204] > operations  # ids that exist were reached
    assert sum(v for k, v in statuses.items() if 400 <= k < 500) > operations  # and invalid requests refused


def _named_statuses(operation: Any) -> set[int]:
    """The statuses an operation's document names one by one: `status_code_conformance` takes any status when there
    is a `default` response, and every operation has one (the 500 of a fault: api/problems.py), so it alone would
    never find a status missing from the document."""
    return {int(code) for code in operation.responses.status_codes if code.isdigit()}


def _step_generated(operation: Any) -> bool:
    """Let the step number be generated on half the operations (by name), fixed to a step that exists on the rest."""
    return zlib.crc32(operation.path.encode()) % 2 == 0


# ---- mutated record and notation files through POST /api/imports --------------------------------


def _sources(tmp_path: Path) -> list[tuple[str, dict[str, Any], str]]:
    """(name, record file, the same game in notation) for finished games, every one the same on every run:
    transcribed (three seats, played at random from a seed) of every title, and live (two seats, the seed
    revealed) of two; the toy title's games, quick to check, take six places in ten, so the 2,000 files
    fit the suite's time."""

    found = {f"{title}/transcribed": transcribed_export(title, 3) for title in ("toy", *TITLES)}
    records = Records(Settings.from_env({"SQLITE_DBNAME": str(tmp_path / "sources.sqlite3")}).store)
    try:
        for title in ("toy", "citta-stato"):
            record_id, tokens = records.play.start(title, ["ann", "bob"], seed=f"fuzz-{title}")
            play_out(records, record_id, tokens, seed=f"fuzz-{title}")
            found[f"{title}/live"] = records.reading.export(record_id).to_json()
    finally:
        records.close()
    order = ["toy/transcribed", "citta-stato/transcribed", "toy/live", "la-citta/transcribed", "toy/transcribed",
             "toy/live", "serenissima/transcribed", "toy/transcribed", "citta-stato/live", "toy/live"]
    return [(name, found[name], render_record_file(found[name])) for name in order]


TITLES = ("citta-stato", "la-citta", "serenissima")


def test_mutated_files_through_http_all_end_in_a_verdict_and_rejected_ones_store_nothing(
        api: Api, postgres: OwnPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FILES mutated record and notation files through POST /api/imports at THREADS clients at once:
    each is refused at upload (4xx problem+json) or ends accepted or rejected; never a 5xx or a hang.
    Afterwards the store holds, besides what was there before (unchanged), the import streams of the
    submitted files and exactly one record for each accepted import, nothing for a rejected one."""
    monkeypatch.setitem(catalog.TITLES, "toy", "tests.kernel.toy_game")  # the host has it from CRONACA_EXTRA_TITLES
    started, cpu = time.monotonic(), time.process_time()
    sources = _sources(tmp_path)
    rng = random.Random(SEED)
    files: list[tuple[str, str, bytes, str]] = []  # (what, content type, body, how it was damaged)
    for k in range(FILES):
        name, document, text = sources[(k // 2) % len(sources)]
        if k % 2 == 0:
            mutated, done = mutate(document, rng)
            files.append((f"record {name}", "application/json", json.dumps(mutated).encode(), "; ".join(done)))
        else:
            damaged, done = mutate_notation(text, rng)
            files.append((f"notation {name}", NOTATION, damaged.encode("utf-8", "surrogatepass"), "; ".join(done)))
    url = api.url
    seed = requests.Session()
    kept = [seed.post(f"{url}/api/imports", json=sources[i][1], timeout=TIME_LIMIT).json()["id"] for i in (1, 8)]
    assert all(_verdict(seed, url, i, time.monotonic() + 20)["status"] == "accepted" for i in kept)
    before = streams(postgres.dsn)
    prepared = elapsed(started)

    failures: list[str] = []
    imports: dict[str, tuple[int, bool]] = {}  # import id -> (file, whether the upload was refused)
    refused: Counter[str] = Counter()  # by kind of file, status and rule
    slowest: list[float] = []
    local = threading.local()

    def session() -> requests.Session:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        return local.session  # type: ignore[no-any-return]

    def submit(k: int) -> None:
        what, kind, body, done = files[k]
        where = f"file {k} ({what}: {done})"
        try:
            answer = session().post(f"{url}/api/imports", data=body, headers={"Content-Type": kind}, timeout=TIME_LIMIT)
        except requests.Timeout:
            failures.append(f"{where}: no answer within {TIME_LIMIT} s")
            return
        slowest.append(answer.elapsed.total_seconds())
        if answer.status_code == 202:
            imports[answer.json()["id"]] = (k, False)
        elif answer.status_code in (400, 413, 422) and _is_problem(answer):
            problem = answer.json()
            refused[f"{what.split()[0]} {answer.status_code} {problem.get('rule')}"] += 1
            if (problem.get("facts") or {}).get("import_id"):  # a notation file refused at upload: a rejected import
                imports[problem["facts"]["import_id"]] = (k, True)
        else:
            failures.append(f"{where}: {answer.status_code} {answer.headers.get('Content-Type')} {answer.text[:300]}")

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(submit, range(FILES)))
    submitted = elapsed(started)
    deadline = time.monotonic() + 60
    with ThreadPoolExecutor(THREADS) as pool:
        verdicts = dict(zip(imports, pool.map(lambda i: _verdict(session(), url, i, deadline), list(imports)),
                            strict=True))
    outcomes = Counter(f"{files[k][0].split()[0]} {verdicts[i]['status']}" for i, (k, at_upload) in imports.items()
                       if not at_upload)
    outcomes.update({f"{kind} refused at upload": n for kind in ("record", "notation")
                     if (n := sum(v for key, v in refused.items() if key.startswith(kind)))})
    rules = Counter(_rule(v) for v in verdicts.values())
    after = streams(postgres.dsn)
    print(f"\nfuzzed imports: {FILES} files ({FILES // 2} record, {FILES // 2} notation) from {len(sources)} games in "
          f"{elapsed(started)} s (prepared {prepared} s, submitted by {submitted} s); by outcome: "
          f"{dict(sorted(outcomes.items()))}; refused at upload: {dict(refused.most_common())}; rules of the "
          f"verdicts: {dict(rules.most_common(12))}; streams {len(before)} -> {len(after)}; slowest upload answer "
          f"{max(slowest):.2f} s; CPU: the API host {api.cpu_seconds():.1f} s, this test {time.process_time() - cpu:.1f} s")

    assert not failures, "\n".join(failures[:30])
    late = {i: v["status"] for i, v in verdicts.items() if v["status"] not in ("accepted", "rejected")}
    assert not late, f"{len(late)} imports without a verdict after 60 s: {list(late.items())[:10]}"
    assert not api.errors(), api.errors()[:10]
    assert rules["import/internal-error"] == 0 and not any((v["report"] or {}).get("extras") for v in verdicts.values())
    accepted = {i for i, v in verdicts.items() if v["status"] == "accepted"}
    rejected = set(verdicts) - accepted
    assert sum(outcomes.values()) == FILES, outcomes  # each file answered once, by one of the three outcomes
    assert all(verdicts[i]["status"] == "rejected" for i, (_, at_upload) in imports.items() if at_upload)
    assert accepted and rejected and refused, (len(accepted), len(rejected), refused)
    # nothing that was there before changed
    assert {k: after.get(k) for k in before} == before
    new = {k: v for k, v in after.items() if k not in before}
    records = {uuid5(NAMESPACE_URL, f"cronaca:import:{i}"): i for i in verdicts}
    studies = {notes_id(uuid5(NAMESPACE_URL, f"cronaca:import:{i}")): i for i in accepted
               if files[imports[i][0]][1] == NOTATION}
    for stream_id, stream in new.items():
        if stream.kind == "Import":
            assert str(stream_id) in imports, f"an import stream nobody was told of: {stream_id}"
        elif stream.kind == "Record":
            assert records.get(stream_id) in accepted, f"record {stream_id} of a rejected or unknown import"
        elif stream.kind == "Notes" and stream_id in studies:
            # a damaged byte can make a glyph or a comment (`a` with its 0x40 bit flipped is `!`): that file is a
            # study now, and an accepted study's notes belong to its record
            k = imports[studies[stream_id]][0]
            assert not without_study(files[k][2].decode("utf-8", "surrogatepass")), files[k][3]
        else:
            raise AssertionError(f"a {stream.kind} stream {stream_id} made by an import of a plain game file")
    assert all(UUID(i) in new and new[UUID(i)].kind == "Import" for i in imports)
    made = [i for i in accepted if uuid5(NAMESPACE_URL, f"cronaca:import:{i}") in new]
    assert sorted(made) == sorted(accepted)
    assert all(verdicts[i]["record_id"] == str(uuid5(NAMESPACE_URL, f"cronaca:import:{i}")) for i in accepted)
    assert sum(1 for s in new.values() if s.kind == "Record") == len(accepted)
    assert all(verdicts[i]["record_id"] is None for i in rejected)


def test_found_by_fuzzing_a_draw_written_as_its_deck_and_a_question_mark_is_searched_as_unwritten() -> None:
    """A damaged notation file (`[Y?]` for the card drawn from deck Y) made the checker's narrowing raise
    KeyError, so its import ended as an internal error. The first reading goes on as if that draw was not
    written (`Y` is no card of the deck); the search for what it must have been now does the same, and finds
    the card the game went on with."""
    assert _candidates("draw", ("R", "G", "B"), ("R",), ("Y", "?"), 10) == ([("B",), ("G",), ("R",)], True)
    assert _candidates("draw", ("R", "G", "B"), ("R", "G"), ("R", "?"), 10) == ([("B", "R"), ("G", "R")], True)
    text = render_record_file(transcribed_export("citta-stato", 3))
    card = re.search(r"\[(Y\d)\]", text)
    assert card is not None
    report = reveal(check_text(text[:card.start()] + "[Y?]" + text[card.end():]).to_json(), ALL)  # as its sender
    assert report["ok"], report["summary"]
    found = [u for u in report["unknowns"] if (u["line"], u["source"]) == (text[:card.start()].count("\n") + 1, "deck:Y")]
    assert [u["consistent"] for u in found] == [[f"[{card.group(1)}]"]], report["unknowns"]
