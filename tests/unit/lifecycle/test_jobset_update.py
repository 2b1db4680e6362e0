"""kpt_fn.lifecycle.jobset_update: which changes of a created JobSet the cluster refuses (the JobSet
webhook's ValidateUpdate and the CRD's `self == oldSelf` rules); upstream's own update cases are in
tests/upstream/jobset/."""

from __future__ import annotations

import copy

import pytest

from kpt_fn import upstream
from kpt_fn.lifecycle import jobset_update as ju
from kpt_fn.validation.jobset_webhook import V0_11_1, V0_12_0


def rjob(name, image="i", **pod_meta):
    return {"name": name, "replicas": 1, "template": {"spec": {"template": {
        "metadata": pod_meta, "spec": {"containers": [{"name": "c", "image": image}]}}}}}


def jobset(*rjobs, suspend=None, **spec):
    out = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
           "spec": {"replicatedJobs": list(rjobs) or [rjob("node")], **spec}}
    if suspend is not None:
        out["spec"]["suspend"] = suspend
    return out


@pytest.mark.parametrize("value, expected", [
    ({"a": "", "b": [], "c": {}, "d": None, "e": 0, "f": False}, {"e": 0, "f": False}),
    ({"a": {"b": {"c": ""}}}, None),
    ([], None), ("", None), ("x", "x"), ([{}, 1], [None, 1]),
])
def test_go_value(value, expected):
    assert ju.go_value(value) == expected


@pytest.mark.parametrize("a, b, expected", [
    (1, 1.0, True), (True, 1, False), (False, 0, False), (True, True, True),
    ({"a": [1, True]}, {"a": [1, True]}, True), ({"a": [1, True]}, {"a": [1, 1]}, False),
    ([1], [1, 2], False), ({"a": 1}, {"b": 1}, False), ("1", 1, False), (None, None, True),
])
def test_same(a, b, expected):
    assert ju.same(a, b) is expected


def test_an_unchanged_or_go_equal_jobset_is_accepted():
    old = jobset()
    assert ju.validate_update(old, copy.deepcopy(old), V0_12_0) == []
    spaced = jobset(rjob("node", **{"labels": {}}))  # an empty map is Go's nil map
    assert ju.validate_update(old, spaced, V0_12_0) == []


def test_a_changed_replicated_job_is_refused():
    assert ju.validate_update(jobset(), jobset(rjob("node", image="other")), V0_12_0) == [
        ju.Refusal("spec.replicatedJobs", ju.IMMUTABLE, "jobset-webhook/update")]


def test_managed_by_may_not_change():
    assert ju.validate_update(jobset(), jobset(managedBy="x"), V0_12_0) == [
        ju.Refusal("spec.managedBy", ju.IMMUTABLE, "jobset-webhook/update")]


@pytest.mark.parametrize("suspended", [(True, True), (True, False), (False, True)])
def test_while_suspended_pod_template_scheduling_fields_may_change(suspended):
    old = jobset(rjob("node"), suspend=suspended[0])
    new = jobset(rjob("node", labels={"kueue": "x"}, annotations={"a": "b"}), suspend=suspended[1])
    new["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"] = {"pool": "a"}
    assert ju.validate_update(old, new, V0_12_0) == []
    assert ju.validate_update(jobset(rjob("node")), jobset(rjob("node", labels={"kueue": "x"})), V0_12_0) != []  # running: refused


def test_while_suspended_other_fields_stay_immutable():
    assert ju.validate_update(jobset(suspend=True), jobset(rjob("node", image="other"), suspend=True), V0_12_0) != []


def test_v0_11_1_pairs_by_position_and_panics_past_the_stored_list():
    old = jobset(rjob("a"), suspend=True)
    new = jobset(rjob("a"), rjob("b"), suspend=True)
    [refusal] = ju.validate_update(old, new, V0_11_1)
    assert refusal.message == "panic: runtime error: index out of range [1] with length 1 [recovered]"
    assert ju.validate_update(old, new, V0_12_0) == [ju.Refusal("spec.replicatedJobs", ju.IMMUTABLE, "jobset-webhook/update")]


@pytest.mark.parametrize("release", ["v2.3.0", "v2.2.1"])
def test_immutable_paths_are_the_crds(release):
    paths = ju.immutable_paths(upstream.bundle(release))
    assert ("spec", "replicatedJobs", "[]", "dependsOn") in paths
    assert {("spec", "network"), ("spec", "successPolicy"), ("spec", "startupPolicy")} <= set(paths)


def test_cel_immutables_run_only_where_the_field_is_in_both():
    old = jobset(network={"enableDNSHostnames": True})
    assert ju.cel_immutables(old, jobset(network={"enableDNSHostnames": False}), upstream.bundle("v2.3.0")) == [
        ju.Refusal("spec.network", ju.CEL_IMMUTABLE, "cel/jobset/network")]
    assert ju.cel_immutables(jobset(), jobset(network={"enableDNSHostnames": False}), upstream.bundle("v2.3.0")) == []


def test_cel_immutables_pair_list_items_by_name():
    old = jobset({**rjob("a"), "dependsOn": [{"name": "b", "status": "Ready"}]}, rjob("b"))
    new = jobset(rjob("b"), {**rjob("a"), "dependsOn": [{"name": "b", "status": "Complete"}]})
    [refusal] = ju.cel_immutables(old, new, upstream.bundle("v2.3.0"))
    assert (refusal.path, refusal.message) == ("spec.replicatedJobs[name=a].dependsOn", ju.CEL_IMMUTABLE)
    assert refusal.source == "cel/jobset/dependsOn"  # the guarded field, not the list it sits in
    assert refusal.to_dict() == {"path": refusal.path, "message": ju.CEL_IMMUTABLE, "rule": refusal.source}


def test_refusals_are_both_rules_of_the_bundles_jobset_release():
    old, new = jobset(successPolicy={"operator": "All"}), jobset(rjob("node", image="x"), successPolicy={"operator": "Any"})
    got = ju.refusals(old, new, upstream.bundle("v2.2.1"))
    assert [r.path for r in got] == ["spec.successPolicy", "spec.replicatedJobs"]
