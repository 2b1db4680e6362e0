"""kpt_fn.lifecycle.jobset_defaults: what the cluster adds to a JobSet when it creates one (the JobSet
webhook's Default, its re-encoding, the CRD's defaults); the upstream webhook cases are in
tests/upstream/jobset/test_jobset_webhook.py."""

from __future__ import annotations

import copy

import pytest

from kpt_fn import upstream
from kpt_fn.lifecycle import jobset_defaults as jd

RELEASES = ["v2.3.0", "v2.2.1"]


def jobset(**spec):
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"},
            "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "c", "image": "i"}]}}}}}], **spec}}


def test_webhook_default():
    spec = {"replicatedJobs": [{"name": "a"}, "not an object", {"name": "b", "template": {"spec": {
                "completionMode": "NonIndexed", "template": {"spec": {"restartPolicy": ""}}}}}],
            "failurePolicy": {"rules": [{"action": "FailJobSet"}, {"name": "mine"}]},
            "volumeClaimPolicies": [{"templates": []}, {"retentionPolicy": {"whenDeleted": "Retain"}}]}
    jd.webhook_default(spec)
    assert spec["successPolicy"] == {"operator": "All"}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "AnyOrder"}
    a, _, b = spec["replicatedJobs"]
    assert a["template"]["spec"] == {"completionMode": jd.INDEXED, "template": {"spec": {"restartPolicy": jd.ON_FAILURE}}}
    assert b["template"]["spec"]["completionMode"] == "NonIndexed"              # set: kept
    assert b["template"]["spec"]["template"]["spec"]["restartPolicy"] == jd.ON_FAILURE  # "" is defaulted too
    assert spec["network"] == {"enableDNSHostnames": True, "publishNotReadyAddresses": True}
    assert [r["name"] for r in spec["failurePolicy"]["rules"]] == ["failurePolicyRule0", "mine"]
    assert [p["retentionPolicy"] for p in spec["volumeClaimPolicies"]] == [{"whenDeleted": "Delete"}, {"whenDeleted": "Retain"}]


def test_webhook_default_keeps_what_is_set():
    spec = {"successPolicy": {"operator": "Any"}, "startupPolicy": {"startupPolicyOrder": "InOrder"},
            "network": {"enableDNSHostnames": False}}
    jd.webhook_default(spec)
    assert spec == {"successPolicy": {"operator": "Any"}, "startupPolicy": {"startupPolicyOrder": "InOrder"},
                    "network": {"enableDNSHostnames": False, "publishNotReadyAddresses": True}}


def test_webhook_round_trip_adds_the_empty_structs_of_claim_templates():
    spec = {"volumeClaimPolicies": [{"templates": [{"spec": {"accessModes": ["ReadWriteOnce"]}}, "x"]}, "y"]}
    jd.webhook_round_trip(spec)
    assert spec["volumeClaimPolicies"][0]["templates"][0] == {
        "metadata": {}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {}}, "status": {}}


@pytest.mark.parametrize("release", RELEASES)
def test_create_defaults_is_a_copy_and_idempotent(release):
    bundle = upstream.bundle(release)
    js = jobset()
    before = copy.deepcopy(js)
    created = jd.create_defaults(js, bundle)
    assert js == before and created != js
    assert jd.create_defaults(created, bundle) == created
    assert created["spec"]["replicatedJobs"][0]["template"]["spec"]["completionMode"] == jd.INDEXED


@pytest.mark.parametrize("release", RELEASES)
def test_default_created_works_in_place(release):
    js = jobset()
    assert jd.default_created(js, upstream.bundle(release)) is js
    assert js["spec"]["successPolicy"] == {"operator": "All"}


def test_a_jobset_without_a_spec_is_left_alone():
    assert jd.create_defaults({"kind": "JobSet"}, upstream.bundle("v2.3.0")) == {"kind": "JobSet"}
    assert jd.crd_defaults({"kind": "JobSet", "spec": None}, upstream.bundle("v2.3.0")) == {"kind": "JobSet", "spec": None}


@pytest.mark.parametrize("release", RELEASES)
def test_crd_defaults_alone_leave_out_the_webhooks(release):
    js = jobset()
    out = jd.crd_defaults(js, upstream.bundle(release))
    assert out is not js and js == jobset()
    assert "successPolicy" not in out["spec"]  # the webhook's, not the CRD's
    assert "completionMode" not in out["spec"]["replicatedJobs"][0]["template"]["spec"]


@pytest.mark.parametrize("release", RELEASES)
def test_jobset_schema_is_the_bundles(release):
    schema = jd.jobset_schema(upstream.bundle(release))
    assert "spec" in schema["properties"]
