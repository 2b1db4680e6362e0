"""The writers of `rules`: the catalogue (kpt_fn.rules) as an aligned table with headers, JSON or YAML."""

from __future__ import annotations

import json

from kpt_fn.formats.columns import aligned
from kpt_fn.yamlio import dump


def table(catalog: list) -> str:
    """One rule a line under a header: id, family, what it applies to, description."""
    return aligned(["RULE", "FAMILY", "APPLIES TO", "DESCRIPTION"],
                   [[r["id"], r["family"], r.get("applies_to", ""), r.get("description", "")] for r in catalog])


def to_json(catalog: list) -> str:
    return json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"


def to_yaml(catalog: list) -> str:
    return dump(catalog)
