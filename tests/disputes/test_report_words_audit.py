"""Every sentence a report gives, read as a table reads it (issue 30): each slip kind of benchmarks/dispute_slips.py
planted in a played game of each title, and every finding's sentence, what the player held, what the checker went on
with and every unknown's sentence checked for what no table says: a seat number, a Python list, set, dict or flag,
a command id, a step's id in brackets (`(war-pay)`, `(plan)`), a count written for any number (`outcome(s)`); and
what the player held told without the hidden part to anyone but that player."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from benchmarks.dispute_slips import NAMES, PLANTERS, _turns, plant, play
from domain import catalog
from domain.kernel import ALL, reveal
from domain.transcripts import check_text

UNSAID = {
    "a seat number": re.compile(r"\bseat \d"),
    "a Python list, set or dict": re.compile(r"[\[{(]\s*'[^']*'\s*[,:\]})]"),
    "a Python flag": re.compile(r"\b(True|False|None)\b"),
    "a command id": re.compile(r"\b(citta-stato|la-citta|serenissima)/[a-z]"),
    "a step's id": re.compile(r"\((turn|plan|second|choose-galley|political-turn|[a-z]+-[a-z]+(-[a-z]+)*)\)"),
    "a count for any number": re.compile(r"\w\(s\)"),
}


def _sentences(report: dict[str, Any]) -> list[str]:
    """The sentences a reader reads (what is hidden from them comes as `{"hidden": true}`, no sentence)."""
    said = []
    for found in report["findings"]:
        said += [found["message"], found.get("holding"), found.get("assumed")]
        if isinstance(found.get("explanation"), dict):
            said.append(found["explanation"].get("said"))
    said += [u.get("message") for u in report["unknowns"]]
    return [s for s in said if isinstance(s, str)]


@pytest.mark.parametrize("title", catalog.TITLES)
def test_every_sentence_of_every_slip_kind_is_in_the_tables_words(title: str) -> None:
    rng = random.Random(f"words-{title}")
    low, high = catalog.game(title).seats
    seen = 0
    for players in sorted({low, min(high, 4)}):
        played = play(title, players, f"words-{title}-{players}")
        lines = played.text.split("\n")
        for kind in PLANTERS:
            planted = plant(kind, lines, rng, _turns(lines))
            if planted is None:
                continue
            report = check_text("\n".join(planted.lines)).to_json()
            for reader in (ALL, None):
                for sentence in _sentences(reveal(report, reader)):
                    seen += 1
                    for what, pattern in UNSAID.items():
                        assert not pattern.search(sentence), f"{kind}: {what} in {sentence!r}"
            for found in reveal(report, None)["findings"]:  # what a player held is that player's alone
                assert found.get("holding") in (None, {"hidden": True})
    assert seen > 40


def test_what_a_player_held_names_the_player_and_the_games_things() -> None:
    played = play("serenissima", 3, "words-held")
    lines = played.text.split("\n")
    planted = plant("continuation", lines, random.Random(1), _turns(lines))
    assert planted is not None
    report = reveal(check_text("\n".join(planted.lines)).to_json(), ALL)
    held = [f["holding"] for f in report["findings"] if f.get("holding")]
    assert held and all(h.split(" held ")[0] in NAMES for h in held)
    assert all(" 1 sailors" not in h and "ducat" in h for h in held)
