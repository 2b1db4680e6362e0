"""kpt_fn.review.diff: the comparison of two expansions, field by field, Secret data masked."""

from __future__ import annotations

from kpt_fn.review import diff


def test_field_changes_match_named_lists():
    old = {"volumes": [{"name": "A", "emptyDir": {}}, {"name": "B", "secret": {"secretName": "x"}}]}
    new = {"volumes": [{"name": "B", "secret": {"secretName": "y"}}, {"name": "A", "emptyDir": {}}]}
    assert diff.field_changes(old, new) == [("volumes.B.secret.secretName", "x", "y")]


def _named(*names, **extra):
    return [{"name": n, **extra} for n in names]


def test_a_reordering_that_changes_behaviour_is_a_change():
    # `$(VAR)` expands only variables defined earlier: swapping A and B changes what B holds.
    old = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "$(A)"}]}
    new = {"env": [{"name": "B", "value": "$(A)"}, {"name": "A", "value": "1"}]}
    assert diff.field_changes(old, new) == [("env", ["A", "B"], ["B", "A"])]
    pod = "spec.template.spec"
    for field in ("initContainers", "containers"):
        changes = diff.field_changes({"spec": {"template": {"spec": {field: _named("a", "b")}}}},
                                       {"spec": {"template": {"spec": {field: _named("b", "a")}}}})
        assert changes == [(f"{pod}.{field}", ["a", "b"], ["b", "a"])]
    assert diff.field_changes({"spec": {"replicatedJobs": _named("launcher", "node")}},
                                {"spec": {"replicatedJobs": _named("node", "launcher")}}) \
        == [("spec.replicatedJobs", ["launcher", "node"], ["node", "launcher"])]
    rules = {"spec": {"failurePolicy": {"rules": _named("retry", "fail", action="X")}}}
    swapped = {"spec": {"failurePolicy": {"rules": _named("fail", "retry", action="X")}}}
    assert diff.field_changes(rules, swapped) == [("spec.failurePolicy.rules", ["retry", "fail"], ["fail", "retry"])]
    # command and args are plain lists: compared item by item.
    assert diff.field_changes({"args": ["--a", "--b"]}, {"args": ["--b", "--a"]}) == \
        [("args[0]", "--a", "--b"), ("args[1]", "--b", "--a")]


def test_an_added_or_removed_item_alone_is_no_reordering():
    old = {"env": _named("A", "B", "C", value="1")}
    assert diff.field_changes(old, {"env": _named("A", "X", "B", "C", value="1")}) == [("env.X", None, {"name": "X", "value": "1"})]
    assert diff.field_changes(old, {"env": _named("A", "C", value="1")}) == [("env.B", {"name": "B", "value": "1"}, None)]
    # Sets to the cluster stay order-insensitive: volumeMounts, ports, a `rules` list elsewhere.
    for field in ("volumeMounts", "ports", "schedulingGates", "dependsOn"):
        assert diff.field_changes({field: _named("a", "b")}, {field: _named("b", "a")}) == [], field
    assert diff.field_changes({"rules": _named("a", "b")}, {"rules": _named("b", "a")}) == []


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
