"""Strategic merge patch: worked runtimePatches examples (upstream pkg/runtime/core/trainingruntime.go applies them) and our own cases."""

import copy
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn.engine.smp import (
    MergeError,
    find_directive_keys,
    merge_jobset_spec,
    resolve_type,
    strategic_merge,
)

REPO = Path(__file__).resolve().parents[3]


def names(items, key="name"):
    return [item[key] for item in items]


def env_merge(original, patch):
    spec = {"containers": [{"name": "c", "env": [{"name": n} for n in original]}]}
    pat = {"containers": [{"name": "c", "env": [{"name": n, "value": "p"} for n in patch]}]}
    return names(strategic_merge(spec, pat, "PodSpec", upstream.bundle("v2.3.0"))["containers"][0]["env"])


@pytest.mark.parametrize(
    "original,patch,expected",
    [
        ("AB", "C", "CAB"),
        ("AB", "BC", "ABC"),
        ("AB", "CA", "CAB"),
        ("ABC", "CA", "BCA"),  # the three cases below were checked with kubectl
        ("ABC", "B", "ABC"),
        ("ABC", "XB", "XABC"),
        ("", "AB", "AB"),
        ("AB", "", "AB"),
        ("ABCD", "DB", "ACDB"),
    ],
)
def test_env_order(original, patch, expected):
    assert "".join(env_merge(list(original), list(patch))) == expected


def test_patched_item_is_deep_merged():
    spec = {"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]}
    patch = {"containers": [{"name": "c", "env": [{"name": "B", "value": "3"}]}]}
    merged = strategic_merge(spec, patch, "PodSpec", upstream.bundle("v2.3.0"))
    assert merged["containers"][0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]


def test_volume_mounts_merge_by_mount_path():
    spec = {"containers": [{"name": "c", "volumeMounts": [{"mountPath": "/a", "name": "x"},
                                                          {"mountPath": "/b", "name": "y"}]}]}
    patch = {"containers": [{"name": "c", "volumeMounts": [{"mountPath": "/b", "name": "z"},
                                                           {"mountPath": "/c", "name": "w"}]}]}
    mounts = strategic_merge(spec, patch, "PodSpec", upstream.bundle("v2.3.0"))["containers"][0]["volumeMounts"]
    assert mounts == [{"mountPath": "/a", "name": "x"}, {"mountPath": "/b", "name": "z"},
                      {"mountPath": "/c", "name": "w"}]


def test_image_pull_secrets_prepend():
    merged = strategic_merge({"imagePullSecrets": [{"name": "s1"}]}, {"imagePullSecrets": [{"name": "s2"}]}, "PodSpec", upstream.bundle("v2.3.0"))
    assert merged["imagePullSecrets"] == [{"name": "s2"}, {"name": "s1"}]


def test_maps_merge_and_lists_without_strategy_replace():
    spec = {
        "nodeSelector": {"pool": "a"},
        "tolerations": [{"key": "t1", "operator": "Exists"}],
        "securityContext": {"runAsUser": 1, "supplementalGroups": [1, 2], "sysctls": [{"name": "a", "value": "1"}]},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}}},
        "containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["A"], "drop": ["B"]}, "runAsUser": 1}}],
    }
    patch = {
        "nodeSelector": {"zone": "z1"},
        "tolerations": [{"key": "t2", "operator": "Exists"}],
        "securityContext": {"runAsGroup": 2, "supplementalGroups": [3], "sysctls": [{"name": "b", "value": "2"}]},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}}},
        "containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["C"]}}}],
    }
    merged = strategic_merge(spec, patch, "PodSpec", upstream.bundle("v2.3.0"))
    assert merged["nodeSelector"] == {"pool": "a", "zone": "z1"}
    assert merged["tolerations"] == [{"key": "t2", "operator": "Exists"}]
    assert merged["securityContext"] == {"runAsUser": 1, "runAsGroup": 2, "supplementalGroups": [3],
                                         "sysctls": [{"name": "b", "value": "2"}]}
    terms = merged["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "b", "operator": "Exists"}]}]
    assert merged["containers"][0]["securityContext"] == {"capabilities": {"add": ["C"], "drop": ["B"]}, "runAsUser": 1}


def test_finalizers_union():
    merged = strategic_merge({"metadata": {"finalizers": ["a", "b"]}}, {"metadata": {"finalizers": ["c", "a"]}},
                             "PodTemplateSpec", upstream.bundle("v2.3.0"))
    assert merged["metadata"]["finalizers"] == ["c", "a", "b"]


def test_null_handling():
    spec = {"metadata": {"labels": {"a": "1", "b": "2"}, "creationTimestamp": None},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}
    patch = {"metadata": {"labels": {"a": None, "c": "3"}, "creationTimestamp": None},
             "spec": {"securityContext": {"runAsUser": None, "runAsGroup": 1},
                      "containers": [{"name": "c", "image": None}, {"name": "n", "image": None}]}}
    merged = strategic_merge(spec, patch, "PodTemplateSpec", upstream.bundle("v2.3.0"))
    assert merged["metadata"] == {"labels": {"b": "2", "c": "3"}}
    assert merged["spec"]["securityContext"] == {"runAsGroup": 1}
    # a new list item keeps its nulls (upstream appends the raw patch item)
    assert merged["spec"]["containers"] == [{"name": "c"}, {"name": "n", "image": None}]


def test_type_mismatch_replaces():
    merged = strategic_merge({"nodeSelector": {"a": "1"}, "priority": 1}, {"nodeSelector": "x", "priority": "2"},
                             "PodSpec", upstream.bundle("v2.3.0"))
    assert merged == {"nodeSelector": "x", "priority": "2"}
    merged = strategic_merge({"containers": "x"}, {"containers": [{"name": "a", "env": [{"name": "A", "x": None}]}]},
                             "PodSpec", upstream.bundle("v2.3.0"))
    assert merged == {"containers": [{"name": "a", "env": [{"name": "A"}]}]}


def test_ports_merge_by_container_port_numbers_compare_as_json():
    spec = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "name": "http"}]}]}
    patch = {"containers": [{"name": "c", "ports": [{"containerPort": 80.0, "protocol": "TCP"}, {"containerPort": "80"}]}]}
    ports = strategic_merge(spec, patch, "PodSpec", upstream.bundle("v2.3.0"))["containers"][0]["ports"]
    assert ports == [{"containerPort": 80, "name": "http", "protocol": "TCP"}, {"containerPort": "80"}]


