"""kpt_fn.engine.runtime_info: runtimePatches merged through the typed JobSetSpec, as
pkg/runtime/core/trainingruntime.go mergeRuntimePatches does at v2.3.0."""

from __future__ import annotations

import pytest


# --- runtimePatches through the typed JobSetSpec -------------------------------------------------


@pytest.mark.parametrize("patched, expected", [
    ("", None),             # the typed round trip drops "" (golden case core-runtime-patch-empty-service-account)
    ("trainer-sa", "trainer-sa"),
    (None, "runtime-sa"),   # no patch value: the runtime's stays
])
def test_a_patch_service_account_replaces_or_removes_the_runtimes(patched, expected):
    """pkg/runtime/core/trainingruntime.go mergeRuntimePatches: each merge result is decoded into a
    typed JobSetSpec, whose serviceAccountName is a plain omitempty string."""
    from kpt_fn.engine import runtime_info

    spec = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
        "serviceAccountName": "runtime-sa", "containers": [{"name": "node", "image": "img"}]}}}}}]}
    pod_patch = {} if patched is None else {"serviceAccountName": patched}
    trainjob = {"spec": {"runtimePatches": [{"manager": "example.com/x", "trainingRuntimeSpec": {"template": {"spec": {
        "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": pod_patch}}}}]}}}}]}}
    merged = runtime_info.merge_runtime_patches(spec, trainjob)
    assert merged["replicatedJobs"][0]["template"]["spec"]["template"]["spec"].get("serviceAccountName") == expected
    assert spec["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["serviceAccountName"] == "runtime-sa"
