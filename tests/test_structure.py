"""The shape of the code, counted on every run (issue 29): no import cycle inside a package, no import inside a
function, no module of domain/records over 700 lines. Each failure names its offenders.

Cycles are found on grimp's graph (the one import-linter checks the layers on, pyproject.toml), which counts
function-local imports and `if TYPE_CHECKING:` imports too: an import moved into a function, or behind the checker's
flag, to dodge a cycle is still a cycle here. One back reference is not a cycle: a package's application constructs
its services and each service takes the application (docs/architecture.md), so a service names the application's
type for the checker only (`if TYPE_CHECKING: from <package>.application import ...`); Python never runs that import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("domain", "api", "workers")  # packages whose cycles are counted
NO_LOCAL_IMPORTS = ("domain", "api", "workers", "replay_viewer")
APPLICATION = ".application"  # the module of a package's application, which its services take (the docstring)
LONGEST = 700  # lines, for a module of domain/records



@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """Every import, function-local and type-only ones included, but a service's type-only import of the
    application that constructs it (the module docstring)."""
    graph = grimp.build_graph(*CHECKED, cache_dir=None)
    run = grimp.build_graph(*CHECKED, cache_dir=None, exclude_type_checking_imports=True)
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.endswith(APPLICATION) and not run.direct_import_exists(importer=module, imported=imported):
                graph.remove_import(importer=module, imported=imported)
    return graph


def cycles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """Each import cycle among the parts of `package` (its __init__, its modules, each subpackage taken whole),
    shortest first: one through each part that is on any, from the direct imports between them."""
    parts = {child: {child, *graph.find_descendants(child)} for child in graph.find_children(package)}
    parts[package] = {package}
    part_of = {module: part for part, modules in parts.items() for module in modules}
    imports = {part: {part_of[i] for m in modules for i in graph.find_modules_directly_imported_by(m) if i in part_of} - {part}
               for part, modules in parts.items()}
    found: dict[frozenset[str], list[str]] = {}
    for start in sorted(parts):
        path = _shortest_back(start, imports)
        if path is not None and frozenset(path) not in found:
            found[frozenset(path)] = path
    return sorted(found.values(), key=lambda p: (len(p), p))


def _shortest_back(start: str, imports: dict[str, set[str]]) -> list[str] | None:
    """The shortest chain of imports from `start` back to itself (breadth first), or None."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for module in frontier:
            for imported in sorted(imports[module]):
                if imported == start:
                    path = [module]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1])]
                if imported not in came_from:
                    came_from[imported] = module
                    following.append(imported)
        frontier = following
    return None


def _packages() -> list[str]:
    found = []
    for top in CHECKED:
        for init in sorted((ROOT / top).rglob("__init__.py")):
            found.append(".".join(init.parent.relative_to(ROOT).parts))
    return found


@pytest.mark.parametrize("package", _packages())
def test_no_import_cycle_inside_a_package(graph: grimp.ImportGraph, package: str) -> None:
    found = cycles(graph, package)
    assert not found, f"{len(found)} import cycles in {package}:\n" + "\n".join(" -> ".join([*c, c[0]]) for c in found)


def _records_modules() -> list[Path]:
    return sorted((ROOT / "domain" / "records").rglob("*.py"))


def test_no_records_module_is_over_700_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _records_modules() if (n := len(p.read_text("utf-8").splitlines())) > LONGEST}
    assert not long, f"modules of domain/records over {LONGEST} lines: {long}"


def local_imports(source: str) -> Iterator[tuple[int, str]]:
    """(line, statement) of each import inside a function or method; a module-level `if TYPE_CHECKING:` is fine."""

    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[int, str]]:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child.lineno, ast.unparse(child)
            yield from visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    yield from visit(ast.parse(source), False)


def _sources() -> list[str]:
    params: list[str] = []
    for top in NO_LOCAL_IMPORTS:
        for path in sorted((ROOT / top).rglob("*.py")):
            params.append(path.relative_to(ROOT).as_posix())
    return params


@pytest.mark.parametrize("name", _sources())
def test_no_import_inside_a_function(name: str) -> None:
    found = list(local_imports((ROOT / name).read_text("utf-8")))
    assert not found, f"{name}: imports inside functions (hoist them):\n" + "\n".join(f"  line {n}: {s}" for n, s in found)
