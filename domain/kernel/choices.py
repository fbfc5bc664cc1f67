"""Legal commands as a person picks them at the table: in words, grouped, split into the steps of the choice.

The table companion's decision panel (issue 31) offers every legal command as a button. A command's words are
its notation move (the title's `Words`: what a table writes for it), each token said as the rulebook says it
(`Words.terms`: `Y` yellow, `alessandria` Alessandria); `parts` are those words split where a person picks
again (the verb, then each argument: ["buy", "yellow", "cost 3"]), so a page builds a choice of many parts
step by step from the common prefixes of the legal ones; `group` is how a player thinks of the choice
(actions, cards, places, pass), and `place` the board place it names (the id the board drawing gives that
place), so a tap on the board can pick it. A title says its groups, places and argument labels in its own
`notation.py` (`choices`), through `choice_of` here; a title without one gets `plain` (the notation's words,
one group).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.kernel.notation import Form, Words

ACTIONS = "actions"
CARDS = "cards"
PLACES = "places"
PASS = "pass"


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal command as the decision panel offers it."""

    words: str
    group: str
    parts: tuple[str, ...]
    place: str | None = None

    def to_json(self, command: Mapping[str, Any]) -> dict[str, Any]:
        return {"command": dict(command), "words": self.words, "group": self.group, "parts": list(self.parts),
                "place": self.place}


Chooser = Callable[[Any, Sequence[Mapping[str, Any]], Sequence[str]], list[Choice]]
"""(state, legal commands as JSON, seat names) -> one Choice per command, in their order."""


def _form(words: Words, command: Mapping[str, Any]) -> Form | None:
    """The notation form that writes this command (the vocabulary's own choice of it)."""
    for form in words.vocabulary.by_kind.get(str(command.get("type")), []):
        covered = {"type", "seat", *form.fixed, *(a.field for a in form.args)}
        if form.matches(command) and all(k in covered for k in command):
            return form
    return None


def _tokens(text: str) -> list[str]:
    """A move's words, a quoted name ("San Marco") kept whole."""
    if '"' not in text and "'" not in text:
        return text.split()
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _said(token: str, words: Words, names: Sequence[str]) -> str:
    """A token as the rulebook says it (`Words.terms`), else as written."""
    said = words.terms(token, names) if words.terms is not None else None
    return said or token


def choice_of(words: Words, state: Any, command: Mapping[str, Any], names: Sequence[str], group: str = ACTIONS,
              place: str | None = None, labels: Mapping[str, str] | None = None) -> Choice:
    """A command as the panel offers it: its notation move, each token as the rulebook says it, split into the
    verb and one part per argument. `labels` name a bare argument (a number, a hex) by what it is: field ->
    the words before it ("cost" -> "for": "for 3"; "" keeps it bare); an argument with words of its own
    (a colour) needs none. A title whose moves are written from the state (`Words.write`) is split after its verb."""
    text = words.write(state, command) if words.write is not None else words.vocabulary.write(command)
    tokens = _tokens(text)
    form = None if words.write is not None else _form(words, command)
    if form is None or not tokens:  # a move written from the state: its verb (with its number), then the rest
        said = [tokens[0], *(_said(t, words, names) for t in tokens[1:])] if tokens else [text]
        lead = 1
        while lead < len(said) and said[lead].isdigit():
            lead += 1
        parts = [" ".join(said[:lead]), *([" ".join(said[lead:])] if lead < len(said) else [])]
        return Choice(" ".join(said), group, tuple(parts), place)
    parts = [tokens[0]]  # the verb as the notation writes it (its terms would name a step of the rules instead)
    rest = tokens[1:]
    for k, arg in enumerate(form.args):
        if k >= len(rest):
            break
        taken = rest[k:] if arg.many else rest[k:k + 1]
        spoken = " ".join(_said(t, words, names) for t in taken)
        label = (labels or {}).get(arg.field, "" if arg.words is not None else arg.field)
        parts.append(f"{label} {spoken}".strip())
        if arg.many:
            break
    return Choice(" ".join(parts), group, tuple(parts), place)


def plain(words: Words) -> Chooser:
    """The chooser of a title that says nothing of its own: the notation's words, every choice an action."""

    def choose(state: Any, commands: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[Choice]:
        return [choice_of(words, state, c, names) for c in commands]

    return choose
