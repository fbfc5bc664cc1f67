"""The command line's console (rich): the project's own colours, and text from files and records shown as it is.

A notation file's names, comments and moves, a record's seats, a finding's message or a file's path are
the user's text: rich would read `[blue]x[/blue]` in them as markup (and swallow it) and `deck:B:` as an
emoji. So every console here has emoji and highlighting off, and a line is assembled as a `Text` from
plain pieces (never parsed) and the project's own `(text, style)` pieces: markup is never parsed at all.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

Piece = str | tuple[str, str]


def console(stderr: bool = False) -> Console:
    """A console that reads no emoji codes and highlights nothing (colours still follow the terminal)."""
    return Console(highlight=False, emoji=False, stderr=stderr)


def line(*pieces: Piece) -> Text:
    """One line of output: a `str` piece is printed as it is, a `(text, style)` piece in the project's style."""
    return Text.assemble(*pieces)
