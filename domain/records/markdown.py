"""Notes and introductions as HTML: the Markdown a teacher writes, a safe subset only.

markdown-it-py (the CommonMark parser behind many Python docs tools) in its "zero" preset with a few rules
enabled: emphasis, code, lists, links and strikethrough; raw HTML escaped, only web and mail links. A line break
the teacher types is a line break (as in a Lichess study's comment), and a web address typed bare is a link.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

SCHEME = re.compile(r"(?:^|[^A-Za-z0-9.+-])(https?)$", re.IGNORECASE)  # the scheme just before "://", as typed
ADDRESS = re.compile(r"://[^\s<>\"`]+")
TRAILING = ".,;:!?'*_"  # a sentence's punctuation after an address is the sentence's, not the address's


def _safe_link(url: str) -> bool:
    """Only web and mail links: no javascript:, data:, file: or relative paths into the service."""
    return url.strip().lower().startswith(("http://", "https://", "mailto:"))


def _link_open(renderer: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    """A link opens beside the page: a student who follows one in a note stays in the lesson it came from."""
    tokens[idx].attrSet("target", "_blank")
    tokens[idx].attrSet("rel", "nofollow noopener")
    return str(renderer.renderToken(tokens, idx, options, env))


def _address_end(url: str) -> str:
    """`url` without what follows it in the sentence: trailing punctuation, and a ")" it did not open."""
    while url and (url[-1] in TRAILING or (url[-1] == ")" and url.count(")") > url.count("("))):
        url = url[:-1]
    return url


def _bare_link(state: StateInline, silent: bool) -> bool:
    """An http(s) address typed as it is (https://lichess.org/study) made a link: called at its "://"."""
    if state.linkLevel > 0 or not state.src.startswith("://", state.pos):
        return False
    scheme = SCHEME.search(state.pending)
    found = ADDRESS.match(state.src, state.pos, state.posMax)
    if scheme is None or found is None:
        return False
    rest = _address_end(found.group(0))
    if len(rest) <= 3:
        return False
    url = scheme.group(1) + rest
    href = state.md.normalizeLink(url)
    if not state.md.validateLink(href):
        return False
    if not silent:
        state.pending = state.pending[: -len(scheme.group(1))]
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": href}
        token.markup, token.info = "linkify", "auto"
        token = state.push("text", "", 0)
        token.content = state.md.normalizeLinkText(url)
        token = state.push("link_close", "a", -1)
        token.markup, token.info = "linkify", "auto"
    state.pos += len(rest)
    return True


def _markdown() -> MarkdownIt:
    md = MarkdownIt("zero", {"html": False, "breaks": True}).enable(
        ["emphasis", "backticks", "list", "link", "strikethrough", "newline"])
    md.inline.ruler.before("link", "bare_link", _bare_link)
    md.validateLink = _safe_link  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _markdown()


@lru_cache(maxsize=4096)
def render(text: str) -> str:
    """A note's text as HTML: the subset only, raw HTML escaped, unsafe links left as plain text."""
    return _MD.render(text).rstrip("\n") if text else ""
