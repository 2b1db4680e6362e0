"""Ports of pkg/runtime/framework/plugins/mpi/mpi_test.go at v2.3.0 (TestMPI, TestValidate) on hand-built
Info objects: the plugin guards, the node count and slots, and the validation messages. End-to-end
behaviour is in the golden cases (fixtures/golden/*/mpi/)."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions
from kpt_fn.engine.framework import RenderError
from kpt_fn.plugins import mpi

from upstream.trainer.plugin_info import hand_built_info, mpi_policy, trainjob, pod_set


# --- MPI EnforceMLPolicy ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "runtime_npn, trainer, resources, want",
    [
        (1, {"numNodes": 1, "numProcPerNode": 2}, None, 2),  # "trainJob numProcPerNode is respected"
        (1, {"numNodes": 1, "resourcesPerNode": {"requests": {"custom.com/gpu": "5"}}}, None, 5),
        (1, {"numNodes": 1, "resourcesPerNode": {"requests": {"custom.com/gpu": "1"}}}, None, 1),
        (4, {"numNodes": 1, "resourcesPerNode": {"requests": {"nvidia.com/gpu": "8"}}}, None, 4),  # runtime value kept
        (1, {"numNodes": 1}, {"limits": {"nvidia.com/gpu": "3"}}, 3),  # GPUs from the runtime's node container
    ],
)
def test_mpi_slots(runtime_npn, trainer, resources, want):
    node = {"name": "node", "resources": resources} if resources else {"name": "node"}
    obj_apply = {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {"containers": [node]}}}}}]}
    info = hand_built_info(ml=mpi_policy(npn=runtime_npn), pod_sets=[pod_set("launcher"), pod_set("node", "trainer")], obj_apply=obj_apply)
    mpi.enforce_ml_policy(info, trainjob(trainer=trainer), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert info.runtime_policy.ml_policy_source["mpi"]["numProcPerNode"] == want
    launcher_env = {e["name"]: e["value"] for e in info.pod_set_by_name("launcher").containers[0].env}
    assert launcher_env["OMPI_MCA_orte_set_default_slots"] == str(want)


@pytest.mark.parametrize("launcher_as_node, num_nodes, want", [(False, 2, 2), (True, 10, 9), (True, 1, 1), (True, 0, 1), (False, 0, 0)])
def test_mpi_node_count(launcher_as_node, num_nodes, want):
    info = hand_built_info(ml=mpi_policy(launcher_as_node=launcher_as_node), pod_sets=[pod_set("launcher"), pod_set("node", "trainer")])
    mpi.enforce_ml_policy(info, trainjob(trainer={"numNodes": num_nodes}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert info.pod_set_by_name("node").count == want
    assert info.pod_set_by_name("launcher").count == 1


def test_mpi_does_not_mutate_the_runtime_policy_dict():
    runtime_mpi = mpi_policy()
    info = hand_built_info(ml=dict(runtime_mpi), pod_sets=[pod_set("launcher")])
    mpi.enforce_ml_policy(info, trainjob(trainer={"numProcPerNode": 7}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert runtime_mpi["mpi"]["numProcPerNode"] == 1
    assert info.runtime_policy.ml_policy_source["mpi"]["numProcPerNode"] == 7


def test_mpi_unsupported_implementation_only_fails_with_a_launcher_node_container():
    # Upstream returns the error from inside the launcher/node-container loop.
    info = hand_built_info(ml=mpi_policy(impl=""), pod_sets=[pod_set("node", "trainer")])
    mpi.enforce_ml_policy(info, trainjob(), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    info = hand_built_info(ml=mpi_policy(impl=""), pod_sets=[pod_set("launcher")])
    with pytest.raises(RenderError, match="MPI implementation for \"\" doesn't supported"):
        mpi.enforce_ml_policy(info, trainjob(), EngineOptions(bundle=upstream.bundle("v2.3.0")))


def test_mpi_hostfile_without_endpoints_is_empty():
    info = hand_built_info(ml=mpi_policy(), pod_sets=[pod_set("launcher")])
    assert mpi.hostfile(info) == ""


def test_mpi_bad_secret_options_are_render_errors():
    info = hand_built_info(ml=mpi_policy(), pod_sets=[pod_set("launcher")])
    with pytest.raises(RenderError, match="secretSeed is required when mpiSSHSecret is generate"):
        mpi.enforce_ml_policy(info, trainjob(), EngineOptions(mpiSSHSecret="generate", bundle=upstream.bundle("v2.3.0")))


# --- MPI Validate (upstream TestValidate) ---------------------------------------------------------------


def _validate_mpi(pod_sets, trainer, launcher_as_node=True):
    info = hand_built_info(ml=mpi_policy(launcher_as_node=launcher_as_node), pod_sets=pod_sets)
    return [(p.path, p.message) for p in mpi.validate(info, trainjob("test", trainer), EngineOptions(bundle=upstream.bundle("v2.3.0")))]


LAUNCHER_AS_NODE_ERROR = [("spec.trainer.numNodes", "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node")]


@pytest.mark.parametrize(
    "pod_sets, num_nodes, want",
    [
        ([pod_set("node", "trainer")], 1, []),  # "runtime does not have Launcher but TrainJob has only 1 numNodes"
        ([pod_set("node")], 2, LAUNCHER_AS_NODE_ERROR),
        ([pod_set("launcher")], 2, LAUNCHER_AS_NODE_ERROR),
        ([], 2, LAUNCHER_AS_NODE_ERROR),
        ([pod_set("launcher"), pod_set("node")], 2, []),
    ],
)
def test_mpi_validate_launcher_as_node(pod_sets, num_nodes, want):
    assert _validate_mpi(pod_sets, {"numNodes": num_nodes}) == want


def test_mpi_validate_ignores_launcher_as_node_when_disabled():
    assert _validate_mpi([], {"numNodes": 2}, launcher_as_node=False) == []


def test_mpi_validate_numprocpernode_int_is_fine():
    assert _validate_mpi([], {"numProcPerNode": 8}, launcher_as_node=False) == []


@pytest.mark.parametrize(
    "env, want",
    [
        ([{"name": "OMPI_MCA_orte_default_hostfile", "value": "/custom/hostfile"}], "[OMPI_MCA_orte_default_hostfile]"),
        ([{"name": "OMPI_MCA_plm_rsh_args", "value": "x"}, {"name": "OMPI_MCA_orte_default_hostfile", "value": "y"},
          {"name": "OMPI_MCA_orte_keep_fqdn_hostnames", "value": "z"}, {"name": "OMPI_MCA_orte_set_default_slots", "value": "1"}],
         "[OMPI_MCA_orte_default_hostfile OMPI_MCA_orte_keep_fqdn_hostnames OMPI_MCA_orte_set_default_slots OMPI_MCA_plm_rsh_args]"),
    ],
)
def test_mpi_validate_reserved_env(env, want):
    assert _validate_mpi([], {"env": env}, launcher_as_node=False) == [
        ("spec.trainer.env", f"must not have reserved envs, invalid envs configured: {want}")]


def test_mpi_validate_non_reserved_env_is_valid():
    assert _validate_mpi([], {"env": [{"name": "CUSTOM_ENV", "value": "custom-value"}]}, launcher_as_node=False) == []
