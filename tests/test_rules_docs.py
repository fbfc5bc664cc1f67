"""The rules coverage pages name the tests that keep each rule; every name must be a test that exists.

`docs/rules/<title>.md` cites tests in backticks as `file::test`, `file.py::test`, `test[params]`,
`test_02_…` (a name cut short: any test it begins) or a file alone (`test_two_ports.py`, `test_examples`). A bare test name stands in the file named last before it on the
same line, as a table cell lists several tests of one file; with no file named on the line it may be
in any of the title's test files. A page that names a test which was renamed or removed misleads the
next reader about what is checked, so the suite fails on it.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = sorted((ROOT / "docs" / "rules").glob("*.md"))
SPAN = re.compile(r"`([^`]+)`")
QUALIFIED = re.compile(r"^(?P<file>test_\w+?)(?:\.py)?::(?P<test>test_\w+…?)(?:\[[^\]]*\])?$")
BARE_TEST = re.compile(r"^(?P<test>test_\w+…?)(?:\[[^\]]*\])?$")
BARE_FILE = re.compile(r"^(?P<file>test_\w+)\.py$")


@cache
def defined_tests(path: Path) -> frozenset[str]:
    """The test functions a file defines, at module level or in a class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))


def cited(test: str, defined: frozenset[str]) -> bool:
    if test.endswith("…"):
        return any(name.startswith(test[:-1]) for name in defined)
    return test in defined


def folder_of(page: Path) -> Path:
    return ROOT / "tests" / page.stem.replace("-", "_")


def references(page: Path) -> list[tuple[int, str, str | None, str | None]]:
    """(line number, the span as written, file stem or None, test name or None) for each test cited."""
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        current: str | None = None
        for span in SPAN.findall(line):
            span = span.strip()
            if m := QUALIFIED.match(span):
                current = m["file"]
                found.append((number, span, current, m["test"]))
            elif m := BARE_FILE.match(span):
                current = m["file"]
                found.append((number, span, current, None))
            elif (m := BARE_TEST.match(span)) and (folder_of(page) / f"{m['test']}.py").is_file():
                current = m["test"]  # a file named without .py
                found.append((number, span, current, None))
            elif m := BARE_TEST.match(span):
                found.append((number, span, current, m["test"]))
    return found


def unresolved(page: Path) -> list[str]:
    folder = folder_of(page)
    files = {p.stem: p for p in folder.glob("test_*.py")}
    missing = []
    for number, span, stem, test in references(page):
        if stem is not None and stem not in files:
            missing.append(f"{page.name}:{number}: `{span}`: no tests/{folder.name}/{stem}.py")
        elif test is not None:
            where = [files[stem]] if stem is not None else list(files.values())
            if not any(cited(test, defined_tests(p)) for p in where):
                missing.append(f"{page.name}:{number}: `{span}`: no test {test} in {stem or 'any test file'}")
    return missing


@pytest.mark.parametrize("page", RULES, ids=lambda p: p.stem)
def test_every_test_a_rules_page_names_exists(page: Path) -> None:
    assert references(page), f"{page.name} cites no test at all: the reader cannot tell what is checked"
    assert unresolved(page) == []


def test_a_renamed_test_is_caught(tmp_path: Path) -> None:
    """The check itself: a page citing a test that is not there is reported at its line."""
    rules = tmp_path / "docs" / "rules"
    rules.mkdir(parents=True)
    page = rules / "citta-stato.md"
    page.write_text("| rule | code | `test_setup.py::test_setup_by_player_count`, `test_no_such_thing` |\n")
    assert len(references(page)) == 2
    assert unresolved(page) == ["citta-stato.md:1: `test_no_such_thing`: no test test_no_such_thing in test_setup"]
