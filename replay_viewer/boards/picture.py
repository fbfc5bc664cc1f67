"""A drawn board as a PNG picture, for a chat or a forum that shows pictures but not SVG.

Rasterised by CairoSVG (Kozea/CourtBouillon's SVG renderer on the Cairo library, kept since 2010): the
boards use only what it draws (shapes, text in the system's sans-serif, inline styles), it needs no browser,
and Debian ships the Cairo it binds to (libcairo2). The picture is the SVG the reader may see, pixel for
SVG unit, so it never shows more than the SVG does. Pictures are kept by the SVG's entity tag: a drawing
that has not changed is not rasterised again (rasterising takes 150-400 ms; a kept picture is answered at once).
"""

from __future__ import annotations

import cairosvg

from domain.kernel.cache import Bounded

PICTURES = 256  # pictures kept per process (100-250 KB each)
_KEPT: Bounded[str, bytes] = Bounded("board-pictures", PICTURES)


def png(svg: bytes, etag: str) -> bytes:
    """The PNG of `svg`, whose entity tag is `etag` (the same drawing always gives the same picture)."""
    found = _KEPT.get(etag)
    if found is None:
        found = cairosvg.svg2png(bytestring=svg, unsafe=False)
        _KEPT.put(etag, found)
    return found
