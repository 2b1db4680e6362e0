"""The writers of `rules`: the catalogue (kpt_fn.rules) as tab-separated text, JSON or YAML."""

from __future__ import annotations

import json

from kpt_fn.yamlio import dump


def table(catalog: list) -> str:
    """One rule a line: id, family, what it applies to, description."""
    lines = [f"{r['id']}\t{r['family']}\t{r.get('applies_to', '')}\t{r.get('description', '')}" for r in catalog]
    return "\n".join(lines) + "\n"


def to_json(catalog: list) -> str:
    return json.dumps(catalog, indent=2, ensure_ascii=False) + "\n"


def to_yaml(catalog: list) -> str:
    return dump(catalog)