def test_volumes_same_name_different_source_are_merged():
    merged = strategic_merge({"volumes": [{"name": "v", "emptyDir": {}}]},
                             {"volumes": [{"name": "v", "secret": {"secretName": "s"}}]}, "PodSpec", upstream.bundle("v2.3.0"))
    assert merged["volumes"] == [{"name": "v", "emptyDir": {}, "secret": {"secretName": "s"}}]


def test_inputs_not_mutated_and_unchanged_parts_shared():
    spec = {"containers": [{"name": "a", "env": [{"name": "A"}]}, {"name": "b"}], "volumes": [{"name": "v"}]}
    patch = {"containers": [{"name": "a", "env": [{"name": "B"}]}], "nodeSelector": {"x": "y"}}
    before = copy.deepcopy((spec, patch))
    merged = strategic_merge(spec, patch, "PodSpec", upstream.bundle("v2.3.0"))
    assert (spec, patch) == before
    assert merged["volumes"] is spec["volumes"]
    assert merged["containers"][1] is spec["containers"][1]


def test_missing_merge_key_in_patch_and_original():
    with pytest.raises(MergeError) as err:
        strategic_merge({"containers": [{"name": "a"}]}, {"containers": [{"image": "x"}]}, "PodSpec", upstream.bundle("v2.3.0"))
    assert err.value.message == "map: map[image:x] does not contain declared merge key: name"
    assert err.value.path == "containers"
    with pytest.raises(MergeError, match="declared merge key: mountPath") as err:
        strategic_merge({"containers": [{"name": "a", "volumeMounts": [{"name": "v"}]}]},
                        {"containers": [{"name": "a", "volumeMounts": [{"mountPath": "/x"}]}]}, "PodSpec", upstream.bundle("v2.3.0"))
    assert err.value.path == "containers[0].volumeMounts"


