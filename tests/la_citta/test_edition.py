"""The edition file: validated, pinned by hash, replaceable by a user's printing, documented."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain.kernel import EditionError, SeededChance
from domain.la_citta import GAME
from domain.la_citta.edition import tables
from tests.la_citta.helpers import fold

RAW = (Path(__file__).parents[2] / "domain" / "la_citta" / "edition.yaml").read_bytes()
DOC = Path(__file__).parents[2] / "docs" / "rules" / "la-citta.md"


def test_reference_edition_loads_and_is_pinned_in_the_first_event():
    ed = GAME.default_edition()
    assert ed.title == "la-citta" and ed.content_hash.startswith("sha256:")
    first = GAME.setup(ed, {"players": 2}, SeededChance("p"))[0]
    assert first.edition == ed.ref


def test_every_data_section_has_provenance():
    ed = GAME.default_edition()
    covered = {p.split(".")[0] for p in ed.provenance}
    assert set(ed.data) <= covered
    assert len(ed.tagged("rule")) > 20


def test_every_assumed_value_is_listed_in_the_rules_doc():
    """Under the doc's "Assumed" heading, where an owner of the printed game looks for what to replace."""
    text = DOC.read_text().split("\n## Assumed\n", 1)[1].split("\n## ", 1)[0]
    assumed = GAME.default_edition().tagged("assumed")
    assert len(assumed) >= 20
    for path, _ in assumed:
        assert f"`{path}`" in text, path


def test_a_users_printing_replaces_values_without_code():
    raw = RAW.replace(b"E06: F2", b"E06: F3")
    ed = GAME.load_edition(raw, "mine.yaml")
    assert ed.content_hash != GAME.default_edition().content_hash
    assert tables(ed) is not tables(GAME.default_edition())
    s = fold(GAME.begin(ed), GAME.setup(ed, {"players": 4}, SeededChance("u")))
    assert s.land.food[163] == 3 + 2


def test_a_broken_edition_is_refused():
    with pytest.raises(EditionError):
        GAME.load_edition(RAW.replace(b"size: small, pool: farm_quarry, arches: {}, produces: food", b"size: tiny, pool: farm_quarry, arches: {}, produces: food"))
    with pytest.raises(EditionError):
        GAME.load_edition(RAW.replace(b"title: la-citta", b"title: citta-stato"))
