"""kpt_fn.blame: the field of the TrainJob, a runtimePatch or the runtime that a rendered JobSet value
came from (subject None is the TrainJob, else the runtime)."""

from __future__ import annotations

import pytest

from kpt_fn import workload
from kpt_fn.blame import Blame, Key, follow, tokens
from kpt_fn.trainer_names import ANCESTOR_LABEL


@pytest.mark.parametrize("path, steps", [
    ("spec.replicatedJobs[0].template", ["spec", "replicatedJobs", 0, "template"]),
    ("resources.requests[cpu]", ["resources", "requests", Key("cpu")]),
    ("metadata.labels[a.b/c]", ["metadata", "labels", Key("a.b/c")]),
    ("", []),
])
def test_tokens(path, steps):
    got = tokens(path)
    assert got == steps and [type(s) for s in got] == [type(s) for s in steps]


def test_follow_matches_list_items_by_identity_not_position():
    rendered = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    source = {"env": [{"name": "B", "value": "2"}]}
    assert follow(rendered, source, ["env", 1, "value"]) == (["env", 0, "value"], 3)
    assert follow(rendered, source, ["env", 0, "value"]) == (["env"], 1)   # A is not in the source
    assert follow(rendered, source, ["volumes"]) == ([], 0)
    assert follow(rendered, source, ["env", 9]) == (["env"], 1)            # no such rendered item


RUNTIME = {"kind": "ClusterTrainingRuntime", "metadata": {"name": "rt"}, "spec": {
    "mlPolicy": {"numNodes": 2},
    "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
        "backoffLimit": 3,
        "template": {"spec": {
            "containers": [{"name": "node", "image": "rt-image", "env": [{"name": "R", "value": "r"}]}],
            "nodeSelector": {"pool": "a"}}}}}}]}}}}


def trainjob(trainer=None, patches=None):
    spec = {"runtimeRef": {"name": "rt"}}
    if trainer is not None:
        spec["trainer"] = trainer
    if patches is not None:
        spec["runtimePatches"] = patches
    return {"kind": "TrainJob", "metadata": {"name": "tj"}, "spec": spec}


JOBSET = {"kind": "JobSet", "spec": {"replicatedJobs": [{"name": "node", "template": {
    "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
    "spec": {"parallelism": 2, "backoffLimit": 3, "template": {"spec": {
        "containers": [{"name": "node", "image": "x", "env": [{"name": "T", "value": "t"}, {"name": "R", "value": "r"}]}],
        "nodeSelector": {"pool": "a"}}}}}}]}}
POD = "spec.replicatedJobs[0].template.spec.template.spec"


@pytest.mark.parametrize("path, where", [
    # A trainer field the TrainJob sets wins over the runtime's.
    (f"{POD}.containers[0].image", ("spec.trainer.image", None)),
    (f"{POD}.containers[0].env[0].value", ("spec.trainer.env[0].value", None)),
    # A field only the runtime writes: the runtime's, list items found by name.
    (f"{POD}.containers[0].env[1].value",
     ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].env[0].value", RUNTIME)),
    (f"{POD}.nodeSelector[pool]", ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector[pool]", RUNTIME)),
    ("spec.replicatedJobs[0].template.spec.backoffLimit", ("spec.template.spec.replicatedJobs[0].template.spec.backoffLimit", RUNTIME)),
    # The trainer Job's parallelism is the TrainJob's numNodes.
    ("spec.replicatedJobs[0].template.spec.parallelism", ("spec.trainer.numNodes", None)),
    # A value the runtime's container lacks: the field to add there (issue 32 point 5), not the container;
    # a rest with a rendered list index is not added (it says nothing of the source's list).
    (f"{POD}.containers[0].resources.requests[cpu]",
     ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources.requests[cpu]", RUNTIME)),
    (f"{POD}.containers[0].ports[0].name", ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0]", RUNTIME)),
    ("spec.replicatedJobs[0].template.spec.template.spec.nodeSelector[zone]",
     ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector[zone]", RUNTIME)),
    # Not a replicated job's field, or nothing written by anyone.
    ("spec.network", None), ("spec.replicatedJobs[5].template.spec.x.y", None), (f"{POD}.hostNetwork", None),
])
def test_locate(path, where):
    blame = Blame(trainjob({"image": "x", "numNodes": 2, "env": [{"name": "T", "value": "t"}]}), RUNTIME)
    assert blame.locate(JOBSET, path) == where


def test_a_runtime_patch_wins_over_the_runtime_and_the_last_patch_over_earlier_ones():
    def patch(pool):
        return {"manager": "m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
            {"name": "node", "template": {"spec": {"template": {"spec": {"nodeSelector": {"pool": pool}}}}}}]}}}}

    blame = Blame(trainjob(patches=[patch("a"), patch("b")]), RUNTIME)
    assert blame.locate(JOBSET, f"{POD}.nodeSelector[pool]") == (
        "spec.runtimePatches[1].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector[pool]",
        None)


def test_num_nodes_falls_back_to_the_runtimes_ml_policy():
    assert Blame(trainjob(), RUNTIME).nodes() == ("spec.mlPolicy.numNodes", RUNTIME)
    assert Blame(trainjob(), None).nodes() is None


def test_container_and_pod_lookups():
    blame = Blame(trainjob({"resourcesPerNode": {"limits": {"cpu": 1}}}), RUNTIME)
    ps = workload.PodSet(0, JOBSET["spec"]["replicatedJobs"][0])
    container = ps.pod["containers"][0]
    assert blame.container(ps, "containers", container, ("resources",)) == ("spec.trainer.resourcesPerNode", None)
    assert blame.container(ps, "containers", container, ("image",)) == (
        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image", RUNTIME)
    assert blame.container(ps, "containers", container, ("ports",)) is None
    assert blame.pod(ps, ("nodeSelector",)) == ("spec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector", RUNTIME)
    assert blame.pod(ps, ("containers",), match=lambda c: c.get("name") == "node")[0].endswith("containers[0]")
    assert blame.pod(ps, ("tolerations",)) is None


def test_replicated_job_where_it_is_written_last():
    patch = {"manager": "m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node"}]}}}}
    assert Blame(trainjob(), RUNTIME).replicated_job("node") == ("spec.template.spec.replicatedJobs[0]", RUNTIME)
    assert Blame(trainjob(patches=[patch]), RUNTIME).replicated_job("node") == (
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]", None)
    assert Blame(trainjob(), RUNTIME).replicated_job("launcher") is None


def test_resources_per_node_field_names_the_key_of_the_one_resource():
    from kpt_fn.blame import resources_per_node_field

    tj = {"spec": {"trainer": {"resourcesPerNode": {"requests": {"cpu": "2"}, "limits": {"nvidia.com/gpu": 4, "cpu": "4"}}}}}
    assert resources_per_node_field(tj, ["cpu"]) == "spec.trainer.resourcesPerNode.requests[cpu]"  # requests first
    assert resources_per_node_field(tj, ["nvidia.com/gpu"]) == "spec.trainer.resourcesPerNode.limits[nvidia.com/gpu]"
    # several resources, or one it does not write yet: resourcesPerNode itself, where to add it
    assert resources_per_node_field(tj, ["cpu", "memory"]) == "spec.trainer.resourcesPerNode"
    assert resources_per_node_field(tj, ["memory"]) == "spec.trainer.resourcesPerNode"
    assert resources_per_node_field({"spec": {"trainer": {"resourcesPerNode": "x"}}}, ["cpu"]) == "spec.trainer.resourcesPerNode"
