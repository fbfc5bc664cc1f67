"""The edition file: every value tagged, the map consistent, bad files refused, tables shared per edition."""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import pytest
import yaml

from domain.kernel import EditionError
from domain.serenissima import GAME
from domain.serenissima.edition import tables

RAW = resources.files("domain.serenissima").joinpath("edition.yaml").read_bytes()
EDITION = GAME.load_edition(RAW)


def _leaves(node: object, path: str = "") -> list[str]:
    if isinstance(node, Mapping):
        return [leaf for k, v in node.items() for leaf in _leaves(v, f"{path}.{k}" if path else str(k))]
    return [path]


def test_every_value_has_a_tagged_provenance_on_itself_or_an_ancestor() -> None:
    notes = EDITION.provenance
    untagged = [leaf for leaf in _leaves(yaml.safe_load(RAW)["data"]) if not any(leaf == p or leaf.startswith(p + ".") for p in notes)]
    assert untagged == []


def test_the_map_is_symmetric_connected_and_has_19_ports_on_20_zones() -> None:
    t = tables(EDITION)
    assert len(t.zones) == 20 and len(t.ports) == 19
    assert all(a in t.neighbours[b] for a in t.zones for b in t.neighbours[a])
    seen, todo = {"balearic"}, ["balearic"]
    while todo:
        for n in t.neighbours[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(t.zones)
    assert t.port_size[t.port_index["valencia"]] == 5 and t.port_size[t.port_index["antakya"]] == 3
    assert "algerian" in t.neighbours["balearic"] and "sidra" in t.neighbours["sicily_strait"]


def test_tables_are_built_once_per_content_hash() -> None:
    assert tables(EDITION) is tables(GAME.load_edition(RAW))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"neighbours: [adriatic_s]}", b"neighbours: [adriatic_s, marmara]}"),  # not symmetric
        (b"produces: wood,   size: 5, starting: true}", b"produces: silk,   size: 5, starting: true}"),
        (b"wine_card_payout: 3", b"wine_card_payout: three"),
        (b"balearic:         {name", b"balearic:         {nome"),
    ],
)
def test_a_broken_edition_is_refused(old: bytes, new: bytes) -> None:
    assert old in RAW
    with pytest.raises(EditionError):
        GAME.load_edition(RAW.replace(old, new, 1))


def test_an_edited_value_changes_the_rules_without_code() -> None:
    edited = GAME.load_edition(RAW.replace(b"basilica_bonus: 5", b"basilica_bonus: 7"))
    assert tables(edited).basilica_bonus == 7 and edited.content_hash != EDITION.content_hash


def _assumed_values_table() -> str:
    """The table of assumed values (edition keys) under the rules page's "Assumed" heading."""
    doc = (Path(__file__).parents[2] / "docs" / "rules" / "serenissima.md").read_text(encoding="utf-8")
    section = doc[doc.index("\n## Assumed\n") :]
    lines = section[section.index("\n### Values") :].splitlines()[2:]
    start = next(k for k, line in enumerate(lines) if line.startswith("|"))
    end = next((k for k in range(start, len(lines)) if not lines[k].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def _names_for(key: str) -> list[str]:
    """How the table may name a provenance key: itself, a parent, or with the port or good as a placeholder."""
    parts = key.split(".")
    names = [f"`{'.'.join(parts[:k])}`" for k in range(len(parts), 0, -1)]
    if len(parts) >= 3 and parts[0] in ("ports", "goods"):
        names.append(f"`{'.'.join([parts[0], '<id>' if parts[0] == 'ports' else '<good>', *parts[2:]])}`")
    if parts == ["ports"]:
        names.append("`ports.<id>.")
    return names


def test_every_assumed_value_of_the_edition_is_named_under_assumed_in_the_rules_page() -> None:
    table = _assumed_values_table()
    assumed = [key for key, note in EDITION.provenance.items() if "assumed" in note]
    assert len(assumed) >= 10  # the map, the warehouses, the payouts and the track at least
    missing = [key for key in assumed if not any(name in table for name in _names_for(key))]
    assert missing == []
