"""The Flux plugin under Trainer v2.2.1 (kpt_fn/plugins/flux.py with v2.2.1's switches), ported from
pkg/runtime/framework/plugins/flux/flux_test.go at v2.2.1.

TestFlux's two cases are golden cases (fixtures/golden/v2.2.1/flux/, each case.yaml names its test
case); TestValidate is here, and what v2.2.1's PodSet (no container command) does to the original
command. TestGetOriginalCommand's table, the same at v2.2.1, runs under both releases' switches in
tests/upstream/trainer/test_plugins_flux.py. TestGenerateRange, TestGenerateHostlist, TestEncodeZ85,
TestDeterministicCurve and TestBuildCurveSecret have the same tables at both tags and test functions
no switch changes: their v2.3.0 port covers both releases.
"""

from __future__ import annotations

import pytest

from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler
from kpt_fn.engine import EngineOptions
from kpt_fn.plugins import flux
from kpt_fn import upstream

V2_2_1 = upstream.bundle("v2.2.1").behaviour
OPTIONS = EngineOptions(bundle=upstream.bundle("v2.2.1"))


def _info(pod_sets=(), flux_policy=None, jobs=None) -> Info:
    return Info(
        labels={},
        annotations={},
        runtime_policy=RuntimePolicy(ml_policy_source={"flux": flux_policy or {}}),
        scheduler=Scheduler(),
        obj_apply={"replicatedJobs": jobs or []},
        pod_sets=list(pod_sets),
    )


# --- TestValidate at v2.2.1 -------------------------------------------------------------------------


def test_validate_valid_when_flux_policy_is_present():
    assert flux.validate(_info(), {}, OPTIONS) == []


def test_validate_checks_the_runtime_num_proc_per_node():
    # Unreachable through the API (the runtime CRD defaults it to 1 and requires >= 1), kept as upstream has it.
    [p] = flux.validate(_info(flux_policy={"numProcPerNode": 0}), {}, OPTIONS)
    assert (p.path, p.message) == ("spec.trainer.numProcPerNode", "must be greater than or equal to 1 for Flux TrainJob")


@pytest.mark.parametrize("num_proc", [0, -3])
def test_validate_does_not_check_the_trainjob_num_proc_per_node(num_proc):
    # v2.2.1's Validate reads fluxPolicy.NumProcPerNode only; v2.3.0 prefers the TrainJob's.
    trainjob = {"spec": {"trainer": {"numProcPerNode": num_proc}}}
    assert flux.validate(_info(flux_policy={"numProcPerNode": 1}), trainjob, OPTIONS) == []
    assert len(flux.validate(_info(flux_policy={"numProcPerNode": 1}), trainjob, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == 1


def test_validate_reserved_installer_as_in_v2_3_0():
    ps = PodSet(name="node", ancestor=None, count=1, init_containers=[Container(name="flux-installer")])
    [p] = flux.validate(_info([ps]), {}, OPTIONS)
    assert (p.path, p.message) == ("spec.trainer.initContainers", "InitContainer 'flux-installer' is reserved")


# --- getOriginalCommand at v2.2.1: no runtime command ------------------------------------------------


def test_original_command_never_has_the_runtime_command():
    ps = PodSet(name="node", ancestor="trainer", count=1, containers=[Container(name="node", command=["lmp", "-in", "x"])])
    tj = {"spec": {"trainer": {"numNodes": 4, "args": ["-nocite"]}}}
    assert flux.original_command(_info([ps]), tj, V2_2_1) == "-nocite"
    assert flux.original_command(_info([ps]), {"spec": {"trainer": {}}}, V2_2_1) == ""


# --- EnforceMLPolicy at v2.2.1: where the installer goes --------------------------------------------


def test_installer_written_into_the_jobset_not_the_pod_set():
    node = {"name": "node", "template": {"spec": {"template": {"spec": {
        "initContainers": [{"name": "warm-up", "image": "busybox"}], "containers": [{"name": "node"}]}}}}}
    ps = PodSet(name="node", ancestor="trainer", count=2, init_containers=[Container(name="warm-up", image="busybox")],
                containers=[Container(name="node")])
    info = _info([ps], {"numProcPerNode": 1}, jobs=[node])
    tj = {"metadata": {"name": "job"}, "spec": {"trainer": {"numNodes": 2}}}
    flux.enforce_ml_policy(info, tj, OPTIONS)
    assert [c.name for c in ps.init_containers] == ["warm-up"]
    pod = node["template"]["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["warm-up", "flux-installer"]
    assert pod["initContainers"][1]["command"] == ["/bin/bash", "/etc/flux-config/init.sh"]
    assert "shared-memory" not in [v["name"] for v in ps.volumes]
    assert [m["mountPath"] for m in ps.containers[0].volume_mounts] == ["/mnt/flux", "/opt/software", "/etc/flux-config", "/curve"]
    assert tj["spec"]["trainer"]["command"] == ["/bin/bash", "/etc/flux-config/entrypoint.sh", ""]


@pytest.mark.parametrize("tasks, gpus", [(1, 0), (4, 2)])
def test_resources_are_the_hosts_own(tasks, gpus):
    assert flux.resource_spec(tasks, gpus, V2_2_1) == "--local"
