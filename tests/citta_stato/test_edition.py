"""The reference edition file: schema, provenance tags, and the components document's consistency checks."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.citta_stato import state
from domain.citta_stato.edition import COLOURS, tables
from domain.kernel import EditionError, editions

from .helpers import EDITION, GAME


def test_edition_identity_and_tags() -> None:
    assert EDITION.id == "reference-1" and EDITION.content_hash.startswith("sha256:")
    tags = {note.split()[0].strip("[]:") for note in EDITION.provenance.values()}
    assert tags <= {"rule", "inferred", "assumed"}
    assert EDITION.tagged("assumed")  # the values to overwrite first are listed


def test_tables_are_built_once_per_edition() -> None:
    assert tables(EDITION) is tables(GAME.default_edition())


def test_every_city_card_shows_two_of_each_coloured_cube() -> None:
    for city in EDITION.data["cities"].values():
        assert Counter(city["cubes"]) == {"Y": 2, "G": 2, "O": 2, "P": 2}


def test_eight_cards_per_colour_plus_two_in_the_expansion() -> None:
    cards = EDITION.data["cards"]
    for c in COLOURS:
        mine = [k for k in cards if k[0] == c]
        assert len([k for k in mine if not cards[k]["expansion"]]) == 8
        assert len([k for k in mine if cards[k]["expansion"]]) == 2


def test_market_holds_every_base_setup() -> None:
    pairs = Counter(c for k, city in EDITION.data["cities"].items() if not city["expansion"] for c in city["cubes"][6:])
    assert max(pairs.values()) <= len(EDITION.data["market"]["row_costs"])


def test_a_broken_edition_is_refused_with_its_place() -> None:
    raw = (GAME.default_edition and __import__("importlib.resources").resources.files("domain.citta_stato").joinpath("edition.yaml").read_bytes())
    bad = raw.replace(b"cubes: [Y, Y, G, O, O, P, G, P]", b"cubes: [Y, Y, G, O, O, P, G, R]")
    with pytest.raises(EditionError) as err:
        GAME.load_edition(bad, "bad.yaml")
    assert "bad.yaml" in str(err.value)
    with pytest.raises(EditionError):
        GAME.load_edition(raw.replace(b'rounds: "rule', b'rounds: "guess'))


def test_an_owner_can_change_a_number_without_code() -> None:
    raw = __import__("importlib.resources").resources.files("domain.citta_stato").joinpath("edition.yaml").read_bytes()
    mine = GAME.load_edition(raw.replace(b"values: [-1, 1, 2, 3, 4]", b"values: [-2, 1, 2, 3, 4]"))
    assert mine.content_hash != EDITION.content_hash
    assert tables(mine).track_values[2][0] == -2


def test_editions_brought_one_after_another_are_not_all_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edition file a table brings has its own empty state and tables, kept for the next fold; a server that meets
    many keeps a bounded number of them, and the default edition's come back the same as before."""
    monkeypatch.setattr(editions, "_DERIVED_MAX", 16)
    raw = __import__("importlib.resources").resources.files("domain.citta_stato").joinpath("edition.yaml").read_bytes()
    for n in range(40):
        mine = GAME.load_edition(raw + f"\n# the table's copy {n}\n".encode())
        assert GAME.begin(mine).edition is mine
    assert len(state._BEGUN) <= state._BEGUN_KEPT and len(editions._DERIVED) <= 16
    assert GAME.begin(EDITION).edition is EDITION and tables(GAME.begin(EDITION).edition) is tables(EDITION)
