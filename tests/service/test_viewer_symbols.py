"""Symbols beside a control's words ("◀ back", "✕ cancel", "↩ main line") are seen, not said: a screen reader reads
a symbol by its Unicode name ("black left-pointing triangle back"). Read from the viewer's own files, no browser: a
symbol in a button or link is in an aria-hidden span (lib/dom.js's `seenOnly`, `symbolButton`) or the control has
an aria-label; a symbol a style sheet adds has its alternative text (`content: "▸" / ""`).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

VIEWER = Path(__file__).resolve().parents[2] / "replay_viewer"
SCRIPTS = sorted([*VIEWER.glob("*.js"), *VIEWER.glob("lib/*.js")])
PAGES = sorted(VIEWER.glob("*.html"))
STYLES = sorted(VIEWER.glob("*.css"))
CONTROL = re.compile(r"<(button|a)\b([^>]*)>(.*?)</\1>", re.S)
HIDDEN = re.compile(r"<span\b[^>]*aria-hidden=\"true\"[^>]*>.*?</span>", re.S)
BUTTON_CALL = re.compile(r"\bbutton\(\s*([\"'`])(.*?)\1")
CONTENT = re.compile(r"content:\s*(\"[^\"]*\")([^;}]*)")


def symbols(text: str) -> str:
    """The characters of `text` a screen reader would name: symbols and arrows, not letters, digits or punctuation."""
    return "".join(c for c in text if ord(c) > 127 and (unicodedata.category(c) in {"So", "Sm"} or c in "‹›«»"))


def relative(path: Path) -> str:
    return path.relative_to(VIEWER).as_posix()


def test_symbols_are_told_apart_from_words() -> None:
    assert symbols("◀ back") == "◀" and symbols("✕") == "✕" and symbols("older ›") == "›"
    assert symbols("D'Angelo · step 3 — de la Cruz’s turn… <b>2 < 3</b>") == ""


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_s_controls_say_words_not_symbols(page: Path) -> None:
    for tag, attributes, inner in CONTROL.findall(page.read_text()):
        seen = symbols(HIDDEN.sub("", inner))
        assert not seen or "aria-label=" in attributes, f"{page.name}: <{tag}{attributes}> reads {seen!r} aloud"


@pytest.mark.parametrize("module", SCRIPTS, ids=relative)
def test_a_module_s_buttons_say_words_not_symbols(module: Path) -> None:
    for _, text in BUTTON_CALL.findall(module.read_text()):
        assert not symbols(text), f"{relative(module)}: button({text!r}) reads its symbol aloud: use symbolButton"


@pytest.mark.parametrize("sheet", STYLES, ids=relative)
def test_a_symbol_a_style_sheet_adds_has_words_for_a_screen_reader(sheet: Path) -> None:
    for content, rest in CONTENT.findall(sheet.read_text()):
        assert not symbols(content) or rest.strip().startswith("/"), \
            f"{sheet.name}: content: {content} is read aloud; give it alternative text (content: {content} / \"\")"
