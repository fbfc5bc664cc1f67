"""The table notation: what people write with a pencil during play and type in afterwards.

One file a game (docs/notation/<title>.md for each title's words)::

    [Title "citta-stato"]
    [Edition "reference-1"]
    [Date "2026-11-20"]
    [Place "Circolo, Bologna"]
    [Seats "Ada (red), Bruno (blue), Chiara"]
    [Options "players=3"]
    [Result "Ada 45, Bruno 38, Chiara 40"]
    [Transcriber "Chiara"]

    Setup [Y3 Y1 Y2] [?]
    1. Ada: war O [B R], pass {a comment [%cal venezia-ragusa] [%csl ragusa]}
       Bruno: market B 2
    = [B B]

* A header of tags in the PGN manner; seats in seat order, by name, each optionally with
  its colour; the setup options as `key=value` pairs (or a JSON object).
* One line per turn: an optional round number (`1.`), the player by name or colour, then
  that player's moves separated by commas. A name of words stands as it is (`Maria Grazia:`),
  any other is quoted (`"Bea (red)":`); the Seats and Result lists quote a name holding their
  own characters (`"\\"Rossi, Mario\\", Bea"`): see "header helpers" below. A move is a
  verb and its words, from the title's vocabulary (`Form`); the parser turns each into the
  engine's command.
* Chance outcomes in brackets right after the move that met them, in the order the rules
  ask for them (`[B R]`, `[3 5]`); `[?]` where nobody wrote it down, `?` for one unknown
  value. A line of only `= [..]` adds outcomes to the move before it.
* Comments in braces, anywhere a move may end; inside them `[%cal a-b,c-d]` draws arrows
  and `[%csl a,b]` highlights places, as in PGN. A note needs a little more markup (`read_comment`):
  a brush (`[%csl red a]`), labels (`[%lbl a "A"]`), an audience (`[%for Ada]`), an author
  (`[%by "Prof. Rossi"]`), a step (`[%step 12]`); inside a comment a backslash escapes the
  characters `{ } \\ [` and writes a new line as `\\n`.
* A glyph after a move, as in PGN: `war O [B R] ?!`; a lone `?` touches what it follows
  (`war O?`), since `?` standing apart is a word nobody wrote down. It binds to the comment after it.
* A variation (a what-if line) in parentheses after the turn line it leaves from: a line `(`, with
  an optional `{title [%by author] [%step n]}`, its own turn lines, and a line `)` (with `{[%step n]}`
  where the variation stops before what its last line leaves to the line's end); nestable. Its lines
  are kept apart (`Notation.variations`): the checker reads the main line only.

The grammar is lark's (LALR, one pass, line and column on every token); a line that does
not parse is reported with what was expected there and skipped, so the rest of the file is
still read. lark was chosen because it is the maintained Python grammar library with an
LALR mode fast enough for whole games and exact positions for every error.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import json
import operator
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from domain.kernel.contract import fold
from domain.kernel.editions import Edition

GRAMMAR = r"""
start: _NL? tag* line*
body: _NL? line*

tag: OPEN NAME STRING "]" _NL

?line: setup _NL
     | turn _NL
     | more _NL
     | note _NL
     | branch _NL
     | close _NL

setup: SETUP ":"? (_item (_item | QMARK)*)?
turn: ordinal? player ":" move (_SEP move)*
?ordinal: INT "."
?player: NAME | STRING | named
named: NAME (NAME | INT)+
move: NAME _word* (_item (_item | QMARK)*)?
_word: NAME | INT | STRING | QMARK
more: EQ _item (_item | QMARK)*
note: (COMMENT | GLYPH | QMARK)+
branch: LPAR COMMENT?
close: RPAR COMMENT?

_item: outcome | COMMENT | GLYPH
outcome: OPEN (NAME | INT | STRING | QMARK | _SEP)* "]"  // `[health, education]`: a comma is a space here

