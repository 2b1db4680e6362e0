"""kpt_fn.formats.rules: the rule catalogue as a table, JSON and YAML."""

from __future__ import annotations

import json

from kpt_fn.formats import rules
from kpt_fn.yamlio import load

CATALOG = [{"id": "k8s/x", "family": "k8s", "applies_to": "JobSet", "description": "What x checks é"},
           {"id": "kueue/y", "family": "kueue"}]


def test_table_is_a_header_then_one_aligned_line_per_rule():
    assert rules.table(CATALOG) == ("RULE      FAMILY   APPLIES TO   DESCRIPTION\n"
                                    "k8s/x     k8s      JobSet       What x checks é\n"
                                    "kueue/y   kueue    <none>       <none>\n")


def test_json_and_yaml_are_the_catalogue():
    assert json.loads(rules.to_json(CATALOG)) == CATALOG and "é" in rules.to_json(CATALOG)
    assert load(rules.to_yaml(CATALOG)) == CATALOG
