"""kpt_fn.formats.json: the report as it is, with the tool named."""

from __future__ import annotations

import json

from kpt_fn import __version__
from kpt_fn.formats import json as json_format
from unit.formats.report import RULES, finding, report


def test_the_report_as_it_is_with_the_tool():
    rep = report(finding(message="naïve"))
    out = json_format.write(rep, RULES)
    assert out.endswith("}\n") and "naïve" in out  # not ASCII-escaped
    assert json.loads(out) == {"tool": {"name": "expand-trainjobs", "version": __version__}, **rep}


def test_json_inert_changes_no_value():
    import json

    from kpt_fn.formats.json import inert

    text = json.dumps({"file": "##[stop-commands]x", "n": ["##["]})
    assert "##[" not in inert(text)
    assert json.loads(inert(text)) == json.loads(text)
