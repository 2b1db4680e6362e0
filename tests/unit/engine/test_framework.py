"""kpt_fn.engine.framework: the order objects are emitted in, and the rules catalogue of the engine."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import framework
from kpt_fn.upstream.behaviour import switch_on
from kpt_fn.problems import Rule


# --- framework -----------------------------------------------------------------------------------


def test_objects_are_ordered_secrets_configmaps_podgroups_jobset():
    objs = [{"kind": "JobSet"}, {"kind": "PodGroup", "n": 1}, {"kind": "ConfigMap"}, {"kind": "Secret"},
            {"kind": "PodGroup", "n": 2}]
    assert [o["kind"] for o in framework.order_objects(objs)] == ["Secret", "ConfigMap", "PodGroup", "PodGroup", "JobSet"]
    assert [o.get("n") for o in framework.order_objects(objs) if o["kind"] == "PodGroup"] == [1, 2]


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_rules_catalog_entries_are_complete_and_unique(release):
    # A rule whose text differs between releases is declared once per side: one record per release.
    rules = [r for r in framework.rules() if switch_on(upstream.bundle(release).behaviour, r.behaviour)]
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    for r in rules:
        assert isinstance(r, Rule)
