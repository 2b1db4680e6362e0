"""k8s.io/apiserver v0.36.3 pkg/admission/plugin/policy/matching/matching_test.go TestMatcher,
ported case by case as data (kpt_fn.admission.match). Each case: (name, matchResources, request,
expected match, expected resource, expected kind, expected error text). Upstream's matcher has no
Namespace lister in this test: every case's namespace selector is empty or fails to parse, so the
Namespace's labels are never read (None here). Upstream's EquivalentResourceMapper co-locates
deployments of every group; EQUIVALENTS is that registration. Selectors are given as upstream
gives them (a null objectSelector selects nothing: LabelSelectorAsSelector(nil)), not defaulted.
"""

from __future__ import annotations

import pytest

from kpt_fn.admission import match

ALL = {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"], "scope": "*"}


def rule(group, version, *resources, names=None):
    out = {"operations": ["*"], "apiGroups": [group], "apiVersions": [version], "resources": list(resources), "scope": "*"}
    if names:
        out["resourceNames"] = names
    return out


def gvr(group, version, resource):
    return (group, version, resource)


def req(kind_gvk, resource, sub="", namespace="ns", name="name"):
    return {"group": resource[0], "version": resource[1], "resource": resource[2], "subResource": sub,
            "namespace": namespace, "name": name, "operation": "CREATE", "kind": kind_gvk[2], "gvk": kind_gvk}


DEPLOY = gvr("apps", "v1", "deployments")
DEPLOYMENT = ("apps", "v1", "Deployment")
SCALE = ("autoscaling", "v1", "Scale")
EXT = gvr("extensions", "v1beta1", "deployments")
APPS_BETA = gvr("apps", "v1beta1", "deployments")
_KINDS = {  # mapper.RegisterKindFor(...), per subresource
    "": {EXT: ("extensions", "v1beta1", "Deployment"), DEPLOY: DEPLOYMENT,
         APPS_BETA: ("apps", "v1beta1", "Deployment"), gvr("apps", "v1alpha1", "deployments"): ("apps", "v1alpha1", "Deployment")},
    "scale": {EXT: ("extensions", "v1beta1", "Scale"), DEPLOY: SCALE, APPS_BETA: ("apps", "v1beta1", "Scale"),
              gvr("apps", "v1alpha1", "deployments"): ("apps", "v1alpha1", "Scale")},
}


def equivalents(request):
    if request["resource"] != "deployments":
        return []
    return sorted(_KINDS[request["subResource"]].items())


E = {}  # an empty selector
BAD_NS = {"matchExpressions": [{"key": "key ", "operator": "In", "values": ["bad value"]}]}
BAD = {"matchExpressions": [{"key": "key", "operator": "In", "values": ["bad value"]}]}
POD = req(("example.apiserver.k8s.io", "v1", "Pod"), gvr("example.apiserver.k8s.io", "v1", "pods"))
PODS_RULE = {"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["pods"], "operations": ["*"]}
DEPLOYMENTS_RULE = {"apiGroups": ["*"], "apiVersions": ["*"], "resources": ["deployments"], "operations": ["*"]}
SUB = ("deployments", "deployments/scale")

CASES = [
    ("no rules (just write)", {"namespaceSelector": E, "resourceRules": []}, req(DEPLOYMENT, DEPLOY), False, None, None, ""),
    ("wildcard rule, match as requested", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [ALL]},
     req(DEPLOYMENT, DEPLOY), True, None, DEPLOYMENT, ""),
    ("specific rules, prefer exact match", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("extensions", "v1", "deployments"), rule("apps", "v1beta1", "deployments"), rule("apps", "v1", "deployments")]},
     req(DEPLOYMENT, DEPLOY), True, None, DEPLOYMENT, ""),
    ("specific rules, match miss", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("extensions", "v1beta1", "deployments"), rule("apps", "v1beta1", "deployments")]},
     req(DEPLOYMENT, DEPLOY), False, None, None, ""),
    ("specific rules, exact match miss", {"matchPolicy": "Exact", "namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("extensions", "v1beta1", "deployments"), rule("apps", "v1beta1", "deployments")]},
     req(DEPLOYMENT, DEPLOY), False, None, None, ""),
    ("specific rules, equivalent match, prefer extensions", {"matchPolicy": "Equivalent", "namespaceSelector": E, "objectSelector": E,
     "resourceRules": [rule("extensions", "v1beta1", "deployments"), rule("apps", "v1beta1", "deployments")]},
     req(DEPLOYMENT, DEPLOY), True, EXT, ("extensions", "v1beta1", "Deployment"), ""),
    ("specific rules, equivalent match, prefer apps", {"matchPolicy": "Equivalent", "namespaceSelector": E, "objectSelector": E,
     "resourceRules": [rule("apps", "v1beta1", "deployments"), rule("extensions", "v1beta1", "deployments")]},
     req(DEPLOYMENT, DEPLOY), True, APPS_BETA, ("apps", "v1beta1", "Deployment"), ""),
    ("specific rules, subresource prefer exact match", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("extensions", "v1beta1", *SUB), rule("apps", "v1beta1", *SUB), rule("apps", "v1", *SUB)]},
     req(SCALE, DEPLOY, "scale"), True, None, SCALE, ""),
    ("specific rules, subresource match miss", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("extensions", "v1beta1", *SUB), rule("apps", "v1beta1", *SUB)]},
     req(SCALE, DEPLOY, "scale"), False, None, None, ""),
    ("specific rules, subresource exact match miss", {"matchPolicy": "Exact", "namespaceSelector": E, "objectSelector": E,
     "resourceRules": [rule("extensions", "v1beta1", *SUB), rule("apps", "v1beta1", *SUB)]},
     req(SCALE, DEPLOY, "scale"), False, None, None, ""),
    ("specific rules, subresource equivalent match, prefer extensions", {"matchPolicy": "Equivalent", "namespaceSelector": E,
     "objectSelector": E, "resourceRules": [rule("extensions", "v1beta1", *SUB), rule("apps", "v1beta1", *SUB)]},
     req(SCALE, DEPLOY, "scale"), True, EXT, ("extensions", "v1beta1", "Scale"), ""),
    ("specific rules, subresource equivalent match, prefer apps", {"matchPolicy": "Equivalent", "namespaceSelector": E,
     "objectSelector": E, "resourceRules": [rule("apps", "v1beta1", *SUB), rule("extensions", "v1beta1", *SUB)]},
     req(SCALE, DEPLOY, "scale"), True, APPS_BETA, ("apps", "v1beta1", "Scale"), ""),
    ("specific rules, prefer exact match and name match", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("apps", "v1", "deployments", names=["name"])]},
     req(SCALE, DEPLOY), True, None, SCALE, ""),
    ("specific rules, prefer exact match and name match miss", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [
        rule("apps", "v1", "deployments", names=["wrong-name"])]},
     req(SCALE, DEPLOY), False, None, None, ""),
    ("specific rules, subresource equivalent match, prefer extensions and name match", {"matchPolicy": "Equivalent",
     "namespaceSelector": E, "objectSelector": E, "resourceRules": [rule("apps", "v1", *SUB, names=["name"])]},
     req(SCALE, EXT, "scale"), True, DEPLOY, SCALE, ""),
    ("specific rules, subresource equivalent match, prefer extensions and name match miss", {"matchPolicy": "Equivalent",
     "namespaceSelector": E, "objectSelector": E, "resourceRules": [rule("apps", "v1", *SUB, names=["wrong-name"])]},
     req(SCALE, EXT, "scale"), False, None, None, ""),
    ("exclude resource match on miss", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [ALL],
     "excludeResourceRules": [rule("extensions", "v1beta1", "deployments")]},
     req(SCALE, DEPLOY), True, None, SCALE, ""),
    ("exclude resource miss on match", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [ALL],
     "excludeResourceRules": [rule("extensions", "v1beta1", "deployments")]},
     req(SCALE, EXT), False, None, None, ""),
    ("treat empty ResourceRules as match", {"namespaceSelector": E, "objectSelector": E,
     "excludeResourceRules": [rule("extensions", "v1beta1", "deployments")]},
     req(SCALE, DEPLOY), True, None, None, ""),
    ("treat non-empty ResourceRules as no match", {"namespaceSelector": E, "objectSelector": E, "resourceRules": [{}]},
     req(SCALE, DEPLOY), False, None, None, ""),
    ("erroring namespace selector on otherwise non-matching rule doesn't error", {"namespaceSelector": BAD_NS,
     "objectSelector": E, "resourceRules": [DEPLOYMENTS_RULE]}, POD, False, None, None, ""),
    ("erroring namespace selector on otherwise matching rule errors", {"namespaceSelector": BAD, "objectSelector": E,
     "resourceRules": [PODS_RULE]}, POD, False, None, None, "bad value"),
    ("erroring object selector on otherwise non-matching rule doesn't error", {"namespaceSelector": E, "objectSelector": BAD,
     "resourceRules": [DEPLOYMENTS_RULE]}, POD, False, None, None, ""),
    ("erroring object selector on otherwise matching rule errors", {"namespaceSelector": E, "objectSelector": BAD,
     "resourceRules": [PODS_RULE]}, POD, False, None, None, "bad value"),
]