SETUP.2: "Setup"i
NAME: /[^\W\d][\w'\u2018\u2019\u02bc.\/+\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f-]*/
INT: /\d+/
QMARK: "?"
OPEN: "["
EQ: "="
STRING: /"(\\.|[^"\\\n])*"/
COMMENT: /\{(\\[\s\S]|[^\\}])*\}/
GLYPH.2: /!!|\?\?|!\?|\?!|!|(?<=[^\s\[(])\?/
LPAR: "("
RPAR: ")"
_SEP: "," | ";"
_NL: /([ \t\f]*(%[^\n]*)?\r?\n)+/

%ignore /[ \t\f]+/
"""

UNKNOWN = "?"  # one value nobody wrote down
_COUNTED = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
NUMBER_WORDS: Final = {w: k for k, w in enumerate(_COUNTED)}  # a number as a table writes it (`recruit two`): read as it


class NotationError(ValueError):
    """Text that does not say a move: where, what was expected, and the nearest words."""

    def __init__(self, message: str, line: int, column: int, expected: Sequence[str] = (),
                 did_you_mean: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.expected = list(expected)
        self.did_you_mean = list(did_you_mean)

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "message": self.message, "expected": self.expected,
                "did_you_mean": self.did_you_mean}


# ---- what a file says -------------------------------------------------------------------------


BRUSHES = ("green", "red", "blue", "yellow")  # the first is the brush nobody needs to write


@dataclass(frozen=True)
class Shape:
    """One mark on the board: an arrow `at` -> `to`, a highlighted place, or a label's text on a place."""

    kind: str  # arrow | highlight | label
    at: str
    to: str | None = None
    text: str | None = None
    brush: str = BRUSHES[0]


@dataclass(frozen=True)
class Markup:
    """Markup inside a comment: arrows (from, to) and highlighted places of any brush (as PGN's
    `[%cal]`/`[%csl]`), and what a note needs beyond them: every shape in order with its brush and
    the labels, who it is for (a seat's name), whether that seat wrote it, its author, its step."""

    arrows: tuple[tuple[str, str], ...] = ()
    highlights: tuple[str, ...] = ()
    shapes: tuple[Shape, ...] = ()
    audience: str | None = None  # [%for Ada]
    seat: bool = False  # [%seat]: the audience's own note
    author: str | None = None  # [%by "Prof. Rossi"]
    step: int | None = None  # [%step 12]


@dataclass(frozen=True)
class Comment:
    """A comment: `text` with its spaces run together where it holds markup (what a reader shows);
    `note` the exact text (escapes undone, markup taken out, ends trimmed); the glyph written just before it."""

    text: str
    line: int
    markup: Markup = field(default_factory=Markup)
    note: str = ""
    glyph: str | None = None


@dataclass(frozen=True)
class Written:
    """One chance outcome as the table wrote it: its values (UNKNOWN for `?`), or None for `[?]`."""

    values: tuple[Any, ...] | None
    line: int
    column: int

    @property
    def known(self) -> bool:
        return self.values is not None and UNKNOWN not in self.values


@dataclass(frozen=True)
class Move:
    verb: str
    words: tuple[Any, ...]
    outcomes: tuple[Written, ...]
    comments: tuple[Comment, ...]
    line: int
    column: int
    text: str
    glyph: str | None = None  # the first glyph written after the move (each also on its comment)


@dataclass(frozen=True)
class Turn:
    player: str
    moves: tuple[Move, ...]
    line: int
    column: int
    ordinal: int | None = None
    ordinal_line: int | None = None  # where its number is written, when on a heading line above it (`Round 3`)


@dataclass(frozen=True)
class Tag:
    name: str
    value: str
    line: int


@dataclass
class Notation:
    """A parsed file: its tags, the setup's outcomes, its turns and every line that did not parse."""

    tags: dict[str, Tag]
    setup: tuple[Written, ...]
    setup_line: int | None
    turns: list[Turn]
    errors: list[NotationError]
    comments: list[Comment] = field(default_factory=list)  # comments on lines of their own
    variations: list[Variation] = field(default_factory=list)  # lines in parentheses, in the order written

    def tag(self, name: str, default: str | None = None) -> str | None:
        found = self.tags.get(name)
        return found.value if found is not None else default


@dataclass
class Variation:
    """A what-if line in parentheses after the turn line it leaves from: never moves of the main line.

    `head` is the comment on its `(` line (its title, `[%by author]`, `[%step n]` where it leaves
    elsewhere than at the end of the line before it)."""

    line: int
    head: Comment | None
    turns: list[Turn] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    variations: list[Variation] = field(default_factory=list)
    end: int | None = None  # the line of its `)`
    tail: Comment | None = None  # the comment on its `)` line: `[%step n]` where it stops before its last line ends


# ---- the grammar ------------------------------------------------------------------------------

# a comment's body: an escape, a markup command (its arguments may hold JSON strings), or text
_PIECES = re.compile(r'\\(.)|\[%(\w+)((?:"(?:\\.|[^"\\])*"|[^\]"])*)\]|([^\\\[]+|\[)', re.S)
_UNESCAPE = {"n": "\n", "t": "\t", "r": "\r"}
_PLACE = r"[^\s,\]\-\"]+"
_BRUSHED = re.compile(rf"\s*(?:({'|'.join(BRUSHES)})\s+(?=[^\s,]))?(.*?)\s*", re.S)
_ARROW = re.compile(rf"\s*({_PLACE})\s*-\s*({_PLACE})\s*")
_HIGHLIGHT = re.compile(rf"\s*({_PLACE})\s*")
_LABEL = re.compile(rf"\s*(?:({'|'.join(BRUSHES)})\s+)?({_PLACE})\s+(\"(?:\\.|[^\"\\])*\"|\S+)\s*", re.S)
_NAMED = re.compile(r'\s*("(?:\\.|[^"\\])*"|[^\s"](?:[^"]*[^\s"])?)\s*', re.S)  # quoted, or words: [%for Maria Grazia]


def _word_or_string(found: str) -> str:
    return _unquote(found) if found.startswith('"') else found


_BAD_ESCAPE = re.compile(r'\\(?!["\\/bfnrt]|u[0-9a-fA-F]{4})')


def _unquote(found: str) -> Any:
    """A quoted word or tag value, JSON's escapes read; a backslash before anything else is kept as
    written (`[Place "C:\\giochi"]`) and a tab stays a tab: a string the grammar took never
    turns into a traceback here."""
    try:
        return json.loads(found, strict=False)
    except ValueError:
        return json.loads(_BAD_ESCAPE.sub(r"\\\\", found), strict=False)


def _command(name: str, args: str, shapes: list[Shape], said: dict[str, Any]) -> bool:
    """One `[%name args]` of a comment into `shapes` / `said`; False when it is not markup this reader knows."""
    if name in ("cal", "csl"):
        brush, rest = _BRUSHED.fullmatch(args).groups()  # type: ignore[union-attr]  # the pattern takes anything
        parts = rest.split(",")
        found = [(_ARROW if name == "cal" else _HIGHLIGHT).fullmatch(part) for part in parts]
        if not rest or None in found:
            return False
        for match in found:
            assert match is not None
            if name == "cal":
                shapes.append(Shape("arrow", match.group(1), match.group(2), brush=brush or BRUSHES[0]))
            else:
                shapes.append(Shape("highlight", match.group(1), brush=brush or BRUSHES[0]))
        return True
    try:
        if name == "lbl" and (label := _LABEL.fullmatch(args)):
            shapes.append(Shape("label", label.group(2), text=_word_or_string(label.group(3)), brush=label.group(1) or BRUSHES[0]))
            return True
        if name in ("for", "by") and (named := _NAMED.fullmatch(args)):
            said["audience" if name == "for" else "author"] = _word_or_string(named.group(1))
            return True
    except ValueError:  # a JSON string that is not one
        return False
    if name == "step" and args.strip().isdigit():
        said["step"] = int(args.strip())
        return True
    if name == "seat" and not args.strip():
        said["seat"] = True
        return True
    return False


def read_comment(raw: str, line: int, glyph: str | None = None) -> Comment:
    """A comment's text and its markup: arrows `[%cal a-b,c-d]` and highlights `[%csl a,b]`, each with
    an optional brush first (`[%csl red a]`), labels `[%lbl a "A"]`, `[%for seat]`, `[%seat]`,
    `[%by "author"]`, `[%step n]`. Markup this reader does not know stays in the text."""
    body = raw[1:-1] if raw.startswith("{") else raw
    if "[%" not in body and "\\" not in body:
        text = body.strip()
        return Comment(text, line, Markup(), text, glyph)
    pieces: list[tuple[str, bool]] = []  # (text, escaped)
    shapes: list[Shape] = []
    said: dict[str, Any] = {}
    marked = False
    for found in _PIECES.finditer(body):
        escaped, name, args, text = found.groups()
        if escaped is not None:
            kept = escaped in '{}\\[ ntr"' or escaped.isspace()  # escape_comment escapes any space at an end
            pieces.append((_UNESCAPE.get(escaped, escaped) if kept else "\\" + escaped, True))
        elif name is not None and _command(name, args, shapes, said):
            marked = True
        else:
            pieces.append((found.group(), False))
    while pieces and not pieces[0][1] and not pieces[0][0].strip():
        pieces.pop(0)
    while pieces and not pieces[-1][1] and not pieces[-1][0].strip():
        pieces.pop()
    if pieces and not pieces[0][1]:
        pieces[0] = (pieces[0][0].lstrip(), False)
    if pieces and not pieces[-1][1]:
        pieces[-1] = (pieces[-1][0].rstrip(), False)
    note = "".join(text for text, _ in pieces)
    markup = Markup(tuple((s.at, s.to) for s in shapes if s.kind == "arrow" and s.to is not None),
                    tuple(s.at for s in shapes if s.kind == "highlight"), tuple(shapes), said.get("audience"),
                    bool(said.get("seat")), said.get("author"), said.get("step"))
    return Comment(" ".join(note.split()) if marked else note, line, markup, note, glyph)


def escape_comment(text: str) -> str:
    """Text as a comment holds it exactly: braces, backslashes and `[%` escaped, line ends written `\n`,
    spaces at either end kept by escaping them."""
    out = text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("[%", "\\[%")
    out = out.replace("\n", "\\n").replace("\r", "\\r")
    body = out.strip()
    if body != out:
        lead, trail = out[: len(out) - len(out.lstrip())], out[len(out.rstrip()):]
        body = "".join("\\t" if c == "\t" else "\\" + c for c in lead) + body + "".join(
            "\\t" if c == "\t" else "\\" + c for c in trail)
    return body


def _json_text(value: str) -> str:
    """A JSON string that never closes the comment it stands in."""
    return json.dumps(value, ensure_ascii=False).replace("{", "\\u007b").replace("}", "\\u007d")


def _named(value: str) -> str:
    return value if re.fullmatch(r"[\w.:'+-]+", value) and not value.startswith('"') else _json_text(value)


def write_markup(shapes: Sequence[Shape] = (), audience: str | None = None, seat: bool = False,
                 author: str | None = None, step: int | None = None) -> list[str]:
    """Markup as `read_comment` reads it back: shapes in their order (a run of one kind and brush in one
    command), then who it is for, whether that seat wrote it, the author and the step."""
    out: list[str] = []
    for (kind, brush), run in itertools.groupby(shapes, key=lambda s: (s.kind, s.brush)):
        said = "" if brush == BRUSHES[0] else brush + " "
        if kind == "arrow":
            out.append(f"[%cal {said}{','.join(f'{s.at}-{s.to}' for s in run)}]")
        elif kind == "highlight":
            out.append(f"[%csl {said}{','.join(s.at for s in run)}]")
        else:
            out += [f"[%lbl {said}{s.at} {_json_text(s.text or '')}]" for s in run]
    if audience is not None:
        out.append(f"[%for {_named(audience)}]")
    if seat:
        out.append("[%seat]")
    if author is not None:
        out.append(f"[%by {_json_text(author)}]")
    if step is not None:
        out.append(f"[%step {step}]")
    return out


def write_comment(text: str, markup: Sequence[str] = ()) -> str:
    """`{text markup...}`: the text exactly, then the markup."""
    return "{" + " ".join([t for t in (escape_comment(text),) if t] + list(markup)) + "}"


def _value(token: Token) -> Any:
    if token.type == "INT":
        return int(token)
    if token.type == "STRING":
        return _unquote(str(token))
    if token.type == "QMARK":
        return UNKNOWN
    return str(token)


class _Build(Transformer):
    """Parse callbacks, run by lark while it parses (no tree is built): the dataclasses above.

    Positions come from the tokens themselves (every lark token knows its line and column).
    """

    def start(self, children: list[Any]) -> list[Any]:
        return children

    def body(self, children: list[Any]) -> list[Any]:
        return children

    def tag(self, children: list[Any]) -> Tag:
        opened, name, value = children
        return Tag(str(name), _unquote(str(value)), opened.line)

    def outcome(self, children: list[Any]) -> Written:
        opened, *tokens = children
        values = tuple(_value(t) for t in tokens)
        return Written(None if values == (UNKNOWN,) else values, opened.line, opened.column)

    def move(self, children: list[Any]) -> Move:
        verb, *rest = children
        first = next((k for k, c in enumerate(rest) if not isinstance(c, Token) or c.type in ("COMMENT", "GLYPH")),
                     len(rest))  # the words come first; after them a `?` is a glyph
        said, items = rest[:first], _items(rest[first:])
        written = tuple(c for c in items if isinstance(c, Written))
        comments = tuple(c for c in items if isinstance(c, Comment))
        text = " ".join([str(verb), *map(str, said),
                         *(write_outcome(w.values) if w.values is not None else "[?]" for w in written)])
        glyph = next((c.glyph for c in comments if c.glyph is not None), None)
        return Move(str(verb), tuple(_value(c) for c in said), written, comments, verb.line, verb.column, text, glyph)

    def named(self, children: list[Any]) -> Token:
        """A player of several words (`Maria Grazia: ...`): one name, its words one space apart."""
        return Token.new_borrow_pos("NAME", " ".join(map(str, children)), children[0])

    def turn(self, children: list[Any]) -> Turn:
        ordinal = int(children[0]) if isinstance(children[0], Token) and children[0].type == "INT" else None
        rest = children[1:] if ordinal is not None else children
        player = rest[0]
        return Turn(_value(player), tuple(rest[1:]), player.line, player.column, ordinal)

    def setup(self, children: list[Any]) -> tuple[str, int, list[Any]]:
        return ("setup", children[0].line, _items(children[1:]))

    def more(self, children: list[Any]) -> tuple[str, int, list[Any]]:
        return ("more", children[0].line, _items(children[1:]))

    def note(self, children: list[Any]) -> tuple[str, int, list[Any]]:
        return ("note", children[0].line, _items(children))

    def branch(self, children: list[Any]) -> tuple[str, int, Comment | None]:
        head = read_comment(str(children[1]), children[1].line) if len(children) > 1 else None
        return ("branch", children[0].line, head)

    def close(self, children: list[Any]) -> tuple[str, int, Comment | None]:
        tail = read_comment(str(children[1]), children[1].line) if len(children) > 1 else None
        return ("close", children[0].line, tail)


def _items(found: Sequence[Any]) -> list[Any]:
    """What follows a move (or stands on a line of its own): outcomes and comments, in order. A glyph
    goes to the comment right after it; one with no comment after it is a comment of its own, empty."""
    out: list[Any] = []
    glyph: Any = None  # a Token: lark types its line optional, and its parser always sets it
    for item in found:
        if isinstance(item, Token) and item.type in ("GLYPH", "QMARK"):
            if glyph is not None:
                out.append(Comment("", glyph.line, Markup(), "", str(glyph)))
            glyph = item
            continue
        if isinstance(item, Token):  # a COMMENT
            out.append(read_comment(str(item), item.line, str(glyph) if glyph is not None else None))  # type: ignore[arg-type]  # lark types line optional
            glyph = None
            continue
        if glyph is not None:
            out.append(Comment("", glyph.line, Markup(), "", str(glyph)))
            glyph = None
        out.append(item)
    if glyph is not None:
        out.append(Comment("", glyph.line, Markup(), "", str(glyph)))
    return out


# Any: with a transformer, parse() returns what `_Build` makes (a list), not the Tree lark's types say.
_PARSER: Any = Lark(GRAMMAR, parser="lalr", maybe_placeholders=False, transformer=_Build())


def _expected(exc: UnexpectedInput) -> list[str]:
    names = {"NAME": "a word", "INT": "a number", "STRING": "a quoted name", "QMARK": "?", "COMMENT": "a {comment}",
             "_NL": "the end of the line", "_SEP": "a comma", "COLON": ":", "LSQB": "[", "RSQB": "]", "DOT": ".",
             "EQUAL": "=", "SETUP": "Setup", "$END": "the end of the file", "GLYPH": "a glyph (! ? !! ?? !? ?!)",
             "LPAR": "(", "RPAR": ")"}
    found = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or set()
    return sorted({names.get(str(e), str(e)) for e in found})


def _error(exc: UnexpectedInput, text: str) -> NotationError:
    line, column = max(1, getattr(exc, "line", 1) or 1), max(1, getattr(exc, "column", 1) or 1)
    expected = _expected(exc)
    if isinstance(exc, UnexpectedCharacters):
        rows = text.split("\n")  # lark counts lines by "\n" alone (`splitlines` would also cut at a stray "\r")
        row = rows[line - 1] if line <= len(rows) else ""
        got = repr(row[column - 1]) if column <= len(row) else "this"
        message = f"line {line}, column {column}: {got} cannot stand here"
    elif isinstance(exc, UnexpectedToken):
        got = "the end of the line" if exc.token.type == "_NL" else repr(str(exc.token))
        message = f"line {line}, column {column}: {got} cannot stand here"
    elif isinstance(exc, UnexpectedEOF):
        message = f"line {line}: the file ends in the middle of a line"
    else:
        message = f"line {line}, column {column}: cannot read this"
    if expected:
        message += "; expected " + ", ".join(expected[:6])
    return NotationError(message, line, column, expected)


# ---- reading a clean file fast ---------------------------------------------------------------------
#
# lark's LALR parser is pure Python: a few microseconds a token, most of a check's time on a
# game of 150 lines. Two facts make most of it unnecessary. A file's lines are independent
# (tags, then lines, each ending at its newline), so each may be read on its own. And an LALR
# parse depends only on the kinds of the tokens, not on their text: a line of the same token
# kinds as one parsed before has the same structure. So a plain line (no comments, `=` or `%`,
# nothing that could make lark's lexer choose otherwise) is split into the grammar's own
# terminals (their patterns taken from the parser, not written again), and its structure is
# looked up by its kinds; lark parses each new sequence of kinds once, and every line that is
# not plain. Anything lark refuses sends the whole file back to `_parse_whole`, the reading
# that reports every error with its place.

_BODY: Any = Lark(GRAMMAR, parser="lalr", start="body", maybe_placeholders=False, transformer=_Build())
_SHAPES = Lark(GRAMMAR, parser="lalr", start=["start", "body"], maybe_placeholders=False)  # trees, for the plans
_PLAIN_KINDS = ("NAME", "INT", "STRING", "QMARK", "OPEN", "RSQB", "COLON", "DOT", "_SEP")
_TERMINALS = {t.name: t.pattern.to_regexp() for t in _PARSER.terminals}
_PLAIN = re.compile("|".join(f"(?P<{kind}>{_TERMINALS[kind]})" for kind in _PLAIN_KINDS)
                    + f"|(?P<WS>{_TERMINALS['__IGNORE_0']})")
_SETUP = "setup"  # the one keyword (any case): the first word of a line, where lark's lexer takes it first
# Lines without a quoted name are split in one call: the terminals' patterns as one group, what lies
# between them (whitespace only, else lark reads the line). Each terminal starts with its own
# characters (a word with a letter, a number with a digit, the rest are single characters), so a
# token's kind follows from its text.
_WORDS = re.compile("(" + "|".join(_TERMINALS[kind] for kind in _PLAIN_KINDS if kind != "STRING") + ")")
_GLUED = re.compile(r"[^\s\[(]\?|\?\?")
# The kind of a token by its first character, from the terminals' own patterns (ASCII; others by `\d`).
_FIRST = {ch: kind for kind in reversed(_PLAIN_KINDS) if kind != "STRING" for ch in map(chr, range(128))
          if re.match(_TERMINALS[kind], ch)}

# A plan says where each token of a line stands, by index: ("tag", name, value), ("setup", outcomes)
# or ("turn", ordinal, player, moves), the player the indexes of its words, a move being (verb, words, outcomes), an outcome (its `[`, values).
_Plan = tuple[Any, ...]
_plans: dict[tuple[str, ...], _Plan | None] = {}  # (start, kinds...) -> its plan (None: lark must read the line)


def _plan(start: str, line: str, kinds: list[str], columns: list[int]) -> _Plan | None:
    """Where each token of a line of these kinds stands, from lark's own parse of one such line."""
    try:
        tree = _SHAPES.parse(line + "\n", start=start)
    except UnexpectedInput:
        return None
    if len(tree.children) != 1 or not isinstance(tree.children[0], Tree):
        return None
    at: dict[int | None, int] = {column + 1: k for k, column in enumerate(columns)}  # lark counts columns from 1 (typed optional)
    found = tree.children[0]
    children: list[Any] = found.children  # lark types each child Token | Tree

    def outcomes(parts: list[Any]) -> tuple[tuple[int, tuple[int, ...]], ...]:
        return tuple((at[o.children[0].column], tuple(at[v.column] for v in o.children[1:]))  # type: ignore[union-attr]
                     for o in parts if isinstance(o, Tree) and o.data == "outcome")

    if found.data == "tag":
        return ("tag", at[children[1].column], at[children[2].column])
    if found.data == "setup":
        if any(isinstance(c, Token) for c in children[1:]):
            return None  # a `?` after an outcome is a glyph: lark reads the line
        return ("setup", outcomes(children[1:]))
    if found.data != "turn":
        return None
    ordinal = at[children[0].column] if isinstance(children[0], Token) and children[0].type == "INT" else None
    rest = children[1:] if ordinal is not None else children
    player = tuple(at[t.column] for t in rest[0].children) if isinstance(rest[0], Tree) else (at[rest[0].column],)  # type: ignore[union-attr]
    moves = []
    for move in rest[1:]:
        verb, *parts = move.children
        opened = next((k for k, p in enumerate(parts) if isinstance(p, Tree)), len(parts))
        if any(isinstance(p, Token) for p in parts[opened:]):
            return None  # a `?` after an outcome is a glyph: lark reads the line
        words = tuple(at[p.column] for p in parts if isinstance(p, Token))
        first = at[verb.column]
        # words and numbers right after the verb (most moves): taken as one slice of the line's texts
        plain = len(words) if words == tuple(range(first + 1, first + 1 + len(words))) and all(
            kinds[k + 1] in ("NAME", "INT") for k in words) else -1
        numbers = tuple(i for i, k in enumerate(words) if kinds[k + 1] == "INT")
        moves.append((first, words, outcomes(parts), plain, numbers))
    return ("turn", ordinal, player, tuple(moves))


def _lex(line: str) -> tuple[list[str], list[str], list[int]] | None:
    """A line's tokens by the grammar's terminals: kinds, texts, offsets (None: a character none takes)."""
    kinds: list[str] = []
    texts: list[str] = []
    columns: list[int] = []
    end = 0
    for found in _PLAIN.finditer(line):
        if found.start() != end:
            return None
        end = found.end()
        if found.lastgroup != "WS":
            kinds.append(found.lastgroup)  # type: ignore[arg-type]
            texts.append(found.group())
            columns.append(found.start())
    return (kinds, texts, columns) if end == len(line) and texts else None


@functools.lru_cache(maxsize=4096)
def _outcome_text(values: tuple[Any, ...] | None) -> str:
    return write_outcome(values) if values is not None else "[?]"


def _plain_line(line: str, number: int, start: str) -> Any:
    """A plain line read by the plan of its token kinds (a Tag, a Turn, a setup line as `_Build` gives
    it); None where lark must read it (or refuses it)."""
    if "?" in line and _GLUED.search(line):
        return None  # a `?` touching what it follows, or `??`, is a glyph (or inside a quoted name): lark says which
    kinds: list[Any]  # the kind of each token; None for a word beyond ASCII until it is read again below
    if '"' in line or _WORDS.groups != 1:
        lexed = _lex(line)
        if lexed is None:
            return None
        kinds, texts, columns = lexed
        kinds.insert(0, start)
    else:
        parts = _WORDS.split(line)
        texts = parts[1::2]
        if not texts or "".join(parts[0::2]).strip(" \t\f"):
            return None  # a character no terminal takes: lark says which
        columns = list(itertools.accumulate(map(len, parts)))[0::2]  # where each token starts
        kinds = [start, *map(_FIRST.get, map(operator.itemgetter(0), texts))]
        if None in kinds:  # a word of letters beyond ASCII
            kinds = [start, *(_FIRST.get(t[0]) or ("INT" if t[0].isdecimal() else "NAME") for t in texts)]
    if texts[0][: len(_SETUP)].lower() == _SETUP:
        if texts[0].lower() != _SETUP:
            return None  # `Setupper`: lark's lexer reads a keyword and a word; let it say so
        kinds[1] = "SETUP"
    shape = tuple(kinds)
    plan: Any = _plans.get(shape, False)
    if plan is False:
        if len(_plans) > 4096:
            _plans.clear()
        plan = _plans[shape] = _plan(start, line, kinds, columns)
    if plan is None:
        return None

    def value(k: int) -> Any:
        kind = kinds[k + 1]
        if kind == "NAME":
            return texts[k]
        return int(texts[k]) if kind == "INT" else _unquote(texts[k]) if kind == "STRING" else UNKNOWN

    def outcomes(where: tuple[tuple[int, tuple[int, ...]], ...]) -> tuple[Written, ...]:
        out = []
        for opened, inside in where:
            values = tuple(value(k) for k in inside)
            out.append(Written(None if values == (UNKNOWN,) else values, number, columns[opened] + 1))
        return tuple(out)

    if plan[0] == "tag":
        return Tag(texts[plan[1]], value(plan[2]), number)
    if plan[0] == "setup":
        return ("setup", number, list(outcomes(plan[1])))
    _, ordinal, player, steps = plan
    moves = []
    for verb, words, where, plain, numbers in steps:
        written = outcomes(where) if where else ()
        if plain >= 0:
            said = " ".join(texts[verb : verb + 1 + plain])
            read = texts[verb + 1 : verb + 1 + plain]
            for i in numbers:
                read[i] = int(read[i])  # type: ignore[call-overload]
            values = tuple(read)
        else:
            said = " ".join([texts[verb], *(texts[k] for k in words)])
            values = tuple(value(k) for k in words)
        if written:
            said = " ".join([said, *(_outcome_text(w.values) for w in written)])
        moves.append(Move(texts[verb], values, written, (), number, columns[verb] + 1, said))
    said = value(player[0]) if len(player) == 1 else " ".join(texts[k] for k in player)
    return Turn(said, tuple(moves), number, columns[player[0]] + 1,
                int(texts[ordinal]) if ordinal is not None else None)


def _parse_lines(lines: list[str]) -> list[Any] | None:
    """What the file's lines say, read a line at a time; None where lark refuses any of it."""
    head = 0  # the header: tags, blank lines and `%` remarks before the first line of the game
    while head < len(lines) and (lines[head].lstrip(" \t\f")[:1] in ("[", "%", "") or not lines[head].strip()):
        head += 1
    built: list[Any] = []
    seen: dict[str, Turn] = {}  # a line written again (`Ada: pass`): read once
    stretch: list[int] = []  # lines lark reads, as one stretch

    def flush(start: str) -> None:
        if stretch:
            first = stretch[0]
            parser = _PARSER if start == "start" else _BODY
            built.extend(parser.parse("\n" * first + "\n".join(lines[first : stretch[-1] + 1]) + "\n"))
            stretch.clear()

    try:
        for at, line in enumerate(lines):
            start = "start" if at < head else "body"
            if at == head:
                flush("start")
            if line.endswith("\r"):
                line = line[:-1]
            if not line.strip(" \t\f"):
                flush(start)
                continue
            if "{" in line and line.rfind("{") > line.rfind("}"):
                return None  # a comment that may go on over the next lines: the whole file is read at once
            # a comment, a `%` remark, an `=` line have no plain terminal: lark reads them
            again = seen.get(line)
            read = _moved(again, at + 1) if again is not None else _plain_line(line, at + 1, start)
            if again is None and isinstance(read, Turn):
                seen[line] = read
            if read is None:
                stretch.append(at)
                continue
            flush(start)
            built.append(read)
        flush("start" if head == len(lines) else "body")
    except UnexpectedInput:
        return None
    return built


def _moved(turn: Turn, line: int) -> Turn:
    """A line read before, as it stands at another line of the file."""
    moves = tuple(Move(m.verb, m.words, tuple(Written(w.values, line, w.column) for w in m.outcomes), m.comments,
                       line, m.column, m.text, m.glyph) for m in turn.moves)
    return Turn(turn.player, moves, line, turn.column, turn.ordinal)


def parse(text: str, max_errors: int = 200) -> Notation:
    """Read a whole file: a clean one a line at a time (`_parse_lines`), any other as a whole, so
    that every error is found (`_parse_whole`)."""
    if "\x00" in text:
        raise NotationError("this is not a text file (it holds NUL bytes)", 1, 1)
    typed = as_typed(text)
    lines = (typed if typed.endswith("\n") else typed + "\n").split("\n")
    built = _parse_lines(lines[:-1])
    read = _parse_whole(typed, max_errors) if built is None else _gather(built, [])
    plain = _unbulleted(text)  # (`• Round 3`, `- Final scores: ...`: a list's lines too)
    if "Result" not in read.tags:
        said = _scores_at_the_end(plain, read)
        if said is not None:
            read.tags["Result"] = said
    _headed(plain, read.turns)
    return read


def _headed(text: str, turns: list[Turn]) -> None:
    """A round's (a year's) number written as a heading on a line of its own (`Round 3`, `Anno 2:`; not `End of
    round 3`) is the number of the turn below it where that one has none of its own, as `3.` before it gives: a
    number written one off is the table's slip, said at the heading's line."""
    at = 0
    for found in _HEADED.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        while at < len(turns) and turns[at].line <= line:
            at += 1
        if at < len(turns) and turns[at].ordinal is None:
            turn = turns[at]
            turns[at] = Turn(turn.player, turn.moves, turn.line, turn.column, int(found.group("number")), line)


def _scores_at_the_end(text: str, read: Notation) -> Tag | None:
    """The scores a table wrote on a line of its own after every turn (`Final scores: Ada 31, Bruno 27`), as the
    Result tag would give them, where the file has none: the table's word on how the game ended."""
    found = list(_SCORES_LINE.finditer(text))
    if not found:
        return None
    last = found[-1]
    line = text.count("\n", 0, last.start()) + 1
    if any(turn.line > line for turn in read.turns):
        return None
    return Tag("Result", last.group("claimed"), line)


# What keyboards and editors put in a file that the notation writes otherwise, one character for one where it
# can be (lines and columns stay the file's): curly double quotes (a phone's), spaces that do not break (a phone's,
# a word processor's), a byte-order mark (Windows' Notepad) and invisible word breaks (removed: nobody sees them).
_TYPED = str.maketrans({**dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
                        **dict.fromkeys("\u00a0\u2007\u2009\u200a\u202f", " "),
                        **dict.fromkeys("\u200b\u2060\ufeff", None)})
_TYPED_CHARACTERS = "\u201c\u201d\u201e\u201f\u2033\u00a0\u2007\u2009\u200a\u202f\u200b\u2060\ufeff"
_COMMENT_OR_TYPED = re.compile(r"(\{(?:\\[\s\S]|[^\\}])*\})|[^{]+")
_ORDINAL_PAREN = re.compile(r"(?m)^([ \t]*\d+)\)(?=[ \t])")  # `12) Ada: ...`, numbered as a word processor does


# What people add to a game's lines as they type them, read as meant, one character for one (nothing before a
# remark's closing brace moves): `{comment}`s and quoted names (`[Event "Game #3"]`) first, kept as written, then
# * a list's bullet before a line (`- Ada: pass`, `* `, `•`: a phone's notes make every line one): a space;
# * on a line of its own, a heading of a round or a year (`Round 3`, `End of round 3`, `Anno 2:`), the game's end
#   (`Game over!`) and the scores so far (`Scores: Ada 12, Bruno 9`): a `%` remark, which nothing reads (the last
#   scores, after every turn, are the Result where no tag gives it: `parse`);
# * a dash for the colon after a player's name, on a line with no colon (`Ada - pass`, `Anna Maria – pass`): a colon;
# * a full stop at the end of a turn's line (`Ada: pass.`): a space;
# * a number sign before a number (`galley #7`): a space;
# * a remark, `# ...` or `// ...` to the line's end, or `(...)` closed on its line with words inside (a variation's
#   `(` stands alone): a {comment} on the move it follows; on a line of its own (above the tags too) a `%` remark.
#   Not one holding a brace or a backslash (a comment's own characters). So are symbols at a line's end (`pass 🎉`).
_HEADWORD = r"(?i:round|year|turn|anno|turno|giro|runde|jahr|tour|manche|ronda|a\u00f1o)"
_HEADED = re.compile(r"^[ \t]*" + _HEADWORD + r"\.?[ \t]*(?P<number>\d+)[ \t]*[:.)\-\u2013]?[ \t]*\r?$", re.MULTILINE)  # a heading alone: its number
# the scores a table writes down as it goes (`Scores so far: Ada 12, Bruno 9`), or at the end (`Final scores: ...`)
_SCORES_SAID = (r"[ \t]*(?i:(?:[^\W\d_]+[ \t]+){0,2}(?:scores?|points|totals?|punti|punteggi|results?|risultat[oi]|vp)"
                r"(?:[ \t]+[^\W\d_]+){0,3})[ \t]*[:=\-\u2013][ \t]*(?P<claimed>[^\r\n]*\d[^\r\n]*?)[ \t]*(?=\r?$)")
_SCORES_LINE = re.compile("^" + _SCORES_SAID, re.MULTILINE)
_HABIT = re.compile(
    r'\{(?:\\[\s\S]|[^\\}])*\}|"(?:\\.|[^"\\\n])*"'
    r'|^(?P<heading>[ \t]*(?:[^\W\d_]+[ \t]+){0,3}' + _HEADWORD + r'\.?[ \t]*\d+[ \t]*[:.)\-\u2013]?)(?=[ \t]*\r?$)'
    r'|^(?P<ended>[ \t]*(?i:game[ \t]+over|end[ \t]+of[ \t]+(?:the[ \t]+)?game|the[ \t]+end|fine[ \t]+(?:della[ \t]+)?partita)'
    r'[ \t]*[.!]*)(?=[ \t]*\r?$)'
    r'|^(?P<scores>' + _SCORES_SAID + r')'
    r'|^(?P<said>[ \t]*(?:\d+[.)][ \t]*)?[^\W\d][^\n:\[\]{}"#(]*?[ \t]+[-\u2013\u2014])(?=[ \t]+\S)'
    r'|(?P<stop>\.+)(?=[ \t]*\r?$)'
    r'|(?P<sign>#)(?=\d)'
    r'|(?P<rest>(?:#|//)[^{}\\\r\n]*)(?=\r?$)'
    r'|(?<=\S)(?P<symbols>[ \t]*[^\w\s\[\]{}()"\':,;!?=%#.\/+\-\\\u2018\u2019\u02bc\u0300-\u036f]+)(?=[ \t]*\r?$)'
    r'|(?P<aside>\([ \t]*[^()\[\]{}"\\\s][^()\[\]{}"\\\r\n]*\))(?=[^\S\r\n]*(?P<ends>\r?$))?', re.MULTILINE)


_BULLET = re.compile(r"^([ \t]*)[-*\u2022\u2013\u00b7](?=[ \t]+\S)", re.MULTILINE)  # read first: a line's start
def _unbulleted(text: str) -> str:
    """`text` with each line's list bullet a space."""
    return _BULLET.sub(r"\1 ", text) if any(b in text for b in ("- ", "* ", "\u2022", "\u2013", "\u00b7")) else text


_HABITS = ("heading", "ended", "scores", "said", "stop", "sign", "rest", "symbols", "aside")


def _habit(found: re.Match[str]) -> str:
    kind = next((k for k in _HABITS if found.group(k) is not None), None)
    written = found.group(0)
    if kind is None:  # a {comment} or a quoted name: as written
        return written
    text, start = found.string, found.start()
    before = text[text.rfind("\n", 0, start) + 1:start]  # the line up to it
    if kind in ("heading", "ended", "scores"):
        indent = len(written) - len(written.lstrip(" \t"))
        return written[:indent] + "%" + written[indent + 1:]
    if kind == "said":  # `Ada - pass`: a dash for the colon, on a line with none
        line_end = text.find("\n", start)
        return written[:-1] + ":" if ":" not in text[start:line_end if line_end >= 0 else len(text)] else written
    if kind == "stop":
        return written if before.strip().isdigit() else " " * len(written)  # (`3.` alone: a round's number)
    if kind == "sign":
        return " "
    if kind == "rest":
        return "%" + written[1:] if not before.strip() else (
            "{ " + written[2:] if written.startswith("//") else "{" + written[1:]) + "}"
    if kind == "symbols":  # `pass 🎉`: a remark of its own
        bare = written.lstrip(" \t")
        return written[:len(written) - len(bare) - 1] + "{" + bare + "}" if bare != written else "{" + bare + "}"
    if kind == "aside":
        aside = found.group("aside")
        return "%" + aside[1:] if not before.strip() and found.group("ends") is not None else "{" + aside[1:-1] + "}"
    return written


_PAGE_BREAK = re.compile(r"(?m)^[ \t]*([-=_*~])\1\1[^\n\[\]{}:]*$")  # `---`, `--- page 2 ---`, `=====`
_CROSSED_OUT = re.compile(r"(?m)^[ \t]*~~[^\n]*~~[ \t]*$")  # `~~Ada: quarry L66 L73~~`: struck through, as Markdown


def as_typed(text: str) -> str:
    """A file as a phone, a word processor or a hand numbering its lines typed it, in the notation's own characters
    (`_TYPED`; a turn numbered `12)` is `12.`); a {comment} stays as written. A line drawn across the page (`---`,
    `--- page 2 ---`, where the pencil copy turned a page) is a blank line: it says nothing of the game; so is a line
    struck through (`~~Ada: quarry L66 L73~~`, as Markdown and many chat apps strike it): the table took it back. A
    remark written `# ...`, `// ...` or `(...)` after a move is a {comment} on it; a list's bullets, headings (`Round
    3`), full stops at a line's end and number signs (`#7`) are read as nothing (`_HABIT`)."""
    if "\n" in text and _PAGE_BREAK.search(text):
        text = _PAGE_BREAK.sub(lambda m: " " * len(m.group(0)), text)
    if "~~" in text:
        text = _CROSSED_OUT.sub(lambda m: " " * len(m.group(0)), text)
    if ")" in text or any(c in text for c in _TYPED_CHARACTERS):
        text = _COMMENT_OR_TYPED.sub(lambda m: m.group(1) or _ORDINAL_PAREN.sub(r"\1.", m.group(0).translate(_TYPED)), text)
    return _HABIT.sub(_habit, _unbulleted(text))


def _parse_whole(text: str, max_errors: int = 200) -> Notation:
    """Read a whole file. A line that does not parse is reported and skipped, and reading goes on
    from the line after it, so every bad line is found and the good ones are still read.

    Each stretch of the file is parsed about twice at most (up to its error, then its good
    part), so a file full of errors costs no more than a clean one: what an upload can ask
    of the parser stays bounded by its size. A stretch is parsed behind as many empty lines
    as precede it, so every line and column is the file's own.
    """
    if "\x00" in text:
        raise NotationError("this is not a text file (it holds NUL bytes)", 1, 1)
    lines = (text if text.endswith("\n") else text + "\n").split("\n")
    errors: list[NotationError] = []
    built: list[Any] = []
    at = 0  # the first line (0-based) not read yet
    while at < len(lines):
        chunk = "\n" * at + "\n".join(lines[at:]) + "\n"
        try:
            built += _PARSER.parse(chunk)
            break
        except UnexpectedInput as exc:
            error = _error(exc, chunk)
        errors.append(error)
        if len(errors) >= max_errors:
            errors.append(NotationError(f"line {error.line}: too many errors to read further", error.line, 1))
            return Notation({}, (), None, [], errors)
        bad = max(at, min(error.line - 1, len(lines)))
        if bad > at:  # the lines before the bad one read well up to it: take what they say
            try:
                built += _PARSER.parse("\n" * at + "\n".join(lines[at:bad]) + "\n")
            except UnexpectedInput as exc:  # a construct the bad line was still inside (an open comment)
                errors.append(_error(exc, "\n" * at + "\n".join(lines[at:bad]) + "\n"))
        at = bad + 1
    return _gather(built, errors)


def _gather(built: list[Any], errors: list[NotationError]) -> Notation:
    """The parsed lines as a Notation: tags, the setup, turns (with their `= [..]` lines) and comments;
    the lines between `(` and `)` go to their variation (nested as written), never to the main line."""
    out = Notation({}, (), None, [], sorted(errors, key=lambda e: (e.line, e.column)))
    open_: list[Variation] = []  # the variations being read, innermost last
    for item in built:
        here: Notation | Variation = open_[-1] if open_ else out
        if isinstance(item, Tag):
            named = _HEADER_NAMES.get(item.name.casefold())  # `[title "..."]` is the Title tag
            if named is not None and named != item.name:
                item = Tag(named, item.value, item.line)
            if item.name in out.tags:
                out.errors.append(NotationError(f"line {item.line}: the tag {item.name} is given twice", item.line, 1))
            out.tags[item.name] = item
        elif isinstance(item, Turn):
            here.turns.append(item)
        elif item[0] == "setup":
            _, line, items = item
            if open_:
                out.errors.append(NotationError(f"line {line}: a variation has no Setup line of its own", line, 1))
                continue
            if out.setup_line is not None:
                out.errors.append(NotationError(f"line {line}: a second Setup line", line, 1))
                continue
            out.setup = tuple(i for i in items if isinstance(i, Written))
            out.setup_line = line
            out.comments += [i for i in items if isinstance(i, Comment)]
        elif item[0] == "more":
            _, line, items = item
            written = tuple(i for i in items if isinstance(i, Written))
            notes = tuple(i for i in items if isinstance(i, Comment))
            if here.turns:
                last = here.turns[-1]
                moved = last.moves[-1]
                grown = Move(moved.verb, moved.words, moved.outcomes + written, moved.comments + notes, moved.line,
                             moved.column, moved.text, moved.glyph or next((c.glyph for c in notes if c.glyph), None))
                here.turns[-1] = Turn(last.player, (*last.moves[:-1], grown), last.line, last.column, last.ordinal)
            elif not open_ and out.setup_line is not None:
                out.setup += written
                out.comments += notes
            else:
                out.errors.append(NotationError(f"line {line}: outcomes `= [...]` follow a move, and none came before", line, 1))
        elif item[0] == "branch":
            _, line, head = item
            found = Variation(line, head)
            here.variations.append(found)
            open_.append(found)
        elif item[0] == "close":
            _, line, tail = item
            if not open_:
                out.errors.append(NotationError(f"line {line}: this `)` closes no variation", line, 1))
                continue
            closed = open_.pop()
            closed.end, closed.tail = line, tail
        else:
            here.comments += item[2]
    for unclosed in open_:
        out.errors.append(NotationError(f"line {unclosed.line}: the variation opened here is never closed with `)`",
                                        unclosed.line, 1))
    out.errors.sort(key=lambda e: (e.line, e.column))
    return out


# ---- a title's words ---------------------------------------------------------------------------

REQUIRED = object()


@dataclass(frozen=True)
class Arg:
    """One word of a move: a command field, written as one of `words` (word -> value) or as a number.

    A trailing argument whose value is its `default` may be left out; `many` takes every
    remaining word as a list.
    """

    field: str
    words: Mapping[str, Any] | None = None
    default: Any = REQUIRED
    many: bool = False

    def read(self, word: Any) -> Any:
        if self.words is None:
            if isinstance(word, int) and not isinstance(word, bool):
                return word
            raise ValueError(f"{self.field} is a number, not {word!r}")
        for key, value in self.words.items():
            if key == word or (isinstance(word, str) and key.lower() == word.lower()):
                return value
        raise ValueError(f"{word!r} is not a {self.field}")

    def write(self, value: Any) -> str:
        if self.words is None:
            return str(value)
        for key, known in self.words.items():
            if known == value:
                return key
        raise ValueError(f"no word for {self.field} {value!r}")

    def choices(self) -> list[str]:
        return list(self.words) if self.words is not None else []


@dataclass(frozen=True)
class Form:
    """A verb of the notation and the command it says: `verb arg arg...`, plus fields the verb fixes."""

    verb: str
    kind: str
    args: tuple[Arg, ...] = ()
    fixed: Mapping[str, Any] = field(default_factory=dict)
    says: str = ""  # what the move means, for the documentation and did-you-mean

    def matches(self, command: Mapping[str, Any]) -> bool:
        return command.get("type") == self.kind and all(command.get(k) == v for k, v in self.fixed.items())


class Unfit(Exception):  # noqa: N818  (named for what happened)
    """A form does not fit a move (no message: see `Vocabulary._command`)."""


class Vocabulary:
    """A title's verbs, for reading moves into commands and writing commands as moves."""

    def __init__(self, forms: Iterable[Form], colours: Mapping[str, int] | None = None) -> None:
        self.forms = list(forms)
        self.by_verb: dict[str, Form] = {}
        for form in self.forms:
            if form.verb.lower() in self.by_verb:
                raise ValueError(f"the verb {form.verb!r} is declared twice")
            self.by_verb[form.verb.lower()] = form
        self.by_kind: dict[str, list[Form]] = {}
        for form in sorted(self.forms, key=lambda f: -len(f.fixed)):  # the most specific form first
            self.by_kind.setdefault(form.kind, []).append(form)
        self.colours = dict(colours or {})

    def words(self) -> list[str]:
        """Every word the title knows: verbs and the words of their arguments (did-you-mean)."""
        out = [f.verb for f in self.forms]
        for form in self.forms:
            for arg in form.args:
                out += arg.choices()
        return sorted(set(out))

    def write(self, command: Mapping[str, Any]) -> str:
        """A command as a move: its verb, then its arguments, trailing defaults left out."""
        for form in self.by_kind.get(str(command.get("type")), []):
            if not form.matches(command):
                continue
            covered = {"type", "seat", *form.fixed, *(a.field for a in form.args)}
            if any(k not in covered for k in command):
                continue
            words: list[str] = []
            for arg in form.args:
                value = command.get(arg.field, arg.default)
                if arg.many:
                    words += [arg.write(v) for v in value]
                else:
                    words.append(arg.write(value))
            while form.args and words and len(words) <= len(form.args):
                last = form.args[len(words) - 1]
                if last.many or last.default is REQUIRED or command.get(last.field, last.default) != last.default:
                    break
                words.pop()
            return " ".join([form.verb, *(_quoted(w) for w in words)])
        raise ValueError(f"the notation has no words for {dict(command)}")

    def read(self, move: Move, seat: int) -> dict[str, Any]:
        """A move as the command JSON the engine parses; NotationError says which word is wrong."""
        form = self.by_verb.get(move.verb.lower())
        if form is None:
            near = [w for w in difflib.get_close_matches(move.verb.lower(), list(self.by_verb), n=4, cutoff=0.5)
                    if len(w) > 1 or len(move.verb) < 3][:3]  # `wra`: war or trade, not the colour letter w
            raise NotationError(f"line {move.line}: {move.verb!r} is not a move of this game"
                                + (f"; did you mean {' or '.join(near)}?" if near else ""),
                                move.line, move.column, sorted(self.by_verb)[:12], near)
        return self._command(form, move, seat)

    def _command(self, form: Form, move: Move, seat: int, explain: bool = True) -> dict[str, Any]:
        """The move read by one form. Without `explain`, a move the form does not fit raises `Unfit`
        at once: a reader trying several forms pays for did-you-mean only when none fits."""
        command: dict[str, Any] = {"type": form.kind, "seat": seat, **form.fixed}
        words = list(move.words)
        for k, arg in enumerate(form.args):
            if arg.many:
                try:
                    command[arg.field] = [arg.read(w) for w in words[k:]]
                except ValueError as exc:
                    if not explain:
                        raise Unfit from None
                    raise self._bad(move, form, arg, exc) from exc
                words = words[:k]
                break
            if k >= len(words):
                if arg.default is REQUIRED:
                    if not explain:
                        raise Unfit
                    raise NotationError(
                        f"line {move.line}: {form.verb} needs its {arg.field}"
                        + (f" ({', '.join(arg.choices()[:8])})" if arg.choices() else " (a number)"),
                        move.line, move.column, arg.choices()[:12])
                command[arg.field] = arg.default
                continue
            try:
                command[arg.field] = arg.read(words[k])
            except ValueError as exc:
                if not explain:
                    raise Unfit from None
                raise self._bad(move, form, arg, exc) from exc
        if len(words) > len(form.args) and not any(a.many for a in form.args):
            if not explain:
                raise Unfit
            extra = " ".join(map(str, words[len(form.args):]))
            if extra == UNKNOWN:  # `fleet, no ?`: a glyph typed apart from its move, not a value nobody wrote
                raise NotationError(f"line {move.line}: a `?` typed apart after `{move.verb}`; an annotation is "
                                    f"written on the move (`{move.verb}?`)", move.line, move.column)
            raise NotationError(f"line {move.line}: {form.verb} takes {len(form.args)} word(s); {extra!r} is left over",
                                move.line, move.column)
        return command

    @staticmethod
    def _bad(move: Move, form: Form, arg: Arg, exc: ValueError) -> NotationError:
        choices = arg.choices()
        wrong = str(exc)
        near: list[str] = []
        at = form.args.index(arg)  # the word that failed stands at its argument's place (a `many` one: the first not known)
        bad = (move.words[at] if not arg.many and at < len(move.words) and isinstance(move.words[at], str) else
               next((w for w in move.words[at:] if isinstance(w, str) and w not in choices), None))
        if bad is not None and choices:
            near = nearest(bad, choices)
        return NotationError(f"line {move.line}: in {form.verb!r}, {wrong}"
                             + (f"; did you mean {' or '.join(near)}?" if near else ""),
                             move.line, move.column, choices[:12], near)


_LOOK_ALIKE = {c: shape for shape, chars in (("1", "1lI|"), ("0", "0Oo"), ("5", "5S"), ("2", "2Z"), ("8", "8B"))
               for c in chars}  # characters a pen or a keyboard writes for one another (`Ll3` for L13)


def _pen_slips(a: str, b: str) -> float:
    """How far `b` is from a written `a`, as a pen slips: a character changed, added, left out or two swapped cost
    one, a look-alike written for another (`l` for `1`) or a letter in the other case half."""
    def cost(x: str, y: str) -> float:
        if x == y:
            return 0.0
        return 0.5 if x.lower() == y.lower() or _LOOK_ALIKE.get(x, x) == _LOOK_ALIKE.get(y, y) else 1.0
    rows = [[float(j) for j in range(len(b) + 1)]]
    for i in range(1, len(a) + 1):
        row = [float(i)] + [0.0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost(a[i - 1], b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def nearest(word: str, choices: Sequence[str], n: int = 3, cutoff: float = 0.4) -> list[str]:
    """The choices nearest a word that reads as none of them, nearest first: difflib's close matches, ranked again
    by the pen's slips (`_pen_slips`), so that `Ll3` offers L13 first (the reading the checker takes), not L3."""
    close = difflib.get_close_matches(word, choices, n=len(choices), cutoff=cutoff)  # each, best first
    return sorted(close, key=lambda c: (_pen_slips(word, c), close.index(c)))[:n]


@functools.lru_cache(maxsize=8192)
def _quoted(word: str) -> str:
    """A word as it must be written so that it reads back the same (cached: lark builds a lexer per call, ~1 ms)."""
    try:
        tokens = list(_PARSER.lex(word + "\n")) if word else []
    except UnexpectedInput:  # a character no terminal takes (an emoji in a player's name): quoted
        tokens = []
    if len(tokens) == 2 and tokens[0].type in ("NAME", "INT") and str(tokens[0]) == word and (
        tokens[0].type == "NAME" or word.isdigit()
    ):
        return word
    # `["José Luis"]` as the table writes it, not `["Jos\u00e9 Luis"]`; what would end a line stays escaped
    return json.dumps(word, ensure_ascii=False).translate(_LINE_ENDS)


_LINE_ENDS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}  # str.splitlines ends a line at these too


def write_value(value: Any) -> str:
    """An outcome's value: numbers as they are, words bare when they read back as words."""
    if isinstance(value, bool):
        return json.dumps(str(value).lower())
    if isinstance(value, int):
        return str(value)
    text = str(value)
    quoted = _quoted(text)
    return json.dumps(text) if quoted == text and text.isdigit() else quoted


def write_outcome(values: Sequence[Any]) -> str:
    return "[" + " ".join(write_value(v) for v in values) + "]"


def write_tag(name: str, value: str) -> str:
    return f"[{name} {json.dumps(value, ensure_ascii=False)}]"


# ---- header helpers ----------------------------------------------------------------------------
#
# Names as people write them. A seat's name is the header's (`[Seats ...]`); a turn line only has to
# say which seat it is, so it is read as the name folded (`fold_name`: case, spacing, Unicode's two
# spellings of an accent). In the Seats and Result lists a name holding the lists' own characters
# (a comma, a quote, brackets, a backslash, spaces at its ends) is written as a quoted string with
# its `\"` and `\\` escaped, as PGN writes strings; every other name stands as it is.


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'", "`": "'", "\u00b4": "'"})


def fold_name(name: str) -> str:
    """A name as a turn line is matched to a seat: `Maria  GRAZIA` is `Maria Grazia`, `D’Angelo` is
    `D'Angelo` (a typographic apostrophe is the one a keyboard types), `Zoe\u0308` is `Zoë`."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().translate(_APOSTROPHES).split())


def loose_name(name: str) -> str:
    """A name as a pencil may write it: letters and digits only, accents left off (`Niccolo` for
    `Niccolò`, `A.Rossi` for `A. Rossi`, `Anne Marie` for `Anne-Marie`). Only a fallback: see `find_seat`."""
    spelled = unicodedata.normalize("NFKD", fold_name(name))
    return "".join(ch for ch in spelled if ch.isalnum() and not unicodedata.combining(ch))


def find_seat(player: str, names: Sequence[str]) -> int | None:
    """The seat a turn line's player names: the name folded (`fold_name`), else, when exactly one seat's
    name is spelled so, the name without accents, spaces and signs (`loose_name`); None for no seat."""
    wanted = fold_name(player)
    for k, name in enumerate(names):
        if fold_name(name) == wanted:
            return k
    loose = loose_name(player)
    found = [k for k, name in enumerate(names) if loose and loose_name(name) == loose]
    return found[0] if len(found) == 1 else None


_UNCARRIED = {"Cc": "a control character", "Cs": "a lone surrogate", "Zl": "a line separator",
              "Zp": "a paragraph separator"}


def seat_name_problem(name: Any) -> str | None:
    """Why the notation cannot carry this seat's name (None: it can). A name is written on one line
    of a text file (a turn's player, the Seats tag): no line breaks or control characters in it."""
    if not isinstance(name, str) or not name.strip():
        return "a seat's name needs at least one letter or sign (it is empty or only spaces)"
    for ch in name:
        what = _UNCARRIED.get(unicodedata.category(ch))
        if what is not None:
            return (f"a seat's name is written on one line of the table notation; it holds {what} "
                    f"(U+{ord(ch):04X}), which no such line can carry")
    return None


def seat_names_problem(names: Sequence[Any]) -> tuple[int, str] | None:
    """The first seat (its index) whose name the notation cannot carry or cannot tell from an
    earlier seat's (the same name but for case, spacing or how its accents are encoded)."""
    seen: dict[str, int] = {}
    for k, name in enumerate(names):
        problem = seat_name_problem(name)
        if problem is not None:
            return k, problem
        folded = fold_name(name)
        if folded in seen:
            return k, (f"{name!r} is the name of seat {seen[folded]} ({names[seen[folded]]!r}) as the notation "
                       "reads names (case and spacing aside): give each seat a name of its own")
        seen[folded] = k
    return None


@functools.lru_cache(maxsize=4096)
def write_player(name: str) -> str:
    """A seat's name as the player of a turn line: as it is when its words read back as it
    (`Ada`, `Maria Grazia`, `Gianmaria D'Angelo`), else a quoted string (`"Bea (red)"`, `"Setup"`)."""
    try:
        tokens = [t for t in _PARSER.lex(name + "\n") if t.type != "_NL"] if name else []
    except UnexpectedInput:
        tokens = []
    if tokens and tokens[0].type == "NAME" and all(t.type in ("NAME", "INT") for t in tokens) and (
        " ".join(map(str, tokens)) == name
    ):
        return name
    return json.dumps(name, ensure_ascii=False)


_LISTED = re.compile(r'[,"(){}\[\]\\]')  # what a name in the Seats or Result list is quoted for


def _list_name(name: str) -> str:
    """A name in the Seats or Result list: as it is, or quoted where it holds the list's own characters."""
    if name and name == name.strip() and not _LISTED.search(name):
        return name
    return json.dumps(name, ensure_ascii=False)


def _leading_string(part: str) -> tuple[str, str] | None:
    """A part of a list that opens with a quoted string: (the string read, what follows it)."""
    if not part.startswith('"'):
        return None
    k = 1
    while k < len(part) and part[k] != '"':
        k += 2 if part[k] == "\\" else 1
    if k >= len(part):
        return None
    try:
        return str(_unquote(part[: k + 1])), part[k + 1 :].strip()
    except ValueError:
        return None


def read_seats(value: str) -> list[tuple[str, str | None]]:
    """`Ada (red), Bruno, "Gian Maria" (blue), "Rossi, Mario"` -> [(name, colour or None)]."""
    out: list[tuple[str, str | None]] = []
    for part in _split_list(value):
        colour = None
        quoted = _leading_string(part)
        if quoted is not None and (not quoted[1] or (quoted[1].startswith("(") and quoted[1].endswith(")"))):
            name, rest = quoted
            out.append((name, rest[1:-1].strip() or None if rest else None))
            continue
        if part.endswith(")") and "(" in part:
            part, colour = part[: part.rindex("(")].strip(), part[part.rindex("(") + 1 : -1].strip() or None
        out.append((part.strip().strip('"\u201c\u201d'), colour))  # typographic quotes as a word processor puts them
    return out


def write_seats(names: Sequence[str], colours: Sequence[str | None] | None = None) -> str:
    colours = list(colours or [None] * len(names))
    return ", ".join(f"{_list_name(n)} ({c})" if c else _list_name(n) for n, c in zip(names, colours, strict=True))


def read_options(value: str) -> dict[str, Any]:
    """`players=3, money=hidden` or a JSON object."""
    text = value.strip()
    if text.startswith("{"):
        found = json.loads(text)
        if not isinstance(found, dict):
            raise ValueError("Options must be key=value pairs or a JSON object")
        return found
    out: dict[str, Any] = {}
    for part in _split_list(text):
        if "=" not in part:
            raise ValueError(f"{part!r} is not key=value")
        key, raw = (p.strip() for p in part.split("=", 1))
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def write_options(options: Mapping[str, Any]) -> str:
    simple = all(isinstance(v, (int, str, bool)) and not (isinstance(v, str) and ("," in v or "=" in v))
                 for v in options.values())
    if not simple:
        return json.dumps(dict(options), separators=(",", ":"))
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in options.items())


_SCORE_UNIT = re.compile(r"(?<=\d)\s*(?:pts?|points?|vp|pv|punti|victory points)\.?\s*$", re.IGNORECASE)
"""What people write after a score (`31 pts`, `27 VP`, `12 punti`): read as the score alone."""


def read_result(value: str) -> dict[str, int]:
    """`Ada 45, Bruno 38, "Rossi, Mario" 40` -> {"Ada": 45, "Bruno": 38, "Rossi, Mario": 40}; a colon or `=` after
    a name is read as people write it (`Maria Grazia: 45`), and so is a unit after the score (`Ada 45 pts`, `45VP`)."""
    out: dict[str, int] = {}
    for whole in _split_list(value):
        for part in _pairs(whole):
            _read_score(part, out)
    return out


# `Ada 12 Bruno 9`, `Ada 12; Bruno 9`, `Ada 12 - Bruno 9`: several names and scores in one part of the list
_PAIR = re.compile(r"[ \t;/&\-\u2013]*(?:(?i:and|e)[ \t]+)?(?P<name>[^\W\d][^;/&\d]*?)[ \t]*[:=]?[ \t]*(?P<score>-?\d+)"
                   r"(?:[ \t]*(?i:pts|points?|punti|vp)\.?)?(?=[ \t;/&\-\u2013]|$)")


def _pairs(part: str) -> list[str]:
    """A part of the Result's list holding several names and scores written without commas, each alone; a part
    that does not read so wholly (`Bruno 2 12`: a name with a number) stays one."""
    found = list(_PAIR.finditer(part.strip()))
    if len(found) < 2 or "".join(m.group(0) for m in found) != part.strip() or '"' in part:
        return [part]
    return [f"{m.group('name').strip()} {m.group('score')}" for m in found]


def _read_score(part: str, out: dict[str, int]) -> None:
    """One name and its score into `out`; a ValueError where the part is not one."""
    part = _SCORE_UNIT.sub("", part.strip())
    quoted = _leading_string(part)
    if quoted is not None:  # `"Rossi, Mario" 31`: the name exactly as quoted
        name, score = quoted
    else:
        name, _, score = part.rpartition(" ")
        name = name.strip().rstrip(":=").strip().strip('"\u201c\u201d')  # `Maria Grazia: 45`, `“Ada” 31`
    if not name or not score.lstrip("-").isdigit():
        raise ValueError(f"{part!r} is not a name and a score")
    out[name] = int(score)


def write_result(names: Sequence[str], totals: Sequence[int]) -> str:
    return ", ".join(f"{_result_name(n)} {t}" for n, t in zip(names, totals, strict=True))


def _result_name(name: str) -> str:
    """A name in the Result: quoted also where `read_result` would take its end for the colon people write
    (`Ada: 45`) or its typographic quotes for quoting."""
    listed = _list_name(name)
    if listed == name and name.rstrip(":=").strip().strip('"\u201c\u201d') != name:
        return json.dumps(name, ensure_ascii=False)
    return listed


def _split_list(value: str) -> list[str]:
    """A list's parts at its commas: none inside quotes (where a backslash escapes what follows) or brackets."""
    current: list[str] = []
    parts, depth, quoted = [], 0, False
    escaped = False
    for ch in value:
        if escaped:
            escaped = False
        elif ch == "\\" and quoted:
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch in "({" and not quoted:
            depth += 1
        elif ch in ")}" and not quoted:
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


@dataclass(frozen=True)
class Words:
    """What the notation needs of a title beyond its Game: its vocabulary and a few readings.

    `colours` are the seats' colours in seat order, when the title gives seats colours, so
    a line may name a player by colour. `held(state, seat)` says what a player held (for a
    finding); `round_of(state)` the round a line is in. Both default to the title's view.
    `turn_starts(state)`, where a title's seat may move many turns in a row (a solo game, the
    last player left in a round), says that the command decided in `state` opens a new line.

    Where a turn is a long chain of small commands (Serenissima), a line may leave some out and
    one move may stand for several; three hooks say how, all from the state the move is read in:
    `expand(state, seat, said)` turns what a move says (the vocabulary's reading; None at the end
    of the seat's line) into the commands it stands for: those the line leaves out before it, then
    its own; the move's outcomes go to the last. `write_line(states, commands, met)` writes a
    line's commands (with the state before each, and whether each met chance) as moves, each
    `(index of the last command it stands for, its words)`; commands after the last move are left
    to the line's end. Only the last command of a move may meet chance, and none left to the end.
    `write(state, command)` writes one command as a move in that state (the checker's alternatives).

    What a finding may show while the game is in progress: `secret_outcomes(state, seat, command, asked)`
    says, for each outcome the rules asked of a move (`(kind, source)` in order; `command` None for the
    setup), who alone may read it: that seat, None for no seat (a deal to every seat), or PUBLIC; an outcome
    the rules never asked for (a move that could not be read) is then the moving seat's. `secret_words(command)`
    is how everyone but its seat reads a command whose words are themselves hidden (a War disc placed face
    down), None for a command everyone may read. A title with neither has no secret in what a line says.
    """

    vocabulary: Vocabulary
    colours: Sequence[str] = ()
    held: Callable[[Any, int], Any] | None = None
    round_of: Callable[[Any], int | None] | None = None
    turn_starts: Callable[[Any], bool] | None = None
    seat_sources: tuple[str, ...] = ()  # chance sources that draw seats (a first player): written by the player's name
    expand: Callable[[Any, int, Mapping[str, Any] | None], Sequence[Mapping[str, Any]]] | None = None
    write_line: Callable[[Sequence[Any], Sequence[Mapping[str, Any]], Sequence[bool]], Sequence[tuple[int, str]]] | None = None
    write: Callable[[Any, Mapping[str, Any]], str] | None = None
    skip_refused: bool = False  # a refused move no legal move of its kind can stand for is skipped (its step stays open)
    # (seat, kind) of the pending decision, as the title's `pending` gives them, without its details: the
    # checker asks before every move, and some titles' details cost more than the decision itself
    whose: Callable[[Any], tuple[int | None, str]] | None = None
    secret_outcomes: Callable[[Any, int | None, Mapping[str, Any] | None, Sequence[tuple[str, str]]],
                              Sequence[Owner]] | None = None
    secret_words: Callable[[Mapping[str, Any]], str | None] | None = None
    # whether `seat`'s own view shows what a chance source holds (its own bag; a pool laid out from the edition):
    # only then does a game at the table offer that seat's token the pool's contents and take a draw from it with
    # that token (domain/records/table.py); any other pool is the table key's alone. None: no pool is a seat's
    open_pool: Callable[[str, int], bool] | None = None
    # the places an outcome from `source` fills, position by position, where the edition fixes them (La Città: the
    # tiles laid face up over the board's slots): (the id the board drawing gives the place, the place in words), so a
    # game at the table asks for what was seen at each place (domain/records/table.py). None or empty: no places
    where: Callable[[Edition, str], Sequence[tuple[str, str]]] | None = None
    # a value an outcome from `source` may show, as the table says it (La Città's tiles: "farmland (2 wheat)", not F2),
    # for the buttons a game at the table offers; None: the value as the outcome writes it
    value_words: Callable[[Edition, str, Any], str | None] | None = None
    # a report in the table's words (domain/kernel/report_words.py): the rules' tokens (a colour letter, a bag,
    # a step, a zone) as the game says them, given the seats' names (None: keep the token); what a seat held,
    # summed up from what that seat may see; a score's breakdown (`Game.scores`) as a sentence
    terms: Callable[[str, Sequence[str]], str | None] | None = None
    held_words: Callable[[Any, int, Sequence[str]], str] | None = None
    breakdown_words: Callable[[Mapping[str, Any]], str] | None = None
    # why the rules wait for another seat where a line moves out of turn, as the phrase after its name
    # ("to take a political turn: Ada's first political turn of the year was lost to hunger ..."), from the state,
    # the events since the moving seat last moved, the moving seat, the pending kind and the seats' names
    waiting: Callable[[Any, Sequence[Any], int, str, Sequence[str]], str | None] | None = None
    round_word: str = "round"  # what the number opening a line counts, as the rulebook says it (La Città: the year)
    # the words a table writes for an outcome's item in place of the rules' own (Serenissima: `[Rhodes]`, `[Corfù]`
    # for the port rodi, corfu), casefolded -> the item as the rules write it; an outcome is read so. None: none
    other_names: Callable[[Edition], Mapping[str, str]] | None = None


PUBLIC: Final = "public"
"""`Words.secret_outcomes` of an outcome every reader may read."""

Owner = int | Literal["public"] | None
"""Who may read an outcome while the game is in progress: one seat, every reader (PUBLIC), or no seat (None)."""

HEADER_ORDER = ("Title", "Edition", "EditionHash", "Date", "Place", "Seats", "Options", "Result", "Transcriber")
_HEADER_NAMES = {name.casefold(): name for name in HEADER_ORDER}


Marks = Callable[[int, int], str]
"""(first, last) -> what follows the move that stands for entries[first..last] (glyphs, comments)."""
After = Callable[[int, int], Sequence[str]]
"""(first, last) -> the lines after the turn line of entries[first..last] (its variations)."""


def render(game: Any, words: Words, edition: Any, entries: Sequence[Any], seats: Sequence[str],
           tags: Mapping[str, str] | None = None, colours: Sequence[str | None] | None = None,
           marks: Marks | None = None, after: After | None = None) -> str:
    """A log (kernel Entries, the setup first) as a notation file: one line per turn.

    A turn is a run of consecutive commands by one seat, cut where the title's `turn_starts`
    says a new turn begins; its line starts with the round number when a new round begins
    (the title's own round where its view has one). `marks` and `after` (by entry index, the
    setup 0) add what a study needs: text after each move, lines after each turn line.
    """
    given = dict(tags or {})
    given.setdefault("Seats", write_seats(list(seats), list(colours) if colours else None))
    out = [write_tag(name, given[name]) for name in HEADER_ORDER if given.get(name) is not None]
    out += [write_tag(name, value) for name, value in given.items() if name not in HEADER_ORDER and value is not None]
    out.append("")
    setup = entries[0]
    out.append(" ".join(["Setup", *(_outcome(o, words, seats) for o in setup.outcomes)]) + (marks(0, 0) if marks else ""))
    if after is not None:
        out += after(0, 0)
    state = fold(game, game.begin(edition), setup.events)
    out += render_turns(game, words, state, entries[1:], seats, 1, marks, after)
    return "\n".join(out) + "\n"


def render_turns(game: Any, words: Words, state: Any, entries: Sequence[Any], seats: Sequence[str], first: int = 0,
                 marks: Marks | None = None, after: After | None = None) -> list[str]:
    """Entries (commands, no setup) from `state` as turn lines; the hooks get indexes from `first`.
    A variation's lines are written this way from the state where it leaves its parent."""
    out: list[str] = []
    shown_round: int | None = None
    counted = 0
    previous: int | None = None
    k = 0
    while k < len(entries):
        seat = int(entries[k].command["seat"])
        line: list[Any] = []
        states: list[Any] = []
        start_state = state
        start = k
        while k < len(entries) and int(entries[k].command["seat"]) == seat:
            if line and words.turn_starts is not None and words.turn_starts(state):
                break
            line.append(entries[k])
            states.append(state)
            state = fold(game, state, entries[k].events)
            k += 1
        moves = _moves(words, states, line, seats)
        if marks is not None:
            moves = [text + marks(first + start + a, first + start + b) for text, (a, b) in
                     zip(moves, _spans(words, states, line), strict=True)]
        own = words.round_of(start_state) if words.round_of is not None else _view_round(game, start_state)
        if own is None:
            if previous is None or seat <= previous:
                counted += 1
            own = counted
        previous = seat
        prefix = f"{own}. " if own != shown_round else " " * (len(str(own)) + 2)
        shown_round = own
        out.append(f"{prefix}{write_player(seats[seat])}: " + ", ".join(moves))
        if after is not None:
            out += after(first + start, first + k - 1)
    return out


def _spans(words: Words, states: Sequence[Any], line: Sequence[Any]) -> list[tuple[int, int]]:
    """Which of a line's entries each of its moves stands for (the last move also for those left to the line's end)."""
    if words.write_line is None:
        return [(k, k) for k in range(len(line))]
    spans: list[tuple[int, int]] = []
    first = 0
    for last, _ in words.write_line(states, [e.command for e in line], [bool(e.outcomes) for e in line]):
        spans.append((first, last))
        first = last + 1
    spans[-1] = (spans[-1][0], len(line) - 1)
    return spans


def _moves(words: Words, states: Sequence[Any], line: Sequence[Any], seats: Sequence[str]) -> list[str]:
    """One line's entries as moves, each with the outcomes its commands met."""

    def met(entry: Any) -> str:
        return "".join(" " + _outcome(o, words, seats) for o in entry.outcomes)

    if words.write_line is None:
        return [words.vocabulary.write(e.command) + met(e) for e in line]
    out: list[str] = []
    first = 0
    for last, text in words.write_line(states, [e.command for e in line], [bool(e.outcomes) for e in line]):
        if not first <= last < len(line) or any(e.outcomes for e in line[first:last]):
            raise ValueError(f"the title's line writer hides an outcome or skips back: {text!r}")
        out.append(text + met(line[last]))
        first = last + 1
    if not out or any(e.outcomes for e in line[first:]):
        raise ValueError("the title's line writer leaves a line empty or an outcome unwritten")
    return out


def _outcome(outcome: Any, words: Words, seats: Sequence[str]) -> str:
    """An outcome in brackets; a drawn seat by the player's name."""
    if outcome.source in words.seat_sources:
        return write_outcome([seats[v] if isinstance(v, int) and 0 <= v < len(seats) else v for v in outcome.values])
    return write_outcome(outcome.values)


def _view_round(game: Any, state: Any) -> int | None:
    try:
        found = game.view(state, None).get("round")
    except Exception:  # noqa: BLE001  (a view that cannot say gives no round)
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None
