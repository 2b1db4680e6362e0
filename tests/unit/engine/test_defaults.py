"""kpt_fn.engine.defaults: the CRD defaults applied as the API server applies them (the default trees read
from the CRD schemas), and private_copy, which shares nothing mutable and deep-copies what is not plain data."""

from __future__ import annotations

import pytest
import yaml

from kpt_fn import upstream
from kpt_fn.engine import defaults
from kpt_fn.upstream import defaults as default_trees

from support import upstream_data

# ../shared beside the checkout (the project's data), never a path of this machine.
CRDS = upstream_data.TRAINER / "manifests" / "base" / "crds"


# --- defaults ----------------------------------------------------------------------------------


def _crd_defaults(filename: str, crds=CRDS) -> set:
    schema = yaml.safe_load(open(crds / filename))["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    out = set()

    def walk(node, path):
        if not isinstance(node, dict):
            return
        if "default" in node:
            out.add((path, repr(node["default"])))
        for key, sub in (node.get("properties") or {}).items():
            walk(sub, f"{path}.{key}")
        if "items" in node:
            walk(node["items"], f"{path}[]")

    walk(schema, "")
    return out


def _tree_defaults(tree, path="") -> set:
    out = set()
    for key, sub in tree.items():
        if isinstance(sub, default_trees._Default):
            out.add((f"{path}.{key}", repr(sub.value)))
            out |= _tree_defaults(sub.tree, f"{path}.{key}")
        elif default_trees.ITEMS in sub:
            out |= _tree_defaults(sub[default_trees.ITEMS], f"{path}.{key}[]")
        else:
            out |= _tree_defaults(sub, f"{path}.{key}")
    return out


@pytest.mark.parametrize("crd,kind", [
    ("trainer.kubeflow.org_trainingruntimes.yaml", "TrainingRuntime"),
    ("trainer.kubeflow.org_clustertrainingruntimes.yaml", "ClusterTrainingRuntime"),
    ("trainer.kubeflow.org_trainjobs.yaml", "TrainJob"),
])
@pytest.mark.upstream
def test_default_trees_read_from_the_schemas_are_the_crds_defaults(crd, kind):
    assert _tree_defaults(upstream.bundle().defaults(kind)) == _crd_defaults(crd)


@pytest.mark.upstream
def test_the_jobset_default_tree_is_the_jobset_crds_spec_defaults():
    crd = _crd_defaults("jobset.x-k8s.io_jobsets.yaml", upstream_data.UPSTREAM / "jobset")
    assert _tree_defaults(upstream.bundle().defaults("JobSet")) == {d for d in crd if d[0].startswith(".spec.")}


def test_schema_defaults_below_a_defaulted_field_and_in_maps_are_filled_too():
    schema = {"properties": {
        "policy": {"default": {}, "properties": {"mode": {"default": "hard"}, "tier": {"type": "integer"}}},
        "labels": {"additionalProperties": {"properties": {"weight": {"default": 1}}}},
        "steps": {"items": {"properties": {"retries": {"default": 0}}}}}}
    obj = {"labels": {"a": {}, "b": {"weight": 5}}, "steps": [{}, {"retries": None}]}
    default_trees.apply_defaults(obj, default_trees.defaults_tree(schema))
    assert obj == {"labels": {"a": {"weight": 1}, "b": {"weight": 5}}, "steps": [{"retries": 0}, {"retries": 0}],
                   "policy": {"mode": "hard"}}


def test_defaults_fill_only_absent_fields_of_present_parents():
    rt = {"spec": {"mlPolicy": {"mpi": {"numProcPerNode": 4}},
                   "podGroupPolicy": {"volcano": {}},
                   "template": {"spec": {"replicatedJobs": [{"name": "a", "groupName": "", "template": {
                       "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 1}]}]}}}}}]}}}}
    out = defaults.default_runtime(rt)
    assert out["spec"]["mlPolicy"]["mpi"] == {"numProcPerNode": 4, "mpiImplementation": "OpenMPI",
                                             "sshAuthMountPath": "/root/.ssh", "runLauncherAsNode": False}
    assert out["spec"]["podGroupPolicy"]["volcano"] == {}  # networkTopology absent: nothing to default
    rj = out["spec"]["template"]["spec"]["replicatedJobs"][0]
    assert rj["groupName"] == "" and rj["replicas"] == 1
    assert rj["template"]["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 1, "protocol": "TCP"}]
    assert "replicas" not in rt["spec"]["template"]["spec"]["replicatedJobs"][0]  # input untouched


def test_trainjob_defaults():
    out = defaults.default_trainjob({"spec": {"runtimeRef": {"name": "x"}, "initializer": {"model": {"secretRef": {}}}}})
    assert out["spec"]["runtimeRef"] == {"name": "x", "apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime"}
    assert out["spec"]["suspend"] is False
    assert out["spec"]["managedBy"] == "trainer.kubeflow.org/trainjob-controller"
    assert out["spec"]["initializer"]["model"]["secretRef"] == {"name": ""}


def test_private_copy_shares_nothing_mutable():
    shared = {"a": [1, {"b": None}]}
    data = {"x": shared, "y": shared, "z": [shared, "s", 1.5, True, None]}
    out = defaults.private_copy(data)
    assert out == data
    assert out["x"] is not shared and out["x"] is not out["y"]  # aliases are copied apart
    assert out["x"]["a"][1] is not shared["a"][1]
    marker = (1, [2])  # not plain data: deep-copied as copy.deepcopy would
    copied = defaults.private_copy({"t": marker})["t"]
    assert copied == marker and copied[1] is not marker[1]
