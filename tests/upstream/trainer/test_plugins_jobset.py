"""Ports of pkg/runtime/framework/plugins/jobset/jobset_test.go at v2.3.0: TestValidate (the initializer jobs
and the runtimePatches targets), each template written as the runtime a user would have and run through the
whole engine; TestBuild and TestSyncParallelCount on a hand-built Info, as upstream writes them."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, framework, admission
from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler
from kpt_fn.plugins import jobset
from support.admission_kit import job, runtime, trainjob, errors, patch, NODE


# --- JobSet plugin: initializers --------------------------------------------------------------

@pytest.mark.parametrize("initializer", [None, {}, {"dataset": None}])
def test_no_initializer_needs_nothing(initializer):
    tj = trainjob() if initializer is None else trainjob(initializer=initializer)
    assert errors(admission(tj, runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


@pytest.mark.parametrize("kind,config", [("dataset", "datasetConfig"), ("model", "modelConfig")])
def test_initializer_job_required(kind, config):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job("random", ["random"])), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", f"must have {kind}-initializer job when trainJob is configured with input {config}")]


@pytest.mark.parametrize("kind", ["dataset", "model"])
def test_initializer_container_required(kind):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job(f"{kind}-initializer")), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", f"must have container with name - {kind}-initializer in the {kind}-initializer job")]


@pytest.mark.parametrize("kind", ["dataset", "model"])
def test_initializer_volume_mount_required(kind):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job(f"{kind}-initializer", [f"{kind}-initializer"])), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef",
         f"must have volumeMount with name - initializer in container {kind}-initializer of the {kind}-initializer job")]


def test_valid_initializers_pass():
    rt = runtime(job("dataset-initializer", ["dataset-initializer"], mounts=["initializer"]),
                 job("model-initializer", ["model-initializer"], mounts=["initializer"]))
    rt["spec"]["template"]["spec"]["volumeClaimPolicies"] = [
        {"templates": [{"metadata": {"name": "initializer"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}]
    assert errors(admission(trainjob(initializer={"dataset": {}, "model": {}}), rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


def test_initializer_container_may_be_an_init_container_but_mount_must_be_regular():
    # Upstream's name set holds init and regular containers; the mount check looks at regular ones.
    rt = runtime(job("dataset-initializer", init=["dataset-initializer"]))
    assert errors(admission(trainjob(initializer={"dataset": {}}), rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", "must have volumeMount with name - initializer in container dataset-initializer of "
                            "the dataset-initializer job")]


def test_data_cache_runtime_rejects_dataset_initializer():
    # manifests/base/runtimes at v2.3.0: torch-distributed-with-cache has no `initializer` mount (upstream quirk).
    rt = runtime(job("dataset-initializer", ["dataset-initializer"], ancestor="dataset-initializer"), NODE,
                 ml_policy={"numNodes": 1, "torch": {}})
    assert len(errors(admission(trainjob(initializer={"dataset": {"storageUri": "hf://x"}}), rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))))) == 1


# --- JobSet plugin: runtimePatches --------------------------------------------------------------


@pytest.mark.parametrize("manager,messages", [
    ("acme.io/manager", []),
    ("kueue.k8s.io/", ['must be a domain-prefixed path (such as "acme.io/foo")']),
    ("manager-1", ['must be a domain-prefixed path (such as "acme.io/foo")']),
    ("Acme.io/x", ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                   "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ("acme.io/a b", ["Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]),
])
def test_patch_manager(manager, messages):
    problems = admission(trainjob(runtimePatches=[{"manager": manager}]), runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert errors(problems) == [("spec.runtimePatches.manager", m) for m in messages]


def test_patch_env_on_initializer_and_node_containers_rejected_but_not_on_sidecar():
    rt = runtime(job("node", ["node", "sidecar"], ancestor="trainer"))
    tj = trainjob(runtimePatches=[patch("acme.io/m", containers=[
        {"name": "sidecar", "env": [{"name": "A", "value": "1"}]},
        {"name": "node", "env": [{"name": "B", "value": "2"}]}])])
    assert errors(admission(tj, rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimePatches", "must not have envs for the dataset-initializer, model-initializer, node containers")]


def test_patch_env_on_init_container_named_node_is_allowed():
    # Upstream only checks `containers`, not `initContainers`, for the reserved names.
    rt = runtime(job("node", ["node"], init=["node-init"], ancestor="trainer"))
    tj = trainjob(runtimePatches=[patch("acme.io/m", initContainers=[
        {"name": "node-init", "env": [{"name": "A", "value": "1"}]}])])
    assert errors(admission(tj, rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


def test_patch_targets_are_checked_against_the_unpatched_runtime():
    # A first patch adding a container does not make a second patch's target valid: targets are
    # checked against the runtime as written (plugins/jobset.py).
    tj = trainjob(runtimePatches=[patch("acme.io/a", containers=[{"name": "extra"}]),
                                  patch("acme.io/b", containers=[{"name": "extra", "securityContext": {}}])])
    assert errors(admission(tj, runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimePatches", "must not have container that doesn't exist in the runtime job node")] * 2


# --- JobSet builder on a hand-built Info (jobset_test.go TestBuild / TestSyncParallelCount) ----------


def _info(pod_sets, replicated_jobs):
    return Info(labels={}, annotations={}, runtime_policy=RuntimePolicy(), scheduler=Scheduler(),
                obj_apply={"replicatedJobs": replicated_jobs}, pod_sets=pod_sets)


def _rj(name, init=(), containers=()):
    return {"name": name, "template": {"spec": {"template": {"spec": {
        "initContainers": [{"name": n} for n in init], "containers": [{"name": n} for n in containers]}}}}}


TJ = {"metadata": {"name": "test-job", "namespace": "default"}, "spec": {}}
OPTIONS = EngineOptions(bundle=upstream.bundle("v2.3.0"))


def test_build_syncs_init_containers_and_appends_missing_slots():
    ps = PodSet(name="node", ancestor=None, count=2,
                init_containers=[Container("preflight-check", image="preflight:latest", command=["/bin/sh", "-c"],
                                           env=[{"name": "PET_NNODES", "value": "2"}]),
                                 Container("flux-installer", image="flux:1", command=["init.sh"],
                                           volume_mounts=[{"name": "v", "mountPath": "/v"}],
                                           ports=[{"containerPort": 1}])],
                containers=[Container("node", image="pytorch:latest")])
    info = _info([ps], [_rj("node", init=["preflight-check"], containers=["node"])])
    [js] = jobset.build(info, TJ, OPTIONS)
    pod = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["initContainers"] == [
        {"name": "preflight-check", "image": "preflight:latest", "command": ["/bin/sh", "-c"],
         "env": [{"name": "PET_NNODES", "value": "2"}], "ports": [], "volumeMounts": []},
        {"name": "flux-installer", "image": "flux:1", "command": ["init.sh"], "env": [],
         "ports": [{"containerPort": 1}], "volumeMounts": [{"name": "v", "mountPath": "/v"}]}]
    assert pod["containers"][0]["image"] == "pytorch:latest"


def test_build_fails_when_template_has_fewer_jobs_than_pod_sets():
    info = _info([PodSet("a", None, 1), PodSet("b", None, 1)], [_rj("a")])
    with pytest.raises(framework.RenderError, match="runtime template has 1 replicatedJobs but runtime info has 2 podSets"):
        jobset.build(info, TJ, OPTIONS)


def test_sync_parallel_count_by_name_skips_unknown_pod_sets():
    info = _info([PodSet("b", None, 3), PodSet("zzz", None, 5), PodSet("a", None, 0)],
                 [_rj("a"), {"name": "b", "template": {"spec": {"parallelism": 2, "completions": 4}}}])
    jobset.sync_parallel_count(info)
    assert [(rj["template"]["spec"]["parallelism"], rj["template"]["spec"]["completions"])
            for rj in info.obj_apply["replicatedJobs"]] == [(0, 0), (3, 3)]


def test_pod_network_endpoints_follow_later_count_changes_and_subdomain():
    info = _info([PodSet("node", None, 1)], [{"name": "node", "replicas": 2}])
    info.obj_apply["network"] = {"subdomain": "sub"}
    jobset.identify_pod_network(info, TJ, OPTIONS)
    info.pod_sets[0].count = 2
    assert list(info.pod_sets[0].endpoints()) == [
        "test-job-node-0-0.sub", "test-job-node-0-1.sub", "test-job-node-1-0.sub", "test-job-node-1-1.sub"]
