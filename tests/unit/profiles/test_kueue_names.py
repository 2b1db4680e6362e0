"""kpt_fn.profiles.kueue_names: Kueue's names, declared once."""

from __future__ import annotations

from kpt_fn.problems import rule_family
from kpt_fn.profiles import kueue_names


def test_labels_of_any_object():
    assert kueue_names.labels({"metadata": {"labels": {"a": "b"}}}) == {"a": "b"}
    assert kueue_names.labels({"metadata": {"labels": ["not", "a", "map"]}}) == {}
    assert kueue_names.labels(None) == {} and kueue_names.labels({}) == {}


def test_kueue_objects_by_group_and_kind():
    assert kueue_names.is_kueue_object({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue"}, "LocalQueue")
    assert not kueue_names.is_kueue_object({"apiVersion": "example.com/v1", "kind": "LocalQueue"}, "LocalQueue")
    assert not kueue_names.is_kueue_object({"apiVersion": 3, "kind": "LocalQueue"}, "LocalQueue")


def test_every_rule_is_declared_once_in_the_kueue_family():
    ids = [r.id for r in kueue_names.RULES]
    assert len(ids) == len(set(ids)) and {rule_family(i) for i in ids} == {"kueue"}
    assert kueue_names.RULE_TAS in ids
