"""kpt_fn.review.diff: the comparison of two expansions, field by field, Secret data masked."""

from __future__ import annotations

from kpt_fn.review import diff


def test_field_changes_match_named_lists():
    old = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    new = {"env": [{"name": "B", "value": "3"}, {"name": "A", "value": "1"}]}
    assert diff.field_changes(old, new) == [("env.B.value", "2", "3")]


def test_field_changes_of_unnamed_lists_are_by_index_and_added_or_removed_fields_are_named():
    assert diff.field_changes({"a": [1, 2], "b": 1}, {"a": [1, 3], "c": 2}) == [
        ("a[1]", 2, 3), ("b", 1, None), ("c", None, 2)]


def test_secret_values_are_masked_with_the_marks_of_kubectl_diff():
    old = {"apiVersion": "v1", "kind": "Secret", "data": {"same": "eA==", "changed": "eQ=="}}
    new = {"apiVersion": "v1", "kind": "Secret", "data": {"same": "eA==", "changed": "eg=="}}
    a, b = diff.mask_secrets(old, new)
    assert a["data"] == {"same": diff.MASKED, "changed": diff.MASKED_BEFORE}
    assert b["data"] == {"same": diff.MASKED, "changed": diff.MASKED_AFTER}


def test_has_changes():
    assert not diff.has_changes({"trainJobs": [], "runtimes": []})
    assert diff.has_changes({"trainJobs": [], "runtimes": [{"runtime": "x"}]})
