"""Plugin-level ports of upstream's unit tests for mpi, jax and xgboost (hand-built Info objects).

Upstream: pkg/runtime/framework/plugins/{mpi,jax,xgboost}/*_test.go at v2.3.0. End-to-end
behaviour is covered by the golden cases (test_plugins_golden.py); these pin the plugin guards,
the validation messages and the numProcPerNode resolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler
from kpt_fn.plugins import jax, mpi, xgboost
from kpt_fn.problems import Rule

COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


@dataclass(frozen=True)
class Opts:
    plugin_options: dict = field(default_factory=dict)


def _info(ml=None, pod_sets=(), obj_apply=None) -> Info:
    return Info(labels={}, annotations={}, runtime_policy=RuntimePolicy(ml_policy_source=ml),
                scheduler=Scheduler(), obj_apply=obj_apply or {"replicatedJobs": []}, pod_sets=list(pod_sets))


def _mpi(npn=1, impl="OpenMPI", path="/root/.ssh", launcher_as_node=False) -> dict:
    return {"mpi": {"numProcPerNode": npn, "mpiImplementation": impl, "sshAuthMountPath": path,
                    "runLauncherAsNode": launcher_as_node}}


def _tj(name="trainjob", trainer=None) -> dict:
    spec = {} if trainer is None else {"trainer": trainer}
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _ps(name, ancestor=None, count=1, containers=("node",)) -> PodSet:
    return PodSet(name=name, ancestor=ancestor, count=count, containers=[Container(name=c) for c in containers])


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
    info = _info(ml=_mpi(npn=runtime_npn), pod_sets=[_ps("launcher"), _ps("node", "trainer")], obj_apply=obj_apply)
    mpi.enforce_ml_policy(info, _tj(trainer=trainer), Opts())
    assert info.runtime_policy.ml_policy_source["mpi"]["numProcPerNode"] == want
    launcher_env = {e["name"]: e["value"] for e in info.pod_set_by_name("launcher").containers[0].env}
    assert launcher_env["OMPI_MCA_orte_set_default_slots"] == str(want)


@pytest.mark.parametrize("launcher_as_node, num_nodes, want", [(False, 2, 2), (True, 10, 9), (True, 1, 1), (True, 0, 1), (False, 0, 0)])
def test_mpi_node_count(launcher_as_node, num_nodes, want):
    info = _info(ml=_mpi(launcher_as_node=launcher_as_node), pod_sets=[_ps("launcher"), _ps("node", "trainer")])
    mpi.enforce_ml_policy(info, _tj(trainer={"numNodes": num_nodes}), Opts())
    assert info.pod_set_by_name("node").count == want
    assert info.pod_set_by_name("launcher").count == 1


def test_mpi_does_not_mutate_the_runtime_policy_dict():
    runtime_mpi = _mpi()
    info = _info(ml=dict(runtime_mpi), pod_sets=[_ps("launcher")])
    mpi.enforce_ml_policy(info, _tj(trainer={"numProcPerNode": 7}), Opts())
    assert runtime_mpi["mpi"]["numProcPerNode"] == 1
    assert info.runtime_policy.ml_policy_source["mpi"]["numProcPerNode"] == 7


def test_mpi_unsupported_implementation_only_fails_with_a_launcher_node_container():
    # Upstream returns the error from inside the launcher/node-container loop.
    info = _info(ml=_mpi(impl=""), pod_sets=[_ps("node", "trainer")])
    mpi.enforce_ml_policy(info, _tj(), Opts())
    info = _info(ml=_mpi(impl=""), pod_sets=[_ps("launcher")])
    with pytest.raises(RenderError, match="MPI implementation for \"\" doesn't supported"):
        mpi.enforce_ml_policy(info, _tj(), Opts())


def test_mpi_hostfile_without_endpoints_is_empty():
    info = _info(ml=_mpi(), pod_sets=[_ps("launcher")])
    assert mpi.hostfile(info) == ""


def test_mpi_bad_secret_options_are_render_errors():
    info = _info(ml=_mpi(), pod_sets=[_ps("launcher")])
    with pytest.raises(RenderError, match="secretSeed is required when mpiSSHSecret is generate"):
        mpi.enforce_ml_policy(info, _tj(), Opts({"mpiSSHSecret": "generate"}))


# --- MPI Validate (upstream TestValidate) ---------------------------------------------------------------


def _validate_mpi(pod_sets, trainer, launcher_as_node=True):
    info = _info(ml=_mpi(launcher_as_node=launcher_as_node), pod_sets=pod_sets)
    return [(p.path, p.message) for p in mpi.validate(info, _tj("test", trainer), Opts())]


LAUNCHER_AS_NODE_ERROR = [("spec.trainer.numNodes", "must have 1 when MPI trainingRuntime with enabled runLauncherAsNode does not have either launcher and node")]


@pytest.mark.parametrize(
    "pod_sets, num_nodes, want",
    [
        ([_ps("node", "trainer")], 1, []),  # "runtime does not have Launcher but TrainJob has only 1 numNodes"
        ([_ps("node")], 2, LAUNCHER_AS_NODE_ERROR),
        ([_ps("launcher")], 2, LAUNCHER_AS_NODE_ERROR),
        ([], 2, LAUNCHER_AS_NODE_ERROR),
        ([_ps("launcher"), _ps("node")], 2, []),
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


# --- JAX -----------------------------------------------------------------------------------------------


def test_jax_no_trainer_pod_set_does_not_fail():
    info = _info(ml={"jax": {}})
    jax.enforce_ml_policy(info, _tj("test-job", {"numNodes": 2}), Opts())
    assert info.pod_sets == []


@pytest.mark.parametrize("name, count, num_nodes, want", [("test-job", 1, 1, "1"), ("multi-node-job", 2, 4, "4"), ("trainjob", 1, 3, "3")])
def test_jax_env_and_port(name, count, num_nodes, want):
    info = _info(ml={"jax": {}}, pod_sets=[_ps("node", "trainer", count)])
    jax.enforce_ml_policy(info, _tj(name, {"numNodes": num_nodes}), Opts())
    c = info.pod_sets[0].containers[0]
    assert c.env == [
        {"name": "JAX_NUM_PROCESSES", "value": want},
        {"name": "JAX_PROCESS_ID", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{name}-node-0-0.{name}:29500"},
    ]
    assert c.ports == [{"containerPort": 29500}]


def test_jax_gpus_do_not_change_processes():
    info = _info(ml={"jax": {}}, pod_sets=[_ps("node", "trainer")])
    trainer = {"numNodes": 2, "resourcesPerNode": {"requests": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}}}
    jax.enforce_ml_policy(info, _tj("gpu-job", trainer), Opts())
    assert info.pod_sets[0].containers[0].env[0] == {"name": "JAX_NUM_PROCESSES", "value": "2"}


def test_jax_takes_no_part_in_custom_validation():
    # Upstream's CustomValidation of JAX is a no-op: a user JAX_* variable is no error.
    assert not hasattr(jax, "validate")


# --- XGBoost -------------------------------------------------------------------------------------------


def test_xgboost_no_env_without_trainer():
    info = _info(ml={"xgboost": {}}, pod_sets=[_ps("node", "trainer")])
    xgboost.enforce_ml_policy(info, _tj(), Opts())
    assert info.pod_sets[0].containers[0].env == [] and info.pod_sets[0].count == 1


@pytest.mark.parametrize(
    "num_nodes, resources, want",
    [(1, None, "1"), (3, None, "3"), (2, {"limits": {"nvidia.com/gpu": "4"}}, "8"), (4, {"requests": {"cpu": "16"}}, "4")],
)
def test_xgboost_workers(num_nodes, resources, want):
    info = _info(ml={"xgboost": {}}, pod_sets=[_ps("node", "trainer")])
    trainer = {"numNodes": num_nodes}
    if resources:
        trainer["resourcesPerNode"] = resources
    xgboost.enforce_ml_policy(info, _tj("xgb", trainer), Opts())
    c = info.pod_sets[0].containers[0]
    assert c.env == [
        {"name": "DMLC_TRACKER_URI", "value": "xgb-node-0-0.xgb"},
        {"name": "DMLC_TRACKER_PORT", "value": "29500"},
        {"name": "DMLC_TASK_ID", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        {"name": "DMLC_NUM_WORKER", "value": want},
    ]
    assert c.ports == [{"containerPort": 29500}]


@pytest.mark.parametrize(
    "env, want",
    [
        ([{"name": "OK", "value": "1"}], []),
        ([{"name": "DMLC_TRACKER_URI", "value": "custom-tracker"}], [("spec.trainer.env[0]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime")]),
        ([{"name": "DMLC_NUM_WORKER", "value": "10"}], [("spec.trainer.env[0]", "DMLC_NUM_WORKER is reserved for the XGBoost runtime")]),
        ([{"name": "DMLC_TRACKER_URI", "value": "custom"}, {"name": "DMLC_TASK_ID", "value": "0"}],
         [("spec.trainer.env[0]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime"),
          ("spec.trainer.env[1]", "DMLC_TASK_ID is reserved for the XGBoost runtime")]),
    ],
)
def test_xgboost_validate(env, want):
    problems = xgboost.validate(_info(ml={"xgboost": {}}), _tj("test-job", {"numNodes": 1, "env": env}), Opts())
    assert [(p.path, p.message) for p in problems] == want
    assert all(p.severity == "error" for p in problems)


def test_xgboost_validate_without_trainer():
    assert xgboost.validate(_info(ml={"xgboost": {}}), _tj(), Opts()) == []


# --- rules catalog -------------------------------------------------------------------------------------


@pytest.mark.parametrize("plugin", [mpi, xgboost])
def test_rules_are_well_formed(plugin):
    for rule in plugin.RULES:
        assert isinstance(rule, Rule)
        assert rule.id.startswith(rule.family + "/")
