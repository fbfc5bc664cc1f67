"""Boards drawn as SVG from a step's view, the edition's data and the title's layout file.

Each title has a module here, named as its package in domain/ (`catalog.package(title)`), with
`draw(view, previous, layout, edition, names) -> str` and `anchors(layout, edition, seats)`: a
complete `<svg>` document for one step as one reader may see it (`view` is already that
reader's view; `previous` is the same reader's view one step earlier, or None, so what changed
is highlighted). Positions never live in code: they come from `layout.yaml` beside the
title's edition (`domain/<package>/layout.yaml`), whose `editions:` list names the edition
ids it was drawn for, so a user's own printing can ship a layout of its own.

Drawing is presentation, so it lives with the viewer, not in `domain/`; the standard
library's ElementTree builds the SVG (escaping every label), no drawing library is needed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any

import yaml

from domain import catalog
from domain.kernel import Edition

Draw = Callable[[dict[str, Any], "dict[str, Any] | None", dict[str, Any], Edition, Sequence[str]], str]


class NoLayout(LookupError):  # noqa: N818  (named for what happened)
    """The record's title or edition has no board layout: the page says so and shows the rest."""


def _drawing(title: str) -> ModuleType:
    """The title's drawing module: replay_viewer/boards/<package>.py, named as its package in domain/."""
    try:
        return importlib.import_module(f"{__name__}.{catalog.package(title)}")
    except (KeyError, ModuleNotFoundError):
        raise NoLayout(f"there is no board drawing for the title {title!r}") from None


@cache
def _layout_file(module: str) -> dict[str, Any] | None:
    path = resources.files(module).joinpath("layout.yaml")
    if not path.is_file():
        return None
    loaded = yaml.safe_load(path.read_bytes())
    return loaded if isinstance(loaded, dict) else None


def layout_for(title: str, edition: Edition) -> dict[str, Any]:
    """The layout drawn for this edition, or NoLayout with one sentence saying why."""
    _drawing(title)
    layout = _layout_file(catalog.TITLES[title])
    if layout is None:
        raise NoLayout(f"the title {title} has no board layout file yet")
    if edition.id not in layout.get("editions", ()):
        raise NoLayout(f"the edition {edition.id!r} has no board layout; only {', '.join(layout.get('editions', ()))} have one")
    return layout


def drawable(title: str, edition_id: str) -> bool:
    """Whether a record of this title and edition has a board drawing (a link's preview names its picture only then)."""
    try:
        _drawing(title)
    except NoLayout:
        return False
    layout = _layout_file(catalog.TITLES[title])
    return layout is not None and edition_id in layout.get("editions", ())


def drawer(title: str) -> Draw:
    return _drawing(title).draw


def draw(title: str, view: dict[str, Any], previous: dict[str, Any] | None, edition: Edition, names: Sequence[str]) -> str:
    """The SVG for one step; NoLayout when this title or edition cannot be drawn."""
    layout = layout_for(title, edition)
    return with_words(drawer(title)(view, previous, layout, edition, names), catalog.read_aloud(title, view, edition, names),
                      layout.get("phone"))


def with_words(svg: str, sentences: Sequence[str], phone: Any = None) -> str:
    """The drawing as a page shows it to every reader: the picture itself silent to a screen reader (its pieces
    read as digits and codes), and the board in sentences (the title's `aloud.board`) carried inside it as
    <metadata data-id="words">, which the page writes out as text beside the picture. `phone` (the layout's
    `phone:` entry) says how a phone opens the board: {scale, focus: [x, y]} rides on the root as data-phone."""
    end = svg.find(">", svg.find("<svg")) + 1
    if end <= 0:
        return svg
    extra = ' aria-hidden="true"'
    if isinstance(phone, dict):
        focus = phone.get("focus") or [0, 0]
        extra += f' data-phone="{float(phone.get("scale", 1)):g} {float(focus[0]):g} {float(focus[1]):g}"'
    words = "".join(f"<p>{sentence.translate(_TEXT)}</p>" for sentence in sentences)
    head = svg[: end - 1].rstrip("/").rstrip()
    return f'{head}{extra}><metadata data-id="words">{words}</metadata>{svg[end:]}'


_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def places(title: str, edition: Edition) -> tuple[str, ...]:
    """Every place a note's shape may name, as the title's notation spells it (`notation.places`)."""
    _drawing(title)
    found = catalog.places(title, edition)
    if found is None:
        raise NoLayout(f"the title {title} names no places of its board")
    return found


def anchors(title: str, edition: Edition, seats: int) -> dict[str, dict[str, Any]]:
    """{place: {"x", "y", "label"}} in the board SVG's own viewBox units, one per place of the title's
    `places(edition)`: where an arrow starts and ends and a highlight ring is drawn. NoLayout when
    the title or edition has no board drawing (then nothing can be drawn over it either)."""
    layout = layout_for(title, edition)
    found: dict[str, dict[str, Any]] = _drawing(title).anchors(layout, edition, seats)
    by_lower = {name.lower(): spot for name, spot in found.items()}
    out: dict[str, dict[str, Any]] = {}
    for place in places(title, edition):
        spot = found.get(place) or by_lower.get(place.lower())
        if spot is not None:
            out[place] = dict(spot)
    return out


def view_box(title: str, edition: Edition) -> list[float]:
    """The board drawing's viewBox [x, y, w, h]: the units of `anchors`."""
    return [float(v) for v in layout_for(title, edition)["viewBox"]]
