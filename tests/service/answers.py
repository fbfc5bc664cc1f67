"""The API's answers on a small store, masked, to compare before and after a change that must not change them.

Builds an app with the embedded defaults (an SQLite file, jobs in this process), imports a finished game of
every real title and of the toy, a slipped file (rejected), a game stopped halfway (in progress), the same
game again as table notation, and starts a live record; then calls the export, import status, verification
and teaching endpoints (notes, variations, lessons) with the test client as the public, a seat, the annotator
and the teacher; rulings and the record as ruled, a rejected notation import replayed, live commands (a
shared-dice game joined and revealed), a lesson file imported. Every body is kept with its status; ids, tokens, keys, hashes and times are masked by order
of appearance, so two runs on the same code give the same text.

    python -m tests.service.answers OUT.json      # write the masked answers
    python -m tests.service.answers OUT.json --compare BEFORE.json
    python -m tests.service.answers OUT.json --demo      # and the demo store's records and lesson (bot games: slower)

`tests/service/test_answers_unchanged.py` compares the answers of the toy to those kept in
`tests/service/answers_toy.json` (captured before the read services returned typed models).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import itertools
import json
import re
import secrets
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from unittest import mock
from uuid import UUID

from api.app import create_app
from api.service import Service
from api.service_cli import demo_lesson, demo_records
from domain import catalog
from domain.kernel import SeededChance
from domain.records import Records
from domain.records.settings import Settings
from tests.service.conftest import close_app
from tests.service.helpers import auth, record_file
from workers.jobs import run_validation

TOKEN = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])")  # secrets.token_urlsafe(24)
MASKS = [
    ("id", re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")),
    ("hex", re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")),
    ("short", re.compile(r"\b[ncp]-[0-9a-f]{12}\b|(?<![0-9a-f])[0-9a-f]{12}(?![0-9a-f-])")),
    ("time", re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?")),
    ("time", re.compile(r'(?<="seconds_used":)\d+(?:\.\d+)?(?:e-?\d+)?')),  # the checker's search time
]


class Masked:
    """Each distinct id, hash, token or time replaced by its kind and the order it first appeared in."""

    def __init__(self, tokens: Iterable[str] = ()) -> None:
        self.seen: dict[str, str] = {}
        self.tokens = set(tokens)

    def __call__(self, text: str) -> str:
        for kind, pattern in MASKS:
            text = pattern.sub(lambda m, kind=kind: self._name(kind, m.group(0)), text)
        return TOKEN.sub(lambda m: self._name("token", m.group(0)) if m.group(0) in self.tokens else m.group(0), text)

    def _name(self, kind: str, found: str) -> str:
        if kind == "time":  # two answers in the same second or not: by chance, so never told apart
            return "<time>"
        if found not in self.seen:
            self.seen[found] = f"<{kind}{sum(1 for v in self.seen.values() if v.startswith(f'<{kind}'))}>"
        return self.seen[found]


class Held:
    """A dispatcher that runs each import's job when told (`run`), never while the submission is answered:
    the submit answer then always says "queued", as it does when a worker is busy."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.waiting: list[UUID] = []

    def enqueue(self, import_id: UUID, attempt: int) -> str:
        self.waiting.append(import_id)
        return f"held-{import_id}-{attempt}"

    def lost(self, job_id: str) -> bool:
        return False

    def run(self) -> None:
        while self.waiting:
            run_validation(self.records, self.waiting.pop(0))


class Caller:
    """The test client, every answer kept by name (unmasked until `masked`)."""

    def __init__(self, client: Any, held: Held) -> None:
        self.client = client
        self.held = held
        self.raw: dict[str, str] = {}
        self.tokens: set[str] = set()

    def call(self, name: str, method: str, path: str, token: str | None = None, headers: dict[str, str] | None = None,
             **kwargs: Any) -> Any:
        answer = self.client.open(path, method=method, headers={**(auth(token) if token else {}), **(headers or {})}, **kwargs)
        self.raw[name] = f"{answer.status_code} {answer.headers.get('Content-Type')} {answer.get_data(as_text=True)}"
        return answer.get_json(silent=True)

    def get(self, name: str, path: str, token: str | None = None) -> Any:
        return self.call(name, "GET", path, token)

    def masked(self) -> dict[str, str]:
        mask = Masked(self.tokens)
        return {name: mask(body) for name, body in self.raw.items()}


