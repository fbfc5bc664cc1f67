"""Every answer of the export, import status, verification and teaching endpoints is byte for byte the one
captured before those read services returned typed read models (tests/service/answers.py; the toy's answers,
kept in tests/service/answers_toy.json: ids, tokens, hashes and times masked)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.service.answers import Masked, capture

KEPT = Path(__file__).with_name("answers_toy.json")


def test_the_toy_answers_are_those_captured_before(tmp_path: Path) -> None:
    kept = json.loads(KEPT.read_text())
    found = capture(["toy"], tmp_path)
    assert list(found) == list(kept)
    for name, body in kept.items():
        assert found[name] == body, name


def test_the_masks_hide_only_what_differs_by_chance() -> None:
    """Ids and hashes keep who is who (the same id, the same mask; two ids, two masks); a token is masked only
    when the capture handed it out; every other character stays, so a changed value or key order is seen."""
    one, other = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b", "6fa459ea-ee8a-4ca4-894e-db77e160355e"
    token = "Zx9_-abcdefghijklmnopqrstuvwxyz0"
    mask = Masked([token])
    said = mask(f'{{"id":"{one}","record_id":"{other}","again":"{one}","token":"{token}","name":"{"Q" * 32}",'
                f'"at":"2026-12-06T01:39:07.123456+00:00","head":"{"ab" * 32}"}}')
    assert said == ('{"id":"<id0>","record_id":"<id1>","again":"<id0>","token":"<token0>","name":"' + "Q" * 32
                    + '","at":"<time>","head":"<hex0>"}')
    assert Masked()('{"a":1,"b":2}') != Masked()('{"b":2,"a":1}')
