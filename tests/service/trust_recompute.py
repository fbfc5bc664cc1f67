"""Recompute a shared-dice record's outcomes from its record file, written from docs/trust.md alone.

It deliberately uses none of Cronaca's own chance or dice code: only hashlib, hmac and json, and the
title's rules (the `GAME` object of the title's package), which ask for chance and get it from the
generator below. `recompute(document, game)` returns the problems found (empty: every outcome holds).

    python -m tests.service.trust_recompute RECORD.json tests.kernel.toy_game
"""

from __future__ import annotations

import hashlib
import hmac
import json


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical(obj: object) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def contribution(secret: str, k: int) -> str:
    return hmac.new(secret.encode(), ("cronaca/entry/" + str(k)).encode(), hashlib.sha256).hexdigest()


def entry_seed(seed: str, k: int, contributions: list[str]) -> str:
    return sha256_hex(canonical({"seed": seed, "entry": k, "seats": contributions}))


class Generator:
    """The counter-mode SHA-256 generator of docs/trust.md ("The generator"), with the outcomes it gave."""

    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.block = 0
        self.words: list[int] = []
        self.log: list[dict[str, object]] = []

    def below(self, n: int) -> int:
        limit = (2**64 // n) * n
        while True:
            if not self.words:
                digest = hashlib.sha256(self.seed.encode() + b":" + str(self.block).encode()).digest()
                self.block += 1
                self.words = [int.from_bytes(digest[i : i + 8], "big") for i in range(0, 32, 8)]
            x = self.words.pop(0)
            if x < limit:
                return x % n

    def roll(self, source: str, dice: int, faces: int = 6) -> tuple[int, ...]:
        values = tuple(1 + self.below(faces) for _ in range(dice))
        self.log.append({"kind": "roll", "source": source, "values": list(values)})
        return values

    def draw(self, source: str, contents: list, n: int) -> tuple:  # type: ignore[type-arg]
        pool = list(contents)
        take = min(n, len(pool))
        for j in range(take):
            r = j + self.below(len(pool) - j)
            pool[j], pool[r] = pool[r], pool[j]
        self.log.append({"kind": "draw", "source": source, "values": list(pool[:take])})
        return tuple(pool[:take])

    def shuffle(self, source: str, items: list) -> tuple:  # type: ignore[type-arg]
        pool = list(items)
        for j in range(len(pool) - 1, 0, -1):
            r = self.below(j + 1)
            pool[j], pool[r] = pool[r], pool[j]
        self.log.append({"kind": "shuffle", "source": source, "values": list(pool)})
        return tuple(pool)


def recompute(document: dict, game: object) -> list[str]:  # type: ignore[type-arg]
    """Steps 1-3 of "Recomputing a record from its file": every problem, in words."""
    problems: list[str] = []
    chance = document["chance"]
    seed = chance["seed"]
    if sha256_hex(seed.encode()) != chance["commitment"]:
        problems.append("the service's seed does not match its commitment")
    seats = sorted(chance["seats"], key=lambda s: s["seat"])
    for seat in seats:
        secret = seat.get("secret")
        if secret is None:
            problems.append(f"seat {seat['seat']} has not revealed its secret")
            continue
        if sha256_hex(secret.encode()) != seat["commitment"]:
            problems.append(f"seat {seat['seat']}: the secret does not match the commitment")
        for k, given in seat["contributions"].items():
            if given != contribution(secret, int(k)):
                problems.append(f"seat {seat['seat']}: the contribution for entry {k} is not the secret's")
    edition_file = document["edition"].get("file")
    edition = game.load_edition(edition_file.encode()) if edition_file else game.default_edition()  # type: ignore[attr-defined]
    state = game.begin(edition)  # type: ignore[attr-defined]
    for k, entry in enumerate(document["entries"]):
        parts = [s["contributions"][str(k)] for s in seats if str(k) in s["contributions"]]
        generator = Generator(entry_seed(seed, k, parts))
        written = [{"kind": o["kind"], "source": o["source"], "values": o["values"]} for o in entry["outcomes"]]
        try:
            if k == 0:
                produced = game.setup(edition, entry["setup"], generator)  # type: ignore[attr-defined]
                for e in produced:
                    state = game.evolve(state, e)  # type: ignore[attr-defined]
            else:
                command = game.parse_command(entry["command"])  # type: ignore[attr-defined]
                own_play = getattr(game, "play", None)
                if own_play is not None:
                    produced, state = own_play(state, command, generator)
                else:
                    produced = game.decide(state, command, generator)  # type: ignore[attr-defined]
                    for e in produced:
                        state = game.evolve(state, e)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001  (the rules refuse the command: the draws before it differed)
            problems.append(f"entry {k}: the rules refuse it with the recomputed outcomes ({exc}); "
                            f"the outcomes are not those the seeds give (file {written}, recomputed {generator.log})")
            break
        if json.loads(json.dumps(generator.log)) != written:
            problems.append(f"entry {k}: the outcomes are not those the seeds give "
                            f"(file {written}, recomputed {generator.log})")
            break  # every later state follows from this one
        if [e.to_json() for e in produced] != entry["events"]:
            problems.append(f"entry {k}: the events are not those the rules give")
            break
        if any(o.get("by") != "service" for o in entry["outcomes"]):
            problems.append(f"entry {k}: an outcome is not marked as drawn by the service")
    return problems


if __name__ == "__main__":
    import sys

    with open(sys.argv[1], encoding="utf-8") as f:  # noqa: PTH123  (this reader needs no more than the standard modules it names)
        found = recompute(json.load(f), __import__(sys.argv[2], fromlist=["GAME"]).GAME)
    print("\n".join(found) or "every outcome recomputed")
    sys.exit(1 if found else 0)
