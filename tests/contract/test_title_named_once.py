"""A title is named in one place: its package (and the catalog that lists it).

Product code (domain/, api/, workers/, replay_viewer/) holds no title id ("citta-stato") and
no title package name ("citta_stato") as a string literal outside the title's own package,
its board drawing (replay_viewer/boards/<package>.py) and domain/catalog.py. Everything else
asks the catalog, so a new title is added by writing its package and one line of the catalog.
Docstrings and comments may name titles: they explain, they decide nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from domain import catalog

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("domain", "api", "workers", "replay_viewer")
TITLES = {title: module.rpartition(".")[2] for title, module in catalog.TITLES.items() if module.startswith("domain.")}

# The few literals that may stay, each with its reason: (file, the literal as written).
ALLOWED = {
    # OpenAPI descriptions show a reader an example of a value's form; any real title id serves.
    ("api/schemas.py", "a title id, e.g. citta-stato"),
    ("api/schemas.py", "the command's kind, e.g. citta-stato/war"),
    ("api/schemas.py", "rule violations: the stable rule id, e.g. citta-stato/use-card/colour"),
}


def owner(path: str) -> str | None:
    """The title whose own file this is (its package, its board drawing), or None."""
    for title, package in TITLES.items():
        if path.startswith(f"domain/{package}/") or path == f"replay_viewer/boards/{package}.py":
            return title
    return None


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every string literal that is not a docstring."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def named(path: str, source: str) -> list[str]:
    """`path:line: literal` for every literal naming a title this file does not belong to."""
    own = owner(path)
    if path == "domain/catalog.py":
        return []
    out = []
    for line, text in literals(source):
        for title, package in TITLES.items():
            if title != own and (title in text or package in text) and (path, text) not in ALLOWED:
                out.append(f"{path}:{line}: {text!r}")
                break
    return out


def product_files() -> Iterator[Path]:
    for top in PRODUCT:
        yield from sorted((ROOT / top).rglob("*.py"))


def test_no_title_is_named_outside_its_package_and_the_catalog() -> None:
    found = [hit for p in product_files() for hit in named(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))]
    assert found == [], "a title named outside its package (ask domain.catalog instead):\n" + "\n".join(found)


def test_every_allowed_literal_is_still_there() -> None:
    """An exception that is no longer needed is taken out of ALLOWED, so the list stays short and true."""
    stale = [(path, text) for path, text in ALLOWED if text not in dict.fromkeys(t for _, t in literals((ROOT / path).read_text()))]
    assert stale == []


def test_the_check_sees_a_literal_and_ignores_docstrings_and_comments() -> None:
    source = '"""Città-Stato is citta-stato."""\n# la-citta\nx = {"la-citta": 1}\ndef f():\n    """serenissima"""\n    return "serenissima/sale"\n'
    assert named("api/example.py", source) == ["api/example.py:3: 'la-citta'", "api/example.py:6: 'serenissima/sale'"]
    assert named("domain/serenissima/rules.py", 'x = "serenissima/sale"\ny = "la_citta"\n') == ["domain/serenissima/rules.py:2: 'la_citta'"]
    assert named("replay_viewer/boards/la_citta.py", 'x = "board la-citta"\n') == []
