"""Notes and introductions as HTML: the Markdown a teacher writes, a safe subset only.

markdown-it-py (the CommonMark parser behind many Python docs tools) in its "zero" preset with a few rules
enabled: emphasis, code, lists, links and strikethrough; raw HTML escaped, only web and mail links.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt


def _safe_link(url: str) -> bool:
    """Only web and mail links: no javascript:, data:, file: or relative paths into the service."""
    return url.strip().lower().startswith(("http://", "https://", "mailto:"))


def _link_open(renderer: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener")
    return str(renderer.renderToken(tokens, idx, options, env))


def _markdown() -> MarkdownIt:
    md = MarkdownIt("zero", {"html": False}).enable(["emphasis", "backticks", "list", "link", "strikethrough"])
    md.validateLink = _safe_link  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _markdown()


@lru_cache(maxsize=4096)
def render(text: str) -> str:
    """A note's text as HTML: the subset only, raw HTML escaped, unsafe links left as plain text."""
    return _MD.render(text).rstrip("\n") if text else ""
