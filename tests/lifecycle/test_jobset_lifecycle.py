"""kpt_fn.lifecycle's JobSet rules against JobSet v0.12.0's own tables.

`pkg/webhooks/jobset_webhook_test.go` at v0.12.0: TestJobSetDefaulting (:49-800) and TestValidateUpdate
(:3108-), transcribed by case name into plain data (the Go test's `TestPodTemplate` has restartPolicy
Never and one container). The ElasticJobSet cases need an alpha gate that is off by default; the one
that checks the gate is off is transcribed. The CRD's `self == oldSelf` rules are read from the
project's JobSet schema and checked here against the fields the CRD names.
"""

from __future__ import annotations

import copy

import pytest

from kpt_fn.validation.jobset_webhook import V0_12_0
from kpt_fn import upstream
from kpt_fn.lifecycle import jobset_defaults as jd
from kpt_fn.lifecycle import jobset_update as ju

POD = {"spec": {"restartPolicy": "Never", "containers": [{"name": "test-container", "image": "busybox:latest"}]}}
DEFAULT_SUCCESS = {"operator": "All"}
DEFAULT_STARTUP = {"startupPolicyOrder": "AnyOrder"}
DEFAULT_NETWORK = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}


def _spec(**fields):
    spec = {"successPolicy": copy.deepcopy(DEFAULT_SUCCESS), "startupPolicy": copy.deepcopy(DEFAULT_STARTUP),
            "network": copy.deepcopy(DEFAULT_NETWORK), "managedBy": "jobset.sigs.k8s.io/jobset-controller",
            "replicatedJobs": [{"template": {"spec": {"template": copy.deepcopy(POD), "completionMode": "Indexed"}}}]}
    spec.update(fields)
    return {k: v for k, v in spec.items() if v is not None}


def _rjob(**job_spec):
    return [{"template": {"spec": {"template": copy.deepcopy(POD), **job_spec}}}]


# TestJobSetDefaulting, by name: (input spec, wanted spec)
DEFAULTING = {
    "job completion mode is unset": (_spec(replicatedJobs=_rjob()), _spec()),
    "job completion mode is set to non-indexed": (
        _spec(startupPolicy=None, replicatedJobs=_rjob(completionMode="NonIndexed")),
        _spec(replicatedJobs=_rjob(completionMode="NonIndexed"))),
    "enableDNSHostnames is unset": (_spec(network={"publishNotReadyAddresses": True}), _spec()),
    "enableDNSHostnames is false": (
        _spec(network={"enableDNSHostnames": False, "publishNotReadyAddresses": True}),
        _spec(network={"enableDNSHostnames": False, "publishNotReadyAddresses": True})),
    "PublishNotReadyNetworkAddresess is false": (
        _spec(network={"enableDNSHostnames": True, "publishNotReadyAddresses": False}),
        _spec(network={"enableDNSHostnames": True, "publishNotReadyAddresses": False})),
    "pod restart policy unset": (
        _spec(replicatedJobs=[{"template": {"spec": {"template": {"spec": {"containers": POD["spec"]["containers"]}}, "completionMode": "Indexed"}}}]),
        _spec(replicatedJobs=[{"template": {"spec": {"template": {"spec": {"containers": POD["spec"]["containers"], "restartPolicy": "OnFailure"}}, "completionMode": "Indexed"}}}])),
    "pod restart policy set": (_spec(), _spec()),
    "success policy unset": (_spec(successPolicy=None), _spec()),
    "success policy operator set, replicatedJobNames unset": (
        _spec(successPolicy={"operator": "Any"}), _spec(successPolicy={"operator": "Any"})),
    "startup policy order InOrder set": (
        _spec(startupPolicy={"startupPolicyOrder": "InOrder"}), _spec(startupPolicy={"startupPolicyOrder": "InOrder"})),
    "managedBy field is left nil": (_spec(managedBy=None), _spec(managedBy=None)),
    "failure policy rule name is defaulted when: there is one rule and it does not have a name": (
        _spec(failurePolicy={"rules": [{"action": "FailJobSet"}]}),
        _spec(failurePolicy={"rules": [{"action": "FailJobSet", "name": "failurePolicyRule0"}]})),
    "failure policy rule name is defaulted when: there are two rules, the first rule has a name, the second rule does not have a name": (
        _spec(failurePolicy={"rules": [{"action": "FailJobSet", "name": "ruleWithName"}, {"action": "FailJobSet"}]}),
        _spec(failurePolicy={"rules": [{"action": "FailJobSet", "name": "ruleWithName"},
                                       {"action": "FailJobSet", "name": "failurePolicyRule1"}]})),
    "volumeClaimPolicy retentionPolicy is defaulted to Delete when nil": (
        _spec(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "test-volume"}}]}]),
        _spec(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "test-volume"}}],
                                    "retentionPolicy": {"whenDeleted": "Delete"}}])),
}


@pytest.mark.parametrize("name", sorted(DEFAULTING))
def test_webhook_default_upstream_table(name):
    given, want = DEFAULTING[name]
    spec = copy.deepcopy(given)
    jd.webhook_default(spec)
    assert spec == want


