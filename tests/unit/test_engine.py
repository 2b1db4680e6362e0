"""Unit tests of the engine's building blocks: CRD defaults, upsert helpers and env conversion
(pkg/apply/apply_test.go), object order, Info lookups, the JobSet builder's
PodSet sync (pkg/runtime/framework/plugins/jobset/jobset_test.go TestBuild / TestSyncParallelCount).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import upstream_data
import yaml

from kpt_fn import upstream
from kpt_fn.engine import apply, defaults, framework, roundtrip
from kpt_fn.upstream import defaults as default_trees
from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler
from kpt_fn.plugins import jobset
from kpt_fn.problems import Rule

REPO = Path(__file__).resolve().parents[2]
# ../shared beside the checkout (the project's data), never a path of this machine.
CRDS = upstream_data.TRAINER / "manifests" / "base" / "crds"


# --- defaults ----------------------------------------------------------------------------------


def _crd_defaults(filename: str) -> set:
    schema = yaml.safe_load(open(CRDS / filename))["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
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


# --- upserts (pkg/apply) ---------------------------------------------------------------------------


def test_upsert_env_replaces_in_place_and_appends():
    envs = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    apply.upsert_env_vars(envs, [{"name": "B", "value": "x"}, {"name": "C", "value": "3"}, {"name": "A", "value": "y"}])
    assert envs == [{"name": "A", "value": "y"}, {"name": "B", "value": "x"}, {"name": "C", "value": "3"}]


def test_upsert_volume_mounts_match_by_mount_path():
    mounts = [{"name": "a", "mountPath": "/x"}]
    apply.upsert_volume_mounts(mounts, [{"name": "b", "mountPath": "/x"}, {"name": "a", "mountPath": "/y"}])
    assert mounts == [{"name": "b", "mountPath": "/x"}, {"name": "a", "mountPath": "/y"}]


@pytest.mark.parametrize("ports,want", [
    ([{"containerPort": 8080}], [{"containerPort": 29500}]),
    ([{"name": "m", "containerPort": 8080}], [{"name": "m", "containerPort": 8080}, {"containerPort": 29500}]),
    ([{"name": "m", "containerPort": 29500}], [{"containerPort": 29500}]),
    ([], [{"containerPort": 29500}]),
])
def test_upsert_port_quirk(ports, want):
    assert apply.upsert_ports(list(ports), [{"containerPort": 29500}]) == want


def test_upserting_a_list_into_itself_never_aliases_an_element():
    # The JobSet builder writes a container's own ports back (pkg/apply/apply.go byContainerPortOrName):
    # 53/UDP replaces 53/TCP, as upstream does, but as a copy, so that the output has no YAML alias.
    ports = [{"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"}, {"name": "dns-udp", "containerPort": 53, "protocol": "UDP"}]
    apply.upsert_ports(ports, list(ports))
    assert ports == [{"name": "dns-udp", "containerPort": 53, "protocol": "UDP"}] * 2
    assert ports[0] is not ports[1]


def test_env_var_conversion():
    assert apply.env_var({"name": "A"}) == {"name": "A", "value": ""}
    assert apply.env_var({"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}) == {
        "name": "A", "valueFrom": {"resourceFieldRef": {"containerName": "", "resource": "limits.cpu", "divisor": "1m"}}}
    assert apply.env_var({"name": "A", "valueFrom": {"fileKeyRef": {"key": "k"}}}) == {"name": "A", "valueFrom": {}}


# --- round trip -------------------------------------------------------------------------------------


def test_normalize_drops_artefacts_and_canonicalises_quantities():
    obj = {"containers": [{"name": "c", "resources": {}, "env": [], "args": None,
                           "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
                          {"name": "d", "resources": {"limits": {"cpu": "1000m", "memory": 1073741824},
                                                      "requests": {}}}],
           "volumes": [{"name": "e", "emptyDir": {"sizeLimit": "1024Mi"}}],
           "metadata": {"labels": {}}, "securityContext": {}}
    roundtrip.normalize(obj)
    assert obj == {"containers": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
                                  {"name": "d", "resources": {"limits": {"cpu": "1", "memory": "1073741824"}}}],
                   "volumes": [{"name": "e", "emptyDir": {"sizeLimit": "1Gi"}}], "securityContext": {}}


# --- framework -----------------------------------------------------------------------------------


def test_objects_are_ordered_secrets_configmaps_podgroups_jobset():
    objs = [{"kind": "JobSet"}, {"kind": "PodGroup", "n": 1}, {"kind": "ConfigMap"}, {"kind": "Secret"},
            {"kind": "PodGroup", "n": 2}]
    assert [o["kind"] for o in framework.order_objects(objs)] == ["Secret", "ConfigMap", "PodGroup", "PodGroup", "JobSet"]
    assert [o.get("n") for o in framework.order_objects(objs) if o["kind"] == "PodGroup"] == [1, 2]


def test_rules_catalog_entries_are_complete_and_unique():
    rules = framework.rules()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids))
    for r in rules:
        assert isinstance(r, Rule)


# --- JobSet builder on a hand-built Info (jobset_test.go TestBuild / TestSyncParallelCount) ----------


def _info(pod_sets, replicated_jobs):
    return Info(labels={}, annotations={}, runtime_policy=RuntimePolicy(), scheduler=Scheduler(),
                obj_apply={"replicatedJobs": replicated_jobs}, pod_sets=pod_sets)


def _rj(name, init=(), containers=()):
    return {"name": name, "template": {"spec": {"template": {"spec": {
        "initContainers": [{"name": n} for n in init], "containers": [{"name": n} for n in containers]}}}}}


TJ = {"metadata": {"name": "test-job", "namespace": "default"}, "spec": {}}


def test_build_syncs_init_containers_and_appends_missing_slots():
    ps = PodSet(name="node", ancestor=None, count=2,
                init_containers=[Container("preflight-check", image="preflight:latest", command=["/bin/sh", "-c"],
                                           env=[{"name": "PET_NNODES", "value": "2"}]),
                                 Container("flux-installer", image="flux:1", command=["init.sh"],
                                           volume_mounts=[{"name": "v", "mountPath": "/v"}],
                                           ports=[{"containerPort": 1}])],
                containers=[Container("node", image="pytorch:latest")])
    info = _info([ps], [_rj("node", init=["preflight-check"], containers=["node"])])
    [js] = jobset.build(info, TJ, None)
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
        jobset.build(info, TJ, None)


def test_sync_parallel_count_by_name_skips_unknown_pod_sets():
    info = _info([PodSet("b", None, 3), PodSet("zzz", None, 5), PodSet("a", None, 0)],
                 [_rj("a"), {"name": "b", "template": {"spec": {"parallelism": 2, "completions": 4}}}])
    jobset.sync_parallel_count(info)
    assert [(rj["template"]["spec"]["parallelism"], rj["template"]["spec"]["completions"])
            for rj in info.obj_apply["replicatedJobs"]] == [(0, 0), (3, 3)]


def test_pod_network_endpoints_follow_later_count_changes_and_subdomain():
    info = _info([PodSet("node", None, 1)], [{"name": "node", "replicas": 2}])
    info.obj_apply["network"] = {"subdomain": "sub"}
    jobset.identify_pod_network(info, TJ)
    info.pod_sets[0].count = 2
    assert list(info.pod_sets[0].endpoints()) == [
        "test-job-node-0-0.sub", "test-job-node-0-1.sub", "test-job-node-1-0.sub", "test-job-node-1-1.sub"]


def test_engine_options_fields_are_its_constructor_keywords():
    import inspect

    from kpt_fn.engine import EngineOptions

    assert EngineOptions.FIELDS == tuple(inspect.signature(EngineOptions).parameters)
    assert EngineOptions(secretSeed="x" * 16) == EngineOptions(secretSeed="x" * 16, plugin_options={"a": 1})
    assert EngineOptions().plugin_options == {}


def test_problem_replace_keeps_the_other_fields_and_equality_ignores_subject():
    import pytest

    from kpt_fn.problems import WARNING, Problem

    p = Problem("m", "spec.x", severity=WARNING, rule="r")
    q = p.replace(subject={"kind": "X"})
    assert (q.message, q.path, q.severity, q.rule, q.subject) == ("m", "spec.x", WARNING, "r", {"kind": "X"})
    assert q == p and hash(q) == hash(p) and p.subject is None
    with pytest.raises(AttributeError):
        p.path = "y"
    with pytest.raises(TypeError):
        p.replace(bogus=1)


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
