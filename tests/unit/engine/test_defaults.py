"""kpt_fn.engine.defaults: the CRD defaults applied to the engine's private copies as the API server applies
them (the default trees themselves: tests/unit/upstream/test_defaults.py)."""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.engine import defaults


def test_defaults_fill_only_absent_fields_of_present_parents():
    rt = {"spec": {"mlPolicy": {"mpi": {"numProcPerNode": 4}},
                   "podGroupPolicy": {"volcano": {}},
                   "template": {"spec": {"replicatedJobs": [{"name": "a", "groupName": "", "template": {
                       "spec": {"template": {"spec": {"containers": [{"name": "c", "ports": [{"containerPort": 1}]}]}}}}}]}}}}
    out = defaults.default_runtime(rt, upstream.bundle("v2.3.0"))
    assert out["spec"]["mlPolicy"]["mpi"] == {"numProcPerNode": 4, "mpiImplementation": "OpenMPI",
                                             "sshAuthMountPath": "/root/.ssh", "runLauncherAsNode": False}
    assert out["spec"]["podGroupPolicy"]["volcano"] == {}  # networkTopology absent: nothing to default
    rj = out["spec"]["template"]["spec"]["replicatedJobs"][0]
    assert rj["groupName"] == "" and rj["replicas"] == 1
    assert rj["template"]["spec"]["template"]["spec"]["containers"][0]["ports"] == [{"containerPort": 1, "protocol": "TCP"}]
    assert "replicas" not in rt["spec"]["template"]["spec"]["replicatedJobs"][0]  # input untouched


def test_trainjob_defaults():
    out = defaults.default_trainjob({"spec": {"runtimeRef": {"name": "x"}, "initializer": {"model": {"secretRef": {}}}}}, upstream.bundle("v2.3.0"))
    assert out["spec"]["runtimeRef"] == {"name": "x", "apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime"}
    assert out["spec"]["suspend"] is False
    assert out["spec"]["managedBy"] == "trainer.kubeflow.org/trainjob-controller"
    assert out["spec"]["initializer"]["model"]["secretRef"] == {"name": ""}