def test_create_defaults_is_idempotent_and_adds_the_crd_defaults_and_round_trip():
    js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "x"},
          "spec": _spec(replicatedJobs=[{"name": "node", "template": {"spec": {"template": copy.deepcopy(POD)}}}],
                        volumeClaimPolicies=[{"templates": [{"metadata": {"name": "v"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}])}
    once = jd.create_defaults(js, upstream.bundle("v2.3.0"))
    assert jd.create_defaults(once, upstream.bundle("v2.3.0")) == once
    rjob = once["spec"]["replicatedJobs"][0]
    assert (rjob["replicas"], rjob["groupName"], rjob["template"]["spec"]["completionMode"]) == (1, "default", "Indexed")
    assert once["spec"]["volumeClaimPolicies"][0]["templates"][0]["status"] == {}
    assert once["spec"]["volumeClaimPolicies"][0]["retentionPolicy"] == {"whenDeleted": "Delete"}
    assert js["spec"]["replicatedJobs"][0].get("replicas") is None  # the input is not touched


# --- TestValidateUpdate ----------------------------------------------------------------------------

def _js(rjobs, suspend=None, managed_by=None, labels=None):
    spec = {"replicatedJobs": rjobs}
    if suspend is not None:
        spec["suspend"] = suspend
    if managed_by is not None:
        spec["managedBy"] = managed_by
    md = {"name": "js", **({"labels": labels} if labels else {})}
    return {"metadata": md, "spec": spec}


def _rj(name="test-jobset-replicated-job-0", replicas=2, parallelism=2, template=None, **job):
    spec = {"parallelism": parallelism, **job}
    if template is not None:
        spec["template"] = template
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


VALID = [_rj("test-jobset-replicated-job-0", 1, 1), _rj("test-jobset-replicated-job-1", 1, 1)]
ANNOTATED = {"metadata": {"annotations": {"key": "value"}}}
GATED = {"spec": {"schedulingGates": [{"name": "example.com/gate"}]}}
IMMUTABLE = [ju.Refusal("spec.replicatedJobs", "field is immutable", "jobset-webhook/update")]

# (old, new, wanted refusals)
UPDATE = {
    "update suspend": (_js(VALID, suspend=True), _js(VALID), []),
    "update labels": (_js(VALID, suspend=True), _js(VALID, labels={"hello": "world"}), []),
    "managedBy is immutable": (
        _js(VALID, managed_by="example.com/old"), _js(VALID, managed_by="example.com/new"),
        [ju.Refusal("spec.managedBy", "field is immutable", "jobset-webhook/update")]),
    "replicated job pod template can be updated for suspended jobset": (
        _js([_rj()], suspend=True), _js([_rj(template=ANNOTATED)]), []),
    "replicated job pod template can be updated for jobset getting suspended": (
        _js([_rj()], suspend=False), _js([_rj(template=ANNOTATED)], suspend=True), []),
    "replicated job pod template cannot be updated for running jobset": (
        _js([_rj()]), _js([_rj(template=ANNOTATED)]), IMMUTABLE),
    "schedulingGates for pod template can be updated for suspended JobSet": (
        _js([_rj()], suspend=True), _js([_rj(template=GATED)]), []),
    "schedulingGates for pod template cannot be updated for unsuspended JobSet": (
        _js([_rj()]), _js([_rj(template=GATED)]), IMMUTABLE),
    "replicated job name cannot be updated": (
        _js([_rj()], suspend=True), _js([_rj("new-replicated-job-name")]), IMMUTABLE),
    "invalid scaling of parallelism and completions when feature gate is disabled": (
        _js([_rj(completions=2)]), _js([_rj(parallelism=8, completions=8)]), IMMUTABLE),
    "adding a new ReplicatedJob while suspended does not panic and is rejected": (
        _js([{"name": "job-a", "template": {"spec": {"parallelism": 2}}}], suspend=True),
        _js([{"name": "job-a", "template": {"spec": {"parallelism": 2}}},
             {"name": "job-b", "template": {"spec": {"parallelism": 2}}}], suspend=True), IMMUTABLE),
}


@pytest.mark.parametrize("name", sorted(UPDATE))
def test_validate_update_upstream_table(name):
    old, new, want = UPDATE[name]
    assert ju.validate_update(old, new, V0_12_0) == want


def test_go_comparison_does_not_tell_empty_from_absent():
    old = _js([_rj(template={"metadata": {}, "spec": {"containers": [{"name": "c", "resources": {}}]}})])
    new = _js([_rj(template={"spec": {"containers": [{"name": "c"}]}})])
    assert ju.validate_update(old, new, V0_12_0) == []


def test_the_crd_immutable_fields_are_read_from_the_schema():
    fields = {".".join(p) for p in ju.immutable_paths(upstream.bundle("v2.3.0"))}
    assert fields == {"spec.failurePolicy", "spec.network", "spec.replicatedJobs.[].dependsOn",
                      "spec.startupPolicy", "spec.successPolicy", "spec.volumeClaimPolicies"}


def test_cel_rules_compare_plain_data_and_pair_list_items_by_name():
    claim = {"metadata": {"name": "v"}, "spec": {"resources": {}}}
    old = {"spec": {"volumeClaimPolicies": [{"templates": [{**claim, "status": {}}]}],
                    "replicatedJobs": [{"name": "a"}, {"name": "b", "dependsOn": [{"name": "a", "status": "Ready"}]}]}}
    new = {"spec": {"volumeClaimPolicies": [{"templates": [claim]}],
                    "replicatedJobs": [{"name": "b", "dependsOn": [{"name": "a", "status": "Complete"}]}, {"name": "a"}]}}
    assert [r.path for r in ju.cel_immutables(old, new, upstream.bundle("v2.3.0"))] == ["spec.replicatedJobs[name=b].dependsOn", "spec.volumeClaimPolicies"]
    # A transition rule runs only where both objects have the field.
    assert ju.cel_immutables({"spec": {}}, {"spec": {"network": {"subdomain": "x"}}}, upstream.bundle("v2.3.0")) == []
