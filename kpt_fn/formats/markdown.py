r"""Markdown (GitHub Flavored) in which user content is inert: the one escaping module of the outputs
meant for pull-request comments (`report`, `diff`, the KRM `report:` ConfigMap).

Names, images, env values and messages come from the repository under review, whose author may want
to hide something from the reviewer. Whatever they hold, they stay text on their own line:

- control characters (newlines, carriage returns, Unicode line separators, bidi overrides) are
  written as visible escapes first (kpt_fn.results.escape), so no value starts a line: no forged
  heading, table row, list item or "0 error(s)" summary;
- in Markdown text the characters that open markup anywhere in a line are backslash-escaped
  (CommonMark allows it for every ASCII punctuation character): `\`, backticks, `*`, `_`, `[`, `]`,
  `<`, `>`, `!`, `|`, `~`, `&` and `$` (GitHub's math), so `<img>`, `<!--`, `[x](url)`, emphasis and
  code spans are literal characters and a table cell cannot be split. Characters that are markup only
  at the start of a line (`#`, `-`, `+`, `1.`) need nothing: a value never starts one;
- a code span is fenced with more backticks than the value holds (CommonMark's rule); in a table
  cell its `|` is escaped too, which GFM's table parser honours inside code spans;
- inside raw HTML that this module writes (`<details><summary>`), where Markdown is not parsed, text
  is HTML-escaped instead;
- GitHub turns some plain text into links and notifications after Markdown is parsed: `@name`
  mentions (and emails), `#123` / `GH-123` issue references, and URLs (`https://...`, `www.`, GFM's
  autolink extension). In text and HTML a WORD JOINER (U+2060, invisible) is put after the `@`, the
  `#` or `GH-` before a digit, the `:` of `://` and the `www` before a dot, so none of these patterns
  match: a reason written `cc @platform-team` reads the same and pings nobody. Code spans need
  nothing (GitHub links nothing inside them).
"""

from __future__ import annotations

import html
import re

from kpt_fn.results import escape as _visible

_MARKUP = re.compile(r"([\\`*_\[\]<>!|~&$])")
_BACKTICKS = re.compile("`+")
_LINKING = re.compile(r"(@|#(?=\d)|\b[Gg][Hh]-(?=\d)|:(?=//)|\b[Ww]{3}(?=\.))")
_JOINER = "\u2060"


def _unlinked(value: str) -> str:
    return _LINKING.sub(lambda m: m.group(1) + _JOINER, value)


def text(value) -> str:
    """`value` as literal Markdown text (paragraphs, headings, list items, table cells)."""
    return _unlinked(_MARKUP.sub(r"\\\1", _visible(value)))


def code(value, in_table: bool = False) -> str:
    """`value` as an inline code span (`in_table`: in a table cell, where `|` must be escaped)."""
    body = _visible(value)
    if in_table:
        body = body.replace("|", "\\|")
    if not body:
        return "` `"
    longest = max((len(m) for m in _BACKTICKS.findall(body)), default=0)
    fence = "`" * (longest + 1)
    # A space on each side keeps a leading or trailing backtick off the fence (CommonMark strips one).
    pad = " " if body[0] == "`" or body[-1] == "`" or (body[0] == " " and body[-1] == " ") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def in_html(value) -> str:
    """`value` as text inside raw HTML this module writes (e.g. a <summary>)."""
    return _unlinked(html.escape(_visible(value), quote=True))


def row(cells) -> str:
    """One table row of cells already made safe (text, code or our own markup)."""
    return "| " + " | ".join(cells) + " |"


def table(header: list, rows: list) -> list:
    """The lines of a table: `header` names (ours), `rows` of safe cells."""
    return [row(header), row(["---"] * len(header)), *(row(r) for r in rows)]


def details(summary_html: str, body: list, open_: bool = False) -> list:
    """A collapsible section: `summary_html` is HTML (made with in_html), `body` Markdown lines."""
    return [f"<details{' open' if open_ else ''}><summary>{summary_html}</summary>", "", *body, "", "</details>", ""]


def shorten(value: str, limit: int) -> str:
    """`value` cut to at most `limit` characters, marked as cut."""
    return value if len(value) <= limit else value[: max(limit - 1, 0)] + "…"