def test_directives():
    patch = {"replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {"$patch": "replace"}},
                                                              "spec": {"template": {"spec": {
                                                                  "$setElementOrder/containers": [],
                                                                  "nodeSelector": {"$retainKeys": "x"}}}}}}]}
    assert find_directive_keys(patch) == [
        "replicatedJobs[0].template.metadata.labels[$patch]",
        "replicatedJobs[0].template.spec.template.spec[$setElementOrder/containers]",
        "replicatedJobs[0].template.spec.template.spec.nodeSelector[$retainKeys]",
    ]
    assert find_directive_keys({"metadata": {"labels": {"$other": "x", "a": "$patch"}}}) == []
    assert find_directive_keys({"a": {"$deleteFromPrimitiveList/finalizers": []}}, path="spec") == [
        "spec.a[$deleteFromPrimitiveList/finalizers]"]
    with pytest.raises(MergeError) as err:
        merge_jobset_spec({"replicatedJobs": [{"name": "node"}]}, patch, upstream.bundle("v2.3.0"))
    assert err.value.path == "replicatedJobs[0].template.metadata.labels[$patch]"


def test_unknown_type_name():
    with pytest.raises(KeyError):
        strategic_merge({}, {}, "Nope", upstream.bundle("v2.3.0"))
    assert resolve_type("PodSpec", upstream.bundle("v2.3.0")) == "io.k8s.api.core.v1.PodSpec"


# ------------------------------------------------------------------------------------------------
# Two runtimePatches applied in sequence to a JobSet spec, as pkg/runtime/core/trainingruntime.go
# mergeRuntimePatches applies them at v2.3.0 (one strategic merge per patch, on the previous result)


RUNTIME_SPEC = {
    "replicatedJobs": [{
        "name": "node",
        "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {"template": {"spec": {
                "nodeSelector": {"pool": "a"},
                "tolerations": [{"key": "t1", "operator": "Exists"}],
                "containers": [
                    {"name": "node", "image": "img", "env": [{"name": "A", "value": "1"}]},
                    {"name": "sidecar", "image": "side", "env": [{"name": "X", "value": "1"}]},
                ],
            }}},
        },
    }],
}
PATCH_1 = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
    "metadata": {"annotations": {"note": "x"}},
    "spec": {"nodeSelector": {"zone": "z1"}, "tolerations": [{"key": "t2", "operator": "Exists"}],
             "schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]}}}}}]}
PATCH_2 = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
    "containers": [{"name": "sidecar", "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "9"}]}]}}}}}]}


def test_runtime_patches_example():
    before = copy.deepcopy(RUNTIME_SPEC)
    spec = merge_jobset_spec(merge_jobset_spec(RUNTIME_SPEC, PATCH_1, upstream.bundle("v2.3.0")), PATCH_2, upstream.bundle("v2.3.0"))
    assert RUNTIME_SPEC == before
    pod = spec["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"] == {"annotations": {"note": "x"}}
    assert pod["spec"]["nodeSelector"] == {"pool": "a", "zone": "z1"}
    assert pod["spec"]["tolerations"] == [{"key": "t2", "operator": "Exists"}]
    assert pod["spec"]["schedulingGates"] == [{"name": "kueue.x-k8s.io/admission"}]
    node, sidecar = pod["spec"]["containers"]
    assert node == {"name": "node", "image": "img", "env": [{"name": "A", "value": "1"}]}
    assert sidecar == {"name": "sidecar", "image": "side", "env": [{"name": "Y", "value": "2"}, {"name": "X", "value": "9"}]}
    assert spec["replicatedJobs"][0]["template"]["metadata"]["labels"] == {
        "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}


def test_replicated_jobs_new_job_prepended_and_depends_on_merged():
    spec = {"replicatedJobs": [{"name": "a", "dependsOn": [{"name": "x", "status": "Ready"}]}, {"name": "b"}]}
    patch = {"replicatedJobs": [{"name": "new"}, {"name": "a", "dependsOn": [{"name": "x", "status": "Complete"},
                                                                           {"name": "y", "status": "Ready"}]}]}
    merged = merge_jobset_spec(spec, patch, upstream.bundle("v2.3.0"))
    assert names(merged["replicatedJobs"]) == ["new", "a", "b"]
    assert merged["replicatedJobs"][1]["dependsOn"] == [{"name": "x", "status": "Complete"},
                                                         {"name": "y", "status": "Ready"}]


def test_patch_meta_holds_the_strategies_of_the_pod_spec():
    meta = upstream.bundle("v2.3.0").patch_meta()
    pod = meta["types"]["io.k8s.api.core.v1.PodSpec"]
    assert pod["volumes"] == {"items": "io.k8s.api.core.v1.Volume", "key": "name", "strategy": "merge,retainKeys"}
    assert "tolerations" not in pod
    assert meta["types"]["io.k8s.api.core.v1.Container"]["volumeMounts"] == {"key": "mountPath", "strategy": "merge"}
