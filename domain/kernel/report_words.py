"""A dispute report in the table's words: players by name, goods and places as the game says them.

The rules explain a refusal in a sentence written for whoever sent the command (`RuleViolation`:
"seat 1 holds 1 Y", "['G'] could not be drawn from bag:0", "citta-stato/market-cube is not one of
the choices for banner_any"). A table reading a report knows no seat numbers, no Python lists and no
command ids. `plain` rewrites such a sentence for the table without touching what the machine reads
(a finding's rule, facts and JSON fields stay as they were):

* `seat 1` / `seat 1's` -> the player's name (`Bruno`, `Bruno's`): the notation never numbers seats;
* a count written for any number (`1 outcome(s)`) -> as a sentence says it (`1 outcome`);
* `you`, `your` of a rule's sentence to whoever sent the command -> the player's name (`Bruno holds 1`);
* a Python list, set, tuple or dict (`['B', 'B']`, `{'Y': 4, 'G': 1}`) -> words (`black and black`,
  `yellow 4, green 1`);
* a command id of the title (`citta-stato/market-cube`) -> the verb a line writes for it (`market`);
* the rules' own tokens (a colour letter, a deck or bag, a step, a zone, a card id) -> the game's
  words, by the title's `Words.terms` hook, in a finding about the rules only (never in one about what
  was written, whose words are the notation's and quoted as such).

Nothing here knows a title: a title lends its words through `Words` (domain/kernel/notation.py):
`terms(token, names)`, `held_words(state, seat)`, `breakdown_words(breakdown)`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.kernel.violations import MARK, Secret

Terms = Callable[[str, Sequence[str]], str | None]
"""A title's token of the rules (`Y`, `bag:0`, `banner_any`, `marmara`) in the game's words, or None to keep it."""

_SEAT = re.compile(r"\b(?:[Ss]eat) (\d+)('s)?\b")
_KIND = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*/[a-z][a-z0-9_]*(?:-[a-z0-9_]+)*\b")
_OPENERS = {"[": "]", "{": "}", "(": ")"}
# a quoted word, a verb in backticks or a table's outcome in brackets (kept as written), or a token of the rules
# (a quote opens and closes only outside a word: the apostrophes of `Ada's` and `O'Brien` are no quotes)
_TOKEN = re.compile(r"""(?<!\w)'[^'\n]*'(?!\w)|(?<!\w)"[^"\n]*"(?!\w)|`[^`\n]*`|\[[^\]\n]*\]|[\w:.\-]+""")


def name_of(seats: Sequence[str], seat: int) -> str:
    return seats[seat] if 0 <= seat < len(seats) else f"seat {seat}"