def submitted(calls: Caller, name: str, **kwargs: Any) -> dict[str, Any]:
    """POST /api/imports, its answer kept; the tokens and keys it hands out remembered for masking."""
    sent = calls.call(f"{name} submit", "POST", "/api/imports", **kwargs)
    calls.tokens.update([sent["annotator_key"], sent["arbiter_key"], sent["table_key"], *(s["token"] for s in sent["seats"])])
    calls.held.run()
    return sent


def slipped(document: dict[str, Any]) -> dict[str, Any]:
    """A transcriber's slip: two moves written in the wrong order (the later one first)."""
    spoilt = copy.deepcopy(document)
    entries = spoilt["entries"]
    k = len(entries) // 3
    entries[k], entries[k + 1] = entries[k + 1], entries[k]
    return spoilt


def slipped_notation(text: str) -> str:
    """The transcriber's slip in a notation file: two move lines a third of the way in written the wrong way round."""
    lines = text.splitlines()
    moves = [k for k, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(("#", "[", ";", "%"))]
    k = moves[len(moves) // 3]
    following = moves[moves.index(k) + 1]
    lines[k], lines[following] = lines[following], lines[k]
    return "\n".join(lines) + "\n"


def halfway(document: dict[str, Any]) -> dict[str, Any]:
    """The game as written down until the table stopped, halfway through."""
    stopped = copy.deepcopy(document)
    stopped["entries"] = stopped["entries"][: len(stopped["entries"]) // 2]
    stopped["seats"] = [{"name": "Zoë d'Alessandro"}, {"name": "Niccolò Bianchi"}]
    return stopped


def title_answers(calls: Caller, title: str) -> None:
    """Imports, export and verification of one title's games."""
    document = record_file(title, f"answers-{title}")
    sent = submitted(calls, f"{title} finished", json=document)
    status = calls.get(f"{title} finished status", f"/api/imports/{sent['id']}")
    calls.get(f"{title} finished status (seat)", f"/api/imports/{sent['id']}", sent["seats"][1]["token"])
    record_id, annotator, seat = status["record_id"], sent["annotator_key"], sent["seats"][0]["token"]
    for who, token in (("public", None), ("seat", seat), ("annotator", annotator)):
        calls.get(f"{title} export ({who})", f"/api/records/{record_id}/export", token)
        calls.get(f"{title} verify ({who})", f"/api/records/{record_id}/verify", token)
    notation = calls.client.get(f"/api/records/{record_id}/notation").get_data(as_text=True)
    again = submitted(calls, f"{title} notation", data=notation.encode(), content_type="text/x-cronaca-notation")
    calls.get(f"{title} notation status", f"/api/imports/{again['id']}")
    spoilt = submitted(calls, f"{title} notation slipped", data=slipped_notation(notation).encode(),
                       content_type="text/x-cronaca-notation")
    for who, token in (("public", None), ("seat", spoilt["seats"][0]["token"]), ("other seat", spoilt["seats"][1]["token"])):
        calls.get(f"{title} notation slipped status ({who})", f"/api/imports/{spoilt['id']}", token)
        calls.get(f"{title} notation slipped replay ({who})", f"/api/imports/{spoilt['id']}/replay", token)

    wrong = submitted(calls, f"{title} slipped", json=slipped(document))
    for who, token in (("public", None), ("seat", wrong["seats"][0]["token"])):
        calls.get(f"{title} slipped status ({who})", f"/api/imports/{wrong['id']}", token)
        calls.get(f"{title} slipped replay ({who})", f"/api/imports/{wrong['id']}/replay", token)

    stopped = submitted(calls, f"{title} halfway", json=halfway(document))
    for k, token in enumerate([None, *(s["token"] for s in stopped["seats"])]):
        found = calls.get(f"{title} halfway status ({k})", f"/api/imports/{stopped['id']}", token)
    if found.get("record_id"):
        for k, token in enumerate([None, *(s["token"] for s in stopped["seats"])]):
            calls.get(f"{title} halfway verify ({k})", f"/api/records/{found['record_id']}/verify", token)
            calls.get(f"{title} halfway export ({k})", f"/api/records/{found['record_id']}/export", token)
    again_keyed = calls.call(f"{title} resubmitted", "POST", "/api/imports", json=document,
                             headers={"Idempotency-Key": f"answers-{title}-1"})
    calls.tokens.update([again_keyed["annotator_key"], again_keyed["arbiter_key"], again_keyed["table_key"], *(s["token"] for s in again_keyed["seats"])])
    calls.held.run()
    calls.call(f"{title} resubmitted again", "POST", "/api/imports", json=document,
               headers={"Idempotency-Key": f"answers-{title}-1"})
    calls.get(f"{title} no such import", "/api/imports/00000000-0000-4000-8000-000000000000")
    calls.get(f"{title} verify no such record", "/api/records/00000000-0000-4000-8000-000000000000/verify")
    teaching_answers(calls, title, record_id, annotator, [s["token"] for s in sent["seats"]])
    ruling_answers(calls, title, record_id, sent["arbiter_key"], seat)
    if found.get("record_id"):
        ruling_answers(calls, f"{title} halfway", found["record_id"], stopped["arbiter_key"], stopped["seats"][0]["token"])


def teaching_answers(calls: Caller, title: str, record_id: str, annotator: str, seats: list[str]) -> None:
    """Notes, a variation and a lesson on one finished record."""
    base = f"/api/records/{record_id}"
    turns = calls.client.get(f"{base}/turns").get_json()
    starts = [t["from"] for t in (turns["turns"] if isinstance(turns, dict) else turns) if t["turn"] > 0]
    step = starts[len(starts) // 2]
    note = calls.call(f"{title} note", "POST", f"{base}/annotations", annotator,
                      json={"step": step + 1, "text": "**Bold** — was it the best? Try l'altra mossa.", "glyph": "?!",
                            "author": "Maestra Lucía"})
    calls.call(f"{title} private note", "POST", f"{base}/annotations", seats[1],
               json={"step": step, "text": "my own reminder", "audience": 1})
    calls.call(f"{title} note edited", "PATCH", f"{base}/annotations/{note['id']}", annotator, json={"glyph": "!"})
    branch = calls.call(f"{title} branch", "POST", f"{base}/variations", annotator,
                        json={"from_step": step, "title": "What if the other choice?", "author": "Cronaca demo"})
    line = f"/api/variations/{branch['id']}"
    for k in range(2):
        legal = calls.get(f"{title} variation legal {k}", f"{line}/legal")
        if not legal["commands"]:
            break
        calls.call(f"{title} variation played {k}", "POST", f"{line}/commands", annotator,
                   json={"command": legal["commands"][-1]["command"]})
    summary = calls.get(f"{title} variation", line)
    calls.get(f"{title} variation step", f"{line}/steps/{summary['last_step']}")
    calls.get(f"{title} variation story", f"{line}/story")
    calls.get(f"{title} variations", f"{base}/variations")
    calls.call(f"{title} variation note", "POST", f"{base}/annotations", annotator,
               json={"line": branch["id"], "step": summary["last_step"], "text": "in the what-if"})
    for who, token in (("public", None), ("seat", seats[1]), ("annotator", annotator)):
        calls.get(f"{title} notes ({who})", f"{base}/annotations", token)
        calls.get(f"{title} notes main ({who})", f"{base}/annotations?line=main", token)
        calls.get(f"{title} export with notes ({who})", f"{base}/export", token)

    created = calls.call(f"{title} lesson", "POST", "/api/lessons", json={"title": f"Lezione: {title}", "introduction": "Two games."})
    teacher, lesson = created["teacher_key"], f"/api/lessons/{created['lesson']['id']}"
    calls.tokens.add(teacher)
    first = calls.call(f"{title} chapter", "POST", f"{lesson}/chapters", teacher,
                       json={"title": "The game", "record_id": record_id, "from_step": 0, "to_step": step + 2})
    second = calls.call(f"{title} chapter what-if", "POST", f"{lesson}/chapters", teacher,
                        json={"title": "What if?", "record_id": record_id, "line": branch["id"],
                              "from_step": summary["from_step"], "to_step": summary["last_step"]})
    calls.call(f"{title} chapter edited", "PATCH", f"{lesson}/chapters/{first['id']}", teacher, json={"title": "La partita"})
    calls.call(f"{title} order", "PUT", f"{lesson}/order", teacher, json={"chapters": [second["id"], first["id"]]})
    calls.call(f"{title} present", "POST", f"{lesson}/present", teacher, json={"chapter": first["id"], "step": step})
    pending = calls.client.get(f"{base}/steps/{step}").get_json()["pending"]
    pause = calls.call(f"{title} pause", "POST", f"{lesson}/pauses", teacher,
                       json={"seat": pending["seat"], "question": "What would you play?"})
    if pause and "id" in pause:
        where = f"{lesson}/pauses/{pause['id']}"
        for k, choice in enumerate(pause["choices"][:2] if pause.get("choices") else []):
            calls.call(f"{title} answer {k}", "POST", f"{where}/answers",
                       json={"student": ["Zoë", "Ann-Marie O'Neil"][k], "command": choice["command"]})
        calls.get(f"{title} question", where)
        calls.get(f"{title} question (teacher)", where, teacher)
        calls.call(f"{title} reveal", "POST", f"{where}/reveal", teacher, json={})
    for who, token in (("public", None), ("teacher", teacher)):
        calls.get(f"{title} lesson ({who})", lesson, token)
    exported = calls.get(f"{title} lesson export", f"{lesson}/export", teacher)
    copied = calls.call(f"{title} lesson import", "POST", "/api/lessons/import", json=exported)
    if copied and "teacher_key" in copied:
        calls.tokens.update([copied["teacher_key"], *copied["annotator_keys"].values()])
        calls.get(f"{title} lesson imported", f"/api/lessons/{copied['lesson']['id']}", copied["teacher_key"])
    calls.call(f"{title} lesson import refused", "POST", "/api/lessons/import",
               json={**exported, "chapters": [{"title": "Nowhere", "record": "no-such-ref", "from_step": 0, "to_step": 1}]})


def ruling_answers(calls: Caller, title: str, record_id: str, arbiter: str, seat: str) -> None:
    """Rulings on one record: none yet, one without a correction, a refused one; the record as ruled as each
    reader asks (the toy, whose entries are written by hand, also gets a correction)."""
    base = f"/api/records/{record_id}"
    calls.get(f"{title} rulings (none)", f"{base}/rulings")
    calls.get(f"{title} ruled (none)", f"{base}/ruled")
    calls.get(f"{title} ruled step 1 (none)", f"{base}/ruled/steps/1", seat)
    calls.get(f"{title} ruled story (none)", f"{base}/ruled/story")
    made = calls.call(f"{title} ruling", "POST", f"{base}/rulings", arbiter,
                      json={"step": 2, "decision": "La mossa resta: the move stands",
                            "reason": "Both players saw it; the table's arbiter, Zoë d'Alessandro, agreed."})
    calls.call(f"{title} ruling refused", "POST", f"{base}/rulings", arbiter, json={"decision": "  ", "reason": "no step"})
    calls.call(f"{title} ruling by a seat", "POST", f"{base}/rulings", seat, json={"step": 1, "decision": "x", "reason": "y"})
    if title == "toy":
        pending = calls.client.get(f"{base}/steps/3").get_json()["pending"]
        who = pending["seat"]
        roll = [{"command": {"type": "toy/roll", "seat": s}, "outcomes": [{"kind": "roll", "source": "die", "values": [face]}]}
                for s, face in ((who, 6), (1 - who, 5))]
        calls.call(f"{title} ruling corrected", "POST", f"{base}/rulings", arbiter,
                   json={"decision": "Replay from step 3", "reason": "the die was cocked (rolled off the table)",
                         "correction": {"from_step": 3, "entries": roll}})
    listed = calls.get(f"{title} rulings", f"{base}/rulings")
    if made and "id" in made:
        calls.get(f"{title} one ruling", f"{base}/rulings/{made['id']}")
    calls.get(f"{title} no such ruling", f"{base}/rulings/r-000000000000")
    for who, token in (("public", None), ("seat", seat), ("arbiter", arbiter)):
        calls.get(f"{title} ruled ({who})", f"{base}/ruled", token)
        calls.get(f"{title} ruled story ({who})", f"{base}/ruled/story", token)
        for n in (0, 4):
            calls.get(f"{title} ruled step {n} ({who})", f"{base}/ruled/steps/{n}", token)
    calls.get(f"{title} ruled step beyond", f"{base}/ruled/steps/100000")
    calls.get(f"{title} export with rulings", f"{base}/export")
    assert listed is not None


def commitment(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def contribution(secret: str, k: int) -> str:  # as docs/trust.md says a seat makes its part of entry k
    return hmac.new(secret.encode(), f"cronaca/entry/{k}".encode(), hashlib.sha256).hexdigest()


def play_answers(calls: Caller, title: str, commands: int) -> None:
    """A live record played over HTTP: each command's answer (a retry with its Idempotency-Key, a refused one);
    for the toy, a shared-dice game joined, played to its end and revealed by every seat."""
    shared = title == "toy"
    made = calls.call(f"{title} play start", "POST", "/api/records",
                      json={"title": title, "seats": ["Zoë d'Alessandro", "Ann-Marie O'Neil"],
                            **({"dice": "shared"} if shared else {})})
    record_id, tokens = made["id"], [s["token"] for s in made["seats"]]
    calls.tokens.update([*tokens, made["annotator_key"], made["arbiter_key"]])
    base = f"/api/records/{record_id}"
    hidden = ["Zoë's secret: la mia parola", "Ann-Marie's own secret"]
    if shared:
        calls.call(f"{title} join by another seat", "POST", f"{base}/seats/1/join", tokens[0],
                   json={"commitment": commitment(hidden[0]), "contribution": contribution(hidden[0], 0)})
        for seat, secret in enumerate(hidden):
            calls.call(f"{title} join {seat}", "POST", f"{base}/seats/{seat}/join", tokens[seat],
                       json={"commitment": commitment(secret), "contribution": contribution(secret, 0)})
        calls.call(f"{title} join again", "POST", f"{base}/seats/0/join", tokens[0],
                   json={"commitment": commitment("x"), "contribution": contribution("x", 0)})
    players = SeededChance(f"answers-play-{title}")
    for k in range(1, (200 if shared else commands) + 1):
        pending = calls.client.get(f"{base}/legal").get_json()["pending"]
        if pending.get("over") or pending.get("seat") is None:
            break
        seat = pending["seat"]
        legal = calls.client.get(f"{base}/legal", headers=auth(tokens[seat])).get_json()
        body: dict[str, Any] = {"command": legal["commands"][players.below(len(legal["commands"]))], "version": legal["version"]}
        if shared:
            body["contribution"] = contribution(hidden[seat], k)
        answer = calls.call(f"{title} play {k}", "POST", f"{base}/commands", tokens[seat], json=body,
                            headers={"Idempotency-Key": f"answers-{title}-play-{k}"})
        if k == 2:
            calls.call(f"{title} play {k} again", "POST", f"{base}/commands", tokens[seat], json=body,
                       headers={"Idempotency-Key": f"answers-{title}-play-{k}"})
            calls.call(f"{title} play stale", "POST", f"{base}/commands", tokens[seat], json=body)
        if answer is None or answer.get("finished"):
            break
    if shared:
        calls.call(f"{title} reveal wrong", "POST", f"{base}/seats/0/reveal", tokens[0], json={"secret": "not it"})
        for seat, secret in enumerate(hidden):
            calls.call(f"{title} reveal {seat}", "POST", f"{base}/seats/{seat}/reveal", tokens[seat], json={"secret": secret})
        calls.call(f"{title} reveal again", "POST", f"{base}/seats/1/reveal", tokens[1], json={"secret": hidden[1]})


def live_answers(calls: Caller, service: Any, title: str, commands: int = 12) -> None:
    """A live record in progress: its verification and export as each reader asks."""
    record_id, tokens = service.records.play.start(title, ["Ada", "Bruno"], seed=f"answers-live-{title}")
    calls.tokens.update(tokens)
    players = SeededChance(f"answers-live-{title}")
    for _ in range(commands):
        timeline = service.records.timeline(record_id)
        if timeline.game.pending(timeline.head).over:
            break
        choices = timeline.game.legal(timeline.head)
        cmd = choices[players.below(len(choices))]
        service.records.play.command(record_id, cmd.to_json(), tokens[cmd.seat])
    for k, token in enumerate([None, *tokens]):
        calls.get(f"{title} live verify ({k})", f"/api/records/{record_id}/verify", token)
        calls.get(f"{title} live export ({k})", f"/api/records/{record_id}/export", token)
    calls.get(f"{title} live verify (forged)", f"/api/records/{record_id}/verify", "x" * 32)


def demo_answers(calls: Caller, service: Any, games: int) -> None:
    """The demo store `cronaca serve --demo` loads (api/service_cli.py): bot games of every real title, their
    notes, what-if lines and a lesson; then each record's export, verification, notes and variations."""
    keys: dict[str, tuple[str, str]] = {}
    demo_records(service.records, games, keys)
    made = demo_lesson(service.teaching, keys)
    assert made is not None
    lesson_id, teacher = made
    calls.tokens.update([teacher, *(key for _, key in keys.values())])
    for n, (record_id, (title, key)) in enumerate(sorted(keys.items(), key=lambda item: item[1])):
        base, record_id = f"/api/records/{record_id}", str(n)  # the ids are new each run: answers named by order
        for who, token in (("public", None), ("annotator", key)):
            calls.get(f"demo {title} {record_id} export ({who})", f"{base}/export", token)
            calls.get(f"demo {title} {record_id} notes ({who})", f"{base}/annotations", token)
        calls.get(f"demo {title} {record_id} verify", f"{base}/verify")
        for k, line in enumerate(calls.get(f"demo {title} {record_id} variations", f"{base}/variations")["variations"]):
            calls.get(f"demo {title} {record_id} variation {k} story", f"/api/variations/{line['id']}/story")
    for who, token in (("public", None), ("teacher", teacher)):
        calls.get(f"demo lesson ({who})", f"/api/lessons/{lesson_id}", token)
    calls.get("demo lesson export", f"/api/lessons/{lesson_id}/export", teacher)


def capture(titles: list[str], store: Path, demo_games: int = 0) -> dict[str, str]:
    """Every answer of the affected endpoints for these titles, masked."""
    settings = Settings.from_env({"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(store / "records.sqlite3")})
    records = Records(settings.store)
    held = Held(records)
    app = create_app(settings, Service(records, held, settings))
    app.config["TESTING"] = True
    calls = Caller(app.test_client(), held)
    stack = contextlib.ExitStack()
    counted = itertools.count()
    try:
        # A variation's own seed, chain keys, note ids: drawn as always, only from a seed of this capture,
        # so the what-if moves the variations draw are the same on every run.
        stack.enter_context(mock.patch.object(secrets, "token_hex", lambda n=32: hashlib.sha256(
            f"answers-{next(counted)}".encode()).hexdigest()[: 2 * n]))
        for title in titles:
            title_answers(calls, title)
            live_answers(calls, app.extensions["cronaca"], title)
            play_answers(calls, title, commands=6)
        if demo_games:
            demo_answers(calls, app.extensions["cronaca"], demo_games)
    finally:
        stack.close()
        close_app(app)
    return calls.masked()


def real_titles() -> list[str]:
    return [title for title in catalog.TITLES if catalog.demo_tables(title)]


def main(argv: list[str]) -> int:
    catalog.TITLES.setdefault("toy", "tests.kernel.toy_game")
    with tempfile.TemporaryDirectory() as store:
        found = capture([*real_titles(), "toy"], Path(store), demo_games=1 if "--demo" in argv else 0)
    Path(argv[0]).write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n")
    if "--compare" in argv:
        before = json.loads(Path(argv[argv.index("--compare") + 1]).read_text())
        differ = [name for name in before.keys() | found.keys() if before.get(name) != found.get(name)]
        print(f"{len(found)} answers, {len(differ)} differ" + "".join(f"\n  {name}" for name in sorted(differ)))
        return 1 if differ else 0
    print(f"{len(found)} answers written to {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
