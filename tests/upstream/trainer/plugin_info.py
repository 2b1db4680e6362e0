"""Hand-built Info objects for the ports of upstream's plugin unit tests, which build runtime.Info by
hand instead of from a runtime (pkg/runtime/framework/plugins/*/*_test.go at v2.3.0)."""

from __future__ import annotations

from kpt_fn.engine.info import Container, Info, PodSet, RuntimePolicy, Scheduler

COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"


def hand_built_info(ml=None, pod_sets=(), obj_apply=None) -> Info:
    return Info(labels={}, annotations={}, runtime_policy=RuntimePolicy(ml_policy_source=ml),
                scheduler=Scheduler(), obj_apply=obj_apply or {"replicatedJobs": []}, pod_sets=list(pod_sets))


def mpi_policy(npn=1, impl="OpenMPI", path="/root/.ssh", launcher_as_node=False) -> dict:
    return {"mpi": {"numProcPerNode": npn, "mpiImplementation": impl, "sshAuthMountPath": path,
                    "runLauncherAsNode": launcher_as_node}}


def trainjob(name="trainjob", trainer=None) -> dict:
    spec = {} if trainer is None else {"trainer": trainer}
    return {"metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pod_set(name, ancestor=None, count=1, containers=("node",)) -> PodSet:
    return PodSet(name=name, ancestor=ancestor, count=count, containers=[Container(name=c) for c in containers])
