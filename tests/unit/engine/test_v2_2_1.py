"""kpt_fn.engine.v2_2_1: Trainer v2.2.1's mergeRuntimePatches (pkg/runtime/core/trainingruntime.go at
v2.2.1), its VARIANTS entry; the golden cases of fixtures/golden/v2.2.1/ render it whole."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import v2_2_1
from kpt_fn.engine.framework import RenderError
from kpt_fn.trainer_names import ANCESTOR_LABEL

BUNDLE = upstream.bundle("v2.2.1")


def rjob(name, containers, **pod):
    return {"name": name, "template": {"metadata": {"labels": {ANCESTOR_LABEL: "trainer"}}, "spec": {"template": {
        "spec": {"containers": containers, **pod}}}}}


def spec():
    return {"replicatedJobs": [rjob("node", [{"name": "node", "image": "i"}], serviceAccountName="sa"),
                               rjob("other", [{"name": "x", "image": "j"}])]}


def trainjob(*patches, trainer=None):
    return {"kind": "TrainJob", "spec": {"runtimePatches": list(patches), **({"trainer": trainer} if trainer else {})}}


def patch(*jobs, **other):
    return {"manager": "m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": list(jobs), **other}}}}


def test_no_patch_is_the_runtimes_spec_itself():
    s = spec()
    assert v2_2_1.merge_runtime_patches(s, trainjob(), BUNDLE) is s
    assert v2_2_1.merge_runtime_patches(s, trainjob(patch({"name": "node"})), BUNDLE) is s  # no template


def test_a_patch_job_is_merged_into_the_runtimes_job_of_its_name():
    s = spec()
    p = patch({"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "args": ["a"]}]}}}}},
              {"name": "unknown", "template": {"spec": {"parallelism": 2}}}, network={"subdomain": "ignored"})
    out = v2_2_1.merge_runtime_patches(s, trainjob(p), BUNDLE)
    assert [j["name"] for j in out["replicatedJobs"]] == ["node", "other"]  # the runtime's order, nothing added
    assert out["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"] == [
        {"name": "node", "image": "i", "args": ["a"]}]
    assert "network" not in out  # every other field of the patch's spec is ignored
    assert s == spec()  # the runtime's spec is shared: not changed


def test_an_empty_string_removes_the_runtimes_value_as_the_typed_decode_does():
    p = patch({"name": "node", "template": {"spec": {"template": {"spec": {"serviceAccountName": ""}}}}})
    out = v2_2_1.merge_runtime_patches(spec(), trainjob(p), BUNDLE)
    assert "serviceAccountName" not in out["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


def test_a_merge_error_names_the_patch_field():
    # A container without its merge key (name).
    p = patch({"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}})
    with pytest.raises(RenderError) as e:
        v2_2_1.merge_runtime_patches(spec(), trainjob(p, p), BUNDLE)
    assert e.value.path == ("spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template"
                            ".spec.template.spec.containers")
