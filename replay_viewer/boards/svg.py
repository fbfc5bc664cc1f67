"""Writing a board's ElementTree as SVG markup: one writer for every title's drawing.

ElementTree's own writer is pure Python and spends most of a step's budget scanning for
namespaces these documents never use; this writes the same markup directly, escaping every
attribute value and text. An element tagged `RAW` stands for markup already written (a cached
printed board): its text goes out as it is.
"""

from __future__ import annotations

import unicodedata
from xml.etree.ElementTree import Element

RAW = "raw-svg"
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;"})


def write(el: Element, out: list[str]) -> None:
    """Append the markup of `el` (and its tail) to `out`."""
    if el.tag == RAW:
        out.append(el.text or "")
        return
    attrs = "".join(f' {k}="{str(v).translate(_ATTR)}"' for k, v in el.attrib.items())
    text = el.text
    if len(el) == 0 and not text:
        out.append(f"<{el.tag}{attrs} />")
    else:
        out.append(f"<{el.tag}{attrs}>")
        if text:
            out.append(text.translate(_TEXT))
        for child in el:
            write(child, out)
        out.append(f"</{el.tag}>")
    if el.tail:
        out.append(el.tail.translate(_TEXT))


def tostring(el: Element) -> str:
    out: list[str] = []
    write(el, out)
    return "".join(out)


# Advance widths in ems of DejaVu Sans, the boards' font (measured from its regular and bold faces, grouped to a
# tenth): enough to tell whether a player's name fits its place before the browser lays it out.
_EMS = {
    False: {**dict.fromkeys(" ',./:;IJ\\ijl|", 0.3), **dict.fromkeys("!()-[]frt", 0.4), **dict.fromkeys('"*?_`csz', 0.5),
            **dict.fromkeys("ABCKNRUVXZ", 0.7), **dict.fromkeys("#&+<=>DGHOQ^w~", 0.8), "M": 0.9,
            **dict.fromkeys("%@Wm", 1.0)},
    True: {**dict.fromkeys(" 'ijl", 0.3), **dict.fromkeys(",-./:;IJ\\f|", 0.4), **dict.fromkeys('!"()*[]_`rt', 0.5),
           **dict.fromkeys("?Lcsxz", 0.6), **dict.fromkeys("#+<=>ABDGHKNRUVX^~", 0.8), **dict.fromkeys("&OQw", 0.9),
           **dict.fromkeys("%@Mm", 1.0), "W": 1.1},
}
_OTHER = {False: 0.6, True: 0.7}  # digits and most letters; a letter with an accent counts as its base letter
_SYMBOL = 1.0  # ▶, ★, …: wider than a letter


def width(words: str, size: float, bold: bool = False) -> float:
    """About how wide `words` is drawn at `size` in the boards' font."""
    ems, other = _EMS[bold], _OTHER[bold]
    total = 0.0
    for c in words:
        if c not in ems and ord(c) > 127:
            base = unicodedata.normalize("NFKD", c)[:1]
            total += ems.get(base, other) if base.isascii() and base.isprintable() else _SYMBOL
        else:
            total += ems.get(c, other)
    return total * size


def fitted(words: str, room: float, size: float, bold: bool = False) -> str:
    """`words` as they fit in `room` units at `size`: whole, or cut with an ellipsis (a name too long for its
    place on a board, whose full form is in the element's title and in the seats' list)."""
    margin = 1.04  # the estimate's error on names, measured against the font itself: within 2%
    if width(words, size, bold) * margin <= room:
        return words
    cut = words
    while cut and width(cut.rstrip() + "…", size, bold) * margin > room:
        cut = cut[:-1]
    return cut.rstrip() + "…"