# Every TestMatcher case is ported; the benchmarks (BenchmarkMatcher, BenchmarkShouldCallHook*) time
# the matcher and assert nothing.
NOT_PORTED = {
    "BenchmarkMatcher": "a benchmark: it asserts nothing (speed is measured with bench/)",
    "BenchmarkShouldCallHookWithComplexRule": "a benchmark: it asserts nothing",
    "BenchmarkShouldCallHookWithComplexSelectorAndRule": "a benchmark: it asserts nothing",
}


@pytest.mark.parametrize("name,criteria,request_,expect,resource,kind,error", CASES, ids=[c[0] for c in CASES])
def test_matcher(name, criteria, request_, expect, resource, kind, error):
    if error:
        with pytest.raises(match.SelectorError, match=error):
            match.matches(criteria, request_, {}, None, equivalents(request_))
        return
    matched, got_resource, got_kind = match.matches(criteria, request_, {}, None, equivalents(request_))
    assert matched is expect
    if kind is not None:
        assert got_kind == kind
    if matched:
        assert got_resource == (resource or (request_["group"], request_["version"], request_["resource"]))


def test_every_upstream_case_is_ported_or_not():
    assert len(CASES) == 24  # TestMatcher's table at v0.36.3
    assert len({c[0] for c in CASES}) == len(CASES)
