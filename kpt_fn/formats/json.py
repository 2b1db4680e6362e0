"""`--format json`: the report as it is (kpt_fn.review.findings), one JSON document.

Texts are kept as they are (a consumer reads the exact file name); a lone surrogate (a file name that
is not UTF-8, read with surrogateescape) has no UTF-8 form, so a report holding one is written with
every non-ASCII character as a JSON escape: still one valid document, and json.loads gives the name
back (os.fsencode then gives its bytes).

The GitHub Actions runner reads the legacy workflow command `##[name]` anywhere in a line of a
step's output (kpt_fn.results.escape says where): a JSON document printed in a CI log would run one
from a file name. `#` occurs only inside JSON strings, so each `##[` is written `##\u005b`, the same
string to every JSON reader (inert()).
"""

from __future__ import annotations

import json

from kpt_fn import __version__


def inert(text: str) -> str:
    """A JSON text with no `##[` in it, equal as JSON (the `[` of each written as a \\u escape)."""
    return text.replace("##[", "##\\u005b")


def write(report: dict, rules: list) -> str:
    doc = {"tool": {"name": "expand-trainjobs", "version": __version__}, **report}
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(doc, indent=2, ensure_ascii=True)
    return inert(text) + "\n"
