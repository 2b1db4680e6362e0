"""`--format json`: the report as it is (kpt_fn.findings), one JSON document."""

from __future__ import annotations

import json

from kpt_fn import __version__


def write(report: dict, rules: list) -> str:
    return json.dumps({"tool": {"name": "expand-trainjobs", "version": __version__}, **report}, indent=2,
                      ensure_ascii=False) + "\n"
