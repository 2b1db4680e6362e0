"""kpt_fn.formats.markdown: user content in a Markdown report stays inert text on its own line."""

from __future__ import annotations

import pytest

from kpt_fn.formats import markdown


@pytest.mark.parametrize("value, expected", [
    ("plain name-1.2", "plain name-1.2"),
    ("a*b_c", "a\\*b\\_c"),
    ("[x](http://e)", "\\[x\\](http:\u2060//e)"),  # a WORD JOINER keeps GitHub from linking the URL
    ("<img src=x>", "\\<img src=x\\>"),
    ("<!-- hide -->", "\\<\\!-- hide --\\>"),
    ("a|b", "a\\|b"),
    ("`code`", "\\`code\\`"),
    ("~~s~~ &amp; $x$ \\", "\\~\\~s\\~\\~ \\&amp; \\$x\\$ \\\\"),
    ("# heading", "# heading"),          # markup only at a line's start: a value never starts one
    ("a\n# forged", "a\\\\n# forged"),  # a newline is a visible escape (its backslash literal): no line starts
    ("a\u2028b\u202ec", "a\\\\u2028b\\\\u202ec"),
    (3, "3"),
])
def test_text(value, expected):
    assert markdown.text(value) == expected


@pytest.mark.parametrize("value, in_table, expected", [
    ("img:1", False, "`img:1`"),
    ("", False, "` `"),
    ("a`b", False, "``a`b``"),
    ("a``b`", False, "``` a``b` ```"),   # more backticks than the value holds, padded off a trailing one
    ("`a", False, "`` `a ``"),
    (" a ", False, "`  a  `"),  # CommonMark strips one space from each side of " a "
    ("a|b", False, "`a|b`"),
    ("a|b", True, "`a\\|b`"),
    ("x\ny", False, "`x\\ny`"),
])
def test_code(value, in_table, expected):
    assert markdown.code(value, in_table) == expected


def test_in_html_escapes_html_and_controls():
    assert markdown.in_html('<b>"x" & \'y\'\n') == "&lt;b&gt;&quot;x&quot; &amp; &#x27;y&#x27;\\n"


def test_table_and_row():
    assert markdown.table(["a", "b"], [["1", "2"]]) == ["| a | b |", "| --- | --- |", "| 1 | 2 |"]
    assert markdown.table(["a"], []) == ["| a |", "| --- |"]


def test_details():
    assert markdown.details("s", ["x"]) == ["<details><summary>s</summary>", "", "x", "", "</details>", ""]
    assert markdown.details("s", [], open_=True)[0] == "<details open><summary>s</summary>"


@pytest.mark.parametrize("value, limit, expected", [
    ("abc", 3, "abc"), ("abcd", 3, "ab…"), ("abc", 1, "…"), ("abc", 0, "…"), ("", 0, ""),
])
def test_shorten(value, limit, expected):
    assert markdown.shorten(value, limit) == expected


@pytest.mark.parametrize("value, expected", [
    ("cc @platform-team", "cc @\u2060platform-team"),
    ("ops@example.com", "ops@\u2060example.com"),
    ("fixes #12 and GH-3", "fixes #\u206012 and GH-\u20603"),
    ("https://evil.example and www.evil.example", "https:\u2060//evil.example and www\u2060.evil.example"),
    ("C# #x www-site a:b", "C# #x www-site a:b"),  # controls: nothing GitHub would link
])
def test_text_links_and_mentions_nothing(value, expected):
    assert markdown.text(value) == expected
    assert markdown.in_html(value) == expected
