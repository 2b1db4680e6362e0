"""kpt_fn.admission.match beyond upstream's TestMatcher (tests/upstream/apiserver/test_policy_matching.py):
label selectors, scopes, the defaulting of what comes from Git, and a Namespace not among the inputs."""

from __future__ import annotations

import pytest

from kpt_fn.admission import match


def request(resource="pods", group="", version="v1", namespace="team-a", name="p", operation="CREATE"):
    return {"group": group, "version": version, "resource": resource, "subResource": "", "namespace": namespace,
            "name": name, "operation": operation, "kind": "Pod", "gvk": (group, version, "Pod")}


PODS = {"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "operations": ["CREATE"]}


@pytest.mark.parametrize("selector,labels,expected", [
    ({}, {}, True),
    (None, {"a": "b"}, False),
    ({"matchLabels": {"team": "a"}}, {"team": "a"}, True),
    ({"matchLabels": {"team": "a"}}, {"team": "b"}, False),
    ({"matchExpressions": [{"key": "team", "operator": "In", "values": ["a", "b"]}]}, {"team": "b"}, True),
    ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}, {}, True),
    ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}, {"team": "a"}, False),
    ({"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}, {"gpu": ""}, True),
    ({"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}, {"gpu": "x"}, False),
])
def test_selector(selector, labels, expected):
    assert match.selector_matches(selector, labels) is expected


@pytest.mark.parametrize("selector,error", [
    ({"matchExpressions": [{"key": "a", "operator": "Within", "values": ["x"]}]}, "not a valid label selector operator"),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]}, "values set can't be empty"),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]}, "must be empty"),
    ({"matchLabels": {"a": "not valid"}}, "Invalid value"),
    ({"matchLabels": {"bad key!": "x"}}, "key"),
])
def test_selector_errors(selector, error):
    with pytest.raises(match.SelectorError, match=error):
        match.selector_matches(selector, {})


def test_defaulted_fills_what_the_api_server_defaults():
    assert match.defaulted(None) == {"namespaceSelector": {}, "objectSelector": {}, "matchPolicy": "Equivalent"}
    assert match.defaulted({"matchPolicy": "Exact"})["matchPolicy"] == "Exact"


@pytest.mark.parametrize("scope,namespace,expected", [
    ("*", "a", True), ("Namespaced", "a", True), ("Namespaced", "", False), ("Cluster", "", True), ("Cluster", "a", False),
])
def test_scope(scope, namespace, expected):
    assert match.rule_matches({**PODS, "scope": scope}, request(namespace=namespace)) is expected


def test_operation_and_subresource():
    assert not match.rule_matches({**PODS, "operations": ["UPDATE"]}, request())
    # rules.go resource(): `pods/*` matches every subresource of pods, the main resource ("") included
    assert match.rule_matches({**PODS, "resources": ["pods/*"]}, request())
    assert not match.rule_matches({**PODS, "resources": ["pods/status"]}, request())
    assert match.rule_matches({**PODS, "resources": ["*"]}, request())


def test_unknown_namespace_is_answered_not_guessed():
    criteria = match.defaulted({"resourceRules": [PODS], "namespaceSelector": {"matchLabels": {"team": "a"}}})
    assert match.matches(criteria, request(), {}, None)[0] == match.UNKNOWN_NAMESPACE
    assert match.matches(criteria, request(), {}, {"team": "a"})[0] is True
    assert match.matches(criteria, request(), {}, {"team": "b"})[0] is False
    # a cluster-scoped object is never exempted by a namespace selector
    assert match.matches(criteria, request(namespace=""), {}, None)[0] is True


def test_object_selector_reads_the_created_object_labels():
    criteria = match.defaulted({"resourceRules": [PODS], "objectSelector": {"matchLabels": {"gpu": "true"}}})
    assert match.matches(criteria, request(), {"gpu": "true"}, {})[0] is True
    assert match.matches(criteria, request(), {}, {})[0] is False


def test_resource_names():
    criteria = match.defaulted({"resourceRules": [{**PODS, "resourceNames": ["other"]}]})
    assert match.matches(criteria, request(), {}, {})[0] is False
