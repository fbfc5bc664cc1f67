"""The reading closest to what was written (issue 30): a refused move read as the legal one whose words and values are
nearest, and a step nobody wrote that nothing after it tells apart named with the others that fit."""

from __future__ import annotations

import re
from pathlib import Path

from domain.kernel.dispute import written_apart
from domain.transcripts import check_text
from tests.kernel.test_explanations import _TURN, forgotten_step, game_of, read_as_played

ONE_HEX = r"\b(starve|found) L(\d+)"  # a city starved, a castle founded: written one hex off


def test_a_value_is_nearest_where_a_pen_slips() -> None:
    assert written_apart(105, 104) < written_apart(105, 150) < written_apart(105, 15) < written_apart(105, 27)  # slips, then how far
    assert written_apart(61, 62) < written_apart(61, 16)  # two digits swapped is one slip, but 45 apart
    assert written_apart("O", "W") == (1, 0) and written_apart("costantinopoli", "costantinopoli") == (0, 0)
    assert written_apart(3, 2) == written_apart(3, 4) == (1, 1)


def test_a_hex_one_off_is_read_as_the_nearest_hex_that_stands() -> None:
    """`starve L77` where Bruno has no city, for his city at L76; a castle `found L61` too close to a city, for L62:
    each read as the nearest hex that stands (not the first in the rules' order), one finding, the game as played."""
    text, played = game_of("la-citta")
    lines = text.split("\n")
    refused = []
    for i, line in enumerate(lines):
        found = _TURN.match(line)
        if not found or line.startswith("[") or not re.search(ONE_HEX, found[3]):
            continue
        for step in (1, -1):
            edited = [*lines]
            edited[i] = re.sub(ONE_HEX, lambda m, s=step: f"{m[1]} L{int(m[2]) + s}", line, count=1)
            report = check_text("\n".join(edited))
            if report.findings and report.findings[0].line == i + 1:
                refused.append(edited[i])
                assert len(report.findings) == 1, f"{edited[i]!r}: {[f.line for f in report.findings][:6]}"
                assert read_as_played(report, played), f"{edited[i]!r} read as {report.findings[0].assumed!r}"
    assert len(refused) >= 20


def test_a_step_nothing_after_tells_apart_is_named_with_the_others_that_fit() -> None:
    """A forgotten shift of the Form of Republic marker, the Result not written: every shift reads to the end alike,
    and the report says so in words, naming the others, the one that was played among them."""
    text, _ = game_of("citta-stato")
    lines, at, forgotten = forgotten_step(text.split("\n"))
    without = [line for line in lines if not line.startswith("[Result ")]
    (finding,) = check_text("\n".join(without)).findings
    explanation = finding.explanation
    assert explanation["kind"] == "left-step" and len(explanation["alike"]) >= 1
    chosen = explanation["said"].rsplit("read as ", 1)[1]
    assert any(f": {forgotten}`" in reading for reading in [chosen, *explanation["alike"]])
    assert f"({len(explanation['alike']) + 1} readings fit it)" in str(finding.message)
    assert "nothing written says which" in str(finding.message)


def test_a_move_read_with_other_words_has_no_alike_readings() -> None:
    """A move written otherwise is read as the closest to what was written: that is a judge of its own, so no
    list of readings that fit alike (they would only be every legal move near the end of a short file)."""
    text, _ = game_of("la-citta")
    lines = text.split("\n")
    i = next(k for k, line in reversed(list(enumerate(lines))) if _TURN.match(line) and "starve L" in line)
    lines[i] = re.sub(r"starve L(\d+)", "starve L999", lines[i], count=1)
    report = check_text("\n".join(lines))
    assert report.findings and all("alike" not in (f.explanation or {}) for f in report.findings)


def test_readings_that_read_as_far_as_a_later_slip_are_told_apart_by_the_result() -> None:
    """Ada's shift closing round 1 not written, and a later line under the wrong name: every shift reads up to that
    line alike (nothing is judged past it), and the Result written down says it was `left`, not the first, `stay`."""
    path = Path(__file__).parent.parent / "disputes" / "citta_stato_shift_forgotten_the_result_says.txt"
    report = check_text(path.read_text(encoding="utf-8"))
    first, second = report.findings
    assert (first.line, second.line) == (22, 133)
    assert "read as `Ada: left`" in first.assumed and "the Result written down stands" in first.assumed
    assert first.explanation["runner_up"]["said"].endswith("read as `Ada: stay`")
    assert not any(f.kind == "result" for f in report.findings)
