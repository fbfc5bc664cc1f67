"""The architecture page and the README name code; every name must be code that exists.

`docs/architecture.md` and `README.md` cite, in backticks: files and folders (`domain/records/play.py`,
`api/`, `pyproject.toml`), a name in a file (`domain/records/play.py::Play.command`), a dotted module path
with or without a name in it (`domain.kernel.contract.play`, `workers.jobs`), and a service of the records
application with its method (`records.play.command`: the attribute `Records.__init__` sets, then a name of
that service's class). A page that names code which moved or was renamed sends the next engineer to the
wrong room, so the suite fails on it. Spans with a placeholder (`<title>`) or a wildcard are examples, not
names; fenced code blocks are left alone (they are diagrams and commands).
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from functools import cache
from pathlib import Path

import pytest

from domain.records import application

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "docs" / "architecture.md", ROOT / "README.md"]
SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
EXTENSIONS = ("py", "js", "md", "yaml", "toml", "json", "html", "css")
FILE = re.compile(rf"^(?P<path>[\w.-]+(?:/[\w.-]+)*\.(?:{'|'.join(EXTENSIONS)}))(?:::(?P<name>[A-Za-z_][\w.]*))?$")
FOLDER = re.compile(r"^(?P<path>[\w.-]+(?:/[\w.-]+)*)/$")
ROOTS = ("domain", "api", "workers", "replay_viewer", "tests", "benchmarks")
DOTTED = re.compile(rf"^(?:{'|'.join(ROOTS)})(?:\.[A-Za-z_]\w*)+$")
SERVICE = re.compile(r"^records\.(?P<service>[a-z_]\w*)(?:\.(?P<name>[A-Za-z_]\w*))?$")
SKIPPED_FOLDERS = {".venv", "node_modules", ".git", "__pycache__", "var"}


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def assigned(body: list[ast.stmt]) -> dict[str, ast.AST]:
    """Names a module or class body defines: functions, classes, assignments and imports."""
    found: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                found[alias.asname or alias.name.split(".")[0]] = node
    return found


def instance_names(cls: ast.ClassDef) -> set[str]:
    """`self.x = ...` targets in a class's methods: the attributes its instances get."""
    return {t.attr for node in ast.walk(cls) if isinstance(node, ast.Assign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}


def defines(path: Path, dotted: str) -> bool:
    """Whether the Python file defines `dotted` ("play", "Play.command"): a module-level name, then names
    inside the class it names (its methods and class attributes, or what its methods set on `self`)."""
    first, *rest = dotted.split(".")
    node = assigned(tree_of(path).body).get(first)
    for part in rest:
        if not isinstance(node, ast.ClassDef):
            return False
        inner = assigned(node.body).get(part)
        if inner is None and part in instance_names(node):
            return True
        node = inner
    return node is not None


def module_file(dotted: str) -> Path | None:
    """The file of a dotted module path (a module, or a package's __init__.py), or None."""
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def dotted_exists(dotted: str) -> bool:
    """`domain.kernel.contract.play`: the longest prefix that is a module, the rest a name defined in it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        found = module_file(".".join(parts[:cut]))
        if found is not None:
            return cut == len(parts) or defines(found, ".".join(parts[cut:]))
    return False


@cache
def named_anywhere(filename: str) -> bool:
    """A bare file name (`play.py`, `pyproject.toml`): some file of the repository has it."""
    for _, subfolders, files in os.walk(ROOT):
        subfolders[:] = [f for f in subfolders if f not in SKIPPED_FOLDERS]
        if filename in files:
            return True
    return False


def service_exists(service: str, name: str | None) -> bool:
    """`records.play.command`: `Records` gives itself `self.play`, and that service's class (or one it
    extends) defines `command`; `records.save`: a name of the application itself."""
    records = application.Records
    if name is None:
        return hasattr(records, service) or service in instance_names(class_tree(records))
    init = class_tree(records)
    made = next((node.value for node in ast.walk(init) if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Attribute) and t.attr == service for t in node.targets)), None)
    if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Name)):
        return False
    cls = getattr(application, made.func.id, None)
    if not inspect.isclass(cls):
        return False
    return any(hasattr(base, name) or name in instance_names(class_tree(base))
               for base in cls.__mro__ if base is not object)


@cache
def class_tree(cls: type) -> ast.ClassDef:
    found = ast.parse(inspect.getsource(cls)).body[0]
    assert isinstance(found, ast.ClassDef)
    return found


def spans(page: Path) -> list[tuple[int, str]]:
    """(line number, span) of every backticked span outside fenced blocks."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), page.read_text(encoding="utf-8"))
    return [(number, span.strip()) for number, line in enumerate(text.splitlines(), start=1)
            for span in SPAN.findall(line)]


def unresolved(page: Path) -> list[str]:
    missing = []
    for number, span in spans(page):
        if any(c in span for c in "<>*?"):
            continue  # a placeholder or a pattern: an example, not a name
        name = span.removesuffix("()")
        where = f"{page.name}:{number}: `{span}`"
        if m := FILE.match(name):
            path = ROOT / m["path"]
            if "/" not in m["path"] and m["name"] is None:
                if not named_anywhere(m["path"]):
                    missing.append(f"{where}: no file of that name")
            elif not path.is_file():
                missing.append(f"{where}: no file {m['path']}")
            elif m["name"] is not None and not (path.suffix == ".py" and defines(path, m["name"])):
                missing.append(f"{where}: {m['path']} defines no {m['name']}")
        elif m := FOLDER.match(name):
            if not (ROOT / m["path"]).is_dir():
                missing.append(f"{where}: no folder {m['path']}/")
        elif DOTTED.match(name):
            if not dotted_exists(name):
                missing.append(f"{where}: no module or name {name}")
        elif (m := SERVICE.match(name)) and not service_exists(m["service"], m["name"]):
            missing.append(f"{where}: the records application has no {name.removeprefix('records.')}")
    return missing


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_name_a_page_cites_exists(page: Path) -> None:
    assert spans(page), f"{page.name} names nothing in backticks: is it the page it should be?"
    assert unresolved(page) == []


def test_a_moved_name_is_caught(tmp_path: Path) -> None:
    """The check itself: names that exist pass, a moved file, a renamed function, a dotted path and a service
    method that are not there are each reported at their line; examples and fenced blocks are left alone."""
    page = tmp_path / "architecture.md"
    page.write_text(
        "`domain/records/play.py::Play.command`, `domain.kernel.contract.play`, `records.play.command`, `api/`\n"
        "`records.reading.steps`, `records.save`, `workers.jobs`, `pyproject.toml`, `docs/rules/<title>.md`\n"
        "`domain/records/pgstore2.py`\n"
        "`domain/records/play.py::Play.no_such_method`\n"
        "`domain.kernel.contract.no_such_name`\n"
        "`records.play.no_such_method` and `nowhere/`\n"
        "```\n`domain/not/checked.py`\n```\n",
        encoding="utf-8",
    )
    assert unresolved(page) == [
        "architecture.md:3: `domain/records/pgstore2.py`: no file domain/records/pgstore2.py",
        "architecture.md:4: `domain/records/play.py::Play.no_such_method`: domain/records/play.py defines no Play.no_such_method",
        "architecture.md:5: `domain.kernel.contract.no_such_name`: no module or name domain.kernel.contract.no_such_name",
        "architecture.md:6: `records.play.no_such_method`: the records application has no play.no_such_method",
        "architecture.md:6: `nowhere/`: no folder nowhere/",
    ]
