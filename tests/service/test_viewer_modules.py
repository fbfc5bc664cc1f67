"""The viewer is native ES modules without a build step (issue 29): what keeps it so.

Every page loads its code as `<script type="module" src=...>` (no classic script, no inline script, no
import map: the CSP's `script-src 'self'` stays as strict); the helpers every page needs are defined once,
in replay_viewer/lib/ (`el` in dom.js, `api` in api.js), and no file hands another a global; every module is
checked by TypeScript's checker (`// @ts-check`, run by `./dev test`); and every relative import is served.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

from api.app import create_app
from domain.records.settings import Settings
from tests.service.conftest import close_app

VIEWER = Path(__file__).resolve().parents[2] / "replay_viewer"
PAGES = sorted(VIEWER.glob("*.html"))
# Pages with no code at all (the page a browser reads at a wrong address): nothing to load.
STATIC = {"notfound.html"}
MODULES = sorted([*VIEWER.glob("*.js"), *VIEWER.glob("lib/*.js")])
SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S)
IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']([^"']+)["']""", re.M)
# A module fetched only when a page's code asks for it (`import("./study.js")`), after what the page shows first.
LATER = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")
# Where each shared helper is defined, and the ways a module could define it again.
SHARED = {"el": "lib/dom.js", "api": "lib/api.js"}
DEFINES = r"(?:function\s+{0}\s*\(|(?:const|let|var)\s+{0}\s*=)"


def relative(path: Path) -> str:
    return path.relative_to(VIEWER).as_posix()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One app for the files served as they are (no store is read for them: SQLite alone, made once)."""
    app = create_app(Settings.from_env({"SQLITE_DBNAME": str(tmp_path_factory.mktemp("modules") / "r.sqlite3")}))
    yield app.test_client()
    close_app(app)


def test_there_are_pages_and_modules() -> None:
    assert len(PAGES) >= 6 and len(MODULES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_loads_only_module_scripts(page: Path) -> None:
    html = page.read_text()
    scripts = SCRIPT.findall(html)
    assert scripts or page.name in STATIC, f"{page.name} loads no script"
    for attributes, inline in scripts:
        assert re.search(r'\btype="module"', attributes), f"{page.name} loads a classic script: <script{attributes}>"
        assert re.search(r'\bsrc="/viewer/[\w/]+\.js"', attributes), f"{page.name}: a module script without its src"
        assert not inline.strip(), f"{page.name} has an inline script"
    assert "importmap" not in html


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_is_laid_out_at_a_phones_own_width(page: Path) -> None:
    """Without the viewport meta a phone lays a page out at 980 px and shows it zoomed out (issue 32); the browser
    tests open the served pages at 390 px, this one keeps a new page from forgetting it."""
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page.read_text(), page.name


@pytest.mark.parametrize("module", MODULES, ids=relative)
def test_a_module_is_type_checked_and_keeps_to_itself(module: Path) -> None:
    text = module.read_text()
    assert text.startswith("// @ts-check\n"), f"{relative(module)} does not begin with // @ts-check"
    for name, home in SHARED.items():
        if relative(module) != home:
            assert not re.search(DEFINES.format(name), text), f"{relative(module)} defines `{name}`: import it from {home}"
    assert not re.search(r"\bwindow\.\w+\s*=[^=]", text), f"{relative(module)} hands a global to other files"
    assert "TITLES" not in text, "the titles' names come from GET /api/titles"


@pytest.mark.parametrize("module", MODULES, ids=relative)
def test_every_import_is_served_as_javascript(served: Any, module: Path) -> None:
    client = served
    url = f"/viewer/{relative(module)}"
    text = module.read_text()
    for target in [*IMPORT.findall(text), *LATER.findall(text)]:
        assert target.startswith("./") or target.startswith("../"), f"{url} imports {target}: only relative imports"
        answer = client.get(urljoin(url, target))
        assert answer.status_code == 200, f"{url} imports {target}, not served"
        assert answer.mimetype == "text/javascript"


def test_assets_are_revalidated_by_their_etag(served: Any) -> None:
    client = served
    first = client.get("/viewer/lib/api.js")
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache" and first.headers["ETag"]
    again = client.get("/viewer/lib/api.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


@pytest.mark.parametrize("name", ["lib/../record.js", "boards/__init__.py", "lib/nothing.js", "__init__.py", "lib"])
def test_nothing_else_of_the_package_is_served(served: Any, name: str) -> None:
    assert served.get(f"/viewer/{name}").status_code == 404


def imported_by(module: str) -> list[str]:
    """Every module `module` imports, at any depth, as paths under replay_viewer/."""
    found: list[str] = []
    todo = [module]
    while todo:
        here = todo.pop()
        for spec in IMPORT.findall((VIEWER / here).read_text()):
            target = urljoin(f"/{here}", spec).lstrip("/")
            if target not in found:
                found.append(target)
                todo.append(target)
    return found


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_a_page_preloads_every_module_its_scripts_import(page: Path) -> None:
    """Without a build step a module's imports are found only once it is parsed, a round trip a level; the page
    names them all with `<link rel="modulepreload">` so they load beside its scripts (and not one more)."""
    html = page.read_text()
    entries = re.findall(r'<script type="module" src="/viewer/([\w/]+\.js)"', html)
    wanted = {m for entry in entries for m in imported_by(entry)} - set(entries)
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/viewer/([\w/]+\.js)">', html))
    assert preloaded == wanted, f"{page.name}: preload {sorted(wanted - preloaded)}, drop {sorted(preloaded - wanted)}"


def test_the_record_pages_first_board_waits_for_no_study_code() -> None:
    """Issue 29: a cold load fetches, links and runs every module of a page before its first board. The study
    layer (notes, variations, rulings: the largest module, with shapes.js) and the titles' names are imported by
    record.js once the first board is drawn, so none is a script of the page, preloaded, or in its static graph."""
    html = (VIEWER / "record.html").read_text()
    entries = re.findall(r'<script type="module" src="/viewer/([\w/]+\.js)"', html)
    assert "record.js" in entries and "study.js" not in entries
    graph = imported_by("record.js")
    for late in ["study.js", "lib/shapes.js", "lib/titles.js"]:
        assert late not in graph and f'href="/viewer/{late}"' not in html, f"{late} is on the first board's path"
    assert {"./study.js", "./lib/titles.js"} <= set(LATER.findall((VIEWER / "record.js").read_text()))
