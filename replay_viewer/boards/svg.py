"""Writing a board's ElementTree as SVG markup: one writer for every title's drawing.

ElementTree's own writer is pure Python and spends most of a step's budget scanning for
namespaces these documents never use; this writes the same markup directly, escaping every
attribute value and text. An element tagged `RAW` stands for markup already written (a cached
printed board): its text goes out as it is.
"""

from __future__ import annotations

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
