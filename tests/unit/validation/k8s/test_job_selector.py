"""The Job strategy's selector rules (kpt_fn/validation/k8s/job_selector.py); upstream's table is
tests/upstream/kubernetes/test_registry_batch_job_strategy.py."""

from __future__ import annotations

import pytest

from kpt_fn.validation.k8s import job_selector
from kpt_fn.validation.k8s.findings import Findings
from kpt_fn.validation.k8s.job_selector import UID_LABELS, _UNKNOWN, _selects


def test_job_names_follow_jobsets_naming_and_stop_at_two():
    assert job_selector.job_names("js", "node", 1) == ["js-node-0"]
    assert job_selector.job_names("js", "node", 10**9) == ["js-node-0", "js-node-1"]
    assert job_selector.job_names("js", "node", None) == ["js-node-0"]  # replicas defaults to 1
    assert job_selector.job_names("js", "node", 0) == []
    assert job_selector.job_names(None, "node", 1) == []


@pytest.mark.parametrize("selector,labels,want", [
    ({}, {}, True),
    ({"matchLabels": {"a": "b"}}, {"a": "b"}, True),
    ({"matchLabels": {"a": "b"}}, {"a": "c"}, False),
    ({"matchLabels": {"a": "b"}}, {"a": _UNKNOWN}, None),
    ({"matchLabels": {"controller-uid": "b"}}, {"controller-uid": _UNKNOWN}, False),
    ({"matchExpressions": [{"key": "controller-uid", "operator": "NotIn", "values": ["x"]}]},
     {"controller-uid": _UNKNOWN}, True),
    ({"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"a": _UNKNOWN}, True),
    ({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}, {"a": "1"}, False),
    ({"matchExpressions": [{"key": "a", "operator": "NotIn", "values": ["1"]}]}, {}, True),
    ({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}, {}, None),   # does not convert: no verdict
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]}, {}, None),
    ({"matchLabels": {"a": 1}}, {"a": "1"}, None),                          # the schema check's
])
def test_selects_is_labels_selector_matches_with_unknown_values(selector, labels, want):
    assert _selects(selector, labels, uid_keys=UID_LABELS) is want


def test_a_non_dict_selector_or_labels_never_raise():
    f = Findings()
    job_selector.check({"selector": "x", "manualSelector": True}, ["not", "a", "map"], ["js-node-0"], {}, "spec", f)
    job_selector.check({"selector": ["x"]}, None, ["js-node-0"], {}, "spec", f)
    assert f.items == []