def listed(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'; 'none' for nothing."""
    items = [str(i) for i in items]
    if not items:
        return "none"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _spoken(value: Any, seats: Sequence[str], terms: Terms | None) -> str:
    """A value of a Python literal as words: items by the title's terms, lists joined, dicts `key value`."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{_spoken(k, seats, terms)} {_spoken(v, seats, terms)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        return listed([_spoken(v, seats, terms) for v in items])
    if value is None:
        return "nothing"
    text = str(value)
    said = terms(text, seats) if terms is not None and isinstance(value, str) else None
    return said if said is not None else text


def _literal(text: str, start: int) -> tuple[int, Any] | None:
    """The Python literal opening at `start` (a list, set, dict or tuple of plain values), and where it ends."""
    depth, k, quote = 0, start, ""
    while k < len(text):
        ch = text[k]
        if quote:
            if ch == "\\":
                k += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPENERS:
            depth += 1
        elif ch in _OPENERS.values():
            depth -= 1
            if depth == 0:
                break
        elif ch == "\n":
            return None
        k += 1
    else:
        return None
    found = text[start: k + 1]
    inner = found[1:-1].strip()
    # a table's outcome (`[B R]`, `[3]`) is notation, not Python: only a literal with quotes, commas or a colon
    if inner and not re.search(r"""['",:]""", inner):
        return None
    try:
        value = ast.literal_eval(found)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return (k + 1, value) if isinstance(value, (list, tuple, set, dict)) else None


def _without_literals(text: str, seats: Sequence[str], terms: Terms | None) -> str:
    out: list[str] = []
    k = 0
    while k < len(text):
        ch = text[k]
        if ch in _OPENERS:
            found = _literal(text, k)
            if found is not None:
                end, value = found
                out.append(_spoken(value, seats, terms))
                k = end
                continue
        if ch in "'\"" and (k == 0 or not text[k - 1].isalnum()):  # a quoted word: what was written, kept whole
            close = text.find(ch, k + 1)
            if close > k and "\n" not in text[k:close]:
                out.append(text[k: close + 1])
                k = close + 1
                continue
        out.append(ch)
        k += 1
    return "".join(out)


def _terms_in(text: str, seats: Sequence[str], terms: Terms) -> str:
    def swap(found: re.Match[str]) -> str:
        token = found.group()
        if token[0] in "'\"[`":  # quoted, an outcome as written, or a verb of the notation
            return token
        bare = token.rstrip(".:")
        said = terms(bare, seats)
        return token if said is None else said + token[len(bare):]

    return _TOKEN.sub(swap, text)


_COUNTED = re.compile(r"\b(\d+) ([a-z]+)\(s\)")
_LISTED = re.compile(r"\b([a-z]+)\(s\) (\d+(?:, \d+)*)")


def counted(text: str) -> str:
    """`1 outcome(s)` -> `1 outcome`, `3 value(s)` -> `3 values`, `line(s) 4, 7` -> `lines 4, 7`: a count as a
    sentence says it (some of the checker's sentences are written for any count)."""
    text = _COUNTED.sub(lambda m: f"{m.group(1)} {m.group(2)}{'' if m.group(1) == '1' else 's'}", text)
    return _LISTED.sub(lambda m: f"{m.group(1)}{'s' if ',' in m.group(2) else ''} {m.group(2)}", text)


_YOU_DO = re.compile(r"\byou (still )?(have|hold|are)\b")
_YOUR = re.compile(r"\b[Yy]our(s)?\b")
_YOU = re.compile(r"\b[Yy]ou\b")
_THIRD = {"have": "has", "hold": "holds", "are": "is"}


def addressed(text: str, who: str) -> str:
    """A rule's sentence to whoever sent the command ("all your action cards are used", "you hold 1") said of the
    player by name, as a table reads it ("all Bruno's action cards are used", "Bruno holds 1")."""
    text = _YOU_DO.sub(lambda m: f"{who} {m.group(1) or ''}{_THIRD[m.group(2)]}", text)
    text = _YOUR.sub(f"{who}'s", text)
    return _YOU.sub(who, text)


def plain(message: str, seats: Sequence[str], verbs: Mapping[str, str] | None = None, terms: Terms | None = None,
          things: bool = False, seat: int | None = None) -> str:
    """A sentence of the rules in the table's words (see the module's doc). `verbs`: command id -> the verb a
    line writes; `things`: also the rules' tokens by `terms` (a finding about the rules, not about the writing);
    `seat`: the player the sentence is about, for its "you" and "your"."""
    text = message
    if verbs:
        def kind(found: re.Match[str]) -> str:
            said = terms(found.group(), seats) if terms is not None else None
            return said or (f"`{verbs[found.group()]}`" if found.group() in verbs else found.group())

        text = _KIND.sub(kind, text)
    if "[" in text or "{" in text or "(" in text:
        text = _without_literals(text, seats, terms if things else None)
    if things and terms is not None:
        text = _terms_in(text, seats, terms)
    # the players' names last: a name is never read as a token of the rules (a player called `Fleet` or `Y`)
    if seat is not None and 0 <= seat < len(seats) and things:
        text = addressed(text, seats[seat])
    if "(s)" in text:
        text = counted(text)
    return _SEAT.sub(lambda m: name_of(seats, int(m.group(1))) + (m.group(2) or ""), text)


def plain_any(message: Any, say: Callable[[str], str]) -> Any:
    """`plain` through a message that may be a Secret or its stored form (`{"$secret": ...}`): each side said."""
    if isinstance(message, str):
        return say(message)
    if isinstance(message, Secret):
        shown = say(message.shown) if isinstance(message.shown, str) else message.shown
        value = say(message.value) if isinstance(message.value, str) else message.value
        return Secret(value, message.seat, shown)
    if isinstance(message, Mapping) and isinstance(message.get(MARK), Mapping):
        inner = dict(message[MARK])
        for key in ("value", "shown"):
            if isinstance(inner.get(key), str):
                inner[key] = say(inner[key])
        return {MARK: inner}
    return message


def verbs_of(kinds: Mapping[str, Sequence[Any]]) -> dict[str, str]:
    """Command id -> the verb of its first form (a `Vocabulary.by_kind`)."""
    return {kind: forms[0].verb for kind, forms in kinds.items() if forms}


def breakdown_default(breakdown: Mapping[str, Any], terms: Terms | None = None, seats: Sequence[str] = ()) -> str:
    """A score's breakdown as words where the title lends none: `key value`, flags as yes/no, underscores as spaces."""
    parts = []
    for key, value in breakdown.items():
        said = terms(str(key), seats) if terms is not None else None
        parts.append(f"{said or str(key).replace('_', ' ')} {_spoken(value, seats, terms)}")
    return ", ".join(parts)
