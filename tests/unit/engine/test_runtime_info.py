"""kpt_fn.engine.runtime_info: runtimePatches merged through the typed JobSetSpec, as
pkg/runtime/core/trainingruntime.go mergeRuntimePatches does at v2.3.0, and the PodSets' resources
without the rpn_merged_in_core switch."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import runtime_info
from kpt_fn.trainer_names import ANCESTOR_LABEL


# --- runtimePatches through the typed JobSetSpec -------------------------------------------------


@pytest.mark.parametrize("patched, expected", [
    ("", None),             # the typed round trip drops "" (golden case core-runtime-patch-empty-service-account)
    ("trainer-sa", "trainer-sa"),
    (None, "runtime-sa"),   # no patch value: the runtime's stays
])
def test_a_patch_service_account_replaces_or_removes_the_runtimes(patched, expected):
    """pkg/runtime/core/trainingruntime.go mergeRuntimePatches: each merge result is decoded into a
    typed JobSetSpec, whose serviceAccountName is a plain omitempty string."""
    spec = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
        "serviceAccountName": "runtime-sa", "containers": [{"name": "node", "image": "img"}]}}}}}]}
    pod_patch = {} if patched is None else {"serviceAccountName": patched}
    trainjob = {"spec": {"runtimePatches": [{"manager": "example.com/x", "trainingRuntimeSpec": {"template": {"spec": {
        "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": pod_patch}}}}]}}}}]}}
    merged = runtime_info.merge_runtime_patches(spec, trainjob, upstream.bundle("v2.3.0"))
    assert merged["replicatedJobs"][0]["template"]["spec"]["template"]["spec"].get("serviceAccountName") == expected
    assert spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["serviceAccountName"] == "runtime-sa"


# --- without rpn_merged_in_core (Trainer v2.2.1): the PodSet's node container gets resourcesPerNode as written


def _rjob(name, containers, **pod):
    return {"name": name, "template": {"metadata": {"labels": {ANCESTOR_LABEL: "trainer"}}, "spec": {"template": {
        "spec": {"containers": containers, **pod}}}}}


def _trainjob(trainer=None):
    return {"kind": "TrainJob", "spec": {**({"trainer": trainer} if trainer else {})}}


def test_resources_per_node_replace_the_node_containers_in_the_trainer_pod_set():
    rj = _rjob("node", [{"name": "node", "resources": {"limits": {"cpu": 4}, "requests": {"cpu": 2}}}, {"name": "side"}])
    rpn = {"limits": {"nvidia.com/gpu": 1}}
    pod = runtime_info.replaced_resources_pod_spec(rj, _trainjob(trainer={"resourcesPerNode": rpn}), {"torch": {}}, "trainer")
    assert pod["containers"][0]["resources"] == rpn and pod["containers"][0]["resources"] is not rpn  # replaced, not merged
    assert rj["template"]["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] == {"cpu": 4}  # input kept


@pytest.mark.parametrize("trainer, ml_policy, ancestor", [
    (None, {"torch": {}}, "trainer"),                       # no resourcesPerNode
    ({"resourcesPerNode": {}}, None, "trainer"),            # no mlPolicy
    ({"resourcesPerNode": {}}, {"torch": {}}, "dataset-initializer"),
])
def test_otherwise_the_templates_pod_spec(trainer, ml_policy, ancestor):
    rj = _rjob("node", [{"name": "node", "resources": {"limits": {"cpu": 4}}}])
    pod = runtime_info.replaced_resources_pod_spec(rj, _trainjob(trainer=trainer), ml_policy, ancestor)
    assert pod is rj["template"]["spec"]["template"]["spec"]
